"""Evaluation: the latest policy against reference teams (random, scripted), with win rates and their 95%
Wilson intervals. Half the games are played as Radiant and half as Dire."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from fivestack.bots.agents import make_agent
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.game.layout import HEROES_PER_TEAM
from fivestack.model.policy import Policy
from fivestack.system.inference import Inference, initial_state
from fivestack.system.messages import InferenceRequest, InferenceResult
from fivestack.system.rollout import active_heroes, team_view


def wilson_interval(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (draws count half, as in ``wins``)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


class PolicyTeamAgent:
    """A team driven by a policy, with the TeamAgent interface (``act(env) -> (games, 5, 5)``)."""

    def __init__(self, team: int, policy: Policy, mode: str, seed: int = 0):
        self.team = team
        self.inference = Inference(policy, seed)
        self.mode = mode
        self.heroes = active_heroes(mode)[team]
        self.k = len(self.heroes)
        self.state = None
        self.first = None
        # The policy's outputs for the last ``act`` call (value, win probability, actions per active hero),
        # kept so that a replay can record what the agents thought.
        self.last_result: InferenceResult | None = None

    def act(self, env: BatchedEnv) -> np.ndarray:
        n = env.n_games
        if self.state is None:
            self.state = initial_state(n * self.k, self.inference.policy.config.lstm_size)
            self.first = np.ones(n, np.float32)
        view = team_view(env.obs, active_heroes(self.mode))
        mine = {name: arr.reshape(n, 2, *arr.shape[1:])[:, self.team] for name, arr in view.items()}
        slots = np.tile(self.heroes, (n, 1)).astype(np.int64)
        result = self.inference(InferenceRequest(mine, slots, self.state, self.first))
        self.state = result.state
        self.first = np.zeros(n, np.float32)
        self.last_result = result
        out = np.zeros((n, HEROES_PER_TEAM, 5), np.int64)
        out[..., 2] = -1
        out[:, self.heroes - self.team * HEROES_PER_TEAM] = result.actions
        return out


@dataclass
class EvalResult:
    opponent: str
    games: int
    wins: float  # a truncated game counts half
    win_rate: float
    ci95: tuple[float, float]
    mean_minutes: float


@torch.no_grad()
def evaluate(policy: Policy, opponent: str, games: int, mode: str, max_seconds: float, seed: int = 0) -> EvalResult:
    """Play ``games`` full games (half as each side) and count the policy's wins."""
    wins = 0.0
    minutes = []
    halves = [(0, games - games // 2), (1, games // 2)]
    for side, n in halves:
        if n == 0:
            continue
        env = BatchedEnv(n, GameConfig(mode=mode, max_seconds=max_seconds))
        env.reset(seed * 10_000 + side * 1_000)
        me = PolicyTeamAgent(side, policy, mode, seed)
        them = make_agent(opponent, 1 - side, seed + 1)
        finished = np.zeros(n, bool)
        while not finished.all():
            acts = [me.act(env), them.act(env)]
            actions = np.concatenate(acts if side == 0 else acts[::-1], axis=1)
            _, _, terminated, truncated, info = env.step(actions)
            for g in np.flatnonzero((terminated | truncated) & ~finished):
                winner = int(info["winner"][g])
                wins += 0.5 if winner < 0 else float(winner == side)
                minutes.append(float(info["seconds"][g]) / 60.0)
            finished |= terminated | truncated
    low, high = wilson_interval(wins, games)
    return EvalResult(opponent, games, wins, wins / games, (low, high), float(np.mean(minutes)))
