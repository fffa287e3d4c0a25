"""What the CLI (and any script) drives: a ``Runner``, serial or ray, chosen by name.

    runner = make_runner(config, "serial" | "ray", resume=None | RUN_DIR)
    runner.describe() -> one line: run folder, model size, workers, TensorBoard command
    runner.run(on_progress, stop) -> Progress   trains until the budget, a stop() or a signal; checkpoints
    runner.version, runner.agent_steps, runner.run_dir
    runner.close()

Both runners are one ``TrainingLoop`` (``loop.py``: the budget, checkpoints, ratings, annealing, signals,
progress and messages) and differ only in where the components run; they keep their state in one ``RunState``
(``run_state.py``), log the metrics of ``metrics.py`` and write checkpoints that either runner resumes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Protocol

from fivestack.runs.config import TrainConfig
from fivestack.system.loop import Progress, say_line

__all__ = ["RUNNERS", "Progress", "Runner", "make_runner"]

RUNNERS = ("serial", "ray")


class Runner(Protocol):
    run_dir: Path

    @property
    def version(self) -> int: ...

    @property
    def agent_steps(self) -> int: ...

    def describe(self) -> str: ...

    def run(self, on_progress: Callable[[Progress], None] | None = None,
            stop: Callable[[], bool] = lambda: False) -> Progress: ...

    def close(self) -> None: ...


def make_runner(config: TrainConfig, kind: str, resume: Path | None = None,
                say: Callable[[str], None] = say_line) -> Runner:
    """The runner named ``kind`` (``RUNNERS``), new or resuming ``resume``; Ray is imported only for "ray"."""
    if kind == "ray":
        from fivestack.system.ray import RayRunner

        return RayRunner(config, resume=resume, say=say)
    if kind == "serial":
        from fivestack.system.serial import SerialRunner

        return SerialRunner(config, resume=resume, say=say)
    raise ValueError(f"--runner {kind!r} is not available; use one of {', '.join(RUNNERS)}")
