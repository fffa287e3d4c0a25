"""Abilities and items: ``try_abilities`` casts the best ability now (ultimate first): nukes and disables on
the weakest enemy hero in reach, area abilities where enemies cluster (heroes count triple; creeps too while
pushing with mana to spare), heals on hurt allies, self buffs in a fight; of the new mechanics: a global
ultimate on an enemy hero below 35% health anywhere (a global heal when two allies are hurt), summons in a
fight or while pushing, channels only on held (stunned or slowed) enemies or three or more, blinks into the best
cluster (``try_escape`` blinks toward the fountain or turns invisible when retreating), invisibility to close
in on an enemy hero; auras are passive and never cast; ``try_items`` uses consumables
(health and mana over time), the stun and the area heal. Both return True when they issued an action.
"""

from __future__ import annotations

import math

from fivestack.bots.scripted.actions import d2xy, is_building, is_lane_creep, offset_cell, try_target
from fivestack.bots.scripted.fights import best_enemy_hero, count_enemies_near
from fivestack.bots.scripted.memory import M_CAST_FRAME
from fivestack.game import kernels
from fivestack.game.jit import kernel
from fivestack.game.layout import (
    ACTIVE, ALIVE, A_ABILITY0, A_ITEM0, DIRE, G_FRAME, HP, HP_MAX, IT_ID, KIND, K_HERO, MANA, MANA_MAX, MAX_UNITS, N_HEROES,
    MANA_RESTORE, N_INVENTORY, REGEN, SLOW, STUN, TARGET, TEAM, T_NONE, T_POINT, T_UNIT, T_UNIT_OFFSET, X, Y,
)


@kernel
def try_abilities(S, D, g, h, team, in_fight, pushing, mem_h, out):
    """Cast the best ability now, if any is worth it. Returns True when an action was issued."""
    uf, ui, hi = S.uf, S.ui, S.hi
    abil_t = D.ability_table
    x, y = uf[g, h, X], uf[g, h, Y]
    hp_frac = uf[g, h, HP] / uf[g, h, HP_MAX]
    mana_frac = uf[g, h, MANA] / max(uf[g, h, MANA_MAX], 1.0)
    frame = S.gi[g, G_FRAME]
    for kk in range(4):
        k = 3 - kk  # the ultimate first
        prim = A_ABILITY0 + k
        if not kernels.primary_available(S, D, g, h, prim):
            continue
        a = kernels.ability_of(hi, D, g, h, k)
        tt = int(abil_t[a, kernels.AB_TARGET])
        aff = int(abil_t[a, kernels.AB_AFFECTS])
        reach = abil_t[a, kernels.AB_RANGE]
        radius = abil_t[a, kernels.AB_RADIUS]
        heal = abil_t[a, kernels.AB_HEAL]
        farm_ok = k != 3 and mana_frac > 0.6 and pushing
        channel = abil_t[a, kernels.AB_CHANNEL_TIME] > 0.0
        if abil_t[a, kernels.AB_GLOBAL] > 0.0:
            if global_worth_it(S, g, team, aff) and try_target(S, D, g, h, prim, -1, 4, 4, out):
                mem_h[g, h, M_CAST_FRAME] = frame
                return True
            continue
        if abil_t[a, kernels.AB_SUMMON_COUNT] > 0.0 and tt == T_NONE:
            t = ui[g, h, TARGET]
            if (in_fight or pushing or (t >= 0 and is_building(ui[g, t, KIND]))) \
                    and try_target(S, D, g, h, prim, -1, 4, 4, out):
                return True
            continue
        if abil_t[a, kernels.AB_INVISIBLE_TIME] > 0.0 and aff == 3:
            if in_fight and hp_frac > 0.5 and try_target(S, D, g, h, prim, -1, 4, 4, out):
                return True  # approach unseen; try_escape uses it to flee
            continue
        if abil_t[a, kernels.AB_BLINK] > 0.0 and aff == 3:
            continue  # a plain blink is for escapes (try_escape)
        if aff == 1:
            if tt == T_UNIT or tt == T_UNIT_OFFSET:
                t = best_enemy_hero(S, g, h, team, reach + 150.0)
                if t >= 0 and try_target(S, D, g, h, prim, t, 4, 4, out):
                    mem_h[g, h, M_CAST_FRAME] = frame
                    return True
            elif tt == T_POINT:
                # the best centre among visible enemy heroes and creeps in reach
                best_score = 0
                bx, by = 0.0, 0.0
                for u in range(MAX_UNITS):
                    if ui[g, u, ALIVE] == 0 or ui[g, u, TEAM] == team or ui[g, u, TEAM] > DIRE:
                        continue
                    if S.vis[g, team, u] == 0:
                        continue
                    ku = ui[g, u, KIND]
                    if ku != K_HERO and not (farm_ok and is_lane_creep(ku)):
                        continue
                    cx, cy = uf[g, u, X], uf[g, u, Y]
                    if d2xy(x, y, cx, cy) > reach * reach:
                        continue
                    nh, no = count_enemies_near(S, g, team, cx, cy, radius * 0.9)
                    score = 3 * nh + no
                    if channel and not (held_enemy_near(S, g, team, cx, cy, radius * 0.9) or nh >= 3):
                        score = 0
                    if score > best_score:
                        best_score = score
                        bx, by = cx, cy
                if best_score >= 3 or (best_score >= 1 and k != 3 and in_fight):
                    step = max(reach, 200.0) / 4.0
                    ox = offset_cell(bx - x, step)
                    oy = offset_cell(by - y, step)
                    if try_target(S, D, g, h, prim, -1, ox, oy, out):
                        mem_h[g, h, M_CAST_FRAME] = frame
                        return True
            else:  # around the caster
                nh, no = count_enemies_near(S, g, team, x, y, radius * 0.85)
                if channel and not (held_enemy_near(S, g, team, x, y, radius * 0.85) or nh >= 3):
                    continue
                if nh >= 1 or (farm_ok and no >= 4):
                    if try_target(S, D, g, h, prim, -1, 4, 4, out):
                        mem_h[g, h, M_CAST_FRAME] = frame
                        return True
        elif aff == 2:
            if tt == T_UNIT or tt == T_UNIT_OFFSET:
                best = -1
                best_frac = 0.6
                for u in range(N_HEROES):
                    if ui[g, u, ALIVE] == 0 or ui[g, u, TEAM] != team:
                        continue
                    if kernels.dist2(uf, g, h, u) > (reach + 300.0) ** 2:
                        continue
                    fr = uf[g, u, HP] / uf[g, u, HP_MAX]
                    if fr < best_frac:
                        best_frac = fr
                        best = u
                if best >= 0 and try_target(S, D, g, h, prim, best, 4, 4, out):
                    mem_h[g, h, M_CAST_FRAME] = frame
                    return True
            else:
                hurt = 0
                near = 0
                for u in range(N_HEROES):
                    if ui[g, u, ALIVE] == 0 or ui[g, u, TEAM] != team:
                        continue
                    if kernels.dist2(uf, g, h, u) > radius * radius:
                        continue
                    near += 1
                    fr = uf[g, u, HP] / uf[g, u, HP_MAX]
                    if fr < 0.5 or (fr < 0.75 and in_fight):
                        hurt += 1
                if channel and hurt >= 1 and count_enemies_near(S, g, team, x, y, 700.0)[0] > 0:
                    hurt = 0  # no channelled heal with enemy heroes close enough to break it
                use = (heal > 0.0 and (hurt >= 2 or (hurt >= 1 and in_fight))) or \
                      (heal <= 0.0 and in_fight and near >= 2)
                if use and try_target(S, D, g, h, prim, -1, 4, 4, out):
                    return True
        else:  # the caster only
            use = False
            if heal > 0.0:
                use = hp_frac < 0.45 and (in_fight or hp_frac < 0.3)
            else:
                t = ui[g, h, TARGET]
                use = in_fight or (t >= 0 and ui[g, t, KIND] != K_HERO and is_building(ui[g, t, KIND]))
            if use and try_target(S, D, g, h, prim, -1, 4, 4, out):
                return True
    return False


@kernel
def global_worth_it(S, g, team, aff):
    """A global ultimate pays off on an enemy hero below 35% health (seen or not: the ultimate lands anyway,
    the bot reads the state it plays on) or, for a global heal, on two hurt allies."""
    uf, ui, hi = S.uf, S.ui, S.hi
    n = 0
    for u in range(N_HEROES):
        if ui[g, u, ALIVE] == 0 or hi[g, u, ACTIVE] == 0:
            continue
        frac = uf[g, u, HP] / uf[g, u, HP_MAX]
        if aff == 1 and ui[g, u, TEAM] != team and frac < 0.35 and S.vis[g, team, u] != 0:
            return True
        if aff == 2 and ui[g, u, TEAM] == team and frac < 0.5:
            n += 1
    return n >= 2


@kernel
def held_enemy_near(S, g, team, x, y, radius):
    """Whether a visible enemy hero within ``radius`` of (x, y) is stunned or slowed (held for a channel)."""
    uf, ui = S.uf, S.ui
    for u in range(N_HEROES):
        if ui[g, u, ALIVE] == 0 or ui[g, u, TEAM] == team or S.vis[g, team, u] == 0:
            continue
        if d2xy(x, y, uf[g, u, X], uf[g, u, Y]) <= radius * radius and (ui[g, u, STUN] > 0 or ui[g, u, SLOW] > 0):
            return True
    return False


@kernel
def try_escape(S, D, g, h, fx, fy, out):
    """Retreating: blink toward the fountain (a self-blink) or turn invisible. Returns True when cast."""
    uf, hi = S.uf, S.hi
    abil_t = D.ability_table
    x, y = uf[g, h, X], uf[g, h, Y]
    for k in range(4):
        prim = A_ABILITY0 + k
        if not kernels.primary_available(S, D, g, h, prim):
            continue
        a = kernels.ability_of(hi, D, g, h, k)
        if int(abil_t[a, kernels.AB_AFFECTS]) != 3:
            continue
        if abil_t[a, kernels.AB_INVISIBLE_TIME] > 0.0:
            if try_target(S, D, g, h, prim, -1, 4, 4, out):
                return True
        elif abil_t[a, kernels.AB_BLINK] > 0.0:
            reach = abil_t[a, kernels.AB_RANGE]
            dx, dy = fx - x, fy - y
            d = max(math.sqrt(dx * dx + dy * dy), 1.0)
            step = max(reach, 200.0) / 4.0
            ox = offset_cell(dx / d * reach, step)
            oy = offset_cell(dy / d * reach, step)
            if try_target(S, D, g, h, prim, -1, ox, oy, out):
                return True
    return False


@kernel
def try_items(S, D, g, h, team, in_fight, at_fountain, out):
    """Consumables and actives: heal and mana over time, the stun, the area heal."""
    uf, ui, items = S.uf, S.ui, S.items
    item_t = D.item_table
    hp_frac = uf[g, h, HP] / uf[g, h, HP_MAX]
    mana_frac = uf[g, h, MANA] / max(uf[g, h, MANA_MAX], 1.0)
    for s in range(N_INVENTORY):
        it = items[g, h, s, IT_ID]
        if it < 0:
            continue
        prim = A_ITEM0 + s
        kind = int(item_t[it, kernels.I_ACTIVE])
        if kind == kernels.ACT_HEAL_OVER_TIME:
            if hp_frac < 0.55 and ui[g, h, REGEN] == 0 and not at_fountain:
                if try_target(S, D, g, h, prim, -1, 4, 4, out):
                    return True
        elif kind == kernels.ACT_MANA_OVER_TIME:
            if mana_frac < 0.35 and ui[g, h, MANA_RESTORE] == 0 and not at_fountain:
                if try_target(S, D, g, h, prim, -1, 4, 4, out):
                    return True
        elif kind == kernels.ACT_STUN:
            t = best_enemy_hero(S, g, h, team, item_t[it, kernels.I_RANGE] + 100.0)
            if t >= 0 and ui[g, t, STUN] == 0 and try_target(S, D, g, h, prim, t, 4, 4, out):
                return True
        elif kind == kernels.ACT_AREA_HEAL:
            hurt = 0
            r2 = item_t[it, kernels.I_RANGE] ** 2
            for u in range(N_HEROES):
                if ui[g, u, ALIVE] != 0 and ui[g, u, TEAM] == team and kernels.dist2(uf, g, h, u) <= r2:
                    if uf[g, u, HP] < 0.6 * uf[g, u, HP_MAX]:
                        hurt += 1
            if (hurt >= 2 or (hurt >= 1 and in_fight)) and try_target(S, D, g, h, prim, -1, 4, 4, out):
                return True
    return False
