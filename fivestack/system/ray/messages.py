"""What crosses an actor boundary: dicts of numpy arrays and plain values (no torch tensors, nothing pickled
that a peer could not rebuild), and the names actors find each other by."""

from __future__ import annotations

import numpy as np
import torch

from fivestack.runs.config import TrainConfig
from fivestack.system.messages import SAMPLE_ARRAYS, SampleBatch
from fivestack.match.inference import InferenceRequest, InferenceResult

CONTROLLER = "controller"  # the controller actor's name in the run's namespace
KEEP_VERSIONS = 8  # parameter versions the controller keeps for workers that ask for one by number


def batch_to_message(batch: SampleBatch) -> dict:
    out = {f"obs.{k}": v for k, v in batch.obs.items()}
    out.update({k: getattr(batch, k) for k in SAMPLE_ARRAYS})
    return out


def message_to_batch(message: dict) -> SampleBatch:
    obs = {k[4:]: v for k, v in message.items() if k.startswith("obs.")}
    return SampleBatch(obs=obs, **{k: message[k] for k in SAMPLE_ARRAYS})


def request_to_message(request: InferenceRequest) -> dict:
    """A request for the Ray call (the fallback hop across machines; ``channel.py`` on one machine)."""
    return {"obs": request.obs, "hero_slots": request.hero_slots, "state": request.state, "first": request.first}


def message_to_request(message: dict) -> InferenceRequest:
    return InferenceRequest(message["obs"], message["hero_slots"], tuple(message["state"]), message["first"])


def result_to_message(result: InferenceResult) -> dict:
    return {"actions": result.actions, "head_log_prob": result.head_log_prob, "value": result.value,
            "win_prob": result.win_prob, "state": result.state, "version": result.version}


def message_to_result(message: dict) -> InferenceResult:
    return InferenceResult(message["actions"], message["head_log_prob"], message["value"], message["win_prob"],
                           tuple(message["state"]), message["version"])


def to_numpy(tensors: dict[str, torch.Tensor]) -> dict[str, np.ndarray]:
    return {k: v.detach().cpu().numpy().copy() for k, v in tensors.items()}


def to_torch(arrays: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    return {k: torch.from_numpy(np.array(v)) for k, v in arrays.items()}


def set_threads(config: TrainConfig) -> None:
    torch.set_num_threads(config.run.torch_threads or 1)
