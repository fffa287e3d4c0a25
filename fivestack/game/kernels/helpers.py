"""Small helpers every other kernel module may call: the per-game random streams (``xorshift01``,
``splitmix64``, ``rand01``), distances, clamping, day and night, the health-reward shape, and the team of a hero,
the unit slot of a building and walkability of a map point.
"""

from __future__ import annotations

import numpy as np

from fivestack.game.jit import kernel
from fivestack.game.layout import (
    CELL, FRAMES_PER_SECOND, GRID, G_FRAME, G_RNG, HEROES_PER_TEAM, N_BUILDINGS_PER_TEAM, SLOT_BUILDINGS, X, Y,
)
from fivestack.game.patch import R_DAY_NIGHT


@kernel
def xorshift01(state, g, column):
    """xorshift64 kept in ``state[g, column]``: a float in [0, 1). Each game owns its generators."""
    x = np.uint64(state[g, column])
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    state[g, column] = np.int64(x)
    return float(x >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def splitmix64(z):
    """Scramble a 64-bit value into a non-zero xorshift state (stored as int64)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    if z == np.uint64(0):
        z = np.uint64(1)
    return np.int64(z)


@kernel
def rand01(gi, g):
    """The game's own random stream (rules: rune kinds, build randomisation)."""
    return xorshift01(gi, g, G_RNG)


@kernel
def dist2(uf, g, a, b):
    dx = uf[g, a, X] - uf[g, b, X]
    dy = uf[g, a, Y] - uf[g, b, Y]
    return dx * dx + dy * dy


@kernel
def clampf(v, lo, hi):
    return lo if v < lo else (hi if v > hi else v)


@kernel
def is_night(gi, rules, g):
    seconds = gi[g, G_FRAME] / FRAMES_PER_SECOND
    cycle = rules[R_DAY_NIGHT]
    return (seconds % cycle) >= cycle * 0.5


@kernel
def health_shape(x):
    """The paper's h(x) for the health reward: more weight on the last bits of health."""
    return (x + 1.0 - (1.0 - x) ** 4) * 0.5


@kernel
def team_of_hero(h):
    return 0 if h < HEROES_PER_TEAM else 1


@kernel
def building_slot(team, local):
    return SLOT_BUILDINGS + team * N_BUILDINGS_PER_TEAM + local


@kernel
def walkable(walk, x, y):
    cx = int(x / CELL)
    cy = int(y / CELL)
    if cx < 0 or cy < 0 or cx >= GRID or cy >= GRID:
        return False
    return walk[cx, cy] != 0
