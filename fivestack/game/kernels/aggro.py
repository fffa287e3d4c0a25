"""Who lane creeps and towers attack, as Dota's do (patch feature ``dota_lane``; game.patch.Rules names the numbers).

* ``attack_target``: the unit a unit is attacking, if any (a hero counts while its order is an attack, or it is idle,
  holding or attack-moving with a target; a hero casting, moving or channelling attacks nothing).
* ``pick_target``: the target a lane creep or tower picks by Dota's priority, one pass over the spatial hash: the
  nearest unit attacking an allied hero, then (towers) one attacking the tower itself, then one attacking an allied
  unit, then the nearest unit (towers: a non-hero before a hero).
* ``tower_defends_heroes``: a tower's first priority, checked every frame: the nearest enemy hero in its range that is
  attacking an allied hero in its range.
* ``draw_creep_aggro``: a hero's attack on an enemy hero (the order or an idle hero's acquisition, not the hit)
  turns the victim's lane creeps within ``creep_aggro_radius`` of the attacker on it for ``creep_aggro_time``; the
  trigger then rests ``creep_aggro_cooldown``.
* ``call_for_help``: an attack on a unit turns the idle lane creeps of its team within ``call_for_help_radius`` of
  it on the attacker.
* ``lane_creep_target``: a lane creep's target each frame: aggro kept for its time, then re-picks every
  ``creep_repick`` seconds, and a chase given up after ``creep_leash`` seconds out of its acquisition range.
* ``lane_walk_point``: a creep with no target walks back to its lane's path before it walks on.

``behaviour.update_creep`` and ``update_tower`` call these for games with the feature; other games keep 0.1's rules.
"""

from __future__ import annotations

from fivestack.game.jit import kernel
from fivestack.game.kernels.constants import ACQUIRE_RADIUS, CHASE_LIMIT, GRID_SIDE, LANE_RETURN
from fivestack.game.kernels.helpers import dist2
from fivestack.game.kernels.spatial import can_be_attacked, cell_range
from fivestack.game.layout import (
    AGGRO_COOLDOWN, AGGRO_LEFT, ALIVE, ATTACK_RANGE, FRAMES_PER_SECOND, G_FRAME, INVISIBLE, KIND, K_CREEP_MELEE, K_CREEP_RANGED,
    K_CREEP_SIEGE, K_HERO, LANE, LIFETIME, LOST_FRAMES, MAX_UNITS, N_HEROES, NEUTRAL_TEAM, ORDER, O_ATTACK, O_ATTACK_MOVE, O_HOLD,
    O_NONE, RADIANT, SLOT_CREEPS, TARGET, TEAM, WAYPOINT, X, Y,
)
from fivestack.game.patch import (
    F_DOTA_LANE, R_AGGRO_COOLDOWN, R_AGGRO_RADIUS, R_AGGRO_TIME, R_CALL_FOR_HELP, R_CREEP_LEASH, R_CREEP_REPICK,
)

# pick_target's priority classes, best first
ATTACKS_OUR_HERO, ATTACKS_ME, ATTACKS_OUR_UNIT, NEAREST, NEAREST_HERO = 0, 1, 2, 3, 4


@kernel
def dota_lane(D, g):
    return D.features[g] & F_DOTA_LANE != 0


@kernel
def is_lane_creep(ui, g, u):
    kind = ui[g, u, KIND]
    return (kind == K_CREEP_MELEE or kind == K_CREEP_RANGED or kind == K_CREEP_SIEGE) and ui[g, u, LIFETIME] == 0


@kernel
def attack_target(ui, g, a):
    """The living unit ``a`` is attacking, or -1."""
    t = ui[g, a, TARGET]
    if t < 0 or ui[g, t, ALIVE] == 0:
        return -1
    if a < N_HEROES:
        order = ui[g, a, ORDER]
        if order != O_ATTACK and order != O_NONE and order != O_HOLD and order != O_ATTACK_MOVE:
            return -1
    return t


@kernel
def pick_target(S, g, u, radius, tower):
    """The attackable, not invisible enemy within ``radius`` of ``u`` that Dota's priority puts first, or -1.

    Classes, best first: attacking a hero of ``u``'s team; (``tower``) attacking ``u``; attacking any unit of ``u``'s
    team; any unit (``tower``: non-heroes before heroes). Within a class the nearest wins."""
    uf, ui, head, nxt = S.uf, S.ui, S.grid_head, S.grid_next
    team = ui[g, u, TEAM]
    x, y = uf[g, u, X], uf[g, u, Y]
    r2 = radius * radius
    best = -1
    best_class = NEAREST_HERO + 1
    best_d = 1e30
    cx0, cx1, cy0, cy1 = cell_range(x, y, radius)
    for cx in range(cx0, cx1 + 1):
        for cy in range(cy0, cy1 + 1):
            t = head[g, cx * GRID_SIDE + cy]
            while t >= 0:
                tt = ui[g, t, TEAM]
                if tt != team and tt != NEUTRAL_TEAM and can_be_attacked(ui, g, t) and ui[g, t, INVISIBLE] == 0:
                    dx = uf[g, t, X] - x
                    dy = uf[g, t, Y] - y
                    d = dx * dx + dy * dy
                    if d <= r2:
                        victim = attack_target(ui, g, t)
                        if victim >= 0 and ui[g, victim, TEAM] == team:
                            if victim < N_HEROES:
                                c = ATTACKS_OUR_HERO
                            elif tower and victim == u:
                                c = ATTACKS_ME
                            else:
                                c = ATTACKS_OUR_UNIT
                        elif tower and ui[g, t, KIND] == K_HERO:
                            c = NEAREST_HERO
                        else:
                            c = NEAREST
                        if c < best_class or (c == best_class and d < best_d):
                            best, best_class, best_d = t, c, d
                t = nxt[g, t]
    return best


@kernel
def tower_defends_heroes(S, g, u, reach):
    """The nearest enemy hero within ``reach`` of tower ``u`` attacking an allied hero within ``reach``, or -1."""
    uf, ui = S.uf, S.ui
    team = ui[g, u, TEAM]
    r2 = reach * reach
    best = -1
    best_d = 1e30
    for h in range(N_HEROES):
        if ui[g, h, ALIVE] == 0 or ui[g, h, TEAM] == team or not can_be_attacked(ui, g, h) or ui[g, h, INVISIBLE] > 0:
            continue
        victim = attack_target(ui, g, h)
        if victim < 0 or victim >= N_HEROES or ui[g, victim, TEAM] != team:
            continue
        d = (uf[g, h, X] - uf[g, u, X]) ** 2 + (uf[g, h, Y] - uf[g, u, Y]) ** 2
        dv = (uf[g, victim, X] - uf[g, u, X]) ** 2 + (uf[g, victim, Y] - uf[g, u, Y]) ** 2
        if d <= r2 and dv <= r2 and d < best_d:
            best, best_d = h, d
    return best


@kernel
def draw_creep_aggro(S, D, g, h, victim):
    """Hero ``h`` attacks enemy hero ``victim``: the victim's lane creeps within the aggro radius of ``h`` that see
    it turn on it for the aggro time, unless ``h``'s trigger is resting (dota_lane only)."""
    if not dota_lane(D, g) or victim < 0 or victim >= N_HEROES:
        return
    uf, ui, hi, vis = S.uf, S.ui, S.hi, S.vis
    team = ui[g, victim, TEAM]
    if ui[g, h, TEAM] == team or hi[g, h, AGGRO_COOLDOWN] > 0 or ui[g, h, INVISIBLE] > 0 \
            or not can_be_attacked(ui, g, h) or vis[g, team, h] == 0:
        return
    rules = D.rules
    hi[g, h, AGGRO_COOLDOWN] = int(rules[R_AGGRO_COOLDOWN] * FRAMES_PER_SECOND)
    aggro_frames = int(rules[R_AGGRO_TIME] * FRAMES_PER_SECOND)
    r2 = rules[R_AGGRO_RADIUS] ** 2
    x, y = uf[g, h, X], uf[g, h, Y]
    # every creep slot, not the spatial hash: an order comes before this frame's hash is built, and at most one
    # per hero in 3 s draws
    for c in range(SLOT_CREEPS, MAX_UNITS):
        if ui[g, c, ALIVE] != 0 and ui[g, c, TEAM] == team and is_lane_creep(ui, g, c) \
                and (uf[g, c, X] - x) ** 2 + (uf[g, c, Y] - y) ** 2 <= r2:
            ui[g, c, TARGET] = h
            ui[g, c, AGGRO_LEFT] = aggro_frames
            ui[g, c, LOST_FRAMES] = 0


@kernel
def call_for_help(S, D, g, attacker, victim):
    """``attacker`` attacks ``victim``: the idle lane creeps of the victim's team within the call-for-help radius of
    it turn on the attacker (dota_lane only)."""
    if not dota_lane(D, g):
        return
    uf, ui, head, nxt = S.uf, S.ui, S.grid_head, S.grid_next
    team = ui[g, victim, TEAM]
    if team == NEUTRAL_TEAM or ui[g, attacker, TEAM] == team or ui[g, attacker, TEAM] == NEUTRAL_TEAM \
            or ui[g, attacker, INVISIBLE] > 0 or not can_be_attacked(ui, g, attacker):
        return
    radius = D.rules[R_CALL_FOR_HELP]
    x, y = uf[g, victim, X], uf[g, victim, Y]
    cx0, cx1, cy0, cy1 = cell_range(x, y, radius)
    for cx in range(cx0, cx1 + 1):
        for cy in range(cy0, cy1 + 1):
            c = head[g, cx * GRID_SIDE + cy]
            while c >= 0:
                if ui[g, c, TARGET] < 0 and ui[g, c, TEAM] == team and ui[g, c, ALIVE] != 0 and is_lane_creep(ui, g, c) \
                        and (uf[g, c, X] - x) ** 2 + (uf[g, c, Y] - y) ** 2 <= radius * radius:
                    ui[g, c, TARGET] = attacker
                    ui[g, c, LOST_FRAMES] = 0
                c = nxt[g, c]


@kernel
def lane_creep_target(S, D, g, u):
    """Lane creep ``u``'s target this frame under dota_lane, or -1 (then it walks its lane).

    A target drawn by aggro is kept for the aggro time, then the creep picks again at once. Otherwise a creep with
    no target looks every 4th frame and one with a target re-picks every ``creep_repick`` seconds (both staggered by
    unit index), by ``pick_target``'s priority within its acquisition range (500 plus half its attack range), keeping
    its target when nothing is in range; a target beyond that range for ``creep_leash`` seconds, or beyond
    ``CHASE_LIMIT``, dead, invisible or unattackable, is dropped."""
    uf, ui = S.uf, S.ui
    rules = D.rules
    t = ui[g, u, TARGET]
    if t >= 0 and (not can_be_attacked(ui, g, t) or ui[g, t, INVISIBLE] > 0
                   or dist2(uf, g, u, t) > CHASE_LIMIT * CHASE_LIMIT):
        t = -1
        ui[g, u, AGGRO_LEFT] = 0
    repick = False
    if ui[g, u, AGGRO_LEFT] > 0:
        ui[g, u, AGGRO_LEFT] -= 1
        if ui[g, u, AGGRO_LEFT] > 0:
            ui[g, u, TARGET] = t
            return t
        repick = True  # the aggro is over: pick again now
    radius = ACQUIRE_RADIUS + uf[g, u, ATTACK_RANGE] * 0.5
    if t >= 0:
        if dist2(uf, g, u, t) > radius * radius:
            ui[g, u, LOST_FRAMES] += 1
            if ui[g, u, LOST_FRAMES] >= int(rules[R_CREEP_LEASH] * FRAMES_PER_SECOND):
                t = -1
        else:
            ui[g, u, LOST_FRAMES] = 0
    frame = S.gi[g, G_FRAME]
    period = 4 if t < 0 else int(rules[R_CREEP_REPICK] * FRAMES_PER_SECOND)
    if repick or (frame + u) % period == 0:
        best = pick_target(S, g, u, radius, False)
        if best >= 0 and best != t:
            t = best
            ui[g, u, LOST_FRAMES] = 0
    ui[g, u, TARGET] = t
    return t


@kernel
def lane_walk_point(S, D, g, u, gx, gy):
    """Where a lane creep heading for waypoint (gx, gy) walks under dota_lane: back to the nearest point of its lane's
    path (the segment from the waypoint before) while it is more than ``LANE_RETURN`` away from it, then on."""
    uf, ui = S.uf, S.ui
    lanes = D.lanes
    w = ui[g, u, WAYPOINT]
    prev = w - 1 if ui[g, u, TEAM] == RADIANT else w + 1
    if w < 0 or w >= lanes.shape[1] or prev < 0 or prev >= lanes.shape[1]:
        return gx, gy
    ax, ay = lanes[ui[g, u, LANE], prev, 0], lanes[ui[g, u, LANE], prev, 1]
    sx, sy = gx - ax, gy - ay
    length2 = sx * sx + sy * sy
    x, y = uf[g, u, X], uf[g, u, Y]
    k = 0.0 if length2 <= 0.0 else min(max(((x - ax) * sx + (y - ay) * sy) / length2, 0.0), 1.0)
    px, py = ax + k * sx, ay + k * sy
    if (x - px) ** 2 + (y - py) ** 2 > LANE_RETURN * LANE_RETURN:
        return px, py
    return gx, gy
