"""Adam with OpenAI Five's gradient clip: each gradient element is clipped to +-5 sqrt(v), where v is
Adam's running second moment of the (unclipped) gradient."""

from __future__ import annotations

import torch


@torch.no_grad()
def clip_by_adam_second_moment(optimizer: torch.optim.Adam, k: float = 5.0) -> float:
    """Clip every parameter's gradient in place to +-k sqrt(v) (v updated with this gradient first, as Adam
    will, and bias-corrected). Adam's stored v is adjusted so that its next step accumulates the unclipped
    gradient's square (on a parameter's first step nothing is clipped for k >= 1, so there is nothing to
    adjust). Returns the fraction of gradient elements that were clipped."""
    clipped = 0
    total = 0
    for group in optimizer.param_groups:
        beta2 = group["betas"][1]
        for p in group["params"]:
            if p.grad is None:
                continue
            state = optimizer.state.get(p)
            v = state["exp_avg_sq"] if state and "exp_avg_sq" in state else torch.zeros_like(p)
            v_next = beta2 * v + (1.0 - beta2) * p.grad * p.grad
            step = float(state["step"]) + 1.0 if state and "step" in state else 1.0
            bound = k * torch.sqrt(v_next / (1.0 - beta2**step))
            over = p.grad.abs() > bound
            clipped += int(over.sum())
            total += p.grad.numel()
            unclipped_sq = p.grad * p.grad
            torch.minimum(torch.maximum(p.grad, -bound), bound, out=p.grad)
            if state and "exp_avg_sq" in state:
                # Adam's step folds the *clipped* gradient into v; pre-add the difference so that its v stays
                # the second moment of the unclipped gradient: beta2 v' + (1 - beta2) g_c^2 = v_next
                v.add_((unclipped_sq - p.grad * p.grad) * ((1.0 - beta2) / beta2))
    return clipped / max(total, 1)
