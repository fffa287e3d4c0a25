"""A run's move goals (``game.move_goals``) are part of its action space: recorded in its config and checkpoints,
read back as the paper's for runs saved before the key existed, kept on resume, and followed by every game its
policy plays (``play_games`` makes games in the policy's table; the agent refuses a game of another:
``tests/match/test_trained_game.py``)."""

from __future__ import annotations

import pytest

from fivestack.match.agents import build_agent
from fivestack.match.games import play_games
from fivestack.runs.config import ConfigError, TrainConfig, from_dict, load_config, to_toml
from fivestack.system.serial import SerialRunner


def test_a_bad_value_is_one_error_naming_the_choices():
    with pytest.raises(ConfigError, match=r"game.move_goals must be one of 'grid', 'reach', got 'far'"):
        load_config(None, ["game.move_goals='far'"])


def test_configs_saved_before_the_key_read_as_the_papers_moves(tmp_path, monkeypatch):
    import fivestack.runs.config as config_module

    old = TrainConfig().to_dict()
    old["game"].pop("move_goals")
    # were the default ever to change, a run saved before the key still played the paper's grid
    fresh = TrainConfig()
    fresh.game.move_goals = "reach"
    monkeypatch.setattr(config_module, "TrainConfig", lambda: fresh)
    assert from_dict(old).game.move_goals == "grid"
    text = to_toml(TrainConfig()).replace('move_goals = "reach"\n', "")
    (tmp_path / "config.toml").write_text(text)
    assert load_config(tmp_path / "config.toml", saved=True).game.move_goals == "grid"


def _tiny(tmp_path, *extra):
    return load_config(None, [
        f"run.runs_dir='{tmp_path}'", "run.name='moves'", "game.mode='1v1'", "game.max_seconds=30.0",
        "rollout.games=2", "ppo.batch_samples=4", "ppo.steps_per_version=1", "policy.lstm_size=16",
        "run.torch_threads=1", "run.max_versions=1", "eval.every_versions=0", "eval.calibration_games=2",
        "eval.games=2", "eval.max_seconds=30.0", *extra])


def test_a_run_keeps_its_move_goals_in_checkpoints_and_refuses_to_resume_in_another(tmp_path):
    runner = SerialRunner(_tiny(tmp_path, "game.move_goals='reach'"))
    runner.run()
    runner.close()
    assert runner.worker.env.game.data.move_offsets.max() == 9600.0  # the rollout's games moved that far
    saved = load_config(runner.run_dir / "config.toml", saved=True)
    assert saved.game.move_goals == "reach"
    with pytest.raises(ValueError, match=r"trained with game.move_goals='reach', this config says 'grid'.*"
                                         r"resume without changing game.move_goals"):
        SerialRunner(_tiny(tmp_path, "run.max_versions=2"), resume=runner.run_dir)
    resumed = SerialRunner(_tiny(tmp_path, "game.move_goals='reach'", "run.max_versions=2"), resume=runner.run_dir)
    assert resumed.version == runner.version
    resumed.close()
    # the run's version plays in its own table: the agent says so, and play_games makes its games that way
    agent = build_agent(f"{runner.run_dir}:{runner.version}", 0, mode="1v1")
    assert agent.move_goals == "reach"
    result = play_games(lambda side: build_agent(f"{runner.run_dir}:{runner.version}", side, mode="1v1"),
                        lambda side: build_agent("scripted", side, mode="1v1"), 2, "1v1", 20.0)
    assert result.winner.shape == (2,)
