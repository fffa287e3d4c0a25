"""Creating units: a unit's row from the creep table (``set_unit``), heroes at the fountain
(``spawn_hero``), neutral camps and the big neutral, tower protection, and ``reset_game``, which lays out a
fresh game (buildings, couriers, heroes at level 1 with their first skill).

A game's randomisation bits (``gi[G_TRAINING]``, set at reset) are drawn from the game's own RNG, so a game stays
a function of its seed and actions: ``RANDOM_BUILDS`` shuffles each scripted item build around the hero's (here)
and skill build (``progression.learn_skill``); ``RANDOM_START`` (``randomise_start``) draws each hero's lane and
starting health, mana and gold, and the big neutral's health at every spawn, within the ``random_*`` ranges of
the patch's Rules.
"""

from __future__ import annotations

import math

import numpy as np

from fivestack.game.jit import kernel
from fivestack.game.kernels.helpers import building_slot, rand01, splitmix64, team_of_hero
from fivestack.game.kernels.progression import learn_skill
from fivestack.game.kernels.stats import refresh_hero
from fivestack.game.layout import (
    ACTIVE, AGI, ALIVE, ARMOR, ASSIGNED_LANE, ATTACK_PERIOD, ATTACK_RANGE, BOUNTY_GOLD, BOUNTY_XP, CAMP_SIZE,
    CAST_ABILITY, CAST_TARGET, DAMAGE, DOT, DOT_SOURCE, GOAL_X, GOAL_Y, GOLD, G_BIG_RESPAWN, G_COURIER_RESPAWN0,
    G_COURIER_TARGET0, G_MAX_FRAMES, G_MODE, G_RNG, G_TRAINING, G_WINNER, HEROES_PER_TEAM, HERO_TYPE, HOME_X,
    HOME_Y, HP, HP_MAX, INT, IT_CHARGES, IT_COOLDOWN, KILLER, KILLER_HERO, KIND, K_BIG_NEUTRAL, K_COURIER,
    K_FOUNTAIN, K_HERO, K_NEUTRAL, LANE, LAST_HERO, LEVEL, MAGIC_RES, MANA, MANA_MAX, MAX_UNITS, MODE_1V1_MID,
    MOVE_SPEED, NEUTRAL_TEAM, N_BUILDINGS_PER_TEAM, N_CAMPS, N_HEROES, N_LANES, ORDER, O_NONE, PROJ_SPEED,
    PROTECTED, RANDOM_BUILDS, RANDOM_START, RESPAWN, SILENCE, SLOT_BIG_NEUTRAL, SLOT_COURIERS, SLOT_NEUTRALS, SLOW,
    STR, STUN, SUBTYPE, TARGET, TEAM,
    TP_CHANNEL, VISION_DAY, VISION_NIGHT, X, Y,
)
from fivestack.game.patch import (
    CR_BIG_NEUTRAL, CR_COURIER, CR_NEUTRAL, C_ARMOR, C_ATTACK_TIME, C_DAMAGE, C_GOLD, C_HP, C_PROJ, C_RANGE,
    C_SPEED, C_VISION, C_XP, H_AGI, H_INT, H_PROJ_SPEED, H_RANGE, H_STR, R_RANDOM_BIG_HEALTH_MIN, R_RANDOM_GOLD_MAX,
    R_RANDOM_GOLD_MIN, R_RANDOM_HEALTH_MIN, R_RANDOM_MANA_MIN, R_START_GOLD,
)


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
        if (training & RANDOM_BUILDS) != 0:
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
    if (training & RANDOM_START) != 0:
        randomise_start(S, D, g, mode)
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
def randomise_start(S, D, g, mode):
    """Domain randomisation of a fresh game's heroes (``RANDOM_START``), from the game's RNG: each playing hero's
    assigned lane (any of the three in 5v5; 1v1 stays mid), then its starting health and mana (a fraction in
    [random_*_min, 1] of the maximum) and gold (start_gold x a factor in [random_gold_min, random_gold_max])."""
    uf, ui, hf, hi, rules = S.uf, S.ui, S.hf, S.hi, D.rules
    for h in range(N_HEROES):
        if hi[g, h, ACTIVE] == 0:
            continue
        if mode != MODE_1V1_MID:
            lane = min(int(rand01(S.gi, g) * N_LANES), N_LANES - 1)
            hi[g, h, ASSIGNED_LANE] = lane
            ui[g, h, LANE] = lane
        health = rules[R_RANDOM_HEALTH_MIN] + (1.0 - rules[R_RANDOM_HEALTH_MIN]) * rand01(S.gi, g)
        mana = rules[R_RANDOM_MANA_MIN] + (1.0 - rules[R_RANDOM_MANA_MIN]) * rand01(S.gi, g)
        gold = rules[R_RANDOM_GOLD_MIN] + (rules[R_RANDOM_GOLD_MAX] - rules[R_RANDOM_GOLD_MIN]) * rand01(S.gi, g)
        uf[g, h, HP] = uf[g, h, HP_MAX] * health
        uf[g, h, MANA] = uf[g, h, MANA_MAX] * mana
        hf[g, h, GOLD] = rules[R_START_GOLD] * gold
        S.hp_hist[g, h, :] = uf[g, h, HP] / uf[g, h, HP_MAX]


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
    if (S.gi[g, G_TRAINING] & RANDOM_START) != 0:  # domain randomisation: a fraction of its health
        low = D.rules[R_RANDOM_BIG_HEALTH_MIN]
        fraction = low + (1.0 - low) * rand01(S.gi, g)
        S.uf[g, SLOT_BIG_NEUTRAL, HP] = S.uf[g, SLOT_BIG_NEUTRAL, HP_MAX] * fraction
        S.hp_hist[g, SLOT_BIG_NEUTRAL, :] = fraction


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
