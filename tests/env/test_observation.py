"""Observation layout: every feature in its documented column; fog hides exactly what a team cannot see."""

import numpy as np
import pytest

from fivestack.env import spaces as sp
from fivestack.env import observation
from fivestack.bots.random_agent import RandomAgent
from fivestack.env.batched import BatchedEnv
from fivestack.game import kernels
from fivestack.game.engine import GameConfig
from fivestack.game.layout import (
    ALIVE, FRAMES_PER_SECOND, G_FRAME, HERO_TYPE, HP, HP_MAX, K_HERO, K_TOWER, SLOT_BUILDINGS, SLOT_CREEPS, X, Y,
)

MULTI_COLUMN = {"U_KIND": 11, "U_HP_DELTA": 5}


def column_map(prefix: str, total: int) -> dict[int, str]:
    taken: dict[int, str] = {}
    for name in dir(sp):
        if name.startswith(prefix) and isinstance(getattr(sp, name), int):
            start = getattr(sp, name)
            for c in range(start, start + MULTI_COLUMN.get(name, 1)):
                assert c not in taken, f"{name} overlaps {taken[c]} at column {c}"
                taken[c] = name
    return taken


def test_unit_columns_cover_the_row_without_overlap():
    # the default game's N_UNIT_FEATURES columns, then the columns patches add after them: U_ATTACK_READY (0.4),
    # U_HITS_TO_KILL (0.7, beside 0.4's)
    taken = column_map("U_", sp.N_UNIT_FEATURES)
    assert sorted(taken) == list(range(sp.N_UNIT_FEATURES + 2))
    assert sp.U_ATTACK_READY == sp.N_UNIT_FEATURES and sp.U_HITS_TO_KILL == sp.N_UNIT_FEATURES + 1


def test_global_and_hero_columns_are_distinct():
    # the default game's N_GLOBAL columns, then GL_CREEP_BALANCE: the column patch 0.3 adds after them
    assert sorted(column_map("GL_", sp.N_GLOBAL)) == list(range(sp.N_GLOBAL + 1))
    assert sp.GL_CREEP_BALANCE == sp.N_GLOBAL
    assert sorted(column_map("HX_", sp.N_HERO_FEATURES)) == list(range(sp.N_HERO_FEATURES))


def refresh(env: BatchedEnv) -> None:
    """Recompute vision and observations after editing the state by hand."""
    kernels.update_vision(env.game.state, env.game.data, env.game.scratch, 0)
    observation.encode(env.game.state, env.game.data, env._obs_buffers, np.array([0]))


@pytest.fixture()
def env():
    e = BatchedEnv(1)
    e.reset(3)
    return e


def test_unit_features_land_in_their_columns(env):
    uf, ui = env.game.state.uf, env.game.state.ui
    uf[0, 0, X], uf[0, 0, Y] = 4000.0, 12000.0
    uf[0, 0, HP] = 0.25 * uf[0, 0, HP_MAX]
    refresh(env)
    row = env.obs["units"][0, 0, 0]  # Radiant's view of hero 0 (slot 0 = unit 0)
    assert row[sp.U_SEEN] == 1.0
    assert row[sp.U_KIND + K_HERO] == 1.0 and row[sp.U_KIND:sp.U_KIND + 11].sum() == 1.0
    assert row[sp.U_ALLY] == 1.0 and row[sp.U_ENEMY] == 0.0
    assert row[sp.U_X] == pytest.approx(4000.0 / 8000.0 - 1.0)
    assert row[sp.U_Y] == pytest.approx(12000.0 / 8000.0 - 1.0)
    assert row[sp.U_HP_FRAC] == pytest.approx(0.25)
    assert row[sp.U_HP_MAX] == pytest.approx(uf[0, 0, HP_MAX] / 1000.0)
    tower_slot = SLOT_BUILDINGS  # Radiant's top tier-1 tower
    tower = env.obs["units"][0, 0, tower_slot]
    assert tower[sp.U_KIND + K_TOWER] == 1.0 and tower[sp.U_LEVEL] == pytest.approx(0.25)
    assert tower[sp.U_LANE] == pytest.approx(1.0 / 3.0)
    # the per-hero relative features point from the hero to the unit
    rel = env.obs["unit_rel"][0, 0, tower_slot]
    assert rel[0] == pytest.approx((uf[0, tower_slot, X] - 4000.0) / 2000.0, abs=1e-5)


def place_alone(env, radiant_xy, dire_xy):
    """Move every Radiant unit but hero 0 far into its base, then place hero 0 and Dire hero 5."""
    uf, ui = env.game.state.uf, env.game.state.ui
    for u in range(SLOT_CREEPS, uf.shape[1]):
        ui[0, u, ALIVE] = 0
    uf[0, 0, X], uf[0, 0, Y] = radiant_xy
    uf[0, 5, X], uf[0, 5, Y] = dire_xy


@pytest.mark.parametrize("night", [False, True])
def test_fog_hides_enemy_hero_exactly_outside_vision(env, night):
    gi = env.game.state.gi
    cycle = env.game.patch.rules.day_night_cycle
    gi[0, G_FRAME] = int((0.75 if night else 0.25) * cycle * FRAMES_PER_SECOND)
    radius = 800.0 if night else 1800.0
    centre = (8000.0, 9000.0)  # open ground far from every Radiant building
    place_alone(env, centre, (centre[0] + radius + 60.0, centre[1]))
    refresh(env)
    hidden = env.obs["units"][0, 0, 5]
    assert np.all(hidden == 0.0), "an enemy hero outside every vision radius must be a row of zeros"
    assert np.all(env.obs["heroes"][0, 0, 5] == 0.0)
    assert np.all(env.obs["ability_ids"][0, 0, 5] == -1)  # nor its abilities
    assert env.obs["hero_ids"][0, 0, 5] == env.game.state.hi[0, 5, HERO_TYPE]  # who it is is public (the lineups)
    assert env.obs["target_mask"][0, 0, 2, 5] == 0  # and cannot be targeted
    place_alone(env, centre, (centre[0] + radius - 60.0, centre[1]))
    refresh(env)
    seen = env.obs["units"][0, 0, 5]
    assert seen[sp.U_SEEN] == 1.0 and seen[sp.U_ENEMY] == 1.0
    assert seen[sp.U_X] == pytest.approx((centre[0] + radius - 60.0) / 8000.0 - 1.0)
    assert env.obs["target_mask"][0, 0, 2, 5] == 1  # attack may target it now
    assert env.obs["hero_ids"][0, 0, 5] == env.game.state.hi[0, 5, HERO_TYPE]
    # Dire always sees its own hero
    assert env.obs["units"][0, 1, 5, sp.U_SEEN] == 1.0


def test_hero_and_ability_ids_are_rows_of_the_patch_tables(env):
    """Who a hero is reaches the observation as integers the policy embeds: ``hero_ids`` / ``own_hero_id`` are the
    hero's type (its row of patch.heroes), ``ability_ids`` its abilities' rows of the ability table, so a hero
    added to the patch is a new id with its own embedding rows."""
    hi, patch = env.game.state.hi, env.game.patch
    assert env.obs["own_hero_id"][0].tolist() == hi[0, :, HERO_TYPE].tolist()
    assert env.obs["hero_ids"][0, 0, :5].tolist() == hi[0, :5, HERO_TYPE].tolist()  # a team always sees its own
    hi[0, 3, HERO_TYPE] = 1  # Radiant's fourth hero becomes the second hero of the patch
    refresh(env)
    assert env.obs["hero_ids"][0, 0, 3] == 1 and env.obs["own_hero_id"][0, 3] == 1
    second = patch.heroes[1]
    assert [patch.abilities[a].name for a in env.obs["ability_ids"][0, 0, 3]] == [a.name for a in second.abilities]
    assert env.obs["ability_ids"][0, 0, 3].tolist() == [4, 5, 6, 7]  # hero 1's four rows, after hero 0's


def test_masks_agree_with_the_engine(env):
    obs = env.obs
    for h in range(10):
        for p in range(20):
            assert obs["primary_mask"][0, h, p] <= int(kernels.primary_available(env.game.state, env.game.data, 0, h, p))
    # at the start nobody can attack anything (no enemy in sight), but everyone can move
    assert np.all(obs["primary_mask"][0, :, 1] == 1)
    assert np.all(obs["target_mask"][0, :, 2].sum(-1) == obs["primary_mask"][0, :, 2] * obs["target_mask"][0, :, 2].sum(-1))



@pytest.mark.parametrize("mode", ["1v1", "5v5"])
def test_encoding_rewrites_every_group_of_reused_buffers(mode):
    """The arrays are reused step after step, one kernel per group: each must rewrite all of its group (and
    the slot tables), so stale values never leak from an earlier step. Poisoning every array and encoding
    the same state again must give exactly the observation of a clean encode."""
    env = BatchedEnv(1, GameConfig(mode=mode))
    env.reset(5)
    agent = RandomAgent(5)
    for _ in range(250):  # to where creeps meet and heroes have fought, bought and cast
        env.step(agent.act(env.obs))
    clean = {name: arr.copy() for name, arr in env.obs.items()}
    slots = env.unit_of_slot.copy(), env.slot_of_unit.copy()
    assert (env.unit_of_slot[0, 0] >= 0).sum() > 30, "the state should hold units to encode"
    for name, arr in env.obs.items():
        if name != "previous_action":  # written by the env from the actions, not by the encoder
            arr[...] = np.nan if arr.dtype.kind == "f" else 7
    env.unit_of_slot[...] = 7
    env.slot_of_unit[...] = 7
    observation.encode(env.game.state, env.game.data, env._obs_buffers, np.array([0]))
    for name, arr in env.obs.items():
        assert np.array_equal(arr, clean[name]), f"observation group {name} keeps values of an earlier encode"
    assert np.array_equal(env.unit_of_slot, slots[0]) and np.array_equal(env.slot_of_unit, slots[1])
