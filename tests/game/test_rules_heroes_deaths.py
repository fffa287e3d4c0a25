"""Rules of a hero's death, each pinned to a hand-set state: respawn time, buyback and the aegis.

Each test builds a one-game batch, sets what it needs by name (columns in ``fivestack.game.layout``), steps
the game with explicit actions and checks the numbers that the README's *The game* states (Heroes; Neutrals
and the big neutral), worked out here by hand rather than read back from the kernels. Time is counted in
frames: 30 a second, 4 a step. A hero "dies" by having its health set below zero: the death check at the end
of the next frame then does what lethal damage would.
"""

from __future__ import annotations

import math

import pytest

import rules_arena
from rules_arena import action, idle

from fivestack.game import kernels
from fivestack.game.engine import GameBatch
from fivestack.game.layout import (
    AEGIS, ALIVE, A_ATTACK, A_BUYBACK, DAMAGE, DEATHS, EV_AEGIS, EV_GOLD_SPENT, EV_HERO_DEATH, FRAMES_PER_SECOND,
    FRAMES_PER_STEP, G_AEGIS_ON_GROUND, G_BIG_RESPAWN, G_KILLS0, GOLD, HP, HP_MAX, INVALID_ACTIONS, IT_CHARGES,
    IT_ID, LEVEL, MANA, MANA_MAX, SLOT_BIG_NEUTRAL, X, Y,
)
from fivestack.game.patch import ITEM_INDEX

SEED = 7
WAYSTONE = ITEM_INDEX["waystone"]  # the town-portal scroll


# ---------------------------------------------------------------- hand-set helpers
def new_game(mode: str) -> GameBatch:
    return rules_arena.new_game(mode, SEED)


def idle_until(game: GameBatch, frame: int) -> None:
    """Step with no-ops until the game reaches ``frame`` (which must be a whole number of steps ahead)."""
    assert (frame - game.frame[0]) % FRAMES_PER_STEP == 0 and frame >= game.frame[0]
    idle(game, (frame - int(game.frame[0])) // FRAMES_PER_STEP)
    assert game.frame[0] == frame


def stop_shopping(game: GameBatch, hero: int) -> None:
    """Switch off the scripted purchases, so that only the rule under test moves the hero's gold: an empty
    item build and a town-portal scroll already in stock."""
    game.state.build_order[0, hero, :] = -1
    game.state.items[0, hero, 5, IT_ID] = WAYSTONE
    game.state.items[0, hero, 5, IT_CHARGES] = 1


def lethal(game: GameBatch, hero: int) -> None:
    """Health below zero: the hero dies (or spends its aegis) in the next frame's death check."""
    game.state.uf[0, hero, HP] = -1000.0


def distance_to_fountain(game: GameBatch, hero: int) -> float:
    team = 0 if hero < 5 else 1
    fx, fy = game.data.fountain[team]
    return math.hypot(game.state.uf[0, hero, X] - fx, game.state.uf[0, hero, Y] - fy)


def buyback_available(game: GameBatch, hero: int) -> bool:
    """What the action mask says of ``buyback`` (the env's primary_mask is built from this kernel)."""
    return bool(kernels.primary_available(game.state, game.data, 0, hero, A_BUYBACK))


# ---------------------------------------------------------------- respawn
@pytest.mark.parametrize("hero, level", [(0, 1), (5, 10)])
def test_dead_hero_respawns_after_4_plus_2_per_level_seconds_at_its_fountain(hero, level):
    """A dead hero respawns after 4 + 2 x level seconds (level 1: 6 s; level 10: 24 s), at its fountain."""
    game = new_game("1v1")
    S = game.state
    S.hi[0, hero, LEVEL] = level
    S.uf[0, hero, X], S.uf[0, hero, Y] = 8000.0, 8000.0  # mid-map, far from both fountains
    lethal(game, hero)
    death_frame = int(game.frame[0]) + 1  # the step's first frame
    idle(game, 1)
    assert S.ui[0, hero, ALIVE] == 0
    respawn_frames = (4 + 2 * level) * FRAMES_PER_SECOND  # 180 or 720 frames

    idle_until(game, death_frame - 1 + respawn_frames)  # the last step that ends before the respawn frame
    assert S.ui[0, hero, ALIVE] == 0, "respawned early"
    idle(game, 1)
    assert S.ui[0, hero, ALIVE] == 1, "not respawned within 4 frames after 4 + 2 x level seconds"
    assert distance_to_fountain(game, hero) < 300.0
    assert S.uf[0, hero, HP] == S.uf[0, hero, HP_MAX]


# ---------------------------------------------------------------- buyback
def test_buyback_costs_150_plus_25_per_level_and_brings_the_hero_back_at_once():
    """Buyback costs 150 + 25 x level gold (level 5: 275) and the hero is back at its fountain at once."""
    game = new_game("1v1")
    S = game.state
    hero = 0
    stop_shopping(game, hero)
    S.hi[0, hero, LEVEL] = 5
    S.uf[0, hero, X], S.uf[0, hero, Y] = 8000.0, 8000.0
    lethal(game, hero)
    idle(game, 1)
    assert S.ui[0, hero, ALIVE] == 0
    S.hf[0, hero, GOLD] = 275.0 + 10.0
    assert buyback_available(game, hero)

    game.step(action(hero, A_BUYBACK))
    assert S.ui[0, hero, ALIVE] == 1
    assert distance_to_fountain(game, hero) < 300.0
    assert S.uf[0, hero, HP] == S.uf[0, hero, HP_MAX]
    passive = 1.5 * FRAMES_PER_STEP / FRAMES_PER_SECOND  # 1.5 gold a second over the step
    assert S.hf[0, hero, GOLD] == pytest.approx(10.0 + passive)
    assert game.events[0, hero, EV_GOLD_SPENT] == pytest.approx(275.0)
    assert S.hi[0, hero, INVALID_ACTIONS] == 0


def test_buyback_is_refused_without_the_gold():
    """A dead hero with one gold less than 150 + 25 x level (level 3: 225) cannot buy back; with it, it can."""
    game = new_game("1v1")
    S = game.state
    hero = 5
    stop_shopping(game, hero)
    S.hi[0, hero, LEVEL] = 3
    lethal(game, hero)
    idle(game, 1)
    S.hf[0, hero, GOLD] = 224.0
    assert not buyback_available(game, hero)

    game.step(action(hero, A_BUYBACK))
    assert S.ui[0, hero, ALIVE] == 0
    assert S.hi[0, hero, INVALID_ACTIONS] == 1
    passive = 1.5 * FRAMES_PER_STEP / FRAMES_PER_SECOND
    assert S.hf[0, hero, GOLD] == pytest.approx(224.0 + passive)

    S.hf[0, hero, GOLD] = 225.0
    assert buyback_available(game, hero)
    game.step(action(hero, A_BUYBACK))
    assert S.ui[0, hero, ALIVE] == 1
    assert S.hf[0, hero, GOLD] == pytest.approx(passive)


def test_buyback_then_waits_a_300_second_cooldown():
    """After a buyback, buyback is unavailable (masked and refused) for 300 s even to a rich dead hero."""
    game = new_game("5v5")  # (a 1v1 ends at the second death)
    S = game.state
    hero = 0
    stop_shopping(game, hero)
    S.hi[0, hero, LEVEL] = 5
    lethal(game, hero)
    idle(game, 1)
    S.hf[0, hero, GOLD] = 100_000.0
    bought_at = int(game.frame[0])  # applied before the next step's first frame
    game.step(action(hero, A_BUYBACK))
    assert S.ui[0, hero, ALIVE] == 1

    # dies again at once: rich, dead and still no buyback
    lethal(game, hero)
    idle(game, 1)
    assert S.ui[0, hero, ALIVE] == 0
    assert not buyback_available(game, hero)
    gold = S.hf[0, hero, GOLD]
    game.step(action(hero, A_BUYBACK))
    assert S.ui[0, hero, ALIVE] == 0, "bought back during the cooldown"
    assert S.hi[0, hero, INVALID_ACTIONS] == 1
    assert S.hf[0, hero, GOLD] == pytest.approx(gold + 1.5 * FRAMES_PER_STEP / FRAMES_PER_SECOND)

    cooldown_frames = 300 * FRAMES_PER_SECOND
    idle_until(game, bought_at + cooldown_frames - 2 * FRAMES_PER_STEP)
    lethal(game, hero)  # (it respawned meanwhile) dead again just before the cooldown ends
    idle(game, 1)
    assert S.ui[0, hero, ALIVE] == 0
    assert not buyback_available(game, hero), "available before 300 s"
    idle(game, 2)
    assert buyback_available(game, hero), "not available 4 frames after 300 s"
    game.step(action(hero, A_BUYBACK))
    assert S.ui[0, hero, ALIVE] == 1


# ---------------------------------------------------------------- aegis
def take_aegis(game: GameBatch, hero: int) -> int:
    """The hero, standing in the pit, kills the big neutral in one blow (its attack damage is hand-set for
    that) and picks up the aegis. Returns the frame at the end of the step in which the aegis was taken."""
    S = game.state
    bx, by = game.data.big_neutral
    S.uf[0, hero, X], S.uf[0, hero, Y] = bx + 100.0, by  # in melee reach, within pickup distance of the pit
    S.uf[0, hero, DAMAGE] = 20_000.0  # x 0.45 through the big neutral's armor 20: more than its 5500 health
    idle(game, 1)  # the team's vision catches up with the move
    game.step(action(hero, A_ATTACK, SLOT_BIG_NEUTRAL))
    for _ in range(10):
        if S.ui[0, SLOT_BIG_NEUTRAL, ALIVE] == 0:
            break
        idle(game, 1)
    assert S.ui[0, SLOT_BIG_NEUTRAL, ALIVE] == 0, "the big neutral did not die"
    return int(game.frame[0])


def test_killing_the_big_neutral_drops_the_aegis_and_the_hero_on_it_holds_it_for_5_minutes():
    """The big neutral's death drops the aegis (and it respawns 8 minutes later); a hero on it takes it for
    300 s, and its whole team gets the aegis event."""
    game = new_game("5v5")
    S = game.state
    hero = 0
    before = int(game.frame[0]) + FRAMES_PER_STEP  # the kill comes after the vision step
    taken_at = take_aegis(game, hero)
    assert S.gi[0, G_AEGIS_ON_GROUND] == 0  # taken in the frame it dropped
    assert 300.0 - FRAMES_PER_STEP / FRAMES_PER_SECOND < S.hf[0, hero, AEGIS] <= 300.0
    assert list(game.events[0, :, EV_AEGIS]) == [1.0] * 5 + [0.0] * 5
    assert before < S.gi[0, G_BIG_RESPAWN] - 8 * 60 * FRAMES_PER_SECOND <= taken_at


def test_the_aegis_is_spent_instead_of_a_death_and_restores_full_health_and_mana():
    """A hero holding the aegis who would die keeps its life at full health and mana; the next death is real."""
    game = new_game("5v5")
    S = game.state
    hero = 0
    take_aegis(game, hero)
    S.uf[0, hero, MANA] = 0.0
    lethal(game, hero)
    idle(game, 1)
    assert S.ui[0, hero, ALIVE] == 1
    assert S.uf[0, hero, HP] == S.uf[0, hero, HP_MAX]
    assert S.uf[0, hero, MANA] == S.uf[0, hero, MANA_MAX]
    assert S.hf[0, hero, AEGIS] == 0.0
    assert S.hi[0, hero, DEATHS] == 0 and game.events[0, hero, EV_HERO_DEATH] == 0.0
    assert S.gi[0, G_KILLS0 + 1] == 0  # no kill for the other team

    lethal(game, hero)
    idle(game, 1)
    assert S.ui[0, hero, ALIVE] == 0
    assert S.hi[0, hero, DEATHS] == 1


def test_the_aegis_expires_after_5_minutes():
    """Unused, the aegis is gone 300 s after it was taken, and a lethal blow then kills."""
    game = new_game("5v5")
    S = game.state
    hero = 0
    taken_by = take_aegis(game, hero)  # taken in one of the 4 frames up to here
    fx, fy = game.data.fountain[0]
    S.uf[0, hero, X], S.uf[0, hero, Y] = fx, fy  # wait at home, out of harm's way
    hold_frames = 300 * FRAMES_PER_SECOND
    idle_until(game, taken_by + hold_frames - 2 * FRAMES_PER_STEP)
    assert S.hf[0, hero, AEGIS] > 0.0, "gone before 5 minutes"
    idle(game, 3)
    assert S.hf[0, hero, AEGIS] == 0.0, "still held a step after 5 minutes"
    lethal(game, hero)
    idle(game, 1)
    assert S.ui[0, hero, ALIVE] == 0
