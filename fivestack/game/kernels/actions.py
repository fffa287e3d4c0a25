"""Applying an agent's action: ``apply_action`` turns a (primary, target, offset) choice into a hero's
order, and ``continue_cast`` walks a hero into range and casts the ability or item it was ordered to.
"""

from __future__ import annotations

import math

from fivestack.game.jit import kernel
from fivestack.game.kernels.aggro import draw_creep_aggro
from fivestack.game.kernels.abilities import ability_value, has_tp, resolve_ability, use_item
from fivestack.game.kernels.availability import (
    ability_of, ability_ready, buyback_cost, item_ready, primary_available, target_kind_for, valid_target,
)
from fivestack.game.kernels.combat import move_toward
from fivestack.game.kernels.constants import HULL
from fivestack.game.kernels.creation import spawn_hero
from fivestack.game.kernels.helpers import building_slot, clampf, team_of_hero
from fivestack.game.layout import (
    INVISIBLE, ABILITY_CD, ABILITY_LEVEL, A_ABILITY0, A_ATTACK, A_ATTACK_MOVE, A_BUYBACK, A_GLYPH, A_HOLD, A_ITEM0, A_MOVE,
    A_NOOP, A_PICKUP, A_STOP, A_TOWN_PORTAL, BUYBACK_CD, CAST_ABILITY, CAST_TARGET, CAST_X, CAST_Y, EV_GOLD_SPENT,
    FRAMES_PER_SECOND, GOAL_X, GOAL_Y, GOLD, G_GLYPH_CD0, INVALID_ACTIONS, INVULN, IT_ID, MANA, MAP_SIZE,
    ORDER, O_ATTACK, O_ATTACK_MOVE, O_CAST, O_HOLD, O_MOVE, O_NONE, O_PICKUP, TARGET, TARGET_OFFSET_STEP,
    TK_ANCHOR, TP_CHANNEL, T_NONE, T_POINT, T_UNIT, T_UNIT_OFFSET, X, Y,
)
from fivestack.game.patch import (
    AB_BLINK, AB_COOLDOWN, AB_MANA, AB_RANGE, AB_TARGET, I_RANGE, I_TARGET, R_BUYBACK_CD, R_GLYPH_CD, R_GLYPH_TIME,
)


@kernel
def offset_point(uf, g, u, ox, oy, step):
    x = clampf(uf[g, u, X] + (ox - 4) * step, 1.0, MAP_SIZE - 1.0)
    y = clampf(uf[g, u, Y] + (oy - 4) * step, 1.0, MAP_SIZE - 1.0)
    return x, y


@kernel
def move_goal(uf, table, g, u, ox, oy):
    """The goal of a move with offset cells (ox, oy) around unit ``u`` (the mover itself, or with the
    ``anchored_moves`` feature the anchor it names): ``table[ox]``, ``table[oy]`` world units from it
    (``D.move_offsets``, a table of ``layout.MOVE_GOALS``), kept on the map."""
    x = clampf(uf[g, u, X] + table[ox], 1.0, MAP_SIZE - 1.0)
    y = clampf(uf[g, u, Y] + table[oy], 1.0, MAP_SIZE - 1.0)
    return x, y


@kernel
def nearest_cell(d, table):
    """The offset cell whose displacement in ``table`` is nearest to ``d`` world units; a tie goes to the even
    offset (round half to even, as ``round(d / step)`` on a uniform grid)."""
    best = 0
    best_gap = abs(d - table[0])
    for k in range(1, table.shape[0]):
        gap = abs(d - table[k])
        if gap < best_gap or (gap == best_gap and (k - 4) % 2 == 0):
            best = k
            best_gap = gap
    return best


@kernel
def goal_cells(dx, dy, table):
    """The move's offset cells (ox, oy) toward a point (dx, dy) world units away: the point scaled back along its
    direction to the table's reach when it lies beyond it, then each axis's nearest cell. The one rule that turns a
    point into a move: the scripted bot's moves, the arena's clicks and asymmetric self-play's moves use it."""
    reach = table[table.shape[0] - 1]
    m = max(abs(dx), abs(dy))
    if m > reach:
        dx *= reach / m
        dy *= reach / m
    return nearest_cell(dx, table), nearest_cell(dy, table)


@kernel
def apply_action(S, D, g, h, prim, tu, ox, oy):
    """Turn one hero's action into an order. Invalid actions are counted no-ops."""
    uf, ui, hf, hi, items, gi = S.uf, S.ui, S.hf, S.hi, S.items, S.gi
    if prim < 0 or not primary_available(S, D, g, h, prim):
        hi[g, h, INVALID_ACTIONS] += 1
        return
    kind = target_kind_for(S, D, g, h, prim)
    unanchored = kind == TK_ANCHOR and tu < 0  # an anchored move that names no anchor: the hero itself
    if kind != 0 and not unanchored and not valid_target(S, D, g, h, kind, tu):
        hi[g, h, INVALID_ACTIONS] += 1
        return
    team = team_of_hero(h)
    if prim == A_NOOP:
        return
    if prim == A_GLYPH:
        gi[g, G_GLYPH_CD0 + team] = int(D.rules[R_GLYPH_CD] * FRAMES_PER_SECOND)
        for local in range(11):
            ui[g, building_slot(team, local), INVULN] = int(D.rules[R_GLYPH_TIME] * FRAMES_PER_SECOND)
        return
    if prim == A_BUYBACK:
        cost = buyback_cost(S, D, g, h)
        hf[g, h, GOLD] -= cost
        S.events[g, h, EV_GOLD_SPENT] += cost
        hf[g, h, BUYBACK_CD] = D.rules[R_BUYBACK_CD]
        spawn_hero(S, D, g, h)
        return
    hf[g, h, TP_CHANNEL] = 0.0  # any new order cancels a channel
    if prim == A_MOVE or prim == A_ATTACK_MOVE:
        anchor = tu if kind == TK_ANCHOR and tu >= 0 else h  # anchored_moves: the named unit's place, else the hero's
        x, y = move_goal(uf, D.move_offsets, g, anchor, ox, oy)
        uf[g, h, GOAL_X] = x
        uf[g, h, GOAL_Y] = y
        ui[g, h, ORDER] = O_MOVE if prim == A_MOVE else O_ATTACK_MOVE
        ui[g, h, TARGET] = -1
    elif prim == A_ATTACK:
        ui[g, h, ORDER] = O_ATTACK
        ui[g, h, TARGET] = tu
        draw_creep_aggro(S, D, g, h, tu)  # dota_lane: the order on a hero, not the hit, draws the victim's creeps
    elif prim == A_STOP:
        ui[g, h, ORDER] = O_NONE
        ui[g, h, TARGET] = -1
    elif prim == A_HOLD:
        ui[g, h, ORDER] = O_HOLD
        ui[g, h, TARGET] = -1
    elif prim == A_PICKUP:
        ui[g, h, ORDER] = O_PICKUP
    elif prim == A_TOWN_PORTAL:
        s = has_tp(items, g, h, 0)
        hi[g, h, CAST_ABILITY] = 4 + s
        hi[g, h, CAST_TARGET] = tu
        ui[g, h, ORDER] = O_CAST
    else:
        slot = prim - A_ABILITY0 if prim < A_ITEM0 else 4 + prim - A_ITEM0
        if slot < 4:
            a = ability_of(hi, D, g, h, slot)
            tt = int(D.ability_table[a, AB_TARGET])
            reach = D.ability_table[a, AB_RANGE]
        else:
            it = items[g, h, slot - 4, IT_ID]
            tt = int(D.item_table[it, I_TARGET])
            reach = D.item_table[it, I_RANGE]
        px, py = uf[g, h, X], uf[g, h, Y]
        if tt == T_POINT:
            px, py = offset_point(uf, g, h, ox, oy, max(reach, 200.0) / 4.0)
        elif tt == T_UNIT_OFFSET:
            px, py = offset_point(uf, g, tu, ox, oy, TARGET_OFFSET_STEP)
        hi[g, h, CAST_ABILITY] = slot
        hi[g, h, CAST_TARGET] = tu
        hf[g, h, CAST_X] = px
        hf[g, h, CAST_Y] = py
        ui[g, h, ORDER] = O_CAST


@kernel
def continue_cast(S, D, g, h):
    """Walk into range of a pending cast, then cast it (re-checking that it is still possible)."""
    uf, ui, hf, hi, items = S.uf, S.ui, S.hf, S.hi, S.items
    slot = hi[g, h, CAST_ABILITY]
    tu = hi[g, h, CAST_TARGET]
    if slot < 4:
        ok = ability_ready(S, D, g, h, slot)
        a = ability_of(hi, D, g, h, slot)
        tt = int(D.ability_table[a, AB_TARGET])
        reach = D.ability_table[a, AB_RANGE]
        kind = target_kind_for(S, D, g, h, A_ABILITY0 + slot)
    else:
        ok = item_ready(S, D, g, h, slot - 4)
        a = -1
        it = items[g, h, slot - 4, IT_ID]
        tt = int(D.item_table[it, I_TARGET]) if it >= 0 else T_NONE
        reach = D.item_table[it, I_RANGE] if it >= 0 else 0.0
        kind = target_kind_for(S, D, g, h, A_ITEM0 + slot - 4)
        if it == 0:
            reach = 1e9  # a town portal reaches any allied building
    if ok and kind != 0 and not valid_target(S, D, g, h, kind, tu):
        ok = False
    if not ok:
        ui[g, h, ORDER] = O_NONE
        return
    if tt == T_UNIT or tt == T_UNIT_OFFSET:
        px, py = uf[g, tu, X], uf[g, tu, Y]
    else:
        px, py = hf[g, h, CAST_X], hf[g, h, CAST_Y]
    blink = slot < 4 and D.ability_table[a, AB_BLINK] > 0.0
    if blink:  # a blink never walks: its point is pulled in to the cast range
        dx, dy = px - uf[g, h, X], py - uf[g, h, Y]
        d2 = dx * dx + dy * dy
        if d2 > reach * reach:
            scale = reach / math.sqrt(d2)
            px, py = uf[g, h, X] + dx * scale, uf[g, h, Y] + dy * scale
    elif tt != T_NONE:
        dx, dy = px - uf[g, h, X], py - uf[g, h, Y]
        if dx * dx + dy * dy > (reach + HULL) ** 2:
            move_toward(S, D, g, h, px, py)
            return
    ui[g, h, ORDER] = O_NONE
    ui[g, h, INVISIBLE] = 0  # casting reveals the caster
    if slot < 4:
        level = hi[g, h, ABILITY_LEVEL + slot]
        uf[g, h, MANA] -= ability_value(D.ability_table, a, AB_MANA, level)
        cd = ability_value(D.ability_table, a, AB_COOLDOWN, level)
        hi[g, h, ABILITY_CD + slot] = int(max(cd, 1.0) * FRAMES_PER_SECOND)
        if tt == T_UNIT_OFFSET:
            px, py = hf[g, h, CAST_X], hf[g, h, CAST_Y]
        resolve_ability(S, D, g, h, a, level, tu, px, py)
    else:
        use_item(S, D, g, h, slot - 4, tu, px, py)
