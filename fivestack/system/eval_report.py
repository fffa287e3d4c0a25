"""``fivestack eval``'s work: rate one version of a run on TrueSkill's scale, on demand, and report its win rates.

    rate_run_version(run, version, games, against, status) -> EvalReport
        loads the version (``match.agents.load_run_policy``) and the run's ratings so far (its latest checkpoint),
        places the bots on the scale if the run has not yet, rates any version named in ``against`` that is not
        rated yet (so that it can serve as a reference), then rates the version afresh
    EvalReport.to_json()   what ``RUN/eval/vVERSION.json`` holds

The rating itself is the training evaluator's (``RatingEvaluator``), so a version rated here and one rated during
training stand on one scale. Mistakes (a missing run or version, an unknown opponent) are one ``ValueError`` or
``CheckpointError`` each, whose message names the fix; the command prints it.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, ContextManager

from fivestack.match.agents import load_run_policy
from fivestack.match.games import wilson_interval
from fivestack.runs.checkpoints import latest_checkpoint, load_checkpoint
from fivestack.system.evaluator import RatingEvaluator, version_name

Status = Callable[[str], ContextManager]  # shows a message while the work it wraps runs (e.g. a rich spinner)


@dataclass
class EvalReport:
    """A rated version: its TrueSkill record (``RatingEvaluator.rate_version``), one row per opponent (agent, mu,
    sigma, games, win_rate as TrueSkill scores it, ci95, draw_rate) and the totals over all its games."""

    run: Path
    version: int
    record: dict
    opponents: list[dict]
    wins: float  # wins and half the draws, as TrueSkill counts them
    draws: float

    @property
    def name(self) -> str:
        return version_name(self.version)

    @property
    def score(self) -> float:
        return self.wins / self.record["games"]

    @property
    def draw_rate(self) -> float:
        return self.draws / self.record["games"]

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.record["games"])

    def to_json(self) -> dict:
        return {"run": str(self.run), "version": self.version, "mu": self.record["mu"], "sigma": self.record["sigma"],
                "games": self.record["games"], "win_rate": self.score, "ci95": list(self.ci95),
                "opponents": self.opponents}


def _reference(evaluator: RatingEvaluator, run: Path, item: str, status: Status) -> str:
    """The reference named by one ``--against`` item: a bot's name, or a version (``400``, ``v400``) of ``run``,
    rated first if it is not a reference yet."""
    number = item.lstrip("v")
    name = version_name(int(number)) if number.isdigit() else item
    if name in evaluator.references.references:
        return name
    if not number.isdigit():
        raise ValueError(f"--against {item!r}: unknown opponent; use random, scripted-weak, scripted or a version "
                         f"number")
    try:
        evaluator.policies[name] = load_run_policy(f"{run}:{int(number)}")[0]
    except ValueError as exc:
        raise ValueError(f"--against {item}: {exc}") from None
    with status(f"rating {name} first, so that it can serve as a reference ..."):
        evaluator.rate_version(int(number))
    return name


def rate_run_version(run: Path, version: str = "latest", games: int | None = None, against: list[str] | None = None,
                     status: Status = lambda message: contextlib.nullcontext()) -> EvalReport:
    """Rate ``run``'s ``version`` (a number or ``latest``) by ``games`` games (default: the run's ``eval.games``)
    against the references ``against`` (default: those near its rating; see the module docstring)."""
    if games is not None and games < 1:
        raise ValueError(f"--games must be at least 1, got {games}")
    policy, config, number = load_run_policy(f"{run}:{version}")
    state = load_checkpoint(latest_checkpoint(run))[2].get("ratings", {})
    evaluator = RatingEvaluator(config, run / "pool", state=state, seed=number)
    name = version_name(number)
    evaluator.policies[name] = policy
    evaluator.ratings.pop(number, None)  # rate it afresh
    with status("placing the bots on the scale (once per run) ..."):
        evaluator.calibrate_bots()
    opponents = None if against is None else [_reference(evaluator, run, item, status) for item in against]
    with status(f"rating {name} ..."):
        record = evaluator.rate_version(number, games=games, opponents=opponents)
    rows = []
    for opponent, result in record["opponents"].items():
        rating = evaluator.bots.get(opponent) or evaluator.ratings.get(int(opponent[1:]))
        rows.append({"agent": opponent, "mu": rating.mu, "sigma": rating.sigma, "games": result["games"],
                     "win_rate": result["win_rate"], "ci95": result["ci95"],
                     "draw_rate": result.get("draw_rate", 0.0)})
    wins = sum(r["win_rate"] * r["games"] for r in record["opponents"].values())
    draws = sum(r.get("draw_rate", 0.0) * r["games"] for r in record["opponents"].values())
    return EvalReport(run, number, record, rows, wins, draws)
