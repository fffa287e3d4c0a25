"""The rollout worker: plays N self-play games with an inference callable and sends 256-step segments,
cut into 16-step samples, each with the LSTM state at its start and the parameter version it came from.

Games that end are restarted at once with fresh seeds (the ``first`` flag resets the LSTM state there);
a truncated game is bootstrapped with the value of its last observation. With ``rollout.decision_steps = k``
a step of the segment is one decision: the actions, then k - 1 timesteps in which every hero keeps its
order; its reward is the shaped reward summed over the k timesteps, and it counts k agent-steps.

With an opponent source (``fivestack.system.pool.PastOpponents``), each new game is either latest vs latest
or latest vs a past version on a random side, taken from one of the worker's ``pool.opponent_slots`` slots (at
most that many past versions, one forward pass each, per decision); the past version plays that team for the
whole game, with its own LSTM state started fresh, and its team's steps are not training data (a 16-step sample is kept only if
the latest version played every one of its steps). With ``pool.bot_fraction > 0`` that share of new games is
played against a bot (``pool.bot``, the scripted team by default) on a random side, in the same way: the bot
acts at every timestep (not only at the learner's decisions) and its team's steps are not training data.

With a teacher (``ppo.teacher``, a bot name), every step of the segment also carries the action the teacher bot
would take in each team's place (``SampleBatch.teacher_actions``; -1 everywhere without one): the labels of the
optimizer's imitation term, taken on the states the policy itself visits.

With ``asp.share > 0`` (1v1), that share of the game slots plays asymmetric self-play instead
(``fivestack.system.asp_moba``): Alice's and the idle hero's rows are not the learner's (their samples are
dropped), Bob's are, with the self-play reward in place of the game's; the observations carry the ``goal``
group (zeros outside Bob's turns).
"""

from __future__ import annotations

import time
from typing import Callable, Protocol

import numpy as np

from fivestack.bots.agents import make_bot
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.game.patch import feature_mask, patch_features
from fivestack.game.layout import HEROES_PER_TEAM, N_ACTION_FIELDS, N_EVENTS, N_HEROES, STEP_SECONDS
from fivestack.rl.gae import gae, gamma_from_horizon
from fivestack.rl.rewards import shaped_reward
from fivestack.system.annealing import draw_features
from fivestack.system.asp_moba import ALICE, IDLE, MobaSelfPlay
from fivestack.runs.config import TrainConfig, reward_weights
from fivestack.match.inference import initial_state
from fivestack.system.messages import SampleBatch
from fivestack.match.inference import InferenceRequest, InferenceResult
from fivestack.match.teams import active_heroes, team_view
from fivestack.system.pool import BOT, LATEST

InferenceFn = Callable[[InferenceRequest], InferenceResult]
# where a segment's time goes beside the simulation (``SampleBatch.info``): the learner's forward passes, the past
# versions', the teacher's labels (``ppo.teacher``), the opponent bot's decisions (``pool.bot_fraction``)
TIMED = ("learner", "past", "teacher", "bots")


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


class RolloutWorker:
    def __init__(self, config: TrainConfig, seed: int, opponents: OpponentSource | None = None,
                 reuse_buffers: bool = False, feature_share: float = 0.0):
        """``reuse_buffers``: each segment's observations are written into the same arrays, which the next
        ``collect`` overwrites (for a caller that has copied or sent the segment by then): no fresh pages for
        the ~355 MB of a 5v5 segment at each segment."""
        self.config = config
        self.reuse_buffers = reuse_buffers
        self._seg_obs: dict[str, np.ndarray] | None = None
        self.opponents = opponents
        self.rng = np.random.default_rng([int(seed), 0x0770])
        game = GameConfig(mode=config.game.mode, max_seconds=config.game.max_seconds, training=config.game.training,
                          randomise=config.game.randomise, lineups=config.game.lineups, patch=config.game.patch)
        self.env = BatchedEnv(config.rollout.games, game)
        self.feature = feature_mask([config.anneal.feature]) if config.anneal.feature else 0  # annealed in
        self.feature_share = feature_share  # share of new games with it (the runner sets it per segment)
        self.feature_rng = np.random.default_rng([int(seed), 0xFEA7])
        self.base_features = patch_features(config.game.patch)
        self.games_started = self.games_with_feature = 0  # since the last segment
        self.n_games = config.rollout.games
        self.heroes = active_heroes(config.game.mode)
        self.k = self.heroes.shape[1]
        self.n_teams = 2 * self.n_games
        self.hero_slots = np.tile(self.heroes, (self.n_games, 1)).astype(np.int64)  # (T, K)
        self.decision_steps = config.rollout.decision_steps
        self.reward_weights = reward_weights(config.reward)
        self.keep_orders = self._env_actions(np.zeros((self.n_teams, self.k, N_ACTION_FIELDS), np.int64))
        self.keep_orders[..., 2] = -1  # no-ops: every hero keeps its order
        self.gamma = gamma_from_horizon(config.ppo.horizon_seconds, STEP_SECONDS * self.decision_steps)
        self.next_seed = int(seed) * 1_000_003
        first_seeds = self._take_seeds(self.n_games)
        self.obs = self.env.reset(first_seeds, self._new_features(self.n_games))
        self.asp = MobaSelfPlay(config.asp, self.n_games, self.heroes, seed, self._take_seeds) \
            if config.asp.share > 0 else None
        if self.asp is not None:
            self.asp.begin(self.env, first_seeds)
        self.bot_fraction = config.pool.bot_fraction
        self.bots = [make_bot(config.pool.bot, team, seed) for team in (0, 1)] if self.bot_fraction > 0 else None
        self.teachers = [make_bot(config.ppo.teacher, team, seed) for team in (0, 1)] if config.ppo.teacher else None
        self.opponent_version = np.full(self.n_games, LATEST, np.int64)  # per game: LATEST, BOT or a past version
        self.opponent_side = np.zeros(self.n_games, np.int64)  # the team the past version plays
        self._choose_opponents(np.arange(self.n_games))
        self.state = initial_state(self.n_teams * self.k, config.policy.lstm_size)
        self.first = np.ones(self.n_teams, np.float32)
        self.results: list[dict] = []  # finished games since the last segment
        self.played = False  # a segment has been collected
        self.seconds = dict.fromkeys(TIMED, 0.0)  # where the segment's time went, beside the simulation
        self.past_passes = 0  # past versions' forward passes in the segment

    def _take_seeds(self, n: int) -> np.ndarray:
        seeds = np.arange(self.next_seed, self.next_seed + n, dtype=np.uint64)
        self.next_seed += n
        return seeds

    def _new_features(self, n: int) -> np.ndarray | None:
        """The feature masks of ``n`` new games (None without an annealed feature: the patch's own)."""
        if not self.feature:
            return None
        drawn = draw_features(self.feature_rng, n, self.feature_share, self.feature)
        self.games_started += n
        self.games_with_feature += int((drawn != 0).sum())
        return self.base_features | drawn

    def _choose_opponents(self, games: np.ndarray) -> None:
        """An opponent for each new game: the bot (``pool.bot_fraction``), else the pool's choice."""
        if self.opponents is None and self.bots is None:
            return
        if self.asp is not None:  # self-play games have their own players
            games = games[~self.asp.is_game[games]]
        if self.opponents is not None:  # the games that end free their past version's slot
            for g in games:
                self.opponents.release(int(g))
        for g in games:
            if self.bots is not None and self.rng.random() < self.bot_fraction:
                self.opponent_version[g] = BOT
            elif self.opponents is not None:
                self.opponent_version[g] = self.opponents.choose_opponent(self.rng, int(g))
            else:
                self.opponent_version[g] = LATEST
            self.opponent_side[g] = self.rng.integers(2)
        if self.opponents is not None:
            self.opponents.in_play(np.unique(self.opponent_version[self.opponent_version >= 0]))

    def redraw_opponents(self) -> None:
        """Choose every game's opponent again, before the worker's first decision (e.g. once the opponent pool has
        been filled after the worker was made); a game in progress never changes opponents."""
        if self.played:
            raise RuntimeError("redraw_opponents is for a worker that has not played yet: games are in progress")
        self._choose_opponents(np.arange(self.n_games))

    def row_owners(self) -> np.ndarray:
        """(T,) who plays each team row: LATEST, BOT, or the past version of that game."""
        owners = np.full(self.n_teams, LATEST, np.int64)
        other = np.flatnonzero(self.opponent_version != LATEST)
        owners[2 * other + self.opponent_side[other]] = self.opponent_version[other]
        if self.asp is not None:
            self.asp.set_owners(owners)
        return owners

    def _act(self, infer: InferenceFn, request: InferenceRequest) -> InferenceResult:
        """Actions for every team: the learner's batched forward pass, one per past version in play, the bot's."""
        owners = self.row_owners()
        seconds = self.seconds
        t0 = time.perf_counter()
        if (owners == LATEST).all():
            result = infer(request)
            seconds["learner"] += time.perf_counter() - t0
            return result
        learner = np.flatnonzero(owners == LATEST)
        mine = infer(request.select(learner))
        seconds["learner"] += time.perf_counter() - t0
        parts = [(learner, mine)]
        for version in np.unique(owners[owners != LATEST]):
            rows = np.flatnonzero(owners == version)
            t0 = time.perf_counter()
            if version == BOT:
                parts.append((rows, self._bot_result(rows, request, mine.version)))
                seconds["bots"] += time.perf_counter() - t0
            elif version in (ALICE, IDLE):
                parts.append((rows, self.asp.result(rows, mine.version, self.k, request.state[0].shape[-1])))
            else:
                parts.append((rows, self.opponents.inference(int(version))(request.select(rows))))
                seconds["past"] += time.perf_counter() - t0
                self.past_passes += 1
        return InferenceResult.merge(self.n_teams, parts, mine.version)

    def _bot_actions(self, bots: list, rows: np.ndarray) -> np.ndarray:
        """(len(rows), K, 5) the actions of ``bots`` (one per side: the opponent bots or the teachers) for team
        rows ``rows`` (game 2g + side), in env action space."""
        return bot_row_actions(bots, self.env, rows, self.heroes)

    def _bot_result(self, rows: np.ndarray, request: InferenceRequest, version: int) -> InferenceResult:
        """The bot's actions as an inference result (no log-prob, value or state: its steps are not trained on)."""
        zeros = np.zeros((rows.size, self.k), np.float32)
        state = tuple(np.zeros((rows.size * self.k, s.shape[-1]), s.dtype) for s in request.state)
        return InferenceResult(self._bot_actions(self.bots, rows), zeros, zeros, zeros + 0.5, state, version)

    def _env_actions(self, actions: np.ndarray) -> np.ndarray:
        out = np.zeros((self.n_games, N_HEROES, N_ACTION_FIELDS), np.int64)
        out[..., 2] = -1
        out[:, self.heroes.reshape(-1)] = actions.reshape(self.n_games, 2 * self.k, N_ACTION_FIELDS)
        return out

    def _play_decision(self, actions: np.ndarray, team_spirit: float, event_sums: np.ndarray):
        """Play one decision: the actions, then ``rollout.decision_steps - 1`` timesteps in which every hero
        keeps its order (a no-op continues a move or an attack). Returns the shaped reward summed over those
        timesteps (T, K), which games terminated or were truncated during them, and the last step's info; a
        game that ends stays finished (no events) for the rest of the decision."""
        reward = np.zeros((self.n_teams, self.k), np.float32)
        terminated = np.zeros(self.n_games, bool)
        truncated = np.zeros(self.n_games, bool)
        env_actions = self._env_actions(actions)
        bot_rows = np.flatnonzero(self.row_owners() == BOT)
        for step in range(self.decision_steps):
            last = step == self.decision_steps - 1  # observations are encoded only where the policy looks
            if step > 0:
                env_actions = self.keep_orders
                if bot_rows.size:  # the bot decides at every timestep
                    t0 = time.perf_counter()
                    env_actions = env_actions.copy()
                    games = bot_rows // 2
                    slots = self.heroes[bot_rows % 2]  # (rows, K)
                    env_actions[games[:, None], slots] = self._bot_actions(self.bots, bot_rows)
                    self.seconds["bots"] += time.perf_counter() - t0
            self.obs, events, term, trunc, info = self.env.step(env_actions, observe=last)
            team_events = events[:, self.heroes]  # (games, 2, K, E)
            event_sums += team_events.reshape(-1, N_EVENTS).sum(0)
            reward += shaped_reward(team_events, info["seconds"], team_spirit,
                                    self.reward_weights).reshape(self.n_teams, self.k)
            terminated |= term
            truncated |= trunc
        return reward, terminated, truncated, info

    def _view(self) -> dict[str, np.ndarray]:
        """The teams' observations, with the goal input during self-play (zeros outside Bob's turns); without
        self-play the policy reads zeros for a goal it was built with (``Policy``'s trunk)."""
        view = team_view(self.obs, self.heroes)
        if self.asp is not None:
            view["goal"] = self.asp.goal_features(self.env, self.n_teams, self.k)
        return view

    def _segment_obs(self, first_view: dict[str, np.ndarray], n_samples: int, sample_steps: int):
        shapes = {name: ((n_samples, arr.shape[0], sample_steps, *arr.shape[1:]), arr.dtype)
                  for name, arr in first_view.items()}
        cached = self._seg_obs
        if cached is not None and all(name in cached and (cached[name].shape, cached[name].dtype) == shape
                                      for name, shape in shapes.items()):
            return cached
        seg_obs = {name: np.empty(shape, dtype) for name, (shape, dtype) in shapes.items()}
        if self.reuse_buffers:
            self._seg_obs = seg_obs
        return seg_obs

    def collect(self, infer: InferenceFn, team_spirit: float, keep_all: bool = False) -> SampleBatch:
        """Play one segment (``rollout.segment_steps`` steps of every game) and return it as samples.

        Samples in which a past version played are not training data: they are dropped, or with ``keep_all``
        kept and the trainable ones listed in ``info["trainable"]`` (the receiver drops the others; the
        segment is not copied here to leave them out)."""
        steps, sample_steps = self.config.rollout.segment_steps, self.config.rollout.sample_steps
        n_samples = steps // sample_steps
        t, k = self.n_teams, self.k
        first_view = self._view()
        # observations are stored sample-major from the start, (samples, teams, sample_steps, ...), so that
        # cutting the segment into samples costs nothing
        seg_obs = self._segment_obs(first_view, n_samples, sample_steps)
        actions = np.empty((steps, t, k, N_ACTION_FIELDS), np.int64)
        teacher_actions = np.full((steps, t, k, N_ACTION_FIELDS), -1, np.int64)
        log_prob = np.empty((steps, t, k), np.float32)
        values = np.empty((steps, t, k), np.float32)
        rewards = np.empty((steps, t, k), np.float32)
        firsts = np.empty((steps, t), np.float32)
        learner = np.empty((steps, t), bool)  # the latest version played this team at this step
        ends = np.zeros((steps, t), np.float32)
        outcome = np.zeros((steps, t), np.float32)
        h0 = np.empty((n_samples, t * k, self.state[0].shape[1]), np.float32)
        c0 = np.empty_like(h0)
        event_sums = np.zeros(N_EVENTS, np.float64)
        inference_s = simulation_s = 0.0
        self.played = True
        self.seconds = dict.fromkeys(TIMED, 0.0)
        self.past_passes = 0
        version = -1
        for i in range(steps):
            view = self._view()
            for name, arr in view.items():
                seg_obs[name][i // sample_steps, :, i % sample_steps] = arr
            if i % sample_steps == 0:
                h0[i // sample_steps], c0[i // sample_steps] = self.state
            request = InferenceRequest(view, self.hero_slots, self.state, self.first)
            t0 = time.perf_counter()
            learner[i] = self.row_owners() == LATEST
            if self.teachers is not None:
                teacher_actions[i] = self._bot_actions(self.teachers, np.arange(t))
                self.seconds["teacher"] += time.perf_counter() - t0
            if self.asp is not None:
                self.asp.decide(self.env)
            result = self._act(infer, request)
            t1 = time.perf_counter()
            version = result.version if version < 0 else version
            actions[i], log_prob[i], values[i], firsts[i] = result.actions, result.log_prob, result.value, self.first
            bots_before = self.seconds["bots"]
            reward, terminated, truncated, info = self._play_decision(result.actions, team_spirit, event_sums)
            t2 = time.perf_counter()
            inference_s += t1 - t0
            simulation_s += t2 - t1 - (self.seconds["bots"] - bots_before)  # the env alone, not the bot's decisions
            asp_resets = None
            if self.asp is not None:  # self-play games end and restart by their own rules
                asp_resets = self.asp.after_decision(self.env, reward, terminated | truncated)
                terminated, truncated = terminated & ~self.asp.is_game, truncated & ~self.asp.is_game
            ended = terminated | truncated
            if truncated.any():  # bootstrap a cut-off game from the value of its last observation
                last = self._act(infer, InferenceRequest(self._view(), self.hero_slots,
                                                         result.state, np.zeros(t, np.float32)))
                cut = np.repeat(truncated, 2)
                reward[cut] += self.gamma * last.value[cut]
            rewards[i] = reward
            self.state = result.state
            self.first = np.repeat(ended, 2).astype(np.float32)
            if ended.any():
                done = np.flatnonzero(ended)
                ends[i] = self.first
                for g in done:
                    winner = int(info["winner"][g])
                    outcome[i, 2 * g] = 0.5 if winner < 0 else float(winner == 0)
                    outcome[i, 2 * g + 1] = 0.5 if winner < 0 else float(winner == 1)
                    self.results.append({"winner": winner, "seconds": float(info["seconds"][g]),
                                         "truncated": bool(truncated[g]),
                                         "opponent": int(self.opponent_version[g]),
                                         "opponent_side": int(self.opponent_side[g]),
                                         "features": int(self.env.game.features[g])})
                self.env.reset_games(done, self._take_seeds(done.size), self._new_features(done.size))
                self._choose_opponents(done)
            if asp_resets is not None and asp_resets[0].size:  # Bob's turn (Alice's seed again) or a new episode
                games, seeds = asp_resets
                self.env.reset_games(games, seeds)
                self.asp.on_reset(self.env, games)
                rows = np.concatenate([2 * games, 2 * games + 1])
                self.first[rows] = 1.0
                ends[i, rows] = 1.0
                outcome[i, rows] = 0.5
        # bootstrap the segment's end from the value (and win probability) of the next observation
        last = self._act(infer, InferenceRequest(self._view(), self.hero_slots, self.state, self.first))
        advantages, returns = gae(rewards, values, ends[..., None], last.value, self.gamma, self.config.ppo.gae_lambda)
        win_target = np.empty_like(values)
        target = last.win_prob
        for i in range(steps - 1, -1, -1):
            target = np.where(ends[i][:, None] > 0, outcome[i][:, None], target)
            win_target[i] = target
        samples = self._cut(seg_obs, actions, teacher_actions, log_prob, advantages, returns, win_target, firsts, h0,
                            c0, version)
        trainable = learner.reshape(-1, self.config.rollout.sample_steps, t).all(axis=1).reshape(-1)
        if not trainable.all() and not keep_all:  # drop samples in which a past version played (not on-policy)
            samples = samples.select(np.flatnonzero(trainable))
        samples.info = {"trainable": np.flatnonzero(trainable) if keep_all else np.arange(len(samples)),
                        "event_sums": event_sums, "hero_steps": steps * t * k * self.decision_steps, "games": self.results,
                        "reward_abs_mean": float(np.abs(rewards).mean()), "inference_seconds": inference_s,
                        "past_opponent_steps": int((~learner).sum()) * k * self.decision_steps,
                        "simulation_seconds": simulation_s, "games_started": self.games_started,
                        "learner_inference_seconds": self.seconds["learner"],
                        "past_inference_seconds": self.seconds["past"], "teacher_seconds": self.seconds["teacher"],
                        "bot_seconds": self.seconds["bots"], "past_forward_passes": self.past_passes,
                        "decisions": steps,
                        "games_with_feature": self.games_with_feature,
                        "asp": self.asp.take_metrics() if self.asp is not None else {}}
        self.results = []
        self.games_started = self.games_with_feature = 0
        return samples

    def _cut(self, seg_obs, actions, teacher_actions, log_prob, advantages, returns, win_target, firsts, h0, c0,
             version) -> SampleBatch:
        """(L_segment, T, ...) arrays -> (samples * T, L_sample, ...), sample-major then team."""
        sample_steps = self.config.rollout.sample_steps
        n_samples = firsts.shape[0] // sample_steps
        t, k = self.n_teams, self.k

        def cut(arr: np.ndarray) -> np.ndarray:
            arr = arr.reshape(n_samples, sample_steps, t, *arr.shape[2:])
            arr = np.swapaxes(arr, 1, 2)
            return np.ascontiguousarray(arr.reshape(n_samples * t, sample_steps, *arr.shape[3:]))

        state_shape = (n_samples * t, k, h0.shape[-1])
        return SampleBatch(
            obs={name: arr.reshape(n_samples * t, *arr.shape[2:]) for name, arr in seg_obs.items()},
            hero_slots=np.tile(self.hero_slots, (n_samples, 1)), actions=cut(actions),
            teacher_actions=cut(teacher_actions), log_prob=cut(log_prob),
            advantages=cut(advantages), returns=cut(returns), win_target=cut(win_target), first=cut(firsts),
            h0=h0.reshape(state_shape), c0=c0.reshape(state_shape),
            version=np.full(n_samples * t, version, np.int64))
