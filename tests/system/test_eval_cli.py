"""`fivestack eval RUN` and `fivestack play --radiant RUN:VERSION`: a real (tiny) run, rated and played."""

import json

import pytest
from typer.testing import CliRunner

from fivestack.cli import app
from fivestack.system.config import load_config
from fivestack.system.evaluator import load_run_policy
from fivestack.system.serial import SerialRunner


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    config = load_config(None, [
        f"run.runs_dir='{root}'", "run.name='tiny'", "game.mode='1v1'", "game.max_seconds=60.0", "rollout.games=4",
        "ppo.batch_samples=8", "policy.lstm_size=16", "run.torch_threads=1", "run.max_versions=24",
        "eval.every_versions=0", "eval.calibration_games=2", "eval.games=4", "eval.max_seconds=90.0"])
    runner = SerialRunner(config)
    runner.run()
    runner.close()
    return runner.run_dir


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
