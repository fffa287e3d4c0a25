"""What the team reads off the map each step, in one game: the lane fronts of both creep waves
(``lane_fronts``), the next enemy building of a lane (``lane_objective``), the enemy tower limit and own
tower line along a lane, towers that no own creep tanks (``creeps_tanking``, ``untanked_tower_near``), and
the own base building under threat with how many heroes should defend it (``threatened_building``).

Enemy units count only when visible to the team; enemy buildings' positions are map knowledge.
"""

from __future__ import annotations

from fivestack.bots.scripted.actions import d2xy, is_lane_creep
from fivestack.bots.scripted.tuning import (
    BASE_WATCH_RADIUS, B_ANCIENT, B_BARRACKS0, B_FOUNTAIN, B_T4A, B_T4B, DEFEND_RADIUS,
)
from fivestack.game import kernels
from fivestack.game.jit import kernel
from fivestack.game.lanes import progress
from fivestack.game.layout import (
    ALIVE, ATTACK_RANGE, HEROES_PER_TEAM, KIND, K_HERO, LANE, MAX_UNITS, SLOT_CREEPS, TEAM, X, Y,
)


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
