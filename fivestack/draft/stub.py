"""A stub win-probability function for tests and benchmarks, until a policy can score lineups.

``StubWinProbability(n, seed)`` is deterministic but irregular, so that a search bug shows: Radiant's win
probability is ``sigmoid(x)`` with

    x = sum of Radiant hero strengths - sum of Dire strengths
        + sum of Radiant pair synergies - sum of Dire pair synergies
        + sum over (Radiant hero, Dire hero) of the counter term (how well the first does against the second)
        + a per-lineup term drawn from a hash of the two teams' bitmasks (splitmix64, seeded)

It scores batches (``__call__(radiant, dire)``, arrays of shape (B, 5) of hero ids, vectorised numpy) and
single lineups (``one(radiant, dire)``). The per-lineup term is a function of the sets, not of any rank, so
the tests that use it check the lineup indexing independently. ``name`` records the seed in a table's
progress file, so that resuming with another stub is refused.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def _splitmix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser over uint64 arrays (wrapping arithmetic)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


class StubWinProbability:
    """A cheap, deterministic, irregular Radiant win probability over lineups of a pool of ``n`` heroes."""

    def __init__(self, n: int, seed: int = 0, noise: float = 0.6):
        rng = np.random.default_rng(seed)
        self.n, self.seed = n, seed
        self.strength = rng.normal(0.0, 0.35, n)
        synergy = np.triu(rng.normal(0.0, 0.12, (n, n)), 1)
        self.synergy = synergy + synergy.T
        self.counter = rng.normal(0.0, 0.08, (n, n))
        np.fill_diagonal(self.counter, 0.0)
        self.noise = noise
        self.salt = np.uint64(rng.integers(0, 2**63))
        self.name = f"stub(n={n},seed={seed})"

    def __call__(self, radiant: np.ndarray, dire: np.ndarray) -> np.ndarray:
        radiant, dire = np.asarray(radiant, dtype=np.int64), np.asarray(dire, dtype=np.int64)
        x = self.strength[radiant].sum(1) - self.strength[dire].sum(1)
        for i, j in combinations(range(radiant.shape[1]), 2):
            x += self.synergy[radiant[:, i], radiant[:, j]] - self.synergy[dire[:, i], dire[:, j]]
        for i in range(radiant.shape[1]):
            x += self.counter[radiant[:, i, None], dire].sum(1) - self.counter[dire[:, i, None], radiant].sum(1)
        one = np.uint64(1)
        r_mask = np.bitwise_or.reduce(one << radiant.astype(np.uint64), axis=1)
        d_mask = np.bitwise_or.reduce(one << dire.astype(np.uint64), axis=1)
        with np.errstate(over="ignore"):
            h = _splitmix64((r_mask << np.uint64(32)) ^ d_mask ^ self.salt)
        uniform = (h >> np.uint64(11)).astype(np.float64) / float(2**53)
        x += self.noise * (2.0 * uniform - 1.0)
        return 1.0 / (1.0 + np.exp(-x))

    def one(self, radiant, dire) -> float:
        """The win probability of one lineup (two iterables of 5 hero ids)."""
        return float(self(np.array([sorted(radiant)]), np.array([sorted(dire)]))[0])


def stub_patch(n: int, version: str | None = None):
    """A patch of ``n`` heroes for tests and benchmarks of the policy scorer while the game's pool is smaller:
    the patch's own heroes, then renamed copies of them (with renamed copies of their abilities) up to ``n``;
    the first ``n`` of its heroes if it has that many already."""
    import dataclasses

    from fivestack.game.patch import PATCH_VERSION, Patch

    base = Patch(version or PATCH_VERSION)
    heroes = list(base.heroes[:n])
    copy = 0
    while len(heroes) < n:
        hero = base.heroes[copy % base.n_heroes]
        tag = f" {copy // base.n_heroes + 2}"
        heroes.append(dataclasses.replace(hero, name=hero.name + tag, abilities=tuple(
            dataclasses.replace(a, name=a.name + tag) for a in hero.abilities)))
        copy += 1
    return Patch(base.version, tuple(heroes), base.items, base.rules)
