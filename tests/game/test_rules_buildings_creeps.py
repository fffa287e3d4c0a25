"""Rules of buildings and lane creeps, each pinned to a hand-set state: tier protection, tower aggro, super and
mega creeps, creeps' damage to buildings and the glyph.

Each test builds a one-game batch, sets what it needs by name (columns in ``fivestack.game.layout``, building
slots from ``kernels.building_slot``), steps the game with explicit actions and checks the numbers that the
README's *The game* states (Buildings; Creep waves), worked out here by hand rather than read back from the
kernels. Damage "to a building" goes through ``kernels.deal_damage``, the one door every attack, projectile and
spell goes through. A building "falls" by having its health set below zero: the death check at the end of the
next frame then does what a last hit would.
"""

from __future__ import annotations

import pytest

import rules_arena
from rules_arena import action, idle

from fivestack.game import kernels
from fivestack.game.engine import GameBatch
from fivestack.game.layout import (
    ALIVE, ARMOR, A_ATTACK, A_GLYPH, BOUNTY_GOLD, DAMAGE, EV_MEGAS, FRAMES_PER_SECOND, FRAMES_PER_STEP,
    G_BARRACKS_LOST0, G_MEGAS0, HP, HP_MAX, INVALID_ACTIONS, INVISIBLE, K_CREEP_MELEE, K_CREEP_RANGED, K_CREEP_SIEGE,
    KIND, LANE, MAX_UNITS, SLOT_CREEPS, STUN, TARGET, TEAM, WAYPOINT, X, Y,
)
from fivestack.game.patch import CREEPS

SEED = 11
RADIANT, DIRE = 0, 1
# local building indices per team (geometry.BUILDINGS): towers tier 1-3 by lane (top, mid, bottom), the two
# tier-4 towers, barracks (melee, ranged) by lane, the ancient, the fountain
T1, T2, T3 = (0, 1, 2), (3, 4, 5), (6, 7, 8)
T4 = (9, 10)
MELEE_BARRACKS, RANGED_BARRACKS = (11, 13, 15), (12, 14, 16)
ANCIENT, FOUNTAIN = 17, 18
TOP, MID, BOTTOM = 0, 1, 2
FIRST_WAVE_FRAME = 1 * FRAMES_PER_SECOND  # the first wave spawns at 0:01


# ---------------------------------------------------------------- hand-set helpers
def new_game(mode: str) -> GameBatch:
    return rules_arena.new_game(mode, SEED)


def building(team: int, local: int) -> int:
    return int(kernels.building_slot(team, local))


def fall(game: GameBatch, team: int, *locals_: int) -> None:
    """These buildings of ``team`` fall in the next step (their health set below zero)."""
    for local in locals_:
        game.state.uf[0, building(team, local), HP] = -1.0
    idle(game, 1)
    for local in locals_:
        assert game.state.ui[0, building(team, local), ALIVE] == 0


def armor_share(armor: float) -> float:
    """The share of physical damage that ``armor`` lets through (Dota's formula 1 - 0.06 a / (1 + 0.06 |a|))."""
    return 1.0 - 0.06 * armor / (1.0 + 0.06 * abs(armor))


def hit(game: GameBatch, unit: int, amount: float = 100.0) -> float:
    """Physical damage from no one to ``unit``; the health it lost."""
    before = float(game.state.uf[0, unit, HP])
    kernels.deal_damage(game.state, 0, -1, unit, amount, 0)
    return before - float(game.state.uf[0, unit, HP])


def clear_creeps(game: GameBatch) -> None:
    game.state.ui[0, SLOT_CREEPS:, ALIVE] = 0


def place_creep(game: GameBatch, slot: int, team: int, kind: int, row: str, x: float, y: float) -> None:
    """A lane creep of a patch row laid out in a creep slot (the same call a wave's spawn makes)."""
    row_index = list(CREEPS).index(row)
    kernels.set_unit(game.state, game.data, 0, slot, team, kind, row_index, x, y, 1.0)
    game.state.ui[0, slot, LANE] = MID
    game.state.ui[0, slot, WAYPOINT] = 1 if team == RADIANT else game.data.lanes.shape[1] - 2


def put(game: GameBatch, unit: int, x: float, y: float) -> None:
    game.state.uf[0, unit, X], game.state.uf[0, unit, Y] = x, y


# ---------------------------------------------------------------- tier protection
# (building, buildings whose fall must NOT lift its protection, the fall that lifts it)
PROTECTION_CHAIN = {
    "tier 2 after its lane's tier 1": (T2[TOP], (T1[MID], T1[BOTTOM]), (T1[TOP],)),
    "tier 3 after its lane's tier 2": (T3[MID], (T2[TOP], T2[BOTTOM]), (T2[MID],)),
    "melee barracks after its lane's tier 3": (MELEE_BARRACKS[BOTTOM], (T3[TOP], T3[MID]), (T3[BOTTOM],)),
    "ranged barracks after its lane's tier 3": (RANGED_BARRACKS[TOP], (T3[MID], T3[BOTTOM]), (T3[TOP],)),
    "tier 4 after any tier 3 (mid)": (T4[0], T1 + T2, (T3[MID],)),
    "tier 4 after any tier 3 (bottom)": (T4[1], T1 + T2, (T3[BOTTOM],)),
    "ancient after both tier 4s": (ANCIENT, T3 + (T4[0],), (T4[1],)),
}


@pytest.mark.parametrize("team", [RADIANT, DIRE], ids=["radiant", "dire"])
@pytest.mark.parametrize("case", list(PROTECTION_CHAIN))
def test_a_building_takes_no_damage_until_the_building_before_it_falls(case, team):
    """Tier 2 after the lane's tier 1, tier 3 after tier 2, barracks after the lane's tier 3, tier 4 after any
    tier 3, the ancient after both tier 4s: until then damage does nothing; after, it goes through armor."""
    protected, unrelated, protectors = PROTECTION_CHAIN[case]
    game = new_game("5v5")
    unit = building(team, protected)
    assert hit(game, unit) == 0.0
    fall(game, team, *unrelated)
    assert hit(game, unit) == 0.0, "protection lifted by a building that does not protect it"
    fall(game, team, *protectors)
    armor = game.state.uf[0, unit, ARMOR]
    assert hit(game, unit) == pytest.approx(100.0 * armor_share(armor), rel=1e-5)


@pytest.mark.parametrize("team", [RADIANT, DIRE], ids=["radiant", "dire"])
def test_tier_1_towers_are_never_protected_and_the_fountain_cannot_be_damaged(team):
    """Tier-1 towers take damage from the start (armor 12 lets 58.1% through); the fountain takes none."""
    game = new_game("5v5")
    for local in T1:
        assert hit(game, building(team, local)) == pytest.approx(100.0 * armor_share(12.0), rel=1e-5)
    fall(game, team, *T1, *T2, *T3, *T4, *MELEE_BARRACKS, *RANGED_BARRACKS)
    assert hit(game, building(team, FOUNTAIN)) == 0.0


def test_a_hero_cannot_attack_a_protected_tower_until_its_tier_1_falls():
    """A Dire hero's attack order on Radiant's tier-2 mid tower is refused and does nothing while the tier 1
    stands; once it has fallen, the hero's hits take the tower down by its damage x the armor-14 share."""
    game = new_game("5v5")
    S = game.state
    hero, tower = 5, building(RADIANT, T2[MID])
    put(game, hero, S.uf[0, tower, X] + 100.0, S.uf[0, tower, Y])
    idle(game, 1)  # the team's vision catches up with the move
    game.step(action(hero, A_ATTACK, tower))
    assert S.hi[0, hero, INVALID_ACTIONS] == 1
    idle(game, 10)
    assert S.uf[0, tower, HP] == S.uf[0, tower, HP_MAX]

    fall(game, RADIANT, T1[MID])
    game.step(action(hero, A_ATTACK, tower))
    idle(game, 10)  # more than one attack period of the hero
    assert S.hi[0, hero, INVALID_ACTIONS] == 1
    per_hit = S.uf[0, hero, DAMAGE] * armor_share(14.0)
    hits = (S.uf[0, tower, HP_MAX] - S.uf[0, tower, HP]) / per_hit
    assert hits >= 1 and hits == pytest.approx(round(hits), abs=1e-3)


# ---------------------------------------------------------------- tower aggro
def test_tower_shoots_the_nearest_creep_before_heroes_and_switches_to_a_hero_who_attacks_a_hero():
    """A tower attacks the nearest enemy creep in range even with an enemy hero nearer, and switches to an
    enemy hero as soon as it hits a friendly hero in the tower's range."""
    game = new_game("1v1")
    S = game.state
    tower = building(RADIANT, T1[MID])
    tx, ty = S.uf[0, tower, X], S.uf[0, tower, Y]
    near_creep, far_creep = SLOT_CREEPS, SLOT_CREEPS + 1
    place_creep(game, near_creep, DIRE, K_CREEP_MELEE, "melee", tx, ty + 450.0)
    place_creep(game, far_creep, DIRE, K_CREEP_MELEE, "melee", tx, ty - 600.0)
    attacker, victim = 5, 0
    put(game, attacker, tx + 250.0, ty)  # nearer the tower than either creep
    put(game, victim, tx + 250.0, ty + 100.0)  # within the attacker's melee reach
    for unit in (near_creep, far_creep, attacker, victim):
        S.ui[0, unit, STUN] = 10_000  # nobody acts on their own
    idle(game, 8)  # about a second: one shot at least has landed
    assert S.ui[0, tower, TARGET] == near_creep
    assert S.uf[0, near_creep, HP] < S.uf[0, near_creep, HP_MAX]
    assert S.uf[0, far_creep, HP] == S.uf[0, far_creep, HP_MAX]
    assert S.uf[0, attacker, HP] == S.uf[0, attacker, HP_MAX]

    S.ui[0, attacker, STUN] = 0
    game.step(action(attacker, A_ATTACK, victim))
    assert S.uf[0, victim, HP] < S.uf[0, victim, HP_MAX], "the attacker did not hit"
    idle(game, 1)
    assert S.ui[0, tower, TARGET] == attacker
    idle(game, 12)  # the tower's next shot (0.9 s at most) and its flight
    assert S.uf[0, attacker, HP] < S.uf[0, attacker, HP_MAX], "the tower did not shoot the attacker"


def test_a_tower_neither_acquires_nor_keeps_shooting_an_invisible_hero():
    """An enemy hero beside a tower is not shot while invisible (the tower's own acquisition, not only a
    creep's: ``tests/game/test_rules_mechanics.py``), is shot once its invisibility runs out, and a tower
    shooting a hero drops it the moment it turns invisible."""
    game = new_game("1v1")
    S = game.state
    clear_creeps(game)
    tower = building(RADIANT, T1[MID])
    tx, ty = S.uf[0, tower, X], S.uf[0, tower, Y]
    hero = 5
    put(game, hero, tx + 250.0, ty)
    S.ui[0, hero, STUN] = 10_000  # it stands there
    hidden_steps = 12
    S.ui[0, hero, INVISIBLE] = hidden_steps * FRAMES_PER_STEP
    idle(game, hidden_steps - 1)
    assert S.ui[0, hero, INVISIBLE] > 0
    assert S.ui[0, tower, TARGET] == -1 and S.uf[0, hero, HP] == S.uf[0, hero, HP_MAX]
    idle(game, 10)  # visible again: the tower's first shot (0.9 s at most) and its flight
    assert S.ui[0, hero, INVISIBLE] == 0 and S.ui[0, tower, TARGET] == hero
    assert S.uf[0, hero, HP] < S.uf[0, hero, HP_MAX], "the tower did not shoot the hero once it was seen"

    S.ui[0, hero, INVISIBLE] = 100 * FRAMES_PER_STEP  # invisible again, mid-fight
    S.uf[0, hero, HP] = S.uf[0, hero, HP_MAX]
    idle(game, 1)
    assert S.ui[0, tower, TARGET] == -1
    idle(game, 10)  # a shot already in flight may land; no new one leaves
    one_shot = S.uf[0, tower, DAMAGE] * armor_share(float(S.uf[0, hero, ARMOR]))
    assert S.ui[0, tower, TARGET] == -1
    assert S.uf[0, hero, HP_MAX] - S.uf[0, hero, HP] <= one_shot + 1e-3, "the tower kept shooting the hero"


# ---------------------------------------------------------------- super and mega creeps
def lane_creeps(game: GameBatch):
    """(slot, team, lane, kind) of every living lane creep."""
    S = game.state
    return [(u, S.ui[0, u, TEAM], S.ui[0, u, LANE], S.ui[0, u, KIND]) for u in range(SLOT_CREEPS, MAX_UNITS)
            if S.ui[0, u, ALIVE]]


def assert_stats_of_row(game: GameBatch, unit: int, row: str) -> None:
    """The creep has a patch row's health, damage, armor and bounty (first waves: no upgrade yet)."""
    creep = CREEPS[row]
    S = game.state
    assert (S.uf[0, unit, HP_MAX], S.uf[0, unit, DAMAGE], S.uf[0, unit, ARMOR], S.uf[0, unit, BOUNTY_GOLD]) == \
        (creep.hp, creep.damage, creep.armor, creep.gold), f"unit {unit} is not a {row} creep"


def first_wave(game: GameBatch) -> list:
    idle(game, (FIRST_WAVE_FRAME - int(game.frame[0])) // FRAMES_PER_STEP + 1)
    creeps = lane_creeps(game)
    assert len(creeps) == 2 * 3 * 4  # both teams, three lanes, 3 melee + 1 ranged
    return creeps


def test_losing_a_barracks_turns_the_enemys_creeps_of_that_lane_and_type_into_super_creeps():
    """Dire's mid melee barracks falls: Radiant's next mid melee creeps have the patch's super-melee stats;
    every other creep (Radiant's mid ranged, other lanes, all of Dire's) is a normal one."""
    game = new_game("5v5")
    fall(game, DIRE, MELEE_BARRACKS[MID])
    assert game.state.gi[0, G_BARRACKS_LOST0 + DIRE] == 1
    super_ones = 0
    for unit, team, lane, kind in first_wave(game):
        normal = "melee" if kind == K_CREEP_MELEE else "ranged"
        if team == RADIANT and lane == MID and kind == K_CREEP_MELEE:
            assert_stats_of_row(game, unit, "super_melee")
            super_ones += 1
        else:
            assert_stats_of_row(game, unit, normal)
    assert super_ones == 3


def test_losing_all_six_barracks_gives_megas_and_makes_every_enemy_lane_creep_super():
    """The sixth barracks to fall (not the fifth) gives the losing team the megas event and the enemy the
    megas state; the enemy's next melee and ranged creeps are super in every lane."""
    game = new_game("5v5")
    S = game.state
    all_barracks = MELEE_BARRACKS + RANGED_BARRACKS
    fall(game, DIRE, *all_barracks[:5])
    assert S.gi[0, G_MEGAS0 + RADIANT] == 0 and game.events[0, :, EV_MEGAS].sum() == 0.0
    fall(game, DIRE, all_barracks[5])
    assert S.gi[0, G_BARRACKS_LOST0 + DIRE] == 6
    assert S.gi[0, G_MEGAS0 + RADIANT] == 1 and S.gi[0, G_MEGAS0 + DIRE] == 0
    assert list(game.events[0, :, EV_MEGAS]) == [0.0] * 5 + [1.0] * 5
    for unit, team, lane, kind in first_wave(game):
        row = "melee" if kind == K_CREEP_MELEE else "ranged"
        assert_stats_of_row(game, unit, f"super_{row}" if team == RADIANT else row)


# ---------------------------------------------------------------- creeps' damage to buildings
KINDS = {"melee": K_CREEP_MELEE, "ranged": K_CREEP_RANGED, "siege": K_CREEP_SIEGE}
SHARE_ON_BUILDINGS = {"melee": 0.25, "ranged": 0.25, "siege": 1.0}  # a quarter; siege creeps full damage


def first_blow(game: GameBatch, target: int) -> float:
    S = game.state
    for _ in range(30):
        idle(game, 1)
        if S.uf[0, target, HP] < S.uf[0, target, HP_MAX]:
            return float(S.uf[0, target, HP_MAX] - S.uf[0, target, HP])
    raise AssertionError("the creep never hit its target")


@pytest.mark.parametrize("row", list(KINDS))
def test_lane_creeps_deal_a_quarter_of_their_damage_to_buildings_and_siege_creeps_all_of_it(row):
    """A Radiant creep's first blow on Dire's tier-1 mid tower (armor 12) is its damage x the armor share x
    0.25 (siege: x 1.0); the same creep's blow on a Dire creep given the same armor is damage x the share."""
    expected_through_armor = CREEPS[row].damage * armor_share(12.0)

    game = new_game("1v1")
    clear_creeps(game)
    tower = building(DIRE, T1[MID])
    assert game.state.uf[0, tower, ARMOR] == 12.0
    tx, ty = game.state.uf[0, tower, X], game.state.uf[0, tower, Y]
    place_creep(game, SLOT_CREEPS, RADIANT, KINDS[row], row, tx - 80.0, ty - 80.0)
    assert first_blow(game, tower) == pytest.approx(expected_through_armor * SHARE_ON_BUILDINGS[row], rel=1e-4)

    game = new_game("1v1")
    clear_creeps(game)
    target = SLOT_CREEPS + 1
    place_creep(game, target, DIRE, K_CREEP_MELEE, "melee", 8000.0, 8000.0)
    game.state.ui[0, target, STUN] = 10_000
    game.state.uf[0, target, ARMOR] = 12.0
    place_creep(game, SLOT_CREEPS, RADIANT, KINDS[row], row, 8000.0 - 80.0, 8000.0 - 80.0)
    assert first_blow(game, target) == pytest.approx(expected_through_armor, rel=1e-4)


# ---------------------------------------------------------------- glyph
def glyph_available(game: GameBatch, hero: int) -> bool:
    return bool(kernels.primary_available(game.state, game.data, 0, hero, A_GLYPH))


def test_glyph_makes_the_teams_towers_invulnerable_for_5_seconds_with_a_300_second_cooldown():
    """Radiant's glyph: its towers take no damage for 5 s (150 frames), Dire's still do; Radiant's glyph is
    then masked for 300 s (9000 frames), Dire's is not."""
    game = new_game("1v1")
    S = game.state
    radiant_tower, dire_tower = building(RADIANT, T1[MID]), building(DIRE, T1[MID])
    assert glyph_available(game, 0)
    glyph_frame = int(game.frame[0])  # the glyph acts before the next frame
    game.step(action(0, A_GLYPH))
    assert hit(game, radiant_tower) == 0.0
    assert hit(game, dire_tower) > 0.0
    assert not glyph_available(game, 0) and glyph_available(game, 5)

    idle(game, (glyph_frame + 5 * FRAMES_PER_SECOND - 2 - int(game.frame[0])) // FRAMES_PER_STEP)
    assert int(game.frame[0]) == glyph_frame + 148
    assert hit(game, radiant_tower) == 0.0, "vulnerable before 5 s"
    idle(game, 1)
    assert hit(game, radiant_tower) == pytest.approx(100.0 * armor_share(12.0), rel=1e-5)

    idle(game, (glyph_frame + 300 * FRAMES_PER_SECOND - 4 - int(game.frame[0])) // FRAMES_PER_STEP)
    assert int(game.frame[0]) == glyph_frame + 8996
    assert not glyph_available(game, 0), "glyph ready before 300 s"
    idle(game, 1)
    assert glyph_available(game, 0)
    game.step(action(0, A_GLYPH))
    assert hit(game, radiant_tower) == 0.0
