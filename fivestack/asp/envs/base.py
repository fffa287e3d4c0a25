"""The interface asymmetric self-play needs from an environment, a check of it, and a wrapper for your own
Gymnasium env.

Two ways in:

- ``GymnasiumASPEnv``: wrap a Gymnasium env with discrete actions by giving small functions (make, read and
  write its state, a distance for Bob's self-play test, ``reached(state, goal)`` and the target goal). Start
  here; ``docs/asp.md`` ("Your own environment") walks through FrozenLake end to end.
- ``ASPEnvBase``: subclass it for speed (all rows stepped in numpy at once) or for a self-play test that is
  not a distance. The four built-in worlds (``hallway``, ``lightkey``, ``mountaincar``, ``economy``) do so.

An env holds ``n`` episodes in lockstep (rows); its whole state is a numeric array ``state`` of shape (n, D)
that can be read and written back (that is what makes *repeat* mode possible: Bob starts again from Alice's
s_0). The last action index, ``num_actions - 1``, is STOP; rows that take STOP (or that are idle) are not
stepped. What a subclass must provide (``check_env`` names whatever is missing):

- attributes ``n``, ``num_actions``, ``state``, ``tabular`` (False for an MLP policy, which then needs
  ``input_dim``; True for a table, which needs ``policy_keys``) and ``t_max_target``, the cap on a
  target-task episode's steps. The self-play cap (Alice + Bob) is ``SelfPlayConfig.t_max``, a setting of the run.
- ``reset(rng, target)``: new episodes in every row; rows where ``target`` is True start a target-task episode.
- ``set_state(states, where)``: put rows ``where`` back into ``states`` (used at Alice's STOP in repeat mode).
- ``step(actions, moving, target) -> (reward, reached, ended)``: advance the rows ``moving``; ``reward`` is
  the target-task reward of the step, ``reached`` whether the target task's goal was reached (the only thing
  that counts as target success), ``ended`` whether the row's episode is over and cannot be stepped again
  (a hole, a death, a terminal goal; all False for worlds that never end early). All three are (n,) arrays.
  Ended without reached is a target failure; in self-play an ended Alice stops there (her task is that
  state) and an ended Bob who has not matched her fails.
- ``target_goal() -> (n, D)``: the goal state Bob is given on the target task (shown to the policy as s_goal).
- ``encode(states, goals, z)``: the policy input for (s_t, s_goal, z); Alice gets (s_t, s_0, 0), Bob
  (s_t, s*, 0) in self-play and (s_t, target_goal, 1) on the target task. With ``SelfPlayConfig.time_input`` the
  trainer appends t / t_max itself, so ``encode`` never sees time.
- ``success(states, goals)``: Bob's self-play test (exact match, a distance threshold, or "every count at least
  Alice's"); tested after each of Bob's steps, so he needs at least one (``SelfPlayConfig.bob_must_act``).
- ``bob_stops``: True when Bob must emit STOP to finish (the hallway); then ``target_stop(states, t)`` scores
  a target episode that Bob stopped. Otherwise STOP is masked for Bob.
- ``count_key(states)``: an integer per row for the count-based baseline's N(s) (a default hashes the state).
- ``task_stats(s0, s_star)`` (optional): named per-row numbers describing Alice's task (for the curves).
- ``encode_sparse(states, goals, z)`` (optional, for speed): ``encode`` given as a
  ``fivestack.asp.policy.SparseRows`` (the nonzero entries of each row); the MLP's first layer then gathers
  weight rows instead of multiplying a mostly-zero input (light-key's bag of words). ``encode`` must stay, and
  both must be functions of their arguments alone, row by row (the trainer encodes only the rows that act).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

REQUIRED_METHODS = ("reset(rng, target)", "set_state(states, where)", "step(actions, moving, target)",
                    "target_goal()", "encode(states, goals, z)", "success(states, goals)")


class ASPEnvBase:
    n: int
    num_actions: int
    state_dim: int
    tabular = False
    bob_stops = False
    t_max_target = 100    # cap on a target-task episode's steps (the self-play cap is SelfPlayConfig.t_max)
    state: np.ndarray

    def set_state(self, states: np.ndarray, where: np.ndarray) -> None:
        self.state[where] = states[where]

    def target_goal(self) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} must define target_goal(): the (n, D) goal states "
                                  "Bob is shown on the target task")

    def target_stop(self, states: np.ndarray, t: np.ndarray):
        raise NotImplementedError(f"{type(self).__name__} has bob_stops = True and must define "
                                  "target_stop(states, t) -> (reward, reached) for a target episode Bob stopped")

    def count_key(self, states: np.ndarray) -> np.ndarray:
        q = np.round(np.asarray(states, dtype=np.float64) * 1000).astype(np.int64)
        key = np.zeros(len(q), np.int64)
        for j in range(q.shape[1]):
            key = key * 1000003 + q[:, j]
        return key

    def task_stats(self, s0: np.ndarray, s_star: np.ndarray) -> dict[str, np.ndarray]:
        return {}


def check_env(env) -> None:
    """Raise one clear error for the first thing ``env`` lacks or gets the shape of (``train`` calls this)."""
    name = type(env).__name__
    for sig in REQUIRED_METHODS:
        method = sig.split("(")[0]
        if not callable(getattr(env, method, None)):
            raise TypeError(f"{name} has no method {sig}; see fivestack.asp.envs.base for what each must do")
    for attr in ("n", "num_actions", "state", "t_max_target"):
        if not hasattr(env, attr):
            raise TypeError(f"{name} has no attribute {attr!r}; see fivestack.asp.envs.base")
    if hasattr(env, "t_max"):
        raise TypeError(f"{name} has an attribute t_max: the env's cap is named t_max_target (target-task "
                        "steps) and the self-play cap is SelfPlayConfig.t_max; rename it to t_max_target")
    need = "policy_keys" if getattr(env, "tabular", False) else "input_dim"
    if not hasattr(env, need):
        raise TypeError(f"{name} has no attribute {need!r} (the policy's input size); see fivestack.asp.envs.base")
    state = np.asarray(env.state)
    if state.ndim != 2 or state.shape[0] != env.n:
        raise ValueError(f"{name}.state has shape {state.shape}; it must be (n, D) = ({env.n}, D), one row per "
                         "episode")
    goal = np.asarray(env.target_goal())
    if goal.shape != state.shape:
        raise ValueError(f"{name}.target_goal() has shape {goal.shape}; it must match state's {state.shape}")
    if not env.tabular:
        x = np.asarray(env.encode(state, state, np.zeros(env.n)))
        if x.shape != (env.n, env.input_dim):
            raise ValueError(f"{name}.encode(states, goals, z) returned shape {x.shape}; it must be "
                             f"(n, input_dim) = ({env.n}, {env.input_dim})")


class GymnasiumASPEnv(ASPEnvBase):
    """Wrap ``n`` copies of your own Gymnasium environment (discrete actions) for asymmetric self-play.

    You give:
      make()                      -> a fresh gymnasium.Env (Discrete action space)
      get_state(env)              -> 1-D float array, the full state that set_state can restore
      set_state(env, state)       -> None, put the env into that state
      distance(state_a, state_b)  -> float; Bob's self-play test: he succeeds when it is below ``threshold``
      reached(state, goal)        -> bool; the target task's success test, after each step. ``terminated``
                                     only ends an episode: terminated without reached is a failure (a hole).
      target_goal                 -> 1-D array in get_state's space: the goal Bob is shown on the target task
      t_max_target                -> cap on a target-task episode's steps (the self-play cap is SelfPlayConfig.t_max)
    The policy sees (state, goal state, episode-kind flag) and, with ``SelfPlayConfig.time_input``, t / t_max; the
    target reward is the env's own. ``truncated`` (the env's own time limit) also ends an episode as a
    failure, so make that limit at least ``SelfPlayConfig.t_max`` and ``t_max_target``.

        env = GymnasiumASPEnv(make, get_state, set_state, distance, threshold=0.5, reached=reached,
                              target_goal=goal, t_max_target=100, n=seeds * cfg.batch)
        curves, bob = fivestack.asp.selfplay.train(env, "self_play", cfg, seeds, episodes, rng)
    """

    def __init__(self, make: Callable, get_state: Callable, set_state: Callable, distance: Callable,
                 threshold: float, n: int, *, reached: Callable | None = None, target_goal=None,
                 t_max_target: int = 200, seed: int = 0, t_max=None):
        if t_max is not None:
            raise TypeError("GymnasiumASPEnv has no t_max: the cap on a target-task episode is t_max_target=..., "
                            "and the self-play cap (Alice + Bob) is SelfPlayConfig(t_max=...)")
        if not callable(reached):
            raise TypeError("GymnasiumASPEnv needs reached=lambda state, goal: ... -> bool, the target task's "
                            "success test (terminated alone is not success: it is also a fall into a hole)")
        if target_goal is None:
            raise TypeError("GymnasiumASPEnv needs target_goal=..., the target task's goal as a state vector "
                            "in get_state's space (what Bob is shown and what reached(state, goal) compares)")
        self.envs = [make() for _ in range(n)]
        space = self.envs[0].action_space
        if not hasattr(space, "n"):
            raise ValueError("GymnasiumASPEnv needs a Discrete action space; discretise a Box action space "
                             "first (for example with a gymnasium.ActionWrapper over a few bins)")
        self.n = n
        self.tabular = False
        self.num_actions = int(space.n) + 1
        self._get, self._set, self._distance, self.threshold = get_state, set_state, distance, threshold
        self._reached = reached
        self.t_max_target = t_max_target
        for i, e in enumerate(self.envs):
            e.reset(seed=seed + i)
        first = np.asarray(get_state(self.envs[0]), dtype=np.float64)
        if first.ndim != 1:
            raise ValueError(f"get_state(env) returned shape {first.shape}; it must return a 1-D array "
                             "(wrap a scalar state s as np.array([s]), flatten a grid)")
        self.state_dim = len(first)
        goal = np.asarray(target_goal, dtype=np.float64)
        if goal.shape != (self.state_dim,):
            raise ValueError(f"target_goal has shape {goal.shape}; it must be a state vector of shape "
                             f"({self.state_dim},), like get_state(env)'s")
        self.goal = goal
        self.input_dim = 2 * self.state_dim + 1
        self.state = np.stack([np.asarray(get_state(e), dtype=np.float64) for e in self.envs])

    def reset(self, rng, target):
        for e in self.envs:
            e.reset(seed=int(rng.integers(2**31)))
        self.state = np.stack([np.asarray(self._get(e), dtype=np.float64) for e in self.envs])

    def set_state(self, states, where):
        for i in np.flatnonzero(where):
            self._set(self.envs[i], states[i])
            self.state[i] = states[i]

    def target_goal(self):
        return np.broadcast_to(self.goal, self.state.shape)

    def step(self, actions, moving, target):
        reward = np.zeros(self.n)
        reached = np.zeros(self.n, bool)
        ended = np.zeros(self.n, bool)
        for i in np.flatnonzero(moving):
            _, r, terminated, truncated, _ = self.envs[i].step(int(actions[i]))
            self.state[i] = np.asarray(self._get(self.envs[i]), dtype=np.float64)
            reward[i] = r
            reached[i] = bool(self._reached(self.state[i], self.goal))
            ended[i] = terminated or truncated
        return reward, reached, ended

    def encode(self, states, goals, z):
        return np.concatenate([states, goals, np.asarray(z, np.float64)[..., None]], axis=-1)

    def success(self, states, goals):
        return np.array([self._distance(a, b) < self.threshold for a, b in zip(states, goals)])
