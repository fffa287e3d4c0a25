"""Hostile HTTP for the three local servers (arena, replay viewer, draft screen): a seeded generator of raw
requests, a raw-socket client, and what each reply must be.

Importable from any test module (pytest puts this folder on ``sys.path``). ``hostile_request(rng, server)`` makes
one request from a ``Target`` (the server's address, its routes as the tests know them, and which routes change
state) and says what the reply must be: ``expected`` is the one status the HTTP rules give a well-formed request
(written here from the rules as a user reads them in docs/arena.md, not from ``http_rules``), or None for a
malformed request (any 4xx, or the connection closed without a reply; control characters in a header are
malformed, as RFC 9110 says). ``check_reply`` then asserts the
invariants every reply keeps: the security headers, no body for HEAD, ``Allow`` with every 405, never the page's
secret in a refusal.
"""

from __future__ import annotations

import random
import socket
from dataclasses import dataclass, field

SECURITY_HEADER_NAMES = ("x-content-type-options", "cache-control", "content-security-policy", "referrer-policy")
WELL_FORMED_METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH", "CONNECT", "PROPFIND",
                       "get", "Get", "BREW")
ODD_PATHS = ("/..", "/../pyproject.toml", "/%2e%2e/%2e%2e/etc/passwd", "//etc/passwd", "/static/x", "/%00", "/\u00e9",
             "/" + "a" * 3000, "/index.html/", "*", "/?" + "q" * 500, "/.git/config", "/%ff%fe", "/api", "/ws/..",
             "/replay/../replay/meta.json")
ODD_HEADERS = (("X-Long", "v" * 6000), ("Cookie", "a=" + "b" * 2000), ("Accept", "*/*"), ("X-Empty", ""),
               ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Version", "13"),
               ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("X-Unicode", "caf\u00e9"),
               ("Content-Type", "application/json"), ("Content-Type", "text/plain"), ("Expect", "100-continue"))


@dataclass(frozen=True)
class Target:
    """One running server as the fuzzer sees it. ``routes``: path -> methods; ``with_body``: the routes that take a
    POST body; ``changes_state``: the routes that need the page's Origin; ``secret``: a string no refusal may
    contain (the arena's token), or None."""

    host: str
    port: int
    routes: dict[str, tuple[str, ...]]
    with_body: frozenset[str] = frozenset()
    changes_state: frozenset[str] = frozenset()
    secret: str | None = None
    names: tuple[str, ...] = ("127.0.0.1", "localhost", "[::1]")

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"


@dataclass
class Request:
    raw: bytes
    method: str
    path: str
    expected: int | None  # None: malformed (a 4xx or a close)
    note: list[str] = field(default_factory=list)
    or_refused: bool = False  # bare-LF lines, which a server may read (then ``expected``) or refuse (a 4xx, a close)


def hostile_request(rng: random.Random, t: Target) -> Request:
    """One request, hostile more often than not (see the module docstring)."""
    note: list[str] = []
    method = rng.choice(("GET", "GET", "HEAD", "POST", *WELL_FORMED_METHODS))
    routes = list(t.routes)
    path = rng.choice(routes) if rng.random() < 0.6 else rng.choice(ODD_PATHS)
    target = path + (rng.choice(("?x=1", "?" + "%" * 3, "?a=b&c")) if rng.random() < 0.1 else "")
    headers: list[tuple[str, str]] = []
    host_kind = rng.choices(("own", "alias", "foreign", "none", "twice", "wrong_port", "case"),
                            (55, 10, 10, 5, 5, 10, 5))[0]
    good_host = True
    if host_kind == "own":
        headers.append(("Host", f"{t.host}:{t.port}"))
    elif host_kind == "alias":
        headers.append(("Host", f"{rng.choice(t.names)}:{t.port}"))
    elif host_kind == "case":
        headers.append(("Host", f"LOCALHOST:{t.port}"))
    elif host_kind == "foreign":
        headers.append(("Host", rng.choice((f"evil.example:{t.port}", "evil.example", f"127.0.0.1.nip.io:{t.port}",
                                            f"{t.host}:{t.port}.evil.example", f"{t.host}"))))
        good_host = False
    elif host_kind == "wrong_port":
        headers.append(("Host", f"{t.host}:{t.port + 1}"))
        good_host = False
    elif host_kind == "twice":
        headers += [("Host", f"{t.host}:{t.port}"), ("Host", f"{t.host}:{t.port}")]
        good_host = False
    else:
        good_host = False
    note.append(f"host={host_kind}")
    origin_kind = rng.choice(("own", "own", "none", "foreign", "null", "twice", "https"))
    good_origin = origin_kind == "own"
    if origin_kind == "own":
        headers.append(("Origin", t.origin))
    elif origin_kind == "foreign":
        headers.append(("Origin", "http://evil.example"))
    elif origin_kind == "null":
        headers.append(("Origin", "null"))
    elif origin_kind == "twice":
        headers += [("Origin", t.origin), ("Origin", t.origin)]
    elif origin_kind == "https":
        headers.append(("Origin", "https" + t.origin[4:]))
    note.append(f"origin={origin_kind}")
    for _ in range(rng.choice((0, 0, 1, 3))):
        headers.append(rng.choice(ODD_HEADERS))
    body = b""
    body_kind = rng.choices(("none", "json", "junk", "chunked", "zero"), (60, 15, 10, 5, 10))[0]
    if body_kind == "json":
        body = rng.choice((b"{}", b'{"hero": 1}', b'{"hero": [1]}', b'{"human": "none"}', b"[" * 300 + b"]" * 300,
                           b'{"hero": 1' + b"0" * 800 + b"}"))
        headers.append(("Content-Length", str(len(body))))
    elif body_kind == "junk":
        body = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 200)))
        headers.append(("Content-Length", str(len(body))))
    elif body_kind == "chunked":
        body = b"5\r\nhello\r\n0\r\n\r\n"
        headers.append(("Transfer-Encoding", "chunked"))
    elif body_kind == "zero":
        headers.append(("Content-Length", "0"))
    note.append(f"body={body_kind}")
    malformed = rng.random() < 0.08
    if malformed:
        kind = rng.choice(("space_in_method", "no_version", "bad_version", "header_no_colon", "nul", "lf_only"))
        note.append(f"malformed={kind}")
    else:
        kind = ""
    if kind == "space_in_method":
        line = f"G ET {target} HTTP/1.1"
    elif kind == "no_version":
        line = f"{method} {target}"
    elif kind == "bad_version":
        line = f"{method} {target} HTTP/9.9"
    else:
        line = f"{method} {target} HTTP/1.1"
    if kind == "header_no_colon":
        headers.append(("X-Broken", None))  # type: ignore[arg-type]
    head = line.encode("utf-8") + b"\r\n"
    for name, value in headers:
        head += name.encode() + b"\r\n" if value is None else f"{name}: {value}".encode("utf-8") + b"\r\n"
    if kind == "nul":
        head += b"X-Nul: a\x00b\r\n"
    head += b"\r\n"
    if kind == "lf_only":
        head = head.replace(b"\r\n", b"\n")
    # the rules, in the order the user-facing docs list them
    expected: int | None = None
    if (not malformed or kind == "lf_only") and method.isupper() and path.isascii() and all(ord(c) > 32 for c in path):
        path = path.partition("?")[0]  # the query is not part of the route
        route_methods = t.routes.get(path)
        has_body = body_kind in ("json", "junk", "chunked")
        if not good_host:
            expected = 421
        elif route_methods is None:
            expected = 404
        elif method not in route_methods:
            expected = 405
        elif has_body and not (path in t.with_body and method == "POST"):
            expected = 400
        elif path in t.changes_state and not good_origin:
            expected = 403
        else:
            expected = 0  # accepted by the rules: the route's own answer (any status but 421/405/403)
    return Request(head + body, method, path, expected, note, or_refused=kind == "lf_only")


@dataclass
class Reply:
    status: int | None  # None: closed without a reply
    headers: dict[str, list[str]]
    body: bytes


def send_raw(t: Target, raw: bytes, head_only: bool, timeout: float = 15.0) -> Reply:
    """Send ``raw`` on a fresh connection and read one reply (by its Content-Length; none for HEAD)."""
    with socket.create_connection((t.host.strip("[]"), t.port), timeout=timeout) as s:
        try:
            s.sendall(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        except ConnectionResetError:
            pass
        if b"\r\n\r\n" not in data:
            return Reply(None, {}, data)
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        headers: dict[str, list[str]] = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers.setdefault(name.strip().lower(), []).append(value.strip())
        length = int(headers.get("content-length", ["0"])[0])
        if not head_only:
            try:
                while len(body) < length:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    body += chunk
            except ConnectionResetError:
                pass
        return Reply(status, headers, body)


def ask(t: Target, text: str, body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
    """One hand-written request (``text``: lines separated by newlines, without the blank line) and ``body``: the
    status, each header's first value by lower-case name, the body."""
    reply = send_raw(t, text.replace("\n", "\r\n").encode() + b"\r\n" + body, head_only=text.startswith("HEAD"))
    assert reply.status is not None, f"no reply to {text!r}"
    return reply.status, {k: v[0] for k, v in reply.headers.items()}, reply.body


def check_reply(t: Target, request: Request, reply: Reply) -> None:
    """The invariants of every reply (see the module docstring); fails with the request's notes."""
    where = f"{request.raw[:120]!r} {request.note}"
    if request.or_refused and (reply.status is None or 400 <= reply.status < 500):
        pass
    elif request.expected is None:
        assert reply.status is None or 400 <= reply.status < 500, (reply.status, where)
    else:
        assert reply.status is not None, f"no reply to a well-formed request: {where}"
        if request.expected:
            assert reply.status == request.expected, (reply.status, request.expected, where)
        else:
            assert reply.status not in (403, 405, 421), (reply.status, where)
    if reply.status is None:
        return
    if request.expected is not None and reply.status != 101:  # a WebSocket handshake's 101 carries none
        for name in SECURITY_HEADER_NAMES:
            assert name in reply.headers, (name, reply.status, where)
    if reply.status == 405:
        allow = reply.headers.get("allow", [""])[0]
        assert allow and request.method not in allow.split(", "), (allow, where)
    if request.raw.startswith(b"HEAD "):
        assert reply.body == b"", where
    if t.secret is not None and reply.status != 200:
        assert t.secret.encode() not in reply.body, f"the secret leaked in a {reply.status}: {where}"


def fuzz_http(t: Target, seed: int, n: int) -> dict[int | None, int]:
    """``n`` hostile requests of seed ``seed`` against ``t``, each checked; the statuses counted."""
    rng = random.Random(seed)
    counts: dict[int | None, int] = {}
    for _ in range(n):
        request = hostile_request(rng, t)
        reply = send_raw(t, request.raw, head_only=request.raw.startswith(b"HEAD "))
        check_reply(t, request, reply)
        counts[reply.status] = counts.get(reply.status, 0) + 1
    return counts


__all__ = ["Reply", "Request", "Target", "ask", "check_reply", "fuzz_http", "hostile_request", "send_raw"]
