"""A sampler of the env's action masks: uniform over the *available* primary actions (``primary_mask``), then a
uniform target the mask allows, and uniform delay and offsets, for any heroes at once.

It is a test and benchmark tool that needs nothing but observations (``benchmarks/sim_speed.py``, the env's
determinism and fuzz tests, the golden trace), not a team agent: the "random" of matches and the zero of the
TrueSkill scale is ``fivestack.bots.agents.RandomTeamAgent`` (the engine-level ``bots.random_team.RandomTeam``)."""

from __future__ import annotations

import numpy as np

from fivestack.game.layout import ACT_DELAY, ACT_OFFSET_X, ACT_OFFSET_Y, ACT_PRIMARY, ACT_TARGET, N_DELAY, N_OFFSET


class RandomAgent:
    """Acts for any subset of heroes from the env's masks: ``act(obs, heroes) -> (games, len(heroes), 5)``."""

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def act(self, obs: dict[str, np.ndarray], heroes=range(10)) -> np.ndarray:
        heroes = np.asarray(list(heroes))
        primary_mask = obs["primary_mask"][:, heroes].astype(bool)  # (G, H, P)
        n_games, n_heroes, _ = primary_mask.shape
        scores = self.rng.random(primary_mask.shape)
        scores[~primary_mask] = -1.0
        primary = scores.argmax(-1)
        target_mask = np.take_along_axis(obs["target_mask"][:, heroes], primary[..., None, None], axis=2)[:, :, 0]
        target_scores = self.rng.random(target_mask.shape)
        target_scores[target_mask == 0] = -1.0
        out = np.empty((n_games, n_heroes, 5), np.int64)
        out[..., ACT_PRIMARY] = primary
        out[..., ACT_DELAY] = self.rng.integers(0, N_DELAY, size=(n_games, n_heroes))
        out[..., ACT_TARGET] = target_scores.argmax(-1)
        out[..., ACT_OFFSET_X] = self.rng.integers(0, N_OFFSET, size=(n_games, n_heroes))
        out[..., ACT_OFFSET_Y] = self.rng.integers(0, N_OFFSET, size=(n_games, n_heroes))
        return out
