"""The training loop, once for both runners: what a run does over time, whatever runs where.

    TrainingLoop.run(on_progress, stop) -> Progress
        runner._begin()                                  (serial: the clone phase, version 0 joins the pool)
        versions left unrated by an earlier session are sent again; the pool's newest is offered
        until the budget, run.max_versions, a stop() or a signal:
            report = runner._step()                      where the components run (below)
            a report: its metrics (and annealing's) logged; ratings: the finished ones taken, the pool's newest
                      version offered when a rating is due; a Progress for on_progress
            a checkpoint every run.checkpoint_minutes
        runner._last_report(): the statistics gathered since the last report, logged (nothing is dropped)
        runner._stop_components(); a last checkpoint; runner._stopped(path); "stopped by signal N" if one came

Who owns what:

    the loop (here)   the budget (``run.minutes``, counted over every session of the run: ``RunState.elapsed``) and
                      ``run.max_versions``; checkpoint timing (every ``run.checkpoint_minutes`` and at the end) and
                      what every checkpoint holds of the loop's state (elapsed, ratings, annealing); SIGTERM and
                      SIGINT (main thread only: a signal ends the loop after its step, with a checkpoint and a
                      message; the previous handlers come back); ratings (``RatingSchedule``: offering versions,
                      taking the evaluator's records -> ``rating_metrics`` logged at the rated version,
                      ``progress_ratings`` shown, a warning for an error); annealing (``Annealing``: the share of
                      new games with the feature now, its metrics, its reaction to a rating and its message);
                      progress (``Progress``) and every message, through one ``say`` callable
    a runner          where the components run: its ``_step`` (serial: collect one segment and train on it in this
                      process; ray: watch and restart the actors, gather their statistics every
                      ``ray.log_seconds``), where the evaluator runs (``_send_rating``, ``_rating_messages``), where
                      metrics and checkpoints are written (``_log``, ``_save``), what follows a rating's effect on
                      annealing (``_annealing_changed``: the ray actors read the schedule from the controller)

A runner sets ``config``, ``state`` (its ``RunState``) and ``say`` with ``_init_loop`` once its state is loaded,
and has ``version`` and ``agent_steps``. Nothing here imports a runner.
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from fivestack.runs.config import TrainConfig
from fivestack.system.annealing import Annealing
from fivestack.system.evaluator import progress_ratings, rating_metrics
from fivestack.system.metrics import lane_start_metrics
from fivestack.system.run_state import RatingSchedule, RunState


def say_line(message: str) -> None:
    """The default ``say``: one line on stdout, at once."""
    print(message, flush=True)


@dataclass
class Progress:
    """What a progress display needs after each report: a segment (serial) or a logging interval (ray)."""

    version: int = 0
    agent_steps: int = 0
    agent_steps_per_s: float = 0.0
    elapsed: float = 0.0
    budget: float = 0.0
    win_rates: dict[str, float] = field(default_factory=dict)
    signal: int | None = None  # the signal (SIGTERM, SIGINT) that ended ``run``, if one did: the caller should stop too


@dataclass
class Report:
    """What a runner's step reports: its metrics, the agent-steps per second it ran at, and the games it started
    (a dict with ``games_started``, and the hooks' counts among them: ``games_with_feature`` for annealing,
    ``games_in_lane`` for ``rollout.lane_start``) with the share of the annealed feature they were drawn with
    (None: the share at the current version)."""

    metrics: dict[str, float]
    agent_steps_per_s: float
    games: dict
    feature_share: float | None = None


@contextmanager
def stop_signals() -> Iterator[list[int]]:
    """While the loop runs, SIGTERM and SIGINT are noted (the list yielded) instead of ending the process, so that
    it stops after its step with a checkpoint. Only in the main thread, where Python handles signals; the previous
    handlers come back after."""
    received: list[int] = []
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            previous[sig] = signal.signal(sig, lambda s, f: received.append(s))
    try:
        yield received
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class TrainingLoop:
    """The base of both runners: ``run``, ``checkpoint``, the ratings and annealing. See the module docstring."""

    config: TrainConfig
    state: RunState
    say: Callable[[str], None]
    rate_one_at_a_time = False  # the evaluator takes one version at a time: offer one only when none is pending

    def _init_loop(self, config: TrainConfig, state: RunState, say: Callable[[str], None]) -> None:
        """The loop's state, once the runner's ``state`` is loaded: the rating schedule and the annealing."""
        self.config, self.state, self.say = config, state, say
        self.ratings = RatingSchedule.from_state(config.eval.every_versions, state.ratings)
        self.annealing = Annealing.from_state(config.anneal, state.anneal, state.version)
        self.state.anneal = self.annealing.state_dict() if self.annealing else self.state.anneal

    @property
    def elapsed_before(self) -> float:
        """Seconds trained before the current ``run`` call (over every session of the run); after it, in all."""
        return self.state.elapsed

    # ------------------------------------------------------------------ the loop
    def run(self, on_progress: Callable[[Progress], None] | None = None,
            stop: Callable[[], bool] = lambda: False) -> Progress:
        """Train until the budget, ``run.max_versions``, a ``stop()`` or a signal; checkpoint; the last progress."""
        self._begin()
        budget = self.config.run.minutes * 60.0
        start, elapsed_before = time.monotonic(), self.state.elapsed

        def elapsed() -> float:
            return elapsed_before + time.monotonic() - start

        for version, steps in self.ratings.pending:  # sent before a restart and never rated: send again
            self._send_rating(version, steps)
        self._offer_rating()
        rate = 0.0
        with stop_signals() as signals, self._running():
            last_checkpoint = start
            while not (signals or stop() or self._finished(elapsed(), budget)):
                report = self._step()
                progress = self._report(report, elapsed(), budget) if report is not None else None
                if time.monotonic() - last_checkpoint >= self.config.run.checkpoint_minutes * 60.0:
                    self.checkpoint(elapsed())
                    last_checkpoint = time.monotonic()
                if progress is not None:
                    rate = progress.agent_steps_per_s
                    if on_progress is not None:
                        on_progress(progress)
            last = self._last_report()
            if last is not None:
                self._log_report(last)
        self._stop_components()
        path = self.checkpoint(elapsed())
        self._stopped(path)
        if signals:
            self.say(f"stopped by signal {signals[0]}; checkpoint {path}")
        return Progress(self.version, self.agent_steps, rate, self.state.elapsed, budget, dict(self.state.win_rates),
                        signals[0] if signals else None)

    def _finished(self, elapsed: float, budget: float) -> bool:
        """The budget is spent or the run reached ``run.max_versions``."""
        max_versions = self.config.run.max_versions
        return bool(budget and elapsed >= budget) or bool(max_versions and self.version >= max_versions)

    def _report(self, report: Report, elapsed: float, budget: float) -> Progress:
        """Log a step's report, take and offer ratings; the progress it makes."""
        self._log_report(report)
        self.collect_ratings()  # the ratings that finished (the ray evaluator is free again)
        if self._offer_rating():
            self.collect_ratings()  # an in-process evaluator rates at once
        return Progress(self.version, self.agent_steps, report.agent_steps_per_s, elapsed, budget,
                        dict(self.state.win_rates))

    def _log_report(self, report: Report) -> None:
        """Log a report's metrics with annealing's and the lane start's, at the current version."""
        metrics = report.metrics
        if self.annealing:
            share = report.feature_share if report.feature_share is not None else self.annealing.share(self.version)
            metrics.update(self.annealing.metrics(share, report.games))
        if self.config.rollout.lane_start > 0:  # one rule for both runners: a segment's or an interval's counts
            metrics.update(lane_start_metrics(report.games))
        self._log(self.version, self.agent_steps, metrics)

    def feature_share(self) -> float:
        """The share of new games with the annealed feature at the current version (0 without one)."""
        return self.annealing.share(self.version) if self.annealing else 0.0

    def checkpoint(self, elapsed: float) -> Path:
        """A checkpoint of the run as it stands, ``elapsed`` seconds trained over every session."""
        self.state.elapsed = elapsed
        self.state.ratings = self.ratings.state_dict()
        self.state.anneal = self.annealing.state_dict() if self.annealing else self.state.anneal
        return self._save()

    # ------------------------------------------------------------------ ratings
    def _offer_rating(self) -> bool:
        """Schedule the pool's newest version when a rating is due (``RatingSchedule.offer``) and send it to the
        evaluator; True if one was sent."""
        if not self.ratings.every or (self.rate_one_at_a_time and self.ratings.pending):
            return False
        joined, steps = self.pool_joined, self.agent_steps
        if not self.ratings.offer(joined, steps):
            return False
        self._send_rating(joined, steps)
        return True

    def collect_ratings(self, timeout: float = 0.0) -> list[dict]:
        """Log the ratings that finished since the last call (waiting up to ``timeout`` s for the next one)."""
        if not self.ratings.pending:
            return []
        records = [self._take_rating(message) for message in self._rating_messages(timeout)]
        return [record for record in records if record is not None]

    def wait_for_ratings(self, timeout: float) -> list[dict]:
        """Block until every submitted version is rated or ``timeout`` s pass; returns the new ratings."""
        deadline = time.monotonic() + timeout
        records = []
        while self.ratings.pending and time.monotonic() < deadline:
            records += self.collect_ratings(timeout=min(5.0, max(deadline - time.monotonic(), 0.01)))
        return records

    def _take_rating(self, message: dict) -> dict | None:
        """An evaluator's message: its record logged at the rated version and shown, and handed to annealing."""
        record = self.ratings.finish(message)
        if record is None:
            self.say(f"warning: {message['error']}")
            return None
        self.state.win_rates = progress_ratings(record)
        self._log(record["version"], record["agent_steps"], rating_metrics(record))
        if self.annealing:
            if self.annealing.on_record(record):
                self.say(f"anneal: TrueSkill of version {record['version']} dropped; the share of games with "
                         f"{self.annealing.feature} reverts to {self.annealing.anchor_share:.0%}, its rate slows to "
                         f"{self.annealing.rate:.4f} per version")
            self._annealing_changed()
        return record

    # ------------------------------------------------------------------ what a runner provides
    version: int
    agent_steps: int

    @property
    def pool_joined(self) -> int:
        """The last version that joined the opponent pool (-1: none yet)."""
        raise NotImplementedError

    def _begin(self) -> None:
        """Before the loop (and before its clock starts)."""

    def _running(self):
        """The context the loop's steps run in (the ray runner turns a lost actor into ``RunStopped``)."""
        return nullcontext()

    def _step(self) -> Report | None:
        """One step of the run; a report when there is one to log (else None)."""
        raise NotImplementedError

    def _last_report(self) -> Report | None:
        """When the loop ends: what happened since the last report, if a runner holds any (the serial runner
        reports every step; the ray runner gathers every ``ray.log_seconds``)."""
        return None

    def _log(self, version: int, agent_steps: int, metrics: dict[str, float]) -> None:
        raise NotImplementedError

    def _save(self) -> Path:
        """Write a checkpoint of ``state`` and the runner's own (weights, optimizer); its folder."""
        raise NotImplementedError

    def _send_rating(self, version: int, agent_steps: int) -> None:
        raise NotImplementedError

    def _rating_messages(self, timeout: float) -> list[dict]:
        """The evaluator's messages (``{"record", "state"}`` or ``{"error"}``) since the last call; the records
        carry the ``agent_steps`` their version was offered at."""
        raise NotImplementedError

    def _annealing_changed(self) -> None:
        """Annealing took a rating (its schedule may have changed)."""

    def _stop_components(self) -> None:
        """After the loop, before the last checkpoint."""

    def _stopped(self, path: Path) -> None:
        """After the last checkpoint (``path``)."""
