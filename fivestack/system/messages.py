"""The messages between components (plain numpy, so that they cross process boundaries unchanged).

    RolloutWorker --InferenceRequest--> Inference --InferenceResult--> RolloutWorker
    RolloutWorker --SampleBatch (one 256-step segment, cut into 16-step samples)--> ExperienceBuffer
    ExperienceBuffer --SampleBatch (a training batch)--> Optimizer --parameters, version--> Controller
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fivestack.model.policy import FLOAT_HERO_GROUPS, MASK_GROUPS

HERO_AXIS_GROUPS = FLOAT_HERO_GROUPS + MASK_GROUPS  # groups with a per-hero axis after the team axis


@dataclass
class InferenceRequest:
    obs: dict[str, np.ndarray]  # team groups (T, ...), hero groups (T, K, ...)
    hero_slots: np.ndarray  # (T, K)
    state: tuple[np.ndarray, np.ndarray]  # LSTM (h, c), each (T * K, H)
    first: np.ndarray  # (T,) 1 where a new game starts (the LSTM state is reset)


@dataclass
class InferenceResult:
    actions: np.ndarray  # (T, K, 5)
    log_prob: np.ndarray  # (T, K)
    value: np.ndarray  # (T, K), in reward units (denormalised)
    win_prob: np.ndarray  # (T, K)
    state: tuple[np.ndarray, np.ndarray]
    version: int


@dataclass
class SampleBatch:
    """S samples of L timesteps, one team (K heroes) each, with everything the optimizer needs."""

    obs: dict[str, np.ndarray]  # team groups (S, L, ...), hero groups (S, L, K, ...)
    hero_slots: np.ndarray  # (S, K)
    actions: np.ndarray  # (S, L, K, 5)
    log_prob: np.ndarray  # (S, L, K)
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

    def select(self, index: np.ndarray) -> "SampleBatch":
        return SampleBatch(
            obs={k: v[index] for k, v in self.obs.items()}, hero_slots=self.hero_slots[index],
            actions=self.actions[index], log_prob=self.log_prob[index], advantages=self.advantages[index],
            returns=self.returns[index], win_target=self.win_target[index], first=self.first[index],
            h0=self.h0[index], c0=self.c0[index], version=self.version[index])

    @staticmethod
    def concat(batches: list["SampleBatch"]) -> "SampleBatch":
        first = batches[0]
        return SampleBatch(
            obs={k: np.concatenate([b.obs[k] for b in batches]) for k in first.obs},
            **{name: np.concatenate([getattr(b, name) for b in batches])
               for name in ("hero_slots", "actions", "log_prob", "advantages", "returns", "win_target", "first",
                            "h0", "c0", "version")})
