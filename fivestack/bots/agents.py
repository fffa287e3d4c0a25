"""The bots as team agents, with one interface, so that any two can meet in a game.

A team agent acts for the five heroes of one team: ``act(env, games=None) -> int64 (n_games, 5, 5)``, in env
action space (unit targets are *slots* of its own team's observation). ``games`` lists the games the caller
needs; a bot acts in every game anyway (the caller keeps the rows it asked for).

    RandomTeamAgent        uniformly random available actions with valid targets (``bots.random_team``): the
                           zero of the TrueSkill scale and the "random" of every match
    ScriptedTeamAgent      the scripted baseline team (``bots.scripted``)
    WeakScriptedTeamAgent  the scripted team with half its orders replaced by the random team's

``BOTS`` is the table of bots by name and ``make_bot(name, team, seed)`` builds one (training's bot and
teacher use it). Any agent spec, a bot or a trained version of a run, is resolved by
``fivestack.match.agents.build_agent``, and matches are played by ``fivestack.match.games.play_to_end``.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from fivestack.env.batched import BatchedEnv
from fivestack.game.layout import ACT_TARGET, HEROES_PER_TEAM, N_ACTION_FIELDS, N_HEROES


class TeamAgent(Protocol):
    team: int

    def act(self, env: BatchedEnv, games: np.ndarray | None = None) -> np.ndarray:
        """Actions for this team's heroes in every game: int64 (games, 5, 5); only the rows of ``games`` (all
        games if None) need be meaningful."""
        ...


class _EngineTeamAgent:
    """A bot that decides in engine space (``bot.act(game, out)`` fills unit-index actions for all ten heroes);
    its team's actions are converted here to env space: a unit target becomes the slot of that unit in the
    team's observation (-1, an invalid target, for a unit the observation has no slot for)."""

    def __init__(self, team: int, bot):
        self.team = team
        self.bot = bot
        self._buffer: np.ndarray | None = None

    def act(self, env: BatchedEnv, games: np.ndarray | None = None) -> np.ndarray:
        if self._buffer is None or self._buffer.shape[0] != env.n_games:
            self._buffer = np.zeros((env.n_games, N_HEROES, N_ACTION_FIELDS), np.int64)
        self.bot.act(env.game, self._buffer)
        mine = self._buffer[:, self.team * HEROES_PER_TEAM:(self.team + 1) * HEROES_PER_TEAM].copy()
        units = mine[..., ACT_TARGET]
        rows = np.arange(env.n_games)[:, None]
        slots = env.slot_of_unit[rows, self.team, np.clip(units, 0, env.slot_of_unit.shape[-1] - 1)]
        mine[..., ACT_TARGET] = np.where(units >= 0, slots, -1)
        return mine


class RandomTeamAgent(_EngineTeamAgent):
    """The random team (``fivestack.bots.random_team.RandomTeam``): every step each hero takes a uniformly random
    available action and, if it needs one, a uniformly random valid target. The same agent as in
    ``benchmarks/bot_matches.py``, and the zero of the TrueSkill scale."""

    def __init__(self, team: int, seed: int = 0):
        from fivestack.bots.random_team import RandomTeam

        super().__init__(team, RandomTeam(team, seed))


class ScriptedTeamAgent(_EngineTeamAgent):
    """The scripted baseline team (``fivestack.bots.scripted.ScriptedTeam``)."""

    def __init__(self, team: int, seed: int = 0):
        from fivestack.bots.scripted import ScriptedTeam

        super().__init__(team, ScriptedTeam(team, seed))


class WeakScriptedTeamAgent:
    """The scripted team handicapped for the rating ladder: each hero's order is, with probability
    ``random_share``, replaced by the random team's, which puts it between the random and the full scripted
    team."""

    # 5v5: half random orders still beat the random team and lose to the scripted one every time (32 of 32 games
    # each). In 1v1, where two deaths decide, random orders are fatal: at 0.5 it loses to random 2 games in 3.
    random_share = 0.5

    def __init__(self, team: int, seed: int = 0):
        self.team = team
        self.scripted = ScriptedTeamAgent(team, seed)
        self.random = RandomTeamAgent(team, seed + 1)
        self.rng = np.random.default_rng([int(seed), 0x3EA4])

    def act(self, env: BatchedEnv, games: np.ndarray | None = None) -> np.ndarray:
        scripted, random = self.scripted.act(env), self.random.act(env)
        use_random = self.rng.random(scripted.shape[:2]) < self.random_share
        return np.where(use_random[..., None], random, scripted)


BOTS = {"random": RandomTeamAgent, "scripted": ScriptedTeamAgent, "scripted-weak": WeakScriptedTeamAgent}


def make_bot(name: str, team: int, seed: int = 0) -> TeamAgent:
    """The bot ``name`` (a key of ``BOTS``) for ``team`` (0 Radiant, 1 Dire)."""
    check_bot_name(name)
    return BOTS[name](team, seed)


def check_bot_name(name: str) -> None:
    """One clear error for a name that is not a bot, naming the choices."""
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}; choose one of {sorted(BOTS)}")


def play_step(env: BatchedEnv, radiant: TeamAgent, dire: TeamAgent):
    """One env step with both teams' actions."""
    actions = np.concatenate([radiant.act(env), dire.act(env)], axis=1)
    return env.step(actions)
