"""Hero pools, the pick order and the combinatorial number system that indexes lineups.

A *lineup* is a pair of disjoint 5-hero sets (Radiant, Dire) drawn from a pool of ``n`` heroes; the order of
heroes within a team does not matter. There are ``C(n, 5) * C(n - 5, 5)`` lineups: 2,772 for 11 heroes,
4,900,896 for 17.

Map of this file:

* ``HeroPool``: the pool's names, in table order; ``index`` resolves a name or a 1-based number typed by a
  person, with one clear error for an unknown name.
* ``PICK_ORDER`` / ``pick_sides`` / ``check_state``: the standard order 1-2-2-2-2-1 (team A picks 1, B picks 2,
  A 2, B 2, A 2, B 1) with Radiant as team A or B, and the check that a partial draft fits it.
* The combinatorial number system (colex order). A k-subset ``c_1 < ... < c_k`` of ``{0..n-1}`` has rank
  ``sum_j C(c_j, j)`` (j from 1), a bijection onto ``[0, C(n, k))``. A lineup's rank is
  ``rank(R) * C(n - 5, 5) + rank(D relative to the heroes not in R)``, where a Dire hero's *relative* position
  is its index among the ``n - 5`` heroes Radiant did not take. ``subset_rank`` / ``subset_unrank`` (greedy) and
  ``lineup_rank`` / ``lineup_unrank`` are the scalar definitions; ``LineupIndex`` unranks whole batches with
  numpy (the precompute's batches) from tables built by the scalar functions. The search's Numba kernels
  compute the same rank from bitmasks (``fivestack/draft/search.py``), and the tests hold the two together.

Heroes are ids ``0..n-1`` (positions in the pool) everywhere below; bitmasks have bit ``h`` for hero ``h``.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Iterable, Sequence

import numpy as np

TEAM_SIZE = 5
# team A picks 1, B 2, A 2, B 2, A 2, B 1: the team ("A" or "B") of each of the 10 picks
PICK_ORDER = "ABBAABBAAB"
RADIANT, DIRE = 0, 1
SIDE_NAMES = ("Radiant", "Dire")


class DraftError(ValueError):
    """A user mistake in a draft (an unknown or taken hero, a state that does not fit the pick order, a table
    that does not match its pool); the message names the problem and the fix."""


def lineup_count(n: int) -> int:
    """The number of lineups of a pool of ``n`` heroes: C(n, 5) * C(n - 5, 5)."""
    return comb(n, TEAM_SIZE) * comb(n - TEAM_SIZE, TEAM_SIZE)


def pick_sides(radiant_first: bool) -> tuple[int, ...]:
    """The side (RADIANT or DIRE) making each of the 10 picks."""
    a, b = (RADIANT, DIRE) if radiant_first else (DIRE, RADIANT)
    return tuple(a if team == "A" else b for team in PICK_ORDER)


def check_state(radiant: Iterable[int], dire: Iterable[int], n: int, radiant_first: bool) -> tuple[int, ...]:
    """Checks that a partial draft fits the pick order and the pool; returns the sides of the picks still to
    make (empty when the draft is complete)."""
    radiant, dire = list(radiant), list(dire)
    for side, picks in (("Radiant", radiant), ("Dire", dire)):
        for h in picks:
            if not (isinstance(h, (int, np.integer)) and 0 <= h < n):
                raise DraftError(f"{side}'s pick {h!r} is not a hero id of this pool (0..{n - 1})")
        if len(set(picks)) != len(picks):
            raise DraftError(f"{side} has picked the same hero twice: {picks}")
    if set(radiant) & set(dire):
        raise DraftError(f"heroes {sorted(set(radiant) & set(dire))} are on both teams; a hero can be picked once")
    sides = pick_sides(radiant_first)
    k = len(radiant) + len(dire)
    if k > len(sides):
        raise DraftError(f"{k} picks made, but a draft has {len(sides)}")
    want_r = sides[:k].count(RADIANT)
    if (len(radiant), len(dire)) != (want_r, k - want_r):
        first = "Radiant" if radiant_first else "Dire"
        raise DraftError(
            f"after {k} picks the order 1-2-2-2-2-1 with {first} first gives Radiant {want_r} and Dire "
            f"{k - want_r} heroes, but this draft has Radiant {len(radiant)} and Dire {len(dire)}: "
            f"check the picks or the first-pick side")
    return sides[k:]


def mask_of(heroes: Iterable[int]) -> int:
    """The bitmask with bit ``h`` set for each hero ``h``."""
    m = 0
    for h in heroes:
        m |= 1 << int(h)
    return m


def heroes_of(mask: int) -> list[int]:
    """The heroes (ascending) of a bitmask."""
    return [h for h in range(mask.bit_length()) if mask >> h & 1]


# ---- combinatorial number system (colex) ----

def subset_rank(subset: Iterable[int]) -> int:
    """Colex rank of a set of distinct non-negative ints: sum over the sorted elements c_j (j = 1..k) of
    C(c_j, j)."""
    return sum(comb(c, j) for j, c in enumerate(sorted(subset), start=1))


def subset_unrank(rank: int, k: int) -> list[int]:
    """The k-subset (ascending) of colex rank ``rank``: greedily, the largest c with C(c, k) <= rank is the
    top element, then the same for the rest with k - 1."""
    if rank < 0:
        raise ValueError(f"rank {rank} is negative")
    out = []
    for j in range(k, 0, -1):
        c = j - 1
        while comb(c + 1, j) <= rank:
            c += 1
        out.append(c)
        rank -= comb(c, j)
    return out[::-1]


def lineup_rank(radiant: Iterable[int], dire: Iterable[int], n: int) -> int:
    """The rank of a lineup in ``[0, lineup_count(n))``: rank(R) * C(n - 5, 5) + rank(D relative to the rest)."""
    radiant, dire = sorted(radiant), sorted(dire)
    if len(radiant) != TEAM_SIZE or len(dire) != TEAM_SIZE or set(radiant) & set(dire):
        raise DraftError(f"a lineup is two disjoint teams of {TEAM_SIZE}: got {radiant} and {dire}")
    if min(radiant + dire) < 0 or max(radiant + dire) >= n:
        raise DraftError(f"lineup {radiant} / {dire} has a hero outside the pool 0..{n - 1}")
    rest = [h for h in range(n) if h not in radiant]
    relative = [rest.index(h) for h in dire]
    return subset_rank(radiant) * comb(n - TEAM_SIZE, TEAM_SIZE) + subset_rank(relative)


def lineup_unrank(rank: int, n: int) -> tuple[list[int], list[int]]:
    """The lineup (Radiant, Dire), each ascending, of a rank."""
    if not 0 <= rank < lineup_count(n):
        raise DraftError(f"lineup rank {rank} is outside [0, {lineup_count(n)}) for {n} heroes")
    r_rank, d_rank = divmod(rank, comb(n - TEAM_SIZE, TEAM_SIZE))
    radiant = subset_unrank(r_rank, TEAM_SIZE)
    rest = [h for h in range(n) if h not in radiant]
    return radiant, [rest[i] for i in subset_unrank(d_rank, TEAM_SIZE)]


@dataclass(frozen=True)
class LineupIndex:
    """Vectorised unranking for a pool of ``n`` heroes: ``unrank(start, stop)`` gives the (stop - start, 5)
    arrays of Radiant and Dire heroes of the lineups of ranks ``start..stop-1``, from two small tables made
    by ``subset_unrank``: every 5-subset of n (colex order) and every 5-subset of the n - 5 heroes left."""

    n: int
    radiant_sets: np.ndarray  # (C(n,5), 5) int64: the Radiant team of each rank(R)
    rest_of: np.ndarray  # (C(n,5), n-5) int64: the heroes not in that team, ascending
    relative_sets: np.ndarray  # (C(n-5,5), 5) int64: the relative Dire positions of each rank(D rel)

    @classmethod
    def of(cls, n: int) -> "LineupIndex":
        if n < 2 * TEAM_SIZE:
            raise DraftError(f"a pool needs at least {2 * TEAM_SIZE} heroes for two teams of {TEAM_SIZE}; got {n}")
        radiant_sets = np.array([subset_unrank(i, TEAM_SIZE) for i in range(comb(n, TEAM_SIZE))], dtype=np.int64)
        rest_of = np.array([[h for h in range(n) if h not in row] for row in radiant_sets.tolist()], dtype=np.int64)
        relative = np.array([subset_unrank(i, TEAM_SIZE) for i in range(comb(n - TEAM_SIZE, TEAM_SIZE))],
                            dtype=np.int64)
        return cls(n, radiant_sets, rest_of, relative)

    @property
    def count(self) -> int:
        return len(self.radiant_sets) * len(self.relative_sets)

    def unrank(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        ranks = np.arange(start, stop, dtype=np.int64)
        r_rank, d_rank = np.divmod(ranks, len(self.relative_sets))
        radiant = self.radiant_sets[r_rank]
        dire = np.take_along_axis(self.rest_of[r_rank], self.relative_sets[d_rank], axis=1)
        return radiant, dire


# ---- hero pools ----

@dataclass(frozen=True)
class HeroPool:
    """The names of a pool's heroes; a hero's id is its position. Names are matched case-insensitively."""

    names: tuple[str, ...]

    def __post_init__(self):
        if len(self.names) < 2 * TEAM_SIZE:
            raise DraftError(f"a pool needs at least {2 * TEAM_SIZE} heroes for two teams of {TEAM_SIZE}; "
                             f"got {len(self.names)}")
        lowered = [n.strip().lower() for n in self.names]
        if any(not n for n in lowered):
            raise DraftError("a hero name in the pool is empty")
        if any(n.isdigit() for n in lowered):
            raise DraftError("hero names cannot be plain numbers (a typed number means the hero's position)")
        if len(set(lowered)) != len(lowered):
            raise DraftError(f"the pool names a hero twice: {list(self.names)}")

    @classmethod
    def parse(cls, text: str) -> "HeroPool":
        """A pool from ``--pool``: a number N (stub heroes hero01..heroN) or comma-separated names."""
        text = text.strip()
        if text.isdigit():
            n = int(text)
            return cls(tuple(f"hero{i + 1:02d}" for i in range(n)))
        return cls(tuple(name.strip() for name in text.split(",") if name.strip()))

    @property
    def n(self) -> int:
        return len(self.names)

    def index(self, typed: str) -> int:
        """The id of a hero typed by name or by 1-based number; DraftError if it is neither."""
        typed = typed.strip()
        if typed.isdigit() and 1 <= int(typed) <= self.n:
            return int(typed) - 1
        for i, name in enumerate(self.names):
            if name.lower() == typed.lower():
                return i
        raise DraftError(f"unknown hero {typed!r}: type a name from the pool or its number 1-{self.n}")

    def names_of(self, heroes: Sequence[int]) -> list[str]:
        return [self.names[h] for h in heroes]
