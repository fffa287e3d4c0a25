"""PPO losses pinned to a tiny hand-computed batch; the running std that scales the value targets."""

import math

import numpy as np
import pytest
import torch

from fivestack.rl.normalize import RunningStd
from fivestack.rl.ppo import masked_mean, policy_loss, value_loss

# five samples; ratio = exp(log_prob - old_log_prob), clip 0.2 (range [0.8, 1.2])
RATIOS = [1.1, 1.5, 0.5, 0.7, 1.5]
ADVANTAGES = [2.0, 1.0, -1.0, 3.0, -2.0]
# by hand, min(r A, clip(r) A):
#   r=1.1 A= 2: min(2.2, 2.2)   =  2.2   loss -2.2   inside the range
#   r=1.5 A= 1: min(1.5, 1.2)   =  1.2   loss -1.2   clipped (no gradient)
#   r=0.5 A=-1: min(-0.5, -0.8) = -0.8   loss  0.8   clipped (no gradient)
#   r=0.7 A= 3: min(2.1, 2.4)   =  2.1   loss -2.1   outside the range, but the unclipped term is the min
#   r=1.5 A=-2: min(-3.0, -2.4) = -3.0   loss  3.0   outside the range, the unclipped term is the min
LOSSES = [-2.2, -1.2, 0.8, -2.1, 3.0]
OUTSIDE = [0.0, 1.0, 1.0, 1.0, 1.0]  # |r - 1| > 0.2


def batch():
    old = torch.tensor([-1.0, -2.0, -0.5, -3.0, -1.5], dtype=torch.float64)
    new = (old + torch.log(torch.tensor(RATIOS, dtype=torch.float64))).requires_grad_(True)
    return new, old, torch.tensor(ADVANTAGES, dtype=torch.float64)


def test_policy_loss_and_clip_fraction():
    new, old, adv = batch()
    loss, frac = policy_loss(new, old, adv, 0.2)
    assert loss.item() == pytest.approx((-2.2 - 1.2 + 0.8 - 2.1 + 3.0) / 5)  # -0.34
    assert loss.item() == pytest.approx(-0.34)
    assert float(frac) == pytest.approx(4 / 5)


def test_policy_loss_gradient_is_zero_exactly_where_the_clipped_term_wins():
    new, old, adv = batch()
    loss, _ = policy_loss(new, old, adv, 0.2)
    loss.backward()
    # d(-r A / N)/d log_prob = -r A / N where the unclipped term is the min, else 0
    expected = [-1.1 * 2.0 / 5, 0.0, 0.0, -0.7 * 3.0 / 5, 1.5 * 2.0 / 5]  # -0.44, 0, 0, -0.42, 0.6
    torch.testing.assert_close(new.grad, torch.tensor(expected, dtype=torch.float64))


def test_policy_loss_with_weights():
    new, old, adv = batch()
    weight = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0], dtype=torch.float64)
    loss, frac = policy_loss(new, old, adv, 0.2, weight)
    assert loss.item() == pytest.approx((-2.2 + 0.8 - 2.1) / 3)  # -3.5 / 3
    assert float(frac) == pytest.approx(2 / 3)  # samples 2 and 3 of the three kept


def test_policy_loss_other_clip():
    new, old, adv = batch()
    # clip 0.6: range [0.4, 1.6]: every ratio inside, the loss is -mean(r A)
    loss, frac = policy_loss(new, old, adv, 0.6)
    assert loss.item() == pytest.approx(-(1.1 * 2 + 1.5 * 1 + 0.5 * -1 + 0.7 * 3 + 1.5 * -2) / 5)  # -0.46
    assert float(frac) == 0.0


def test_value_loss():
    value = torch.tensor([1.0, 2.0, -1.0])
    returns = torch.tensor([0.5, 3.0, 1.0])
    # 0.5 (V - R)^2 = 0.5 * [0.25, 1, 4] = [0.125, 0.5, 2]
    assert float(value_loss(value, returns)) == pytest.approx((0.125 + 0.5 + 2.0) / 3)  # 0.875
    weight = torch.tensor([2.0, 1.0, 0.0])
    assert float(value_loss(value, returns, weight)) == pytest.approx((2 * 0.125 + 1 * 0.5) / 3)  # 0.25


def test_masked_mean():
    x = torch.tensor([1.0, 2.0, 3.0, 4.0])
    assert float(masked_mean(x, None)) == pytest.approx(2.5)
    assert float(masked_mean(x, torch.tensor([1.0, 0.0, 1.0, 0.0]))) == pytest.approx((1 + 3) / 2)
    assert float(masked_mean(x, torch.tensor([0.0, 1.0, 1.0, 1.0]))) == pytest.approx((2 + 3 + 4) / 3)
    assert float(masked_mean(x, torch.tensor([2.0, 0.0, 0.0, 1.0]))) == pytest.approx((2 * 1 + 4) / 3)
    # nothing selected: 0, not nan
    out = masked_mean(x, torch.zeros(4))
    assert not math.isnan(float(out)) and float(out) == 0.0


def test_running_std_for_the_value_scale():
    """The returns fed to the value loss are divided by this running std (parallel mean/variance merge)."""
    rs = RunningStd()  # prior: mean 0, var 1, count 1e-4
    rs.update(np.array([1.0, 2.0, 3.0, 4.0]))
    # batch mean 2.5, var 1.25, n 4; total 4.0001
    assert rs.mean == pytest.approx(2.5 * 4 / 4.0001, rel=1e-12)
    assert rs.var == pytest.approx((1.0 * 1e-4 + 1.25 * 4 + 2.5**2 * 1e-4 * 4 / 4.0001) / 4.0001, rel=1e-12)
    assert rs.count == pytest.approx(4.0001)
    assert rs.std == pytest.approx(math.sqrt(rs.var) + 1e-8)
    # chunks merge to the statistics of all the data (the prior's weight 1e-4 is negligible)
    data = np.random.default_rng(0).normal(3.0, 2.0, size=1000)
    rs = RunningStd()
    for chunk in np.split(data, [10, 250, 251, 700]):
        rs.update(chunk)
    rs.update(np.array([]))  # an empty update changes nothing
    assert rs.mean == pytest.approx(data.mean(), rel=1e-5)
    assert rs.var == pytest.approx(data.var(), rel=1e-5)
    restored = RunningStd()
    restored.load_state_dict(rs.state_dict())
    assert restored.std == rs.std
    old = {**rs.state_dict(), "gamma": 0.99}  # a checkpoint of before 2026-12-06 (the unused gamma) still loads
    restored.load_state_dict(old)
    assert restored.std == rs.std


def test_head_ratios_clip_each_head_on_its_own():
    """Two samples, two heads. Sample 0: the primary head's ratio 1.5 (A = 1) is clipped, the offset head's 1.1 is
    not; the joint ratio 1.65 is clipped, so under one ratio the offset head gets no gradient from it. Sample 1: an
    unused head (log-probability 0 under both policies) adds its ratio-1 term A (in the model its log-probability
    is a constant 0, so no parameter moves by it).
    By hand, per head min(r A, clip(r) A): sample 0: primary min(1.5, 1.2) = 1.2, offset min(1.1, 1.1) = 1.1;
    sample 1 (A = -2): primary r 0.9: min(-1.8, -1.8) = -1.8, unused head r 1: -2. Loss = -(2.3 - 3.8) / 2 = 0.75."""
    from fivestack.rl.ppo import head_policy_loss

    old = torch.tensor([[-1.0, -2.0], [-0.5, 0.0]], dtype=torch.float64)
    ratios = torch.tensor([[1.5, 1.1], [0.9, 1.0]], dtype=torch.float64)
    new = (old + torch.log(ratios)).requires_grad_(True)
    adv = torch.tensor([1.0, -2.0], dtype=torch.float64)
    loss, clipped = head_policy_loss(new, old, adv, 0.2)
    assert loss.item() == pytest.approx(0.75)
    assert clipped.tolist() == [0.5, 0.0]  # the primary head clipped on one sample of two, the other head never
    loss.backward()
    # d(-r A)/d(log pi) = -r A where the unclipped term counts, 0 where the clipped one wins; mean over 2 samples
    assert new.grad.flatten().tolist() == pytest.approx([0.0, -1.1 / 2, 0.9 * 2 / 2, 1.0 * 2 / 2])
    joint, _ = policy_loss(new.sum(-1), old.sum(-1), adv, 0.2)  # one ratio: 1.65 on sample 0, clipped
    new.grad = None
    joint.backward()
    assert new.grad[0].tolist() == [0.0, 0.0]  # the offset head learns nothing from sample 0 under one ratio
