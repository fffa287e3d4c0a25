"""Rules of abilities: one test per target kind and per effect, each a real ability of a real hero.

Each test casts an ability at a set level on hand-placed units around the arena (``rules_arena``) and
checks its numbers against the patch's ability table (the README's generated ability table), computed by
hand: value = base + per-level x (level - 1); damage over time grows 50% per level; magical damage is cut by
the target's 25% magic resistance, physical damage by armor (Dota's 1 - 0.06 a / (1 + 0.06 |a|)), pure
damage by nothing. ``cast`` checks on every cast that the mana is spent and the cooldown set.
"""

from __future__ import annotations

import math

import pytest

from rules_arena import (
    G, MAGIC_RESISTANCE, ability, action, armor_factor, at_level, cast, disarm, freeze, isolate, lost, magical,
    new_game, place, run, see, spawn_creep, steps_for, steps_refused, target,
)
from fivestack.game.layout import (
    A_ABILITY0, A_ATTACK, A_MOVE, ABILITY_CD, ABILITY_LEVEL, BUFF, DIRE, DOT, FRAMES_PER_SECOND,
    FRAMES_PER_STEP, HP, HP_MAX, INVALID_ACTIONS, MAGIC_RES, SILENCE, SLOW, SLOW_FRAC, STEP_SECONDS,
    STUN, X, Y,
)
from fivestack.game.patch import HEROES

# The default lineups: hero i of each team is the patch's hero i.
BULWARK, VESPER, CINDER, GROVE, TEMPEST = 0, 1, 2, 3, 4
D_BULWARK, D_VESPER, D_CINDER = 5, 6, 7
HERO_NAME = {h: HEROES[h % 5].name for h in range(10)}


def moved_in_one_step(game, h: int) -> float:
    """Distance hero ``h`` walks in one step of a move order along the river."""
    S = game.state
    x, y = float(S.uf[G, h, X]), float(S.uf[G, h, Y])
    run(game, 1, action(h, A_MOVE, offset=(2, 6)))
    return math.hypot(float(S.uf[G, h, X]) - x, float(S.uf[G, h, Y]) - y)


# ---------------------------------------------------------------------------------------------- unit target
def test_flame_lance_is_a_magical_projectile_that_lands_after_distance_over_speed():
    """Unit target, projectile: Flame Lance level 3 deals 90 + 2 x 50 = 190 magical (142.5 through 25%
    magic resistance) when its 1000/s projectile lands, 650 / 1000 = 0.65 s after the cast."""
    game = new_game()
    isolate(game, CINDER, D_BULWARK)
    place(game, CINDER, 0.0)
    place(game, D_BULWARK, 650.0)
    disarm(game, CINDER)
    freeze(game, D_BULWARK)
    before = target(game, D_BULWARK)
    ab = cast(game, CINDER, "Flame Lance", 3, D_BULWARK)
    assert lost(game, D_BULWARK, before) == 0.0
    steps = 0
    while lost(game, D_BULWARK, before) == 0.0 and steps < 30:
        run(game, 1)
        steps += 1
    assert steps * STEP_SECONDS == pytest.approx(650.0 / ab.projectile_speed, abs=STEP_SECONDS)
    assert lost(game, D_BULWARK, before) == pytest.approx(magical(at_level(ab.damage, ab.damage_per_level, 3)))
    assert lost(game, D_BULWARK, before) == pytest.approx(142.5)


def test_shield_bash_deals_physical_damage_through_armor_and_stuns():
    """Unit target, physical, stun: Shield Bash level 2 deals 60 + 35 = 95 physical (x 1 / 1.3 through
    armor 5) and stuns 1.4 s: the victim's orders are refused for the 11 steps (4 frames each) that begin
    within 42 frames of the bash."""
    game = new_game()
    isolate(game, BULWARK, D_BULWARK)
    place(game, BULWARK, 0.0)
    place(game, D_BULWARK, 180.0)  # in melee reach: neither walks
    disarm(game, BULWARK, D_BULWARK)
    before = target(game, D_BULWARK, armor=5.0)
    ab = cast(game, BULWARK, "Shield Bash", 2, D_BULWARK)
    assert lost(game, D_BULWARK, before) == pytest.approx(95.0 * armor_factor(5.0))
    assert game.state.ui[G, D_BULWARK, STUN] == round(ab.stun * FRAMES_PER_SECOND)
    assert steps_refused(game, D_BULWARK) == math.ceil(ab.stun * FRAMES_PER_SECOND / FRAMES_PER_STEP) == 11


def test_final_verdict_pure_damage_ignores_armor_and_magic_resistance():
    """Unit target, pure: Final Verdict (ultimate) level 2 deals 250 + 125 = 375 whatever the armor (10)
    and magic resistance (25%)."""
    game = new_game()
    isolate(game, VESPER, D_BULWARK)
    place(game, VESPER, 0.0)
    place(game, D_BULWARK, 250.0)
    disarm(game, VESPER)
    freeze(game, D_BULWARK)
    before = target(game, D_BULWARK, armor=10.0)
    assert game.state.uf[G, D_BULWARK, MAGIC_RES] == pytest.approx(MAGIC_RESISTANCE)
    cast(game, VESPER, "Final Verdict", 2, D_BULWARK)
    assert lost(game, D_BULWARK, before) == pytest.approx(375.0)


def test_mend_heals_one_ally():
    """Unit target on an ally, heal: Mend level 2 heals 120 + 60 = 180."""
    game = new_game()
    isolate(game, GROVE, BULWARK)
    place(game, GROVE, 0.0)
    place(game, BULWARK, 500.0)
    freeze(game, BULWARK)
    before = target(game, BULWARK, hp=300.0)
    cast(game, GROVE, "Mend", 2, BULWARK)
    assert -lost(game, BULWARK, before) == pytest.approx(180.0)


# ---------------------------------------------------------------------------------------------- point target
def test_lunge_deals_physical_damage_in_an_area_at_a_point():
    """Point target, physical area: Lunge level 3 lands 600 ahead (offset 4 cells of 600 / 4) and deals
    50 + 2 x 40 = 130 physical to enemies within 250 of the point: one 200 from it is hit, one 300 from it
    and an ally on it are not."""
    game = new_game()
    isolate(game, VESPER, CINDER, D_BULWARK, D_VESPER)
    place(game, VESPER, 0.0)
    place(game, CINDER, 600.0)  # an ally on the point
    place(game, D_BULWARK, 800.0)  # 200 from the point
    place(game, D_VESPER, 600.0, 300.0)  # 300 from the point
    disarm(game, VESPER)
    freeze(game, CINDER, D_BULWARK, D_VESPER)
    hit = target(game, D_BULWARK, armor=5.0)
    missed = target(game, D_VESPER, armor=5.0)
    ally = target(game, CINDER)
    cast(game, VESPER, "Lunge", 3, offset=(8, 4))
    assert lost(game, D_BULWARK, hit) == pytest.approx(130.0 * armor_factor(5.0))
    assert lost(game, D_VESPER, missed) == 0.0
    assert lost(game, CINDER, ally) == 0.0


def ember_field(game):
    """Cinder Oracle casts Ember Field level 2 on the point 600 ahead (offset 3 cells of 800 / 4); an enemy
    stands 100 from the point, another 400 from it. Returns both enemies' health before."""
    isolate(game, CINDER, D_BULWARK, D_VESPER)
    place(game, CINDER, 0.0)
    place(game, D_BULWARK, 700.0)
    place(game, D_VESPER, 600.0, 400.0)
    disarm(game, CINDER)
    freeze(game, D_BULWARK, D_VESPER)
    inside, outside = target(game, D_BULWARK), target(game, D_VESPER)
    cast(game, CINDER, "Ember Field", 2, offset=(7, 4))
    return inside, outside


def test_ember_field_burns_for_5_seconds_growing_50_percent_per_level():
    """Point target, damage over time: Ember Field level 2 burns enemies within 300 of the point for
    30 x 1.5 = 45 magical damage per second (33.75 through magic resistance) for 5 s: 168.75 in all."""
    game = new_game()
    inside, outside = ember_field(game)
    dps = magical(30.0 * 1.5)
    run(game, 19)  # 76 frames
    assert lost(game, D_BULWARK, inside) == pytest.approx(dps * 76 / FRAMES_PER_SECOND, rel=1e-4)
    run(game, steps_for(5.0) - 19 + 1)
    assert lost(game, D_BULWARK, inside) == pytest.approx(dps * 5.0, rel=1e-4)
    run(game, steps_for(2.0))
    assert lost(game, D_BULWARK, inside) == pytest.approx(dps * 5.0, rel=1e-4)
    assert lost(game, D_VESPER, outside) == 0.0


def test_ember_field_burns_an_enemy_that_walks_onto_the_ground_after_the_cast():
    """Point target, burning ground: an enemy that enters the area 1 s after the cast burns for the rest."""
    game = new_game()
    _, outside = ember_field(game)
    run(game, steps_for(1.0))
    place(game, D_VESPER, 600.0)  # onto the point
    run(game, steps_for(5.0))
    assert lost(game, D_VESPER, outside) > 0.0


def test_ember_field_stops_burning_an_enemy_that_walks_off_the_ground():
    """Point target, burning ground: an enemy inside at the cast that leaves the area 1 s later burns no more
    (its damage-over-time status ends as it leaves)."""
    game = new_game()
    inside, _ = ember_field(game)
    run(game, steps_for(1.0))
    place(game, D_BULWARK, 600.0, 400.0)  # 400 from the point
    run(game, 1)
    burnt = lost(game, D_BULWARK, inside)
    assert 0.0 < burnt < magical(30.0 * 1.5) * 1.5
    assert game.state.ui[G, D_BULWARK, DOT] == 0
    run(game, steps_for(5.0))
    assert lost(game, D_BULWARK, inside) == burnt


# ---------------------------------------------------------------------------------------------- unit + offset
def test_scatterflare_blasts_at_an_offset_from_a_unit_with_magical_damage_and_a_slow():
    """Unit + offset: Scatterflare level 2 blasts at the target + 2 cells of 100 and deals 70 + 40 = 110
    magical (82.5) and a 25% slow for 2 s to enemies within 275 of the blast: the target (200 from it) and
    an enemy on it are hit, one 300 beyond it is not."""
    game = new_game()
    isolate(game, CINDER, D_BULWARK, D_VESPER, D_CINDER)
    place(game, CINDER, 0.0)
    place(game, D_BULWARK, 600.0)  # the target unit; the blast is at 800
    place(game, D_CINDER, 800.0)
    place(game, D_VESPER, 1100.0)
    disarm(game, CINDER)
    freeze(game, D_BULWARK, D_VESPER, D_CINDER)
    before = {u: target(game, u) for u in (D_BULWARK, D_CINDER, D_VESPER)}
    ab = cast(game, CINDER, "Scatterflare", 2, D_BULWARK, offset=(6, 4))
    S = game.state
    for u, hit in ((D_BULWARK, True), (D_CINDER, True), (D_VESPER, False)):
        assert lost(game, u, before[u]) == pytest.approx(magical(110.0) if hit else 0.0)
        assert S.ui[G, u, SLOW] == (round(ab.slow_time * FRAMES_PER_SECOND) if hit else 0)
    assert S.uf[G, D_BULWARK, SLOW_FRAC] == pytest.approx(0.25)


# ---------------------------------------------------------------------------------------------- no target
def test_earthshaker_stomp_hits_and_slows_enemies_around_the_caster():
    """No target, area around the caster, magical, slow: Earthshaker Stomp level 2 deals 80 + 40 = 120
    magical (90) and slows by 40% for 3 s the enemies within 350: one at 300 walks at 60% of its speed, one
    at 400 and an ally at 200 are untouched."""
    game = new_game()
    isolate(game, BULWARK, VESPER, D_BULWARK, D_VESPER)
    place(game, BULWARK, 0.0)
    place(game, VESPER, 0.0, -200.0)
    place(game, D_BULWARK, 300.0)
    place(game, D_VESPER, 400.0)
    disarm(game, BULWARK)
    freeze(game, VESPER, D_BULWARK, D_VESPER)
    before = {u: target(game, u) for u in (VESPER, D_BULWARK, D_VESPER)}
    ab = cast(game, BULWARK, "Earthshaker Stomp", 2)
    assert lost(game, D_BULWARK, before[D_BULWARK]) == pytest.approx(magical(120.0))
    assert lost(game, D_VESPER, before[D_VESPER]) == 0.0
    assert lost(game, VESPER, before[VESPER]) == 0.0
    S = game.state
    assert S.ui[G, D_BULWARK, SLOW] == round(ab.slow_time * FRAMES_PER_SECOND)
    S.ui[G, D_BULWARK, STUN] = S.ui[G, D_VESPER, STUN] = 0  # let both walk
    assert moved_in_one_step(game, D_BULWARK) == pytest.approx(HEROES[0].speed * 0.6 * STEP_SECONDS, rel=1e-4)
    assert moved_in_one_step(game, D_VESPER) == pytest.approx(HEROES[1].speed * STEP_SECONDS, rel=1e-4)


def test_static_coil_silences_enemies_around_the_caster():
    """No target, silence: Static Coil level 1 deals 50 magical (37.5) around the caster (radius 400) and
    silences for 2 s: the enemy's Flame Lance is refused for the 15 steps that begin within 60 frames."""
    game = new_game()
    isolate(game, TEMPEST, D_CINDER)
    place(game, TEMPEST, 0.0)
    place(game, D_CINDER, 300.0)  # within both heroes' attack reach: neither walks
    disarm(game, TEMPEST, D_CINDER)
    before = target(game, D_CINDER)
    S = game.state
    slot, _ = ability(HERO_NAME[D_CINDER], "Flame Lance")
    S.hi[G, D_CINDER, ABILITY_LEVEL + slot] = 1
    ab = cast(game, TEMPEST, "Static Coil", 1)
    assert lost(game, D_CINDER, before) == pytest.approx(magical(50.0))
    assert S.ui[G, D_CINDER, SILENCE] == round(ab.silence * FRAMES_PER_SECOND)
    refused = 0
    while S.hi[G, D_CINDER, ABILITY_CD + slot] == 0 and refused < 100:
        invalid = int(S.hi[G, D_CINDER, INVALID_ACTIONS])
        run(game, 1, action(D_CINDER, A_ABILITY0 + slot, TEMPEST))
        refused += int(S.hi[G, D_CINDER, INVALID_ACTIONS]) - invalid
    assert refused == math.ceil(ab.silence * FRAMES_PER_SECOND / FRAMES_PER_STEP) == 15


def test_rally_cry_gives_allies_around_armor():
    """No target on allies, armor buff: Rally Cry gives allies within 900 (the caster included) +6 armor for
    8 s: an enemy's 60-damage Shield Bash then deals 60 x (1 - 0.36 / 1.36) to an armorless ally at 800; an
    ally at 1000 and an enemy are not buffed."""
    game = new_game()
    isolate(game, BULWARK, VESPER, CINDER, D_BULWARK)
    place(game, BULWARK, 0.0)
    place(game, VESPER, 800.0)
    place(game, CINDER, -1000.0)
    place(game, D_BULWARK, 950.0)  # in melee reach of the ally at 800
    disarm(game, BULWARK, D_BULWARK)
    freeze(game, VESPER, CINDER)
    ab = cast(game, BULWARK, "Rally Cry", 1)
    S = game.state
    buff = round(ab.buff_time * FRAMES_PER_SECOND)
    assert [S.ui[G, u, BUFF] for u in (BULWARK, VESPER, CINDER, D_BULWARK)] == [buff, buff, 0, 0]
    before = target(game, VESPER, armor=0.0)
    cast(game, D_BULWARK, "Shield Bash", 1, VESPER)
    assert lost(game, VESPER, before) == pytest.approx(60.0 * armor_factor(0.0 + 6.0))


# ---------------------------------------------------------------------------------------------- self
def test_windstep_makes_the_caster_hit_harder_and_move_faster():
    """Self, damage and speed buff: Windstep gives +20 attack damage and +30% move speed for 5 s."""
    game = new_game()
    isolate(game, VESPER)
    place(game, VESPER, 0.0)
    ab = cast(game, VESPER, "Windstep", 1)
    S = game.state
    assert S.ui[G, VESPER, BUFF] == round(ab.buff_time * FRAMES_PER_SECOND)
    creep = spawn_creep(game, DIRE, dx=100.0)
    creep_hp = target(game, creep, armor=2.0)
    see(game)
    run(game, 1, action(VESPER, A_ATTACK, creep))
    vesper = HEROES[1]
    attack_damage = vesper.damage + vesper.attributes[vesper.primary]  # README: base + the primary attribute
    assert lost(game, creep, creep_hp) == pytest.approx((attack_damage + 20.0) * armor_factor(2.0))
    assert moved_in_one_step(game, VESPER) == pytest.approx(vesper.speed * 1.3 * STEP_SECONDS, rel=1e-4)


def test_unbreakable_heals_the_caster_and_hardens_it():
    """Self, heal and armor (ultimate): Unbreakable level 2 heals 350 + 150 = 500 and gives +12 armor for
    10 s: an enemy's Shield Bash (60 physical) then goes through armor a + 12."""
    game = new_game()
    isolate(game, BULWARK, D_BULWARK)
    place(game, BULWARK, 0.0)
    place(game, D_BULWARK, 150.0)
    disarm(game, BULWARK, D_BULWARK)
    before = target(game, BULWARK, armor=3.0, hp=100.0)
    assert game.state.uf[G, BULWARK, HP_MAX] >= 600.0
    ab = cast(game, BULWARK, "Unbreakable", 2)
    assert -lost(game, BULWARK, before) == pytest.approx(500.0)
    assert game.state.ui[G, BULWARK, BUFF] == round(ab.buff_time * FRAMES_PER_SECOND)
    healed = float(game.state.uf[G, BULWARK, HP])
    cast(game, D_BULWARK, "Shield Bash", 1, BULWARK)
    assert lost(game, BULWARK, healed) == pytest.approx(60.0 * armor_factor(3.0 + 12.0))
