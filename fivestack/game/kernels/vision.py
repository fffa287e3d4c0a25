"""Vision and the per-step bookkeeping: each team's view of every unit (``update_vision``), the hp
fractions at the start of a step (``snapshot``), and ``finish_step``: the change events the env's rewards read
(health, mana, buildings), the lane-assignment event, the health history ring and vision.
"""

from __future__ import annotations

from fivestack.game.jit import kernel
from fivestack.game.kernels.constants import LANE_ASSIGNMENT_DISTANCE, LANE_ASSIGNMENT_SECONDS
from fivestack.game.kernels.helpers import building_slot, health_shape, is_night
from fivestack.game.kernels.stats import net_worth
from fivestack.game.lanes import lane_distance
from fivestack.game.layout import (
    ACTIVE, ALIVE, ASSIGNED_LANE, EV_ANCIENT_HP, EV_BARRACKS_HP, EV_HEALTH, EV_LANE_OUTSIDE, EV_MANA, EV_T1_HP,
    INVISIBLE, FRAMES_PER_SECOND, FRAMES_PER_STEP, G_FRAME, HEROES_PER_TEAM, HP, HP_HISTORY_LEN, HP_MAX, KIND, K_BARRACKS,
    K_FOUNTAIN, K_TOWER, MANA, MANA_MAX, MAX_UNITS, NET_WORTH, NEUTRAL_TEAM, N_BUILDINGS_PER_TEAM, N_HEROES,
    SLOT_COURIERS, SUBTYPE, TEAM, VISION_DAY, VISION_NIGHT, X, Y,
)


@kernel
def update_vision(S, D, W, g):
    """vis[g, team, u] = 1 when u is inside the vision radius of any living unit of the team (an invisible
    unit is seen by its own team only).

    Each team's units are first gathered with their vision radius into ``W.vision_sources``, so that the test
    of each unseen unit runs over that short contiguous list rather than over every unit slot."""
    uf, ui, vis, sources = S.uf, S.ui, S.vis, W.vision_sources
    night = is_night(S.gi, D.rules, g)
    vis[g] = 0
    n_radiant = 0
    n_dire = 0
    for u in range(MAX_UNITS):
        if ui[g, u, ALIVE] == 0:
            continue
        team = ui[g, u, TEAM]
        if team == NEUTRAL_TEAM:
            continue
        vis[g, team, u] = 1
        k = n_radiant if team == 0 else n_dire
        sources[team, k, 0] = uf[g, u, X]
        sources[team, k, 1] = uf[g, u, Y]
        sources[team, k, 2] = uf[g, u, VISION_NIGHT] if night else uf[g, u, VISION_DAY]
        if team == 0:
            n_radiant += 1
        else:
            n_dire += 1
    for team in range(2):
        n_sources = n_radiant if team == 0 else n_dire
        for t in range(MAX_UNITS):
            if ui[g, t, ALIVE] == 0 or vis[g, team, t] != 0 or ui[g, t, INVISIBLE] > 0:
                continue
            tx, ty = uf[g, t, X], uf[g, t, Y]
            for k in range(n_sources):
                r = sources[team, k, 2]
                dx = sources[team, k, 0] - tx
                dy = sources[team, k, 1] - ty
                if dx * dx + dy * dy <= r * r:
                    vis[g, team, t] = 1
                    break


@kernel
def snapshot(S, g):
    """Health and mana fractions at the start of a step, for the change events."""
    uf, ui, prev = S.uf, S.ui, S.prev_fractions
    for u in range(SLOT_COURIERS):
        alive = ui[g, u, ALIVE] != 0
        prev[g, u, 0] = uf[g, u, HP] / uf[g, u, HP_MAX] if alive else 0.0
        prev[g, u, 1] = uf[g, u, MANA] / uf[g, u, MANA_MAX] if alive and uf[g, u, MANA_MAX] > 0 else 0.0


@kernel
def finish_step(S, D, W, g):
    """Change events, lane assignment, health history and vision at the end of a timestep."""
    uf, ui, hf, hi, gi, hp_hist, ev, prev = S.uf, S.ui, S.hf, S.hi, S.gi, S.hp_hist, S.events, S.prev_fractions
    lanes = D.lanes
    for h in range(N_HEROES):
        if hi[g, h, ACTIVE] == 0:
            continue
        alive = ui[g, h, ALIVE] != 0
        x = uf[g, h, HP] / uf[g, h, HP_MAX] if alive else 0.0
        m = uf[g, h, MANA] / uf[g, h, MANA_MAX] if alive else 0.0
        ev[g, h, EV_HEALTH] += health_shape(x) - health_shape(prev[g, h, 0])
        ev[g, h, EV_MANA] += m - prev[g, h, 1]
        hf[g, h, NET_WORTH] = net_worth(S, D, g, h)
        seconds = gi[g, G_FRAME] / FRAMES_PER_SECOND
        if alive and seconds < LANE_ASSIGNMENT_SECONDS:
            if lane_distance(lanes, hi[g, h, ASSIGNED_LANE], uf[g, h, X], uf[g, h, Y]) > LANE_ASSIGNMENT_DISTANCE:
                ev[g, h, EV_LANE_OUTSIDE] += FRAMES_PER_STEP / FRAMES_PER_SECOND
    for team in range(2):
        for local in range(N_BUILDINGS_PER_TEAM):
            u = building_slot(team, local)
            kind = ui[g, u, KIND]
            if kind == K_FOUNTAIN:
                continue
            frac = uf[g, u, HP] / uf[g, u, HP_MAX] if ui[g, u, ALIVE] != 0 else 0.0
            delta = frac - prev[g, u, 0]
            if delta == 0.0:
                continue
            if kind == K_TOWER:
                col = EV_T1_HP + ui[g, u, SUBTYPE] - 1
            elif kind == K_BARRACKS:
                col = EV_BARRACKS_HP
            else:
                col = EV_ANCIENT_HP
            for k in range(HEROES_PER_TEAM):
                ev[g, team * HEROES_PER_TEAM + k, col] += delta
    # health history ring buffer (observed as recent health changes)
    pos = (gi[g, G_FRAME] // FRAMES_PER_STEP) % HP_HISTORY_LEN
    for u in range(MAX_UNITS):
        hp_hist[g, u, pos] = uf[g, u, HP] / uf[g, u, HP_MAX] if ui[g, u, ALIVE] != 0 and uf[g, u, HP_MAX] > 0 else 0.0
    update_vision(S, D, W, g)
