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
import hmac
import json
import secrets
import sys
import threading
import time
import traceback
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures import TimeoutError as FutureTimeout
from http import HTTPStatus
from importlib import resources
from typing import Any, Callable, TypeVar

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from fivestack.arena.protocol import ERROR_CODES, ProtocolError, RateLimiter, error_frame, parse_command
from fivestack.game.layout import STEP_SECONDS
from fivestack.viewer.server import SECURITY_HEADERS

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
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
COUNTER_NAMES = (*ERROR_CODES, "refused_connections", "messages", "orders", "frames", "frames_dropped")

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


def http_response(status: HTTPStatus, body: bytes, ctype: str) -> Response:
    """A plain HTTP response with the viewer's security headers; the connection closes after it."""
    headers = Headers([("Content-Type", ctype), ("Content-Length", str(len(body))), ("Connection", "close")])
    for key, value in SECURITY_HEADERS.items():
        headers[key] = value
    return Response(status.value, status.phrase, headers, body)


def allowed_origins(host: str, port: int) -> frozenset[str]:
    """The Origins a page of this server sends: its own ``http://HOST:PORT``, and every loopback name when bound
    to one of them."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    origins = {f"http://{shown}:{port}"}
    if shown in LOOPBACK_NAMES:
        origins.update(f"http://{name}:{port}" for name in LOOPBACK_NAMES)
    return frozenset(origins)


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
                 say: Callable[[str], None] | None = None):
        if not tick_seconds > 0:
            raise ValueError(f"tick_seconds must be positive, got {tick_seconds}")
        self.game = game
        self.host, self.port = host, port
        self.tick_seconds = float(tick_seconds)
        self.grace_seconds = float(grace_seconds)
        self.linger_seconds = float(linger_seconds)
        self.say = say or (lambda line: None)
        self.token = secrets.token_urlsafe(24)
        self.url = ""
        self.origins: frozenset[str] = frozenset()
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

    def stop(self, reason: str = "stopped", timeout: float = 60.0) -> None:
        """End the server: a game in progress is forfeited (``reason``) and saved; idempotent."""
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
            server: Server = await serve(
                self._connection, self.host, self.port, process_request=self._http, compression=None,
                max_size=MAX_INCOMING_BYTES, write_limit=(SEND_BACKLOG_BYTES, SEND_BACKLOG_BYTES // 4),
                ping_interval=None, close_timeout=CLOSE_TIMEOUT_SECONDS, server_header="fivestack-arena")
        except OSError as e:
            self._start_error = e
            return
        port = server.sockets[0].getsockname()[1]
        self.port = port
        shown = f"[{self.host}]" if ":" in self.host else self.host
        self.url = f"http://{shown}:{port}/"
        self.origins = allowed_origins(self.host, port)
        self._ready.set()
        clock = asyncio.create_task(self._clock(), name="arena-clock")
        try:
            await self._shutdown.wait()
        finally:
            clock.cancel()
            await asyncio.gather(clock, return_exceptions=True)
            await self._save_on_shutdown()
            server.close()
            await server.wait_closed()

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
                try:
                    await self._player.send(_json(end))
                except ConnectionClosed:
                    pass
        if linger:
            asyncio.get_running_loop().call_later(self.linger_seconds, self._request_shutdown, "ended")

    # ------------------------------------------------------------------------------------------ HTTP
    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        path = request.path.partition("?")[0]
        if path == WS_PATH:
            origins = request.headers.get_all("Origin")
            if len(origins) != 1 or origins[0] not in self.origins:
                self.counters["refused_connections"] += 1
                return http_response(HTTPStatus.FORBIDDEN, b"forbidden: this page is not the arena's own\n",
                                     "text/plain; charset=utf-8")
            return None  # the WebSocket handshake goes on
        asset = self._assets.get(path)
        if asset is None:
            return http_response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")
        return http_response(HTTPStatus.OK, *asset)

    # ------------------------------------------------------------------------------------------ WebSocket
    async def _connection(self, ws: ServerConnection) -> None:
        limiter = RateLimiter()
        try:
            async for raw in ws:
                self.counters["messages"] += 1
                try:
                    if not limiter.allow():
                        raise ProtocolError("rate_limited", "too many messages: at most 30 a second")
                    await self._message(ws, parse_command(raw))
                except ProtocolError as e:
                    self.counters[e.code] += 1
                    await ws.send(_json(error_frame(e.code, e.message)))
                    if e.code in ("bad_token", "busy"):
                        await ws.close(1008, e.code)
                        break
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
    """Serve ``game`` until it ends or Ctrl-C (which forfeits and saves it); returns the stopped server.
    ``OSError`` when ``host:port`` cannot be bound."""
    server = ArenaServer(game, host=host, port=port, say=say, **options)
    url = server.start()
    say(f"Arena at {url} (Ctrl-C to stop; leaving forfeits the game)")
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    try:
        while not server.wait(0.5):
            pass
    except KeyboardInterrupt:
        say("interrupted: the game counts as lost; saving it ...")
        server.stop("interrupted")
    return server


__all__ = ["ASSETS", "ArenaServer", "GRACE_SECONDS", "LINGER_SECONDS", "MAX_INCOMING_BYTES", "TOKEN_PLACEHOLDER",
           "WS_PATH", "allowed_origins", "http_response", "load_assets", "serve_game"]
