"""Rules of the new mechanics (``game.heroes.Ability``'s docstring): summons, invisibility, channels, blinks,
passive auras and global casts, each through a real ability of a real hero on a hand-set state.

Numbers are computed by hand from the patch's ability table: value = base + per-level x (level - 1); summons'
health and damage grow 25% per level, aura buffs 50%; magical damage is cut by the 25% magic resistance.
"""

from __future__ import annotations

import math

import pytest

from rules_arena import (
    ARENA, G, ability, action, at_level, disarm, freeze, isolate, new_game, no_regen, place, run, see, spawn_creep,
    steps_for, walkable,
)
from fivestack.game import kernels
from fivestack.game.layout import (
    A_ABILITY0, A_ATTACK, A_MOVE, ABILITY_CD, ABILITY_LEVEL, ALIVE, ARMOR, ATTACK_READY, AURA_ARMOR, AURA_DAMAGE, DAMAGE, DIRE,
    FRAMES_PER_SECOND, FRAMES_PER_STEP, HP, HP_MAX, INVALID_ACTIONS, INVISIBLE, LAST_HITS, LIFETIME, MANA, MAX_UNITS,
    ORDER, O_CHANNEL, RADIANT, SLOT_CREEPS, SUMMONER, TEAM, X, Y,
)

RADIANT_LINEUP = ("Hivecaller", "Veilstalker", "Dirgesinger", "Riftdancer", "Warbanner")
DIRE_LINEUP = ("Starfall Herald", "Frostwell", "Bulwark", "Vesper Blade", "Grovekeeper")
NAMES = RADIANT_LINEUP + DIRE_LINEUP
HIVECALLER, VEILSTALKER, DIRGESINGER, RIFTDANCER, WARBANNER = 0, 1, 2, 3, 4
STARFALL, FROSTWELL, BULWARK, VESPER, GROVE = 5, 6, 7, 8, 9
MAGIC_RESISTANCE = 0.25


def arena(*keep: int):
    game = new_game(radiant=RADIANT_LINEUP, dire=DIRE_LINEUP)
    isolate(game, *keep)
    for h in keep:
        place(game, h, 0.0, 0.0)
    return game


def cast(game, h: int, name: str, level: int, target: int = -1, offset: tuple[int, int] = (4, 4)):
    """Hero ``h`` casts ``name`` at ``level`` in the last frame of a step; checks mana and cooldown."""
    S = game.state
    slot, ab = ability(NAMES[h], name)
    S.hi[G, h, ABILITY_LEVEL + slot] = level
    no_regen(game, h)
    mana = float(S.uf[G, h, MANA])
    see(game)
    run(game, 1, action(h, A_ABILITY0 + slot, target, offset, delay=3))
    assert S.hi[G, h, INVALID_ACTIONS] == 0, f"{name} was refused"
    assert S.uf[G, h, MANA] == pytest.approx(mana - at_level(ab.mana, ab.mana_per_level, level))
    assert S.hi[G, h, ABILITY_CD + slot] == round(at_level(ab.cooldown, ab.cooldown_per_level, level)
                                                  * FRAMES_PER_SECOND)
    return ab




def summons_of(game, h: int) -> list[int]:
    S = game.state
    return [u for u in range(SLOT_CREEPS, MAX_UNITS)
            if S.ui[G, u, ALIVE] and S.ui[G, u, LIFETIME] > 0 and S.ui[G, u, SUMMONER] == h]


# ---------------------------------------------------------------- summons
@pytest.mark.parametrize("level", [1, 2])
def test_summons_appear_with_the_tables_health_and_damage_and_expire_without_bounty(level):
    game = arena(HIVECALLER)
    S = game.state
    ab = cast(game, HIVECALLER, "Swarm", level)
    units = summons_of(game, HIVECALLER)
    assert len(units) == ab.summon_count == 2
    scale = 1.0 + 0.25 * (level - 1)
    for u in units:
        assert S.ui[G, u, TEAM] == RADIANT
        assert S.uf[G, u, HP_MAX] == pytest.approx(ab.summon_hp * scale)
        assert S.uf[G, u, DAMAGE] == pytest.approx(ab.summon_damage * scale)
        assert math.hypot(S.uf[G, u, X] - ARENA[0], S.uf[G, u, Y] - ARENA[1]) <= 121.0
    frames_left = int(S.ui[G, units[0], LIFETIME])  # summoned after the cast frame's statuses ticked
    assert frames_left == ab.summon_time * FRAMES_PER_SECOND
    run(game, (frames_left - 1) // FRAMES_PER_STEP)
    assert len(summons_of(game, HIVECALLER)) == 2, "gone before summon_time"
    run(game, 1)
    assert all(S.ui[G, u, ALIVE] == 0 for u in units), "still there after summon_time"
    assert S.hi[G, :, LAST_HITS].sum() == 0


def test_summons_attack_a_nearby_enemy():
    game = arena(HIVECALLER)
    S = game.state
    creep = spawn_creep(game, DIRE, "melee", dx=400.0, k=40)
    no_regen(game, creep)
    before = float(S.uf[G, creep, HP])
    disarm(game, HIVECALLER)
    cast(game, HIVECALLER, "Swarm", 1)
    run(game, steps_for(4.0))
    assert S.uf[G, creep, HP] < before, "the summons never hit the enemy creep 400 away"


# ---------------------------------------------------------------- invisibility
def test_invisibility_hides_from_the_enemy_for_its_time_and_blocks_targeting():
    game = arena(VEILSTALKER, BULWARK)
    S = game.state
    place(game, BULWARK, 300.0)
    disarm(game, VEILSTALKER, BULWARK)
    ab = cast(game, VEILSTALKER, "Shadowfade", 1)
    assert S.ui[G, VEILSTALKER, INVISIBLE] > 0
    assert S.vis[G, DIRE, VEILSTALKER] == 0 and S.vis[G, RADIANT, VEILSTALKER] == 1
    run(game, 1, action(BULWARK, A_ATTACK, VEILSTALKER))
    assert S.hi[G, BULWARK, INVALID_ACTIONS] == 1, "an invisible hero was targeted"
    run(game, steps_for(ab.invisible_time) - 2)
    assert S.vis[G, DIRE, VEILSTALKER] == 0, "visible before invisible_time"
    run(game, 2)
    assert S.vis[G, DIRE, VEILSTALKER] == 1, "still invisible after invisible_time"


def test_attacking_breaks_invisibility():
    game = arena(VEILSTALKER, BULWARK)
    S = game.state
    place(game, BULWARK, 100.0)
    freeze(game, BULWARK)
    cast(game, VEILSTALKER, "Shadowfade", 1)
    S.uf[G, VEILSTALKER, ATTACK_READY] = 0.0
    run(game, 2, action(VEILSTALKER, A_ATTACK, BULWARK))
    assert S.ui[G, VEILSTALKER, INVISIBLE] == 0
    assert S.vis[G, DIRE, VEILSTALKER] == 1



def test_casting_breaks_invisibility():
    game = arena(VEILSTALKER, BULWARK)
    S = game.state
    place(game, BULWARK, 150.0)
    disarm(game, VEILSTALKER, BULWARK)
    cast(game, VEILSTALKER, "Shadowfade", 1)
    assert S.ui[G, VEILSTALKER, INVISIBLE] > 0
    cast(game, VEILSTALKER, "Gutting Venom", 1, target=BULWARK)
    assert S.ui[G, VEILSTALKER, INVISIBLE] == 0
    assert S.vis[G, DIRE, VEILSTALKER] == 1


# ---------------------------------------------------------------- channels
def test_a_channel_lands_once_per_second_for_its_time_in_its_radius():
    game = arena(DIRGESINGER, WARBANNER, VEILSTALKER)
    S = game.state
    slot, ab = ability("Dirgesinger", "Soothing Dirge")
    place(game, WARBANNER, ab.radius - 200.0)
    place(game, VEILSTALKER, -(ab.radius + 100.0))
    no_regen(game, WARBANNER, VEILSTALKER)
    S.uf[G, WARBANNER, HP] = S.uf[G, VEILSTALKER, HP] = 100.0
    cast(game, DIRGESINGER, "Soothing Dirge", 2)
    assert S.ui[G, DIRGESINGER, ORDER] == O_CHANNEL
    assert S.uf[G, WARBANNER, HP] == 100.0, "a channel landed at the cast, before its first second"
    run(game, steps_for(ab.channel_time) + 2)
    assert S.uf[G, WARBANNER, HP] == pytest.approx(100.0 + 3 * at_level(ab.heal, ab.heal_per_level, 2))
    assert S.uf[G, VEILSTALKER, HP] == 100.0, "healed outside the radius"
    assert S.ui[G, DIRGESINGER, ORDER] != O_CHANNEL


def test_a_new_order_ends_a_channel():
    game = arena(DIRGESINGER, WARBANNER)
    S = game.state
    place(game, WARBANNER, 500.0)
    no_regen(game, WARBANNER)
    S.uf[G, WARBANNER, HP] = 100.0
    ab = cast(game, DIRGESINGER, "Soothing Dirge", 1)
    run(game, steps_for(1.5))  # one landing
    run(game, 1, action(DIRGESINGER, A_MOVE, offset=(2, 6)))
    run(game, steps_for(3.0))
    assert S.uf[G, WARBANNER, HP] == pytest.approx(100.0 + ab.heal)


def test_a_stun_ends_a_channel():
    game = arena(DIRGESINGER, WARBANNER, BULWARK)
    S = game.state
    place(game, WARBANNER, 500.0)
    place(game, BULWARK, -200.0)
    disarm(game, DIRGESINGER, WARBANNER, BULWARK)
    no_regen(game, WARBANNER)
    S.uf[G, WARBANNER, HP] = 100.0
    ab = cast(game, DIRGESINGER, "Soothing Dirge", 1)
    run(game, steps_for(1.5))
    cast(game, BULWARK, "Shield Bash", 1, target=DIRGESINGER)
    run(game, steps_for(3.0))
    assert S.ui[G, DIRGESINGER, ORDER] != O_CHANNEL
    assert S.uf[G, WARBANNER, HP] == pytest.approx(100.0 + ab.heal)


def test_a_silence_ends_a_channel():
    game = arena(DIRGESINGER, WARBANNER, STARFALL)
    S = game.state
    place(game, WARBANNER, 500.0)
    place(game, STARFALL, 350.0, 0.0)
    disarm(game, DIRGESINGER, WARBANNER, STARFALL)
    no_regen(game, WARBANNER)
    S.uf[G, WARBANNER, HP] = 100.0
    ab = cast(game, DIRGESINGER, "Soothing Dirge", 1)
    run(game, steps_for(1.5))
    cast(game, STARFALL, "Hush of Night", 1, offset=(2, 4))  # 2 cells of 700 / 4 back: on the channeller
    assert S.ui[G, DIRGESINGER, ORDER] != O_CHANNEL
    run(game, steps_for(3.0))
    assert S.uf[G, WARBANNER, HP] == pytest.approx(100.0 + ab.heal)


# ---------------------------------------------------------------- blink
def test_blink_lands_at_the_point_clamped_to_cast_range_and_hits_around_it():
    game = arena(RIFTDANCER, BULWARK)
    S = game.state
    slot, ab = ability("Riftdancer", "Phase Leap")
    # the diagonal offset (8, 8) asks for 700 * sqrt(2) away: the blink stops at 700 along it
    land = (ARENA[0] + ab.cast_range / math.sqrt(2), ARENA[1] + ab.cast_range / math.sqrt(2))
    assert walkable(game, *land)
    place(game, BULWARK, land[0] - ARENA[0] + 100.0, land[1] - ARENA[1])
    disarm(game, RIFTDANCER, BULWARK)
    no_regen(game, BULWARK)
    before = float(S.uf[G, BULWARK, HP])
    cast(game, RIFTDANCER, "Phase Leap", 1, offset=(8, 8))
    assert S.uf[G, RIFTDANCER, X] == pytest.approx(land[0], abs=1.0)
    assert S.uf[G, RIFTDANCER, Y] == pytest.approx(land[1], abs=1.0)
    assert before - S.uf[G, BULWARK, HP] == pytest.approx(ab.damage * (1 - MAGIC_RESISTANCE), rel=1e-4)


# ---------------------------------------------------------------- aura
@pytest.mark.parametrize("level", [1, 2])
def test_an_aura_buffs_allied_heroes_in_its_radius_while_its_owner_lives(level):
    game = arena(WARBANNER, VEILSTALKER, DIRGESINGER)
    S = game.state
    slot, ab = ability("Warbanner", "Iron Aura")
    place(game, VEILSTALKER, ab.radius - 50.0)
    place(game, DIRGESINGER, ab.radius + 100.0)
    disarm(game, WARBANNER, VEILSTALKER, DIRGESINGER)
    S.hi[G, WARBANNER, ABILITY_LEVEL + slot] = level
    run(game, 3)  # 12 frames: one refresh (every 10 frames)
    armor = ab.buff_armor * (1 + 0.5 * (level - 1))
    assert S.uf[G, VEILSTALKER, AURA_ARMOR] == pytest.approx(armor)
    assert S.uf[G, WARBANNER, AURA_ARMOR] == pytest.approx(armor)
    assert S.uf[G, DIRGESINGER, AURA_ARMOR] == 0.0
    assert S.uf[G, VEILSTALKER, AURA_DAMAGE] == 0.0
    a = float(S.uf[G, VEILSTALKER, ARMOR]) + armor
    assert kernels.physical_multiplier(S.uf, S.ui, G, VEILSTALKER) == pytest.approx(
        1 - 0.06 * a / (1 + 0.06 * abs(a)), rel=1e-5)
    run(game, 1, action(WARBANNER, A_ABILITY0 + slot))
    assert S.hi[G, WARBANNER, INVALID_ACTIONS] == 1, "a passive aura was cast"
    no_regen(game, WARBANNER)
    S.uf[G, WARBANNER, HP] = 0.0
    run(game, 3)
    assert S.ui[G, WARBANNER, ALIVE] == 0
    assert S.uf[G, VEILSTALKER, AURA_ARMOR] == 0.0, "the aura outlived its owner"



# ---------------------------------------------------------------- global
def test_a_global_spell_hits_every_enemy_hero_wherever_it_is():
    """``global_cast``: the effects land on every living enemy hero of the map, in range or not, seen or not."""
    game = arena(STARFALL, FROSTWELL, HIVECALLER, VEILSTALKER)
    S = game.state
    place(game, HIVECALLER, 3000.0, -3000.0)  # far out of any range
    place(game, VEILSTALKER, -2500.0, 2500.0)
    place(game, FROSTWELL, 200.0)
    disarm(game, STARFALL, FROSTWELL, HIVECALLER, VEILSTALKER)
    no_regen(game, HIVECALLER, VEILSTALKER, FROSTWELL)
    hp = {h: float(S.uf[G, h, HP]) for h in (HIVECALLER, VEILSTALKER, FROSTWELL)}
    ab = cast(game, STARFALL, "Falling Heavens", 2)
    dealt = at_level(ab.damage, ab.damage_per_level, 2) * (1 - MAGIC_RESISTANCE)
    assert hp[HIVECALLER] - S.uf[G, HIVECALLER, HP] == pytest.approx(dealt, rel=1e-4)
    assert hp[VEILSTALKER] - S.uf[G, VEILSTALKER, HP] == pytest.approx(dealt, rel=1e-4)
    assert S.uf[G, FROSTWELL, HP] == pytest.approx(hp[FROSTWELL]), "a global damage spell hit an ally"
