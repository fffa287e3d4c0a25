"""Team agents with one interface, so that any two can meet in a game: ``act(env) -> (games, 5, 5)``.

An agent acts for the five heroes of one team in env action space (unit targets are *slots* of its own
team's observation). ``make_agent("scripted" | "random", team, seed)`` builds one by name.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from fivestack.env.batched import BatchedEnv
from fivestack.game.layout import ACT_TARGET, HEROES_PER_TEAM, N_ACTION_FIELDS, N_HEROES


class TeamAgent(Protocol):
    team: int

    def act(self, env: BatchedEnv) -> np.ndarray:
        """Actions for this team's heroes in every game: int64 (games, 5, 5)."""
        ...


class RandomTeamAgent:
    def __init__(self, team: int, seed: int = 0):
        from fivestack.bots.random_agent import RandomAgent

        self.team = team
        self.agent = RandomAgent(seed)

    def act(self, env: BatchedEnv) -> np.ndarray:
        heroes = range(self.team * HEROES_PER_TEAM, (self.team + 1) * HEROES_PER_TEAM)
        return self.agent.act(env.obs, heroes)


class ScriptedTeamAgent:
    """The scripted baseline team; it decides in engine space (unit indices), converted here to slots."""

    def __init__(self, team: int, seed: int = 0):
        from fivestack.bots.scripted import ScriptedTeam

        self.team = team
        self.bot = ScriptedTeam(team, seed)
        self._buffer: np.ndarray | None = None

    def act(self, env: BatchedEnv) -> np.ndarray:
        if self._buffer is None or self._buffer.shape[0] != env.n_games:
            self._buffer = np.zeros((env.n_games, N_HEROES, N_ACTION_FIELDS), np.int64)
        self.bot.act(env.game, self._buffer)
        mine = self._buffer[:, self.team * HEROES_PER_TEAM:(self.team + 1) * HEROES_PER_TEAM].copy()
        units = mine[..., ACT_TARGET]
        games = np.arange(env.n_games)[:, None]
        slots = env.slot_of_unit[games, self.team, np.clip(units, 0, env.slot_of_unit.shape[-1] - 1)]
        mine[..., ACT_TARGET] = np.where(units >= 0, slots, -1)
        return mine


class WeakScriptedTeamAgent:
    """The scripted team handicapped for the rating ladder: each hero's order is, with probability
    ``random_share``, replaced by a random available one, which puts it between the random and the full
    scripted team."""

    # 5v5: half random orders still beat the random team and lose to the scripted one every time (32 of 32 games
    # each). In 1v1, where two deaths decide, random orders are fatal: at 0.5 it loses to random 2 games in 3.
    random_share = 0.5

    def __init__(self, team: int, seed: int = 0):
        self.team = team
        self.scripted = ScriptedTeamAgent(team, seed)
        self.random = RandomTeamAgent(team, seed + 1)
        self.rng = np.random.default_rng([int(seed), 0x3EA4])

    def act(self, env: BatchedEnv) -> np.ndarray:
        scripted, random = self.scripted.act(env), self.random.act(env)
        use_random = self.rng.random(scripted.shape[:2]) < self.random_share
        return np.where(use_random[..., None], random, scripted)


AGENTS = {"random": RandomTeamAgent, "scripted": ScriptedTeamAgent, "scripted-weak": WeakScriptedTeamAgent}


def make_agent(name: str, team: int, seed: int = 0) -> TeamAgent:
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; choose one of {sorted(AGENTS)}")
    return AGENTS[name](team, seed)


def play_step(env: BatchedEnv, radiant: TeamAgent, dire: TeamAgent):
    """One env step with both teams' actions."""
    actions = np.concatenate([radiant.act(env), dire.act(env)], axis=1)
    return env.step(actions)
