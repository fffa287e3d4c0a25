"""The names of the arrays every kernel takes: ``State`` (what changes) and ``Data`` (what does not).

Both are ``NamedTuple``s of numpy arrays. Numba compiles a read such as ``S.uf`` to the same static
tuple index as ``S[0]`` did, so naming costs nothing at run time; the order of the fields below is still
the order in memory of the tuple, which the golden-trace test (``tests/game/test_golden_trace.py``) hashes.

Each state array has a leading *game* axis; the columns of its last axis are named in
``fivestack.game.layout`` (``uf[g, u, HP]``, ``hi[g, h, LEVEL]``, ``gi[g, G_FRAME]``, ...). The data
tables' columns are named in ``fivestack.game.patch`` (``hero_table[type, H_DAMAGE]``, ...), derived from
the patch's dataclass fields. ``engine.new_state`` and ``engine.make_data`` build them.

``Scratch`` is the kernels' working memory (they may not allocate arrays): not game state, so it is not
hashed, saved or compared, and its contents between calls mean nothing.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class State(NamedTuple):
    """Mutable state of N games (the kernels call it ``S``)."""

    uf: np.ndarray  # (games, MAX_UNITS, N_UF) float32: unit floats (layout.X, HP, MANA, ...)
    ui: np.ndarray  # (games, MAX_UNITS, N_UI) int32: unit ints (layout.ALIVE, TEAM, KIND, STUN, ...)
    hf: np.ndarray  # (games, N_HEROES, N_HF) float64: hero floats (layout.GOLD, XP, RESPAWN, ...)
    hi: np.ndarray  # (games, N_HEROES, N_HI) int32: hero ints (layout.LEVEL, KILLS, ABILITY_LEVEL, ...)
    items: np.ndarray  # (games, N_HEROES, N_ITEM_SLOTS, N_IT) int32: inventory (IT_ID, IT_CHARGES, ...)
    stash: np.ndarray  # (games, N_HEROES, STASH) int32: item ids bought away from base, -1 empty
    proj: np.ndarray  # (games, MAX_PROJECTILES, N_PJ) float32: projectiles in flight (PJ_X, PJ_TARGET, ...)
    gi: np.ndarray  # (games, N_GI) int64: per-game ints (G_FRAME, G_DONE, G_WINNER, G_RNG, ...)
    hp_hist: np.ndarray  # (games, MAX_UNITS, HP_HISTORY_LEN) float32: recent health fractions
    events: np.ndarray  # (games, N_HEROES, N_EVENTS) float32: this step's reward events (EV_*)
    vis: np.ndarray  # (games, 2, MAX_UNITS) uint8: which units each team sees
    grid_head: np.ndarray  # (games, GRID_SIDE**2) int32: spatial hash, first unit per cell
    grid_next: np.ndarray  # (games, MAX_UNITS) int32: spatial hash, next unit in the same cell
    build_order: np.ndarray  # (games, N_HEROES, build width) int64: this game's item build per hero
    assist_frames: np.ndarray  # (games, N_HEROES, N_HEROES) int64: last frame hero a hurt hero b
    prev_fractions: np.ndarray  # (games, MAX_UNITS, 2) float32: health and mana fractions a step ago


class Data(NamedTuple):
    """Read-only tables of the patch and the map (the kernels call it ``D``)."""

    hero_table: np.ndarray  # (heroes, H_*) float64
    ability_table: np.ndarray  # (abilities, AB_*) float64
    item_table: np.ndarray  # (items, I_*) float64
    creep_table: np.ndarray  # (creep and building kinds, C_*) float64, rows in patch.CREEP_KINDS order
    rules: np.ndarray  # (R_*,) float64: the patch's Rules as a vector
    skill_builds: np.ndarray  # (heroes, 25) int64: ability slot learnt at each level
    item_builds: np.ndarray  # (heroes, build width) int64: item ids, -1 padded
    lanes: np.ndarray  # (3, waypoints, 2) float64: lane waypoints, Radiant to Dire
    walk: np.ndarray  # (GRID, GRID) uint8: walkable cells
    building_pos: np.ndarray  # (2, buildings, 2): building positions per team
    building_kind: np.ndarray  # (buildings,) unit kind of each building
    building_subtype: np.ndarray  # (buildings,) tier or barracks type
    building_lane: np.ndarray  # (buildings,) lane, -1 for base buildings
    building_row: np.ndarray  # (buildings,) row of the creep table
    building_protectors: np.ndarray  # (buildings, k) buildings that must fall first, -1 padded
    building_needed: np.ndarray  # (buildings,) how many of the protectors must fall
    camps: np.ndarray  # (N_CAMPS, 2) neutral camp positions
    big_neutral: np.ndarray  # (2,) the big neutral's position
    rune_spots: np.ndarray  # (2, 2) rune positions
    fountain: np.ndarray  # (2, 2) fountain positions per team
    ancient: np.ndarray  # (2, 2) ancient positions per team
    xp_table: np.ndarray  # (26,) total experience needed to pass each level
    move_offsets: np.ndarray  # (N_OFFSET,) float64: world units from the hero of each offset cell of a move (MOVE_GOALS)
    duel_kills: np.ndarray  # (1,) int64: the hero kills that end a 1v1 game (GameConfig.duel_kills; 0: never)
    net_worth_wins: np.ndarray  # (1,) int64: 1: a game at its time limit is won by the team ahead in net worth
    features: np.ndarray  # (games,) int64: each game's feature mask (patch.FEATURES bits), set when it starts


class Scratch(NamedTuple):
    """Working memory of the simulator kernels (the kernels call it ``W``); one per ``GameBatch``."""

    vision_sources: np.ndarray  # (2, MAX_UNITS, 3) float32: per team, x, y and vision radius of its units
