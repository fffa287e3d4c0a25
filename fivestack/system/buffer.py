"""The sample buffer: whole segments in arrival order, each sample with its use count, and the accounting of
staleness (the learner's version when a sample is used minus the version that produced it) and reuse.

Two ways to draw from it, one per runner:

- ``minibatches`` (the serial runner): shuffled passes over everything pending, then the buffer is empty;
- ``take`` (an optimizer actor of the ray runner, fed asynchronously): the least-used samples first (random
  among equals); ``prune`` first removes samples past the staleness cap, samples used ``max_uses`` times and,
  over ``capacity``, the oldest samples.

Either way a sample more than ``max_staleness`` versions old when drawn is dropped, never trained on.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Callable

import numpy as np

from fivestack.system.messages import SampleBatch


class Staleness:
    """Min / mean / max of the staleness of the samples drawn since the last ``take`` (and the max ever)."""

    def __init__(self):
        self.max_ever = 0
        self._reset()

    def _reset(self) -> None:
        self.n, self.total, self.low, self.high = 0, 0.0, math.inf, -math.inf

    def add(self, lags: np.ndarray) -> None:
        if len(lags):
            self.n += len(lags)
            self.total += float(lags.sum())
            self.low, self.high = min(self.low, int(lags.min())), max(self.high, int(lags.max()))
            self.max_ever = max(self.max_ever, self.high)

    def take(self) -> dict[str, float]:
        """``staleness/min|mean|max`` since the last call and ``staleness/samples``, how many drawn samples they
        cover (empty if nothing was drawn), then start again."""
        out = {} if not self.n else {"staleness/min": float(self.low), "staleness/mean": self.total / self.n,
                                     "staleness/max": float(self.high), "staleness/samples": float(self.n)}
        self._reset()
        return out


class SampleBuffer:
    def __init__(self, max_staleness: int, capacity: int = 0, max_uses: int = 0,
                 rng: np.random.Generator | None = None):
        """``capacity`` 0: unbounded; ``max_uses`` 0: no cap; ``rng`` breaks ties in ``take``."""
        self.max_staleness, self.capacity, self.max_uses = max_staleness, capacity, max_uses
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.segments: deque[list] = deque()  # [SampleBatch, uses (S,), alive (S,) bool]
        self.produced = 0  # samples added
        self.consumed = 0  # samples handed to the optimizer (a sample used twice counts twice)
        self.dropped_stale = 0  # samples discarded as too stale
        self.dropped_overflow = 0  # samples shed over capacity
        self.staleness = Staleness()

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

    def reuse(self) -> float:
        """Samples consumed per sample produced (the paper aims for ~1)."""
        return self.consumed / max(self.produced, 1)

    # ------------------------------------------------------------------ the serial runner
    def minibatches(self, size: int, current_version: Callable[[], int], epochs: int, rng: np.random.Generator):
        """Yield shuffled minibatches of everything pending (``epochs`` passes), then empty the buffer.

        ``current_version()`` is read as each minibatch is handed out (training advances the version between
        minibatches): samples more than ``max_staleness`` versions old then are dropped."""
        if not self.segments:
            return
        # the pending samples are rows ``alive`` of ``batch``: one segment is used as it is, several are joined;
        # either way each minibatch is the one copy of its samples (a segment is often most of a GB)
        batch = self.segments[0][0] if len(self.segments) == 1 else SampleBatch.concat([s[0] for s in self.segments])
        alive = np.flatnonzero(np.concatenate([seg[2] for seg in self.segments]))
        self.segments.clear()
        for _ in range(epochs):
            order = alive[rng.permutation(len(alive))]  # the same draws as shuffling the pending samples alone
            for start in range(0, len(order) - size + 1, size):
                index = order[start:start + size]
                lag = current_version() - batch.version[index]
                fresh = lag <= self.max_staleness
                self.dropped_stale += int((~fresh).sum())
                if fresh.any():
                    self.consumed += int(fresh.sum())
                    self.staleness.add(lag[fresh])
                    yield batch.select(index[fresh])

    # ------------------------------------------------------------------ an optimizer actor
    def prune(self, version: int) -> None:
        for seg in self.segments:
            stale = seg[2] & (version - seg[0].version > self.max_staleness)
            self.dropped_stale += int(stale.sum())
            seg[2] &= ~stale
            if self.max_uses > 0:
                seg[2] &= seg[1] < self.max_uses
        excess = len(self) - self.capacity if self.capacity else 0
        for seg in self.segments:
            if excess <= 0:
                break
            alive = np.flatnonzero(seg[2])[:excess]
            seg[2][alive] = False
            self.dropped_overflow += len(alive)
            excess -= len(alive)
        while self.segments and not self.segments[0][2].any():
            self.segments.popleft()

    def take(self, size: int, version: int) -> SampleBatch | None:
        """``size`` of the least-used samples for a step at ``version`` (None if fewer are alive)."""
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
        batch = SampleBatch.concat(parts) if len(parts) > 1 else parts[0]
        self.staleness.add(version - batch.version)
        return batch

    # ------------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict:
        return {"produced": self.produced, "consumed": self.consumed, "dropped": self.dropped_stale}

    def load_state_dict(self, state: dict) -> None:
        self.produced, self.consumed, self.dropped_stale = (int(state.get(k, 0))
                                                            for k in ("produced", "consumed", "dropped"))
