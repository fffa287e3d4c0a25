"""The drafting search: minimax over the pick order on a table of lineup win probabilities.

Radiant maximises its win probability, Dire minimises it; picks follow 1-2-2-2-2-1 (``lineups.PICK_ORDER``)
with Radiant first or second. Each pick is one ply (a team's two consecutive picks are two plies of the same
player). A leaf is a full lineup, valued by the table made by ``precompute`` (or ``score_all``): the search
never calls a scorer, so a pick costs the same whatever the scorer costs.

``Drafter(values, n, radiant_first)`` holds the table and the cache; ``best_pick(radiant, dire)`` returns the
pick and the value after optimal play from the state, ``value`` the value of a state, ``pick_values`` the value
of every legal pick. The search runs as Numba kernels (``_alphabeta``, ``_root``) over bitmasks.

Prunings, and why each is exact (the value and the pick equal plain minimax over the full tree; the tests
check this against brute force on 11 heroes):

* **Alpha-beta, fail-soft.** A node searched with window (alpha, beta) returns v with: v <= alpha means the true
  value is <= v; v >= beta means it is >= v; otherwise v is the true value. A child is skipped only once
  alpha >= beta, when the node's value is already proven outside the window, so no ancestor's value can
  depend on it. Consecutive picks by one team keep the same window (max of max). At the root, each pick is
  searched with alpha (for Radiant; beta for Dire) = the best value so far: a pick returning a value not
  strictly better is provably not better, so the root keeps the first best pick in hero-id order, exactly as
  brute force does.
* **Transposition cache keyed by the unordered sets (Radiant set, Dire set).** The value of a state depends
  only on those sets: the leaves' value is a function of the sets, and who picks next depends only on how
  many picks were made (the first-pick side is fixed per ``Drafter``). Pick sequences that reach the same sets
  (a team's double pick in either order, or picks interleaved differently) share one entry. An entry stores
  its value with its kind, as alpha-beta proved it: exact, a lower bound (the node failed high) or an upper
  bound (it failed low); a bound is only used to narrow the window (and to return at once if the window
  closes), never as a value. The key is the state's index in the combinatorial number system of its depth
  (rank of R, times C(n - |R|, |D|), plus the rank of D among the heroes not in R), so the cache is a dense
  array per depth with no collisions: about 5.8M entries (float32 + int8, 29 MB) for 17 heroes.
* **Move ordering** (not a pruning; it changes only how much alpha-beta cuts): below the root, Radiant tries
  heroes in decreasing order of their mean win probability over the lineups where Radiant has them, Dire in
  increasing order of the mean where Dire has them.

``options`` turns each part on (``PRUNE | CACHE | ORDER``, the default ``EXACT_SEARCH``); every combination is
exact. The ``FAULT_*`` bits are deliberate bugs for the test that shows the exactness test can fail: a bound
returned as a value, a cache key without the sides (R | D), and a cutoff against the node's own alpha instead
of beta.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from math import comb

import numpy as np
from numba import njit

from fivestack.draft.lineups import RADIANT, TEAM_SIZE, DraftError, check_state, lineup_count, mask_of, pick_sides

PRUNE, CACHE, ORDER = 1, 2, 4
EXACT_SEARCH = PRUNE | CACHE | ORDER
FAULT_BOUND_AS_VALUE, FAULT_KEY_WITHOUT_SIDES, FAULT_CUTOFF_AT_ALPHA = 8, 16, 32
_EXACT, _LOWER, _UPPER = 1, 2, 3
PICKS = 2 * TEAM_SIZE
MAX_CACHE_ENTRIES = 100_000_000  # float32 + int8 each: 500 MB; 22 heroes need 93M, 17 heroes 5.8M
# stats: nodes searched (non-leaf), leaves read from the table, cache hits that returned at once
NODES, LEAVES, CACHE_HITS = 0, 1, 2


@njit(cache=True)
def _rank(mask, skip, n, binom):
    """Colex rank of the bits of ``mask`` among the positions 0..n-1 that are not in ``skip``."""
    total = 0
    j = 0
    pos = 0
    for c in range(n):
        if (skip >> c) & 1:
            continue
        if (mask >> c) & 1:
            j += 1
            total += binom[pos, j]
        pos += 1
    return total


@njit(cache=True)
def _alphabeta(r, d, k, alpha, beta, n, sides, table, binom, dsize, offset, tt_val, tt_flag, order_r, order_d,
               options, stats):
    """Fail-soft alpha-beta value of the state (Radiant mask r, Dire mask d) after k picks."""
    if k == 10:
        stats[1] += 1
        return np.float64(table[_rank(r, 0, n, binom) * dsize[10] + _rank(d, r, n, binom)])
    stats[0] += 1
    prune = (options & 1) != 0
    cache = (options & 2) != 0
    idx = 0
    if cache:
        if options & 16:
            idx = offset[k] + _rank(r | d, 0, n, binom)
        else:
            idx = offset[k] + _rank(r, 0, n, binom) * dsize[k] + _rank(d, r, n, binom)
        flag = tt_flag[idx]
        if flag != 0:
            v = np.float64(tt_val[idx])
            if flag == 1 or (options & 8) != 0:
                stats[2] += 1
                return v
            if prune:
                if flag == 2 and v > alpha:
                    alpha = v
                elif flag == 3 and v < beta:
                    beta = v
                if alpha >= beta:
                    stats[2] += 1
                    return v
    a0 = alpha
    b0 = beta
    taken = r | d
    maximise = sides[k] == 0
    best = -np.inf if maximise else np.inf
    for i in range(n):
        h = order_r[i] if maximise else order_d[i]
        if (taken >> h) & 1:
            continue
        bit = np.int64(1) << h
        if maximise:
            v = _alphabeta(r | bit, d, k + 1, alpha, beta, n, sides, table, binom, dsize, offset, tt_val, tt_flag,
                           order_r, order_d, options, stats)
            if v > best:
                best = v
            if prune:
                if options & 32:
                    if best > a0:
                        break
                else:
                    if best > alpha:
                        alpha = best
                    if alpha >= beta:
                        break
        else:
            v = _alphabeta(r, d | bit, k + 1, alpha, beta, n, sides, table, binom, dsize, offset, tt_val, tt_flag,
                           order_r, order_d, options, stats)
            if v < best:
                best = v
            if prune:
                if options & 32:
                    if best < b0:
                        break
                else:
                    if best < beta:
                        beta = best
                    if alpha >= beta:
                        break
    if cache:
        if not prune or (best > a0 and best < b0):
            tt_flag[idx] = 1
        elif best <= a0:
            tt_flag[idx] = 3
        else:
            tt_flag[idx] = 2
        tt_val[idx] = best
    return best


@njit(cache=True)
def _root(r, d, k, n, sides, table, binom, dsize, offset, tt_val, tt_flag, order_r, order_d, options, stats):
    """The first best pick in hero-id order and its value, for the side to pick after k picks."""
    prune = (options & 1) != 0
    maximise = sides[k] == 0
    best = -np.inf if maximise else np.inf
    best_h = -1
    taken = r | d
    for h in range(n):
        if (taken >> h) & 1:
            continue
        bit = np.int64(1) << h
        if maximise:
            alpha = best if prune else -np.inf
            v = _alphabeta(r | bit, d, k + 1, alpha, np.inf, n, sides, table, binom, dsize, offset, tt_val, tt_flag,
                           order_r, order_d, options, stats)
            if v > best:
                best = v
                best_h = h
        else:
            beta = best if prune else np.inf
            v = _alphabeta(r, d | bit, k + 1, -np.inf, beta, n, sides, table, binom, dsize, offset, tt_val, tt_flag,
                           order_r, order_d, options, stats)
            if v < best:
                best = v
                best_h = h
    return best_h, best


@njit(cache=True)
def _hero_means(table, radiant_sets, rest_of, relative_sets, n):
    """Per hero: the mean table value over the lineups where Radiant has it, and where Dire has it."""
    r_sum = np.zeros(n)
    d_sum = np.zeros(n)
    m = relative_sets.shape[0]
    for a in range(radiant_sets.shape[0]):
        for b in range(m):
            v = table[a * m + b]
            for j in range(radiant_sets.shape[1]):
                r_sum[radiant_sets[a, j]] += v
                d_sum[rest_of[a, relative_sets[b, j]]] += v
    count = radiant_sets.shape[0] * m * radiant_sets.shape[1] / n
    return r_sum / count, d_sum / count


@dataclass(frozen=True)
class SearchResult:
    """A pick (hero id) and the value (Radiant's win probability) after optimal play from the state with it;
    the work done: nodes searched, leaves read, cache hits, seconds of wall and CPU time."""

    hero: int
    value: float
    nodes: int
    leaves: int
    cache_hits: int
    seconds: float
    cpu_seconds: float


class Drafter:
    """Minimax search over a lineup table for one first-pick side. The cache lives as long as the Drafter, so
    later picks of a draft reuse what earlier picks proved."""

    def __init__(self, values: np.ndarray, n: int, radiant_first: bool, options: int = EXACT_SEARCH):
        if n > 62:
            raise DraftError(f"a pool of {n} heroes is too large for 64-bit masks (at most 62)")
        if len(values) != lineup_count(n):
            raise DraftError(f"the table has {len(values):,} values, but {n} heroes have {lineup_count(n):,} "
                             f"lineups; use the table made for this pool")
        self.n, self.radiant_first, self.options = n, radiant_first, options
        self.table = np.array(values, dtype=np.float32)  # a copy in memory: one kernel signature (writable)
        self.sides = np.array(pick_sides(radiant_first), dtype=np.int8)
        self.binom = np.array([[comb(a, b) for b in range(n + 1)] for a in range(n + 1)], dtype=np.int64)
        r_k = np.concatenate([[0], np.cumsum(self.sides == RADIANT)])
        d_k = np.arange(PICKS + 1) - r_k
        self.dsize = np.array([comb(n - r, d) for r, d in zip(r_k, d_k)], dtype=np.int64)
        level = np.array([comb(n, r) * s for r, s in zip(r_k[:PICKS], self.dsize[:PICKS])], dtype=np.int64)
        self.offset = np.concatenate([[0], np.cumsum(level)]).astype(np.int64)
        size = int(self.offset[-1]) if options & CACHE else 1
        if size > MAX_CACHE_ENTRIES:
            raise DraftError(f"a pool of {n} heroes needs a cache of {size:,} states, more than the "
                             f"{MAX_CACHE_ENTRIES:,} this search allocates; draft from a pool of at most 22 heroes")
        self.tt_val = np.zeros(size, dtype=np.float32)
        self.tt_flag = np.zeros(size, dtype=np.int8)
        if options & ORDER:
            from fivestack.draft.lineups import LineupIndex
            index = LineupIndex.of(n)
            r_mean, d_mean = _hero_means(self.table, index.radiant_sets, index.rest_of, index.relative_sets, n)
            self.order_r = np.argsort(-r_mean, kind="stable").astype(np.int64)
            self.order_d = np.argsort(d_mean, kind="stable").astype(np.int64)
        else:
            self.order_r = self.order_d = np.arange(n, dtype=np.int64)
        self.stats = np.zeros(3, dtype=np.int64)

    @property
    def cache_entries(self) -> int:
        return int(np.count_nonzero(self.tt_flag))

    def clear_cache(self) -> None:
        self.tt_flag[:] = 0

    def _args(self):
        return (self.n, self.sides, self.table, self.binom, self.dsize, self.offset, self.tt_val, self.tt_flag,
                self.order_r, self.order_d, self.options, self.stats)

    def _masks(self, radiant, dire) -> tuple[int, int, int]:
        radiant, dire = [int(h) for h in radiant], [int(h) for h in dire]
        check_state(radiant, dire, self.n, self.radiant_first)
        return mask_of(radiant), mask_of(dire), len(radiant) + len(dire)

    def value(self, radiant=(), dire=()) -> float:
        """Radiant's win probability after optimal play from the state (the table's value when complete)."""
        r, d, k = self._masks(radiant, dire)
        n, sides, table, binom, dsize, offset, tt_val, tt_flag, order_r, order_d, options, stats = self._args()
        return float(_alphabeta(np.int64(r), np.int64(d), k, -np.inf, np.inf, n, sides, table, binom, dsize, offset,
                                tt_val, tt_flag, order_r, order_d, options, stats))

    def best_pick(self, radiant=(), dire=()) -> SearchResult:
        """The best pick for the side to pick (the lowest hero id among equally good ones) and the value."""
        r, d, k = self._masks(radiant, dire)
        if k == PICKS:
            raise DraftError("the draft is complete: there is no pick to make")
        before = self.stats.copy()
        wall, cpu = time.perf_counter(), time.process_time()
        hero, value = _root(np.int64(r), np.int64(d), k, *self._args())
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        nodes, leaves, hits = (self.stats - before).tolist()
        return SearchResult(int(hero), float(value), nodes, leaves, hits, wall, cpu)

    def pick_values(self, radiant=(), dire=()) -> dict[int, float]:
        """The value after each legal pick for the side to pick (exact, a full-window search per pick)."""
        radiant, dire = [int(h) for h in radiant], [int(h) for h in dire]
        remaining = check_state(radiant, dire, self.n, self.radiant_first)
        if not remaining:
            raise DraftError("the draft is complete: there is no pick to make")
        out = {}
        for h in range(self.n):
            if h in radiant or h in dire:
                continue
            out[h] = (self.value(radiant + [h], dire) if remaining[0] == RADIANT else self.value(radiant, dire + [h]))
        return out
