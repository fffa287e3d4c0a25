"""Rules of item actives: each active item of the patch, given to a hero by hand and used (``item_1``..).

Each test puts the item in an inventory slot (``state.items``), uses it with ``A_ITEM0 + slot`` in the last
frame of a step, and checks the effect, the cooldown and the charges against the README's item table
(generated from the patch's ``ITEMS``), computed by hand.
"""

from __future__ import annotations

import math

import pytest

from rules_arena import (
    ARENA, G, action, disarm, freeze, isolate, new_game, no_regen, place, run, see, steps_for, steps_refused,
    walkable,
)
from fivestack.game.geometry import FOUNTAIN
from fivestack.game.kernels import building_slot, refresh_hero
from fivestack.game.layout import (
    A_ITEM0, FRAMES_PER_SECOND, FRAMES_PER_STEP, HP, INVALID_ACTIONS, MANA, RADIANT, STEP_SECONDS, STR, STUN, X,
    Y,
)
from fivestack.game.patch import ITEM_INDEX, ITEMS

BULWARK, VESPER, CINDER = 0, 1, 2  # Radiant heroes; Dire's are the same heroes at +5
D_BULWARK, D_VESPER = 5, 6
EMPTY = -1


def give(game, h: int, name: str, slot: int = 0, charges: int | None = None) -> None:
    """Put item ``name`` in hero ``h``'s inventory slot, with the patch's charges unless told."""
    it = ITEM_INDEX[name]
    game.state.items[G, h, slot] = (it, ITEMS[it].charges if charges is None else charges, 0)


def use(game, h: int, slot: int = 0, target: int = -1, offset: tuple[int, int] = (4, 4)) -> None:
    """Hero ``h`` uses the item in ``slot`` in the last frame of one step; the use must be accepted."""
    see(game)
    run(game, 1, action(h, A_ITEM0 + slot, target, offset, delay=3))
    assert game.state.hi[G, h, INVALID_ACTIONS] == 0, "the item's use was refused"


def slot_state(game, h: int, slot: int = 0) -> tuple[int, int, int]:
    """(item id, charges, cooldown in frames) of a slot."""
    return tuple(int(v) for v in game.state.items[G, h, slot])


def position(game, h: int) -> tuple[float, float]:
    return float(game.state.uf[G, h, X]), float(game.state.uf[G, h, Y])


def frames(seconds: float) -> int:
    return round(seconds * FRAMES_PER_SECOND)


# ---------------------------------------------------------------------------------------------- waystone
def test_waystone_teleports_next_to_an_allied_building_after_3_seconds():
    """waystone (town-portal scroll, 1 charge): 3 s after use the hero stands next to the allied building
    it targeted, on its fountain side; the one charge is spent, so the slot empties."""
    game = new_game()
    isolate(game, BULWARK)
    place(game, BULWARK, 0.0)
    give(game, BULWARK, "waystone")
    tower = building_slot(RADIANT, 3)  # Radiant's tier-2 top tower, 5,600 away
    start = position(game, BULWARK)
    use(game, BULWARK, target=tower)
    assert slot_state(game, BULWARK) == (EMPTY, 0, 0)
    steps = 0
    while position(game, BULWARK) == start and steps < 60:
        run(game, 1)
        steps += 1
    assert steps * STEP_SECONDS == pytest.approx(3.0, abs=STEP_SECONDS)
    S = game.state
    tx, ty = float(S.uf[G, tower, X]), float(S.uf[G, tower, Y])
    x, y = position(game, BULWARK)
    assert math.hypot(x - tx, y - ty) <= 300.0
    fx, fy = FOUNTAIN[RADIANT]
    assert math.hypot(x - fx, y - fy) < math.hypot(tx - fx, ty - fy)


def test_waystone_with_charges_left_goes_on_a_60_second_cooldown():
    """waystone: cooldown 60 s; a use spends one charge (a hand-set second charge stays)."""
    game = new_game()
    isolate(game, BULWARK)
    place(game, BULWARK, 0.0)
    give(game, BULWARK, "waystone", charges=2)
    use(game, BULWARK, target=building_slot(RADIANT, 3))
    assert slot_state(game, BULWARK) == (ITEM_INDEX["waystone"], 1, frames(60.0))


# ---------------------------------------------------------------------------------------------- consumables
def test_poultice_heals_400_over_10_seconds():
    """poultice (1 charge): heal 400 over 10 s, i.e. 40 per second for 10 s; the slot empties."""
    game = new_game()
    isolate(game, BULWARK)
    place(game, BULWARK, 0.0)
    game.state.uf[G, BULWARK, HP] = 100.0
    give(game, BULWARK, "poultice")
    use(game, BULWARK)
    assert slot_state(game, BULWARK) == (EMPTY, 0, 0)
    no_regen(game, BULWARK)  # after the use: spending the last charge recomputes the hero's stats
    start = float(game.state.uf[G, BULWARK, HP])
    run(game, 19)  # 76 frames
    assert game.state.uf[G, BULWARK, HP] - start == pytest.approx(400.0 * 76 / frames(10.0), rel=1e-4)
    run(game, steps_for(10.0) - 19)
    assert game.state.uf[G, BULWARK, HP] - start == pytest.approx(400.0, rel=1e-4)
    run(game, steps_for(2.0))
    assert game.state.uf[G, BULWARK, HP] - start == pytest.approx(400.0, rel=1e-4)


def test_clear_draught_restores_150_mana_over_20_seconds():
    """clear_draught (1 charge): restore 150 mana over 20 s, i.e. 7.5 per second for 20 s; the slot empties."""
    game = new_game()
    isolate(game, CINDER)
    place(game, CINDER, 0.0)
    game.state.uf[G, CINDER, MANA] = 50.0
    give(game, CINDER, "clear_draught")
    use(game, CINDER)
    assert slot_state(game, CINDER) == (EMPTY, 0, 0)
    no_regen(game, CINDER)
    start = float(game.state.uf[G, CINDER, MANA])
    run(game, 75)  # 300 frames
    assert game.state.uf[G, CINDER, MANA] - start == pytest.approx(75.0, rel=1e-4)
    run(game, steps_for(20.0) - 75 + steps_for(2.0))
    assert game.state.uf[G, CINDER, MANA] - start == pytest.approx(150.0, rel=1e-4)


@pytest.mark.parametrize("first, second", [("poultice", "clear_draught"), ("clear_draught", "poultice")])
def test_poultice_and_clear_draught_together_each_give_their_full_amount(first, second):
    """poultice and clear_draught drunk one step apart: 400 health and 150 mana, each over its own time."""
    game = new_game()
    isolate(game, CINDER)
    place(game, CINDER, 0.0)
    S = game.state
    S.hf[G, CINDER, STR] = 100.0  # 2,200 health: room for more than 400, so an over-heal is not capped
    refresh_hero(S, game.data, G, CINDER)
    S.uf[G, CINDER, HP] = 1.0
    S.uf[G, CINDER, MANA] = 1.0
    give(game, CINDER, first, slot=0)
    give(game, CINDER, second, slot=1)
    for slot in (0, 1):
        no_regen(game, CINDER)  # again after each use: spending a last charge recomputes the hero's stats
        use(game, CINDER, slot=slot)
    no_regen(game, CINDER)
    run(game, steps_for(25.0))
    healed, restored = float(S.uf[G, CINDER, HP]) - 1.0, float(S.uf[G, CINDER, MANA]) - 1.0
    assert (round(healed, 1), round(restored, 1)) == (400.0, 150.0)


# ---------------------------------------------------------------------------------------------- blink_charm
def test_blink_charm_teleports_to_a_point_1200_away():
    """blink_charm: teleport to a point up to 1200 away (offset 4 cells of 1200 / 4), cooldown 12 s; not
    consumable, so the charm stays."""
    game = new_game()
    isolate(game, VESPER)
    place(game, VESPER, 0.0)
    give(game, VESPER, "blink_charm")
    assert walkable(game, ARENA[0] + 1200.0, ARENA[1]), "the blink's point must be open ground"
    use(game, VESPER, offset=(8, 4))
    assert position(game, VESPER) == (ARENA[0] + 1200.0, ARENA[1])
    assert slot_state(game, VESPER) == (ITEM_INDEX["blink_charm"], 0, frames(12.0))


def test_blink_charm_does_not_reach_beyond_1200():
    """blink_charm: a point 1,697 away (offset 4 cells on both axes) is out of reach: the hero walks toward
    it and blinks only once within range, the charm going on cooldown then."""
    game = new_game()
    isolate(game, VESPER)
    place(game, VESPER, 0.0)
    give(game, VESPER, "blink_charm")
    point = (ARENA[0] - 1200.0, ARENA[1] + 1200.0)
    assert walkable(game, *point), "the blink's point must be open ground"
    use(game, VESPER, offset=(0, 8))
    assert slot_state(game, VESPER)[2] == 0  # not used yet
    x, y = position(game, VESPER)
    assert 0.0 < math.hypot(x - ARENA[0], y - ARENA[1]) < 100.0  # walking
    steps = 0
    while position(game, VESPER) != point and steps < 60:
        before = position(game, VESPER)
        run(game, 1)
        steps += 1
    assert position(game, VESPER) == point
    assert math.hypot(before[0] - point[0], before[1] - point[1]) <= 1200.0 + 100.0  # the jump: ~1200 at most
    assert slot_state(game, VESPER)[2] > frames(12.0) - FRAMES_PER_STEP


# ---------------------------------------------------------------------------------------------- stun_maul
def test_stun_maul_stuns_one_enemy_for_1_5_seconds():
    """stun_maul: stun one enemy for 1.5 s (its orders are refused for the 12 steps that begin within 45
    frames), cooldown 25 s; not consumable."""
    game = new_game()
    isolate(game, BULWARK, D_VESPER)
    place(game, BULWARK, 0.0)
    place(game, D_VESPER, 180.0)  # in melee reach: neither walks
    disarm(game, BULWARK, D_VESPER)
    give(game, BULWARK, "stun_maul")
    hp = float(game.state.uf[G, D_VESPER, HP])
    use(game, BULWARK, target=D_VESPER)
    assert game.state.ui[G, D_VESPER, STUN] == frames(1.5)
    assert slot_state(game, BULWARK) == (ITEM_INDEX["stun_maul"], 0, frames(25.0))
    assert steps_refused(game, D_VESPER) == math.ceil(frames(1.5) / FRAMES_PER_STEP) == 12
    assert game.state.uf[G, D_VESPER, HP] >= hp


# ---------------------------------------------------------------------------------------------- mending_charm
def test_mending_charm_heals_allies_within_900_by_250():
    """mending_charm: heal allies within 900 (the user included) by 250, cooldown 40 s; an ally at 1000 and
    an enemy at 300 are not healed."""
    game = new_game()
    isolate(game, BULWARK, VESPER, CINDER, D_BULWARK)
    place(game, CINDER, 0.0)
    place(game, BULWARK, 800.0)
    place(game, VESPER, -1000.0)
    place(game, D_BULWARK, 0.0, -300.0)
    disarm(game, CINDER)
    freeze(game, BULWARK, VESPER, D_BULWARK)
    heroes = (CINDER, BULWARK, VESPER, D_BULWARK)
    no_regen(game, *heroes)
    game.state.uf[G, heroes, HP] = 100.0
    give(game, CINDER, "mending_charm")
    use(game, CINDER)
    assert list(game.state.uf[G, heroes, HP]) == pytest.approx([350.0, 350.0, 100.0, 100.0])
    assert slot_state(game, CINDER) == (ITEM_INDEX["mending_charm"], 0, frames(40.0))
