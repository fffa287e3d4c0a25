"""MountainCar for asymmetric self-play, in two labelled variants; force in 5 uniform bins plus STOP.

``mountaincar`` (the paper's car, ``RLLabMountainCar``, what ``fivestack asp reproduce mountaincar`` runs):
RLLab's damped Box2D mountain car (``fivestack.asp.envs.box2d_car``: with no force a velocity of 1 dies out
in about 150 steps; uniform random forces never reach the top) with the authors' setup. State (x, x-dot) in
the car's own units (metres, metres per second). Every episode starts at the valley bottom, x = 0, with
x-dot ~ U(-1, 1). Target task: +1 once x >= 0.6, within 500 steps (|x| >= 2 also ends an episode, as in
RLLab). Repeat mode only; Bob succeeds when ||(x, x-dot)_Bob - (x, x-dot)_Alice|| < 0.2 in those units, so
velocity counts. The policy sees (x, x-dot), Bob's goal (Alice's final state; 0 on the target task), the
episode-kind flag and t / 500.

``mountaincar_gym`` (``MountainCar``, the second variant): Gymnasium's continuous mountain car
(``gymnasium.envs.classic_control.continuous_mountain_car``), undamped. Its dynamics are Gymnasium's own,
stepped for many cars at once in numpy (``tests/asp/test_mountaincar.py`` checks them against
``Continuous_MountainCarEnv`` step by step); ``gym_mountaincar`` wraps a Gymnasium instance through
``GymnasiumASPEnv``, reading and writing ``env.unwrapped.state``, to show the same world through the
user-facing interface. Target task: reach position 0.45 within 500 steps, reward +1 there and 0 elsewhere
(Gymnasium's -0.1 a^2 action cost is left out). Bob succeeds when ||(x, v)_Bob - (x, v)_Alice|| < 0.2 in
Gymnasium's units, where velocity (|v| <= 0.07) hardly matters, and untrained policies already reach the top
in a few percent of 500-step episodes.
"""

from __future__ import annotations

import numpy as np

from types import SimpleNamespace

from fivestack.asp.envs import box2d_car
from fivestack.asp.envs.base import ASPEnvBase, GymnasiumASPEnv
from fivestack.asp.selfplay import SelfPlayConfig

FORCES = np.linspace(-1.0, 1.0, 5)
MIN_POSITION, MAX_POSITION, MAX_SPEED, GOAL_POSITION, POWER = -1.2, 0.6, 0.07, 0.45, 0.0015


def gym_config() -> SelfPlayConfig:
    """The Gymnasium variant. Table 1, MountainCar column: lr 0.003, batch 128, t_max 500, entropy 0.003, gamma 0.01,
    repeat, target share 1-10% (we use 10%), MLP 50-50. Deviation: Alice's STOP logit starts at -3 (the paper's
    STOP is a separate binary head): with an even start she stopped after ~6 actions, never left the 0.2 ball
    around s_0, and Bob won every task at t_B = 0, so she had no gradient at all. ``bob_must_act=False`` and no
    time input, as the figures in docs/asp.md were measured (the paper requires one action of Bob and fed t /
    t_max)."""
    return SelfPlayConfig(mode="repeat", gamma=0.01, t_max=500, target_share=0.1, batch=128, lr=0.003,
                     entropy=0.003, entropy_target=0.003, hidden=(50, 50), random_alice_steps=100,
                     eval_every=100, eval_episodes=32, alice_stop_bias=-3.0,
                     bob_must_act=False)


def physics(position, velocity, force):
    """One step of Gymnasium's Continuous_MountainCarEnv.step for arrays of cars."""
    velocity = np.clip(velocity + force * POWER - 0.0025 * np.cos(3 * position), -MAX_SPEED, MAX_SPEED)
    position = np.clip(position + velocity, MIN_POSITION, MAX_POSITION)
    velocity = np.where((position == MIN_POSITION) & (velocity < 0), 0.0, velocity)
    return position, velocity


class MountainCar(ASPEnvBase):
    tabular = False
    bob_stops = False
    num_actions = len(FORCES) + 1
    state_dim = 2
    input_dim = 5
    threshold = 0.2

    def __init__(self, n: int, t_max_target: int = 500):
        self.n = n
        self.t_max_target = t_max_target
        self.state = np.zeros((n, 2))

    def reset(self, rng, target):
        self.state = np.stack([rng.uniform(-0.6, -0.4, self.n), np.zeros(self.n)], 1)

    def step(self, actions, moving, target):
        force = FORCES[np.minimum(actions, len(FORCES) - 1)]
        pos, vel = physics(self.state[:, 0], self.state[:, 1], force)
        self.state = np.where(moving[:, None], np.stack([pos, vel], 1), self.state)
        reached = moving & (self.state[:, 0] >= GOAL_POSITION)
        return reached.astype(float), reached, np.zeros(self.n, bool)

    def target_goal(self):
        """No goal state to show on the target task: encode zeroes the goal on target rows (z = 1)."""
        return np.zeros_like(self.state)

    def encode(self, states, goals, z):
        z = np.asarray(z, np.float64)[..., None]
        goals = goals * (1 - z)                                   # the target task: s* = 0
        scale = np.array([1.0, 10.0])                             # velocity is within +-0.07
        return np.concatenate([states * scale, goals * scale, z], -1).astype(np.float32)

    def success(self, states, goals):
        return np.linalg.norm(states - goals, axis=-1) < self.threshold

    def count_key(self, states):
        cell = np.floor((states - [MIN_POSITION, -MAX_SPEED]) / [0.05, 0.005]).astype(np.int64)
        return cell[:, 0] * 1000 + cell[:, 1]

    def task_stats(self, s0, s_star):
        return {"distance": np.abs(s_star[:, 0] - s0[:, 0]), "final_position": s_star[:, 0]}


def gym_make(n: int) -> MountainCar:
    return MountainCar(n)


def gym_mountaincar(n: int, t_max_target: int = 500) -> GymnasiumASPEnv:
    """The same world through the user-facing wrapper: a Gymnasium env, its state read and written."""
    import gymnasium
    from gymnasium.envs.classic_control.continuous_mountain_car import Continuous_MountainCarEnv

    class FiveBins(gymnasium.ActionWrapper):
        def __init__(self, env):
            super().__init__(env)
            self.action_space = gymnasium.spaces.Discrete(len(FORCES))

        def action(self, a):
            return np.array([FORCES[int(a)]], np.float32)

    def set_state(env, s):
        env.unwrapped.state = np.asarray(s, np.float32)

    return GymnasiumASPEnv(make=lambda: FiveBins(Continuous_MountainCarEnv()),
                           get_state=lambda env: np.asarray(env.unwrapped.state, np.float64),
                           set_state=set_state,
                           distance=lambda a, b: float(np.linalg.norm(np.asarray(a) - np.asarray(b))),
                           threshold=0.2, n=n, t_max_target=t_max_target,
                           reached=lambda state, goal: state[0] >= goal[0],
                           target_goal=np.array([GOAL_POSITION, 0.0]))


def _summary(results: dict) -> dict:
    """Share of final evaluation episodes that reach the top, per method and per seed."""
    from fivestack.asp.experiments import final
    r = results["methods"]
    out = {"final_success": {m: final(v, "success") for m, v in r.items()},
           "final_success_per_seed": {m: v["success"]["per_seed_final"] for m, v in r.items()},
           "target_episodes": results["episodes"]}
    if "self_play" in r:
        out["self_play_at_least_80pct"] = out["final_success"]["self_play"] >= 0.8
        a = r["self_play"]["alice"]
        out["alice_first_last"] = {k: [a[k][0], a[k][-1]] for k in a if k != "x"}
    if "target_only" in r:
        out["target_only_below_10pct"] = out["final_success"]["target_only"] < 0.1
    return out


# --- the paper's car (RLLab's damped Box2D mountain car): ``fivestack asp reproduce mountaincar`` ---

class RLLabMountainCar(MountainCar):
    """RLLab's Box2D mountain car (``box2d_car``), n cars in lockstep; state columns x, x-dot. The actions, the
    0.2 success test and the target task's goal (none) are the Gymnasium car's; the dynamics, the start, the
    input scale and the statistics are the paper's car's."""

    def reset(self, rng, target):
        """The valley bottom, x-dot ~ U(-1, 1) (RLLab's reset), for self-play and target episodes alike."""
        self.state = np.stack([np.zeros(self.n), rng.uniform(-1.0, 1.0, self.n)], 1)

    def step(self, actions, moving, target):
        force = FORCES[np.minimum(actions, len(FORCES) - 1)]
        x, v = box2d_car.step(self.state[:, 0], self.state[:, 1], force)
        self.state = np.where(moving[:, None], np.stack([x, v], 1), self.state)
        reached = moving & (self.state[:, 0] >= box2d_car.GOAL_X)
        ended = reached | (moving & (np.abs(self.state[:, 0]) >= box2d_car.MAX_X))
        return reached.astype(float), reached, ended

    def encode(self, states, goals, z):
        z = np.asarray(z, np.float64)[..., None]
        return np.concatenate([states, goals * (1 - z), z], -1).astype(np.float32)  # target task: s* = 0

    def count_key(self, states):
        cell = np.floor((states + [2.0, 4.0]) / [0.05, 0.1]).astype(np.int64)
        return cell[:, 0] * 1000 + cell[:, 1]

    def task_stats(self, s0, s_star):
        return {"final_position": s_star[:, 0], "final_speed": np.abs(s_star[:, 1]),
                "distance": np.linalg.norm(s_star - s0, axis=-1),
                "at_top": (s_star[:, 0] >= box2d_car.GOAL_X).astype(float)}


def config() -> SelfPlayConfig:
    """Table 1, MountainCar column, with the paper's rules: lr 0.003, batch 128, t_max 500 (self-play,
    Alice + Bob) and 500 target steps, entropy 0.003, gamma 0.01, repeat, 10% target episodes (the paper:
    1-10%), MLP 50-50 tanh, RMSProp, init N(0, 0.2); Bob must act at least once (``bob_must_act``) and the
    policies see t / t_max (``time_input``). The budget is the authors': 50 epochs x 10 batches x 128
    episodes with 10% target, 6,400 target episodes. Evaluation: every 320 target episodes, 128 fresh target
    episodes per seed with sampled actions. Deviation: STOP is the sixth action of one softmax (the paper: a
    separate binary head); its logit starts at 0 like the others. As in the authors' ``sp_mountain_car.py``, a
    self-play episode that ends under Alice (the car at the top, x >= 0.6, or |x| >= 2) before her STOP sets no
    task: it is over, R_A = 0 and Bob does not play (``alice_ended_is_task=False``; before, the top was her task
    and paid her the most, t_B = t_max - t_A, for a task Bob could not yet do)."""
    return SelfPlayConfig(mode="repeat", gamma=0.01, t_max=500, target_share=0.1, batch=128, lr=0.003,
                     entropy=0.003, entropy_target=0.003, hidden=(50, 50), eval_every=320, eval_episodes=128,
                     bob_must_act=True, time_input=True, random_alice_steps=100, alice_ended_is_task=False)


def make(n: int) -> RLLabMountainCar:
    return RLLabMountainCar(n)


METHODS = ("self_play", "target_only", "count_based")
EPISODES = 6_400
ALICE_PLOTS = ("t_a", "at_top", "final_speed", "bob_success")
METRIC = "success"
summary = _summary

# --- the second variant: Gymnasium's undamped car (``fivestack asp reproduce mountaincar_gym``) ---
GYM_VARIANT = SimpleNamespace(make=gym_make, config=gym_config, METHODS=METHODS, EPISODES=1_000,
                              ALICE_PLOTS=("t_a", "distance"), METRIC="success", summary=_summary)
