"""The sample buffers: ``ExperienceBuffer`` (the serial runner: passes over everything pending) and ``SampleBuffer``
(an optimizer actor: least-used samples first, a reuse cap and a capacity), with staleness and reuse accounting."""

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


class SampleBuffer:
    """One optimizer's experience: whole segments in arrival order, each sample with its use count.
    Batches take the least-used samples (random among equals); samples past the staleness cap, samples used
    ``max_uses`` times and, over capacity, the oldest samples leave the buffer."""

    def __init__(self, capacity: int, max_staleness: int, max_uses: int, rng: np.random.Generator):
        self.capacity, self.max_staleness, self.max_uses, self.rng = capacity, max_staleness, max_uses, rng
        self.segments: deque[list] = deque()  # [SampleBatch, uses (S,), alive (S,) bool]
        self.produced = self.consumed = self.dropped_stale = self.dropped_overflow = 0

    def add(self, batch: SampleBatch, keep: np.ndarray | None = None) -> int:
        """Add a segment; with ``keep`` (sample indices) only those samples are in the buffer (a segment sent
        whole, rather than copied without the samples a past version played). Returns the samples added."""
        alive = np.ones(len(batch), bool)
        if keep is not None:
            alive[:] = False
            alive[keep] = True
        self.segments.append([batch, np.zeros(len(batch), np.int64), alive])
        added = int(alive.sum())
        self.produced += added
        return added

    def __len__(self) -> int:
        return int(sum(seg[2].sum() for seg in self.segments))

    def prune(self, version: int) -> None:
        for seg in self.segments:
            stale = seg[2] & (version - seg[0].version > self.max_staleness)
            self.dropped_stale += int(stale.sum())
            seg[2] &= ~stale
            if self.max_uses > 0:
                seg[2] &= seg[1] < self.max_uses
        excess = len(self) - self.capacity
        for seg in self.segments:
            if excess <= 0:
                break
            alive = np.flatnonzero(seg[2])[:excess]
            seg[2][alive] = False
            self.dropped_overflow += len(alive)
            excess -= len(alive)
        while self.segments and not self.segments[0][2].any():
            self.segments.popleft()

    def take(self, size: int) -> SampleBatch | None:
        where = [(i, j) for i, seg in enumerate(self.segments) for j in np.flatnonzero(seg[2])]
        if len(where) < size:
            return None
        uses = np.array([self.segments[i][1][j] for i, j in where])
        order = np.lexsort((self.rng.random(len(where)), uses))[:size]
        parts = []
        chosen: dict[int, list[int]] = {}
        for o in order:
            i, j = where[o]
            chosen.setdefault(i, []).append(j)
        for i, rows in chosen.items():
            rows = np.array(rows)
            self.segments[i][1][rows] += 1
            parts.append(self.segments[i][0].select(rows))
        self.consumed += size
        return SampleBatch.concat(parts) if len(parts) > 1 else parts[0]
