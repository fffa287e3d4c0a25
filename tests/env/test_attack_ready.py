"""Patch 0.4's observation feature ``attack_ready``: one more ``units`` column (``U_ATTACK_READY``), the seconds until
the unit's next attack may start, only in envs of a patch with it; pinned on hand-set states. The default game's
observation is unchanged."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "game"))
from rules_arena import G, action, isolate, place, see, spawn_creep  # noqa: E402
from feature_columns import column_beside_the_default_game  # noqa: E402

from fivestack.env import observation  # noqa: E402
from fivestack.env.batched import BatchedEnv  # noqa: E402
from fivestack.env.spaces import N_UNIT_FEATURES, TEAM_GROUPS, U_ATTACK_READY, group_shapes  # noqa: E402
from fivestack.game.engine import GameConfig  # noqa: E402
from fivestack.game.layout import (  # noqa: E402
    A_ATTACK, ATTACK_PERIOD, ATTACK_READY, DIRE, FRAMES_PER_SECOND, FRAMES_PER_STEP, HP, RADIANT,
)
from fivestack.game.patch import F_ATTACK_READY, PATCHES, observation_columns, observation_mask  # noqa: E402
from fivestack.model.policy import GameSizes  # noqa: E402

STEP_SECONDS = FRAMES_PER_STEP / FRAMES_PER_SECOND


def test_only_a_patch_with_the_feature_has_the_column():
    assert observation_columns("0.4") == {"units": 1} and observation_mask("0.4") == F_ATTACK_READY
    assert all(observation_columns(v).get("units", 0) == 0 for v in ("0.1", "0.2", "0.3"))
    slots = TEAM_GROUPS["units"][0]
    assert group_shapes("0.1")[0]["units"] == (slots, N_UNIT_FEATURES)
    assert group_shapes("0.4")[0]["units"] == (slots, N_UNIT_FEATURES + 1) and U_ATTACK_READY == N_UNIT_FEATURES
    assert GameSizes.of("0.4").features["units"] == N_UNIT_FEATURES + 1
    assert PATCHES["0.4"].features == ("attack_ready",)


def test_the_other_columns_are_the_default_games():
    """A 0.4 env shows what a 0.1 env shows, step after step, plus its column, which moves once units fight (the
    first waves meet at mid at ~25 game seconds)."""
    shown = column_beside_the_default_game("0.4", "units", steps=260)
    assert shown.max() > 0.0 and shown.min() == 0.0


def hand_set_env(features: int | None = None) -> BatchedEnv:
    env = BatchedEnv(1, GameConfig(patch="0.4"))
    env.reset(seed=0, features=features)
    isolate(env.game, 0)
    place(env.game, 0, 0.0)
    return env


def shown(env: BatchedEnv, team: int, unit: int) -> float:
    """The column for ``unit`` as ``team`` sees it now (its slot: fixed for heroes, the creep's for a creep)."""
    observation.encode(env.game.state, env.game.data, env._obs_buffers, np.array([G], np.int64))
    slot = int(env._obs_buffers.slot_of_unit[G, team, unit])
    assert slot >= 0, "the unit is not in the team's view"
    return float(env.obs["units"][G, team, slot, U_ATTACK_READY])


def test_the_column_counts_down_to_the_next_attack_in_seconds():
    env = hand_set_env()
    hero = 0
    creep = spawn_creep(env.game, DIRE, "melee", dx=100.0)
    env.game.state.uf[G, creep, HP] = 5000.0  # survives every hit here
    see(env.game)
    S = env.game.state
    assert shown(env, RADIANT, hero) == 0.0  # ready: an attack may start now
    S.uf[G, creep, ATTACK_READY] = 1.5 * FRAMES_PER_SECOND
    assert shown(env, RADIANT, creep) == pytest.approx(1.5)  # an enemy's readiness, as the team sees it
    assert shown(env, DIRE, creep) == pytest.approx(1.5)

    env.game.step(action(hero, A_ATTACK, target=creep))
    period = float(S.uf[G, hero, ATTACK_PERIOD])
    after_one = shown(env, RADIANT, hero)
    assert 0.0 < after_one <= period  # the attack went out: the next is up to one period away
    countdown = [after_one]
    while countdown[-1] > 0.0:
        env.game.step(action(hero, 0))  # no-op: the order stands, but the hero may not attack before it is ready
        countdown.append(shown(env, RADIANT, hero))
        if countdown[-1] > countdown[-2]:  # the next attack went out: the count starts again
            break
    falls = np.diff(countdown[:-1])
    assert len(falls) >= 2 and np.allclose(falls, -STEP_SECONDS)  # down by one timestep's seconds each step
    assert countdown[-2] <= STEP_SECONDS  # then ready (0) or fired again, at most one step later


def test_a_game_without_the_bit_shows_zero_and_an_env_without_the_column_refuses_the_bit():
    env = hand_set_env(features=0)
    env.game.state.uf[G, 0, ATTACK_READY] = 20.0
    assert shown(env, RADIANT, 0) == 0.0
    with pytest.raises(ValueError, match="attack_ready.*patch 0.1.*0.4"):
        BatchedEnv(1, GameConfig(patch="0.1")).reset(seed=0, features=F_ATTACK_READY)
