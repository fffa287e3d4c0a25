"""The messages between components (plain numpy, so that they cross process boundaries unchanged).

    RolloutWorker --InferenceRequest--> Inference --InferenceResult--> RolloutWorker
    RolloutWorker --SampleBatch (one 256-step segment, cut into 16-step samples)--> SampleBuffer
    SampleBuffer --SampleBatch (a training batch)--> Optimizer --parameters, version--> Controller
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fivestack.model.policy import FLOAT_HERO_GROUPS, HERO_INT_GROUPS, MASK_GROUPS

HERO_AXIS_GROUPS = FLOAT_HERO_GROUPS + MASK_GROUPS + HERO_INT_GROUPS  # groups with a per-hero axis after the team axis


@dataclass
class InferenceRequest:
    obs: dict[str, np.ndarray]  # team groups (T, ...), hero groups (T, K, ...)
    hero_slots: np.ndarray  # (T, K)
    state: tuple[np.ndarray, np.ndarray]  # LSTM (h, c), each (T * K, H)
    first: np.ndarray  # (T,) 1 where a new game starts (the LSTM state is reset)

    def select(self, rows: np.ndarray) -> "InferenceRequest":
        """The request for teams ``rows`` only (e.g. those a past version plays)."""
        k = self.hero_slots.shape[1]
        state = tuple(s.reshape(-1, k, s.shape[-1])[rows].reshape(-1, s.shape[-1]) for s in self.state)
        return InferenceRequest({name: arr[rows] for name, arr in self.obs.items()}, self.hero_slots[rows], state,
                                self.first[rows])


@dataclass
class InferenceResult:
    actions: np.ndarray  # (T, K, 5)
    log_prob: np.ndarray  # (T, K)
    value: np.ndarray  # (T, K), in reward units (denormalised)
    win_prob: np.ndarray  # (T, K)
    state: tuple[np.ndarray, np.ndarray]
    version: int

    @staticmethod
    def merge(n_teams: int, parts: list[tuple[np.ndarray, "InferenceResult"]], version: int) -> "InferenceResult":
        """One result for ``n_teams`` teams from results for disjoint sets of rows; ``version`` is the learner's."""
        rows0, first = parts[0]
        k = first.actions.shape[1]

        def empty(arr: np.ndarray) -> np.ndarray:
            return np.empty((n_teams, *arr.shape[1:]), arr.dtype)

        out = InferenceResult(empty(first.actions), empty(first.log_prob), empty(first.value), empty(first.win_prob),
                              tuple(np.empty((n_teams * k, s.shape[-1]), s.dtype) for s in first.state), version)
        for rows, part in parts:
            for name in ("actions", "log_prob", "value", "win_prob"):
                getattr(out, name)[rows] = getattr(part, name)
            for full, piece in zip(out.state, part.state):
                full.reshape(n_teams, k, -1)[rows] = piece.reshape(len(rows), k, -1)
        return out


@dataclass
class SampleBatch:
    """S samples of L timesteps, one team (K heroes) each, with everything the optimizer needs."""

    obs: dict[str, np.ndarray]  # team groups (S, L, ...), hero groups (S, L, K, ...)
    hero_slots: np.ndarray  # (S, K)
    actions: np.ndarray  # (S, L, K, 5)
    teacher_actions: np.ndarray  # (S, L, K, 5) the teacher bot's action at each step (``ppo.teacher``); -1: none
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
        return SampleBatch(obs={k: v[index] for k, v in self.obs.items()},
                           **{name: getattr(self, name)[index] for name in SAMPLE_ARRAYS})

    @staticmethod
    def concat(batches: list["SampleBatch"]) -> "SampleBatch":
        return SampleBatch(obs={k: np.concatenate([b.obs[k] for b in batches]) for k in batches[0].obs},
                           **{name: np.concatenate([getattr(b, name) for b in batches]) for name in SAMPLE_ARRAYS})


# every per-sample array of a SampleBatch beside its observations
SAMPLE_ARRAYS = ("hero_slots", "actions", "teacher_actions", "log_prob", "advantages", "returns", "win_target", "first",
                 "h0", "c0", "version")
