"""The messages between components (plain numpy, so that they cross process boundaries unchanged).

    RolloutWorker --InferenceRequest--> Inference --InferenceResult--> RolloutWorker
    RolloutWorker --SampleBatch (one 256-step segment, cut into 16-step samples)--> SampleBuffer
    SampleBuffer --SampleBatch (a training batch)--> Optimizer --parameters, version--> Controller
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np



@dataclass
class SampleBatch:
    """S samples of L timesteps, one team (K heroes) each, with everything the optimizer needs."""

    obs: dict[str, np.ndarray]  # team groups (S, L, ...), hero groups (S, L, K, ...)
    hero_slots: np.ndarray  # (S, K)
    actions: np.ndarray  # (S, L, K, 5)
    teacher_actions: np.ndarray  # (S, L, K, 5) the teacher bot's action at each step (``ppo.teacher``); -1: none
    head_log_prob: np.ndarray  # (S, L, K, 4) the behaviour policy's, per action head (``model.policy.HEADS``)
    advantages: np.ndarray  # (S, L, K)
    returns: np.ndarray  # (S, L, K), reward units
    win_target: np.ndarray  # (S, L, K)
    first: np.ndarray  # (S, L)
    h0: np.ndarray  # (S, K, H) LSTM state at each sample's first step
    c0: np.ndarray
    version: np.ndarray  # (S,) parameter version that produced the sample
    info: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return self.first.shape[0]

    @property
    def log_prob(self) -> np.ndarray:
        """(S, L, K) the behaviour policy's log-probability of each action: the sum over its heads."""
        return self.head_log_prob.sum(-1)

    def select(self, index: np.ndarray) -> "SampleBatch":
        return SampleBatch(obs={k: v[index] for k, v in self.obs.items()},
                           **{name: getattr(self, name)[index] for name in SAMPLE_ARRAYS})

    @staticmethod
    def concat(batches: list["SampleBatch"]) -> "SampleBatch":
        return SampleBatch(obs={k: np.concatenate([b.obs[k] for b in batches]) for k in batches[0].obs},
                           **{name: np.concatenate([getattr(b, name) for b in batches]) for name in SAMPLE_ARRAYS})


# every per-sample array of a SampleBatch beside its observations
SAMPLE_ARRAYS = ("hero_slots", "actions", "teacher_actions", "head_log_prob", "advantages", "returns", "win_target",
                 "first", "h0", "c0", "version")
