"""The replay viewer: policy outputs in replays, the server's whitelist (over loopback), and the page itself in
headless Chromium (Debian's ``chromium`` driven by Playwright; scripts/setup.sh installs both)."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from fivestack.bots.agents import make_bot, play_step
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.model.policy import Policy, PolicyConfig
from fivestack.match.agents import PolicyTeamAgent
from fivestack.viewer.replay import ReplayRecorder, load_replay
from fivestack.viewer.server import ASSETS, DATA_PATH, META_PATH, make_server, prepare, static_files

ROOT = Path(__file__).resolve().parents[2]
CHILD_ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
STEPS = 600  # 80 game seconds of 5v5: lanes meet, enemies hide in the fog


# ---------------------------------------------------------------- a game played by a policy, recorded
@pytest.fixture(scope="module")
def policy_game(tmp_path_factory):
    """Radiant: an untrained policy (PolicyTeamAgent); Dire: the scripted bot. Returns the replay's path and, per
    step, what the policy returned and which unit its target slot meant when it acted."""
    torch.manual_seed(0)
    policy = Policy(PolicyConfig(unit_embedding=16, element_hidden=16, trunk=32, lstm_size=32, action_embedding=16))
    env = BatchedEnv(1, GameConfig(mode="5v5", max_seconds=600.0))
    env.reset(21)
    radiant, dire = PolicyTeamAgent(0, policy, "5v5", seed=1), make_bot("scripted", 1, 2)
    recorder = ReplayRecorder(env, 0, seed=21, players={"radiant": "untrained policy", "dire": "scripted"},
                              agents=(radiant, dire))
    seen = []
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a tiny network: more threads only contend
    with torch.no_grad():
        for _ in range(STEPS):
            slots = env.unit_of_slot[0].copy()
            play_step(env, radiant, dire)
            r = radiant.last_result
            seen.append((r.value[0].copy(), r.win_prob[0].copy(), r.actions[0].copy(), slots))
            assert recorder.record()
    torch.set_num_threads(threads)
    path = recorder.save(tmp_path_factory.mktemp("viewer") / "policy.npz")
    return path, seen


def test_policy_outputs_are_recorded_per_step_for_the_policys_heroes(policy_game):
    path, seen = policy_game
    replay = load_replay(path)
    assert replay.header["policy"] == {"radiant": True, "dire": False} and replay.has_policy
    a = replay.arrays
    for t in (0, 1, 300, STEPS - 1):
        value, win_prob, actions, slots = seen[t]
        np.testing.assert_allclose(a["policy_value"][t, :5], value, rtol=1e-6)
        np.testing.assert_allclose(a["policy_win_prob"][t, :5], win_prob, rtol=1e-6)
        assert (a["policy_action"][t, :5] == actions).all()
        expected = [int(slots[0, s]) if 0 <= s < 189 else -1 for s in actions[:, 2]]
        assert a["policy_target"][t, :5].tolist() == expected
        assert np.isnan(a["policy_value"][t, 5:]).all() and (a["policy_target"][t, 5:] == -1).all()
        assert ((0 <= a["policy_win_prob"][t, :5]) & (a["policy_win_prob"][t, :5] <= 1)).all()
    p = replay.policy(10)
    assert p[5] is None and p[0]["primary"] in replay.header["primary_actions"]


# ---------------------------------------------------------------- the server, over loopback
@pytest.fixture(scope="module")
def server(policy_game):
    state = prepare(policy_game[0])
    srv = make_server(state)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def raw_get(srv, target: str) -> tuple[int, bytes]:
    """GET exactly ``target`` (no client-side normalisation) from the server over loopback, with the server's own
    Host (http.client would take an absolute target's host without its port)."""
    host, port = srv.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=10)
    try:
        conn.putrequest("GET", target, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", f"{host}:{port}")
        conn.endheaders()
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def test_server_binds_loopback_and_serves_its_assets_and_the_replay(server, policy_game):
    assert server.server_address[0] == "127.0.0.1"
    files = static_files()
    for path, (name, _) in ASSETS.items():
        assert raw_get(server, path) == (200, files[name])
    status, body = raw_get(server, META_PATH)
    meta = json.loads(body)
    assert status == 200 and meta["summary"]["timesteps"] == STEPS and "error" not in meta
    status, data = raw_get(server, DATA_PATH)
    assert status == 200 and len(data) == meta["bytes"]
    x = meta["arrays"]["unit_x"]
    replay = load_replay(policy_game[0])
    assert np.array_equal(np.frombuffer(data, "<i2", x["length"], x["offset"]), replay.arrays["unit_x"])


@pytest.mark.parametrize("target", [
    "/../pyproject.toml", "/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/%2E%2E%2Fpyproject.toml",
    "/..%2f..%2fetc%2fpasswd", "/%252e%252e/etc/passwd", "//etc/passwd", "/etc/passwd", "/static/viewer.js",
    "/viewer.js/../../pyproject.toml", "/replay/../replay/meta.json", "/replay/meta.json/..", "/..\\..\\etc\\passwd",
    "/index.html/", "/policy.npz", "/replay", "/replay/", "/fivestack/viewer/server.py", "/%00", "/.git/config",
    "http://127.0.0.1/../etc/passwd", "/./viewer.js", "/VIEWER.JS",
])
def test_everything_outside_the_whitelist_is_404(server, target):
    status, body = raw_get(server, target)
    assert status == 404 and body == b"not found\n"


# ---------------------------------------------------------------- the page, in headless Chromium
def start_view(path, *extra, env=CHILD_ENV):
    """``fivestack view PATH --no-browser`` in a subprocess; returns (process, url) once it listens."""
    proc = subprocess.Popen([sys.executable, "-m", "fivestack.cli", "view", str(path), "--no-browser", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    match = re.search(r"http://[\d.]+:\d+/", line)
    if not match:
        proc.kill()
        raise AssertionError(f"no URL printed: {line!r} {proc.stderr.read()!r}")
    return proc, match.group(0), line




def open_page(browser, url, expect="ready"):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    problems = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("request", lambda r: problems.append(f"outside request {r.url}") if not r.url.startswith(url)
            and not r.url.startswith("data:") else None)
    page.goto(url)
    for _ in range(400):
        if page.evaluate("!!(window.viewer && (window.viewer.ready || window.viewer.failed))"):
            break
        time.sleep(0.05)
    assert page.evaluate(f"!!window.viewer.{expect}"), page.evaluate("window.viewer && window.viewer.error")
    return page, problems


def pixel_at(page, x, y):
    px, py = page.evaluate(f"viewer.project({x}, {y})")
    return page.evaluate(f"viewer.pixel({px}, {py})"), (px, py)


def close(c1, c2, tol=3):
    return all(abs(int(a) - int(b)) <= tol for a, b in zip(c1, c2))


def under_a_label(page, heroes, hero):
    """Whether another hero's name label or bars may cover ``hero``'s centre: they are drawn on top, above their own
    hero, and lifted 12 px at a time (up to 6 times) off labels they would overlap, so a hero up to ~100 px below
    and within a label's half width can cover it."""
    px, py = page.evaluate(f"viewer.project({hero['x']}, {hero['y']})")
    for other in heroes:
        if other["unit"] != hero["unit"]:
            qx, qy = page.evaluate(f"viewer.project({other['x']}, {other['y']})")
            if abs(qx - px) < 45 and -5 < qy - py < 100:
                return True
    return False


def isolated(page, units, unit, radius_px):
    """No other unit of the timestep within ``radius_px`` of ``unit`` on the canvas."""
    p = np.array(page.evaluate(f"viewer.project({unit['x']}, {unit['y']})"))
    for other in units:
        if other["unit"] != unit["unit"]:
            q = np.array(page.evaluate(f"viewer.project({other['x']}, {other['y']})"))
            if np.hypot(*(p - q)) < radius_px:
                return False
    return True


@pytest.mark.slow
def test_page_draws_units_where_the_replay_says_scrubs_and_hides_what_the_fog_hides(policy_game, browser):
    path, _ = policy_game
    replay = load_replay(path)
    proc, url, line = start_view(path)
    try:
        assert url.startswith("http://127.0.0.1:")
        page, problems = open_page(browser, url)
        assert page.evaluate("viewer.nSteps") == STEPS

        # a hero at t1 is drawn in its colour where the replay puts it
        t1, t2 = 150, 450
        page.evaluate(f"viewer.seek({t1})")
        units = page.evaluate(f"viewer.units({t1})")
        assert [(u["unit"], u["x"], u["y"]) for u in units] == \
            [(u["unit"], u["x"], u["y"]) for u in replay.units(t1)]
        later = {u["unit"]: u for u in replay.units(t2)}
        heroes = [u for u in units if u["kind"] == 0]
        hero = next(u for u in heroes if u["unit"] in later and isolated(page, units, u, 30)
                    and not under_a_label(page, heroes, u)
                    and np.hypot(later[u["unit"]]["x"] - u["x"], later[u["unit"]]["y"] - u["y"]) > 800)
        colour, p1 = pixel_at(page, hero["x"], hero["y"])
        assert close(colour, hero["color"]), (colour, hero)
        assert close(hero["color"], page.evaluate("viewer.colors.radiantHero" if hero["team"] == 0
                                                  else "viewer.colors.direHero"), 0)

        # scrubbing with the slider moves it: drawn at its later position, gone from the earlier one
        page.evaluate(f"(() => {{ const s = document.getElementById('scrubber'); s.value = '{t2}';"
                      "s.dispatchEvent(new Event('input')); })()")
        assert page.evaluate("viewer.step") == t2
        moved = later[hero["unit"]]
        colour2, p2 = pixel_at(page, moved["x"], moved["y"])
        assert close(colour2, hero["color"])
        assert np.hypot(p2[0] - p1[0], p2[1] - p1[1]) > 10
        assert not close(page.evaluate(f"viewer.pixel({p1[0]}, {p1[1]})"), hero["color"])

        # the fog: a Dire unit that Radiant cannot see is drawn with no fog and hidden under Radiant's fog
        found = None
        for t in range(100, STEPS, 50):
            units = page.evaluate(f"viewer.units({t})")
            for u in units:
                if u["team"] == 1 and u["kind"] in (0, 1, 2, 3) and not u["vis"] & 1 and isolated(page, units, u, 10):
                    found = (t, u)
                    break
            if found:
                break
        assert found, "no Dire unit hidden from Radiant in this game"
        t, unit = found
        page.evaluate(f"viewer.seek({t})")
        page.evaluate("viewer.setFog('none')")
        assert close(pixel_at(page, unit["x"], unit["y"])[0], unit["color"])
        page.evaluate("viewer.setFog('dire')")  # Dire sees its own units
        assert close(pixel_at(page, unit["x"], unit["y"])[0], unit["color"])
        page.click("input[name=fog][value=radiant]")  # the radio button, as a user would
        assert page.evaluate("viewer.fog") == "radiant"
        assert not close(pixel_at(page, unit["x"], unit["y"])[0], unit["color"], 40)

        # clicking a hero on the map selects it
        page.evaluate("viewer.setFog('none')")
        heroes = [u for u in page.evaluate(f"viewer.units({t})") if u["kind"] == 0]
        target = heroes[-1]
        px, py = page.evaluate(f"viewer.project({target['x']}, {target['y']})")
        box = page.locator("#map").bounding_box()
        dpr = page.evaluate("window.devicePixelRatio")
        page.mouse.click(box["x"] + px / dpr, box["y"] + py / dpr)
        assert page.evaluate("viewer.selected") == target["unit"]
        assert replay.header["heroes"][target["unit"]]["name"] in page.inner_text("#hero-detail")

        # the planning view: both teams' win probability, the selected hero's value and target
        page.click("#scoreboard tr[data-hero='1']")
        detail = page.inner_text("#hero-detail")
        value = float(replay.arrays["policy_value"][t, 1])
        assert f"{value:.3f}" in detail and "win probability" in detail and "policy target" in detail
        assert page.is_hidden("#nopolicy") and page.is_visible("#heroval")
        assert problems == []
        page.close()
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.slow
def test_bot_replay_says_there_are_no_policy_outputs_and_plays(browser, tmp_path):
    env = BatchedEnv(1, GameConfig(mode="1v1"))
    env.reset(4)
    agents = (make_bot("scripted", 0, 1), make_bot("random", 1, 2))
    recorder = ReplayRecorder(env, 0, players={"radiant": "scripted", "dire": "random"}, agents=agents)
    for _ in range(120):
        play_step(env, *agents)
        recorder.record()
    proc, url, _ = start_view(recorder.save(tmp_path / "bots.npz"))
    try:
        page, problems = open_page(browser, url)
        assert page.is_visible("#nopolicy") and "no policy outputs" in page.inner_text("#nopolicy")
        page.evaluate("viewer.select(0)")
        assert "no policy outputs" in page.inner_text("#hero-detail")
        page.click("#play")
        time.sleep(0.6)
        assert page.evaluate("viewer.step") > 0  # playing advances the clock
        page.click("#play")
        assert problems == []
        page.close()
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["corrupt", "old_version", "unknown_version"])
def test_a_bad_replay_gives_one_clear_error_in_the_terminal_and_in_the_page(browser, policy_game, tmp_path, damage):
    bad = tmp_path / "bad.npz"
    if damage == "corrupt":
        data = policy_game[0].read_bytes()
        bad.write_bytes(data[: len(data) // 3])
        expected = "truncated or corrupted"
    elif damage == "unknown_version":
        with np.load(policy_game[0], allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        header = json.loads(arrays["header"].tobytes())
        arrays["header"] = np.frombuffer(json.dumps({**header, "version": 7}).encode(), np.uint8)
        with open(bad, "wb") as f:
            np.savez_compressed(f, **arrays)
        expected = "format version 7"
    else:
        import gzip
        bad = tmp_path / "old.jsonl.gz"
        bad.write_bytes(gzip.compress(b'{"type": "header", "format": "fivestack-replay", "version": 1}\n'))
        expected = "format version 1"
    proc, url, line = start_view(bad)
    try:
        page, problems = open_page(browser, url, expect="failed")
        shown = page.inner_text("#error")
        assert page.is_visible("#error") and expected in shown
        out, err = proc.communicate(timeout=20)  # it exits once the page has been shown the error
        assert proc.returncode == 2
        errors = [ln for ln in err.splitlines() if ln.startswith("Error:")]
        assert len(errors) == 1 and expected in errors[0]
        assert errors[0].removeprefix("Error: ") in shown  # the same message in both
        assert "Traceback" not in err and "shows the same error" in line
        page.close()
    finally:
        if proc.poll() is None:
            proc.kill()


def test_view_refuses_a_missing_file_and_a_bad_port(tmp_path):
    from typer.testing import CliRunner

    from fivestack.cli import app

    result = CliRunner().invoke(app, ["view", str(tmp_path / "x.npz"), "--port", "70000", "--no-browser"])
    assert result.exit_code == 2 and "Error: --port must lie in 0..65535" in result.stderr


@pytest.mark.slow
def test_play_view_opens_the_viewer_on_the_game_just_played(tmp_path):
    env = dict(CHILD_ENV, BROWSER="true")  # webbrowser "opens" the page with /bin/true
    proc = subprocess.Popen([sys.executable, "-m", "fivestack.cli", "play", "--radiant", "random", "--dire", "random",
                             "--mode", "1v1", "--max-minutes", "0.5", "--seed", "3", "--view"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        url = None
        lines = []
        deadline = time.time() + 120
        while time.time() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            match = re.search(r"Viewing (\S+) at (http://127\.0\.0\.1:\d+/)", line)
            if match:
                url = match.group(2)
                replay_path = Path(match.group(1))
                break
        assert url, "".join(lines) + proc.stderr.read()
        host, port = url[len("http://"):-1].split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.request("GET", META_PATH)
        meta = json.loads(conn.getresponse().read())
        assert meta["summary"]["timesteps"] == 225 and meta["header"]["players"] == {"radiant": "random",
                                                                                  "dire": "random"}
        assert meta["summary"] == load_replay(replay_path).summary
    finally:
        proc.terminate()
        proc.wait(10)
