"""The teacher (``ppo.teacher``): labels from the bot on the policy's own states, which labels count, the
weight's schedule, and an imitation term that moves the policy toward the labels (and nothing else does)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fivestack.game.layout import N_PRIMARY, N_UNIT_SLOTS
from fivestack.model.policy import Policy, valid_actions
from fivestack.runs.config import ConfigError, load_config
from fivestack.match.inference import Inference
from fivestack.system.optimizer import Optimizer, teacher_weight
from fivestack.system.rollout import RolloutWorker

MOVE, ATTACK = 1, 2
SMALL = ["game.mode='1v1'", "rollout.games=4", "rollout.segment_steps=32", "rollout.sample_steps=16",
         "policy.lstm_size=64", "policy.trunk=64", "pool.past_fraction=0"]


def masks(n: int) -> dict[str, torch.Tensor]:
    """Move (offsets, no target) and attack (targets 3 and 7) available; everything else masked."""
    primary = torch.zeros(n, N_PRIMARY, dtype=torch.uint8)
    primary[:, [MOVE, ATTACK]] = 1
    target = torch.zeros(n, N_PRIMARY, N_UNIT_SLOTS, dtype=torch.uint8)
    target[:, ATTACK, [3, 7]] = 1
    offset = torch.zeros(n, N_PRIMARY, dtype=torch.uint8)
    offset[:, MOVE] = 1
    return {"primary_mask": primary, "target_mask": target, "offset_mask": offset}


def test_valid_actions_by_hand():
    actions = torch.tensor([
        [MOVE, 0, -1, 2, 6],    # a move takes no target: -1 is fine
        [ATTACK, 0, 7, 4, 4],   # a valid target
        [ATTACK, 0, 5, 4, 4],   # slot 5 is not a valid target
        [ATTACK, 0, -1, 4, 4],  # an attack needs a target
        [0, 0, -1, 4, 4],       # noop is masked here
        [-1, -1, -1, -1, -1],   # no label
        [MOVE, 0, -1, 9, 4],    # offset out of range
    ])
    assert valid_actions(masks(len(actions)), actions).tolist() == [True, True, False, False, False, False, False]


def test_weight_falls_linearly_to_zero():
    config = load_config(None, ["ppo.teacher='scripted'", "ppo.teacher_weight=2.0", "ppo.teacher_versions=40"])
    assert [teacher_weight(config.ppo, v) for v in (0, 10, 20, 40, 100)] == [2.0, 1.5, 1.0, 0.0, 0.0]
    config.ppo.teacher_weight_end = 0.4  # a floor: the term stays, as a prior
    assert [teacher_weight(config.ppo, v) for v in (0, 20, 40, 100)] == pytest.approx([2.0, 1.2, 0.4, 0.4])
    assert teacher_weight(load_config(None, []).ppo, 0) == 0.0  # no teacher, no term


def test_unknown_teacher_is_one_clear_error():
    with pytest.raises(ConfigError, match="ppo.teacher must be"):
        load_config(None, ["ppo.teacher='scriptd'"])


@pytest.fixture(scope="module")
def labelled_segment():
    config = load_config(None, SMALL + ["ppo.teacher='scripted'"])
    torch.manual_seed(0)
    policy = Policy(config.policy)
    worker = RolloutWorker(config, seed=3)
    batch = worker.collect(Inference(policy, seed=0), team_spirit=0.3)
    return config, policy, batch


def test_labels_are_the_bots_actions_and_mostly_usable(labelled_segment):
    _, _, batch = labelled_segment
    teacher = batch.teacher_actions
    assert teacher.shape == batch.actions.shape
    assert (teacher[..., 0] >= 0).all()  # every step labelled
    flat = {name: torch.from_numpy(batch.obs[name]).flatten(0, 2) for name in ("primary_mask", "target_mask",
                                                                               "offset_mask")}
    usable = valid_actions(flat, torch.from_numpy(teacher).reshape(-1, 5))
    assert usable.float().mean() > 0.9
    # the scripted hero walks to its lane: moves dominate its labels, while the untrained policy's actions
    # spread over every available primary
    assert (teacher[..., 0] == MOVE).mean() > 0.5
    assert (batch.actions[..., 0] == MOVE).mean() < 0.3
    without = RolloutWorker(load_config(None, SMALL), seed=3).collect(Inference(labelled_segment[1], seed=0), 0.3)
    assert (without.teacher_actions == -1).all()


def teacher_log_prob(policy: Policy, batch) -> float:
    s, k = batch.hero_slots.shape
    obs = {name: torch.from_numpy(arr) for name, arr in batch.obs.items()}
    state = (torch.from_numpy(batch.h0).reshape(s * k, -1), torch.from_numpy(batch.c0).reshape(s * k, -1))
    with torch.no_grad():
        scores = policy.forward_sequence(obs, state, torch.from_numpy(batch.first), torch.from_numpy(batch.hero_slots),
                                         torch.from_numpy(batch.actions), torch.from_numpy(batch.teacher_actions))
    return float((scores.teacher.log_prob * scores.teacher.valid).sum() / scores.teacher.valid.sum())


@pytest.mark.parametrize("weight", [1.0, 0.0])
def test_imitation_moves_the_policy_to_the_labels(labelled_segment, weight):
    config, policy, batch = labelled_segment
    torch.manual_seed(1)
    student = Policy(config.policy)
    student.load_state_dict(policy.state_dict())
    config.ppo.teacher_weight = weight
    optimizer = Optimizer(student, config.ppo)
    optimizer.observe(batch)
    before = teacher_log_prob(student, batch)
    for _ in range(20):
        metrics = optimizer.train(batch)
    gain = teacher_log_prob(student, batch) - before
    if weight > 0:
        assert metrics["imitation/weight"] == weight and metrics["imitation/labelled"] > 0.9
        assert gain > 1.0  # nats per step over the heads the labels use (measured: 2.2)
    else:
        assert "imitation/loss" not in metrics
        assert abs(gain) < 0.5  # PPO alone does not pull toward the bot (measured: 0.15)
