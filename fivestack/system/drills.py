"""Drills (issue 30): small scenarios on the real game through the real env, each with a success figure.

A drill runs on every game slot of a 1v1 rollout (``[drill]``, ``drill.name``): the heroes in its episode are the
learner (their rows are ``pool.LATEST``, training data; walk: both, lasthit: one, the other idle with
``OWNER_DRILL_IDLE``), the drill's reward replaces the game's shaped reward on every row, and the drill ends and
restarts the games by its own rules. The hook that plugs it into the rollout worker is
``rollout_hooks.Drill``; the evaluation (success share against the baselines) is ``drill_eval``.

One drill episode is one game: it starts when the game (re)starts, each hero has its own task, and a hero's
episode ends when it succeeds or when ``drill.seconds`` of game time have passed (it failed). A hero that is done
waits for the other (reward 0, goal input zeros: flag 0, nothing left to earn); the game ends, as terminated, once
both heroes are done (the time left is one of the policy's inputs, so the time-out is the end of the task, not a
cut to bootstrap across); with ``drill.stagger`` (training only: walk, lasthit) each slot's first episode begins
part-way into its window, so that the slots' episodes do not all end at the same decision (``begin_games``). A
game the game's own rules end first (a kill race, the time limit) ends the heroes' episodes still running as
failures. Every hero episode counts once: ``take_metrics`` reports the episodes ended and
the successes since its last call, and with ``record`` each one's outcome is kept per game slot (``outcomes``), so
that an evaluation can count the first q episodes of every slot whatever their outcomes.

    walk   (a) walk to a marked point at least ``drill.min_distance`` away. Each hero gets a point at a distance
           in [min_distance, max_distance] of its position, drawn uniformly over the walk grid's cells that are
           walkable and joined to the hero's cell by a straight line of walkable cells (``clear_line``: one move
           order walks there; the engine slides along walls but does not find paths, so a point behind a wall
           would test path-finding, not reach), on the hero's own side of the river (clear of the river), at least
           ``SAFE_DISTANCE`` from every enemy building and ``CAMP_CLEARANCE`` from every neutral camp; the point is
           the cell's centre. The goal input is [1, dx / 2000, dy / 2000, 0, 0, share of the episode's time left]
           (point minus hero, ``POSITION_SCALE``), the reward after each decision is the distance walked toward
           the point (previous minus current distance) / ``DISTANCE_SCALE``, plus ``ARRIVAL_REWARD`` when the
           hero ends the decision within ``drill.radius`` of the point (it arrived: success).

    lasthit (b) last-hit the enemy's lane creeps alone. One drill episode is the first ``drill.seconds`` of a game
           (its start: the waves spawn at 0:00, 0:30, ...; the first ones meet mid at ~0:25). Each episode draws
           the learner's side; the other hero is idle (``OWNER_DRILL_IDLE``: no orders, in its fountain all along,
           its rows are not training data), so no enemy hero contests the wave. At the start the learner stands
           ``START_AHEAD`` units ahead of its own mid tier-1 tower along the lane (written into the state, the
           observations encoded again: ``BatchedEnv.observe_games``). The drill follows the game after every
           timestep: an enemy lane creep (melee, ranged, siege, any lane) alive at one timestep and dead at the next
           died in the episode; it is the learner's last hit when the game credits the learner's hero with the
           killing blow (``ui KILLER_HERO``). The reward is ``LAST_HIT_REWARD`` per such last hit and, with
           ``drill.miss_penalty`` (0 by default), -miss_penalty per enemy lane creep that died otherwise, so that
           the reward follows the figure (last hits / deaths) and a missed creep is paid for when it dies, and with
           ``drill.death_penalty``, -death_penalty each time the learner's hero dies (the paper's hero-death
           term; a dead hero misses the creeps that die until it is back); no deny reward (the figure counts
           enemy creeps only). The goal input is [1, 0, 0, 0, 0, share of the
           episode's time left]. The episode's figure is (its learner's last hits, its enemy lane-creep deaths);
           a success share is pooled over episodes: last hits / deaths (``drill_eval``). A slot whose creep died
           and was spawned again within one timestep (the new one appears at its lane's start) counts as a death
           that is not the learner's (its killer is overwritten): rare, and only ever against the learner.

    hold   (c) hold the lane against scripted-weak, and  duel  (d) 1v1 against scripted (``MatchDrill``): the game
           itself, against a bot (``MATCH_DRILL_BOTS``: every game draws the bot, ``pool.bot_fraction = 1``, on a
           random side, ``Opponents``; the learner plays the other). One drill episode is one whole game, up to
           ``game.max_seconds`` (= ``drill.seconds``); the reward is the game's own shaped reward (the drill ends
           no game: the game's rules do), or with ``drill.reward = "lasthit"`` the last-hit drill's, in the whole
           game: ``LAST_HIT_REWARD`` per last hit of the learner's hero (the game's count, ``hi LAST_HITS``, the
           one the success rule compares), -``drill.death_penalty`` per death, nothing else (no zero-sum: the bot's
           last hits and deaths pay nothing). The goal input is [1, 0, 0, 0, 0, share of the game's
           time left]. At the game's end: duel succeeds when the learner won (two kills or the first tower, the 1v1
           rules); hold succeeds when the learner did not lose (a game ended by kills is a loss for the one killed),
           its mid tier-1 tower stands, *and* it has more last hits than the bot, however the game ended: a passive
           hero cannot pass it (scripted-weak's random orders walk it into the towers: it dies twice in 2.6-8.5 game
           minutes against a hero that stands in its fountain, 8 games of 8, so a win alone says nothing). Each
           episode's result is kept (``results``: won / undecided / lost, both heroes' last hits and deaths,
           whether the learner's tower stands).

A drill is a subclass of ``Drill`` with its own ``start``, ``goal_inputs`` and ``score`` (or ``after_decision``),
``records``/``figure`` for its evaluation, and an entry in ``DRILLS`` (and in ``runs.config.DRILL_NAMES``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from fivestack.game.geometry import BIG_NEUTRAL, BUILDING_POS, CAMPS, RIVER_HALF_WIDTH
from fivestack.game.layout import (ALIVE, CELL, DEATHS, GRID, K_CREEP_MELEE, K_CREEP_RANGED, K_CREEP_SIEGE,
                                   KILLER_HERO, KIND, LAST_HITS, MAP_SIZE, MAX_UNITS, N_BUILDINGS_PER_TEAM,
                                   SLOT_BUILDINGS, TEAM, X, Y)
from fivestack.match.games import wilson_interval
from fivestack.runs.config import DRILL_NAMES, GOAL_WIDTH, MATCH_DRILL_BOTS, DrillConfig

POSITION_SCALE = 2000.0  # the goal input's positions, as asymmetric self-play's (asp_moba.POSITION_SCALE)
DISTANCE_SCALE = 1000.0  # walk: reward per unit of distance walked toward the point
ARRIVAL_REWARD = 1.0
SAFE_DISTANCE = 1500.0  # walk: points this far at least from every enemy building (a tower's reach is far less)
CAMP_CLEARANCE = 1000.0  # ... and from every neutral camp
LINE_STEP = 32.0  # walk: the straight line to a point is checked this often (a quarter of a walk-grid cell)
OWNER_DRILL_IDLE = -5  # the row owner of a hero that takes no part in a drill episode (beside pool.LATEST, pool.BOT,
                       # asp_moba's OWNER_ALICE -3 and OWNER_IDLE -4)
LAST_HIT_REWARD = 1.0  # lasthit: reward per enemy lane creep the learner last-hits
START_AHEAD = 300.0  # lasthit (and rollout.lane_start): a hero starts this far ahead of its mid tier-1 tower
MID_TIER1 = 1  # the mid tier-1 tower's local building index (geometry.BUILDINGS: tier-1 towers of lanes 0, 1, 2)
RESPAWN_JUMP = 300.0  # lasthit: a creep slot that moved this far in one timestep holds a new creep (~45 per step)


def clear_line(walk: np.ndarray, x: float, y: float, px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """(n,) bool: the straight line from (x, y) to each point (px[i], py[i]) crosses only walkable cells (checked
    every ``LINE_STEP`` world units): a hero sent there by one move order walks it without meeting a wall (the
    engine slides along blocked cells but does not find paths)."""
    length = np.hypot(px - x, py - y)
    t = np.linspace(0.0, 1.0, int(length.max() // LINE_STEP) + 2 if length.size else 2)
    lx = x + np.outer(px - x, t)
    ly = y + np.outer(py - y, t)
    cells_x = np.clip((lx / CELL).astype(np.int64), 0, GRID - 1)
    cells_y = np.clip((ly / CELL).astype(np.int64), 0, GRID - 1)
    return (walk[cells_x, cells_y] != 0).all(axis=1)


def cell_of(x: float, y: float) -> tuple[int, int]:
    return (min(max(int(x / CELL), 0), GRID - 1), min(max(int(y / CELL), 0), GRID - 1))


class EpisodeOutcome(NamedTuple):
    """A hero episode that ended (``Drill.outcome``): what ``Drill.figure`` reads."""

    game: int
    episode: int  # the episodes begun in its game slot before it (an evaluation counts the first q of each)
    side: int
    success: bool
    seconds: float  # game seconds from its start


class Drill:
    """The bookkeeping every drill shares, per game slot and side (the hero ``heroes[side]`` of each 1v1 game):

        begin_games(env, games)        the games just (re)started: new episodes, the scenario's ``start``
        goal_features(env, teams, k)   (teams, K, GOAL_WIDTH) the goal input: the scenario's, zeros once done
        after_step(env)                after every timestep of a decision but the last (the hook's between_steps):
                                       for a drill that follows the game step by step (last hits)
        after_decision(env, reward, ended) -> (games,) bool: the games whose drill is over (to end, terminated);
                                       the drill's reward written over ``reward`` (teams, K)
        take_metrics()                 {"episodes", "reached", ...} since the last call

    A scenario implements ``start(env, games)``, ``goal_inputs(env, games)`` -> (n, 2, GOAL_WIDTH) for running
    heroes and ``score(env, games)`` -> reward (n, 2), success (n, 2) bool, both for the heroes of ``games``. Its
    ``start`` may leave a side out of an episode (``running[g, side] = False``): that hero is ``idle`` (its row
    plays no orders and is not training data, ``OWNER_DRILL_IDLE``) until the game restarts."""

    name = ""
    heroes_per_game = 2  # hero episodes in one game's episode (both sides'); 1 when one side is idle or a bot
    others_idle = True  # a side ``start`` leaves out is idle (no orders); False: a bot plays it (``MatchDrill``)
    windowed = True  # the drill ends its episodes after ``drill.seconds`` (False: the game's rules end them)

    def __init__(self, config: DrillConfig, n_games: int, heroes: np.ndarray, seed: int):
        self.config = config
        self.n = n_games
        self.heroes = heroes[:, 0]  # (2,) the hero each side plays (1v1: K = 1)
        self.rng = np.random.default_rng([int(seed), 0xD2111])
        self.stagger_rng = np.random.default_rng([int(seed), 0x57A6])  # its own draws: the scenario's stay the same
        self.start_seconds = np.zeros(n_games)
        self.running = np.zeros((n_games, 2), bool)  # the hero's episode is on
        self.idle = np.zeros((n_games, 2), bool)  # the hero takes no part in this game's episode
        self.episode_index = np.zeros(n_games, np.int64)  # episodes begun in each game slot
        self.record = False
        self.outcomes: list[tuple] = []  # ``outcome``'s records
        self.episodes = self.reached = 0
        self.reach_seconds: list[float] = []

    # ------------------------------------------------------------------ the scenario's part
    def start(self, env, games: np.ndarray) -> None:
        raise NotImplementedError

    def goal_inputs(self, env, games: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def score(self, env, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    # ------------------------------------------------------------------ episodes
    def elapsed(self, env, games: np.ndarray) -> np.ndarray:
        return env.game.seconds[games] - self.start_seconds[games]

    def time_left(self, env, games: np.ndarray) -> np.ndarray:
        """(n,) the share of the episode's time left, in [0, 1]."""
        return np.clip(1.0 - self.elapsed(env, games) / self.config.seconds, 0.0, 1.0)

    def begin_games(self, env, games: np.ndarray) -> None:
        games = np.asarray(games, np.int64)
        if not games.size:
            return
        self.start_seconds[games] = env.game.seconds[games]
        if self.config.stagger and self.windowed:
            # A slot's first episode begins part-way through its window (its time-left input says how far), so that
            # the slots' episodes do not all end at the same decision ever after: each segment then holds every
            # phase of the window instead of the same seconds of every game.
            first = games[self.episode_index[games] == 0]
            self.start_seconds[first] -= self.stagger_rng.uniform(0.0, self.config.seconds, first.size)
        self.running[games] = True
        self.idle[games] = False
        self.start(env, games)
        if self.others_idle:
            self.idle[games] = ~self.running[games]

    def after_step(self, env) -> None:
        pass

    def finish(self, game: int, side: int, success: bool, seconds: float) -> None:
        """A hero episode ended: count it (and record its outcome)."""
        self.episodes += 1
        if success:
            self.reached += 1
            self.reach_seconds.append(seconds)
        if self.record:
            self.outcomes.append(self.outcome(game, side, success, seconds))

    def outcome(self, game: int, side: int, success: bool, seconds: float) -> tuple:
        """The record of a hero episode that ended: an ``EpisodeOutcome``, or a drill's own record with the same
        first fields and more that its ``figure`` reads."""
        return EpisodeOutcome(game, int(self.episode_index[game]), side, success, seconds)

    def goal_features(self, env, n_teams: int, k: int) -> np.ndarray:
        out = np.zeros((self.n, 2, GOAL_WIDTH), np.float32)
        games = np.arange(self.n)
        out[:] = self.goal_inputs(env, games)
        out[~self.running] = 0.0
        return np.repeat(out.reshape(n_teams, 1, GOAL_WIDTH), k, axis=1)

    def after_decision(self, env, reward: np.ndarray, ended: np.ndarray) -> np.ndarray:
        games = np.arange(self.n)
        gained, success = self.score(env, games)
        success &= self.running
        out_of_time = self.running & ~success & ((self.elapsed(env, games) >= self.config.seconds - 1e-9)
                                                 | ended)[:, None]
        self.write_reward(reward, gained)
        finished = success | out_of_time
        for g, side in zip(*np.nonzero(finished)):
            self.finish(int(g), int(side), bool(success[g, side]), float(self.elapsed(env, np.array([g]))[0]))
        self.running &= ~finished
        over = ~self.running.any(axis=1) & ~ended  # the drill ends these games (the env ended the others)
        self.episode_index[over | ended] += 1
        return over

    def write_reward(self, reward: np.ndarray, gained: np.ndarray) -> None:
        """The drill's reward ``gained`` (games, 2) over the rollout's ``reward`` (teams, K): a hero whose episode is
        not running (done, idle, or the bot's) gets 0."""
        reward[:] = np.where(self.running, gained, 0.0).reshape(reward.shape[0], 1)

    def take_metrics(self) -> dict[str, float]:
        out = {"drill/episodes": float(self.episodes), "drill/reached": float(self.reached)}
        if self.episodes:
            out["drill/success"] = self.reached / self.episodes
        if self.reach_seconds:
            out["drill/reach_seconds"] = float(np.mean(self.reach_seconds))
        self.episodes = self.reached = 0
        self.reach_seconds = []
        return out

    # ------------------------------------------------------------------ evaluation (``drill_eval``, with ``record``)
    def records(self) -> list[tuple]:
        """The recorded episodes (named tuples whose first fields are game, episode, side): what ``figure`` reads."""
        return self.outcomes

    def figure(self, records: list[tuple]) -> dict:
        """The drill's success figure over ``records``: {"episodes", "reached", "success", "ci95" (Wilson),
        "reach_seconds" (the mean game seconds of the successes; None without one)}."""
        reached = sum(bool(o.success) for o in records)
        seconds = [o.seconds for o in records if o.success]
        low, high = wilson_interval(reached, len(records))
        return {"episodes": len(records), "reached": int(reached), "success": round(reached / len(records), 4),
                "ci95": [round(low, 4), round(high, 4)],
                "reach_seconds": round(float(np.mean(seconds)), 2) if seconds else None}

    def flag_and_time(self, env, games: np.ndarray) -> np.ndarray:
        """(n, 2, GOAL_WIDTH) the goal input of a drill whose task is fixed: [1, 0, 0, 0, 0, share of time left]."""
        out = np.zeros((games.size, 2, GOAL_WIDTH), np.float32)
        out[..., 0] = 1.0
        out[..., 5] = self.time_left(env, games)[:, None]
        return out


class WalkOutcome(NamedTuple):
    """A walk episode that ended (``WalkDrill.outcome``), for ``WalkDrill.figure``."""

    game: int
    episode: int
    side: int
    success: bool
    seconds: float
    start_distance: float  # to the marked point, when the episode began
    distance_left: float  # ... when it ended
    path: float  # the length of the way walked, from decision to decision


class WalkDrill(Drill):
    """(a) walk to a marked point (the module's docstring)."""

    name = "walk"

    def __init__(self, config: DrillConfig, n_games: int, heroes: np.ndarray, seed: int, walk: np.ndarray):
        super().__init__(config, n_games, heroes, seed)
        self.walk = walk
        self.points = np.zeros((n_games, 2, 2))  # (game, side, xy)
        self.distance = np.zeros((n_games, 2))  # each hero's distance to its point after the last decision
        self.start_distance = np.zeros((n_games, 2))  # ... when its episode began
        self.path = np.zeros((n_games, 2))  # the length of the way it has walked since (from decision to decision)
        self.last_position = np.zeros((n_games, 2, 2))
        centres = (np.arange(GRID) + 0.5) * CELL
        self.cx, self.cy = np.meshgrid(centres, centres, indexing="ij")  # walk[i, j] is the cell at (x_i, y_j)
        self.allowed = [self._allowed_cells(side) for side in (0, 1)]
        self.lines: dict[tuple[int, int], np.ndarray] = {}  # per start cell: the cells a straight line reaches

    def _allowed_cells(self, side: int) -> np.ndarray:
        """(GRID, GRID) bool: walkable cells on ``side``'s own side of the river, clear of it, of the enemy's
        buildings and of the neutral camps."""
        across = (MAP_SIZE - self.cx - self.cy) / np.sqrt(2.0)  # signed distance from the river's middle line
        ok = (self.walk != 0) & ((across if side == 0 else -across) >= RIVER_HALF_WIDTH)
        for bx, by in BUILDING_POS[1 - side]:
            ok &= np.hypot(self.cx - bx, self.cy - by) >= SAFE_DISTANCE
        for px, py in list(CAMPS) + [BIG_NEUTRAL]:
            ok &= np.hypot(self.cx - px, self.cy - py) >= CAMP_CLEARANCE
        return ok

    def candidates(self, side: int, x: float, y: float) -> np.ndarray:
        """(GRID, GRID) bool: the cells a hero of ``side`` at (x, y) may be sent to."""
        d = np.hypot(self.cx - x, self.cy - y)
        out = self.allowed[side] & (d >= self.config.min_distance) & (d <= self.config.max_distance)
        cell = cell_of(x, y)  # the line is checked from the start cell's centre (heroes start at the fountain)
        if (cell, side) not in self.lines:
            ring = np.flatnonzero(out)
            seen = np.zeros(out.size, bool)
            seen[ring] = clear_line(self.walk, (cell[0] + 0.5) * CELL, (cell[1] + 0.5) * CELL,
                                    self.cx.flat[ring], self.cy.flat[ring])
            self.lines[(cell, side)] = seen.reshape(out.shape)
        return out & self.lines[(cell, side)]

    def positions(self, env, games: np.ndarray) -> np.ndarray:
        """(n, 2, xy) the heroes' positions."""
        uf = env.game.state.uf
        return np.stack([uf[games][:, self.heroes, X], uf[games][:, self.heroes, Y]], -1).astype(np.float64)

    def start(self, env, games: np.ndarray) -> None:
        where = self.positions(env, games)
        for i, g in enumerate(games):
            for side in (0, 1):
                x, y = where[i, side]
                cells = np.flatnonzero(self.candidates(side, x, y))
                if not cells.size:
                    raise ValueError(f"walk drill: no walkable cell on side {side}'s half at distance "
                                     f"[{self.config.min_distance:g}, {self.config.max_distance:g}] of ({x:.0f}, "
                                     f"{y:.0f}); widen drill.min_distance/drill.max_distance")
                c = cells[self.rng.integers(cells.size)]
                self.points[g, side] = self.cx.flat[c], self.cy.flat[c]
        self.distance[games] = np.hypot(*(self.points[games] - where).transpose(2, 0, 1))
        self.start_distance[games] = self.distance[games]
        self.path[games] = 0.0
        self.last_position[games] = where

    def goal_inputs(self, env, games: np.ndarray) -> np.ndarray:
        delta = self.points[games] - self.positions(env, games)
        out = np.zeros((games.size, 2, GOAL_WIDTH), np.float32)
        out[..., 0] = 1.0
        out[..., 1:3] = delta / POSITION_SCALE
        out[..., 5] = self.time_left(env, games)[:, None]
        return out

    def score(self, env, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        where = self.positions(env, games)
        now = np.hypot(*(self.points[games] - where).transpose(2, 0, 1))
        success = now <= self.config.radius
        reward = (self.distance[games] - now) / DISTANCE_SCALE + np.where(success, ARRIVAL_REWARD, 0.0)
        self.distance[games] = now
        self.path[games] += np.hypot(*(where - self.last_position[games]).transpose(2, 0, 1))
        self.last_position[games] = where
        return reward, success

    def outcome(self, game: int, side: int, success: bool, seconds: float) -> WalkOutcome:
        return WalkOutcome(*super().outcome(game, side, success, seconds), float(self.start_distance[game, side]),
                           float(self.distance[game, side]), float(self.path[game, side]))

    def figure(self, records: list[tuple]) -> dict:
        """``Drill.figure`` + how the heroes went, successes and failures apart: "detour" (the length of the
        way walked over the straight distance at the start, 1 for a straight walk) and "distance_left" (at the
        end; the failures are time-outs)."""
        out = super().figure(records)
        for name, wanted in (("successes", True), ("failures", False)):
            rows = [o for o in records if bool(o.success) == wanted]
            out[name] = {"detour": round(float(np.mean([o.path / o.start_distance for o in rows])), 2),
                         "distance_left": round(float(np.mean([o.distance_left for o in rows])), 1)} if rows else None
        return out


def lane_start(side: int) -> tuple[float, float]:
    """Where a hero of ``side`` starts in the mid lane: ``START_AHEAD`` ahead of its mid tier-1 tower, toward the
    river (the last-hit drill's learner; both heroes of a ``rollout.lane_start`` game)."""
    x, y = BUILDING_POS[side][MID_TIER1]
    step = START_AHEAD / np.sqrt(2.0) * (1.0 if side == 0 else -1.0)
    return float(x + step), float(y + step)


def last_hit_reward(config: DrillConfig, last_hits: np.ndarray, deaths: np.ndarray, misses=0) -> np.ndarray:
    """The last-hit reward (drill (b), and (c)/(d) with ``drill.reward = "lasthit"``): ``LAST_HIT_REWARD`` per last
    hit, -``drill.miss_penalty`` per enemy lane creep that died otherwise, -``drill.death_penalty`` per death of the
    learner's hero."""
    return LAST_HIT_REWARD * last_hits - config.miss_penalty * misses - config.death_penalty * deaths


class LastHitTally(NamedTuple):
    """A last-hit episode's figure, for the learner (``LastHitDrill.tallies``)."""

    game: int
    episode: int
    side: int  # the learner's
    last_hits: int  # the learner's, of enemy lane creeps
    creep_deaths: int  # enemy lane creeps that died in the episode
    hero_deaths: int  # the learner's hero's deaths


class LastHitDrill(Drill):
    """(b) last-hit the enemy's creep waves alone (the module's docstring)."""

    name = "lasthit"
    heroes_per_game = 1

    def __init__(self, config: DrillConfig, n_games: int, heroes: np.ndarray, seed: int):
        super().__init__(config, n_games, heroes, seed)
        self.side = np.zeros(n_games, np.int64)  # the learner's side in each game's episode
        self.enemy_creeps = np.zeros((n_games, MAX_UNITS), bool)  # living enemy lane creeps at the last look
        self.creep_xy = np.zeros((n_games, MAX_UNITS, 2))
        self.last_hits = np.zeros(n_games, np.int64)  # this episode's
        self.deaths = np.zeros(n_games, np.int64)
        self.unpaid = np.zeros(n_games, np.int64)  # last hits not yet rewarded (since the last decision)
        self.unpaid_misses = np.zeros(n_games, np.int64)  # ... and deaths that were not last hits
        self.deaths_at_start = np.zeros(n_games, np.int64)  # the learner hero's death count (hi DEATHS) at the start
        self.deaths_charged = np.zeros(n_games, np.int64)  # ... and at the last decision's end (its deaths paid)
        self.tallies: list[LastHitTally] = []  # with ``record``
        self.total_hits = self.total_deaths = self.total_hero_deaths = 0

    def _look(self, env) -> tuple[np.ndarray, np.ndarray]:
        """(games, units) the enemy lane creeps alive now, and every unit's position."""
        ui, uf = env.game.state.ui, env.game.state.uf
        kind = ui[:, :, KIND]
        lane_creep = (kind == K_CREEP_MELEE) | (kind == K_CREEP_RANGED) | (kind == K_CREEP_SIEGE)
        enemy = ui[:, :, TEAM] == (1 - self.side)[:, None]
        return (ui[:, :, ALIVE] != 0) & lane_creep & enemy, uf[:, :, [X, Y]].astype(np.float64)

    def _learner_deaths(self, env) -> np.ndarray:
        """(games,) how often each game's learner hero has died in the game (a count that only grows)."""
        return env.game.state.hi[np.arange(self.n), self.heroes[self.side], DEATHS].astype(np.int64)

    @property
    def hero_deaths(self) -> np.ndarray:
        """(games,) the learner hero's deaths in the episode, up to the last decision's end."""
        return self.deaths_charged - self.deaths_at_start

    def start(self, env, games: np.ndarray) -> None:
        self.side[games] = self.rng.integers(2, size=games.size)
        self.running[games, 1 - self.side[games]] = False  # the other hero is idle
        uf = env.game.state.uf
        for g in games:
            uf[g, self.heroes[self.side[g]], [X, Y]] = lane_start(int(self.side[g]))
        env.observe_games(games)  # the first observation sees the hero where it stands
        alive, xy = self._look(env)
        self.enemy_creeps[games], self.creep_xy[games] = alive[games], xy[games]
        self.last_hits[games] = self.deaths[games] = self.unpaid[games] = self.unpaid_misses[games] = 0
        self.deaths_at_start[games] = self.deaths_charged[games] = self._learner_deaths(env)[games]

    def after_step(self, env) -> None:
        """Count the enemy lane creeps that died since the last look, and the learner's last hits among them."""
        alive, xy = self._look(env)
        ui = env.game.state.ui
        respawned = alive & self.enemy_creeps & (np.hypot(*(xy - self.creep_xy).transpose(2, 0, 1)) > RESPAWN_JUMP)
        died = self.enemy_creeps & (~alive | respawned)
        mine = died & (ui[:, :, ALIVE] == 0) & (ui[:, :, KILLER_HERO] == self.heroes[self.side][:, None])
        on = self.running[np.arange(self.n), self.side]
        hits, deaths = np.where(on, mine.sum(1), 0), np.where(on, died.sum(1), 0)
        self.last_hits += hits
        self.unpaid += hits
        self.unpaid_misses += deaths - hits
        self.deaths += deaths
        self.enemy_creeps, self.creep_xy = alive, xy

    def goal_inputs(self, env, games: np.ndarray) -> np.ndarray:
        return self.flag_and_time(env, games)

    def score(self, env, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.after_step(env)  # the decision's last timestep
        deaths_now = self._learner_deaths(env)[games]  # a cumulative count: read once per decision, not per step
        reward = np.zeros((games.size, 2))
        reward[np.arange(games.size), self.side[games]] = last_hit_reward(
            self.config, self.unpaid[games], deaths_now - self.deaths_charged[games], self.unpaid_misses[games])
        self.unpaid[games] = self.unpaid_misses[games] = 0
        self.deaths_charged[games] = deaths_now
        return reward, np.zeros((games.size, 2), bool)  # no early success: the episode is its window

    def finish(self, game: int, side: int, success: bool, seconds: float) -> None:
        self.episodes += 1
        self.total_hits += int(self.last_hits[game])
        self.total_deaths += int(self.deaths[game])
        self.total_hero_deaths += int(self.hero_deaths[game])
        if self.record:
            self.tallies.append(LastHitTally(game, int(self.episode_index[game]), side, int(self.last_hits[game]),
                                             int(self.deaths[game]), int(self.hero_deaths[game])))

    def take_metrics(self) -> dict[str, float]:
        out = {"drill/episodes": float(self.episodes), "drill/last_hits": float(self.total_hits),
               "drill/creep_deaths": float(self.total_deaths), "drill/hero_deaths": float(self.total_hero_deaths)}
        if self.total_deaths:
            out["drill/success"] = self.total_hits / self.total_deaths
        self.episodes = self.total_hits = self.total_deaths = self.total_hero_deaths = 0
        return out

    def records(self) -> list[tuple]:
        return self.tallies

    def figure(self, records: list[tuple]) -> dict:
        return lasthit_figure(records)


def lasthit_figure(tallies: list[LastHitTally]) -> dict:
    """The last-hit drill's figure over its episodes' tallies: {"episodes", "last_hits", "creep_deaths", "success"
    (last hits / deaths, pooled; None without a death), "ci95" (Wilson over the creeps: deaths are the trials; creeps
    of one episode are not independent draws, so the interval is narrower than one over episodes would be),
    "per_episode_mean" (the mean of each episode's share, over the episodes with a death),
    "hero_deaths_per_episode" (the learner's)}."""
    hits = sum(t.last_hits for t in tallies)
    deaths = sum(t.creep_deaths for t in tallies)
    shares = [t.last_hits / t.creep_deaths for t in tallies if t.creep_deaths]
    low, high = wilson_interval(hits, deaths) if deaths else (0.0, 1.0)
    return {"episodes": len(tallies), "last_hits": int(hits), "creep_deaths": int(deaths),
            "success": round(hits / deaths, 4) if deaths else None, "ci95": [round(low, 4), round(high, 4)],
            "per_episode_mean": round(float(np.mean(shares)), 4) if shares else None,
            "hero_deaths_per_episode": round(sum(t.hero_deaths for t in tallies) / len(tallies), 4) if tallies
            else None}


WON, UNDECIDED, LOST = 1, 0, -1  # a match drill's game, for the learner
TALLIED = ("last_hits", "bot_last_hits", "deaths", "bot_deaths")  # MatchResult's counts: summed in training metrics,
                                                                 # averaged per game in the figure


class MatchResult(NamedTuple):
    """A match drill's episode at its game's end, for the learner (``MatchDrill.results``)."""

    game: int
    episode: int
    side: int  # the learner's
    outcome: int  # WON, UNDECIDED (the time limit) or LOST
    last_hits: int  # the learner's
    bot_last_hits: int
    tower_stands: bool  # the learner's mid tier-1 tower
    deaths: int  # the learner's hero's, in the game
    bot_deaths: int


class MatchDrill(Drill):
    """(c) hold and (d) duel: the game itself against a bot (the module's docstring). ``opponent_side`` is the
    worker's array of the side the bot plays in each game (``Opponents`` draws it before the drill's episode
    begins); the bot's rows are the bot's (``OpponentBots``), the learner's are training data."""

    heroes_per_game = 1
    others_idle = False
    windowed = False

    def __init__(self, config: DrillConfig, n_games: int, heroes: np.ndarray, seed: int, opponent_side: np.ndarray):
        super().__init__(config, n_games, heroes, seed)
        self.opponent_side = opponent_side
        self.results: list[MatchResult] = []  # with ``record``: every episode's result
        self.counts = dict.fromkeys(("won", "lost", *TALLIED), 0)  # since the last ``take_metrics``
        # drill.reward = "lasthit": the learner's last hits and deaths in the game already paid for
        self.paid_hits = np.zeros(n_games, np.int64)
        self.paid_deaths = np.zeros(n_games, np.int64)

    def start(self, env, games: np.ndarray) -> None:
        self.running[games, self.opponent_side[games]] = False  # the bot's side: the bot plays it
        self.paid_hits[games], self.paid_deaths[games] = self._learner_counts(env, games)

    def _learner_counts(self, env, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(n,) each game's learner hero's last hits and deaths in the game so far (counts that only grow)."""
        hi = env.game.state.hi[games, self.heroes[1 - self.opponent_side[games]]]
        return hi[:, LAST_HITS].astype(np.int64), hi[:, DEATHS].astype(np.int64)

    def _pay_last_hits(self, env, reward: np.ndarray) -> None:
        """``drill.reward = "lasthit"``: over ``reward`` (teams, K), the learner's last hits and deaths since the
        last decision, priced as the last-hit drill prices them; 0 on every other row."""
        games = np.arange(self.n)
        hits, deaths = self._learner_counts(env, games)
        paid = np.zeros((self.n, 2))
        learner = 1 - self.opponent_side
        paid[games, learner] = last_hit_reward(self.config, hits - self.paid_hits, deaths - self.paid_deaths)
        self.paid_hits, self.paid_deaths = hits, deaths
        self.write_reward(reward, paid)

    def goal_inputs(self, env, games: np.ndarray) -> np.ndarray:
        return self.flag_and_time(env, games)

    def result(self, env, g: int) -> MatchResult:
        """Game ``g``'s result for its learner now."""
        side = int(1 - self.opponent_side[g])
        winner = int(env.game.winner[g])
        hi, ui = env.game.state.hi, env.game.state.ui
        tower = SLOT_BUILDINGS + side * N_BUILDINGS_PER_TEAM + MID_TIER1
        return MatchResult(g, int(self.episode_index[g]), side,
                           outcome=UNDECIDED if winner < 0 else WON if winner == side else LOST,
                           last_hits=int(hi[g, self.heroes[side], LAST_HITS]),
                           bot_last_hits=int(hi[g, self.heroes[1 - side], LAST_HITS]),
                           tower_stands=bool(ui[g, tower, ALIVE]),
                           deaths=int(hi[g, self.heroes[side], DEATHS]),
                           bot_deaths=int(hi[g, self.heroes[1 - side], DEATHS]))

    def succeeded(self, result: MatchResult) -> bool:
        """The episode's success from its result: each match drill's own rule."""
        raise NotImplementedError

    def after_decision(self, env, reward: np.ndarray, ended: np.ndarray) -> np.ndarray:
        """The game's reward stays (or the last hits are paid, ``drill.reward``); the episodes of the games the
        game's rules ended are scored."""
        if self.config.reward == "lasthit":
            self._pay_last_hits(env, reward)
        for g in np.flatnonzero(ended & self.running.any(axis=1)):
            result = self.result(env, int(g))
            self.counts["won"] += result.outcome == WON
            self.counts["lost"] += result.outcome == LOST
            for key in TALLIED:
                self.counts[key] += getattr(result, key)
            if self.record:
                self.results.append(result)
            self.finish(int(g), result.side, self.succeeded(result), float(self.elapsed(env, np.array([g]))[0]))
        self.running[ended] = False
        self.episode_index[ended] += 1
        return np.zeros(self.n, bool)  # the drill ends no game

    def take_metrics(self) -> dict[str, float]:
        out = super().take_metrics()
        out.update({f"drill/{key}": float(value) for key, value in self.counts.items()})
        self.counts = dict.fromkeys(self.counts, 0)
        return out

    def records(self) -> list[MatchResult]:
        return self.results

    def figure(self, records: list[MatchResult]) -> dict:
        """The success share (Wilson) and how the games went: the shares won, undecided and lost, the mean last
        hits and deaths of the learner and of the bot per game, and the share of games whose end found the learner's
        tower standing."""
        n = len(records)
        success = sum(self.succeeded(r) for r in records)
        low, high = wilson_interval(success, n)
        share = (lambda k: round(k / n, 4)) if n else (lambda k: None)
        mean = (lambda values: round(float(np.mean(values)), 2)) if n else (lambda values: None)
        return {"episodes": n, "reached": int(success), "success": share(success),
                "ci95": [round(low, 4), round(high, 4)],
                "won": share(sum(r.outcome == WON for r in records)),
                "undecided": share(sum(r.outcome == UNDECIDED for r in records)),
                "lost": share(sum(r.outcome == LOST for r in records)),
                **{key: mean([getattr(r, key) for r in records]) for key in TALLIED},
                "tower_stands": share(sum(r.tower_stands for r in records))}


class HoldDrill(MatchDrill):
    name = "hold"

    def succeeded(self, result: MatchResult) -> bool:
        return result.outcome != LOST and result.tower_stands and result.last_hits > result.bot_last_hits


class DuelDrill(MatchDrill):
    name = "duel"

    def succeeded(self, result: MatchResult) -> bool:
        return result.outcome == WON


DRILLS = {"walk": WalkDrill, "lasthit": LastHitDrill, "hold": HoldDrill, "duel": DuelDrill}
assert tuple(DRILLS) == DRILL_NAMES, "runs.config.DRILL_NAMES lists the drills of DRILLS"
assert {name for name, d in DRILLS.items() if issubclass(d, MatchDrill)} == set(MATCH_DRILL_BOTS)


def make_drill(config: DrillConfig, n_games: int, heroes: np.ndarray, seed: int, walk: np.ndarray,
               opponent_side: np.ndarray) -> Drill:
    """The drill ``config.name`` on ``n_games`` game slots: the walk drill reads the walk grid ``walk``, the match
    drills the worker's ``opponent_side`` (the bot's side in each game)."""
    if config.name not in DRILLS:
        raise ValueError(f"unknown drill {config.name!r}; drills: {list(DRILLS)}")
    drill = DRILLS[config.name]
    if drill is WalkDrill:
        return WalkDrill(config, n_games, heroes, seed, walk)
    if issubclass(drill, MatchDrill):
        return drill(config, n_games, heroes, seed, opponent_side)
    return drill(config, n_games, heroes, seed)
