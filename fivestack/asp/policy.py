"""Alice's and Bob's policies, in numpy, with a leading *seed* axis so that S independent runs train in
lockstep (one batched matmul per layer for all of them).

- ``TabularPolicy``: a softmax table theta[s, key, a] (the hallway's M^2 x 3 table), REINFORCE with a
  constant (running-mean) baseline, plain SGD, as in the paper's tabular experiment.
- ``MLPPolicy``: the paper's network, tanh MLP with an action head and a value (baseline) head on the last
  hidden layer, weights drawn from N(0, init_std), RMSProp (alpha 0.97, eps 1e-6). Two update rules:
  ``reinforce`` (the paper: -(R_t - b(s_t)) log pi + lambda (R_t - b(s_t))^2 - beta H) and ``ppo`` (the
  clipped surrogate L^CLIP of ``fivestack.rl.ppo.policy_loss``, written here in numpy, plus 0.5 (V - R)^2).

Gradients are written by hand: these nets have two hidden layers and torch's per-call overhead would
dominate at this size. ``tests/asp/test_policy.py`` checks the hand gradients against finite differences.
Inputs arrive as (N, ...) with N = S * B rows, seed-major.

Speed (the self-play loop, ``fivestack.asp.selfplay``): ``act_rows`` runs the net on only the rows that act,
laid out (S, m) per seed, with the uniforms drawn by the caller for every row (so the random stream is the
one ``act`` draws); its forward pass (the hidden activations) can travel in ``UpdateBatch.cache`` to the
REINFORCE update, which then runs no forward pass of its own. An input may be a ``SparseRows`` (a bag of
words given by its nonzero entries, as light-key's): the first layer is then a gather of weight rows and its
gradient a scatter (two small Numba kernels) instead of a dense matmul over a mostly-zero input.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

NEG_INF = -1e9


@dataclass
class SparseRows:
    """An input given by its nonzero entries: row r of the dense input is zero but for
    ``dense[r, index[r, k]] = value[r, k]`` (the indices of a row are distinct). Leading shape (..., K)."""
    index: np.ndarray        # (..., K) int
    value: np.ndarray        # (..., K) float32
    dim: int                 # the dense width

    @property
    def shape(self):
        return self.index.shape[:-1] + (self.dim,)

    def reshape(self, *lead):
        return SparseRows(self.index.reshape(*lead, self.index.shape[-1]),
                          self.value.reshape(*lead, self.value.shape[-1]), self.dim)

    def take(self, rows):
        """Rows ``rows`` (an index array over the leading axis) -> a SparseRows of shape rows.shape + (dim,)."""
        return SparseRows(self.index[rows], self.value[rows], self.dim)

    def dense(self) -> np.ndarray:
        idx = self.index.reshape(-1, self.index.shape[-1])
        out = np.zeros((len(idx), self.dim), np.float32)
        np.put_along_axis(out, idx, self.value.reshape(idx.shape).astype(np.float32), axis=1)
        return out.reshape(self.shape)

    def with_column(self, values) -> "SparseRows":
        """Append a dense column (index ``dim``) holding ``values`` (broadcast to the leading shape)."""
        lead = self.index.shape[:-1]
        col = np.broadcast_to(np.asarray(values, np.float32), lead)[..., None]
        return SparseRows(np.concatenate([self.index, np.full(lead + (1,), self.dim, self.index.dtype)], -1),
                          np.concatenate([self.value, col], -1), self.dim + 1)

    @staticmethod
    def concat(parts: list, axis: int = 1) -> "SparseRows":
        return SparseRows(np.concatenate([p.index for p in parts], axis),
                          np.concatenate([p.value for p in parts], axis), parts[0].dim)


@njit(cache=True, nogil=True)
def _sparse_affine(index, value, w, b, out):  # pragma: no cover - compiled
    """out[s, r] = b[s, 0] + sum_k value[s, r, k] * w[s, index[s, r, k]]."""
    S, R, K = index.shape
    H = w.shape[2]
    for s in range(S):
        for r in range(R):
            for j in range(H):
                out[s, r, j] = b[s, 0, j]
            for k in range(K):
                v = value[s, r, k]
                if v != 0:
                    i = index[s, r, k]
                    for j in range(H):
                        out[s, r, j] += v * w[s, i, j]


@njit(cache=True, nogil=True)
def _sparse_weight_grad(index, value, dz, out):  # pragma: no cover - compiled
    """out[s] = X[s]^T dz[s] for the sparse X: out[s, index[s, r, k]] += value[s, r, k] * dz[s, r]."""
    S, R, K = index.shape
    H = dz.shape[2]
    for s in range(S):
        for r in range(R):
            for k in range(K):
                v = value[s, r, k]
                if v != 0:
                    i = index[s, r, k]
                    for j in range(H):
                        out[s, i, j] += v * dz[s, r, j]


@njit(cache=True, nogil=True)
def _sparse_first_backward(index, value, dh, h, gw, gb):  # pragma: no cover - compiled
    """The first layer's gradients from dL/dh (h = tanh(x w + b)) in one pass: dz = dh (1 - h^2),
    gb[s] = sum_r dz[s, r] (in float64), gw[s] = X[s]^T dz[s] for the sparse X."""
    S, R, K = index.shape
    H = dh.shape[2]
    dz = np.empty(H, dh.dtype)
    acc = np.zeros(H)
    for s in range(S):
        acc[:] = 0.0
        for r in range(R):
            for j in range(H):
                dz[j] = dh[s, r, j] * (1 - h[s, r, j] * h[s, r, j])
                acc[j] += dz[j]
            for k in range(K):
                v = value[s, r, k]
                if v != 0:
                    i = index[s, r, k]
                    for j in range(H):
                        gw[s, i, j] += v * dz[j]
        for j in range(H):
            gb[s, 0, j] = acc[j]


def sparse_first_backward(x: "SparseRows", dh: np.ndarray, h: np.ndarray):
    """(dL/dw, dL/db) of the first layer for a SparseRows input x, given dL/dh and h = tanh(x w + b)."""
    gw = np.zeros((x.index.shape[0], x.dim, dh.shape[2]), dh.dtype)
    gb = np.zeros((x.index.shape[0], 1, dh.shape[2]), dh.dtype)
    _sparse_first_backward(x.index, x.value.astype(dh.dtype, copy=False), np.ascontiguousarray(dh),
                           np.ascontiguousarray(h, dh.dtype), gw, gb)
    return gw, gb


def first_layer(x, w, b) -> np.ndarray:
    """x @ w + b for a dense (S, R, d) x or a SparseRows."""
    if not isinstance(x, SparseRows):
        return x @ w + b
    out = np.empty(x.index.shape[:2] + (w.shape[2],), w.dtype)
    _sparse_affine(x.index, x.value.astype(w.dtype, copy=False), w, b, out)
    return out


def first_layer_weight_grad(x, dz) -> np.ndarray:
    """x^T dz per seed: (S, d, H)."""
    if not isinstance(x, SparseRows):
        return np.swapaxes(x, 1, 2) @ dz
    out = np.zeros((x.index.shape[0], x.dim, dz.shape[2]), dz.dtype)
    _sparse_weight_grad(x.index, x.value.astype(dz.dtype, copy=False), np.ascontiguousarray(dz), out)
    return out


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def sample(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One categorical draw per row of probs (..., A)."""
    return sample_with(probs, rng.random(probs.shape[:-1]))


def sample_with(probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``sample`` given its uniforms u (...,): the same draw ``sample`` makes from the same numbers."""
    cdf = np.cumsum(probs, axis=-1)
    u = u[..., None] * cdf[..., -1:]
    return np.minimum((u > cdf).sum(axis=-1), probs.shape[-1] - 1)


@dataclass
class UpdateBatch:
    """Rows of one player's steps; every array is (S, R) after ``split`` (R rows per seed)."""
    inputs: np.ndarray       # (S, R, d) float, or (S, R) int for the tabular policy
    actions: np.ndarray      # (S, R)
    returns: np.ndarray      # (S, R) return-to-go R_t
    weight: np.ndarray       # (S, R) 1 where the row is a real step of this player
    old_logp: np.ndarray     # (S, R) log pi at acting time (PPO)
    episodes: np.ndarray     # (S,) episodes in the batch, the normaliser of the summed loss
    stop_allowed: np.ndarray  # (S, R) bool: whether STOP was a legal action for that row
    bc: "UpdateBatch | None" = None  # Alice behavioural cloning rows for Bob (imitate a_Alice), if any
    bc_weight: float = 0.0
    entropy_coef: "np.ndarray | None" = None  # (S, R) per-row entropy weight (else the policy's own)
    cache: "tuple | None" = None  # (policy version, forward(inputs)) from acting time: the update reuses it


class TabularPolicy:
    """pi(a | key) = softmax(theta[key]) per seed; the key is an integer index (e.g. s_t * M + s_goal)."""

    def __init__(self, seeds: int, keys: int, actions: int, lr: float, rng: np.random.Generator,
                 baseline_decay: float = 0.9):
        self.theta = np.zeros((seeds, keys, actions))
        self.lr = lr
        self.baseline = np.zeros(seeds)
        self.baseline_decay = baseline_decay
        self.seeds = seeds

    def probs(self, keys: np.ndarray, stop_allowed: np.ndarray) -> np.ndarray:
        keys = keys.reshape(self.seeds, -1)
        logits = self.theta[np.arange(self.seeds)[:, None], keys]
        logits = np.where(_stop_mask(logits.shape, stop_allowed.reshape(self.seeds, -1)), logits, NEG_INF)
        return softmax(logits)

    def act(self, keys: np.ndarray, rng: np.random.Generator, stop_allowed: np.ndarray, greedy: bool = False):
        p = self.probs(keys, stop_allowed)
        a = p.argmax(-1) if greedy else sample(p, rng)
        logp = np.log(np.take_along_axis(p, a[..., None], axis=-1)[..., 0] + 1e-12)
        return a.reshape(-1), logp.reshape(-1)

    def update(self, b: UpdateBatch) -> dict:
        """REINFORCE with a constant baseline: theta += lr (R - b) grad log pi, summed over the batch's
        episodes (the tabular lr 0.1 is per episode; averaging over the batch of 16 learned 16x slower)."""
        p = self.probs(b.inputs, b.stop_allowed)
        onehot = np.eye(p.shape[-1])[b.actions]
        advantage = (b.returns - self.baseline[:, None]) * b.weight
        grad = advantage[..., None] * (onehot - p)
        seed_idx = np.broadcast_to(np.arange(self.seeds)[:, None], b.inputs.shape)
        np.add.at(self.theta, (seed_idx, b.inputs), self.lr * grad)
        mean_return = (b.returns * b.weight).sum(1) / np.maximum(b.weight.sum(1), 1)
        has = b.weight.sum(1) > 0
        self.baseline = np.where(has, self.baseline_decay * self.baseline
                                 + (1 - self.baseline_decay) * mean_return, self.baseline)
        return {}


def _stop_mask(shape, stop_allowed):
    """True where an action is legal: every action but the last (STOP) always; STOP where allowed."""
    legal = np.ones(shape, dtype=bool)
    legal[..., -1] = stop_allowed
    return legal


class MLPPolicy:
    """tanh MLP -> (action logits, baseline value), one set of weights per seed."""

    def __init__(self, seeds: int, in_dim: int, actions: int, hidden: tuple[int, ...], lr: float,
                 rng: np.random.Generator, init_std: float = 0.2, entropy: float = 0.0,
                 value_coef: float = 0.1, algo: str = "reinforce", rms_alpha: float = 0.97,
                 rms_eps: float = 1e-6, ppo_clip: float = 0.2, ppo_epochs: int = 4):
        if algo not in ("reinforce", "ppo"):
            raise ValueError(f"unknown optimiser {algo!r}; choose 'reinforce' or 'ppo'")
        sizes = (in_dim, *hidden)
        self.params: list[np.ndarray] = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            self.params += [rng.normal(0, init_std, (seeds, a, b)).astype(np.float32),
                            np.zeros((seeds, 1, b), np.float32)]
        self.params += [rng.normal(0, init_std, (seeds, sizes[-1], actions)).astype(np.float32),
                        np.zeros((seeds, 1, actions), np.float32),
                        rng.normal(0, init_std, (seeds, sizes[-1], 1)).astype(np.float32),
                        np.zeros((seeds, 1, 1), np.float32)]
        self.sq = [np.zeros_like(p) for p in self.params]
        self.layers = len(hidden)
        self.seeds, self.lr, self.entropy, self.value_coef, self.algo = seeds, lr, entropy, value_coef, algo
        self.rms_alpha, self.rms_eps, self.ppo_clip, self.ppo_epochs = rms_alpha, rms_eps, ppo_clip, ppo_epochs
        self.version = 0          # bumped by every optimiser step: a forward cache from another version is stale

    def forward(self, x: np.ndarray):
        """x (S, n, d) -> logits (S, n, A), value (S, n), hidden activations (for backward)."""
        acts = [x]
        h = np.tanh(first_layer(x, self.params[0], self.params[1]))
        acts.append(h)
        for i in range(1, self.layers):
            h = np.tanh(h @ self.params[2 * i] + self.params[2 * i + 1])
            acts.append(h)
        w_pi, b_pi, w_v, b_v = self.params[2 * self.layers:]
        return h @ w_pi + b_pi, (h @ w_v + b_v)[..., 0], acts

    def _probs(self, logits, stop_allowed):
        return softmax(np.where(_stop_mask(logits.shape, stop_allowed), logits, NEG_INF))

    def act(self, x: np.ndarray, rng: np.random.Generator, stop_allowed: np.ndarray, greedy: bool = False):
        x = x.reshape(self.seeds, -1, x.shape[-1]).astype(np.float32, copy=False)
        logits, _, _ = self.forward(x)
        p = self._probs(logits, stop_allowed.reshape(self.seeds, -1))
        a = p.argmax(-1) if greedy else sample(p, rng)
        logp = np.log(np.take_along_axis(p, a[..., None], axis=-1)[..., 0] + 1e-12)
        return a.reshape(-1), logp.reshape(-1)

    def act_rows(self, x, u: "np.ndarray | None", stop_allowed: np.ndarray, greedy: bool = False):
        """``act`` on (S, m) rows of x (dense (S, m, d) or a SparseRows) given the uniforms u (S, m) of
        ``sample`` (None when greedy). Returns actions (S, m), log pi (S, m) and the cache for
        ``UpdateBatch.cache``: (version, forward output)."""
        if not isinstance(x, SparseRows):
            x = x.astype(np.float32, copy=False)
        out = self.forward(x)
        p = self._probs(out[0], stop_allowed)
        a = p.argmax(-1) if greedy else sample_with(p, u)
        logp = np.log(np.take_along_axis(p, a[..., None], axis=-1)[..., 0] + 1e-12)
        return a, logp, (self.version, out)

    def _forward_cached(self, b: UpdateBatch):
        if b.cache is not None and b.cache[0] == self.version:
            return b.cache[1]
        return self.forward(b.inputs)

    def loss_and_grads(self, b: UpdateBatch, old_value: np.ndarray | None = None):
        """The summed per-episode loss of the chosen rule and its gradient for every parameter. The
        advantage holds the baseline fixed: ``old_value`` when given (PPO, and for REINFORCE a test's
        finite differences), else the current value head."""
        logits, value, acts = self._forward_cached(b)
        p = self._probs(logits, b.stop_allowed)
        logp_all = np.log(p + 1e-12)
        onehot = np.eye(p.shape[-1], dtype=np.float32)[b.actions]
        logp = (logp_all * onehot).sum(-1)
        norm = (b.weight / np.maximum(b.episodes, 1)[:, None]).astype(np.float32)
        entropy = -(p * logp_all).sum(-1)
        if self.algo == "reinforce":
            baseline = value if old_value is None else old_value
            advantage = b.returns - baseline                    # R_t - b(s_t), no gradient into b here
            pg = -advantage * logp
            d_logits = -advantage[..., None] * (onehot - p)
            value_err = value - b.returns
            v_loss = self.value_coef * value_err ** 2           # lambda ||b(s_t) - R_t||^2
            d_value = 2 * self.value_coef * value_err
        else:
            advantage = b.returns - old_value
            ratio = np.exp(logp - b.old_logp)
            clipped = np.clip(ratio, 1 - self.ppo_clip, 1 + self.ppo_clip)
            pg = -np.minimum(ratio * advantage, clipped * advantage)
            active = np.where(advantage >= 0, ratio < 1 + self.ppo_clip, ratio > 1 - self.ppo_clip)
            d_logits = -(advantage * ratio * active)[..., None] * (onehot - p)
            value_err = value - b.returns
            v_loss = 0.5 * value_err ** 2
            d_value = value_err
        # - beta H(pi): dH/dz_j = -p_j (log p_j + H)
        beta = self.entropy if b.entropy_coef is None else b.entropy_coef
        d_logits = d_logits + (beta * np.ones_like(entropy))[..., None] * p * (logp_all + entropy[..., None])
        loss = ((pg + v_loss - beta * entropy) * norm).sum(1)
        d_logits = (d_logits * norm[..., None]).astype(np.float32)
        d_value = (d_value * norm).astype(np.float32)
        grads = self._backward(acts, d_logits, d_value)
        return loss, grads

    def _backward(self, acts, d_logits, d_value):
        w_pi, _, w_v, _ = self.params[2 * self.layers:]
        h = acts[-1]
        swap = lambda a: np.swapaxes(a, 1, 2)  # noqa: E731
        grads_head = [swap(h) @ d_logits, d_logits.sum(1, keepdims=True),
                      swap(h) @ d_value[..., None], d_value.sum(1, keepdims=True)[..., None]]
        dh = d_logits @ swap(w_pi)
        dh += d_value[..., None] * swap(w_v)
        grads: list[np.ndarray] = []
        for i in range(self.layers - 1, -1, -1):
            if i == 0 and isinstance(acts[0], SparseRows):
                grads = list(sparse_first_backward(acts[0], dh, acts[1])) + grads
                break
            dz = dh * (1 - acts[i + 1] ** 2)
            w_grad = first_layer_weight_grad(acts[0], dz) if i == 0 else swap(acts[i]) @ dz
            grads = [w_grad, dz.sum(1, keepdims=True)] + grads
            if i > 0:
                dh = dz @ swap(self.params[2 * i])
        return grads + grads_head

    def bc_grads(self, b: UpdateBatch):
        """Gradient of bc_weight * -log pi(a_Alice | s_Alice, s*), summed per episode like the main loss."""
        logits, _, acts = self.forward(b.bc.inputs.astype(np.float32, copy=False))
        p = self._probs(logits, b.bc.stop_allowed)
        onehot = np.eye(p.shape[-1], dtype=np.float32)[b.bc.actions]
        norm = (b.bc.weight / np.maximum(b.episodes, 1)[:, None]).astype(np.float32)
        d_logits = (-b.bc_weight * (onehot - p) * norm[..., None]).astype(np.float32)
        return self._backward(acts, d_logits, np.zeros(d_logits.shape[:2], np.float32))

    def _step(self, b: UpdateBatch, grads):
        if b.bc is not None:
            grads = [g + h for g, h in zip(grads, self.bc_grads(b))]
        self._rmsprop(grads)

    def _rmsprop(self, grads):
        self.version += 1
        for p, g, sq in zip(self.params, grads, self.sq):
            sq *= self.rms_alpha
            sq += (1 - self.rms_alpha) * g * g
            p -= self.lr * g / (np.sqrt(sq) + self.rms_eps)

    def update(self, b: UpdateBatch) -> dict:
        if not isinstance(b.inputs, SparseRows):
            b.inputs = b.inputs.astype(np.float32, copy=False)
        if self.algo == "reinforce":
            loss, grads = self.loss_and_grads(b)
            self._step(b, grads)
            return {"loss": float(loss.mean())}
        _, old_value, _ = self._forward_cached(b)
        for _ in range(self.ppo_epochs):
            loss, grads = self.loss_and_grads(b, old_value)
            self._step(b, grads)
        return {"loss": float(loss.mean())}


class RandomAlice:
    """The paper's random-Alice baseline: uniform over the non-STOP actions, then STOP. ``steps`` an int: she
    makes that many moves. ``steps`` a pair (lo, hi): the number of moves is drawn per episode uniformly from
    lo..hi (the authors' MazeBase Alice: 1..40), realised as a stop hazard 1 / (hi - t_a + 1) once t_a >= lo."""

    def __init__(self, actions: int, steps):
        self.actions = actions
        self.lo, self.hi = (steps, steps) if np.isscalar(steps) else (int(steps[0]), int(steps[1]))

    def act_random(self, t_a: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        a = rng.integers(0, self.actions - 1, size=t_a.shape)
        if self.lo == self.hi:                   # a fixed count (no extra draw: the same random stream)
            return np.where(t_a >= self.hi, self.actions - 1, a)
        hazard = np.where(t_a >= self.lo, 1.0 / np.maximum(self.hi - t_a + 1, 1), 0.0)
        return np.where(rng.random(t_a.shape) < hazard, self.actions - 1, a)
