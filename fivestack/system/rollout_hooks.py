"""The rollout's features beside plain self-play, as hooks that the ``RolloutWorker`` composes.

``make_hooks`` builds them once from the config; the worker calls every hook at the same few points of its loop,
in list order. A hook implements only the points it needs (``RolloutHook`` has them all, as no-ops):

    new_games(worker, games)              games the worker just (re)started: choose who plays them
    redraw_opponents(worker, games)       choose those games' opponents again, before any play (only ``Opponents``)
    claim_rows(worker, owners)            the team rows its players take (``RolloutWorker.row_owners``)
    plays(owner) / act(worker, ...)       whether it plays the rows of an owner code, and their actions per decision
    between_steps(worker, env_actions, owners)  their actions at the timesteps between decisions
    view(worker, view)                    inputs it adds to the teams' observations
    before_act(worker, segment, i)        per-step extras before the learner's forward pass
    after_decision(worker, reward, terminated, truncated) -> terminated, truncated   and
    after_restarts(worker, segment, i)    a game flow of its own (games it ends and restarts itself)
    info(worker) -> dict                  its part of the segment's ``SampleBatch.info`` (counters taken)

    GameFeatures   anneal.feature        each new game's feature mask, drawn with the share the runner sets
                                         (``draw``; always there: without a feature, the patch's own)
    Opponents      pool.past_fraction,   each new game's opponent (LATEST, BOT or a past version) and its side,
                   pool.bot_fraction     in one draw per game; the past versions' forward passes
    OpponentBots   pool.bot_fraction     the bot's actions for its rows, at every timestep
    Teacher        ppo.teacher           the teacher bot's action in each team's place, at every step
    LaneStart      rollout.lane_start    a share of new 1v1 games begin with both heroes in the mid lane
    SelfPlay       asp.share             asymmetric self-play games (``asp_moba.MobaSelfPlay``): Alice's and the
                                         idle hero's rows, the goal input, Bob's reward, its own resets
    Drill          drill.name            a drill on every game (``drills.Drill``): the goal input, the drill's reward,
                                         its episodes' ends (the games it ends, terminated), the idle hero's rows
                                         (no orders, not training data), a look at the game after every timestep

A hook reads and writes the worker's shared state (``env``, ``rng``, ``opponent_version``, ``seconds``, ...): it
is a part of the worker, not a separate component. Every draw happens where it did when the worker did all of
this inline (``tests/system/test_golden_serial.py``).
"""

from __future__ import annotations

import time
from typing import Callable, Protocol

import numpy as np

from fivestack.bots.agents import make_bot
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import no_orders
from fivestack.game.layout import HEROES_PER_TEAM, N_ACTION_FIELDS, X, Y
from fivestack.game.patch import feature_mask, patch_features
from fivestack.match.inference import InferenceRequest, InferenceResult
from fivestack.model.policy import HEADS
from fivestack.runs.config import TrainConfig
from fivestack.system.annealing import draw_features
from fivestack.system.asp_moba import OWNER_ALICE, OWNER_IDLE, MobaSelfPlay
from fivestack.system.drills import OWNER_DRILL_IDLE, lane_start, make_drill
from fivestack.system.pool import BOT, LATEST

InferenceFn = Callable[[InferenceRequest], InferenceResult]


class OpponentSource(Protocol):
    def choose_opponent(self, rng: np.random.Generator, game: int) -> int: ...

    def release(self, game: int) -> None: ...

    def inference(self, version: int) -> InferenceFn: ...

    def in_play(self, versions: np.ndarray) -> None: ...


def bot_row_actions(bots: list, env: BatchedEnv, rows: np.ndarray, heroes: np.ndarray) -> np.ndarray:
    """(len(rows), K, 5) the actions of ``bots`` (one team agent per side) for team rows ``rows`` (game 2g + side),
    for the K heroes of each side in play (``heroes``, from ``active_heroes``), in env action space."""
    actions = np.empty((rows.size, heroes.shape[1], N_ACTION_FIELDS), np.int64)
    for side in (0, 1):
        mine = rows % 2 == side
        if mine.any():
            team = bots[side].act(env)  # (games, 5, 5), this team's heroes
            actions[mine] = team[rows[mine] // 2][:, heroes[side] - side * HEROES_PER_TEAM]
    return actions


def bot_result(actions: np.ndarray, request_state: tuple, version: int = -1) -> InferenceResult:
    """A bot's actions (rows, K, 5) as an inference result: no log-prob, value or state (zeros shaped as the
    request's), as its steps are not trained on; ``version`` a stamp (-1: none, as a part that the worker merges
    into the learner's result, which carries the learner's)."""
    rows, k = actions.shape[:2]
    zeros = np.zeros((rows, k), np.float32)
    state = tuple(np.zeros((rows * k, s.shape[-1]), s.dtype) for s in request_state)
    return InferenceResult(actions, np.zeros((rows, k, len(HEADS)), np.float32), zeros, zeros + 0.5, state, version)


class RolloutHook:
    """Every point of the worker's loop a hook may act at, as no-ops."""

    def new_games(self, worker, games: np.ndarray) -> None:
        pass

    def redraw_opponents(self, worker, games: np.ndarray) -> None:
        pass

    def claim_rows(self, worker, owners: np.ndarray) -> None:
        pass

    def plays(self, owner: int) -> bool:
        return False

    def act(self, worker, owner: int, rows: np.ndarray, request: InferenceRequest) -> InferenceResult:
        """The actions of team rows ``rows``, which ``owner`` (a player this hook ``plays``) plays. It may run in the
        worker's second thread while the learner's forward pass runs (``parallel_players``): read the request and
        the env, and change only this hook's own state."""
        raise NotImplementedError

    def between_steps(self, worker, env_actions: np.ndarray, owners: np.ndarray) -> np.ndarray:
        return env_actions

    def view(self, worker, view: dict[str, np.ndarray]) -> None:
        pass

    def before_act(self, worker, segment, i: int) -> None:
        pass

    def after_decision(self, worker, reward: np.ndarray, terminated: np.ndarray, truncated: np.ndarray):
        return terminated, truncated

    def after_restarts(self, worker, segment, i: int) -> None:
        pass

    def info(self, worker) -> dict:
        return {}


class GameFeatures(RolloutHook):
    """The feature masks of new games: ``anneal.feature`` with probability ``share`` (the runner sets it per
    segment), drawn with the worker's own feature generator; None without a feature (the patch's own)."""

    def __init__(self, config: TrainConfig, seed: int, share: float):
        self.feature = feature_mask([config.anneal.feature]) if config.anneal.feature else 0
        self.share = share
        self.rng = np.random.default_rng([int(seed), 0xFEA7])
        self.base = patch_features(config.game.patch)
        self.games_with_feature = 0  # new games drawn with the feature since the last segment

    def draw(self, n: int) -> np.ndarray | None:
        if not self.feature:
            return None
        drawn = draw_features(self.rng, n, self.share, self.feature)
        self.games_with_feature += int((drawn != 0).sum())
        return self.base | drawn

    def info(self, worker) -> dict:
        out = {"games_with_feature": self.games_with_feature}
        self.games_with_feature = 0
        return out


class Opponents(RolloutHook):
    """Each new game's opponent, in one draw per game: the bot with probability ``pool.bot_fraction``, else the
    pool's choice (``OpponentSource``: a past version or LATEST), then the side it plays; self-play games keep
    their own players. The past versions' forward passes, one per version in play, are timed as "past"."""

    def __init__(self, opponents: OpponentSource | None, bot_fraction: float):
        self.opponents = opponents
        self.bot_fraction = bot_fraction

    def new_games(self, worker, games: np.ndarray) -> None:
        games = games[~worker.self_play_games[games]]
        if self.opponents is not None:  # the games that end free their past version's slot
            for g in games:
                self.opponents.release(int(g))
        for g in games:
            if self.bot_fraction > 0 and worker.rng.random() < self.bot_fraction:
                worker.opponent_version[g] = BOT
            elif self.opponents is not None:
                worker.opponent_version[g] = self.opponents.choose_opponent(worker.rng, int(g))
            else:
                worker.opponent_version[g] = LATEST
            worker.opponent_side[g] = worker.rng.integers(2)
        if self.opponents is not None:
            self.opponents.in_play(np.unique(worker.opponent_version[worker.opponent_version >= 0]))

    def redraw_opponents(self, worker, games: np.ndarray) -> None:
        self.new_games(worker, games)

    def plays(self, owner: int) -> bool:
        return owner >= 0

    def act(self, worker, owner, rows, request):
        t0 = time.perf_counter()
        result = self.opponents.inference(int(owner))(request.select(rows))
        worker.seconds["past"] += time.perf_counter() - t0
        worker.past_passes += 1
        return result


class OpponentBots(RolloutHook):
    """The bot (``pool.bot``, one per side) plays the rows of the games that drew it, at every timestep (not only
    at the learner's decisions); its time is "bots"."""

    def __init__(self, name: str, seed: int):
        self.bots = [make_bot(name, team, seed) for team in (0, 1)]

    def plays(self, owner: int) -> bool:
        return owner == BOT

    def act(self, worker, owner, rows, request):
        t0 = time.perf_counter()
        result = bot_result(bot_row_actions(self.bots, worker.env, rows, worker.heroes), request.state)
        worker.seconds["bots"] += time.perf_counter() - t0
        return result

    def between_steps(self, worker, env_actions, owners):
        rows = np.flatnonzero(owners == BOT)
        if not rows.size:
            return env_actions
        t0 = time.perf_counter()
        env_actions = env_actions.copy()
        slots = worker.heroes[rows % 2]  # (rows, K)
        env_actions[(rows // 2)[:, None], slots] = bot_row_actions(self.bots, worker.env, rows, worker.heroes)
        worker.seconds["bots"] += time.perf_counter() - t0
        return env_actions


class Teacher(RolloutHook):
    """The labels of the optimizer's imitation term (``ppo.teacher``): at every step, the action the teacher bot
    would take in each team's place (``SampleBatch.teacher_actions``); its time is "teacher"."""

    def __init__(self, name: str, seed: int):
        self.teachers = [make_bot(name, team, seed) for team in (0, 1)]

    def before_act(self, worker, segment, i):
        t0 = time.perf_counter()
        segment.teacher_actions[i] = bot_row_actions(self.teachers, worker.env, np.arange(worker.n_teams),
                                                     worker.heroes)
        worker.seconds["teacher"] += time.perf_counter() - t0


class LaneStart(RolloutHook):
    """``rollout.lane_start``: each new 1v1 game, with that probability, begins with both heroes in the mid lane
    (``drills.lane_start``: just ahead of their own tier-1 tower) instead of their fountains, so that learning
    meets the lane from its first decision; a hero that dies respawns in its fountain as in any game. Its own
    random stream, so a run without it draws as before."""

    def __init__(self, share: float, seed: int):
        self.share = share
        self.rng = np.random.default_rng([int(seed), 0x1A4E])
        self.games_in_lane = 0  # new games begun in the lane since the last segment's info (the worker counts all)

    def new_games(self, worker, games):
        chosen = games[self.rng.random(games.size) < self.share]
        uf = worker.env.game.state.uf
        for side in (0, 1):
            x, y = lane_start(side)
            uf[chosen[:, None], worker.heroes[side], X] = x
            uf[chosen[:, None], worker.heroes[side], Y] = y
        worker.env.observe_games(chosen)  # the first observation sees the heroes where they stand
        self.games_in_lane += chosen.size

    def info(self, worker) -> dict:
        out = {"games_in_lane": self.games_in_lane}  # metrics.lane_start_metrics, beside the worker's games_started
        self.games_in_lane = 0
        return out


class SelfPlay(RolloutHook):
    """Asymmetric self-play on ``asp.share`` of the game slots (``MobaSelfPlay``): Alice's and the idle hero's rows
    are not the learner's, Bob's reward replaces the game's, and these games end and restart by their own rules."""

    def __init__(self, worker, config: TrainConfig, seed: int, first_seeds: np.ndarray):
        self.asp = MobaSelfPlay(config.asp, worker.n_games, worker.heroes, seed, worker.take_seeds)
        self.asp.begin(worker.env, first_seeds)
        worker.self_play_games = self.asp.is_game  # the opponents' draw leaves them out
        self.resets = (np.zeros(0, np.int64), np.zeros(0, np.uint64))  # the games to restart after this decision

    def claim_rows(self, worker, owners):
        self.asp.set_owners(owners)

    def plays(self, owner: int) -> bool:
        return owner in (OWNER_ALICE, OWNER_IDLE)

    def act(self, worker, owner, rows, request):
        return self.asp.result(rows, worker.k, request.state[0].shape[-1])

    def view(self, worker, view):
        view["goal"] = self.asp.goal_features(worker.env, worker.n_teams, worker.k)

    def before_act(self, worker, segment, i):
        self.asp.decide(worker.env)

    def after_decision(self, worker, reward, terminated, truncated):
        self.resets = self.asp.after_decision(worker.env, reward, terminated | truncated)
        return terminated & ~self.asp.is_game, truncated & ~self.asp.is_game

    def after_restarts(self, worker, segment, i):
        games, seeds = self.resets
        if not games.size:  # Bob's turn (Alice's seed again) or a new episode
            return
        worker.env.reset_games(games, seeds)
        self.asp.on_reset(worker.env, games)
        rows = np.concatenate([2 * games, 2 * games + 1])
        worker.first[rows] = 1.0
        segment.ends[i, rows] = 1.0
        segment.outcome[i, rows] = 0.5

    def info(self, worker) -> dict:
        return {"asp": self.asp.take_metrics()}


class Drill(RolloutHook):
    """A drill on every game slot (``drill.name``; ``fivestack.system.drills``): the heroes in the drill's episode
    are the learner, a hero it leaves out is idle (``OWNER_DRILL_IDLE``: no orders, its samples not training data)
    or, in a match drill, the bot's (``Opponents`` and ``OpponentBots``, with ``pool.bot_fraction = 1``), the
    drill's reward replaces the game's (a match drill keeps the game's), and the games end (terminated) when the
    drill says; the worker restarts them, and each restart begins a new drill episode."""

    def __init__(self, worker, config: TrainConfig, seed: int):
        self.drill = make_drill(config.drill, worker.n_games, worker.heroes, seed, worker.env.game.data.walk,
                                worker.opponent_side)

    def new_games(self, worker, games):
        self.drill.begin_games(worker.env, games)

    def claim_rows(self, worker, owners):
        owners[self.drill.idle.reshape(-1)] = OWNER_DRILL_IDLE  # team row 2g + side

    def plays(self, owner: int) -> bool:
        return owner == OWNER_DRILL_IDLE

    def act(self, worker, owner, rows, request):
        return bot_result(no_orders(rows.size, worker.k), request.state)

    def between_steps(self, worker, env_actions, owners):
        self.drill.after_step(worker.env)  # the timestep just played (the idle rows keep no orders: keep_orders)
        return env_actions

    def view(self, worker, view):
        view["goal"] = self.drill.goal_features(worker.env, worker.n_teams, worker.k)

    def after_decision(self, worker, reward, terminated, truncated):
        over = self.drill.after_decision(worker.env, reward, terminated | truncated)
        return terminated | over, truncated & ~over

    def info(self, worker) -> dict:
        return {"drill": self.drill.take_metrics()}


def make_hooks(worker, config: TrainConfig, seed: int, first_seeds: np.ndarray,
               opponents: OpponentSource | None) -> list[RolloutHook]:
    """The hooks of ``config``, in the order the worker calls them (the game features first), built in the order
    that the worker built them inline (self-play, whose first episodes begin on the env's first reset, the bots,
    the teacher); ``worker.features`` is the first."""
    self_play = SelfPlay(worker, config, seed, first_seeds) if config.asp.share > 0 else None
    bots = OpponentBots(config.pool.bot, seed) if config.pool.bot_fraction > 0 else None
    teacher = Teacher(config.ppo.teacher, seed) if config.ppo.teacher else None
    lane = LaneStart(config.rollout.lane_start, seed) if config.rollout.lane_start > 0 else None
    choice = Opponents(opponents, config.pool.bot_fraction) if opponents is not None or bots is not None else None
    drill = Drill(worker, config, seed) if config.drill.name else None
    return [h for h in (worker.features, choice, bots, teacher, lane, self_play, drill) if h is not None]
