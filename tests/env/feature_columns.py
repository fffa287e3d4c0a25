"""The check every observation feature of a patch version shares: its env shows what the default game's env shows,
step after step, plus its one column."""

from __future__ import annotations

import numpy as np

from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig


def column_beside_the_default_game(patch: str, group: str, steps: int, default: str = "0.1") -> np.ndarray:
    """Step a 1v1 env of ``patch`` and one of the ``default`` game (the standard game, or the version ``patch``
    adds its column to) from the same seeds with the same random orders (no-op, stop, move); assert that every
    group is the default game's but for ``group``'s last column, which the patch adds. Returns that column at every
    step, (steps, *the group's other axes)."""
    old = BatchedEnv(2, GameConfig(mode="1v1", patch=default))
    new = BatchedEnv(2, GameConfig(mode="1v1", patch=patch))
    a, b = old.reset(seed=5), new.reset(seed=5)
    width = a[group].shape[-1]
    rng = np.random.default_rng(0)
    column = []
    for _ in range(steps):
        assert b[group].shape[-1] == width + 1
        for name in a:
            theirs = b[name][..., :width] if name == group else b[name]
            np.testing.assert_array_equal(a[name], theirs, err_msg=name)
        column.append(b[group][..., width])
        actions = np.zeros((2, 10, 5), np.int64)
        actions[..., 0] = rng.integers(0, 3, (2, 10))
        actions[..., 3:] = rng.integers(0, 9, (2, 10, 2))
        actions[..., 2] = -1
        a, b = old.step(actions)[0], new.step(actions.copy())[0]
    return np.stack(column)
