"""The replay file format: what a viewer needs to redraw a game, in an open, compact, non-executable format.

A replay (format version 2) is a **NumPy ``.npz`` archive** (a zip of ``.npy`` arrays, deflate-compressed):
flat numeric arrays plus three UTF-8 JSON documents stored as ``uint8`` arrays. It is read with
``numpy.load(path, allow_pickle=False)``: nothing in it can run code when loaded (no pickle, no object
arrays). Version 1 (gzip JSON Lines, ``*.jsonl.gz``) is refused with a message saying how to re-record.
One timestep is one agent step (4 frames, 2/15 s); a game of *s* seconds has ceil(30 s / 4) timesteps.

JSON documents (``json.loads(bytes(archive[name]))``):

``header``
    format ("fivestack-replay"), version (FORMAT_VERSION; a reader refuses others), created_by, patch,
    config (the GameConfig), seed, game_index, players ({"radiant": name, "dire": name} or null), time
    (frames_per_second, frames_per_step, step_seconds), unit_fields (the unit columns below), kinds, teams,
    heroes (the ten slots: index, team, name, role, active, abilities), lineup, map (size, walk_grid {cells,
    cell_size, rows: strings of "0"/"1", rows[i][j] = cell (x index i, y index j), 1 walkable}, lanes,
    buildings [{unit, team, kind, tier, barracks, lane, x, y}], camps, big_neutral, rune_spots, river),
    start {frame}, item_names, primary_actions, rune_names, hero_stats (columns of ``hero_stats``),
    policy {"radiant": bool, "dire": bool}: whether that team's outputs were recorded.
``summary``
    outcome ("win", "truncated", "unfinished"), winner, frames, duration_seconds, duration_minutes,
    timesteps (T, checked by the reader), teams (per team: kills, deaths, assists, last_hits, denies, gold,
    towers_destroyed, barracks_destroyed), heroes (per active hero: index, team, name, level, kills, deaths,
    assists, last_hits, denies, net_worth, damage_dealt).
``events``
    every event of the game in order, each an object with "type", "step" and "frame":
    kill {victim, killer (credited enemy hero or -1)}, building_destroyed {unit, team (the side that lost
    it), kind, tier, lane}, last_hit {hero, count}, deny {hero, count}, courier_death {team}, aegis {team,
    hero}, rune {spot, rune, hero}: a rune was taken, purchase {hero, gold, items (names bought)},
    game_over {outcome, winner}.

Per-timestep arrays (T timesteps):

    step_frame  int32 (T,)      game frame after the step
    step_night  uint8 (T,)      1 at night
    step_kills  int16 (T, 2)    hero kills so far per team
    step_runes  int8 (T, 2)     rune at each rune spot: 0 none, 1 bounty, 2 double damage, 3 haste, 4 regen
    step_start  int64 (T + 1,)  timestep t's unit rows are rows step_start[t]:step_start[t + 1]
    hero_stats  int16 (T, 10, 7)   per hero slot: level, kills, deaths, assists, last_hits, denies, respawn
                                   (whole seconds until respawn, 0 alive)
    hero_gold   int32 (T, 10)   unspent gold
    hero_net_worth int32 (T, 10)  gold plus the cost of every item carried
    hero_items  int16 (T, 10, 9)   item id per inventory (6) + backpack (3) slot, -1 empty (``item_names``)

Unit rows (N rows in all, one per *alive* unit per timestep, in unit-index order), one array per column
``unit_<field>``:

    unit    int16   index in the game: 0-9 heroes, 10-47 buildings, 48-49 couriers, 50-68 neutrals, 69+ creeps
    kind    int8    index into ``kinds``;  team  int8: index into ``teams`` (radiant, dire, neutral)
    x, y    int16   world position (rounded; the map is 16000 across, Radiant's base bottom-left)
    hp      int32   health, rounded up (an alive unit never shows 0);  hp_max  int32
    mana    uint16  mana as a fraction of max mana, in thousandths (0 without mana)
    target  int16   unit being attacked, -1 none;  level  int8: hero level, 0 for other units
    vis     uint8   fog of war: bit 0 set when Radiant sees the unit, bit 1 when Dire does
    vision  int16   the unit's current vision radius (day or night value)

Policy outputs, present when a team was played by a policy (an agent with ``last_result``, e.g.
``fivestack.match.agents.PolicyTeamAgent``): per timestep and hero slot, what it computed for the action
taken in that step (NaN / -1 for heroes without a policy):

    policy_value     float32 (T, 10)     the value head (reward units)
    policy_win_prob  float32 (T, 10)     the win-probability head
    policy_action    int16 (T, 10, 5)    [primary, delay, target slot, offset x, offset y]
    policy_target    int16 (T, 10)       the target slot as a unit index, -1 none

This module is the format's one definition: the names, dtypes and shapes the recorder writes
(``fivestack.viewer.replay.recorder``) and the reader checks (``fivestack.viewer.replay.reader``).
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from fivestack.game import geometry
from fivestack.game.layout import FRAMES_PER_SECOND, FRAMES_PER_STEP, N_HEROES, N_ITEM_SLOTS
from fivestack.game.layout import RUNE_NAMES  # noqa: F401 (the format's rune_names)

FORMAT_NAME = "fivestack-replay"
FORMAT_VERSION = 2
UNIT_FIELDS = ("unit", "kind", "team", "x", "y", "hp", "hp_max", "mana", "target", "level", "vis", "vision")
UNIT_DTYPES = {"unit": np.int16, "kind": np.int8, "team": np.int8, "x": np.int16, "y": np.int16, "hp": np.int32,
               "hp_max": np.int32, "mana": np.uint16, "target": np.int16, "level": np.int8, "vis": np.uint8,
               "vision": np.int16}
HERO_STATS = ("level", "kills", "deaths", "assists", "last_hits", "denies", "respawn")
KIND_NAMES = ("hero", "creep_melee", "creep_ranged", "creep_siege", "tower", "barracks", "ancient", "fountain",
              "neutral", "big_neutral", "courier")
TEAM_NAMES = ("radiant", "dire", "neutral")
LANE_NAMES = geometry.LANE_NAMES
OUTCOMES = ("win", "truncated", "unfinished")
TEAM_STATS = ("kills", "deaths", "assists", "last_hits", "denies", "gold", "towers_destroyed",
              "barracks_destroyed")
STEP_ARRAYS = {"step_frame": np.int32, "step_night": np.uint8, "step_kills": np.int16, "step_runes": np.int8}
HERO_ARRAYS = {"hero_stats": np.int16, "hero_gold": np.int32, "hero_net_worth": np.int32, "hero_items": np.int16}
POLICY_ARRAYS = {"policy_value": np.float32, "policy_win_prob": np.float32, "policy_action": np.int16,
                 "policy_target": np.int16}
JSON_ENTRIES = ("header", "summary", "events")

# per timestep: the shape of each step, hero and policy array after its leading (T,) axis
ARRAY_SHAPES = {"step_frame": (), "step_night": (), "step_kills": (2,), "step_runes": (2,),
                "hero_stats": (N_HEROES, len(HERO_STATS)), "hero_gold": (N_HEROES,), "hero_net_worth": (N_HEROES,),
                "hero_items": (N_HEROES, N_ITEM_SLOTS), "policy_value": (N_HEROES,), "policy_win_prob": (N_HEROES,),
                "policy_action": (N_HEROES, 5), "policy_target": (N_HEROES,)}
RECORD_HINT = "record a new one with `fivestack play ... --replay FILE.npz`"


def json_array(obj) -> np.ndarray:
    """A JSON document as the archive stores it: compact UTF-8 bytes in a ``uint8`` array (no NaN)."""
    return np.frombuffer(json.dumps(obj, separators=(",", ":"), allow_nan=False).encode("utf-8"), dtype=np.uint8)


def unit_dicts(columns: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """Unit rows given as one array per ``UNIT_FIELDS`` column, as dicts of plain Python numbers; ``mana``
    (stored in thousandths) becomes a fraction."""
    lists = {k: v.tolist() for k, v in columns.items()}
    n = len(lists["unit"])
    rows = [{k: lists[k][r] for k in UNIT_FIELDS} for r in range(n)]
    for row in rows:
        row["mana"] = row["mana"] / 1000.0
    return rows


def expected_timesteps(duration_seconds: float) -> int:
    """Agent timesteps in a game of this length (the last step may stop early when the game ends mid-step)."""
    return math.ceil(round(duration_seconds * FRAMES_PER_SECOND) / FRAMES_PER_STEP)
