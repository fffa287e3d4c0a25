"""The controller: the run's directory, versions, checkpoints and metrics.

A run on disk: ``runs/NAME/config.toml``, ``checkpoints/VERSION/{model.safetensors, optim.safetensors,
state.json}``, ``tb/`` (TensorBoard) and ``metrics.jsonl``. Checkpoints are written to a temporary folder and
renamed into place, so a run killed mid-write keeps its previous checkpoint. Nothing is unpickled.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import time
from pathlib import Path

import torch
from safetensors.torch import save_file

from fivestack.runs.config import TrainConfig, to_toml

KEEP_CHECKPOINTS = 3


class RunStopped(RuntimeError):
    """A run that cannot go on (an optimizer lost with its node); it resumes from its last checkpoint."""


class Controller:
    def __init__(self, run_dir: Path, config: TrainConfig):
        self.run_dir = Path(run_dir)
        self.config = config
        (self.run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
        (self.run_dir / "config.toml").write_text(to_toml(config))
        self._metrics = open(self.run_dir / "metrics.jsonl", "a", buffering=1)
        self._writer = None

    @property
    def tensorboard_dir(self) -> Path:
        return self.run_dir / "tb"

    def writer(self):
        if self._writer is None:
            from torch.utils.tensorboard import SummaryWriter

            self._writer = SummaryWriter(str(self.tensorboard_dir))
        return self._writer

    # ------------------------------------------------------------------ metrics
    def log(self, version: int, agent_steps: int, values: dict[str, float]) -> None:
        clean = {k: float(v) for k, v in values.items() if v is not None and math.isfinite(float(v))}
        record = {"time": time.time(), "version": version, "agent_steps": agent_steps, **clean}
        self._metrics.write(json.dumps(record) + "\n")
        w = self.writer()
        for key, value in clean.items():
            w.add_scalar(key, value, agent_steps)

    # ------------------------------------------------------------------ checkpoints
    def save(self, version: int, model: dict[str, torch.Tensor], optim: dict[str, torch.Tensor], state: dict) -> Path:
        final = self.run_dir / "checkpoints" / f"{version:08d}"
        tmp = self.run_dir / "checkpoints" / f".tmp-{version:08d}-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        save_file({k: v.contiguous() for k, v in model.items()}, str(tmp / "model.safetensors"))
        save_file(optim or {"empty": torch.zeros(1)}, str(tmp / "optim.safetensors"))
        (tmp / "state.json").write_text(json.dumps({**state, "version": version, "config": self.config.to_dict()}))
        for f in tmp.iterdir():
            with open(f, "rb") as fh:
                os.fsync(fh.fileno())
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
        for old in sorted(p for p in (self.run_dir / "checkpoints").iterdir() if p.name.isdigit())[:-KEEP_CHECKPOINTS]:
            shutil.rmtree(old, ignore_errors=True)
        return final

    def close(self) -> None:
        self._metrics.close()
        if self._writer is not None:
            self._writer.close()


def new_run_dir(config: TrainConfig) -> Path:
    """``runs_dir/name`` for a new run (a name from the date and time when none is set); refuses a folder that
    already holds checkpoints, which only ``--resume`` may continue."""
    from datetime import datetime

    name = config.run.name or datetime.now().strftime("%Y%m%d-%H%M%S")
    run_dir = Path(config.run.runs_dir) / name
    if (run_dir / "checkpoints").exists() and any((run_dir / "checkpoints").iterdir()):
        raise FileExistsError(f"run {run_dir} already has checkpoints; resume it with --resume {run_dir} or "
                              f"choose another run.name")
    return run_dir


