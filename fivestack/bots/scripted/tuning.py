"""The scripted bot's tunable constants: when to push, retreat and engage, how far to keep from towers,
radii of fights and base watch (seconds, world units, fractions), the enemy buildings' local indices, and the
roles the team kernel gives its heroes.

Plain numbers only: every other module of the bot reads them, Numba freezes them into the compiled kernels.
"""

from __future__ import annotations

from fivestack.game import kernels


# ---------------------------------------------------------------- tuning (seconds, world units, fractions)
PUSH_MINUTE = 12.0  # all heroes group and push from about this game minute on (earlier when ahead)
PUSH_JITTER = 3.0  # minutes either side, drawn per game
AHEAD_KILLS = 4  # kill lead that starts the push early
RETREAT_HP = 0.30  # retreat below this health fraction
DANGER_HP = 0.50  # retreat below this when the local fight is lost
RECOVERED_HP = 0.90  # leave the fountain above this
RECOVERED_MANA = 0.50
TOWER_RANGE = 700.0 + kernels.HULL  # enemy tower reach
TOWER_MARGIN = 150.0  # keep this much further out of an untanked tower's reach
TP_MIN_DISTANCE = 5500.0  # town-portal when the goal is further than this
FIGHT_RADIUS = 1300.0  # heroes counted in a local fight
ENGAGE_RATIO = 0.8  # engage when our fight value is at least this fraction of theirs
DEFEND_RADIUS = 1600.0
BASE_WATCH_RADIUS = 6300.0  # enemies further than this from the own fountain threaten no base building
BASE_RADIUS = 3900.0  # around each fountain the map is clear of trees
ON_LANE = 800.0
CARROT = 500.0
CAST_PATIENCE = 45  # frames a pending cast is left alone
LH_HISTORY_STEPS = 3  # health trend window for last-hit timing
LH_HOLD_HITS = 2.5  # hold fire while a creep in range is within this many of the hero's hits of dying
GROUP_LEAD = 700.0  # a pushing hero waits for the group this far ahead of the third hero

# building local indices (geometry.BUILDINGS order)
B_T4A, B_T4B, B_BARRACKS0, B_ANCIENT, B_FOUNTAIN = 9, 10, 11, 17, 18

# what the team asks of a hero this step (``decide_hero``'s ``role``)
ROLE_LANE, ROLE_PUSH, ROLE_DEFEND = 0, 1, 2
