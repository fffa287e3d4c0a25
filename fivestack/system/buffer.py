"""The experience buffer: samples in arrival order, with staleness and sample-reuse accounting."""

from __future__ import annotations

from collections import deque
from typing import Callable

import numpy as np

from fivestack.system.messages import SampleBatch


class ExperienceBuffer:
    def __init__(self, max_staleness: int):
        self.max_staleness = max_staleness
        self.pending: deque[SampleBatch] = deque()
        self.produced = 0  # samples added
        self.consumed = 0  # samples handed to the optimizer (a sample used twice counts twice)
        self.dropped = 0  # samples discarded as too stale
        # staleness (the learner's version when a sample was used - the version that produced it) of the
        # samples the last ``minibatches`` call handed out
        self.last_staleness = {"min": 0.0, "mean": 0.0, "max": 0.0}

    def add(self, batch: SampleBatch) -> None:
        self.pending.append(batch)
        self.produced += len(batch)

    def __len__(self) -> int:
        return sum(len(b) for b in self.pending)

    def minibatches(self, size: int, current_version: Callable[[], int], epochs: int, rng: np.random.Generator):
        """Yield shuffled minibatches of everything pending (``epochs`` passes), then empty the buffer.

        ``current_version()`` is read as each minibatch is handed out (training advances the version between
        minibatches): samples more than ``max_staleness`` versions old then are dropped, and the staleness of
        the samples handed out is recorded in ``last_staleness`` (min / mean / max over this call)."""
        if not self.pending:
            return
        batch = SampleBatch.concat(list(self.pending))
        self.pending.clear()
        lags: list[np.ndarray] = []
        try:
            for _ in range(epochs):
                order = rng.permutation(len(batch))
                for start in range(0, len(order) - size + 1, size):
                    index = order[start:start + size]
                    lag = current_version() - batch.version[index]
                    fresh = lag <= self.max_staleness
                    self.dropped += int((~fresh).sum())
                    if fresh.any():
                        self.consumed += int(fresh.sum())
                        lags.append(lag[fresh])
                        yield batch.select(index[fresh])
        finally:
            if lags:
                every = np.concatenate(lags)
                self.last_staleness = {"min": float(every.min()), "mean": float(every.mean()),
                                       "max": float(every.max())}


    def reuse(self) -> float:
        """Samples consumed per sample produced (the paper aims for ~1)."""
        return self.consumed / max(self.produced, 1)

    def state_dict(self) -> dict:
        return {"produced": self.produced, "consumed": self.consumed, "dropped": self.dropped}

    def load_state_dict(self, state: dict) -> None:
        self.produced, self.consumed, self.dropped = (int(state[k]) for k in ("produced", "consumed", "dropped"))
