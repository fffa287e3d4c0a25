"""Inference: the one batched forward pass of a parameter version for many teams at once.

    forward_arrays(policy, obs, state, first, hero_slots, generator, value_scale, greedy, device)
        -> ForwardArrays(actions, head_log_prob, value, win_prob, state): numpy in, numpy out. The forward pass of
        every runner: the arrays go to the policy's device (pinned host memory and an asynchronous copy on a
        GPU), the pass runs under bf16 autocast on a GPU (log-probabilities, values and win probabilities in
        fp32) and exactly as before in fp32 on the CPU; the results come back as numpy (the LSTM state fp32).
    forward(policy, request, generator, value_scale, version, greedy, device) -> InferenceResult
        the same for one ``InferenceRequest``.
    concatenate_requests(requests) / split_result(result, teams)
        several rollout workers' requests as one batch, and the batch's result cut back into one per request
        (a batching inference actor: concatenate, ``forward``, split).
    Inference
        a policy at a known version with its value scale and sampling generator (on the policy's device):
        the serial runner's, the evaluator's, the past opponents' and ``PolicyTeamAgent``'s ``infer`` callable.
    InferenceRequest / InferenceResult
        what goes in (team-major observations, hero slots, LSTM state, new-game flags) and comes out (actions,
        log-probabilities, values, win probabilities, the next LSTM state, the version).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch

from fivestack.model.policy import Policy
from fivestack.match.device import autocast, device_of, to_device


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
    head_log_prob: np.ndarray  # (T, K, 4) per action head (``model.policy.HEADS``; 0 for a parameter not used)
    value: np.ndarray  # (T, K), in reward units (denormalised)
    win_prob: np.ndarray  # (T, K)
    state: tuple[np.ndarray, np.ndarray]
    version: int

    @property
    def log_prob(self) -> np.ndarray:
        """(T, K) each action's whole log-probability: the sum over its heads."""
        return self.head_log_prob.sum(-1)

    @staticmethod
    def merge(n_teams: int, parts: list[tuple[np.ndarray, "InferenceResult"]], version: int) -> "InferenceResult":
        """One result for ``n_teams`` teams from results for disjoint sets of rows; ``version`` is the learner's."""
        rows0, first = parts[0]
        k = first.actions.shape[1]

        def empty(arr: np.ndarray) -> np.ndarray:
            return np.empty((n_teams, *arr.shape[1:]), arr.dtype)

        out = InferenceResult(empty(first.actions), empty(first.head_log_prob), empty(first.value), empty(first.win_prob),
                              tuple(np.empty((n_teams * k, s.shape[-1]), s.dtype) for s in first.state), version)
        for rows, part in parts:
            for name in ("actions", "head_log_prob", "value", "win_prob"):
                getattr(out, name)[rows] = getattr(part, name)
            for full, piece in zip(out.state, part.state):
                full.reshape(n_teams, k, -1)[rows] = piece.reshape(len(rows), k, -1)
        return out


class ForwardArrays(NamedTuple):
    """What one forward pass returns for T teams of K heroes, as numpy arrays."""

    actions: np.ndarray  # (T, K, 5) int64
    head_log_prob: np.ndarray  # (T, K, 4) float32, per action head
    value: np.ndarray  # (T, K) float32, in reward units (times value_scale)
    win_prob: np.ndarray  # (T, K) float32
    state: tuple[np.ndarray, np.ndarray]  # LSTM (h, c), each (T * K, H) float32


def _numpy(tensor: torch.Tensor) -> np.ndarray:
    if tensor.dtype in (torch.bfloat16, torch.float16):  # the LSTM state under autocast
        tensor = tensor.float()
    return tensor.cpu().numpy()


@torch.inference_mode()  # no autograd bookkeeping at all: ~20% off a small batch's forward pass
def forward_arrays(policy: Policy, obs: dict[str, np.ndarray], state: tuple[np.ndarray, np.ndarray],
                   first: np.ndarray, hero_slots: np.ndarray, generator: torch.Generator, value_scale: float = 1.0,
                   greedy: bool = False, device: torch.device | str | None = None) -> ForwardArrays:
    """One step of ``policy`` for T teams x K heroes: obs groups (T, ...) and (T, K, ...), state (h, c) each
    (T * K, H), first (T,), hero_slots (T, K). ``device`` is where the policy is (None: read off the policy);
    ``generator`` must live there too. ``greedy`` plays each head's most likely choice (evaluation)."""
    device = device_of(policy) if device is None else torch.device(device)
    if generator is not None and generator.device.type != device.type:
        raise ValueError(f"the sampling generator is on {generator.device} but the forward pass runs on {device}: "
                         f"make it with torch.Generator(device={str(device)!r})")
    obs_t = {name: to_device(arr, device) for name, arr in obs.items()}
    state_t = (to_device(state[0], device), to_device(state[1], device))
    with autocast(device):
        actions, head_log_prob, value, win_prob, (h, c) = policy.act(
            obs_t, state_t, to_device(first, device), to_device(hero_slots, device), generator, greedy)
    return ForwardArrays(_numpy(actions), _numpy(head_log_prob), _numpy(value) * value_scale, _numpy(win_prob),
                         (_numpy(h), _numpy(c)))


def forward(policy: Policy, request: InferenceRequest, generator: torch.Generator, value_scale: float = 1.0,
            version: int = 0, greedy: bool = False, device: torch.device | str | None = None) -> InferenceResult:
    """``forward_arrays`` for one request; the result is stamped with ``version``."""
    out = forward_arrays(policy, request.obs, request.state, request.first, request.hero_slots, generator,
                         value_scale, greedy, device)
    return InferenceResult(actions=out.actions, head_log_prob=out.head_log_prob, value=out.value, win_prob=out.win_prob,
                           state=out.state, version=version)


def concatenate_requests(requests: list[InferenceRequest]) -> InferenceRequest:
    """Several requests (same K heroes per team, same groups) as one batch of their teams, in order."""
    if len(requests) == 1:
        return requests[0]
    return InferenceRequest(obs={name: np.concatenate([r.obs[name] for r in requests]) for name in requests[0].obs},
                            hero_slots=np.concatenate([r.hero_slots for r in requests]),
                            state=(np.concatenate([r.state[0] for r in requests]),
                                   np.concatenate([r.state[1] for r in requests])),
                            first=np.concatenate([r.first for r in requests]))


def split_result(result: InferenceResult, teams: list[int]) -> list[InferenceResult]:
    """The result of a concatenated batch cut back into one result per request of ``teams[i]`` teams (views,
    not copies)."""
    k = result.actions.shape[1]
    parts, at = [], 0
    for t in teams:
        rows, state_rows = slice(at, at + t), slice(at * k, (at + t) * k)
        parts.append(InferenceResult(result.actions[rows], result.head_log_prob[rows], result.value[rows],
                                     result.win_prob[rows], (result.state[0][state_rows], result.state[1][state_rows]),
                                     result.version))
        at += t
    if at != len(result.actions):
        raise ValueError(f"the requests hold {at} teams but the result has {len(result.actions)}")
    return parts


class Inference:
    """Holds a policy at a known version; ``value_scale`` turns normalised values back into reward units.
    ``greedy`` plays each head's most likely choice instead of sampling (evaluation only). ``device`` (None: where
    the policy already is) is where the policy is moved and its forward passes run; the sampling generator
    lives there too."""

    def __init__(self, policy: Policy, seed: int = 0, greedy: bool = False, device: torch.device | str | None = None):
        self.device = device_of(policy) if device is None else torch.device(device)
        self.policy = policy.to(self.device)
        self.greedy = greedy
        self.version = 0
        self.value_scale = 1.0
        self.seed = seed
        self.generator = torch.Generator(device=self.device).manual_seed(seed)

    def load(self, state_dict: dict, version: int, value_scale: float) -> None:
        self.policy.load_state_dict(state_dict)
        self.version = version
        self.value_scale = value_scale

    def __call__(self, request: InferenceRequest) -> InferenceResult:
        return forward(self.policy, request, self.generator, self.value_scale, self.version, self.greedy,
                       self.device)

    def rng_state(self) -> torch.Tensor:
        """The sampling generator's state, a CPU byte tensor (its size depends on the device's generator)."""
        return self.generator.get_state()

    def set_rng_state(self, state: torch.Tensor) -> bool:
        """Continue the sampling where ``state`` left it. A state from another device's generator (a checkpoint
        written on a GPU, resumed on the CPU, or the reverse) cannot continue here: the generator restarts from
        the seed instead and this returns False."""
        if state.numel() != self.generator.get_state().numel():
            self.generator.manual_seed(self.seed)
            return False
        self.generator.set_state(state)
        return True


def initial_state(n_rows: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((n_rows, size), np.float32), np.zeros((n_rows, size), np.float32)
