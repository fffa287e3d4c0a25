"""Asymmetric self-play on the MOBA (repeat mode), as a share of the 1v1 rollout's games (``[asp]``).

A self-play game of the rollout worker runs episodes of two phases on one game slot:

    Alice  her own small policy (``fivestack.asp.policy.MLPPolicy``: separate parameters, REINFORCE with a
           baseline, as the paper) drives one side's hero from the game's start (seed s) with 17 moves
           (keep the order, move or attack-move 600 units in one of 8 directions) and STOP; her final hero
           state s* = (x, y, level, net worth) is the task. She stops by choice, at ``asp.alice_t_max``
           decisions, or when the game ends.
    Bob    the game is reset to the same seed s and the main policy (the learner, whose steps are the main
           PPO's training data) plays the same hero, told s* through the goal input (``goal_features``); he
           succeeds when his hero is within the tolerances of s* after one of his decisions, and fails at
           t_A + t_B = ``asp.t_max`` decisions or when the game ends.

The other side's hero stands still (no-op) in both phases, so that Bob's start is Alice's. Rewards are
``fivestack.asp.rewards``' (R_B at Bob's last decision, the game's own rewards are dropped in these games;
R_A for each of Alice's steps); Alice's and the idle hero's steps are not training data (their rows are not
the learner's, so the worker drops their samples), but every step counts as agent-steps, as played.

Outside these games the goal input is zeros (flag 0). Row owners ``OWNER_ALICE`` and ``OWNER_IDLE`` sit beside
``pool.LATEST`` and ``pool.BOT`` in ``RolloutWorker.row_owners``. The goal input's width, ``GOAL_WIDTH``, is the
config's (``runs.config``), which checks the policy has it.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from fivestack.asp.policy import MLPPolicy, UpdateBatch
from fivestack.asp.rewards import alice_reward, bob_reward, bob_time
from fivestack.asp.selfplay import ALICE, BOB  # the players, whose turn it is (the phase of a game)
from fivestack.game.kernels import goal_cells
from fivestack.game.layout import (A_ATTACK_MOVE, A_MOVE, ACT_OFFSET_X, ACT_OFFSET_Y, ACT_PRIMARY, ACT_TARGET, GOLD,
                                   HP, HP_MAX, IT_ID, LEVEL, MAP_SIZE, N_ACTION_FIELDS, X, Y)
from fivestack.game.patch import I_COST
from fivestack.match.inference import InferenceResult
from fivestack.model.policy import HEADS
from fivestack.runs.config import GOAL_WIDTH, AspConfig

OWNER_ALICE = -3  # row owners beside pool.LATEST (-1) and pool.BOT (-2)
OWNER_IDLE = -4
DIRECTIONS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]
N_ALICE_ACTIONS = 1 + 2 * len(DIRECTIONS) + 1  # keep order, 8 moves, 8 attack-moves, STOP (last, as asp.policy)
STOP = N_ALICE_ACTIONS - 1
ALICE_STEP = 600.0  # world units of one of her moves on each axis (the paper's longest move)
ALICE_INPUTS = 12
POSITION_SCALE, LEVEL_SCALE, GOLD_SCALE = 2000.0, 5.0, 1000.0


def hero_state(game, games: np.ndarray, heroes: np.ndarray) -> np.ndarray:
    """(n, 4) x, y, level, net worth of hero ``heroes[i]`` in game ``games[i]`` (a ``GameBatch``). Net worth (gold
    plus the cost of the items held) is the "gold" of a state: the scripted build spends gold on items by itself.
    Computed here, as the game's own NET_WORTH field is only refreshed by a step (not by a reset)."""
    s = game.state
    ids = s.items[games, heroes, :, IT_ID]
    items = np.where(ids >= 0, game.data.item_table[np.maximum(ids, 0), I_COST], 0.0).sum(-1)
    return np.stack([s.uf[games, heroes, X], s.uf[games, heroes, Y], s.hi[games, heroes, LEVEL],
                     s.hf[games, heroes, GOLD] + items], -1).astype(np.float64)


def reached(state: np.ndarray, goal: np.ndarray, config: "AspConfig") -> np.ndarray:
    """(n,) bool: each hero state (n, 4) is within the tolerances of its goal (n, 4)."""
    distance = np.hypot(state[:, 0] - goal[:, 0], state[:, 1] - goal[:, 1])
    return ((distance <= config.position_tolerance) & (np.abs(state[:, 2] - goal[:, 2]) <= config.level_tolerance)
            & (np.abs(state[:, 3] - goal[:, 3]) <= config.gold_tolerance))


def alice_env_actions(choice: np.ndarray, move_offsets: np.ndarray) -> np.ndarray:
    """Alice's choices (n,) -> game actions (n, 5): keep the order (and STOP), move or attack-move 600 world units
    (``ALICE_STEP`` on each axis) in one of 8 directions, as cells of the game's move table ``move_offsets``."""
    out = np.zeros((choice.size, N_ACTION_FIELDS), np.int64)
    out[:, ACT_TARGET] = -1
    out[:, ACT_OFFSET_X] = out[:, ACT_OFFSET_Y] = 4
    for i, (dx, dy) in enumerate(DIRECTIONS):
        ox, oy = goal_cells(ALICE_STEP * dx, ALICE_STEP * dy, move_offsets)
        for primary, a in ((A_MOVE, 1 + i), (A_ATTACK_MOVE, 1 + len(DIRECTIONS) + i)):
            rows = choice == a
            out[rows, ACT_PRIMARY] = primary
            out[rows, ACT_OFFSET_X] = ox
            out[rows, ACT_OFFSET_Y] = oy
    return out


class MobaSelfPlay:
    """The self-play games of one rollout worker: the first round(share x games) game slots.

        begin(env, seeds)              the first episodes (the worker reset every game with ``seeds``)
        set_owners(owners)             rows played by Alice / the idle hero / Bob (the learner)
        decide(env)                    Alice's actions for this decision (before the worker's inference)
        result(rows, version)          those actions (and the idle hero's) as an ``InferenceResult``
        goal_features(env)             (teams, K, GOAL_WIDTH) the learner's goal input, zeros outside Bob's turns
        after_decision(env, reward, ended) -> games to reset and their seeds; Bob's reward written into ``reward``
        on_reset(env, games)           after the worker reset them
        take_metrics()                 asp/* figures since the last call (and Alice's updates)
    """

    def __init__(self, config: "AspConfig", n_games: int, heroes: np.ndarray, seed: int,
                 take_seeds: Callable[[int], np.ndarray]):
        self.config = config
        self.n = int(round(config.share * n_games))
        self.games = np.arange(self.n)
        self.is_game = np.zeros(n_games, bool)
        self.is_game[self.games] = True
        self.heroes = heroes[:, 0]  # (2,) the hero index each side drives (1v1: K = 1)
        self.take_seeds = take_seeds
        self.rng = np.random.default_rng([int(seed), 0xA51CE])
        self.alice = MLPPolicy(1, ALICE_INPUTS, N_ALICE_ACTIONS, (32, 32), config.alice_learning_rate, self.rng,
                               entropy=0.01)
        self.side = np.zeros(self.n, np.int64)  # the side Alice (then Bob) plays
        self.phase = np.full(self.n, ALICE)
        self.seed = np.zeros(self.n, np.uint64)
        self.t_a = np.zeros(self.n, np.int64)
        self.t_b = np.zeros(self.n, np.int64)
        self.start = np.zeros((self.n, 4))
        self.goal = np.zeros((self.n, 4))
        self.stopped = np.zeros(self.n, bool)  # Alice chose STOP at this decision
        self.actions = np.zeros((self.n, N_ACTION_FIELDS), np.int64)  # this decision's actions of Alice's row
        self.actions[:, ACT_TARGET] = -1
        self.trajectory: list[list[tuple[np.ndarray, int, bool]]] = [[] for _ in range(self.n)]
        self.finished: list[tuple[list, float]] = []  # Alice's episodes waiting for an update, with R_A
        self.stats: dict[str, list[float]] = {k: [] for k in ("bob_success", "t_a", "t_b", "alice_reward",
                                                               "task_distance", "task_levels", "task_gold")}
        self.alice_updates = 0

    # ------------------------------------------------------------------ rows
    def alice_rows(self) -> np.ndarray:
        return 2 * self.games + self.side

    def set_owners(self, owners: np.ndarray) -> None:
        mine = self.alice_rows()
        owners[mine] = np.where(self.phase == ALICE, OWNER_ALICE, owners[mine])  # Bob: the learner (LATEST)
        owners[2 * self.games + 1 - self.side] = OWNER_IDLE

    def hero_states(self, env) -> np.ndarray:
        return hero_state(env.game, self.games, self.heroes[self.side])

    # ------------------------------------------------------------------ episodes
    def begin(self, env, seeds: np.ndarray) -> None:
        self.seed[:] = seeds[self.games]
        self.side[:] = self.rng.integers(2, size=self.n)
        self.on_reset(env, self.games)

    def on_reset(self, env, games: np.ndarray) -> None:
        """Record the start state of the games just reset (a new Alice episode, or Bob's turn from her start)."""
        if games.size:
            self.start[games] = hero_state(env.game, games, self.heroes[self.side[games]])

    def _alice_inputs(self, state: np.ndarray, which: np.ndarray) -> np.ndarray:
        g = self.games[which]
        h = self.heroes[self.side[which]]
        hp = self._hp[g, h] / np.maximum(self._hp_max[g, h], 1.0)

        def scaled(s):
            return np.stack([s[:, 0] / MAP_SIZE, s[:, 1] / MAP_SIZE, s[:, 2] / 25.0, s[:, 3] / 5000.0], -1)

        return np.concatenate([scaled(state), scaled(self.start[which]), hp[:, None],
                               (self.t_a[which] / self.config.alice_t_max)[:, None], self.side[which, None],
                               np.ones((which.size, 1))], -1).astype(np.float32)

    def decide(self, env) -> None:
        """Alice's move in each game where it is her turn; a STOP fixes her task (the state before it)."""
        self.stopped[:] = False
        self.actions[:, ACT_PRIMARY] = 0
        self.actions[:, ACT_OFFSET_X] = self.actions[:, ACT_OFFSET_Y] = 4
        which = np.flatnonzero(self.phase == ALICE)
        if not which.size:
            return
        self._hp, self._hp_max = env.game.state.uf[..., HP], env.game.state.uf[..., HP_MAX]
        state = self.hero_states(env)[which]
        inputs = self._alice_inputs(state, which)
        may_stop = self.t_a[which] >= 1  # she acts at least once
        choice, _ = self.alice.act(inputs, self.rng, may_stop)
        for i, j in enumerate(which):
            self.trajectory[j].append((inputs[i], int(choice[i]), bool(may_stop[i])))
        self.actions[which] = alice_env_actions(choice, env.game.data.move_offsets)
        stop = which[choice == STOP]
        self.stopped[stop] = True
        self.goal[stop] = state[choice == STOP]

    def result(self, rows: np.ndarray, k: int, lstm_size: int) -> InferenceResult:
        """Alice's (or the idle hero's: keep still) actions for team rows ``rows``, as a bot's result."""
        actions = np.zeros((rows.size, k, N_ACTION_FIELDS), np.int64)
        actions[..., ACT_TARGET] = -1
        actions[..., ACT_OFFSET_X] = actions[..., ACT_OFFSET_Y] = 4
        alice = self.alice_rows()
        for i, row in enumerate(rows):
            j = np.flatnonzero(alice == row)
            if j.size and self.phase[j[0]] == ALICE:
                actions[i, :] = self.actions[j[0]]
        zeros = np.zeros((rows.size, k), np.float32)
        state = tuple(np.zeros((rows.size * k, lstm_size), np.float32) for _ in range(2))
        return InferenceResult(actions, np.zeros((rows.size, k, len(HEADS)), np.float32), zeros, zeros + 0.5, state,
                               -1)  # no version: the worker merges it into the learner's result, which has one

    def goal_features(self, env, n_teams: int, k: int) -> np.ndarray:
        """(teams, K, GOAL_WIDTH): on Bob's rows [1, goal minus his hero's state (scaled), decisions left / t_max]."""
        out = np.zeros((n_teams, k, GOAL_WIDTH), np.float32)
        bob = np.flatnonzero(self.phase == BOB)
        if bob.size:
            delta = self.goal[bob] - self.hero_states(env)[bob]
            left = (self.config.t_max - self.t_a[bob] - self.t_b[bob]) / self.config.t_max
            out[self.alice_rows()[bob], :] = np.stack(
                [np.ones(bob.size), delta[:, 0] / POSITION_SCALE, delta[:, 1] / POSITION_SCALE,
                 delta[:, 2] / LEVEL_SCALE, delta[:, 3] / GOLD_SCALE, left], -1)[:, None, :]
        return out

    def after_decision(self, env, reward: np.ndarray, ended: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Advance every self-play game by the decision just played. ``reward`` (teams, K) is overwritten on these
        games' rows: 0, and R_B on Bob's row at his last decision. ``ended``: which games the env ended. Returns
        the games to reset and their seeds: Alice's start again for Bob's turn, a fresh seed after Bob's."""
        c = self.config
        rows = np.concatenate([2 * self.games, 2 * self.games + 1])
        reward[rows] = 0.0
        state = self.hero_states(env)
        done_ended = ended[self.games]
        resets, seeds = [], []
        alice = np.flatnonzero(self.phase == ALICE)
        self.t_a[alice] += 1
        bob = np.flatnonzero(self.phase == BOB)
        self.t_b[bob] += 1
        for j in alice:
            if self.stopped[j] or self.t_a[j] >= c.alice_t_max or done_ended[j]:
                if not self.stopped[j]:
                    self.goal[j] = state[j]  # her state where she had to stop
                self.phase[j] = BOB
                self.t_b[j] = 0
                resets.append(j)
                seeds.append(self.seed[j])
        success = reached(state[bob], self.goal[bob], c) if bob.size else np.zeros(0, bool)
        for i, j in enumerate(bob):
            if success[i] or self.t_a[j] + self.t_b[j] >= c.t_max or done_ended[j]:
                t_b = bob_time(self.t_a[j], self.t_b[j], bool(success[i]), c.t_max)
                reward[self.alice_rows()[j]] = bob_reward(t_b, c.reward_scale)
                r_a = float(alice_reward(self.t_a[j], t_b, c.reward_scale))
                self.finished.append((self.trajectory[j], r_a))
                self._record(j, bool(success[i]), int(t_b), r_a)
                self.trajectory[j] = []
                self.phase[j] = ALICE
                self.t_a[j] = self.t_b[j] = 0
                self.side[j] = self.rng.integers(2)
                self.seed[j] = self.take_seeds(1)[0]
                resets.append(j)
                seeds.append(self.seed[j])
        if len(self.finished) >= c.alice_batch:
            self._update_alice()
        return self.games[np.array(resets, np.int64)], np.array(seeds, np.uint64)

    def _record(self, j: int, success: bool, t_b: int, r_a: float) -> None:
        task = self.goal[j] - self.start[j]
        for key, value in (("bob_success", float(success)), ("t_a", float(self.t_a[j])), ("t_b", float(t_b)),
                           ("alice_reward", r_a), ("task_distance", float(np.hypot(task[0], task[1]))),
                           ("task_levels", float(task[2])), ("task_gold", float(task[3]))):
            self.stats[key].append(value)

    def _update_alice(self) -> None:
        """REINFORCE with the baseline head on the finished episodes: every step's return is its episode's R_A."""
        inputs = np.concatenate([np.stack([step[0] for step in steps]) for steps, _ in self.finished])
        actions = np.concatenate([[step[1] for step in steps] for steps, _ in self.finished]).astype(np.int64)
        may_stop = np.concatenate([[step[2] for step in steps] for steps, _ in self.finished]).astype(bool)
        returns = np.concatenate([np.full(len(steps), r_a) for steps, r_a in self.finished]).astype(np.float32)
        n = returns.size
        self.alice.update(UpdateBatch(inputs=inputs[None], actions=actions[None], returns=returns[None],
                                      weight=np.ones((1, n), np.float32), old_logp=np.zeros((1, n), np.float32),
                                      episodes=np.array([len(self.finished)]), stop_allowed=may_stop[None]))
        self.finished = []
        self.alice_updates += 1

    def take_metrics(self) -> dict[str, float]:
        """Means over the self-play episodes finished since the last call (none: only the counters)."""
        out = {"asp/episodes": float(len(self.stats["bob_success"])), "asp/alice_updates": float(self.alice_updates)}
        for key, values in self.stats.items():
            if values:
                out[f"asp/{key}"] = float(np.mean(values))
            values.clear()
        return out
