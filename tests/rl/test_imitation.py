"""The imitation and KL terms (``fivestack.rl.imitation``) on hand-computed cases."""

from __future__ import annotations

import math

import pytest
import torch

from fivestack.model.policy import HeadLogits, LabelScores
from fivestack.rl.imitation import categorical_kl, head_kl, imitation_loss, per_head_metrics


def logits(primary, delay, target, ox, oy, used) -> HeadLogits:
    t = lambda x: torch.tensor(x, dtype=torch.float32)  # noqa: E731
    return HeadLogits(t(primary), t(delay), t(target), t(ox), t(oy), t(used))


def test_categorical_kl_by_hand():
    # p = (1/2, 1/2), q = (1/4, 3/4): KL = 1/2 ln(2) + 1/2 ln(2/3)
    p = torch.log(torch.tensor([[0.5, 0.5]]))
    q = torch.log(torch.tensor([[0.25, 0.75]]))
    assert categorical_kl(p, q).item() == pytest.approx(0.5 * math.log(2) + 0.5 * math.log(2 / 3), abs=1e-6)
    assert categorical_kl(p, p).item() == pytest.approx(0.0, abs=1e-7)
    # masked entries (-1e9 in both) add nothing
    masked = torch.tensor([[math.log(0.5), math.log(0.5), -1e9]])
    other = torch.tensor([[math.log(0.25), math.log(0.75), -1e9]])
    assert categorical_kl(masked, other).item() == pytest.approx(categorical_kl(p, q).item(), abs=1e-6)


def test_head_kl_counts_a_parameter_head_only_where_the_action_uses_it():
    a = logits([[0.0, 0.0]] * 2, [[0.0] * 4] * 2, [[0.0, 0.0]] * 2, [[0.0] * 3] * 2, [[0.0] * 3] * 2,
               [[1.0, 1.0], [0.0, 0.0]])
    b = logits([[0.0, 0.0]] * 2, [[0.0] * 4] * 2, [[1.0, 0.0]] * 2, [[2.0, 0.0, 0.0]] * 2, [[0.0] * 3] * 2,
               [[1.0, 1.0], [0.0, 0.0]])
    kl = head_kl(a, b)
    assert kl[:, 0].tolist() == [0.0, 0.0] and kl[:, 1].tolist() == [0.0, 0.0]  # same primary and delay
    assert kl[0, 2] > 0 and kl[0, 3] > 0  # the first row's action takes a target and an offset
    assert kl[1, 2] == 0 and kl[1, 3] == 0  # the second row's takes neither


def test_imitation_loss_and_per_head_metrics_weigh_only_valid_labels():
    # two labels: one valid with log-probs (-1, -0.5, -2, -3) and hits (1, 1, 0, 1), one invalid
    scores = LabelScores(head_log_prob=torch.tensor([[-1.0, -0.5, -2.0, -3.0], [-9.0, -9.0, -9.0, -9.0]]),
                         head_hit=torch.tensor([[1.0, 1.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]]),
                         used=torch.tensor([[1.0, 1.0], [1.0, 1.0]]), valid=torch.tensor([True, False]))
    assert imitation_loss(scores).item() == pytest.approx(6.5)
    m = per_head_metrics(scores, "x")
    assert m["x/loss"] == pytest.approx(6.5) and m["x/labelled"] == pytest.approx(0.5)
    assert [m[f"x/loss_{h}"] for h in ("primary", "delay", "target", "offset")] == pytest.approx([1.0, 0.5, 2.0, 3.0])
    assert [m[f"x/accuracy_{h}"] for h in ("primary", "delay", "target", "offset")] == [1.0, 1.0, 0.0, 1.0]
