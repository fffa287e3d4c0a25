"""MazeBase's light-key world at the authors' size, written here in numpy (all rows stepped at once).

The map (``size`` x ``size``, 6 x 6 by default: the authors' small configuration; their full one is 10 x 10)::

    vertical wall (VERT = 1), WALL = 3, DOOR = 4       horizontal wall (VERT = 0), WALL = 2, DOOR = 1
        . . . # . .                                        . . . . . .
        . L . # . .                                        . L . . . .
        . . . # . .                                        # D # # # #
        A . . # . G                                        . . . . A .
        . . . D . .                                        . . K . . .
        . . K # . .                                        . G . . . .

- A wall (#) crosses the whole map, vertical or horizontal with probability 1/2 each, on line WALL drawn
  uniformly from 2..size-2 (as MazeBase's ``build_big_random_wall``); one cell of it, at DOOR along the
  wall, is a door (D). The agent (A) can enter the door cell only while the door is open.
- The key switch (K) opens / closes the door; the light switch (L) turns the light on / off. Both are
  toggled by standing on them and taking TOGGLE.
- In the dark the agent sees only the (glowing) light switch and where it is itself; the wall, the door,
  the key and the goal flag are invisible.
- Actions: up, down, left, right, toggle, STOP (STOP is Alice's only).
- Self-play (repeat mode): agent, light switch and key on distinct random cells anywhere off the wall; light
  off with probability ``p_light_off``, door open with probability 1/2. Bob succeeds when what is *visible*
  in Alice's final state matches: his cell and the light, and the door too when her light is on.
- Target task: the agent and both switches on one side, the goal flag (G) on the other, light off, door
  closed: turn the light on, toggle the key, walk through the door, reach the flag. Reward -0.1 per step
  and +1 on the flag (1 - 0.1 t on success, -0.1 t otherwise), at most 80 steps. An episode is *solved*
  when the agent reaches the flag.

The policy's input: a bag of words over (object, location) pairs (the paper's), each location relative to the
agent with the map's four corners seen in the dark, as MazeBase shows its maze (``words="egocentric"``, the
default; ``WORD_SETS`` has two other word sets, measured in docs/asp.md).

State columns (one row per episode, named below): the agent's, the light switch's and the key's cells
(row, column), the wall's orientation, line and door position, the light and door flags, the goal cell
(-1, -1 in self-play: no goal).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from numba import njit

from fivestack.asp.envs.base import ASPEnvBase
from fivestack.asp.selfplay import SelfPlayConfig

UP, DOWN, LEFT, RIGHT, TOGGLE, STOP = range(6)
# the policy's input word sets: size -> (the vocabulary, the words of one state, seen or not)
WORD_SETS = {
    "rows_columns": lambda size: (8 * size + 2 + size + size + 2 + 1, 13),   # (object, row), (object, column), ...
    "cells": lambda size: (6 * size * size + 2 + 1, size + 6),               # (object, cell), a block per wall cell
    "egocentric": lambda size: (6 * (2 * size - 1) ** 2 + 2 + 1, size + 9),  # (object, offset from the agent)
}
COLUMNS = ("agent_row", "agent_col", "light_row", "light_col", "key_row", "key_col",
           "wall_vertical", "wall_line", "door_at", "light_on", "door_open", "goal_row", "goal_col")
AR, AC, LR, LC, KR, KC, VERT, WALL, DOOR, LIGHT, OPEN, GR, GC = range(len(COLUMNS))


def config() -> SelfPlayConfig:
    """Table 1, MazeBase column: t_max 80, entropy 0.003, gamma 0.1, 20% target episodes, repeat mode,
    p(light off) 0.5, MLP 100-50 tanh, lr 0.003, batch 256 episodes per seed. The paper's rules: Bob must act
    at least once and every policy sees t / t_max. Random Alice: uniform moves, stopping after a number drawn
    uniformly from 1..40 (the authors'). The world's input is MazeBase's view (``LightKey(words="egocentric")``).
    Deviation: a budget of ``EPISODES`` target episodes (100,000) instead of the paper's millions: in the 2-seed
    pilot that chose it (docs/asp.md) self-play had passed 0.95 there and random Alice and target-only were
    below 0.5, and all three were at 0.97-1.00 from 200,000 on."""
    return SelfPlayConfig(mode="repeat", gamma=0.1, t_max=80, target_share=0.2, batch=256, lr=0.003,
                     entropy=0.003, entropy_target=0.003, hidden=(100, 50), random_alice_steps=(1, 40),
                     eval_every=1000, eval_episodes=128, bob_must_act=True, time_input=True)


class LightKey(ASPEnvBase):
    tabular = False
    bob_stops = False
    num_actions = 6
    state_dim = len(COLUMNS)

    def __init__(self, n: int, size: int = 6, p_light_off: float = 0.5, t_max_target: int = 80,
                 target_lit: bool = False, target_open: bool = False, key_needs_light: bool = False,
                 words: str = "egocentric"):
        """``target_lit`` / ``target_open`` start the target task with the light already on / the door already
        open: easier stages of it for diagnosis (``benchmarks/asp_lightkey_stages.py``); the paper's task has
        both off (the defaults). ``key_needs_light``: the key switch acts only while the light is on (a toggle
        on it in the dark does nothing), one reading of the paper's "the agent has to turn on the light" first;
        off, the key works unseen. ``words``, the policy's input words (``WORD_SETS``): "egocentric" (the
        default: the paper's "bag of words over (object, location) pairs" with each location relative to the agent,
        as MazeBase shows its maze: ``_egocentric_words``), "cells" (the same pairs at absolute cells:
        ``_cell_words``) or "rows_columns" (our first words, (object, row) and (object, column):
        ``_row_column_words``)."""
        if size < 4:
            raise ValueError(f"size {size}: the wall's line is drawn from 2..size-2, so size must be at least 4")
        if words not in WORD_SETS:
            raise ValueError(f"words {words!r}: choose one of {', '.join(WORD_SETS)}")
        self.n, self.size, self.p_light_off, self.t_max_target = n, size, p_light_off, t_max_target
        self.target_lit, self.target_open, self.key_needs_light = bool(target_lit), bool(target_open), bool(key_needs_light)
        self.cells = size * size
        self.word_set = words
        self.words, self.words_per_state = WORD_SETS[words](size)   # the vocabulary; the words of one state
        self.word_set_index = list(WORD_SETS).index(words)             # the compiled encoder's name for it
        # the words of states s (..., 13) in this word set: their indices into ``self.words`` (...,
        # ``words_per_state``) and whether each is seen (0 / 1)
        self._words = {"rows_columns": self._row_column_words, "cells": self._cell_words,
                       "egocentric": self._egocentric_words}[words]
        # The input is (s_t words, goal words, z).
        self.input_dim = 2 * self.words + 1
        self.state = np.zeros((n, self.state_dim), np.int64)
        self.state[:, [GR, GC]] = -1

    # -- geometry ---------------------------------------------------------------------------------------
    @staticmethod
    def across(s: np.ndarray, r, c):
        """The coordinate that crosses the wall (the column for a vertical wall, else the row)."""
        return np.where(s[..., VERT] == 1, c, r)

    @staticmethod
    def along(s: np.ndarray, r, c):
        """The coordinate along the wall (the row for a vertical wall, else the column)."""
        return np.where(s[..., VERT] == 1, r, c)

    def side(self, s: np.ndarray, r, c) -> np.ndarray:
        """-1 before the wall, +1 after it, 0 on it (the door cell)."""
        return np.sign(self.across(s, r, c) - s[..., WALL])

    def passable(self, s: np.ndarray, r, c) -> np.ndarray:
        """Whether the agent may stand on (r, c): off the wall, or on the door cell while it is open."""
        on_wall = self.across(s, r, c) == s[..., WALL]
        door = self.along(s, r, c) == s[..., DOOR]
        return ~on_wall | (door & (s[..., OPEN] == 1))

    def _place(self, rng, s: np.ndarray, k: int, side: np.ndarray) -> np.ndarray:
        """k distinct cells per row, off the wall, on ``side`` (-1 / +1; 0: either side). Returns (n, k, 2)."""
        n, size = len(s), self.size
        r, c = np.divmod(np.arange(self.cells), size)
        cell_side = self.side(s[:, None, :], r[None], c[None])              # (n, cells)
        ok = (cell_side != 0) & ((side[:, None] == 0) | (cell_side == side[:, None]))
        keys = np.where(ok, rng.random((n, self.cells)), np.inf)
        pick = np.argsort(keys, axis=1)[:, :k]
        return np.stack(np.divmod(pick, size), -1)

    # -- the ASP interface ------------------------------------------------------------------------------
    def reset(self, rng, target):
        n, size = self.n, self.size
        target = np.asarray(target, bool)
        s = np.zeros((n, self.state_dim), np.int64)
        s[:, VERT] = rng.random(n) < 0.5
        s[:, WALL] = rng.integers(2, size - 1, n)                 # 2..size-2
        s[:, DOOR] = rng.integers(0, size, n)
        own_side = np.where(target, np.where(rng.random(n) < 0.5, -1, 1), 0)
        own = self._place(rng, s, 3, own_side)                     # agent, light switch, key switch
        s[:, [AR, AC]], s[:, [LR, LC]], s[:, [KR, KC]] = own[:, 0], own[:, 1], own[:, 2]
        goal = self._place(rng, s, 1, -own_side)[:, 0]
        s[:, [GR, GC]] = np.where(target[:, None], goal, -1)
        s[:, LIGHT] = np.where(target, self.target_lit, rng.random(n) >= self.p_light_off)
        s[:, OPEN] = np.where(target, self.target_open, rng.random(n) < 0.5)
        self.state = s

    def step(self, actions, moving, target):
        """Move / toggle every row at once (a Numba loop over rows; ``step_numpy`` is the same rule in numpy)."""
        if not self.state.flags.c_contiguous or self.state.dtype != np.int64:
            self.state = np.ascontiguousarray(self.state, np.int64)
        reward = np.empty(self.n)
        reached = np.empty(self.n, np.bool_)
        _step_rows(self.state, np.ascontiguousarray(actions, np.int64), np.ascontiguousarray(moving, np.bool_),
                   np.ascontiguousarray(np.broadcast_to(target, (self.n,)), np.bool_), self.size, self.key_needs_light,
                   reward, reached)
        return reward, reached, np.zeros(self.n, bool)

    def step_numpy(self, actions, moving, target):
        """The step rule written with numpy arrays (the reference ``step``'s kernel is tested against)."""
        s = self.state
        dr = np.select([actions == UP, actions == DOWN], [-1, 1], 0) * moving
        dc = np.select([actions == LEFT, actions == RIGHT], [-1, 1], 0) * moving
        r = np.clip(s[:, AR] + dr, 0, self.size - 1)
        c = np.clip(s[:, AC] + dc, 0, self.size - 1)
        go = self.passable(s, r, c)
        s[:, AR] = np.where(go, r, s[:, AR])
        s[:, AC] = np.where(go, c, s[:, AC])
        toggle = moving & (actions == TOGGLE)
        s[:, LIGHT] ^= toggle & (s[:, AR] == s[:, LR]) & (s[:, AC] == s[:, LC])
        lit = (s[:, LIGHT] == 1) | (not self.key_needs_light)
        s[:, OPEN] ^= toggle & (s[:, AR] == s[:, KR]) & (s[:, AC] == s[:, KC]) & lit
        reached = np.asarray(target, bool) & (s[:, AR] == s[:, GR]) & (s[:, AC] == s[:, GC])
        return np.where(moving, -0.1, 0.0) + reached * 1.0, reached, np.zeros(self.n, bool)

    def target_goal(self):
        """No goal state to show on the target task: encode zeroes the goal on target rows (z = 1)."""
        return np.zeros_like(self.state)

    def _row_column_words(self, s: np.ndarray):
        """Our first words: (object, row) and (object, column) for the agent, the light switch, the key and the
        goal; the wall's orientation and line; the door's place along the wall and open / closed; the light-on
        flag. Only the agent and the light switch are seen in the dark; the goal only where there is one."""
        size = self.size
        lit = s[..., LIGHT] == 1
        has_goal = s[..., GR] >= 0
        b = 8 * size                                              # after the four objects' row and column words
        index = np.stack([s[..., AR], size + s[..., AC],
                          2 * size + s[..., LR], 3 * size + s[..., LC],
                          4 * size + s[..., KR], 5 * size + s[..., KC],
                          6 * size + np.maximum(s[..., GR], 0), 7 * size + np.maximum(s[..., GC], 0),
                          b + s[..., VERT], b + 2 + s[..., WALL], b + 2 + size + s[..., DOOR],
                          b + 2 + 2 * size + s[..., OPEN], np.full(s.shape[:-1], b + 4 + 2 * size)], -1)
        one = np.ones_like(lit)
        goal = lit & has_goal
        seen = np.stack([one, one, one, one, lit, lit, goal, goal, lit, lit, lit, lit, lit], -1)
        return index, seen.astype(np.float32)

    def _cell_words(self, s: np.ndarray):
        """The paper's words of states s (..., 13): (object, cell) for the agent, the light switch, the key, the
        goal and the door, (block, cell) for each of the wall's size - 1 blocks, then open / closed and the
        light-on flag; seen as in ``_row_column_words``."""
        size, cells = self.size, self.cells
        lit = s[..., LIGHT] == 1
        vertical = s[..., VERT] == 1
        j = np.arange(size - 1)
        along = j + (j >= s[..., DOOR, None])                      # the wall's cells, skipping the door
        line = s[..., WALL, None]
        blocks = np.where(vertical[..., None], along * size + line, line * size + along)
        door = np.where(vertical, s[..., DOOR] * size + s[..., WALL], s[..., WALL] * size + s[..., DOOR])
        goal = np.maximum(s[..., GR], 0) * size + np.maximum(s[..., GC], 0)
        index = np.concatenate([np.stack([s[..., AR] * size + s[..., AC], cells + s[..., LR] * size + s[..., LC],
                                          2 * cells + s[..., KR] * size + s[..., KC], 3 * cells + goal,
                                          4 * cells + door], -1),
                                5 * cells + blocks,
                                np.stack([6 * cells + s[..., OPEN], np.full(s.shape[:-1], 6 * cells + 2)], -1)], -1)
        one = np.ones_like(lit)
        seen = np.concatenate([np.stack([one, one, lit, lit & (s[..., GR] >= 0), lit], -1),
                               np.repeat(lit[..., None], size - 1, -1), np.stack([lit, lit], -1)], -1)
        return index, seen.astype(np.float32)

    def _egocentric_words(self, s: np.ndarray):
        """``_cell_words`` with every location relative to the agent (one of (2 size - 1)^2 offsets), as MazeBase
        shows its maze: the light switch; the four corners of the map (seen in the dark too: where the agent
        stands is read from them); the key, the goal, the door and the wall's blocks; open / closed; light on.
        The agent itself is the view's centre (no word)."""
        size = self.size
        span = 2 * size - 1
        offsets = span * span
        lit = s[..., LIGHT] == 1
        vertical = s[..., VERT] == 1
        ar, ac = s[..., AR, None], s[..., AC, None]

        def rel(r, c):      # the offset of cells (r, c) (..., m) from the agent, as an index in 0..offsets-1
            return (r - ar + size - 1) * span + (c - ac + size - 1)

        j = np.arange(size - 1)
        along = j + (j >= s[..., DOOR, None])
        line = s[..., WALL, None]
        corner_r, corner_c = np.array([0, 0, size - 1, size - 1]), np.array([0, size - 1, 0, size - 1])
        door_r = np.where(vertical, s[..., DOOR], s[..., WALL])[..., None]
        door_c = np.where(vertical, s[..., WALL], s[..., DOOR])[..., None]
        lead = s.shape[:-1] + (4,)
        index = np.concatenate([
            rel(s[..., LR, None], s[..., LC, None]),
            offsets + rel(np.broadcast_to(corner_r, lead), np.broadcast_to(corner_c, lead)),
            2 * offsets + rel(s[..., KR, None], s[..., KC, None]),
            3 * offsets + rel(np.maximum(s[..., GR, None], 0), np.maximum(s[..., GC, None], 0)),
            4 * offsets + rel(door_r, door_c),
            5 * offsets + rel(np.where(vertical[..., None], along, line), np.where(vertical[..., None], line, along)),
            np.stack([6 * offsets + s[..., OPEN], np.full(s.shape[:-1], 6 * offsets + 2)], -1)], -1)
        one = np.ones_like(lit)
        seen = np.concatenate([np.stack([one] * 5 + [lit, lit & (s[..., GR] >= 0), lit], -1),
                               np.repeat(lit[..., None], size - 1, -1), np.stack([lit, lit], -1)], -1)
        return index, seen.astype(np.float32)

    def observe(self, s: np.ndarray) -> np.ndarray:
        """Bag of words (see ``_words``) for states s (..., 13), one 0 / 1 entry per word."""
        index, seen = self._words(s)
        flat_index = index.reshape(-1, index.shape[-1])
        out = np.zeros((len(flat_index), self.words), np.float32)
        out[np.arange(len(flat_index))[:, None], flat_index] = seen.reshape(flat_index.shape)
        return out.reshape(s.shape[:-1] + (self.words,))

    def encode(self, states, goals, z):
        """(words of s_t, words of the goal state, z); on the target task (z = 1) the goal words are 0."""
        z = np.asarray(z, np.float32)
        states, goals = np.asarray(states), np.broadcast_to(goals, np.shape(states))
        i_s, v_s = self._words(states)
        i_g, v_g = self._words(goals)
        v_g = v_g * (z[..., None] == 0)
        index = np.concatenate([i_s, self.words + i_g], -1).reshape(-1, 2 * i_s.shape[-1])
        seen = np.concatenate([v_s, v_g], -1).reshape(index.shape)
        out = np.zeros((len(index), self.input_dim), np.float32)
        out[np.arange(len(index))[:, None], index] = seen
        out[:, -1] = np.broadcast_to(z, states.shape[:-1]).reshape(-1)
        return out.reshape(states.shape[:-1] + (self.input_dim,))

    def encode_sparse(self, states, goals, z):
        """``encode`` as a SparseRows (its entries that may be nonzero: the ``words_per_state`` words of s_t, those
        of the goal, z), for the policy's sparse first layer; ``tests/asp/test_batched.py`` checks it against
        ``encode``."""
        from fivestack.asp.policy import SparseRows

        states = np.asarray(states)
        lead = states.shape[:-1]
        s = np.ascontiguousarray(states, np.int64).reshape(-1, self.state_dim)
        g = np.ascontiguousarray(np.broadcast_to(goals, states.shape), np.int64).reshape(-1, self.state_dim)
        zz = np.ascontiguousarray(np.broadcast_to(np.asarray(z, np.float32), lead)).reshape(-1)
        k = 2 * self.words_per_state + 1
        index = np.empty((len(s), k), np.int32)
        value = np.empty((len(s), k), np.float32)
        _sparse_words(s, g, zz, self.size, self.words, self.words_per_state, self.word_set_index,
                      index, value)
        return SparseRows(index.reshape(lead + (k,)), value.reshape(lead + (k,)), self.input_dim)

    def success(self, states, goals):
        same = (states[:, AR] == goals[:, AR]) & (states[:, AC] == goals[:, AC]) & \
            (states[:, LIGHT] == goals[:, LIGHT])
        door_seen = goals[:, LIGHT] == 1
        return same & (~door_seen | (states[:, OPEN] == goals[:, OPEN]))

    def task_stats(self, s0, s_star):
        light = (s0[:, LIGHT] != s_star[:, LIGHT]).astype(float)
        door = (s0[:, OPEN] != s_star[:, OPEN]).astype(float)
        crossed = (self.side(s0, s0[:, AR], s0[:, AC]) * self.side(s_star, s_star[:, AR], s_star[:, AC]) < 0)
        return {"objects_changed": light + door + crossed, "light_toggled": light, "door_toggled": door,
                "crossed_wall": crossed.astype(float)}


@njit(cache=True, nogil=True)
def _step_rows(s, actions, moving, target, size, key_needs_light, reward, reached):  # pragma: no cover - compiled
    """``LightKey.step_numpy``, one row at a time, in place on s."""
    for i in range(s.shape[0]):
        a = actions[i]
        mv = moving[i]
        dr = (-1 if a == UP else (1 if a == DOWN else 0)) if mv else 0
        dc = (-1 if a == LEFT else (1 if a == RIGHT else 0)) if mv else 0
        r = min(max(s[i, AR] + dr, 0), size - 1)
        c = min(max(s[i, AC] + dc, 0), size - 1)
        vertical = s[i, VERT] == 1
        across = c if vertical else r
        along = r if vertical else c
        if across != s[i, WALL] or (along == s[i, DOOR] and s[i, OPEN] == 1):
            s[i, AR], s[i, AC] = r, c
        if mv and a == TOGGLE:
            if s[i, AR] == s[i, LR] and s[i, AC] == s[i, LC]:
                s[i, LIGHT] ^= 1
            if s[i, AR] == s[i, KR] and s[i, AC] == s[i, KC] and (s[i, LIGHT] == 1 or not key_needs_light):
                s[i, OPEN] ^= 1
        hit = target[i] and s[i, AR] == s[i, GR] and s[i, AC] == s[i, GC]
        reached[i] = hit
        reward[i] = (-0.1 if mv else 0.0) + (1.0 if hit else 0.0)


@njit(cache=True, nogil=True)
def _words_into(s, size, offset, keep, index, value, col):  # pragma: no cover - compiled
    """``LightKey._row_column_words`` of one state row s, written at index[col:col + 13] (+ offset), seen * keep."""
    lit = 1.0 if s[LIGHT] == 1 else 0.0
    goal = lit if s[GR] >= 0 else 0.0
    b = 8 * size
    index[col + 0], value[col + 0] = offset + s[AR], keep
    index[col + 1], value[col + 1] = offset + size + s[AC], keep
    index[col + 2], value[col + 2] = offset + 2 * size + s[LR], keep
    index[col + 3], value[col + 3] = offset + 3 * size + s[LC], keep
    index[col + 4], value[col + 4] = offset + 4 * size + s[KR], lit * keep
    index[col + 5], value[col + 5] = offset + 5 * size + s[KC], lit * keep
    index[col + 6], value[col + 6] = offset + 6 * size + max(s[GR], 0), goal * keep
    index[col + 7], value[col + 7] = offset + 7 * size + max(s[GC], 0), goal * keep
    index[col + 8], value[col + 8] = offset + b + s[VERT], lit * keep
    index[col + 9], value[col + 9] = offset + b + 2 + s[WALL], lit * keep
    index[col + 10], value[col + 10] = offset + b + 2 + size + s[DOOR], lit * keep
    index[col + 11], value[col + 11] = offset + b + 2 + 2 * size + s[OPEN], lit * keep
    index[col + 12], value[col + 12] = offset + b + 4 + 2 * size, lit * keep


@njit(cache=True, nogil=True)
def _cell_words_into(s, size, offset, keep, index, value, col):  # pragma: no cover - compiled
    """``LightKey._cell_words`` of one state row s, written at index[col:col + size + 6] (+ offset), seen * keep."""
    cells = size * size
    lit = 1.0 if s[LIGHT] == 1 else 0.0
    vertical = s[VERT] == 1
    index[col + 0], value[col + 0] = offset + s[AR] * size + s[AC], keep
    index[col + 1], value[col + 1] = offset + cells + s[LR] * size + s[LC], keep
    index[col + 2], value[col + 2] = offset + 2 * cells + s[KR] * size + s[KC], lit * keep
    goal = (lit if s[GR] >= 0 else 0.0)
    index[col + 3], value[col + 3] = offset + 3 * cells + max(s[GR], 0) * size + max(s[GC], 0), goal * keep
    door = s[DOOR] * size + s[WALL] if vertical else s[WALL] * size + s[DOOR]
    index[col + 4], value[col + 4] = offset + 4 * cells + door, lit * keep
    for j in range(size - 1):
        along = j + 1 if j >= s[DOOR] else j
        block = along * size + s[WALL] if vertical else s[WALL] * size + along
        index[col + 5 + j], value[col + 5 + j] = offset + 5 * cells + block, lit * keep
    index[col + size + 4], value[col + size + 4] = offset + 6 * cells + s[OPEN], lit * keep
    index[col + size + 5], value[col + size + 5] = offset + 6 * cells + 2, lit * keep


@njit(cache=True, nogil=True)
def _egocentric_words_into(s, size, offset, keep, index, value, col):  # pragma: no cover - compiled
    """``LightKey._egocentric_words`` of one state row s, written at index[col:col + size + 9] (+ offset)."""
    span = 2 * size - 1
    offsets = span * span
    lit = 1.0 if s[LIGHT] == 1 else 0.0
    vertical = s[VERT] == 1
    r0, c0 = s[AR] - size + 1, s[AC] - size + 1          # rel(r, c) = (r - r0) * span + (c - c0)
    index[col + 0], value[col + 0] = offset + (s[LR] - r0) * span + (s[LC] - c0), keep
    for k in range(4):
        r = 0 if k < 2 else size - 1
        c = 0 if k % 2 == 0 else size - 1
        index[col + 1 + k], value[col + 1 + k] = offset + offsets + (r - r0) * span + (c - c0), keep
    index[col + 5], value[col + 5] = offset + 2 * offsets + (s[KR] - r0) * span + (s[KC] - c0), lit * keep
    goal = lit if s[GR] >= 0 else 0.0
    index[col + 6], value[col + 6] = offset + 3 * offsets + (max(s[GR], 0) - r0) * span + (max(s[GC], 0) - c0), \
        goal * keep
    door_r = s[DOOR] if vertical else s[WALL]
    door_c = s[WALL] if vertical else s[DOOR]
    index[col + 7], value[col + 7] = offset + 4 * offsets + (door_r - r0) * span + (door_c - c0), lit * keep
    for j in range(size - 1):
        along = j + 1 if j >= s[DOOR] else j
        br = along if vertical else s[WALL]
        bc = s[WALL] if vertical else along
        index[col + 8 + j], value[col + 8 + j] = offset + 5 * offsets + (br - r0) * span + (bc - c0), lit * keep
    index[col + size + 7], value[col + size + 7] = offset + 6 * offsets + s[OPEN], lit * keep
    index[col + size + 8], value[col + size + 8] = offset + 6 * offsets + 2, lit * keep


@njit(cache=True, nogil=True)
def _sparse_words(states, goals, z, size, words, k, word_set, index, value):  # pragma: no cover - compiled
    """The sparse input rows: k words of the state, k of the goal, z; ``word_set`` the position of the set in
    ``WORD_SETS``."""
    for r in range(states.shape[0]):
        keep = 1.0 if z[r] == 0 else 0.0
        if word_set == 0:
            _words_into(states[r], size, 0, 1.0, index[r], value[r], 0)
            _words_into(goals[r], size, words, keep, index[r], value[r], k)
        elif word_set == 1:
            _cell_words_into(states[r], size, 0, 1.0, index[r], value[r], 0)
            _cell_words_into(goals[r], size, words, keep, index[r], value[r], k)
        else:
            _egocentric_words_into(states[r], size, 0, 1.0, index[r], value[r], 0)
            _egocentric_words_into(goals[r], size, words, keep, index[r], value[r], k)
        index[r, 2 * k], value[r, 2 * k] = 2 * words, z[r]


def make(n: int) -> LightKey:
    return LightKey(n, size=SIZE)


SIZE = 6
METHODS = ("self_play", "target_only", "random_alice")
EPISODES = 100_000            # target episodes per seed (the paper: training stopped at 5 x 10^6 episodes)
ALICE_PLOTS = ("t_a", "objects_changed", "light_toggled", "door_toggled")
METRIC = "success"


def untrained_level(seeds: int = 10, episodes: int = 1024, seed: int = 0) -> dict:
    """The solved share of target episodes before any learning: Bob's untrained network (the config's
    initialisation, ``seeds`` of them) and uniformly random moves, over ``episodes`` episodes each."""
    from fivestack.asp.selfplay import evaluate, make_policy

    cfg = replace(config(), eval_episodes=episodes)
    env = make(seeds * cfg.batch)
    rng = np.random.default_rng(seed)
    bob = make_policy(env, cfg, seeds, rng, cfg.entropy)
    net, _ = evaluate(env, bob, cfg, rng, seeds)
    solved = []
    for _ in range(max(1, episodes * seeds // env.n)):
        target = np.ones(env.n, bool)
        env.reset(rng, target)
        done = np.zeros(env.n, bool)
        for _ in range(env.t_max_target):
            _, reached, _ = env.step(rng.integers(0, STOP, env.n), ~done, target)
            done |= reached
        solved.append(done.mean())
    return {"untrained_net": {"mean": round(float(net.mean()), 4), "std_over_seeds": round(float(net.std()), 4),
                              "max_seed": round(float(net.max()), 4)},
            "uniform_random_moves": round(float(np.mean(solved)), 4)}


def target_behaviour(env: LightKey, bob, cfg: SelfPlayConfig, seeds: int, rng, reps: int = 8) -> dict:
    """What Bob does on fresh target episodes: the share in which the light gets turned on, the door opened
    and the flag reached (``reps`` batches of ``env.n`` episodes, sampled actions). Bob is the second value
    ``fivestack.asp.selfplay.train`` returns, or an untrained ``make_policy``."""
    from fivestack.asp.selfplay import play

    light = door = solved = 0.0
    for _ in range(reps):
        ep = play(env, None, bob, np.ones(env.n, bool), cfg, rng, seeds)
        final = np.concatenate([ep.states, env.state[None]], 0)     # the recorded states, then the last
        light += (final[..., LIGHT].max(0) == 1).mean() / reps
        door += (final[..., OPEN].max(0) == 1).mean() / reps
        solved += ep.target_success.mean() / reps
    return {"light_on": round(float(light), 3), "door_opened": round(float(door), 3), "solved": round(float(solved), 3)}


def first_reach(x, curve, level: float):
    """Counted episodes at the first evaluation where ``curve`` is at or above ``level`` (None: never)."""
    for xi, v in zip(x, curve):
        if v >= level:
            return int(xi)
    return None


def summary(results: dict) -> dict:
    """Done-when 2: where each method's target-success curve ("solved" target episodes) first reaches
    target-only's final level, read on the mean over seeds and on the edges of its seed spread (mean - std:
    a slow seed; mean + std: a fast one). Self-play's ordering is outside the spread when its slow edge
    reaches the level before the fast edge of target-only and of random Alice. The untrained level is the
    first evaluation (before any update), and the final level is read at the last evaluation, at the
    target-episode budget ``results["episodes"]``."""
    r = results["methods"]
    out: dict = {"target_episodes": results["episodes"]}
    first = {m: (v["success"]["mean"][0], v["success"]["std"][0]) for m, v in r.items()}
    out["untrained_level"] = {m: {"mean": mu, "std": sd} for m, (mu, sd) in first.items()}
    out["final_level"] = {m: {"mean": v["success"]["mean"][-1], "std": v["success"]["std"][-1],
                              "per_seed": v["success"]["per_seed_final"]} for m, v in r.items()}
    if "target_only" not in r:
        return out
    level = r["target_only"]["success"]["mean"][-1]
    untrained = max(mu + sd for mu, sd in first.values())
    out["level"] = level
    out["level_above_untrained"] = bool(level > untrained)   # above every method's untrained mean + std
    reach = {}
    for m, v in r.items():
        mean, std = np.array(v["success"]["mean"]), np.array(v["success"]["std"])
        reach[m] = {"mean": first_reach(v["x"], mean, level), "slow_seed_edge": first_reach(v["x"], mean - std, level),
                    "fast_seed_edge": first_reach(v["x"], mean + std, level)}
    out["target_episodes_to_level"] = reach

    def before(a, b):            # a reaches strictly earlier than b (None: not within the budget)
        return a is not None and (b is None or a < b)

    if "self_play" in r:
        sp = reach["self_play"]
        out["self_play_faster"] = {m: {"on_the_mean": before(sp["mean"], reach[m]["mean"]),
                                       "outside_the_spread": before(sp["slow_seed_edge"], reach[m]["fast_seed_edge"])}
                                   for m in r if m != "self_play"}
        a = r["self_play"].get("alice")
        if a:
            out["alice_first_last"] = {k: [a[k][0], a[k][-1]] for k in a if k != "x"}
    return out


def extra_plots(results: dict, stem: Path) -> None:
    """STEM_levels.png (``reproduce`` and ``resummarize`` draw it beside STEM.png): each method's solved
    fraction (mean +- std over seeds) with target-only's final level (dashed), the untrained level (dotted, mean
    + std of the first evaluation) and where each mean curve first reaches the level; right: every seed's final
    level."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fivestack.asp.experiments import LABELS

    s = results["summary"]
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [2.2, 1]})
    for i, (m, r) in enumerate(results["methods"].items()):
        mean, std = np.array(r["success"]["mean"]), np.array(r["success"]["std"])
        line, = ax.plot(r["x"], mean, label=LABELS.get(m, m))
        ax.fill_between(r["x"], np.clip(mean - std, 0, 1), np.clip(mean + std, 0, 1), alpha=0.15,
                        color=line.get_color())
        at = s.get("target_episodes_to_level", {}).get(m, {}).get("mean")
        if at is not None:
            ax.axvline(at, color=line.get_color(), lw=0.8, ls=":")
        finals = r["success"]["per_seed_final"]
        ax2.scatter(np.full(len(finals), i) + np.linspace(-0.15, 0.15, len(finals)), finals, s=14,
                    color=line.get_color())
        ax2.errorbar(i + 0.3, np.mean(finals), yerr=np.std(finals), fmt="o", color=line.get_color(), capsize=3)
    untrained = max(v["mean"] + v["std"] for v in s["untrained_level"].values())
    if "level" in s:
        ax.axhline(s["level"], color="k", ls="--", lw=0.8, label=f"target-only's final level {s['level']:.3f}")
    ax.axhline(untrained, color="grey", ls=":", lw=0.8, label=f"untrained (mean + std) {untrained:.3f}")
    ax.set_xlabel("target-task episodes")
    ax.set_ylabel("solved target episodes (share)")
    ax.set_title(f"{results['env']} ({results['seeds']} seeds, mean +- std)")
    ax.legend(fontsize=7)
    names = list(results["methods"])
    ax2.set_xticks(range(len(names)), [LABELS.get(m, m).split(" (")[0] for m in names], fontsize=7)
    ax2.axhline(untrained, color="grey", ls=":", lw=0.8)
    ax2.set_title(f"final level per seed at {results['episodes']:,} target episodes", fontsize=9)
    fig.tight_layout()
    fig.savefig(f"{stem}_levels.png", dpi=90)
    plt.close(fig)


def variant(size: int = SIZE, words: str = "egocentric") -> SimpleNamespace:
    """Another light-key world for ``fivestack asp reproduce``: its size and input words (``WORD_SETS``), with this
    module's rules, settings, budget and figures."""
    def make_variant(n: int) -> LightKey:
        return LightKey(n, size=size, words=words)

    return SimpleNamespace(make=make_variant, config=config, METHODS=METHODS, EPISODES=EPISODES,
                           ALICE_PLOTS=ALICE_PLOTS, METRIC=METRIC, summary=summary, extra_plots=extra_plots)


BIG_SIZE = 10
BIG_VARIANT = variant(size=BIG_SIZE)                # the authors' full size, 10 x 10 (``lightkey10``)
CELLS_VARIANT = variant(words="cells")              # (object, cell) at absolute cells (``lightkey_cells``)
ROWS_VARIANT = variant(words="rows_columns")        # our first words (``lightkey_rows``)
