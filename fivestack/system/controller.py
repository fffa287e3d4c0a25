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
import warnings
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from fivestack.system.config import ConfigError, TrainConfig, from_dict, to_toml

CHECKPOINT_FILES = ("model.safetensors", "optim.safetensors", "state.json")
KEEP_CHECKPOINTS = 3


class CheckpointError(ValueError):
    """A missing or damaged checkpoint."""


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


class CheckpointFallbackWarning(UserWarning):
    """The newest checkpoint is damaged; an older one is used instead."""


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


def latest_checkpoint(run_dir: Path) -> Path:
    """The newest checkpoint that loads. A damaged newest one (a truncated file, a missing file, a broken
    state.json) is skipped with a warning naming it and the checkpoint used instead; if none loads, the newest
    one's error is raised."""
    folder = Path(run_dir) / "checkpoints"
    if not Path(run_dir).is_dir():
        raise CheckpointError(f"run {run_dir} does not exist; pass an existing run folder to --resume, e.g. runs/NAME")
    found = sorted(p for p in folder.iterdir() if p.name.isdigit()) if folder.is_dir() else []
    if not found:
        raise CheckpointError(f"run {run_dir} has no checkpoint yet (nothing in {folder}); start it again without "
                              f"--resume")
    first_error = None
    for path in reversed(found):
        try:
            load_checkpoint(path)
        except CheckpointError as exc:
            first_error = first_error or exc
            continue
        if first_error is not None:
            warnings.warn(f"{first_error} -- falling back to the previous checkpoint {path}",
                          CheckpointFallbackWarning, stacklevel=2)
        return path
    raise first_error


def load_checkpoint(path: Path) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor], dict]:
    """(model tensors, optimizer tensors, state) with one clear error for each way a checkpoint can be broken."""
    path = Path(path)
    for name in CHECKPOINT_FILES:
        if not (path / name).is_file():
            raise CheckpointError(f"checkpoint {path} is missing {name}; resume from another checkpoint or delete "
                                  f"this folder")
    try:
        model = load_file(str(path / "model.safetensors"))
        optim = load_file(str(path / "optim.safetensors"))
    except (SafetensorError, OSError, ValueError) as exc:
        raise CheckpointError(f"checkpoint {path} is corrupted ({exc}); delete it to resume from the one "
                              f"before") from None
    try:
        state = json.loads((path / "state.json").read_text())
        from_dict(state["config"])
        int(state["version"])
    except (json.JSONDecodeError, KeyError, TypeError, ValueError, ConfigError) as exc:
        raise CheckpointError(f"checkpoint {path} has a damaged state.json ({exc}); delete it to resume from the "
                              f"one before") from None
    return model, optim, state
