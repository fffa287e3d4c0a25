"""The learning-rate schedule (``ppo.learning_rate_versions``, ``ppo.learning_rate_end``): its values by hand, the
rate Adam uses at each version of a real optimizer, a surgery's warm-up still at 0, and bad values refused."""

from __future__ import annotations

import pytest
import torch

from fivestack.match.inference import Inference
from fivestack.model.policy import Policy
from fivestack.runs.config import ConfigError, load_config
from fivestack.system.optimizer import Optimizer, learning_rate
from fivestack.system.rollout import RolloutWorker

SMALL = ["game.mode='1v1'", "rollout.games=2", "rollout.segment_steps=32", "ppo.batch_samples=4",
         "ppo.steps_per_version=1", "run.torch_threads=1", "policy.lstm_size=16", "pool.past_fraction=0"]


def test_the_rate_falls_linearly_then_stays():
    config = load_config(None, ["ppo.learning_rate=4e-4", "ppo.learning_rate_versions=8",
                                "ppo.learning_rate_end=0.0"])
    assert [learning_rate(config.ppo, v) for v in (0, 2, 4, 8, 20)] == pytest.approx([4e-4, 3e-4, 2e-4, 0.0, 0.0])
    config.ppo.learning_rate_end = 1e-4  # a floor
    assert [learning_rate(config.ppo, v) for v in (0, 4, 8, 9)] == pytest.approx([4e-4, 2.5e-4, 1e-4, 1e-4])
    constant = load_config(None, []).ppo  # the default: no schedule, the end value is not read
    assert constant.learning_rate_versions == 0
    assert [learning_rate(constant, v) for v in (0, 10**6)] == [constant.learning_rate] * 2


def test_adam_steps_at_the_scheduled_rate_of_each_version():
    """One gradient step per version: the rate Adam took at each step is the schedule's at the version the step
    belonged to, and a surgery's warm-up steps stay at 0 whatever the schedule says."""
    config = load_config(None, SMALL + ["ppo.learning_rate=3e-4", "ppo.learning_rate_versions=3",
                                        "ppo.learning_rate_end=3e-5"])
    torch.manual_seed(0)
    policy = Policy(config.policy)
    batch = RolloutWorker(config, seed=1).collect(Inference(policy, seed=0), team_spirit=0.3)
    optimizer = Optimizer(policy, config.ppo)
    optimizer.lr_zero_until = 1
    used = []
    for _ in range(5):
        optimizer.train(batch)
        used.append(optimizer.adam.param_groups[0]["lr"])
    assert used == pytest.approx([0.0, 2.1e-4, 1.2e-4, 3e-5, 3e-5])  # versions 0 (warm-up), 1, 2, 3, 4


@pytest.mark.parametrize("override, message", [
    ("ppo.learning_rate_versions=-1", "ppo.learning_rate_versions"),
    ("ppo.learning_rate_end=-1e-4", "ppo.learning_rate_end"),
    ("ppo.learning_rate_end=2.0", "ppo.learning_rate_end"),
])
def test_bad_schedule_values_are_one_clear_error(override, message):
    with pytest.raises(ConfigError, match=message):
        load_config(None, [override])
