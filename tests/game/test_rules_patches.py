"""Patch versions and the per-game feature of patch 0.2, pinned on hand-set states.

Patch 0.2 is 0.1 plus the feature ``rich_creeps``: a lane creep's last hit pays ``Rules.rich_creeps_bounty``
(1.25) x its bounty. A game plays with it when bit ``F_RICH_CREEPS`` of its feature mask is set: every game of
a ``GameConfig(patch="0.2")`` batch, or a game of any batch reset with that mask (so a batch mixes them).
The figures are computed here by hand from the creep table (melee 40, ranged 50, siege 70, super melee 20,
neutral 45).
"""

from __future__ import annotations

import numpy as np
import pytest

from rules_arena import ARENA, START_FRAME, G, action, isolate, new_game, place, run, see, spawn_creep
from fivestack.env.batched import BatchedEnv
from fivestack.game import kernels
from fivestack.game.engine import GameBatch, GameConfig
from fivestack.game.layout import (
    A_ATTACK, A_HOLD, ACTIVE, ALIVE, DENIES, DIRE, FRAMES_PER_SECOND, FRAMES_PER_STEP, G_FRAME, GOAL_X, GOAL_Y, GOLD, HP,
    K_CREEP_MELEE, K_NEUTRAL, LAST_HITS, NEUTRAL_TEAM, RADIANT, SLOT_CREEPS, SLOT_NEUTRALS, STUN, X, Y,
)
from fivestack.game.patch import CK, CREEPS, F_DOTA_LANE, F_MANUAL_ATTACK, F_RICH_CREEPS, F_TEAM_FRAME, FEATURES, PATCH_VERSION, PATCHES, Patch, Rules, \
    feature_mask, patch_features

RULES = Rules()
PASSIVE = RULES.passive_gold * FRAMES_PER_STEP / FRAMES_PER_SECOND  # 1.5 gold/s over one 4-frame step
BULWARK = 0  # melee: a last hit lands in the step it is ordered


def game_with(features: int, mode: str = "5v5") -> GameBatch:
    """A one-game batch whose game plays with the feature mask ``features``, isolated to Radiant's Bulwark."""
    game = new_game(mode)
    game.reset(0, features=features)
    isolate(game, BULWARK)
    return game


def last_hit(game: GameBatch, team: int, kind: str, row: str | None = None, unit_kind: int | None = None) -> int:
    """Bulwark, 100 away, kills a creep of ``team`` with 1 health left in one hit; the creep's unit index."""
    if row is None:
        creep = spawn_creep(game, team, kind)
    else:  # a creep row rules_arena does not spawn by name (super creeps, neutrals)
        creep = SLOT_NEUTRALS if team == NEUTRAL_TEAM else kernels.free_creep_slot(game.state.ui, G)
        kernels.set_unit(game.state, game.data, G, creep, team, unit_kind, CK[row], ARENA[0], ARENA[1], 1.0)
        game.state.ui[G, creep, STUN] = 10**8
    game.state.uf[G, creep, HP] = 1.0
    place(game, BULWARK, -100.0)
    see(game)
    run(game, 1, action(BULWARK, A_ATTACK, creep))
    assert game.state.ui[G, creep, ALIVE] == 0, "the creep did not die"
    return creep


# ---------------------------------------------------------------------------------------------- the registry
def test_patch_versions_and_their_features():
    """1.0 (the default) has team_frame and dota_lane; 0.1 has no features; 0.2 has rich_creeps; an unknown version
    or feature is one error."""
    assert PATCH_VERSION == "1.0" and GameConfig().patch == "1.0"
    assert sorted(PATCHES) == ["0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0"]
    assert Patch().features == patch_features("1.0") == F_TEAM_FRAME | F_DOTA_LANE
    assert patch_features("0.1") == 0 and Patch("0.1").features == 0
    assert patch_features("0.2") == F_RICH_CREEPS == FEATURES["rich_creeps"].bit == 1
    assert feature_mask(["rich_creeps"]) == 1 and feature_mask([]) == 0
    with pytest.raises(ValueError, match="patch '9.9' is not available"):
        GameConfig(patch="9.9")
    with pytest.raises(ValueError, match="feature 'gold_rain' is unknown"):
        feature_mask(["gold_rain"])


def test_a_batch_mixes_games_with_and_without_the_feature():
    """Every game starts with its patch's features unless its reset names its own; a reset of some games
    leaves the others' features as they were."""
    assert (GameBatch(3, GameConfig(patch="0.2")).features == 1).all()
    env = BatchedEnv(4, GameConfig(mode="1v1", patch="0.1"))
    env.reset(5)
    assert env.game.features.tolist() == [0, 0, 0, 0]
    env.reset_games([1, 3], [10, 11], features=[F_RICH_CREEPS, 0])
    assert env.game.features.tolist() == [0, 1, 0, 0]
    env.reset_games([0], [12], features=F_RICH_CREEPS)
    env.reset_games([1], [13])  # no mask: the patch's (0.1: none)
    assert env.game.features.tolist() == [1, 0, 0, 0]


# ---------------------------------------------------------------------------------------------- rich_creeps
@pytest.mark.parametrize("kind, off, on", [("melee", 40.0, 50.0), ("ranged", 50.0, 62.5), ("siege", 70.0, 87.5)])
def test_rich_creeps_pays_a_quarter_more_for_a_lane_creeps_last_hit(kind, off, on):
    """melee 40 -> 50, ranged 50 -> 62.5, siege 70 -> 87.5 gold for the last hit, plus the step's passive gold;
    without the feature the creep table's bounty exactly."""
    assert CREEPS[kind].gold == off and CREEPS[kind].gold * RULES.rich_creeps_bounty == on
    for features, expected in ((0, off), (F_RICH_CREEPS, on)):
        game = game_with(features)
        last_hit(game, DIRE, kind)
        assert game.state.hf[G, BULWARK, GOLD] == pytest.approx(expected + PASSIVE, abs=1e-9)
        assert game.state.hi[G, BULWARK, LAST_HITS] == 1


def test_rich_creeps_in_every_game_of_patch_0_2_and_for_super_creeps():
    """A game of a patch-0.2 batch has the feature without asking; a super melee creep (bounty 20, a lane creep
    of another row) pays 25."""
    game = GameBatch(1, GameConfig(patch="0.2"))
    game.reset(0)
    isolate(game, BULWARK)
    last_hit(game, DIRE, "melee", row="super_melee", unit_kind=K_CREEP_MELEE)
    assert CREEPS["super_melee"].gold == 20.0
    assert game.state.hf[G, BULWARK, GOLD] == pytest.approx(25.0 + PASSIVE, abs=1e-9)


def test_rich_creeps_leaves_neutrals_and_denies_alone():
    """A neutral pays its 45 with the feature on; a deny pays nothing either way."""
    game = game_with(F_RICH_CREEPS)
    last_hit(game, NEUTRAL_TEAM, "neutral", row="neutral", unit_kind=K_NEUTRAL)
    assert game.state.hf[G, BULWARK, GOLD] == pytest.approx(CREEPS["neutral"].gold + PASSIVE, abs=1e-9)
    game = game_with(F_RICH_CREEPS)
    last_hit(game, RADIANT, "melee")  # an own creep below half health: a deny
    assert game.state.hi[G, BULWARK, DENIES] == 1 and game.state.hi[G, BULWARK, LAST_HITS] == 0
    assert game.state.hf[G, BULWARK, GOLD] == pytest.approx(PASSIVE, abs=1e-9)


def test_the_feature_acts_per_game_in_a_mixed_batch():
    """Two games of one batch, the same hand-set last hit in each (as ``rules_arena`` sets game 0): only the
    game with the feature pays 50, the other 40."""
    game = GameBatch(2, GameConfig())
    game.reset([7, 7], features=[F_RICH_CREEPS, 0])
    S = game.state
    actions = np.zeros((2, 10, 5), np.int64)
    actions[..., 2] = -1
    actions[..., 3:] = 4
    for g in range(2):
        S.gi[g, G_FRAME] = START_FRAME
        S.build_order[g] = -1
        S.hf[g, :, GOLD] = 0.0
        S.ui[g, 1:10, ALIVE] = 0
        S.hi[g, 1:10, ACTIVE] = 0
        S.uf[g, 1:10, HP] = 0.0
        creep = kernels.free_creep_slot(S.ui, g)
        kernels.set_unit(S, game.data, g, creep, DIRE, K_CREEP_MELEE, CK["melee"], ARENA[0], ARENA[1], 1.0)
        S.ui[g, creep, STUN] = 10**8
        S.uf[g, creep, HP] = 1.0
        S.uf[g, BULWARK, X] = S.uf[g, BULWARK, GOAL_X] = ARENA[0] - 100.0
        S.uf[g, BULWARK, Y] = S.uf[g, BULWARK, GOAL_Y] = ARENA[1]
        kernels.update_vision(S, game.data, game.scratch, g)
        actions[g, BULWARK, :3] = (A_ATTACK, 0, creep)
    game.step(actions)
    assert S.hi[:, BULWARK, LAST_HITS].tolist() == [1, 1]
    assert S.hf[:, BULWARK, GOLD] == pytest.approx([50.0 + PASSIVE, 40.0 + PASSIVE], abs=1e-9)


# ---------------------------------------------------------------------------------------------- manual_attack
def hits_taken(features: int, order: np.ndarray | None, steps: int = 12) -> float:
    """Health a stunned enemy creep 100 units from an idle Bulwark loses over ``steps`` timesteps (``order`` in the
    first, no-ops after), in a game with feature mask ``features``."""
    game = game_with(features)
    creep = spawn_creep(game, DIRE, "melee")
    place(game, BULWARK, -100.0)
    see(game)
    before = float(game.state.uf[G, creep, HP])
    run(game, steps, order)
    assert game.state.ui[G, creep, ALIVE] == 1
    return before - float(game.state.uf[G, creep, HP])


def test_manual_attack_an_idle_hero_leaves_what_comes_near_alone_and_attacks_when_ordered():
    """Without the feature an idle hero attacks the creep in its reach (as in Dota); with it, not until ordered to
    attack it or to hold (which fights what is in reach), and its attacks then deal what they deal without it."""
    creep = SLOT_CREEPS  # spawn_creep's first creep slot
    assert hits_taken(0, None) > 0.0 and hits_taken(F_MANUAL_ATTACK, None) == 0.0
    for order in (action(BULWARK, A_ATTACK, creep), action(BULWARK, A_HOLD)):
        assert hits_taken(F_MANUAL_ATTACK, order) == hits_taken(0, order) > 0.0
    assert FEATURES["manual_attack"].observes == ""  # a rule: no observation column
