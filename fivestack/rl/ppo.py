"""The PPO losses (Schulman et al. 2017), each term once, as in the paper's notation."""

from __future__ import annotations

import torch


def policy_loss(log_prob: torch.Tensor, old_log_prob: torch.Tensor, advantages: torch.Tensor, clip: float,
                weight: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """L^CLIP = -E[min(ratio A, clip(ratio, 1 - eps, 1 + eps) A)]; also returns the fraction clipped."""
    ratio = torch.exp(log_prob - old_log_prob)
    unclipped = ratio * advantages
    clipped = ratio.clamp(1.0 - clip, 1.0 + clip) * advantages
    loss = -torch.minimum(unclipped, clipped)
    clipped_frac = ((ratio - 1.0).abs() > clip).float()
    return masked_mean(loss, weight), masked_mean(clipped_frac, weight)


def head_policy_loss(head_log_prob: torch.Tensor, old_head_log_prob: torch.Tensor, advantages: torch.Tensor,
                     clip: float) -> tuple[torch.Tensor, torch.Tensor]:
    """sum over heads h of L^CLIP with the head's own ratio exp(log pi_h - log pi_h,old), clipped on its own: the
    action's advantage for every head, but a head whose probabilities moved far (the primary head, early on)
    no longer zeroes the other heads' gradients as the joint ratio prod_h ratio_h does. A head the action does not
    use has log-probability 0 under both policies (ratio 1, no gradient). Also returns each head's clipped fraction
    (heads,)."""
    ratio = torch.exp(head_log_prob - old_head_log_prob)  # (..., heads)
    adv = advantages.unsqueeze(-1)
    loss = -torch.minimum(ratio * adv, ratio.clamp(1.0 - clip, 1.0 + clip) * adv)
    clipped_frac = ((ratio - 1.0).abs() > clip).float().flatten(0, -2).mean(0)
    return loss.sum(-1).mean(), clipped_frac


def value_loss(value: torch.Tensor, returns: torch.Tensor, weight: torch.Tensor | None = None) -> torch.Tensor:
    """0.5 E[(V - R)^2], on returns already divided by the running reward std."""
    return masked_mean(0.5 * (value - returns) ** 2, weight)


def masked_mean(x: torch.Tensor, weight: torch.Tensor | None) -> torch.Tensor:
    if weight is None:
        return x.mean()
    return (x * weight).sum() / weight.sum().clamp_min(1.0)
