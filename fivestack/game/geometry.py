"""The map: lanes, buildings, neutral camps, rune spots and the walkability grid.

Radiant's base is the bottom-left corner, Dire's the top-right; the map is point-symmetric about its
centre, so every Dire position is ``MAP_SIZE - p`` of a Radiant one. Lane index is physical (0 top,
1 middle, 2 bottom) for both teams. The river runs along the anti-diagonal x + y = MAP_SIZE.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fivestack.game.layout import (
    CELL, GRID, K_ANCIENT, K_BARRACKS, K_FOUNTAIN, K_TOWER, MAP_SIZE, N_BUILDINGS_PER_TEAM,
)
from fivestack.game.patch import CK

# Top lane from Radiant to Dire; the bottom lane is its mirror image across the anti-diagonal.
_TOP = [(2000, 3400), (1400, 6000), (1400, 11000), (1800, 14200), (5000, 14600), (10000, 14600), (12600, 14000)]
_MID = [(3000, 3000), (5500, 5500), (8000, 8000), (10500, 10500), (13000, 13000)]


def _swap(points):
    return [(y, x) for x, y in points]


def mirror(p):
    return (MAP_SIZE - p[0], MAP_SIZE - p[1])


LANES = np.array([_TOP, _MID + [_MID[-1]] * 2, _swap(_TOP)], dtype=np.float64)  # (3 lanes, 7 waypoints, xy)
LANE_NAMES = ("top", "mid", "bottom")

FOUNTAIN = np.array([(700.0, 700.0), mirror((700.0, 700.0))])
ANCIENT = np.array([(2000.0, 2000.0), mirror((2000.0, 2000.0))])

# Radiant towers per lane, tiers 1-3 (Dire's tower in lane l is the mirror of Radiant's in lane 2 - l).
_RADIANT_TOWERS = {
    0: [(1400, 9500), (1400, 6500), (1900, 4300)],
    1: [(6200, 6200), (5000, 5000), (3900, 3900)],
    2: [(9500, 1400), (6500, 1400), (4300, 1900)],
}
_RADIANT_BARRACKS = {0: [(1500, 3600), (2300, 3600)], 1: [(3000, 3500), (3500, 3000)], 2: [(3600, 1500), (3600, 2300)]}
_RADIANT_T4 = [(2500, 2800), (2800, 2500)]


@dataclass(frozen=True)
class BuildingSpec:
    kind: int
    subtype: int  # tower tier / barracks 0 melee 1 ranged
    lane: int
    creep_row: int  # row of the creep table with its stats
    protectors: tuple[int, ...]  # local indices whose fall lifts tier protection
    needed: int  # how many protectors must fall


def _building_specs() -> list[BuildingSpec]:
    """Local order per team: T1 x3, T2 x3, T3 x3, T4 x2, barracks x6, ancient, fountain."""
    specs: list[BuildingSpec] = []
    for tier in (1, 2, 3):
        for lane in range(3):
            prot = () if tier == 1 else ((tier - 2) * 3 + lane,)
            specs.append(BuildingSpec(K_TOWER, tier, lane, CK[f"tier{tier}"], prot, len(prot)))
    t3 = (6, 7, 8)
    specs += [BuildingSpec(K_TOWER, 4, 1, CK["tier4"], t3, 1) for _ in range(2)]
    for lane in range(3):
        specs.append(BuildingSpec(K_BARRACKS, 0, lane, CK["barracks_melee"], (6 + lane,), 1))
        specs.append(BuildingSpec(K_BARRACKS, 1, lane, CK["barracks_ranged"], (6 + lane,), 1))
    specs.append(BuildingSpec(K_ANCIENT, 0, 1, CK["ancient"], (9, 10), 2))
    specs.append(BuildingSpec(K_FOUNTAIN, 0, -1, CK["fountain"], (), 0))
    assert len(specs) == N_BUILDINGS_PER_TEAM
    return specs


BUILDINGS = _building_specs()


def _radiant_building_positions() -> list[tuple[float, float]]:
    pos = []
    for tier in range(3):
        for lane in range(3):
            pos.append(_RADIANT_TOWERS[lane][tier])
    pos += _RADIANT_T4
    for lane in range(3):
        pos += _RADIANT_BARRACKS[lane]
    pos.append(tuple(ANCIENT[0]))
    pos.append(tuple(FOUNTAIN[0]))
    return pos


def _dire_building_positions() -> list[tuple[float, float]]:
    """Mirror Radiant's, swapping lanes 0 and 2 so that local index i means the same lane for both."""
    rad = _radiant_building_positions()
    out: list = [None] * len(BUILDINGS)
    for i, spec in enumerate(BUILDINGS):
        if spec.lane in (0, 2) and spec.kind in (K_TOWER, K_BARRACKS):
            # the Radiant building of the same tier/subtype in the opposite lane
            j = next(k for k, s in enumerate(BUILDINGS)
                     if s.kind == spec.kind and s.subtype == spec.subtype and s.lane == 2 - spec.lane)
            out[i] = mirror(rad[j])
        else:
            out[i] = mirror(rad[i])
    return out


BUILDING_POS = np.array([_radiant_building_positions(), _dire_building_positions()], dtype=np.float64)
BUILDING_KIND = np.array([s.kind for s in BUILDINGS], dtype=np.int64)
BUILDING_SUBTYPE = np.array([s.subtype for s in BUILDINGS], dtype=np.int64)
BUILDING_LANE = np.array([s.lane for s in BUILDINGS], dtype=np.int64)
BUILDING_ROW = np.array([s.creep_row for s in BUILDINGS], dtype=np.int64)
BUILDING_PROTECTORS = np.full((N_BUILDINGS_PER_TEAM, 3), -1, dtype=np.int64)
BUILDING_NEEDED = np.array([s.needed for s in BUILDINGS], dtype=np.int64)
for _i, _s in enumerate(BUILDINGS):
    BUILDING_PROTECTORS[_i, : len(_s.protectors)] = _s.protectors

_CAMPS_RADIANT = [(4800, 7300), (7600, 4400), (10000, 3300)]
CAMPS = np.array(_CAMPS_RADIANT + [mirror(c) for c in _CAMPS_RADIANT], dtype=np.float64)
BIG_NEUTRAL = np.array((9900.0, 6400.0))
RUNE_SPOTS = np.array([(5600.0, 10400.0), (10400.0, 5600.0)])


def _distance_to_lanes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    best = np.full(x.shape, np.inf)
    for lane in LANES:
        for (ax, ay), (bx, by) in zip(lane[:-1], lane[1:]):
            dx, dy = bx - ax, by - ay
            length2 = dx * dx + dy * dy
            if length2 == 0:
                continue
            t = np.clip(((x - ax) * dx + (y - ay) * dy) / length2, 0, 1)
            best = np.minimum(best, np.hypot(x - (ax + t * dx), y - (ay + t * dy)))
    return best


def build_walk_grid(seed: int = 7) -> np.ndarray:
    """1 = walkable. Tree clumps fill the jungle, clear of lanes, bases, camps, runes and the river."""
    centres = (np.arange(GRID) + 0.5) * CELL
    x, y = np.meshgrid(centres, centres, indexing="ij")
    walk = np.ones((GRID, GRID), dtype=np.uint8)
    rng = np.random.default_rng(seed)
    keep_clear = _distance_to_lanes(x, y) < 650
    keep_clear |= np.abs(x + y - MAP_SIZE) < 700  # river
    for base in FOUNTAIN:
        keep_clear |= np.hypot(x - base[0], y - base[1]) < 4200
    for p in list(CAMPS) + [BIG_NEUTRAL] + list(RUNE_SPOTS):
        keep_clear |= np.hypot(x - p[0], y - p[1]) < 700
    for _ in range(70):
        cx, cy = rng.uniform(0, MAP_SIZE, size=2)
        r = rng.uniform(250, 600)
        for px, py in ((cx, cy), (MAP_SIZE - cx, MAP_SIZE - cy)):  # keep the map symmetric
            walk[(np.hypot(x - px, y - py) < r) & ~keep_clear] = 0
    walk[0, :] = walk[-1, :] = walk[:, 0] = walk[:, -1] = 0  # the map's edge
    return walk


RIVER_HALF_WIDTH = 700.0
