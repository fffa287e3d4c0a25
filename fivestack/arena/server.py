"""The arena's server: one live game, one port, one player (``fivestack arena``).

Plain HTTP and the WebSocket share the port (package ``websockets``, asyncio). ``process_request`` answers the
plain requests from memory: ``/`` is ``arena.html`` with this game's token written in (the literal
``__ARENA_TOKEN__``; the page reads it from its ``<meta name="arena-token">``), then ``/arena.js``,
``/arena.css``, the viewer's shared ``/map.js`` and ``/viewer.css``, each with the viewer's security headers;
every other path is 404. ``/ws`` is the game's socket; its handshake is refused with 403 (and counted as
``refused_connections``) unless the ``Origin`` is this server's own (``http://HOST:PORT``, and the other
loopback names when bound to loopback), so another site's page cannot drive the game.

A connection must first say ``hello`` with the token (a wrong one: ``bad_token``, then closed with 1008; anything
else first: ``not_authenticated``); a second page that says a good hello while one plays gets ``busy`` and is
closed. Every message spends one token of its connection's ``RateLimiter`` (over it: ``rate_limited``), is
parsed by ``protocol.parse_command`` and goes to ``ArenaGame.order`` or to the clock (pause, resume, leave,
ping). Every refused message gets exactly one error frame and is counted by code in ``counters``. Messages
over ``MAX_INCOMING_BYTES`` (far above the protocol's 1,024) end the connection (1009), as the WebSocket
library does.

The clock (one asyncio task): while a player is connected and has not paused, ``game.tick()`` runs every
``tick_seconds`` of wall time on absolute deadlines ``t0 + k * tick_seconds`` (a late tick runs at once and the
schedule does not shift; after a pause the schedule restarts from the resume). Each frame goes to the page as
compact JSON; a page that stops reading has frames dropped (``frames_dropped``) rather than stalling the
clock. ``frame_times_ms`` (tick + encode + send) and ``lateness_ms`` (start of the tick - its deadline) are
kept for ``benchmarks/arena_latency.py``.

Leaving: a page that disconnects pauses the game; if no page says hello again within ``grace_seconds`` (60),
the game ends as a loss (``forfeit("left")``). A page that comes back in time finds the game as it was left:
running, or paused when the player had paused it (a ``paused`` message follows the ``welcome``). However the game
ends (won, lost, left, ``leave``), the server saves it (``game.close()``: the replay and the ``arena.jsonl``
line), sends the ``end`` message, and stops
``linger_seconds`` later. ``stop()`` (Ctrl-C in the CLI) forfeits a game in progress and saves it too.

Threads: the server runs its own event loop in a background thread (``start()`` returns the URL, ``stop()``
ends it, ``wait()`` blocks until it has ended). The game is only touched in that loop, between ticks; another
thread reads it through ``run_in_loop(fn)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import secrets
import signal
import sys
import threading
import time
import traceback
import weakref
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures import TimeoutError as FutureTimeout
from http import HTTPStatus
from importlib import resources
from typing import Any, Callable, TypeVar

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed, InvalidMessage
from websockets.http11 import Request, Response
from websockets.protocol import CONNECTING
from websockets.server import ServerProtocol

from fivestack.arena.protocol import (ERROR_CODES, RATE_BURST, RATE_PER_SECOND, ProtocolError, RateLimiter,
                                      error_frame, parse_command)
from fivestack.game.layout import STEP_SECONDS
from fivestack.viewer.http_rules import (SECURITY_HEADERS, STATIC, Refusal, Route, SiteNames, announces_body,
                                         check_bind_host, screen, shown_host)

TOKEN_PLACEHOLDER = "__ARENA_TOKEN__"
WS_PATH = "/ws"
ASSETS = {  # URL path -> (package, file in its static/ folder, content type)
    "/": ("fivestack.arena", "arena.html", "text/html; charset=utf-8"),
    "/arena.js": ("fivestack.arena", "arena.js", "text/javascript; charset=utf-8"),
    "/arena.css": ("fivestack.arena", "arena.css", "text/css; charset=utf-8"),
    "/map.js": ("fivestack.viewer", "map.js", "text/javascript; charset=utf-8"),
    "/viewer.css": ("fivestack.viewer", "viewer.css", "text/css; charset=utf-8"),
}
GRACE_SECONDS = 60.0  # a page that left may come back this long before the game is lost
LINGER_SECONDS = 3.0  # after the end: time for the page to show the result before the server stops
MAX_INCOMING_BYTES = 64 * 1024  # beyond: the connection is closed (1009); 1,025..65,536 bytes get `too_large`
SEND_BACKLOG_BYTES = 1 << 20  # a page that stops reading: frames are dropped while this much is unsent
CLOSE_TIMEOUT_SECONDS = 2.0  # a client that does not close its side (WebSocket or HTTP) is cut off after this
SEND_TIMEOUT_SECONDS = 1.0  # on the way out, a page that does not read is not waited for longer than this
ROUTES: dict[str, Route] = {**{path: STATIC for path in ASSETS},
                            WS_PATH: Route(methods=("GET",), changes_state=True)}  # the socket drives the game
COUNTER_NAMES = (*ERROR_CODES, "refused_connections", "refused_requests", "messages", "orders", "frames",
                 "frames_dropped", "server_errors")

T = TypeVar("T")


def _json(message: dict) -> str:
    return json.dumps(message, separators=(",", ":"), allow_nan=False)


def load_assets(token: str) -> dict[str, tuple[bytes, str]]:
    """URL path -> (body, content type) for the files that exist in the installed package; ``/`` carries
    ``token``. A missing file is simply not served (404), as any unknown path."""
    files: dict[str, tuple[bytes, str]] = {}
    for path, (package, name, ctype) in ASSETS.items():
        try:
            body = (resources.files(package) / "static" / name).read_bytes()
        except (FileNotFoundError, IsADirectoryError):
            continue
        if name == "arena.html":
            body = body.replace(TOKEN_PLACEHOLDER.encode(), token.encode())
        files[path] = (body, ctype)
    return files


def http_response(status: HTTPStatus, body: bytes, ctype: str, head_only: bool = False,
                  headers: tuple[tuple[str, str], ...] = ()) -> Response:
    """A plain HTTP response with the security headers (``http_rules``); the connection closes after it. For a
    HEAD request (``head_only``) the body's length is told and the body left out."""
    fields = Headers([("Content-Type", ctype), ("Content-Length", str(len(body))), ("Connection", "close"),
                      *headers])
    for key, value in SECURITY_HEADERS.items():
        fields[key] = value
    return Response(status.value, status.phrase, fields, b"" if head_only else body)


def _with_security_headers(connection: ServerConnection, request: Request, response: Response) -> Response:
    """Every reply but the socket's 101 carries the security headers, the library's own refusals (426, 400) too."""
    if response.status_code != 101:
        for key, value in SECURITY_HEADERS.items():
            if key not in response.headers:  # (``Headers`` adds a value rather than replacing one)
                response.headers[key] = value
    return response


def refusal_response(refusal: Refusal, head_only: bool = False) -> Response:
    return http_response(refusal.status, (refusal.message + "\n").encode("utf-8"), "text/plain; charset=utf-8",
                         head_only, refusal.headers)


class _HeadLines:
    """Reads the lines of a request head through websockets' reader and keeps them, so that they can be put back
    (``restore``) for the library to parse, or read here (``method_target_headers``)."""

    def __init__(self, reader):
        self.reader = reader
        self.lines: list[bytes] = []

    def read_line(self, limit: int, too_long=RuntimeError):
        line = yield from self.reader.read_line(limit, too_long)
        self.lines.append(bytes(line))
        return line

    def restore(self) -> None:
        self.reader.buffer[:0] = b"".join(self.lines)

    def method_target_headers(self) -> tuple[str, str, Headers] | None:
        """The request line and headers, when the whole head was read and is well formed; else None."""
        if len(self.lines) < 2 or self.lines[-1] != b"\r\n":
            return None
        parts = self.lines[0].rstrip(b"\r\n").split(b" ")
        if len(parts) != 3:
            return None
        headers = Headers()
        for line in self.lines[1:-1]:
            name, colon, value = line.partition(b":")
            if not colon:
                return None
            headers[name.decode("latin-1").strip()] = value.decode("latin-1").strip()
        return parts[0].decode("latin-1"), parts[1].decode("latin-1"), headers


class _ArenaProtocol(ServerProtocol):
    """websockets' server protocol, except that a request announcing a body (which the library drops without a
    word) is answered by the HTTP rules (405 for a method the route does not take, else 400). It reads the head
    through the library's own reader and parser (``Request.parse``, ``reader.buffer``), so pyproject.toml pins
    the websockets release it was written against; ``tests/arena/test_hostile.py`` fails if they change."""

    refuse_with_body: Callable[[str, str, Headers], Response]

    def parse(self):
        if self.state is CONNECTING:
            head = _HeadLines(self.reader)
            answer = None
            try:
                yield from Request.parse(head.read_line)
            except (ValueError, NotImplementedError):  # among them: a body announced
                request = head.method_target_headers()
                if request is not None and announces_body(request[2].get_all):
                    answer = self.refuse_with_body(*request)
            except Exception:  # noqa: BLE001 (the library's own parse below meets it again and answers it)
                pass
            if answer is not None:
                self.handshake_exc = InvalidMessage("a request with a body")
                self.send_response(answer)  # then end of stream; what follows is discarded
                yield
                return
            head.restore()  # the library parses the request as it came
        yield from super().parse()


class _ArenaConnection(ServerConnection):
    """A connection whose protocol is ``_ArenaProtocol`` (swapped in before any byte arrives), kept in its
    server's ``registry`` from the first byte (the library lists a connection only once its handshake is done,
    and shutting down must reach the ones still in it)."""

    refuse_with_body: Callable[[str, str, Headers], Response]
    registry: weakref.WeakSet

    def __init__(self, protocol: ServerProtocol, *args, **kwargs):
        self.registry.add(self)
        protocol.__class__ = _ArenaProtocol
        protocol.refuse_with_body = self.refuse_with_body
        protocol.parser = protocol.parse()
        next(protocol.parser)
        super().__init__(protocol, *args, **kwargs)


class ArenaServer:
    """Serves one ``ArenaGame`` (``game``) to one player in real time; see the module docstring.

    ``tick_seconds`` (default ``STEP_SECONDS``, real time), ``grace_seconds`` and ``linger_seconds`` are
    parameters so that tests can run faster. ``say`` gets one line for what a person at the terminal should
    know (the page joined or left, the result). Read by tests and the benchmark: ``counters`` (error frames
    by code, ``refused_connections``, ``messages``, ``orders`` accepted, ``frames`` sent, ``frames_dropped``),
    ``frame_times_ms``, ``lateness_ms``, ``error`` (an exception that stopped the game), ``url``, ``token``.
    """

    def __init__(self, game, host: str = "127.0.0.1", port: int = 0, tick_seconds: float = STEP_SECONDS,
                 grace_seconds: float = GRACE_SECONDS, linger_seconds: float = LINGER_SECONDS,
                 say: Callable[[str], None] | None = None, rate_per_second: float = RATE_PER_SECOND,
                 rate_burst: float = RATE_BURST):
        if not tick_seconds > 0:
            raise ValueError(f"tick_seconds must be positive, got {tick_seconds}")
        check_bind_host(host)
        self.game = game
        self.host, self.port = host, port
        self.tick_seconds = float(tick_seconds)
        self.grace_seconds = float(grace_seconds)
        self.linger_seconds = float(linger_seconds)
        self.say = say or (lambda line: None)
        self.rate = (float(rate_per_second), float(rate_burst))
        self.token = secrets.token_urlsafe(24)
        self.url = ""
        self.site = SiteNames(frozenset(), frozenset())  # the names the page may use, known once bound
        self.counters: dict[str, int] = {name: 0 for name in COUNTER_NAMES}
        self.frame_times_ms: list[float] = []
        self.lateness_ms: list[float] = []
        self.error: BaseException | None = None
        self._assets = load_assets(self.token)
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._done = threading.Event()
        self._start_error: OSError | None = None
        # loop-thread state
        self._player: ServerConnection | None = None
        self._paused_by_player = False
        self._ending = False
        self._playing: asyncio.Event | None = None
        self._shutdown: asyncio.Event | None = None
        self._shutdown_reason = "stopped"
        self._epoch = 0  # bumped on every (re)start of the clock: the schedule restarts from then
        self._grace: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task] = set()  # tasks started from callbacks, kept until done
        self._connections: weakref.WeakSet = weakref.WeakSet()  # every connection, handshake or not

    # ------------------------------------------------------------------------------------------ thread API
    def start(self, timeout: float = 30.0) -> str:
        """Bind, serve in a background thread, and return the page's URL. ``OSError`` when the port is taken."""
        if self._thread is not None:
            raise RuntimeError("this ArenaServer was already started; make a new one")
        self._thread = threading.Thread(target=self._run_thread, name="fivestack-arena", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise RuntimeError(f"the arena server did not start within {timeout:g} s")
        if self._start_error is not None:
            raise self._start_error
        return self.url

    def stop(self, reason: str = "stopped", timeout: float = 30.0) -> None:
        """End the server: a game in progress is forfeited (``reason``) and saved, every connection closed (cut
        off after ``CLOSE_TIMEOUT_SECONDS`` if its client does not answer); idempotent. Takes a few seconds at
        most, whatever the clients do; ``timeout`` only bounds the wait for a server that hangs on a bug."""
        loop = self._loop
        if loop is not None and not self._done.is_set():
            try:
                loop.call_soon_threadsafe(self._request_shutdown, reason)
            except RuntimeError:  # the loop has just closed
                pass
        if self._thread is not None:
            self._thread.join(timeout)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the server has stopped (the game ended and lingered, or ``stop()``); False on timeout."""
        return self._done.wait(timeout)

    @property
    def stopped(self) -> bool:
        return self._done.is_set()

    def run_in_loop(self, fn: Callable[[], T], timeout: float = 30.0) -> T:
        """Run ``fn()`` in the server's loop, between two ticks, and return its result: the safe way for another
        thread to read ``game`` or ``counters`` while the game runs (after the server stopped: runs here)."""
        loop = self._loop
        if loop is None or self._done.is_set() or loop.is_closed():
            return fn()

        async def call() -> T:
            return fn()

        try:
            future = asyncio.run_coroutine_threadsafe(call(), loop)
        except RuntimeError:  # the loop closed just now
            return fn()
        try:
            return future.result(timeout)
        except FutureCancelled:  # the loop stopped before running it
            self._done.wait(timeout)
            return fn()
        except FutureTimeout:
            raise TimeoutError(f"the arena server's loop did not run the call within {timeout:g} s") from None

    # ------------------------------------------------------------------------------------------ the loop
    def _run_thread(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as e:  # noqa: BLE001 (reported to the starting thread, never lost)
            self.error = self.error or e
            traceback.print_exc(file=sys.stderr)
        finally:
            self._ready.set()
            self._done.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._playing, self._shutdown = asyncio.Event(), asyncio.Event()
        try:  # no keepalive pings: a tick may hold the loop for long (the first compiles the simulator's kernels),
            # and a closed tab closes its socket
            connection_class = type("ArenaConnection", (_ArenaConnection,),
                                    {"refuse_with_body": staticmethod(self._refuse_with_body),
                                     "registry": self._connections})
            server: Server = await serve(
                self._connection, self.host.strip("[]"), self.port, process_request=self._http,
                process_response=_with_security_headers, create_connection=connection_class, compression=None,
                max_size=MAX_INCOMING_BYTES, write_limit=(SEND_BACKLOG_BYTES, SEND_BACKLOG_BYTES // 4),
                ping_interval=None, close_timeout=CLOSE_TIMEOUT_SECONDS, server_header="fivestack-arena")
        except OSError as e:
            self._start_error = e
            return
        port = server.sockets[0].getsockname()[1]
        self.port = port
        self.url = f"http://{shown_host(self.host)}:{port}/"
        self.site = SiteNames.of(self.host.strip("[]"), port)
        self._ready.set()
        clock = asyncio.create_task(self._clock(), name="arena-clock")
        try:
            await self._shutdown.wait()
        finally:
            clock.cancel()
            await asyncio.gather(clock, return_exceptions=True)
            await self._save_on_shutdown()
            await self._close_server(server)

    async def _close_server(self, server: Server) -> None:
        """Close every connection: politely for ``CLOSE_TIMEOUT_SECONDS``, then cut off what is left (a page
        that does not read, a request that never ends), so that stopping takes seconds whatever the clients do."""
        server.close()
        try:
            await asyncio.wait_for(asyncio.shield(server.wait_closed()), CLOSE_TIMEOUT_SECONDS)
            return
        except asyncio.TimeoutError:
            pass
        for connection in list(self._connections):
            if connection.transport is not None:
                connection.transport.abort()
        try:
            await asyncio.wait_for(asyncio.shield(server.wait_closed()), CLOSE_TIMEOUT_SECONDS)
        except asyncio.TimeoutError:
            self.say("some connections did not close; the server stops without them")

    def _request_shutdown(self, reason: str = "stopped") -> None:
        if self._shutdown is not None and not self._shutdown.is_set():
            self._shutdown_reason = reason
            self._shutdown.set()

    async def _save_on_shutdown(self) -> None:
        """A game in progress is lost (``stop()``, Ctrl-C, an error); any played game is saved."""
        game = self.game
        try:
            if not game.finished and game.step > 0:
                await self._finish(game.forfeit(self._shutdown_reason), linger=False)
            elif game.finished:
                await self._finish(game.end_message(), linger=False)
        except Exception as e:  # noqa: BLE001 (saving must not hide the server's own shutdown)
            self.error = self.error or e
            traceback.print_exc(file=sys.stderr)

    def _update_clock(self) -> None:
        """Let the clock run exactly while a player is connected, has not paused, and the game goes on."""
        should_play = (self._player is not None and not self._paused_by_player and not self._ending
                       and not self.game.finished)
        if should_play and not self._playing.is_set():
            self._epoch += 1
            self._playing.set()
        elif not should_play:
            self._playing.clear()

    async def _clock(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                await self._playing.wait()
                epoch, t0, k = self._epoch, loop.time(), 0
                while self._playing.is_set() and self._epoch == epoch:
                    deadline = t0 + k * self.tick_seconds
                    delay = deadline - loop.time()
                    # even a late tick first lets the messages that arrived meanwhile through
                    await asyncio.sleep(max(delay, 0.0))
                    if not self._playing.is_set() or self._epoch != epoch:
                        break  # paused meanwhile: the schedule restarts at the resume
                    await self._tick(loop.time() - deadline)
                    k += 1
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 (a bug in the game: stop, say so, save what was played)
            self.error = e
            traceback.print_exc(file=sys.stderr)
            self.say(f"the game stopped on an error: {type(e).__name__}: {e}")
            self._request_shutdown("error")

    async def _tick(self, lateness_s: float) -> None:
        start = time.perf_counter()
        frame = self.game.tick()
        await self._send_frame(_json(frame))
        self.frame_times_ms.append((time.perf_counter() - start) * 1e3)
        self.lateness_ms.append(lateness_s * 1e3)
        if self.game.finished:
            await self._finish(self.game.end_message())

    async def _send_frame(self, text: str) -> None:
        ws = self._player
        if ws is None:
            return
        transport = ws.transport
        if transport is not None and transport.get_write_buffer_size() > SEND_BACKLOG_BYTES:
            self.counters["frames_dropped"] += 1
            return
        try:
            await ws.send(text)
            self.counters["frames"] += 1
        except ConnectionClosed:
            pass

    async def _finish(self, end: dict | None, linger: bool = True) -> None:
        """The game has ended: save it (replay + arena.jsonl), tell the page, stop after ``linger_seconds``."""
        first = not self._ending
        self._ending = True
        self._update_clock()
        path = self.game.close()
        end = dict(self.game.end_message() or end or {"type": "end"})
        if end.get("replay") is None and path is not None:
            end["replay"] = str(path)
        if first:
            self.say(f"game over: {end.get('outcome', '?')} ({end.get('reason', 'ended')})")
            if self._player is not None:
                await self._send_or_give_up(self._player, _json(end))
        if linger:
            asyncio.get_running_loop().call_later(self.linger_seconds, self._request_shutdown, "ended")

    async def _send_or_give_up(self, ws: ServerConnection, text: str) -> None:
        """Send ``text`` to a page unless it is gone or has not read for ``SEND_TIMEOUT_SECONDS``."""
        try:
            await asyncio.wait_for(ws.send(text), SEND_TIMEOUT_SECONDS)
        except (ConnectionClosed, asyncio.TimeoutError):
            pass

    # ------------------------------------------------------------------------------------------ HTTP
    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        """The plain requests and the socket's handshake, by the HTTP rules (``http_rules.screen``): 421 for a
        Host that is not this server's, 404, 405, and 403 for a socket opened by another site's page."""
        refusal = screen(request.method, request.path, request.headers.get_all, ROUTES, self.site)
        head_only = request.method == "HEAD"
        if refusal is not None:
            self.counters["refused_connections" if refusal.code == "bad_origin" else "refused_requests"] += 1
            return refusal_response(refusal, head_only)
        path = request.path.partition("?")[0]
        if path == WS_PATH:
            return None  # the WebSocket handshake goes on
        return http_response(HTTPStatus.OK, *self._assets[path], head_only=head_only)

    def _refuse_with_body(self, method: str, target: str, headers: Headers) -> Response:
        """A request with a body, which no route of the arena takes (see ``_ArenaProtocol``)."""
        refusal = screen(method, target, headers.get_all, ROUTES, self.site, has_body=True)
        assert refusal is not None
        self.counters["refused_requests"] += 1
        return refusal_response(refusal, method == "HEAD")

    # ------------------------------------------------------------------------------------------ WebSocket
    async def _connection(self, ws: ServerConnection) -> None:
        limiter = RateLimiter(*self.rate)
        try:
            async for raw in ws:
                self.counters["messages"] += 1
                try:
                    if not limiter.allow():
                        raise ProtocolError("rate_limited", f"too many messages: at most {self.rate[0]:g} a second")
                    await self._message(ws, parse_command(raw))
                except ProtocolError as e:
                    self.counters[e.code] += 1
                    await ws.send(_json(error_frame(e.code, e.message)))
                    if e.code in ("bad_token", "busy"):
                        await ws.close(1008, e.code)
                        break
                except Exception as e:  # noqa: BLE001 (a bug here: the page is told, the game and the socket go on)
                    self.counters["server_errors"] += 1
                    self.say(f"a message could not be handled ({type(e).__name__}: {str(e)[:120]}); it was refused")
                    await ws.send(_json(error_frame("server_error", "the server could not handle this message")))
        except ConnectionClosed:
            pass
        finally:
            if self._player is ws:
                self._player_left()

    async def _message(self, ws: ServerConnection, command) -> None:
        if command.kind == "hello":
            await self._hello(ws, command.token)
            return
        if self._player is not ws:
            raise ProtocolError("not_authenticated", "say hello with the page's token first")
        if command.kind == "ping":
            await ws.send(_json({"type": "pong", "id": command.ping_id}))
            return
        if self.game.finished or self._ending:
            raise ProtocolError("finished", "the game is over")
        if command.kind == "order":
            self.game.order(command)
            self.counters["orders"] += 1
        elif command.kind == "pause":
            self._paused_by_player = True
            self._update_clock()
            await ws.send(_json({"type": "paused"}))
        elif command.kind == "resume":
            self._paused_by_player = False
            self._update_clock()
            await ws.send(_json({"type": "resumed"}))
        elif command.kind == "leave":
            await self._finish(self.game.forfeit("leave"))
        else:  # parse_command knows a type this server does not
            raise ProtocolError("unknown_type", f"the server cannot handle {command.kind!r} messages")

    async def _hello(self, ws: ServerConnection, token: str) -> None:
        if not hmac.compare_digest(token.encode("utf-8", "surrogatepass"), self.token.encode()):
            raise ProtocolError("bad_token", "wrong token: reload the page the arena server printed")
        if self._player is not None and self._player is not ws:
            raise ProtocolError("busy", "another page is playing this game; close it first")
        joining = "the page is back; the game goes on" if self.game.step > 0 else "the page joined; the game starts"
        first_hello = self._player is None
        self._player = ws
        if self._grace is not None:
            self._grace.cancel()
            self._grace = None
        await ws.send(_json(self.game.welcome()))
        if self.game.finished or self._ending:
            end = self.game.end_message()
            if end is not None:
                await ws.send(_json(end))
            return
        if self._paused_by_player:
            await ws.send(_json({"type": "paused"}))
        elif first_hello:
            self.say(joining)
        self._update_clock()

    def _player_left(self) -> None:
        self._player = None
        self._update_clock()
        if self.game.finished or self._ending:
            return
        self.say(f"the page left: the game is paused, and lost if no page comes back within "
                 f"{self.grace_seconds:g} s")
        self._grace = asyncio.get_running_loop().call_later(self.grace_seconds, self._abandon)

    def _abandon(self) -> None:
        self._grace = None
        if self._player is None and not self.game.finished and not self._ending:
            task = asyncio.get_running_loop().create_task(self._finish(self.game.forfeit("left")))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)


def serve_game(game, host: str = "127.0.0.1", port: int = 0, open_browser: bool = True,
               say: Callable[[str], None] = print, **options: Any) -> ArenaServer:
    """Serve ``game`` until it ends, Ctrl-C or SIGTERM (either forfeits and saves it); returns the stopped server.
    ``OSError`` when ``host:port`` cannot be bound."""
    server = ArenaServer(game, host=host, port=port, say=say, **options)
    url = server.start()
    say(f"Arena at {url} (Ctrl-C to stop; leaving forfeits the game)")
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    with _sigterm_as_interrupt():
        try:
            while not server.wait(0.5):
                pass
        except KeyboardInterrupt:
            say("interrupted: the game counts as lost; saving it ...")
            server.stop("interrupted")
    return server


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """While inside: SIGTERM stops the arena as Ctrl-C does (only the main thread can take signals)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


__all__ = ["ASSETS", "ArenaServer", "GRACE_SECONDS", "LINGER_SECONDS", "MAX_INCOMING_BYTES", "ROUTES",
           "TOKEN_PLACEHOLDER", "WS_PATH", "http_response", "load_assets", "serve_game"]
