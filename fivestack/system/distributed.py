"""A pool of optimizers that act as one: every gradient step is averaged across them by allreduce.

Each optimizer trains on its own batch of B samples; ``GradientSync`` (installed as ``Optimizer.sync``) makes
the step equal to one optimizer's step on the union batch of O x B samples:

- the advantages are standardised with the mean and std of the union batch (allreduced sums),
- the gradients are averaged, each optimizer's weighted by its share of the union's samples,
- the input normalisers and the reward scale absorb the statistics of every optimizer's new experience
  (allreduced moments), so that the optimizers' parameters, normalisers included, stay identical.

The process group is ``torch.distributed`` with the backend of the optimizers' device (``run.device``): gloo
on the CPU, NCCL when the optimizers' parameters are on CUDA GPUs (one GPU per optimizer); the collectives run
on the tensors where the parameters are.
"""

from __future__ import annotations

import socket
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as dist

from fivestack.model.normalizers import normalizer_input
from fivestack.model.policy import Policy
from fivestack.rl.normalize import RunningStd


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def backend_for(device: torch.device | str) -> str:
    """The collective backend for optimizers on ``device``: NCCL between CUDA GPUs, gloo on the CPU."""
    return "nccl" if torch.device(device).type == "cuda" else "gloo"


def init_group(rank: int, world: int, address: str, port: int, backend: str | None = None,
               timeout_s: float = 600.0, device: torch.device | str = "cpu") -> str:
    """Join the optimizers' process group; returns the backend used (``backend``, else the one for ``device``:
    whether a GPU is present does not matter, only where the optimizers' parameters are)."""
    if backend is None:
        backend = backend_for(device)
    if not dist.is_initialized():
        dist.init_process_group(backend, init_method=f"tcp://{address}:{port}", rank=rank, world_size=world,
                                timeout=timedelta(seconds=timeout_s))
    return backend


def close_group() -> None:
    if dist.is_initialized():
        dist.destroy_process_group()


def _moments(x: np.ndarray) -> np.ndarray:
    """[n, sum over rows, sum of squares over rows] of (rows, width) values, accumulated in float64."""
    x = np.ascontiguousarray(x).reshape(-1, x.shape[-1])
    return np.concatenate([[float(x.shape[0])], x.sum(0, dtype=np.float64),
                           np.einsum("ij,ij->j", x, x, dtype=np.float64)])


def normalizer_widths(policy: Policy) -> dict[str, int]:
    return {key: int(norm.mean.numel()) for key, norm in policy.norms.items()}


def observation_moments(widths: dict[str, int], obs: dict[str, np.ndarray], returns: np.ndarray,
                        keep: np.ndarray | None = None) -> np.ndarray:
    """One segment's statistics for the input normalisers (keyed as ``Policy.norms``) and the reward scale, as
    one float64 vector; cheap to send and to sum across segments and optimizers. ``keep`` (sorted sample
    indices): the statistics of those samples only, the same as of the segment with the others left out."""
    parts = []
    for key, width in widths.items():
        x = normalizer_input(key, obs, keep)  # with ``keep``: of the kept samples only
        parts.append(_moments(x) if x.size else np.zeros(1 + 2 * width))
    parts.append(_moments(np.asarray(returns if keep is None else returns[keep]).reshape(-1, 1)))
    return np.concatenate(parts)


class GradientSync:
    """The collective operations of one optimizer in the pool (one instance per process)."""

    def __init__(self, policy: Policy, world: int):
        self.policy = policy
        self.world = world
        self.norm_keys = list(policy.norms.keys())
        self.widths = normalizer_widths(policy)
        self._pending = self._zero_moments()
        self._count = 0.0  # this optimizer's samples in the current step, set by ``moments``
        self._total = 0.0

    @property
    def device(self) -> torch.device:
        """Where the policy's parameters are: the collectives' tensors go there (NCCL needs them on the GPU)."""
        return next(self.policy.parameters()).device

    def _zero_moments(self) -> torch.Tensor:
        return torch.zeros(sum(1 + 2 * w for w in self.widths.values()) + 3, dtype=torch.float64)

    # ------------------------------------------------------------------ statistics of new experience
    def observe(self, obs: dict[str, np.ndarray], returns: np.ndarray) -> None:
        """Accumulate a new segment's normaliser statistics (shared with the pool at the next step)."""
        self.add_observed(observation_moments(self.widths, obs, returns))

    def add_observed(self, moments: np.ndarray) -> None:
        """Accumulate statistics computed elsewhere (a rollout worker) with ``observation_moments``."""
        self._pending += torch.from_numpy(np.array(moments, np.float64))  # a writable copy (Ray's are read-only)

    def take_observed(self) -> torch.Tensor:
        """The statistics accumulated since the last step (and start a new accumulation)."""
        out, self._pending = self._pending, self._zero_moments()
        return out

    def apply_observed(self, return_std: RunningStd, pending: torch.Tensor | None = None) -> None:
        """Allreduce the accumulated statistics and fold them into every optimizer's normalisers."""
        total = (self.take_observed() if pending is None else pending).to(self.device, copy=True)
        dist.all_reduce(total)
        at = 0
        with torch.no_grad():
            for key in self.norm_keys:
                w = self.widths[key]
                n, s, sq = total[at], total[at + 1:at + 1 + w], total[at + 1 + w:at + 1 + 2 * w]
                at += 1 + 2 * w
                if n > 0:
                    mean = s / n
                    self.policy.norms[key].merge(float(n), mean, (sq / n - mean * mean).clamp_min(0.0))
        n, s, sq = (float(v) for v in total[at:at + 3])
        if n > 0:
            mean = s / n
            return_std.merge(n, mean, max(sq / n - mean * mean, 0.0))

    # ------------------------------------------------------------------ one gradient step
    def moments(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Mean and (unbiased) std of ``x`` over the union of every optimizer's batch."""
        flat = x.reshape(-1).double()
        counts = torch.tensor([float(flat.numel()), float(x.shape[0])], dtype=torch.float64, device=x.device)
        stats = torch.stack([counts[0], flat.sum(), (flat * flat).sum(), counts[1]])
        dist.all_reduce(stats)
        n, s, sq, samples = stats
        mean = s / n
        var = (sq - s * s / n) / (n - 1).clamp_min(1.0)
        self._count, self._total = float(x.shape[0]), float(samples)
        return mean.to(x.dtype), var.clamp_min(0.0).sqrt().to(x.dtype)

    @torch.no_grad()
    def average_gradients(self, parameters) -> None:
        """grad <- sum over optimizers of (their samples / union samples) x their grad; one flat allreduce."""
        params = list(parameters)
        weight = self._count / self._total if self._total > 0 else 1.0 / self.world
        device = params[0].device
        flags = torch.tensor([1.0 if p.grad is not None else 0.0 for p in params], device=device)
        flat = torch.cat([(p.grad.reshape(-1) if p.grad is not None else torch.zeros(p.numel(), device=device))
                          * weight for p in params] + [flags])
        dist.all_reduce(flat)
        at = 0
        for i, p in enumerate(params):
            n = p.numel()
            if flat[flat.numel() - len(params) + i] > 0:
                grad = flat[at:at + n].view_as(p)
                if p.grad is None:
                    p.grad = grad.clone()
                else:
                    p.grad.copy_(grad)
            at += n

    @staticmethod
    def broadcast_parameters(policy: Policy, src: int = 0) -> None:
        """Make every optimizer start from ``src``'s parameters and normalisers."""
        with torch.no_grad():
            for tensor in list(policy.parameters()) + list(policy.buffers()):
                dist.broadcast(tensor.data, src)
