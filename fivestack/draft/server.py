"""The draft screen's local web server: ``fivestack draft --table FILE --view``.

The page (``draft/static/draft.html``, ``draft.js``, ``draft.css``, with the viewer's ``viewer.css`` for the colours)
shows the hero pool as cards, the pick order 1-2-2-2-2-1 with whose turn it is, both teams' picks in order and,
after every pick, Radiant's predicted win probability (the minimax value and the lineup-so-far mean) and the
search's answer time. A person drafts one side against the search, or watches it draft both.

The state lives here, in one ``DraftSession`` (``fivestack/draft/session.py``: the rules and the calls to the
search, the same code as the terminal draft), behind a lock; the page only asks. JSON in, JSON out:

* ``GET /api/state``: the session's ``to_json()`` plus the table's file and scorer names.
* ``POST /api/pick`` ``{"hero": ID or NAME, "side": "Radiant"|"Dire" (optional)}``: a person's pick.
* ``POST /api/step`` ``{}``: the search makes the pick it is due (its side's turn).
* ``POST /api/new`` ``{"human": "radiant"|"dire"|"none", "first": "radiant"|"dire"}``: a new draft.

A refused request answers with ``{"error": {"code": ..., "message": ...}}`` and changes nothing: 400 with the
pick rules' codes (``unknown_hero``, ``taken``, ``not_your_turn``, ``complete``) or ``bad_request`` (not a JSON
object, an unknown field or value); the HTTP rules every fivestack server follows (``http_rules.screen``):
``misdirected`` (421: a Host that is not this server's), ``not_found`` (404), ``method_not_allowed`` (405, with
``Allow``: the pages and ``/api/state`` answer GET and HEAD, the three others POST only) and ``bad_origin`` (403:
a POST whose Origin is missing or another site's). A POST must be ``application/json`` (415 otherwise), with a
``Content-Length`` of at most ``MAX_BODY_BYTES`` (no chunked bodies). The search is table-driven, so any
scorer's table (the stub's, or a policy's) drafts here the same way. Static files and headers are the viewer's
(``send_reply``, ``url_of``); it binds 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import json
import sys
import threading
import webbrowser
from http import HTTPStatus
from http.server import ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Callable

from fivestack.draft.lineups import DIRE, RADIANT, DraftError, HeroPool
from fivestack.draft.precompute import LineupTable, load_table
from fivestack.draft.search import Drafter
from fivestack.draft.session import DraftSession, LineupMeans, PickError
from fivestack.viewer.http_rules import STATIC, Refusal, Route, RuledHandler, make_ruled_server, send_reply
from fivestack.viewer.server import start_serving

ASSETS = {  # URL path -> (package whose static/ folder holds the file, file, content type)
    "/": ("fivestack.draft", "draft.html", "text/html; charset=utf-8"),
    "/draft.js": ("fivestack.draft", "draft.js", "text/javascript; charset=utf-8"),
    "/draft.css": ("fivestack.draft", "draft.css", "text/css; charset=utf-8"),
    "/viewer.css": ("fivestack.viewer", "viewer.css", "text/css; charset=utf-8"),
}
API_POST = Route(methods=("POST",), takes_body=True, changes_state=True)
ROUTES: dict[str, Route] = {**{path: STATIC for path in ASSETS}, "/api/state": STATIC, "/api/pick": API_POST,
                            "/api/step": API_POST, "/api/new": API_POST}
MAX_BODY_BYTES = 4096
HUMAN_CHOICES = {"radiant": RADIANT, "dire": DIRE, "none": None}
FIRST_CHOICES = {"radiant": True, "dire": False}
SIDE_OF_NAME = {"radiant": RADIANT, "dire": DIRE}


class RequestError(Exception):
    """A request refused before it reaches the session: (HTTP status, code, message)."""

    def __init__(self, status: HTTPStatus, code: str, message: str):
        super().__init__(message)
        self.status, self.code = status, code


def pool_roles(pool: HeroPool) -> dict[int, str]:
    """The role of each pool hero that the game's patch knows by name (case-insensitive)."""
    from fivestack.game.patch import HEROES

    known = {hero.name.lower(): hero.role for hero in HEROES}
    return {h: known[name.lower()] for h, name in enumerate(pool.names) if name.lower() in known}


def _choice(body: dict, key: str, choices: dict, default: str):
    value = body.get(key, default)
    if not isinstance(value, str) or value.lower() not in choices:
        raise RequestError(HTTPStatus.BAD_REQUEST, "bad_request",
                           f"{key} must be one of {', '.join(choices)}, not {value!r}")
    return choices[value.lower()]


class DraftService:
    """One draft at a time on one table: a Drafter per first-pick side (built on first use, its cache kept
    across drafts) and the current ``DraftSession``. Every call holds the lock."""

    def __init__(self, table: LineupTable, first: str = "radiant", human: str = "radiant"):
        self.table = table
        self.roles = pool_roles(table.pool)
        self.means = LineupMeans(table.values, table.pool.n)
        self.drafters: dict[bool, Drafter] = {}
        self.lock = threading.Lock()
        try:
            self.session = self._session({"first": first, "human": human})
        except RequestError as exc:  # from the command line: --first / --human
            raise DraftError(f"--{str(exc)}") from None

    def _session(self, body: dict) -> DraftSession:
        radiant_first = _choice(body, "first", FIRST_CHOICES, "radiant")
        human = _choice(body, "human", HUMAN_CHOICES, "radiant")
        if radiant_first not in self.drafters:
            self.drafters[radiant_first] = Drafter(self.table.values, self.table.pool.n, radiant_first)
        return DraftSession(self.drafters[radiant_first], self.table.pool, human, self.means, self.roles)

    def state(self) -> dict:
        return {**self.session.to_json(), "table": self.table.path.name, "scorer": self.table.scorer}

    def handle(self, path: str, body: dict) -> dict:
        """A POST to ``/api/new``, ``/api/pick`` or ``/api/step``; the new state, or PickError / RequestError."""
        with self.lock:
            if path == "/api/new":
                _only(body, {"first", "human"})
                self.session = self._session(body)
            elif path == "/api/pick":
                _only(body, {"hero", "side"})
                if "hero" not in body:
                    raise RequestError(HTTPStatus.BAD_REQUEST, "bad_request", "a pick needs \"hero\": an id or a name")
                side = None if body.get("side") is None else _choice(body, "side", SIDE_OF_NAME, "")
                self.session.pick(body["hero"], side)
            elif path == "/api/step":
                _only(body, set())
                self.session.search_pick()
            else:
                raise RequestError(HTTPStatus.NOT_FOUND, "not_found", f"no such request: POST {path}")
            return self.state()


def _only(body: dict, allowed: set[str]) -> None:
    extra = sorted(set(body) - allowed)
    if extra:
        raise RequestError(HTTPStatus.BAD_REQUEST, "bad_request",
                           f"unknown field(s) {extra}; this request takes {sorted(allowed) or 'no fields'}")


def static_files() -> dict[str, bytes]:
    return {name: (resources.files(package) / "static" / name).read_bytes() for package, name, _ in ASSETS.values()}


class _Handler(RuledHandler):
    server_version = "fivestack-draft"
    routes = ROUTES
    service: DraftService  # set on the subclass made per server
    files: dict[str, bytes]

    def _reply(self, status: HTTPStatus, body: bytes, ctype: str, head_only: bool = False) -> None:
        send_reply(self, status, body, ctype, head_only)

    def _json(self, status: HTTPStatus, message: dict, head_only: bool = False) -> None:
        body = json.dumps(message, separators=(",", ":"), allow_nan=False).encode("utf-8")
        self._reply(status, body, "application/json", head_only)

    def _error(self, status: HTTPStatus, code: str, message: str) -> None:
        self._json(status, {"error": {"code": code, "message": message}})

    def refuse(self, refusal: Refusal) -> None:
        """The API's refusals in its own JSON form; the pages' as plain text."""
        if not self.path.startswith("/api/"):
            super().refuse(refusal)
            return
        body = json.dumps({"error": {"code": refusal.code, "message": refusal.message}}).encode("utf-8")
        send_reply(self, refusal.status, body, "application/json", head_only=self.command == "HEAD",
                   headers=refusal.headers, close=True)

    def _get(self, head_only: bool) -> None:
        path = self.path.split("?", 1)[0]
        if path in ASSETS:
            _, name, ctype = ASSETS[path]
            self._reply(HTTPStatus.OK, self.files[name], ctype, head_only)
        elif path == "/api/state":
            with self.service.lock:
                state = self.service.state()
            self._json(HTTPStatus.OK, state, head_only)
        else:
            self._reply(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8", head_only)

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self._get(head_only=False)

    def do_HEAD(self) -> None:  # noqa: N802
        self._get(head_only=True)

    def do_POST(self) -> None:  # noqa: N802
        try:
            body = self._read_body()
            self._json(HTTPStatus.OK, self.service.handle(self.path.split("?", 1)[0], body))
        except RequestError as exc:
            self._error(exc.status, exc.code, str(exc))
        except PickError as exc:
            self._error(HTTPStatus.BAD_REQUEST, exc.code, str(exc))

    def _read_body(self) -> dict:
        """The POST's JSON object (its Host, route and Origin were checked by ``http_rules.screen``)."""
        if self.headers.get_content_type() != "application/json":
            self.close_connection = True  # its body is not read
            raise RequestError(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "bad_request",
                               "a request body must be JSON (Content-Type: application/json)")
        lengths = self.headers.get_all("Content-Length") or ["0"]
        text = lengths[0].strip()
        length = int(text) if len(lengths) == 1 and text.isascii() and text.isdigit() and len(text) < 10 else -1
        if self.headers.get("Transfer-Encoding") is not None or not 0 <= length <= MAX_BODY_BYTES:
            self.close_connection = True
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_request",
                               f"a request body is 0-{MAX_BODY_BYTES} bytes with one Content-Length (not chunked)")
        raw = self.rfile.read(length) if length else b"{}"
        if len(raw) < length:
            self.close_connection = True
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_request", "the body ended before its Content-Length")
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_request", f"the body is not JSON ({exc})") from None
        if not isinstance(body, dict):
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_request", "the body must be a JSON object")
        return body



def make_server(service: DraftService, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """A server for ``service`` bound to ``host:port`` (port 0 picks a free one), answering only at its names."""
    return make_ruled_server(type("Handler", (_Handler,), {"service": service, "files": static_files()}), host, port)


def serve_draft(table: str | Path | LineupTable, first: str = "radiant", human: str = "radiant",
                host: str = "127.0.0.1", port: int = 0, open_browser: bool = True, say: Callable[[str], None] = print,
                complain: Callable[[str], None] | None = None) -> int:
    """Serve the draft screen for ``table`` (a finished table, or its path) until Ctrl-C; 0, or 2 when it cannot
    start. A table that cannot be loaded raises DraftError (the CLI prints it)."""
    complain = complain or (lambda m: print(m, file=sys.stderr))
    service = DraftService(table if isinstance(table, LineupTable) else load_table(Path(table)), first, human)
    started = start_serving(lambda: make_server(service, host, port), host, port, complain, "fivestack-draft")
    if started is None:
        return 2
    server, url, thread = started
    say(f"Drafting on {service.table.path} ({service.table.pool.n} heroes, scored by {service.table.scorer}) at {url} "
        f"(Ctrl-C to stop)")
    try:
        if open_browser:
            webbrowser.open(url)
        while thread.is_alive():
            thread.join(0.5)
        return 0
    except KeyboardInterrupt:
        return 0
    finally:
        server.shutdown()
        server.server_close()


__all__ = ["ASSETS", "ROUTES", "DraftService", "RequestError", "make_server", "pool_roles", "serve_draft"]
