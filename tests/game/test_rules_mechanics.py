"""Rules of the new mechanics (``game.heroes.Ability``'s docstring): summons, invisibility, channels, blinks,
passive auras and global casts, for every ability of the patch that uses each.

The cases follow the patch: each mechanic's tests take every ability that sets its field (ids
``"Hero/Ability"``), so a new hero's ability is covered without touching this file. Each ability is cast at
level 1 and its top level (3 for an ultimate, 4 otherwise; auras at every level) on a hand-set state
(``rules_arena``): the caster is the hero in Radiant slot 0 (heroes 1-4 its allies, 5-9 the enemy: the first five
heroes of the patch), every placed hero is staged (held, disarmed, armor 5, health 1000 of 10000, no regeneration),
no one else's ability is learnt and the creep pool is empty. ``cast`` checks that the cast goes off at once,
spending the mana and setting the cooldown at that level.

* summons (``summon_count``, ``summon_hp``, ``summon_damage``, ``summon_time``): ``summon_count`` melee creeps of
  the caster's team, summoned by it, 120 around the caster (no target) or the point, with summon_hp and
  summon_damage x (1 + 0.25 (level - 1)), half a melee creep's bounty; alive for summon_time x 30 frames, then
  gone with no gold, experience or last hit to anyone; the ability's other effects (an area's damage) land as
  the table says. They hit an enemy within 700 of them (not one farther), else follow their summoner to within
  300. A creep pool with fewer free slots summons fewer.
* invisibility (``invisible_time``): the target (the caster, or the ally for a unit target) is invisible for
  invisible_time x 30 frames: hidden from the enemy (not seen, not attackable, not acquired by an enemy creep)
  and seen again when it runs out; nobody else is; its other effects (a speed buff) land on it. Attacking
  or casting ends it at once.
* channels (``channel_time``): nothing lands at the cast; then once per channelled second (every 30 frames), for
  channel_time s, the ability's effects land again on the affected units within its radius (none outside,
  none on the other team); the caster channels until then, and pays mana and cooldown once. A new order, a
  stun or a silence ends it: no landing after.
* blink (``blink``): the caster lands on the point, pulled in to the cast range along the way (it never walks
  to cast); the effects land around the landing (inside the radius, not outside, not around the start). On
  unwalkable ground the caster stays and the effects land at the point. Refused one mana short and while on
  cooldown (a blink's casting rules are tested here, not in ``test_rules_every_ability.py``).
* aura (``aura``): never cast; every allied hero within the radius of its living owner (the owner too) holds
  buff_armor and buff_damage x (1 + 0.5 (level - 1)) and heal + heal_per_level (level - 1) hp/s, which count
  (armor through the damage formula, attack damage, regeneration); no one outside or of the other team; set
  in frames that are multiples of 10 (the refresh); gone after the owner's death; of two auras of one kind the
  stronger counts, not their sum.
* global (``global_cast``): the effects land on every living hero of the affected side (enemies for affects 1,
  allies and the caster for affects 2) wherever it stands on the map, seen or not; none on the other side, on
  a dead hero or on a creep.

Numbers are computed by hand from the table (``rules_arena.after_landing``): value = base + per-level x (level
- 1); damage through armor 5 or the 25% magic resistance; a duration of s seconds is round(30 s) frames.
"""

from __future__ import annotations

import itertools
import math

import pytest

from rules_arena import (
    ARENA, ARMOR_OF_TARGETS, G, HEALTH, STATUS_FRAMES, action, after_landing, armor_factor, assert_shows,
    at_level, cast, disarm, frames, freeze, isolate, new_game, place, run, see, snapshot, spawn_creep, stage,
    steps_for, walkable,
)
from fivestack.game import kernels
from fivestack.game.kernels.constants import ACQUIRE_RADIUS
from fivestack.game.layout import (
    A_ABILITY0, A_ATTACK, A_MOVE, ABILITY_CD, ABILITY_LEVEL, ALIVE, ATTACK_RANGE, ATTACK_READY, AURA_ARMOR, AURA_DAMAGE,
    AURA_REGEN, BOUNTY_GOLD, BOUNTY_XP, DAMAGE, DENIES, DIRE, FRAMES_PER_SECOND, FRAMES_PER_STEP, G_FRAME, GOLD, HP,
    HP_MAX, INVALID_ACTIONS, INVISIBLE, KIND, K_CREEP_MELEE, LANE, LAST_HITS, LIFETIME, MANA, MANA_MAX, MAX_UNITS,
    ORDER, O_CHANNEL, RADIANT, RESPAWN, SLOT_CREEPS, SUMMONER, T_NONE, T_POINT, TEAM, X, XP, Y,
)
from fivestack.game.patch import C_GOLD, C_XP, CR_MELEE, HEROES, R_XP_RADIUS, Ability

CASTER = 0
ALLIES = (1, 2, 3, 4)
ENEMIES = (5, 6, 7, 8, 9)
FILL = tuple(h.name for h in HEROES[:5])  # the other heroes of both lineups
BASHER, COILER = 5, 9  # Dire's Bulwark (Shield Bash: a stun) and Tempest Warden (Static Coil: a silence)
MANA_OF_CASTER = 5000.0
SUMMON_RING = 120.0  # summons appear on a circle of this radius around the caster or the point
SUMMON_FOLLOW = 300.0  # a summon with no enemy within 700 keeps this close to its summoner
AURA_REFRESH = 10  # frames: auras are set in frames that are multiples of this


def with_field(name: str) -> list:
    """``pytest.param(hero, slot, ability, id="Hero/Ability")`` for every patch ability that sets ``name``."""
    return [pytest.param(hero.name, slot, ab, id=f"{hero.name}/{ab.name}")
            for hero in HEROES for slot, ab in enumerate(hero.abilities) if getattr(ab, name)]


def levels(ab: Ability) -> tuple[int, int]:
    """The first and the top level: an ultimate has 3 levels, a basic ability 4."""
    return (1, 3) if ab.ultimate else (1, 4)


def cast_scene(hero: str, placed: dict[int, tuple[float, float]], radiant: tuple[str, ...] | None = None):
    """A game where ``hero`` is Radiant's hero 0 (``radiant``: the whole Radiant lineup), the units of ``placed``
    staged where it says (relative to ARENA) and every other hero benched; no creep is left and nobody has
    learnt an ability; the caster has mana to spare."""
    game = new_game(radiant=radiant or (hero,) + FILL[1:], dire=FILL)
    isolate(game, *placed)
    S = game.state
    S.ui[G, SLOT_CREEPS:, ALIVE] = 0  # the first wave's lane creeps
    S.uf[G, SLOT_CREEPS:, HP] = 0.0
    S.hi[G, :, ABILITY_LEVEL:ABILITY_LEVEL + 4] = 0
    stage(game, placed)
    S.uf[G, CASTER, MANA_MAX] = S.uf[G, CASTER, MANA] = MANA_OF_CASTER
    see(game)
    return game


def point_offset(ab: Ability) -> tuple[tuple[int, int], tuple[float, float]]:
    """Where a cast lands without walking: (4, 4) on the caster for a no-target ability, else the offset two cells
    east (half the cast range: max(range, 200) / 4 per cell) and that point relative to the caster."""
    if ab.target == T_NONE:
        return (4, 4), (0.0, 0.0)
    if ab.target != T_POINT:
        pytest.fail(f"{ab.name}: target kind {ab.target}; this test knows no-target and point casts", pytrace=False)
    return (6, 4), (2 * max(ab.cast_range, 200.0) / 4.0, 0.0)


def area(ab: Ability, center: tuple[float, float]) -> dict[int, tuple[float, float]]:
    """Units around an area's centre: of the affected side, one just inside the radius and one just outside; of
    the other side, one inside (Dire's heroes 5 and 9 are left free). Without a radius: an ally and an enemy
    100 from the centre."""
    cx, cy = center
    r = ab.radius
    if r <= 0.0:
        return {ALLIES[0]: (cx, cy + 100.0), ENEMIES[1]: (cx, cy - 100.0)}
    pool, others = (ENEMIES[1:], ALLIES) if ab.affects == 1 else (ALLIES, ENEMIES[1:])
    return {pool[0]: (cx, cy + r - 1.0), pool[1]: (cx, cy - r - 1.0), others[0]: (cx - r / 2.0, cy)}


def hit_by(game, ab: Ability, units, center: tuple[float, float]) -> set[int]:
    """Which of ``units`` the ability's effects must land on where they stand now, by the README's rule: the
    caster (self), or every unit of the affected side (the caster too, for allies) within the radius of
    ``center`` (relative to ARENA)."""
    S = game.state
    if ab.affects == 3:
        return {CASTER}
    side = set(ENEMIES) if ab.affects == 1 else set(ALLIES) | {CASTER}
    cx, cy = ARENA[0] + center[0], ARENA[1] + center[1]
    return {u for u in units if u in side
            and math.hypot(float(S.uf[G, u, X]) - cx, float(S.uf[G, u, Y]) - cy) <= ab.radius}


def landings(ab: Ability, level: int, before: dict[str, float], n: int, since: int = 0) -> dict[str, float]:
    """What a unit shows ``since`` frames after the n-th landing of the ability on it (statuses run down, not
    below 0)."""
    want = dict(before)
    for _ in range(n):
        want = after_landing(ab, level, want)
    for k in STATUS_FRAMES:
        if want[k] > 0 and n > 0:
            want[k] = max(0, want[k] - since)
    return want


def check_units(game, at: str, ab: Ability, level: int, before: dict, hit: set[int], n: int = 1,
                since: int = 0) -> None:
    """Every unit of ``before`` shows n landings if it is in ``hit``, nothing otherwise."""
    for u, was in before.items():
        want = landings(ab, level, was, n, since) if u in hit else was
        assert_shows(f"{at}, unit {u} ({'hit' if u in hit else 'spared'})", snapshot(game, u), want)


# ---------------------------------------------------------------------------------------------- summons
def summons_of(game, h: int) -> list[int]:
    S = game.state
    return [u for u in range(SLOT_CREEPS, MAX_UNITS)
            if S.ui[G, u, ALIVE] and S.ui[G, u, LIFETIME] > 0 and S.ui[G, u, SUMMONER] == h]


@pytest.mark.parametrize("hero, slot, ab", with_field("summon_count"))
def test_summons_come_as_the_table_says_and_expire_without_bounty(hero, slot, ab):
    """summon_count, summon_hp, summon_damage, summon_time: count, health, damage, place, bounty and lifetime
    frames at the level; the ability's standard effects (an area's damage) land as for any ability."""
    for level in levels(ab):
        at = f"{hero}/{ab.name} level {level}"
        offset, center = point_offset(ab)
        witness = ENEMIES[0]  # an enemy hero in experience range of the summons, beyond their reach
        placed = {CASTER: (0.0, 0.0), witness: (center[0] - 1000.0, center[1])}
        if ab.radius > 0.0:
            placed.update(area(ab, center))
        game = cast_scene(hero, placed)
        S = game.state
        assert 1000.0 + SUMMON_RING < game.data.rules[R_XP_RADIUS]
        before = {u: snapshot(game, u) for u in placed}
        cast(game, CASTER, ab.name, level, offset=offset)  # the first step: its last frame updates units
        units = summons_of(game, CASTER)  # from the last down, so the summons did not act in it
        assert len(units) == ab.summon_count, f"{at}: {len(units)} summons"
        scale = 1.0 + 0.25 * (level - 1)
        for u in units:
            assert S.ui[G, u, TEAM] == RADIANT and S.ui[G, u, KIND] == K_CREEP_MELEE and S.ui[G, u, LANE] == -1
            assert S.uf[G, u, HP_MAX] == pytest.approx(ab.summon_hp * scale), f"{at}: summon health"
            assert S.uf[G, u, HP] == pytest.approx(ab.summon_hp * scale), f"{at}: summon health"
            assert S.uf[G, u, DAMAGE] == pytest.approx(ab.summon_damage * scale), f"{at}: summon damage"
            assert S.ui[G, u, LIFETIME] == frames(ab.summon_time), f"{at}: summon lifetime frames"
            assert S.uf[G, u, BOUNTY_GOLD] == pytest.approx(0.5 * game.data.creep_table[CR_MELEE, C_GOLD])
            assert S.uf[G, u, BOUNTY_XP] == pytest.approx(0.5 * game.data.creep_table[CR_MELEE, C_XP])
            ring = math.hypot(S.uf[G, u, X] - ARENA[0] - center[0], S.uf[G, u, Y] - ARENA[1] - center[1])
            assert ring == pytest.approx(SUMMON_RING, abs=0.05), f"{at}: a summon {ring:.1f} from the centre"
        check_units(game, at, ab, level, before, hit_by(game, ab, placed, center))
        freeze(game, CASTER, *units)  # nobody fights: the summons only wait out their time
        left = int(S.ui[G, units[0], LIFETIME])
        run(game, (left - 1) // FRAMES_PER_STEP - 1)
        assert len(summons_of(game, CASTER)) == ab.summon_count, f"{at}: gone before summon_time"
        gold = float(S.hf[G, witness, GOLD])
        run(game, 1)
        passive = float(S.hf[G, witness, GOLD]) - gold  # a step's passive gold
        assert len(summons_of(game, CASTER)) == ab.summon_count, f"{at}: gone before summon_time"
        gold, xp = float(S.hf[G, witness, GOLD]), float(S.hf[G, witness, XP])
        run(game, 1)
        assert all(S.ui[G, u, ALIVE] == 0 for u in units), f"{at}: still there after summon_time"
        assert S.hf[G, witness, GOLD] - gold == pytest.approx(passive, abs=1e-3), f"{at}: an expiry paid gold"
        assert S.hf[G, witness, XP] == xp, f"{at}: an expiry paid experience"
        assert S.hi[G, :, LAST_HITS].sum() == 0 and S.hi[G, :, DENIES].sum() == 0


@pytest.mark.parametrize("hero, slot, ab", with_field("summon_count"))
def test_summons_fight_an_enemy_within_700_else_follow_their_summoner(hero, slot, ab):
    """The summons hit an enemy creep 400 from where they appear, not one 1200 away; with no enemy near, they
    catch up to within SUMMON_FOLLOW (300) of a summoner that moved 1500 away."""
    offset, center = point_offset(ab)
    game = cast_scene(hero, {CASTER: (0.0, 0.0)})
    S = game.state
    near = spawn_creep(game, DIRE, "melee", dx=center[0], dy=center[1] + 400.0, k=0)
    far = spawn_creep(game, DIRE, "melee", dx=center[0], dy=center[1] - 1200.0, k=1)
    hp = {u: float(S.uf[G, u, HP]) for u in (near, far)}
    cast(game, CASTER, ab.name, 1, offset=offset)
    run(game, steps_for(4.0))
    assert S.uf[G, near, HP] < hp[near], "the summons never hit the enemy creep 400 away"
    assert S.uf[G, far, HP] == hp[far], "the summons went for an enemy creep 1200 away"
    S.ui[G, near, ALIVE] = S.ui[G, far, ALIVE] = 0
    S.uf[G, near, HP] = S.uf[G, far, HP] = 0.0
    place(game, CASTER, -1500.0, 0.0)
    freeze(game, CASTER)
    run(game, steps_for(10.0))
    for u in summons_of(game, CASTER):
        gap = math.hypot(S.uf[G, u, X] - S.uf[G, CASTER, X], S.uf[G, u, Y] - S.uf[G, CASTER, Y])
        assert gap <= SUMMON_FOLLOW + 20.0, f"summon {u} is {gap:.0f} from its summoner"


@pytest.mark.parametrize("hero, slot, ab", [p for p in with_field("summon_count") if p.values[2].summon_count > 1])
def test_a_full_creep_pool_summons_fewer(hero, slot, ab):
    offset, center = point_offset(ab)
    game = cast_scene(hero, {CASTER: (0.0, 0.0)})
    S = game.state
    for k in range(MAX_UNITS - SLOT_CREEPS - 1):  # every slot of the pool but the last
        spawn_creep(game, RADIANT, "melee", dx=-3000.0, k=k)
    cast(game, CASTER, ab.name, 1, offset=offset)
    assert summons_of(game, CASTER) == [MAX_UNITS - 1]
    assert S.uf[G, MAX_UNITS - 1, HP_MAX] == pytest.approx(ab.summon_hp)


# ---------------------------------------------------------------------------------------------- invisibility
def invisible_target(ab: Ability) -> int:
    """Who the ability makes invisible: the caster (self) or the allied target (hero 1)."""
    if ab.affects == 3 and ab.target == T_NONE:
        return CASTER
    if ab.affects == 2 and ab.target != T_NONE and ab.radius <= 0.0:
        return ALLIES[0]
    pytest.fail(f"{ab.name}: invisibility with target {ab.target}, affects {ab.affects}, radius {ab.radius}: a "
                "kind this test does not know", pytrace=False)


def invisibility_scene(hero: str, ab: Ability):
    """The caster at ARENA; the invisible-to-be on it or ``cast_range`` - 50 east; an enemy hero 300 beyond it,
    another ally 700 west of the caster (out of the way of an enemy creep's acquisition next to the target)."""
    target = invisible_target(ab)
    tx = 0.0 if target == CASTER else ab.cast_range - 50.0
    placed = {CASTER: (0.0, 0.0), target: (tx, 0.0), ENEMIES[0]: (tx + 300.0, 0.0), ALLIES[1]: (-700.0, 0.0)}
    return cast_scene(hero, placed), placed, target


def acquires(game, creep: int) -> int:
    """The unit a lane creep would pick as its target now (on the spatial grid of the last frame)."""
    S = game.state
    return int(kernels.nearest_enemy(S, G, creep, ACQUIRE_RADIUS + float(S.uf[G, creep, ATTACK_RANGE]) * 0.5,
                                     False, False))


@pytest.mark.parametrize("hero, slot, ab", with_field("invisible_time"))
def test_invisibility_hides_its_target_from_the_enemy_for_its_time(hero, slot, ab):
    """invisible_time frames on the right unit, hidden from the enemy's vision, attacks and creeps."""
    for level in levels(ab):
        at = f"{hero}/{ab.name} level {level}"
        game, placed, target = invisibility_scene(hero, ab)
        S = game.state
        enemy = ENEMIES[0]
        creep = spawn_creep(game, DIRE, "melee", dx=placed[target][0] + 60.0, dy=-60.0, k=0)
        before = {u: snapshot(game, u) for u in placed}
        cast(game, CASTER, ab.name, level, target=target if ab.target != T_NONE else -1)
        invisible = frames(ab.invisible_time)
        for u in placed:
            assert S.ui[G, u, INVISIBLE] == (invisible if u == target else 0), f"{at}: unit {u}'s invisibility"
        check_units(game, at, ab, level, before, {target})  # its standard effects: on the target only
        assert S.vis[G, DIRE, target] == 0 and S.vis[G, RADIANT, target] == 1, f"{at}: seen by the enemy"
        run(game, 1, action(enemy, A_ATTACK, target))
        assert S.hi[G, enemy, INVALID_ACTIONS] == 1, f"{at}: an invisible hero was ordered attacked"
        run(game, math.ceil(invisible / FRAMES_PER_STEP) - 2)  # its last frames
        assert S.ui[G, target, INVISIBLE] > 0 and S.vis[G, DIRE, target] == 0, f"{at}: seen before invisible_time"
        assert acquires(game, creep) == -1, f"{at}: an enemy creep beside it acquires an invisible hero"
        run(game, 1)
        assert S.ui[G, target, INVISIBLE] == 0 and S.vis[G, DIRE, target] == 1, f"{at}: hidden after invisible_time"
        assert acquires(game, creep) == target, f"{at}: the creep beside it does not acquire it once seen"


@pytest.mark.parametrize("hero, slot, ab", with_field("invisible_time"))
def test_attacking_breaks_invisibility(hero, slot, ab):
    game, placed, target = invisibility_scene(hero, ab)
    S = game.state
    enemy = ENEMIES[0]
    place(game, enemy, placed[target][0] + 100.0, 0.0)
    freeze(game, enemy)
    cast(game, CASTER, ab.name, 1, target=target if ab.target != T_NONE else -1)
    assert S.ui[G, target, INVISIBLE] > 0
    S.uf[G, target, ATTACK_READY] = 0.0
    run(game, 2, action(target, A_ATTACK, enemy))
    assert S.ui[G, target, INVISIBLE] == 0
    assert S.vis[G, DIRE, target] == 1


def test_casting_breaks_invisibility():
    """One example: the invisible Veilstalker casts Gutting Venom (the rule is in the cast, for any ability)."""
    game = cast_scene("Veilstalker", {CASTER: (0.0, 0.0), ENEMIES[0]: (150.0, 0.0)})
    S = game.state
    cast(game, CASTER, "Shadowfade", 1)
    assert S.ui[G, CASTER, INVISIBLE] > 0
    cast(game, CASTER, "Gutting Venom", 1, target=ENEMIES[0])
    assert S.ui[G, CASTER, INVISIBLE] == 0
    assert S.vis[G, DIRE, CASTER] == 1


# ---------------------------------------------------------------------------------------------- channels
def channel_scene(hero: str, ab: Ability):
    if ab.dot > 0.0:
        pytest.fail(f"{ab.name}: a channel with damage over time; this test does not burn it", pytrace=False)
    offset, center = point_offset(ab)
    placed = {CASTER: (0.0, 0.0), **area(ab, center)}
    return offset, center, placed


@pytest.mark.parametrize("hero, slot, ab", with_field("channel_time"))
def test_a_channel_lands_once_per_channelled_second_in_its_radius(hero, slot, ab):
    """channel_time: a landing at every whole channelled second, channel_time of them, each with the table's
    effects at the level on the affected units within the radius; mana and cooldown paid once."""
    for level in levels(ab):
        at = f"{hero}/{ab.name} level {level}"
        offset, center, placed = channel_scene(hero, ab)
        game = cast_scene(hero, placed)
        S = game.state
        before = {u: snapshot(game, u) for u in placed}
        cast(game, CASTER, ab.name, level, offset=offset)
        mana = float(S.uf[G, CASTER, MANA])
        cooldown = int(S.hi[G, CASTER, ABILITY_CD + slot])
        assert S.ui[G, CASTER, ORDER] == O_CHANNEL, f"{at}: not channelling"
        hit = hit_by(game, ab, placed, center)
        assert len(hit) == (2 if ab.affects == 2 else 1)  # the one inside (and the caster, among allies)
        check_units(game, at, ab, level, before, hit, n=0)  # nothing at the cast
        channel = frames(ab.channel_time)
        for step in range(1, math.ceil(channel / FRAMES_PER_STEP) + steps_for(2.0)):
            run(game, 1)
            elapsed = step * FRAMES_PER_STEP
            n = min(round(ab.channel_time), elapsed // FRAMES_PER_SECOND)
            check_units(game, f"{at}, {elapsed} frames in", ab, level, before, hit, n,
                        elapsed - n * FRAMES_PER_SECOND)
            assert (S.ui[G, CASTER, ORDER] == O_CHANNEL) == (elapsed < channel), f"{at}: channelling {elapsed} in"
        assert S.uf[G, CASTER, MANA] == mana, f"{at}: mana paid again"
        assert S.hi[G, CASTER, ABILITY_CD + slot] == max(0, cooldown - elapsed), f"{at}: cooldown restarted"


@pytest.mark.parametrize("how", ["order", "stun", "silence"])
@pytest.mark.parametrize("hero, slot, ab", with_field("channel_time"))
def test_a_new_order_a_stun_or_a_silence_ends_a_channel(hero, slot, ab, how):
    offset, center, placed = channel_scene(hero, ab)
    placed[BASHER] = (-200.0, 0.0)  # Shield Bash reaches the caster
    placed[COILER] = (-300.0, 0.0)  # Static Coil's 400 covers the caster
    game = cast_scene(hero, placed)
    S = game.state
    watched = [u for u in hit_by(game, ab, placed, center) if u != CASTER]
    before = {u: snapshot(game, u) for u in watched}
    cast(game, CASTER, ab.name, 1, offset=offset)
    run(game, steps_for(1.5))  # one landing
    if how == "order":
        run(game, 1, action(CASTER, A_MOVE, offset=(2, 6)))
    elif how == "stun":
        cast(game, BASHER, "Shield Bash", 1, target=CASTER)
    else:
        cast(game, COILER, "Static Coil", 1)
    assert S.ui[G, CASTER, ORDER] != O_CHANNEL, f"{how}: still channelling"
    run(game, steps_for(ab.channel_time))
    check_units(game, f"{hero}/{ab.name} after a {how}", ab, 1, before, set(watched), n=1, since=10**6)


# ---------------------------------------------------------------------------------------------- blink
def landing_of(ab: Ability, offset: tuple[int, int]) -> tuple[float, float]:
    """Where a blink from ARENA with ``offset`` lands, relative to ARENA: the offset point, pulled in along the
    way to ``cast_range`` when beyond it."""
    cell = max(ab.cast_range, 200.0) / 4.0
    dx, dy = cell * (offset[0] - 4), cell * (offset[1] - 4)
    scale = min(1.0, ab.cast_range / math.hypot(dx, dy))
    return dx * scale, dy * scale


@pytest.mark.parametrize("hero, slot, ab", with_field("blink"))
def test_a_blink_lands_on_the_point_clamped_to_cast_range_and_its_effects_land_around_it(hero, slot, ab):
    """blink: the diagonal corner offset asks for cast_range x sqrt 2 (pulled in to cast_range), the half-range
    offset lands as asked; an affected unit beside the start is beyond the landing's radius."""
    assert ab.target == T_POINT, f"{ab.name}: a blink needs a point"
    for level in levels(ab):
        for offset in ((8, 8), (6, 4)):
            at = f"{hero}/{ab.name} level {level} offset {offset}"
            landing = landing_of(ab, offset)
            placed = {CASTER: (0.0, 0.0), **area(ab, landing)}
            placed[ENEMIES[0] if ab.affects == 1 else ALLIES[3]] = (0.0, -100.0)  # beside the start
            game = cast_scene(hero, placed)
            S = game.state
            assert walkable(game, ARENA[0] + landing[0], ARENA[1] + landing[1])
            before = {u: snapshot(game, u) for u in placed}
            cast(game, CASTER, ab.name, level, offset=offset)
            assert S.uf[G, CASTER, X] == pytest.approx(ARENA[0] + landing[0], abs=0.05), f"{at}: landing x"
            assert S.uf[G, CASTER, Y] == pytest.approx(ARENA[1] + landing[1], abs=0.05), f"{at}: landing y"
            check_units(game, at, ab, level, before, hit_by(game, ab, placed, landing))


@pytest.mark.parametrize("hero, slot, ab", with_field("blink"))
def test_a_blink_to_unwalkable_ground_leaves_the_caster_and_lands_its_effects_at_the_point(hero, slot, ab):
    point = (160.0, 864.0)  # in the rock north of ARENA (cell 32, 100)
    start = (point[0], point[1] - ab.cast_range)  # the offset (4, 8) is the cast range due north
    placed = {CASTER: start, **area(ab, point)}
    game = cast_scene(hero, placed)
    S = game.state
    assert not walkable(game, ARENA[0] + point[0], ARENA[1] + point[1])
    assert walkable(game, ARENA[0] + start[0], ARENA[1] + start[1])
    before = {u: snapshot(game, u) for u in placed}
    cast(game, CASTER, ab.name, 1, offset=(4, 8))
    assert S.uf[G, CASTER, X] == pytest.approx(ARENA[0] + start[0], abs=1e-3)
    assert S.uf[G, CASTER, Y] == pytest.approx(ARENA[1] + start[1], abs=1e-3)
    check_units(game, f"{hero}/{ab.name}", ab, 1, before, hit_by(game, ab, placed, point))


@pytest.mark.parametrize("hero, slot, ab", with_field("blink"))
def test_a_blink_is_refused_without_mana_and_on_cooldown(hero, slot, ab):
    for level in levels(ab):
        at = f"{hero}/{ab.name} level {level}"
        game = cast_scene(hero, {CASTER: (0.0, 0.0)})
        S = game.state
        S.hi[G, CASTER, ABILITY_LEVEL + slot] = level
        order = action(CASTER, A_ABILITY0 + slot, -1, (6, 4))
        cost = at_level(ab.mana, ab.mana_per_level, level)
        S.uf[G, CASTER, MANA] = cost - 1.0
        run(game, 1, order)
        assert S.hi[G, CASTER, INVALID_ACTIONS] == 1, f"{at}: cast one mana short"
        assert S.uf[G, CASTER, X] == ARENA[0] and S.uf[G, CASTER, MANA] == pytest.approx(cost - 1.0)
        S.uf[G, CASTER, MANA] = MANA_OF_CASTER
        cast(game, CASTER, ab.name, level, offset=(6, 4))
        cooldown = int(S.hi[G, CASTER, ABILITY_CD + slot])
        place(game, CASTER, 0.0, 0.0)
        refused = 0
        while refused <= cooldown:
            invalid = int(S.hi[G, CASTER, INVALID_ACTIONS])
            run(game, 1, action(CASTER, A_ABILITY0 + slot, -1, (6, 4)))
            if S.hi[G, CASTER, INVALID_ACTIONS] == invalid:
                break
            refused += 1
            assert S.uf[G, CASTER, X] == ARENA[0], f"{at}: blinked on cooldown"
        assert refused == math.ceil(cooldown / FRAMES_PER_STEP), f"{at}: refused {refused} steps"
        assert S.uf[G, CASTER, X] == pytest.approx(ARENA[0] + landing_of(ab, (6, 4))[0], abs=0.05)


# ---------------------------------------------------------------------------------------------- aura
def aura_of(ab: Ability, level: int) -> dict[str, float]:
    """The buffs an aura gives at ``level``: armor and damage grow 50% per level, regeneration by heal_per_level."""
    grow = 1.0 + 0.5 * (level - 1)
    return {"armor": ab.buff_armor * grow, "damage": ab.buff_damage * grow,
            "regen": at_level(ab.heal, ab.heal_per_level, level)}


def aura_on(game, u: int) -> dict[str, float]:
    S = game.state
    return {"armor": float(S.uf[G, u, AURA_ARMOR]), "damage": float(S.uf[G, u, AURA_DAMAGE]),
            "regen": float(S.uf[G, u, AURA_REGEN])}


def frames_of_next_step(game) -> range:
    frame = int(game.state.gi[G, G_FRAME])
    return range(frame + 1, frame + 1 + FRAMES_PER_STEP)


def run_to_refresh(game) -> None:
    """Steps until one whose frames hold an aura refresh (a multiple of AURA_REFRESH) has run."""
    while not any(f % AURA_REFRESH == 0 for f in frames_of_next_step(game)):
        run(game, 1)
    run(game, 1)


@pytest.mark.parametrize("hero, slot, ab", with_field("aura"))
def test_an_aura_holds_on_allied_heroes_in_its_radius_while_its_owner_lives(hero, slot, ab):
    """aura: at every level, the values on the owner and an ally just inside the radius, none on an ally just
    outside or an enemy inside; they count; set only at the refresh; gone after the owner dies; never cast."""
    assert not ab.ultimate and ab.target == T_NONE and ab.affects == 2
    r = ab.radius
    inside, outside, enemy = ALLIES[0], ALLIES[1], ENEMIES[0]
    for level in range(1, 5):
        at = f"{hero}/{ab.name} level {level}"
        placed = {CASTER: (0.0, 0.0), inside: (r - 1.0, 0.0), outside: (-(r + 1.0), 0.0), enemy: (0.0, r / 2.0)}
        game = cast_scene(hero, placed)
        S = game.state
        S.hi[G, CASTER, ABILITY_LEVEL + slot] = level
        want, none = aura_of(ab, level), aura_of(Ability("none", T_NONE), 1)
        run_to_refresh(game)
        for u in placed:
            assert aura_on(game, u) == pytest.approx(want if u in (CASTER, inside) else none), f"{at}: unit {u}"
        hp = {u: float(S.uf[G, u, HP]) for u in placed}
        run(game, 1)
        for u in (CASTER, inside):
            a = ARMOR_OF_TARGETS + want["armor"]
            assert kernels.physical_multiplier(S.uf, S.ui, G, u) == pytest.approx(armor_factor(a), rel=1e-5)
            assert kernels.attack_damage(S.uf, S.ui, G, u) == pytest.approx(S.uf[G, u, DAMAGE] + want["damage"])
            gained = float(S.uf[G, u, HP]) - hp[u]
            assert gained == pytest.approx(want["regen"] * FRAMES_PER_STEP / FRAMES_PER_SECOND, abs=1e-3), at
        assert S.uf[G, outside, HP] == hp[outside] and S.uf[G, enemy, HP] == hp[enemy]
        # the refresh: step by step, the values follow a move only in a step that holds a refresh frame
        place(game, inside, r + 50.0, 0.0)
        place(game, outside, -(r - 50.0), 0.0)
        while True:
            refresh = any(f % AURA_REFRESH == 0 for f in frames_of_next_step(game))
            run(game, 1)
            if refresh:
                break
            assert aura_on(game, inside) == pytest.approx(want) and aura_on(game, outside) == pytest.approx(none)
        assert aura_on(game, inside) == pytest.approx(none) and aura_on(game, outside) == pytest.approx(want)
        # never cast
        mana = float(S.uf[G, CASTER, MANA])
        run(game, 1, action(CASTER, A_ABILITY0 + slot))
        assert S.hi[G, CASTER, INVALID_ACTIONS] == 1, f"{at}: a passive aura was cast"
        assert S.uf[G, CASTER, MANA] == mana and S.hi[G, CASTER, ABILITY_CD + slot] == 0
        # the owner dies: gone at the next refresh
        kernels.deal_damage(S, G, enemy, CASTER, 2.0 * HEALTH, 2)  # pure, more than its health
        run(game, 1)
        assert S.ui[G, CASTER, ALIVE] == 0
        run_to_refresh(game)
        assert aura_on(game, outside) == pytest.approx(none), f"{at}: the aura outlived its owner"


def aura_pairs() -> list:
    """Every two aura abilities that give the same kind of buff (two owners' auras on one ally)."""
    auras = [(hero.name, slot, ab) for hero in HEROES for slot, ab in enumerate(hero.abilities) if ab.aura]
    out = []
    for kind in ("armor", "damage", "regen"):
        of_kind = [a for a in auras if aura_of(a[2], 1)[kind] > 0]
        out += [pytest.param(kind, a, b, id=f"{a[0]}/{a[2].name}+{b[0]}/{b[2].name}")
                for a, b in itertools.combinations(of_kind, 2)]
    return out


@pytest.mark.parametrize("kind, first, second", aura_pairs())
def test_the_strongest_aura_of_a_kind_counts_not_their_sum(kind, first, second):
    (hero_a, slot_a, ab_a), (hero_b, slot_b, ab_b) = first, second
    for level_a, level_b in ((4, 1), (1, 4)):
        placed = {CASTER: (0.0, 0.0), 1: (100.0, 0.0), 2: (50.0, 0.0)}
        game = cast_scene(hero_a, placed, radiant=(hero_a, hero_b) + FILL[2:])
        S = game.state
        S.hi[G, 0, ABILITY_LEVEL + slot_a] = level_a
        S.hi[G, 1, ABILITY_LEVEL + slot_b] = level_b
        run_to_refresh(game)
        a, b = aura_of(ab_a, level_a)[kind], aura_of(ab_b, level_b)[kind]
        assert aura_on(game, 2)[kind] == pytest.approx(max(a, b)), f"{kind}: {a} and {b} (not {a + b})"


# ---------------------------------------------------------------------------------------------- global
def far_spots(game, n: int, clear: float = 1500.0) -> list[tuple[float, float]]:
    """``n`` spots spread over the map (relative to ARENA), each ``clear`` from every building, camp, rune and
    fountain: greedily the open grid point farthest from ARENA and the spots already taken."""
    D = game.data
    marks = [tuple(p) for p in D.building_pos.reshape(-1, 2)] + [tuple(p) for p in D.camps] \
        + [tuple(p) for p in D.rune_spots] + [tuple(p) for p in D.fountain]
    grid = [(float(x), float(y)) for x in range(1000, 15001, 500) for y in range(1000, 15001, 500)]
    open_ = [p for p in grid if min(math.dist(p, m) for m in marks) >= clear]
    taken = [ARENA]
    for _ in range(n):
        taken.append(max(open_, key=lambda p: min(math.dist(p, t) for t in taken)))
    return [(x - ARENA[0], y - ARENA[1]) for x, y in taken[1:]]


@pytest.mark.parametrize("hero, slot, ab", with_field("global_cast"))
def test_a_global_cast_lands_on_every_hero_of_its_side_wherever_it_is(hero, slot, ab):
    """global_cast: every living hero of the affected side, anywhere on the map, seen or not, shows the table's
    effects at the level; the other side, a dead hero of the affected side and creeps show nothing."""
    assert ab.target == T_NONE and ab.affects in (1, 2), f"{ab.name}: a global cast is a no-target spell"
    side = set(ENEMIES) if ab.affects == 1 else {CASTER, *ALLIES}
    dead = ENEMIES[-1] if ab.affects == 1 else ALLIES[-1]
    for level in levels(ab):
        at = f"{hero}/{ab.name} level {level}"
        game = new_game()
        spots = far_spots(game, 9)
        placed = {CASTER: (0.0, 0.0), **dict(zip((*ALLIES, *ENEMIES), spots))}
        game = cast_scene(hero, placed)
        S = game.state
        S.ui[G, dead, ALIVE] = 0
        S.uf[G, dead, HP] = 0.0
        S.hf[G, dead, RESPAWN] = 1e6
        creeps = [spawn_creep(game, team, "melee", dx=0.0, dy=dy, k=k)
                  for k, (team, dy) in enumerate(((RADIANT, 150.0), (DIRE, -150.0)))]
        for u in creeps:
            S.uf[G, u, HP] = 0.5 * S.uf[G, u, HP_MAX]  # room for a heal
        see(game)
        if ab.affects == 1:
            assert any(S.vis[G, RADIANT, u] == 0 for u in side if u != dead), f"{at}: every target is seen"
        before = {u: snapshot(game, u) for u in range(10)}
        creeps_before = {u: {**snapshot(game, u), "stun": 0} for u in creeps}  # held by a stun that runs
        cast(game, CASTER, ab.name, level)
        check_units(game, at, ab, level, before, side - {dead})
        for u in creeps:
            assert {**snapshot(game, u), "stun": 0} == creeps_before[u], f"{at}: creep {u} was affected"
        assert S.ui[G, dead, ALIVE] == 0 and S.uf[G, dead, HP] == 0.0, f"{at}: a dead hero was affected"
