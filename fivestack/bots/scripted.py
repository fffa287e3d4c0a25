"""The scripted baseline team: a compiled rule-based player, the reference opponent for evaluation.

Each step, for every game at once, one Numba kernel decides the five heroes of one team in engine space
(targets are unit indices). It plays a plain Dota game plan:

* **laning**: stand behind the front friendly creep of the assigned lane (``hi[ASSIGNED_LANE]``), never
  inside the range of an enemy tower that no friendly creep tanks; last-hit enemy creeps and deny own
  creeps (below half health) whose health is below the hero's armour-adjusted attack damage; harass enemy
  heroes in range when the local fight is even or better;
* **retreating**: below ~30% health (or outnumbered below half health) walk back along the lane to the
  fountain, drink a poultice, town-portal home when far and safe; back to lane by town portal to the
  allied building nearest the goal when the walk is long;
* **abilities and items**: nukes and disables on enemy heroes in range, heals on hurt allies, area
  abilities where enemies cluster (heroes count triple), self buffs in a fight, stun and heal items;
* **pushing**: after ``PUSH_MINUTE`` or when ahead, all heroes group in one lane and push it with the
  creep wave: towers are hit while friendly creeps tank them (or when the group is strong enough to dive),
  then barracks, tier-4 towers and the ancient;
* **defending**: when enemies come near the own tier-3 towers, barracks or ancient, the nearest heroes go
  back (by town portal when far) and fight there: one more than the enemy heroes seen, one or two against
  creeps alone; a dead hero buys back to save the ancient from heroes.

The bot respects the fog of war (only enemy units with ``vis[g, team, u] != 0`` are considered; enemy
buildings' positions are map knowledge) and only issues available actions with valid targets, so its
invalid-action counter stays at zero. Per-hero memory (retreat state, pending casts) and per-game memory
(push lane) live in arrays owned by the ``ScriptedTeam``; a game whose frame counter goes back is treated
as a new game.
"""

from __future__ import annotations

import math

import numpy as np

from fivestack.game import kernels
from fivestack.game.engine import GameBatch
from fivestack.game.jit import kernel
from fivestack.game.lanes import lane_length, progress, progress_point
from fivestack.game.layout import (
    ACTIVE, ACT_DELAY, ACT_OFFSET_X, ACT_OFFSET_Y, ACT_PRIMARY, ACT_TARGET, ALIVE, ARMOR, ASSIGNED_LANE,
    ATTACK_PERIOD, ATTACK_RANGE, ATTACK_READY, A_ABILITY0, A_ATTACK, A_BUYBACK, A_GLYPH, A_HOLD, A_ITEM0,
    A_MOVE, A_NOOP, A_TOWN_PORTAL, BUFF, BUFF_ARMOR, DIRE, FRAMES_PER_SECOND, FRAMES_PER_STEP, G_DONE, G_FRAME,
    G_GLYPH_CD0, G_KILLS0, G_MODE, G_RNG, G_TOWERS_LOST0, HEROES_PER_TEAM, HP, HP_HISTORY_LEN, HP_MAX, INVULN,
    IT_ID, KIND, K_ANCIENT, K_BARRACKS, K_COURIER, K_CREEP_MELEE, K_CREEP_RANGED, K_CREEP_SIEGE, K_FOUNTAIN,
    K_HERO, K_TOWER, LANE, LEVEL, MANA, MANA_MAX, MAX_UNITS, MODE_1V1_MID, MOVE_SPEED, MOVE_STEP,
    N_BUILDINGS_PER_TEAM, N_HEROES, N_INVENTORY, ORDER, O_CAST, O_HOLD, O_MOVE, O_TELEPORT, PROJ_SPEED, REGEN,
    RESPAWN, SLOT_CREEPS, STUN, TARGET, TEAM, T_POINT, T_UNIT, T_UNIT_OFFSET, X, Y,
)

# ---------------------------------------------------------------- tuning (seconds, world units, fractions)
PUSH_MINUTE = 12.0  # all heroes group and push from about this game minute on (earlier when ahead)
PUSH_JITTER = 3.0  # minutes either side, drawn per game
AHEAD_KILLS = 4  # kill lead that starts the push early
RETREAT_HP = 0.30  # retreat below this health fraction
DANGER_HP = 0.50  # retreat below this when the local fight is lost
RECOVERED_HP = 0.90  # leave the fountain above this
RECOVERED_MANA = 0.50
TOWER_RANGE = 700.0 + kernels.HULL  # enemy tower reach
TOWER_MARGIN = 150.0  # keep this much further out of an untanked tower's reach
TP_MIN_DISTANCE = 5500.0  # town-portal when the goal is further than this
FIGHT_RADIUS = 1300.0  # heroes counted in a local fight
ENGAGE_RATIO = 0.8  # engage when our fight value is at least this fraction of theirs
DEFEND_RADIUS = 1600.0
BASE_WATCH_RADIUS = 6300.0  # enemies further than this from the own fountain threaten no base building
BASE_RADIUS = 3900.0  # around each fountain the map is clear of trees
ON_LANE = 800.0
CARROT = 500.0
CAST_PATIENCE = 45  # frames a pending cast is left alone
LH_HISTORY_STEPS = 3  # health trend window for last-hit timing
LH_HOLD_HITS = 2.5  # hold fire while a creep in range is within this many of the hero's hits of dying
GROUP_LEAD = 700.0  # a pushing hero waits for the group this far ahead of the third hero

# building local indices (geometry.BUILDINGS order)
B_T4A, B_T4B, B_BARRACKS0, B_ANCIENT, B_FOUNTAIN = 9, 10, 11, 17, 18

# per-hero memory: mem_h[g, h, FIELD]
M_RETREAT = 0
M_CAST_FRAME = 1
M_LAST_X = 2
M_LAST_Y = 3
M_STUCK = 4
M_UNSTICK = 5  # steps left of a side-step
M_UNSTICK_DIR = 6
M_RETREAT_HP = 7  # this hero's retreat threshold x 1000
M_SPOT_JITTER = 8  # extra distance kept behind the front creep
N_MEM_H = 10
# per-game memory: mem_g[g, FIELD]
MG_FRAME = 0  # last frame seen (-1: never)
MG_PUSH_LANE = 1  # -1 not pushing
MG_PUSH_SINCE = 2
MG_RNG = 3
MG_PUSH_FRAME = 4  # this game's push time (PUSH_MINUTE, jittered)
MG_ENGAGE = 5  # this game's engage ratio x 1000
MG_LANE_BIAS = 6  # preferred push lane
N_MEM_G = 8

ROLE_LANE, ROLE_PUSH, ROLE_DEFEND = 0, 1, 2


@kernel
def d2xy(ax, ay, bx, by):
    return (ax - bx) * (ax - bx) + (ay - by) * (ay - by)


@kernel
def rng_next(mem_g, g):
    """The bot's own stream in its game memory: a float in [0, 1). Never touches the game's RNG."""
    return kernels.xorshift01(mem_g, g, MG_RNG)


@kernel
def new_game_memory(S, g, team, mem_g, mem_h, seed):
    """Fresh memory for a new game, with this game's random style drawn from the bot seed and the game's
    own RNG state at its start (so that games differ with their seeds, and replays are reproducible)."""
    uf = S.uf
    z = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(S.gi[g, G_RNG]) + np.uint64(team + 1)
    mem_g[g, MG_RNG] = kernels.splitmix64(z)
    mem_g[g, MG_PUSH_LANE] = -1
    mem_g[g, MG_PUSH_SINCE] = 0
    minutes = PUSH_MINUTE + (rng_next(mem_g, g) - 0.5) * 2.0 * PUSH_JITTER
    mem_g[g, MG_PUSH_FRAME] = int(minutes * 60.0 * FRAMES_PER_SECOND)
    mem_g[g, MG_ENGAGE] = int(1000.0 * (ENGAGE_RATIO + (rng_next(mem_g, g) - 0.5) * 0.3))
    mem_g[g, MG_LANE_BIAS] = int(rng_next(mem_g, g) * 3.0)
    for k in range(HEROES_PER_TEAM):
        h = team * HEROES_PER_TEAM + k
        mem_h[g, h, :] = 0
        mem_h[g, h, M_LAST_X] = int(uf[g, h, X])
        mem_h[g, h, M_LAST_Y] = int(uf[g, h, Y])
        mem_h[g, h, M_RETREAT_HP] = int(1000.0 * (RETREAT_HP + (rng_next(mem_g, g) - 0.5) * 0.1))
        mem_h[g, h, M_SPOT_JITTER] = int(rng_next(mem_g, g) * 150.0)


# ====================================================================== action helpers
@kernel
def set_action(out, g, h, prim, target, ox, oy):
    out[g, h, ACT_PRIMARY] = prim
    out[g, h, ACT_DELAY] = 0
    out[g, h, ACT_TARGET] = target
    out[g, h, ACT_OFFSET_X] = ox
    out[g, h, ACT_OFFSET_Y] = oy


@kernel
def offset_cell(d, step):
    k = int(round(d / step))
    return min(max(k, -4), 4) + 4


@kernel
def issue_move(S, D, g, h, gx, gy, out):
    """A move toward (gx, gy): the farthest offset cell in its direction (re-issued every step)."""
    uf = S.uf
    dx = gx - uf[g, h, X]
    dy = gy - uf[g, h, Y]
    m = max(abs(dx), abs(dy))
    if m > 4.0 * MOVE_STEP:
        dx *= 4.0 * MOVE_STEP / m
        dy *= 4.0 * MOVE_STEP / m
    ox = offset_cell(dx, MOVE_STEP)
    oy = offset_cell(dy, MOVE_STEP)
    if ox == 4 and oy == 4 and m > 40.0:  # closer than half a cell: step a whole cell toward it
        if abs(dx) >= abs(dy):
            ox = 5 if dx > 0 else 3
        else:
            oy = 5 if dy > 0 else 3
    set_action(out, g, h, A_MOVE, -1, ox, oy)


@kernel
def try_target(S, D, g, h, prim, t, ox, oy, out):
    """Issue ``prim`` on unit ``t`` when it is available and ``t`` is a valid target for it."""
    if not kernels.primary_available(S, D, g, h, prim):
        return False
    kind = kernels.target_kind_for(S, D, g, h, prim)
    if kind != 0 and not kernels.valid_target(S, D, g, h, kind, t):
        return False
    set_action(out, g, h, prim, t if kind != 0 else -1, ox, oy)
    return True


@kernel
def is_lane_creep(kind):
    return kind == K_CREEP_MELEE or kind == K_CREEP_RANGED or kind == K_CREEP_SIEGE


@kernel
def is_building(kind):
    return kind == K_TOWER or kind == K_BARRACKS or kind == K_ANCIENT or kind == K_FOUNTAIN


@kernel
def hero_dps(uf, ui, g, u):
    return kernels.attack_damage(uf, ui, g, u) / max(uf[g, u, ATTACK_PERIOD], 0.2)


# ====================================================================== navigation
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


# ====================================================================== per-game context
@kernel
def lane_fronts(S, D, g, team, lane_len, front, n_front, efront):
    """Furthest progress of own lane creeps per lane, their count, and nearest visible enemy creep."""
    uf, ui, vis = S.uf, S.ui, S.vis
    lanes = D.lanes
    for l in range(3):
        front[l] = -1.0
        n_front[l] = 0
        efront[l] = 1e9
    for u in range(SLOT_CREEPS, MAX_UNITS):
        if ui[g, u, ALIVE] == 0:
            continue
        l = ui[g, u, LANE]
        if l < 0:
            continue
        p, d = progress(lanes, lane_len, team, l, uf[g, u, X], uf[g, u, Y])
        if d > 1200.0:
            continue
        if ui[g, u, TEAM] == team:
            n_front[l] += 1
            if p > front[l]:
                front[l] = p
        elif vis[g, team, u] != 0 and p < efront[l]:
            efront[l] = p


@kernel
def lane_objective(S, g, team, lane):
    ui = S.ui
    enemy = 1 - team
    for tier in range(3):
        u = kernels.building_slot(enemy, tier * 3 + lane)
        if ui[g, u, ALIVE] != 0:
            return u
    for k in range(2):
        u = kernels.building_slot(enemy, B_BARRACKS0 + lane * 2 + k)
        if ui[g, u, ALIVE] != 0:
            return u
    for local in (B_T4A, B_T4B, B_ANCIENT):
        u = kernels.building_slot(enemy, local)
        if ui[g, u, ALIVE] != 0:
            return u
    return -1


@kernel
def enemy_tower_limit(S, D, g, team, lane, lane_len):
    """Progress of the nearest living enemy tower of ``lane`` (1e9 when none)."""
    uf, ui = S.uf, S.ui
    enemy = 1 - team
    best = 1e9
    for tier in range(3):
        u = kernels.building_slot(enemy, tier * 3 + lane)
        if ui[g, u, ALIVE] != 0:
            p, d = progress(D.lanes, lane_len, team, lane, uf[g, u, X], uf[g, u, Y])
            if p < best:
                best = p
    return best


@kernel
def own_tower_line(S, D, g, team, lane, lane_len):
    """Progress of the own outermost living tower of ``lane`` (0 when none)."""
    uf, ui = S.uf, S.ui
    best = 0.0
    for tier in range(3):
        u = kernels.building_slot(team, tier * 3 + lane)
        if ui[g, u, ALIVE] != 0:
            p, d = progress(D.lanes, lane_len, team, lane, uf[g, u, X], uf[g, u, Y])
            if p > best:
                best = p
    return best


@kernel
def creeps_tanking(S, g, team, tower):
    """Own lane creeps inside an enemy tower's reach (it shoots them before any hero)."""
    uf, ui = S.uf, S.ui
    n = 0
    r2 = (uf[g, tower, ATTACK_RANGE] + kernels.HULL) ** 2
    for u in range(SLOT_CREEPS, MAX_UNITS):
        if ui[g, u, ALIVE] != 0 and ui[g, u, TEAM] == team and kernels.dist2(uf, g, u, tower) <= r2:
            n += 1
    return n


@kernel
def untanked_tower_near(S, g, team, x, y, margin):
    """An enemy tower (alive, armed) within reach of (x, y) + margin that no own creep tanks, else -1."""
    uf, ui = S.uf, S.ui
    enemy = 1 - team
    for local in range(11):
        u = kernels.building_slot(enemy, local)
        if ui[g, u, ALIVE] == 0:
            continue
        r = uf[g, u, ATTACK_RANGE] + kernels.HULL + margin
        if d2xy(x, y, uf[g, u, X], uf[g, u, Y]) <= r * r and creeps_tanking(S, g, team, u) == 0:
            return u
    return -1


@kernel
def threatened_building(S, D, g, team):
    """The most important own base building (tier 3+, barracks, ancient) with enemies near it, and how
    many heroes should defend it: one more than the enemy heroes there, or one or two against creeps alone
    (-1, 0 when the base is quiet)."""
    uf, ui, vis = S.uf, S.ui, S.vis
    f = D.fountain
    enemy = 1 - team
    # quick exit: no visible enemy anywhere near the base
    near_base = False
    r_base = BASE_WATCH_RADIUS * BASE_WATCH_RADIUS
    for u in range(MAX_UNITS):
        if ui[g, u, ALIVE] != 0 and ui[g, u, TEAM] == enemy and vis[g, team, u] != 0 \
                and d2xy(uf[g, u, X], uf[g, u, Y], f[team, 0], f[team, 1]) < r_base:
            near_base = True
            break
    if not near_base:
        return -1, 0
    best = -1
    best_rank = -1
    best_heroes = 0
    best_creeps = 0
    for local in range(6, B_FOUNTAIN):
        b = kernels.building_slot(team, local)
        if ui[g, b, ALIVE] == 0:
            continue
        heroes = 0
        creeps = 0
        for u in range(MAX_UNITS):
            if ui[g, u, ALIVE] == 0 or ui[g, u, TEAM] != enemy or vis[g, team, u] == 0:
                continue
            if kernels.dist2(uf, g, u, b) > DEFEND_RADIUS * DEFEND_RADIUS:
                continue
            k = ui[g, u, KIND]
            if k == K_HERO:
                heroes += 1
            elif is_lane_creep(k):
                creeps += 1
        if heroes >= 1 or creeps >= 3:
            rank = 3 if local == B_ANCIENT else (2 if local < B_BARRACKS0 and local >= B_T4A else 1)
            rank = rank * 10 + heroes
            if rank > best_rank:
                best_rank = rank
                best = b
                best_heroes = heroes
                best_creeps = creeps
    if best < 0:
        return -1, 0
    if best_heroes > 0:
        return best, min(HEROES_PER_TEAM, best_heroes + 1 + (1 if best_creeps >= 4 else 0))
    return best, 1 if best_creeps < 6 else 2


# ====================================================================== fights
@kernel
def fight_values(S, g, team, x, y, radius):
    """Lanchester-style values (total health x total damage per second) of both sides near (x, y)."""
    uf, ui, vis = S.uf, S.ui, S.vis
    r2 = radius * radius
    my_hp = 0.0
    my_dps = 0.0
    en_hp = 0.0
    en_dps = 0.0
    for u in range(N_HEROES):
        if ui[g, u, ALIVE] == 0:
            continue
        if d2xy(uf[g, u, X], uf[g, u, Y], x, y) > r2:
            continue
        if ui[g, u, TEAM] == team:
            my_hp += uf[g, u, HP]
            my_dps += hero_dps(uf, ui, g, u)
        elif vis[g, team, u] != 0:
            en_hp += uf[g, u, HP]
            en_dps += hero_dps(uf, ui, g, u)
    return my_hp * my_dps, en_hp * en_dps


@kernel
def weakest_visible_enemy(S, g, h, team, radius, first, last):
    """The visible enemy unit among slots [first, last) within ``radius`` with the least health (-1 none)."""
    uf, ui, vis = S.uf, S.ui, S.vis
    best = -1
    best_hp = 1e30
    r2 = radius * radius
    for u in range(first, last):
        if ui[g, u, ALIVE] == 0 or ui[g, u, TEAM] == team or vis[g, team, u] == 0:
            continue
        if kernels.dist2(uf, g, h, u) > r2:
            continue
        if uf[g, u, HP] < best_hp:
            best_hp = uf[g, u, HP]
            best = u
    return best


@kernel
def best_enemy_hero(S, g, h, team, radius):
    """The visible enemy hero within ``radius`` with the least health (-1 none)."""
    return weakest_visible_enemy(S, g, h, team, radius, 0, N_HEROES)


@kernel
def count_enemies_near(S, g, team, x, y, radius):
    """(visible enemy heroes, visible enemy non-hero units) within ``radius`` of (x, y); no buildings."""
    uf, ui, vis = S.uf, S.ui, S.vis
    r2 = radius * radius
    heroes = 0
    others = 0
    for u in range(MAX_UNITS):
        if ui[g, u, ALIVE] == 0:
            continue
        tt = ui[g, u, TEAM]
        if tt == team or tt > DIRE or vis[g, team, u] == 0:
            continue
        k = ui[g, u, KIND]
        if is_building(k) or k == K_COURIER:
            continue
        if d2xy(uf[g, u, X], uf[g, u, Y], x, y) <= r2:
            if k == K_HERO:
                heroes += 1
            else:
                others += 1
    return heroes, others


# ====================================================================== abilities and items
@kernel
def try_abilities(S, D, g, h, team, in_fight, pushing, mem_h, out):
    """Cast the best ability now, if any is worth it. Returns True when an action was issued."""
    uf, ui, hi = S.uf, S.ui, S.hi
    abil_t = D.ability_table
    x, y = uf[g, h, X], uf[g, h, Y]
    hp_frac = uf[g, h, HP] / uf[g, h, HP_MAX]
    mana_frac = uf[g, h, MANA] / max(uf[g, h, MANA_MAX], 1.0)
    frame = S.gi[g, G_FRAME]
    for kk in range(4):
        k = 3 - kk  # the ultimate first
        prim = A_ABILITY0 + k
        if not kernels.primary_available(S, D, g, h, prim):
            continue
        a = kernels.ability_of(hi, D, g, h, k)
        tt = int(abil_t[a, kernels.AB_TARGET])
        aff = int(abil_t[a, kernels.AB_AFFECTS])
        reach = abil_t[a, kernels.AB_RANGE]
        radius = abil_t[a, kernels.AB_RADIUS]
        heal = abil_t[a, kernels.AB_HEAL]
        farm_ok = k != 3 and mana_frac > 0.6 and pushing
        if aff == 1:
            if tt == T_UNIT or tt == T_UNIT_OFFSET:
                t = best_enemy_hero(S, g, h, team, reach + 150.0)
                if t >= 0 and try_target(S, D, g, h, prim, t, 4, 4, out):
                    mem_h[g, h, M_CAST_FRAME] = frame
                    return True
            elif tt == T_POINT:
                # the best centre among visible enemy heroes and creeps in reach
                best_score = 0
                bx, by = 0.0, 0.0
                for u in range(MAX_UNITS):
                    if ui[g, u, ALIVE] == 0 or ui[g, u, TEAM] == team or ui[g, u, TEAM] > DIRE:
                        continue
                    if S.vis[g, team, u] == 0:
                        continue
                    ku = ui[g, u, KIND]
                    if ku != K_HERO and not (farm_ok and is_lane_creep(ku)):
                        continue
                    cx, cy = uf[g, u, X], uf[g, u, Y]
                    if d2xy(x, y, cx, cy) > reach * reach:
                        continue
                    nh, no = count_enemies_near(S, g, team, cx, cy, radius * 0.9)
                    score = 3 * nh + no
                    if score > best_score:
                        best_score = score
                        bx, by = cx, cy
                if best_score >= 3 or (best_score >= 1 and k != 3 and in_fight):
                    step = max(reach, 200.0) / 4.0
                    ox = offset_cell(bx - x, step)
                    oy = offset_cell(by - y, step)
                    if try_target(S, D, g, h, prim, -1, ox, oy, out):
                        mem_h[g, h, M_CAST_FRAME] = frame
                        return True
            else:  # around the caster
                nh, no = count_enemies_near(S, g, team, x, y, radius * 0.85)
                if nh >= 1 or (farm_ok and no >= 4):
                    if try_target(S, D, g, h, prim, -1, 4, 4, out):
                        mem_h[g, h, M_CAST_FRAME] = frame
                        return True
        elif aff == 2:
            if tt == T_UNIT or tt == T_UNIT_OFFSET:
                best = -1
                best_frac = 0.6
                for u in range(N_HEROES):
                    if ui[g, u, ALIVE] == 0 or ui[g, u, TEAM] != team:
                        continue
                    if kernels.dist2(uf, g, h, u) > (reach + 300.0) ** 2:
                        continue
                    fr = uf[g, u, HP] / uf[g, u, HP_MAX]
                    if fr < best_frac:
                        best_frac = fr
                        best = u
                if best >= 0 and try_target(S, D, g, h, prim, best, 4, 4, out):
                    mem_h[g, h, M_CAST_FRAME] = frame
                    return True
            else:
                hurt = 0
                near = 0
                for u in range(N_HEROES):
                    if ui[g, u, ALIVE] == 0 or ui[g, u, TEAM] != team:
                        continue
                    if kernels.dist2(uf, g, h, u) > radius * radius:
                        continue
                    near += 1
                    fr = uf[g, u, HP] / uf[g, u, HP_MAX]
                    if fr < 0.5 or (fr < 0.75 and in_fight):
                        hurt += 1
                use = (heal > 0.0 and (hurt >= 2 or (hurt >= 1 and in_fight))) or \
                      (heal <= 0.0 and in_fight and near >= 2)
                if use and try_target(S, D, g, h, prim, -1, 4, 4, out):
                    return True
        else:  # the caster only
            use = False
            if heal > 0.0:
                use = hp_frac < 0.45 and (in_fight or hp_frac < 0.3)
            else:
                t = ui[g, h, TARGET]
                use = in_fight or (t >= 0 and ui[g, t, KIND] != K_HERO and is_building(ui[g, t, KIND]))
            if use and try_target(S, D, g, h, prim, -1, 4, 4, out):
                return True
    return False


@kernel
def try_items(S, D, g, h, team, in_fight, at_fountain, out):
    """Consumables and actives: heal and mana over time, the stun, the area heal."""
    uf, ui, items = S.uf, S.ui, S.items
    item_t = D.item_table
    hp_frac = uf[g, h, HP] / uf[g, h, HP_MAX]
    mana_frac = uf[g, h, MANA] / max(uf[g, h, MANA_MAX], 1.0)
    for s in range(N_INVENTORY):
        it = items[g, h, s, IT_ID]
        if it < 0:
            continue
        prim = A_ITEM0 + s
        kind = int(item_t[it, kernels.I_ACTIVE])
        if kind == kernels.ACT_HEAL_OVER_TIME:
            if hp_frac < 0.55 and ui[g, h, REGEN] == 0 and not at_fountain:
                if try_target(S, D, g, h, prim, -1, 4, 4, out):
                    return True
        elif kind == kernels.ACT_MANA_OVER_TIME:
            if mana_frac < 0.35 and ui[g, h, REGEN] == 0 and not at_fountain:
                if try_target(S, D, g, h, prim, -1, 4, 4, out):
                    return True
        elif kind == kernels.ACT_STUN:
            t = best_enemy_hero(S, g, h, team, item_t[it, kernels.I_RANGE] + 100.0)
            if t >= 0 and ui[g, t, STUN] == 0 and try_target(S, D, g, h, prim, t, 4, 4, out):
                return True
        elif kind == kernels.ACT_AREA_HEAL:
            hurt = 0
            r2 = item_t[it, kernels.I_RANGE] ** 2
            for u in range(N_HEROES):
                if ui[g, u, ALIVE] != 0 and ui[g, u, TEAM] == team and kernels.dist2(uf, g, h, u) <= r2:
                    if uf[g, u, HP] < 0.6 * uf[g, u, HP_MAX]:
                        hurt += 1
            if (hurt >= 2 or (hurt >= 1 and in_fight)) and try_target(S, D, g, h, prim, -1, 4, 4, out):
                return True
    return False


# ====================================================================== farming
@kernel
def hp_loss_rate(S, g, u):
    """Health the unit lost per second over the last few steps (from the health history)."""
    uf, gi, hist = S.uf, S.gi, S.hp_hist
    pos = (gi[g, G_FRAME] // FRAMES_PER_STEP) % HP_HISTORY_LEN
    back = (pos - LH_HISTORY_STEPS + HP_HISTORY_LEN) % HP_HISTORY_LEN
    lost = (hist[g, u, back] - hist[g, u, pos]) * uf[g, u, HP_MAX]
    return max(lost, 0.0) / (LH_HISTORY_STEPS * FRAMES_PER_STEP / FRAMES_PER_SECOND)


@kernel
def last_hit_target(S, g, h, team, radius, deny):
    """A creep that one attack of ``h`` will kill when it lands: an enemy lane creep, or an own one (below
    half health) to deny. The creep's health when the attack lands is predicted from its recent losses,
    the walk into range and the projectile's flight."""
    uf, ui, vis = S.uf, S.ui, S.vis
    dmg = kernels.attack_damage(uf, ui, g, h)
    best = -1
    best_hp = 1e30
    r2 = radius * radius
    reach = uf[g, h, ATTACK_RANGE] + kernels.HULL
    wait = max(uf[g, h, ATTACK_READY], 0.0) / FRAMES_PER_SECOND
    for u in range(SLOT_CREEPS, MAX_UNITS):
        if ui[g, u, ALIVE] == 0 or not is_lane_creep(ui[g, u, KIND]):
            continue
        own = ui[g, u, TEAM] == team
        if own and not deny:
            continue
        if not own and vis[g, team, u] == 0:
            continue
        if own and uf[g, u, HP] >= 0.5 * uf[g, u, HP_MAX]:
            continue
        d2 = kernels.dist2(uf, g, h, u)
        if d2 > r2:
            continue
        d = math.sqrt(d2)
        delay = wait + max(d - reach, 0.0) / max(uf[g, h, MOVE_SPEED], 100.0)
        if uf[g, h, PROJ_SPEED] > 0.0:
            delay += min(d, reach) / uf[g, h, PROJ_SPEED]
        hp_then = uf[g, u, HP] - hp_loss_rate(S, g, u) * delay
        if hp_then <= dmg * kernels.physical_multiplier(uf, ui, g, u) and hp_then > -40.0 and uf[g, u, HP] < best_hp:
            best_hp = uf[g, u, HP]
            best = u
    return best


@kernel
def lane_creep_plan(S, g, h, team, radius):
    """While laning: (an enemy creep worth hitting now, whether to hold fire for an upcoming last hit).

    Creeps at high health are hit freely (it wins the lane's damage race); a creep that two or three
    hits from anyone will bring into last-hit range is left alone so that the attack is ready for it."""
    uf, ui, vis = S.uf, S.ui, S.vis
    dmg = kernels.attack_damage(uf, ui, g, h)
    r2 = radius * radius
    best = -1
    best_hp = -1.0
    hold_fire = False
    for u in range(SLOT_CREEPS, MAX_UNITS):
        if ui[g, u, ALIVE] == 0 or not is_lane_creep(ui[g, u, KIND]):
            continue
        own = ui[g, u, TEAM] == team
        if not own and vis[g, team, u] == 0:
            continue
        if kernels.dist2(uf, g, h, u) > r2:
            continue
        eff = dmg * kernels.physical_multiplier(uf, ui, g, u)
        if uf[g, u, HP] < LH_HOLD_HITS * eff:
            if not own or uf[g, u, HP] < 0.5 * uf[g, u, HP_MAX] + eff:
                hold_fire = True
        elif not own and uf[g, u, HP] > best_hp:
            best_hp = uf[g, u, HP]
            best = u
    return best, hold_fire


@kernel
def weakest_enemy_creep(S, g, h, team, radius):
    """The visible enemy (or neutral) creep within ``radius`` with the least health (-1 none)."""
    return weakest_visible_enemy(S, g, h, team, radius, SLOT_CREEPS, MAX_UNITS)


# ====================================================================== one hero
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
        # heal itself if it can, then go home (by town portal when far and safe)
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


# ====================================================================== the team
@kernel
def choose_push_lane(S, D, g, team, lane_len, front, bias):
    """The lane whose next enemy building is deepest (fewest defences left), then the most advanced wave,
    then this game's preferred lane (``bias``) and the short middle lane."""
    ui = S.ui
    enemy = 1 - team
    best = 1
    best_score = -1e30
    for l in range(3):
        lost = 0
        for tier in range(3):
            if ui[g, kernels.building_slot(enemy, tier * 3 + l), ALIVE] == 0:
                lost += 1
        score = lost * 100000.0 + front[l] - (0.0 if l == 1 else 2500.0) + (3000.0 if l == bias else 0.0)
        if score > best_score:
            best_score = score
            best = l
    return best


@kernel
def scripted_team_act(S, D, team, out, mem_g, mem_h, lane_len, seed, scratch, n_front):
    """Fill ``out[:, team's heroes, :]`` for every game (noop for finished games). ``scratch`` (float64, at
    least 11) and ``n_front`` (int64, 3) are working memory: kernels do not allocate."""
    uf, ui, hf, hi, gi = S.uf, S.ui, S.hf, S.hi, S.gi
    n_games = out.shape[0]
    front = scratch[0:3]
    efront = scratch[3:6]
    prog = scratch[6:11]
    dist = scratch[11:16]
    for g in range(n_games):
        for k in range(HEROES_PER_TEAM):
            set_action(out, g, team * HEROES_PER_TEAM + k, A_NOOP, -1, 4, 4)
        frame = gi[g, G_FRAME]
        if frame < mem_g[g, MG_FRAME] or mem_g[g, MG_FRAME] < 0:  # a new game in this slot
            new_game_memory(S, g, team, mem_g, mem_h, seed)
        mem_g[g, MG_FRAME] = frame
        if gi[g, G_DONE] != 0:
            continue
        lane_fronts(S, D, g, team, lane_len, front, n_front, efront)
        one_v_one = gi[g, G_MODE] == MODE_1V1_MID
        # --- the team's plan: defend, push, or lane
        defend = -1
        defenders = 0
        if not one_v_one:
            defend, defenders = threatened_building(S, D, g, team)
        minutes = frame / (60.0 * FRAMES_PER_SECOND)
        kills_lead = gi[g, G_KILLS0 + team] - gi[g, G_KILLS0 + 1 - team]
        towers_lead = gi[g, G_TOWERS_LOST0 + 1 - team] - gi[g, G_TOWERS_LOST0 + team]
        alive = 0
        active = 0
        for k in range(HEROES_PER_TEAM):
            if hi[g, team * HEROES_PER_TEAM + k, ACTIVE] != 0:
                active += 1
                if ui[g, team * HEROES_PER_TEAM + k, ALIVE] != 0:
                    alive += 1
        need = min(3, active)  # heroes a push needs (one in 1v1 mid)
        push_minute = mem_g[g, MG_PUSH_FRAME] / (60.0 * FRAMES_PER_SECOND)
        if one_v_one:
            push_minute *= 0.5
        want_push = minutes >= push_minute or kills_lead >= AHEAD_KILLS \
            or (towers_lead >= 2 and minutes >= push_minute * 0.5)
        if want_push and alive >= need:
            if mem_g[g, MG_PUSH_LANE] < 0 or lane_objective(S, g, team, mem_g[g, MG_PUSH_LANE]) < 0:
                mem_g[g, MG_PUSH_LANE] = choose_push_lane(S, D, g, team, lane_len, front, mem_g[g, MG_LANE_BIAS])
                mem_g[g, MG_PUSH_SINCE] = frame
        elif not want_push or alive == 0:
            mem_g[g, MG_PUSH_LANE] = -1
        if one_v_one and mem_g[g, MG_PUSH_LANE] >= 0:
            mem_g[g, MG_PUSH_LANE] = 1
        push_lane = mem_g[g, MG_PUSH_LANE]
        if push_lane >= 0 and not one_v_one and frame - mem_g[g, MG_PUSH_SINCE] > 180 * FRAMES_PER_SECOND:
            # re-pick now and then, so that a stalled push moves to a better lane
            mem_g[g, MG_LANE_BIAS] = int(rng_next(mem_g, g) * 3.0)
            mem_g[g, MG_PUSH_LANE] = choose_push_lane(S, D, g, team, lane_len, front, mem_g[g, MG_LANE_BIAS])
            mem_g[g, MG_PUSH_SINCE] = frame
            push_lane = mem_g[g, MG_PUSH_LANE]
        # --- glyph: save a base building under attack
        glyph_hero = -1
        if defend >= 0 and uf[g, defend, HP] < 0.4 * uf[g, defend, HP_MAX] and ui[g, defend, KIND] == K_TOWER \
                and gi[g, G_GLYPH_CD0 + team] <= 0 and ui[g, defend, INVULN] == 0:
            for k in range(HEROES_PER_TEAM):
                h = team * HEROES_PER_TEAM + k
                if try_target(S, D, g, h, A_GLYPH, -1, 4, 4, out):
                    glyph_hero = h
                    break
        # the push advances with the group: no further than just ahead of the third hero on the lane
        group_cap = 1e9
        if push_lane >= 0:
            n_prog = 0
            for k in range(HEROES_PER_TEAM):
                h = team * HEROES_PER_TEAM + k
                if ui[g, h, ALIVE] != 0 and mem_h[g, h, M_RETREAT] == 0:
                    p, d = progress(D.lanes, lane_len, team, push_lane, uf[g, h, X], uf[g, h, Y])
                    prog[n_prog] = p - 0.5 * d
                    n_prog += 1
            if n_prog >= need and need > 0:
                for i in range(1, n_prog):  # insertion sort, ascending
                    v = prog[i]
                    j = i - 1
                    while j >= 0 and prog[j] > v:
                        prog[j + 1] = prog[j]
                        j -= 1
                    prog[j + 1] = v
                group_cap = prog[n_prog - need] + GROUP_LEAD
            else:
                push_lane = -1  # too few to push: back to the lanes until the others are back
        # the heroes nearest the threatened building defend it
        if defend >= 0:
            for k in range(HEROES_PER_TEAM):
                h = team * HEROES_PER_TEAM + k
                dist[k] = 1e30
                if ui[g, h, ALIVE] != 0 and mem_h[g, h, M_RETREAT] == 0:
                    dist[k] = kernels.dist2(uf, g, h, defend)
        for k in range(HEROES_PER_TEAM):
            h = team * HEROES_PER_TEAM + k
            if hi[g, h, ACTIVE] == 0 or h == glyph_hero:
                continue
            defending = False
            if defend >= 0 and dist[k] < 1e29:
                closer = 0
                for j in range(HEROES_PER_TEAM):
                    if dist[j] < dist[k] or (dist[j] == dist[k] and j < k):
                        closer += 1
                defending = closer < defenders
            if ui[g, h, ALIVE] == 0:
                # buy back to save the ancient
                if defend >= 0 and ui[g, defend, KIND] == K_ANCIENT and defenders >= 2 and hf[g, h, RESPAWN] > 10.0:
                    try_target(S, D, g, h, A_BUYBACK, -1, 4, 4, out)
                continue
            if ui[g, h, STUN] > 0 or ui[g, h, ORDER] == O_TELEPORT:
                continue
            role = ROLE_LANE
            goal_lane = hi[g, h, ASSIGNED_LANE]
            goal_unit = -1
            if defending:
                role = ROLE_DEFEND
                goal_unit = defend
            elif push_lane >= 0:
                role = ROLE_PUSH
                goal_lane = push_lane
                goal_unit = lane_objective(S, g, team, push_lane)
                if goal_unit < 0:
                    role = ROLE_LANE
                    goal_lane = hi[g, h, ASSIGNED_LANE]
            decide_hero(S, D, g, h, team, lane_len, role, goal_lane, goal_unit, front, n_front, efront,
                        mem_g[g, MG_ENGAGE] / 1000.0, group_cap, mem_h, out)


class ScriptedTeam:
    """The scripted baseline for one team, in engine space (targets are unit indices)."""

    def __init__(self, team: int, seed: int = 0):
        if team not in (0, 1):
            raise ValueError(f"team must be 0 (Radiant) or 1 (Dire), got {team}")
        self.team = team
        self.seed = int(seed)
        self._mem_g: np.ndarray | None = None
        self._mem_h: np.ndarray | None = None
        self._lane_len: np.ndarray | None = None
        self._scratch = np.zeros(16, np.float64)  # fronts, push progress, defender distances
        self._n_front = np.zeros(3, np.int64)

    def _memory(self, n_games: int, lanes: np.ndarray) -> None:
        if self._mem_g is None or self._mem_g.shape[0] != n_games:
            self._mem_g = np.full((n_games, N_MEM_G), -1, np.int64)
            self._mem_h = np.zeros((n_games, N_HEROES, N_MEM_H), np.int64)
        if self._lane_len is None:
            self._lane_len = np.array([lane_length(lanes, lane) for lane in range(3)], np.float64)

    def act(self, game: GameBatch, out: np.ndarray) -> None:
        """Fill ``out[:, heroes of this team, :]`` (int64, (n_games, 10, 5)) for every game."""
        if out.shape != (game.n_games, N_HEROES, 5) or out.dtype != np.int64:
            raise ValueError(f"out must be an int64 array of shape {(game.n_games, N_HEROES, 5)}, "
                             f"got {out.dtype} {out.shape}")
        self._memory(game.n_games, game.data.lanes)
        scripted_team_act(game.state, game.data, self.team, out, self._mem_g, self._mem_h, self._lane_len,
                          self.seed, self._scratch, self._n_front)


__all__ = ["ScriptedTeam", "scripted_team_act"]
