"""The serial runner's accounting: staleness counts versions, entropy is logged per action head."""

import json

import numpy as np
import torch
import pytest

from fivestack.model.policy import HEADS
from fivestack.runs.config import load_config
from fivestack.system.serial import SerialRunner


def test_staleness_counts_the_versions_trained_since_a_sample_was_collected(tmp_path):
    # 1v1, 2 games: a 32-step segment is 2 samples x 4 teams = 8 samples; 4 per gradient step = 2 steps, and a
    # version per step, so the second minibatch is trained one version after its samples were collected
    config = load_config(None, [f"run.runs_dir='{tmp_path}'", "run.name='s'", "game.mode='1v1'", "rollout.games=2",
                                "rollout.segment_steps=32", "ppo.batch_samples=4", "ppo.steps_per_version=1",
                                "ppo.max_staleness=8", "policy.lstm_size=16", "run.torch_threads=1",
                                "eval.every_versions=0", "pool.past_fraction=0.0", "run.max_versions=6",
                                "run.overlap=false"])  # with overlap a segment is one step staler (test_overlap.py)
    runner = SerialRunner(config)
    runner.run()
    runner.close()
    lines = [json.loads(line) for line in (runner.run_dir / "metrics.jsonl").read_text().splitlines()]
    segments = [r for r in lines if "staleness/mean" in r]
    assert len(segments) == 3
    for record in segments:
        assert record["staleness/min"] == 0.0 and record["staleness/max"] == 1.0
        assert record["staleness/mean"] == 0.5
        for head in HEADS:
            assert record[f"entropy/{head}"] >= 0.0
        # an untrained primary head is near uniform over the available actions (at most log 20); delay over 4
        assert 0.0 < record["entropy/primary"] < 3.0 and abs(record["entropy/delay"] - 1.386) < 0.05
        # the parameter heads count only when used, so their mean is at most their mean when used
        assert record["entropy/target"] <= record["entropy/target_when_used"] + 1e-6


def test_decision_steps_play_k_timesteps_per_decision_and_count_them(tmp_path):
    from fivestack.game.layout import STEP_SECONDS
    from fivestack.model.policy import Policy
    from fivestack.match.inference import Inference
    from fivestack.system.rollout import RolloutWorker

    def collect(decision_steps: int):
        config = load_config(None, ["game.mode='1v1'", "rollout.games=2", "rollout.segment_steps=32",
                                    f"rollout.decision_steps={decision_steps}", "policy.lstm_size=16"])
        worker = RolloutWorker(config, seed=1)
        batch = worker.collect(Inference(Policy(config.policy), seed=0), team_spirit=0.3)
        return worker, batch

    one, batch_one = collect(1)
    three, batch_three = collect(3)
    # the same 32 decisions, samples and actions stored per decision; game time and agent-steps per timestep
    assert len(batch_one) == len(batch_three) and batch_three.actions.shape == batch_one.actions.shape
    np.testing.assert_allclose(three.env.game.seconds, 32 * 3 * STEP_SECONDS, rtol=1e-6)
    np.testing.assert_allclose(one.env.game.seconds, 32 * STEP_SECONDS, rtol=1e-6)
    assert batch_three.info["hero_steps"] == 3 * batch_one.info["hero_steps"] == 3 * 32 * 4
    assert three.gamma ** (1 / 3) == pytest.approx(one.gamma, rel=1e-4)  # same horizon in seconds


def test_reward_weights_come_from_the_config_section(tmp_path):
    """``[reward]`` replaces the paper's weight of each event: the same games (same seed, same policy) with every
    weight doubled give exactly twice the training reward and twice each event's logged contribution."""
    from fivestack.env.events import PAPER_WEIGHTS
    from fivestack.model.policy import Policy
    from fivestack.match.inference import Inference
    from fivestack.system.metrics import reward_event_metrics
    from fivestack.system.rollout import RolloutWorker
    from fivestack.runs.config import reward_weights

    def collect(overrides):
        config = load_config(None, ["game.mode='1v1'", "rollout.games=2", "rollout.segment_steps=48",
                                    "policy.lstm_size=16", *overrides])
        torch.manual_seed(0)
        worker = RolloutWorker(config, seed=1)
        batch = worker.collect(Inference(Policy(config.policy), seed=0), team_spirit=0.3)
        metrics = reward_event_metrics(batch.info["event_sums"], batch.info["hero_steps"], reward_weights(config.reward))
        return batch.info["reward_abs_mean"], metrics

    paper, paper_events = collect([])
    doubled, doubled_events = collect([f"reward.{name}={2 * w}" for name, w in PAPER_WEIGHTS.items()])
    assert paper > 0.0 and doubled == pytest.approx(2 * paper, rel=1e-5)
    assert any(v != 0.0 for v in paper_events.values())
    for name, value in paper_events.items():
        assert doubled_events[name] == pytest.approx(2 * value, rel=1e-5, abs=1e-12)
