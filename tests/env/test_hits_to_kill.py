"""Patch 0.7's observation feature ``hits_to_kill``: one more ``units`` column (``U_HITS_TO_KILL``), the unit's
health in attacks of the team's hardest-hitting hero after the unit's armor, / 10, at most 1; pinned on hand-set
states, and against what one attack does. The default game's observation is unchanged."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "game"))
from rules_arena import G, action, armor_factor, isolate, place, see, spawn_creep, target  # noqa: E402
from feature_columns import column_beside_the_default_game  # noqa: E402

from fivestack.env import observation  # noqa: E402
from fivestack.env.batched import BatchedEnv  # noqa: E402
from fivestack.env.spaces import N_UNIT_FEATURES, TEAM_GROUPS, U_ATTACK_READY, U_HITS_TO_KILL, group_shapes  # noqa: E402
from fivestack.game.engine import GameConfig  # noqa: E402
from fivestack.game.layout import (  # noqa: E402
    A_ATTACK, ALIVE, ATTACK_READY, DAMAGE, DIRE, DOUBLE_DAMAGE, HP, LAST_HITS, RADIANT,
)
from fivestack.game.patch import F_HITS_TO_KILL, PATCHES, PatchVersion, observation_columns  # noqa: E402
from fivestack.model.policy import GameSizes  # noqa: E402


def test_only_0_7_has_the_column_after_attack_ready():
    assert observation_columns("0.7") == {"units": 2} and PATCHES["0.7"].features[-1] == "hits_to_kill"
    slots = TEAM_GROUPS["units"][0]
    assert group_shapes("0.7")[0]["units"] == (slots, N_UNIT_FEATURES + 2)
    assert U_HITS_TO_KILL == U_ATTACK_READY + 1 == N_UNIT_FEATURES + 1
    assert GameSizes.of("0.7").features["units"] == N_UNIT_FEATURES + 2
    assert all(observation_columns(v).get("units", 0) <= 1 for v in PATCHES if v != "0.7")


def test_a_version_with_a_later_column_but_not_an_earlier_one_is_refused():
    """The units columns sit at fixed places (attack_ready, then hits_to_kill): a version with hits_to_kill alone
    would put it where attack_ready's column is read."""
    with pytest.raises(ValueError, match="hits_to_kill.*needs every earlier one.*attack_ready"):
        PatchVersion("9.9", ("hits_to_kill",), "hits without readiness")
    PatchVersion("9.9", ("attack_ready", "hits_to_kill"), "both: fine")


def test_the_other_columns_are_0_6s():
    """A 0.7 env shows what a 0.6 env shows (the same rules), step after step, plus its column, which moves once
    units fight (the first waves meet at mid at ~25 game seconds)."""
    shown = column_beside_the_default_game("0.7", "units", steps=260, default="0.6")
    assert 0.0 < shown[shown > 0].min() < 1.0 and shown.max() == 1.0


def hand_set_env(*heroes: int, features: int | None = None) -> BatchedEnv:
    env = BatchedEnv(1, GameConfig(patch="0.7"))
    env.reset(seed=0, features=features)
    isolate(env.game, *heroes)
    for h in heroes:
        place(env.game, h, 0.0, 200.0 * h)
    return env


def shown(env: BatchedEnv, team: int, unit: int) -> float:
    """The column for ``unit`` as ``team`` sees it now (its slot: fixed for heroes, the creep's for a creep)."""
    see(env.game)
    observation.encode(env.game.state, env.game.data, env._obs_buffers, np.array([G], np.int64))
    slot = int(env._obs_buffers.slot_of_unit[G, team, unit])
    assert slot >= 0, "the unit is not in the team's view"
    return float(env.obs["units"][G, team, slot, U_HITS_TO_KILL])


def test_the_column_is_health_in_attacks_after_armor():
    env = hand_set_env(0)
    S = env.game.state
    S.uf[G, 0, DAMAGE] = 50.0
    creep = spawn_creep(env.game, DIRE, "melee", dx=100.0)
    target(env.game, creep, armor=5.0, hp=300.0)
    through = 50.0 * armor_factor(5.0)  # 38.5 of each attack gets through 5 armor
    assert shown(env, RADIANT, creep) == pytest.approx(300.0 / through / 10.0)
    target(env.game, creep, armor=-2.0)  # negative armor lets more through: fewer attacks
    assert shown(env, RADIANT, creep) == pytest.approx(300.0 / (50.0 * armor_factor(-2.0)) / 10.0)
    S.ui[G, 0, DOUBLE_DAMAGE] = 100  # the rune doubles every attack
    assert shown(env, RADIANT, creep) == pytest.approx(300.0 / (100.0 * armor_factor(-2.0)) / 10.0)
    S.uf[G, creep, HP] = 5000.0
    assert shown(env, RADIANT, creep) == 1.0  # more than 10 attacks: at most 1
    assert shown(env, DIRE, creep) == 1.0  # Dire has no hero in play: no attack of its is coming


def test_the_team_hardest_hitter_counts_and_a_benched_hero_does_not():
    env = hand_set_env(0, 1)
    S = env.game.state
    S.uf[G, 0, DAMAGE], S.uf[G, 1, DAMAGE] = 40.0, 80.0
    S.uf[G, 2, DAMAGE] = 400.0  # benched by isolate: not in play
    creep = spawn_creep(env.game, DIRE, "melee", dx=100.0)
    target(env.game, creep, armor=0.0, hp=200.0)
    assert shown(env, RADIANT, creep) == pytest.approx(200.0 / 80.0 / 10.0)
    S.ui[G, 1, ALIVE] = 0  # a dead hero still counts: its attack comes back with it
    assert shown(env, RADIANT, creep) == pytest.approx(200.0 / 80.0 / 10.0)


@pytest.mark.parametrize("attacks, dies", [(0.95, True), (1.05, False)])
def test_at_most_0_1_one_attack_kills(attacks, dies):
    """What the column says about one attack is what the hero's attack does: below 0.1 the creep dies to it (the
    hero's last hit), above it survives."""
    env = hand_set_env(0)
    S = env.game.state
    creep = spawn_creep(env.game, DIRE, "melee", dx=100.0)
    hp = target(env.game, creep, armor=2.0, hp=1.0)
    through = float(S.uf[G, 0, DAMAGE]) * armor_factor(2.0)
    S.uf[G, creep, HP] = hp = attacks * through
    assert shown(env, RADIANT, creep) == pytest.approx(attacks / 10.0)
    S.uf[G, 0, ATTACK_READY] = 0.0
    hits = int(S.hi[G, 0, LAST_HITS])
    for _ in range(40):  # walk into reach, attack; a ranged hero's projectile flies
        env.game.step(action(0, A_ATTACK, target=creep))
        if S.ui[G, creep, ALIVE] == 0 or S.uf[G, creep, HP] < hp:
            break
    if dies:
        assert S.ui[G, creep, ALIVE] == 0 and S.hi[G, 0, LAST_HITS] == hits + 1
    else:
        assert S.ui[G, creep, ALIVE] == 1 and S.uf[G, creep, HP] == pytest.approx(0.05 * through, rel=1e-3)


def test_a_game_without_the_bit_shows_zero_and_an_env_without_the_column_refuses_the_bit():
    env = hand_set_env(0, features=0)
    creep = spawn_creep(env.game, DIRE, "melee", dx=100.0)
    target(env.game, creep, hp=10.0)
    assert shown(env, RADIANT, creep) == 0.0
    with pytest.raises(ValueError, match="hits_to_kill.*patch 0.6.*0.7"):
        BatchedEnv(1, GameConfig(patch="0.6")).reset(seed=0, features=F_HITS_TO_KILL)
