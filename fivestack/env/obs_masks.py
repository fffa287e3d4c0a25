"""The action masks: which primary actions each hero may take, and which unit slots each may target.

Per hero (arrays ``(games, 10, ...)`` of ``O``, an ``ObsBuffers``; ``fivestack.env.spaces``,
``HERO_MASK_GROUPS``):

    primary_mask  (N_PRIMARY,)                1 where the engine allows the primary action now
    offset_mask   (N_PRIMARY,)                1 where the action uses the offset x/y parameters
    target_mask   (N_PRIMARY, N_UNIT_SLOTS)   per unit-targeted action, the slots it may target

Target validity depends on the hero only through its team, so ``team_target_validity`` computes it once per
team (after the team's slots are selected) into ``O.target_validity``, and ``encode_action_masks`` copies it
for each hero, clearing a unit-targeted action that has no valid target at all.
"""

from __future__ import annotations

from fivestack.game import kernels as K
from fivestack.game.jit import kernel
from fivestack.game.layout import ACTIVE, HEROES_PER_TEAM, N_PRIMARY, N_TARGET_KINDS, N_UNIT_SLOTS
from fivestack.game.patch import F_ANCHORED_MOVES


@kernel
def team_target_validity(S, D, O, g, team):
    """valid[team, kind, slot] for the target kinds 1..N_TARGET_KINDS - 1 (the last, a move's anchor, only in a
    game with the ``anchored_moves`` feature); column N_UNIT_SLOTS counts the valid slots. Validity depends on the
    hero only through its team, so it is computed once per team."""
    valid, unit_of_slot = O.target_validity, O.unit_of_slot
    h = team * HEROES_PER_TEAM
    kinds = N_TARGET_KINDS if D.features[g] & F_ANCHORED_MOVES else N_TARGET_KINDS - 1
    for kind in range(1, kinds):
        n = 0
        for s in range(N_UNIT_SLOTS):
            u = unit_of_slot[g, team, s]
            ok = u >= 0 and K.valid_target(S, D, g, h, kind, u)
            valid[team, kind, s] = 1 if ok else 0
            n += 1 if ok else 0
        valid[team, kind, N_UNIT_SLOTS] = min(n, 1)


@kernel
def encode_action_masks(S, D, O, g, h):
    """``primary_mask``, ``offset_mask`` and ``target_mask`` of hero ``h`` (``team_target_validity`` of its
    team must have run). An absent hero (1v1 mode) keeps the engine's primary and offset masks and no
    targets."""
    team = K.team_of_hero(h)
    am = O.primary_mask[g, h]
    tm = O.target_mask[g, h]
    tm[:] = 0
    om = O.offset_mask[g, h]
    for p in range(N_PRIMARY):
        am[p] = 1 if K.primary_available(S, D, g, h, p) else 0
        om[p] = 1 if K.uses_offset(S, D, g, h, p) else 0
    if S.hi[g, h, ACTIVE] == 0:
        return
    # target masks: copy the team's per-kind slot validity (computed once per team in encode)
    valid = O.target_validity
    for p in range(N_PRIMARY):
        if am[p] == 0:
            continue
        kind = K.target_kind_for(S, D, g, h, p)
        if kind == 0:
            continue
        if valid[team, kind, N_UNIT_SLOTS] == 0:
            am[p] = 0  # a unit-targeted action with no valid target is not available
            continue
        for s in range(N_UNIT_SLOTS):
            tm[p, s] = valid[team, kind, s]
