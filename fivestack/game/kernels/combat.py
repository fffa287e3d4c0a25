"""Movement and combat: walking toward a point around walls (``move_toward``), projectiles, damage with
armor, magic resistance and building factors (``deal_damage``), and attacking or approaching a target.
"""

from __future__ import annotations

import math

from fivestack.game.jit import kernel
from fivestack.game.kernels.aggro import call_for_help
from fivestack.game.kernels.constants import HULL
from fivestack.game.kernels.helpers import clampf, dist2, walkable
from fivestack.game.kernels.spatial import can_be_attacked
from fivestack.game.layout import (
    AURA_ARMOR, AURA_DAMAGE, INVISIBLE, ALIVE, ARMOR, ATTACK_PERIOD, ATTACK_RANGE, ATTACK_READY, BUFF, BUFF_ARMOR, BUFF_DAMAGE, BUFF_SPEED, CAMP_SIZE,
    DAMAGE, DAMAGE_DEALT, DOUBLE_DAMAGE, DT, FACING, FRAMES_PER_SECOND, G_FRAME, HASTE, HERO_ATTACK_FRAME, HP,
    KILLER, KILLER_HERO, KIND, K_ANCIENT, K_BARRACKS, K_BIG_NEUTRAL, K_COURIER, K_CREEP_MELEE, K_CREEP_RANGED,
    K_CREEP_SIEGE, K_FOUNTAIN, K_NEUTRAL, K_TOWER, LAST_HERO, LAST_HERO_FRAME, MAGIC_RES, MAP_SIZE, MAX_PROJECTILES,
    MOVE_SPEED, N_HEROES, PJ_ABILITY, PJ_ACTIVE, PJ_DAMAGE, PJ_LEVEL, PJ_SOURCE, PJ_SPEED, PJ_TARGET, PJ_X, PJ_Y,
    PROJ_SPEED, SLOT_NEUTRALS, SLOW, SLOW_FRAC, SUBTYPE, TARGET, X, Y,
)
from fivestack.game.patch import R_CREEP_VS_BUILDING, R_SIEGE_VS_BUILDING


@kernel
def move_toward(S, D, g, u, tx, ty):
    """One frame of movement toward (tx, ty), sliding along blocked cells. Returns True on arrival."""
    uf, ui = S.uf, S.ui
    walk = D.walk
    x, y = uf[g, u, X], uf[g, u, Y]
    dx, dy = tx - x, ty - y
    d = math.sqrt(dx * dx + dy * dy)
    if d < 1.0:
        return True
    speed = uf[g, u, MOVE_SPEED]
    if ui[g, u, SLOW] > 0:
        speed *= 1.0 - uf[g, u, SLOW_FRAC]
    if ui[g, u, BUFF] > 0:
        speed *= 1.0 + uf[g, u, BUFF_SPEED]
    if ui[g, u, HASTE] > 0:
        speed = 550.0
    step = speed * DT
    uf[g, u, FACING] = math.atan2(dy, dx)
    if step >= d:
        nx, ny = tx, ty
    else:
        nx, ny = x + dx / d * step, y + dy / d * step
    nx = clampf(nx, 1.0, MAP_SIZE - 1.0)
    ny = clampf(ny, 1.0, MAP_SIZE - 1.0)
    if ui[g, u, KIND] == K_COURIER or walkable(walk, nx, ny):
        uf[g, u, X] = nx
        uf[g, u, Y] = ny
    elif walkable(walk, nx, y):
        uf[g, u, X] = nx
    elif walkable(walk, x, ny):
        uf[g, u, Y] = ny
    return step >= d


@kernel
def spawn_projectile(S, g, src, tgt, speed, damage, ability, level):
    uf, proj = S.uf, S.proj
    for p in range(MAX_PROJECTILES):
        if proj[g, p, PJ_ACTIVE] == 0.0:
            proj[g, p, PJ_ACTIVE] = 1.0
            proj[g, p, PJ_X] = uf[g, src, X]
            proj[g, p, PJ_Y] = uf[g, src, Y]
            proj[g, p, PJ_TARGET] = tgt
            proj[g, p, PJ_SPEED] = speed
            proj[g, p, PJ_DAMAGE] = damage
            proj[g, p, PJ_SOURCE] = src
            proj[g, p, PJ_ABILITY] = ability
            proj[g, p, PJ_LEVEL] = level
            return True
    return False


@kernel
def hero_of(ui, g, src):
    """The hero credited for damage from unit ``src``: the unit itself when it is a hero."""
    if src >= 0 and src < N_HEROES:
        return src
    return -1


@kernel
def physical_multiplier(uf, ui, g, t):
    """Dota's armor formula: the share of physical damage that gets through."""
    a = uf[g, t, ARMOR]
    if ui[g, t, BUFF] > 0:
        a += uf[g, t, BUFF_ARMOR]
    a += uf[g, t, AURA_ARMOR]
    return 1.0 - 0.06 * a / (1.0 + 0.06 * abs(a))


@kernel
def deal_damage(S, g, src, tgt, amount, dtype):
    """Apply damage of a type (0 physical, 1 magical, 2 pure) and record who is credited."""
    uf, ui, hf, gi, assist_frame = S.uf, S.ui, S.hf, S.gi, S.assist_frames
    if not can_be_attacked(ui, g, tgt) or ui[g, tgt, KIND] == K_FOUNTAIN:
        return 0.0
    if dtype == 0:
        mult = physical_multiplier(uf, ui, g, tgt)
    elif dtype == 1:
        mult = 1.0 - uf[g, tgt, MAGIC_RES]
    else:
        mult = 1.0
    dmg = amount * mult
    if dmg <= 0.0:
        return 0.0
    uf[g, tgt, HP] -= dmg
    h = hero_of(ui, g, src)
    frame = gi[g, G_FRAME]
    if h >= 0:
        ui[g, tgt, LAST_HERO] = h
        ui[g, tgt, LAST_HERO_FRAME] = frame
        S.hf[g, h, DAMAGE_DEALT] += dmg
        if tgt < N_HEROES:
            assist_frame[g, tgt, h] = frame
    if uf[g, tgt, HP] <= 0.0 and ui[g, tgt, KILLER] < 0:
        ui[g, tgt, KILLER] = src
        ui[g, tgt, KILLER_HERO] = h
    kind = ui[g, tgt, KIND]
    if (kind == K_NEUTRAL or kind == K_BIG_NEUTRAL) and src >= 0 and ui[g, tgt, TARGET] < 0:
        ui[g, tgt, TARGET] = src
        if kind == K_NEUTRAL:  # the whole camp answers
            camp = ui[g, tgt, SUBTYPE]
            for k in range(CAMP_SIZE):
                v = SLOT_NEUTRALS + camp * CAMP_SIZE + k
                if ui[g, v, ALIVE] != 0 and ui[g, v, TARGET] < 0:
                    ui[g, v, TARGET] = src
    return dmg


@kernel
def attack_damage(uf, ui, g, u):
    dmg = uf[g, u, DAMAGE]
    if ui[g, u, BUFF] > 0:
        dmg += uf[g, u, BUFF_DAMAGE]
    dmg += uf[g, u, AURA_DAMAGE]
    if ui[g, u, DOUBLE_DAMAGE] > 0:
        dmg *= 2.0
    return dmg


@kernel
def building_damage_factor(ui, rules, g, u, t):
    """Lane creeps hit buildings softly and siege creeps hard, so that waves alone rarely take towers."""
    tkind = ui[g, t, KIND]
    if tkind != K_TOWER and tkind != K_BARRACKS and tkind != K_ANCIENT:
        return 1.0
    kind = ui[g, u, KIND]
    if kind == K_CREEP_MELEE or kind == K_CREEP_RANGED:
        return rules[R_CREEP_VS_BUILDING]
    if kind == K_CREEP_SIEGE:
        return rules[R_SIEGE_VS_BUILDING]
    return 1.0


@kernel
def attack_or_approach(S, D, g, u, t, may_move):
    """Attack ``t`` when in reach and ready, else walk toward it. Returns True when in reach."""
    uf, ui, hf, gi = S.uf, S.ui, S.hf, S.gi
    reach = uf[g, u, ATTACK_RANGE] + HULL
    if dist2(uf, g, u, t) > reach * reach:
        if may_move and uf[g, u, MOVE_SPEED] > 0.0:
            move_toward(S, D, g, u, uf[g, t, X], uf[g, t, Y])
        return False
    uf[g, u, FACING] = math.atan2(uf[g, t, Y] - uf[g, u, Y], uf[g, t, X] - uf[g, u, X])
    if uf[g, u, ATTACK_READY] <= 0.0:
        dmg = attack_damage(uf, ui, g, u) * building_damage_factor(ui, D.rules, g, u, t)
        if uf[g, u, PROJ_SPEED] > 0.0:
            spawn_projectile(S, g, u, t, uf[g, u, PROJ_SPEED], dmg, -1, 0)
        else:
            deal_damage(S, g, u, t, dmg, 0)
        uf[g, u, ATTACK_READY] = uf[g, u, ATTACK_PERIOD] * FRAMES_PER_SECOND
        ui[g, u, INVISIBLE] = 0  # attacking reveals the attacker
        call_for_help(S, D, g, u, t)  # dota_lane: the victim's idle lane creeps nearby answer
        if u < N_HEROES and t < N_HEROES:
            hf[g, u, HERO_ATTACK_FRAME] = gi[g, G_FRAME]
    return True
