"""The controller: the run's directory, versions, checkpoints and metrics.

A run on disk: ``runs/NAME/config.toml``, ``checkpoints/VERSION/{model.safetensors, optim.safetensors,
state.json}``, ``tb/`` (TensorBoard) and ``metrics.jsonl``. Checkpoints are written to a temporary folder and
renamed into place, so a run killed mid-write keeps its previous checkpoint. Nothing is unpickled.

One process at a time writes a run: a controller holds an exclusive lock on ``runs/NAME/.lock`` (``flock``; the
file names its holder) from its start to ``close``, so a second process that starts or resumes the same run (the
same ``run.name`` twice, or a ``--resume`` of a run still training) is one clear error (``RunInUse``) instead of
two writers in one folder. The system releases the lock when the holder dies, so a killed run starts or resumes
again at once. Controllers of one process share the lock (a test that reopens its own run).
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import shutil
import socket
import time
from pathlib import Path

import torch
from safetensors.torch import save_file

from fivestack.runs.config import TrainConfig, to_toml

KEEP_CHECKPOINTS = 3


class RunStopped(RuntimeError):
    """A run that cannot go on (an optimizer lost with its node); it resumes from its last checkpoint."""


class RunInUse(FileExistsError):
    """Another process holds the run's folder (it is training or resuming it now)."""


LOCK_FILE = ".lock"
_held: dict[Path, list] = {}  # the run folders this process holds: resolved path -> [open lock file, holders]


def hold_run_dir(run_dir: Path) -> None:
    """Take the run's lock for this process (the module docstring), or raise ``RunInUse`` naming the holder."""
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    key = run_dir.resolve()
    if key in _held:
        _held[key][1] += 1
        return
    lock = open(run_dir / LOCK_FILE, "a+")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip() or "a process"
        lock.close()
        raise RunInUse(f"run {run_dir} is in use by another process ({holder}); wait for it to end or stop it, or "
                       f"choose another run.name") from None
    lock.seek(0)
    lock.truncate()
    lock.write(f"pid {os.getpid()} on {socket.gethostname()}\n")
    lock.flush()
    _held[key] = [lock, 1]


def release_run_dir(run_dir: Path) -> None:
    """This process's holder of the run is done; the last one frees the lock."""
    key = Path(run_dir).resolve()
    if key not in _held:
        return
    _held[key][1] -= 1
    if _held[key][1] == 0:
        _held.pop(key)[0].close()  # closing the file releases the flock


class Controller:
    def __init__(self, run_dir: Path, config: TrainConfig):
        self.run_dir = Path(run_dir)
        self.config = config
        hold_run_dir(self.run_dir)
        self._closed = False
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
        if not self._closed:
            self._closed = True
            release_run_dir(self.run_dir)


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


