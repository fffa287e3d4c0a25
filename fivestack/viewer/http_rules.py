"""The HTTP rules every local server of fivestack follows, written once.

Three servers talk to a browser on this machine: the replay viewer (``viewer/server.py``), the draft screen
(``draft/server.py``) and the arena (``arena/server.py``, plain HTTP and a WebSocket on one port). They
differ in their routes only; what they accept and refuse is decided here, by ``screen``, in this order:

    1. Host     exactly one ``Host`` header naming this server (``SiteNames.hosts``)     else 421, no body served
    2. path     a route of this server (the query string is ignored)                     else 404
    3. method   one the route lists (``HEAD`` where ``GET`` is, never with a body)        else 405 with ``Allow``
    4. body     only a route that takes one (the draft screen's POST API)                 else 400
    5. Origin   a route that changes state (the arena's socket, the draft API's POST)
                needs exactly one ``Origin`` naming this server (``SiteNames.origins``)   else 403

The Host rule stops DNS rebinding: a page of another site whose name resolves to 127.0.0.1 sends its own name
as Host, and gets 421 instead of the page (and the arena's token in it). The Origin rule stops another site's
page from driving a game or a draft; a missing Origin is refused too, since every browser sends one with a
WebSocket handshake and a POST.

``SiteNames.of(host, port)``: the names a server bound to ``host:port`` answers to: ``host`` itself, and every
loopback name (``LOOPBACK_NAMES``) when ``host`` is one of them. A wildcard address (``0.0.0.0``, ``::``) is
refused by ``check_bind_host``: such a server could not tell its own names from a rebinding page's, so one is
given the address (or name) a page will be opened at. Every reply carries ``SECURITY_HEADERS``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Mapping, Sequence

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; connect-src 'self'; "
                               "style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
}
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARD_HOSTS = ("0.0.0.0", "::", "[::]", "")


@dataclass(frozen=True)
class Route:
    """What one path of a server accepts: its ``methods`` (``HEAD`` only where listed), whether a request body
    comes with them, and whether a request changes state (then it needs this server's ``Origin``)."""

    methods: tuple[str, ...] = ("GET", "HEAD")
    takes_body: bool = False
    changes_state: bool = False


STATIC = Route()


@dataclass(frozen=True)
class Refusal:
    """A request ``screen`` refused: the HTTP status, a short code, a sentence for a person, extra headers."""

    status: HTTPStatus
    code: str
    message: str
    headers: tuple[tuple[str, str], ...] = ()


def shown_host(host: str) -> str:
    """``host`` as it appears in a URL: an IPv6 address in brackets."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def check_bind_host(host: str) -> None:
    """``ValueError`` with the fix for an address that listens everywhere (see the module docstring)."""
    if host.strip() in WILDCARD_HOSTS:
        raise ValueError(f"--host {host!r} listens everywhere, but the page only works from the address it was "
                         "opened at; give that address (e.g. this machine's LAN address), or leave the default "
                         "127.0.0.1")


@dataclass(frozen=True)
class SiteNames:
    """The ``Host`` values (lower case, ``name:port``) and ``Origin`` values a page of one server sends."""

    hosts: frozenset[str]
    origins: frozenset[str]

    @classmethod
    def of(cls, host: str, port: int) -> SiteNames:
        shown = shown_host(host).lower()
        names = set(LOOPBACK_NAMES) if shown in LOOPBACK_NAMES else {shown}
        hosts = {f"{name}:{port}" for name in names}
        if port == 80:
            hosts |= names
        return cls(frozenset(hosts), frozenset(f"http://{host}" for host in hosts))

    @property
    def address(self) -> str:
        """One of the names, for messages: ``http://NAME:PORT``."""
        return min(self.origins)


def screen(method: str, target: str, header: Callable[[str], Sequence[str]], routes: Mapping[str, Route],
           site: SiteNames, has_body: bool = False) -> Refusal | None:
    """None when the request may go on, else the ``Refusal`` (see the module docstring for the order).

    ``target`` is the request target as sent (path and query); ``header(name)`` gives every value of a header
    (none when absent); ``has_body``: the request announced a body (``Content-Length`` above 0 or a
    ``Transfer-Encoding``)."""
    hosts = header("Host")
    if len(hosts) != 1 or hosts[0].strip().lower() not in site.hosts:
        return Refusal(HTTPStatus.MISDIRECTED_REQUEST, "misdirected",
                       f"this server answers only at {site.address}/ (open the address it printed)")
    path = target.partition("?")[0]
    route = routes.get(path)
    if route is None:
        return Refusal(HTTPStatus.NOT_FOUND, "not_found", "not found")
    if method not in route.methods:
        allow = ", ".join(route.methods)
        return Refusal(HTTPStatus.METHOD_NOT_ALLOWED, "method_not_allowed",
                       f"{path[:80]} answers {allow}, not {method[:20]}", (("Allow", allow),))
    if has_body and not (route.takes_body and method == "POST"):
        return Refusal(HTTPStatus.BAD_REQUEST, "bad_request", f"{method} {path[:80]} takes no request body")
    if route.changes_state:
        origins = header("Origin")
        if len(origins) != 1 or origins[0] not in site.origins:
            shown = origins[0][:80] if len(origins) == 1 else ("none" if not origins else "several")
            return Refusal(HTTPStatus.FORBIDDEN, "bad_origin",
                           f"requests from Origin {shown} are refused: open the page this server serves")
    return None


def announces_body(header: Callable[[str], Sequence[str]]) -> bool:
    """Whether the request's headers announce a body (any ``Transfer-Encoding``, or a ``Content-Length`` that
    is not 0)."""
    if header("Transfer-Encoding"):
        return True
    return any(value.strip() != "0" for value in header("Content-Length"))


# ---------------------------------------------------------------------------------------------------- http.server
REQUEST_TIMEOUT_SECONDS = 10.0  # a client that sends nothing (a slow-loris) is cut off after this
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")  # not allowed in a header (RFC 9110 5.5); tab is


def send_reply(handler: BaseHTTPRequestHandler, status: HTTPStatus, body: bytes, ctype: str, head_only: bool = False,
               headers: Sequence[tuple[str, str]] = (), close: bool = False) -> None:
    """Answer one request of ``handler``: status, content type and length, ``headers``, the ``SECURITY_HEADERS``,
    then the body (none for HEAD); ``close`` ends the connection after it. A page closed mid-transfer is not an
    error."""
    handler.send_response(status)
    handler.send_header("Content-Type", ctype)
    handler.send_header("Content-Length", str(len(body)))
    for key, value in (*headers, *SECURITY_HEADERS.items()):
        handler.send_header(key, value)
    if close:
        handler.send_header("Connection", "close")
        handler.close_connection = True
    handler.end_headers()
    if not head_only:
        try:
            handler.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


class RuledHandler(BaseHTTPRequestHandler):
    """``http.server``'s handler with this module's rules: every request is ``screen``-ed against ``routes``
    (set by the subclass) and the server's ``site`` (a ``SiteNames`` set on the server object, see
    ``make_ruled_server``) before any ``do_*`` method runs; the library's own errors (a malformed request line,
    oversized headers) get the same headers; a silent client is cut off after ``REQUEST_TIMEOUT_SECONDS``."""

    routes: Mapping[str, Route] = {}
    timeout = REQUEST_TIMEOUT_SECONDS
    sys_version = ""

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        if self.headers.defects or any(_CONTROL.search(k) or _CONTROL.search(v) for k, v in self.headers.items()):
            self.send_error(HTTPStatus.BAD_REQUEST, "malformed headers (a line without a colon, a control character)")
            return False
        header = self.headers.get_all
        refusal = screen(self.command, self.path, lambda name: header(name) or [], self.routes, self.server.site,
                         announces_body(lambda name: header(name) or []))
        if refusal is None:
            return True
        self.refuse(refusal)
        return False

    def handle_expect_100(self) -> bool:
        """No interim ``100 Continue`` before the request is screened: a client that waits for one sends its body
        after a short wait anyway, and a refused request must get its refusal as the one reply."""
        return True

    def refuse(self, refusal: Refusal) -> None:
        """Answer a refused request (plain text; the connection closes, as its body, if any, was not read)."""
        send_reply(self, refusal.status, (refusal.message + "\n").encode("utf-8"), "text/plain; charset=utf-8",
                   head_only=self.command == "HEAD", headers=refusal.headers, close=True)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        status = HTTPStatus(code)
        send_reply(self, status, f"{code} {message or status.phrase}\n".encode("utf-8", "replace"),
                   "text/plain; charset=utf-8", head_only=self.command == "HEAD", close=True)

    def log_message(self, format: str, *args) -> None:  # quiet: the terminal shows only what matters
        pass


def make_ruled_server(handler: type[RuledHandler], host: str, port: int) -> ThreadingHTTPServer:
    """A threading server for ``handler`` bound to ``host:port`` (port 0 picks a free one), knowing its own names.
    ``ValueError`` for a wildcard address, ``OSError`` when it cannot listen."""
    check_bind_host(host)
    server = ThreadingHTTPServer((host.strip("[]"), port), handler)
    server.daemon_threads = True
    server.site = SiteNames.of(host.strip("[]"), server.server_address[1])
    return server


__all__ = ["LOOPBACK_NAMES", "REQUEST_TIMEOUT_SECONDS", "Refusal", "Route", "RuledHandler", "SECURITY_HEADERS", "STATIC",
           "SiteNames", "WILDCARD_HOSTS", "announces_body", "check_bind_host", "make_ruled_server", "screen",
           "send_reply", "shown_host"]
