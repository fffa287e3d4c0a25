"""Where the forward passes and the optimizer run: ``[run] device = "cpu" | "cuda" | "auto"``.

    resolve_device(name)        -> torch.device; "cuda" without a CUDA GPU is one ``ConfigError`` line naming the
                                   fix, "auto" takes the GPU when there is one, else the CPU with a one-line notice
    autocast(device)            -> bf16 autocast on CUDA, nothing on the CPU (the CPU path stays bit-exact fp32)
    to_device(array, device)    -> a numpy array as a tensor there (through pinned memory when it goes to a GPU)
    to_cpu(tensors)             -> a checkpoint's tensors on the CPU, so that a run written on a GPU loads anywhere

Rollouts (the simulator) always run on the CPU; only batched forward passes and the optimizer move.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Callable

import numpy as np
import torch

from fivestack.runs.config import DEVICES, ConfigError


def _stderr_line(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def resolve_device(name: str, notice: Callable[[str], None] = _stderr_line) -> torch.device:
    """The torch device for ``run.device``; ``notice`` receives the one line said when "auto" falls back."""
    if name not in DEVICES:
        raise ConfigError(f"run.device must be one of {', '.join(repr(d) for d in DEVICES)}, got {name!r}")
    if name == "cpu":
        return torch.device("cpu")
    if torch.cuda.is_available():
        return torch.device("cuda")
    why = (f"torch {torch.__version__} is built without CUDA" if torch.version.cuda is None
           else f"torch {torch.__version__} sees no CUDA GPU")
    if name == "cuda":
        raise ConfigError(f'run.device = "cuda" but {why}; use --set run.device=cpu (or auto, which takes a GPU '
                          "when there is one)")
    notice(f'run.device = "auto": {why}; training on the CPU')
    return torch.device("cpu")


def autocast(device: torch.device | str) -> contextlib.AbstractContextManager:
    """bf16 autocast for a CUDA device (matrix products and the LSTM in bf16; the policy computes its
    log-probabilities, entropies and values in fp32); no autocast on the CPU."""
    device = torch.device(device)
    if device.type == "cuda":
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def to_device(array: np.ndarray, device: torch.device | str) -> torch.Tensor:
    """``torch.from_numpy(array)`` on ``device``: no copy on the CPU; to a GPU through pinned (page-locked) host
    memory with an asynchronous copy, which the next kernel on the same stream waits for."""
    device = torch.device(device)
    if device.type == "cpu":
        return torch.from_numpy(array)
    return torch.from_numpy(np.ascontiguousarray(array)).pin_memory().to(device, non_blocking=True)


def to_cpu(tensors: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Every tensor on the CPU and contiguous (what a safetensors file stores); CPU tensors are not copied."""
    return {name: t.detach().to("cpu").contiguous() for name, t in tensors.items()}


def device_of(module: torch.nn.Module) -> torch.device:
    """The device of a module's parameters (the CPU for a module without any)."""
    for p in module.parameters():
        return p.device
    return torch.device("cpu")


__all__ = ["DEVICES", "resolve_device", "autocast", "to_device", "to_cpu", "device_of"]
