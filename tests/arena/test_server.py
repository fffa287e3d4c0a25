"""The arena's server over real WebSockets on loopback (the ``websockets`` client against ``ArenaServer`` in its
thread, a real ``ArenaGame`` against the scripted bot): the static files and their token, the Origin check, the
hello, pause / resume / leave, a page that leaves and does not come back, and the flood of Done-when 2: 10,000
malformed messages, each answered by exactly one error frame and counted, while the game keeps ticking and
ends up exactly where the player's accepted actions alone take it. Then the ``fivestack arena`` command's
option errors and ``--stats``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from fivestack.arena.protocol import ERROR_CODES, MAX_MESSAGE_BYTES, RATE_BURST
from fivestack.arena.records import append_result
from fivestack.arena.server import MAX_INCOMING_BYTES, TOKEN_PLACEHOLDER, ArenaServer
from fivestack.arena.session import ArenaGame, ArenaSetup
from fivestack.game.layout import NO_ORDER
from fivestack.cli import app
from fivestack.game.layout import HP, MAP_SIZE, N_HEROES, X, Y
from fivestack.viewer.server import SECURITY_HEADERS

TICK = 0.05  # 20 ticks per wall second in these tests (the real clock: STEP_SECONDS = 2/15 s)
SETUP = ArenaSetup(against="scripted", mode="1v1", seed=3)


# ---------------------------------------------------------------------------------------------- helpers
def make_server(tmp_path: Path, setup: ArenaSetup = SETUP, **options) -> ArenaServer:
    options = {"tick_seconds": TICK, "grace_seconds": 30.0, "linger_seconds": 1.0, **options}
    return ArenaServer(ArenaGame(setup, results_dir=tmp_path / "results"), **options)


@pytest.fixture
def server(tmp_path):
    srv = make_server(tmp_path)
    srv.start()
    yield srv
    srv.stop()
    assert srv.error is None


def ws_url(srv: ArenaServer) -> str:
    return srv.url.replace("http://", "ws://") + "ws"


def origin(srv: ArenaServer) -> str:
    return srv.url.rstrip("/")


def state_digest(game: ArenaGame) -> str:
    """The whole simulator state, hashed as the golden trace does."""
    h = hashlib.sha256()
    for arr in tuple(game.env.game.state):
        arr = np.ascontiguousarray(arr)
        h.update(str((arr.dtype.str, arr.shape)).encode())
        h.update(arr.tobytes())
    return h.hexdigest()


def snapshot(game: ArenaGame) -> dict:
    """What the comparison of two games looks at (read in the server's loop, between ticks)."""
    uf = game.env.game.state.uf[0]
    return {"step": game.step, "digest": state_digest(game), "actions": [(s, list(r)) for s, r in game.player_actions],
            "heroes": uf[:N_HEROES, [X, Y, HP]].tolist(), "finished": game.finished}


class Client:
    """One connection to the arena and what came back on it: error frames counted by code, frame steps with their
    arrival times, everything else in order."""

    def __init__(self, ws):
        self.ws = ws
        self.sent = 0
        self.errors: Counter[str] = Counter()
        self.frames: list[tuple[float, int]] = []
        self.other: list[dict] = []
        self.close_code: int | None = None
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                message = json.loads(raw)
                if message["type"] == "error":
                    assert set(message) == {"type", "code", "message"} and message["message"]
                    self.errors[message["code"]] += 1
                elif message["type"] == "frame":
                    self.frames.append((time.monotonic(), message["step"]))
                else:
                    self.other.append(message)
        except ConnectionClosed:
            pass
        self.close_code = self.ws.close_code

    async def send(self, message) -> None:
        await self.ws.send(message if isinstance(message, (str, bytes)) else json.dumps(message))
        self.sent += 1

    async def next_other(self, kind: str, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for message in self.other:
                if message["type"] == kind:
                    self.other.remove(message)
                    return message
            await asyncio.sleep(0.01)
        raise AssertionError(f"no {kind!r} message within {timeout} s; got {self.other} and errors {self.errors}")

    async def wait_errors(self, count: int, timeout: float = 60.0) -> None:
        """Until ``count`` error frames came (then a moment more, so that an extra one would be seen)."""
        deadline = time.monotonic() + timeout
        while sum(self.errors.values()) < count and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.2)

    async def close(self) -> None:
        await self.ws.close()
        await self.reader


async def open_client(srv: ArenaServer, hello: bool = True) -> Client:
    client = Client(await connect(ws_url(srv), origin=origin(srv), max_size=None))
    if hello:
        await client.send({"type": "hello", "token": srv.token})
        await client.next_other("welcome")
    return client


# ---------------------------------------------------------------------------------------------- malformed
def malformed(rng: random.Random, hero: int, in_game: bool) -> str | bytes:
    """One message the server must refuse. ``in_game``: also orders only the game can refuse (another hero, a
    unit the team does not see, an ability not learned, buyback while alive, an empty item slot)."""
    order = {"type": "order", "hero": hero}
    kinds = [
        lambda: rng.choice(["", "{", "{\"type\": \"order\",", "hello", "{'type': 'hello'}", "\x00\x01", "[1,2",
                            "{\"type\": \"ping\", \"id\": NaN}", "{\"type\":\"order\",\"hero\":0,\"x\":Infinity}",
                            "{\"type\": -Infinity}", "\"\\ud800\"" + "}"]),
        lambda: rng.choice(["[1, 2]", "3", "\"hello\"", "null", "true", "[" * 200 + "]" * 200]),
        lambda: json.dumps(rng.choice([{}, {"type": "launch"}, {"type": 5}, {"type": None}, {"type": ["order"]},
                                       {"kind": "order"}, {"type": "HELLO"}])),
        lambda: json.dumps({**order, "hero": rng.choice(["0", 1.5, True, None, 10**30, -1, N_HEROES, 2**63]),
                            "order": "stop"}),
        lambda: json.dumps({**order, "order": "move", "x": rng.choice([1e308, -5, MAP_SIZE + 1, "1", None, [1], 1e999]),
                            "y": 100}),
        lambda: json.dumps({**order, "order": "move", "x": 100}),
        lambda: json.dumps({**order, "order": "ability", "slot": rng.choice([4, -1, 9, 1.0, False, 10**40])}),
        lambda: json.dumps({**order, "order": "attack", "unit": rng.choice([-1, 256, 10**20, "5", 2.5])}),
        lambda: json.dumps({**order, "order": "stop", "extra": 1}),
        lambda: json.dumps({"type": "ping", "id": rng.choice(["a", -1, 2**40, None, 1.5])}),
        lambda: json.dumps({"type": "hello", "token": rng.choice([5, None, "", "t" * 200])}),
        lambda: json.dumps({**order, "order": rng.choice(["teleport", "MOVE", 7, None, "", "delete_hero"])}),
        lambda: "{\"type\":\"order\",\"pad\":\"" + "x" * rng.randint(MAX_MESSAGE_BYTES, 60_000) + "\"}",
        lambda: rng.choice([b"{\"type\": \"ping\", \"id\": 1}", bytes(rng.getrandbits(8) for _ in range(64)), b""]),
    ]
    if in_game:
        others = [h for h in range(N_HEROES) if h != hero]
        kinds += [
            lambda: json.dumps({**order, "hero": rng.choice(others), "order": "move", "x": 8000, "y": 8000}),
            lambda: json.dumps({**order, "hero": rng.choice(others), "order": "stop"}),
            lambda: json.dumps({**order, "order": "ability", "slot": 3}),
            lambda: json.dumps({**order, "order": "buyback"}),
            lambda: json.dumps({**order, "order": "item", "slot": rng.randint(3, 5)}),
            lambda: json.dumps({**order, "order": "attack", "unit": rng.randint(0, 255)}),
            lambda: json.dumps({**order, "order": "town_portal", "unit": rng.randint(0, 255)}),
        ]
    return rng.choice(kinds)()


def valid_move(rng: random.Random, hero: int, home: tuple[float, float]) -> dict:
    """A move near the hero's fountain (so that the walk stays out of the enemy's way)."""
    return {"type": "order", "hero": hero, "order": "move", "x": home[0] + rng.uniform(0, 1500),
            "y": home[1] + rng.uniform(0, 1500)}


async def burst(client: Client, messages: list, seconds: float = 1.0) -> None:
    """Send ``messages`` evenly over ``seconds`` (chunks every 50 ms)."""
    chunks = max(1, round(seconds / 0.05))
    size = -(-len(messages) // chunks)
    for i in range(0, len(messages), size):
        for message in messages[i:i + size]:
            await client.send(message)
        await asyncio.sleep(0.05)


# ---------------------------------------------------------------------------------------------- Done when 2
@pytest.mark.slow  # quick loop: under 3 minutes in all (pytest -m 'not slow')
def test_ten_thousand_malformed_messages_each_get_one_error_and_leave_the_game_unharmed(server, tmp_path):
    game = server.game
    hero = game.hero
    home = tuple(server.run_in_loop(lambda: game.env.game.state.uf[0, hero, [X, Y]].tolist()))

    async def flood() -> dict:
        rng = random.Random(17)
        player = await open_client(server)
        step0 = server.run_in_loop(lambda: game.step)
        started = time.monotonic()

        # others at the same time: unauthenticated pages (the form is checked before the hello), paced and bursty
        async def stranger(seed: int) -> Client:
            r = random.Random(seed)
            c = await open_client(server, hello=False)
            for _ in range(300):  # under the rate: each message reaches the parser
                await c.send(malformed(r, hero, in_game=False))
                if r.random() < 0.3:  # a well-formed message before the hello
                    await c.send({"type": "order", "hero": hero, "order": "stop"})
                await asyncio.sleep(1 / 25)
            await burst(c, [malformed(r, hero, in_game=False) for _ in range(700)])
            await c.wait_errors(c.sent)
            await c.close()
            return c

        strangers = [asyncio.get_running_loop().create_task(stranger(100 + i)) for i in range(4)]

        # the player: paced malformed messages among valid moves, then bursts of 1,000 messages a second
        valid = 0
        for i in range(250):
            if i % 10 == 0:
                await player.send(valid_move(rng, hero, home))
                valid += 1
            else:
                await player.send(malformed(rng, hero, in_game=True))
            await asyncio.sleep(1 / 25)
        for _ in range(6):
            await asyncio.sleep(1.1)  # the bucket refills
            messages = [malformed(rng, hero, in_game=True) for _ in range(1000)]
            await burst(player, messages)
        flood_seconds = time.monotonic() - started
        await asyncio.sleep(1.1)
        await player.send({"type": "ping", "id": 1})
        await player.next_other("pong")  # every reply before it has arrived
        flood_sent = player.sent - 2  # less the hello and the ping

        # fresh connections: a bad token, a second page, a foreign Origin, no Origin, a message too big to read
        tokens = []
        wrong = [server.token[:-1] + ("A" if server.token[-1] != "A" else "B"), server.token + "\ud800", "x"]
        for i in range(10):
            c = await open_client(server, hello=False)
            await c.send({"type": "ping", "id": 2})
            await c.send({"type": "hello", "token": wrong[i % len(wrong)]})
            await c.reader
            assert c.close_code == 1008 and c.errors == {"not_authenticated": 1, "bad_token": 1}
            tokens.append(c)
        busy = await open_client(server, hello=False)
        await busy.send({"type": "hello", "token": server.token})
        await busy.reader
        assert busy.close_code == 1008 and busy.errors == {"busy": 1}
        refused = 0
        foreigners = ["http://evil.example", "null", f"http://127.0.0.1:{server.port + 1}",
                      "https" + origin(server)[4:], None]
        for foreign in foreigners:
            with pytest.raises(InvalidStatus) as info:
                async with connect(ws_url(server), origin=foreign):
                    pass
            assert info.value.response.status_code == 403
            refused += 1
        huge = await open_client(server, hello=False)
        await huge.ws.send("x" * (MAX_INCOMING_BYTES + 1))
        await huge.reader
        assert huge.close_code == 1009 and not huge.errors  # closed by the WebSocket layer, no message read

        done = [await s for s in strangers]
        # the game kept running all along, and the player got its frames
        steps = [s for _, s in player.frames]
        arrivals = [t for t, _ in player.frames if t <= started + flood_seconds]
        await player.send({"type": "pause"})
        await player.next_other("paused")
        after = server.run_in_loop(lambda: snapshot(game))
        counters = server.run_in_loop(lambda: dict(server.counters))
        await player.close()
        return {"player": player, "strangers": done, "tokens": tokens, "busy": busy, "refused": refused,
                "flood_sent": flood_sent, "step0": step0, "flood_seconds": flood_seconds, "steps": steps,
                "arrivals": arrivals, "after": after, "counters": counters}

    r = asyncio.run(flood())
    player, counters = r["player"], r["counters"]
    clients = [player, *r["strangers"], *r["tokens"], r["busy"]]

    # each refused message got exactly one error frame, and the server counted exactly the frames it sent
    received = sum((c.errors for c in clients), Counter())
    assert {code: counters[code] for code in ERROR_CODES} == {code: received[code] for code in ERROR_CODES}
    for s in r["strangers"]:
        assert sum(s.errors.values()) == s.sent  # nothing they sent was accepted
    # the player's messages were each refused or accepted (valid moves, and an attack or buyback that happened to
    # be possible when it came), never both, never neither
    assert sum(player.errors.values()) + counters["orders"] == r["flood_sent"]
    assert counters["messages"] == sum(c.sent for c in clients)  # the message too big to read is not one
    assert counters["refused_connections"] == r["refused"]
    assert sum(received.values()) >= 10_000
    # bursts of 1,000 messages a second: all but the bucket (30) and its refill (30 a second) are refused
    assert player.errors["rate_limited"] >= 6 * (1000 - 4 * RATE_BURST)
    for code in ("too_large", "not_json", "not_object", "unknown_type", "bad_field", "unknown_order", "not_your_hero",
                 "not_available", "rate_limited", "not_authenticated", "bad_token", "busy"):
        assert received[code] > 0, code
    assert counters["frames_dropped"] == 0 and server.error is None

    # the game kept running: frames arrived in order all through the flood, and the clock kept near its pace
    steps = r["steps"]
    assert steps == sorted(set(steps)) and len(steps) > 50
    gaps = np.diff(r["arrivals"])
    assert gaps.max() < 2.0, f"no frame for {gaps.max():.2f} s during the flood"
    assert r["after"]["step"] - r["step0"] >= 0.3 * r["flood_seconds"] / TICK

    # the state is unharmed: the same game replayed with the player's accepted actions only ends identically
    after = r["after"]
    assert after["actions"], "the valid moves were played"
    replayed = ArenaGame(SETUP, results_dir=tmp_path / "replayed")
    rows = dict(after["actions"])
    for step in range(after["step"]):
        replayed.tick(player_row=rows.get(step, NO_ORDER))
    again = snapshot(replayed)
    assert again["actions"] == after["actions"]
    assert again["heroes"] == after["heroes"]
    assert again["digest"] == after["digest"]


# ---------------------------------------------------------------------------------------------- the page's path
def test_a_valid_order_gets_no_error_and_moves_the_hero(server):
    game = server.game

    async def play() -> tuple[Client, list, list]:
        client = await open_client(server)
        while len(client.frames) < 3:
            await asyncio.sleep(0.02)
        start = server.run_in_loop(lambda: game.env.game.state.uf[0, game.hero, [X, Y]].tolist())
        target = [start[0] + 1200.0, start[1] + 900.0]
        await client.send({"type": "order", "hero": game.hero, "order": "move", "x": target[0], "y": target[1]})
        await client.send({"type": "ping", "id": 7})
        assert (await client.next_other("pong")) == {"type": "pong", "id": 7}
        n = len(client.frames)
        while len(client.frames) < n + 20:
            await asyncio.sleep(0.02)
        end = server.run_in_loop(lambda: game.env.game.state.uf[0, game.hero, [X, Y]].tolist())
        await client.close()
        return client, start, end, target

    client, start, end, target = asyncio.run(play())
    assert not client.errors
    assert server.counters["orders"] == 1
    assert np.hypot(end[0] - target[0], end[1] - target[1]) < np.hypot(start[0] - target[0], start[1] - target[1]) - 300
    assert any(row[0] != 0 for _, row in game.player_actions)


def test_static_files_token_and_headers(server):
    with urllib.request.urlopen(server.url) as response:
        page = response.read().decode()
        headers = response.headers
    assert response.status == 200 and headers["Content-Type"].startswith("text/html")
    assert f'content="{server.token}"' in page and TOKEN_PLACEHOLDER not in page
    for key, value in SECURITY_HEADERS.items():
        assert headers[key] == value
    for path, kind in (("arena.js", "javascript"), ("arena.css", "css"), ("map.js", "javascript")):
        with urllib.request.urlopen(server.url + path) as response:
            assert response.status == 200 and kind in response.headers["Content-Type"] and response.read()
    for path in ("nope", "arena.html", "../pyproject.toml", "%2e%2e/pyproject.toml", "static/arena.js",
                 "ws/../arena.js", "/etc/passwd", "index.html", "replay/meta.json"):
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(server.url + path)
        info.value.close()
        assert info.value.code == 404, path
    assert ArenaServer(server.game).token != server.token  # one token per game


def test_loopback_names_are_the_same_origin_and_a_second_page_is_busy(server):
    async def run() -> None:
        for name in ("127.0.0.1", "localhost"):
            async with connect(ws_url(server), origin=f"http://{name}:{server.port}") as ws:
                await ws.send(json.dumps({"type": "ping", "id": 1}))
                assert json.loads(await ws.recv())["code"] == "not_authenticated"
        first = await open_client(server)
        second = await open_client(server, hello=False)
        await second.send({"type": "hello", "token": server.token})
        await second.reader
        assert second.errors == {"busy": 1} and second.close_code == 1008
        n = len(first.frames)
        await asyncio.sleep(0.5)
        assert len(first.frames) > n  # the first page still plays
        await first.close()

    asyncio.run(run())
    assert server.counters["refused_connections"] == 0


def test_pause_resume_leave_and_finished(server):
    game = server.game

    async def run() -> tuple[Client, dict]:
        client = await open_client(server)
        while len(client.frames) < 3:
            await asyncio.sleep(0.02)
        await client.send({"type": "pause"})
        await client.next_other("paused")
        paused_at = server.run_in_loop(lambda: game.step)
        await asyncio.sleep(0.5)
        assert server.run_in_loop(lambda: game.step) == paused_at  # no ticks while paused
        await client.send({"type": "resume"})
        await client.next_other("resumed")
        await asyncio.sleep(0.5)
        assert server.run_in_loop(lambda: game.step) > paused_at
        await client.send({"type": "leave"})
        end = await client.next_other("end")
        await client.send({"type": "order", "hero": game.hero, "order": "stop"})
        await client.wait_errors(1)
        await client.reader  # the server stops a little later and closes the page's socket
        return client, end

    client, end = asyncio.run(run())
    assert end["outcome"] == "loss" and end["reason"] == "leave" and Path(end["replay"]).is_file()
    assert client.errors == {"finished": 1}
    assert server.wait(10) and game.finished
    records = (Path(game.results_dir) / "arena.jsonl").read_text().splitlines()
    assert len(records) == 1 and json.loads(records[0])["outcome"] == "loss"


def test_a_page_that_does_not_come_back_loses_and_the_replay_is_kept(tmp_path):
    srv = make_server(tmp_path, grace_seconds=0.5)
    srv.start()

    async def run() -> int:
        client = await open_client(srv)
        while len(client.frames) < 5:
            await asyncio.sleep(0.02)
        await client.close()
        await asyncio.sleep(0.2)  # the server has seen the page go (well within the grace period)
        return srv.run_in_loop(lambda: srv.game.step)

    left_at = asyncio.run(run())
    assert srv.wait(30), "the server stops by itself after the game is lost"
    assert srv.error is None
    end = srv.game.end_message()
    assert end["outcome"] == "loss" and end["reason"] == "left" and Path(end["replay"]).is_file()
    assert srv.game.step == left_at  # paused from the moment the page left


def test_a_page_that_comes_back_in_time_plays_on(tmp_path):
    srv = make_server(tmp_path, grace_seconds=1.0)
    srv.start()
    try:
        async def run() -> None:
            first = await open_client(srv)
            while len(first.frames) < 3:
                await asyncio.sleep(0.02)
            await first.close()
            await asyncio.sleep(0.2)
            second = await open_client(srv)
            await asyncio.sleep(1.5)  # past the grace period
            assert len(second.frames) > 10 and not srv.game.finished
            await second.close()

        asyncio.run(run())
    finally:
        srv.stop()


def test_stop_forfeits_a_game_in_progress_and_saves_it(tmp_path):
    srv = make_server(tmp_path)
    srv.start()

    async def run() -> None:
        client = await open_client(srv)
        while len(client.frames) < 5:
            await asyncio.sleep(0.02)
        await asyncio.get_running_loop().run_in_executor(None, srv.stop, "interrupted")
        await client.reader
        end = await client.next_other("end")
        assert end["outcome"] == "loss" and end["reason"] == "interrupted"

    asyncio.run(run())
    assert srv.stopped and srv.error is None and Path(srv.game.end_message()["replay"]).is_file()


# ---------------------------------------------------------------------------------------------- the command
def arena(*args):
    return CliRunner().invoke(app, ["arena", *args])


@pytest.mark.parametrize("args, message", [
    (["--mode", "3v3"], "Error: mode '3v3' is unknown; use 1v1 or 5v5"),
    (["--side", "up"], "Error: side 'up' is unknown"),
    (["--coop"], "Error: --coop gives the player four trained teammates: it needs --mode 5v5"),
    (["--against", "nobody"], "Error: --against: unknown agent 'nobody'"),
    (["--against", "runs/missing:12"], "Error: --against: 'runs/missing:12' is not a run folder"),
    (["--against", "scripted", "--hero", "Nobody"], "Error: hero 'Nobody' is unknown"),
    (["--port", "70000"], "Error: --port must lie in 0..65535"),
    (["--host", "0.0.0.0"], "Error: --host '0.0.0.0' listens everywhere"),
    (["--seed", "-1"], "Error: --seed must be a non-negative integer"),
])
def test_bad_arena_options_give_one_clear_line_and_exit_2(args, message):
    result = arena(*args, "--no-browser")
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().startswith(message), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output


def test_arena_stats_prints_the_record_with_its_interval(tmp_path):
    result = arena("--stats", str(tmp_path))
    assert result.exit_code == 2 and "no arena game was played" in result.stderr
    for outcome in ["loss"] * 7 + ["win"] * 2 + ["draw"]:
        append_result(tmp_path, {"against": "scripted", "mode": "1v1", "outcome": outcome, "steps": 100})
    result = arena("--stats", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "won 7 of 10 games against people (70.0%, 95% interval 39.7-89.2%)" in result.stdout
