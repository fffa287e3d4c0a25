"""The optimizer's two gradient clips: the paper's per-parameter +-k sqrt(v) (``ppo.grad_clip``, its rule by hand in
``tests/rl/test_optim.py``) and the global norm of CleanRL and SB3 (``ppo.grad_norm_clip``), each switched on and off
on a real gradient step."""

from __future__ import annotations

import pytest
import torch

from fivestack.model.policy import Policy
from fivestack.runs.config import ConfigError, load_config
from fivestack.system.optimizer import Optimizer

SMALL = ["policy.lstm_size=16", "policy.trunk=16", "policy.unit_embedding=8", "policy.element_hidden=8"]


def gradient_norm_after_a_step(overrides: list[str]) -> tuple[float, float]:
    """(the gradient's global norm before the clips, after them) on one step of a loss with large gradients."""
    config = load_config(None, SMALL + overrides)
    torch.manual_seed(0)
    policy = Policy(config.policy)
    optimizer = Optimizer(policy, config.ppo)
    params = [p for p in policy.parameters()]
    loss = sum((100.0 * p).sum() for p in params)  # every element's gradient is 100
    before = 100.0 * sum(p.numel() for p in params) ** 0.5
    optimizer._gradient_step(loss, critic_only=False)
    after = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(p.grad) for p in params])).item()
    return before, after


def test_global_norm_clip_scales_the_whole_gradient_to_the_bound():
    before, after = gradient_norm_after_a_step(["ppo.grad_clip=0", "ppo.grad_norm_clip=0.5"])
    assert after == pytest.approx(0.5, rel=1e-4)
    before, unclipped = gradient_norm_after_a_step(["ppo.grad_clip=0"])  # both off: the gradient as it was
    assert unclipped == pytest.approx(before, rel=1e-5)
    # the per-parameter clip alone, on a first step, keeps every element (|g| <= 5 sqrt(g^2)): the norm too
    _, per_parameter = gradient_norm_after_a_step([])
    assert per_parameter == pytest.approx(before, rel=1e-5)


def test_a_negative_clip_is_refused():
    with pytest.raises(ConfigError, match="grad_norm_clip"):
        load_config(None, ["ppo.grad_norm_clip=-1"])
