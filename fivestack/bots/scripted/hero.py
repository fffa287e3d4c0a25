"""One hero's decision for one step (``decide_hero``), given the role the team kernel chose for it.

In order: stuck detection; the local fight (``fights``) and the retreat state with hysteresis; a pending
cast is left alone; items, then, when retreating, a self-heal and the way home (``navigation``); abilities
(``casting``); then by role: defend a building, or push the lane's objective with the group (dive when
strong enough, else wait outside the guarding tower's reach), or lane: stand behind the front creep out of
untanked towers' reach, fight enemy heroes when the fight is even, last-hit and deny (``farming``).
"""

from __future__ import annotations

from fivestack.bots.scripted.actions import d2xy, issue_move, set_action, try_target
from fivestack.bots.scripted.casting import try_abilities, try_escape, try_items
from fivestack.bots.scripted.context import creeps_tanking, enemy_tower_limit, own_tower_line, untanked_tower_near
from fivestack.bots.scripted.farming import lane_creep_plan, last_hit_target, weakest_enemy_creep
from fivestack.bots.scripted.fights import best_enemy_hero, fight_values
from fivestack.bots.scripted.memory import (
    M_CAST_FRAME, M_LAST_X, M_LAST_Y, M_RETREAT, M_RETREAT_HP, M_SPOT_JITTER, M_STUCK, M_UNSTICK, M_UNSTICK_DIR,
)
from fivestack.bots.scripted.navigation import travel, walk_to
from fivestack.bots.scripted.tuning import (
    B_ANCIENT, CAST_PATIENCE, DANGER_HP, DEFEND_RADIUS, FIGHT_RADIUS, RECOVERED_HP, RECOVERED_MANA, ROLE_DEFEND,
    ROLE_PUSH, TOWER_MARGIN, TOWER_RANGE,
)
from fivestack.game import kernels
from fivestack.game.jit import kernel
from fivestack.game.lanes import progress, progress_point
from fivestack.game.layout import (
    ACT_PRIMARY, ALIVE, ATTACK_RANGE, A_ABILITY0, A_ATTACK, A_HOLD, A_NOOP, A_TOWN_PORTAL, FRAMES_PER_STEP, G_FRAME,
    HEROES_PER_TEAM, HP, HP_MAX, KIND, K_TOWER, LANE, LEVEL, MANA, MANA_MAX, ORDER, O_CAST, O_HOLD, O_MOVE, PROJ_SPEED,
    X, Y,
)


@kernel
def decide_hero(S, D, g, h, team, lane_len, role, goal_lane, goal_unit, front, n_front, efront,
                engage, group_cap, mem_h, out):
    uf, ui, hf, hi, gi = S.uf, S.ui, S.hf, S.hi, S.gi
    lanes = D.lanes
    fountain = D.fountain
    frame = gi[g, G_FRAME]
    x, y = uf[g, h, X], uf[g, h, Y]
    hp_frac = uf[g, h, HP] / uf[g, h, HP_MAX]
    mana_frac = uf[g, h, MANA] / max(uf[g, h, MANA_MAX], 1.0)
    fx, fy = fountain[team, 0], fountain[team, 1]
    at_fountain = d2xy(x, y, fx, fy) < 1100.0 * 1100.0
    reach = uf[g, h, ATTACK_RANGE] + kernels.HULL

    # stuck detection: moving orders that do not move the hero
    moved2 = d2xy(x, y, float(mem_h[g, h, M_LAST_X]), float(mem_h[g, h, M_LAST_Y]))
    if frame % 60 == 0:
        if moved2 < 60.0 * 60.0 and ui[g, h, ORDER] == O_MOVE and not at_fountain:
            mem_h[g, h, M_STUCK] += 1
            if mem_h[g, h, M_STUCK] >= 2:
                mem_h[g, h, M_UNSTICK] = 12
                mem_h[g, h, M_UNSTICK_DIR] = (mem_h[g, h, M_UNSTICK_DIR] + 1) % 2
                mem_h[g, h, M_STUCK] = 0
        else:
            mem_h[g, h, M_STUCK] = 0
        mem_h[g, h, M_LAST_X] = int(x)
        mem_h[g, h, M_LAST_Y] = int(y)

    # the local fight
    mine, theirs = fight_values(S, g, team, x, y, FIGHT_RADIUS)
    enemy_hero_near = best_enemy_hero(S, g, h, team, 1200.0) >= 0
    losing = theirs > 0.0 and mine < engage * theirs

    # retreat state, with hysteresis
    retreat = mem_h[g, h, M_RETREAT]
    if retreat == 0 and (hp_frac < mem_h[g, h, M_RETREAT_HP] / 1000.0 or (hp_frac < DANGER_HP and losing)):
        retreat = 1
    if retreat == 1 and hp_frac > RECOVERED_HP and (not at_fountain or mana_frac > RECOVERED_MANA):
        retreat = 0
    mem_h[g, h, M_RETREAT] = retreat

    # a pending cast walks into range by itself
    if ui[g, h, ORDER] == O_CAST and frame - mem_h[g, h, M_CAST_FRAME] < CAST_PATIENCE and retreat == 0:
        return

    in_fight = enemy_hero_near
    if try_items(S, D, g, h, team, in_fight, at_fountain, out):
        return
    if retreat == 1:
        # blink home or vanish when an enemy is near; heal itself if it can, then go home (by town portal when
        # far and safe)
        if enemy_hero_near and try_escape(S, D, g, h, fx, fy, out):
            return
        if hp_frac < 0.45 and try_abilities(S, D, g, h, team, enemy_hero_near, False, mem_h, out) \
                and out[g, h, ACT_PRIMARY] >= A_ABILITY0:
            k = out[g, h, ACT_PRIMARY] - A_ABILITY0
            a = kernels.ability_of(hi, D, g, h, k)
            if D.ability_table[a, kernels.AB_AFFECTS] != 1 or D.ability_table[a, kernels.AB_STUN] > 0.0:
                return  # heals, buffs and disables help the escape; plain nukes do not
        if at_fountain:
            set_action(out, g, h, A_HOLD if ui[g, h, ORDER] != O_HOLD else A_NOOP, -1, 4, 4)
            return
        if not enemy_hero_near and d2xy(x, y, fx, fy) > 5000.0 * 5000.0 \
                and kernels.primary_available(S, D, g, h, A_TOWN_PORTAL):
            anc = kernels.building_slot(team, B_ANCIENT)
            if try_target(S, D, g, h, A_TOWN_PORTAL, anc, 4, 4, out):
                return
        walk_to(S, D, g, h, team, lane_len, fx, fy, -1, mem_h, out)
        return

    pushing = role == ROLE_PUSH
    if try_abilities(S, D, g, h, team, in_fight, pushing or role == ROLE_DEFEND, mem_h, out):
        return

    # --- where this hero wants to be
    lane = goal_lane
    if role == ROLE_DEFEND:
        gx, gy = uf[g, goal_unit, X], uf[g, goal_unit, Y]
        glane = ui[g, goal_unit, LANE]
        # fight everything near the building
        if d2xy(x, y, gx, gy) < (DEFEND_RADIUS + 400.0) ** 2:
            t = best_enemy_hero(S, g, h, team, reach + 400.0)
            if t < 0:
                t = weakest_enemy_creep(S, g, h, team, reach + 500.0)
            if t >= 0 and try_target(S, D, g, h, A_ATTACK, t, 4, 4, out):
                return
            walk_to(S, D, g, h, team, lane_len, gx, gy, glane, mem_h, out)
            return
        travel(S, D, g, h, team, lane_len, gx, gy, glane, enemy_hero_near, mem_h, out)
        return

    tower_p = enemy_tower_limit(S, D, g, team, lane, lane_len)
    own_p = own_tower_line(S, D, g, team, lane, lane_len)
    p_here, d_lane = progress(lanes, lane_len, team, lane, x, y)
    melee = uf[g, h, PROJ_SPEED] <= 0.0
    jitter = float(mem_h[g, h, M_SPOT_JITTER])
    if front[lane] > 0.0:
        spot = front[lane] - (120.0 if melee else 300.0) - jitter
    else:
        spot = own_p - 250.0
    if efront[lane] < 1e8:
        spot = min(spot, efront[lane] - (150.0 if melee else reach - 50.0))
    spot = max(spot, 300.0)
    obj = goal_unit
    pushing = pushing and obj >= 0
    dive = False
    guard = -1
    if pushing:
        # strong enough to take the building's shots, or it is almost down
        grouped = 0
        for k in range(HEROES_PER_TEAM):
            a = team * HEROES_PER_TEAM + k
            if ui[g, a, ALIVE] != 0 and kernels.dist2(uf, g, a, obj) < 1500.0 * 1500.0 \
                    and uf[g, a, HP] > 0.6 * uf[g, a, HP_MAX]:
                grouped += 1
        obj_frac = uf[g, obj, HP] / uf[g, obj, HP_MAX] if S.vis[g, team, obj] != 0 else 1.0  # fog
        dive = (grouped >= 3 and hi[g, h, LEVEL] >= 8) or (obj_frac < 0.2 and grouped >= 2)
        guard = untanked_tower_near(S, g, team, uf[g, obj, X], uf[g, obj, Y], 0.0)
        if ui[g, obj, KIND] == K_TOWER and creeps_tanking(S, g, team, obj) >= 1:
            guard = -1
    else:
        # laning: never stand in an untanked enemy tower's reach
        tanked = False
        if tower_p < 1e8:
            for tier in range(3):
                tw = kernels.building_slot(1 - team, tier * 3 + lane)
                if ui[g, tw, ALIVE] != 0:
                    tanked = creeps_tanking(S, g, team, tw) >= 2
                    break
        if not tanked:
            spot = min(spot, tower_p - TOWER_RANGE - TOWER_MARGIN)
    danger_tower = -1 if dive else untanked_tower_near(S, g, team, x, y, 60.0)

    # --- fight enemy heroes when the local fight is even or better
    if not losing:
        t = best_enemy_hero(S, g, h, team, reach + (250.0 if pushing else 120.0))
        if t >= 0 and (dive or untanked_tower_near(S, g, team, uf[g, t, X], uf[g, t, Y], 0.0) < 0) \
                and danger_tower < 0 and try_target(S, D, g, h, A_ATTACK, t, 4, 4, out):
            return
    elif enemy_hero_near and danger_tower < 0:
        # outmatched: give ground along the lane
        gx, gy = progress_point(lanes, lane_len, team, lane, p_here - 800.0)
        walk_to(S, D, g, h, team, lane_len, gx, gy, lane, mem_h, out)
        return
    if danger_tower >= 0:
        gx, gy = progress_point(lanes, lane_len, team, lane, p_here - 400.0)
        walk_to(S, D, g, h, team, lane_len, gx, gy, lane, mem_h, out)
        return

    # --- last hits and denies
    t = last_hit_target(S, g, h, team, max(reach + 250.0, 500.0), True)
    if t >= 0 and untanked_tower_near(S, g, team, uf[g, t, X], uf[g, t, Y], 0.0) < 0 \
            and try_target(S, D, g, h, A_ATTACK, t, 4, 4, out):
        return

    if pushing:
        ox, oy = uf[g, obj, X], uf[g, obj, Y]
        p_obj, d_obj = progress(lanes, lane_len, team, lane, ox, oy)
        # clear the wave first, then the building
        c = weakest_enemy_creep(S, g, h, team, reach + 250.0)
        if c >= 0 and (dive or untanked_tower_near(S, g, team, uf[g, c, X], uf[g, c, Y], 0.0) < 0) \
                and try_target(S, D, g, h, A_ATTACK, c, 4, 4, out):
            return
        if (guard < 0 or dive) and p_here > p_obj - 2500.0 and kernels.valid_target(S, D, g, h, 1, obj):
            if try_target(S, D, g, h, A_ATTACK, obj, 4, 4, out):
                return
        # wait just outside the guarding tower's reach for creeps (or walk up to see the building)
        if guard >= 0 and not dive:
            pg, dg = progress(lanes, lane_len, team, lane, uf[g, guard, X], uf[g, guard, Y])
            wait_p = pg - TOWER_RANGE - TOWER_MARGIN - jitter
        else:
            wait_p = p_obj - reach * 0.8
        wait_p = min(wait_p, group_cap)
        gx, gy = progress_point(lanes, lane_len, team, lane, wait_p)
        if d2xy(x, y, gx, gy) > 120.0 * 120.0:
            travel(S, D, g, h, team, lane_len, gx, gy, lane, enemy_hero_near, mem_h, out)
            return
        if ui[g, h, ORDER] != O_HOLD:
            set_action(out, g, h, A_HOLD, -1, 4, 4)
        return

    # --- laning: stand behind the front creep; hit healthy enemy creeps, hold fire for coming last hits
    gx, gy = progress_point(lanes, lane_len, team, lane, spot)
    if d2xy(x, y, gx, gy) > 150.0 * 150.0:
        travel(S, D, g, h, team, lane_len, gx, gy, lane, enemy_hero_near, mem_h, out)
        return
    c, hold_fire = lane_creep_plan(S, g, h, team, reach + 100.0)
    if not hold_fire and c >= 0 and untanked_tower_near(S, g, team, uf[g, c, X], uf[g, c, Y], 0.0) < 0 \
            and try_target(S, D, g, h, A_ATTACK, c, 4, 4, out):
        return
    if hold_fire:
        # keep the attack ready: small steps about the spot (an idle hero would auto-attack)
        side = 1 if (frame // FRAMES_PER_STEP) % 2 == 0 else -1
        issue_move(S, D, g, h, gx + side * 60.0, gy - side * 60.0, out)
        return
    if ui[g, h, ORDER] != O_HOLD:
        set_action(out, g, h, A_HOLD, -1, 4, 4)
