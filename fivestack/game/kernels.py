"""The simulator's hot loops: Numba kernels over the struct-of-arrays state of many games.

Every kernel takes two tuples: ``S`` the mutable state arrays (see ``engine.State``) and ``D`` the
read-only data of the patch and the map (see ``engine.Data``), and a game index ``g``. ``step_games``
advances every running game by one agent timestep (4 frames) and is the only entry point the engine calls
per step; ``reset_game`` lays out a fresh game.
"""

from __future__ import annotations

import math

import numpy as np

from fivestack.game.jit import kernel
from fivestack.game.lanes import lane_distance

from fivestack.game.layout import (
    ABILITY_CD, ABILITY_LEVEL, ACT_DELAY, ACT_OFFSET_X, ACT_OFFSET_Y, ACT_PRIMARY, ACT_TARGET, ACTIVE, AEGIS,
    AGI, ALIVE, ARMOR, A_ABILITY0, A_ATTACK, A_ATTACK_MOVE, A_BUYBACK, A_GLYPH, A_HOLD, A_ITEM0, A_MOVE, A_NOOP,
    A_PICKUP, A_STOP, A_TOWN_PORTAL, ASSIGNED_LANE, ASSISTS, ATTACK_PERIOD, ATTACK_RANGE, ATTACK_READY,
    BOUNTY_GOLD, BOUNTY_XP, BUFF, BUFF_ARMOR, BUFF_DAMAGE, BUFF_SPEED, BUILD_POS, BUYBACK_CD, CAMP_SIZE,
    CAST_ABILITY, CAST_TARGET, CAST_X, CAST_Y, CELL, DAMAGE, DAMAGE_DEALT, DEATHS, DENIES, DIRE, DOT, DOT_DPS,
    DOT_SOURCE, DOUBLE_DAMAGE, DT, EV_AEGIS, EV_ANCIENT_HP, EV_ANCIENT_LOST, EV_BARRACKS_HP, EV_BARRACKS_LOST,
    EV_COURIER_DEATH, EV_DENY, EV_GOLD, EV_GOLD_SPENT, EV_HEALTH, EV_HERO_DEATH, EV_KILLED_HERO,
    EV_LANE_OUTSIDE, EV_LAST_HIT, EV_MANA, EV_MEGAS, EV_T1_HP, EV_T1_LOST, EV_WIN, EV_XP, FACING,
    FRAMES_PER_SECOND, FRAMES_PER_STEP, G_AEGIS_ON_GROUND, G_BARRACKS_LOST0, G_BIG_RESPAWN,
    G_COURIER_RESPAWN0, G_COURIER_TARGET0, G_DONE, G_FRAME, G_GLYPH_CD0, G_KILLS0, G_MAX_FRAMES, G_MEGAS0,
    G_MODE, G_RNG, G_TRAINING, G_RUNE0, G_SUPER0, G_TOWERS_LOST0, G_WAVE, G_WINNER, GOAL_X, GOAL_Y, GOLD, GRID, HASTE,
    HERO_ATTACK_FRAME, HERO_TYPE, HEROES_PER_TEAM, HOME_X, HOME_Y, HP, HP_HISTORY, HP_HISTORY_LEN, HP_MAX,
    HP_REGEN, INT, INVALID_ACTIONS, INVULN, IT_CHARGES, IT_COOLDOWN, IT_ID, K_ANCIENT, K_BARRACKS,
    K_BIG_NEUTRAL, K_COURIER, K_CREEP_MELEE, K_CREEP_RANGED, K_CREEP_SIEGE, K_FOUNTAIN, K_HERO, K_NEUTRAL,
    K_TOWER, KILLER, KILLER_HERO, KILLS, KIND, LANE, LAST_HERO, LAST_HERO_FRAME, LAST_HITS, LEVEL, MAGIC_RES,
    MANA, MANA_BUFF, MANA_MAX, MANA_REGEN, MAP_SIZE, MAX_PROJECTILES, MAX_UNITS, MODE_1V1_MID, MOVE_SPEED,
    MOVE_STEP, N_BUILDINGS_PER_TEAM, N_CAMPS, N_HEROES, N_INVENTORY, N_ITEM_SLOTS, N_PRIMARY, NET_WORTH,
    NEUTRAL_TEAM, O_ATTACK, O_ATTACK_MOVE, O_CAST, O_HOLD, O_MOVE, O_NONE, O_PICKUP, O_TELEPORT, ORDER,
    PJ_ABILITY, PJ_ACTIVE, PJ_DAMAGE, PJ_LEVEL, PJ_SOURCE, PJ_SPEED, PJ_TARGET, PJ_X, PJ_Y, PROJ_SPEED,
    PROTECTED, RADIANT, REGEN, REGEN_BUFF, RESPAWN, SILENCE, SKILL_POINTS, SLOT_BIG_NEUTRAL, SLOT_BUILDINGS,
    SLOT_COURIERS, SLOT_CREEPS, SLOT_NEUTRALS, SLOW, SLOW_FRAC, STR, STUN, SUBTYPE, T_NONE, T_POINT, T_UNIT,
    T_UNIT_OFFSET, TARGET, TARGET_OFFSET_STEP, TEAM, TP_CHANNEL, TP_X, TP_Y, VISION_DAY, VISION_NIGHT,
    WAYPOINT, X, XP, Y,
)

# Columns of the patch tables (see fivestack.game.patch); repeated here as plain ints for Numba.
H_STR, H_AGI, H_INT, H_STR_GAIN, H_AGI_GAIN, H_INT_GAIN, H_PRIMARY, H_DAMAGE, H_RANGE = 0, 1, 2, 3, 4, 5, 6, 7, 8
H_ATTACK_TIME, H_SPEED, H_ARMOR, H_PROJ_SPEED, H_ABILITY0 = 9, 10, 11, 12, 13
AB_TARGET, AB_AFFECTS, AB_RANGE, AB_RADIUS, AB_DAMAGE, AB_DAMAGE_LVL, AB_DAMAGE_TYPE = 0, 1, 2, 3, 4, 5, 6
AB_STUN, AB_SLOW, AB_SLOW_TIME, AB_SILENCE, AB_DOT, AB_DOT_TIME, AB_HEAL, AB_HEAL_LVL = 7, 8, 9, 10, 11, 12, 13, 14
AB_BUFF_ARMOR, AB_BUFF_DAMAGE, AB_BUFF_SPEED, AB_BUFF_TIME, AB_PROJ_SPEED = 15, 16, 17, 18, 19
AB_MANA, AB_MANA_LVL, AB_COOLDOWN, AB_COOLDOWN_LVL, AB_ULTIMATE = 20, 21, 22, 23, 24
I_COST, I_STR, I_AGI, I_INT, I_DAMAGE, I_ARMOR, I_HP, I_MANA, I_HP_REGEN, I_MANA_REGEN = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
I_SPEED, I_ACTIVE, I_TARGET, I_RANGE, I_AMOUNT, I_DURATION, I_COOLDOWN, I_CHARGES = 10, 11, 12, 13, 14, 15, 16, 17
ACT_HEAL_OVER_TIME, ACT_MANA_OVER_TIME, ACT_TELEPORT, ACT_BLINK, ACT_STUN, ACT_AREA_HEAL = 1, 2, 3, 4, 5, 6
C_HP, C_DAMAGE, C_RANGE, C_ATTACK_TIME, C_SPEED, C_ARMOR, C_PROJ, C_GOLD, C_XP, C_VISION = range(10)
# rows of the creep table (order of patch.CREEPS)
CR_MELEE, CR_RANGED, CR_SIEGE, CR_SUPER_MELEE, CR_SUPER_RANGED = 0, 1, 2, 3, 4
CR_NEUTRAL, CR_BIG_NEUTRAL, CR_COURIER = 13, 14, 15
# columns of the rules vector (order of patch.Rules)
R_WAVE, R_MELEE, R_RANGED, R_SIEGE_EVERY, R_UPGRADE_INTERVAL, R_UPGRADE, R_CAMP_RESPAWN = 0, 1, 2, 3, 4, 5, 6
R_BIG_RESPAWN, R_AEGIS, R_RUNE_INTERVAL, R_DAY_NIGHT, R_START_GOLD, R_PASSIVE_GOLD = 7, 8, 9, 10, 11, 12
R_KILL_GOLD, R_KILL_GOLD_LVL, R_ASSIST_GOLD, R_KILL_XP, R_KILL_XP_LVL, R_XP_RADIUS = 13, 14, 15, 16, 17, 18
R_RESPAWN_BASE, R_RESPAWN_LVL, R_BUYBACK_BASE, R_BUYBACK_LVL, R_BUYBACK_CD = 19, 20, 21, 22, 23
R_GLYPH_CD, R_GLYPH_TIME, R_FOUNTAIN_REGEN, R_TP_TIME, R_BOUNTY_GOLD, R_COURIER_RESPAWN = 24, 25, 26, 27, 28, 29
R_CREEP_VS_BUILDING, R_SIEGE_VS_BUILDING = 30, 31

GRID_CELL = 1000.0  # spatial hash cell for neighbour queries
GRID_SIDE = 16
ACQUIRE_RADIUS = 500.0  # lane creeps and heroes pick targets within this distance
CHASE_LIMIT = 1200.0  # creeps give up a target this far away
NEUTRAL_LEASH = 900.0
PICKUP_RADIUS = 150.0
COURIER_REACH = 200.0
FOUNTAIN_RADIUS = 1200.0
SHOP_RADIUS = 1500.0
HULL = 40.0  # attack reach beyond the attack range
TEAM_GOLD_FOR_BUILDING = 1  # buildings pay their bounty to every hero of the enemy team
WAYPOINT_REACHED = 150.0
LANE_ASSIGNMENT_SECONDS = 600.0  # the lane-assignment event counts during the first 10 minutes
LANE_ASSIGNMENT_DISTANCE = 1500.0
MAX_LEVEL = 25


# ====================================================================== small helpers
@kernel
def xorshift01(state, g, column):
    """xorshift64 kept in ``state[g, column]``: a float in [0, 1). Each game owns its generators."""
    x = np.uint64(state[g, column])
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    state[g, column] = np.int64(x)
    return float(x >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def splitmix64(z):
    """Scramble a 64-bit value into a non-zero xorshift state (stored as int64)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    if z == np.uint64(0):
        z = np.uint64(1)
    return np.int64(z)


@kernel
def rand01(gi, g):
    """The game's own random stream (rules: rune kinds, build randomisation)."""
    return xorshift01(gi, g, G_RNG)


@kernel
def dist2(uf, g, a, b):
    dx = uf[g, a, X] - uf[g, b, X]
    dy = uf[g, a, Y] - uf[g, b, Y]
    return dx * dx + dy * dy


@kernel
def clampf(v, lo, hi):
    return lo if v < lo else (hi if v > hi else v)


@kernel
def is_night(gi, rules, g):
    seconds = gi[g, G_FRAME] / FRAMES_PER_SECOND
    cycle = rules[R_DAY_NIGHT]
    return (seconds % cycle) >= cycle * 0.5


@kernel
def health_shape(x):
    """The paper's h(x) for the health reward: more weight on the last bits of health."""
    return (x + 1.0 - (1.0 - x) ** 4) * 0.5


@kernel
def team_of_hero(h):
    return 0 if h < HEROES_PER_TEAM else 1


@kernel
def building_slot(team, local):
    return SLOT_BUILDINGS + team * N_BUILDINGS_PER_TEAM + local


@kernel
def walkable(walk, x, y):
    cx = int(x / CELL)
    cy = int(y / CELL)
    if cx < 0 or cy < 0 or cx >= GRID or cy >= GRID:
        return False
    return walk[cx, cy] != 0


# ====================================================================== stats
@kernel
def refresh_hero(S, D, g, h):
    """Recompute a hero's derived stats from attributes, level and inventory, keeping health fractions."""
    uf, ui, hf, hi, items = S.uf, S.ui, S.hf, S.hi, S.items
    hero_t, item_t = D.hero_table, D.item_table
    ht = hi[g, h, HERO_TYPE]
    strength, agility, intel = hf[g, h, STR], hf[g, h, AGI], hf[g, h, INT]
    dmg = 0.0
    armor = 0.0
    hp = 0.0
    mana = 0.0
    hp_regen = 0.0
    mana_regen = 0.0
    speed = 0.0
    for s in range(N_INVENTORY):
        it = items[g, h, s, IT_ID]
        if it < 0:
            continue
        strength += item_t[it, I_STR]
        agility += item_t[it, I_AGI]
        intel += item_t[it, I_INT]
        dmg += item_t[it, I_DAMAGE]
        armor += item_t[it, I_ARMOR]
        hp += item_t[it, I_HP]
        mana += item_t[it, I_MANA]
        hp_regen += item_t[it, I_HP_REGEN]
        mana_regen += item_t[it, I_MANA_REGEN]
        speed += item_t[it, I_SPEED]
    primary = int(hero_t[ht, H_PRIMARY])
    prim_value = strength if primary == 0 else (agility if primary == 1 else intel)
    hp_frac = uf[g, h, HP] / uf[g, h, HP_MAX] if uf[g, h, HP_MAX] > 0 else 1.0
    mana_frac = uf[g, h, MANA] / uf[g, h, MANA_MAX] if uf[g, h, MANA_MAX] > 0 else 1.0
    uf[g, h, HP_MAX] = 200.0 + 20.0 * strength + hp
    uf[g, h, MANA_MAX] = 75.0 + 12.0 * intel + mana
    uf[g, h, HP] = hp_frac * uf[g, h, HP_MAX]
    uf[g, h, MANA] = mana_frac * uf[g, h, MANA_MAX]
    uf[g, h, HP_REGEN] = 0.5 + 0.1 * strength + hp_regen
    uf[g, h, MANA_REGEN] = 0.3 + 0.05 * intel + mana_regen
    uf[g, h, ARMOR] = hero_t[ht, H_ARMOR] + agility / 6.0 + armor
    uf[g, h, DAMAGE] = hero_t[ht, H_DAMAGE] + prim_value + dmg
    uf[g, h, ATTACK_PERIOD] = hero_t[ht, H_ATTACK_TIME] * 100.0 / (100.0 + agility)
    uf[g, h, MOVE_SPEED] = hero_t[ht, H_SPEED] + speed


@kernel
def net_worth(S, D, g, h):
    hf, items = S.hf, S.items
    item_t = D.item_table
    total = hf[g, h, GOLD]
    for s in range(N_ITEM_SLOTS):
        it = items[g, h, s, IT_ID]
        if it >= 0:
            total += item_t[it, I_COST]
    return total


# ====================================================================== unit creation
@kernel
def set_unit(S, D, g, u, team, kind, row, x, y, scale):
    """Lay out a non-hero unit from a row of the creep/building table, stats scaled by ``scale``."""
    uf, ui = S.uf, S.ui
    creep_t = D.creep_table
    uf[g, u, :] = 0.0
    ui[g, u, :] = 0
    ui[g, u, ALIVE] = 1
    ui[g, u, TEAM] = team
    ui[g, u, KIND] = kind
    ui[g, u, LANE] = -1
    ui[g, u, TARGET] = -1
    ui[g, u, DOT_SOURCE] = -1
    ui[g, u, LAST_HERO] = -1
    ui[g, u, KILLER] = -1
    ui[g, u, KILLER_HERO] = -1
    uf[g, u, X] = x
    uf[g, u, Y] = y
    uf[g, u, HOME_X] = x
    uf[g, u, HOME_Y] = y
    uf[g, u, GOAL_X] = x
    uf[g, u, GOAL_Y] = y
    uf[g, u, HP_MAX] = creep_t[row, C_HP] * scale
    uf[g, u, HP] = uf[g, u, HP_MAX]
    uf[g, u, DAMAGE] = creep_t[row, C_DAMAGE] * scale
    uf[g, u, ATTACK_RANGE] = creep_t[row, C_RANGE]
    uf[g, u, ATTACK_PERIOD] = creep_t[row, C_ATTACK_TIME]
    uf[g, u, MOVE_SPEED] = creep_t[row, C_SPEED]
    uf[g, u, ARMOR] = creep_t[row, C_ARMOR]
    uf[g, u, PROJ_SPEED] = creep_t[row, C_PROJ]
    uf[g, u, BOUNTY_GOLD] = creep_t[row, C_GOLD]
    uf[g, u, BOUNTY_XP] = creep_t[row, C_XP]
    uf[g, u, VISION_DAY] = creep_t[row, C_VISION]
    uf[g, u, VISION_NIGHT] = min(creep_t[row, C_VISION], 800.0)
    S.hp_hist[g, u, :] = 1.0


@kernel
def spawn_hero(S, D, g, h):
    uf, ui, hf, hi = S.uf, S.ui, S.hf, S.hi
    fountain = D.fountain
    team = team_of_hero(h)
    ui[g, h, ALIVE] = 1
    uf[g, h, X] = fountain[team, 0] + (h % 5) * 60.0 - 120.0
    uf[g, h, Y] = fountain[team, 1] - (h % 5) * 60.0 + 120.0
    uf[g, h, GOAL_X] = uf[g, h, X]
    uf[g, h, GOAL_Y] = uf[g, h, Y]
    uf[g, h, HP] = uf[g, h, HP_MAX]
    uf[g, h, MANA] = uf[g, h, MANA_MAX]
    ui[g, h, ORDER] = O_NONE
    ui[g, h, TARGET] = -1
    ui[g, h, STUN] = 0
    ui[g, h, SILENCE] = 0
    ui[g, h, SLOW] = 0
    ui[g, h, DOT] = 0
    ui[g, h, KILLER] = -1
    ui[g, h, KILLER_HERO] = -1
    hf[g, h, RESPAWN] = 0.0
    hf[g, h, TP_CHANNEL] = 0.0


@kernel
def reset_game(S, D, g, seed, mode, training, max_frames, hero_types):
    uf, ui, hf, hi, items, stash, proj, gi, hp_hist = S.uf, S.ui, S.hf, S.hi, S.items, S.stash, S.proj, S.gi, S.hp_hist
    hero_t, rules, skill_builds, item_builds = D.hero_table, D.rules, D.skill_builds, D.item_builds
    b_pos, b_kind, b_sub, b_lane, b_row = D.building_pos, D.building_kind, D.building_subtype, D.building_lane, D.building_row
    camps, big_pos = D.camps, D.big_neutral
    build_order, assist_frame = S.build_order, S.assist_frames
    uf[g] = 0.0
    ui[g] = 0
    hf[g] = 0.0
    hi[g] = 0
    items[g] = -1
    items[g, :, :, IT_CHARGES] = 0
    items[g, :, :, IT_COOLDOWN] = 0
    stash[g] = -1
    proj[g] = 0.0
    gi[g] = 0
    hp_hist[g] = 0.0
    assist_frame[g] = -1000000
    for u in range(MAX_UNITS):
        ui[g, u, TARGET] = -1
        ui[g, u, LAST_HERO] = -1
        ui[g, u, KILLER] = -1
        ui[g, u, KILLER_HERO] = -1
        ui[g, u, DOT_SOURCE] = -1
        ui[g, u, LANE] = -1
    gi[g, G_RNG] = splitmix64(np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15))  # the game's own RNG
    gi[g, G_MODE] = mode
    gi[g, G_MAX_FRAMES] = max_frames
    gi[g, G_WINNER] = -1
    gi[g, G_BIG_RESPAWN] = -1
    gi[g, G_COURIER_TARGET0] = -1
    gi[g, G_COURIER_TARGET0 + 1] = -1
    gi[g, G_COURIER_RESPAWN0] = -1
    gi[g, G_COURIER_RESPAWN0 + 1] = -1
    gi[g, G_TRAINING] = training
    # heroes
    lanes_5v5 = (0, 1, 2, 2, 0)  # top, mid, safe lane pair, offlane
    for h in range(N_HEROES):
        ht = hero_types[h]
        hi[g, h, HERO_TYPE] = ht
        hi[g, h, CAST_ABILITY] = -1
        hi[g, h, CAST_TARGET] = -1
        active = 1
        if mode == MODE_1V1_MID and h % HEROES_PER_TEAM != 0:
            active = 0
        hi[g, h, ACTIVE] = active
        hi[g, h, ASSIGNED_LANE] = 1 if mode == MODE_1V1_MID else lanes_5v5[h % 5]
        ui[g, h, TEAM] = team_of_hero(h)
        ui[g, h, KIND] = K_HERO
        ui[g, h, SUBTYPE] = ht
        ui[g, h, LANE] = hi[g, h, ASSIGNED_LANE]
        hi[g, h, LEVEL] = 1
        hf[g, h, STR] = hero_t[ht, H_STR]
        hf[g, h, AGI] = hero_t[ht, H_AGI]
        hf[g, h, INT] = hero_t[ht, H_INT]
        hf[g, h, GOLD] = rules[R_START_GOLD]
        uf[g, h, ATTACK_RANGE] = hero_t[ht, H_RANGE]
        uf[g, h, PROJ_SPEED] = hero_t[ht, H_PROJ_SPEED]
        uf[g, h, MAGIC_RES] = 0.25
        uf[g, h, VISION_DAY] = 1800.0
        uf[g, h, VISION_NIGHT] = 800.0
        uf[g, h, HP_MAX] = 1.0
        uf[g, h, MANA_MAX] = 1.0
        uf[g, h, HP] = 1.0
        uf[g, h, MANA] = 1.0
        # scripted item build, randomised around the fixed one in training: swap neighbours at random
        width = item_builds.shape[1]
        for k in range(width):
            build_order[g, h, k] = item_builds[ht, k]
        if training:
            for k in range(width - 1):
                if build_order[g, h, k + 1] >= 0 and rand01(gi, g) < 0.25:
                    tmp = build_order[g, h, k]
                    build_order[g, h, k] = build_order[g, h, k + 1]
                    build_order[g, h, k + 1] = tmp
        refresh_hero(S, D, g, h)
        if active:
            spawn_hero(S, D, g, h)
            learn_skill(S, D, g, h)
        else:
            ui[g, h, ALIVE] = 0
            uf[g, h, X] = D.fountain[team_of_hero(h), 0]
            uf[g, h, Y] = D.fountain[team_of_hero(h), 1]
        hp_hist[g, h, :] = 1.0
    # buildings
    for team in range(2):
        for local in range(N_BUILDINGS_PER_TEAM):
            u = building_slot(team, local)
            set_unit(S, D, g, u, team, b_kind[local], b_row[local], b_pos[team, local, 0], b_pos[team, local, 1], 1.0)
            ui[g, u, SUBTYPE] = b_sub[local]
            ui[g, u, LANE] = b_lane[local]
            uf[g, u, MAGIC_RES] = 0.0
        # couriers
        c = SLOT_COURIERS + team
        set_unit(S, D, g, c, team, K_COURIER, CR_COURIER, D.fountain[team, 0] + 200.0, D.fountain[team, 1] + 200.0, 1.0)
    update_protection(S, D, g)
    # neutrals
    if mode != MODE_1V1_MID:
        for camp in range(N_CAMPS):
            spawn_camp(S, D, g, camp)
        spawn_big_neutral(S, D, g)


@kernel
def spawn_camp(S, D, g, camp):
    camps = D.camps
    for k in range(CAMP_SIZE):
        u = SLOT_NEUTRALS + camp * CAMP_SIZE + k
        ang = 2.0 * math.pi * k / CAMP_SIZE
        set_unit(S, D, g, u, NEUTRAL_TEAM, K_NEUTRAL, CR_NEUTRAL, camps[camp, 0] + 120.0 * math.cos(ang),
                 camps[camp, 1] + 120.0 * math.sin(ang), 1.0 + 0.25 * (k == 0))
        S.ui[g, u, SUBTYPE] = camp
        S.uf[g, u, MAGIC_RES] = 0.1


@kernel
def spawn_big_neutral(S, D, g):
    big = D.big_neutral
    set_unit(S, D, g, SLOT_BIG_NEUTRAL, NEUTRAL_TEAM, K_BIG_NEUTRAL, CR_BIG_NEUTRAL, big[0], big[1], 1.0)
    S.uf[g, SLOT_BIG_NEUTRAL, MAGIC_RES] = 0.5
    S.gi[g, G_BIG_RESPAWN] = -1


@kernel
def update_protection(S, D, g):
    """Tier protection: a building is invulnerable until enough of its protectors have fallen."""
    ui = S.ui
    prot, needed = D.building_protectors, D.building_needed
    for team in range(2):
        for local in range(N_BUILDINGS_PER_TEAM):
            u = building_slot(team, local)
            dead = 0
            for k in range(prot.shape[1]):
                p = prot[local, k]
                if p >= 0 and ui[g, building_slot(team, p), ALIVE] == 0:
                    dead += 1
            ui[g, u, PROTECTED] = 1 if dead < needed[local] else 0
            if ui[g, u, KIND] == K_FOUNTAIN:
                ui[g, u, PROTECTED] = 1


# ====================================================================== spatial hash
@kernel
def build_grid(S, g):
    uf, ui, head, nxt = S.uf, S.ui, S.grid_head, S.grid_next
    head[g, :] = -1
    for u in range(MAX_UNITS):
        if ui[g, u, ALIVE] == 0:
            continue
        cx = min(max(int(uf[g, u, X] / GRID_CELL), 0), GRID_SIDE - 1)
        cy = min(max(int(uf[g, u, Y] / GRID_CELL), 0), GRID_SIDE - 1)
        c = cx * GRID_SIDE + cy
        nxt[g, u] = head[g, c]
        head[g, c] = u


@kernel
def can_be_attacked(ui, g, t):
    return ui[g, t, ALIVE] != 0 and ui[g, t, INVULN] == 0 and ui[g, t, PROTECTED] == 0


@kernel
def nearest_enemy(S, g, u, radius, prefer_non_hero, need_visible):
    """The nearest attackable enemy within ``radius``; towers may prefer non-heroes."""
    uf, ui, vis, head, nxt = S.uf, S.ui, S.vis, S.grid_head, S.grid_next
    team = ui[g, u, TEAM]
    x, y = uf[g, u, X], uf[g, u, Y]
    r2 = radius * radius
    best = -1
    best_d = 1e30
    best_hero = -1
    best_hero_d = 1e30
    cx0 = max(int((x - radius) / GRID_CELL), 0)
    cx1 = min(int((x + radius) / GRID_CELL), GRID_SIDE - 1)
    cy0 = max(int((y - radius) / GRID_CELL), 0)
    cy1 = min(int((y + radius) / GRID_CELL), GRID_SIDE - 1)
    for cx in range(cx0, cx1 + 1):
        for cy in range(cy0, cy1 + 1):
            t = head[g, cx * GRID_SIDE + cy]
            while t >= 0:
                tt = ui[g, t, TEAM]
                if tt != team and tt != NEUTRAL_TEAM and can_be_attacked(ui, g, t):
                    if not need_visible or team == NEUTRAL_TEAM or vis[g, team, t] != 0:
                        dx = uf[g, t, X] - x
                        dy = uf[g, t, Y] - y
                        d = dx * dx + dy * dy
                        if d <= r2:
                            if prefer_non_hero and ui[g, t, KIND] == K_HERO:
                                if d < best_hero_d:
                                    best_hero_d = d
                                    best_hero = t
                            elif d < best_d:
                                best_d = d
                                best = t
                t = nxt[g, t]
    return best if best >= 0 else best_hero


# ====================================================================== movement and combat
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
        if u < N_HEROES and t < N_HEROES:
            hf[g, u, HERO_ATTACK_FRAME] = gi[g, G_FRAME]
    return True


# ====================================================================== abilities and items
@kernel
def ability_value(abil_t, a, base_col, level):
    return abil_t[a, base_col] + abil_t[a, base_col + 1] * (level - 1)


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
    if abil_t[a, AB_SLOW] > 0.0:
        ui[g, t, SLOW] = max(ui[g, t, SLOW], int(abil_t[a, AB_SLOW_TIME] * FRAMES_PER_SECOND))
        uf[g, t, SLOW_FRAC] = abil_t[a, AB_SLOW]
    if abil_t[a, AB_SILENCE] > 0.0:
        ui[g, t, SILENCE] = max(ui[g, t, SILENCE], int(abil_t[a, AB_SILENCE] * FRAMES_PER_SECOND))
    if abil_t[a, AB_DOT] > 0.0:
        ui[g, t, DOT] = int(abil_t[a, AB_DOT_TIME] * FRAMES_PER_SECOND)
        uf[g, t, DOT_DPS] = abil_t[a, AB_DOT] * (1.0 + 0.5 * (level - 1))
        ui[g, t, DOT_SOURCE] = caster
    if abil_t[a, AB_BUFF_TIME] > 0.0:
        ui[g, t, BUFF] = int(abil_t[a, AB_BUFF_TIME] * FRAMES_PER_SECOND)
        uf[g, t, BUFF_ARMOR] = abil_t[a, AB_BUFF_ARMOR]
        uf[g, t, BUFF_DAMAGE] = abil_t[a, AB_BUFF_DAMAGE]
        uf[g, t, BUFF_SPEED] = abil_t[a, AB_BUFF_SPEED]


@kernel
def apply_area(S, D, g, caster, a, level, cx, cy, radius):
    uf, ui = S.uf, S.ui
    mode = int(D.ability_table[a, AB_AFFECTS])
    r2 = radius * radius
    for t in range(MAX_UNITS):
        if affects(ui, g, caster, t, mode):
            dx = uf[g, t, X] - cx
            dy = uf[g, t, Y] - cy
            if dx * dx + dy * dy <= r2:
                apply_effects(S, D, g, caster, t, a, level)


@kernel
def resolve_ability(S, D, g, caster, a, level, tu, px, py):
    """Land ability ``a``: on a unit, in an area around a unit/point, or through a projectile."""
    uf, ui = S.uf, S.ui
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
    if kind == ACT_HEAL_OVER_TIME:
        ui[g, h, REGEN] = int(item_t[it, I_DURATION] * FRAMES_PER_SECOND)
        uf[g, h, REGEN_BUFF] = amount / item_t[it, I_DURATION]
    elif kind == ACT_MANA_OVER_TIME:
        ui[g, h, REGEN] = int(item_t[it, I_DURATION] * FRAMES_PER_SECOND)
        uf[g, h, MANA_BUFF] = amount / item_t[it, I_DURATION]
    elif kind == ACT_TELEPORT:
        start_teleport(S, D, g, h, tu)
    elif kind == ACT_BLINK:
        if walkable(D.walk, px, py):
            uf[g, h, X] = px
            uf[g, h, Y] = py
    elif kind == ACT_STUN:
        ui[g, tu, STUN] = max(ui[g, tu, STUN], int(amount * FRAMES_PER_SECOND))
        deal_damage(S, g, h, tu, 0.0, 0)
    elif kind == ACT_AREA_HEAL:
        r2 = item_t[it, I_RANGE] ** 2
        for t in range(N_HEROES):
            if ui[g, t, ALIVE] != 0 and ui[g, t, TEAM] == ui[g, h, TEAM] and dist2(uf, g, h, t) <= r2:
                uf[g, t, HP] = min(uf[g, t, HP_MAX], uf[g, t, HP] + amount)
    consume_charge(S, D, g, h, s)


# ====================================================================== availability (shared with the env's masks)
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
    3 ally (hero or creep), 4 allied building (town portal)."""
    hi, items = S.hi, S.items
    if prim == A_ATTACK:
        return 1
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
    return False


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


# ====================================================================== applying an action
@kernel
def offset_point(uf, g, u, ox, oy, step):
    x = clampf(uf[g, u, X] + (ox - 4) * step, 1.0, MAP_SIZE - 1.0)
    y = clampf(uf[g, u, Y] + (oy - 4) * step, 1.0, MAP_SIZE - 1.0)
    return x, y


@kernel
def apply_action(S, D, g, h, prim, tu, ox, oy):
    """Turn one hero's action into an order. Invalid actions are counted no-ops."""
    uf, ui, hf, hi, items, gi = S.uf, S.ui, S.hf, S.hi, S.items, S.gi
    if prim < 0 or not primary_available(S, D, g, h, prim):
        hi[g, h, INVALID_ACTIONS] += 1
        return
    kind = target_kind_for(S, D, g, h, prim)
    if kind != 0 and not valid_target(S, D, g, h, kind, tu):
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
        x, y = offset_point(uf, g, h, ox, oy, MOVE_STEP)
        uf[g, h, GOAL_X] = x
        uf[g, h, GOAL_Y] = y
        ui[g, h, ORDER] = O_MOVE if prim == A_MOVE else O_ATTACK_MOVE
        ui[g, h, TARGET] = -1
    elif prim == A_ATTACK:
        ui[g, h, ORDER] = O_ATTACK
        ui[g, h, TARGET] = tu
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
    if tt != T_NONE:
        dx, dy = px - uf[g, h, X], py - uf[g, h, Y]
        if dx * dx + dy * dy > (reach + HULL) ** 2:
            move_toward(S, D, g, h, px, py)
            return
    ui[g, h, ORDER] = O_NONE
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


# ====================================================================== per-frame unit behaviour
@kernel
def hero_may_attack(S, g, h, t):
    ui, vis = S.ui, S.vis
    return ui[g, t, ALIVE] != 0 and (ui[g, t, TEAM] == ui[g, h, TEAM] or vis[g, ui[g, h, TEAM], t] != 0) \
        and can_be_attacked(ui, g, t)


@kernel
def update_hero(S, D, g, h):
    uf, ui, hf, hi, gi = S.uf, S.ui, S.hf, S.hi, S.gi
    if hi[g, h, ACTIVE] == 0:
        return
    if ui[g, h, ALIVE] == 0:
        hf[g, h, RESPAWN] -= DT
        if hf[g, h, RESPAWN] <= 0.0:
            spawn_hero(S, D, g, h)
        return
    if ui[g, h, STUN] > 0:
        return
    order = ui[g, h, ORDER]
    if order == O_TELEPORT:
        hf[g, h, TP_CHANNEL] -= DT
        if hf[g, h, TP_CHANNEL] <= 0.0:
            uf[g, h, X] = hf[g, h, TP_X]
            uf[g, h, Y] = hf[g, h, TP_Y]
            ui[g, h, ORDER] = O_NONE
        return
    if order == O_MOVE:
        if move_toward(S, D, g, h, uf[g, h, GOAL_X], uf[g, h, GOAL_Y]):
            ui[g, h, ORDER] = O_NONE
        return
    if order == O_CAST:
        continue_cast(S, D, g, h)
        return
    if order == O_PICKUP:
        best = -1
        best_d = 1e30
        for k in range(3):
            if k < 2 and gi[g, G_RUNE0 + k] == 0:
                continue
            if k == 2 and gi[g, G_AEGIS_ON_GROUND] == 0:
                continue
            px = D.rune_spots[k, 0] if k < 2 else D.big_neutral[0]
            py = D.rune_spots[k, 1] if k < 2 else D.big_neutral[1]
            d = (px - uf[g, h, X]) ** 2 + (py - uf[g, h, Y]) ** 2
            if d < best_d:
                best_d = d
                best = k
        if best < 0:
            ui[g, h, ORDER] = O_NONE
        else:
            px = D.rune_spots[best, 0] if best < 2 else D.big_neutral[0]
            py = D.rune_spots[best, 1] if best < 2 else D.big_neutral[1]
            move_toward(S, D, g, h, px, py)
        return
    t = ui[g, h, TARGET]
    if order == O_ATTACK:
        if t >= 0 and hero_may_attack(S, g, h, t):
            attack_or_approach(S, D, g, h, t, True)
        else:
            ui[g, h, ORDER] = O_NONE
            ui[g, h, TARGET] = -1
        return
    # idle, hold and attack-move: fight what comes near (heroes auto-attack, as in Dota)
    if t < 0 or not hero_may_attack(S, g, h, t) or ui[g, t, TEAM] == ui[g, h, TEAM]:
        t = -1
        if (gi[g, G_FRAME] + h) % 4 == 0:
            radius = uf[g, h, ATTACK_RANGE] + HULL if order == O_HOLD else max(uf[g, h, ATTACK_RANGE], ACQUIRE_RADIUS)
            t = nearest_enemy(S, g, h, radius, False, True)
        ui[g, h, TARGET] = t
    if t >= 0:
        in_reach = attack_or_approach(S, D, g, h, t, order != O_HOLD)
        if not in_reach and order == O_NONE and dist2(S.uf, g, h, t) > (ACQUIRE_RADIUS + 300.0) ** 2:
            ui[g, h, TARGET] = -1
    elif order == O_ATTACK_MOVE:
        if move_toward(S, D, g, h, uf[g, h, GOAL_X], uf[g, h, GOAL_Y]):
            ui[g, h, ORDER] = O_NONE


@kernel
def update_creep(S, D, g, u):
    uf, ui = S.uf, S.ui
    lanes = D.lanes
    ancient = D.ancient
    t = ui[g, u, TARGET]
    if t >= 0:
        if not can_be_attacked(ui, g, t) or dist2(uf, g, u, t) > CHASE_LIMIT * CHASE_LIMIT:
            t = -1
            ui[g, u, TARGET] = -1
    if t < 0 and (S.gi[g, G_FRAME] + u) % 4 == 0:
        t = nearest_enemy(S, g, u, ACQUIRE_RADIUS + uf[g, u, ATTACK_RANGE] * 0.5, False, False)
        ui[g, u, TARGET] = t
    if t >= 0:
        attack_or_approach(S, D, g, u, t, True)
        return
    # walk the lane, then on to the enemy ancient
    team = ui[g, u, TEAM]
    lane = ui[g, u, LANE]
    w = ui[g, u, WAYPOINT]
    n = lanes.shape[1]
    if w >= 0 and w < n:
        gx, gy = lanes[lane, w, 0], lanes[lane, w, 1]
        if (uf[g, u, X] - gx) ** 2 + (uf[g, u, Y] - gy) ** 2 < WAYPOINT_REACHED ** 2:
            ui[g, u, WAYPOINT] = w + 1 if team == RADIANT else w - 1
    else:
        gx, gy = ancient[1 - team, 0], ancient[1 - team, 1]
    move_toward(S, D, g, u, gx, gy)


@kernel
def update_tower(S, D, g, u):
    uf, ui, hf, gi = S.uf, S.ui, S.hf, S.gi
    if uf[g, u, DAMAGE] <= 0.0:
        return
    reach = uf[g, u, ATTACK_RANGE] + HULL
    team = ui[g, u, TEAM]
    frame = gi[g, G_FRAME]
    # aggro: an enemy hero that just hit one of our heroes in range becomes the target
    for h in range(N_HEROES):
        if ui[g, h, ALIVE] != 0 and ui[g, h, TEAM] != team and frame - hf[g, h, HERO_ATTACK_FRAME] < 10 \
                and hf[g, h, HERO_ATTACK_FRAME] > 0 and dist2(uf, g, u, h) <= reach * reach:
            ui[g, u, TARGET] = h
            break
    t = ui[g, u, TARGET]
    if t >= 0 and (not can_be_attacked(ui, g, t) or dist2(uf, g, u, t) > reach * reach):
        t = -1
    if t < 0:
        t = nearest_enemy(S, g, u, reach, True, False)
    ui[g, u, TARGET] = t
    if t >= 0:
        attack_or_approach(S, D, g, u, t, False)


@kernel
def update_neutral(S, D, g, u):
    uf, ui = S.uf, S.ui
    t = ui[g, u, TARGET]
    hx, hy = uf[g, u, HOME_X], uf[g, u, HOME_Y]
    far = (uf[g, u, X] - hx) ** 2 + (uf[g, u, Y] - hy) ** 2 > NEUTRAL_LEASH * NEUTRAL_LEASH
    if t >= 0 and (ui[g, t, ALIVE] == 0 or far):
        t = -1
        ui[g, u, TARGET] = -1
    if t >= 0:
        attack_or_approach(S, D, g, u, t, True)
    elif move_toward(S, D, g, u, hx, hy):
        uf[g, u, HP] = min(uf[g, u, HP_MAX], uf[g, u, HP] + uf[g, u, HP_MAX] * 0.02)


@kernel
def put_item(S, D, g, h, it, charges):
    """Into the first free inventory slot, else the backpack; False when everything is full."""
    items = S.items
    for s in range(N_ITEM_SLOTS):
        if items[g, h, s, IT_ID] < 0:
            items[g, h, s, IT_ID] = it
            items[g, h, s, IT_CHARGES] = charges
            items[g, h, s, IT_COOLDOWN] = 0
            if s < N_INVENTORY:
                refresh_hero(S, D, g, h)
            else:
                swap_items(S, D, g, h)
            return True
    return False


@kernel
def swap_items(S, D, g, h):
    """Scripted item swap: keep the most valuable items in the inventory, the rest in the backpack."""
    items = S.items
    item_t = D.item_table
    changed = False
    for b in range(N_INVENTORY, N_ITEM_SLOTS):
        bi = items[g, h, b, IT_ID]
        if bi < 0:
            continue
        worst = -1
        worst_cost = item_t[bi, I_COST]
        for s in range(N_INVENTORY):
            si = items[g, h, s, IT_ID]
            cost = -1.0 if si < 0 else item_t[si, I_COST]
            if cost < worst_cost:
                worst_cost = cost
                worst = s
        if worst >= 0:
            for f in range(3):
                tmp = items[g, h, worst, f]
                items[g, h, worst, f] = items[g, h, b, f]
                items[g, h, b, f] = tmp
            changed = True
    if changed:
        refresh_hero(S, D, g, h)


@kernel
def update_courier(S, D, g, team):
    uf, ui, gi, stash = S.uf, S.ui, S.gi, S.stash
    fountain = D.fountain
    c = SLOT_COURIERS + team
    if ui[g, c, ALIVE] == 0:
        if gi[g, G_COURIER_RESPAWN0 + team] >= 0 and gi[g, G_FRAME] >= gi[g, G_COURIER_RESPAWN0 + team]:
            set_unit(S, D, g, c, team, K_COURIER, CR_COURIER, fountain[team, 0] + 200.0, fountain[team, 1] + 200.0, 1.0)
            gi[g, G_COURIER_RESPAWN0 + team] = -1
            gi[g, G_COURIER_TARGET0 + team] = -1
        return
    target = gi[g, G_COURIER_TARGET0 + team]
    if target >= 0 and ui[g, target, ALIVE] == 0:
        target = -1
    if target < 0:
        home_x, home_y = fountain[team, 0] + 200.0, fountain[team, 1] + 200.0
        at_home = move_toward(S, D, g, c, home_x, home_y)
        if at_home:
            for k in range(HEROES_PER_TEAM):
                h = team * HEROES_PER_TEAM + k
                if stash[g, h, 0] >= 0 and ui[g, h, ALIVE] != 0:
                    target = h
                    break
    else:
        if move_toward(S, D, g, c, uf[g, target, X], uf[g, target, Y]) or dist2(uf, g, c, target) < COURIER_REACH ** 2:
            deliver_stash(S, D, g, target)
            target = -1
    gi[g, G_COURIER_TARGET0 + team] = target


@kernel
def deliver_stash(S, D, g, h):
    stash = S.stash
    item_t = D.item_table
    for k in range(stash.shape[2]):
        it = stash[g, h, k]
        if it >= 0 and put_item(S, D, g, h, it, int(item_t[it, I_CHARGES])):
            stash[g, h, k] = -1
    # keep the stash packed at the front
    w = 0
    for k in range(stash.shape[2]):
        if stash[g, h, k] >= 0:
            stash[g, h, w] = stash[g, h, k]
            if w != k:
                stash[g, h, k] = -1
            w += 1


@kernel
def scripted_purchases(S, D, g, h):
    """Buy the next item of the (randomised) build; a town-portal scroll is always kept in stock."""
    uf, ui, hf, hi, items, stash = S.uf, S.ui, S.hf, S.hi, S.items, S.stash
    item_t, fountain = D.item_table, D.fountain
    build_order = S.build_order
    it = -1
    from_build = False
    owns_tp = False
    for s in range(N_ITEM_SLOTS):
        if items[g, h, s, IT_ID] == 0:
            owns_tp = True
    for k in range(stash.shape[2]):
        if stash[g, h, k] == 0:
            owns_tp = True
    pos = hi[g, h, BUILD_POS]
    if not owns_tp and hi[g, h, LEVEL] >= 3:
        it = 0
    elif pos < build_order.shape[2] and build_order[g, h, pos] >= 0:
        it = build_order[g, h, pos]
        from_build = True
        if it == 0 and owns_tp:  # the build's own scroll is already in stock
            hi[g, h, BUILD_POS] += 1
            return
    if it < 0 or hf[g, h, GOLD] < item_t[it, I_COST]:
        return
    team = team_of_hero(h)
    near_shop = (uf[g, h, X] - fountain[team, 0]) ** 2 + (uf[g, h, Y] - fountain[team, 1]) ** 2 < SHOP_RADIUS ** 2
    placed = False
    if near_shop or ui[g, h, ALIVE] == 0:
        placed = put_item(S, D, g, h, it, int(item_t[it, I_CHARGES]))
    if not placed:
        for k in range(stash.shape[2]):
            if stash[g, h, k] < 0:
                stash[g, h, k] = it
                placed = True
                break
    if placed:
        hf[g, h, GOLD] -= item_t[it, I_COST]
        S.events[g, h, EV_GOLD_SPENT] += item_t[it, I_COST]
        if from_build:
            hi[g, h, BUILD_POS] += 1


@kernel
def learn_skill(S, D, g, h):
    """Scripted ability build: spend skill points on the build's next legal entry (4 = attribute bonus)."""
    hf, hi = S.hf, S.hi
    builds = D.skill_builds
    ht = hi[g, h, HERO_TYPE]
    level = hi[g, h, LEVEL]
    want = builds[ht, level - 1]
    training = S.gi[g, G_TRAINING]
    if training and rand01(S.gi, g) < 0.15:
        want = int(rand01(S.gi, g) * 4.0)
    for attempt in range(6):
        k = want if attempt == 0 else attempt - 1
        if k == 4 or attempt == 5:
            hf[g, h, STR] += 2.0
            hf[g, h, AGI] += 2.0
            hf[g, h, INT] += 2.0
            refresh_hero(S, D, g, h)
            return
        cur = hi[g, h, ABILITY_LEVEL + k]
        if k == 3:
            ok = cur < 3 and level >= 6 + 6 * cur
        else:
            ok = cur < 4 and level >= 2 * cur + 1
        if ok:
            hi[g, h, ABILITY_LEVEL + k] += 1
            return


@kernel
def give_xp(S, D, g, h, amount):
    hf, hi = S.hf, S.hi
    xp_table, hero_t = D.xp_table, D.hero_table
    if hi[g, h, ACTIVE] == 0:
        return
    hf[g, h, XP] += amount
    S.events[g, h, EV_XP] += amount
    while hi[g, h, LEVEL] < MAX_LEVEL and hf[g, h, XP] >= xp_table[hi[g, h, LEVEL]]:
        hi[g, h, LEVEL] += 1
        ht = hi[g, h, HERO_TYPE]
        hf[g, h, STR] += hero_t[ht, H_STR_GAIN]
        hf[g, h, AGI] += hero_t[ht, H_AGI_GAIN]
        hf[g, h, INT] += hero_t[ht, H_INT_GAIN]
        refresh_hero(S, D, g, h)
        learn_skill(S, D, g, h)


@kernel
def give_gold(S, g, h, amount):
    if S.hi[g, h, ACTIVE] == 0:
        return
    S.hf[g, h, GOLD] += amount
    S.events[g, h, EV_GOLD] += amount


@kernel
def share_xp(S, D, g, team, x, y, amount):
    """Split experience among the team's living heroes within the XP radius of (x, y)."""
    uf, ui = S.uf, S.ui
    r2 = D.rules[R_XP_RADIUS] ** 2
    n = 0
    for k in range(HEROES_PER_TEAM):
        h = team * HEROES_PER_TEAM + k
        if ui[g, h, ALIVE] != 0 and (uf[g, h, X] - x) ** 2 + (uf[g, h, Y] - y) ** 2 <= r2:
            n += 1
    if n == 0:
        return
    for k in range(HEROES_PER_TEAM):
        h = team * HEROES_PER_TEAM + k
        if ui[g, h, ALIVE] != 0 and (uf[g, h, X] - x) ** 2 + (uf[g, h, Y] - y) ** 2 <= r2:
            give_xp(S, D, g, h, amount / n)


# ====================================================================== deaths
@kernel
def end_game(S, g, winner):
    gi, ev = S.gi, S.events
    if gi[g, G_DONE] != 0:
        return
    gi[g, G_DONE] = 1
    gi[g, G_WINNER] = winner
    for k in range(HEROES_PER_TEAM):
        ev[g, winner * HEROES_PER_TEAM + k, EV_WIN] += 1.0


@kernel
def kill_hero(S, D, g, v):
    uf, ui, hf, hi, gi, ev, assist_frame = S.uf, S.ui, S.hf, S.hi, S.gi, S.events, S.assist_frames
    rules = D.rules
    if hf[g, v, AEGIS] > 0.0:  # the aegis spends itself instead of a life
        hf[g, v, AEGIS] = 0.0
        uf[g, v, HP] = uf[g, v, HP_MAX]
        uf[g, v, MANA] = uf[g, v, MANA_MAX]
        ui[g, v, KILLER] = -1
        ui[g, v, KILLER_HERO] = -1
        return
    ui[g, v, ALIVE] = 0
    uf[g, v, HP] = 0.0
    ui[g, v, ORDER] = O_NONE
    ui[g, v, TARGET] = -1
    hi[g, v, DEATHS] += 1
    ev[g, v, EV_HERO_DEATH] += 1.0
    level = hi[g, v, LEVEL]
    hf[g, v, RESPAWN] = rules[R_RESPAWN_BASE] + rules[R_RESPAWN_LVL] * level
    vteam = team_of_hero(v)
    eteam = 1 - vteam
    killer = ui[g, v, KILLER_HERO]
    if killer < 0 or team_of_hero(killer) == vteam:
        lh = ui[g, v, LAST_HERO]
        if lh >= 0 and team_of_hero(lh) != vteam and gi[g, G_FRAME] - ui[g, v, LAST_HERO_FRAME] < 15 * FRAMES_PER_SECOND:
            killer = lh
        else:
            killer = -1
    ui[g, v, KILLER_HERO] = killer  # the credited hero, for replays and stats
    gi[g, G_KILLS0 + eteam] += 1
    if killer >= 0:
        hi[g, killer, KILLS] += 1
        ev[g, killer, EV_KILLED_HERO] += 1.0
        give_gold(S, g, killer, rules[R_KILL_GOLD] + rules[R_KILL_GOLD_LVL] * level)
    r2 = rules[R_XP_RADIUS] ** 2
    for k in range(HEROES_PER_TEAM):
        a = eteam * HEROES_PER_TEAM + k
        if a == killer or hi[g, a, ACTIVE] == 0:
            continue
        recent = gi[g, G_FRAME] - assist_frame[g, v, a] < 10 * FRAMES_PER_SECOND
        near = ui[g, a, ALIVE] != 0 and dist2(uf, g, a, v) <= r2
        if recent or near:
            hi[g, a, ASSISTS] += 1
            give_gold(S, g, a, rules[R_ASSIST_GOLD])
    share_xp(S, D, g, eteam, uf[g, v, X], uf[g, v, Y], rules[R_KILL_XP] + rules[R_KILL_XP_LVL] * level)
    if gi[g, G_MODE] == MODE_1V1_MID and gi[g, G_KILLS0 + eteam] >= 2:
        end_game(S, g, eteam)


@kernel
def kill_building(S, D, g, u):
    uf, ui, gi, ev = S.uf, S.ui, S.gi, S.events
    team = ui[g, u, TEAM]
    kind = ui[g, u, KIND]
    eteam = 1 - team
    for k in range(HEROES_PER_TEAM):
        give_gold(S, g, eteam * HEROES_PER_TEAM + k, uf[g, u, BOUNTY_GOLD])
    if kind == K_TOWER:
        tier = ui[g, u, SUBTYPE]
        for k in range(HEROES_PER_TEAM):
            ev[g, team * HEROES_PER_TEAM + k, EV_T1_LOST + tier - 1] += 1.0
        gi[g, G_TOWERS_LOST0 + team] += 1
        if gi[g, G_MODE] == MODE_1V1_MID:
            end_game(S, g, eteam)
    elif kind == K_BARRACKS:
        for k in range(HEROES_PER_TEAM):
            ev[g, team * HEROES_PER_TEAM + k, EV_BARRACKS_LOST] += 1.0
        gi[g, G_BARRACKS_LOST0 + team] += 1
        # the enemy's creeps of this lane and type become super creeps
        gi[g, G_SUPER0 + eteam] |= 1 << (ui[g, u, LANE] * 2 + ui[g, u, SUBTYPE])
        if gi[g, G_BARRACKS_LOST0 + team] == 6:
            gi[g, G_MEGAS0 + eteam] = 1
            for k in range(HEROES_PER_TEAM):
                ev[g, team * HEROES_PER_TEAM + k, EV_MEGAS] += 1.0
    elif kind == K_ANCIENT:
        for k in range(HEROES_PER_TEAM):
            ev[g, team * HEROES_PER_TEAM + k, EV_ANCIENT_LOST] += 1.0
        end_game(S, g, eteam)
    update_protection(S, D, g)


@kernel
def kill_unit(S, D, g, u):
    uf, ui, hf, hi, gi, ev = S.uf, S.ui, S.hf, S.hi, S.gi, S.events
    kind = ui[g, u, KIND]
    if kind == K_HERO:
        kill_hero(S, D, g, u)
        return
    ui[g, u, ALIVE] = 0
    uf[g, u, HP] = 0.0
    team = ui[g, u, TEAM]
    killer = ui[g, u, KILLER_HERO]
    if kind == K_TOWER or kind == K_BARRACKS or kind == K_ANCIENT:
        kill_building(S, D, g, u)
        return
    if kind == K_COURIER:
        for k in range(HEROES_PER_TEAM):
            ev[g, team * HEROES_PER_TEAM + k, EV_COURIER_DEATH] += 1.0
        gi[g, G_COURIER_RESPAWN0 + team] = gi[g, G_FRAME] + int(D.rules[R_COURIER_RESPAWN] * FRAMES_PER_SECOND)
        if killer >= 0 and team_of_hero(killer) != team:
            give_gold(S, g, killer, uf[g, u, BOUNTY_GOLD])
        return
    if kind == K_BIG_NEUTRAL:
        gi[g, G_AEGIS_ON_GROUND] = 1
        gi[g, G_BIG_RESPAWN] = gi[g, G_FRAME] + int(D.rules[R_BIG_RESPAWN] * FRAMES_PER_SECOND)
    x, y = uf[g, u, X], uf[g, u, Y]
    if killer >= 0 and team_of_hero(killer) == team:
        hi[g, killer, DENIES] += 1
        ev[g, killer, EV_DENY] += 1.0
        share_xp(S, D, g, 1 - team, x, y, uf[g, u, BOUNTY_XP] * 0.5)
        return
    if killer >= 0:
        hi[g, killer, LAST_HITS] += 1
        ev[g, killer, EV_LAST_HIT] += 1.0
        give_gold(S, g, killer, uf[g, u, BOUNTY_GOLD])
    xp_team = 1 - team if team != NEUTRAL_TEAM else (team_of_hero(killer) if killer >= 0 else -1)
    if team == NEUTRAL_TEAM and killer < 0:
        k_unit = ui[g, u, KILLER]
        if k_unit >= 0 and ui[g, k_unit, TEAM] != NEUTRAL_TEAM:
            xp_team = ui[g, k_unit, TEAM]
    if xp_team >= 0:
        share_xp(S, D, g, xp_team, x, y, uf[g, u, BOUNTY_XP])


@kernel
def resolve_deaths(S, D, g):
    uf, ui = S.uf, S.ui
    for u in range(MAX_UNITS):
        if ui[g, u, ALIVE] != 0 and uf[g, u, HP] <= 0.0:
            kill_unit(S, D, g, u)
            if S.gi[g, G_DONE] != 0:
                return


# ====================================================================== spawning over time
@kernel
def free_creep_slot(ui, g):
    for u in range(SLOT_CREEPS, MAX_UNITS):
        if ui[g, u, ALIVE] == 0:
            return u
    return -1


@kernel
def spawn_wave(S, D, g):
    ui, gi = S.ui, S.gi
    lanes, rules = D.lanes, D.rules
    wave = gi[g, G_WAVE]
    gi[g, G_WAVE] = wave + 1
    minutes_scale = 1.0 + rules[R_UPGRADE] * int(gi[g, G_FRAME] / (rules[R_UPGRADE_INTERVAL] * FRAMES_PER_SECOND))
    n_melee = int(rules[R_MELEE])
    n_ranged = int(rules[R_RANGED])
    siege = (wave % int(rules[R_SIEGE_EVERY])) == int(rules[R_SIEGE_EVERY]) - 1
    n_way = lanes.shape[1]
    for team in range(2):
        for lane in range(3):
            if gi[g, G_MODE] == MODE_1V1_MID and lane != 1:
                continue
            start = 0 if team == RADIANT else n_way - 1
            nxt = 1 if team == RADIANT else n_way - 2
            sx, sy = lanes[lane, start, 0], lanes[lane, start, 1]
            superbits = gi[g, G_SUPER0 + team]
            total = n_melee + n_ranged + (1 if siege else 0)
            for k in range(total):
                if k < n_melee:
                    kind, row = K_CREEP_MELEE, CR_MELEE
                    if superbits & (1 << (lane * 2)):
                        row = CR_SUPER_MELEE
                elif k < n_melee + n_ranged:
                    kind, row = K_CREEP_RANGED, CR_RANGED
                    if superbits & (1 << (lane * 2 + 1)):
                        row = CR_SUPER_RANGED
                else:
                    kind, row = K_CREEP_SIEGE, CR_SIEGE
                u = free_creep_slot(ui, g)
                if u < 0:
                    return
                # the wave's formation, point-mirrored for Dire like the map (else Dire's wave leads by ~40)
                side = 1.0 if team == RADIANT else -1.0
                set_unit(S, D, g, u, team, kind, row, sx + side * ((k % 3) * 60.0 - 60.0),
                         sy + side * ((k // 3) * 60.0 - 30.0), minutes_scale)
                ui[g, u, LANE] = lane
                ui[g, u, WAYPOINT] = nxt


@kernel
def spawn_runes(S, g):
    gi = S.gi
    bounty_spot = 0 if rand01(gi, g) < 0.5 else 1
    gi[g, G_RUNE0 + bounty_spot] = 1
    gi[g, G_RUNE0 + 1 - bounty_spot] = 2 + int(rand01(gi, g) * 3.0)


@kernel
def pick_up(S, D, g):
    """Heroes standing on a rune or the aegis take it."""
    uf, ui, hf, gi, ev = S.uf, S.ui, S.hf, S.gi, S.events
    spots, big = D.rune_spots, D.big_neutral
    for h in range(N_HEROES):
        if ui[g, h, ALIVE] == 0:
            continue
        for k in range(2):
            kind = gi[g, G_RUNE0 + k]
            if kind == 0:
                continue
            if (uf[g, h, X] - spots[k, 0]) ** 2 + (uf[g, h, Y] - spots[k, 1]) ** 2 <= PICKUP_RADIUS ** 2:
                gi[g, G_RUNE0 + k] = 0
                if kind == 1:
                    give_gold(S, g, h, D.rules[R_BOUNTY_GOLD] + 5.0 * gi[g, G_FRAME] / (60.0 * FRAMES_PER_SECOND))
                elif kind == 2:
                    ui[g, h, DOUBLE_DAMAGE] = 45 * FRAMES_PER_SECOND
                elif kind == 3:
                    ui[g, h, HASTE] = 25 * FRAMES_PER_SECOND
                else:
                    ui[g, h, REGEN] = 10 * FRAMES_PER_SECOND
                    uf[g, h, REGEN_BUFF] = uf[g, h, HP_MAX] * 0.06
                    uf[g, h, MANA_BUFF] = uf[g, h, MANA_MAX] * 0.06
        if gi[g, G_AEGIS_ON_GROUND] != 0 and (uf[g, h, X] - big[0]) ** 2 + (uf[g, h, Y] - big[1]) ** 2 <= PICKUP_RADIUS ** 2:
            gi[g, G_AEGIS_ON_GROUND] = 0
            hf[g, h, AEGIS] = D.rules[R_AEGIS]
            team = team_of_hero(h)
            for k in range(HEROES_PER_TEAM):
                ev[g, team * HEROES_PER_TEAM + k, EV_AEGIS] += 1.0


# ====================================================================== one frame
@kernel
def tick_statuses(S, D, g):
    """Timers, regeneration, damage over time and the fountain, for every living unit."""
    uf, ui, hf, gi = S.uf, S.ui, S.hf, S.gi
    fountain = D.fountain
    fr = D.rules[R_FOUNTAIN_REGEN]
    for u in range(MAX_UNITS):
        if ui[g, u, ALIVE] == 0:
            continue
        if uf[g, u, ATTACK_READY] > 0.0:
            uf[g, u, ATTACK_READY] -= 1.0
        for f in (STUN, SILENCE, SLOW, BUFF, INVULN, DOUBLE_DAMAGE, HASTE):
            if ui[g, u, f] > 0:
                ui[g, u, f] -= 1
        regen = uf[g, u, HP_REGEN]
        mana_regen = uf[g, u, MANA_REGEN]
        if ui[g, u, REGEN] > 0:
            ui[g, u, REGEN] -= 1
            regen += uf[g, u, REGEN_BUFF]
            mana_regen += uf[g, u, MANA_BUFF]
        if u < N_HEROES:
            team = ui[g, u, TEAM]
            if (uf[g, u, X] - fountain[team, 0]) ** 2 + (uf[g, u, Y] - fountain[team, 1]) ** 2 < FOUNTAIN_RADIUS ** 2:
                regen += fr * uf[g, u, HP_MAX]
                mana_regen += fr * uf[g, u, MANA_MAX]
        uf[g, u, HP] = min(uf[g, u, HP_MAX], uf[g, u, HP] + regen * DT)
        uf[g, u, MANA] = min(uf[g, u, MANA_MAX], uf[g, u, MANA] + mana_regen * DT)
        if ui[g, u, DOT] > 0:
            ui[g, u, DOT] -= 1
            deal_damage(S, g, ui[g, u, DOT_SOURCE], u, uf[g, u, DOT_DPS] * DT, 1)


@kernel
def update_projectiles(S, D, g):
    uf, ui, proj = S.uf, S.ui, S.proj
    for p in range(MAX_PROJECTILES):
        if proj[g, p, PJ_ACTIVE] == 0.0:
            continue
        t = int(proj[g, p, PJ_TARGET])
        if ui[g, t, ALIVE] == 0:
            proj[g, p, PJ_ACTIVE] = 0.0
            continue
        dx = uf[g, t, X] - proj[g, p, PJ_X]
        dy = uf[g, t, Y] - proj[g, p, PJ_Y]
        d = math.sqrt(dx * dx + dy * dy)
        step = proj[g, p, PJ_SPEED] * DT
        if d <= step + 1.0:
            proj[g, p, PJ_ACTIVE] = 0.0
            src = int(proj[g, p, PJ_SOURCE])
            a = int(proj[g, p, PJ_ABILITY])
            if a < 0:
                deal_damage(S, g, src, t, proj[g, p, PJ_DAMAGE], 0)
            else:
                apply_effects(S, D, g, src, t, a, int(proj[g, p, PJ_LEVEL]))
        else:
            proj[g, p, PJ_X] += dx / d * step
            proj[g, p, PJ_Y] += dy / d * step


@kernel
def frame_update(S, D, g):
    uf, ui, hf, hi, gi = S.uf, S.ui, S.hf, S.hi, S.gi
    rules = D.rules
    gi[g, G_FRAME] += 1
    frame = gi[g, G_FRAME]
    mode = gi[g, G_MODE]
    wave_frames = int(rules[R_WAVE] * FRAMES_PER_SECOND)
    if frame % wave_frames == FRAMES_PER_SECOND:
        spawn_wave(S, D, g)
    if mode != MODE_1V1_MID:
        camp_frames = int(rules[R_CAMP_RESPAWN] * FRAMES_PER_SECOND)
        if frame % camp_frames == 0:
            for camp in range(N_CAMPS):
                empty = True
                for k in range(CAMP_SIZE):
                    if ui[g, SLOT_NEUTRALS + camp * CAMP_SIZE + k, ALIVE] != 0:
                        empty = False
                if empty:
                    spawn_camp(S, D, g, camp)
        if gi[g, G_BIG_RESPAWN] >= 0 and frame >= gi[g, G_BIG_RESPAWN]:
            spawn_big_neutral(S, D, g)
        if frame % int(rules[R_RUNE_INTERVAL] * FRAMES_PER_SECOND) == 2 * FRAMES_PER_SECOND:
            spawn_runes(S, g)
    for team in range(2):
        if gi[g, G_GLYPH_CD0 + team] > 0:
            gi[g, G_GLYPH_CD0 + team] -= 1
    for h in range(N_HEROES):
        for k in range(4):
            if hi[g, h, ABILITY_CD + k] > 0:
                hi[g, h, ABILITY_CD + k] -= 1
        for s in range(N_ITEM_SLOTS):
            if S.items[g, h, s, IT_COOLDOWN] > 0:
                S.items[g, h, s, IT_COOLDOWN] -= 1
        if hf[g, h, BUYBACK_CD] > 0.0:
            hf[g, h, BUYBACK_CD] = max(0.0, hf[g, h, BUYBACK_CD] - DT)
        if hf[g, h, AEGIS] > 0.0:
            hf[g, h, AEGIS] = max(0.0, hf[g, h, AEGIS] - DT)
        if hi[g, h, ACTIVE] != 0:
            give_gold(S, g, h, rules[R_PASSIVE_GOLD] * DT)
    tick_statuses(S, D, g)
    build_grid(S, g)
    for i in range(MAX_UNITS):
        # alternate the order every frame: a unit updated after its opponent sees it one step closer and
        # strikes first, so one fixed order would hand the later slots (Dire's) every first strike
        u = i if frame % 2 == 0 else MAX_UNITS - 1 - i
        if ui[g, u, ALIVE] == 0 and u >= N_HEROES:
            continue
        if ui[g, u, STUN] > 0 and u >= N_HEROES:
            continue
        kind = ui[g, u, KIND]
        if kind == K_HERO:
            update_hero(S, D, g, u)
        elif kind == K_CREEP_MELEE or kind == K_CREEP_RANGED or kind == K_CREEP_SIEGE:
            update_creep(S, D, g, u)
        elif kind == K_TOWER or kind == K_FOUNTAIN:
            update_tower(S, D, g, u)
        elif kind == K_NEUTRAL or kind == K_BIG_NEUTRAL:
            update_neutral(S, D, g, u)
    for team in range(2):
        update_courier(S, D, g, team)
    update_projectiles(S, D, g)
    resolve_deaths(S, D, g)
    if frame % FRAMES_PER_SECOND == 0:
        for h in range(N_HEROES):
            if hi[g, h, ACTIVE] != 0:
                scripted_purchases(S, D, g, h)
    pick_up(S, D, g)
    if gi[g, G_DONE] == 0 and frame >= gi[g, G_MAX_FRAMES]:
        gi[g, G_DONE] = 2


# ====================================================================== vision and per-step bookkeeping
@kernel
def update_vision(S, D, g):
    """vis[g, team, u] = 1 when u is inside the vision radius of any living unit of the team."""
    uf, ui, vis = S.uf, S.ui, S.vis
    night = is_night(S.gi, D.rules, g)
    vis[g] = 0
    for u in range(MAX_UNITS):
        if ui[g, u, ALIVE] == 0:
            continue
        team = ui[g, u, TEAM]
        if team == NEUTRAL_TEAM:
            continue
        vis[g, team, u] = 1
    for team in range(2):
        for t in range(MAX_UNITS):
            if ui[g, t, ALIVE] == 0 or vis[g, team, t] != 0:
                continue
            tx, ty = uf[g, t, X], uf[g, t, Y]
            for s in range(MAX_UNITS):
                if ui[g, s, ALIVE] == 0 or ui[g, s, TEAM] != team:
                    continue
                r = uf[g, s, VISION_NIGHT] if night else uf[g, s, VISION_DAY]
                dx = uf[g, s, X] - tx
                dy = uf[g, s, Y] - ty
                if dx * dx + dy * dy <= r * r:
                    vis[g, team, t] = 1
                    break


@kernel
def snapshot(S, g):
    """Health and mana fractions at the start of a step, for the change events."""
    uf, ui, prev = S.uf, S.ui, S.prev_fractions
    for u in range(SLOT_COURIERS):
        alive = ui[g, u, ALIVE] != 0
        prev[g, u, 0] = uf[g, u, HP] / uf[g, u, HP_MAX] if alive else 0.0
        prev[g, u, 1] = uf[g, u, MANA] / uf[g, u, MANA_MAX] if alive and uf[g, u, MANA_MAX] > 0 else 0.0


@kernel
def finish_step(S, D, g):
    """Change events, lane assignment, health history and vision at the end of a timestep."""
    uf, ui, hf, hi, gi, hp_hist, ev, prev = S.uf, S.ui, S.hf, S.hi, S.gi, S.hp_hist, S.events, S.prev_fractions
    lanes = D.lanes
    for h in range(N_HEROES):
        if hi[g, h, ACTIVE] == 0:
            continue
        alive = ui[g, h, ALIVE] != 0
        x = uf[g, h, HP] / uf[g, h, HP_MAX] if alive else 0.0
        m = uf[g, h, MANA] / uf[g, h, MANA_MAX] if alive else 0.0
        ev[g, h, EV_HEALTH] += health_shape(x) - health_shape(prev[g, h, 0])
        ev[g, h, EV_MANA] += m - prev[g, h, 1]
        hf[g, h, NET_WORTH] = net_worth(S, D, g, h)
        seconds = gi[g, G_FRAME] / FRAMES_PER_SECOND
        if alive and seconds < LANE_ASSIGNMENT_SECONDS:
            if lane_distance(lanes, hi[g, h, ASSIGNED_LANE], uf[g, h, X], uf[g, h, Y]) > LANE_ASSIGNMENT_DISTANCE:
                ev[g, h, EV_LANE_OUTSIDE] += FRAMES_PER_STEP / FRAMES_PER_SECOND
    for team in range(2):
        for local in range(N_BUILDINGS_PER_TEAM):
            u = building_slot(team, local)
            kind = ui[g, u, KIND]
            if kind == K_FOUNTAIN:
                continue
            frac = uf[g, u, HP] / uf[g, u, HP_MAX] if ui[g, u, ALIVE] != 0 else 0.0
            delta = frac - prev[g, u, 0]
            if delta == 0.0:
                continue
            if kind == K_TOWER:
                col = EV_T1_HP + ui[g, u, SUBTYPE] - 1
            elif kind == K_BARRACKS:
                col = EV_BARRACKS_HP
            else:
                col = EV_ANCIENT_HP
            for k in range(HEROES_PER_TEAM):
                ev[g, team * HEROES_PER_TEAM + k, col] += delta
    # health history ring buffer (observed as recent health changes)
    pos = (gi[g, G_FRAME] // FRAMES_PER_STEP) % HP_HISTORY_LEN
    for u in range(MAX_UNITS):
        hp_hist[g, u, pos] = uf[g, u, HP] / uf[g, u, HP_MAX] if ui[g, u, ALIVE] != 0 and uf[g, u, HP_MAX] > 0 else 0.0
    update_vision(S, D, g)


@kernel
def step_games(S, D, actions):
    """Advance every running game by one timestep. ``actions[g, h]`` = primary, delay, target unit, ox, oy;
    a primary of -1 marks an action the caller found malformed (counted as invalid)."""
    ev, gi = S.events, S.gi
    ev[:] = 0.0
    n_games = gi.shape[0]
    for g in range(n_games):
        if gi[g, G_DONE] != 0:
            continue
        snapshot(S, g)
        for f in range(FRAMES_PER_STEP):
            for h in range(N_HEROES):
                if actions[g, h, ACT_DELAY] == f:
                    apply_action(S, D, g, h, actions[g, h, ACT_PRIMARY], actions[g, h, ACT_TARGET],
                                 actions[g, h, ACT_OFFSET_X], actions[g, h, ACT_OFFSET_Y])
            frame_update(S, D, g)
            if gi[g, G_DONE] != 0:
                break
        finish_step(S, D, g)


@kernel
def reset_games(S, D, which, seeds, mode, training, max_frames, hero_types):
    for i in range(which.shape[0]):
        g = which[i]
        reset_game(S, D, g, seeds[i], mode, training, max_frames, hero_types[g])
        snapshot(S, g)
        update_vision(S, D, g)
