"""Rules of experience, gold, denies, day and night and the fog of war, each pinned on a hand-set state.

Every test places a few units around the arena (``rules_arena``), steps the game with explicit actions and
checks the README's numbers ("The game": Heroes, Runes, Day and night, Fog of war) and the patch's
``Rules``, computed here by hand.
"""

from __future__ import annotations

import pytest

from rules_arena import G, action, disarm, freeze, isolate, new_game, place, put, run, see, spawn_creep
from fivestack.game import kernels
from fivestack.game.geometry import RUNE_SPOTS
from fivestack.game.layout import (
    A_ATTACK, ALIVE, DENIES, DIRE, FRAMES_PER_SECOND, FRAMES_PER_STEP, G_FRAME, G_RUNE0, GOLD, HP, HP_MAX,
    INVALID_ACTIONS, LAST_HITS, LEVEL, ORDER, O_ATTACK, RADIANT, RESPAWN, X, XP, Y,
)
from fivestack.game.patch import CREEPS, Rules

RULES = Rules()
PASSIVE_GOLD_PER_STEP = RULES.passive_gold * FRAMES_PER_STEP / FRAMES_PER_SECOND  # 1.5 gold/s for 4 frames
BULWARK = 0  # Radiant hero 0: melee, so a last hit lands in the frame the attack is ordered
DIRE_BULWARK = 5


def level_up_xp(level: int) -> float:
    """README: level L to L + 1 takes 200 + 100 (L - 1) experience; the total to reach ``level`` + 1."""
    return sum(200.0 + 100.0 * (lvl - 1) for lvl in range(1, level + 1))


def last_hit(game, creep_team: int, kind: str = "melee", hp: float = 1.0) -> int:
    """Radiant's Bulwark, 100 away, hits a creep of ``creep_team`` with ``hp`` left (one hit kills)."""
    creep = spawn_creep(game, creep_team, kind)
    game.state.uf[G, creep, HP] = hp
    place(game, BULWARK, -100.0)
    see(game)
    run(game, 1, action(BULWARK, A_ATTACK, creep))
    return creep


# ---------------------------------------------------------------------------------------------- experience
def test_creep_experience_is_split_among_living_allied_heroes_within_1300():
    """A kill's experience is shared by the living allied heroes within 1300 (xp_radius): two inside split
    a melee creep's 57, one at 1400 and a dead one inside get none."""
    game = new_game()
    isolate(game, 0, 1, 2, 3)
    place(game, 1, 0.0, -1200.0)  # inside the radius (the creep stands at the arena's centre)
    place(game, 2, 1400.0, 0.0)  # outside
    place(game, 3, 500.0, 0.0)  # inside, but dead
    game.state.ui[G, 3, ALIVE] = 0
    game.state.uf[G, 3, HP] = 0.0
    game.state.hf[G, 3, RESPAWN] = 100.0
    creep = last_hit(game, DIRE)
    assert game.state.ui[G, creep, ALIVE] == 0
    share = CREEPS["melee"].xp / 2
    xp = game.state.hf[G, :4, XP]
    assert xp[0] == pytest.approx(share) and xp[1] == pytest.approx(share)
    assert xp[2] == 0.0 and xp[3] == 0.0


@pytest.mark.parametrize("level", [1, 2, 5, 24])
def test_level_thresholds(level):
    """Level L to L + 1 takes 200 + 100 (L - 1) experience: a kill that brings the total exactly to the
    threshold levels the hero up, one half point short does not."""
    creep_xp = CREEPS["melee"].xp
    for short, expected in ((0.5, level), (0.0, level + 1)):
        game = new_game()
        isolate(game, BULWARK)
        game.state.hi[G, BULWARK, LEVEL] = level
        game.state.hf[G, BULWARK, XP] = level_up_xp(level) - creep_xp - short
        last_hit(game, DIRE)
        assert game.state.hi[G, BULWARK, LEVEL] == expected, f"{short} short of level {level + 1}"


def test_level_25_is_the_last():
    """Levels run 1-25: experience past level 25's threshold does not level further."""
    game = new_game()
    isolate(game, BULWARK)
    game.state.hi[G, BULWARK, LEVEL] = 25
    game.state.hf[G, BULWARK, XP] = level_up_xp(25)
    last_hit(game, DIRE)
    assert game.state.hi[G, BULWARK, LEVEL] == 25


# ---------------------------------------------------------------------------------------------- gold
@pytest.mark.parametrize("kind", ["melee", "ranged", "siege"])
def test_last_hit_pays_the_creeps_bounty_to_the_killer_only(kind):
    """A last hit on a creep pays its bounty (patch creep table: melee 40, ranged 50, siege 70) to the
    killer; an ally standing next to it earns only the passive 1.5 gold/s."""
    game = new_game()
    isolate(game, BULWARK, 1)
    place(game, 1, 0.0, -300.0)
    disarm(game, 1)
    last_hit(game, DIRE, kind)
    gold = game.state.hf[G, :2, GOLD]
    assert gold[0] == pytest.approx(CREEPS[kind].gold + PASSIVE_GOLD_PER_STEP)
    assert gold[1] == pytest.approx(PASSIVE_GOLD_PER_STEP)
    assert game.state.hi[G, BULWARK, LAST_HITS] == 1


def test_hero_kill_pays_150_plus_8_per_victim_level_and_60_per_assist():
    """A hero kill pays the killer 150 + 8 x the victim's level (level 7: 206) and 60 to an ally near the
    kill (an assist); an ally 2000 away who never hit the victim gets nothing."""
    game = new_game()
    isolate(game, BULWARK, 1, 2, DIRE_BULWARK)
    place(game, DIRE_BULWARK, 0.0)
    place(game, BULWARK, -100.0)
    place(game, 1, 0.0, -600.0)
    place(game, 2, 2000.0, 0.0)
    game.state.hi[G, DIRE_BULWARK, LEVEL] = 7
    game.state.uf[G, DIRE_BULWARK, HP] = 1.0
    freeze(game, DIRE_BULWARK)
    disarm(game, 1, 2)
    see(game)
    run(game, 1, action(BULWARK, A_ATTACK, DIRE_BULWARK))
    assert game.state.ui[G, DIRE_BULWARK, ALIVE] == 0
    gold = game.state.hf[G, :3, GOLD] - PASSIVE_GOLD_PER_STEP
    assert gold[0] == pytest.approx(RULES.kill_gold + RULES.kill_gold_per_level * 7)
    assert gold[0] == pytest.approx(206.0)
    assert gold[1] == pytest.approx(RULES.assist_gold)
    assert gold[2] == pytest.approx(0.0)


def test_destroyed_building_pays_its_bounty_to_every_enemy_hero():
    """A destroyed tower pays its bounty (tier 1: 120) to every hero of the enemy team, wherever they
    are, and nothing to its own team."""
    game = new_game()
    isolate(game, 0, 1, 2, 3, 4, DIRE_BULWARK)
    tower = kernels.building_slot(DIRE, 0)  # Dire's tier-1 top tower
    S = game.state
    for h in (1, 2, 3, 4):
        place(game, h, 0.0, -300.0 * h)
    place(game, DIRE_BULWARK, 0.0, -3000.0)
    put(game, BULWARK, S.uf[G, tower, X] - 100.0, S.uf[G, tower, Y])
    S.uf[G, tower, HP] = 1.0
    see(game)
    run(game, 1, action(BULWARK, A_ATTACK, tower))
    assert S.ui[G, tower, ALIVE] == 0
    bounty = CREEPS["tier1"].gold
    assert S.hf[G, :5, GOLD] == pytest.approx([bounty + PASSIVE_GOLD_PER_STEP] * 5)
    assert S.hf[G, DIRE_BULWARK, GOLD] == pytest.approx(PASSIVE_GOLD_PER_STEP)


@pytest.mark.parametrize("minute", [2, 6, 10])
def test_bounty_rune_pays_100_plus_5_per_game_minute(minute):
    """A bounty rune taken at minute m pays 100 + 5 m gold (minute 6: 130)."""
    game = new_game()
    isolate(game, BULWARK)
    S = game.state
    S.gi[G, G_FRAME] = minute * 60 * FRAMES_PER_SECOND - 1  # the step's first frame is minute m exactly
    S.gi[G, G_RUNE0] = 1  # a bounty rune on spot 0
    put(game, BULWARK, *RUNE_SPOTS[0])
    run(game, 1)
    assert S.gi[G, G_RUNE0] == 0
    assert S.hf[G, BULWARK, GOLD] == pytest.approx(RULES.bounty_rune_gold + 5.0 * minute + PASSIVE_GOLD_PER_STEP)


# ---------------------------------------------------------------------------------------------- denies
def test_deny_gives_no_gold_and_halves_the_enemys_experience():
    """Denying an own creep below half health pays the denier nothing and gives the enemy heroes near it
    half its experience (melee: 57 / 2)."""
    game = new_game()
    isolate(game, BULWARK, DIRE_BULWARK)
    place(game, DIRE_BULWARK, 0.0, -1000.0)
    disarm(game, DIRE_BULWARK)
    creep = last_hit(game, RADIANT, hp=60.0)
    S = game.state
    assert S.ui[G, creep, ALIVE] == 0
    assert S.hi[G, BULWARK, DENIES] == 1 and S.hi[G, BULWARK, LAST_HITS] == 0
    assert S.hf[G, BULWARK, GOLD] == pytest.approx(PASSIVE_GOLD_PER_STEP)
    assert S.hf[G, BULWARK, XP] == 0.0
    assert S.hf[G, DIRE_BULWARK, XP] == pytest.approx(CREEPS["melee"].xp / 2)


@pytest.mark.parametrize("health, allowed", [(0.49, True), (0.5, False), (0.9, False)])
def test_deny_is_allowed_only_below_half_health(health, allowed):
    """A hero may attack an own creep only below half its health; at half or above the order is refused
    (a counted invalid action) and the creep is not hurt."""
    game = new_game()
    isolate(game, BULWARK)
    creep = spawn_creep(game, RADIANT)
    S = game.state
    S.uf[G, creep, HP] = health * S.uf[G, creep, HP_MAX]
    place(game, BULWARK, -100.0)
    see(game)
    hp_before = float(S.uf[G, creep, HP])
    run(game, 1, action(BULWARK, A_ATTACK, creep))
    assert (S.ui[G, BULWARK, ORDER] == O_ATTACK) == allowed
    assert S.hi[G, BULWARK, INVALID_ACTIONS] == (0 if allowed else 1)
    run(game, 10)
    assert (S.uf[G, creep, HP] < hp_before) == allowed


# ---------------------------------------------------------------------------------------------- vision
DAY_FRAME = 60 * FRAMES_PER_SECOND  # 1:00, day
NIGHT_FRAME = 200 * FRAMES_PER_SECOND  # 3:20, night


def seen_after_step(game, frame: int, watched: int) -> bool:
    """Step so that the step ends at ``frame`` (vision is taken at the end of a step); does Radiant see
    unit ``watched``?"""
    game.state.gi[G, G_FRAME] = frame - FRAMES_PER_STEP
    run(game, 1)
    return bool(game.state.vis[G, RADIANT, watched])


@pytest.mark.parametrize("frame, night", [
    (150 * FRAMES_PER_SECOND - FRAMES_PER_STEP, False),  # 2:29.9, the end of the first day
    (150 * FRAMES_PER_SECOND, True),  # 2:30, night falls
    (300 * FRAMES_PER_SECOND - FRAMES_PER_STEP, True),
    (300 * FRAMES_PER_SECOND, False),  # 5:00, a new day
    (450 * FRAMES_PER_SECOND, True),
])
def test_day_and_night_alternate_every_two_and_a_half_minutes(frame, night):
    """A 5-minute cycle: 2.5 minutes of day, then 2.5 of night; a hero sees an enemy 1000 away by day
    (vision 1800) and not at night (800)."""
    game = new_game()
    isolate(game, BULWARK, DIRE_BULWARK)
    place(game, BULWARK, 0.0)
    place(game, DIRE_BULWARK, 1000.0)
    assert seen_after_step(game, frame, DIRE_BULWARK) == (not night)


@pytest.mark.parametrize("distance, by_day, at_night", [
    (700.0, True, True), (1000.0, True, False), (1750.0, True, False), (1850.0, False, False),
])
def test_hero_vision_is_1800_by_day_and_800_at_night(distance, by_day, at_night):
    """Heroes see 1800 by day and 800 at night."""
    game = new_game()
    isolate(game, BULWARK, DIRE_BULWARK)
    place(game, BULWARK, 0.0)
    place(game, DIRE_BULWARK, 0.0, -distance)
    assert seen_after_step(game, DAY_FRAME, DIRE_BULWARK) == by_day
    assert seen_after_step(game, NIGHT_FRAME, DIRE_BULWARK) == at_night


def test_creep_keeps_its_vision_by_day_and_sees_at_most_800_at_night():
    """Units other than heroes keep their own vision by day (lane creep: 1200) and at most 800 at night:
    an enemy 1000 from a creep is seen by day, hidden at night; by day one at 1150 is seen, one at 1300 not."""
    game = new_game()
    isolate(game, DIRE_BULWARK)
    spawn_creep(game, RADIANT)  # at the arena's centre
    place(game, DIRE_BULWARK, 1000.0)
    assert seen_after_step(game, DAY_FRAME, DIRE_BULWARK)
    assert not seen_after_step(game, NIGHT_FRAME, DIRE_BULWARK)
    place(game, DIRE_BULWARK, 1150.0)
    assert seen_after_step(game, DAY_FRAME, DIRE_BULWARK)
    place(game, DIRE_BULWARK, 1300.0)
    assert not seen_after_step(game, DAY_FRAME, DIRE_BULWARK)


def test_tower_keeps_its_vision_by_day_and_sees_at_most_800_at_night():
    """A tower (vision 1900) sees an enemy 1000 away by day, not at night (at most 800)."""
    game = new_game()
    isolate(game, DIRE_BULWARK)
    tower = kernels.building_slot(RADIANT, 0)  # Radiant's tier-1 top tower, alone in its part of the map
    S = game.state
    put(game, DIRE_BULWARK, S.uf[G, tower, X] + 1000.0, S.uf[G, tower, Y])
    disarm(game, DIRE_BULWARK)
    assert seen_after_step(game, DAY_FRAME, DIRE_BULWARK)
    assert not seen_after_step(game, NIGHT_FRAME, DIRE_BULWARK)


def test_fog_hides_an_enemy_outside_every_allied_vision_radius():
    """An enemy outside the vision radius of every living allied unit is not visible and cannot be
    targeted; an allied creep that comes within its 1200 reveals it."""
    game = new_game()
    isolate(game, 2, DIRE_BULWARK)  # Radiant's Cinder Oracle, ranged 600
    place(game, 2, 0.0)
    place(game, DIRE_BULWARK, 2000.0)
    see(game)
    S = game.state
    assert S.vis[G, RADIANT, DIRE_BULWARK] == 0
    assert S.vis[G, DIRE, 2] == 0
    run(game, 1, action(2, A_ATTACK, DIRE_BULWARK))
    assert S.hi[G, 2, INVALID_ACTIONS] == 1
    spawn_creep(game, RADIANT, dx=2000.0 - 1100.0)  # 1100 from the enemy
    see(game)
    assert S.vis[G, RADIANT, DIRE_BULWARK] == 1
    run(game, 1, action(2, A_ATTACK, DIRE_BULWARK))
    assert S.hi[G, 2, INVALID_ACTIONS] == 1
    assert S.ui[G, 2, ORDER] == O_ATTACK
