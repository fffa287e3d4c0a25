"""Reward events: the raw quantities the game reports per hero per step, and the paper's weights.

The env reports *events* (``fivestack.game.layout.EVENT_NAMES``); ``fivestack.rl`` turns them into the
training reward (time decay, zero-sum, team spirit). ``PAPER_WEIGHTS`` is the paper's reward table mapped
onto the event columns; ``weighted_reward`` is the plain weighted sum, before any of that shaping.
"""

from __future__ import annotations

import numpy as np

from fivestack.game.layout import EVENT_NAMES, N_EVENTS

# Buildings pay 2/3 of their weight as health drops and 1/3 on destruction (OpenAI Five, appendix).
_TOWER = {"t1": 2.25, "t2": 3.0, "t3": 4.5, "t4": 2.25}
_BARRACKS = 6.0
_ANCIENT = 5.0

PAPER_WEIGHTS: dict[str, float] = {
    "win": 5.0,
    "hero_death": -1.0,
    "courier_death": -2.0,
    "xp": 0.002,
    "gold": 0.006,
    "gold_spent": 0.0006,
    "health": 2.0,
    "mana": 0.75,
    "killed_hero": -0.6,
    "last_hit": -0.16,
    "deny": 0.15,
    "aegis": 5.0,
    # own buildings: health change is <= 0 and a loss is a count, so these are penalties; zero-sum
    # post-processing turns them into the enemy's gain
    "ancient_hp": _ANCIENT * 2.0 / 3.0,
    "megas": -4.0,
    "tower_t1_hp": _TOWER["t1"] * 2.0 / 3.0,
    "tower_t2_hp": _TOWER["t2"] * 2.0 / 3.0,
    "tower_t3_hp": _TOWER["t3"] * 2.0 / 3.0,
    "tower_t4_hp": _TOWER["t4"] * 2.0 / 3.0,
    "barracks_hp": _BARRACKS * 2.0 / 3.0,
    "tower_t1_lost": -_TOWER["t1"] / 3.0,
    "tower_t2_lost": -_TOWER["t2"] / 3.0,
    "tower_t3_lost": -_TOWER["t3"] / 3.0,
    "tower_t4_lost": -_TOWER["t4"] / 3.0,
    "barracks_lost": -_BARRACKS / 3.0,
    "ancient_lost": -_ANCIENT / 3.0,
    "lane_outside_seconds": -0.15,
}
assert set(PAPER_WEIGHTS) == set(EVENT_NAMES), "every event needs a weight"
WEIGHT_VECTOR = np.array([PAPER_WEIGHTS[name] for name in EVENT_NAMES], dtype=np.float32)
assert WEIGHT_VECTOR.shape == (N_EVENTS,)


def weighted_reward(events: np.ndarray) -> np.ndarray:
    """Events (..., N_EVENTS) -> reward (...): the paper's weights, no decay, zero-sum or team spirit."""
    return events @ WEIGHT_VECTOR
