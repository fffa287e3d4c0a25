"""Adam with OpenAI Five's gradient clip: each gradient element is clipped to +-5 sqrt(v), where v is
Adam's running second moment of the (unclipped) gradient."""

from __future__ import annotations

import torch


@torch.no_grad()
def clip_by_adam_second_moment(optimizer: torch.optim.Adam, k: float = 5.0) -> float:
    """Clip every parameter's gradient in place to +-k sqrt(v) (v updated with this gradient first, as Adam
    will, and bias-corrected). Adam's stored v is adjusted so that its next step accumulates the unclipped
    gradient's square (on a parameter's first step nothing is clipped for k >= 1, so there is nothing to
    adjust). Returns the fraction of gradient elements that were clipped.

    Each rule is one multi-tensor (``torch._foreach_*``) operation over all parameters of a group."""
    clipped = 0
    total = 0
    for group in optimizer.param_groups:
        beta2 = group["betas"][1]
        params = [p for p in group["params"] if p.grad is not None]
        if not params:
            continue
        grads = [p.grad for p in params]
        states = [optimizer.state.get(p) for p in params]
        with_v = [i for i, s in enumerate(states) if s and "exp_avg_sq" in s]
        v = [states[i]["exp_avg_sq"] if i in with_v else torch.zeros_like(g) for i, g in enumerate(grads)]
        scales = [k / (1.0 - beta2 ** (float(s["step"]) + 1.0 if s and "step" in s else 1.0)) ** 0.5
                  for s in states]
        unclipped_sq = torch._foreach_mul(grads, grads)
        v_next = torch._foreach_mul(v, beta2)  # v_next = beta2 v + (1 - beta2) g^2
        torch._foreach_add_(v_next, unclipped_sq, alpha=1.0 - beta2)
        bound = torch._foreach_sqrt(v_next)  # bound = k sqrt(v_next / (1 - beta2^step))
        torch._foreach_mul_(bound, scales)
        over = torch._foreach_sub(torch._foreach_abs(grads), bound)
        clipped += int(sum(torch.count_nonzero(o > 0) for o in over))
        total += sum(g.numel() for g in grads)
        torch._foreach_minimum_(grads, bound)
        torch._foreach_neg_(bound)
        torch._foreach_maximum_(grads, bound)
        if with_v:
            # Adam's step folds the *clipped* gradient into v; pre-add the difference so that its v stays the
            # second moment of the unclipped gradient: beta2 v' + (1 - beta2) g_c^2 = v_next
            kept = [grads[i] for i in with_v]
            fix = torch._foreach_sub([unclipped_sq[i] for i in with_v], torch._foreach_mul(kept, kept))
            torch._foreach_add_([v[i] for i in with_v], fix, alpha=(1.0 - beta2) / beta2)
    return clipped / max(total, 1)
