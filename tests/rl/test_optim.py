"""The +-5 sqrt(v) gradient clip against hand-computed bounds."""

import math

import pytest
import torch

from fivestack.rl.optim import clip_by_adam_second_moment

B2 = 0.999


def adam_with_state(p: torch.nn.Parameter, exp_avg_sq: list[float], step: float) -> torch.optim.Adam:
    adam = torch.optim.Adam([p], lr=1e-3, betas=(0.9, B2))
    adam.state[p] = {"step": torch.tensor(step), "exp_avg": torch.zeros_like(p),
                     "exp_avg_sq": torch.tensor(exp_avg_sq, dtype=p.dtype)}
    return adam


def test_clip_by_hand():
    p = torch.nn.Parameter(torch.zeros(4, dtype=torch.float64))
    adam = adam_with_state(p, [0.01, 0.01, 0.04, 0.0], step=999.0)  # this is the 1000th step
    grad = [0.3, 2.0, -3.0, 0.5]
    p.grad = torch.tensor(grad, dtype=torch.float64)
    bias = 1.0 - 0.999**1000  # 0.63230457...
    # v_next = 0.999 v + 0.001 g^2; bound = 5 sqrt(v_next / bias)
    bounds = [
        5 * math.sqrt((0.999 * 0.01 + 0.001 * 0.09) / bias),  # 5 sqrt(0.01008 / 0.6323) = 0.6313 > 0.3: kept
        5 * math.sqrt((0.999 * 0.01 + 0.001 * 4.0) / bias),  # 5 sqrt(0.01399 / 0.6323) = 0.7437 < 2: clipped
        5 * math.sqrt((0.999 * 0.04 + 0.001 * 9.0) / bias),  # 5 sqrt(0.04896 / 0.6323) = 1.3913 < 3: clipped
        5 * math.sqrt((0.0 + 0.001 * 0.25) / bias),  # 5 sqrt(0.00025 / 0.6323) = 0.0994 < 0.5: clipped
    ]
    assert bounds == pytest.approx([0.6313, 0.7437, 1.3913, 0.0994], abs=1e-4)
    frac = clip_by_adam_second_moment(adam)
    assert frac == pytest.approx(3 / 4)
    torch.testing.assert_close(p.grad, torch.tensor([0.3, bounds[1], -bounds[2], bounds[3]], dtype=torch.float64))


def test_clip_k_and_fraction_over_all_parameters():
    p = torch.nn.Parameter(torch.zeros(4, dtype=torch.float64))
    fresh = torch.nn.Parameter(torch.zeros(3, dtype=torch.float64))  # no Adam state yet: its first step
    unused = torch.nn.Parameter(torch.zeros(2, dtype=torch.float64))  # no gradient: skipped, not counted
    adam = torch.optim.Adam([p, fresh, unused], betas=(0.9, B2))
    adam.state[p] = {"step": torch.tensor(999.0), "exp_avg": torch.zeros_like(p),
                     "exp_avg_sq": torch.tensor([0.01, 0.01, 0.04, 0.0], dtype=torch.float64)}
    p.grad = torch.tensor([0.3, 2.0, -3.0, 0.5], dtype=torch.float64)
    fresh.grad = torch.tensor([1e6, -1e-6, 0.0], dtype=torch.float64)
    bias = 1.0 - 0.999**1000
    # k = 2: bound = 2 sqrt(v_next / bias); element 0: 2 sqrt(0.01008 / 0.6323) = 0.2525 < 0.3: now clipped too
    b0 = 2 * math.sqrt((0.999 * 0.01 + 0.001 * 0.09) / bias)
    assert b0 == pytest.approx(0.2525, abs=1e-4)
    frac = clip_by_adam_second_moment(adam, k=2.0)
    assert frac == pytest.approx(4 / 7)  # 4 of p's elements, none of fresh's; unused not counted
    assert p.grad[0].item() == pytest.approx(b0)
    torch.testing.assert_close(fresh.grad, torch.tensor([1e6, -1e-6, 0.0], dtype=torch.float64))
    assert unused.grad is None


def test_first_step_never_clips():
    torch.manual_seed(0)
    p = torch.nn.Parameter(torch.zeros(1000))
    adam = torch.optim.Adam([p], betas=(0.9, B2))
    g = torch.randn(1000) * torch.logspace(-6, 6, 1000)  # wildly different magnitudes
    p.grad = g.clone()
    # step 1: v_hat = (0.001 g^2) / (1 - 0.999) = g^2, the bound is 5 |g|
    assert clip_by_adam_second_moment(adam) == 0.0
    torch.testing.assert_close(p.grad, g)


def test_bound_uses_the_v_that_adam_then_stores():
    """For unclipped elements the v used by the bound is exactly Adam's next exp_avg_sq."""
    p = torch.nn.Parameter(torch.zeros(3, dtype=torch.float64))
    adam = adam_with_state(p, [0.04, 0.09, 0.01], step=99.0)
    p.grad = torch.tensor([0.1, -0.2, 0.05], dtype=torch.float64)
    assert clip_by_adam_second_moment(adam) == 0.0
    adam.step()
    expected_v = [0.999 * 0.04 + 0.001 * 0.01, 0.999 * 0.09 + 0.001 * 0.04, 0.999 * 0.01 + 0.001 * 0.0025]
    torch.testing.assert_close(adam.state[p]["exp_avg_sq"], torch.tensor(expected_v, dtype=torch.float64))
    assert float(adam.state[p]["step"]) == 100.0


def test_adam_v_stays_the_second_moment_of_the_unclipped_gradient():
    """The paper: v is the running second moment of the *unclipped* gradient. Adam's step after the clip
    must store v_next = 0.999 v + 0.001 g^2 with g unclipped, while its first moment takes the clipped g."""
    p = torch.nn.Parameter(torch.zeros(4, dtype=torch.float64))
    adam = adam_with_state(p, [0.01, 0.01, 0.04, 0.0], step=999.0)
    p.grad = torch.tensor([0.3, 2.0, -3.0, 0.5], dtype=torch.float64)
    assert clip_by_adam_second_moment(adam) == pytest.approx(3 / 4)
    clipped = p.grad.clone()
    adam.step()
    v_next = [0.999 * 0.01 + 0.001 * 0.09, 0.999 * 0.01 + 0.001 * 4.0, 0.999 * 0.04 + 0.001 * 9.0,
              0.0 + 0.001 * 0.25]  # [0.01008, 0.01399, 0.04896, 0.00025]
    torch.testing.assert_close(adam.state[p]["exp_avg_sq"], torch.tensor(v_next, dtype=torch.float64))
    torch.testing.assert_close(adam.state[p]["exp_avg"], 0.1 * clipped)  # 0.9 * 0 + 0.1 g_clipped


def test_a_large_spike_is_clipped_after_warmup():
    """A steady gradient of 1 for many steps, then a spike of 100: clipped to 5 sqrt(v_hat)."""
    p = torch.nn.Parameter(torch.zeros(1, dtype=torch.float64))
    adam = torch.optim.Adam([p], lr=1e-12, betas=(0.9, B2))
    for _ in range(2000):
        p.grad = torch.ones(1, dtype=torch.float64)
        assert clip_by_adam_second_moment(adam) == 0.0
        adam.step()
    # after 2000 steps of g = 1: v = 1 - 0.999^2000 (Adam's moment of a constant 1)
    v = 1.0 - 0.999**2000
    assert adam.state[p]["exp_avg_sq"].item() == pytest.approx(v, rel=1e-9)
    p.grad = torch.full((1,), 100.0, dtype=torch.float64)
    assert clip_by_adam_second_moment(adam) == 1.0
    bound = 5 * math.sqrt((0.999 * v + 0.001 * 100.0**2) / (1.0 - 0.999**2001))  # 5 sqrt(10.864 / 0.8649) = 17.72
    assert p.grad.item() == pytest.approx(bound)
    assert bound == pytest.approx(17.72, abs=0.01)
