"""Recording a replay while a game plays: turning the game state into the replay format's arrays and events.

``ReplayRecorder(env, game_index, agents=(radiant, dire))`` records one game of a ``BatchedEnv`` (or of a bare
``GameBatch``): call ``record()`` after every ``env.step`` (it reads the step's reward events, which the next
step clears) and ``save(path)`` at the end (or at any time: the write is atomic). The file it writes is
described in ``fivestack.viewer.replay.format``.

The game-state readers it is built from are public, for callers that want the same view without a file:

    unit_columns(game, g)    every alive unit as one array per ``UNIT_FIELDS`` column (the replay's dtypes)
    unit_rows(game, g)       the same as dicts
    game_summary(game, g)    the result of a game as plain data: the replay's ``summary`` (also ``play``'s)
    map_description()        the static map geometry of the header's ``map``

Inside the recorder: ``__init__`` writes the header, ``record`` appends one timestep (its units, hero stats,
policy outputs and ``_step_events``, the events read from the env's reward events and from state diffs),
``arrays`` assembles what ``save`` writes.
"""

from __future__ import annotations

import os
from dataclasses import asdict
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
from fivestack.viewer.replay.format import (
    ARRAY_SHAPES, FORMAT_NAME, FORMAT_VERSION, HERO_ARRAYS, HERO_STATS, KIND_NAMES, LANE_NAMES, POLICY_ARRAYS,
    RUNE_NAMES, STEP_ARRAYS, TEAM_NAMES, UNIT_DTYPES, UNIT_FIELDS, json_array, unit_dicts,
)


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
    return unit_dicts(unit_columns(game, g))


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
        out: dict[str, np.ndarray] = {}
        for name, dtype in {**STEP_ARRAYS, **HERO_ARRAYS}.items():
            out[name] = np.asarray(s[name], dtype=dtype).reshape(t, *ARRAY_SHAPES[name])
        if any(self.header["policy"].values()):
            for name, dtype in POLICY_ARRAYS.items():
                out[name] = np.asarray(s[name], dtype=dtype).reshape(t, *ARRAY_SHAPES[name])
        out["step_start"] = np.concatenate([[0], np.cumsum(np.asarray(s["counts"], np.int64))]).astype(np.int64)
        for k in UNIT_FIELDS:
            parts = self._units[k]
            out[f"unit_{k}"] = np.concatenate(parts) if parts else np.zeros(0, UNIT_DTYPES[k])
        out["header"] = json_array(self.header)
        out["summary"] = json_array(self.summary())
        out["events"] = json_array(self._events)
        return out

    def save(self, path) -> Path:
        """Write the replay (atomically: a crash never leaves half a file under ``path``). Returns the path."""
        path = Path(path)
        tmp = path.with_name(path.name + ".partial")
        with open(tmp, "wb") as f:  # a file object: numpy would append ".npz" to a name
            np.savez_compressed(f, **self.arrays())
        os.replace(tmp, path)
        return path
