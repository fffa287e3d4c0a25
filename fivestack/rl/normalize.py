"""Running statistics for reward normalisation (the value loss uses rewards divided by a running std)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fivestack.model.normalizers import merge_moments


@dataclass
class RunningStd:
    """Running std of the discounted returns the rollout computed (with its gamma, ``gamma_from_horizon`` per
    decision), the usual way to scale PPO's value targets."""

    mean: float = 0.0
    var: float = 1.0
    count: float = 1e-4

    def update(self, x: np.ndarray) -> None:
        x = np.asarray(x, dtype=np.float64).reshape(-1)
        if x.size == 0:
            return
        self.merge(x.size, x.mean(), x.var())

    def merge(self, n: float, batch_mean: float, batch_var: float) -> None:
        """Absorb a batch given by its count, mean and biased variance (``merge_moments``)."""
        if n <= 0:
            return
        self.count, self.mean, self.var = (float(v) for v in merge_moments(self.count, self.mean, self.var, n,
                                                                            batch_mean, batch_var))

    @property
    def std(self) -> float:
        return float(np.sqrt(self.var) + 1e-8)

    def state_dict(self) -> dict:
        return {"mean": self.mean, "var": self.var, "count": self.count}

    def load_state_dict(self, state: dict) -> None:
        """(A checkpoint written before 2026-12-06 also holds the gamma the class once kept and never used.)"""
        self.mean, self.var, self.count = (float(state[k]) for k in ("mean", "var", "count"))
