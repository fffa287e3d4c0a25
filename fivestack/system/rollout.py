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

With ``drill.name`` (1v1), every game plays a drill (``fivestack.system.drills``): both heroes are the learner, the
drill's reward replaces the game's, the observations carry its ``goal`` group, and the drill ends the games
(terminated) when both heroes' episodes are over.

Each of these features is a hook (``rollout_hooks.py``, built once from the config by ``make_hooks``), so that
``collect`` is the plain self-play loop: observe, act (the learner's forward pass; the rows the hooks own get
their players' actions), play the decision, bootstrap what was cut off, restart the games that ended, and cut
the segment into samples (``Segment``).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import no_orders
from fivestack.game.layout import N_ACTION_FIELDS, N_EVENTS, N_HEROES, STEP_SECONDS
from fivestack.match.inference import InferenceRequest, InferenceResult, initial_state
from fivestack.match.decisions import play_decision
from fivestack.match.teams import active_heroes, team_view
from fivestack.model.policy import HEADS
from fivestack.rl.gae import gae, gamma_from_horizon
from fivestack.runs.config import GOAL_OFFSET, GOAL_WIDTH, TrainConfig, reward_weights
from fivestack.system.messages import SampleBatch
from fivestack.system.pool import LATEST
from fivestack.system.rollout_hooks import GameFeatures, InferenceFn, OpponentSource, bot_row_actions, make_hooks

TURNED_GOAL = np.where(np.isin(np.arange(GOAL_WIDTH), GOAL_OFFSET), -1.0, 1.0).astype(np.float32)  # a turned goal

__all__ = ["RolloutWorker", "Segment", "InferenceFn", "OpponentSource", "TIMED", "bot_row_actions"]

# where a segment's time goes beside the simulation (``SampleBatch.info``): the learner's forward passes, the past
# versions', the teacher's labels (``ppo.teacher``), the opponent bot's decisions (``pool.bot_fraction``)
TIMED = ("learner", "past", "teacher", "bots")


class Segment:
    """One segment's arrays as ``collect`` fills them, step-major (steps, teams, ...). The observations are stored
    sample-major from the start, (samples, teams, sample_steps, ...), so that cutting the segment into samples
    costs nothing."""

    def __init__(self, obs: dict[str, np.ndarray], steps: int, sample_steps: int, teams: int, k: int,
                 lstm_size: int):
        self.obs = obs
        self.steps, self.sample_steps = steps, sample_steps
        self.actions = np.empty((steps, teams, k, N_ACTION_FIELDS), np.int64)
        self.teacher_actions = np.full((steps, teams, k, N_ACTION_FIELDS), -1, np.int64)
        self.head_log_prob = np.empty((steps, teams, k, len(HEADS)), np.float32)
        self.values = np.empty((steps, teams, k), np.float32)
        self.rewards = np.empty((steps, teams, k), np.float32)
        self.firsts = np.empty((steps, teams), np.float32)
        self.learner = np.empty((steps, teams), bool)  # the latest version played this team at this step
        self.ends = np.zeros((steps, teams), np.float32)
        self.outcome = np.zeros((steps, teams), np.float32)
        self.h0 = np.empty((steps // sample_steps, teams * k, lstm_size), np.float32)  # LSTM state at each sample's start
        self.c0 = np.empty_like(self.h0)
        self.event_sums = np.zeros(N_EVENTS, np.float64)
        self.inference_s = self.simulation_s = 0.0
        self.version = -1  # the parameter version that played the segment

    def store(self, i: int, result: InferenceResult, first: np.ndarray) -> None:
        self.version = result.version if self.version < 0 else self.version
        self.actions[i], self.head_log_prob[i], self.values[i], self.firsts[i] = (result.actions, result.head_log_prob,
                                                                             result.value, first)

    def win_targets(self, last_win_prob: np.ndarray) -> np.ndarray:
        """Each step's win target: the outcome of the game it belongs to, or the bootstrap's win probability for a
        game still running at the segment's end."""
        win_target = np.empty_like(self.values)
        target = last_win_prob
        for i in range(self.steps - 1, -1, -1):
            target = np.where(self.ends[i][:, None] > 0, self.outcome[i][:, None], target)
            win_target[i] = target
        return win_target

    def trainable(self) -> np.ndarray:
        """(samples * teams,) the samples whose every step the latest version played."""
        return self.learner.reshape(-1, self.sample_steps, self.learner.shape[1]).all(axis=1).reshape(-1)

    def samples(self, advantages: np.ndarray, returns: np.ndarray, win_target: np.ndarray,
                hero_slots: np.ndarray) -> SampleBatch:
        """(L_segment, T, ...) arrays -> (samples * T, L_sample, ...), sample-major then team."""
        sample_steps = self.sample_steps
        n_samples = self.firsts.shape[0] // sample_steps
        t, k = self.firsts.shape[1], self.actions.shape[2]

        def cut(arr: np.ndarray) -> np.ndarray:
            arr = arr.reshape(n_samples, sample_steps, t, *arr.shape[2:])
            arr = np.swapaxes(arr, 1, 2)
            return np.ascontiguousarray(arr.reshape(n_samples * t, sample_steps, *arr.shape[3:]))

        state_shape = (n_samples * t, k, self.h0.shape[-1])
        return SampleBatch(
            obs={name: arr.reshape(n_samples * t, *arr.shape[2:]) for name, arr in self.obs.items()},
            hero_slots=np.tile(hero_slots, (n_samples, 1)), actions=cut(self.actions),
            teacher_actions=cut(self.teacher_actions), head_log_prob=cut(self.head_log_prob),
            advantages=cut(advantages), returns=cut(returns), win_target=cut(win_target), first=cut(self.firsts),
            h0=self.h0.reshape(state_shape), c0=self.c0.reshape(state_shape),
            version=np.full(n_samples * t, self.version, np.int64))


class RolloutWorker:
    def __init__(self, config: TrainConfig, seed: int, opponents: OpponentSource | None = None,
                 reuse_buffers: bool | int = False, feature_share: float = 0.0, parallel_players: bool = False):
        """``reuse_buffers``: each segment's observations are written into the same arrays, which the next
        ``collect`` overwrites (for a caller that has copied or sent the segment by then): no fresh pages for
        the ~355 MB of a 5v5 segment at each segment. A number N: N sets of arrays taken in turn, so that a
        segment stays intact while the next N - 1 are collected (2: an optimizer trains on one segment while the
        worker plays the next, ``run.overlap``). ``parallel_players``: the other players of a decision (past
        versions, the bot) act in a second thread while the learner's forward pass runs in this one (with
        ``run.overlap``, where the optimizer's core has room for them)."""
        self.config = config
        self._players = ThreadPoolExecutor(1, thread_name_prefix="fivestack-players") if parallel_players else None
        self.reuse_buffers = int(reuse_buffers)
        self._seg_obs: list[dict[str, np.ndarray]] = []  # the reused sets of arrays, at most ``reuse_buffers``
        self._seg_turn = 0  # the set the next segment is written into
        self.opponents = opponents
        self.rng = np.random.default_rng([int(seed), 0x0770])
        game = config.game.game_config()
        self.env = BatchedEnv(config.rollout.games, game)
        self.features = GameFeatures(config, seed, feature_share)  # the annealed feature's share of new games
        self.n_games = config.rollout.games
        self.heroes = active_heroes(config.game.mode)
        self.k = self.heroes.shape[1]
        self.n_teams = 2 * self.n_games
        self.hero_slots = np.tile(self.heroes, (self.n_games, 1)).astype(np.int64)  # (T, K)
        self.decision_steps = config.rollout.decision_steps
        self.reward_weights = reward_weights(config.reward)
        self.keep_orders = no_orders(self.n_games, N_HEROES)  # between decisions every hero keeps its order
        self.gamma = gamma_from_horizon(config.ppo.horizon_seconds, STEP_SECONDS * self.decision_steps)
        self.next_seed = int(seed) * 1_000_003
        first_seeds = self.take_seeds(self.n_games)
        self.obs = self.env.reset(first_seeds, self.features.draw(self.n_games))
        self.games_started = self.n_games  # games begun since the last segment's info (the hooks count their kinds)
        self.opponent_version = np.full(self.n_games, LATEST, np.int64)  # per game: LATEST, BOT or a past version
        self.opponent_side = np.zeros(self.n_games, np.int64)  # the team the past version plays
        self.self_play_games = np.zeros(self.n_games, bool)  # games with players of their own (SelfPlay sets them)
        self.hooks = make_hooks(self, config, seed, first_seeds, opponents)
        self._new_games(np.arange(self.n_games))
        self.state = initial_state(self.n_teams * self.k, config.policy.lstm_size)
        self.first = np.ones(self.n_teams, np.float32)
        self.results: list[dict] = []  # finished games since the last segment
        self.played = False  # a segment has been collected
        self.seconds = dict.fromkeys(TIMED, 0.0)  # where the segment's time went, beside the simulation
        self.past_passes = 0  # past versions' forward passes in the segment

    def hook(self, kind: type):
        """The worker's hook of class ``kind`` (e.g. ``rollout_hooks.Drill``); the config decides which exist."""
        for hook in self.hooks:
            if isinstance(hook, kind):
                return hook
        raise LookupError(f"this worker's config makes no {kind.__name__} hook "
                          f"(it has: {', '.join(type(h).__name__ for h in self.hooks)})")

    @property
    def feature_share(self) -> float:
        """The share of new games with the annealed feature (the runner sets it per segment)."""
        return self.features.share

    @feature_share.setter
    def feature_share(self, share: float) -> None:
        self.features.share = share

    @property
    def feature_rng(self) -> np.random.Generator:
        return self.features.rng

    def take_seeds(self, n: int) -> np.ndarray:
        seeds = np.arange(self.next_seed, self.next_seed + n, dtype=np.uint64)
        self.next_seed += n
        return seeds

    def _new_games(self, games: np.ndarray) -> None:
        """The hooks choose who plays the games just started (the opponent and its side)."""
        for hook in self.hooks:
            hook.new_games(self, games)

    def redraw_opponents(self) -> None:
        """Choose every game's opponent again, before the worker's first decision (e.g. once the opponent pool has
        been filled after the worker was made); a game in progress never changes opponents. Only the opponents:
        the games are not started again (a lane start or a drill episode is not placed or counted twice)."""
        if self.played:
            raise RuntimeError("redraw_opponents is for a worker that has not played yet: games are in progress")
        for hook in self.hooks:
            hook.redraw_opponents(self, np.arange(self.n_games))

    def row_owners(self) -> np.ndarray:
        """(T,) who plays each team row: LATEST, BOT, the past version of that game, or a hook's player
        (asp_moba's OWNER_ALICE, OWNER_IDLE)."""
        owners = np.full(self.n_teams, LATEST, np.int64)
        other = np.flatnonzero(self.opponent_version != LATEST)
        owners[2 * other + self.opponent_side[other]] = self.opponent_version[other]
        for hook in self.hooks:
            hook.claim_rows(self, owners)
        return owners

    def _act(self, infer: InferenceFn, request: InferenceRequest) -> InferenceResult:
        """Actions for every team: the learner's batched forward pass and those of each other owner of rows in
        play (the hook that plays it: a past version's pass, the bot's, Alice's), in that order or, with
        ``parallel_players``, the others in the second thread meanwhile (each with its own generator, in the same
        order: the same actions either way), merged."""
        owners = self.row_owners()
        t0 = time.perf_counter()
        if (owners == LATEST).all():
            result = infer(request)
            self.seconds["learner"] += time.perf_counter() - t0
            return result
        learner = np.flatnonzero(owners == LATEST)
        others = [(owner, np.flatnonzero(owners == owner)) for owner in np.unique(owners[owners != LATEST])]

        def play_others() -> list[tuple[np.ndarray, InferenceResult]]:
            return [(rows, next(hook for hook in self.hooks if hook.plays(owner)).act(self, owner, rows, request))
                    for owner, rows in others]

        pending = self._players.submit(play_others) if self._players is not None else None
        mine = infer(request.select(learner))
        self.seconds["learner"] += time.perf_counter() - t0
        parts = pending.result() if pending is not None else play_others()
        return InferenceResult.merge(self.n_teams, [(learner, mine), *parts], mine.version)

    def _env_actions(self, actions: np.ndarray) -> np.ndarray:
        out = no_orders(self.n_games, N_HEROES)
        out[:, self.heroes.reshape(-1)] = actions.reshape(self.n_games, 2 * self.k, N_ACTION_FIELDS)
        return out

    def _play_decision(self, actions: np.ndarray, team_spirit: float, event_sums: np.ndarray):
        """Play one decision: the actions, then ``rollout.decision_steps - 1`` timesteps in which every hero
        keeps its order (a no-op continues a move or an attack) unless a hook's player acts there (the bot).
        Returns the shaped reward summed over those timesteps (T, K), which games terminated or were truncated
        during them, and the last step's info; a game that ends stays finished (no events) for the rest of the
        decision."""
        owners = self.row_owners()

        def between_steps(env_actions: np.ndarray) -> np.ndarray:
            for hook in self.hooks:
                env_actions = hook.between_steps(self, env_actions, owners)
            return env_actions

        reward, terminated, truncated, info = play_decision(
            self.env, self._env_actions(actions), self.heroes, self.decision_steps, team_spirit, self.reward_weights,
            between_steps, event_sums, self.keep_orders)
        self.obs = self.env.obs
        return reward, terminated, truncated, info

    def _view(self) -> dict[str, np.ndarray]:
        """The teams' observations, with what the hooks add (the goal input during self-play; without self-play
        the policy reads zeros for a goal it was built with, ``Policy``'s trunk)."""
        view = team_view(self.obs, self.heroes)
        for hook in self.hooks:
            hook.view(self, view)
        if "goal" in view:  # the goal's offset on the map, as a turned view reads it (env.obs_turn)
            view["goal"][self.env.turned_teams()] *= TURNED_GOAL
        return view

    def _segment_obs(self, first_view: dict[str, np.ndarray], n_samples: int, sample_steps: int):
        shapes = {name: ((n_samples, arr.shape[0], sample_steps, *arr.shape[1:]), arr.dtype)
                  for name, arr in first_view.items()}
        if not self.reuse_buffers:
            return {name: np.empty(shape, dtype) for name, (shape, dtype) in shapes.items()}
        turn = self._seg_turn
        self._seg_turn = (turn + 1) % self.reuse_buffers
        cached = self._seg_obs[turn] if turn < len(self._seg_obs) else None
        if cached is not None and all(name in cached and (cached[name].shape, cached[name].dtype) == shape
                                      for name, shape in shapes.items()):
            return cached
        seg_obs = {name: np.empty(shape, dtype) for name, (shape, dtype) in shapes.items()}
        if turn < len(self._seg_obs):
            self._seg_obs[turn] = seg_obs
        else:
            self._seg_obs.append(seg_obs)
        return seg_obs

    def collect(self, infer: InferenceFn, team_spirit: float, keep_all: bool = False) -> SampleBatch:
        """Play one segment (``rollout.segment_steps`` steps of every game) and return it as samples.

        Samples in which a past version played are not training data: they are dropped, or with ``keep_all``
        kept and the trainable ones listed in ``info["trainable"]`` (the receiver drops the others; the
        segment is not copied here to leave them out)."""
        seg = self._begin_segment()
        for i in range(seg.steps):
            request = self._observe(seg, i)
            t0 = time.perf_counter()
            seg.learner[i] = self.row_owners() == LATEST
            for hook in self.hooks:  # the teacher's labels, Alice's moves
                hook.before_act(self, seg, i)
            result = self._act(infer, request)
            t1 = time.perf_counter()
            seg.store(i, result, self.first)
            bots_before = self.seconds["bots"]
            reward, terminated, truncated, info = self._play_decision(result.actions, team_spirit, seg.event_sums)
            t2 = time.perf_counter()
            seg.inference_s += t1 - t0
            seg.simulation_s += t2 - t1 - (self.seconds["bots"] - bots_before)  # the env alone, not the bot's decisions
            for hook in self.hooks:  # self-play games end and restart by their own rules
                terminated, truncated = hook.after_decision(self, reward, terminated, truncated)
            if truncated.any():  # bootstrap a cut-off game from the value of its last observation
                self._bootstrap_cut(infer, result.state, truncated, reward)
            seg.rewards[i] = reward
            self.state = result.state
            ended = terminated | truncated
            self.first = np.repeat(ended, 2).astype(np.float32)
            if ended.any():
                self._restart(seg, i, ended, truncated, info)
            for hook in self.hooks:
                hook.after_restarts(self, seg, i)
        return self._finish(seg, infer, keep_all)

    def _begin_segment(self) -> Segment:
        steps, sample_steps = self.config.rollout.segment_steps, self.config.rollout.sample_steps
        seg_obs = self._segment_obs(self._view(), steps // sample_steps, sample_steps)
        self.played = True
        self.seconds = dict.fromkeys(TIMED, 0.0)
        self.past_passes = 0
        return Segment(seg_obs, steps, sample_steps, self.n_teams, self.k, self.state[0].shape[1])

    def _observe(self, seg: Segment, i: int) -> InferenceRequest:
        """Store step ``i``'s observations (and the LSTM state at a sample's start); the request for it."""
        view = self._view()
        sample, step = divmod(i, seg.sample_steps)
        for name, arr in view.items():
            seg.obs[name][sample, :, step] = arr
        if step == 0:
            seg.h0[sample], seg.c0[sample] = self.state
        return InferenceRequest(view, self.hero_slots, self.state, self.first)

    def _bootstrap_cut(self, infer: InferenceFn, state: tuple, truncated: np.ndarray, reward: np.ndarray) -> None:
        """Add the discounted value of the last observation of each truncated game to its reward."""
        last = self._act(infer, InferenceRequest(self._view(), self.hero_slots, state,
                                                 np.zeros(self.n_teams, np.float32)))
        cut = np.repeat(truncated, 2)
        reward[cut] += self.gamma * last.value[cut]

    def _restart(self, seg: Segment, i: int, ended: np.ndarray, truncated: np.ndarray, info: dict) -> None:
        """Record the games that ended at step ``i`` (their outcome, a result each) and start new ones."""
        done = np.flatnonzero(ended)
        seg.ends[i] = self.first
        for g in done:
            winner = int(info["winner"][g])
            seg.outcome[i, 2 * g] = 0.5 if winner < 0 else float(winner == 0)
            seg.outcome[i, 2 * g + 1] = 0.5 if winner < 0 else float(winner == 1)
            self.results.append({"winner": winner, "seconds": float(info["seconds"][g]),
                                 "truncated": bool(truncated[g]),
                                 "time_limit": bool(info["seconds"][g] >= self.config.game.max_seconds),
                                 "opponent": int(self.opponent_version[g]),
                                 "opponent_side": int(self.opponent_side[g]),
                                 "features": int(self.env.game.features[g])})
        self.start_new_games(done)

    def start_new_games(self, games: np.ndarray) -> None:
        """Reset the game slots ``games`` to fresh games (the next seeds, the features drawn for them) and let the
        hooks choose who plays them (a drill begins its next episodes there)."""
        self.env.reset_games(games, self.take_seeds(games.size), self.features.draw(games.size))
        self.games_started += games.size
        self._new_games(games)

    def _finish(self, seg: Segment, infer: InferenceFn, keep_all: bool) -> SampleBatch:
        """Bootstrap the segment's end from the value (and win probability) of the next observation, compute the
        advantages and cut the segment into samples, with its info."""
        last = self._act(infer, InferenceRequest(self._view(), self.hero_slots, self.state, self.first))
        advantages, returns = gae(seg.rewards, seg.values, seg.ends[..., None], last.value, self.gamma,
                                  self.config.ppo.gae_lambda)
        samples = seg.samples(advantages, returns, seg.win_targets(last.win_prob), self.hero_slots)
        trainable = seg.trainable()
        if not trainable.all() and not keep_all:  # drop samples in which a past version played (not on-policy)
            samples = samples.select(np.flatnonzero(trainable))
        samples.info = self._info(seg, np.flatnonzero(trainable) if keep_all else np.arange(len(samples)))
        self.results = []
        return samples

    def _info(self, seg: Segment, trainable: np.ndarray) -> dict:
        """The segment's ``SampleBatch.info``: what it played, where its time went, and the hooks' parts."""
        per_row = self.k * self.decision_steps  # agent-steps of one team row's step
        info = {"trainable": trainable, "event_sums": seg.event_sums, "hero_steps": seg.steps * self.n_teams * per_row,
                "games": self.results, "reward_abs_mean": float(np.abs(seg.rewards).mean()),
                "inference_seconds": seg.inference_s, "simulation_seconds": seg.simulation_s,
                "past_opponent_steps": int((~seg.learner).sum()) * per_row,
                "learner_inference_seconds": self.seconds["learner"], "past_inference_seconds": self.seconds["past"],
                "teacher_seconds": self.seconds["teacher"], "bot_seconds": self.seconds["bots"],
                "past_forward_passes": self.past_passes, "decisions": seg.steps, "asp": {},
                "games_started": self.games_started}
        self.games_started = 0
        for hook in self.hooks:  # games_with_feature, games_in_lane, the self-play metrics ("asp")
            info.update(hook.info(self))
        return info
