"""Replay size and open time for a long game; prints ONE JSON line.

Plays one 5v5 game of the scripted team against itself for ``--minutes`` game minutes (20: 9,000 timesteps;
scripted games last ~34 minutes, so it reaches the limit), recording it with ``ReplayRecorder``; with
``--policy``, Radiant is an untrained default-size ``Policy`` (``PolicyTeamAgent``) so that the replay also
carries policy outputs. Then it opens the replay as a user would: ``fivestack view REPLAY --no-browser`` in a
subprocess and the page in headless Chromium (``/usr/bin/chromium``, Playwright).

Reported:
* ``size_mb``: the replay file (10^6 bytes); ``timesteps``, ``mean_units`` (alive unit rows per timestep).
* ``record_s``: time spent in ``record()`` over the game plus ``save``; ``record_ms_per_step``.
* ``load_replay_s``: ``load_replay`` in this process (read, validate).
* ``server_ready_s``: from starting ``fivestack view`` to the server listening (Python start-up, imports,
  loading and encoding the replay).
* ``page_ready_s``: from the page's navigation start to ``viewer.ready`` (fetch, typed-array views, map
  rendering, first frame); ``page_fetch_s``: the part spent fetching the data.
* ``open_s``: server_ready_s + page_ready_s, the time from the command to a drawn replay.

Usage: ``python benchmarks/replay_size.py [--minutes 20] [--seed 11] [--policy] [--keep FILE]``
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from fivestack.bots.agents import make_bot, play_step
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.viewer.replay import ReplayRecorder, load_replay

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def record_game(minutes: float, seed: int, policy: bool, path: Path) -> dict:
    env = BatchedEnv(1, GameConfig(mode="5v5", max_seconds=minutes * 60.0))
    env.reset(seed)
    if policy:
        import torch

        from fivestack.model.policy import Policy
        from fivestack.match.agents import PolicyTeamAgent

        torch.manual_seed(seed)
        torch.set_num_threads(1)
        radiant = PolicyTeamAgent(0, Policy(), "5v5", seed=seed)
    else:
        radiant = make_bot("scripted", 0, 2 * seed)
    dire = make_bot("scripted", 1, 2 * seed + 1)
    players = {"radiant": "untrained policy" if policy else "scripted", "dire": "scripted"}
    recorder = ReplayRecorder(env, 0, seed=seed, players=players, agents=(radiant, dire))
    spent = 0.0
    t_game = time.perf_counter()
    while env.game.done[0] == 0:
        play_step(env, radiant, dire)
        t = time.perf_counter()
        recorder.record()
        spent += time.perf_counter() - t
    game_s = time.perf_counter() - t_game
    t = time.perf_counter()
    recorder.save(path)
    spent += time.perf_counter() - t
    return {"record_s": round(spent, 3), "record_ms_per_step": round(1000 * spent / max(1, recorder.n_steps), 3),
            "game_and_bots_s": round(game_s - spent, 2)}


def open_in_browser(path: Path) -> dict:
    from playwright.sync_api import sync_playwright

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 900})
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "fivestack.cli", "view", str(path), "--no-browser"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            line = proc.stdout.readline()
            server_ready = time.perf_counter() - t0
            match = re.search(r"http://[\d.]+:\d+/", line)
            if not match:
                raise RuntimeError(f"fivestack view did not start: {line!r} {proc.stderr.read()!r}")
            page.goto(match.group(0))
            for _ in range(2000):
                if page.evaluate("!!(window.viewer && (window.viewer.ready || window.viewer.failed))"):
                    break
                time.sleep(0.01)
            if not page.evaluate("!!window.viewer.ready"):
                raise RuntimeError(f"the page did not open the replay: {page.evaluate('window.viewer.error')}")
            timing = page.evaluate("window.viewer.timing")
        finally:
            proc.terminate()
            proc.wait(10)
            browser.close()
    return {"server_ready_s": round(server_ready, 3), "page_ready_s": round(timing["ready_ms"] / 1000, 3),
            "page_fetch_s": round((timing["data_ms"] - timing["meta_ms"]) / 1000, 3),
            "open_s": round(server_ready + timing["ready_ms"] / 1000, 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--policy", action="store_true", help="Radiant is an untrained policy (records its outputs)")
    ap.add_argument("--keep", type=Path, default=None, help="keep the replay at this path")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "game.npz"
        out = {"benchmark": "replay_size", "minutes": args.minutes, "seed": args.seed,
               "radiant": "untrained policy" if args.policy else "scripted", "dire": "scripted"}
        out.update(record_game(args.minutes, args.seed, args.policy, path))
        out["size_mb"] = round(path.stat().st_size / 1e6, 3)
        t = time.perf_counter()
        replay = load_replay(path)
        out["load_replay_s"] = round(time.perf_counter() - t, 3)
        out["timesteps"] = replay.n_steps
        out["game_minutes"] = round(replay.summary["duration_minutes"], 2)
        out["mean_units"] = round(float(np.diff(replay.arrays["step_start"]).mean()), 1)
        out["has_policy_outputs"] = replay.has_policy
        out.update(open_in_browser(path))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
