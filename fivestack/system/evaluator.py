"""Evaluation: how good is a version? Win rates against reference teams with their 95% Wilson intervals, and
TrueSkill ratings against a pool of frozen references (``fivestack.match.rating``).

    RatingEvaluator     places the bots on the scale once (random = 0, then scripted-weak, then scripted),
                        then rates each submitted version against the references near its rating and
                        freezes it as a new reference.
    EvaluatorProcess    runs a RatingEvaluator in its own process, so that rating never stalls training:
                        the runner submits versions and polls for ratings (JSON messages only).

Every match plays half its games as Radiant and half as Dire, all of them at once in one batched env
(``fivestack.match.games.play_games``; agents are built by ``fivestack.match.agents.build_agent``). ``evaluate``
counts wins only (a draw, a game the time limit ended, counts 0) and reports the draw share beside the win rate;
TrueSkill ratings take a draw as a draw (score 0.5). Every game is the run's game: its patch (``[game] patch``:
the rules and the observation columns its policies were trained with; an annealed feature not yet in it is left
out) and its move table, the bots' calibration games included.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import queue
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import torch

from fivestack.game.layout import PAPER_MOVE_GOALS
from fivestack.game.patch import PATCH_VERSION
from fivestack.model.policy import Policy
from fivestack.match.agents import PolicyTeamAgent, build_agent, trained_game_of
from fivestack.match.games import TEAM_STATS, AgentFactory, play_games, wilson_interval
from fivestack.runs.config import TrainConfig, from_dict
from fivestack.system.pool import OpponentPool
from fivestack.match.rating import RANDOM, SIGMA0, Rating, ReferencePool


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
             greedy: bool = False, decision_steps: int = 1, lineups: str = "fixed",
             move_goals: str = PAPER_MOVE_GOALS, patch: str = PATCH_VERSION) -> EvalResult:
    """Play ``games`` full games (half as each side, all in one batched env) of ``policy`` against a bot and
    count the policy's wins; ``greedy`` plays its most likely actions rather than sampling them; the policy
    decides every ``decision_steps`` timesteps, moves with the ``move_goals`` table and plays patch ``patch``'s
    game, as it was trained (``[rollout]``, ``[game]`` of its run); ``lineups`` as in ``play_games``."""
    return evaluate_agent(lambda side: PolicyTeamAgent(side, policy, mode, seed + side, greedy, decision_steps,
                                                       move_goals=move_goals, patch=patch),
                          opponent, games, mode, max_seconds, seed, greedy, lineups)


def evaluate_agent(agent: AgentFactory, opponent: str, games: int, mode: str, max_seconds: float, seed: int = 0,
                   greedy: bool = False, lineups: str = "fixed") -> EvalResult:
    """``evaluate`` for any team agent (``agent(side)`` builds it for a side: a policy of another library, e.g.
    ``match.single_agent.LearnerTeamAgent``), with the same games, seeds and counts; ``greedy`` is only recorded."""
    start = time.monotonic()
    result = play_games(agent, lambda side: build_agent(opponent, side, seed + 1 + 2 * side, mode), games, mode,
                        max_seconds, seed, lineups=lineups)
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
        folder); any other name is an agent spec (``fivestack.match.agents.build_agent``: the bots)."""
        if name not in self.policies and not (name.startswith("v") and name[1:].isdigit()):
            return lambda side: build_agent(name, side, seed, self.mode)
        policy = self.policies[name] if name in self.policies else self.load_version(int(name[1:]))
        return lambda side: PolicyTeamAgent(side, policy, self.mode, seed,
                                            decision_steps=self.config.rollout.decision_steps,
                                            **trained_game_of(self.config.game))

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
