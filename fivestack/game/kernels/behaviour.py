"""Per-frame behaviour of each unit kind: heroes (orders, respawn, attacks), lane creeps, towers,
neutrals and the courier.
"""

from __future__ import annotations

from fivestack.game.jit import kernel
from fivestack.game.kernels.abilities import channel_tick
from fivestack.game.kernels.actions import continue_cast
from fivestack.game.kernels.aggro import (
    attack_target, dota_lane, draw_creep_aggro, lane_creep_target, lane_walk_point, pick_target, tower_defends_heroes,
)
from fivestack.game.kernels.combat import attack_or_approach, move_toward
from fivestack.game.kernels.constants import (
    ACQUIRE_RADIUS, CHASE_LIMIT, COURIER_REACH, HULL, NEUTRAL_LEASH, WAYPOINT_REACHED,
)
from fivestack.game.kernels.creation import set_unit, spawn_hero
from fivestack.game.kernels.helpers import dist2
from fivestack.game.kernels.progression import deliver_stash
from fivestack.game.kernels.spatial import can_be_attacked, nearest_enemy
from fivestack.game.layout import (
    INVISIBLE, LIFETIME, O_CHANNEL, SUMMONER, ACTIVE, ALIVE, ATTACK_RANGE, DAMAGE, DT, GOAL_X, GOAL_Y, G_AEGIS_ON_GROUND, G_COURIER_RESPAWN0,
    G_COURIER_TARGET0, G_FRAME, G_RUNE0, HEROES_PER_TEAM, HERO_ATTACK_FRAME, HOME_X, HOME_Y, HP, HP_MAX, K_COURIER,
    LANE, N_HEROES, ORDER, O_ATTACK, O_ATTACK_MOVE, O_CAST, O_HOLD, O_MOVE, O_NONE, O_PICKUP, O_TELEPORT, RADIANT,
    RESPAWN, SLOT_COURIERS, STUN, TARGET, TEAM, TP_CHANNEL, TP_X, TP_Y, WAYPOINT, X, Y,
)
from fivestack.game.patch import CR_COURIER, F_MANUAL_ATTACK


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
    if order == O_CHANNEL:
        channel_tick(S, D, g, h)
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
    # idle, hold and attack-move: fight what comes near (heroes auto-attack, as in Dota; an idle one does not with
    # patch feature manual_attack, Dota's auto-attack setting 'never')
    if order == O_NONE and D.features[g] & F_MANUAL_ATTACK:
        ui[g, h, TARGET] = -1
        return
    if t < 0 or not hero_may_attack(S, g, h, t) or ui[g, t, TEAM] == ui[g, h, TEAM]:
        t = -1
        if (gi[g, G_FRAME] + h) % 4 == 0:
            radius = uf[g, h, ATTACK_RANGE] + HULL if order == O_HOLD else max(uf[g, h, ATTACK_RANGE], ACQUIRE_RADIUS)
            t = nearest_enemy(S, g, h, radius, False, True)
        ui[g, h, TARGET] = t
        if t >= 0 and t < N_HEROES:
            draw_creep_aggro(S, D, g, h, t)  # an idle hero that takes on a hero draws creeps as an order does
    if t >= 0:
        in_reach = attack_or_approach(S, D, g, h, t, order != O_HOLD)
        if not in_reach and order == O_NONE and dist2(S.uf, g, h, t) > (ACQUIRE_RADIUS + 300.0) ** 2:
            ui[g, h, TARGET] = -1
    elif order == O_ATTACK_MOVE:
        if move_toward(S, D, g, h, uf[g, h, GOAL_X], uf[g, h, GOAL_Y]):
            ui[g, h, ORDER] = O_NONE


SUMMON_ACQUIRE = 700.0  # a summon attacks enemies this close to it
SUMMON_FOLLOW = 300.0  # and otherwise keeps this close to its summoner


@kernel
def update_summon(S, D, g, u):
    """A summoned unit: fight the nearest visible-to-all enemy within SUMMON_ACQUIRE, else follow the summoner."""
    uf, ui = S.uf, S.ui
    t = ui[g, u, TARGET]
    if t >= 0 and (not can_be_attacked(ui, g, t) or ui[g, t, INVISIBLE] > 0
                   or dist2(uf, g, u, t) > CHASE_LIMIT * CHASE_LIMIT):
        t = -1
    if t < 0 and (S.gi[g, G_FRAME] + u) % 4 == 0:
        t = nearest_enemy(S, g, u, SUMMON_ACQUIRE, False, False)
    ui[g, u, TARGET] = t
    if t >= 0:
        attack_or_approach(S, D, g, u, t, True)
        return
    owner = ui[g, u, SUMMONER]
    if ui[g, owner, ALIVE] != 0 and dist2(uf, g, u, owner) > SUMMON_FOLLOW * SUMMON_FOLLOW:
        move_toward(S, D, g, u, uf[g, owner, X], uf[g, owner, Y])


@kernel
def update_creep(S, D, g, u):
    uf, ui = S.uf, S.ui
    if ui[g, u, LIFETIME] > 0:
        update_summon(S, D, g, u)
        return
    lanes = D.lanes
    ancient = D.ancient
    dota = dota_lane(D, g)
    if dota:
        t = lane_creep_target(S, D, g, u)
    else:  # patch 0.1's creep: the nearest enemy, kept until it is gone or 1,200 away
        t = ui[g, u, TARGET]
        if t >= 0:
            if not can_be_attacked(ui, g, t) or ui[g, t, INVISIBLE] > 0 or dist2(uf, g, u, t) > CHASE_LIMIT * CHASE_LIMIT:
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
        elif dota:
            gx, gy = lane_walk_point(S, D, g, u, gx, gy)
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
    t = ui[g, u, TARGET]
    if dota_lane(D, g):
        # Dota's tower: a hero attacking an allied hero in range takes it over (the nearest such hero); a hero it
        # shoots that turns on one of its own units makes it pick again; otherwise it keeps its target in range
        victim = attack_target(ui, g, t) if t >= 0 and t < N_HEROES else -1
        if victim >= 0 and ui[g, victim, TEAM] == ui[g, t, TEAM]:
            t = -1
        if not (victim >= 0 and victim < N_HEROES and ui[g, victim, TEAM] == team):
            defender = tower_defends_heroes(S, g, u, reach)
            if defender >= 0:
                t = defender
    else:
        # patch 0.1: an enemy hero that just hit one of our heroes, itself in range, becomes the target
        for h in range(N_HEROES):
            if ui[g, h, ALIVE] != 0 and ui[g, h, TEAM] != team and frame - hf[g, h, HERO_ATTACK_FRAME] < 10 \
                    and hf[g, h, HERO_ATTACK_FRAME] > 0 and dist2(uf, g, u, h) <= reach * reach:
                t = h
                break
    if t >= 0 and (not can_be_attacked(ui, g, t) or ui[g, t, INVISIBLE] > 0 or dist2(uf, g, u, t) > reach * reach):
        t = -1
    if t < 0:
        t = pick_target(S, g, u, reach, True) if dota_lane(D, g) else nearest_enemy(S, g, u, reach, True, False)
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
