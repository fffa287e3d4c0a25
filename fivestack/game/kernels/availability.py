"""Which actions a hero may take now, shared by the simulator and the env's action masks: an
ability's id and readiness, an item's readiness, the target kind an action needs, whether a target is valid,
buyback cost, and ``primary_available`` for each primary action.
"""

from __future__ import annotations

from fivestack.game.jit import kernel
from fivestack.game.kernels.abilities import ability_value, has_tp
from fivestack.game.kernels.helpers import team_of_hero
from fivestack.game.kernels.spatial import can_be_attacked
from fivestack.game.layout import (
    ABILITY_CD, ABILITY_LEVEL, ACTIVE, ALIVE, A_ABILITY0, A_ATTACK, A_ATTACK_MOVE, A_BUYBACK, A_GLYPH, A_HOLD,
    A_ITEM0, A_MOVE, A_NOOP, A_PICKUP, A_STOP, A_TOWN_PORTAL, BUYBACK_CD, GOLD, G_AEGIS_ON_GROUND, G_GLYPH_CD0,
    G_RUNE0, HERO_TYPE, HP, HP_MAX, IT_COOLDOWN, IT_ID, KIND, K_ANCIENT, K_BARRACKS, K_COURIER, K_CREEP_MELEE,
    K_CREEP_RANGED, K_CREEP_SIEGE, K_FOUNTAIN, K_TOWER, LEVEL, MANA, MAX_UNITS, N_INVENTORY, SILENCE, STUN, TEAM,
    TK_ANCHOR, TP_CHANNEL, T_POINT, T_UNIT, T_UNIT_OFFSET,
)
from fivestack.game.patch import (
    AB_AFFECTS, AB_AURA, AB_MANA, AB_TARGET, ACT_TELEPORT, F_ANCHORED_MOVES, H_ABILITY0, I_ACTIVE, I_TARGET,
    R_BUYBACK_BASE, R_BUYBACK_LVL,
)


@kernel
def ability_of(hi, D, g, h, k):
    return int(D.hero_table[hi[g, h, HERO_TYPE], H_ABILITY0 + k])


@kernel
def ability_ready(S, D, g, h, k):
    uf, ui, hi = S.uf, S.ui, S.hi
    level = hi[g, h, ABILITY_LEVEL + k]
    if level <= 0 or hi[g, h, ABILITY_CD + k] > 0 or ui[g, h, SILENCE] > 0:
        return False
    a = ability_of(hi, D, g, h, k)
    if D.ability_table[a, AB_AURA] > 0.0:
        return False  # a passive aura is never cast
    return uf[g, h, MANA] >= ability_value(D.ability_table, a, AB_MANA, level)


@kernel
def item_ready(S, D, g, h, s):
    items = S.items
    it = items[g, h, s, IT_ID]
    if it < 0 or D.item_table[it, I_ACTIVE] == 0 or items[g, h, s, IT_COOLDOWN] > 0:
        return False
    return True


@kernel
def target_kind_for(S, D, g, h, prim):
    """What a primary action targets: 0 nothing/point, 1 attackable unit, 2 enemy non-building,
    3 ally (hero or creep), 4 allied building (town portal), 5 any unit the team sees (a move's anchor in a game
    with the ``anchored_moves`` feature; ``layout.N_TARGET_KINDS``)."""
    hi, items = S.hi, S.items
    if prim == A_ATTACK:
        return 1
    if prim == A_MOVE or prim == A_ATTACK_MOVE:
        return TK_ANCHOR if D.features[g] & F_ANCHORED_MOVES else 0
    if prim == A_TOWN_PORTAL:
        return 4
    if prim >= A_ABILITY0 and prim < A_ABILITY0 + 4:
        a = ability_of(hi, D, g, h, prim - A_ABILITY0)
        tt = int(D.ability_table[a, AB_TARGET])
        if tt == T_UNIT or tt == T_UNIT_OFFSET:
            return 3 if int(D.ability_table[a, AB_AFFECTS]) == 2 else 2
        return 0
    if prim >= A_ITEM0 and prim < A_ITEM0 + N_INVENTORY:
        it = items[g, h, prim - A_ITEM0, IT_ID]
        if it >= 0 and int(D.item_table[it, I_TARGET]) == T_UNIT:
            return 4 if int(D.item_table[it, I_ACTIVE]) == ACT_TELEPORT else 2
    return 0


@kernel
def uses_offset(S, D, g, h, prim):
    """Whether the offset x/y parameters matter for primary action ``prim`` (for loss masking)."""
    hi, items = S.hi, S.items
    if prim == A_MOVE or prim == A_ATTACK_MOVE:
        return True
    if prim >= A_ABILITY0 and prim < A_ABILITY0 + 4:
        tt = int(D.ability_table[ability_of(hi, D, g, h, prim - A_ABILITY0), AB_TARGET])
        return tt == T_POINT or tt == T_UNIT_OFFSET
    if prim >= A_ITEM0 and prim < A_ITEM0 + N_INVENTORY:
        it = items[g, h, prim - A_ITEM0, IT_ID]
        return it >= 0 and int(D.item_table[it, I_TARGET]) == T_POINT
    return False


@kernel
def valid_target(S, D, g, h, kind, t):
    """May hero ``h`` target unit ``t`` with an action whose target kind is ``kind``?"""
    uf, ui, vis = S.uf, S.ui, S.vis
    if t < 0 or t >= MAX_UNITS or ui[g, t, ALIVE] == 0:
        return False
    team = ui[g, h, TEAM]
    tteam = ui[g, t, TEAM]
    tkind = ui[g, t, KIND]
    if tteam != team and vis[g, team, t] == 0:
        return False
    building = tkind == K_TOWER or tkind == K_BARRACKS or tkind == K_ANCIENT or tkind == K_FOUNTAIN
    if kind == 1:
        if tteam != team:
            return can_be_attacked(ui, g, t) and tkind != K_FOUNTAIN
        # denies: own lane creeps below half health
        return (tkind == K_CREEP_MELEE or tkind == K_CREEP_RANGED or tkind == K_CREEP_SIEGE) and \
            uf[g, t, HP] < 0.5 * uf[g, t, HP_MAX]
    if kind == 2:
        return tteam != team and not building
    if kind == 3:
        return tteam == team and not building and tkind != K_COURIER
    if kind == 4:
        return tteam == team and building and tkind != K_FOUNTAIN
    return kind == TK_ANCHOR  # any living unit the team sees


@kernel
def any_pickup(gi, g):
    return gi[g, G_RUNE0] != 0 or gi[g, G_RUNE0 + 1] != 0 or gi[g, G_AEGIS_ON_GROUND] != 0


@kernel
def buyback_cost(S, D, g, h):
    return D.rules[R_BUYBACK_BASE] + D.rules[R_BUYBACK_LVL] * S.hi[g, h, LEVEL]


@kernel
def primary_available(S, D, g, h, prim):
    """Whether primary action ``prim`` can be taken now (targets are checked separately)."""
    uf, ui, hf, hi, items, gi = S.uf, S.ui, S.hf, S.hi, S.items, S.gi
    if hi[g, h, ACTIVE] == 0:
        return prim == A_NOOP
    team = team_of_hero(h)
    if prim == A_NOOP:
        return True
    if prim == A_GLYPH:
        return gi[g, G_GLYPH_CD0 + team] <= 0
    alive = ui[g, h, ALIVE] != 0
    if prim == A_BUYBACK:
        return (not alive) and hf[g, h, BUYBACK_CD] <= 0.0 and hf[g, h, GOLD] >= buyback_cost(S, D, g, h)
    if not alive or ui[g, h, STUN] > 0:
        return False
    if prim == A_MOVE or prim == A_STOP or prim == A_HOLD or prim == A_ATTACK_MOVE or prim == A_ATTACK:
        return True
    if prim >= A_ABILITY0 and prim < A_ABILITY0 + 4:
        return ability_ready(S, D, g, h, prim - A_ABILITY0)
    if prim >= A_ITEM0 and prim < A_ITEM0 + N_INVENTORY:
        return item_ready(S, D, g, h, prim - A_ITEM0)
    if prim == A_TOWN_PORTAL:
        return has_tp(items, g, h, 0) >= 0 and hf[g, h, TP_CHANNEL] <= 0.0
    if prim == A_PICKUP:
        return any_pickup(gi, g)
    return False
