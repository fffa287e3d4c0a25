"""The team groups: what one team observes, shared by its heroes, one kernel per observation group.

Every kernel here rewrites one group for game ``g`` and ``team`` (arrays ``(games, 2, ...)`` of ``O``, an
``ObsBuffers``), zeroing it first; its columns are the constants of ``fivestack.env.spaces`` named in its
docstring. They read the game state (``S``, ``D``) and, for the unit rows, the slot tables that
``obs_slots.select_slots`` wrote; no group reads another group. ``observation.encode_team`` calls them in
this file's order:

    encode_global          ``global``         GL_* (GL_CREEP_BALANCE: patch 0.3's ``creep_balance``)
    encode_units           ``units``          U_*   (one ``encode_unit`` row per filled slot; U_ATTACK_READY: patch
                                              0.4's ``attack_ready``; U_HITS_TO_KILL: 0.7's ``hits_to_kill``)
    encode_heroes          ``heroes`` + ``hero_ids``       HX_*  (all ten heroes, enemies only while seen;
                                                          ``hero_ids``: every hero in the game, public)
    encode_modifiers       ``modifiers``      MODIFIERS x (active, seconds left)
    encode_items           ``items`` + ``item_ids``        IF_*
    encode_abilities       ``abilities`` + ``ability_ids`` AF_*
    encode_allied_heroes   ``allied_heroes``  AX_*  (the team's own five)
    encode_pickups         ``pickups``        PK_*  (two rune spots and the aegis, with vision)
    encode_minimap         ``minimap``        MM_CHANNELS
"""

from __future__ import annotations

import math

import numpy as np

from fivestack.env.spaces import (
    AF_COOLDOWN, AF_LEVEL, AF_MANA, AF_RANGE, AF_READY, AF_TARGET, AF_ULTIMATE, AX_ALIVE, AX_BUYBACK_COOLDOWN,
    AX_BUYBACK_COST, AX_COURIER_COMING, AX_DAMAGE_DEALT, AX_GOLD, AX_LANE, AX_LANE_DISTANCE,
    AX_NEXT_ITEM_AFFORDABLE, AX_NEXT_ITEM_COST, AX_STASH, AX_TP_READY, AX_X, AX_Y, GL_AEGIS_ON_GROUND,
    GL_BIG_NEUTRAL_ALIVE, GL_CREEP_BALANCE, GL_DAY_COS, GL_DAY_SIN, GL_GLYPH_COOLDOWN, GL_GLYPH_READY, GL_NEXT_RUNE,
    GL_NEXT_WAVE, GL_NIGHT, GL_ONE_VS_ONE, GL_OUR_ANCIENT_HP, GL_OUR_BARRACKS_LOST, GL_OUR_KILLS, GL_OUR_TOWERS_LOST,
    GL_RUNE0, GL_THEIR_ANCIENT_HP, GL_THEIR_BARRACKS_LOST, GL_THEIR_KILLS, GL_THEIR_TOWERS_LOST, GL_TIME,
    GL_TIME_LEFT, HX_AEGIS, HX_AGI, HX_ALIVE, HX_ASSISTS, HX_BUYBACK_COST, HX_BUYBACK_READY, HX_DEATHS, HX_DENIES,
    HX_DOUBLE_DAMAGE, HX_ENEMY, HX_GOLD, HX_HASTE, HX_HP_FRAC, HX_INT, HX_KILLS, HX_LAST_HITS, HX_LEVEL,
    HX_MANA_FRAC, HX_NET_WORTH, HX_RESPAWN, HX_SEEN, HX_STR, HX_TELEPORTING, HX_TYPE, HX_XP_FRAC, IF_ACTIVE,
    IF_ARMOR, IF_ATTRIBUTES, IF_CHARGES, IF_COOLDOWN, IF_COST, IF_DAMAGE, IF_INVENTORY, IF_PRESENT, IF_READY,
    IF_TARGET, MINIMAP, PK_KIND, PK_PRESENT, PK_X, PK_Y, U_ALLY, U_ARMOR, U_ATTACK_PERIOD, U_ATTACK_READY,
    U_ATTACKING, U_DAMAGE, U_HITS_TO_KILL,
    U_ENEMY, U_FACING_COS, U_FACING_SIN, U_HP, U_HP_DELTA, U_HP_FRAC, U_HP_MAX, U_INVULNERABLE, U_KIND, U_LANE,
    U_LEVEL, U_MAGIC_RES, U_MANA_FRAC, U_NEUTRAL, U_RANGE, U_SEEN, U_SILENCED, U_SLOWED, U_SPEED, U_STUNNED,
    U_TARGET_IS_HERO, U_VISION, U_X, U_Y,
)
from fivestack.game import kernels as K
from fivestack.game.jit import kernel
from fivestack.game.lanes import lane_distance
from fivestack.game.patch import F_ATTACK_READY, F_CREEP_BALANCE, F_HITS_TO_KILL
from fivestack.game.layout import (
    ABILITY_CD, ABILITY_LEVEL, ACTIVE, AEGIS, AGI, ALIVE, ARMOR, ASSIGNED_LANE, ASSISTS, ATTACK_PERIOD, ATTACK_RANGE,
    ATTACK_READY,
    BUFF, BUILD_POS, BUYBACK_CD, DAMAGE, DAMAGE_DEALT, DEATHS, DENIES, DOT, DOUBLE_DAMAGE, FACING,
    FRAMES_PER_SECOND, FRAMES_PER_STEP, G_AEGIS_ON_GROUND, G_BARRACKS_LOST0, G_BIG_RESPAWN, G_COURIER_TARGET0,
    G_FRAME, G_GLYPH_CD0, G_KILLS0, G_MAX_FRAMES, G_MODE, G_RUNE0, G_TOWERS_LOST0, GOLD, HASTE, HERO_TYPE,
    HEROES_PER_TEAM, HP, HP_HISTORY_LEN, HP_MAX, INT, INVULN, IT_CHARGES, IT_COOLDOWN, IT_ID, K_COURIER,
    K_CREEP_MELEE, K_CREEP_RANGED, K_CREEP_SIEGE, K_HERO, K_TOWER, KILLS, KIND, LANE, LAST_HITS, LEVEL, MAGIC_RES,
    MANA, MANA_MAX, MANA_RESTORE, MAP_SIZE, MAX_UNITS, MODE_1V1_MID, MOVE_SPEED, N_HEROES, N_INVENTORY,
    N_ITEM_SLOTS, N_UNIT_SLOTS, NET_WORTH, NEUTRAL_TEAM, PROTECTED, REGEN, RESPAWN, SILENCE, SLOT_CREEPS, SLOW, STR,
    STUN, SUBTYPE, TARGET, TEAM, TP_CHANNEL, VISION_DAY, VISION_NIGHT, X, XP, Y,
)

HALF_MAP = MAP_SIZE / 2.0
MINIMAP_CELL = MAP_SIZE / MINIMAP


# ====================================================================== global
@kernel
def encode_global(S, D, O, g, team):
    """``global`` (``GL_*``): clock, day and night, wave and rune timers, runes, glyph, kills, buildings lost,
    both ancients' health (the enemy's only while seen), the game mode and the time left."""
    uf, ui, gi, vis = S.uf, S.ui, S.gi, S.vis
    rules = D.rules
    enemy = 1 - team
    frame = gi[g, G_FRAME]
    seconds = frame / FRAMES_PER_SECOND
    gv = O.glob[g, team]
    gv[:] = 0.0
    cycle = rules[K.R_DAY_NIGHT]
    phase = 2.0 * math.pi * (seconds % cycle) / cycle
    gv[GL_TIME] = seconds / 3600.0
    gv[GL_DAY_SIN] = math.sin(phase)
    gv[GL_DAY_COS] = math.cos(phase)
    gv[GL_NIGHT] = 1.0 if K.is_night(gi, rules, g) else 0.0
    wave = rules[K.R_WAVE]
    gv[GL_NEXT_WAVE] = (wave - ((seconds - 1.0) % wave)) / wave
    rune = rules[K.R_RUNE_INTERVAL]
    gv[GL_NEXT_RUNE] = (rune - ((seconds - 2.0) % rune)) / rune
    gv[GL_RUNE0] = 1.0 if gi[g, G_RUNE0] != 0 else 0.0
    gv[GL_RUNE0 + 1] = 1.0 if gi[g, G_RUNE0 + 1] != 0 else 0.0
    gv[GL_BIG_NEUTRAL_ALIVE] = 1.0 if gi[g, G_BIG_RESPAWN] < 0 and gi[g, G_MODE] != MODE_1V1_MID else 0.0
    gv[GL_AEGIS_ON_GROUND] = 1.0 if gi[g, G_AEGIS_ON_GROUND] != 0 else 0.0
    gv[GL_GLYPH_READY] = 1.0 if gi[g, G_GLYPH_CD0 + team] <= 0 else 0.0
    gv[GL_GLYPH_COOLDOWN] = gi[g, G_GLYPH_CD0 + team] / (FRAMES_PER_SECOND * 300.0)
    gv[GL_OUR_KILLS] = gi[g, G_KILLS0 + team] / 50.0
    gv[GL_THEIR_KILLS] = gi[g, G_KILLS0 + enemy] / 50.0
    gv[GL_OUR_TOWERS_LOST] = gi[g, G_TOWERS_LOST0 + team] / 11.0
    gv[GL_THEIR_TOWERS_LOST] = gi[g, G_TOWERS_LOST0 + enemy] / 11.0
    gv[GL_OUR_BARRACKS_LOST] = gi[g, G_BARRACKS_LOST0 + team] / 6.0
    gv[GL_THEIR_BARRACKS_LOST] = gi[g, G_BARRACKS_LOST0 + enemy] / 6.0
    own_ancient = K.building_slot(team, 17)
    their_ancient = K.building_slot(enemy, 17)
    gv[GL_OUR_ANCIENT_HP] = uf[g, own_ancient, HP] / uf[g, own_ancient, HP_MAX] if ui[g, own_ancient, ALIVE] else 0.0
    if vis[g, team, their_ancient] != 0 and ui[g, their_ancient, ALIVE] != 0:
        gv[GL_THEIR_ANCIENT_HP] = uf[g, their_ancient, HP] / uf[g, their_ancient, HP_MAX]
    gv[GL_ONE_VS_ONE] = 1.0 if gi[g, G_MODE] == MODE_1V1_MID else 0.0
    gv[GL_TIME_LEFT] = max(0.0, 1.0 - frame / max(gi[g, G_MAX_FRAMES], 1))
    if gv.shape[0] > GL_CREEP_BALANCE and D.features[g] & F_CREEP_BALANCE:  # patch 0.3's observation feature
        gv[GL_CREEP_BALANCE] = creep_balance(S, g, team) / 10.0


@kernel
def creep_balance(S, g, team):
    """The team's living lane creeps (melee, ranged, siege) minus the enemy's that the team sees."""
    ui, vis = S.ui, S.vis
    balance = 0
    for u in range(SLOT_CREEPS, MAX_UNITS):
        kind = ui[g, u, KIND]
        if ui[g, u, ALIVE] == 0 or kind < K_CREEP_MELEE or kind > K_CREEP_SIEGE:
            continue
        if ui[g, u, TEAM] == team:
            balance += 1
        elif vis[g, team, u] != 0:
            balance -= 1
    return balance


# ====================================================================== units
@kernel
def encode_units(S, D, O, g, team):
    """``units`` (``U_*``): one row per slot of the team's slot table (``obs_slots.select_slots``, which must
    run first), zeros for an empty slot; with patch 0.4's observation feature, ``U_ATTACK_READY`` after them, and
    with 0.7's, ``U_HITS_TO_KILL`` (``hits_to_kill``)."""
    units, unit_of_slot = O.units, O.unit_of_slot
    units[g, team] = 0.0
    attack_ready = units.shape[-1] > U_ATTACK_READY and D.features[g] & F_ATTACK_READY  # once per team-step
    hits = units.shape[-1] > U_HITS_TO_KILL and D.features[g] & F_HITS_TO_KILL
    damage = hardest_hit(S, g, team) if hits else 0.0
    for s in range(N_UNIT_SLOTS):
        u = unit_of_slot[g, team, s]
        if u >= 0:
            encode_unit(S, D, g, team, u, units[g, team, s])
            if attack_ready:
                units[g, team, s, U_ATTACK_READY] = max(S.uf[g, u, ATTACK_READY], 0.0) / FRAMES_PER_SECOND
            if hits:
                units[g, team, s, U_HITS_TO_KILL] = hits_to_kill(S, g, u, damage)


@kernel
def hardest_hit(S, g, team):
    """The attack damage of the team's hardest-hitting hero in play (alive or not), before the target's armor."""
    best = 0.0
    for h in range(team * HEROES_PER_TEAM, (team + 1) * HEROES_PER_TEAM):
        if S.hi[g, h, ACTIVE] != 0:
            best = max(best, K.attack_damage(S.uf, S.ui, g, h))
    return best


@kernel
def hits_to_kill(S, g, u, damage):
    """``U_HITS_TO_KILL``: unit ``u``'s health in attacks of ``damage`` after its armor, / 10, at most 1."""
    through = damage * K.physical_multiplier(S.uf, S.ui, g, u)
    if through <= 0.0:
        return 1.0
    return min(max(S.uf[g, u, HP], 0.0) / through / 10.0, 1.0)


@kernel
def encode_unit(S, D, g, team, u, row):
    """One ``units`` row: unit ``u`` as ``team`` sees it (the row starts zeroed)."""
    uf, ui, hp_hist, gi = S.uf, S.ui, S.hp_hist, S.gi
    night = K.is_night(gi, D.rules, g)
    row[U_SEEN] = 1.0
    kind = ui[g, u, KIND]
    row[U_KIND + kind] = 1.0
    t = ui[g, u, TEAM]
    if t == team:
        row[U_ALLY] = 1.0
    elif t == NEUTRAL_TEAM:
        row[U_NEUTRAL] = 1.0
    else:
        row[U_ENEMY] = 1.0
    row[U_X] = uf[g, u, X] / HALF_MAP - 1.0
    row[U_Y] = uf[g, u, Y] / HALF_MAP - 1.0
    row[U_FACING_COS] = math.cos(uf[g, u, FACING])
    row[U_FACING_SIN] = math.sin(uf[g, u, FACING])
    frac = uf[g, u, HP] / uf[g, u, HP_MAX]
    row[U_HP_FRAC] = frac
    row[U_HP] = uf[g, u, HP] / 1000.0
    row[U_HP_MAX] = uf[g, u, HP_MAX] / 1000.0
    row[U_MANA_FRAC] = uf[g, u, MANA] / uf[g, u, MANA_MAX] if uf[g, u, MANA_MAX] > 0 else 0.0
    now = (gi[g, G_FRAME] // FRAMES_PER_STEP) % HP_HISTORY_LEN
    lags = (1, 2, 4, 8, 15)
    for i in range(5):
        row[U_HP_DELTA + i] = frac - hp_hist[g, u, (now - lags[i]) % HP_HISTORY_LEN]
    row[U_DAMAGE] = uf[g, u, DAMAGE] / 100.0
    row[U_RANGE] = uf[g, u, ATTACK_RANGE] / 1000.0
    row[U_ATTACK_PERIOD] = uf[g, u, ATTACK_PERIOD]
    row[U_SPEED] = uf[g, u, MOVE_SPEED] / 500.0
    row[U_VISION] = (uf[g, u, VISION_NIGHT] if night else uf[g, u, VISION_DAY]) / 2000.0
    row[U_ARMOR] = uf[g, u, ARMOR] / 20.0
    row[U_MAGIC_RES] = uf[g, u, MAGIC_RES]
    tgt = ui[g, u, TARGET]
    if tgt >= 0:
        row[U_ATTACKING] = 1.0
        if tgt < N_HEROES:
            row[U_TARGET_IS_HERO] = 1.0
    row[U_STUNNED] = 1.0 if ui[g, u, STUN] > 0 else 0.0
    row[U_SILENCED] = 1.0 if ui[g, u, SILENCE] > 0 else 0.0
    row[U_SLOWED] = 1.0 if ui[g, u, SLOW] > 0 else 0.0
    row[U_INVULNERABLE] = 1.0 if (ui[g, u, INVULN] > 0 or ui[g, u, PROTECTED] > 0) else 0.0
    if kind == K_HERO:
        row[U_LEVEL] = S.hi[g, u, LEVEL] / 25.0
    elif kind == K_TOWER:
        row[U_LEVEL] = ui[g, u, SUBTYPE] / 4.0
    row[U_LANE] = (ui[g, u, LANE] + 1) / 3.0


# ====================================================================== the team's view of each hero
@kernel
def hero_in_view(S, g, team, h):
    """Whether ``team`` observes hero ``h``: an active hero of its own, or an enemy alive and seen. The
    absent heroes of the 1v1 mode (``ACTIVE`` 0) are never in view, so their rows stay zero."""
    if S.hi[g, h, ACTIVE] == 0:
        return False
    return K.team_of_hero(h) == team or (S.ui[g, h, ALIVE] != 0 and S.vis[g, team, h] != 0)


@kernel
def encode_heroes(S, D, O, g, team):
    """``heroes`` (``HX_*``): level, experience, score, attributes, state and health of every hero in view
    (gold and buyback only for the team's own); ``hero_ids``: the type of every hero in the game, seen or not
    (the lineups are public, as after a draft: what the fog hides is where an enemy is and how it fares, not who
    it is; -1 for the absent heroes of the 1v1 mode)."""
    uf, ui, hf, hi = S.uf, S.ui, S.hf, S.hi
    xp_table = D.xp_table
    heroes, hero_ids = O.heroes, O.hero_ids
    heroes[g, team] = 0.0
    hero_ids[g, team] = -1
    for h in range(N_HEROES):
        if hi[g, h, ACTIVE] != 0:
            hero_ids[g, team, h] = hi[g, h, HERO_TYPE]
        if not hero_in_view(S, g, team, h):
            continue
        mine = K.team_of_hero(h) == team
        hx = heroes[g, team, h]
        alive = ui[g, h, ALIVE] != 0
        level = hi[g, h, LEVEL]
        hx[HX_SEEN] = 1.0
        hx[HX_ALIVE] = 1.0 if alive else 0.0
        hx[HX_LEVEL] = level / 25.0
        if level < 25:
            lo = xp_table[level - 1] if level > 1 else 0.0
            hx[HX_XP_FRAC] = (hf[g, h, XP] - lo) / max(xp_table[level] - lo, 1.0)
        else:
            hx[HX_XP_FRAC] = 1.0
        if mine:
            hx[HX_GOLD] = hf[g, h, GOLD] / 5000.0
            hx[HX_BUYBACK_COST] = K.buyback_cost(S, D, g, h) / 2000.0
            hx[HX_BUYBACK_READY] = 1.0 if hf[g, h, BUYBACK_CD] <= 0.0 else 0.0
        hx[HX_NET_WORTH] = hf[g, h, NET_WORTH] / 20000.0
        hx[HX_KILLS] = hi[g, h, KILLS] / 20.0
        hx[HX_DEATHS] = hi[g, h, DEATHS] / 20.0
        hx[HX_ASSISTS] = hi[g, h, ASSISTS] / 20.0
        hx[HX_LAST_HITS] = hi[g, h, LAST_HITS] / 200.0
        hx[HX_DENIES] = hi[g, h, DENIES] / 50.0
        hx[HX_RESPAWN] = hf[g, h, RESPAWN] / 60.0
        hx[HX_AEGIS] = 1.0 if hf[g, h, AEGIS] > 0.0 else 0.0
        hx[HX_STR] = hf[g, h, STR] / 100.0
        hx[HX_AGI] = hf[g, h, AGI] / 100.0
        hx[HX_INT] = hf[g, h, INT] / 100.0
        hx[HX_TELEPORTING] = 1.0 if hf[g, h, TP_CHANNEL] > 0.0 else 0.0
        hx[HX_DOUBLE_DAMAGE] = 1.0 if ui[g, h, DOUBLE_DAMAGE] > 0 else 0.0
        hx[HX_HASTE] = 1.0 if ui[g, h, HASTE] > 0 else 0.0
        hx[HX_TYPE] = hi[g, h, HERO_TYPE] / 16.0
        hx[HX_ENEMY] = 0.0 if mine else 1.0
        if alive:
            hx[HX_HP_FRAC] = uf[g, h, HP] / uf[g, h, HP_MAX]
            hx[HX_MANA_FRAC] = uf[g, h, MANA] / uf[g, h, MANA_MAX]


@kernel
def encode_modifiers(S, D, O, g, team):
    """``modifiers`` (``MODIFIERS``, two columns each): for every hero in view, whether each timed effect is
    on and its seconds left / 10."""
    ui, hf = S.ui, S.hf
    mods = O.modifiers
    mods[g, team] = 0.0
    for h in range(N_HEROES):
        if not hero_in_view(S, g, team, h):
            continue
        timers = (np.int64(ui[g, h, STUN]), np.int64(ui[g, h, SILENCE]), np.int64(ui[g, h, SLOW]),
                  np.int64(ui[g, h, DOT]), np.int64(ui[g, h, BUFF]),
                  np.int64(max(ui[g, h, REGEN], ui[g, h, MANA_RESTORE])),  # either restore: regeneration
                  np.int64(ui[g, h, INVULN]), np.int64(ui[g, h, DOUBLE_DAMAGE]), np.int64(ui[g, h, HASTE]),
                  np.int64(hf[g, h, AEGIS] * FRAMES_PER_SECOND))
        for m in range(10):
            if timers[m] > 0:
                mods[g, team, h, m, 0] = 1.0
                mods[g, team, h, m, 1] = timers[m] / (10.0 * FRAMES_PER_SECOND)


@kernel
def encode_items(S, D, O, g, team):
    """``items`` (``IF_*``) and ``item_ids`` (-1 empty or unseen): every item slot of every hero in view; an
    enemy's backpack is not visible, so only its inventory is encoded."""
    items = S.items
    item_t = D.item_table
    item_f, item_ids = O.items, O.item_ids
    item_f[g, team] = 0.0
    item_ids[g, team] = -1
    for h in range(N_HEROES):
        if not hero_in_view(S, g, team, h):
            continue
        mine = K.team_of_hero(h) == team
        for s in range(N_ITEM_SLOTS if mine else N_INVENTORY):
            it = items[g, h, s, IT_ID]
            if it < 0:
                continue
            f = item_f[g, team, h, s]
            item_ids[g, team, h, s] = it
            f[IF_PRESENT] = 1.0
            f[IF_INVENTORY] = 1.0 if s < N_INVENTORY else 0.0
            f[IF_COST] = item_t[it, K.I_COST] / 2250.0
            f[IF_CHARGES] = items[g, h, s, IT_CHARGES] / 3.0
            f[IF_COOLDOWN] = items[g, h, s, IT_COOLDOWN] / (60.0 * FRAMES_PER_SECOND)
            f[IF_READY] = 1.0 if s < N_INVENTORY and K.item_ready(S, D, g, h, s) else 0.0
            f[IF_ACTIVE] = 1.0 if item_t[it, K.I_ACTIVE] > 0 else 0.0
            if item_t[it, K.I_ACTIVE] > 0:
                f[IF_TARGET + min(int(item_t[it, K.I_TARGET]), 2)] = 1.0
            f[IF_ATTRIBUTES] = (item_t[it, K.I_STR] + item_t[it, K.I_AGI] + item_t[it, K.I_INT]) / 30.0
            f[IF_DAMAGE] = item_t[it, K.I_DAMAGE] / 50.0
            f[IF_ARMOR] = item_t[it, K.I_ARMOR] / 10.0


@kernel
def encode_abilities(S, D, O, g, team):
    """``abilities`` (``AF_*``) and ``ability_ids`` (-1 unseen): the four abilities of every hero in view."""
    ui, hi = S.ui, S.hi
    abil_t = D.ability_table
    abil_f, ability_ids = O.abilities, O.ability_ids
    abil_f[g, team] = 0.0
    ability_ids[g, team] = -1
    for h in range(N_HEROES):
        if not hero_in_view(S, g, team, h):
            continue
        alive = ui[g, h, ALIVE] != 0
        for k in range(4):
            a = K.ability_of(hi, D, g, h, k)
            ability_ids[g, team, h, k] = a
            f = abil_f[g, team, h, k]
            lvl = hi[g, h, ABILITY_LEVEL + k]
            f[AF_LEVEL] = lvl / 4.0
            f[AF_READY] = 1.0 if alive and K.ability_ready(S, D, g, h, k) else 0.0
            f[AF_COOLDOWN] = hi[g, h, ABILITY_CD + k] / (100.0 * FRAMES_PER_SECOND)
            f[AF_MANA] = K.ability_value(abil_t, a, K.AB_MANA, max(lvl, 1)) / 300.0
            f[AF_TARGET] = abil_t[a, K.AB_TARGET] / 3.0
            f[AF_ULTIMATE] = abil_t[a, K.AB_ULTIMATE]
            f[AF_RANGE] = abil_t[a, K.AB_RANGE] / 1000.0


# ====================================================================== allied heroes
@kernel
def encode_allied_heroes(S, D, O, g, team):
    """``allied_heroes`` (``AX_*``): what a team knows only of its own five heroes: lane, gold, buyback, stash,
    next item of the build, teleport, courier, damage dealt, position and distance from the assigned lane."""
    uf, ui, hf, hi, items, stash, gi = S.uf, S.ui, S.hf, S.hi, S.items, S.stash, S.gi
    item_t, lanes = D.item_table, D.lanes
    allied = O.allied_heroes
    allied[g, team] = 0.0
    courier_target = gi[g, G_COURIER_TARGET0 + team]
    build = S.build_order
    for j in range(HEROES_PER_TEAM):
        h = team * HEROES_PER_TEAM + j
        if hi[g, h, ACTIVE] == 0:
            continue
        f = allied[g, team, j]
        f[AX_LANE + hi[g, h, ASSIGNED_LANE]] = 1.0
        f[AX_GOLD] = hf[g, h, GOLD] / 5000.0
        f[AX_BUYBACK_COOLDOWN] = hf[g, h, BUYBACK_CD] / 300.0
        f[AX_BUYBACK_COST] = K.buyback_cost(S, D, g, h) / 2000.0
        n_stash = 0
        for k in range(stash.shape[2]):
            if stash[g, h, k] >= 0:
                n_stash += 1
        f[AX_STASH] = n_stash / 6.0
        pos = hi[g, h, BUILD_POS]
        if pos < build.shape[2] and build[g, h, pos] >= 0:
            cost = item_t[build[g, h, pos], K.I_COST]
            f[AX_NEXT_ITEM_COST] = cost / 2250.0
            f[AX_NEXT_ITEM_AFFORDABLE] = 1.0 if hf[g, h, GOLD] >= cost else 0.0
        f[AX_TP_READY] = 1.0 if K.has_tp(items, g, h, 0) >= 0 else 0.0
        f[AX_COURIER_COMING] = 1.0 if courier_target == h else 0.0
        f[AX_DAMAGE_DEALT] = hf[g, h, DAMAGE_DEALT] / 10000.0
        f[AX_X] = uf[g, h, X] / HALF_MAP - 1.0
        f[AX_Y] = uf[g, h, Y] / HALF_MAP - 1.0
        f[AX_ALIVE] = 1.0 if ui[g, h, ALIVE] != 0 else 0.0
        f[AX_LANE_DISTANCE] = lane_distance(lanes, hi[g, h, ASSIGNED_LANE], uf[g, h, X], uf[g, h, Y]) / 2000.0


# ====================================================================== pickups
@kernel
def encode_pickups(S, D, O, g, team):
    """``pickups`` (``PK_*``): the two rune spots and the aegis in the pit, each only while the team has
    vision of its spot."""
    gi = S.gi
    pickups = O.pickups
    pickups[g, team] = 0.0
    for k in range(3):
        if k < 2:
            kind = gi[g, G_RUNE0 + k]
            px, py = D.rune_spots[k, 0], D.rune_spots[k, 1]
        else:
            kind = 5 if gi[g, G_AEGIS_ON_GROUND] != 0 else 0
            px, py = D.big_neutral[0], D.big_neutral[1]
        if kind == 0 or not point_seen(S, D, g, team, px, py):
            continue
        f = pickups[g, team, k]
        f[PK_PRESENT] = 1.0
        f[PK_KIND + kind - 1] = 1.0
        f[PK_X] = px / HALF_MAP - 1.0
        f[PK_Y] = py / HALF_MAP - 1.0


@kernel
def point_seen(S, D, g, team, px, py):
    """Whether a living unit of ``team`` has the point (``px``, ``py``) within its current vision radius."""
    uf, ui = S.uf, S.ui
    night = K.is_night(S.gi, D.rules, g)
    for u in range(MAX_UNITS):
        if ui[g, u, ALIVE] != 0 and ui[g, u, TEAM] == team:
            r = uf[g, u, VISION_NIGHT] if night else uf[g, u, VISION_DAY]
            if (uf[g, u, X] - px) ** 2 + (uf[g, u, Y] - py) ** 2 <= r * r:
                return True
    return False


# ====================================================================== minimap
@kernel
def encode_minimap(S, D, O, g, team):
    """``minimap`` (``MM_CHANNELS``): the map in MINIMAP x MINIMAP cells: weighted counts of the units the
    team sees by side and kind, the cells its units stand in, and each cell's static walkable share."""
    uf, ui, vis = S.uf, S.ui, S.vis
    mm = O.minimap[g, team]
    mm[:, :, :8] = 0.0
    for u in range(MAX_UNITS):
        if ui[g, u, ALIVE] == 0:
            continue
        t = ui[g, u, TEAM]
        if t != team and vis[g, team, u] == 0:
            continue
        cx = min(int(uf[g, u, X] / MINIMAP_CELL), MINIMAP - 1)
        cy = min(int(uf[g, u, Y] / MINIMAP_CELL), MINIMAP - 1)
        kind = ui[g, u, KIND]
        ally = t == team
        if t == NEUTRAL_TEAM:
            mm[cx, cy, 6] += 0.25
        elif kind == K_HERO:
            mm[cx, cy, 0 if ally else 1] += 0.2
        elif kind == K_CREEP_MELEE or kind == K_CREEP_RANGED or kind == K_CREEP_SIEGE:
            mm[cx, cy, 2 if ally else 3] += 0.1
        elif kind != K_COURIER:
            mm[cx, cy, 4 if ally else 5] += 0.25
        if ally:
            mm[cx, cy, 7] = 1.0
    static = O.minimap_walk  # walkability fraction per cell never changes
    for cx in range(MINIMAP):
        for cy in range(MINIMAP):
            mm[cx, cy, 8] = static[cx, cy]
