"""What appears over time: creep waves (``spawn_wave``), runes, and picking up runes and the aegis.
"""

from __future__ import annotations

from fivestack.game.jit import kernel
from fivestack.game.kernels.constants import PICKUP_RADIUS
from fivestack.game.kernels.creation import set_unit
from fivestack.game.kernels.helpers import rand01, team_of_hero
from fivestack.game.kernels.progression import give_gold
from fivestack.game.layout import (
    AEGIS, ALIVE, DOUBLE_DAMAGE, EV_AEGIS, FRAMES_PER_SECOND, G_AEGIS_ON_GROUND, G_FRAME, G_MODE, G_RUNE0, G_SUPER0,
    G_WAVE, HASTE, HEROES_PER_TEAM, HP_MAX, K_CREEP_MELEE, K_CREEP_RANGED, K_CREEP_SIEGE, LANE, MANA_BUFF, MANA_MAX,
    MANA_RESTORE, MAX_UNITS, MODE_1V1_MID, N_HEROES, RADIANT, REGEN, REGEN_BUFF, SLOT_CREEPS, WAYPOINT, X, Y,
)
from fivestack.game.patch import (
    CR_MELEE, CR_RANGED, CR_SIEGE, CR_SUPER_MELEE, CR_SUPER_RANGED, R_AEGIS, R_BOUNTY_GOLD, R_MELEE, R_RANGED,
    R_SIEGE_EVERY, R_UPGRADE, R_UPGRADE_INTERVAL,
)


@kernel
def free_creep_slot(ui, g):
    for u in range(SLOT_CREEPS, MAX_UNITS):
        if ui[g, u, ALIVE] == 0:
            return u
    return -1


@kernel
def spawn_wave(S, D, g):
    ui, gi = S.ui, S.gi
    lanes, rules = D.lanes, D.rules
    wave = gi[g, G_WAVE]
    gi[g, G_WAVE] = wave + 1
    minutes_scale = 1.0 + rules[R_UPGRADE] * int(gi[g, G_FRAME] / (rules[R_UPGRADE_INTERVAL] * FRAMES_PER_SECOND))
    n_melee = int(rules[R_MELEE])
    n_ranged = int(rules[R_RANGED])
    siege = (wave % int(rules[R_SIEGE_EVERY])) == int(rules[R_SIEGE_EVERY]) - 1
    n_way = lanes.shape[1]
    for team in range(2):
        for lane in range(3):
            if gi[g, G_MODE] == MODE_1V1_MID and lane != 1:
                continue
            start = 0 if team == RADIANT else n_way - 1
            nxt = 1 if team == RADIANT else n_way - 2
            sx, sy = lanes[lane, start, 0], lanes[lane, start, 1]
            superbits = gi[g, G_SUPER0 + team]
            total = n_melee + n_ranged + (1 if siege else 0)
            for k in range(total):
                if k < n_melee:
                    kind, row = K_CREEP_MELEE, CR_MELEE
                    if superbits & (1 << (lane * 2)):
                        row = CR_SUPER_MELEE
                elif k < n_melee + n_ranged:
                    kind, row = K_CREEP_RANGED, CR_RANGED
                    if superbits & (1 << (lane * 2 + 1)):
                        row = CR_SUPER_RANGED
                else:
                    kind, row = K_CREEP_SIEGE, CR_SIEGE
                u = free_creep_slot(ui, g)
                if u < 0:
                    return
                # the wave's formation, point-mirrored for Dire like the map (else Dire's wave leads by ~40)
                side = 1.0 if team == RADIANT else -1.0
                set_unit(S, D, g, u, team, kind, row, sx + side * ((k % 3) * 60.0 - 60.0),
                         sy + side * ((k // 3) * 60.0 - 30.0), minutes_scale)
                ui[g, u, LANE] = lane
                ui[g, u, WAYPOINT] = nxt


@kernel
def spawn_runes(S, g):
    gi = S.gi
    bounty_spot = 0 if rand01(gi, g) < 0.5 else 1
    gi[g, G_RUNE0 + bounty_spot] = 1
    gi[g, G_RUNE0 + 1 - bounty_spot] = 2 + int(rand01(gi, g) * 3.0)


@kernel
def pick_up(S, D, g):
    """Heroes standing on a rune or the aegis take it."""
    uf, ui, hf, gi, ev = S.uf, S.ui, S.hf, S.gi, S.events
    spots, big = D.rune_spots, D.big_neutral
    for h in range(N_HEROES):
        if ui[g, h, ALIVE] == 0:
            continue
        for k in range(2):
            kind = gi[g, G_RUNE0 + k]
            if kind == 0:
                continue
            if (uf[g, h, X] - spots[k, 0]) ** 2 + (uf[g, h, Y] - spots[k, 1]) ** 2 <= PICKUP_RADIUS ** 2:
                gi[g, G_RUNE0 + k] = 0
                if kind == 1:
                    give_gold(S, g, h, D.rules[R_BOUNTY_GOLD] + 5.0 * gi[g, G_FRAME] / (60.0 * FRAMES_PER_SECOND))
                elif kind == 2:
                    ui[g, h, DOUBLE_DAMAGE] = 45 * FRAMES_PER_SECOND
                elif kind == 3:
                    ui[g, h, HASTE] = 25 * FRAMES_PER_SECOND
                else:
                    ui[g, h, REGEN] = 10 * FRAMES_PER_SECOND
                    uf[g, h, REGEN_BUFF] = uf[g, h, HP_MAX] * 0.06
                    ui[g, h, MANA_RESTORE] = 10 * FRAMES_PER_SECOND
                    uf[g, h, MANA_BUFF] = uf[g, h, MANA_MAX] * 0.06
        if gi[g, G_AEGIS_ON_GROUND] != 0 and (uf[g, h, X] - big[0]) ** 2 + (uf[g, h, Y] - big[1]) ** 2 <= PICKUP_RADIUS ** 2:
            gi[g, G_AEGIS_ON_GROUND] = 0
            hf[g, h, AEGIS] = D.rules[R_AEGIS]
            team = team_of_hero(h)
            for k in range(HEROES_PER_TEAM):
                ev[g, team * HEROES_PER_TEAM + k, EV_AEGIS] += 1.0
