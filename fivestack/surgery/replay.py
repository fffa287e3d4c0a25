"""Seeded evaluation games with every action the policy chose recorded: how a test or ``benchmarks/rerun.py``
checks that an operated run plays its games move for move as the run did before the surgery (docs/surgery.md).

``seeded_games(policy, patch, opponent, ...)`` plays ``match.games.play_games`` (the evaluator's own games: seeds,
sides, time limit) with the policy wrapped in a ``RecordingAgent``; two calls with the same seed, one with the old
model on the old patch and one with the operated model on the new patch, must give equal action arrays.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from fivestack.match.agents import PolicyTeamAgent
from fivestack.match.games import play_games


class RecordingAgent:
    """A team agent that keeps every action array it returned (for the games it was asked for), in order."""

    def __init__(self, agent):
        self.agent, self.actions = agent, []

    def act(self, env, games=None):
        out = self.agent.act(env, games)
        self.actions.append(out[games].copy() if games is not None else out.copy())
        return out


def seeded_games(policy, patch: str, opponent: Callable[[int], object], *, mode: str, games: int,
                 max_seconds: float, seed: int, decision_steps: int):
    """``games`` seeded evaluation games of ``policy`` (sampling with seed ``seed + side``) against ``opponent``
    (a factory: side -> team agent) on ``patch``; returns (``play_games``' result, one array of every action the
    policy chose per side it played)."""
    recorders: list[RecordingAgent] = []

    def mine(side: int) -> RecordingAgent:
        recorders.append(RecordingAgent(PolicyTeamAgent(side, policy, mode, seed + side,
                                                        decision_steps=decision_steps, patch=patch)))
        return recorders[-1]

    result = play_games(mine, opponent, games, mode, max_seconds, seed, patch)
    return result, [np.concatenate(r.actions) for r in recorders]
