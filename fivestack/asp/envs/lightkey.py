"""A MazeBase-style light-key world, written here: a small grid with a wall down the middle and a door in it,
a light switch, a key switch that opens / closes the door, and (in the target task only) a goal flag.

- Grid ``rows`` x ``cols`` (3 x 5 in the experiments), the wall is column ``cols // 2``, the door is one cell of it (random row).
- Actions: up, down, left, right, toggle (flips the switch the agent stands on), STOP (Alice).
- With the light off the agent sees only the light switch (and its own cell); the key, the door and the goal
  are invisible. Observation: a bag of (object, location) words, one-hot per object as in the paper.
- Self-play: every object placed at random on either side, light off with probability ``p_light_off``,
  door open with probability 1/2. Bob's success test matches what is *visible* in Alice's final state:
  the agent's cell and the light, and the door too when the light is on there.
- Target task: the agent and both switches on one side, the goal on the other, light off, door closed:
  turn the light on, toggle the key, walk through the door, reach the flag. Reward -0.1 per step and +1 on
  the flag (1 - 0.1 t on success, -0.1 t otherwise), t_max 80.
State columns: agent r, c; light switch r, c; key r, c; door row; light on; door open; goal r, c (-1: none).
"""

from __future__ import annotations

import numpy as np

from fivestack.asp.envs.base import ASPEnvBase
from fivestack.asp.selfplay import ASPConfig

UP, DOWN, LEFT, RIGHT, TOGGLE, STOP = range(6)
AR, AC, LR, LC, KR, KC, DOOR, LIGHT, OPEN, GR, GC = range(11)


def config() -> ASPConfig:
    """Table 1, MazeBase column: t_max 80, entropy 0.003, gamma 0.1, 20% target episodes, MLP 100-50 tanh.
    Deviations, for the CPU budget: batch 64 episodes per seed (paper 256); lr 0.001 (paper 0.003: with the
    smaller batch, 0.003 made self-play Bob's target success collapse early, and target-only learned no
    faster); a 3 x 5 grid (the paper's MazeBase mazes are larger) so that learning fits 10^4 target episodes
    rather than the paper's 10^6. ``bob_must_act=False`` and no time input, as the figures in docs/asp.md
    were measured (the paper requires one action of Bob and fed t / t_max)."""
    return ASPConfig(mode="repeat", gamma=0.1, t_max=80, target_share=0.2, batch=64, lr=0.001,
                     entropy=0.003, entropy_target=0.003, hidden=(100, 50), random_alice_steps=10,
                     eval_every=500, eval_episodes=64, bob_must_act=False)


class LightKey(ASPEnvBase):
    tabular = False
    bob_stops = False
    num_actions = 6
    state_dim = 11

    def __init__(self, n: int, rows: int = 5, cols: int = 5, p_light_off: float = 0.5, t_max_target: int = 80):
        self.n, self.rows, self.cols, self.p_light_off = n, rows, cols, p_light_off
        self.wall = cols // 2
        self.t_max_target = t_max_target
        self.cells = rows * cols
        self.input_dim = 2 * (3 * self.cells + 2 * rows + self.cells + 1) + 1
        self.state = np.zeros((n, 11), np.int64)

    def _free_cells(self, rng, k, side):
        """k distinct non-wall cells per row, on ``side`` (-1 either, 0 left, 1 right); returns (n, k, 2)."""
        left = [(r, c) for r in range(self.rows) for c in range(self.wall)]
        right = [(r, c) for r in range(self.rows) for c in range(self.wall + 1, self.cols)]
        out = np.zeros((self.n, k, 2), np.int64)
        for i in range(self.n):
            pool = left + right if side[i] < 0 else (left if side[i] == 0 else right)
            out[i] = np.array(pool)[rng.choice(len(pool), k, replace=False)]
        return out

    def reset(self, rng, target):
        n = self.n
        side = np.where(target, rng.integers(0, 2, n), -1)
        own = self._free_cells(rng, 3, side)                       # agent, light switch, key switch
        goal = self._free_cells(rng, 1, np.where(target, 1 - side, -1))[:, 0]
        s = np.zeros((n, 11), np.int64)
        s[:, AR:AC + 1], s[:, LR:LC + 1], s[:, KR:KC + 1] = own[:, 0], own[:, 1], own[:, 2]
        s[:, DOOR] = rng.integers(0, self.rows, n)
        s[:, LIGHT] = np.where(target, 0, rng.random(n) >= self.p_light_off)
        s[:, OPEN] = np.where(target, 0, rng.random(n) < 0.5)
        s[:, GR:GC + 1] = np.where(target[:, None], goal, -1)
        self.state = s

    def step(self, actions, moving, target):
        s = self.state
        dr = np.select([actions == UP, actions == DOWN], [-1, 1], 0) * moving
        dc = np.select([actions == LEFT, actions == RIGHT], [-1, 1], 0) * moving
        r = np.clip(s[:, AR] + dr, 0, self.rows - 1)
        c = np.clip(s[:, AC] + dc, 0, self.cols - 1)
        blocked = (c == self.wall) & ~((r == s[:, DOOR]) & (s[:, OPEN] == 1))
        s[:, AR] = np.where(blocked, s[:, AR], r)
        s[:, AC] = np.where(blocked, s[:, AC], c)
        toggle = moving & (actions == TOGGLE)
        on_light = toggle & (s[:, AR] == s[:, LR]) & (s[:, AC] == s[:, LC])
        on_key = toggle & (s[:, AR] == s[:, KR]) & (s[:, AC] == s[:, KC])
        s[:, LIGHT] ^= on_light
        s[:, OPEN] ^= on_key
        reached = target & (s[:, AR] == s[:, GR]) & (s[:, AC] == s[:, GC])
        return np.where(moving, -0.1, 0.0) + reached * 1.0, reached, np.zeros(self.n, bool)

    def target_goal(self):
        """No goal state to show on the target task: encode zeroes the goal on target rows (z = 1)."""
        return np.zeros_like(self.state)

    def observe(self, s: np.ndarray) -> np.ndarray:
        """Bag of (object, location) words for states s (..., 11): one-hot agent cell, light-switch cell,
        key cell, door row (open), door row (closed), goal cell, then the light flag. Invisible words are 0."""
        cells, rows, cols = self.cells, self.rows, self.cols
        lit = s[..., LIGHT] == 1
        closed = 1 - s[..., OPEN]
        index = np.stack([s[..., AR] * cols + s[..., AC],
                          cells + s[..., LR] * cols + s[..., LC],
                          2 * cells + s[..., KR] * cols + s[..., KC],
                          3 * cells + rows * closed + s[..., DOOR],
                          3 * cells + 2 * rows + np.maximum(s[..., GR], 0) * cols + np.maximum(s[..., GC], 0),
                          np.full(s.shape[:-1], 4 * cells + 2 * rows)], -1)
        seen = np.stack([np.ones_like(lit), np.ones_like(lit), lit, lit, lit & (s[..., GR] >= 0), lit], -1)
        flat_index = index.reshape(-1, 6)
        out = np.zeros((len(flat_index), 4 * cells + 2 * rows + 1), np.float32)
        out[np.arange(len(flat_index))[:, None], flat_index] = seen.reshape(-1, 6)
        return out.reshape(s.shape[:-1] + (out.shape[-1],))

    def encode(self, states, goals, z):
        z = np.asarray(z, np.float32)[..., None]
        target = z[..., 0] > 0
        goal_obs = self.observe(goals) * ~target[..., None]        # the target task: s* = 0
        return np.concatenate([self.observe(states), goal_obs, z], -1)

    def success(self, states, goals):
        same = (states[:, AR] == goals[:, AR]) & (states[:, AC] == goals[:, AC]) & \
            (states[:, LIGHT] == goals[:, LIGHT])
        door_seen = goals[:, LIGHT] == 1
        return same & (~door_seen | (states[:, OPEN] == goals[:, OPEN]))

    def task_stats(self, s0, s_star):
        light = s0[:, LIGHT] != s_star[:, LIGHT]
        door = s0[:, OPEN] != s_star[:, OPEN]
        crossed = (s0[:, AC] < self.wall) != (s_star[:, AC] < self.wall)
        return {"objects_changed": (light.astype(float) + door + crossed),
                "light_toggled": light.astype(float), "door_toggled": door.astype(float),
                "crossed_wall": crossed.astype(float)}


def make(n: int) -> LightKey:
    return LightKey(n, rows=3, cols=5)


METHODS = ("self_play", "target_only", "random_alice")
EPISODES = 10_000
ALICE_PLOTS = ("t_a", "objects_changed", "light_toggled", "door_toggled")
METRIC = "success"


def episodes_to_reach(res: dict, level: float) -> float | None:
    """Counted episodes until the mean success curve first reaches ``level`` (None if never)."""
    for x, m in zip(res["x"], res["success"]["mean"]):
        if m >= level:
            return float(x)
    return None


def summary(results: dict) -> dict:
    """Item 3: target episodes to reach target-only's final success level (speed-up), Alice's curriculum."""
    from fivestack.asp.experiments import final
    r = results["methods"]
    end = results["episodes"]
    out = {"final_success": {m: final(v, "success") for m, v in r.items()}}
    if "self_play" in r and "target_only" in r:
        level = 0.9 * out["final_success"]["target_only"]
        e_t = episodes_to_reach(r["target_only"], level)
        out["level"] = round(level, 4)
        out["target_episodes_to_level"] = {m: episodes_to_reach(v, level) for m, v in r.items()}
        out["speed_up"] = {m: (round(e_t / max(e, 1.0), 3) if (e_t and e is not None) else None)
                           for m, e in out["target_episodes_to_level"].items() if m != "target_only"}
    if "self_play" in r:
        a = r["self_play"]["alice"]
        out["alice_first_last"] = {k: [a[k][0], a[k][-1]] for k in a if k != "x"}
    return out
