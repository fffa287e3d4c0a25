"""The scripted bot's memory between steps, owned by ``ScriptedTeam`` and read and written by the kernels.

* ``mem_h[g, h, M_*]``: per hero: retreat state and its threshold, the frame of a pending cast, the stuck
  detector (last position, counter, side-step), the distance kept behind the front creep;
* ``mem_g[g, MG_*]``: per game: the last frame seen (a frame that goes back means a new game), the push
  lane and since when, this game's push time, engage ratio and preferred lane, and the bot's own random
  stream (``rng_next``; never the game's RNG).

``new_game_memory`` fills both for a new game, drawing this game's style from the bot seed and the game's RNG.
"""

from __future__ import annotations

import numpy as np

from fivestack.bots.scripted.tuning import ENGAGE_RATIO, PUSH_JITTER, PUSH_MINUTE, RETREAT_HP
from fivestack.game import kernels
from fivestack.game.jit import kernel
from fivestack.game.layout import FRAMES_PER_SECOND, G_RNG, HEROES_PER_TEAM, X, Y


# per-hero memory: mem_h[g, h, FIELD]
M_RETREAT = 0
M_CAST_FRAME = 1
M_LAST_X = 2
M_LAST_Y = 3
M_STUCK = 4
M_UNSTICK = 5  # steps left of a side-step
M_UNSTICK_DIR = 6
M_RETREAT_HP = 7  # this hero's retreat threshold x 1000
M_SPOT_JITTER = 8  # extra distance kept behind the front creep
N_MEM_H = 10
# per-game memory: mem_g[g, FIELD]
MG_FRAME = 0  # last frame seen (-1: never)
MG_PUSH_LANE = 1  # -1 not pushing
MG_PUSH_SINCE = 2
MG_RNG = 3
MG_PUSH_FRAME = 4  # this game's push time (PUSH_MINUTE, jittered)
MG_ENGAGE = 5  # this game's engage ratio x 1000
MG_LANE_BIAS = 6  # preferred push lane
N_MEM_G = 8


@kernel
def rng_next(mem_g, g):
    """The bot's own stream in its game memory: a float in [0, 1). Never touches the game's RNG."""
    return kernels.xorshift01(mem_g, g, MG_RNG)


@kernel
def new_game_memory(S, g, team, mem_g, mem_h, seed):
    """Fresh memory for a new game, with this game's random style drawn from the bot seed and the game's
    own RNG state at its start (so that games differ with their seeds, and replays are reproducible)."""
    uf = S.uf
    z = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(S.gi[g, G_RNG]) + np.uint64(team + 1)
    mem_g[g, MG_RNG] = kernels.splitmix64(z)
    mem_g[g, MG_PUSH_LANE] = -1
    mem_g[g, MG_PUSH_SINCE] = 0
    minutes = PUSH_MINUTE + (rng_next(mem_g, g) - 0.5) * 2.0 * PUSH_JITTER
    mem_g[g, MG_PUSH_FRAME] = int(minutes * 60.0 * FRAMES_PER_SECOND)
    mem_g[g, MG_ENGAGE] = int(1000.0 * (ENGAGE_RATIO + (rng_next(mem_g, g) - 0.5) * 0.3))
    mem_g[g, MG_LANE_BIAS] = int(rng_next(mem_g, g) * 3.0)
    for k in range(HEROES_PER_TEAM):
        h = team * HEROES_PER_TEAM + k
        mem_h[g, h, :] = 0
        mem_h[g, h, M_LAST_X] = int(uf[g, h, X])
        mem_h[g, h, M_LAST_Y] = int(uf[g, h, Y])
        mem_h[g, h, M_RETREAT_HP] = int(1000.0 * (RETREAT_HP + (rng_next(mem_g, g) - 0.5) * 0.1))
        mem_h[g, h, M_SPOT_JITTER] = int(rng_next(mem_g, g) * 150.0)
