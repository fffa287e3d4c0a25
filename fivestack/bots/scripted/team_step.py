"""The per-step team kernel: ``scripted_team_act`` fills the actions of one team's five heroes in every game.

Per game: a new game resets the memory (``memory.new_game_memory``); the team's plan is read off the map
(``context``): defend a threatened base building, push one lane (``choose_push_lane``) from this game's push
minute or when ahead, else lane; the glyph saves a base tower; the push advances no further than just ahead
of the third hero; the heroes nearest the threatened building defend it, a dead one buys back for the
ancient; every other hero gets its role and goal and decides alone (``hero.decide_hero``).
"""

from __future__ import annotations

from fivestack.bots.scripted.actions import set_action, try_target
from fivestack.bots.scripted.context import lane_fronts, lane_objective, threatened_building
from fivestack.bots.scripted.hero import decide_hero
from fivestack.bots.scripted.memory import (
    MG_ENGAGE, MG_FRAME, MG_LANE_BIAS, MG_PUSH_FRAME, MG_PUSH_LANE, MG_PUSH_SINCE, M_RETREAT, new_game_memory, rng_next,
)
from fivestack.bots.scripted.tuning import AHEAD_KILLS, GROUP_LEAD, ROLE_DEFEND, ROLE_LANE, ROLE_PUSH
from fivestack.game import kernels
from fivestack.game.jit import kernel
from fivestack.game.lanes import progress
from fivestack.game.layout import (
    ACTIVE, ALIVE, ASSIGNED_LANE, A_BUYBACK, A_GLYPH, A_NOOP, FRAMES_PER_SECOND, G_DONE, G_FRAME, G_GLYPH_CD0, G_KILLS0,
    G_MODE, G_TOWERS_LOST0, HEROES_PER_TEAM, HP, HP_MAX, INVULN, KIND, K_ANCIENT, K_TOWER, MODE_1V1_MID, ORDER,
    O_CHANNEL, O_TELEPORT, RESPAWN, STUN, X, Y,
)


@kernel
def choose_push_lane(S, D, g, team, lane_len, front, bias):
    """The lane whose next enemy building is deepest (fewest defences left), then the most advanced wave,
    then this game's preferred lane (``bias``) and the short middle lane."""
    ui = S.ui
    enemy = 1 - team
    best = 1
    best_score = -1e30
    for l in range(3):
        lost = 0
        for tier in range(3):
            if ui[g, kernels.building_slot(enemy, tier * 3 + l), ALIVE] == 0:
                lost += 1
        score = lost * 100000.0 + front[l] - (0.0 if l == 1 else 2500.0) + (3000.0 if l == bias else 0.0)
        if score > best_score:
            best_score = score
            best = l
    return best


@kernel
def scripted_team_act(S, D, team, out, mem_g, mem_h, lane_len, seed, scratch, n_front):
    """Fill ``out[:, team's heroes, :]`` for every game (noop for finished games). ``scratch`` (float64, at
    least 11) and ``n_front`` (int64, 3) are working memory: kernels do not allocate."""
    uf, ui, hf, hi, gi = S.uf, S.ui, S.hf, S.hi, S.gi
    n_games = out.shape[0]
    front = scratch[0:3]
    efront = scratch[3:6]
    prog = scratch[6:11]
    dist = scratch[11:16]
    for g in range(n_games):
        for k in range(HEROES_PER_TEAM):
            set_action(out, g, team * HEROES_PER_TEAM + k, A_NOOP, -1, 4, 4)
        frame = gi[g, G_FRAME]
        if frame < mem_g[g, MG_FRAME] or mem_g[g, MG_FRAME] < 0:  # a new game in this slot
            new_game_memory(S, g, team, mem_g, mem_h, seed)
        mem_g[g, MG_FRAME] = frame
        if gi[g, G_DONE] != 0:
            continue
        lane_fronts(S, D, g, team, lane_len, front, n_front, efront)
        one_v_one = gi[g, G_MODE] == MODE_1V1_MID
        # --- the team's plan: defend, push, or lane
        defend = -1
        defenders = 0
        if not one_v_one:
            defend, defenders = threatened_building(S, D, g, team)
        minutes = frame / (60.0 * FRAMES_PER_SECOND)
        kills_lead = gi[g, G_KILLS0 + team] - gi[g, G_KILLS0 + 1 - team]
        towers_lead = gi[g, G_TOWERS_LOST0 + 1 - team] - gi[g, G_TOWERS_LOST0 + team]
        alive = 0
        active = 0
        for k in range(HEROES_PER_TEAM):
            if hi[g, team * HEROES_PER_TEAM + k, ACTIVE] != 0:
                active += 1
                if ui[g, team * HEROES_PER_TEAM + k, ALIVE] != 0:
                    alive += 1
        need = min(3, active)  # heroes a push needs (one in 1v1 mid)
        push_minute = mem_g[g, MG_PUSH_FRAME] / (60.0 * FRAMES_PER_SECOND)
        if one_v_one:
            push_minute *= 0.5
        want_push = minutes >= push_minute or kills_lead >= AHEAD_KILLS \
            or (towers_lead >= 2 and minutes >= push_minute * 0.5)
        if want_push and alive >= need:
            if mem_g[g, MG_PUSH_LANE] < 0 or lane_objective(S, g, team, mem_g[g, MG_PUSH_LANE]) < 0:
                mem_g[g, MG_PUSH_LANE] = choose_push_lane(S, D, g, team, lane_len, front, mem_g[g, MG_LANE_BIAS])
                mem_g[g, MG_PUSH_SINCE] = frame
        elif not want_push or alive == 0:
            mem_g[g, MG_PUSH_LANE] = -1
        if one_v_one and mem_g[g, MG_PUSH_LANE] >= 0:
            mem_g[g, MG_PUSH_LANE] = 1
        push_lane = mem_g[g, MG_PUSH_LANE]
        if push_lane >= 0 and not one_v_one and frame - mem_g[g, MG_PUSH_SINCE] > 180 * FRAMES_PER_SECOND:
            # re-pick now and then, so that a stalled push moves to a better lane
            mem_g[g, MG_LANE_BIAS] = int(rng_next(mem_g, g) * 3.0)
            mem_g[g, MG_PUSH_LANE] = choose_push_lane(S, D, g, team, lane_len, front, mem_g[g, MG_LANE_BIAS])
            mem_g[g, MG_PUSH_SINCE] = frame
            push_lane = mem_g[g, MG_PUSH_LANE]
        # --- glyph: save a base building under attack
        glyph_hero = -1
        if defend >= 0 and uf[g, defend, HP] < 0.4 * uf[g, defend, HP_MAX] and ui[g, defend, KIND] == K_TOWER \
                and gi[g, G_GLYPH_CD0 + team] <= 0 and ui[g, defend, INVULN] == 0:
            for k in range(HEROES_PER_TEAM):
                h = team * HEROES_PER_TEAM + k
                if try_target(S, D, g, h, A_GLYPH, -1, 4, 4, out):
                    glyph_hero = h
                    break
        # the push advances with the group: no further than just ahead of the third hero on the lane
        group_cap = 1e9
        if push_lane >= 0:
            n_prog = 0
            for k in range(HEROES_PER_TEAM):
                h = team * HEROES_PER_TEAM + k
                if ui[g, h, ALIVE] != 0 and mem_h[g, h, M_RETREAT] == 0:
                    p, d = progress(D.lanes, lane_len, team, push_lane, uf[g, h, X], uf[g, h, Y])
                    prog[n_prog] = p - 0.5 * d
                    n_prog += 1
            if n_prog >= need and need > 0:
                for i in range(1, n_prog):  # insertion sort, ascending
                    v = prog[i]
                    j = i - 1
                    while j >= 0 and prog[j] > v:
                        prog[j + 1] = prog[j]
                        j -= 1
                    prog[j + 1] = v
                group_cap = prog[n_prog - need] + GROUP_LEAD
            else:
                push_lane = -1  # too few to push: back to the lanes until the others are back
        # the heroes nearest the threatened building defend it
        if defend >= 0:
            for k in range(HEROES_PER_TEAM):
                h = team * HEROES_PER_TEAM + k
                dist[k] = 1e30
                if ui[g, h, ALIVE] != 0 and mem_h[g, h, M_RETREAT] == 0:
                    dist[k] = kernels.dist2(uf, g, h, defend)
        for k in range(HEROES_PER_TEAM):
            h = team * HEROES_PER_TEAM + k
            if hi[g, h, ACTIVE] == 0 or h == glyph_hero:
                continue
            defending = False
            if defend >= 0 and dist[k] < 1e29:
                closer = 0
                for j in range(HEROES_PER_TEAM):
                    if dist[j] < dist[k] or (dist[j] == dist[k] and j < k):
                        closer += 1
                defending = closer < defenders
            if ui[g, h, ALIVE] == 0:
                # buy back to save the ancient
                if defend >= 0 and ui[g, defend, KIND] == K_ANCIENT and defenders >= 2 and hf[g, h, RESPAWN] > 10.0:
                    try_target(S, D, g, h, A_BUYBACK, -1, 4, 4, out)
                continue
            if ui[g, h, STUN] > 0 or ui[g, h, ORDER] == O_TELEPORT or ui[g, h, ORDER] == O_CHANNEL:
                continue
            role = ROLE_LANE
            goal_lane = hi[g, h, ASSIGNED_LANE]
            goal_unit = -1
            if defending:
                role = ROLE_DEFEND
                goal_unit = defend
            elif push_lane >= 0:
                role = ROLE_PUSH
                goal_lane = push_lane
                goal_unit = lane_objective(S, g, team, push_lane)
                if goal_unit < 0:
                    role = ROLE_LANE
                    goal_lane = hi[g, h, ASSIGNED_LANE]
            decide_hero(S, D, g, h, team, lane_len, role, goal_lane, goal_unit, front, n_front, efront,
                        mem_g[g, MG_ENGAGE] / 1000.0, group_cap, mem_h, out)
