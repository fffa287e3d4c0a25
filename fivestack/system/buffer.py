"""The experience buffer: samples in arrival order, with staleness and sample-reuse accounting."""

from __future__ import annotations

from collections import deque

import numpy as np

from fivestack.system.messages import SampleBatch


class ExperienceBuffer:
    def __init__(self, max_staleness: int):
        self.max_staleness = max_staleness
        self.pending: deque[SampleBatch] = deque()
        self.produced = 0  # samples added
        self.consumed = 0  # samples handed to the optimizer (a sample used twice counts twice)
        self.dropped = 0  # samples discarded as too stale

    def add(self, batch: SampleBatch) -> None:
        self.pending.append(batch)
        self.produced += len(batch)

    def __len__(self) -> int:
        return sum(len(b) for b in self.pending)

    def minibatches(self, size: int, version: int, epochs: int, rng: np.random.Generator):
        """Yield shuffled minibatches of everything pending (``epochs`` passes), then empty the buffer.
        Samples more than ``max_staleness`` versions old at yield time are dropped."""
        if not self.pending:
            return
        batch = SampleBatch.concat(list(self.pending))
        self.pending.clear()
        for _ in range(epochs):
            order = rng.permutation(len(batch))
            for start in range(0, len(order) - size + 1, size):
                index = order[start:start + size]
                fresh = version - batch.version[index] <= self.max_staleness
                self.dropped += int((~fresh).sum())
                if fresh.any():
                    self.consumed += int(fresh.sum())
                    yield batch.select(index[fresh])

    @staticmethod
    def staleness(version: int, batch: SampleBatch) -> dict[str, float]:
        lag = version - batch.version
        return {"min": float(lag.min()), "mean": float(lag.mean()), "max": float(lag.max())}

    def reuse(self) -> float:
        """Samples consumed per sample produced (the paper aims for ~1)."""
        return self.consumed / max(self.produced, 1)

    def state_dict(self) -> dict:
        return {"produced": self.produced, "consumed": self.consumed, "dropped": self.dropped}

    def load_state_dict(self, state: dict) -> None:
        self.produced, self.consumed, self.dropped = (int(state[k]) for k in ("produced", "consumed", "dropped"))
