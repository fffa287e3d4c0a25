"""Last-hitting and laning: ``last_hit_target`` finds a creep that one attack will kill when it lands (its
health predicted from its recent losses, ``hp_loss_rate``, the walk and the projectile's flight), own creeps
below half health included to deny; ``lane_creep_plan`` picks a healthy enemy creep to hit and says when to
hold fire for a coming last hit; ``weakest_enemy_creep`` is the pusher's target.
"""

from __future__ import annotations

import math

from fivestack.bots.scripted.actions import is_lane_creep
from fivestack.bots.scripted.fights import weakest_visible_enemy
from fivestack.bots.scripted.tuning import LH_HISTORY_STEPS, LH_HOLD_HITS
from fivestack.game import kernels
from fivestack.game.jit import kernel
from fivestack.game.layout import (
    ALIVE, ATTACK_RANGE, ATTACK_READY, FRAMES_PER_SECOND, FRAMES_PER_STEP, G_FRAME, HP, HP_HISTORY_LEN, HP_MAX, KIND,
    MAX_UNITS, MOVE_SPEED, PROJ_SPEED, SLOT_CREEPS, TEAM,
)


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
