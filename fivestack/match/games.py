"""Matches: two team agents play games to the end, and what the games say.

    play_to_end(env, seats)          plays every game of a BatchedEnv to its end (each ``Seat``: an agent, its side,
                                     its games); per game: the winner, the length, each team's ``TEAM_STATS``
    play_games(a, b, games, mode, max_seconds, seed)
                                     A against B, half the games on each side, all at once -> ``GameResults``
    play_scores(...)                 the same as TrueSkill takes it: A's score per game (win 1, draw 0.5, loss 0)
    wilson_interval(wins, games)     the 95% Wilson score interval of a win rate

A team agent (``fivestack.bots.agents.TeamAgent``) is built by name with ``fivestack.match.agents.build_agent``.
``fivestack play``, the evaluator, surgery's replays, the arena and the draft's calibration all play here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch

from fivestack.bots.agents import TeamAgent
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.game.layout import (ACTIVE, DEATHS, DEATHS_TO_CREEPS, DEATHS_TO_HEROES, DEATHS_TO_TOWERS, DENIES,
                                   HEROES_PER_TEAM, KILLS, LAST_HITS, LEVEL, NET_WORTH, NO_ORDER)
from fivestack.match.agents import trained_game


def wilson_interval(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate ``wins / games``."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


AgentFactory = Callable[[int], TeamAgent]  # side (0 Radiant, 1 Dire) -> the team agent for that side


@dataclass
class GameResults:
    """Per game of a match of A against B: the side A played, the winner (0 Radiant, 1 Dire, -1 none: the time
    limit ended it), the length in game minutes, and each team's ``TEAM_STATS`` when the game ended (``a_stats``
    for A's team, ``b_stats`` for B's)."""

    a_side: np.ndarray  # int (games,)
    winner: np.ndarray  # int (games,)
    minutes: np.ndarray  # float (games,)
    a_stats: dict[str, np.ndarray]  # name -> float (games,)
    b_stats: dict[str, np.ndarray]
    a_heroes: list[list[str]] = field(default_factory=list)  # per game, the names of the heroes A played

    def per_hero(self) -> dict[str, dict]:
        """A's wins by the hero it played: for each hero A played, its games, wins, win rate (wins / games) and
        the rate's 95% Wilson interval, heroes in order of first appearance. A game counts for each hero of A's
        team."""
        out = {}
        for name in dict.fromkeys(name for heroes in self.a_heroes for name in heroes):
            played = [g for g, heroes in enumerate(self.a_heroes) if name in heroes]
            wins = int(self.wins[played].sum())
            low, high = wilson_interval(wins, len(played))
            out[name] = {"games": len(played), "wins": wins, "win_rate": round(wins / len(played), 4),
                         "ci95": [round(low, 4), round(high, 4)]}
        return out

    @property
    def wins(self) -> np.ndarray:
        return self.winner == self.a_side

    @property
    def draws(self) -> np.ndarray:
        return self.winner < 0

    @property
    def scores(self) -> np.ndarray:
        """A's score per game as TrueSkill takes it: 1 win, 0 loss, 0.5 draw."""
        return np.where(self.draws, 0.5, self.wins.astype(float))


def play_games(agent_a: AgentFactory, agent_b: AgentFactory, games: int, mode: str, max_seconds: float,
               seed: int = 0, patch: str | None = None, lineups: str = "fixed") -> GameResults:
    """Play ``games`` full games of A against B in one batched env: games ``0 .. n_a - 1`` (``n_a`` = half,
    rounded up) with A as Radiant, the rest with A as Dire, all at once until every game has ended (by a win
    or the time limit ``max_seconds``); finished games are not restarted.

    Each side has its own A agent and B agent (bots are built for a side); per game, the side's actions come
    from whichever of the two plays it there. A policy runs only for its own running games; a bot acts on the
    whole env and its actions for other games are dropped. Deterministic for a given seed.

    The game is the one the trained policies among the agents were trained on (``agents.trained_game``: their move
    table and patch, its rules and observation columns alike; the default game between bots). ``patch``: the
    patch version to play instead (a rating ladder's: its bots' games too); a policy trained on another refuses
    it. ``lineups``: "fixed" (the standard game, what ratings compare) or "random" (each game's heroes drawn from
    the pool by its seed, ``GameConfig.lineups``). Evaluation games never randomise their starting conditions."""
    n_a = games - games // 2
    a_side = (np.arange(games) >= n_a).astype(np.int64)
    base = seed * 10_000
    seats = []  # only the agents that play somewhere, built in this order: A Radiant, B Radiant, A Dire, B Dire
    for side in (0, 1):
        for factory, plays in ((agent_a, np.flatnonzero(a_side == side)), (agent_b, np.flatnonzero(a_side != side))):
            if plays.size:
                seats.append(Seat(factory(side), side, plays))
    game = trained_game(s.agent for s in seats)
    if patch is not None:
        game["patch"] = patch
    env = BatchedEnv(games, GameConfig(mode=mode, max_seconds=max_seconds, lineups=lineups, **game))
    env.reset(np.concatenate([base + np.arange(n_a), base + 1_000 + np.arange(games - n_a)]).astype(np.uint64))
    heroes = env.game.patch.heroes
    a_heroes = [[heroes[env.game.hero_types[g, h]].name for h in range(5 * side, 5 * side + 5)
                 if env.game.state.hi[g, h, ACTIVE]] for g, side in enumerate(a_side)]
    played = play_to_end(env, seats)
    return GameResults(a_side, played.winner, played.minutes, played.stats_of(a_side), played.stats_of(1 - a_side),
                       a_heroes)


def play_scores(agent_a: AgentFactory, agent_b: AgentFactory, games: int, mode: str, max_seconds: float,
                seed: int = 0) -> tuple[list[float], list[float]]:
    """Play ``games`` full games of A against B (``play_games``); A's score per game (1 win, 0 loss, 0.5 a
    draw: the time limit ended it), as TrueSkill takes it, and each game's length in minutes."""
    result = play_games(agent_a, agent_b, games, mode, max_seconds, seed)
    return result.scores.tolist(), result.minutes.tolist()


TEAM_STATS = ("kills", "deaths", "deaths_to_creeps", "deaths_to_towers", "deaths_to_heroes", "last_hits", "denies",
              "net_worth", "level")
"""What a match reports of each team at the end of each game: hero kills, deaths (and of them those whose killing
blow a lane creep, a tower or fountain, or an enemy hero or its summon dealt), last hits, denies and net worth summed
over the team's heroes, and their mean level. They say *how* a game was won or lost (a team that loses on farm has
few last hits and a low net worth; one whose heroes die to creeps has not learnt the lane), which a win rate alone
does not."""


def team_stats(game, teams: np.ndarray) -> dict[str, np.ndarray]:
    """``TEAM_STATS`` in every game of a ``GameBatch`` of the team ``teams[g]`` (0 Radiant, 1 Dire) of game g:
    name -> (games,)."""
    hero_floats, hero_ints = game.state.hf, game.state.hi
    games = np.arange(teams.size)[:, None]
    heroes = teams[:, None] * HEROES_PER_TEAM + np.arange(HEROES_PER_TEAM)  # (games, 5)
    active = hero_ints[games, heroes, ACTIVE] != 0
    summed = {"kills": KILLS, "deaths": DEATHS, "deaths_to_creeps": DEATHS_TO_CREEPS, "deaths_to_towers": DEATHS_TO_TOWERS,
              "deaths_to_heroes": DEATHS_TO_HEROES, "last_hits": LAST_HITS, "denies": DENIES}
    stats = {name: (hero_ints[games, heroes, column] * active).sum(axis=1).astype(float)
             for name, column in summed.items()}
    stats["net_worth"] = (hero_floats[games, heroes, NET_WORTH] * active).sum(axis=1).astype(float)
    stats["level"] = (hero_ints[games, heroes, LEVEL] * active).sum(axis=1) / np.maximum(active.sum(axis=1), 1)
    return {name: stats[name] for name in TEAM_STATS}


@dataclass
class Seat:
    """``agent`` plays side ``side`` (0 Radiant, 1 Dire) in the games ``games`` of the env."""

    agent: TeamAgent
    side: int
    games: np.ndarray


@dataclass
class PlayedGames:
    """Per game of a ``play_to_end``: the winner (0 Radiant, 1 Dire, -1 none: the time limit ended it), the length
    in game minutes, the agent timesteps it ran, and each side's ``TEAM_STATS`` when it ended
    (``stats[side][name]`` is (games,))."""

    winner: np.ndarray  # int (games,)
    minutes: np.ndarray  # float (games,)
    timesteps: np.ndarray  # int (games,)
    stats: tuple[dict[str, np.ndarray], dict[str, np.ndarray]]

    def stats_of(self, sides: np.ndarray) -> dict[str, np.ndarray]:
        """Each game's ``TEAM_STATS`` of the side ``sides[g]``."""
        return {name: np.where(sides == 0, self.stats[0][name], self.stats[1][name]) for name in TEAM_STATS}


@torch.no_grad()
def play_to_end(env: BatchedEnv, seats: list[Seat], on_step: Callable[[np.ndarray], None] | None = None,
                ask_finished_games: bool = False) -> PlayedGames:
    """Step ``env`` (already reset) until every game has ended, by a win or its time limit; finished games are
    not restarted, so their state still holds the end-of-game figures when this returns.

    Each step, every seat's agent is asked (in ``seats`` order) for its games still running and its actions there
    are played; a game or side no seat covers gets no-ops. ``ask_finished_games`` asks each seat for all of its
    games, finished ones too (whose actions the env ignores): ``fivestack play`` does, which keeps a trained
    policy's random stream, and so a seeded match, as it always was. ``on_step(finished)`` is called after every
    step with the games ended so far (bool (games,)). Deterministic: the same env seeds and agents give the same
    games."""
    n = env.n_games
    winner = np.full(n, -1, np.int64)
    minutes = np.zeros(n)
    timesteps = np.zeros(n, np.int64)
    finished = env.game.done != 0
    actions = np.zeros((n, 2 * HEROES_PER_TEAM, 5), np.int64)
    while not finished.all():
        actions[:] = NO_ORDER
        for seat in seats:
            rows = seat.games if ask_finished_games else seat.games[~finished[seat.games]]
            if rows.size == 0:
                continue
            team = slice(seat.side * HEROES_PER_TEAM, (seat.side + 1) * HEROES_PER_TEAM)
            actions[rows, team] = seat.agent.act(env, rows)[rows]
        timesteps += ~finished
        _, _, terminated, truncated, info = env.step(actions)
        ended = (terminated | truncated) & ~finished
        winner[ended] = np.where(truncated[ended], -1, info["winner"][ended])
        minutes[ended] = info["seconds"][ended] / 60.0
        finished |= ended
        if on_step is not None:
            on_step(finished)
    sides = np.zeros(n, np.int64)
    return PlayedGames(winner, minutes, timesteps, (team_stats(env.game, sides), team_stats(env.game, sides + 1)))
