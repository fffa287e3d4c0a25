"""Observation encoding and action masks, compiled: the observation buffers and the order they are written in.

``encode(S, D, O, which)`` rewrites the observation arrays for the games in ``which``; ``O`` is the
``ObsBuffers`` of ``buffers`` (the arrays of ``allocate`` plus the env's slot tables and scratch memory).
Column meanings are in ``fivestack.env.spaces``. One kernel writes each group; the modules beside this one
hold them, by concern:

    obs_slots   ``select_slots``: which unit sits in each row of a team's view (read by every later group)
    obs_team    the team groups, shared by a team's heroes: global, units, heroes (+ ids), modifiers, items (+ ids),
                abilities (+ ids), allied heroes, pickups, minimap
    obs_masks   ``team_target_validity`` (once per team) and each hero's primary, offset and target masks
    obs_hero    the per-hero groups: own_hero_id, unit_rel, nearby_map
    obs_turn    Dire's view turned half a turn, where the game plays with ``team_frame`` (patch 0.9)

Per game, for each team: ``encode_team`` (slots first, then its groups), then ``team_target_validity``; then,
for each hero, ``encode_hero``; the turned view last (``turn_view``: a no-op without ``team_frame``). Slots come
before everything that reads them, and the target validity before the hero masks that copy it; no other group
reads another's output.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from fivestack.env.obs_hero import encode_nearby_map, encode_own_hero_id, encode_unit_rel
from fivestack.env.obs_masks import encode_action_masks, team_target_validity
from fivestack.env.obs_slots import select_slots
from fivestack.env.obs_turn import turn_view
from fivestack.env.obs_team import (
    encode_abilities, encode_allied_heroes, encode_global, encode_heroes, encode_items, encode_minimap,
    encode_modifiers, encode_pickups, encode_units,
)
from fivestack.env.spaces import (
    ACTION_NVEC, HERO_GROUPS, HERO_INT_GROUPS, HERO_MASK_GROUPS, MINIMAP, TEAM_GROUPS, TEAM_INT_GROUPS, group_shapes,
)
from fivestack.game.jit import kernel
from fivestack.game.layout import GRID, MAX_UNITS, N_HEROES, N_PRIMARY

def allocate(n_games: int, patch: str | None = None) -> dict[str, np.ndarray]:
    """Observation arrays for ``n_games``, reused step after step; a ``patch`` version with observation features
    has their columns (``spaces.group_shapes``)."""
    team_groups, hero_groups = group_shapes(patch) if patch else (TEAM_GROUPS, HERO_GROUPS)
    obs: dict[str, np.ndarray] = {}
    for name, shape in team_groups.items():
        obs[name] = np.zeros((n_games, 2, *shape), np.float32)
    for name, shape in TEAM_INT_GROUPS.items():
        obs[name] = np.full((n_games, 2, *shape), -1, np.int32)
    for name, shape in hero_groups.items():
        obs[name] = np.zeros((n_games, N_HEROES, *shape), np.float32)
    for name, shape in HERO_INT_GROUPS.items():
        obs[name] = np.full((n_games, N_HEROES, *shape), -1, np.int32)
    for name, shape in HERO_MASK_GROUPS.items():
        obs[name] = np.zeros((n_games, N_HEROES, *shape), np.uint8)
    return obs


def minimap_walkability(walk: np.ndarray) -> np.ndarray:
    """Fraction of walkable cells in each minimap cell (static, so computed once)."""
    per = GRID // MINIMAP
    cells = walk[: per * MINIMAP, : per * MINIMAP].reshape(MINIMAP, per, MINIMAP, per)
    return cells.mean(axis=(1, 3)).astype(np.float32)


class ObsBuffers(NamedTuple):
    """What the encoding kernels write (the observation groups, named as in ``fivestack.env.spaces``) and the
    env's slot tables and scratch memory they use (the kernels call it ``O``)."""

    glob: np.ndarray  # "global"
    units: np.ndarray
    heroes: np.ndarray
    allied_heroes: np.ndarray
    modifiers: np.ndarray
    items: np.ndarray
    abilities: np.ndarray
    pickups: np.ndarray
    minimap: np.ndarray
    item_ids: np.ndarray
    ability_ids: np.ndarray
    hero_ids: np.ndarray
    unit_rel: np.ndarray
    nearby_map: np.ndarray
    previous_action: np.ndarray
    own_hero_id: np.ndarray
    primary_mask: np.ndarray
    target_mask: np.ndarray
    unit_of_slot: np.ndarray  # (games, 2, N_UNIT_SLOTS) int64: the unit in each slot of a team's view, -1
    slot_of_unit: np.ndarray  # (games, 2, MAX_UNITS) int64: the inverse, -1 for units not in view
    minimap_walk: np.ndarray  # (MINIMAP, MINIMAP) float32: static walkable share per minimap cell
    target_validity: np.ndarray  # (2, N_TARGET_KINDS, N_UNIT_SLOTS + 1) uint8 scratch: (team, target kind, slot)
    scratch_units: np.ndarray  # (MAX_UNITS,) int64 scratch for the creep-slot selection
    scratch_dist: np.ndarray  # (MAX_UNITS,) float64 scratch for the creep-slot selection
    offset_mask: np.ndarray


def buffers(obs: dict[str, np.ndarray], unit_of_slot: np.ndarray, slot_of_unit: np.ndarray, walk: np.ndarray,
            target_validity: np.ndarray) -> ObsBuffers:
    """The observation arrays and the env's tables, named for the kernels."""
    groups = {("glob" if name == "global" else name): arr for name, arr in obs.items()}
    return ObsBuffers(**groups, unit_of_slot=unit_of_slot, slot_of_unit=slot_of_unit,
                      minimap_walk=minimap_walkability(walk), target_validity=target_validity,
                      scratch_units=np.zeros(MAX_UNITS, np.int64), scratch_dist=np.zeros(MAX_UNITS, np.float64))


assert ACTION_NVEC[0] == N_PRIMARY


@kernel
def encode_team(S, D, O, g, team):
    """Every team group of ``team`` in game ``g``, after selecting the slots they read."""
    encode_global(S, D, O, g, team)
    select_slots(S, g, team, O.unit_of_slot, O.slot_of_unit, O.scratch_units, O.scratch_dist)
    encode_units(S, D, O, g, team)
    encode_heroes(S, D, O, g, team)
    encode_modifiers(S, D, O, g, team)
    encode_items(S, D, O, g, team)
    encode_abilities(S, D, O, g, team)
    encode_allied_heroes(S, D, O, g, team)
    encode_pickups(S, D, O, g, team)
    encode_minimap(S, D, O, g, team)


@kernel
def encode_hero(S, D, O, g, h):
    """Hero ``h``'s masks and per-hero groups (after its team's ``encode_team`` and ``team_target_validity``)."""
    encode_action_masks(S, D, O, g, h)
    encode_own_hero_id(S, D, O, g, h)
    encode_unit_rel(S, D, O, g, h)
    encode_nearby_map(S, D, O, g, h)


@kernel
def encode(S, D, O, which):
    """Rewrite every observation group for the games listed in ``which``."""
    for i in range(which.shape[0]):
        g = which[i]
        for team in range(2):
            encode_team(S, D, O, g, team)
            team_target_validity(S, D, O, g, team)
        for h in range(N_HEROES):
            encode_hero(S, D, O, g, h)
        turn_view(S, D, O, g)
