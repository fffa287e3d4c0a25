"""Every ability of the patch, cast on a hand-set state and checked against its row of the ability table.

One case per ability of every hero of the patch (ids ``"Hero/Ability"``), driven by the patch's heroes, so a
hero added to the patch is covered without touching this file. The caster is the hero in Radiant slot 0
(``GameConfig`` lineups); the other units are heroes of either team placed around it (``rules_arena``), held
in place and disarmed, with known armor, no regeneration and room to lose or gain health.

* ``test_ability_lands_as_its_table_says``, at level 1 and the top level (3 for an ultimate, 4 otherwise; the
  ultimate is slot 3, as the skill rule has it):
  with the target (unit or point) just inside cast range, the cast goes off at once; it spends the mana and
  sets the cooldown at that level; every unit it must affect shows each effect the table gives (damage by type
  through armor 5 or 25% magic resistance, stun / slow / silence / damage-over-time / buff frames, slow
  fraction, damage over time per second and its total, heal, buff armor / damage / speed), every other unit
  nearby shows nothing; a step later each status has run 4 frames, and once the longest has run out none is
  left and the damage over time has dealt dps x its duration in all. An area's units: one just inside the
  radius is hit, one just outside is not, one of the other team on the area is not. A projectile's effects
  land when it arrives (distance / speed), not before.
* ``test_ability_out_of_range_walks_then_casts`` (abilities that take a unit or a point): with the target just
  beyond reach, the order is accepted, the caster walks, nothing is spent; the cast goes off in the frame after
  the walk brings the caster within reach (frames counted by hand from its speed).
* ``test_ability_refused_without_mana``: one mana short, the action is refused (counted in the hero's
  INVALID_ACTIONS, nothing spent); with exactly the cost it goes off.
* ``test_ability_refused_on_cooldown``: recast every step after a cast, the action is refused for the
  ceil(cooldown frames / 4) steps the cooldown lasts, then goes off.

The rules, as the README gives them and computed by hand here: a value at level L is base + per-level x (L-1);
damage over time grows 50% per level; a duration of s seconds lasts round(30 s) frames; a cast reaches
``cast_range`` + the hull (kernels.constants.HULL, 40) from the caster's centre; a point ability's offset cells
are max(range, 200) / 4 apart; a unit-offset ability's are ``TARGET_OFFSET_STEP`` (100).

Fields: every numeric ``Ability`` field an ability sets (differs from the dataclass default) must have its
rule checked somewhere. ``CHECKED_HERE`` names the fields this file checks. A field it does not know fails
the ability's case with a message naming the field, unless ``KNOWN_ELSEWHERE`` maps it to the test file that
checks it (``Elsewhere(test_file, casting_too)``): then this file skips that ability's effects (the mechanic
changes how it lands) and, when ``casting_too``, its casting rules as well (a passive, say, is never cast).
``test_known_elsewhere_names_real_tests`` keeps that map honest: each file exists and names its field.
The merge of new mechanics fills ``KNOWN_ELSEWHERE``; nothing else here needs to change.
"""

from __future__ import annotations

import math
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import NamedTuple

import pytest

from rules_arena import (
    ARENA, G, MAGIC_RESISTANCE, action, armor_factor, at_level, disarm, isolate, new_game, no_regen,
    place, run, see,
)
from fivestack.game.kernels.constants import HULL
from fivestack.game.layout import (
    A_ABILITY0, ABILITY_CD, ABILITY_LEVEL, ARMOR, BUFF, BUFF_ARMOR, BUFF_DAMAGE, BUFF_SPEED, DOT, DOT_DPS,
    FRAMES_PER_SECOND, FRAMES_PER_STEP, HP, HP_MAX, INVALID_ACTIONS, MAGIC_RES, MANA, MANA_MAX, MOVE_SPEED, ORDER,
    O_CAST, O_HOLD, SILENCE, SLOW, SLOW_FRAC, STEP_SECONDS, STUN, TARGET_OFFSET_STEP, T_NONE, T_POINT, T_UNIT,
    T_UNIT_OFFSET, X, Y,
)
from fivestack.game.patch import ABILITY_COLUMNS, HEROES, Ability


class Elsewhere(NamedTuple):
    """Where a field's rule is tested: ``test_file`` (from the repository root); ``casting_too``: that file also
    tests the casting rules (range, mana, cooldown) of the abilities that set it, so this one skips them."""

    test_file: str
    casting_too: bool = False


# The Ability fields whose rules this file checks (the ones every effect of today's abilities uses).
CHECKED_HERE = frozenset({
    "target", "affects", "cast_range", "radius", "damage", "damage_per_level", "damage_type", "stun", "slow",
    "slow_time", "silence", "dot", "dot_time", "heal", "heal_per_level", "buff_armor", "buff_damage", "buff_speed",
    "buff_time", "projectile_speed", "mana", "mana_per_level", "cooldown", "cooldown_per_level", "ultimate",
})
# field -> where its rule is tested instead (filled when a mechanic with its own rule tests lands).
MECHANICS = "tests/game/test_rules_mechanics.py"
KNOWN_ELSEWHERE: dict[str, Elsewhere] = {
    **{field: Elsewhere(MECHANICS) for field in (
        "summon_count", "summon_hp", "summon_damage", "summon_time", "invisible_time", "channel_time", "global_cast")},
    "blink": Elsewhere(MECHANICS, casting_too=True),  # never walks to cast: the point is pulled in to the range
    "aura": Elsewhere(MECHANICS, casting_too=True),  # a passive: never cast
}

CASTER = 0
ALLIES = (1, 2, 3, 4)
ENEMIES = (5, 6, 7, 8, 9)
ARMOR_OF_TARGETS = 5.0
HEALTH, HEALTH_MAX = 1000.0, 10_000.0  # every placed unit: no damage kills it, no heal is capped
MANA_OF_CASTER = 5000.0
REPO = Path(__file__).resolve().parents[2]


def every_ability(targeted: bool = False) -> list:
    """``pytest.param(hero, slot, ability, id="Hero/Ability")`` for every ability of every patch hero (only
    those that take a target, a unit or a point, when ``targeted``)."""
    return [pytest.param(hero.name, slot, ab, id=f"{hero.name}/{ab.name}")
            for hero in HEROES for slot, ab in enumerate(hero.abilities) if not targeted or ab.target != T_NONE]


def levels(ab: Ability) -> tuple[int, int]:
    """The first and the top level: an ultimate has 3 levels (hero levels 6, 12, 18), a basic ability 4."""
    return (1, 3) if ab.ultimate else (1, 4)


def fields_set(ab: Ability) -> dict[str, object]:
    """The numeric fields (table columns) whose value differs from ``Ability``'s default."""
    out = {}
    for f in fields(Ability):
        if f.name in ABILITY_COLUMNS and (f.default is MISSING or getattr(ab, f.name) != f.default):
            out[f.name] = getattr(ab, f.name)
    return out


def rules_of(hero: str, ab: Ability, effects: bool) -> None:
    """Fail on a field nobody checks; skip when the ability's effects (or its casting, when ``effects`` is
    False) are tested in another file."""
    used = fields_set(ab)
    unknown = sorted(set(used) - CHECKED_HERE - set(KNOWN_ELSEWHERE))
    if unknown:
        pytest.fail(f"{hero}/{ab.name} sets {', '.join(f'{k}={used[k]!r}' for k in unknown)}: a field "
                    f"{Path(__file__).name} does not check. Add its rule here (CHECKED_HERE and a check), or map "
                    "it in KNOWN_ELSEWHERE to the test file that checks it", pytrace=False)
    elsewhere = {k: KNOWN_ELSEWHERE[k] for k in used if k in KNOWN_ELSEWHERE}
    skipped = {k: e for k, e in elsewhere.items() if effects or e.casting_too}
    if skipped:
        pytest.skip(f"{hero}/{ab.name}: " + "; ".join(f"{k} is tested in {e.test_file}" for k, e in skipped.items()))
    if ab.target not in (T_NONE, T_POINT, T_UNIT, T_UNIT_OFFSET) or ab.affects not in (1, 2, 3) \
            or ab.damage_type not in (0, 1, 2):
        pytest.fail(f"{hero}/{ab.name}: target {ab.target}, affects {ab.affects}, damage_type {ab.damage_type}: "
                    "a kind this test does not know", pytrace=False)
    if ab.target == T_NONE and ab.cast_range != 0.0:
        pytest.fail(f"{hero}/{ab.name}: a no-target ability with a cast range ({ab.cast_range}) that no rule "
                    "reads", pytrace=False)


# ---------------------------------------------------------------------------------------------- the scene
@dataclass
class Scene:
    """One hand-set cast: where everyone stands and what the order names."""

    game: object
    slot: int
    ab: Ability
    level: int
    target: int  # the unit the order names (-1: none)
    offset: tuple[int, int]  # the order's offset cells (4, 4: none)
    spot: tuple[float, float]  # where the cast must reach (the target unit or the point), relative to ARENA
    center: tuple[float, float] | None  # the area's centre relative to ARENA (None: one unit only)
    placed: dict[int, tuple[float, float]]  # unit -> position relative to ARENA

    @property
    def S(self):
        return self.game.state

    def order(self, delay: int = 3):
        return action(CASTER, A_ABILITY0 + self.slot, self.target, self.offset, delay=delay)

    def mana_cost(self) -> float:
        return at_level(self.ab.mana, self.ab.mana_per_level, self.level)

    def cooldown_frames(self) -> int:
        return round(at_level(self.ab.cooldown, self.ab.cooldown_per_level, self.level) * FRAMES_PER_SECOND)

    def spent(self) -> bool:
        """Whether the cast went off (its cooldown started)."""
        return int(self.S.hi[G, CASTER, ABILITY_CD + self.slot]) > 0

    def invalid(self) -> int:
        return int(self.S.hi[G, CASTER, INVALID_ACTIONS])

    def reach(self) -> float:
        """How far from the caster's centre the cast goes off: the cast range plus the hull."""
        return self.ab.cast_range + HULL


def affected_team(ab: Ability) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(the units of the team the ability affects, the units of the other team) among those placed."""
    return (ENEMIES, ALLIES) if ab.affects == 1 else (ALLIES, ENEMIES)


def point_offset(ab: Ability, beyond: bool) -> tuple[tuple[int, int], float]:
    """A point ability's offset cells and the point's distance: the farthest point along +x within reach, or
    (``beyond``) the nearest offset point beyond reach."""
    step = max(ab.cast_range, 200.0) / 4.0
    reach = ab.cast_range + HULL
    if not beyond:
        ox = 4 + min(4, math.floor(reach / step))
        return (ox, 4), (ox - 4) * step
    cells = [((ox, oy), step * math.hypot(ox - 4, oy - 4)) for ox in range(9) for oy in range(9)]
    return min((c for c in cells if c[1] > reach), key=lambda c: c[1])


def scene(hero: str, slot: int, ab: Ability, level: int, beyond: bool = False) -> Scene:
    """The hand-set state of one cast of ``ab`` at ``level`` by ``hero`` (Radiant slot 0): the target (unit or
    point) just inside reach (``beyond``: just outside), and around the area's centre one unit of the
    affected team just inside the radius, one just outside, and one of the other team inside; around a single
    target, one of its team 100 away; around a self-cast, one ally and one enemy 100 away."""
    fill = tuple(h.name for h in HEROES[:5])
    game = new_game(radiant=(hero,) + fill[1:], dire=fill)
    pool, others = affected_team(ab)
    pool = [u for u in pool if u != CASTER]
    reach = ab.cast_range + HULL
    distance = reach + 1.0 if beyond else reach - 1.0
    placed = {CASTER: (0.0, 0.0)}
    target, offset, spot, center = -1, (4, 4), (0.0, 0.0), None
    if ab.target in (T_UNIT, T_UNIT_OFFSET):
        if ab.affects == 3:
            pytest.fail(f"{hero}/{ab.name}: a unit-targeted ability that affects only its caster", pytrace=False)
        target = pool.pop(0)
        spot = placed[target] = (distance, 0.0)
        if ab.target == T_UNIT_OFFSET:
            offset = (6, 4)
            center = (distance + 2 * TARGET_OFFSET_STEP, 0.0)
        elif ab.projectile_speed > 0.0:
            if ab.radius > 0.0:
                pytest.fail(f"{hero}/{ab.name}: a projectile with a radius; this test does not know where its "
                            "area would land", pytrace=False)
        elif ab.radius > 0.0:
            center = spot
    elif ab.target == T_POINT:
        offset, d = point_offset(ab, beyond)
        spot = (d * (offset[0] - 4) / math.hypot(offset[0] - 4, offset[1] - 4),
                d * (offset[1] - 4) / math.hypot(offset[0] - 4, offset[1] - 4))
        center = spot
    elif ab.radius > 0.0:
        center = (0.0, 0.0)
    if ab.target == T_POINT and ab.radius <= 0.0:
        pytest.fail(f"{hero}/{ab.name}: a point ability without a radius affects nobody", pytrace=False)
    if center is not None:
        r = ab.radius
        cx, cy = center
        placed[pool.pop(0)] = (cx, cy + r - 1.0)  # just inside
        placed[pool.pop(0)] = (cx, cy - r - 1.0)  # just outside
        placed[others[0]] = (cx - r / 2.0, cy)  # the other team, inside
    elif target >= 0:
        placed[pool.pop(0)] = (spot[0], spot[1] + 100.0)  # the target's teammate, beside it
    else:  # self-cast
        placed[ALLIES[0]] = (0.0, 100.0)
        placed[ENEMIES[0]] = (0.0, -100.0)
    isolate(game, *placed)
    S = game.state
    S.hi[G, :, ABILITY_LEVEL:ABILITY_LEVEL + 4] = 0  # no other ability of anyone's (a passive, an aura) plays
    S.hi[G, CASTER, ABILITY_LEVEL + slot] = level
    for u, (dx, dy) in placed.items():
        place(game, u, dx, dy)
        no_regen(game, u)
        disarm(game, u)
        S.uf[G, u, ARMOR] = ARMOR_OF_TARGETS
        S.uf[G, u, HP_MAX] = HEALTH_MAX
        S.uf[G, u, HP] = HEALTH
        S.ui[G, u, ORDER] = O_HOLD  # stands its ground: walks to no one (an idle hero walks to a near enemy)
    S.uf[G, CASTER, MANA_MAX] = S.uf[G, CASTER, MANA] = MANA_OF_CASTER
    see(game)
    return Scene(game, slot, ab, level, target, offset, spot, center, placed)


def hits(sc: Scene) -> set[int]:
    """The units the ability must affect, by the README's rule: the caster (self), the target (single unit),
    or every unit of the affected team within the radius of the centre (the caster too, for allies)."""
    ab = sc.ab
    if ab.affects == 3:
        return {CASTER}
    if sc.center is None:
        return {sc.target if sc.target >= 0 else CASTER}
    team = set(ENEMIES) if ab.affects == 1 else set(ALLIES) | {CASTER}
    cx, cy = sc.center
    return {u for u, (x, y) in sc.placed.items()
            if u in team and math.hypot(x - cx, y - cy) <= ab.radius}


# ---------------------------------------------------------------------------------------------- the effects
STATUS_FRAMES = {"stun": STUN, "slow": SLOW, "silence": SILENCE, "dot": DOT, "buff": BUFF}
STATUS_VALUES = {"slow_frac": SLOW_FRAC, "dot_dps": DOT_DPS, "buff_armor": BUFF_ARMOR, "buff_damage": BUFF_DAMAGE,
                 "buff_speed": BUFF_SPEED}


def snapshot(game, u: int) -> dict[str, float]:
    S = game.state
    out = {"hp": float(S.uf[G, u, HP])}
    out.update({k: int(S.ui[G, u, col]) for k, col in STATUS_FRAMES.items()})
    out.update({k: float(S.uf[G, u, col]) for k, col in STATUS_VALUES.items()})
    return out


def frames(seconds: float) -> int:
    return round(seconds * FRAMES_PER_SECOND)


def expected(ab: Ability, level: int, before: dict[str, float]) -> dict[str, float]:
    """What a unit shows right after the ability lands on it, from the table by hand."""
    damage = at_level(ab.damage, ab.damage_per_level, level)
    through = {0: armor_factor(ARMOR_OF_TARGETS), 1: 1.0 - MAGIC_RESISTANCE, 2: 1.0}[ab.damage_type]
    heal = at_level(ab.heal, ab.heal_per_level, level)
    out = dict(before)
    out["hp"] = min(HEALTH_MAX, before["hp"] - max(damage, 0.0) * through + max(heal, 0.0))
    if ab.stun > 0:
        out["stun"] = frames(ab.stun)
    if ab.slow > 0:
        out["slow"], out["slow_frac"] = frames(ab.slow_time), ab.slow
    if ab.silence > 0:
        out["silence"] = frames(ab.silence)
    if ab.dot > 0:
        out["dot"], out["dot_dps"] = frames(ab.dot_time), ab.dot * (1.0 + 0.5 * (level - 1))
    if ab.buff_time > 0:
        out["buff"] = frames(ab.buff_time)
        out["buff_armor"], out["buff_damage"], out["buff_speed"] = ab.buff_armor, ab.buff_damage, ab.buff_speed
    return out


def assert_shows(label: str, got: dict[str, float], want: dict[str, float], frames_since: int = 0) -> None:
    """``got`` equals ``want``, status frames less ``frames_since`` (frames that passed after landing)."""
    for k, v in want.items():
        if k in STATUS_FRAMES and v > 0:
            v = v - frames_since
        assert got[k] == pytest.approx(v, abs=1e-3), f"{label}: {k} is {got[k]}, the table says {v}"


# ---------------------------------------------------------------------------------------------- the tests
@pytest.mark.parametrize("hero, slot, ab", every_ability())
def test_ability_lands_as_its_table_says(hero, slot, ab):
    rules_of(hero, ab, effects=True)
    # the skill rule (progression.learn_skill) caps slot 3 at 3 levels and the others at 4: the flag must agree
    assert ab.ultimate == (slot == 3), f"{hero}/{ab.name} in slot {slot} has ultimate={ab.ultimate}"
    for level in levels(ab):
        sc = scene(hero, slot, ab, level)
        S = sc.S
        at = f"{hero}/{ab.name} level {level}"
        assert all(S.uf[G, u, MAGIC_RES] == pytest.approx(MAGIC_RESISTANCE) for u in sc.placed)
        before = {u: snapshot(sc.game, u) for u in sc.placed}
        run(sc.game, 1, sc.order())
        assert sc.invalid() == 0, f"{at}: refused"
        assert sc.spent(), f"{at}: did not go off with its target {math.hypot(*sc.spot):.0f} away, in reach"
        assert S.hi[G, CASTER, ABILITY_CD + slot] == sc.cooldown_frames(), f"{at}: cooldown"
        assert S.uf[G, CASTER, MANA] == pytest.approx(MANA_OF_CASTER - sc.mana_cost()), f"{at}: mana"
        hit = hits(sc)
        frames_since = 0
        if ab.projectile_speed > 0.0:  # nothing yet; it lands distance / speed later
            (u,) = hit
            assert snapshot(sc.game, u) == before[u], f"{at}: landed before its projectile arrived"
            steps = 0
            while snapshot(sc.game, u) == before[u] and steps < 100:
                run(sc.game, 1)
                steps += 1
            flight = math.hypot(*sc.spot) / ab.projectile_speed
            assert steps * STEP_SECONDS == pytest.approx(flight, abs=STEP_SECONDS), f"{at}: projectile flight"
            want = expected(ab, level, before[u])
            got = snapshot(sc.game, u)
            counters = [want[k] - got[k] for k in STATUS_FRAMES if want[k] > 0]
            frames_since = counters[0] if counters else 0  # it landed within the last step
            assert 0 <= frames_since < FRAMES_PER_STEP, f"{at}: landed {frames_since} frames ago"
        for u in sc.placed:
            want = expected(ab, level, before[u]) if u in hit else before[u]
            assert_shows(f"{at}, unit {u} ({'hit' if u in hit else 'spared'})", snapshot(sc.game, u), want,
                         frames_since)
        # the statuses run one frame at a time and then out; the damage over time comes to dps x dot_time
        landed = {u: expected(ab, level, before[u]) for u in hit}
        run(sc.game, 1)
        for u in hit:
            for k in STATUS_FRAMES:
                if landed[u][k] > 0:
                    left = max(0, landed[u][k] - frames_since - FRAMES_PER_STEP)
                    assert snapshot(sc.game, u)[k] == left, f"{at}: unit {u}'s {k} a step later"
        longest = max((landed[u][k] for u in hit for k in STATUS_FRAMES), default=0)
        run(sc.game, math.ceil(longest / FRAMES_PER_STEP) + 1)
        burn = ab.dot * (1.0 + 0.5 * (level - 1)) * (1.0 - MAGIC_RESISTANCE) * ab.dot_time if ab.dot > 0 else 0.0
        for u in hit:
            now = snapshot(sc.game, u)
            assert all(now[k] == 0 for k in STATUS_FRAMES), f"{at}: unit {u}'s statuses outlast the table: {now}"
            assert now["hp"] == pytest.approx(landed[u]["hp"] - burn, abs=1e-2), f"{at}: unit {u}'s burn"


@pytest.mark.parametrize("hero, slot, ab", every_ability(targeted=True))
def test_ability_out_of_range_walks_then_casts(hero, slot, ab):
    rules_of(hero, ab, effects=False)
    for level in levels(ab):
        sc = scene(hero, slot, ab, level, beyond=True)
        S = sc.S
        at = f"{hero}/{ab.name} level {level}"
        ax, ay = ARENA[0] + sc.spot[0], ARENA[1] + sc.spot[1]

        def gap() -> float:
            return math.hypot(float(S.uf[G, CASTER, X]) - ax, float(S.uf[G, CASTER, Y]) - ay)

        start = gap()
        assert start > sc.reach()
        stride = float(S.uf[G, CASTER, MOVE_SPEED]) / FRAMES_PER_SECOND
        walk = math.ceil((start - sc.reach()) / stride)  # frames of walking until in reach
        run(sc.game, 1, sc.order())  # given in the step's last frame: one frame of walking
        assert sc.invalid() == 0, f"{at}: refused instead of walking"
        assert not sc.spent(), f"{at}: went off {start:.1f} away, beyond its reach {sc.reach()}"
        assert S.uf[G, CASTER, MANA] == MANA_OF_CASTER
        assert S.ui[G, CASTER, ORDER] == O_CAST, f"{at}: the cast order was dropped"
        assert gap() == pytest.approx(start - stride, abs=1e-2), f"{at}: the caster did not walk toward its target"
        steps = 1
        while not sc.spent() and steps < 20:
            run(sc.game, 1)
            steps += 1
        # it goes off in the frame after the walk brings it within reach
        assert steps == 1 + math.ceil(walk / FRAMES_PER_STEP), f"{at}: went off after {steps} steps, {walk} frames"
        assert gap() <= sc.reach() + 1e-3, f"{at}: went off {gap():.1f} away"
        assert S.uf[G, CASTER, MANA] == pytest.approx(MANA_OF_CASTER - sc.mana_cost())


@pytest.mark.parametrize("hero, slot, ab", every_ability())
def test_ability_refused_without_mana(hero, slot, ab):
    rules_of(hero, ab, effects=False)
    for level in levels(ab):
        sc = scene(hero, slot, ab, level)
        S = sc.S
        at = f"{hero}/{ab.name} level {level}"
        cost = sc.mana_cost()
        S.uf[G, CASTER, MANA] = cost - 1.0
        run(sc.game, 1, sc.order())
        assert sc.invalid() == 1, f"{at}: cast with {cost - 1} mana of {cost}, not refused"
        assert not sc.spent() and S.ui[G, CASTER, ORDER] != O_CAST
        assert S.uf[G, CASTER, MANA] == pytest.approx(cost - 1.0)
        S.uf[G, CASTER, MANA] = cost
        run(sc.game, 1, sc.order())
        assert sc.invalid() == 1 and sc.spent(), f"{at}: refused with exactly its cost {cost}"
        assert S.uf[G, CASTER, MANA] == pytest.approx(0.0, abs=1e-3)


@pytest.mark.parametrize("hero, slot, ab", every_ability())
def test_ability_refused_on_cooldown(hero, slot, ab):
    rules_of(hero, ab, effects=False)
    for level in levels(ab):
        sc = scene(hero, slot, ab, level)
        S = sc.S
        at = f"{hero}/{ab.name} level {level}"
        run(sc.game, 1, sc.order())
        assert sc.spent() and sc.invalid() == 0, f"{at}: the first cast did not go off"
        cooldown = sc.cooldown_frames()
        assert S.hi[G, CASTER, ABILITY_CD + slot] == cooldown
        for u in sc.placed:
            S.uf[G, u, HP] = HEALTH  # a unit hit by the recast too stays alive
        refused = 0
        while refused <= cooldown:
            mana = float(S.uf[G, CASTER, MANA])
            invalid = sc.invalid()
            run(sc.game, 1, sc.order(delay=0))
            if sc.invalid() == invalid:
                break
            refused += 1
            assert float(S.uf[G, CASTER, MANA]) == mana, f"{at}: mana spent by a refused cast"
        assert refused == math.ceil(cooldown / FRAMES_PER_STEP), f"{at}: refused {refused} steps"
        assert S.hi[G, CASTER, ABILITY_CD + slot] == cooldown - (FRAMES_PER_STEP - 1), f"{at}: no second cast"


def test_known_elsewhere_names_real_tests():
    """Each field in ``KNOWN_ELSEWHERE`` is an Ability field, and its test file exists and names it."""
    for name, where in KNOWN_ELSEWHERE.items():
        assert name in ABILITY_COLUMNS, f"KNOWN_ELSEWHERE names {name!r}, not a numeric Ability field"
        path = REPO / where.test_file
        assert path.is_file(), f"KNOWN_ELSEWHERE: {name} is said to be tested in {where.test_file}, not a file"
        assert name in path.read_text(), f"{where.test_file} never mentions {name}, said to be tested there"


def test_every_patch_hero_has_its_cases():
    """The cases follow the patch: four per hero, ids Hero/Ability, none missing."""
    ids = [p.id for p in every_ability()]
    assert len(ids) == 4 * len(HEROES) == len(set(ids))
