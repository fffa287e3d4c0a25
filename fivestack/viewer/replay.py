"""Replay files: what a viewer needs to redraw a game, in an open, non-executable format.

A replay is a **gzip-compressed JSON Lines** file (``*.jsonl.gz``): UTF-8 text, one JSON object per line,
readable with nothing but ``zcat`` and a JSON parser. Nothing in it can run code when loaded (no pickle).
The gzip stream may consist of several gzip members (RFC 1952 allows this; ``zcat`` and Python's ``gzip``
read them as one stream).

Lines, in order:

1. **header** (``"type": "header"``)::

       format        "fivestack-replay"
       version       FORMAT_VERSION (an int; a reader refuses other versions)
       created_by    "fivestack <package version>"
       patch         patch version of the game data (fivestack.game.patch.PATCH_VERSION)
       config        the GameConfig: mode, max_seconds, training, radiant, dire, patch
       seed          the game's seed (null when the recorder was not told)
       game_index    which game of the batched env was recorded
       players       {"radiant": agent name, "dire": agent name} (null when not told)
       time          frames_per_second (30), frames_per_step (4), step_seconds
       unit_fields   column names of a unit row (see below)
       kinds         unit kind names, indexed by a unit row's ``kind``
       teams         team names, indexed by a unit row's ``team`` ("radiant", "dire", "neutral")
       heroes        the ten hero slots: index, team, name, role, active (1v1 uses slots 0 and 5), abilities
       lineup        {"radiant": [active hero names], "dire": [...]}
       map           size (16000), walk_grid {cells (125 per side), cell_size (128), rows: 125 strings of
                     "0"/"1", rows[i][j] = cell (x index i, y index j), 1 walkable}, lanes {top, mid, bottom:
                     [[x, y], ...] Radiant to Dire}, buildings [{unit, team, kind, tier, lane, x, y}],
                     camps, big_neutral, rune_spots, river {"line": "x + y = 16000", half_width}
       start         {"frame", "units"}: the state when recording began (usually frame 0)

2. **one step line per agent timestep** (``"type": "step"``; 4 frames, 2/15 s), in order::

       step     0, 1, 2, ...
       frame    game frame after the step (30 per second)
       night    true at night (the second half of each 5-minute day/night cycle)
       kills    [Radiant hero kills, Dire hero kills] so far
       runes    [rune at spot 0, rune at spot 1]: 0 none, 1 bounty, 2 double damage, 3 haste, 4 regeneration
       units    one row per *alive* unit, columns ``unit_fields``:
                [unit, kind, team, x, y, hp, hp_max, mana, target, level]
                unit: index in the game (0-9 heroes, 10-47 buildings, 48-49 couriers, 50-68 neutrals,
                69+ lane creeps); x, y: world units (rounded); mana: fraction of max mana (0 without mana);
                target: unit index being attacked, -1 none; level: hero level, 0 for other units
       events   what happened during the step, a list of objects with a "type":
                kill                {victim, killer}: a hero died; killer is the credited enemy hero or -1
                building_destroyed  {unit, team, kind, tier, lane}: team = the side that lost it
                last_hit            {hero, count}
                deny                {hero, count}
                courier_death       {team}
                aegis               {team, hero}: the aegis was picked up
                game_over           {outcome, winner}

3. **summary** (``"type": "summary"``), the last line::

       outcome           "win" (an ancient fell, or a 1v1 was decided), "truncated" (time limit) or
                         "unfinished" (recording stopped before the game ended)
       winner            "radiant", "dire" or null
       frames, duration_seconds, duration_minutes
       timesteps         the number of step lines (a reader checks it)
       teams             per team: kills, deaths, assists, last_hits, denies, gold (net worth),
                         towers_destroyed, barracks_destroyed (enemy buildings this team destroyed)
       heroes            per active hero: index, team, name, level, kills, deaths, assists, last_hits,
                         denies, net_worth, damage_dealt

Record with ``ReplayRecorder(env, game_index)``: call ``record()`` after every ``env.step`` (it reads the
step's reward events, which the next step clears) and ``save(path)`` at the end. Read with
``load_replay(path)``, which validates the file and raises ``ValueError`` naming the problem and the fix.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import os
import zlib
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from fivestack.game import geometry
from fivestack.game.layout import (
    ALIVE, ASSISTS, CELL, DAMAGE_DEALT, DEATHS, DENIES, EV_AEGIS, EV_COURIER_DEATH, EV_DENY, EV_HERO_DEATH,
    EV_KILLED_HERO, EV_LAST_HIT, FRAMES_PER_SECOND, FRAMES_PER_STEP, G_BARRACKS_LOST0, G_DONE, G_FRAME, G_KILLS0,
    G_RUNE0, G_TOWERS_LOST0, G_WINNER, GOLD, GRID, HEROES_PER_TEAM, HP, HP_MAX, ACTIVE, AEGIS, IT_ID, KILLS, KIND,
    LANE, LAST_HITS, LEVEL, MANA, MANA_MAX, MAP_SIZE, N_HEROES, SLOT_BUILDINGS, SLOT_COURIERS, STEP_SECONDS,
    SUBTYPE, TARGET, TEAM, X, Y,
)
from fivestack.game.patch import I_COST

FORMAT_NAME = "fivestack-replay"
FORMAT_VERSION = 1
UNIT_FIELDS = ("unit", "kind", "team", "x", "y", "hp", "hp_max", "mana", "target", "level")
KIND_NAMES = ("hero", "creep_melee", "creep_ranged", "creep_siege", "tower", "barracks", "ancient", "fountain",
              "neutral", "big_neutral", "courier")
TEAM_NAMES = ("radiant", "dire", "neutral")
LANE_NAMES = geometry.LANE_NAMES
OUTCOMES = ("win", "truncated", "unfinished")
TEAM_STATS = ("kills", "deaths", "assists", "last_hits", "denies", "gold", "towers_destroyed",
              "barracks_destroyed")


def _version() -> str:
    try:
        return metadata.version("fivestack")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "unknown"


# ====================================================================== reading the game state
def unit_rows(game, g: int) -> list[list]:
    """Every alive unit of game ``g`` as a row of ``UNIT_FIELDS`` (plain Python numbers)."""
    uf, ui, _, hi = game.state[0], game.state[1], game.state[2], game.state[3]
    alive = np.flatnonzero(ui[g, :, ALIVE])
    f = uf[g, alive].astype(np.float64)
    i = ui[g, alive]
    mana_max = f[:, MANA_MAX]
    mana = np.where(mana_max > 0, f[:, MANA] / np.where(mana_max > 0, mana_max, 1.0), 0.0)
    level = np.zeros(alive.shape, np.int64)
    heroes = alive < N_HEROES
    level[heroes] = hi[g, alive[heroes], LEVEL]
    columns = (
        alive.tolist(), i[:, KIND].tolist(), i[:, TEAM].tolist(),
        np.rint(f[:, X]).astype(np.int64).tolist(), np.rint(f[:, Y]).astype(np.int64).tolist(),
        np.round(np.maximum(f[:, HP], 0.0), 1).tolist(), np.round(f[:, HP_MAX], 1).tolist(),
        np.round(mana, 3).tolist(), i[:, TARGET].tolist(), level.tolist(),
    )
    return [list(row) for row in zip(*columns)]


def _net_worth(game, g: int, h: int) -> float:
    """Gold plus the cost of every item carried (as the engine's ``net_worth``)."""
    items = game.state[4][g, h, :, IT_ID]
    costs = game.patch.item_table[items[items >= 0], I_COST]
    return float(game.state[2][g, h, GOLD] + costs.sum())


def hero_names(game, g: int) -> list[str]:
    return [game.patch.heroes[int(t)].name for t in game.hero_types[g]]


def game_summary(game, g: int) -> dict[str, Any]:
    """The result of game ``g`` of a ``GameBatch`` (finished or not) as plain data: the replay's summary."""
    ui, hf, hi, gi = game.state[1], game.state[2], game.state[3], game.state[7]
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
def _dumps(obj) -> bytes:
    return (json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n").encode("utf-8")


def _gzip_member(data: bytes) -> bytes:
    """One complete gzip member (mtime 0, no file name: the same game gives the same bytes)."""
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=6, mtime=0, filename="") as f:
        f.write(data)
    return buf.getvalue()


class ReplayRecorder:
    """Records one game of a ``BatchedEnv`` (or anything with ``.game``, a ``GameBatch``).

    ``record()`` after every env step appends one timestep; it is a no-op for a step that did not advance
    this game (the game had already finished). Steps are compressed as they come, so a long game stays
    small in memory. ``save(path)`` may be called more than once (for example mid-game).
    """

    def __init__(self, env, game_index: int = 0, *, seed: int | None = None, players: dict | None = None):
        self.game = env.game if hasattr(env, "game") else env
        n = self.game.n_games
        if not 0 <= game_index < n:
            raise ValueError(f"game_index must lie in [0, {n}); got {game_index}")
        self.g = game_index
        ui, hi, gi = self.game.state[1], self.game.state[3], self.game.state[7]
        names = hero_names(self.game, self.g)
        heroes = []
        for h in range(N_HEROES):
            hero = self.game.patch.heroes[int(self.game.hero_types[self.g, h])]
            heroes.append({"index": h, "team": TEAM_NAMES[h // HEROES_PER_TEAM], "name": hero.name, "role": hero.role,
                           "active": bool(hi[self.g, h, ACTIVE]), "abilities": [a.name for a in hero.abilities]})
        config = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self.game.config).items()}
        self.header = {
            "type": "header",
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
            "start": {"frame": int(gi[self.g, G_FRAME]), "units": unit_rows(self.game, self.g)},
        }
        self.n_steps = 0
        self._last_frame = int(gi[self.g, G_FRAME])
        self._buildings_alive = ui[self.g, SLOT_BUILDINGS:SLOT_COURIERS, ALIVE].copy()
        self._aegis = self.game.state[2][self.g, :, AEGIS].copy()
        self._compressor = zlib.compressobj(6, zlib.DEFLATED, 31)  # wbits 31: a gzip member
        self._compressed: list[bytes] = []

    # ------------------------------------------------------------------ per step
    def record(self) -> bool:
        """Append the timestep just played. Returns False when the game did not advance (nothing recorded)."""
        gi = self.game.state[7]
        frame = int(gi[self.g, G_FRAME])
        if frame == self._last_frame:
            return False
        if frame < self._last_frame:
            raise RuntimeError(f"game {self.g} went back from frame {self._last_frame} to {frame}: it was reset. "
                               "Save this replay and start a new ReplayRecorder for the new game.")
        events = self._events()
        night = (frame / FRAMES_PER_SECOND) % self.game.patch.rules.day_night_cycle >= \
            self.game.patch.rules.day_night_cycle * 0.5
        step = {
            "type": "step",
            "step": self.n_steps,
            "frame": frame,
            "night": bool(night),
            "kills": [int(gi[self.g, G_KILLS0]), int(gi[self.g, G_KILLS0 + 1])],
            "runes": [int(gi[self.g, G_RUNE0]), int(gi[self.g, G_RUNE0 + 1])],
            "units": unit_rows(self.game, self.g),
            "events": events,
        }
        self._compressed.append(self._compressor.compress(_dumps(step)))
        self.n_steps += 1
        self._last_frame = frame
        return True

    def _events(self) -> list[dict]:
        """This step's events, from the env's reward events (cleared every step) and state diffs."""
        g = self.g
        ev = self.game.state[9][g]
        ui, hf, gi = self.game.state[1], self.game.state[2], self.game.state[7]
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
        if int(gi[g, G_DONE]) != 0:
            s = game_summary(self.game, g)
            out.append({"type": "game_over", "outcome": s["outcome"], "winner": s["winner"]})
        return out

    # ------------------------------------------------------------------ output
    def summary(self) -> dict[str, Any]:
        s = game_summary(self.game, self.g)
        s["timesteps"] = self.n_steps
        return s

    def save(self, path) -> Path:
        """Write the replay (atomically: a crash never leaves half a file under ``path``). Returns the path."""
        path = Path(path)
        steps = b"".join(self._compressed) + self._compressor.copy().flush()
        data = _gzip_member(_dumps(self.header)) + steps + _gzip_member(_dumps(self.summary()))
        tmp = path.with_name(path.name + ".partial")
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        return path


# ====================================================================== reading
@dataclass
class Replay:
    header: dict[str, Any]
    steps: list[dict[str, Any]]
    summary: dict[str, Any]

    def units(self, step: int) -> list[dict[str, Any]]:
        """The units of a timestep as dicts keyed by ``unit_fields``."""
        fields = self.header["unit_fields"]
        return [dict(zip(fields, row)) for row in self.steps[step]["units"]]

    @property
    def events(self) -> list[dict[str, Any]]:
        """Every event of the game, each with the ``step`` and ``frame`` it happened in."""
        return [{"step": s["step"], "frame": s["frame"], **e} for s in self.steps for e in s["events"]]


_RECORD_HINT = "record a new one with `fivestack play ... --replay FILE`"


def load_replay(path) -> Replay:
    """Read and validate a replay file. Raises ``ValueError`` saying what is wrong and what to do."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"replay file {str(path)!r} does not exist; check the path, or {_RECORD_HINT}")
    if not path.is_file():
        raise ValueError(f"replay path {str(path)!r} is not a file; give the path of a .jsonl.gz replay file")
    try:
        with gzip.open(path, "rb") as f:
            raw = f.read()
    except PermissionError as e:
        raise ValueError(f"replay {str(path)!r} cannot be read ({e}); check the file's permissions") from None
    except gzip.BadGzipFile as e:
        raise ValueError(f"{str(path)!r} is not a fivestack replay: it is not gzip-compressed ({e}); "
                         f"give a file written by ReplayRecorder.save, or {_RECORD_HINT}") from None
    except (EOFError, zlib.error, OSError) as e:
        raise ValueError(f"replay {str(path)!r} is truncated or corrupted ({e or type(e).__name__}); the file was "
                         f"not written completely or was damaged since: {_RECORD_HINT}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"replay {str(path)!r} is corrupted: not UTF-8 text ({e}); {_RECORD_HINT}") from None
    lines = text.splitlines()
    records = []
    for n, line in enumerate(lines, start=1):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"replay {str(path)!r} is corrupted: line {n} is not valid JSON ({e}); "
                             f"{_RECORD_HINT}") from None
        if not isinstance(obj, dict) or "type" not in obj:
            raise ValueError(f"replay {str(path)!r} is corrupted: line {n} is not a replay record (an object with "
                             f"a \"type\"); {_RECORD_HINT}")
        records.append(obj)
    if not records:
        raise ValueError(f"replay {str(path)!r} is empty; {_RECORD_HINT}")
    header = records[0]
    if header.get("type") != "header" or header.get("format") != FORMAT_NAME:
        raise ValueError(f"{str(path)!r} is not a fivestack replay: its first line is not a {FORMAT_NAME!r} header; "
                         f"give a file written by ReplayRecorder.save, or {_RECORD_HINT}")
    version = header.get("version")
    if version != FORMAT_VERSION:
        raise ValueError(f"replay {str(path)!r} has format version {version!r} (written by "
                         f"{header.get('created_by', 'an unknown fivestack')}), but this fivestack reads version "
                         f"{FORMAT_VERSION}; open it with the fivestack version that wrote it, or {_RECORD_HINT}")
    missing = [k for k in ("config", "unit_fields", "heroes", "map", "time") if k not in header]
    if missing:
        raise ValueError(f"replay {str(path)!r} is corrupted: the header lacks {missing}; {_RECORD_HINT}")
    summary = records[-1]
    if summary.get("type") != "summary":
        raise ValueError(f"replay {str(path)!r} is truncated: it has no summary line at the end (the recording "
                         f"was not saved completely); {_RECORD_HINT}")
    steps = records[1:-1]
    width = len(header["unit_fields"])
    for k, step in enumerate(steps):
        if step.get("type") != "step" or step.get("step") != k:
            raise ValueError(f"replay {str(path)!r} is corrupted: line {k + 2} should be timestep {k} but is "
                             f"{step.get('type')!r} {step.get('step')!r}; {_RECORD_HINT}")
        units = step.get("units")
        if not isinstance(units, list) or any(not isinstance(r, list) or len(r) != width for r in units):
            raise ValueError(f"replay {str(path)!r} is corrupted: timestep {k} has malformed unit rows (each needs "
                             f"{width} values: {header['unit_fields']}); {_RECORD_HINT}")
    if summary.get("timesteps") != len(steps):
        raise ValueError(f"replay {str(path)!r} is corrupted: the summary counts {summary.get('timesteps')!r} "
                         f"timesteps but the file holds {len(steps)}; {_RECORD_HINT}")
    if summary.get("outcome") not in OUTCOMES:
        raise ValueError(f"replay {str(path)!r} is corrupted: unknown outcome {summary.get('outcome')!r}; "
                         f"{_RECORD_HINT}")
    return Replay(header=header, steps=steps, summary=summary)


def expected_timesteps(duration_seconds: float) -> int:
    """Agent timesteps in a game of this length (the last step may stop early when the game ends mid-step)."""
    return math.ceil(round(duration_seconds * FRAMES_PER_SECOND) / FRAMES_PER_STEP)


__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "UNIT_FIELDS", "KIND_NAMES", "TEAM_NAMES", "Replay", "ReplayRecorder",
           "expected_timesteps", "game_summary", "load_replay", "map_description", "unit_rows"]
