"""What abilities and item actives do once cast: an ability's value at a level, who it affects, its
effects on one unit or an area (``land_ability``; an area's damage over time is a burning ground,
``start_ground`` / ``burn_grounds``), the new mechanics around them (``resolve_ability``: blink, global, summons,
the start of a channel; ``channel_tick``; ``refresh_auras``), teleports, charges and the item actives
(``use_item``). The mechanics' rules are written once, in ``game.heroes.Ability``'s docstring.
"""

from __future__ import annotations

import math

from fivestack.game.jit import kernel
from fivestack.game.kernels.combat import deal_damage, spawn_projectile
from fivestack.game.kernels.creation import set_unit
from fivestack.game.kernels.helpers import dist2, team_of_hero, walkable
from fivestack.game.kernels.spatial import can_be_attacked
from fivestack.game.kernels.stats import refresh_hero
from fivestack.game.layout import (
    ABILITY_LEVEL, ACTIVE, AURA_ARMOR, AURA_DAMAGE, AURA_REGEN, BOUNTY_GOLD, BOUNTY_XP, CAST_ABILITY, CAST_TARGET,
    CAST_X, CAST_Y, DOT_GROUND, GROUND_ABILITY, GROUND_LEFT, GROUND_LEVEL, GROUND_X, GROUND_Y, MANA_RESTORE,
    CHANNEL_LEFT, DAMAGE, HERO_TYPE, INVISIBLE, K_CREEP_MELEE, LIFETIME, O_CHANNEL, O_NONE, SLOT_CREEPS, SUMMONER,
    ALIVE, BUFF, BUFF_ARMOR, BUFF_DAMAGE, BUFF_SPEED, DOT, DOT_DPS, DOT_SOURCE, FRAMES_PER_SECOND, HP, HP_MAX,
    IT_CHARGES, IT_COOLDOWN, IT_ID, KIND, K_ANCIENT, K_BARRACKS, K_FOUNTAIN, K_TOWER, MANA_BUFF, MAX_UNITS,
    N_HEROES, N_INVENTORY, ORDER, O_TELEPORT, REGEN, REGEN_BUFF, SILENCE, SLOW, SLOW_FRAC, STUN, TEAM, TP_CHANNEL,
    TP_X, TP_Y, T_NONE, T_UNIT, X, Y,
)
from fivestack.game.patch import (
    AB_AURA, AB_BLINK, AB_CHANNEL_TIME, AB_GLOBAL, AB_HEAL_LVL, AB_INVISIBLE_TIME, AB_SUMMON_COUNT,
    AB_SUMMON_DAMAGE, AB_SUMMON_HP, AB_SUMMON_TIME, CR_MELEE, H_ABILITY0,
    AB_AFFECTS, AB_BUFF_ARMOR, AB_BUFF_DAMAGE, AB_BUFF_SPEED, AB_BUFF_TIME, AB_DAMAGE, AB_DAMAGE_TYPE, AB_DOT,
    AB_DOT_TIME, AB_HEAL, AB_PROJ_SPEED, AB_RADIUS, AB_SILENCE, AB_SLOW, AB_SLOW_TIME, AB_STUN, AB_TARGET,
    ACT_AREA_HEAL, ACT_BLINK, ACT_HEAL_OVER_TIME, ACT_MANA_OVER_TIME, ACT_STUN, ACT_TELEPORT, I_ACTIVE, I_AMOUNT,
    I_CHARGES, I_COOLDOWN, I_DURATION, I_RANGE, R_TP_TIME,
)


@kernel
def ability_value(abil_t, a, base_col, level):
    return abil_t[a, base_col] + abil_t[a, base_col + 1] * (level - 1)


@kernel
def level_growth(level):
    """The factor of a value with no per-level column of its own (damage over time, an aura's bonuses): half its
    base more per level above the first."""
    return 1.0 + 0.5 * (level - 1)


@kernel
def affects(ui, g, caster, t, mode):
    """mode 1: enemies (not buildings), 2: allies, 3: the caster only."""
    if ui[g, t, ALIVE] == 0:
        return False
    if mode == 3:
        return t == caster
    kind = ui[g, t, KIND]
    if kind == K_TOWER or kind == K_BARRACKS or kind == K_ANCIENT or kind == K_FOUNTAIN:
        return False
    same = ui[g, t, TEAM] == ui[g, caster, TEAM]
    return same if mode == 2 else not same


@kernel
def interrupt_channel(ui, g, h):
    """A stun or a silence ends hero ``h``'s channel (a new order ends it in ``apply_action``)."""
    if ui[g, h, ORDER] == O_CHANNEL:
        ui[g, h, ORDER] = O_NONE


@kernel
def apply_effects(S, D, g, caster, t, a, level):
    """Every effect of ability ``a`` at ``level`` on one unit ``t``."""
    uf, ui = S.uf, S.ui
    abil_t = D.ability_table
    dmg = ability_value(abil_t, a, AB_DAMAGE, level)
    if dmg > 0.0:
        deal_damage(S, g, caster, t, dmg, int(abil_t[a, AB_DAMAGE_TYPE]))
    heal = ability_value(abil_t, a, AB_HEAL, level)
    if heal > 0.0:
        uf[g, t, HP] = min(uf[g, t, HP_MAX], uf[g, t, HP] + heal)
    if not can_be_attacked(ui, g, t) and ui[g, t, TEAM] != ui[g, caster, TEAM]:
        return
    stun = abil_t[a, AB_STUN] * FRAMES_PER_SECOND
    if stun > 0:
        ui[g, t, STUN] = max(ui[g, t, STUN], int(stun))
        if t < N_HEROES:
            S.hf[g, t, TP_CHANNEL] = 0.0  # a stun interrupts a town portal
            interrupt_channel(ui, g, t)
    if abil_t[a, AB_SLOW] > 0.0:
        ui[g, t, SLOW] = max(ui[g, t, SLOW], int(abil_t[a, AB_SLOW_TIME] * FRAMES_PER_SECOND))
        uf[g, t, SLOW_FRAC] = abil_t[a, AB_SLOW]
    if abil_t[a, AB_SILENCE] > 0.0:
        ui[g, t, SILENCE] = max(ui[g, t, SILENCE], int(abil_t[a, AB_SILENCE] * FRAMES_PER_SECOND))
        if t < N_HEROES:
            interrupt_channel(ui, g, t)
    if abil_t[a, AB_DOT] > 0.0:
        ui[g, t, DOT] = int(abil_t[a, AB_DOT_TIME] * FRAMES_PER_SECOND)
        uf[g, t, DOT_DPS] = abil_t[a, AB_DOT] * level_growth(level)
        ui[g, t, DOT_SOURCE] = caster
        ui[g, t, DOT_GROUND] = 0  # a status of its own (``apply_area`` marks a burning ground's)
    if abil_t[a, AB_BUFF_TIME] > 0.0:
        ui[g, t, BUFF] = int(abil_t[a, AB_BUFF_TIME] * FRAMES_PER_SECOND)
        uf[g, t, BUFF_ARMOR] = abil_t[a, AB_BUFF_ARMOR]
        uf[g, t, BUFF_DAMAGE] = abil_t[a, AB_BUFF_DAMAGE]
        uf[g, t, BUFF_SPEED] = abil_t[a, AB_BUFF_SPEED]
    if abil_t[a, AB_INVISIBLE_TIME] > 0.0:
        ui[g, t, INVISIBLE] = max(ui[g, t, INVISIBLE], int(abil_t[a, AB_INVISIBLE_TIME] * FRAMES_PER_SECOND))


@kernel
def apply_area(S, D, g, caster, a, level, cx, cy, radius):
    """Every effect of ability ``a`` on each unit it affects within ``radius`` of (cx, cy). An area's damage
    over time is a burning ground (``start_ground``): the units inside now start burning at once."""
    uf, ui = S.uf, S.ui
    mode = int(D.ability_table[a, AB_AFFECTS])
    ground = D.ability_table[a, AB_DOT] > 0.0
    if ground:
        start_ground(S, D, g, caster, a, level, cx, cy)
    r2 = radius * radius
    for t in range(MAX_UNITS):
        if affects(ui, g, caster, t, mode):
            dx = uf[g, t, X] - cx
            dy = uf[g, t, Y] - cy
            if dx * dx + dy * dy <= r2:
                apply_effects(S, D, g, caster, t, a, level)
                if ground:
                    ui[g, t, DOT_GROUND] = 1


@kernel
def start_ground(S, D, g, caster, a, level, cx, cy):
    """Hero ``caster``'s burning ground of ability ``a`` at (cx, cy), for the ability's ``dot_time``; one per
    hero: a new one replaces the old."""
    if caster >= N_HEROES:
        return
    hi, hf = S.hi, S.hf
    hi[g, caster, GROUND_LEFT] = int(D.ability_table[a, AB_DOT_TIME] * FRAMES_PER_SECOND)
    hi[g, caster, GROUND_ABILITY] = a
    hi[g, caster, GROUND_LEVEL] = level
    hf[g, caster, GROUND_X] = cx
    hf[g, caster, GROUND_Y] = cy


@kernel
def burn_grounds(S, D, g):
    """One frame of every burning ground, before the statuses tick (``tick_statuses``): each unit the ground's
    ability affects that stands within its radius burns (its damage-over-time status set to the ground's dps
    and frames left, credited to the ground's hero), whether it was there at the cast or walked in later; a
    unit the ground was burning that has left it stops burning. Its owner's death does not put it out."""
    uf, ui, hi, hf = S.uf, S.ui, S.hi, S.hf
    abil_t = D.ability_table
    for h in range(N_HEROES):
        left = hi[g, h, GROUND_LEFT]
        if left <= 0:
            continue
        a = hi[g, h, GROUND_ABILITY]
        level = hi[g, h, GROUND_LEVEL]
        mode = int(abil_t[a, AB_AFFECTS])
        dps = abil_t[a, AB_DOT] * level_growth(level)
        r2 = abil_t[a, AB_RADIUS] * abil_t[a, AB_RADIUS]
        cx, cy = hf[g, h, GROUND_X], hf[g, h, GROUND_Y]
        for t in range(MAX_UNITS):
            if not affects(ui, g, h, t, mode):
                continue
            dx = uf[g, t, X] - cx
            dy = uf[g, t, Y] - cy
            if dx * dx + dy * dy <= r2:
                if can_be_attacked(ui, g, t) or ui[g, t, TEAM] == ui[g, h, TEAM]:
                    ui[g, t, DOT] = left
                    uf[g, t, DOT_DPS] = dps
                    ui[g, t, DOT_SOURCE] = h
                    ui[g, t, DOT_GROUND] = 1
            elif ui[g, t, DOT_GROUND] != 0 and ui[g, t, DOT_SOURCE] == h and ui[g, t, DOT] > 0:
                ui[g, t, DOT] = 0  # left the ground: the burn stops
                ui[g, t, DOT_GROUND] = 0
        hi[g, h, GROUND_LEFT] = left - 1


@kernel
def land_ability(S, D, g, caster, a, level, tu, px, py):
    """Land ability ``a``'s effects: on a unit, in an area around a unit/point, or through a projectile."""
    uf = S.uf
    abil_t = D.ability_table
    target_type = int(abil_t[a, AB_TARGET])
    radius = abil_t[a, AB_RADIUS]
    if target_type == T_NONE:
        if radius > 0.0:
            apply_area(S, D, g, caster, a, level, uf[g, caster, X], uf[g, caster, Y], radius)
        else:
            apply_effects(S, D, g, caster, caster, a, level)
    elif target_type == T_UNIT and abil_t[a, AB_PROJ_SPEED] > 0.0:
        spawn_projectile(S, g, caster, tu, abil_t[a, AB_PROJ_SPEED], 0.0, a, level)
    elif target_type == T_UNIT and radius <= 0.0:
        apply_effects(S, D, g, caster, tu, a, level)
    else:
        apply_area(S, D, g, caster, a, level, px, py, radius)


@kernel
def spawn_summons(S, D, g, caster, a, level, cx, cy):
    """``summon_count`` units of the caster's team in free creep-pool slots, on a circle of 120 around
    (cx, cy) (at the centre where the circle is not walkable). Returns how many were summoned."""
    uf, ui = S.uf, S.ui
    abil_t = D.ability_table
    count = int(abil_t[a, AB_SUMMON_COUNT])
    scale = 1.0 + 0.25 * (level - 1)
    made = 0
    u = SLOT_CREEPS
    while made < count and u < MAX_UNITS:
        if ui[g, u, ALIVE] != 0:
            u += 1
            continue
        angle = 6.283185307179586 * made / count
        x = cx + 120.0 * math.cos(angle)
        y = cy + 120.0 * math.sin(angle)
        if not walkable(D.walk, x, y):
            x, y = cx, cy
        set_unit(S, D, g, u, ui[g, caster, TEAM], K_CREEP_MELEE, CR_MELEE, x, y, 1.0)
        uf[g, u, HP_MAX] = abil_t[a, AB_SUMMON_HP] * scale
        uf[g, u, HP] = uf[g, u, HP_MAX]
        uf[g, u, DAMAGE] = abil_t[a, AB_SUMMON_DAMAGE] * scale
        uf[g, u, BOUNTY_GOLD] = 0.5 * uf[g, u, BOUNTY_GOLD]
        uf[g, u, BOUNTY_XP] = 0.5 * uf[g, u, BOUNTY_XP]
        ui[g, u, LIFETIME] = max(1, int(abil_t[a, AB_SUMMON_TIME] * FRAMES_PER_SECOND))
        ui[g, u, SUMMONER] = caster
        made += 1
        u += 1
    return made


@kernel
def resolve_ability(S, D, g, caster, a, level, tu, px, py):
    """Cast ability ``a`` (mana and cooldown are paid): a blink first moves the caster; a global ability lands
    on every hero it affects; summons appear; a channel starts (its effects land in ``channel_tick``);
    otherwise the effects land now (``land_ability``)."""
    uf, ui, hi = S.uf, S.ui, S.hi
    abil_t = D.ability_table
    if abil_t[a, AB_BLINK] > 0.0 and walkable(D.walk, px, py):
        uf[g, caster, X] = px
        uf[g, caster, Y] = py
    if abil_t[a, AB_GLOBAL] > 0.0:
        mode = int(abil_t[a, AB_AFFECTS])
        for t in range(N_HEROES):
            if hi[g, t, ACTIVE] != 0 and affects(ui, g, caster, t, mode):
                apply_effects(S, D, g, caster, t, a, level)
        return
    if abil_t[a, AB_SUMMON_COUNT] > 0.0:
        if int(abil_t[a, AB_TARGET]) == T_NONE:
            spawn_summons(S, D, g, caster, a, level, uf[g, caster, X], uf[g, caster, Y])
        else:
            spawn_summons(S, D, g, caster, a, level, px, py)
    if abil_t[a, AB_CHANNEL_TIME] > 0.0:
        ui[g, caster, ORDER] = O_CHANNEL
        hi[g, caster, CHANNEL_LEFT] = int(abil_t[a, AB_CHANNEL_TIME] * FRAMES_PER_SECOND)
        return
    land_ability(S, D, g, caster, a, level, tu, px, py)


@kernel
def channel_tick(S, D, g, h):
    """One frame of hero ``h``'s channel: at each whole channelled second the effects land again; the channel
    ends when its time is up (or, elsewhere, on a new order, a stun or a silence)."""
    ui, hf, hi = S.ui, S.hf, S.hi
    slot = hi[g, h, CAST_ABILITY]
    a = int(D.hero_table[hi[g, h, HERO_TYPE], H_ABILITY0 + slot])
    total = int(D.ability_table[a, AB_CHANNEL_TIME] * FRAMES_PER_SECOND)
    hi[g, h, CHANNEL_LEFT] -= 1
    if (total - hi[g, h, CHANNEL_LEFT]) % FRAMES_PER_SECOND == 0:
        tu = hi[g, h, CAST_TARGET]
        if tu < 0 or ui[g, tu, ALIVE] != 0:
            land_ability(S, D, g, h, a, hi[g, h, ABILITY_LEVEL + slot], tu, hf[g, h, CAST_X], hf[g, h, CAST_Y])
    if hi[g, h, CHANNEL_LEFT] <= 0:
        ui[g, h, ORDER] = O_NONE


@kernel
def refresh_auras(S, D, g):
    """Every allied hero within an aura's radius of its living owner gets the aura's armor, damage and hp/s
    (the strongest of each kind counts); heroes outside every aura get none. Run every 10 frames."""
    uf, ui, hi = S.uf, S.ui, S.hi
    abil_t = D.ability_table
    for t in range(N_HEROES):
        uf[g, t, AURA_ARMOR] = 0.0
        uf[g, t, AURA_DAMAGE] = 0.0
        uf[g, t, AURA_REGEN] = 0.0
    for h in range(N_HEROES):
        if ui[g, h, ALIVE] == 0 or hi[g, h, ACTIVE] == 0:
            continue
        for k in range(4):
            level = hi[g, h, ABILITY_LEVEL + k]
            if level <= 0:
                continue
            a = int(D.hero_table[hi[g, h, HERO_TYPE], H_ABILITY0 + k])
            if abil_t[a, AB_AURA] <= 0.0:
                continue
            grow = level_growth(level)
            armor = abil_t[a, AB_BUFF_ARMOR] * grow
            damage = abil_t[a, AB_BUFF_DAMAGE] * grow
            regen = abil_t[a, AB_HEAL] + abil_t[a, AB_HEAL_LVL] * (level - 1)
            r2 = abil_t[a, AB_RADIUS] * abil_t[a, AB_RADIUS]
            for t in range(N_HEROES):
                if ui[g, t, ALIVE] == 0 or ui[g, t, TEAM] != ui[g, h, TEAM] or dist2(uf, g, h, t) > r2:
                    continue
                uf[g, t, AURA_ARMOR] = max(uf[g, t, AURA_ARMOR], armor)
                uf[g, t, AURA_DAMAGE] = max(uf[g, t, AURA_DAMAGE], damage)
                uf[g, t, AURA_REGEN] = max(uf[g, t, AURA_REGEN], regen)


@kernel
def has_tp(items, g, h, tp_item):
    for s in range(N_INVENTORY):
        if items[g, h, s, IT_ID] == tp_item and items[g, h, s, IT_COOLDOWN] <= 0:
            return s
    return -1


@kernel
def consume_charge(S, D, g, h, s):
    items = S.items
    item_t = D.item_table
    it = items[g, h, s, IT_ID]
    items[g, h, s, IT_COOLDOWN] = int(item_t[it, I_COOLDOWN] * FRAMES_PER_SECOND)
    if item_t[it, I_CHARGES] > 0:
        items[g, h, s, IT_CHARGES] -= 1
        if items[g, h, s, IT_CHARGES] <= 0:
            items[g, h, s, IT_ID] = -1
            items[g, h, s, IT_CHARGES] = 0
            items[g, h, s, IT_COOLDOWN] = 0
            refresh_hero(S, D, g, h)


@kernel
def start_teleport(S, D, g, h, building):
    uf, ui, hf = S.uf, S.ui, S.hf
    fountain = D.fountain
    team = team_of_hero(h)
    bx, by = uf[g, building, X], uf[g, building, Y]
    # land on the side of the building that faces the own fountain
    dx, dy = fountain[team, 0] - bx, fountain[team, 1] - by
    d = math.sqrt(dx * dx + dy * dy) + 1e-6
    hf[g, h, TP_X] = bx + dx / d * 250.0
    hf[g, h, TP_Y] = by + dy / d * 250.0
    hf[g, h, TP_CHANNEL] = D.rules[R_TP_TIME]
    ui[g, h, ORDER] = O_TELEPORT


@kernel
def use_item(S, D, g, h, s, tu, px, py):
    """The active of the item in inventory slot ``s``; the caller has checked range and cooldown."""
    uf, ui = S.uf, S.ui
    items = S.items
    item_t = D.item_table
    it = items[g, h, s, IT_ID]
    kind = int(item_t[it, I_ACTIVE])
    amount = item_t[it, I_AMOUNT]
    if kind == ACT_HEAL_OVER_TIME:  # each consumable on its own timer: one does not cut or stretch the other
        ui[g, h, REGEN] = int(item_t[it, I_DURATION] * FRAMES_PER_SECOND)
        uf[g, h, REGEN_BUFF] = amount / item_t[it, I_DURATION]
    elif kind == ACT_MANA_OVER_TIME:
        ui[g, h, MANA_RESTORE] = int(item_t[it, I_DURATION] * FRAMES_PER_SECOND)
        uf[g, h, MANA_BUFF] = amount / item_t[it, I_DURATION]
    elif kind == ACT_TELEPORT:
        start_teleport(S, D, g, h, tu)
    elif kind == ACT_BLINK:
        if walkable(D.walk, px, py):
            uf[g, h, X] = px
            uf[g, h, Y] = py
    elif kind == ACT_STUN:
        ui[g, tu, STUN] = max(ui[g, tu, STUN], int(amount * FRAMES_PER_SECOND))
        if tu < N_HEROES:
            interrupt_channel(ui, g, tu)
        deal_damage(S, g, h, tu, 0.0, 0)
    elif kind == ACT_AREA_HEAL:
        r2 = item_t[it, I_RANGE] ** 2
        for t in range(N_HEROES):
            if ui[g, t, ALIVE] != 0 and ui[g, t, TEAM] == ui[g, h, TEAM] and dist2(uf, g, h, t) <= r2:
                uf[g, t, HP] = min(uf[g, t, HP_MAX], uf[g, t, HP] + amount)
    consume_charge(S, D, g, h, s)
