"""The per-hero groups: what only one hero observes, relative to where it stands.

Each kernel rewrites one group of hero ``h`` in game ``g`` (arrays ``(games, 10, ...)`` of ``O``, an
``ObsBuffers``; ``fivestack.env.spaces``, ``HERO_GROUPS``), zeroing it first; an absent hero (1v1 mode) keeps
zeros. The last two read the hero's team slot table (``obs_slots.select_slots``), so they run after the team groups.

    encode_own_hero_id  ``own_hero_id``  the type of hero ``h`` (its row of the patch's heroes), for every
                                         hero, absent ones too: who the observation's reader plays
    encode_unit_rel     ``unit_rel``     REL_*: per unit slot, offset and distance from the hero, whether
                                         the unit attacks it
    encode_nearby_map   ``nearby_map``   NB_CHANNELS: NEARBY x NEARBY cells of NEARBY_CELL units centred on
                                         the hero: walkable, river, allies, enemies, creeps, buildings

``previous_action`` is written by the env (``fivestack.env.batched``), not here.
"""

from __future__ import annotations

import math

from fivestack.env.spaces import NEARBY, NEARBY_CELL, REL_ATTACKS_ME, REL_DISTANCE, REL_DX, REL_DY
from fivestack.game import kernels as K
from fivestack.game.jit import kernel
from fivestack.game.layout import (
    ACTIVE, HERO_TYPE, K_ANCIENT, K_BARRACKS, K_BIG_NEUTRAL, K_CREEP_MELEE, K_CREEP_RANGED, K_CREEP_SIEGE, K_FOUNTAIN,
    K_NEUTRAL, K_TOWER, KIND, MAP_SIZE, N_UNIT_SLOTS, NEUTRAL_TEAM, TARGET, TEAM, X, Y,
)


@kernel
def encode_own_hero_id(S, D, O, g, h):
    """``own_hero_id`` of hero ``h``: its hero type, the integer the policy embeds as the identity it plays."""
    O.own_hero_id[g, h] = S.hi[g, h, HERO_TYPE]


@kernel
def encode_unit_rel(S, D, O, g, h):
    """``unit_rel`` (``REL_*``) of hero ``h``: for every filled slot of its team, the unit's offset from the
    hero (/ 2000), its distance (/ 5000) and whether it is attacking the hero."""
    uf, ui = S.uf, S.ui
    unit_of_slot = O.unit_of_slot
    team = K.team_of_hero(h)
    rel = O.unit_rel[g, h]
    rel[:] = 0.0
    if S.hi[g, h, ACTIVE] == 0:
        return
    hx, hy = uf[g, h, X], uf[g, h, Y]
    for s in range(N_UNIT_SLOTS):
        u = unit_of_slot[g, team, s]
        if u < 0:
            continue
        dx = uf[g, u, X] - hx
        dy = uf[g, u, Y] - hy
        rel[s, REL_DX] = dx / 2000.0
        rel[s, REL_DY] = dy / 2000.0
        rel[s, REL_DISTANCE] = math.sqrt(dx * dx + dy * dy) / 5000.0
        rel[s, REL_ATTACKS_ME] = 1.0 if ui[g, u, TARGET] == h else 0.0


@kernel
def encode_nearby_map(S, D, O, g, h):
    """``nearby_map`` (``NB_CHANNELS``) of hero ``h``: terrain (walkable, river) of each cell around the hero,
    then weighted counts of the units in its team's slots (allies, enemies, creeps and neutrals) and a flag
    for buildings."""
    uf, ui = S.uf, S.ui
    unit_of_slot = O.unit_of_slot
    walk = D.walk
    team = K.team_of_hero(h)
    nb = O.nearby_map[g, h]
    nb[:] = 0.0
    if S.hi[g, h, ACTIVE] == 0:
        return
    hx, hy = uf[g, h, X], uf[g, h, Y]
    half = NEARBY * NEARBY_CELL / 2.0
    for a in range(NEARBY):
        for b in range(NEARBY):
            cx = hx - half + (a + 0.5) * NEARBY_CELL
            cy = hy - half + (b + 0.5) * NEARBY_CELL
            nb[a, b, 0] = 1.0 if K.walkable(walk, cx, cy) else 0.0
            nb[a, b, 1] = 1.0 if abs(cx + cy - MAP_SIZE) < 700.0 else 0.0
    for s in range(N_UNIT_SLOTS):
        u = unit_of_slot[g, team, s]
        if u < 0 or u == h:
            continue
        a = int((uf[g, u, X] - hx + half) / NEARBY_CELL)
        b = int((uf[g, u, Y] - hy + half) / NEARBY_CELL)
        if a < 0 or b < 0 or a >= NEARBY or b >= NEARBY:
            continue
        kind = ui[g, u, KIND]
        t = ui[g, u, TEAM]
        if t == team:
            nb[a, b, 2] += 0.25
        elif t != NEUTRAL_TEAM:
            nb[a, b, 3] += 0.25
        if kind == K_CREEP_MELEE or kind == K_CREEP_RANGED or kind == K_CREEP_SIEGE or kind == K_NEUTRAL \
                or kind == K_BIG_NEUTRAL:
            nb[a, b, 4] += 0.25
        elif kind == K_TOWER or kind == K_BARRACKS or kind == K_ANCIENT or kind == K_FOUNTAIN:
            nb[a, b, 5] = 1.0
