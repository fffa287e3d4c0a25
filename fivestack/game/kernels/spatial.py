"""The spatial hash (one grid of ``GRID_SIDE`` x ``GRID_SIDE`` cells per game, rebuilt each frame) and
the neighbour query built on it (``nearest_enemy``; ``cell_range``, the cells a circle touches, for other queries),
plus whether a unit can be attacked at all.
"""

from __future__ import annotations

from fivestack.game.jit import kernel
from fivestack.game.kernels.constants import GRID_CELL, GRID_SIDE
from fivestack.game.layout import ALIVE, INVISIBLE, INVULN, KIND, K_HERO, MAX_UNITS, NEUTRAL_TEAM, PROTECTED, TEAM, X, Y


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
def cell_range(x, y, radius):
    """The spatial hash's cells (cx0, cx1, cy0, cy1, inclusive) that a circle of ``radius`` around (x, y) touches."""
    cx0 = max(int((x - radius) / GRID_CELL), 0)
    cx1 = min(int((x + radius) / GRID_CELL), GRID_SIDE - 1)
    cy0 = max(int((y - radius) / GRID_CELL), 0)
    cy1 = min(int((y + radius) / GRID_CELL), GRID_SIDE - 1)
    return cx0, cx1, cy0, cy1


@kernel
def can_be_attacked(ui, g, t):
    return ui[g, t, ALIVE] != 0 and ui[g, t, INVULN] == 0 and ui[g, t, PROTECTED] == 0


@kernel
def nearest_enemy(S, g, u, radius, prefer_non_hero, need_visible):
    """The nearest attackable enemy within ``radius`` that is not invisible; towers may prefer non-heroes."""
    uf, ui, vis, head, nxt = S.uf, S.ui, S.vis, S.grid_head, S.grid_next
    team = ui[g, u, TEAM]
    x, y = uf[g, u, X], uf[g, u, Y]
    r2 = radius * radius
    best = -1
    best_d = 1e30
    best_hero = -1
    best_hero_d = 1e30
    cx0, cx1, cy0, cy1 = cell_range(x, y, radius)
    for cx in range(cx0, cx1 + 1):
        for cy in range(cy0, cy1 + 1):
            t = head[g, cx * GRID_SIDE + cy]
            while t >= 0:
                tt = ui[g, t, TEAM]
                if tt != team and tt != NEUTRAL_TEAM and can_be_attacked(ui, g, t) and ui[g, t, INVISIBLE] == 0:
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
