"""Asymmetric self-play episodes (Algorithm 1 of the paper: *reverse* and *repeat*), target-task episodes
(Algorithm 2), the baselines, and the training loop that mixes them.

One call of ``play`` runs a batch of episodes in lockstep, one per row of the environment: a row is either a
self-play episode (Alice from s_0 until STOP, then Bob) or a target-task episode (Bob alone, goal
``env.target_goal()``, episode-kind flag z = 1). Rewards arrive once at the end of a self-play episode:
R_A on Alice's last step and R_B on Bob's last (``fivestack.asp.rewards``); target rows carry the env's
reward per step (plus alpha / sqrt(N(s)) for the count-based baseline). The policies learn from the
return-to-go of their own steps.

Speed: each step runs a policy's network only on the rows where that policy acts, packed (S, m) per seed
(``_pack``), with the uniforms of every row drawn as before, so the random stream is unchanged; an env that
has ``encode_sparse`` (light-key) gives those rows' inputs as a ``SparseRows``. What the network computed
is kept (``Episodes.acted``), and the REINFORCE update is built from exactly those rows (``_acted_batch``):
only the player's real steps, no zero-weight rows, and no second forward pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import threadpool_limits

from fivestack.asp.envs.base import check_env
from fivestack.asp.policy import MLPPolicy, RandomAlice, SparseRows, TabularPolicy, UpdateBatch
from fivestack.asp.rewards import alice_reward, bob_reward, bob_time

ALICE, BOB, IDLE = 0, 1, -1
METHODS = ("self_play", "target_only", "random_alice", "count_based", "self_play_bc", "self_play_multi")


@dataclass
class SelfPlayConfig:
    """One experiment's settings. Defaults are the paper's (Table 1) where it gives them; each env module
    has its own ``config()`` that fills in its column and says where and why we deviate."""
    mode: str = "repeat"              # "reverse": Bob returns to s_0; "repeat": reset to s_0, Bob reaches s*
    gamma: float = 0.01               # the self-play reward scale
    t_max: int = 100                  # self-play cap on Alice + Bob actions (t_B = t_max - t_A on failure);
                                      # a target episode's cap is the env's t_max_target
    t_max_bob: int | None = None      # None: one budget (Bob has t_max - t_A); else Bob's own cap, and
                                      # Alice's is t_max - t_max_bob (she is stopped there and Bob plays)
    target_share: float = 0.1         # share of target-task episodes in a batch (0: self-play only)
    batch: int = 32                   # episodes per batch per seed
    lr: float = 0.003
    entropy: float = 0.0              # entropy bonus for self-play updates
    entropy_target: float = 0.0       # entropy bonus on target-task updates (the paper sometimes 0)
    hidden: tuple[int, ...] = (50, 50)
    init_std: float = 0.2             # weights ~ N(0, 0.2)
    value_coef: float = 0.1           # lambda, the baseline loss weight
    algo: str = "reinforce"           # or "ppo"
    count_alpha: float = 0.1          # count-based baseline: bonus alpha / sqrt(N(s))
    random_alice_steps: int | tuple[int, int] = 15  # random Alice: uniform moves for this many actions,
                                      # then STOP; a pair (lo, hi): a number drawn uniformly from lo..hi
    bc_weight: float = 0.5            # self_play_bc: Bob imitates Alice on the tasks he failed (repeat mode)
    n_alices: int = 3                 # self_play_multi: this many Alices, one drawn per episode
    eval_every: int = 500             # counted episodes between evaluations
    eval_episodes: int = 32           # target episodes per seed per evaluation (not trained on)
    count_self_play: bool = False     # x-axis counts all episodes (hallway) instead of target episodes
    eval_greedy: bool = False         # evaluation episodes take Bob's most likely action (else sample)
    alice_stop_bias: float = 0.0      # initial bias on Alice's STOP logit (< 0: her first tasks are longer)
    bob_must_act: bool = True         # the paper: Bob succeeds only after at least one action of his. False:
                                      # he wins at once (t_B = 0) when Alice stopped where he already is (the
                                      # built-in worlds' figures in docs/asp.md were measured so)
    time_input: bool = False          # append t / t_max to every policy input (the paper's inputs had it);
                                      # t counts the episode's steps, t_max is SelfPlayConfig.t_max in self-play
                                      # and env.t_max_target on the target task. MLP policies only
    alice_ended_is_task: bool = True  # an episode that ends under Alice (a terminal state: a hole, the goal)
                                      # before her STOP: True, her task is that state and Bob plays it; False
                                      # (the authors' MountainCar, ``sp_mountain_car.py``): no task was set, the
                                      # episode is over, R_A = 0 (she never emitted STOP) and Bob does not play


@dataclass
class Episodes:
    """What ``play`` returns: per-step arrays (T, n) and per-row results (n,)."""
    states: np.ndarray
    goals: np.ndarray        # (n, D): Bob's goal (s* or s_0, or the target goal)
    s0: np.ndarray
    z: np.ndarray
    player: np.ndarray
    actions: np.ndarray
    logp: np.ndarray
    rewards: np.ndarray
    kind_target: np.ndarray
    t_a: np.ndarray
    t_b: np.ndarray
    bob_success: np.ndarray
    target_success: np.ndarray
    target_return: np.ndarray
    alice_id: np.ndarray
    time_frac: np.ndarray                 # (T, n) t / t_max at each step, for SelfPlayConfig.time_input
    stats: dict = field(default_factory=dict)
    acted: dict = field(default_factory=dict)  # id(policy) -> [(t, rows (S, m), valid (S, m), inputs, cache)]
    no_task: "np.ndarray | None" = None   # (n,) self-play rows that ended under Alice before her STOP, when
                                          # cfg.alice_ended_is_task is False (no task, R_A = 0, no Bob)

    def returns(self, player: int) -> np.ndarray:
        """Return-to-go of ``player``'s own steps (undiscounted, as in the paper's REINFORCE)."""
        r = np.where(self.player == player, self.rewards, 0.0)
        return np.flip(np.cumsum(np.flip(r, 0), 0), 0)


class Counter:
    """N(s) per seed in a hashed table, for the alpha / sqrt(N(s)) bonus."""

    def __init__(self, seeds: int, size: int = 1 << 20):
        self.counts = np.zeros((seeds, size), np.int64)
        self.size = size

    def visit(self, seed_of_row: np.ndarray, keys: np.ndarray) -> np.ndarray:
        idx = keys % self.size
        np.add.at(self.counts, (seed_of_row, idx), 1)
        return self.counts[seed_of_row, idx]


def policy_input(env, cfg: SelfPlayConfig, states, goals, z, time_frac) -> np.ndarray:
    """``env.encode(states, goals, z)``, with t / t_max appended as a last column when ``cfg.time_input``."""
    x = env.encode(states, goals, z)
    if not cfg.time_input:
        return x
    x = np.asarray(x)
    return np.concatenate([x, np.broadcast_to(time_frac, x.shape[:-1])[..., None].astype(x.dtype)], -1)


def _pack(mask: np.ndarray, seeds: int):
    """The rows where ``mask`` (n,) holds, packed per seed: rows (S, m) into 0..n-1 (in row order, padded with
    rows outside the mask), valid (S, m); m is the largest count of any seed."""
    m2 = mask.reshape(seeds, -1)
    counts = m2.sum(1)
    m = int(counts.max())
    order = np.argsort(~m2, axis=1, kind="stable")[:, :m]
    return order + (np.arange(seeds) * m2.shape[1])[:, None], np.arange(m)[None, :] < counts[:, None]


def packed_input(env, cfg: SelfPlayConfig, rows, states, goals, z, time_frac):
    """``policy_input`` for the packed rows (S, m) of (n, ...) arrays: a SparseRows when the env has
    ``encode_sparse``, else a dense (S, m, d) array."""
    flat = rows.reshape(-1)
    tf = np.broadcast_to(time_frac, z.shape)[flat]
    if hasattr(env, "encode_sparse"):
        x = env.encode_sparse(states[flat], goals[flat], z[flat])
        if cfg.time_input:
            x = x.with_column(tf)
        return x.reshape(*rows.shape)
    x = policy_input(env, cfg, states[flat], goals[flat], z[flat], tf)
    return np.asarray(x, np.float32).reshape(*rows.shape, -1)


def _act_packed(pol, rec, env, cfg, t, use, seeds, states, goals, z, time_frac, u, stop_allowed, greedy,
                actions, logp):
    """Policy ``pol`` acts on the rows ``use`` (the others keep ``actions`` / ``logp``); u (n,) the uniforms
    of every row. Records what it computed in ``rec``."""
    rows, valid = _pack(use, seeds)
    if rows.shape[1] == 0:
        return actions, logp
    x = packed_input(env, cfg, rows, states, goals, z, time_frac)
    a, lp, cache = pol.act_rows(x, None if u is None else u[rows], stop_allowed[rows], greedy)
    r, v = rows[valid], valid
    actions, logp = actions.copy(), logp.copy()
    actions[r], logp[r] = a[v], lp[v]
    rec.setdefault(id(pol), []).append((t, rows, valid, x, cache))
    return actions, logp


def play(env, alice, bob, target: np.ndarray, cfg: SelfPlayConfig, rng: np.random.Generator,
         seeds: int, counter: Counter | None = None, alice_id: np.ndarray | None = None,
         greedy: bool = False) -> Episodes:
    """One batch of episodes, one per env row. ``alice`` is an MLPPolicy/TabularPolicy, a list of them
    (several Alices; ``alice_id`` picks one per row) or a RandomAlice."""
    n = env.n
    stop = env.num_actions - 1
    seed_of_row = np.repeat(np.arange(seeds), n // seeds)
    env.reset(rng, target)
    s0 = env.state.copy()
    goals = np.where(target[:, None], env.target_goal(), s0)
    z = target.astype(np.float64)
    phase = np.where(target, BOB, ALICE)
    done = np.zeros(n, bool)
    t_a = np.zeros(n, np.int64)
    t_b = np.zeros(n, np.int64)
    bob_success = np.zeros(n, bool)
    no_task = np.zeros(n, bool)              # Alice's turn ended in a terminal state before STOP (cfg rule)
    target_success = np.zeros(n, bool)
    target_return = np.zeros(n)
    alice_last = np.zeros(n, np.int64)
    bob_last = np.zeros(n, np.int64)
    bob_stop_allowed = np.full(n, env.bob_stops)
    alices = alice if isinstance(alice, list) else [alice]
    if alice_id is None:
        alice_id = np.zeros(n, np.int64)
    rec_states, rec_player, rec_actions, rec_logp, rec_rewards, rec_time = [], [], [], [], [], []
    acted: dict = {}
    zeros_n = np.zeros(n)
    horizon = max(cfg.t_max, env.t_max_target)
    cap = np.where(target, env.t_max_target, cfg.t_max).astype(np.float64)
    for t in range(horizon):
        if done.all():
            break
        time_frac = t / cap
        act_a = (phase == ALICE) & ~done
        act_b = (phase == BOB) & ~done
        actions = np.full(n, stop)
        logp = np.zeros(n)
        if act_a.any():
            if isinstance(alice, RandomAlice):
                actions = np.where(act_a, alice.act_random(t_a, rng), actions)
            elif all(isinstance(pol, MLPPolicy) for pol in alices):
                for k, pol in enumerate(alices):       # one draw of every row per Alice, as ``act`` makes
                    u = rng.random(n)
                    actions, logp = _act_packed(pol, acted, env, cfg, t, act_a & (alice_id == k), seeds,
                                                env.state, s0, zeros_n, time_frac, u, np.ones(n, bool), False,
                                                actions, logp)
            else:
                x = policy_input(env, cfg, env.state, s0, np.zeros(n), time_frac)
                for k, pol in enumerate(alices):
                    a, lp = pol.act(x, rng, np.ones(n, bool))
                    use = act_a & (alice_id == k)
                    actions, logp = np.where(use, a, actions), np.where(use, lp, logp)
        if act_b.any():
            if isinstance(bob, MLPPolicy):
                u = None if greedy else rng.random(n)
                actions, logp = _act_packed(bob, acted, env, cfg, t, act_b, seeds, env.state, goals, z, time_frac,
                                            u, bob_stop_allowed, greedy, actions, logp)
            else:
                x = policy_input(env, cfg, env.state, goals, z, time_frac)
                a, lp = bob.act(x, rng, bob_stop_allowed, greedy)
                actions, logp = np.where(act_b, a, actions), np.where(act_b, lp, logp)
        rec_states.append(env.state.copy())
        rec_player.append(np.where(act_a, ALICE, np.where(act_b, BOB, IDLE)))
        rec_actions.append(actions)
        rec_logp.append(logp)
        rec_time.append(time_frac)
        t_a += act_a
        t_b += act_b
        alice_last = np.where(act_a, t, alice_last)
        bob_last = np.where(act_b, t, bob_last)
        moving = (act_a | act_b) & (actions != stop)
        stepped = env.step(actions, moving, target)
        if not isinstance(stepped, tuple) or len(stepped) != 3:
            raise TypeError(f"{type(env).__name__}.step must return (reward, reached, ended), three (n,) arrays; "
                            "see fivestack.asp.envs.base")
        reward, reached, ended = (np.asarray(v) for v in stepped)
        reached, ended = reached.astype(bool) & moving, ended.astype(bool) & moving
        step_reward = np.where(act_b & target, reward, 0.0)
        if counter is not None:
            counts = counter.visit(seed_of_row, env.count_key(env.state))
            step_reward = step_reward + np.where(act_b & target, cfg.count_alpha / np.sqrt(counts), 0.0)
        target_return += np.where(act_b & target, reward, 0.0)

        # Alice: STOP hands over to Bob, and so does an episode that ended under her (a hole: her task is
        # that state). With one shared budget, running out of it ends the episode (t_B = t_max - t_A = 0);
        # with separate budgets, her cap is a forced STOP.
        ends_task = ended if cfg.alice_ended_is_task else np.zeros(n, bool)
        if not cfg.alice_ended_is_task:              # ended before STOP: no task, no Bob, R_A = 0
            no_task |= act_a & ended & (actions != stop)
            done |= no_task
        if cfg.t_max_bob is None:
            alice_stop = act_a & ~no_task & ((actions == stop) | ends_task)
            done |= act_a & ~alice_stop & (t_a >= cfg.t_max)
        else:
            alice_stop = act_a & ~no_task & ((actions == stop) | ends_task | (t_a >= cfg.t_max - cfg.t_max_bob))
        if alice_stop.any():
            if cfg.mode == "repeat":
                goals = np.where(alice_stop[:, None], env.state, goals)
                env.set_state(s0, alice_stop)        # the reset: repeat mode only
            else:
                goals = np.where(alice_stop[:, None], s0, goals)
                done |= alice_stop & ended               # reverse from an ended episode: Bob cannot move
            phase = np.where(alice_stop, BOB, phase)
            if not env.bob_stops and not cfg.bob_must_act:   # already there: Bob wins in 0 steps
                already = alice_stop & env.success(env.state, goals)
                bob_success |= already
                done |= already
            if cfg.t_max_bob is None:
                done |= alice_stop & (t_a >= cfg.t_max)
        # Bob on a self-play task.
        sp_b = act_b & ~target
        if env.bob_stops:
            bob_finished = sp_b & (actions == stop)
            ok = bob_finished & env.success(env.state, goals)
        else:
            ok = sp_b & env.success(env.state, goals)
            bob_finished = ok
        bob_success |= ok
        done |= sp_b & ended & ~ok                   # the episode ended without matching Alice: a failure
        bob_cap = cfg.t_max - t_a if cfg.t_max_bob is None else cfg.t_max_bob
        done |= bob_finished | (sp_b & (t_b >= bob_cap))
        # Bob on the target task.
        tg_b = act_b & target
        if env.bob_stops:
            stopped = tg_b & (actions == stop)
            if stopped.any():
                r_stop, ok_stop = env.target_stop(env.state, t_b)
                step_reward = step_reward + np.where(stopped, r_stop, 0.0)
                target_return += np.where(stopped, r_stop, 0.0)
                target_success |= stopped & ok_stop
                done |= stopped
        target_success |= tg_b & reached             # only reached counts; ended without it is a failure
        done |= tg_b & (reached | ended | (t_b >= env.t_max_target))
        rec_rewards.append(step_reward)

    rewards = np.stack(rec_rewards)
    self_play = ~target
    tb = bob_time(t_a, t_b, bob_success, cfg.t_max)
    r_a = np.where(no_task, 0.0, alice_reward(t_a, tb, cfg.gamma))
    r_b = bob_reward(tb, cfg.gamma)
    rows = np.arange(n)
    sp_rows = rows[self_play]
    rewards[alice_last[sp_rows], sp_rows] += r_a[sp_rows]
    had_bob = self_play & (t_b > 0)
    rewards[bob_last[had_bob], rows[had_bob]] += r_b[had_bob]
    ep = Episodes(np.stack(rec_states), goals, s0, z, np.stack(rec_player), np.stack(rec_actions),
                  np.stack(rec_logp), rewards, target, t_a, t_b, bob_success, target_success, target_return,
                  alice_id, np.stack(rec_time), acted=acted, no_task=no_task)
    if self_play.any():
        for name, v in env.task_stats(s0[self_play], goals[self_play] if cfg.mode == "repeat"
                                      else ep.states[alice_last[sp_rows], sp_rows]).items():
            ep.stats[name] = v
    return ep


def _update_batch(env, cfg: SelfPlayConfig, ep: Episodes, player: int, rows: np.ndarray, seeds: int,
                  goals: np.ndarray, z: np.ndarray, stop_allowed: bool,
                  returns: np.ndarray | None = None) -> UpdateBatch:
    """Gather ``player``'s steps on ``rows`` into (S, T * B) arrays."""
    T, n = ep.player.shape
    weight = ((ep.player == player) & rows[None, :]).astype(np.float32)
    inputs = policy_input(env, cfg, ep.states, np.broadcast_to(goals, ep.states.shape),
                          np.broadcast_to(z, (T, n)), ep.time_frac)
    G = ep.returns(player) if returns is None else returns

    def split(a):  # (T, n, ...) -> (S, T * B, ...)
        a = a.reshape(T, seeds, n // seeds, *a.shape[2:])
        return np.moveaxis(a, 1, 0).reshape(seeds, T * (n // seeds), *a.shape[3:])

    episodes = rows.reshape(seeds, -1).sum(1)
    return UpdateBatch(split(inputs), split(ep.actions), split(G).astype(np.float32), split(weight),
                       split(ep.logp).astype(np.float32), episodes.astype(np.float32),
                       np.full((seeds, T * (n // seeds)), stop_allowed))


def _acted_batch(ep: Episodes, pol, player: int, rows: np.ndarray, seeds: int, stop_allowed: bool,
                 returns: np.ndarray | None = None) -> UpdateBatch | None:
    """The update batch of ``pol`` from the rows it acted on in ``ep`` (``Episodes.acted``), with the forward
    pass it made then: the same loss and gradient as ``_update_batch`` on the same rows (zero-weight rows
    add nothing to either), in fewer rows. None when ``pol`` acted on rows outside ``rows`` or not at all."""
    rec = ep.acted.get(id(pol))
    if not rec:
        return None
    t_idx = np.concatenate([np.broadcast_to(t, r.shape) for t, r, _, _, _ in rec], 1)
    r_idx = np.concatenate([r for _, r, _, _, _ in rec], 1)
    valid = np.concatenate([v for _, _, v, _, _ in rec], 1)
    if (not (rows[r_idx[valid]]).all() or (ep.player[t_idx[valid], r_idx[valid]] != player).any()
            or valid.sum() != ((ep.player == player) & rows[None, :]).sum()):
        return None
    xs = [x for _, _, _, x, _ in rec]
    x = SparseRows.concat(xs) if isinstance(xs[0], SparseRows) else np.concatenate(xs, 1)
    versions = {c[0] for _, _, _, _, c in rec}
    cache = None
    if len(versions) == 1:
        outs = [c[1] for _, _, _, _, c in rec]
        logits = np.concatenate([o[0] for o in outs], 1)
        value = np.concatenate([o[1] for o in outs], 1)
        acts = [x] + [np.concatenate([o[2][i] for o in outs], 1) for i in range(1, len(outs[0][2]))]
        cache = (versions.pop(), (logits, value, acts))
    G = ep.returns(player) if returns is None else returns
    episodes = rows.reshape(seeds, -1).sum(1)
    return UpdateBatch(x, ep.actions[t_idx, r_idx], G[t_idx, r_idx].astype(np.float32), valid.astype(np.float32),
                       ep.logp[t_idx, r_idx].astype(np.float32), episodes.astype(np.float32),
                       np.full(valid.shape, stop_allowed), cache=cache)


def make_policy(env, cfg: SelfPlayConfig, seeds: int, rng, entropy: float, stop_bias: float = 0.0):
    if env.tabular:
        pol = TabularPolicy(seeds, env.policy_keys, env.num_actions, cfg.lr, rng)
        pol.theta[..., -1] = stop_bias
        return pol
    pol = MLPPolicy(seeds, env.input_dim + int(cfg.time_input), env.num_actions, cfg.hidden, cfg.lr, rng,
                    cfg.init_std, entropy, cfg.value_coef, cfg.algo)
    pol.params[-3][..., -1] = stop_bias          # the action head's bias on STOP
    return pol


@dataclass
class Curves:
    """Mean over training of what each evaluation saw, per seed: x (counted episodes), success (S, K),
    reward (S, K), and Alice's task statistics per batch (self-play methods)."""
    x: list = field(default_factory=list)
    success: list = field(default_factory=list)
    reward: list = field(default_factory=list)
    alice_x: list = field(default_factory=list)
    alice: dict = field(default_factory=dict)


def evaluate(env, bob, cfg, rng, seeds) -> tuple[np.ndarray, np.ndarray]:
    """Target success rate and mean target return per seed over ``cfg.eval_episodes`` fresh episodes."""
    succ, ret = np.zeros(seeds), np.zeros(seeds)
    per = env.n // seeds
    reps = max(1, int(np.ceil(cfg.eval_episodes / per)))
    for _ in range(reps):
        ep = play(env, None, bob, np.ones(env.n, bool), cfg, rng, seeds, greedy=cfg.eval_greedy)
        succ += ep.target_success.reshape(seeds, -1).mean(1) / reps
        ret += ep.target_return.reshape(seeds, -1).mean(1) / reps
    return succ, ret


def train(env, method: str, cfg: SelfPlayConfig, seeds: int, episodes: int, rng: np.random.Generator,
          on_progress=None) -> tuple[Curves, object]:
    """Train ``seeds`` runs of ``method`` in lockstep until each has seen ``episodes`` counted episodes
    (target-task episodes; all episodes when ``cfg.count_self_play``). Returns the curves and Bob.
    BLAS runs on one thread: these matrices are small, and a threaded BLAS spent 60x longer here."""
    with threadpool_limits(1):
        return _train(env, method, cfg, seeds, episodes, rng, on_progress)


def _train(env, method, cfg, seeds, episodes, rng, on_progress):
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    check_env(env)
    n = env.n
    if n != seeds * cfg.batch:
        raise ValueError(f"the env has n = {n} rows but seeds x cfg.batch = {seeds} x {cfg.batch} = "
                         f"{seeds * cfg.batch}: make the env with n = seeds * cfg.batch (one row per episode of "
                         "a batch, for every seed)")
    if cfg.time_input and env.tabular:
        raise ValueError("SelfPlayConfig.time_input needs an MLP policy; this env is tabular (a table has no input "
                         "column to add t / t_max to): set time_input=False")
    per_seed = n // seeds
    target_only = method in ("target_only", "count_based")
    bob = make_policy(env, cfg, seeds, rng, cfg.entropy)
    if method == "random_alice":
        alice = RandomAlice(env.num_actions, cfg.random_alice_steps)
    elif method == "self_play_multi":
        alice = [make_policy(env, cfg, seeds, rng, cfg.entropy, cfg.alice_stop_bias) for _ in range(cfg.n_alices)]
    elif not target_only:
        alice = make_policy(env, cfg, seeds, rng, cfg.entropy, cfg.alice_stop_bias)
    else:
        alice = None
    counter = Counter(seeds) if method == "count_based" else None
    curves = Curves()
    counted = 0
    next_eval = 0
    n_target = per_seed if target_only else int(round(per_seed * cfg.target_share))
    while True:
        if counted >= next_eval or counted >= episodes:   # every eval_every, and always at the end
            s, r = evaluate(env, bob, cfg, rng, seeds)
            curves.x.append(counted)
            curves.success.append(s)
            curves.reward.append(r)
            if on_progress:
                on_progress(min(counted, episodes), s, r)
            while next_eval <= counted:
                next_eval += cfg.eval_every
            if counted >= episodes:
                break
        target = np.zeros((seeds, per_seed), bool)
        if n_target:
            for s in range(seeds):
                target[s, rng.choice(per_seed, n_target, replace=False)] = True
        target = target.reshape(-1)
        alice_id = rng.integers(0, cfg.n_alices, n) if isinstance(alice, list) else None
        ep = play(env, alice, bob, target, cfg, rng, seeds, counter, alice_id)
        counted += per_seed if (target_only or cfg.count_self_play) else n_target
        _learn(env, ep, method, alice, bob, cfg, seeds)
        if (~target).any():
            curves.alice_x.append(counted)
            sp = ~target
            stats = {"t_a": ep.t_a[sp].astype(float), "bob_success": ep.bob_success[sp].astype(float)}
            if not cfg.alice_ended_is_task:
                stats["no_task"] = ep.no_task[sp].astype(float)
            stats.update(ep.stats)
            for k, v in stats.items():
                curves.alice.setdefault(k, []).append(_per_seed_mean(v, sp, seeds))
    return curves, bob


def _per_seed_mean(v, rows, seeds):
    full = np.zeros(len(rows))
    full[rows] = v
    num = (full * rows).reshape(seeds, -1).sum(1)
    return num / np.maximum(rows.reshape(seeds, -1).sum(1), 1)


def _learn(env, ep: Episodes, method, alice, bob, cfg, seeds):
    n = env.n
    all_rows = np.ones(n, bool)
    beta = np.where(ep.kind_target, cfg.entropy_target, cfg.entropy)
    bob_batch = _acted_batch(ep, bob, BOB, all_rows, seeds, env.bob_stops)
    if bob_batch is not None:
        r_idx = np.concatenate([r for _, r, _, _, _ in ep.acted[id(bob)]], 1)
        bob_batch.entropy_coef = beta[r_idx].astype(np.float32)
    else:
        bob_batch = _update_batch(env, cfg, ep, BOB, all_rows, seeds, ep.goals, ep.z, env.bob_stops)
        T = ep.player.shape[0]
        bob_batch.entropy_coef = np.moveaxis(np.broadcast_to(beta, (T, n)).reshape(T, seeds, -1), 1, 0).reshape(
            seeds, -1).astype(np.float32)
    if method == "self_play_bc" and cfg.mode == "repeat":
        _add_alice_cloning(env, ep, bob_batch, seeds, cfg)
    bob.update(bob_batch)

    def alice_batch(pol, rows):
        b = _acted_batch(ep, pol, ALICE, rows, seeds, True)
        return b if b is not None else _update_batch(env, cfg, ep, ALICE, rows, seeds, ep.s0, np.zeros(n), True)

    if isinstance(alice, list):
        for k, pol in enumerate(alice):
            pol.update(alice_batch(pol, ep.alice_id == k))
    elif alice is not None and not isinstance(alice, RandomAlice):
        alice.update(alice_batch(alice, ~ep.kind_target))


def _add_alice_cloning(env, ep: Episodes, batch: UpdateBatch, seeds: int, cfg: SelfPlayConfig):
    """Alice behavioural cloning (OpenAI 2021, weight 0.5): on the self-play tasks Bob failed, Bob also
    learns to take Alice's actions from Alice's states, with his goal set to her final state s*."""
    n = env.n
    failed = ~ep.kind_target & ~ep.bob_success & (ep.t_a > 1)
    if not failed.any() or env.tabular:
        return
    mask = (ep.player == ALICE) & failed[None, :] & (ep.actions != env.num_actions - 1)
    extra = _update_batch(env, cfg, ep, ALICE, failed, seeds, ep.goals, np.zeros(n), env.bob_stops,
                          returns=np.zeros_like(ep.rewards))
    T = ep.player.shape[0]
    extra.weight = np.moveaxis(mask.astype(np.float32).reshape(T, seeds, -1), 1, 0).reshape(seeds, -1)
    batch.bc, batch.bc_weight = extra, cfg.bc_weight
