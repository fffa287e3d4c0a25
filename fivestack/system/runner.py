"""What the CLI (and any script) drives: a ``Runner``, serial or ray, chosen by name.

    runner = make_runner(config, "serial" | "ray", resume=None | RUN_DIR)
    runner.describe() -> one line: run folder, model size, workers, TensorBoard command
    runner.run(on_progress, stop) -> Progress   trains until the budget, a stop() or a signal; checkpoints
    runner.version, runner.agent_steps, runner.run_dir
    runner.close()

Both runners keep their state in one ``RunState`` (``run_state.py``), log the metrics of ``metrics.py`` and
write checkpoints that either runner resumes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol

from fivestack.runs.config import TrainConfig

RUNNERS = ("serial", "ray")


@dataclass
class Progress:
    """What a progress display needs after each segment (serial) or logging interval (ray)."""

    version: int = 0
    agent_steps: int = 0
    agent_steps_per_s: float = 0.0
    elapsed: float = 0.0
    budget: float = 0.0
    win_rates: dict[str, float] = field(default_factory=dict)


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
                say: Callable[[str], None] = print) -> Runner:
    """The runner named ``kind`` (``RUNNERS``), new or resuming ``resume``; Ray is imported only for "ray"."""
    if kind == "ray":
        from fivestack.system.ray import RayRunner

        return RayRunner(config, resume=resume, say=say)
    if kind == "serial":
        from fivestack.system.serial import SerialRunner

        return SerialRunner(config, resume=resume)
    raise ValueError(f"--runner {kind!r} is not available; use one of {', '.join(RUNNERS)}")
