"""One live arena game: a person's hero among agents, stepped one timestep at a time by the server.

    game = ArenaGame(ArenaSetup(against="scripted", mode="1v1"))
    game.welcome()            the static facts the page needs (map, heroes, the player's hero and its keys)
    game.order(command)       a parsed order (``protocol.Command``) checked against this game: the player's hero,
                              a unit the team sees, what the action masks allow now; refused -> ProtocolError
    game.tick()               one timestep: every agent acts, the player's order becomes its hero's action row,
                              the replay records it; returns the frame for the page, under the team's fog
    game.forfeit(reason)      the player leaves: the game ends as their loss
    game.close()              the replay and one line of ``arena.jsonl`` are written (once)

The player's orders become **the same action rows the agents send** (``[primary, delay, target slot, offset x,
offset y]`` in env space) and go through the same env step, so a person can do nothing an agent cannot: a unit
is targeted through its slot in the team's observation (a unit the team does not see has none), and an order
the hero's action masks forbid is refused. A click far away is a *standing order*: each tick a legal ``move``
(the action grid reaches 600 world units) toward the point is issued again until the hero is there.

Who plays: the opponents are ``setup.against`` (a bot, a trained run's version, or ``"trained"``: the small 1v1
checkpoint that ships in ``fivestack/match/trained``); in 5v5 the player's four teammates are the scripted team,
or with ``coop`` the trained policy (the ``against`` one if it is trained, else the shipped one).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from fivestack.arena.protocol import Command, ProtocolError
from fivestack.arena.records import append_result, results_dir_for
from fivestack.bots.agents import BOTS
from fivestack.env.batched import BatchedEnv
from fivestack.env.spaces import PK_KIND, PK_PRESENT
from fivestack.game.engine import GameConfig, no_orders
from fivestack.game.kernels import goal_cells
from fivestack.game.layout import (
    A_ABILITY0, A_ATTACK, A_ATTACK_MOVE, A_BUYBACK, A_GLYPH, A_HOLD, A_ITEM0, A_MOVE, A_PICKUP, A_STOP,
    A_TOWN_PORTAL, ABILITY_CD, ABILITY_LEVEL, ALIVE, BUYBACK_CD, FRAMES_PER_SECOND, G_FRAME, G_GLYPH_CD0, G_KILLS0,
    GOLD, HEROES_PER_TEAM, HP, HP_MAX, IT_COOLDOWN, IT_ID, LEVEL, MANA, MANA_MAX,
    N_HEROES, N_ITEM_SLOTS, N_OFFSET, RESPAWN, RUNE_NAMES, STEP_SECONDS, T_NONE, T_POINT, T_UNIT, T_UNIT_OFFSET,
    TARGET, TARGET_OFFSET_STEP, TEAM, X, Y,
)
from fivestack.game.patch import Patch
from fivestack.match.agents import TRAINED, build_agent, check_agent, trained_game
from fivestack.match.teams import active_heroes
from fivestack.viewer.replay.recorder import ReplayRecorder, unit_columns

SIDES = ("radiant", "dire")
TARGET_NAMES = {T_NONE: "none", T_POINT: "point", T_UNIT: "unit", T_UNIT_OFFSET: "unit_offset"}
ABILITY_KEYS = ("Q", "W", "E", "R")
KEYS = {"move / attack": "right-click", "attack-move": "A + left-click", "stop": "S", "hold": "H",
        "abilities": "Q W E R", "items": "1-6", "glyph": "G", "buyback": "B", "town portal": "T", "pause": "P"}
ARRIVED = 100.0  # world units: a standing move ends this close to its point
SIMPLE_ORDERS = {"attack": A_ATTACK, "stop": A_STOP, "hold": A_HOLD, "pickup": A_PICKUP, "glyph": A_GLYPH,
                 "buyback": A_BUYBACK, "town_portal": A_TOWN_PORTAL}
KEEPS_STANDING_ORDER = (A_GLYPH, A_BUYBACK)  # orders that do not stop the hero's walk


# ====================================================================== what to play
@dataclass(frozen=True)
class ArenaSetup:
    """One arena game: who the player meets, in which mode, with which hero. See the module docstring."""

    against: str = TRAINED
    mode: str = "1v1"
    hero: str | None = None
    side: str = "radiant"
    coop: bool = False
    seed: int = 0
    max_seconds: float | None = None

    def check(self) -> None:
        """One ``ValueError`` naming the bad field and what it accepts."""
        if self.mode not in ("1v1", "5v5"):
            raise ValueError(f"mode {self.mode!r} is unknown; use 1v1 or 5v5")
        if self.side not in SIDES:
            raise ValueError(f"side {self.side!r} is unknown; use radiant or dire")
        if self.coop and self.mode != "5v5":
            raise ValueError("--coop gives the player four trained teammates: it needs --mode 5v5")
        if self.against != TRAINED:
            try:
                check_agent(self.against)
            except ValueError as e:
                raise ValueError(f"--against: {e}; or 'trained', the 1v1 hero that ships with fivestack") from None
        if self.max_seconds is not None and not (math.isfinite(self.max_seconds) and self.max_seconds > 0):
            raise ValueError(f"max_seconds must be a positive number of game seconds, got {self.max_seconds}")
        if not 0 <= self.seed < 2**63:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed}")

    @property
    def team(self) -> int:
        return SIDES.index(self.side)

    @property
    def seconds(self) -> float:
        return self.max_seconds if self.max_seconds is not None else (600.0 if self.mode == "1v1" else 3600.0)

    @property
    def teammates(self) -> str | None:
        """Who plays the player's four teammates (5v5 only): a trained policy with ``coop``, else the scripted team."""
        if self.mode != "5v5":
            return None
        if not self.coop:
            return "scripted"
        return self.against if self.against not in BOTS else TRAINED


def _game_config(setup: ArenaSetup) -> tuple[GameConfig, int]:
    """The game and the player's hero index. In 1v1 ``hero`` picks the player's mid hero; in 5v5 the player
    controls the hero of that name in the team's (default) lineup."""
    names = [h.name for h in Patch().heroes]
    lineups = {"radiant": (), "dire": ()}
    slot = 0
    if setup.hero is not None:
        lowered = [n.lower() for n in names]
        if setup.hero.lower() not in lowered:
            raise ValueError(f"hero {setup.hero!r} is unknown; heroes: {', '.join(names)}")
        if setup.mode == "1v1":
            lineups[setup.side] = (names[lowered.index(setup.hero.lower())],)
        else:
            slot = lowered[:HEROES_PER_TEAM].index(setup.hero.lower())
    config = GameConfig(mode=setup.mode, max_seconds=setup.seconds, radiant=lineups["radiant"],
                        dire=lineups["dire"])
    return config, setup.team * HEROES_PER_TEAM + slot


def warm_up(config: GameConfig, bots: tuple[str, ...] = (), mode: str = "1v1") -> None:
    """Play one timestep of a throwaway game with throwaway ``bots`` (one per team, e.g. the scripted bot), so
    that the simulator's and the bots' kernels are compiled (or loaded from Numba's cache) before the clock
    starts: a first compile takes minutes, and no tick should."""
    env = BatchedEnv(1, config)
    env.reset(0)
    actions = no_orders(1, N_HEROES)
    games = np.zeros(1, np.int64)
    for team, name in enumerate(bots[:2]):
        actions[:, team * HEROES_PER_TEAM:(team + 1) * HEROES_PER_TEAM] = build_agent(name, team, 0, mode).act(
            env, games)
    env.step(actions)


# ====================================================================== the live game
class ArenaGame:
    """The live game (see the module docstring). ``results_dir``: where the replay and ``arena.jsonl`` go
    (default: the run folder played against, or ``runs/arena-NAME`` for a bot or the shipped hero)."""

    def __init__(self, setup: ArenaSetup, results_dir: Path | None = None):
        setup.check()
        self.setup = setup
        self.team = setup.team
        config, self.hero = _game_config(setup)
        enemy = 1 - self.team
        self.opponents = build_agent(setup.against, enemy, setup.seed + 1, setup.mode)
        self.teammates = None
        if setup.teammates is not None:
            mates = active_heroes(setup.mode)[self.team]
            mates = mates[mates != self.hero]
            self.teammates = (build_agent(setup.teammates, self.team, setup.seed + 2, setup.mode, heroes=mates)
                              if setup.coop else build_agent("scripted", self.team, setup.seed + 2, setup.mode))
        # a trained side's game: its moves (the player's clicks use the same table: ``goal_cells``) and patch
        config = dataclasses.replace(config, **trained_game([self.opponents, self.teammates]))
        bots = tuple(b for b in (setup.against, "scripted" if setup.teammates == "scripted" else None) if b in BOTS)
        warm_up(config, bots, setup.mode)
        self.env = BatchedEnv(1, config)
        self.env.reset(setup.seed)
        self.hero_type = self.env.game.patch.heroes[int(self.env.game.hero_types[0, self.hero])]
        self.results_dir = Path(results_dir) if results_dir is not None else results_dir_for(setup.against)
        agents = [None, None]
        agents[enemy], agents[self.team] = self.opponents, self.teammates
        person = f"person ({self.hero_type.name})"
        players = {SIDES[self.team]: f"{person} + {setup.teammates}" if setup.teammates else person,
                   SIDES[enemy]: setup.against}
        self.recorder = ReplayRecorder(self.env, 0, seed=setup.seed, players=players, agents=agents)
        self.started = time.time()
        self.step = 0
        self.finished = False
        self.outcome: str | None = None  # "win" / "loss" / "draw" for the player
        self.reason: str | None = None
        self.replay_path: Path | None = None
        self._closed = False
        self._pending: np.ndarray | None = None  # the player's next single action row
        self._standing: tuple[int, float, float] | None = None  # (primary, x, y) walked toward every tick
        self.player_actions: list[tuple[int, list[int]]] = []
        self.counters: dict[str, int] = {"accepted": 0}

    # ------------------------------------------------------------------ what the page is told once
    def welcome(self) -> dict:
        abilities = [{"slot": k, "name": a.name, "target": TARGET_NAMES[a.target], "key": ABILITY_KEYS[k],
                      "ultimate": a.ultimate, "description": a.description}
                     for k, a in enumerate(self.hero_type.abilities)]
        return {"type": "welcome", "token_ok": True, "game": {
            "header": self.recorder.header, "step_seconds": STEP_SECONDS, "against": self.setup.against,
            "coop": self.setup.coop, "mode": self.setup.mode, "teammates": self.setup.teammates,
            "player": {"hero": self.hero, "team": self.team, "side": SIDES[self.team], "name": self.hero_type.name},
            "abilities": abilities,
            "items": [{"name": it.name, "target": TARGET_NAMES[it.target], "active": it.active != 0}
                      for it in self.env.game.patch.items],
            "keys": KEYS}}

    # ------------------------------------------------------------------ the player's orders
    def order(self, command: Command) -> None:
        """Check an order against this game and queue it for the next tick; ``ProtocolError`` if refused."""
        if self.finished:
            raise ProtocolError("finished", "the game is over")
        if command.kind != "order":
            raise ProtocolError("unknown_type", f"{command.kind!r} is not an order")
        if command.hero != self.hero:
            raise ProtocolError("not_your_hero", f"you control hero {self.hero} ({self.hero_type.name}), "
                                                 f"not hero {command.hero}")
        if command.order in ("move", "attack_move"):
            primary = A_MOVE if command.order == "move" else A_ATTACK_MOVE
            self._require_available(primary, command.order)
            self._standing = (primary, command.x, command.y)
            self._pending = None
        else:
            row = self._action_row(command)
            self._pending = row
            if row[0] not in KEEPS_STANDING_ORDER:
                self._standing = None
        self.counters["accepted"] += 1

    def _action_row(self, c: Command) -> np.ndarray:
        if c.order in SIMPLE_ORDERS:
            primary, what = SIMPLE_ORDERS[c.order], c.order
            target_type = T_UNIT if c.order in ("attack", "town_portal") else T_NONE
            reach = 0.0
        elif c.order == "ability":
            primary, what = A_ABILITY0 + c.slot, f"ability {c.slot + 1}"
            ability = self.hero_type.abilities[c.slot]
            target_type, reach, what = ability.target, ability.cast_range, f"{what} ({ability.name})"
        else:
            primary, what = A_ITEM0 + c.slot, f"item slot {c.slot + 1}"
            item_id = int(self.env.game.state.items[0, self.hero, c.slot, IT_ID])
            if item_id < 0:
                raise ProtocolError("not_available", f"{what} is empty")
            item = self.env.game.patch.items[item_id]
            target_type, reach, what = item.target, item.cast_range, f"{what} ({item.name})"
        unit_target = target_type in (T_UNIT, T_UNIT_OFFSET)
        if unit_target:
            if c.unit is None:
                raise ProtocolError("bad_field", f"{what} targets a unit: give 'unit'")
            slot = int(self.env.slot_of_unit[0, self.team, c.unit])
            if slot < 0 or not self._sees(c.unit):
                raise ProtocolError("unit_not_visible", f"unit {c.unit} is not seen by your team")
        self._require_available(primary, what)
        row = no_orders()
        row[0] = primary
        if unit_target:
            if not self.env.obs["target_mask"][0, self.hero, primary, slot]:
                raise ProtocolError("not_available", f"unit {c.unit} is not a valid target for {what}")
            row[2] = slot
            if target_type == T_UNIT_OFFSET and c.x is not None:
                centre = self.env.game.state.uf[0, c.unit, [X, Y]]
                row[3], row[4] = _cells(centre, c.x, c.y, _grid(TARGET_OFFSET_STEP))
        elif target_type == T_POINT:
            if c.x is None:
                raise ProtocolError("bad_field", f"{what} targets a point: give 'x' and 'y'")
            row[3], row[4] = _cells(self._hero_xy(), c.x, c.y, _grid(max(reach, 200.0) / 4.0))
        return row

    def _sees(self, unit: int) -> bool:
        """Whether the player's team sees ``unit`` now: an alive unit of its own, or one in its vision."""
        s = self.env.game.state
        return bool(s.ui[0, unit, ALIVE]) and (int(s.ui[0, unit, TEAM]) == self.team or bool(s.vis[0, self.team, unit]))

    def _require_available(self, primary: int, what: str) -> None:
        if not self.env.obs["primary_mask"][0, self.hero, primary]:
            alive = self.env.game.state.ui[0, self.hero, ALIVE]
            why = "your hero is dead" if not alive else "not possible now (cooldown, mana, level or gold)"
            raise ProtocolError("not_available", f"{what}: {why}")

    def _hero_xy(self) -> np.ndarray:
        return self.env.game.state.uf[0, self.hero, [X, Y]].astype(np.float64)

    def _player_row(self) -> np.ndarray:
        """This tick's action for the player's hero: a queued order, else a step of the standing walk."""
        if self._pending is not None:
            row, self._pending = self._pending, None
            return row
        row = no_orders()
        if self._standing is None or not self.env.game.state.ui[0, self.hero, ALIVE]:
            return row
        primary, x, y = self._standing
        here = self._hero_xy()
        if math.hypot(x - here[0], y - here[1]) <= ARRIVED:
            self._standing = None
            return row
        if primary == A_ATTACK_MOVE and self.env.game.state.ui[0, self.hero, TARGET] >= 0:
            return row  # fighting on the way: the engine's attack-move keeps the target
        row[0] = primary
        row[3], row[4] = _cells(here, x, y, self.env.game.data.move_offsets)  # the game's move table
        return row

    # ------------------------------------------------------------------ one timestep
    @torch.no_grad()
    def tick(self, player_row: np.ndarray | None = None) -> dict:
        """Play one timestep (nothing once finished) and return the page's frame. ``player_row`` plays that
        action row for the player's hero instead of its orders: a game re-simulated from its seed and
        ``player_actions`` (an audit) is the same game."""
        if self.finished:
            return self.frame()
        actions = no_orders(1, N_HEROES)
        games = np.zeros(1, np.int64)
        enemy = 1 - self.team
        actions[:, enemy * HEROES_PER_TEAM:(enemy + 1) * HEROES_PER_TEAM] = self.opponents.act(self.env, games)
        if self.teammates is not None:
            own = slice(self.team * HEROES_PER_TEAM, (self.team + 1) * HEROES_PER_TEAM)
            actions[:, own] = self.teammates.act(self.env, games)
        row = self._player_row() if player_row is None else np.asarray(player_row, np.int64)
        actions[0, self.hero] = row
        if row[0] != 0:
            self.player_actions.append((self.step, row.tolist()))
        _, _, terminated, truncated, info = self.env.step(actions)
        self.recorder.record()
        self.step += 1
        if terminated[0] or truncated[0]:
            winner = int(info["winner"][0]) if terminated[0] else -1
            self._finish("win" if winner == self.team else "loss" if winner == enemy else "draw",
                         "time limit" if truncated[0] else "ancient" if self.setup.mode == "5v5" else "1v1 decided")
        return self.frame()

    def frame(self) -> dict:
        """What the page draws now: the units the player's team sees, the player's hero, the clock, the score."""
        state = self.env.game.state
        columns = unit_columns(self.env.game, 0)
        shown = (columns["team"] == self.team) | ((columns["vis"] >> self.team) & 1).astype(bool)
        units = {name: values[shown].tolist() for name, values in columns.items()}
        frame_no = int(state.gi[0, G_FRAME])
        cycle = self.env.game.patch.rules.day_night_cycle
        return {"type": "frame", "step": self.step, "frame": frame_no, "time": frame_no / FRAMES_PER_SECOND,
                "night": bool(frame_no / FRAMES_PER_SECOND % cycle >= cycle * 0.5), "finished": self.finished,
                "units": units, "kills": [int(k) for k in state.gi[0, G_KILLS0:G_KILLS0 + 2]],
                "runes": self._runes_seen(),
                "me": self._me(), "win_prob": self.win_probability()}

    def _runes_seen(self) -> list[int]:
        """The rune on each rune spot as the team's observation has it (0: none, or a spot it does not see; else
        the replay format's rune code)."""
        pickups = self.env.obs["pickups"][0, self.team, :2]
        kinds = pickups[:, PK_KIND:PK_KIND + len(RUNE_NAMES) - 1].argmax(axis=1) + 1
        return [int(k) if present else 0 for k, present in zip(kinds, pickups[:, PK_PRESENT])]

    def _me(self) -> dict:
        s, h, g = self.env.game.state, self.hero, 0
        masks = self.env.obs["primary_mask"][0, h]
        rules = self.env.game.patch.rules
        abilities = []
        for k, a in enumerate(self.hero_type.abilities):
            level = int(s.hi[g, h, ABILITY_LEVEL + k])
            abilities.append({"name": a.name, "level": level,
                              "cooldown": int(s.hi[g, h, ABILITY_CD + k]) / FRAMES_PER_SECOND,
                              "mana": a.mana + a.mana_per_level * max(level - 1, 0),
                              "ready": bool(masks[A_ABILITY0 + k])})
        items = []
        for k in range(N_ITEM_SLOTS):
            item_id = int(s.items[g, h, k, IT_ID])
            items.append(None if item_id < 0 or k >= 6 else {
                "name": self.env.game.patch.items[item_id].name, "ready": bool(masks[A_ITEM0 + k]),
                "cooldown": int(s.items[g, h, k, IT_COOLDOWN]) / FRAMES_PER_SECOND})
        level = int(s.hi[g, h, LEVEL])
        standing = None if self._standing is None else {
            "order": "move" if self._standing[0] == A_MOVE else "attack_move", "x": self._standing[1],
            "y": self._standing[2]}
        return {"hero": h, "alive": bool(s.ui[g, h, ALIVE]), "x": float(s.uf[g, h, X]), "y": float(s.uf[g, h, Y]),
                "hp": float(s.uf[g, h, HP]), "hp_max": float(s.uf[g, h, HP_MAX]), "mana": float(s.uf[g, h, MANA]),
                "mana_max": float(s.uf[g, h, MANA_MAX]), "gold": float(s.hf[g, h, GOLD]), "level": level,
                "respawn": float(max(s.hf[g, h, RESPAWN], 0.0)) if not s.ui[g, h, ALIVE] else 0.0,
                "buyback_cost": rules.buyback_base + rules.buyback_per_level * level,
                "buyback_ready": bool(masks[A_BUYBACK]), "buyback_cooldown": float(max(s.hf[g, h, BUYBACK_CD], 0.0)),
                "glyph_ready": bool(masks[A_GLYPH]),
                "glyph_cooldown": int(s.gi[g, G_GLYPH_CD0 + self.team]) / FRAMES_PER_SECOND,
                "abilities": abilities, "items": items[:6], "order": standing}

    def win_probability(self) -> float | None:
        """P(the player's team wins) from a policy's win head: the coop teammates', else 1 - the opponents'."""
        for agent, own in ((self.teammates, True), (self.opponents, False)):
            result = getattr(agent, "last_result", None)
            if result is not None:
                p = float(np.mean(np.asarray(result.win_prob)[0]))
                return p if own else 1.0 - p
        return None

    # ------------------------------------------------------------------ the end
    def _finish(self, outcome: str, reason: str) -> None:
        self.finished, self.outcome, self.reason = True, outcome, reason
        self._pending, self._standing = None, None

    def forfeit(self, reason: str) -> dict:
        """End the game now as the player's loss (a closed tab, ``leave``); the replay is kept."""
        if not self.finished:
            self._finish("loss", reason)
        return self.end_message()

    def end_message(self) -> dict | None:
        if not self.finished:
            return None
        winner = {"win": SIDES[self.team], "loss": SIDES[1 - self.team]}.get(self.outcome)
        return {"type": "end", "outcome": self.outcome, "winner": winner, "reason": self.reason,
                "replay": str(self.replay_path) if self.replay_path else None}

    def close(self) -> Path | None:
        """Save the replay (atomic) and append the result to ``arena.jsonl``; once. An unfinished game is saved
        as it stands and recorded as a loss ("closed")."""
        if self._closed:
            return self.replay_path
        self._closed = True
        if not self.finished:
            self._finish("loss", "closed")
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(self.started))
        path = self.results_dir / "arena" / f"{stamp}-{SIDES[self.team]}-{self.setup.mode}-seed{self.setup.seed}.npz"
        if self.recorder.n_steps:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.replay_path = self.recorder.save(path)
        append_result(self.results_dir, {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(self.started)), "against": self.setup.against,
            "mode": self.setup.mode, "side": SIDES[self.team], "hero": self.hero_type.name, "coop": self.setup.coop,
            "seed": self.setup.seed, "outcome": self.outcome, "reason": self.reason, "steps": self.step,
            "game_seconds": round(self.step * STEP_SECONDS, 2),
            "replay": str(self.replay_path) if self.replay_path else None})
        return self.replay_path




def _grid(step: float) -> np.ndarray:
    """A uniform offset table, ``step`` world units per cell (point abilities, a unit target's offset)."""
    return (np.arange(N_OFFSET) - (N_OFFSET - 1) // 2) * float(step)


def _cells(centre, x: float, y: float, table: np.ndarray) -> tuple[int, int]:
    """The action's offset pair (0..8 each, 4 = the centre) that points from ``centre`` toward (x, y) with offset
    ``table``: the game's one rule (``kernels.goal_cells``: the point where the table reaches it, else the
    farthest cells in its direction)."""
    ox, oy = goal_cells(float(x) - float(centre[0]), float(y) - float(centre[1]), np.asarray(table, np.float64))
    return int(ox), int(oy)


__all__ = ["ArenaGame", "ArenaSetup", "KEYS", "SIDES",
           "warm_up"]
