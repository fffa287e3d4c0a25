"""The arena against hostile clients: what a socket can send, as an outsider would send it.

First the four defects a black-box check found (each test here failed on the main branch before the fix): an
integer too big for a float killed the connection; every HTTP method was served as GET (HEAD with a body, POST
with a body not answered at all); any Host got the page and its token (DNS rebinding); stopping after a hostile
session waited ~60 s. Then the fuzzers (seeded; seeds in the tests): ``FUZZ_MESSAGES`` generated messages into
the parser and, through a real game, ``ArenaGame.order``; as many again over a real socket whose rate limiter is
widened so that each reaches the parser, beside a page that plays; ``HTTP_REQUESTS`` hostile HTTP requests
(``tests/http_fuzz.py``). After all of it the server is alive, the page still gets frames and its orders act,
and every refused message got exactly one reply.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from fivestack.arena.protocol import MAX_MESSAGE_BYTES, ORDERS, ProtocolError, parse_command
from fivestack.arena.server import ASSETS, ROUTES, WS_PATH, ArenaServer
from fivestack.arena.session import ArenaGame, ArenaSetup
from fivestack.game.layout import N_HEROES, X, Y
from http_fuzz import Target, ask, fuzz_http
from test_server import Client, make_server, open_client, origin, server, ws_url  # noqa: F401 (server: a fixture)

ROOT = Path(__file__).resolve().parents[2]
FUZZ_MESSAGES = 12_000
HTTP_REQUESTS = 2_000
SETUP = ArenaSetup(against="scripted", mode="1v1", seed=3)


def raw_http(srv: ArenaServer, text: str, body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
    return ask(Target(srv.host, srv.port, {}), text, body)


# ------------------------------------------------------------------------------------ finding 1: numbers
def test_an_integer_too_big_for_a_float_is_one_error_and_the_socket_stays_open(server):
    huge = "9" * 400  # 10**400 > the largest float: float() of it raises OverflowError
    message = f'{{"type":"order","hero":0,"order":"move","x":{huge},"y":100}}'
    assert len(message) < MAX_MESSAGE_BYTES
    with pytest.raises(ProtocolError) as info:
        parse_command(message)
    assert info.value.code == "bad_field" and "400 digits" in info.value.message

    async def run() -> Client:
        stranger = await open_client(server, hello=False)  # parsed before any hello: no token needed
        for text in (message, f'{{"type":"ping","id":{huge}}}', f'{{"type":"order","hero":-{huge},"order":"stop"}}'):
            await stranger.send(text)
        await stranger.wait_errors(3)
        await stranger.send({"type": "ping", "id": 1})
        await stranger.wait_errors(4)
        assert stranger.close_code is None  # still open
        await stranger.close()
        return stranger

    stranger = asyncio.run(run())
    assert stranger.errors == {"bad_field": 3, "not_authenticated": 1}
    assert server.counters["server_errors"] == 0


# ------------------------------------------------------------------------------------ finding 2: methods
def test_each_path_answers_only_its_methods(server):
    host = f"Host: 127.0.0.1:{server.port}"
    status, headers, body = raw_http(server, f"HEAD / HTTP/1.1\n{host}\n")
    assert status == 200 and body == b"" and int(headers["content-length"]) > 1000
    assert headers["content-type"].startswith("text/html") and headers["x-content-type-options"] == "nosniff"
    for method in ("OPTIONS", "PUT", "DELETE", "TRACE", "PATCH", "POST", "BREW"):
        status, headers, body = raw_http(server, f"{method} / HTTP/1.1\n{host}\n")
        assert status == 405 and headers["allow"] == "GET, HEAD", method
        assert server.token.encode() not in body and headers["x-content-type-options"] == "nosniff"
    # a body: the WebSocket library would close without a word; the rules answer it
    status, headers, body = raw_http(server, f"POST / HTTP/1.1\n{host}\nContent-Length: 5\n", b"hello")
    assert status == 405 and headers["allow"] == "GET, HEAD" and server.token.encode() not in body
    status, headers, _ = raw_http(server, f"PUT /ws HTTP/1.1\n{host}\nTransfer-Encoding: chunked\n",
                                  b"5\r\nhello\r\n0\r\n\r\n")
    assert status == 405 and headers["allow"] == "GET"
    status, _, _ = raw_http(server, f"GET /arena.js HTTP/1.1\n{host}\nContent-Length: 3\n", b"abc")
    assert status == 400
    status, headers, _ = raw_http(server, f"HEAD {WS_PATH} HTTP/1.1\n{host}\n")
    assert status == 405 and headers["allow"] == "GET"
    assert server.counters["refused_requests"] == 11


# ------------------------------------------------------------------------------------ finding 3: Host
def test_a_foreign_host_gets_421_and_never_the_token(server):
    for name in ("evil.example", f"evil.example:{server.port}", f"127.0.0.1:{server.port + 1}", "127.0.0.1",
                 f"127.0.0.1.nip.io:{server.port}"):
        status, headers, body = raw_http(server, f"GET / HTTP/1.1\nHost: {name}\n")
        assert status == 421 and server.token.encode() not in body, name
        assert headers["x-content-type-options"] == "nosniff"
    status, _, _ = raw_http(server, "GET / HTTP/1.1\n")  # no Host at all
    assert status == 421
    for name in ("127.0.0.1", "localhost", "LocalHost", "[::1]"):  # the loopback names are this server's
        status, _, body = raw_http(server, f"GET / HTTP/1.1\nHost: {name}:{server.port}\n")
        assert status == 200 and server.token.encode() in body, name

    async def socket_from_a_rebinding_page() -> int:
        try:
            async with connect(ws_url(server), origin=origin(server),
                               additional_headers={"Host": f"evil.example:{server.port}"}):
                return 101
        except Exception as e:  # noqa: BLE001
            return e.response.status_code

    assert asyncio.run(socket_from_a_rebinding_page()) == 421


def test_a_wildcard_address_is_refused_with_the_fix():
    with pytest.raises(ValueError, match="listens everywhere"):
        ArenaServer(ArenaGame(SETUP), host="0.0.0.0")


# ------------------------------------------------------------------------------------ finding 4: stopping
def hostile_session(srv: ArenaServer) -> list:
    """Connections an attacker leaves behind: a request that never ends, a body never sent, a page that said hello
    and floods without reading, a socket that never says anything. Returns what must stay referenced."""
    kept: list = []
    for head in (b"GET / HTTP/1.1\r\nHost: x\r\n", b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999\r\n\r\nab",
                 b"G"):
        for _ in range(5):
            s = socket.create_connection(("127.0.0.1", srv.port))
            s.sendall(head)
            kept.append(s)
    loop = asyncio.new_event_loop()

    async def flood_without_reading() -> None:
        ws = await connect(ws_url(srv), origin=origin(srv), max_size=None, ping_interval=None)
        await ws.send(json.dumps({"type": "hello", "token": srv.token}))
        ws.transport.pause_reading()  # never read again: the server's replies pile up
        silent = await connect(ws_url(srv), origin=origin(srv), ping_interval=None)
        kept.extend([ws, silent])
        try:
            for i in range(100_000):
                await ws.send("{")
                if i % 500 == 0:
                    await asyncio.sleep(0)
        except ConnectionClosed:  # the server went away: the attack is over
            pass

    threading.Thread(target=lambda: loop.run_until_complete(flood_without_reading()), daemon=True).start()
    kept.append(loop)
    return kept


@pytest.mark.slow  # quick loop: under 3 minutes in all (pytest -m 'not slow')
def test_stop_takes_seconds_after_a_hostile_session_and_saves_the_game(tmp_path):
    srv = make_server(tmp_path)
    srv.start()
    kept = hostile_session(srv)
    deadline = time.monotonic() + 60
    while srv.run_in_loop(lambda: srv.game.step) < 20 and time.monotonic() < deadline:
        time.sleep(0.1)  # the flooding page said hello: the game runs
    time.sleep(3.0)  # the flood fills the send buffers
    srv.stop("interrupted", timeout=10.0)  # the main branch before the fix needed ~60 s
    assert srv.stopped, "the server did not stop within 10 s"
    assert srv.error is None and srv.game.finished
    end = srv.game.end_message()
    assert end["reason"] == "interrupted" and Path(end["replay"]).is_file()
    assert (tmp_path / "results" / "arena.jsonl").read_text().count("\n") == 1
    assert not any(t.name == "fivestack-arena" and t.is_alive() for t in threading.enumerate())
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", srv.port), timeout=2).close()
    assert len(kept) > 15


@pytest.mark.slow
def test_sigterm_stops_the_arena_command_within_seconds_and_saves_the_game(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "fivestack.cli", "arena", "--against", "scripted", "--no-browser",
                             "--seed", "3"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    try:
        line = proc.stdout.readline()
        match = re.search(r"Arena at http://127\.0\.0\.1:(\d+)/", line)
        assert match, (line, proc.stderr.read() if proc.poll() is not None else "")
        port = int(match[1])
        status, _, body = ask(Target("127.0.0.1", port, {}), f"GET / HTTP/1.1\nHost: 127.0.0.1:{port}\n")
        token = re.search(rb'name="arena-token" content="([^"]+)"', body)[1].decode()

        class Address:
            host, url, game = "127.0.0.1", f"http://127.0.0.1:{port}/", None

        Address.port, Address.token = port, token
        kept = hostile_session(Address)  # the flooding page plays the game
        time.sleep(5.0)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=20)
        took = time.monotonic() - started
    finally:
        if proc.poll() is None:
            proc.kill()
    out = proc.stdout.read()
    assert code == 0, (out, proc.stderr.read())
    assert "interrupted" in out and took < 20
    records = (tmp_path / "runs" / "arena-scripted" / "arena.jsonl").read_text().splitlines()
    assert len(records) == 1 and json.loads(records[0])["reason"] == "interrupted"
    assert list((tmp_path / "runs" / "arena-scripted" / "arena").glob("*.npz"))
    assert len(kept) > 15


# ------------------------------------------------------------------------------------ the fuzzers
def number(rng: random.Random) -> str:
    """A JSON number of any size and kind, as text."""
    kind = rng.randrange(7)
    if kind == 0:
        return str(rng.randint(-10, 20_000))
    if kind == 1:
        return ("-" if rng.random() < 0.5 else "") + str(rng.randint(1, 9)) + "0" * rng.randint(10, 700)
    if kind == 2:
        return repr(rng.uniform(-1e4, 2e4))
    if kind == 3:
        return f"{rng.randint(1, 9)}e{rng.choice([308, 309, 400, -400, -324, 999999])}"
    if kind == 4:
        return rng.choice(["-0", "-0.0", "0.0", "1E2", "1e-7", "5e-324", "16000", "16000.0000001", "2147483648"])
    if kind == 5:
        return rng.choice(["NaN", "Infinity", "-Infinity", "01", "1.", ".5", "0x10", "+1", "1_000"])  # not JSON
    return str(rng.choice([0, 1, N_HEROES - 1, N_HEROES, 255, 256, 2**31, 2**63, -(2**63)]))


def value(rng: random.Random, depth: int = 0) -> str:
    """Any JSON value (sometimes not quite JSON), as text."""
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind <= 1:
        return number(rng)
    if kind == 2:
        return json.dumps(rng.choice(["", "move", "MOVE", "ab\u0000c", "\u202eevil", "\U0001f600", "x" * 300,
                                      "\ud800", "order", "hello", "ping"]))
    if kind == 3:
        return rng.choice(["true", "false", "null"])
    if kind == 4:
        d = rng.randint(1, 400)
        return "[" * d + "]" * d
    if kind == 5:
        d = rng.randint(1, 200)
        return '{"a":' * d + "1" + "}" * d
    if kind == 6:
        return "[" + ",".join(value(rng, depth + 1) for _ in range(rng.randint(0, 4))) + "]"
    if kind == 7:
        return "{" + ",".join(f'"{rng.choice(["x", "y", "type", "hero"])}":{value(rng, depth + 1)}'
                              for _ in range(rng.randint(0, 3))) + "}"
    return '"\\ud83d"'  # a lone surrogate, escaped


def hostile_message(rng: random.Random, hero: int, hello: bool = True) -> str:
    """One message, mostly of the protocol's shape with some field made hostile (see ``value``). ``hello``:
    hellos too (a wrong token closes the connection, as documented, so the socket fuzz leaves them out)."""
    kind = rng.randrange(10)
    if kind == 0:
        return value(rng)
    if kind == 1:  # duplicate keys
        return f'{{"type":"ping","id":1,"id":{number(rng)}}}'
    kinds = ["order"] * 6 + ["ping", "pause", "resume"] + (["hello"] if hello else [])
    fields: dict[str, str] = {"type": json.dumps(rng.choice(kinds))}
    name = rng.choice(list(ORDERS))
    who = rng.random()
    fields.update(hero=str(hero) if who < 0.6 else str(rng.randrange(N_HEROES)) if who < 0.75 else number(rng),
                  order=json.dumps(name))
    needs, may = ORDERS[name]
    for f in (*needs, *(f for f in may if rng.random() < 0.5)):
        fields[f] = (number(rng) if f in ("x", "y") else str(rng.randint(0, 9))) if rng.random() < 0.8 else value(rng)
    if fields["type"] == '"ping"':
        fields = {"type": '"ping"', "id": number(rng)}
    elif fields["type"] == '"hello"':
        fields = {"type": '"hello"', "token": value(rng)}
    victim = rng.choice([k for k in fields if hello or k != "type"])
    if rng.random() < 0.4:
        fields[victim] = value(rng)
    if rng.random() < 0.1:
        fields[rng.choice(["extra", "\u00e9", ""])] = value(rng)
    text = "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in fields.items()) + "}"
    return text if len(text) <= 3000 else text[:3000]


def test_the_parser_and_the_game_refuse_fuzz_with_protocol_errors_only(tmp_path):
    """``FUZZ_MESSAGES`` messages (seed 11): parse_command returns a Command or raises ProtocolError, nothing else;
    each Command goes to a real game's ``order``, which accepts it or raises ProtocolError."""
    rng = random.Random(11)
    game = ArenaGame(SETUP, results_dir=tmp_path)
    outcomes: dict[str, int] = {}
    for i in range(FUZZ_MESSAGES):
        message = hostile_message(rng, game.hero)
        try:
            command = parse_command(message)
            if command.kind == "order":
                game.order(command)
            outcome = "accepted"
        except ProtocolError as e:
            outcome = e.code
        except Exception as e:  # noqa: BLE001
            raise AssertionError(f"{type(e).__name__}: {e} on {message[:300]!r}") from e
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if i % 400 == 0:
            game.tick()  # the game moves on, so that orders meet other states
    assert sum(outcomes.values()) == FUZZ_MESSAGES
    for code in ("not_json", "not_object", "unknown_type", "bad_field", "unknown_order", "not_your_hero",
                 "accepted"):
        assert outcomes.get(code, 0) > 50, (code, outcomes)  # the generator reaches every part of the parser


def test_fuzz_over_a_socket_each_message_one_reply_and_the_page_plays_on(tmp_path):
    """``FUZZ_MESSAGES`` messages (seeds 21, 22) over real sockets with the limiter widened so that all reach the
    parser: a stranger (no hello) and the player; one reply per refused message; the player's valid moves act."""
    srv = make_server(tmp_path, rate_per_second=1e9, rate_burst=1e9)
    srv.start()
    hero = srv.game.hero

    async def run() -> tuple[Client, Client, list, list]:
        player = await open_client(srv)
        stranger = await open_client(srv, hello=False)
        rng_p, rng_s = random.Random(21), random.Random(22)
        sent_p = 0
        for i in range(FUZZ_MESSAGES // 2):
            await stranger.send(hostile_message(rng_s, hero, hello=False))
            await player.send(hostile_message(rng_p, hero, hello=False))
            sent_p += 1
            if i % 200 == 0:
                await asyncio.sleep(0.01)  # let frames and replies flow
        await stranger.send({"type": "ping", "id": 5})
        await stranger.wait_errors(stranger.sent, timeout=120)
        # the page still plays: its move acts
        await player.send({"type": "resume"})
        start = srv.run_in_loop(lambda: srv.game.env.game.state.uf[0, hero, [X, Y]].tolist())
        target = [start[0] + 1000.0, start[1] + 800.0]
        await player.send({"type": "order", "hero": hero, "order": "move", "x": target[0], "y": target[1]})
        await player.send({"type": "ping", "id": 9})
        await player.next_other("pong", timeout=120)
        n = len(player.frames)
        while len(player.frames) < n + 25:
            await asyncio.sleep(0.02)
        end = srv.run_in_loop(lambda: srv.game.env.game.state.uf[0, hero, [X, Y]].tolist())
        await player.send({"type": "pause"})
        await player.next_other("paused")
        await stranger.close()
        await player.close()
        return player, stranger, [start, end, target], [sent_p]

    try:
        player, stranger, (start, end, target), _ = asyncio.run(run())
        counters = srv.run_in_loop(lambda: dict(srv.counters))
    finally:
        srv.stop()
    assert srv.error is None and counters["server_errors"] == 0
    assert counters["messages"] >= FUZZ_MESSAGES and counters["rate_limited"] == 0
    assert sum(stranger.errors.values()) == stranger.sent  # each message: exactly one error frame
    assert stranger.close_code is not None and player.close_code is not None
    # the player's: every message but the hello refused once or accepted (orders; pause, resume and ping answered
    # by paused, resumed, pong: two of those were taken from ``other`` by next_other)
    answered = sum(1 for m in player.other if m["type"] in ("paused", "resumed", "pong")) + 2
    assert sum(player.errors.values()) + counters["orders"] + answered == player.sent - 1
    assert np.hypot(end[0] - target[0], end[1] - target[1]) < np.hypot(start[0] - target[0],
                                                                       start[1] - target[1]) - 300


@pytest.mark.slow
def test_http_fuzz_against_the_arena(server):
    """``HTTP_REQUESTS`` hostile requests (seed 31): each reply as the rules say; then the page still works."""
    routes = {path: ROUTES[path].methods for path in ROUTES}
    target = Target("127.0.0.1", server.port, routes, changes_state=frozenset({WS_PATH}), secret=server.token)
    counts = fuzz_http(target, seed=31, n=HTTP_REQUESTS)
    assert sum(counts.values()) == HTTP_REQUESTS
    for status in (200, 400, 403, 404, 405, 421):
        assert counts.get(status, 0) > 10, counts
    assert server.counters["server_errors"] == 0 and server.error is None
    for path in ASSETS:
        status, _, body = raw_http(server, f"GET {path} HTTP/1.1\nHost: localhost:{server.port}\n")
        assert status == 200 and body

    async def still_plays() -> Client:
        client = await open_client(server)
        while len(client.frames) < 5:
            await asyncio.sleep(0.02)
        await client.close()
        return client

    assert not asyncio.run(still_plays()).errors
