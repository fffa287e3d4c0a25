"""Patch 0.3's observation feature ``creep_balance``: one more ``global`` column (``GL_CREEP_BALANCE``), only in
envs of a patch with it, pinned on hand-set states. The default game's observation is unchanged."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "game"))
from rules_arena import G, isolate, see, spawn_creep  # noqa: E402
from feature_columns import column_beside_the_default_game  # noqa: E402

from fivestack.env import observation  # noqa: E402
from fivestack.env.batched import BatchedEnv  # noqa: E402
from fivestack.env.spaces import GL_CREEP_BALANCE, N_GLOBAL, TEAM_GROUPS, group_shapes  # noqa: E402
from fivestack.game.engine import GameConfig  # noqa: E402
from fivestack.game.layout import ALIVE, DIRE, MAX_UNITS, RADIANT, SLOT_CREEPS  # noqa: E402
from fivestack.game.patch import F_CREEP_BALANCE, PATCHES, observation_columns, observation_mask  # noqa: E402
from fivestack.model.policy import GameSizes  # noqa: E402


def test_only_a_patch_with_the_feature_has_the_column():
    assert observation_columns("0.1") == {} and observation_columns("0.2") == {}
    assert observation_columns("0.3") == {"global": 1} and observation_mask("0.3") == F_CREEP_BALANCE
    assert observation_mask("0.2") == 0  # rich_creeps is a rule, not an observation
    assert group_shapes("0.1")[0] == TEAM_GROUPS and group_shapes("0.3")[0]["global"] == (N_GLOBAL + 1,)
    assert GameSizes.of().features["global"] == N_GLOBAL and GameSizes.of("0.3").features["global"] == N_GLOBAL + 1
    assert PATCHES["0.3"].features == ("creep_balance",)


def test_the_other_columns_are_the_default_games():
    """A 0.3 env shows what a 0.1 env shows, step after step, plus its column (lane creeps are out by the end)."""
    assert (column_beside_the_default_game("0.3", "global", steps=40) != 0).any()


def hand_set_env(features: int | None = None) -> BatchedEnv:
    env = BatchedEnv(1, GameConfig(patch="0.3"))
    env.reset(seed=0, features=features)
    isolate(env.game)
    env.game.state.ui[G, SLOT_CREEPS:, ALIVE] = 0  # no lane creeps but those placed here
    return env


def encode(env: BatchedEnv) -> np.ndarray:
    observation.encode(env.game.state, env.game.data, env._obs_buffers, np.array([G], np.int64))
    return env.obs["global"][G, :, GL_CREEP_BALANCE]


def test_the_column_counts_own_creeps_minus_the_enemy_creeps_seen():
    env = hand_set_env()
    assert encode(env).tolist() == [0.0, 0.0]
    for k in range(4):
        spawn_creep(env.game, RADIANT, "melee", dx=20.0 * k, k=k)
    spawn_creep(env.game, DIRE, "ranged", dx=-50.0, k=4)
    spawn_creep(env.game, DIRE, "siege", dx=-80.0, k=5)
    far = spawn_creep(env.game, DIRE, "melee", dx=3000.0, k=6)
    see(env.game)
    env.game.state.vis[G, RADIANT, far] = 0  # Radiant does not see this one
    assert env.game.state.vis[G, RADIANT, SLOT_CREEPS + 4] == 1 and env.game.state.vis[G, DIRE, SLOT_CREEPS] == 1
    radiant, dire = encode(env)
    assert radiant == pytest.approx((4 - 2) / 10) and dire == pytest.approx((3 - 4) / 10)
    env.game.state.ui[G, SLOT_CREEPS + 1, ALIVE] = 0  # a dead creep does not count
    env.game.state.ui[G, far, ALIVE] = 0
    radiant, dire = encode(env)
    assert radiant == pytest.approx((3 - 2) / 10) and dire == pytest.approx((2 - 3) / 10)
    assert MAX_UNITS > SLOT_CREEPS + 6


def test_a_game_without_the_bit_shows_zero_and_an_env_without_the_column_refuses_the_bit():
    env = hand_set_env(features=0)
    spawn_creep(env.game, RADIANT, "melee")
    see(env.game)
    assert encode(env).tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="creep_balance.*patch 0.1.*0.3"):
        BatchedEnv(1, GameConfig(patch="0.1")).reset(seed=0, features=F_CREEP_BALANCE)
