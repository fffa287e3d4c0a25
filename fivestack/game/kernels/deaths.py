"""Deaths and what follows them: kill gold, assists, shared experience, denies, respawn timers, the aegis
spending itself, couriers, buildings falling (tower protection, super and mega creeps) and the end of a game
(``end_game``). ``resolve_deaths`` runs once a frame.
"""

from __future__ import annotations

from fivestack.game.jit import kernel
from fivestack.game.kernels.creation import update_protection
from fivestack.game.kernels.helpers import dist2, team_of_hero
from fivestack.game.kernels.progression import give_gold, share_xp
from fivestack.game.layout import (
    ACTIVE, AEGIS, ALIVE, ASSISTS, BOUNTY_GOLD, BOUNTY_XP, DEATHS, DEATHS_TO_CREEPS, DEATHS_TO_HEROES, DEATHS_TO_TOWERS,
    DENIES, EV_ANCIENT_LOST, EV_BARRACKS_LOST,
    EV_COURIER_DEATH, EV_DENY, EV_HERO_DEATH, EV_KILLED_HERO, EV_LAST_HIT, EV_MEGAS, EV_T1_LOST, EV_WIN,
    FRAMES_PER_SECOND, G_AEGIS_ON_GROUND, G_BARRACKS_LOST0, G_BIG_RESPAWN, G_COURIER_RESPAWN0, G_DONE, G_FRAME,
    G_KILLS0, G_MEGAS0, G_MODE, G_SUPER0, G_TOWERS_LOST0, G_WINNER, HEROES_PER_TEAM, HP, HP_MAX, KILLER,
    INVISIBLE, KILLER_HERO, KILLS, KIND, K_ANCIENT, K_BARRACKS, K_BIG_NEUTRAL, K_COURIER, K_CREEP_MELEE, K_CREEP_RANGED,
    K_CREEP_SIEGE, K_FOUNTAIN, K_HERO, K_TOWER, LANE, LAST_HERO, LAST_HERO_FRAME, LAST_HITS, LEVEL, LIFETIME, MANA,
    MANA_MAX, MAX_UNITS,
    MODE_1V1_MID, NEUTRAL_TEAM, ORDER, O_NONE, RESPAWN, SUBTYPE, TARGET, TEAM, X, Y,
)
from fivestack.game.patch import (
    F_RICH_CREEPS, R_ASSIST_GOLD, R_BIG_RESPAWN, R_COURIER_RESPAWN, R_KILL_GOLD, R_KILL_GOLD_LVL, R_KILL_XP,
    R_KILL_XP_LVL, R_RESPAWN_BASE, R_RESPAWN_LVL, R_RICH_CREEPS_BOUNTY, R_XP_RADIUS,
)


@kernel
def end_game(S, g, winner):
    gi, ev = S.gi, S.events
    if gi[g, G_DONE] != 0:
        return
    gi[g, G_DONE] = 1
    gi[g, G_WINNER] = winner
    for k in range(HEROES_PER_TEAM):
        ev[g, winner * HEROES_PER_TEAM + k, EV_WIN] += 1.0


@kernel
def kill_hero(S, D, g, v):
    uf, ui, hf, hi, gi, ev, assist_frame = S.uf, S.ui, S.hf, S.hi, S.gi, S.events, S.assist_frames
    rules = D.rules
    if hf[g, v, AEGIS] > 0.0:  # the aegis spends itself instead of a life
        hf[g, v, AEGIS] = 0.0
        uf[g, v, HP] = uf[g, v, HP_MAX]
        uf[g, v, MANA] = uf[g, v, MANA_MAX]
        ui[g, v, KILLER] = -1
        ui[g, v, KILLER_HERO] = -1
        return
    ui[g, v, ALIVE] = 0
    uf[g, v, HP] = 0.0
    ui[g, v, ORDER] = O_NONE
    ui[g, v, TARGET] = -1
    hi[g, v, DEATHS] += 1
    ev[g, v, EV_HERO_DEATH] += 1.0
    blow = ui[g, v, KILLER]
    if blow >= 0:
        blow_kind = ui[g, blow, KIND]
        if blow_kind == K_HERO or ui[g, blow, LIFETIME] > 0:
            hi[g, v, DEATHS_TO_HEROES] += 1
        elif blow_kind == K_CREEP_MELEE or blow_kind == K_CREEP_RANGED or blow_kind == K_CREEP_SIEGE:
            hi[g, v, DEATHS_TO_CREEPS] += 1
        elif blow_kind == K_TOWER or blow_kind == K_FOUNTAIN:
            hi[g, v, DEATHS_TO_TOWERS] += 1
    level = hi[g, v, LEVEL]
    hf[g, v, RESPAWN] = rules[R_RESPAWN_BASE] + rules[R_RESPAWN_LVL] * level
    vteam = team_of_hero(v)
    eteam = 1 - vteam
    killer = ui[g, v, KILLER_HERO]
    if killer < 0 or team_of_hero(killer) == vteam:
        lh = ui[g, v, LAST_HERO]
        if lh >= 0 and team_of_hero(lh) != vteam and gi[g, G_FRAME] - ui[g, v, LAST_HERO_FRAME] < 15 * FRAMES_PER_SECOND:
            killer = lh
        else:
            killer = -1
    ui[g, v, KILLER_HERO] = killer  # the credited hero, for replays and stats
    gi[g, G_KILLS0 + eteam] += 1
    if killer >= 0:
        hi[g, killer, KILLS] += 1
        ev[g, killer, EV_KILLED_HERO] += 1.0
        give_gold(S, g, killer, rules[R_KILL_GOLD] + rules[R_KILL_GOLD_LVL] * level)
    r2 = rules[R_XP_RADIUS] ** 2
    for k in range(HEROES_PER_TEAM):
        a = eteam * HEROES_PER_TEAM + k
        if a == killer or hi[g, a, ACTIVE] == 0:
            continue
        recent = gi[g, G_FRAME] - assist_frame[g, v, a] < 10 * FRAMES_PER_SECOND
        near = ui[g, a, ALIVE] != 0 and dist2(uf, g, a, v) <= r2
        if recent or near:
            hi[g, a, ASSISTS] += 1
            give_gold(S, g, a, rules[R_ASSIST_GOLD])
    share_xp(S, D, g, eteam, uf[g, v, X], uf[g, v, Y], rules[R_KILL_XP] + rules[R_KILL_XP_LVL] * level)
    if gi[g, G_MODE] == MODE_1V1_MID and D.duel_kills[0] > 0 and gi[g, G_KILLS0 + eteam] >= D.duel_kills[0]:
        end_game(S, g, eteam)


@kernel
def kill_building(S, D, g, u):
    uf, ui, gi, ev = S.uf, S.ui, S.gi, S.events
    team = ui[g, u, TEAM]
    kind = ui[g, u, KIND]
    eteam = 1 - team
    for k in range(HEROES_PER_TEAM):
        give_gold(S, g, eteam * HEROES_PER_TEAM + k, uf[g, u, BOUNTY_GOLD])
    if kind == K_TOWER:
        tier = ui[g, u, SUBTYPE]
        for k in range(HEROES_PER_TEAM):
            ev[g, team * HEROES_PER_TEAM + k, EV_T1_LOST + tier - 1] += 1.0
        gi[g, G_TOWERS_LOST0 + team] += 1
        if gi[g, G_MODE] == MODE_1V1_MID:
            end_game(S, g, eteam)
    elif kind == K_BARRACKS:
        for k in range(HEROES_PER_TEAM):
            ev[g, team * HEROES_PER_TEAM + k, EV_BARRACKS_LOST] += 1.0
        gi[g, G_BARRACKS_LOST0 + team] += 1
        # the enemy's creeps of this lane and type become super creeps
        gi[g, G_SUPER0 + eteam] |= 1 << (ui[g, u, LANE] * 2 + ui[g, u, SUBTYPE])
        if gi[g, G_BARRACKS_LOST0 + team] == 6:
            gi[g, G_MEGAS0 + eteam] = 1
            for k in range(HEROES_PER_TEAM):
                ev[g, team * HEROES_PER_TEAM + k, EV_MEGAS] += 1.0
    elif kind == K_ANCIENT:
        for k in range(HEROES_PER_TEAM):
            ev[g, team * HEROES_PER_TEAM + k, EV_ANCIENT_LOST] += 1.0
        end_game(S, g, eteam)
    update_protection(S, D, g)


@kernel
def kill_unit(S, D, g, u):
    uf, ui, hf, hi, gi, ev = S.uf, S.ui, S.hf, S.hi, S.gi, S.events
    kind = ui[g, u, KIND]
    ui[g, u, INVISIBLE] = 0
    if kind == K_HERO:
        kill_hero(S, D, g, u)
        return
    ui[g, u, ALIVE] = 0
    uf[g, u, HP] = 0.0
    team = ui[g, u, TEAM]
    killer = ui[g, u, KILLER_HERO]
    if kind == K_TOWER or kind == K_BARRACKS or kind == K_ANCIENT:
        kill_building(S, D, g, u)
        return
    if kind == K_COURIER:
        for k in range(HEROES_PER_TEAM):
            ev[g, team * HEROES_PER_TEAM + k, EV_COURIER_DEATH] += 1.0
        gi[g, G_COURIER_RESPAWN0 + team] = gi[g, G_FRAME] + int(D.rules[R_COURIER_RESPAWN] * FRAMES_PER_SECOND)
        if killer >= 0 and team_of_hero(killer) != team:
            give_gold(S, g, killer, uf[g, u, BOUNTY_GOLD])
        return
    if kind == K_BIG_NEUTRAL:
        gi[g, G_AEGIS_ON_GROUND] = 1
        gi[g, G_BIG_RESPAWN] = gi[g, G_FRAME] + int(D.rules[R_BIG_RESPAWN] * FRAMES_PER_SECOND)
    x, y = uf[g, u, X], uf[g, u, Y]
    if killer >= 0 and team_of_hero(killer) == team:
        hi[g, killer, DENIES] += 1
        ev[g, killer, EV_DENY] += 1.0
        share_xp(S, D, g, 1 - team, x, y, uf[g, u, BOUNTY_XP] * 0.5)
        return
    if killer >= 0:
        hi[g, killer, LAST_HITS] += 1
        ev[g, killer, EV_LAST_HIT] += 1.0
        bounty = uf[g, u, BOUNTY_GOLD]
        lane_creep = kind == K_CREEP_MELEE or kind == K_CREEP_RANGED or kind == K_CREEP_SIEGE
        if lane_creep and D.features[g] & F_RICH_CREEPS:  # patch 0.2's feature "rich_creeps"
            bounty = bounty * D.rules[R_RICH_CREEPS_BOUNTY]
        give_gold(S, g, killer, bounty)
    xp_team = 1 - team if team != NEUTRAL_TEAM else (team_of_hero(killer) if killer >= 0 else -1)
    if team == NEUTRAL_TEAM and killer < 0:
        k_unit = ui[g, u, KILLER]
        if k_unit >= 0 and ui[g, k_unit, TEAM] != NEUTRAL_TEAM:
            xp_team = ui[g, k_unit, TEAM]
    if xp_team >= 0:
        share_xp(S, D, g, xp_team, x, y, uf[g, u, BOUNTY_XP])


@kernel
def resolve_deaths(S, D, g):
    uf, ui = S.uf, S.ui
    for u in range(MAX_UNITS):
        if ui[g, u, ALIVE] != 0 and uf[g, u, HP] <= 0.0:
            kill_unit(S, D, g, u)
            if S.gi[g, G_DONE] != 0:
                return
