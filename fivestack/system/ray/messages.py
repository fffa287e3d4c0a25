"""What crosses an actor boundary: dicts of numpy arrays and plain values (no torch tensors, nothing pickled
that a peer could not rebuild), and the names actors find each other by."""

from __future__ import annotations

import numpy as np
import torch

from fivestack.system.config import TrainConfig
from fivestack.system.messages import SAMPLE_ARRAYS, SampleBatch

CONTROLLER = "controller"  # the controller actor's name in the run's namespace
KEEP_VERSIONS = 8  # parameter versions the controller keeps for workers that ask for one by number


def batch_to_message(batch: SampleBatch) -> dict:
    out = {f"obs.{k}": v for k, v in batch.obs.items()}
    out.update({k: getattr(batch, k) for k in SAMPLE_ARRAYS})
    return out


def message_to_batch(message: dict) -> SampleBatch:
    obs = {k[4:]: v for k, v in message.items() if k.startswith("obs.")}
    return SampleBatch(obs=obs, **{k: message[k] for k in SAMPLE_ARRAYS})


def to_numpy(tensors: dict[str, torch.Tensor]) -> dict[str, np.ndarray]:
    return {k: v.detach().cpu().numpy().copy() for k, v in tensors.items()}


def to_torch(arrays: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    return {k: torch.from_numpy(np.array(v)) for k, v in arrays.items()}


def set_threads(config: TrainConfig) -> None:
    torch.set_num_threads(config.run.torch_threads or 1)
