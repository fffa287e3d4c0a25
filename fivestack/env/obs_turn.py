"""The turned view (game feature ``team_frame``, patch 0.9): Dire observes the game as Radiant would see it.

The map is point-symmetric about its centre (``game.geometry``): every Dire position is ``MAP_SIZE - p`` of a
Radiant one, the top lane is the bottom lane turned, and the two rune spots are each other turned. Without the
feature both teams observe the map in its own frame, so one policy playing both sides sees two mirror images
of one situation and has to learn each move twice ("toward the enemy" is up-right for Radiant, down-left for
Dire). With it, ``turn_view`` rewrites Dire's groups after they are encoded, as if the map had been turned
half a turn about its centre; Radiant's view is never touched:

    group           what turns
    units           U_X, U_Y negated, and U_FACING_COS, U_FACING_SIN but a building's (which faces 0 on both
                    sides); U_LANE: top <-> bottom
    allied_heroes   AX_X, AX_Y negated; the AX_LANE one-hot: top <-> bottom
    pickups         the two rune spots' rows swapped, PK_X, PK_Y negated
    global          GL_RUNE0 <-> GL_RUNE1 (the rune on each spot)
    minimap         both cell axes reversed (the units' channels; the static walkable share is the map's own)
    unit_rel        REL_DX, REL_DY negated (each Dire hero's)
    nearby_map      both cell axes reversed (each Dire hero's)

Everything else is the same on both sides already (kinds, health, "ours" and "theirs", distances). Two inputs are
turned where they are written: ``previous_action``'s offsets (``env.batched``: offset cell k reads as 8 - k, a
no-op's left as it is) and the goal input's offset (``system.rollout``'s ``RolloutWorker._view``, for the drills
and asymmetric self-play). The actions stay in the map's frame: the policy turns its offset heads back
(``Policy.head_logits``: its cell k is the map's 8 - k for a turned row), so the game, the bots, the arena's clicks
and every recorded action are unchanged. ``tests/env/test_team_frame.py`` checks that at a symmetric moment Dire's
turned view is Radiant's, group by group.
"""

from __future__ import annotations

from fivestack.env.spaces import (
    AX_LANE, AX_X, AX_Y, GL_RUNE0, GL_RUNE1, MM_CHANNELS, N_NEARBY_CHANNELS, PK_X, PK_Y, REL_DX, REL_DY, U_FACING_COS,
    U_FACING_SIN, U_LANE, U_SEEN, U_X, U_Y,
)
from fivestack.game.jit import kernel
from fivestack.game.layout import (
    ACTIVE, DIRE, HEROES_PER_TEAM, K_ANCIENT, K_BARRACKS, K_FOUNTAIN, K_TOWER, KIND, LANE, N_LANES, N_UNIT_SLOTS,
)
from fivestack.game.patch import F_TEAM_FRAME

MM_STATIC = MM_CHANNELS.index("walkable")  # the minimap's channels before it change with the game; it does not
assert MM_STATIC == len(MM_CHANNELS) - 1


@kernel
def turned(D, g, team):
    """Whether ``team``'s view of game ``g`` is turned: Dire's, where the game plays with ``team_frame``."""
    return team == DIRE and (D.features[g] & F_TEAM_FRAME) != 0


@kernel
def reverse_cells(grid, channels):
    """Reverse both cell axes of the first ``channels`` channels of a (n, n, C) grid in place: the cell (a, b) goes
    to (n-1-a, n-1-b)."""
    n = grid.shape[0]
    for a in range(n):
        for b in range(n):
            a2, b2 = n - 1 - a, n - 1 - b
            if a * n + b >= a2 * n + b2:
                continue  # each pair is swapped once, from its first cell; the centre cell (odd n) stays
            for c in range(channels):
                grid[a, b, c], grid[a2, b2, c] = grid[a2, b2, c], grid[a, b, c]


@kernel
def turn_view(S, D, O, g):
    """Turn Dire's groups of game ``g`` (after every group is encoded), where the game has ``team_frame``: one test
    of a bit per game and step in a game without it."""
    if not turned(D, g, DIRE):
        return
    units = O.units[g, DIRE]
    for s in range(N_UNIT_SLOTS):
        row = units[s]
        if row[U_SEEN] == 0.0:
            continue
        u = O.unit_of_slot[g, DIRE, s]
        row[U_X], row[U_Y] = -row[U_X], -row[U_Y]
        kind = S.ui[g, u, KIND]
        if kind != K_TOWER and kind != K_BARRACKS and kind != K_ANCIENT and kind != K_FOUNTAIN:
            row[U_FACING_COS], row[U_FACING_SIN] = -row[U_FACING_COS], -row[U_FACING_SIN]
        lane = S.ui[g, u, LANE]
        if lane >= 0:
            row[U_LANE] = (N_LANES - 1 - lane + 1) / 3.0  # as encode_unit writes it, of the turned lane
    allied = O.allied_heroes[g, DIRE]
    for k in range(HEROES_PER_TEAM):
        f = allied[k]
        f[AX_X], f[AX_Y] = -f[AX_X], -f[AX_Y]
        f[AX_LANE], f[AX_LANE + N_LANES - 1] = f[AX_LANE + N_LANES - 1], f[AX_LANE]
    pickups = O.pickups[g, DIRE]
    for c in range(pickups.shape[1]):
        pickups[0, c], pickups[1, c] = pickups[1, c], pickups[0, c]
    for k in range(pickups.shape[0]):
        pickups[k, PK_X], pickups[k, PK_Y] = -pickups[k, PK_X], -pickups[k, PK_Y]
    glob = O.glob[g, DIRE]
    glob[GL_RUNE0], glob[GL_RUNE1] = glob[GL_RUNE1], glob[GL_RUNE0]
    reverse_cells(O.minimap[g, DIRE], MM_STATIC)  # the static walkable share is the map's own: the same turned
    for h in range(DIRE * HEROES_PER_TEAM, (DIRE + 1) * HEROES_PER_TEAM):  # each Dire hero's own groups
        if S.hi[g, h, ACTIVE] == 0:
            continue
        rel = O.unit_rel[g, h]
        for s in range(N_UNIT_SLOTS):
            rel[s, REL_DX], rel[s, REL_DY] = -rel[s, REL_DX], -rel[s, REL_DY]
        reverse_cells(O.nearby_map[g, h], N_NEARBY_CHANNELS)
