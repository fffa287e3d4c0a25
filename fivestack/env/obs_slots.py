"""Which unit sits in which row of a team's ``units`` observation: the slot tables every other group reads.

``select_slots`` fills ``unit_of_slot[g, team, slot]`` (the unit behind each of the ``N_UNIT_SLOTS`` rows, -1
for an empty row) and its inverse ``slot_of_unit[g, team, unit]``. Slots 0-68 mirror units 0-68 (heroes,
buildings, couriers, neutrals); slots 69-188 hold the lane creeps the team sees, in unit-index order
(``fivestack.env.spaces``, "units"). The unit rows, the hero-relative features, the target masks and the env's
target decoding all read these tables, so ``encode_team`` selects the slots before it writes any of them.
"""

from __future__ import annotations

from fivestack.env.spaces import N_FIXED_SLOTS
from fivestack.game import kernels as K
from fivestack.game.jit import kernel
from fivestack.game.layout import ALIVE, HEROES_PER_TEAM, MAX_UNITS, N_UNIT_SLOTS, SLOT_CREEPS

N_CREEP_SLOTS = N_UNIT_SLOTS - N_FIXED_SLOTS


@kernel
def select_slots(S, g, team, unit_of_slot, slot_of_unit, scratch_units, scratch_dist):
    """Fixed slots for units 0-68; the visible lane creeps fill the rest in unit-index order (not nearest first), and
    when more are visible than there are slots, the nearest to a living allied hero are the ones kept (still in
    unit-index order, so that a creep's slot changes only when the set changes)."""
    uf, ui, vis = S.uf, S.ui, S.vis
    unit_of_slot[g, team, :] = -1
    slot_of_unit[g, team, :] = -1
    for u in range(N_FIXED_SLOTS):
        if ui[g, u, ALIVE] != 0 and vis[g, team, u] != 0:
            unit_of_slot[g, team, u] = u
            slot_of_unit[g, team, u] = u
    n = 0
    for u in range(SLOT_CREEPS, MAX_UNITS):
        if ui[g, u, ALIVE] != 0 and vis[g, team, u] != 0:
            n += 1
    if n <= N_CREEP_SLOTS:
        s = N_FIXED_SLOTS
        for u in range(SLOT_CREEPS, MAX_UNITS):
            if ui[g, u, ALIVE] != 0 and vis[g, team, u] != 0:
                unit_of_slot[g, team, s] = u
                slot_of_unit[g, team, u] = s
                s += 1
        return
    # more creeps than slots: keep the N_CREEP_SLOTS nearest to a living allied hero (insertion sort in the
    # caller's scratch arrays, as kernels may not allocate)
    cand, dist = scratch_units, scratch_dist
    k = 0
    for u in range(SLOT_CREEPS, MAX_UNITS):
        if ui[g, u, ALIVE] != 0 and vis[g, team, u] != 0:
            best = 1e30
            for j in range(HEROES_PER_TEAM):
                h = team * HEROES_PER_TEAM + j
                if ui[g, h, ALIVE] != 0:
                    d = K.dist2(uf, g, u, h)
                    if d < best:
                        best = d
            i = k
            while i > 0 and dist[i - 1] > best:
                dist[i] = dist[i - 1]
                cand[i] = cand[i - 1]
                i -= 1
            dist[i] = best
            cand[i] = u
            k += 1
    # the chosen creeps keep unit-index order, so a slot changes only when the set changes
    chosen = cand[:N_CREEP_SLOTS]
    for i in range(1, N_CREEP_SLOTS):
        v = chosen[i]
        j = i
        while j > 0 and chosen[j - 1] > v:
            chosen[j] = chosen[j - 1]
            j -= 1
        chosen[j] = v
    for i in range(N_CREEP_SLOTS):
        unit_of_slot[g, team, N_FIXED_SLOTS + i] = chosen[i]
        slot_of_unit[g, team, chosen[i]] = N_FIXED_SLOTS + i
