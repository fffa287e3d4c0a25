"""How far one move order reaches (``GameConfig.move_goals``, ``layout.MOVE_GOALS``) and the one rule that turns a
point into a move's offset cells (``kernels.goal_cells``), used by the scripted bot, the arena and asp_moba's Alice.
"""

import math

import numpy as np
import pytest

from fivestack.game.engine import GameBatch, GameConfig, no_orders
from fivestack.game.kernels import goal_cells
from fivestack.game.layout import (
    A_MOVE, ACT_OFFSET_X, ACT_OFFSET_Y, ACT_PRIMARY, GOAL_X, GOAL_Y, MOVE_GOALS, N_HEROES, ORDER, O_MOVE, X, Y,
)

GRID = np.array(MOVE_GOALS["grid"])
REACH = np.array(MOVE_GOALS["reach"])


def test_the_papers_table_is_its_600_unit_grid():
    assert GRID.tolist() == [-600, -450, -300, -150, 0, 150, 300, 450, 600]
    assert REACH.tolist() == [-9600, -2400, -600, -150, 0, 150, 600, 2400, 9600]
    assert GameConfig().move_goals == "grid"
    with pytest.raises(ValueError, match="move_goals 'far' is unknown"):
        GameConfig(move_goals="far")


@pytest.mark.parametrize("table, dx, dy, cells", [
    (GRID, 300.0, -150.0, (6, 3)),      # on the grid: the point itself
    (GRID, 1000.0, 250.0, (8, 5)),      # beyond 600: scaled to (600, 150) along its direction
    (GRID, 375.0, 0.0, (6, 4)),         # a tie (2.5 cells) goes to the even offset, as round(375 / 150) = 2
    (GRID, 525.0, 0.0, (8, 4)),         # 3.5 cells -> 4
    (REACH, 1000.0, 250.0, (6, 5)),     # nearest entries: 600 and 150
    (REACH, 5000.0, -3000.0, (7, 1)),   # within reach, so not scaled: 2400 and -2400
    (REACH, 20000.0, 10000.0, (8, 7)),  # beyond 9600: scaled to (9600, 4800), 4800 nearer 2400 than 9600
    (REACH, 0.0, 0.0, (4, 4)),
])
def test_goal_cells_hand_computed(table, dx, dy, cells):
    assert tuple(int(c) for c in goal_cells(dx, dy, table)) == cells


def _game(move_goals: str) -> GameBatch:
    game = GameBatch(1, GameConfig(mode="1v1", move_goals=move_goals))
    game.reset(np.array([3], np.uint64))
    return game


def _move(ox: int, oy: int) -> np.ndarray:
    actions = no_orders(1, N_HEROES)
    actions[0, 0, ACT_PRIMARY] = A_MOVE
    actions[0, 0, ACT_OFFSET_X], actions[0, 0, ACT_OFFSET_Y] = ox, oy
    return actions


def _walk(game: GameBatch, steps: int) -> list[tuple[float, float]]:
    path = []
    for _ in range(steps):
        game.step(no_orders(1, N_HEROES))
        path.append((float(game.state.uf[0, 0, X]), float(game.state.uf[0, 0, Y])))
    return path


def test_a_goal_9600_units_away_is_walked_to_in_one_order_and_held_with_noops():
    game = _game("reach")
    start = game.state.uf[0, 0, [X, Y]].astype(np.float64).copy()
    game.step(_move(8, 4))  # +9,600 on x: along the bottom edge, from the fountain
    goal = game.state.uf[0, 0, [GOAL_X, GOAL_Y]].astype(np.float64)
    assert goal == pytest.approx([start[0] + 9600.0, start[1]])
    assert game.state.ui[0, 0, ORDER] == O_MOVE
    path = _walk(game, 420)  # no-ops only: ~36 game seconds at the hero's speed, then standing there
    arrived = [i for i, (x, y) in enumerate(path) if math.hypot(x - goal[0], y - goal[1]) < 5.0]
    assert arrived, f"never reached the goal: last at {path[-1]}, goal {goal.tolist()}"
    assert math.dist(start, goal) >= 5000.0
    held = path[arrived[0]:]
    assert len(held) >= 30 and all(math.hypot(x - goal[0], y - goal[1]) < 5.0 for x, y in held)


def test_the_papers_moves_stop_after_600_units():
    game = _game("grid")
    start = game.state.uf[0, 0, [X, Y]].astype(np.float64).copy()
    game.step(_move(8, 4))
    path = _walk(game, 120)
    assert path[-1] == pytest.approx((start[0] + 600.0, start[1]), abs=5.0)


def test_a_new_order_replaces_the_far_goal():
    game = _game("reach")
    game.step(_move(8, 4))
    _walk(game, 40)
    here = game.state.uf[0, 0, [X, Y]].astype(np.float64).copy()
    game.step(_move(3, 4))  # -150 on x: back a little
    new_goal = game.state.uf[0, 0, [GOAL_X, GOAL_Y]].astype(np.float64)
    assert new_goal == pytest.approx([here[0] - 150.0, here[1]], abs=1.0)
    path = _walk(game, 60)
    assert path[-1] == pytest.approx(tuple(new_goal), abs=5.0)
    assert max(x for x, _ in path) <= here[0] + 40.0  # it never walked on toward the old goal
