"""``ScriptedTeam``: the Python face of the scripted bot for one team. It owns the bot's memory arrays
(``memory``), the lane lengths and the kernels' scratch memory, checks the caller's action buffer and runs
``team_step.scripted_team_act`` on a ``GameBatch``.
"""

from __future__ import annotations

import numpy as np

from fivestack.bots.scripted.memory import N_MEM_G, N_MEM_H
from fivestack.bots.scripted.team_step import scripted_team_act
from fivestack.game.engine import GameBatch
from fivestack.game.lanes import lane_length
from fivestack.game.layout import N_HEROES


class ScriptedTeam:
    """The scripted baseline for one team, in engine space (targets are unit indices)."""

    def __init__(self, team: int, seed: int = 0):
        if team not in (0, 1):
            raise ValueError(f"team must be 0 (Radiant) or 1 (Dire), got {team}")
        self.team = team
        self.seed = int(seed)
        self._mem_g: np.ndarray | None = None
        self._mem_h: np.ndarray | None = None
        self._lane_len: np.ndarray | None = None
        self._scratch = np.zeros(16, np.float64)  # fronts, push progress, defender distances
        self._n_front = np.zeros(3, np.int64)

    def _memory(self, n_games: int, lanes: np.ndarray) -> None:
        if self._mem_g is None or self._mem_g.shape[0] != n_games:
            self._mem_g = np.full((n_games, N_MEM_G), -1, np.int64)
            self._mem_h = np.zeros((n_games, N_HEROES, N_MEM_H), np.int64)
        if self._lane_len is None:
            self._lane_len = np.array([lane_length(lanes, lane) for lane in range(3)], np.float64)

    def act(self, game: GameBatch, out: np.ndarray) -> None:
        """Fill ``out[:, heroes of this team, :]`` (int64, (n_games, 10, 5)) for every game."""
        if out.shape != (game.n_games, N_HEROES, 5) or out.dtype != np.int64:
            raise ValueError(f"out must be an int64 array of shape {(game.n_games, N_HEROES, 5)}, "
                             f"got {out.dtype} {out.shape}")
        self._memory(game.n_games, game.data.lanes)
        scripted_team_act(game.state, game.data, self.team, out, self._mem_g, self._mem_h, self._lane_len,
                          self.seed, self._scratch, self._n_front)
