"""Fights and targeting: the Lanchester-style value of each side's heroes near a point (``fight_values``,
health times damage per second), the weakest visible enemy in a slot range (``weakest_visible_enemy``,
``best_enemy_hero``) and the count of visible enemy heroes and other units around a point
(``count_enemies_near``, for area abilities).
"""

from __future__ import annotations

from fivestack.bots.scripted.actions import d2xy, is_building
from fivestack.game import kernels
from fivestack.game.jit import kernel
from fivestack.game.layout import (
    ALIVE, ATTACK_PERIOD, DIRE, HP, KIND, K_COURIER, K_HERO, MAX_UNITS, N_HEROES, TEAM, X, Y,
)


@kernel
def hero_dps(uf, ui, g, u):
    return kernels.attack_damage(uf, ui, g, u) / max(uf[g, u, ATTACK_PERIOD], 0.2)


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
