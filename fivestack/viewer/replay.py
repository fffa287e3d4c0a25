"""Replay files: what a viewer needs to redraw a game, in an open, compact, non-executable format.

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
``fivestack.system.evaluator.PolicyTeamAgent``): per timestep and hero slot, what it computed for the action
taken in that step (NaN / -1 for heroes without a policy):

    policy_value     float32 (T, 10)     the value head (reward units)
    policy_win_prob  float32 (T, 10)     the win-probability head
    policy_action    int16 (T, 10, 5)    [primary, delay, target slot, offset x, offset y]
    policy_target    int16 (T, 10)       the target slot as a unit index, -1 none

Record with ``ReplayRecorder(env, game_index, agents=(radiant, dire))``: call ``record()`` after every
``env.step`` (it reads the step's reward events, which the next step clears) and ``save(path)`` at the end.
Read with ``load_replay(path)``, which validates the file and raises ``ValueError`` naming the problem and
the fix.
"""

from __future__ import annotations

import io
import json
import math
import os
import zipfile
import zlib
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from fivestack.game import geometry
from fivestack.game.layout import (
    ALIVE, ASSISTS, CELL, DAMAGE_DEALT, DEATHS, DENIES, EV_AEGIS, EV_COURIER_DEATH, EV_DENY, EV_GOLD_SPENT,
    EV_HERO_DEATH, EV_KILLED_HERO, EV_LAST_HIT, FRAMES_PER_SECOND, FRAMES_PER_STEP, G_BARRACKS_LOST0, G_DONE,
    G_FRAME, G_KILLS0, G_RUNE0, G_TOWERS_LOST0, G_WINNER, GOLD, GRID, HEROES_PER_TEAM, HP, HP_MAX, ACTIVE, AEGIS,
    IT_ID, KILLS, KIND, LANE, LAST_HITS, LEVEL, MANA, MANA_MAX, MAP_SIZE, N_HEROES, N_ITEM_SLOTS, N_UNIT_SLOTS,
    PRIMARY_NAMES, RESPAWN, SLOT_BUILDINGS, SLOT_COURIERS, STEP_SECONDS, SUBTYPE, TARGET, TEAM, VISION_DAY,
    VISION_NIGHT, X, Y,
)
from fivestack.game.patch import I_COST

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
RUNE_NAMES = ("none", "bounty", "double_damage", "haste", "regeneration")
LANE_NAMES = geometry.LANE_NAMES
OUTCOMES = ("win", "truncated", "unfinished")
TEAM_STATS = ("kills", "deaths", "assists", "last_hits", "denies", "gold", "towers_destroyed",
              "barracks_destroyed")
STEP_ARRAYS = {"step_frame": np.int32, "step_night": np.uint8, "step_kills": np.int16, "step_runes": np.int8}
HERO_ARRAYS = {"hero_stats": np.int16, "hero_gold": np.int32, "hero_net_worth": np.int32, "hero_items": np.int16}
POLICY_ARRAYS = {"policy_value": np.float32, "policy_win_prob": np.float32, "policy_action": np.int16,
                 "policy_target": np.int16}
JSON_ENTRIES = ("header", "summary", "events")


def _version() -> str:
    try:
        return metadata.version("fivestack")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "unknown"


# ====================================================================== reading the game state
def unit_columns(game, g: int) -> dict[str, np.ndarray]:
    """Every alive unit of game ``g``, one array per ``UNIT_FIELDS`` column (the replay's dtypes)."""
    uf, ui, hi, vis = game.state.uf, game.state.ui, game.state.hi, game.state.vis
    alive = np.flatnonzero(ui[g, :, ALIVE])
    f = uf[g, alive].astype(np.float64)
    i = ui[g, alive]
    mana_max = f[:, MANA_MAX]
    mana = np.where(mana_max > 0, f[:, MANA] / np.where(mana_max > 0, mana_max, 1.0), 0.0)
    level = np.zeros(alive.shape, np.int64)
    heroes = alive < N_HEROES
    level[heroes] = hi[g, alive[heroes], LEVEL]
    night = bool(game.state.gi[g, G_FRAME] / FRAMES_PER_SECOND % game.patch.rules.day_night_cycle
                 >= game.patch.rules.day_night_cycle * 0.5)
    seen = (vis[g, 0, alive] != 0).astype(np.int64) | ((vis[g, 1, alive] != 0).astype(np.int64) << 1)
    columns = {
        "unit": alive, "kind": i[:, KIND], "team": i[:, TEAM],
        "x": np.rint(f[:, X]), "y": np.rint(f[:, Y]),
        "hp": np.ceil(np.maximum(f[:, HP], 0.0)), "hp_max": np.rint(f[:, HP_MAX]),
        "mana": np.rint(np.clip(mana, 0.0, 1.0) * 1000.0), "target": i[:, TARGET], "level": level, "vis": seen,
        "vision": np.rint(f[:, VISION_NIGHT] if night else f[:, VISION_DAY]),
    }
    return {k: v.astype(UNIT_DTYPES[k]) for k, v in columns.items()}


def unit_rows(game, g: int) -> list[dict[str, Any]]:
    """Every alive unit of game ``g`` as a dict of ``UNIT_FIELDS`` (plain Python numbers, mana a fraction)."""
    return _rows(unit_columns(game, g))


def _rows(columns: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    lists = {k: v.tolist() for k, v in columns.items()}
    n = len(lists["unit"])
    rows = [{k: lists[k][r] for k in UNIT_FIELDS} for r in range(n)]
    for row in rows:
        row["mana"] = row["mana"] / 1000.0
    return rows


def _net_worth(game, g: int, h: int) -> float:
    """Gold plus the cost of every item carried (as the engine's ``net_worth``)."""
    items = game.state.items[g, h, :, IT_ID]
    costs = game.patch.item_table[items[items >= 0], I_COST]
    return float(game.state.hf[g, h, GOLD] + costs.sum())


def hero_names(game, g: int) -> list[str]:
    return [game.patch.heroes[int(t)].name for t in game.hero_types[g]]


def game_summary(game, g: int) -> dict[str, Any]:
    """The result of game ``g`` of a ``GameBatch`` (finished or not) as plain data: the replay's summary."""
    ui, hf, hi, gi = game.state.ui, game.state.hf, game.state.hi, game.state.gi
    done = int(gi[g, G_DONE])
    winner = int(gi[g, G_WINNER])
    frames = int(gi[g, G_FRAME])
    names = hero_names(game, g)
    teams: dict[str, dict] = {}
    for team in (0, 1):
        enemy = 1 - team
        heroes = [h for h in range(team * HEROES_PER_TEAM, (team + 1) * HEROES_PER_TEAM) if hi[g, h, ACTIVE]]
        teams[TEAM_NAMES[team]] = {
            "kills": int(gi[g, G_KILLS0 + team]),
            "deaths": int(sum(hi[g, h, DEATHS] for h in heroes)),
            "assists": int(sum(hi[g, h, ASSISTS] for h in heroes)),
            "last_hits": int(sum(hi[g, h, LAST_HITS] for h in heroes)),
            "denies": int(sum(hi[g, h, DENIES] for h in heroes)),
            "gold": int(round(sum(_net_worth(game, g, h) for h in heroes))),
            "towers_destroyed": int(gi[g, G_TOWERS_LOST0 + enemy]),
            "barracks_destroyed": int(gi[g, G_BARRACKS_LOST0 + enemy]),
        }
    heroes = []
    for h in range(N_HEROES):
        if not hi[g, h, ACTIVE]:
            continue
        heroes.append({
            "index": h, "team": TEAM_NAMES[int(ui[g, h, TEAM])], "name": names[h], "level": int(hi[g, h, LEVEL]),
            "kills": int(hi[g, h, KILLS]), "deaths": int(hi[g, h, DEATHS]), "assists": int(hi[g, h, ASSISTS]),
            "last_hits": int(hi[g, h, LAST_HITS]), "denies": int(hi[g, h, DENIES]),
            "net_worth": int(round(_net_worth(game, g, h))), "damage_dealt": round(float(hf[g, h, DAMAGE_DEALT]), 1),
        })
    return {
        "type": "summary",
        "outcome": {1: "win", 2: "truncated"}.get(done, "unfinished"),
        "winner": TEAM_NAMES[winner] if done == 1 and winner in (0, 1) else None,
        "frames": frames,
        "duration_seconds": frames / FRAMES_PER_SECOND,
        "duration_minutes": frames / FRAMES_PER_SECOND / 60.0,
        "teams": teams,
        "heroes": heroes,
    }


def map_description() -> dict[str, Any]:
    """The map geometry a viewer draws: lanes, buildings, camps, runes, river and the walkability grid."""
    walk = geometry.build_walk_grid()
    buildings = []
    for team in (0, 1):
        for local, spec in enumerate(geometry.BUILDINGS):
            x, y = geometry.BUILDING_POS[team, local]
            buildings.append({
                "unit": SLOT_BUILDINGS + team * len(geometry.BUILDINGS) + local, "team": TEAM_NAMES[team],
                "kind": KIND_NAMES[spec.kind], "tier": spec.subtype if KIND_NAMES[spec.kind] == "tower" else None,
                "barracks": ("melee", "ranged")[spec.subtype] if KIND_NAMES[spec.kind] == "barracks" else None,
                "lane": LANE_NAMES[spec.lane] if spec.lane >= 0 else None, "x": float(x), "y": float(y),
            })
    return {
        "size": MAP_SIZE,
        "walk_grid": {"cells": GRID, "cell_size": CELL,
                      "rows": ["".join("1" if c else "0" for c in row) for row in walk.tolist()]},
        "lanes": {name: geometry.LANES[k].tolist() for k, name in enumerate(LANE_NAMES)},
        "buildings": buildings,
        "camps": geometry.CAMPS.tolist(),
        "big_neutral": geometry.BIG_NEUTRAL.tolist(),
        "rune_spots": geometry.RUNE_SPOTS.tolist(),
        "river": {"line": f"x + y = {MAP_SIZE:g}", "half_width": geometry.RIVER_HALF_WIDTH},
    }


# ====================================================================== recording
def _json_array(obj) -> np.ndarray:
    return np.frombuffer(json.dumps(obj, separators=(",", ":"), allow_nan=False).encode("utf-8"), dtype=np.uint8)


class ReplayRecorder:
    """Records one game of a ``BatchedEnv`` (or anything with ``.game``, a ``GameBatch``).

    ``record()`` after every env step appends one timestep; it is a no-op for a step that did not advance
    this game (the game had already finished). ``save(path)`` may be called more than once (for example
    mid-game). ``agents``: the (Radiant, Dire) team agents; those with a ``last_result`` (an
    ``InferenceResult``, set by each ``act``) have their policy outputs recorded: value, win probability,
    action and target, per active hero.
    """

    def __init__(self, env, game_index: int = 0, *, seed: int | None = None, players: dict | None = None,
                 agents: Sequence[Any] | None = None):
        self.env = env
        self.game = env.game if hasattr(env, "game") else env
        n = self.game.n_games
        if not 0 <= game_index < n:
            raise ValueError(f"game_index must lie in [0, {n}); got {game_index}")
        self.g = game_index
        self.agents = tuple(agents) if agents is not None else ()
        if len(self.agents) not in (0, 2):
            raise ValueError(f"agents must be (radiant, dire); got {len(self.agents)} agents")
        ui, hi, gi = self.game.state.ui, self.game.state.hi, self.game.state.gi
        names = hero_names(self.game, self.g)
        heroes = []
        for h in range(N_HEROES):
            hero = self.game.patch.heroes[int(self.game.hero_types[self.g, h])]
            heroes.append({"index": h, "team": TEAM_NAMES[h // HEROES_PER_TEAM], "name": hero.name, "role": hero.role,
                           "active": bool(hi[self.g, h, ACTIVE]), "abilities": [a.name for a in hero.abilities]})
        config = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self.game.config).items()}
        self.header = {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "created_by": f"fivestack {_version()}",
            "patch": self.game.patch.version,
            "config": config,
            "seed": None if seed is None else int(seed),
            "game_index": self.g,
            "players": players,
            "time": {"frames_per_second": FRAMES_PER_SECOND, "frames_per_step": FRAMES_PER_STEP,
                     "step_seconds": STEP_SECONDS},
            "unit_fields": list(UNIT_FIELDS),
            "kinds": list(KIND_NAMES),
            "teams": list(TEAM_NAMES),
            "heroes": heroes,
            "lineup": {TEAM_NAMES[t]: [names[h] for h in range(t * 5, t * 5 + 5) if hi[self.g, h, ACTIVE]]
                       for t in (0, 1)},
            "map": map_description(),
            "start": {"frame": int(gi[self.g, G_FRAME])},
            "item_names": [it.name for it in self.game.patch.items],
            "primary_actions": list(PRIMARY_NAMES),
            "rune_names": list(RUNE_NAMES),
            "hero_stats": list(HERO_STATS),
            "policy": {"radiant": False, "dire": False},
        }
        self.n_steps = 0
        self._last_frame = int(gi[self.g, G_FRAME])
        self._buildings_alive = ui[self.g, SLOT_BUILDINGS:SLOT_COURIERS, ALIVE].copy()
        self._aegis = self.game.state.hf[self.g, :, AEGIS].copy()
        self._runes = gi[self.g, G_RUNE0:G_RUNE0 + 2].copy()
        self._owned = self._items_owned()
        self._unit_of_slot = self._slots()
        self._seen_results: list[Any] = [None, None]
        self._steps: dict[str, list] = {k: [] for k in (*STEP_ARRAYS, *HERO_ARRAYS, *POLICY_ARRAYS, "counts")}
        self._units: dict[str, list] = {k: [] for k in UNIT_FIELDS}
        self._events: list[dict] = []

    def _slots(self) -> np.ndarray | None:
        """The unit behind each observed slot, per team, as the agents see it before the next step."""
        slots = getattr(self.env, "unit_of_slot", None)
        return None if slots is None else slots[self.g].copy()

    def _items_owned(self) -> np.ndarray:
        """(heroes, item kinds): copies of each item a hero owns, carried or waiting in the stash."""
        ids = np.concatenate([self.game.state.items[self.g, :, :, IT_ID], self.game.state.stash[self.g]], axis=1)
        n = len(self.game.patch.items)
        flat = (np.arange(N_HEROES)[:, None] * (n + 1) + np.where(ids >= 0, ids, n)).ravel()
        return np.bincount(flat, minlength=N_HEROES * (n + 1)).reshape(N_HEROES, n + 1)[:, :n]

    # ------------------------------------------------------------------ per step
    def record(self) -> bool:
        """Append the timestep just played. Returns False when the game did not advance (nothing recorded)."""
        gi = self.game.state.gi
        g = self.g
        frame = int(gi[g, G_FRAME])
        if frame == self._last_frame:
            return False
        if frame < self._last_frame:
            raise RuntimeError(f"game {g} went back from frame {self._last_frame} to {frame}: it was reset. "
                               "Save this replay and start a new ReplayRecorder for the new game.")
        step = self.n_steps
        for e in self._step_events():
            self._events.append({"type": e.pop("type"), "step": step, "frame": frame, **e})
        cycle = self.game.patch.rules.day_night_cycle
        s = self._steps
        s["step_frame"].append(frame)
        s["step_night"].append((frame / FRAMES_PER_SECOND) % cycle >= cycle * 0.5)
        s["step_kills"].append(gi[g, G_KILLS0:G_KILLS0 + 2].copy())
        s["step_runes"].append(gi[g, G_RUNE0:G_RUNE0 + 2].copy())
        columns = unit_columns(self.game, g)
        for k, v in columns.items():
            self._units[k].append(v)
        s["counts"].append(len(columns["unit"]))
        self._record_heroes()
        self._record_policy()
        self._unit_of_slot = self._slots()
        self.n_steps += 1
        self._last_frame = frame
        return True

    def _record_heroes(self) -> None:
        hf, hi = self.game.state.hf, self.game.state.hi
        g = self.g
        stats = np.stack([hi[g, :, LEVEL], hi[g, :, KILLS], hi[g, :, DEATHS], hi[g, :, ASSISTS],
                          hi[g, :, LAST_HITS], hi[g, :, DENIES], np.ceil(np.maximum(hf[g, :, RESPAWN], 0.0))], axis=1)
        items = self.game.state.items[g, :, :, IT_ID]
        costs = np.where(items >= 0, self.game.patch.item_table[np.maximum(items, 0), I_COST], 0.0).sum(axis=1)
        s = self._steps
        s["hero_stats"].append(stats)
        s["hero_gold"].append(np.rint(hf[g, :, GOLD]))
        s["hero_net_worth"].append(np.rint(hf[g, :, GOLD] + costs))
        s["hero_items"].append(items[:, :N_ITEM_SLOTS].copy())

    def _record_policy(self) -> None:
        value = np.full(N_HEROES, np.nan, np.float32)
        win_prob = np.full(N_HEROES, np.nan, np.float32)
        action = np.full((N_HEROES, 5), -1, np.int16)
        target = np.full(N_HEROES, -1, np.int16)
        for team, agent in enumerate(self.agents):
            result = getattr(agent, "last_result", None)
            if result is None or result is self._seen_results[team]:
                continue  # a bot, or a policy that did not act for this step
            self._seen_results[team] = result
            self.header["policy"][TEAM_NAMES[team]] = True
            heroes = np.asarray(agent.heroes, dtype=np.int64)
            value[heroes] = np.asarray(result.value)[self.g]
            win_prob[heroes] = np.asarray(result.win_prob)[self.g]
            acts = np.asarray(result.actions)[self.g]
            action[heroes] = acts
            if self._unit_of_slot is not None:
                slot = acts[:, 2]
                ok = (slot >= 0) & (slot < N_UNIT_SLOTS)
                target[heroes] = np.where(ok, self._unit_of_slot[team, np.clip(slot, 0, N_UNIT_SLOTS - 1)], -1)
        s = self._steps
        s["policy_value"].append(value)
        s["policy_win_prob"].append(win_prob)
        s["policy_action"].append(action)
        s["policy_target"].append(target)

    def _step_events(self) -> list[dict]:
        """This step's events, from the env's reward events (cleared every step) and state diffs."""
        g = self.g
        ev = self.game.state.events[g]
        uf, ui, hf, gi = self.game.state.uf, self.game.state.ui, self.game.state.hf, self.game.state.gi
        out: list[dict] = []
        killers = {h: int(round(ev[h, EV_KILLED_HERO])) for h in range(N_HEROES) if ev[h, EV_KILLED_HERO] > 0}
        for victim in range(N_HEROES):
            for _ in range(int(round(ev[victim, EV_HERO_DEATH]))):
                enemy = [h for h, n in killers.items() if n > 0 and h // HEROES_PER_TEAM != victim // HEROES_PER_TEAM]
                killer = enemy[0] if enemy else -1
                if killer >= 0:
                    killers[killer] -= 1
                out.append({"type": "kill", "victim": victim, "killer": killer})
        alive = ui[g, SLOT_BUILDINGS:SLOT_COURIERS, ALIVE]
        for k in np.flatnonzero((self._buildings_alive != 0) & (alive == 0)):
            u = SLOT_BUILDINGS + int(k)
            kind = KIND_NAMES[int(ui[g, u, KIND])]
            lane = int(ui[g, u, LANE])
            out.append({"type": "building_destroyed", "unit": u, "team": TEAM_NAMES[int(ui[g, u, TEAM])],
                        "kind": kind, "tier": int(ui[g, u, SUBTYPE]) if kind == "tower" else None,
                        "lane": LANE_NAMES[lane] if lane >= 0 else None})
        self._buildings_alive = alive.copy()
        for h in range(N_HEROES):
            if ev[h, EV_LAST_HIT] > 0:
                out.append({"type": "last_hit", "hero": h, "count": int(round(ev[h, EV_LAST_HIT]))})
            if ev[h, EV_DENY] > 0:
                out.append({"type": "deny", "hero": h, "count": int(round(ev[h, EV_DENY]))})
        aegis = hf[g, :, AEGIS]
        for team in (0, 1):
            heroes = range(team * HEROES_PER_TEAM, (team + 1) * HEROES_PER_TEAM)
            if ev[heroes[0], EV_COURIER_DEATH] > 0:
                out.append({"type": "courier_death", "team": TEAM_NAMES[team]})
            if ev[heroes[0], EV_AEGIS] > 0:
                taker = [h for h in heroes if aegis[h] > self._aegis[h]]
                out.append({"type": "aegis", "team": TEAM_NAMES[team], "hero": taker[0] if taker else -1})
        self._aegis = aegis.copy()
        runes = gi[g, G_RUNE0:G_RUNE0 + 2]
        for spot in np.flatnonzero((self._runes != 0) & (runes == 0)):
            sx, sy = geometry.RUNE_SPOTS[spot]
            alive_heroes = [h for h in range(N_HEROES) if ui[g, h, ALIVE]]
            taker = min(alive_heroes, key=lambda h: (uf[g, h, X] - sx) ** 2 + (uf[g, h, Y] - sy) ** 2, default=-1)
            out.append({"type": "rune", "spot": int(spot), "rune": RUNE_NAMES[int(self._runes[spot])],
                        "hero": int(taker)})
        self._runes = runes.copy()
        items = self.game.patch.items
        owned = self._items_owned()
        gained = np.maximum(owned - self._owned, 0)
        self._owned = owned
        for h in np.flatnonzero(ev[:, EV_GOLD_SPENT] > 0):
            gold = int(round(ev[h, EV_GOLD_SPENT]))
            bought = [items[i].name for i in np.flatnonzero(gained[h]) for _ in range(gained[h, i])]
            if not bought:  # used up and bought again within one step: name it by its price when that is unique
                same = [it.name for it in items if round(it.cost) == gold]
                bought = same if len(same) == 1 else []
            out.append({"type": "purchase", "hero": int(h), "gold": gold, "items": bought})
        if int(gi[g, G_DONE]) != 0:
            s = game_summary(self.game, g)
            out.append({"type": "game_over", "outcome": s["outcome"], "winner": s["winner"]})
        return out

    # ------------------------------------------------------------------ output
    def summary(self) -> dict[str, Any]:
        s = game_summary(self.game, self.g)
        s["timesteps"] = self.n_steps
        return s

    def arrays(self) -> dict[str, np.ndarray]:
        """Everything ``save`` writes, as named arrays (the JSON documents as UTF-8 ``uint8`` arrays)."""
        t = self.n_steps
        s = self._steps
        shapes = {"step_kills": (2,), "step_runes": (2,), "hero_stats": (N_HEROES, len(HERO_STATS)),
                  "hero_gold": (N_HEROES,), "hero_net_worth": (N_HEROES,), "hero_items": (N_HEROES, N_ITEM_SLOTS),
                  "policy_value": (N_HEROES,), "policy_win_prob": (N_HEROES,), "policy_action": (N_HEROES, 5),
                  "policy_target": (N_HEROES,)}
        out: dict[str, np.ndarray] = {}
        for name, dtype in {**STEP_ARRAYS, **HERO_ARRAYS}.items():
            out[name] = np.asarray(s[name], dtype=dtype).reshape(t, *shapes.get(name, ()))
        if any(self.header["policy"].values()):
            for name, dtype in POLICY_ARRAYS.items():
                out[name] = np.asarray(s[name], dtype=dtype).reshape(t, *shapes[name])
        out["step_start"] = np.concatenate([[0], np.cumsum(np.asarray(s["counts"], np.int64))]).astype(np.int64)
        for k in UNIT_FIELDS:
            parts = self._units[k]
            out[f"unit_{k}"] = np.concatenate(parts) if parts else np.zeros(0, UNIT_DTYPES[k])
        out["header"] = _json_array(self.header)
        out["summary"] = _json_array(self.summary())
        out["events"] = _json_array(self._events)
        return out

    def save(self, path) -> Path:
        """Write the replay (atomically: a crash never leaves half a file under ``path``). Returns the path."""
        path = Path(path)
        tmp = path.with_name(path.name + ".partial")
        with open(tmp, "wb") as f:  # a file object: numpy would append ".npz" to a name
            np.savez_compressed(f, **self.arrays())
        os.replace(tmp, path)
        return path


# ====================================================================== reading
class _Steps:
    """``replay.steps[t]``: timestep ``t`` as a dict (step, frame, night, kills, runes, units, events)."""

    def __init__(self, replay: "Replay"):
        self._replay = replay

    def __len__(self) -> int:
        return self._replay.n_steps

    def __getitem__(self, t: int) -> dict[str, Any]:
        n = len(self)
        if not -n <= t < n:
            raise IndexError(f"timestep {t} is outside this replay's {n} timesteps")
        return self._replay.step(t % n)

    def __iter__(self):
        return (self._replay.step(t) for t in range(len(self)))


@dataclass
class Replay:
    header: dict[str, Any]
    summary: dict[str, Any]
    events: list[dict[str, Any]]
    arrays: dict[str, np.ndarray]

    @property
    def n_steps(self) -> int:
        return int(self.arrays["step_frame"].shape[0])

    @property
    def steps(self) -> _Steps:
        return _Steps(self)

    @property
    def has_policy(self) -> bool:
        return "policy_value" in self.arrays

    def unit_columns(self, t: int) -> dict[str, np.ndarray]:
        """Timestep ``t``'s unit rows as one array per column (views into the replay)."""
        start = self.arrays["step_start"]
        a, b = int(start[t]), int(start[t + 1])
        return {k: self.arrays[f"unit_{k}"][a:b] for k in UNIT_FIELDS}

    def units(self, t: int) -> list[dict[str, Any]]:
        """The alive units of timestep ``t`` as dicts keyed by ``UNIT_FIELDS`` (mana as a fraction)."""
        if not 0 <= t < self.n_steps:
            raise IndexError(f"timestep {t} is outside this replay's 0..{self.n_steps - 1}")
        return _rows(self.unit_columns(t))

    def heroes(self, t: int) -> list[dict[str, Any]]:
        """Per hero slot at timestep ``t``: stats, gold, net worth and item names."""
        a = self.arrays
        names = self.header["item_names"]
        out = []
        for h in range(N_HEROES):
            row = dict(zip(HERO_STATS, a["hero_stats"][t, h].tolist()))
            row.update(index=h, gold=int(a["hero_gold"][t, h]), net_worth=int(a["hero_net_worth"][t, h]),
                       items=[names[i] if i >= 0 else None for i in a["hero_items"][t, h].tolist()])
            out.append(row)
        return out

    def policy(self, t: int) -> list[dict[str, Any]] | None:
        """Per hero slot at timestep ``t``: the policy's value, win probability, action and target (None for a
        hero without a policy); None when no team was played by a policy."""
        if not self.has_policy:
            return None
        a = self.arrays
        out = []
        for h in range(N_HEROES):
            v = float(a["policy_value"][t, h])
            if math.isnan(v):
                out.append(None)
                continue
            act = a["policy_action"][t, h].tolist()
            out.append({"value": v, "win_prob": float(a["policy_win_prob"][t, h]), "action": act,
                        "primary": PRIMARY_NAMES[act[0]] if 0 <= act[0] < len(PRIMARY_NAMES) else None,
                        "target": int(a["policy_target"][t, h])})
        return out

    def step(self, t: int) -> dict[str, Any]:
        a = self.arrays
        return {"step": t, "frame": int(a["step_frame"][t]), "night": bool(a["step_night"][t]),
                "kills": a["step_kills"][t].tolist(), "runes": a["step_runes"][t].tolist(), "units": self.units(t),
                "events": [{k: v for k, v in e.items() if k not in ("step", "frame")}
                           for e in self.events if e["step"] == t]}


_RECORD_HINT = "record a new one with `fivestack play ... --replay FILE.npz`"
_SHAPES = {"step_frame": (), "step_night": (), "step_kills": (2,), "step_runes": (2,),
           "hero_stats": (N_HEROES, len(HERO_STATS)), "hero_gold": (N_HEROES,), "hero_net_worth": (N_HEROES,),
           "hero_items": (N_HEROES, N_ITEM_SLOTS), "policy_value": (N_HEROES,), "policy_win_prob": (N_HEROES,),
           "policy_action": (N_HEROES, 5), "policy_target": (N_HEROES,)}


def _corrupted(path: Path, what: str) -> ValueError:
    return ValueError(f"replay {str(path)!r} is corrupted: {what}; {_RECORD_HINT}")


def load_replay(path) -> Replay:
    """Read and validate a replay file. Raises ``ValueError`` saying what is wrong and what to do."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"replay file {str(path)!r} does not exist; check the path, or {_RECORD_HINT}")
    if not path.is_file():
        raise ValueError(f"replay path {str(path)!r} is not a file; give the path of a .npz replay file")
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except PermissionError as e:
        raise ValueError(f"replay {str(path)!r} cannot be read ({e}); check the file's permissions") from None
    if magic[:2] == b"\x1f\x8b":
        raise ValueError(f"replay {str(path)!r} has format version 1 (gzip JSON lines, written by an older "
                         f"fivestack), but this fivestack reads version {FORMAT_VERSION} (.npz); open it with the "
                         f"fivestack version that wrote it, or {_RECORD_HINT}")
    if magic != b"PK\x03\x04":
        if not magic:
            raise ValueError(f"replay {str(path)!r} is empty; {_RECORD_HINT}")
        raise ValueError(f"{str(path)!r} is not a fivestack replay (not an .npz archive); give a file written by "
                         f"`fivestack play --replay` or ReplayRecorder.save, or {_RECORD_HINT}")
    arrays: dict[str, np.ndarray] = {}
    try:
        with np.load(path, allow_pickle=False) as archive:
            names = set(archive.files)
            if "header" not in names:
                raise ValueError(f"{str(path)!r} is not a fivestack replay: the archive has no header; give a file "
                                 f"written by ReplayRecorder.save, or {_RECORD_HINT}")
            header = _json(path, archive["header"], "header")
            if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
                raise ValueError(f"{str(path)!r} is not a fivestack replay: its header is not a {FORMAT_NAME!r} "
                                 f"header; give a file written by ReplayRecorder.save, or {_RECORD_HINT}")
            version = header.get("version")
            if version != FORMAT_VERSION:
                raise ValueError(f"replay {str(path)!r} has format version {version!r} (written by "
                                 f"{header.get('created_by', 'an unknown fivestack')}), but this fivestack reads "
                                 f"version {FORMAT_VERSION}; open it with the fivestack version that wrote it, or "
                                 f"{_RECORD_HINT}")
            for name in archive.files:
                arrays[name] = archive[name]
    except ValueError as e:
        if "replay" in str(e) and ("fivestack" in str(e) or "format version" in str(e)):
            raise
        raise _corrupted(path, f"an array cannot be read ({e})") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, KeyError) as e:
        raise ValueError(f"replay {str(path)!r} is truncated or corrupted ({e or type(e).__name__}); the file was "
                         f"not written completely or was damaged since: {_RECORD_HINT}") from None
    missing = [k for k in ("config", "unit_fields", "heroes", "map", "time", "item_names") if k not in header]
    if missing:
        raise _corrupted(path, f"the header lacks {missing}")
    if header["unit_fields"] != list(UNIT_FIELDS):
        raise _corrupted(path, f"the header's unit_fields {header['unit_fields']} are not {list(UNIT_FIELDS)}")
    need = ["summary", "events", "step_start", *STEP_ARRAYS, *HERO_ARRAYS, *(f"unit_{k}" for k in UNIT_FIELDS)]
    if header.get("policy", {}).get("radiant") or header.get("policy", {}).get("dire"):
        need += list(POLICY_ARRAYS)
    absent = [k for k in need if k not in arrays]
    if absent:
        raise _corrupted(path, f"it lacks the arrays {absent}")
    summary = _json(path, arrays.pop("summary"), "summary")
    events = _json(path, arrays.pop("events"), "events")
    arrays.pop("header")
    if not isinstance(summary, dict) or not isinstance(events, list):
        raise _corrupted(path, "the summary is not an object or the events are not a list")
    t = int(arrays["step_frame"].shape[0]) if arrays["step_frame"].ndim == 1 else -1
    for name, shape in _SHAPES.items():
        if name in arrays and arrays[name].shape != (t, *shape):
            raise _corrupted(path, f"{name} has shape {arrays[name].shape}, expected {(t, *shape)}")
    start = arrays["step_start"]
    n = int(arrays["unit_unit"].shape[0])
    if start.shape != (t + 1,) or start[0] != 0 or start[-1] != n or np.any(np.diff(start) < 0):
        raise _corrupted(path, f"step_start does not index the {n} unit rows of {t} timesteps")
    for k in UNIT_FIELDS:
        a = arrays[f"unit_{k}"]
        if a.shape != (n,) or a.dtype != np.dtype(UNIT_DTYPES[k]):
            raise _corrupted(path, f"unit_{k} has shape {a.shape} and dtype {a.dtype}, expected ({n},) "
                                   f"{np.dtype(UNIT_DTYPES[k])}")
    if summary.get("timesteps") != t:
        raise _corrupted(path, f"the summary counts {summary.get('timesteps')!r} timesteps but the file holds {t}")
    if summary.get("outcome") not in OUTCOMES:
        raise _corrupted(path, f"unknown outcome {summary.get('outcome')!r}")
    return Replay(header=header, summary=summary, events=events, arrays=arrays)


def _json(path: Path, array: np.ndarray, name: str):
    if array.dtype != np.uint8 or array.ndim != 1:
        raise _corrupted(path, f"the {name} is not UTF-8 JSON bytes")
    try:
        return json.loads(array.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise _corrupted(path, f"the {name} is not valid JSON ({e})") from None


def expected_timesteps(duration_seconds: float) -> int:
    """Agent timesteps in a game of this length (the last step may stop early when the game ends mid-step)."""
    return math.ceil(round(duration_seconds * FRAMES_PER_SECOND) / FRAMES_PER_STEP)


__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "UNIT_FIELDS", "KIND_NAMES", "TEAM_NAMES", "HERO_STATS", "RUNE_NAMES",
           "Replay", "ReplayRecorder", "expected_timesteps", "game_summary", "load_replay", "map_description",
           "unit_columns", "unit_rows"]
