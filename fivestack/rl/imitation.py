"""Learning from a teacher: the imitation (cross-entropy) term and the KL term toward a reference policy, each
once, on the heads' logits (``fivestack.model.policy.HeadLogits``).

    imitation_loss(scores, weight)   -E[log pi(a_teacher | s)] over the labelled steps, every head the teacher's
                                     action uses (DAgger, Ross et al. 2011; behaviour cloning when the states are
                                     the teacher's own)
    head_kl(policy, reference)       KL(pi || pi_ref) per head, (N, 4) in ``HEADS`` order: primary and delay
                                     exactly, the target and offset heads conditioned on the primary action taken
                                     (both policies read the same action), 0 where that action takes none. The
                                     term AlphaStar keeps toward its supervised policy while RL moves away from it.
    per_head_metrics(scores, weight) the mean log-loss and accuracy of each head on the labels, for logs
"""

from __future__ import annotations

import torch

from fivestack.model.policy import HEADS, HeadLogits, LabelScores
from fivestack.rl.ppo import masked_mean


def categorical_kl(p_logits: torch.Tensor, q_logits: torch.Tensor) -> torch.Tensor:
    """KL(p || q) over the last axis of two logit tensors (masked entries -1e9 in both: they add 0)."""
    log_p = torch.log_softmax(p_logits, -1)
    log_q = torch.log_softmax(q_logits, -1)
    return (log_p.exp() * (log_p - log_q)).sum(-1)


def head_kl(policy: HeadLogits, reference: HeadLogits) -> torch.Tensor:
    """(N, 4) KL(policy || reference) per head, in ``HEADS`` order, both conditioned on the same primary action
    (``used`` is the policy's, the same action's); the offset head's is x's plus y's."""
    t_used, o_used = policy.used[:, 0], policy.used[:, 1]
    return torch.stack([
        categorical_kl(policy.primary, reference.primary),
        categorical_kl(policy.delay, reference.delay),
        t_used * categorical_kl(policy.target, reference.target),
        o_used * (categorical_kl(policy.offset_x, reference.offset_x)
                  + categorical_kl(policy.offset_y, reference.offset_y)),
    ], -1)


def imitation_loss(scores: LabelScores, weight: torch.Tensor | None = None) -> torch.Tensor:
    """-E[log pi(label)] over the valid labels (times ``weight``, e.g. 0 for steps that are not the learner's)."""
    labelled = scores.valid.float() if weight is None else scores.valid.float() * weight
    return -masked_mean(scores.log_prob, labelled)


@torch.no_grad()
def per_head_metrics(scores: LabelScores, prefix: str, weight: torch.Tensor | None = None) -> dict[str, float]:
    """``{prefix}/loss_{head}`` (nats) and ``{prefix}/accuracy_{head}`` for each head, over the valid labels and,
    for the target and offset heads, only the labels whose action uses them; ``{prefix}/loss`` is their sum."""
    labelled = scores.valid.float() if weight is None else scores.valid.float() * weight
    out = {f"{prefix}/loss": float(-masked_mean(scores.log_prob, labelled)),
           f"{prefix}/labelled": float(labelled.mean())}
    for i, head in enumerate(HEADS):
        w = labelled if i < 2 else labelled * scores.used[..., i - 2]
        out[f"{prefix}/loss_{head}"] = float(-masked_mean(scores.head_log_prob[..., i], w))
        out[f"{prefix}/accuracy_{head}"] = float(masked_mean(scores.head_hit[..., i], w))
    return out


__all__ = ["categorical_kl", "head_kl", "imitation_loss", "per_head_metrics"]
