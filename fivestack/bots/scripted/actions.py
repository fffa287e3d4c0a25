"""Action helpers the other modules build on: writing one hero's action row (``set_action``), a move toward
a point as an offset cell (``issue_move``), an order on a unit only when it is available and valid
(``try_target``, so the invalid-action counter stays at zero), plus the squared distance ``d2xy`` and the
unit-kind predicates ``is_lane_creep`` and ``is_building``.
"""

from __future__ import annotations

from fivestack.game import kernels
from fivestack.game.jit import kernel
from fivestack.game.layout import (
    ACT_DELAY, ACT_OFFSET_X, ACT_OFFSET_Y, ACT_PRIMARY, ACT_TARGET, A_MOVE, K_ANCIENT, K_BARRACKS, K_CREEP_MELEE,
    K_CREEP_RANGED, K_CREEP_SIEGE, K_FOUNTAIN, K_TOWER, TK_ANCHOR, X, Y,
)


@kernel
def d2xy(ax, ay, bx, by):
    return (ax - bx) * (ax - bx) + (ay - by) * (ay - by)


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
    """A move toward (gx, gy): the game's cells for that point (``goal_cells``: beyond the move's reach, the
    farthest in its direction), re-issued every step. Where moves name an anchor (``anchored_moves``) the hero
    names itself, so that its rows are valid labels for a policy that learns from them."""
    uf = S.uf
    dx = gx - uf[g, h, X]
    dy = gy - uf[g, h, Y]
    m = max(abs(dx), abs(dy))
    ox, oy = kernels.goal_cells(dx, dy, D.move_offsets)
    if ox == 4 and oy == 4 and m > 40.0:  # closer than half a cell: step a whole cell toward it
        if abs(dx) >= abs(dy):
            ox = 5 if dx > 0 else 3
        else:
            oy = 5 if dy > 0 else 3
    anchor = h if kernels.target_kind_for(S, D, g, h, A_MOVE) == TK_ANCHOR else -1
    set_action(out, g, h, A_MOVE, anchor, ox, oy)


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
