"""Supervised training of the policy on clone shards: cross-entropy on the teacher's labels, every head the
label's action uses (primary, delay, unit target, offsets), through the LSTM.

Truncated BPTT over recorded streams: a shard's streams are cut into ``rollout.sample_steps``-step chunks and
read in order, the LSTM state carried from one chunk to the next (detached) and reset where a game starts, as
in play. A shard starts mid-game from a zero state, so its first ``clone.burn_in`` steps carry no loss (except
after a game's own start). Each gradient step takes one chunk of ``clone.batch_streams`` streams; ``clone.mix``
shards are read at once and their streams interleaved, so that consecutive steps see different games.

    SupervisedTrainer.train_pass(files)   one pass over the training shards -> mean per-head metrics
    SupervisedTrainer.evaluate(files)     the held-out shards' per-head loss and accuracy (no gradient)
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import numpy as np
import torch

from fivestack.model.policy import Policy
from fivestack.rl.imitation import imitation_loss, per_head_metrics
from fivestack.rl.optim import clip_by_adam_second_moment
from fivestack.system.clone.shards import Shard, ShardStore
from fivestack.runs.config import CloneConfig
from fivestack.system.metrics import mean_metrics


def loss_weight(first: np.ndarray, burn_in: int) -> np.ndarray:
    """(steps, streams) 1 where a step is trained on: past the burn-in, or at or after a game's start in the shard
    (the LSTM state is then exact)."""
    started = np.maximum.accumulate(first.astype(bool), axis=0)
    late = (np.arange(first.shape[0]) >= burn_in)[:, None]
    return (started | late).astype(np.float32)


class SupervisedTrainer:
    def __init__(self, policy: Policy, config: CloneConfig, sample_steps: int, seed: int = 0):
        self.policy = policy
        self.device = next(policy.parameters()).device
        self.config = config
        self.sample_steps = sample_steps
        self.adam = torch.optim.Adam(policy.parameters(), lr=config.learning_rate, eps=1e-5)
        self.rng = np.random.default_rng([int(seed), 0xC10E])
        self.grad_steps = 0
        self.update_normalizers = True  # the first pass sets the input normalisers' statistics

    # ------------------------------------------------------------------ one chunk of streams
    def _chunk(self, shard: Shard, streams: np.ndarray, start: int, weight: np.ndarray, state, train: bool):
        """Score chunk [start, start + L) of ``streams``; returns (LabelScores, weight (B, L, K), state after)."""
        end = start + self.sample_steps

        def tensor(arr: np.ndarray) -> torch.Tensor:  # (steps, streams, ...) -> (streams, steps, ...)
            return torch.from_numpy(np.ascontiguousarray(np.swapaxes(arr[start:end, streams], 0, 1))).to(self.device)

        obs = {name: tensor(arr) for name, arr in shard.obs.items()}
        first = tensor(shard.first).float()
        labels = tensor(shard.labels)
        w = tensor(weight)
        if train and self.update_normalizers:
            self.policy.update_normalizers({k: v.flatten(0, 1) for k, v in obs.items()})
        seq = self.policy.sequence_core(obs, state, first, torch.from_numpy(shard.hero_slots[streams]).to(self.device))
        scores = self.policy.score_labels(seq, labels)
        k = labels.shape[2]
        return scores, w[..., None].expand(-1, -1, k), tuple(s.detach() for s in seq.state)

    def _groups(self, n_streams: int, shuffle: bool) -> list[np.ndarray]:
        order = self.rng.permutation(n_streams) if shuffle else np.arange(n_streams)
        b = self.config.batch_streams
        return [order[i:i + b] for i in range(0, n_streams, b)]

    def _zero_state(self, streams: np.ndarray, k: int):
        z = torch.zeros(streams.size * k, self.policy.config.lstm_size, device=self.device)
        return z, z.clone()

    # ------------------------------------------------------------------ passes
    def train_pass(self, store: ShardStore, files: list[str], on_step: Callable[[dict], None] | None = None) -> dict:
        """One pass over ``files`` in a random order, ``clone.mix`` shards at a time; returns the pass's mean
        training metrics (``clone_train/...``)."""
        files = [files[i] for i in self.rng.permutation(len(files))]
        batches = [files[i:i + self.config.mix] for i in range(0, len(files), self.config.mix)]
        records = []
        with ThreadPoolExecutor(1) as pool:  # the next shards are read and inflated while this one trains
            pending = pool.submit(_load, store, batches[0]) if batches else None
            for b in range(len(batches)):
                shard = pending.result()
                pending = pool.submit(_load, store, batches[b + 1]) if b + 1 < len(batches) else None
                records += self._train_shard(shard, on_step)
        self.update_normalizers = False
        return mean_metrics(records)

    def _train_shard(self, shard: Shard, on_step) -> list[dict]:
        weight = loss_weight(shard.first, self.config.burn_in)
        k = shard.labels.shape[2]
        groups = self._groups(shard.streams, shuffle=True)
        states = [self._zero_state(g, k) for g in groups]
        records = []
        self.policy.train()
        for start in range(0, shard.steps - self.sample_steps + 1, self.sample_steps):
            for i, streams in enumerate(groups):
                scores, w, states[i] = self._chunk(shard, streams, start, weight, states[i], train=True)
                loss = imitation_loss(scores, w)
                self.adam.zero_grad(set_to_none=True)
                loss.backward()
                clip_by_adam_second_moment(self.adam, self.config.grad_clip)
                self.adam.step()
                self.grad_steps += 1
                record = per_head_metrics(scores, "clone_train", w)
                records.append(record)
                if on_step is not None:
                    on_step(record)
        return records

    @torch.no_grad()
    def evaluate(self, store: ShardStore, files: list[str]) -> dict:
        """Per-head loss and accuracy on the held-out shards (``clone_valid/...``), each chunk weighted by its
        labels."""
        sums: dict[str, float] = {}
        total = 0.0
        for name in files:
            shard = store.read(name)
            weight = loss_weight(shard.first, self.config.burn_in)
            k = shard.labels.shape[2]
            for streams in self._groups(shard.streams, shuffle=False):
                state = self._zero_state(streams, k)
                for start in range(0, shard.steps - self.sample_steps + 1, self.sample_steps):
                    scores, w, state = self._chunk(shard, streams, start, weight, state, train=False)
                    n = float((scores.valid.float() * w).sum())
                    for key, value in per_head_metrics(scores, "clone_valid", w).items():
                        sums[key] = sums.get(key, 0.0) + value * n
                    total += n
        return {key: value / max(total, 1.0) for key, value in sums.items()}


def _load(store: ShardStore, names: list[str]) -> Shard:
    shards = [store.read(name) for name in names]
    steps = min(s.steps for s in shards)
    if any(s.steps != steps for s in shards):  # shards of other lengths are cut to the shortest
        shards = [Shard({k: v[:steps] for k, v in s.obs.items()}, s.labels[:steps], s.actions[:steps],
                        s.first[:steps], s.hero_slots) for s in shards]
    return Shard.concat_streams(shards)
