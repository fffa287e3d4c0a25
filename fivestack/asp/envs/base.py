"""The interface asymmetric self-play needs from an environment, and a wrapper for your own Gymnasium env.

An ``ASPEnv`` holds ``n`` episodes in lockstep (rows); its whole state is a numeric array ``state`` of shape
(n, D) that can be read and written back (that is what makes *repeat* mode possible: Bob starts again from
Alice's s_0). The last action index, ``num_actions - 1``, is STOP; rows that take STOP (or that are idle) are
not stepped. What an environment must say:

- ``reset(rng, target)``: new episodes in every row; rows where ``target`` is True start a target-task episode.
- ``set_state(states, where)``: put rows ``where`` back into ``states`` (used at Alice's STOP in repeat mode).
- ``step(actions, moving, target)``: advance the rows ``moving``; returns the target-task reward of the step
  and whether the target task was reached (both only read for target rows).
- ``encode(states, goals, z)``: the policy input for (s_t, s_goal, z); Alice gets (s_t, s_0, 0), Bob
  (s_t, s*, 0) in self-play and (s_t, target_goal, 1) on the target task (target_goal is 0 except where the
  task itself names a goal, as in the hallway).
- ``success(states, goals)``: Bob's self-play test (exact match, a distance threshold, or "every count at least
  Alice's").
- ``bob_stops``: True when Bob must emit STOP to finish (the hallway); then ``target_stop`` scores a target
  episode that Bob stopped. Otherwise success is tested after every step and STOP is masked for Bob.
- ``count_key(states)``: an integer per row for the count-based baseline's N(s).
- ``task_stats(s0, s_star)`` (optional): named per-row numbers describing Alice's task (for the curves).
"""

from __future__ import annotations

from typing import Callable

import numpy as np


class ASPEnvBase:
    n: int
    num_actions: int
    state_dim: int
    bob_stops = False
    t_max = 100           # self-play cap (Alice + Bob actions)
    t_max_target = 100    # target-task cap
    state: np.ndarray

    def set_state(self, states: np.ndarray, where: np.ndarray) -> None:
        self.state[where] = states[where]

    def target_goal(self) -> np.ndarray:
        return np.zeros_like(self.state)

    def target_stop(self, states: np.ndarray, t: np.ndarray):
        raise NotImplementedError

    def count_key(self, states: np.ndarray) -> np.ndarray:
        q = np.round(np.asarray(states, dtype=np.float64) * 1000).astype(np.int64)
        key = np.zeros(len(q), np.int64)
        for j in range(q.shape[1]):
            key = key * 1000003 + q[:, j]
        return key

    def task_stats(self, s0: np.ndarray, s_star: np.ndarray) -> dict[str, np.ndarray]:
        return {}


class GymnasiumASPEnv(ASPEnvBase):
    """Wrap ``n`` copies of your own Gymnasium environment (discrete actions) for asymmetric self-play.

    You give four small functions:
      make()                      -> a fresh gymnasium.Env (Discrete action space)
      get_state(env)              -> 1-D float array, the full state that set_state can restore
      set_state(env, state)       -> None, put the env into that state
      distance(state_a, state_b)  -> float; Bob succeeds when it is below ``threshold``
    The policy sees the state vector itself (concatenated with the goal state and the episode-kind flag).
    The target task is the env's own reward; ``terminated`` counts as reaching it.

        env = GymnasiumASPEnv(make, get_state, set_state, distance, threshold=0.2, n=16, t_max=200)
        result = train_method(env_factory=lambda n: ..., ...)   # see fivestack.asp.selfplay
    """

    def __init__(self, make: Callable, get_state: Callable, set_state: Callable, distance: Callable,
                 threshold: float, n: int, t_max: int = 200, t_max_target: int | None = None,
                 seed: int = 0):
        self.envs = [make() for _ in range(n)]
        space = self.envs[0].action_space
        if not hasattr(space, "n"):
            raise ValueError("GymnasiumASPEnv needs a Discrete action space; discretise a Box action space "
                             "first (for example with a gymnasium.ActionWrapper over a few bins)")
        self.n = n
        self.tabular = False
        self.num_actions = int(space.n) + 1
        self._get, self._set, self._distance, self.threshold = get_state, set_state, distance, threshold
        self.t_max, self.t_max_target = t_max, t_max_target or t_max
        for i, e in enumerate(self.envs):
            e.reset(seed=seed + i)
        self.state_dim = len(np.asarray(get_state(self.envs[0]), dtype=np.float64))
        self.input_dim = 2 * self.state_dim + 1
        self.state = np.stack([np.asarray(get_state(e), dtype=np.float64) for e in self.envs])

    def reset(self, rng, target):
        for i, e in enumerate(self.envs):
            e.reset(seed=int(rng.integers(2**31)))
        self.state = np.stack([np.asarray(self._get(e), dtype=np.float64) for e in self.envs])

    def set_state(self, states, where):
        for i in np.flatnonzero(where):
            self._set(self.envs[i], states[i])
            self.state[i] = states[i]

    def step(self, actions, moving, target):
        reward = np.zeros(self.n)
        reached = np.zeros(self.n, bool)
        for i in np.flatnonzero(moving):
            _, r, terminated, _, _ = self.envs[i].step(int(actions[i]))
            reward[i], reached[i] = r, terminated
            self.state[i] = np.asarray(self._get(self.envs[i]), dtype=np.float64)
        return reward, reached

    def encode(self, states, goals, z):
        return np.concatenate([states, goals, np.asarray(z, np.float64)[..., None]], axis=-1)

    def success(self, states, goals):
        return np.array([self._distance(a, b) < self.threshold for a, b in zip(states, goals)])
