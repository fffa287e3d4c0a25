"""An economy world like the paper's StarCraft one, written here: workers mine, the command centre trains
workers, a barracks and supply depots are built, the barracks trains marines; no enemies.

One global action per step (the paper drives every unit; here the agent picks one order a step, which keeps
the policy a small MLP): 0 wait, 1 send an idle worker to mine, 2 train a worker (50 minerals, 12 steps),
3 build a barracks (150, 40 steps), 4 build a supply depot (100, 20 steps), 5 train a marine (50, 15 steps,
split across barracks), 6 STOP (Alice). An order that cannot be carried out (too few minerals, no supply,
the building already busy) is ignored, as in the paper. Each mining worker brings 1 mineral a step.
Supply: 10 from the command centre + 8 per depot; workers and marines take 1 each (4 workers at the start:
at most 6 marines without a depot, as in the paper's remark).

Target task: 200 steps, +1 for each marine trained. Self-play (repeat): Bob succeeds when every global count
(minerals / 25, workers, barracks, depots, marines) is at least Alice's.
"""

from __future__ import annotations

import numpy as np

from fivestack.asp.envs.base import ASPEnvBase
from fivestack.asp.selfplay import SelfPlayConfig

WAIT, MINE, TRAIN_WORKER, BUILD_BARRACKS, BUILD_DEPOT, TRAIN_MARINE, STOP = range(7)
MINERALS, IDLE, MINING, BARRACKS, DEPOTS, MARINES, T_WORKER, T_BARRACKS, T_DEPOT, T_MARINE = range(10)
COST = {TRAIN_WORKER: 50, BUILD_BARRACKS: 150, BUILD_DEPOT: 100, TRAIN_MARINE: 50}
TIME = {TRAIN_WORKER: 12, BUILD_BARRACKS: 40, BUILD_DEPOT: 20, TRAIN_MARINE: 15}
SUPPLY_BASE, SUPPLY_PER_DEPOT, START_WORKERS = 10, 8, 4


def config() -> SelfPlayConfig:
    """Table 1, StarCraft column: lr 0.003, batch 32, t_max 200, entropy 0 (target) / 0.003 (self-play),
    gamma 0.01, 10% target episodes, repeat; MLP 50-50. The count-based baseline uses alpha 0.1 on the
    global counts, the paper's best. ``bob_must_act=False`` and no time input, as the figures in docs/asp.md
    were measured (the paper requires one action of Bob and fed t / t_max)."""
    return SelfPlayConfig(mode="repeat", gamma=0.01, t_max=200, target_share=0.1, batch=32, lr=0.003,
                     entropy=0.003, entropy_target=0.0, hidden=(50, 50), count_alpha=0.1,
                     random_alice_steps=100, eval_every=100, eval_episodes=32, bob_must_act=False)


def global_counts(s: np.ndarray) -> np.ndarray:
    """(minerals // 25, workers, barracks, depots, marines): what Bob's success test compares."""
    return np.stack([s[..., MINERALS] // 25, s[..., IDLE] + s[..., MINING], s[..., BARRACKS], s[..., DEPOTS],
                     s[..., MARINES]], -1)


class Economy(ASPEnvBase):
    tabular = False
    bob_stops = False
    num_actions = 7
    state_dim = 10
    input_dim = 2 * 10 + 5 + 1

    def __init__(self, n: int, t_max_target: int = 200):
        self.n = n
        self.t_max_target = t_max_target
        self.state = np.zeros((n, 10), np.int64)

    def reset(self, rng, target):
        self.state = np.zeros((self.n, 10), np.int64)
        self.state[:, MINERALS] = 50
        self.state[:, IDLE] = START_WORKERS

    def step(self, actions, moving, target):
        s = self.state
        a = np.where(moving, actions, WAIT)
        supply_free = SUPPLY_BASE + SUPPLY_PER_DEPOT * s[:, DEPOTS] - s[:, IDLE] - s[:, MINING] \
            - s[:, MARINES] - (s[:, T_WORKER] > 0) - (s[:, T_MARINE] > 0)
        # orders
        mine = (a == MINE) & (s[:, IDLE] > 0)
        s[:, IDLE] -= mine
        s[:, MINING] += mine
        for order, timer, extra in ((TRAIN_WORKER, T_WORKER, supply_free > 0),
                                    (BUILD_BARRACKS, T_BARRACKS, True),
                                    (BUILD_DEPOT, T_DEPOT, True),
                                    (TRAIN_MARINE, T_MARINE, (supply_free > 0) & (s[:, BARRACKS] > 0))):
            go = (a == order) & (s[:, MINERALS] >= COST[order]) & (s[:, timer] == 0) & extra
            s[:, MINERALS] -= go * COST[order]
            duration = TIME[order] if order != TRAIN_MARINE else -(-TIME[order] // np.maximum(s[:, BARRACKS], 1))
            s[:, timer] = np.where(go, duration, s[:, timer])
        # the world moves on (every row: time passes for Alice's and Bob's orders alike)
        s[:, MINERALS] += s[:, MINING] * moving
        done_worker, done_barracks, done_depot, done_marine = (
            (s[:, t] == 1) & moving for t in (T_WORKER, T_BARRACKS, T_DEPOT, T_MARINE))
        for t in (T_WORKER, T_BARRACKS, T_DEPOT, T_MARINE):
            s[:, t] = np.maximum(s[:, t] - moving, 0)
        s[:, IDLE] += done_worker
        s[:, BARRACKS] += done_barracks
        s[:, DEPOTS] += done_depot
        s[:, MARINES] += done_marine
        return done_marine.astype(float), np.zeros(self.n, bool), np.zeros(self.n, bool)

    def target_goal(self):
        """No goal state to show on the target task: encode zeroes the goal on target rows (z = 1)."""
        return np.zeros_like(self.state)

    def encode(self, states, goals, z):
        z = np.asarray(z, np.float32)[..., None]
        scale = np.array([100, 4, 4, 1, 1, 4, 12, 40, 20, 15], np.float32)
        goal = global_counts(goals).astype(np.float32) / np.array([4, 4, 1, 1, 4], np.float32) * (1 - z)
        return np.concatenate([states / scale, np.minimum(states / scale, 1.0) > 0, goal, z], -1).astype(
            np.float32)

    def success(self, states, goals):
        return (global_counts(states) >= global_counts(goals)).all(-1)

    def count_key(self, states):
        c = np.minimum(global_counts(states), 63)
        return ((c[:, 0] * 64 + c[:, 1]) * 64 + c[:, 2]) * 4096 + c[:, 3] * 64 + c[:, 4]

    def task_stats(self, s0, s_star):
        c = global_counts(s_star).astype(float)
        return {"marines": c[:, 4], "barracks": c[:, 2], "workers": c[:, 1], "depots": c[:, 3]}


def make(n: int) -> Economy:
    return Economy(n)


METHODS = ("self_play", "target_only", "count_based")
EPISODES = 1_000
ALICE_PLOTS = ("t_a", "barracks", "depots")
METRIC = "reward"


def summary(results: dict) -> dict:
    """Item 5: marines per target episode at the end, self-play against target-only at the same budget."""
    from fivestack.asp.experiments import final
    r = results["methods"]
    end = results["episodes"]
    out = {"final_marines": {m: final(v, "reward") for m, v in r.items()},
           "final_marines_per_seed": {m: v["reward"]["per_seed_final"] for m, v in r.items()},
           "mean_marines_over_training": {m: round(float(np.mean(v["reward"]["mean"])), 3) for m, v in r.items()}}
    if "self_play" in r and "target_only" in r:
        out["self_play_more_marines"] = out["final_marines"]["self_play"] > out["final_marines"]["target_only"]
    if "self_play" in r:
        a = r["self_play"]["alice"]
        out["alice_first_last"] = {k: [a[k][0], a[k][-1]] for k in a if k != "x"}
    return out
