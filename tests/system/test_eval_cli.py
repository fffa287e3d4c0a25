"""`fivestack eval RUN` and `fivestack play --radiant RUN:VERSION`: a real (tiny) run, rated and played."""

import json

import pytest
from typer.testing import CliRunner

from fivestack.cli import app
from fivestack.runs.checkpoints import load_checkpoint
from fivestack.runs.config import FROM_SCRATCH, load_config
from fivestack.match.agents import load_run_policy
from fivestack.system.serial import SerialRunner


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    config = load_config(None, [
        f"run.runs_dir='{root}'", "run.name='tiny'", "game.mode='1v1'", "game.max_seconds=60.0", "rollout.games=4",
        "ppo.batch_samples=8", "ppo.steps_per_version=1", "policy.lstm_size=16", "run.torch_threads=1",
        "run.max_versions=24",
        "eval.every_versions=0", "eval.calibration_games=2", "eval.games=4", "eval.max_seconds=90.0"])
    runner = SerialRunner(config)
    runner.run()
    runner.close()
    return runner.run_dir


@pytest.mark.slow
def test_eval_rates_the_latest_version_and_writes_json(run_dir):
    result = CliRunner().invoke(app, ["eval", str(run_dir), "--games", "4", "--against", "random,0"])
    assert result.exit_code == 0, result.output
    assert "TrueSkill" in result.stdout and "random" in result.stdout and "v0" in result.stdout
    policy, config, latest = load_run_policy(f"{run_dir}:latest")
    table = json.loads((run_dir / "eval" / f"v{latest}.json").read_text())
    assert table["version"] == latest and table["games"] == 4
    assert {row["agent"] for row in table["opponents"]} == {"random", "v0"}
    assert sum(row["games"] for row in table["opponents"]) == 4
    for row in table["opponents"]:
        assert 0.0 <= row["ci95"][0] <= row["win_rate"] <= row["ci95"][1] <= 1.0
    random_row = next(r for r in table["opponents"] if r["agent"] == "random")
    assert random_row["mu"] == 0.0  # the anchor of the scale


def test_play_a_run_version_against_a_bot(run_dir):
    result = CliRunner().invoke(app, ["play", "--radiant", f"{run_dir}:0", "--dire", "random", "--mode", "1v1",
                                      "--max-minutes", "1"])
    assert result.exit_code == 0, result.output
    assert "Summary" in result.stdout


@pytest.mark.parametrize("args, message", [
    (["eval", "nowhere/run"], "not a run folder"),
    (["eval", "{run}", "--version", "12345"], "has no version 12345"),
    (["eval", "{run}", "--against", "grandmaster"], "unknown opponent"),
    (["play", "--radiant", "{run}:999", "--mode", "1v1"], "has no version 999"),
    (["play", "--radiant", "{run}:ten", "--mode", "1v1"], "must be a number or 'latest'"),
])
def test_user_mistakes_get_one_clear_error(run_dir, args, message):
    result = CliRunner().invoke(app, [a.replace("{run}", str(run_dir)) for a in args])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


@pytest.mark.slow
def test_sigterm_stops_learn_vs_bots_with_a_checkpoint_and_no_more_training(tmp_path):
    """A SIGTERM ends the benchmark, not only the training call in it: the run stops after its segment with a
    checkpoint, the benchmark says how to carry on and exits (before this, it evaluated and went on training)."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "learn_vs_bots.py"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    err = tmp_path / "err.txt"
    with open(err, "w") as stderr:
        proc = subprocess.Popen([sys.executable, str(script), "--mode", "1v1", "--agent-steps", "100000000",
                                 "--runs-dir", "runs", "--set", "rollout.games=4", "--set", "policy.lstm_size=16",
                                 "--set", "run.torch_threads=1", "--set", "run.name='term'",
                                 *[arg for item in FROM_SCRATCH for arg in ("--set", item)]],
                                stdout=subprocess.PIPE, stderr=stderr, text=True, env=env, cwd=tmp_path)
    metrics = tmp_path / "runs" / "term" / "metrics.jsonl"
    try:
        deadline = time.monotonic() + 300
        while proc.poll() is None and time.monotonic() < deadline and not (
                metrics.is_file() and "loss/policy" in metrics.read_text()):
            time.sleep(0.5)
        assert proc.poll() is None, err.read_text()[-3000:]
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    said = " ".join(err.read_text().split())
    assert proc.returncode == 1 and f"stopped by signal {int(signal.SIGTERM)}" in said, said[-3000:]
    assert "--resume" in said and "{" not in out  # no curve point evaluated, no result line
    versions = sorted(p.name for p in (tmp_path / "runs" / "term" / "checkpoints").iterdir() if p.name.isdigit())
    steps = [json.loads(line)["agent_steps"] for line in metrics.read_text().splitlines()]
    assert versions and load_checkpoint(tmp_path / "runs" / "term" / "checkpoints" / versions[-1])[2][
        "agent_steps"] == max(steps)  # the checkpoint holds every step trained: nothing trained after it


@pytest.mark.slow
def test_learn_vs_bots_trains_to_an_agent_step_budget_and_resumes(tmp_path):
    """``benchmarks/learn_vs_bots.py --agent-steps`` stops at the budget, and ``--resume`` carries the same run on
    to a bigger one, keeping the curve. A segment here is 4 games x 256 steps x 2 heroes = 2048 agent-steps."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "learn_vs_bots.py"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}

    def bench(*args):
        done = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        lines = done.stdout.strip().splitlines()
        assert all(line.startswith('{"progress"') for line in lines[:-1])
        return json.loads(lines[-1])

    first = bench("--mode", "1v1", "--agent-steps", "4000", "--curve-agent-steps", "2000", "--games", "4",
                  "--curve-games", "2", "--eval-max-minutes", "0.1", "--opponents", "random", "--runs-dir", "runs",
                  "--set", "rollout.games=4", "--set", "rollout.decision_steps=1", "--set", "ppo.batch_samples=8",
                  "--set", "policy.lstm_size=16", "--set", "run.torch_threads=1",
                  *[arg for item in FROM_SCRATCH for arg in ("--set", item)])  # the budget's rules, without a clone
    assert first["budget"] == {"agent_steps": 4000} and 4000 <= first["agent_steps"] < 4000 + 2048
    steps = [p["agent_steps"] for p in first["curve"]]
    assert len(steps) == 2 and 2000 <= steps[0] < 4000 <= steps[1] == first["agent_steps"]
    assert [(p["final"], p["games_vs_random"]) for p in first["curve"]] == [(False, 2), (True, 4)]
    assert first["eval_policy"] == "sampled" and first["eval_max_minutes"] == 0.1
    # no game is decided in 6 game seconds: all draws, no wins
    assert (first["win_rate_vs_random"], first["draw_rate_vs_random"], first["minutes_per_game_vs_random"]) == \
        (0.0, 1.0, 0.1)
    # how the games went, per team [policy, bot]: 6 seconds in, nobody has farmed, died or levelled
    assert first["team_stats_vs_random"] == first["curve"][-1]["team_stats_vs_random"]
    assert first["team_stats_vs_random"]["last_hits"] == [0.0, 0.0]
    assert first["team_stats_vs_random"]["level"] == [1.0, 1.0]
    assert first["eval_seconds"] > 0 and first["train_seconds"] > 0
    run = tmp_path / first["run"]
    assert load_config(run / "config.toml").run.minutes == 0.0
    saved = json.loads((run / "learn_vs_bots.json").read_text())
    assert saved["curve"] == first["curve"] and saved["args"]["agent_steps"] == 4000

    more = bench("--resume", str(run), "--agent-steps", "6000", "--greedy")
    assert (tmp_path / more["run"]).resolve() == run.resolve() and more["budget"] == {"agent_steps": 6000}
    assert 6000 <= more["agent_steps"] < 6000 + 2048 and more["agent_steps"] > first["agent_steps"]
    assert more["curve"][:2] == first["curve"] and len(more["curve"]) == 3
    assert more["curve"][-1]["final"] and more["curve"][-1]["eval_policy"] == "greedy"
    assert more["eval_policy"] == "greedy" and more["games_vs_random"] == 4
    assert more["train_seconds"] > first["train_seconds"]
