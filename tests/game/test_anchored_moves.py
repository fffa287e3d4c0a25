"""Patch 0.8's ``anchored_moves``: a move (and attack-move) names an anchor unit the team sees, and its goal is the
anchor's place plus the move table's offsets, so that one order reaches a landmark (a tower, a creep, the fountain)
anywhere on the map; the hero itself as anchor, or no anchor, is the paper's move. The feature reaches the game
(``kernels.apply_action``), the env's target masks (target kind 5) and the bots (the scripted hero names itself).
"""

import math

import numpy as np
import pytest

from fivestack.bots.random_team import RandomTeam
from fivestack.bots.scripted import ScriptedTeam
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameBatch, GameConfig, no_orders
from fivestack.game.kernels.helpers import building_slot
from fivestack.game.layout import (
    A_ATTACK_MOVE, A_MOVE, ACT_OFFSET_X, ACT_OFFSET_Y, ACT_PRIMARY, ACT_TARGET, GOAL_X, GOAL_Y, INVALID_ACTIONS,
    MOVE_GOALS, N_HEROES, ORDER, O_ATTACK_MOVE, O_MOVE, X, Y,
)
from fivestack.game.patch import F_ANCHORED_MOVES, PATCHES, patch_features
from fivestack.system.drills import MID_TIER1

RADIANT_MID_T1 = building_slot(0, MID_TIER1)  # unit indices of the two mid tier-1 towers
DIRE_MID_T1 = building_slot(1, MID_TIER1)
GRID = MOVE_GOALS["grid"]


def _game(patch: str, seed: int = 3) -> GameBatch:
    game = GameBatch(1, GameConfig(mode="1v1", patch=patch))
    game.reset(np.array([seed], np.uint64))
    return game


def _order(primary: int, target: int, ox: int, oy: int) -> np.ndarray:
    actions = no_orders(1, N_HEROES)
    actions[0, 0, ACT_PRIMARY], actions[0, 0, ACT_TARGET] = primary, target
    actions[0, 0, ACT_OFFSET_X], actions[0, 0, ACT_OFFSET_Y] = ox, oy
    return actions


def _at(game: GameBatch, u: int) -> np.ndarray:
    return game.state.uf[0, u, [X, Y]].astype(np.float64).copy()


def _goal(game: GameBatch) -> np.ndarray:
    return game.state.uf[0, 0, [GOAL_X, GOAL_Y]].astype(np.float64)


def test_patch_0_8_is_0_1_with_anchored_moves():
    assert PATCHES["0.8"].features == ("anchored_moves",)
    assert patch_features("0.8") == F_ANCHORED_MOVES == 32 and patch_features("0.1") & F_ANCHORED_MOVES == 0


def test_a_move_anchored_on_its_own_tower_walks_5000_units_in_one_order_and_holds_with_noops():
    game = _game("0.8")
    start, tower = _at(game, 0), _at(game, RADIANT_MID_T1)
    game.step(_order(A_MOVE, RADIANT_MID_T1, 2, 2))  # 300 units behind the tower on each axis (toward the base)
    goal = _goal(game)
    assert goal == pytest.approx(tower + [GRID[2], GRID[2]])
    assert game.state.ui[0, 0, ORDER] == O_MOVE and game.state.hi[0, 0, INVALID_ACTIONS] == 0
    assert math.dist(start, goal) >= 5000.0
    path = []
    for _ in range(400):  # no-ops only: ~53 game seconds
        game.step(no_orders(1, N_HEROES))
        path.append(_at(game, 0))
    arrived = [i for i, p in enumerate(path) if math.dist(p, goal) < 5.0]
    assert arrived, f"never reached the goal: last at {path[-1].tolist()}, goal {goal.tolist()}"
    held = path[arrived[0]:]
    assert len(held) >= 30 and all(math.dist(p, goal) < 5.0 for p in held)


@pytest.mark.parametrize("target", [0, -1])  # the hero itself, or no anchor named
def test_anchored_on_itself_or_on_nothing_is_the_papers_move(target):
    paper, anchored = _game("0.1"), _game("0.8")
    for game, t in ((paper, -1), (anchored, target)):
        game.step(_order(A_MOVE, t, 7, 3))
    assert _goal(anchored) == pytest.approx(_goal(paper))
    assert _goal(paper) == pytest.approx(_at(paper, 0) + [GRID[7], GRID[3]], abs=40.0)  # from where it stood
    assert anchored.state.hi[0, 0, INVALID_ACTIONS] == 0


def test_without_the_feature_a_moves_target_is_ignored():
    game = _game("0.1")
    game.step(_order(A_MOVE, RADIANT_MID_T1, 4, 4))
    assert math.dist(_goal(game), _at(game, RADIANT_MID_T1)) > 3000.0  # the goal is where the hero stood


def test_an_attack_move_takes_its_anchor_too():
    game = _game("0.8")
    game.step(_order(A_ATTACK_MOVE, RADIANT_MID_T1, 4, 5))
    assert _goal(game) == pytest.approx(_at(game, RADIANT_MID_T1) + [0.0, GRID[5]])
    assert game.state.ui[0, 0, ORDER] == O_ATTACK_MOVE


def test_an_anchor_the_team_does_not_see_is_an_invalid_action():
    game = _game("0.8")
    assert game.state.vis[0, 0, DIRE_MID_T1] == 0  # the enemy's tower, far beyond the fountain's sight
    game.step(_order(A_MOVE, DIRE_MID_T1, 4, 4))
    assert game.state.hi[0, 0, INVALID_ACTIONS] == 1
    assert game.state.ui[0, 0, ORDER] != O_MOVE


def test_the_envs_move_mask_lists_every_unit_the_team_sees_only_with_the_feature():
    masks = {}
    for patch in ("0.1", "0.8"):
        env = BatchedEnv(1, GameConfig(mode="1v1", patch=patch))
        obs = env.reset(np.array([3], np.uint64))
        masks[patch] = (obs["target_mask"][0, 0], env.unit_of_slot[0, 0].copy())
    target_mask, _ = masks["0.1"]
    assert target_mask[A_MOVE].sum() == 0 and target_mask[A_ATTACK_MOVE].sum() == 0
    target_mask, unit_of_slot = masks["0.8"]
    seen = unit_of_slot >= 0
    assert target_mask[A_MOVE].astype(bool).tolist() == seen.tolist()
    assert target_mask[A_ATTACK_MOVE].astype(bool).tolist() == seen.tolist()
    assert target_mask[A_MOVE, 0] == 1 and target_mask[A_MOVE, RADIANT_MID_T1] == 1  # itself and its tower
    assert target_mask[A_MOVE, DIRE_MID_T1] == 0


def test_the_scripted_heroes_play_the_same_game_on_0_8_as_on_0_1():
    """They name themselves as anchors (valid labels for a policy that clones them): the same goals, so the same
    game step for step."""
    states = {}
    heroes = np.arange(N_HEROES)
    for patch, named in (("0.1", np.full(N_HEROES, -1)), ("0.8", heroes)):
        game = _game(patch, seed=11)
        bots = [ScriptedTeam(0, 5), ScriptedTeam(1, 6)]
        out = no_orders(1, N_HEROES)
        moves = 0
        for _ in range(600):  # 80 game seconds: the heroes walk to the lane and meet the first waves
            for bot in bots:
                bot.act(game, out)
            move = out[0, :, ACT_PRIMARY] == A_MOVE
            assert (out[0, move, ACT_TARGET] == named[move]).all()
            moves += int(move.sum())
            game.step(out)
        assert moves > 0 and game.state.hi[0, :, INVALID_ACTIONS].sum() == 0
        states[patch] = game.state.uf.copy()
    assert np.array_equal(states["0.1"], states["0.8"])


def test_the_random_team_moves_to_anchors_without_invalid_actions():
    game = _game("0.8", seed=5)
    bots = [RandomTeam(0, 1), RandomTeam(1, 2)]
    out = no_orders(1, N_HEROES)
    anchored = 0
    for _ in range(300):
        for bot in bots:
            bot.act(game, out)
        move = (out[0, :, ACT_PRIMARY] == A_MOVE) | (out[0, :, ACT_PRIMARY] == A_ATTACK_MOVE)
        anchored += int((move & (out[0, :, ACT_TARGET] >= 0)).sum())
        game.step(out)
    assert anchored > 0 and game.state.hi[0, :, INVALID_ACTIONS].sum() == 0
