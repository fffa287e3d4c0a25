"""Getting a hero somewhere: lanes and both bases are clear of trees, so ``nav_goal`` walks along a lane,
cuts straight across a base and changes lanes through the own base; ``walk_to`` follows it and side-steps
when the stuck detector fires; ``travel`` town-portals to the allied building nearest the goal
(``tp_building``) when that saves a long walk and no enemy hero is close.
"""

from __future__ import annotations

import math

from fivestack.bots.scripted.actions import d2xy, issue_move, try_target
from fivestack.bots.scripted.memory import M_UNSTICK, M_UNSTICK_DIR
from fivestack.bots.scripted.tuning import BASE_RADIUS, CARROT, ON_LANE, TP_MIN_DISTANCE
from fivestack.game import kernels
from fivestack.game.jit import kernel
from fivestack.game.lanes import progress, progress_point
from fivestack.game.layout import ALIVE, A_TOWN_PORTAL, N_BUILDINGS_PER_TEAM, X, Y


@kernel
def in_base(D, team, x, y):
    f = D.fountain
    return d2xy(x, y, f[team, 0], f[team, 1]) < BASE_RADIUS * BASE_RADIUS


@kernel
def nav_goal(S, D, g, h, team, lane_len, gx, gy, lane):
    """Next point on the way to (gx, gy), which lies on or near ``lane`` (-1: the own fountain).

    Lanes and the two bases are clear of trees: walk along the lane, cut straight across a base, and go
    back through the own base to change lanes."""
    uf = S.uf
    lanes = D.lanes
    x, y = uf[g, h, X], uf[g, h, Y]
    if d2xy(x, y, gx, gy) < 1200.0 * 1200.0:
        return gx, gy
    for side in range(2):
        if in_base(D, side, x, y) and in_base(D, side, gx, gy):
            return gx, gy
    # the lane the hero is on (nearest)
    best_l = 0
    best_d = 1e30
    best_p = 0.0
    for l in range(3):
        p, d = progress(lanes, lane_len, team, l, x, y)
        if d < best_d:
            best_d = d
            best_l = l
            best_p = p
    if lane >= 0:
        p_goal, d_goal = progress(lanes, lane_len, team, lane, gx, gy)
        p_here, d_here = progress(lanes, lane_len, team, lane, x, y)
        if d_here < ON_LANE:
            diff = p_goal - p_here
            if abs(diff) <= CARROT:
                if d_goal < ON_LANE:
                    return progress_point(lanes, lane_len, team, lane, p_goal)
                return gx, gy
            return progress_point(lanes, lane_len, team, lane, p_here + (CARROT if diff > 0 else -CARROT))
        if in_base(D, team, x, y):
            return progress_point(lanes, lane_len, team, lane, min(p_goal, 500.0))
    else:
        if in_base(D, team, x, y):
            return gx, gy
    # on another lane (or lost in the jungle): back along the nearest lane toward the own base
    if best_d < ON_LANE:
        return progress_point(lanes, lane_len, team, best_l, best_p - CARROT)
    return progress_point(lanes, lane_len, team, best_l, best_p)


@kernel
def walk_to(S, D, g, h, team, lane_len, gx, gy, lane, mem_h, out):
    """Walk toward a goal along lanes, side-stepping when the hero has been stuck."""
    uf = S.uf
    nx, ny = nav_goal(S, D, g, h, team, lane_len, gx, gy, lane)
    if mem_h[g, h, M_UNSTICK] > 0:
        mem_h[g, h, M_UNSTICK] -= 1
        dx, dy = nx - uf[g, h, X], ny - uf[g, h, Y]
        sgn = 1.0 if mem_h[g, h, M_UNSTICK_DIR] == 0 else -1.0
        nx, ny = uf[g, h, X] - sgn * dy, uf[g, h, Y] + sgn * dx
    issue_move(S, D, g, h, nx, ny, out)


@kernel
def tp_building(S, D, g, h, team, gx, gy):
    """The allied building whose town-portal landing is nearest the goal, when that saves a long walk."""
    uf, ui = S.uf, S.ui
    f = D.fountain
    here = math.sqrt(d2xy(uf[g, h, X], uf[g, h, Y], gx, gy))
    best = -1
    best_d = here - 3500.0
    for local in range(N_BUILDINGS_PER_TEAM - 1):  # no fountain
        u = kernels.building_slot(team, local)
        if ui[g, u, ALIVE] == 0:
            continue
        bx, by = uf[g, u, X], uf[g, u, Y]
        dx, dy = f[team, 0] - bx, f[team, 1] - by
        dd = math.sqrt(dx * dx + dy * dy) + 1e-6
        lx, ly = bx + dx / dd * 250.0, by + dy / dd * 250.0
        d = math.sqrt(d2xy(lx, ly, gx, gy))
        if d < best_d:
            best_d = d
            best = u
    return best


@kernel
def travel(S, D, g, h, team, lane_len, gx, gy, lane, enemy_near, mem_h, out):
    """Go to a far goal: town portal when it saves a long walk and no enemy hero is close, else walk."""
    uf = S.uf
    if not enemy_near and d2xy(uf[g, h, X], uf[g, h, Y], gx, gy) > TP_MIN_DISTANCE * TP_MIN_DISTANCE \
            and kernels.primary_available(S, D, g, h, A_TOWN_PORTAL):
        b = tp_building(S, D, g, h, team, gx, gy)
        if b >= 0 and try_target(S, D, g, h, A_TOWN_PORTAL, b, 4, 4, out):
            return
    walk_to(S, D, g, h, team, lane_len, gx, gy, lane, mem_h, out)
