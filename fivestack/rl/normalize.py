"""Running statistics for reward normalisation (the value loss uses rewards divided by a running std)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class RunningStd:
    """Running std of the discounted return, the usual way to scale PPO rewards."""

    gamma: float
    mean: float = 0.0
    var: float = 1.0
    count: float = 1e-4

    def update(self, x: np.ndarray) -> None:
        x = np.asarray(x, dtype=np.float64).reshape(-1)
        if x.size == 0:
            return
        batch_mean, batch_var, n = x.mean(), x.var(), x.size
        total = self.count + n
        delta = batch_mean - self.mean
        self.mean += delta * n / total
        self.var = (self.var * self.count + batch_var * n + delta**2 * self.count * n / total) / total
        self.count = total

    @property
    def std(self) -> float:
        return float(np.sqrt(self.var) + 1e-8)

    def state_dict(self) -> dict:
        return {"gamma": self.gamma, "mean": self.mean, "var": self.var, "count": self.count}

    def load_state_dict(self, state: dict) -> None:
        self.gamma, self.mean, self.var, self.count = (float(state[k]) for k in ("gamma", "mean", "var", "count"))
