"""The replay viewer's local web server: ``fivestack view REPLAY``.

It serves exactly six things, all from memory: the page's four static files (``fivestack/viewer/static``,
shipped with the package: the page, its style, ``map.js``, the map drawing it shares with the arena's page, and
``viewer.js``, the replay UI) and the replay it was given, as ``/replay/meta.json`` (header, summary, events and
where each array lies in the binary) and ``/replay/data.bin`` (the replay's arrays, little-endian, each
8-byte aligned, so that the page views them as typed arrays without parsing). Every other path, including
``../`` and its encodings, absolute paths and anything else, gets 404: nothing on the disk is reachable
through it. It binds 127.0.0.1 unless told otherwise, and answers only GET and HEAD, only at the names it was
started for (``http_rules``: 405 for another method, 421 for another Host).

When the replay cannot be loaded, the error is printed in the terminal and the page shows the same message.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import webbrowser
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Callable

import numpy as np

from fivestack.viewer.http_rules import SECURITY_HEADERS, STATIC, Route, RuledHandler, make_ruled_server, send_reply
from fivestack.viewer.replay import Replay, load_replay

ASSETS = {  # URL path -> (file in fivestack/viewer/static, content type)
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/map.js": ("map.js", "text/javascript; charset=utf-8"),
    "/viewer.js": ("viewer.js", "text/javascript; charset=utf-8"),
    "/viewer.css": ("viewer.css", "text/css; charset=utf-8"),
}
META_PATH = "/replay/meta.json"
DATA_PATH = "/replay/data.bin"
ROUTES: dict[str, Route] = {**{path: STATIC for path in ASSETS}, META_PATH: STATIC, DATA_PATH: STATIC}
JS_DTYPES = {np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int16), np.dtype(np.uint16), np.dtype(np.int32),
             np.dtype(np.uint32), np.dtype(np.float32)}


def start_serving(build: Callable[[], ThreadingHTTPServer], host: str, port: int, complain: Callable[[str], None],
                  name: str) -> tuple[ThreadingHTTPServer, str, threading.Thread] | None:
    """Build a server (``build``) and serve it from a daemon thread named ``name``: the server, its URL and the
    thread, or None, after one clear error to ``complain``, when it cannot listen on ``host:port`` (taken, or a
    wildcard address). The viewer's and the draft screen's servers share it."""
    try:
        server = build()
    except ValueError as e:  # a wildcard address (http_rules.check_bind_host)
        complain(f"Error: {e}")
        return None
    except OSError as e:
        complain(f"Error: cannot listen on {host}:{port} ({e.strerror or e}); choose another --port, or 0 for a "
                 "free one")
        return None
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    return server, url_of(server), thread


def static_files() -> dict[str, bytes]:
    """The page's files, read from the installed package."""
    root = resources.files("fivestack.viewer") / "static"
    return {name: (root / name).read_bytes() for name, _ in set(ASSETS.values())}


def encode_replay(replay: Replay, name: str = "") -> tuple[bytes, bytes]:
    """``(meta.json, data.bin)`` for the page: the JSON documents, and every array as raw little-endian bytes."""
    chunks: list[bytes] = []
    layout: dict[str, dict] = {}
    offset = 0
    for key, array in replay.arrays.items():
        a = np.ascontiguousarray(array)
        if a.dtype == np.int64:
            a = a.astype(np.int32)  # step_start: the page has no int64 views
        elif a.dtype == np.float64:
            a = a.astype(np.float32)
        if a.dtype not in JS_DTYPES:
            raise ValueError(f"array {key!r} has dtype {a.dtype}, which the page cannot view")
        a = a.astype(a.dtype.newbyteorder("<"), copy=False)
        raw = a.tobytes()
        layout[key] = {"dtype": a.dtype.name, "shape": list(a.shape), "offset": offset, "length": int(a.size)}
        pad = (-len(raw)) % 8
        chunks.append(raw + b"\0" * pad)
        offset += len(raw) + pad
    meta = {"name": name, "header": replay.header, "summary": replay.summary, "events": replay.events,
            "arrays": layout, "bytes": offset}
    return json.dumps(meta, separators=(",", ":"), allow_nan=False).encode("utf-8"), b"".join(chunks)


@dataclass
class ViewerState:
    """What the server hands out: the static files and either the encoded replay or the error."""

    files: dict[str, bytes]
    meta: bytes
    data: bytes
    error: str | None = None
    served_meta: threading.Event = field(default_factory=threading.Event)


def prepare(path: str | Path) -> ViewerState:
    """Load the replay for serving; a replay that cannot be loaded becomes the error the page shows."""
    path = Path(path)
    files = static_files()
    try:
        replay = load_replay(path)
    except ValueError as e:
        meta = json.dumps({"name": path.name, "error": str(e)}).encode("utf-8")
        return ViewerState(files, meta, b"", error=str(e))
    meta, data = encode_replay(replay, path.name)
    return ViewerState(files, meta, data)


class _Handler(RuledHandler):
    server_version = "fivestack-viewer"
    routes = ROUTES
    state: ViewerState  # set on the subclass made per server

    def _route(self) -> tuple[bytes, str] | None:
        path = self.path.split("?", 1)[0]
        if path in ASSETS:
            name, ctype = ASSETS[path]
            return self.state.files[name], ctype
        if path == META_PATH:
            self.state.served_meta.set()
            return self.state.meta, "application/json"
        if path == DATA_PATH and self.state.error is None:
            return self.state.data, "application/octet-stream"
        return None

    def _send(self, head_only: bool) -> None:
        routed = self._route()
        if routed is None:
            body, ctype, status = b"not found\n", "text/plain; charset=utf-8", HTTPStatus.NOT_FOUND
        else:
            (body, ctype), status = routed, HTTPStatus.OK
        send_reply(self, status, body, ctype, head_only)

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self._send(head_only=False)

    def do_HEAD(self) -> None:  # noqa: N802
        self._send(head_only=True)


def make_server(state: ViewerState, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """A server for ``state`` bound to ``host:port`` (port 0 picks a free one; see ``server.server_address``).
    It answers only at the names ``http_rules.SiteNames.of(host, port)`` lists."""
    return make_ruled_server(type("Handler", (_Handler,), {"state": state}), host, port)


def url_of(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def view(path: str | Path, host: str = "127.0.0.1", port: int = 0, open_browser: bool = True,
         say: Callable[[str], None] = print, complain: Callable[[str], None] | None = None,
         error_linger_s: float = 60.0) -> int:
    """Serve the viewer for the replay at ``path`` until Ctrl-C; 0, or 2 when the replay could not be loaded.

    With a bad replay the error goes to ``complain`` (stderr) at once, and the server stays up until the page
    has fetched the same error (then one more second) or ``error_linger_s`` passes.
    """
    complain = complain or (lambda m: print(m, file=sys.stderr))
    t0 = time.perf_counter()
    state = prepare(path)
    started = start_serving(lambda: make_server(state, host, port), host, port, complain, "fivestack-viewer")
    if started is None:
        return 2
    server, url, thread = started
    try:
        if state.error is not None:
            complain(f"Error: {state.error}")
            say(f"The page at {url} shows the same error.")
        else:
            say(f"Viewing {path} at {url} (loaded in {time.perf_counter() - t0:.2f} s; Ctrl-C to stop)")
        if open_browser:
            webbrowser.open(url)
        if state.error is not None:
            if state.served_meta.wait(error_linger_s):
                time.sleep(1.0)
            return 2
        while thread.is_alive():
            thread.join(0.5)
        return 0
    except KeyboardInterrupt:
        return 2 if state.error is not None else 0
    finally:
        server.shutdown()
        server.server_close()


__all__ = ["ASSETS", "DATA_PATH", "META_PATH", "ROUTES", "SECURITY_HEADERS", "ViewerState", "encode_replay",
           "make_server", "prepare", "send_reply", "start_serving", "static_files", "url_of", "view"]
