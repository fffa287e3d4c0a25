"""One frame of one game (``frame_update``): statuses tick, projectiles fly, every unit acts, the dead
are resolved and new creeps, camps and runes spawn.
"""

from __future__ import annotations

import math

from fivestack.game.jit import kernel
from fivestack.game.kernels.abilities import apply_effects, burn_grounds, refresh_auras
from fivestack.game.kernels.behaviour import update_courier, update_creep, update_hero, update_neutral, update_tower
from fivestack.game.kernels.combat import deal_damage
from fivestack.game.kernels.constants import FOUNTAIN_RADIUS
from fivestack.game.kernels.creation import spawn_big_neutral, spawn_camp
from fivestack.game.kernels.deaths import end_game, resolve_deaths
from fivestack.game.kernels.progression import give_gold, scripted_purchases
from fivestack.game.kernels.spatial import build_grid
from fivestack.game.kernels.spawning import pick_up, spawn_runes, spawn_wave
from fivestack.game.kernels.stats import net_worth_leader
from fivestack.game.layout import (
    AGGRO_COOLDOWN, AURA_REGEN, INVISIBLE, LIFETIME, ABILITY_CD, ACTIVE, AEGIS, ALIVE, ATTACK_READY, BUFF, BUYBACK_CD, CAMP_SIZE, DOT, DOT_DPS, DOT_SOURCE,
    DOUBLE_DAMAGE, DT, FRAMES_PER_SECOND, G_BIG_RESPAWN, G_DONE, G_FRAME, G_GLYPH_CD0, G_MAX_FRAMES, G_MODE, HASTE,
    HP, HP_MAX, HP_REGEN, INVULN, IT_COOLDOWN, KIND, K_BIG_NEUTRAL, K_CREEP_MELEE, K_CREEP_RANGED, K_CREEP_SIEGE,
    K_FOUNTAIN, K_HERO, K_NEUTRAL, K_TOWER, MANA, MANA_BUFF, MANA_MAX, MANA_REGEN, MANA_RESTORE, MAX_PROJECTILES,
    MAX_UNITS, MODE_1V1_MID, N_CAMPS, N_HEROES, N_ITEM_SLOTS, PJ_ABILITY, PJ_ACTIVE, PJ_DAMAGE, PJ_LEVEL, PJ_SOURCE,
    PJ_SPEED, PJ_TARGET, PJ_X, PJ_Y, REGEN, REGEN_BUFF, SILENCE, SLOT_NEUTRALS, SLOW, STUN, TEAM, X, Y,
)
from fivestack.game.patch import R_CAMP_RESPAWN, R_FOUNTAIN_REGEN, R_PASSIVE_GOLD, R_RUNE_INTERVAL, R_WAVE


@kernel
def tick_statuses(S, D, g):
    """Burning grounds (``burn_grounds``), then timers, regeneration, damage over time and the fountain, for
    every living unit."""
    uf, ui, hf, gi = S.uf, S.ui, S.hf, S.gi
    fountain = D.fountain
    fr = D.rules[R_FOUNTAIN_REGEN]
    burn_grounds(S, D, g)
    for u in range(MAX_UNITS):
        if ui[g, u, ALIVE] == 0:
            continue
        if ui[g, u, LIFETIME] > 0:  # a summon expires: gone, no bounty
            ui[g, u, LIFETIME] -= 1
            if ui[g, u, LIFETIME] == 0:
                ui[g, u, ALIVE] = 0
                uf[g, u, HP] = 0.0
                continue
        if uf[g, u, ATTACK_READY] > 0.0:
            uf[g, u, ATTACK_READY] -= 1.0
        for f in (STUN, SILENCE, SLOW, BUFF, INVULN, DOUBLE_DAMAGE, HASTE, INVISIBLE):
            if ui[g, u, f] > 0:
                ui[g, u, f] -= 1
        regen = uf[g, u, HP_REGEN]
        mana_regen = uf[g, u, MANA_REGEN]
        if ui[g, u, REGEN] > 0:
            ui[g, u, REGEN] -= 1
            regen += uf[g, u, REGEN_BUFF]
        if ui[g, u, MANA_RESTORE] > 0:
            ui[g, u, MANA_RESTORE] -= 1
            mana_regen += uf[g, u, MANA_BUFF]
        if u < N_HEROES:
            regen += uf[g, u, AURA_REGEN]
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
        if hi[g, h, AGGRO_COOLDOWN] > 0:
            hi[g, h, AGGRO_COOLDOWN] -= 1
        if hf[g, h, BUYBACK_CD] > 0.0:
            hf[g, h, BUYBACK_CD] = max(0.0, hf[g, h, BUYBACK_CD] - DT)
        if hf[g, h, AEGIS] > 0.0:
            hf[g, h, AEGIS] = max(0.0, hf[g, h, AEGIS] - DT)
        if hi[g, h, ACTIVE] != 0:
            give_gold(S, g, h, rules[R_PASSIVE_GOLD] * DT)
    if frame % 10 == 0:
        refresh_auras(S, D, g)
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
        leader = net_worth_leader(S, D, g) if D.net_worth_wins[0] != 0 else -1
        if leader >= 0:  # GameConfig.net_worth_wins: the time limit decides the game (terminated, a win)
            end_game(S, g, leader)
        else:
            gi[g, G_DONE] = 2
