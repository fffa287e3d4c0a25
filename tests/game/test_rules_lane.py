"""The lane as Dota plays it (patch feature ``dota_lane``, patch 1.0; ``game.kernels.aggro``), one hand-set scenario
per rule. Each scenario runs twice, on a game with the feature and on one without (patch 0.1's rule), and checks
both outcomes: the test fails if the new rule is missing, and shows what the old one did instead.

The numbers are ``Rules``' (the patch constants): a busy lane creep re-picks every 1 s, aggro lasts 2.3 s with a
3 s cooldown within 500 of the attacker, call for help reaches 600, a chase out of acquisition range (500 plus half
the attack range: 550 for a melee creep) is given up after 2 s.
"""

from __future__ import annotations

import math

import pytest

from rules_arena import G, NEVER, action, isolate, new_game, place, put, run, see, spawn_creep, steps_for
from fivestack.game import kernels
from fivestack.game.kernels.constants import HULL
from fivestack.game.layout import (
    A_ATTACK, A_STOP, AGGRO_LEFT, ATTACK_RANGE, ATTACK_READY, DEATHS, DEATHS_TO_CREEPS, DEATHS_TO_HEROES,
    DEATHS_TO_TOWERS, HP, HP_MAX, HP_REGEN, LANE, MOVE_SPEED, STUN, TARGET, WAYPOINT, X, Y,
)
from fivestack.game.patch import F_DOTA_LANE, F_MANUAL_ATTACK, PATCHES, Rules

RULES = Rules()
RADIANT, DIRE = 0, 1
HERO, ENEMY, ENEMY2 = 0, 5, 6  # Radiant's and Dire's first heroes (Bulwark, melee), Dire's second
BIG = 1e6  # health that no test's hits use up
RULE_SETS = {"dota_lane": F_DOTA_LANE, "0.1": 0}


def lane_game(features: int, *heroes: int):
    """A 5v5 game playing with feature mask ``features``, every hero but ``heroes`` benched (rules_arena.isolate)."""
    game = new_game("5v5")
    game.reset(0, features=features)
    isolate(game, *heroes)
    return game


def creep(game, team: int, dx: float, dy: float, k: int, rooted: bool = False, frozen: bool = False) -> int:
    """A melee lane creep at ARENA + (dx, dy) with health to spare; it acts unless ``frozen`` and walks unless
    ``rooted``."""
    u = spawn_creep(game, team, "melee", dx, dy, k)
    S = game.state
    S.uf[G, u, HP] = S.uf[G, u, HP_MAX] = BIG
    S.ui[G, u, STUN] = NEVER if frozen else 0
    if rooted:
        S.uf[G, u, MOVE_SPEED] = 0.0
    return u


def freeze(game, *units: int) -> None:
    for u in units:
        game.state.ui[G, u, STUN] = NEVER


def target(game, u: int) -> int:
    return int(game.state.ui[G, u, TARGET])


def test_patch_1_0_holds_the_lane_and_the_turned_view():
    assert PATCHES["1.0"].features == ("team_frame", "dota_lane")
    assert (RULES.creep_repick, RULES.creep_aggro_time, RULES.creep_aggro_cooldown) == (1.0, 2.3, 3.0)
    assert (RULES.creep_aggro_radius, RULES.call_for_help_radius, RULES.creep_leash) == (500.0, 600.0, 2.0)


@pytest.mark.parametrize("rules", RULE_SETS)
def test_a_hero_behind_its_own_creeps_is_dropped_for_the_nearer_creep_within_a_second(rules):
    """A Dire creep that picked our hero (then the nearest) while our creep now stands between them re-picks
    within 1 s: our creep, 100 away, not the hero, 500 away; the hero is never hit. Patch 0.1's creep keeps the
    hero until it dies or is 1,200 away, walks up to it and hits it."""
    game = lane_game(RULE_SETS[rules], HERO)
    place(game, HERO, -400.0)
    freeze(game, HERO)
    ours = creep(game, RADIANT, 0.0, 0.0, 0, frozen=True)
    theirs = creep(game, DIRE, 100.0, 0.0, 1)
    game.state.ui[G, theirs, TARGET] = HERO
    run(game, steps_for(RULES.creep_repick) + 1)
    S = game.state
    if rules == "dota_lane":
        assert target(game, theirs) == ours
        run(game, steps_for(3.0))
        assert S.uf[G, HERO, HP] == S.uf[G, HERO, HP_MAX], "the hero behind its creep was hit"
    else:
        assert target(game, theirs) == HERO
        run(game, steps_for(3.0))
        assert S.uf[G, HERO, HP] < S.uf[G, HERO, HP_MAX]


@pytest.mark.parametrize("rules", RULE_SETS)
def test_an_attack_order_on_a_hero_draws_its_creeps_for_the_aggro_time_then_they_pick_again(rules):
    """Our hero orders an attack on the Dire hero and stops at once: the Dire creep 300 away, busy with our creep
    (which is hitting a Dire creep), turns on our hero at once, keeps it for 2.3 s, then picks again by priority:
    our creep, attacking one of its allies, before our idle hero. A second order within 3 s of the first draws
    nothing; one after 3 s draws again. Patch 0.1's creep never leaves our creep."""
    game = lane_game(RULE_SETS[rules] | F_MANUAL_ATTACK, HERO, ENEMY)  # manual_attack: a stopped hero stays idle
    S = game.state
    place(game, HERO, 0.0)
    place(game, ENEMY, 350.0)
    freeze(game, ENEMY)
    ours = creep(game, RADIANT, 0.0, 400.0, 0, rooted=True)
    bait = creep(game, DIRE, 0.0, 480.0, 1, frozen=True)
    theirs = creep(game, DIRE, 0.0, 300.0, 2)
    S.ui[G, ours, TARGET] = bait
    S.ui[G, theirs, TARGET] = ours
    see(game)

    def order_then_stop():
        run(game, 1, action(HERO, A_ATTACK, ENEMY))
        drawn = target(game, theirs) == HERO
        run(game, 1, action(HERO, A_STOP))
        return drawn

    drawn = order_then_stop()
    if rules != "dota_lane":
        assert not drawn
        run(game, steps_for(4.0))
        assert target(game, theirs) == ours
        return
    assert drawn
    run(game, steps_for(RULES.creep_aggro_time - 0.4))  # 2.3 s from the order, less the two steps and a margin
    assert target(game, theirs) == HERO
    run(game, steps_for(0.4) + 1)
    assert target(game, theirs) == ours, "the drawn creep did not pick again after the aggro time"
    # now ~2.5 s after the first order: the trigger still rests until 3 s
    run(game, 1, action(HERO, A_ATTACK, ENEMY))
    assert S.ui[G, theirs, AGGRO_LEFT] == 0, "a second order within the 3 s cooldown drew the creep"
    run(game, 1, action(HERO, A_STOP))
    run(game, steps_for(0.6))
    assert order_then_stop()
    assert S.ui[G, theirs, AGGRO_LEFT] > 0


@pytest.mark.parametrize("rules", RULE_SETS)
def test_a_target_out_of_acquisition_range_for_two_seconds_is_given_up(rules):
    """A rooted Dire creep whose target, our hero, stands 700 away (beyond its 550 acquisition range, within the
    old 1,200 chase limit) keeps it for 2 s and drops it by 2.2 s; patch 0.1's keeps it."""
    game = lane_game(RULE_SETS[rules], HERO)
    place(game, HERO, -700.0)
    freeze(game, HERO)
    theirs = creep(game, DIRE, 0.0, 0.0, 0, rooted=True)
    game.state.ui[G, theirs, TARGET] = HERO
    run(game, steps_for(RULES.creep_leash - 0.2))
    assert target(game, theirs) == HERO
    run(game, steps_for(0.4))
    assert target(game, theirs) == (-1 if rules == "dota_lane" else HERO)


@pytest.mark.parametrize("rules", RULE_SETS)
def test_an_idle_creep_answers_a_call_for_help_from_an_ally_within_600(rules):
    """Our hero hits a Dire creep; an idle Dire creep 559 from that creep (within the 600 call-for-help range) and
    585 from our hero (beyond its own 550 acquisition range) turns on our hero. Patch 0.1's stays idle."""
    game = lane_game(RULE_SETS[rules], HERO)
    place(game, HERO, 0.0)
    victim = creep(game, DIRE, 100.0, 0.0, 0, frozen=True)
    helper = creep(game, DIRE, 200.0, 550.0, 1, rooted=True)
    assert math.dist((100, 0), (200, 550)) <= RULES.call_for_help_radius < math.dist((0, 0), (200, 550)) + 50
    S = game.state
    S.uf[G, HERO, ATTACK_READY] = NEVER  # no hit before the order
    see(game)
    run(game, 2)
    assert target(game, helper) == -1, "the creep picked the hero by itself: the scene is wrong"
    S.uf[G, HERO, ATTACK_READY] = 0.0
    run(game, 1, action(HERO, A_ATTACK, victim))
    assert S.uf[G, victim, HP] < S.uf[G, victim, HP_MAX], "the hero did not hit"
    assert target(game, helper) == (HERO if rules == "dota_lane" else -1)


@pytest.mark.parametrize("rules", RULE_SETS)
def test_a_creep_with_no_target_walks_back_to_its_lane_before_walking_on(rules):
    """A Radiant creep of the mid lane 800 off its path (perpendicular to it, between waypoints 1 and 2) heads for
    the path first: within ~1 s it is < 520 from it (325 speed). Patch 0.1's heads straight for the next waypoint
    and is still > 580 from the path."""
    game = lane_game(RULE_SETS[rules])
    S = game.state
    u = creep(game, RADIANT, 0.0, 0.0, 0)
    (ax, ay), (bx, by) = game.data.lanes[1, 1], game.data.lanes[1, 2]
    mx, my = (ax + bx) / 2, (ay + by) / 2
    nx, ny = (by - ay), -(bx - ax)
    norm = math.hypot(nx, ny)
    put(game, u, mx + 800.0 * nx / norm, my + 800.0 * ny / norm)
    S.ui[G, u, LANE], S.ui[G, u, WAYPOINT] = 1, 2
    run(game, steps_for(1.0))
    assert target(game, u) == -1
    x, y = S.uf[G, u, X], S.uf[G, u, Y]
    off_path = abs((bx - ax) * (y - ay) - (by - ay) * (x - ax)) / math.hypot(bx - ax, by - ay)
    if rules == "dota_lane":
        assert off_path < 520.0
    else:
        assert off_path > 580.0


def tower_scene(features: int):
    """Radiant's mid tier-1 tower shooting a frozen Dire creep 450 away, our hero beside it, two Dire heroes."""
    game = lane_game(features, HERO, ENEMY, ENEMY2)
    S = game.state
    tower = int(kernels.building_slot(RADIANT, 1))
    tx, ty = S.uf[G, tower, X], S.uf[G, tower, Y]
    bait = creep(game, DIRE, 0.0, 0.0, 0, frozen=True)
    put(game, bait, tx, ty + 450.0)
    for h in (HERO, ENEMY, ENEMY2):
        freeze(game, h)
    return game, tower, (tx, ty), bait


@pytest.mark.parametrize("rules", RULE_SETS)
def test_a_tower_turns_on_the_nearest_hero_ordered_to_attack_an_allied_hero_in_its_range(rules):
    """Two Dire heroes in range are ordered onto our hero in range; neither can hit yet (their attacks are not
    ready). The tower turns on the nearer one (hero 6) on the order. Patch 0.1's tower waits for a hit, and
    would take the first hero by index."""
    game, tower, (tx, ty), bait = tower_scene(RULE_SETS[rules])
    S = game.state
    put(game, HERO, tx + 250.0, ty + 50.0)
    put(game, ENEMY, tx + 300.0, ty + 250.0)   # 380 from the tower
    put(game, ENEMY2, tx + 250.0, ty - 100.0)  # 269 from the tower
    run(game, 2)
    assert target(game, tower) == bait
    for h in (ENEMY, ENEMY2):
        S.ui[G, h, STUN] = 0
        S.uf[G, h, ATTACK_READY] = NEVER
    see(game)
    orders = action(ENEMY, A_ATTACK, HERO)
    run(game, 1, action(ENEMY2, A_ATTACK, HERO, actions=orders))
    run(game, 1)
    assert S.uf[G, HERO, HP] == S.uf[G, HERO, HP_MAX]
    assert target(game, tower) == (ENEMY2 if rules == "dota_lane" else bait)


@pytest.mark.parametrize("rules", RULE_SETS)
def test_a_tower_ignores_an_attack_on_an_allied_hero_outside_its_range(rules):
    """A Dire hero inside the tower's range hits our hero just outside it: the victim's place decides, so the tower
    keeps shooting its creep. Patch 0.1's tower checked only the attacker's place and turned on it."""
    game, tower, (tx, ty), bait = tower_scene(RULE_SETS[rules])
    S = game.state
    reach = S.uf[G, tower, ATTACK_RANGE] + HULL
    put(game, HERO, tx - reach - 60.0, ty)
    put(game, ENEMY, tx - reach + 30.0, ty)
    run(game, 2)
    S.ui[G, ENEMY, STUN] = 0
    S.uf[G, ENEMY, ATTACK_READY] = 0.0
    see(game)
    run(game, 1, action(ENEMY, A_ATTACK, HERO))
    assert S.uf[G, HERO, HP] < S.uf[G, HERO, HP_MAX], "the Dire hero did not hit"
    run(game, 1)
    assert target(game, tower) == (bait if rules == "dota_lane" else ENEMY)


@pytest.mark.parametrize("killer", ["creep", "tower", "hero"])
def test_a_heros_death_is_counted_by_the_unit_that_dealt_the_killing_blow(killer):
    """Our hero with 1 health dies to a Dire melee creep, Dire's mid tier-1 tower or the Dire hero beside it: one
    death, counted in DEATHS_TO_CREEPS, _TOWERS or _HEROES alone (the match reports them per team)."""
    game = lane_game(F_DOTA_LANE, HERO, ENEMY)
    S = game.state
    place(game, HERO, 0.0)
    place(game, ENEMY, 3000.0)
    freeze(game, ENEMY)
    if killer == "creep":
        creep(game, DIRE, 90.0, 0.0, 0)
    elif killer == "tower":
        tower = int(kernels.building_slot(DIRE, 1))
        put(game, HERO, S.uf[G, tower, X] - 300.0, S.uf[G, tower, Y])
    else:
        place(game, ENEMY, 90.0)
        S.ui[G, ENEMY, STUN] = 0
    freeze(game, HERO)
    S.uf[G, HERO, HP] = 1.0
    S.uf[G, HERO, HP_REGEN] = 0.0
    see(game)
    run(game, steps_for(2.0))
    columns = {"creep": DEATHS_TO_CREEPS, "tower": DEATHS_TO_TOWERS, "hero": DEATHS_TO_HEROES}
    assert S.hi[G, HERO, DEATHS] == 1
    assert {name: int(S.hi[G, HERO, c]) for name, c in columns.items()} == {n: int(n == killer) for n in columns}
