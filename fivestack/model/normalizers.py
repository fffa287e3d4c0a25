"""The policy's input normalisers: running moments per input column, merged batch by batch.

    merge_moments(count, mean, var, n, batch_mean, batch_var)   the parallel Welford update every normaliser uses
    normalizer_input(key, obs, keep)                            the rows a normaliser learns from (seen units only)
    RunningNorm                                                 mean and std of an input's last axis; standardise
                                                                and clip (a buffer of ``Policy.norms``)
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from fivestack.env import spaces as sp


def merge_moments(count, mean, var, n, batch_mean, batch_var):
    """Running (count, mean, biased var) after absorbing a batch's (n, mean, biased var): the parallel form of
    Welford's update (Chan et al.). Works on floats and tensors alike; every normaliser (``RunningNorm``, the
    reward scale ``rl.normalize.RunningStd``, the optimizer pool's allreduced statistics) merges through it."""
    total = count + n
    delta = batch_mean - mean
    new_mean = mean + delta * n / total
    new_var = (var * count + batch_var * n + delta**2 * count * n / total) / total
    return total, new_mean, new_var


def normalizer_input(key: str, obs: dict, keep=None):
    """The rows the normaliser ``key`` (of ``Policy.norms``: ``obs_GROUP``) learns its statistics from: the
    group's values, and for the unit set only the units that are there, not empty slots (numpy or torch).
    ``keep`` (sorted indices along the first axis; None: all) leaves the other rows out; the unit set is then
    read once, through one mask, rather than copied without them first (a segment's is ~0.5 GB)."""
    if key == "obs_units":
        units = obs["units"]
        seen = units[..., sp.U_SEEN] > 0
        if keep is not None:
            kept = seen.new_zeros(len(seen)) if isinstance(seen, torch.Tensor) else np.zeros(len(seen), bool)
            kept[keep] = True
            seen &= kept.reshape(-1, *[1] * (seen.ndim - 1))
        return units[seen]
    return obs[key[4:]] if keep is None else obs[key[4:]][keep]


class RunningNorm(nn.Module):
    """Running mean and std of a float input's last axis; inputs are standardised and clipped to (-5, 5)."""

    def __init__(self, width: int, clip: float = 5.0):
        super().__init__()
        self.clip = clip
        self.register_buffer("mean", torch.zeros(width))
        self.register_buffer("var", torch.ones(width))
        self.register_buffer("count", torch.tensor(1e-4))  # one count, or one per column (after a surgery)

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        count = state_dict.get(prefix + "count")
        if count is not None and count.shape != self.count.shape:  # per-column counts: new columns start fresh
            self.count = torch.zeros_like(count)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    @torch.no_grad()
    def update(self, x: torch.Tensor) -> None:
        flat = x.reshape(-1, x.shape[-1]).double()
        if flat.shape[0] == 0:
            return
        self.merge(flat.shape[0], flat.mean(0), flat.var(0, unbiased=False))

    @torch.no_grad()
    def merge(self, n: float, batch_mean: torch.Tensor, batch_var: torch.Tensor) -> None:
        """Absorb a batch given by its row count, mean and biased variance (``merge_moments``)."""
        if n <= 0:
            return
        total, mean, var = merge_moments(self.count, self.mean, self.var, n, batch_mean, batch_var)
        self.mean.copy_(mean.float())
        self.var.copy_(var.float())
        self.count.copy_(total)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ((x - self.mean) / torch.sqrt(self.var + 1e-8)).clamp(-self.clip, self.clip)
