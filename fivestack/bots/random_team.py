"""The random team (unit-index actions): the reference at the bottom of every rating scale, and the "random" of
``fivestack play``, the evaluator and ``benchmarks/bot_matches.py`` (as a team agent:
``fivestack.bots.agents.RandomTeamAgent``).

Every step each hero takes a primary action chosen uniformly among those *available* now
(``kernels.primary_available``) and, when that action needs a unit target, a target chosen uniformly among
the units that are valid for it (``kernels.valid_target``); a targeted action with no valid target is not
offered. Delay and offsets are uniform. Actions are in engine space (targets are unit indices), so the
random team plugs straight into ``GameBatch.step``. (``fivestack.bots.random_agent.RandomAgent`` draws the
same kind of actions from the env's masks; it serves tests and benchmarks that have only observations.)

A random hero may still be counted an invalid action now and then: when two heroes of a team draw the
team-wide glyph in the same step, the second finds it spent, and a delay of 1-3 frames lets the state move
on before the action applies.
"""

from __future__ import annotations

import numpy as np
from fivestack.game import kernels
from fivestack.game.engine import GameBatch
from fivestack.game.jit import kernel
from fivestack.game.layout import (
    ACT_DELAY, ACT_OFFSET_X, ACT_OFFSET_Y, ACT_PRIMARY, ACT_TARGET, G_DONE, HEROES_PER_TEAM, MAX_UNITS,
    N_DELAY, N_OFFSET, N_PRIMARY, N_TARGET_KINDS,
)


@kernel
def _pick(rng, n):
    """Uniform in [0, n) from the team's xorshift stream ``rng[0, 0]``."""
    k = int(kernels.xorshift01(rng, 0, 0) * n)
    return n - 1 if k >= n else k


@kernel
def random_team_act(S, D, team, out, rng, prims, targets, n_targets, computed):
    """Fill ``out[:, team's heroes, :]`` with uniformly random available actions and valid targets.
    Working memory (kernels do not allocate): ``prims`` int64 (N_PRIMARY,), ``targets`` int64 (N_TARGET_KINDS,
    MAX_UNITS) valid targets per target kind, ``n_targets`` int64 (N_TARGET_KINDS,), ``computed`` bool
    (N_TARGET_KINDS,)."""
    gi = S.gi
    n_games = out.shape[0]
    for g in range(n_games):
        for k in range(HEROES_PER_TEAM):
            h = team * HEROES_PER_TEAM + k
            out[g, h, ACT_PRIMARY] = 0
            out[g, h, ACT_DELAY] = 0
            out[g, h, ACT_TARGET] = -1
            out[g, h, ACT_OFFSET_X] = 4
            out[g, h, ACT_OFFSET_Y] = 4
            if gi[g, G_DONE] != 0:
                continue
            for kind in range(N_TARGET_KINDS):
                n_targets[kind] = 0
                computed[kind] = False
            n = 0
            for p in range(N_PRIMARY):
                if not kernels.primary_available(S, D, g, h, p):
                    continue
                kind = kernels.target_kind_for(S, D, g, h, p)
                if kind != 0:
                    if not computed[kind]:
                        computed[kind] = True
                        for u in range(MAX_UNITS):
                            if kernels.valid_target(S, D, g, h, kind, u):
                                targets[kind, n_targets[kind]] = u
                                n_targets[kind] += 1
                    if n_targets[kind] == 0:
                        continue
                prims[n] = p
                n += 1
            p = prims[_pick(rng, n)]  # noop is always available, so n >= 1
            kind = kernels.target_kind_for(S, D, g, h, p)
            out[g, h, ACT_PRIMARY] = p
            out[g, h, ACT_DELAY] = _pick(rng, N_DELAY)
            if kind != 0:
                out[g, h, ACT_TARGET] = targets[kind, _pick(rng, n_targets[kind])]
            out[g, h, ACT_OFFSET_X] = _pick(rng, N_OFFSET)
            out[g, h, ACT_OFFSET_Y] = _pick(rng, N_OFFSET)


class RandomTeam:
    """Uniformly random available actions with uniformly random valid targets, for one team."""

    def __init__(self, team: int, seed: int = 0):
        if team not in (0, 1):
            raise ValueError(f"team must be 0 (Radiant) or 1 (Dire), got {team}")
        self.team = team
        # splitmix the seed so that nearby seeds give unrelated streams (never zero)
        z = (int(seed) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019 + team) & 0xFFFFFFFFFFFFFFFF
        self._rng = np.array([[kernels.splitmix64(np.uint64(z))]], dtype=np.int64)
        self._prims = np.zeros(N_PRIMARY, np.int64)
        self._targets = np.zeros((N_TARGET_KINDS, MAX_UNITS), np.int64)
        self._n_targets = np.zeros(N_TARGET_KINDS, np.int64)
        self._computed = np.zeros(N_TARGET_KINDS, np.bool_)

    def act(self, game: GameBatch, out: np.ndarray) -> None:
        """Fill ``out[:, heroes of this team, :]`` (int64, (n_games, 10, 5)) for every game."""
        random_team_act(game.state, game.data, self.team, out, self._rng, self._prims, self._targets,
                        self._n_targets, self._computed)


__all__ = ["RandomTeam", "random_team_act"]
