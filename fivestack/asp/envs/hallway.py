"""The hallway: a chain of M states, actions left / right / STOP, tabular policies (M^2 x 3).

Self-play is *reverse*: Alice walks and STOPs, Bob must come back to s_0 and STOP. Target task: from a random
start reach a random target and STOP within t_max. Target reward (the plain policy-gradient baseline's):
-t / t_max on success in t actions, -1 on failure (each action costs 1 / t_max; a wrong STOP pays the rest).
State columns: (position, target position).
"""

from __future__ import annotations

import numpy as np

from fivestack.asp.envs.base import ASPEnvBase
from fivestack.asp.selfplay import SelfPlayConfig

LEFT, RIGHT, STOP = 0, 1, 2


def config() -> SelfPlayConfig:
    """Table 1, hallway column: lr 0.1, batch 16, t_max 30, entropy 0, gamma 0.033, reverse, no target
    episodes mixed in. "The maximum allowed steps for Alice and Bob" is 30 *each* here: Alice is stopped
    after 30 actions, Bob has 30, and a failed Bob counts t_B = 60 - t_A (a shared 30 would cap Alice's
    tasks at 14 steps, Bob would never see the longer half of the target pairs, and success stalls near
    75%). Random Alice: uniform left/right until her 30 actions are spent, as in the paper."""
    return SelfPlayConfig(mode="reverse", gamma=0.033, t_max=60, t_max_bob=30, target_share=0.0, batch=16,
                     lr=0.1, count_alpha=0.1, random_alice_steps=30, eval_every=2000, eval_episodes=64,
                     count_self_play=True)


class Hallway(ASPEnvBase):
    tabular = True
    bob_stops = True
    num_actions = 3
    state_dim = 2

    def __init__(self, n: int, length: int = 25, t_max_target: int = 30):
        self.n, self.m = n, length
        self.t_max_target = t_max_target
        self.policy_keys = length * length
        self.state = np.zeros((n, 2), np.int64)

    def reset(self, rng, target):
        pos = rng.integers(0, self.m, self.n)
        goal = np.where(target, rng.integers(0, self.m, self.n), pos)
        self.state = np.stack([pos, goal], 1)

    def step(self, actions, moving, target):
        delta = np.where(actions == LEFT, -1, np.where(actions == RIGHT, 1, 0)) * moving
        self.state[:, 0] = np.clip(self.state[:, 0] + delta, 0, self.m - 1)
        return np.where(moving, -1.0 / self.t_max_target, 0.0), np.zeros(self.n, bool), np.zeros(self.n, bool)

    def target_goal(self):
        return np.stack([self.state[:, 1], self.state[:, 1]], 1)

    def target_stop(self, states, t):
        ok = states[:, 0] == states[:, 1]
        return np.where(ok, -1.0 / self.t_max_target, -1.0 + (t - 1) / self.t_max_target), ok

    def encode(self, states, goals, z):
        return states[..., 0] * self.m + goals[..., 0]

    def success(self, states, goals):
        return states[:, 0] == goals[:, 0]

    def count_key(self, states):
        return states[:, 0].astype(np.int64)

    def task_stats(self, s0, s_star):
        return {"distance": np.abs(s_star[:, 0] - s0[:, 0]).astype(float)}


def make(n: int) -> Hallway:
    return Hallway(n)


METHODS = ("self_play", "target_only", "random_alice", "count_based")
EPISODES = 200_000
ALICE_PLOTS = ("t_a", "distance")
METRIC = "success"


def summary(results: dict) -> dict:
    """Item 2: final success of each method at the same episode count; random Alice early vs late; t_A."""
    from fivestack.asp.experiments import final, value_at
    r = results["methods"]
    end = results["episodes"]
    early = end // 10
    out = {"final_success": {m: final(v, "success") for m, v in r.items()},
           f"success_at_{early}": {m: value_at(v, "success", early) for m, v in r.items()}}
    if "self_play" in r:
        out["self_play_reaches_90pct"] = out["final_success"]["self_play"] >= 0.9
        t_a = r["self_play"]["alice"]["t_a"]
        out["alice_t_a_first_last"] = [t_a[0], t_a[-1]]
        out["alice_distance_first_last"] = [r["self_play"]["alice"]["distance"][0],
                                            r["self_play"]["alice"]["distance"][-1]]
    if "self_play" in r and "target_only" in r:
        out["self_play_beats_policy_gradient"] = out["final_success"]["self_play"] > \
            out["final_success"]["target_only"]
    if "random_alice" in r and "target_only" in r:
        out["random_alice_ahead_early"] = out[f"success_at_{early}"]["random_alice"] > \
            out[f"success_at_{early}"]["target_only"]
        out["random_alice_behind_at_end"] = out["final_success"]["random_alice"] < min(
            out["final_success"].get("self_play", 1.0), out["final_success"]["target_only"])
    return out
