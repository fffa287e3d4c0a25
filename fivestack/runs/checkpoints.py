"""What a run folder holds on disk, read back: its checkpoints and its opponent pool's snapshots.

    runs/NAME/checkpoints/VERSION/{model.safetensors, optim.safetensors, state.json}   (``Controller.save``)
    runs/NAME/pool/VERSION.safetensors                                                   (weights only)

    latest_checkpoint(run_dir)   the newest checkpoint that loads (a damaged newest one is skipped, with a warning)
    load_checkpoint(path)        (model tensors, optimizer tensors, state), one clear error per way it can break
    load_state(path)             the state alone; checkpoint_paths(run_dir) every checkpoint folder by version
    snapshot_path(pool_dir, v)   where past version v's weights live; read_snapshot(path, v) reads them

Everything is safetensors or JSON: nothing is unpickled. The writers are the training system's
(``fivestack.system.controller``, ``fivestack.system.pool``); the readers are here, below them, so that the apps
load a trained version (``fivestack.match.agents.load_run_policy``) without the training system.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file

from fivestack.runs.config import ConfigError, from_dict

CHECKPOINT_FILES = ("model.safetensors", "optim.safetensors", "state.json")


class CheckpointError(ValueError):
    """A missing or damaged checkpoint."""


class CheckpointFallbackWarning(UserWarning):
    """The newest checkpoint is damaged; an older one is used instead."""


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
    return model, optim, load_state(path)


def load_state(path: Path) -> dict:
    """A checkpoint's ``state.json`` alone (its version, agent-steps and config), checked as ``load_checkpoint``
    checks it, without reading the tensors."""
    path = Path(path)
    try:
        state = json.loads((path / "state.json").read_text())
        from_dict(state["config"])
        int(state["version"])
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError, ConfigError) as exc:
        raise CheckpointError(f"checkpoint {path} has a damaged state.json ({exc}); delete it to resume from the "
                              f"one before") from None
    return state


def checkpoint_paths(run_dir: Path) -> dict[int, Path]:
    """The run's checkpoint folders by version (whether they load or not: ``load_checkpoint`` says)."""
    folder = Path(run_dir) / "checkpoints"
    return {int(p.name): p for p in folder.glob("[0-9]*") if p.name.isdigit()}


class PoolError(ValueError):
    """A past version that is not in the pool or whose file is missing or damaged."""


def snapshot_path(pool_dir: Path, version: int) -> Path:
    """The file of past ``version`` in a run's pool folder."""
    return Path(pool_dir) / f"{version:08d}.safetensors"


def read_snapshot(path: Path, version: int) -> dict[str, torch.Tensor]:
    """The weights of past ``version`` stored at ``path``, with one clear error if the file is missing or damaged."""
    if not path.is_file():
        raise PoolError(f"past version {version} has no file {path}; the run's pool folder is incomplete "
                        f"(restore it, or resume from a checkpoint whose pool matches)")
    try:
        return load_file(str(path))
    except (SafetensorError, OSError, ValueError) as exc:
        raise PoolError(f"past version {version} ({path}) is corrupted ({exc}); restore the file from a "
                        f"backup or resume from a checkpoint taken before it joined the pool") from None
