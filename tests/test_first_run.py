"""The README's first run, end to end: its commands, read from the README, run as a newcomer would run them.

The block of shell commands under *Your first run* is the test's script: each ``fivestack ...`` line runs as a
subprocess of the real CLI in a fresh folder (a copy of ``configs/`` beside it, as in a checkout), so a README
command that breaks, or a flag that is renamed, fails here. The test only shortens the budgets: training
clones on a few hundred decisions and stops after a few thousand agent-steps instead of 30 minutes, evaluation plays a handful of short games and
the trained hero's game lasts one game minute. Each step's real output is checked: the run folder and its
checkpoint, the rating table and its JSON, the replay, and the page the viewer serves for it in Chromium.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fivestack.viewer.replay import load_replay
from fivestack.viewer.server import DATA_PATH, META_PATH

ROOT = Path(__file__).resolve().parents[1]
CHILD_ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
                 OMP_NUM_THREADS="1")
CLI = [sys.executable, "-m", "fivestack.cli"]  # what the ``fivestack`` script runs, from this checkout

# Shorter budgets, appended to the README's own options (the README's run.minutes stays, as an upper bound).
# One segment is 4 games x 32 decisions x 2 timesteps x 2 heroes = 512 agent-steps and makes 16 samples of
# 16 steps, gradient steps of 8 samples: eight versions (one per gradient step) take about 2,048 agent-steps.
SEGMENT_AGENT_STEPS = 4 * 32 * 2 * 2
SHORT_TRAINING = ["--set", "rollout.games=4", "--set", "rollout.segment_steps=32", "--set", "ppo.batch_samples=8",
                  "--set", "ppo.steps_per_version=1", "--set", "run.max_versions=8", "--set", "run.torch_threads=1",
                  "--set", "eval.every_versions=0",  # no rating during this short training
                  # what `fivestack eval` reads from the run: a few short games
                  "--set", "eval.calibration_games=2", "--set", "eval.games=4", "--set", "eval.max_seconds=60.0",
                  # the recipe's clone, in miniature: a few hundred decisions of the scripted hero, one pass each
                  "--set", "clone.agent_steps=1200", "--set", "clone.games=4", "--set", "clone.shard_steps=48",
                  "--set", "clone.batch_streams=4", "--set", "clone.passes=1", "--set", "clone.dagger_agent_steps=400",
                  "--set", "clone.dagger_passes=1", "--set", "ppo.value_warmup_steps=2"]
PLAYED_MINUTES = "1"


def first_run_commands() -> list[list[str]]:
    """The ``fivestack`` command lines of the README's first-run block, split as a shell would split them."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Your first run", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.startswith("fivestack ")]


def run(args: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    done = subprocess.run([*CLI, *args], cwd=cwd, env=CHILD_ENV, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"`fivestack {shlex.join(args)}` exited {done.returncode}:\n{done.stderr[-3000:]}"
    return done


def option(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


def test_the_readme_first_run_block_is_train_eval_play_view():
    commands = first_run_commands()
    assert [c[1] for c in commands] == ["train", "eval", "play", "view"]
    train, evaluate, play, view = commands
    assert option(train, "--config") == "configs/1v1.toml" and "run.minutes=60" in train
    run_dir = f"runs/{next(s.split('=', 1)[1] for s in train if s.startswith('run.name='))}"
    assert evaluate[2] == run_dir  # eval rates the run just trained
    assert option(play, "--radiant") == f"{run_dir}:latest" and option(play, "--mode") == "1v1"
    assert view[2] == option(play, "--replay")  # view opens the replay just written


@pytest.mark.slow
def test_the_readme_first_run_works_on_a_fresh_folder(tmp_path, browser):
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    train, evaluate, play, view = first_run_commands()
    run_dir = tmp_path / evaluate[2]

    # train: the clone of the scripted hero is version 0 (its data counts in the agent-steps), then PPO: the run
    # folder, its configuration, a checkpoint at the last version, one metrics record per segment
    run(train[1:] + SHORT_TRAINING, tmp_path, timeout=900)
    assert (run_dir / "config.toml").is_file()
    assert max(int(p.name) for p in (run_dir / "checkpoints").iterdir()) == 8  # the last version, saved at the end
    records = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    cloned = [m for m in records if "clone_valid/loss_offset" in m]
    assert cloned and all(m["version"] == 0 for m in cloned)
    clone_steps = json.loads((run_dir / "clone" / "progress.json").read_text())["phases"]["done"]["agent_steps"]
    metrics = [m for m in records if "loss/policy" in m]
    assert metrics[-1]["version"] == 8
    assert metrics[-1]["agent_steps"] == clone_steps + SEGMENT_AGENT_STEPS * len(metrics) <= clone_steps + 4096
    assert all(math.isfinite(m["loss/policy"]) and m["kl_clone/total"] >= 0 for m in metrics)

    # eval: a TrueSkill table on stdout and the same as JSON in the run folder
    out = run(evaluate[1:], tmp_path, timeout=600).stdout
    assert "TrueSkill" in out and "v8" in out
    rated = json.loads((run_dir / "eval" / "v8.json").read_text())
    assert rated["version"] == 8 and rated["games"] == 4 and math.isfinite(rated["mu"]) and rated["sigma"] > 0
    assert 0.0 <= rated["win_rate"] <= 1.0 and sum(o["games"] for o in rated["opponents"]) == 4

    # play: the trained hero against the bot, one game minute, to a replay with the policy's outputs in it
    play_args = play[1:]
    play_args[play_args.index("--max-minutes") + 1] = PLAYED_MINUTES
    out = run(play_args, tmp_path, timeout=600).stdout
    replay_path = tmp_path / option(play, "--replay")
    replay = load_replay(replay_path)
    assert replay.header["players"] == {"radiant": option(play, "--radiant"), "dire": option(play, "--dire")}
    assert replay.header["policy"] == {"radiant": True, "dire": False}
    assert replay.summary["outcome"] in ("win", "truncated") and replay.summary["duration_minutes"] <= 1.0
    assert replay.n_steps == replay.summary["timesteps"] > 0
    result = (f"{replay.summary['winner'].capitalize()} wins" if replay.summary["outcome"] == "win"
              else "Truncated at the time limit")
    assert out.startswith(f"{result} after {replay.summary['duration_minutes']:.1f} game minutes")
    assert f"Replay saved to {option(play, '--replay')}" in out

    # view: the server prints its address, serves the replay it was given, and the page draws it in Chromium
    proc = subprocess.Popen([*CLI, *view[1:], "--no-browser", "--port", "0"], cwd=tmp_path, env=CHILD_ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:(\d+)/)", line)
        assert match, f"no address printed: {line!r} {proc.stderr.read() if proc.poll() is not None else ''}"
        url, port = match.group(1), int(match.group(2))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", META_PATH)
        meta = json.loads(conn.getresponse().read())
        assert meta["summary"] == replay.summary and "error" not in meta
        conn.request("GET", DATA_PATH)
        assert len(conn.getresponse().read()) == meta["bytes"]
        conn.close()
        assert_page_draws(browser, url, replay.n_steps)
    finally:
        proc.terminate()
        proc.wait(10)


def assert_page_draws(browser, url: str, n_steps: int) -> None:
    """Open the viewer's page in headless Chromium and wait until it has loaded and drawn the replay."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not page.evaluate(
                "!!(window.viewer && (window.viewer.ready || window.viewer.failed))"):
            time.sleep(0.05)
        assert page.evaluate("!!window.viewer.ready"), page.evaluate("window.viewer && window.viewer.error")
        assert page.evaluate("viewer.nSteps") == n_steps and errors == []
    finally:
        page.close()
