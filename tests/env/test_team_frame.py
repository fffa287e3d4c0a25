"""Patch 0.9's ``team_frame``: Dire observes the map turned half a turn about its centre (``env/obs_turn.py``) and the
policy turns its offsets back (``Policy.head_logits``), so that at a symmetric moment Dire sees what Radiant sees
and chooses the mirror image of Radiant's move; without the feature (patch 0.1) neither holds. Radiant's view,
the game and the actions in the map's frame are unchanged."""

import numpy as np
import pytest
import torch

from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig, no_orders
from fivestack.game.layout import (
    A_MOVE, A_NOOP, ACT_OFFSET_X, ACT_OFFSET_Y, ACT_PRIMARY, ALIVE, FACING, G_COURIER_RESPAWN0, MAP_SIZE, N_HEROES,
    N_OFFSET, SLOT_COURIERS, SLOT_CREEPS, X, Y,
)
from fivestack.game.patch import F_TEAM_FRAME, PATCHES, patch_features
from fivestack.match.teams import team_view
from fivestack.model.policy import Policy, PolicyConfig
from fivestack.runs.config import ConfigError, TrainConfig, validate

TEAM_GROUPS = ("global", "allied_heroes", "pickups", "minimap", "hero_ids")
HERO_GROUPS = ("nearby_map", "previous_action", "own_hero_id", "primary_mask", "offset_mask")


def symmetric_game(patch: str) -> BatchedEnv:
    """A 1v1 game whose two sides are each other turned half a turn: the same hero on both sides, Dire's placed
    at the turn of Radiant's place and heading, the couriers gone (their homes are not each other turned)."""
    env = BatchedEnv(1, GameConfig(patch=patch, mode="1v1"))
    env.reset(seed=3, hero_types=[[0] * N_HEROES])
    s = env.game.state
    s.uf[0, 5, [X, Y]] = MAP_SIZE - s.uf[0, 0, [X, Y]]
    s.uf[0, 5, FACING] = s.uf[0, 0, FACING] + np.pi
    s.ui[0, SLOT_COURIERS:SLOT_COURIERS + 2, ALIVE] = 0
    s.gi[0, G_COURIER_RESPAWN0:G_COURIER_RESPAWN0 + 2] = -1
    env.observe_games([0])
    return env


def view_differences(obs: dict[str, np.ndarray]) -> list[str]:
    """The observation groups in which Dire's view (team 1, hero 5) is not Radiant's (team 0, hero 0). Unit and hero
    rows sit in each unit's own slot, so they compare as sets of rows (the policy pools them)."""
    out = [name for name in TEAM_GROUPS if not np.allclose(obs[name][0, 0], obs[name][0, 1], atol=1e-5)]
    out += [name for name in HERO_GROUPS if not np.allclose(obs[name][0, 0], obs[name][0, 5], atol=1e-6)]
    if not np.array_equal(np.sort(obs["heroes"][0, 0], 0), np.sort(obs["heroes"][0, 1], 0)):  # rows by hero index
        out.append("heroes")
    rows = [np.concatenate([obs["units"][0, team], obs["unit_rel"][0, hero]], -1) for team, hero in ((0, 0), (1, 5))]
    rows = [r[r[:, 0] > 0] for r in rows]  # the seen units
    if len(rows[0]) != len(rows[1]) or np.abs(rows[0][:, None] - rows[1][None]).max(-1).min(1).max() > 1e-4:
        out.append("units")
    return out


def mirrored_moves(env: BatchedEnv, steps: int, seed: int = 0) -> dict[str, np.ndarray]:
    """``steps`` timesteps in which Radiant's hero moves by random offset cells and Dire's by their turn. The lane
    creeps are cleared as they spawn (their formations at the two spawns are not each other turned, a detail of
    the game's, not of the view)."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        actions = no_orders(1, N_HEROES)
        ox, oy = rng.integers(0, N_OFFSET, 2)
        actions[0, 0, [ACT_PRIMARY, ACT_OFFSET_X, ACT_OFFSET_Y]] = A_MOVE, ox, oy
        actions[0, 5, [ACT_PRIMARY, ACT_OFFSET_X, ACT_OFFSET_Y]] = A_MOVE, N_OFFSET - 1 - ox, N_OFFSET - 1 - oy
        env.step(actions)
        env.game.state.ui[0, SLOT_CREEPS:, ALIVE] = 0
        env.observe_games([0])
    return env.obs


def test_patch_09_is_the_standard_game_with_the_turned_view():
    assert PATCHES["0.9"].features == ("team_frame",)
    assert patch_features("0.9") == F_TEAM_FRAME and patch_features("0.1") & F_TEAM_FRAME == 0


def test_at_a_symmetric_moment_dire_sees_what_radiant_sees():
    turned, plain = symmetric_game("0.9"), symmetric_game("0.1")
    assert view_differences(turned.obs) == []
    assert {"allied_heroes", "minimap", "units", "nearby_map"} <= set(view_differences(plain.obs))
    # 50 timesteps (6.7 s) of moves that keep the game symmetric: still the same view, previous actions included
    # (Dire's cells read turned)
    assert view_differences(mirrored_moves(turned, 50)) == []
    assert "previous_action" in view_differences(mirrored_moves(plain, 50))
    s = turned.game.state
    np.testing.assert_allclose(s.uf[0, 5, [X, Y]], MAP_SIZE - s.uf[0, 0, [X, Y]], atol=1e-2)


def test_radiants_view_and_the_game_are_unchanged():
    """Patch 0.9 plays the game of 0.1 with the same actions; Radiant's view is the same array, and so is every
    group of Dire's that has no position or direction in it."""
    envs = [BatchedEnv(2, GameConfig(patch=p, mode="1v1")) for p in ("0.1", "0.9")]
    rng = np.random.default_rng(4)
    for env in envs:
        env.reset(seed=11)
    for _ in range(120):
        actions = no_orders(2, N_HEROES)
        actions[:, [0, 5], ACT_PRIMARY] = rng.choice([A_NOOP, A_MOVE], size=(2, 2))
        actions[:, [0, 5], ACT_OFFSET_X:ACT_OFFSET_Y + 1] = rng.integers(0, N_OFFSET, size=(2, 2, 2))
        plain, turned = (env.step(actions)[0] for env in envs)
    np.testing.assert_array_equal(envs[0].game.state.uf, envs[1].game.state.uf)
    for name in plain:
        team_axis = plain[name].shape[1] == 2
        np.testing.assert_array_equal(plain[name][:, 0] if team_axis else plain[name][:, :5],
                                      turned[name][:, 0] if team_axis else turned[name][:, :5], err_msg=name)
    for name in ("heroes", "items", "abilities", "modifiers", "primary_mask", "target_mask", "offset_mask"):
        np.testing.assert_array_equal(plain[name], turned[name], err_msg=name)
    assert not np.array_equal(plain["units"][:, 1], turned["units"][:, 1])
    assert envs[1].turned_teams().tolist() == [False, True, False, True]
    assert not envs[0].turned_teams().any()


def test_dire_previous_move_reads_turned_and_a_no_op_does_not():
    env = BatchedEnv(1, GameConfig(patch="0.9", mode="1v1"))
    env.reset(seed=2)
    actions = no_orders(1, N_HEROES)
    actions[0, [0, 5], ACT_PRIMARY] = A_MOVE
    actions[0, [0, 5], ACT_OFFSET_X], actions[0, [0, 5], ACT_OFFSET_Y] = 1, 6
    prev = env.step(actions)[0]["previous_action"][0]
    assert prev[0, 3:5].tolist() == [1 / 8, 6 / 8] and prev[5, 3:5].tolist() == [7 / 8, 2 / 8]
    actions[0, [0, 5], ACT_PRIMARY] = A_NOOP
    prev = env.step(actions)[0]["previous_action"][0]
    assert prev[0, 3:5].tolist() == prev[5, 3:5].tolist() == [1 / 8, 6 / 8]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_policy_turns_dires_offsets_back(seed):
    """At a symmetric moment the two sides' views are the same, so a policy of patch 0.9 gives Dire the offsets it
    gives Radiant, turned back into the map's frame: Dire's offset cell 8 - k is as likely as Radiant's k."""
    heroes = np.array([[0], [5]])

    def offset_logits(patch: str) -> tuple[torch.Tensor, torch.Tensor]:
        torch.manual_seed(seed)
        policy = Policy(PolicyConfig(unit_embedding=16, element_hidden=16, trunk=32, lstm_size=32, action_embedding=16),
                        patch)
        with torch.no_grad():  # away from the near-uniform start, so that the offsets depend on the view
            for head in (policy.offset_x, policy.offset_y):
                head.weight.normal_(0.0, 1.0)
        view = team_view(symmetric_game(patch).obs, heroes)
        obs = {name: torch.from_numpy(arr.copy()).unsqueeze(1) for name, arr in view.items()}  # (2 teams, L=1, ...)
        with torch.no_grad():
            seq = policy.sequence_core(obs, policy.initial_state(2), torch.ones(2, 1), torch.from_numpy(heroes))
            logits = policy.head_logits(seq.core, seq.units, seq.unit_rel, seq.masks, torch.full((2,), A_MOVE))
        return logits.offset_x, logits.offset_y

    for logits in offset_logits("0.9"):
        torch.testing.assert_close(logits[1], logits[0].flip(-1), atol=1e-4, rtol=0)
    assert not all(torch.allclose(logits[1], logits[0].flip(-1), atol=1e-4) for logits in offset_logits("0.1"))


def test_the_feature_is_every_games_or_none():
    env = BatchedEnv(2, GameConfig(patch="0.9", mode="1v1"))
    with pytest.raises(ValueError, match="team_frame.*patch 0.9"):
        env.reset(seed=0, features=np.array([F_TEAM_FRAME, 0]))
    env.reset(seed=0, features=np.array([F_TEAM_FRAME, F_TEAM_FRAME]))
    plain = BatchedEnv(1, GameConfig(patch="0.1", mode="1v1"))
    with pytest.raises(ValueError, match="team_frame"):
        plain.reset(seed=0, features=np.array([F_TEAM_FRAME]))
    config = TrainConfig()
    config.game.patch = "0.1"
    config.anneal.feature = "team_frame"
    with pytest.raises(ConfigError, match="anneal.feature 'team_frame' cannot be annealed"):
        validate(config)
