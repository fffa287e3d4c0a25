"""Evaluation: how good is a version? Win rates against reference teams with their 95% Wilson intervals, and
TrueSkill ratings against a pool of frozen references (``fivestack.system.rating``).

    RatingEvaluator     places the bots on the scale once (random = 0, then scripted-weak, then scripted),
                        then rates each submitted version against the references near its rating and
                        freezes it as a new reference.
    EvaluatorProcess    runs a RatingEvaluator in its own process, so that rating never stalls training:
                        the runner submits versions and polls for ratings (JSON messages only).

Every match plays half its games as Radiant and half as Dire, all of them at once in one batched env
(``play_games``, on the one match loop ``fivestack.system.agents.play_to_end``; agents are built by
``fivestack.system.agents.build_agent``). ``evaluate`` counts wins only (a draw, a game the time limit ended,
counts 0) and reports the draw share beside the win rate; TrueSkill ratings take a draw as a draw (score 0.5).
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import queue
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from fivestack.bots.agents import TeamAgent
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.game.layout import ACTIVE
from fivestack.game.patch import PATCH_VERSION, observation_mask
from fivestack.model.policy import Policy
from fivestack.system.agents import (  # noqa: F401 (load_run_policy, PolicyTeamAgent: also read from here)
    TEAM_STATS, PolicyTeamAgent, Seat, build_agent, load_run_policy, play_to_end,
)
from fivestack.system.config import TrainConfig, from_dict
from fivestack.system.pool import OpponentPool
from fivestack.system.rating import RANDOM, SIGMA0, Rating, ReferencePool


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
               seed: int = 0, patch: str = PATCH_VERSION, lineups: str = "fixed") -> GameResults:
    """Play ``games`` full games of A against B in one batched env: games ``0 .. n_a - 1`` (``n_a`` = half,
    rounded up) with A as Radiant, the rest with A as Dire, all at once until every game has ended (by a win
    or the time limit ``max_seconds``); finished games are not restarted.

    Each side has its own A agent and B agent (bots are built for a side); per game, the side's actions come
    from whichever of the two plays it there. A policy runs only for its own running games; a bot acts on the
    whole env and its actions for other games are dropped. Deterministic for a given seed.

    ``patch``: the patch version of the policies' game; the games show its observation features (their columns)
    but play the default game's rules (``game.patch.observation_mask``). ``lineups``: "fixed" (the standard
    game, what ratings compare) or "random" (each game's heroes drawn from the pool by its seed,
    ``GameConfig.lineups``). Evaluation games never randomise their starting conditions."""
    n_a = games - games // 2
    a_side = (np.arange(games) >= n_a).astype(np.int64)
    base = seed * 10_000
    env = BatchedEnv(games, GameConfig(mode=mode, max_seconds=max_seconds, patch=patch, lineups=lineups))
    env.reset(np.concatenate([base + np.arange(n_a), base + 1_000 + np.arange(games - n_a)]).astype(np.uint64),
              None if patch == PATCH_VERSION else observation_mask(patch))
    seats = []  # only the agents that play somewhere, built in this order: A Radiant, B Radiant, A Dire, B Dire
    for side in (0, 1):
        for factory, plays in ((agent_a, np.flatnonzero(a_side == side)), (agent_b, np.flatnonzero(a_side != side))):
            if plays.size:
                seats.append(Seat(factory(side), side, plays))
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


@dataclass
class EvalResult:
    """A policy against a bot. ``win_rate`` counts wins only (a draw, that is a game the time limit ended, counts
    0), with its 95% Wilson interval; ``draw_rate`` beside it. ``team_stats`` holds the mean per game of each
    ``TEAM_STATS`` figure for the policy's team and the bot's: name -> [policy, bot]."""

    opponent: str
    games: int
    wins: int
    win_rate: float
    ci95: tuple[float, float]
    draws: int
    draw_rate: float
    mean_minutes: float  # mean game length in game minutes
    seconds: float  # wall-clock seconds the evaluation took
    greedy: bool = False
    games_as_radiant: int = 0
    wins_as_radiant: int = 0
    team_stats: dict[str, list[float]] | None = None
    lineups: str = "fixed"
    per_hero: dict[str, dict] | None = None  # hero name -> games, wins, win_rate, ci95 (GameResults.per_hero)

    def to_dict(self) -> dict:
        return {"opponent": self.opponent, "games": self.games, "wins": self.wins, "win_rate": self.win_rate,
                "ci95": list(self.ci95), "draws": self.draws, "draw_rate": self.draw_rate,
                "mean_minutes": self.mean_minutes, "seconds": self.seconds,
                "eval_policy": "greedy" if self.greedy else "sampled", "games_as_radiant": self.games_as_radiant,
                "wins_as_radiant": self.wins_as_radiant, "team_stats": self.team_stats, "lineups": self.lineups,
                "per_hero": self.per_hero}


def evaluate(policy: Policy, opponent: str, games: int, mode: str, max_seconds: float, seed: int = 0,
             greedy: bool = False, decision_steps: int = 1, lineups: str = "fixed") -> EvalResult:
    """Play ``games`` full games (half as each side, all in one batched env) of ``policy`` against a bot and
    count the policy's wins; ``greedy`` plays its most likely actions rather than sampling them; the policy
    decides every ``decision_steps`` timesteps, as it was trained; ``lineups`` as in ``play_games``."""
    start = time.monotonic()
    result = play_games(lambda side: PolicyTeamAgent(side, policy, mode, seed + side, greedy, decision_steps),
                        lambda side: build_agent(opponent, side, seed + 1 + 2 * side, mode), games, mode, max_seconds,
                        seed, lineups=lineups)
    seconds = time.monotonic() - start
    wins, draws = int(result.wins.sum()), int(result.draws.sum())
    low, high = wilson_interval(wins, games)
    radiant = result.a_side == 0
    stats = {name: [round(float(result.a_stats[name].mean()), 2), round(float(result.b_stats[name].mean()), 2)]
             for name in TEAM_STATS}
    return EvalResult(opponent, games, wins, wins / games, (low, high), draws, draws / games,
                      float(result.minutes.mean()), seconds, greedy, int(radiant.sum()),
                      int(result.wins[radiant].sum()), stats, lineups, result.per_hero())


def version_name(version: int) -> str:
    return f"v{version}"


class RatingEvaluator:
    """TrueSkill ratings of versions against frozen references: bots, then every version it has rated."""

    def __init__(self, config: TrainConfig, pool_dir: Path, state: dict | None = None, seed: int = 0,
                 load_weights: Callable[[int], dict[str, torch.Tensor]] | None = None):
        self.config = config
        self.load_weights = load_weights or OpponentPool(config.pool, Path(pool_dir)).weights
        self.mode, self.max_seconds = config.game.mode, config.eval.max_seconds
        self.seed = seed
        self.references = ReferencePool()
        self.ratings: dict[int, Rating] = {}  # rated versions
        self.bots: dict[str, Rating] = {RANDOM: Rating(0.0, 0.0)}
        self.policies: dict[str, Policy] = {}  # agents given as policies rather than pool files (``fivestack eval``)
        if state:
            self.load_state_dict(state)

    # ------------------------------------------------------------------ agents
    def agent(self, name: str, seed: int) -> AgentFactory:
        """A reference of this ladder by name: ``vVERSION`` is a version of this run (``policies``, else the pool
        folder); any other name is an agent spec (``fivestack.system.agents.build_agent``: the bots)."""
        if name in self.policies:
            policy = self.policies[name]
            return lambda side: PolicyTeamAgent(side, policy, self.mode, seed,
                                                decision_steps=self.config.rollout.decision_steps)
        if name.startswith("v") and name[1:].isdigit():
            policy = self.load_version(int(name[1:]))
            return lambda side: PolicyTeamAgent(side, policy, self.mode, seed,
                                                decision_steps=self.config.rollout.decision_steps)
        return lambda side: build_agent(name, side, seed, self.mode)

    def load_version(self, version: int) -> Policy:
        policy = Policy(self.config.policy, self.config.game.patch)
        policy.load_state_dict(self.load_weights(version))
        return policy.eval()

    # ------------------------------------------------------------------ rating
    def rate(self, name: str, start_mu: float, opponents: list[str], games: int, seed: int) -> tuple[Rating, dict]:
        """Rate agent ``name`` from (start_mu, sigma0) by ``games`` games spread over ``opponents``."""
        rating = Rating(start_mu, SIGMA0)
        per_opponent = {}
        for i, opponent in enumerate(opponents):
            n = games // len(opponents) + (1 if i < games % len(opponents) else 0)
            if n == 0:
                continue
            match = play_games(self.agent(name, seed), self.agent(opponent, seed + 1), n, self.mode,
                               self.max_seconds, seed + 97 * i, self.config.game.patch)
            scores = match.scores
            rating = self.references.rate(rating, [(opponent, float(s)) for s in scores])
            low, high = wilson_interval(float(scores.sum()), n)
            # win_rate is the TrueSkill score here (a draw counts half); draw_rate says how much of it is draws
            per_opponent[opponent] = {"games": n, "win_rate": float(scores.sum()) / n, "ci95": [low, high],
                                      "draw_rate": float(match.draws.mean()), "minutes": float(match.minutes.mean())}
        return rating, per_opponent

    def calibrate_bots(self) -> dict[str, Rating]:
        """Place each bot on the scale once, in ladder order (``eval.opponents``): each starts at the rating of
        the bot below it and plays the bots already placed within ``eval.near_points`` of that start."""
        for name in self.config.eval.opponents:
            if name in self.bots:
                continue
            start = max(r.mu for r in self.bots.values())
            near = [n for n in self.references.near(start, self.config.eval.near_points) if n in self.bots]
            rating, _ = self.rate(name, start, near, self.config.eval.calibration_games, self.seed + len(self.bots))
            self.bots[name] = rating
            self.references.freeze(name, rating.mu)
        return self.bots

    def rate_version(self, version: int, games: int | None = None, opponents: list[str] | None = None) -> dict:
        """Rate ``version`` (its weights in the pool folder, or ``policies[vVERSION]``) against ``opponents``
        (default: the references near its expected rating), starting from the previous rated version's mu,
        then freeze it as a reference."""
        self.calibrate_bots()
        previous = [v for v in self.ratings if v < version]
        start = self.ratings[max(previous)].mu if previous else 0.0
        name = version_name(version)
        if opponents is None:
            opponents = self.references.near(start, self.config.eval.near_points)
        unknown = [o for o in opponents if o not in self.references.references]
        if unknown:
            raise ValueError(f"not rated yet, so not usable as references: {', '.join(unknown)}")
        opponents = [o for o in opponents if o != name]
        rating, per_opponent = self.rate(name, start, opponents, games or self.config.eval.games,
                                         self.seed + version)
        self.ratings[version] = rating
        self.references.freeze(name, rating.mu)
        return {"version": version, "mu": rating.mu, "sigma": rating.sigma, "games": rating.games,
                "opponents": per_opponent}

    # ------------------------------------------------------------------ persistence (JSON)
    def state_dict(self) -> dict:
        return {"bots": {k: r.to_dict() for k, r in self.bots.items()},
                "versions": {str(v): r.to_dict() for v, r in self.ratings.items()}}

    def load_state_dict(self, state: dict) -> None:
        self.bots = {k: Rating.from_dict(r) for k, r in state.get("bots", {}).items()} or self.bots
        self.ratings = {int(v): Rating.from_dict(r) for v, r in state.get("versions", {}).items()}
        self.references = ReferencePool()
        for name, rating in self.bots.items():
            if name != RANDOM:
                self.references.freeze(name, rating.mu)
        for version, rating in self.ratings.items():
            self.references.freeze(version_name(version), rating.mu)


def rating_metrics(record: dict) -> dict[str, float]:
    """A rated version's record (``RatingEvaluator.rate_version``) as metrics for TensorBoard and metrics.jsonl."""
    values = {"eval/trueskill_mu": record["mu"], "eval/trueskill_sigma": record["sigma"],
              "eval/rated_version": float(record["version"])}
    for opponent, result in record["opponents"].items():
        values[f"eval/win_rate_vs_{opponent}"] = result["win_rate"]
    return values


def progress_ratings(record: dict) -> dict[str, float]:
    """What a progress bar shows of a rating: the TrueSkill first, then the win rates it was measured on."""
    return {"TrueSkill": record["mu"], **{o: r["win_rate"] for o, r in record["opponents"].items()}}


def _evaluator_main(config_json: str, pool_dir: str, state_json: str, torch_threads: int, jobs, results) -> None:
    """The evaluator process: rate each submitted version, answer with its rating and the evaluator's state."""
    torch.set_num_threads(max(torch_threads, 1))
    evaluator = RatingEvaluator(from_dict(json.loads(config_json)), Path(pool_dir), json.loads(state_json))
    while True:
        job = json.loads(jobs.get())
        if job.get("stop"):
            return
        try:
            record = evaluator.rate_version(int(job["version"]))
            record["agent_steps"] = job["agent_steps"]
            results.put(json.dumps({"record": record, "state": evaluator.state_dict()}))
        except Exception as exc:  # report, keep serving: one bad version must not end the run's evaluation
            results.put(json.dumps({"error": f"rating version {job['version']} failed: {exc!r}",
                                    "version": job["version"]}))


class EvaluatorProcess:
    """A RatingEvaluator in its own process. ``submit`` a version in the pool; ``poll`` for finished ratings."""

    def __init__(self, config: TrainConfig, pool_dir: Path, state: dict | None = None, torch_threads: int = 1):
        context = mp.get_context("spawn")  # a clean interpreter: no inherited torch threads or open files
        self.jobs, self.results = context.Queue(), context.Queue()
        self.pending = 0
        self.state = state or {}
        self.process = context.Process(
            target=_evaluator_main, daemon=True, name="fivestack-evaluator",
            args=(json.dumps(config.to_dict()), str(pool_dir), json.dumps(self.state), torch_threads, self.jobs,
                  self.results))
        self.process.start()

    def submit(self, version: int, agent_steps: int) -> None:
        self.jobs.put(json.dumps({"version": version, "agent_steps": agent_steps}))
        self.pending += 1

    def poll(self, timeout: float = 0.0) -> list[dict]:
        """Finished ratings (each ``{"record": ...}`` or ``{"error": ...}``); waits up to ``timeout`` for the first."""
        out = []
        while self.pending:
            try:
                message = json.loads(self.results.get(timeout=timeout) if timeout > 0 and not out
                                     else self.results.get_nowait())
            except queue.Empty:
                if not self.process.is_alive():
                    out.append({"error": "the evaluator process died; ratings stop for this run"})
                    self.pending = 0
                break
            self.pending -= 1
            if "state" in message:
                self.state = message["state"]
            out.append(message)
        return out

    def close(self) -> None:
        if self.process.is_alive():
            self.jobs.put(json.dumps({"stop": True}))
            self.process.join(timeout=10)
            if self.process.is_alive():
                self.process.terminate()
