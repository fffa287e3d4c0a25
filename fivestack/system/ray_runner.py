"""The ray runner: the serial runner's components as Ray actors, so that one run scales from a laptop to a
cluster.

    RolloutActor x R --(obs, every step)--> InferenceActor x I --(actions, version)--> RolloutActor
         |  (each plays G games of the batched env; with I = 0 it runs its own forward passes)
         +--(one 256-step segment, through the object store, as soon as it is full)--> OptimizerActor x O
    OptimizerActor x O: own experience buffer; gradients averaged by allreduce (torch.distributed, gloo/NCCL)
         rank 0, every K gradient steps --(parameters, version)--> ControllerActor (named)
    ControllerActor: versions, run metadata, metrics.jsonl + TensorBoard, checkpoints (safetensors + JSON),
         the opponent pool (past versions on disk, served to workers; qualities scored from their games)
    EvaluatorActor: TrueSkill ratings of pool versions every ``eval.every_versions`` (RatingEvaluator)

The driver (``RayRunner.run``) only starts, watches and restarts actors, gathers statistics and triggers
checkpoints: it never calls an optimizer per batch. Everything that crosses an actor boundary is a dict of
numpy arrays and plain values.
"""

from __future__ import annotations

import math
import os
import queue
import signal
import threading
import time
from collections import deque
from dataclasses import replace
from pathlib import Path

import numpy as np
import ray
import torch
from ray.exceptions import GetTimeoutError, RayActorError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from fivestack.game.layout import EVENT_NAMES
from fivestack.model.policy import Policy, parameter_count
from fivestack.system.config import TrainConfig, from_dict, reward_weights
from fivestack.system.controller import Controller, RunStopped, latest_checkpoint, load_checkpoint, new_run_dir
from fivestack.system.distributed import normalizer_widths, observation_moments
from fivestack.system.evaluator import progress_ratings, rating_metrics
from fivestack.system.messages import SAMPLE_ARRAYS, InferenceRequest, InferenceResult, SampleBatch
from fivestack.system.optimizer import Optimizer, team_spirit
from fivestack.system.pool import OpponentPool, PastOpponents
from fivestack.system.rollout import RolloutWorker, active_heroes, games_metrics, reward_event_metrics
from fivestack.system.serial import Progress

CONTROLLER = "controller"
KEEP_VERSIONS = 8  # parameter versions the controller keeps for workers that ask for one by number


# ---------------------------------------------------------------------- messages (numpy and plain values only)
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


def _threads(config: TrainConfig) -> None:
    torch.set_num_threads(config.run.torch_threads or 1)


# ---------------------------------------------------------------------- controller
@ray.remote(num_cpus=0, max_concurrency=8)
class ControllerActor:
    """Versions (the last few parameter sets, by number), run metadata, metrics and checkpoints."""

    def __init__(self, run_dir: str, config: dict, agent_steps: int, worker_seed: int, pool_state: dict | None = None):
        self.config = from_dict(config)
        self.controller = Controller(Path(run_dir), self.config)
        self.pool = OpponentPool(self.config.pool, Path(run_dir) / "pool")
        if pool_state:
            self.pool.load_state_dict(pool_state)
        self.lock = threading.Lock()
        self.versions: dict[int, tuple[list, float]] = {}  # version -> ([params ref], value_scale)
        self.latest = -1
        self.agent_steps = agent_steps
        self.worker_seed = worker_seed
        self.rollout: dict = self._empty_rollout_stats()
        self.events: list[str] = []

    @staticmethod
    def _empty_rollout_stats() -> dict:
        return {"segments": 0, "hero_steps": 0, "simulation_s": 0.0, "inference_s": 0.0, "send_s": 0.0,
                "wall_s": 0.0, "behind": [], "games": [], "event_sums": np.zeros(len(EVENT_NAMES)),
                "reward_abs_mean": [], "inference_calls": 0, "in_flight": []}

    # versions
    def publish(self, version: int, params: list, value_scale: float) -> None:
        with self.lock:
            self.versions[version] = (params, value_scale)
            self.latest = max(self.latest, version)
            for old in sorted(self.versions)[:-KEEP_VERSIONS]:
                del self.versions[old]
            self.pool.join_if_due(version, lambda: to_torch(ray.get(params[0])))

    # the opponent pool
    def pool_state(self) -> dict:
        with self.lock:
            return self.pool.state_dict()

    def pool_summary(self) -> dict:
        with self.lock:
            return self.pool.summary()

    def pool_weights(self, version: int) -> dict:
        return to_numpy(self.pool.weights(version))

    def latest_version(self) -> int:
        return self.latest

    def params(self, version: int = -1):
        """(version, [params ref], value_scale) for ``version`` (the latest if -1 or no longer kept)."""
        with self.lock:
            if not self.versions:
                return None
            if version not in self.versions:
                version = self.latest
            refs, scale = self.versions[version]
            return version, refs, scale

    # rollout workers
    def next_worker_seed(self) -> int:
        with self.lock:
            self.worker_seed += 1
            return self.worker_seed

    def report_segment(self, info: dict) -> None:
        with self.lock:
            r = self.rollout
            self.agent_steps += int(info["hero_steps"])
            r["segments"] += 1
            r["hero_steps"] += int(info["hero_steps"])
            for key in ("simulation_s", "inference_s", "send_s", "wall_s"):
                r[key] += float(info[key])
            r["inference_calls"] += int(info["inference_calls"])
            r["in_flight"].append(int(info["deliveries_in_flight"]))
            r["behind"].append(self.latest - int(info["version"]))
            r["games"] += info["games"]
            self.pool.record_games(info["games"])
            r["event_sums"] += np.asarray(info["event_sums"])
            r["reward_abs_mean"].append(float(info["reward_abs_mean"]))

    def take_rollout_stats(self) -> tuple[int, dict]:
        with self.lock:
            out, self.rollout = self.rollout, self._empty_rollout_stats()
            return self.agent_steps, out

    def counters(self) -> dict:
        return {"agent_steps": self.agent_steps, "worker_seed": self.worker_seed, "latest": self.latest}

    # metrics and checkpoints
    def log(self, version: int, metrics: dict) -> None:
        with self.lock:
            self.controller.log(version, self.agent_steps, metrics)

    def save(self, payload: dict, elapsed: float, extra: dict) -> str:
        model = to_torch(payload["model"])
        optim = to_torch(payload["optim"])
        state = {"optimizer": payload["scalars"], "buffer": payload["buffer"], "agent_steps": self.agent_steps,
                 "elapsed": elapsed, "worker_seed": self.worker_seed, "runner": "ray",
                 # what the serial runner also reads, so that either runner can resume the run
                 "numpy_rng": np.random.default_rng(self.config.run.seed).bit_generator.state, "win_rates": {},
                 "pool": self.pool.state_dict(), **extra}
        return str(self.controller.save(int(payload["scalars"]["version"]), model, optim, state))

    def close(self) -> None:
        self.controller.close()


# ---------------------------------------------------------------------- inference
@ray.remote(num_cpus=1, max_concurrency=64)
class InferenceActor:
    """Batches the forward passes of many rollout workers' games: requests that arrive together (and ask for
    the same version) go through the policy as one batch."""

    def __init__(self, config: dict, index: int, namespace: str):
        self.config = from_dict(config)
        _threads(self.config)
        torch.manual_seed(self.config.run.seed + 7919 * (index + 1))
        self.policies: dict[int, tuple[Policy, float]] = {}  # version -> (policy, value_scale); a few kept
        self.controller = ray.get_actor(CONTROLLER, namespace=namespace)
        self.generator = torch.Generator().manual_seed(self.config.run.seed * 1000 + index)
        self.requests: queue.Queue = queue.Queue()
        self.stats = self._empty()
        self.lock = threading.Lock()
        self.wait_s = self.config.ray.batch_wait_ms / 1000.0
        rc = self.config.ray
        self.expected = len(range(index, rc.rollout_workers, rc.inference))  # the workers this actor serves
        threading.Thread(target=self._loop, daemon=True).start()

    @staticmethod
    def _empty() -> dict:
        return {"batches": 0, "requests": 0, "teams": 0, "busy_s": 0.0, "queue": 0, "started": time.monotonic()}

    def pid(self) -> int:
        return os.getpid()

    def alive(self) -> None:
        """Never returns: a task that fails when the actor dies (the driver's liveness probe)."""
        threading.Event().wait()

    def infer(self, version: int, request: dict) -> dict:
        done = threading.Event()
        slot: list = [version, request, done, None]
        self.requests.put(slot)
        done.wait()
        if isinstance(slot[3], Exception):
            raise slot[3]
        return slot[3]

    def take_stats(self) -> dict:
        with self.lock:
            out, self.stats = self.stats, self._empty()
        out["seconds"] = time.monotonic() - out.pop("started")
        return out

    def _policy(self, version: int) -> tuple[int, Policy, float]:
        if version not in self.policies:
            found = ray.get(self.controller.params.remote(version))
            version, refs, scale = found
            if version not in self.policies:
                policy = Policy(self.config.policy)
                policy.load_state_dict(to_torch(ray.get(refs[0])))
                policy.eval()
                self.policies[version] = (policy, scale)
                for old in sorted(self.policies)[:-3]:
                    del self.policies[old]
        policy, scale = self.policies[version]
        return version, policy, scale

    def _loop(self) -> None:
        while True:
            batch = [self.requests.get()]
            deadline = time.monotonic() + self.wait_s
            while len(batch) < self.expected:
                try:
                    batch.append(self.requests.get(timeout=max(0.0, deadline - time.monotonic())))
                except queue.Empty:
                    break
            waiting = self.requests.qsize()
            by_version: dict[int, list] = {}
            for slot in batch:
                by_version.setdefault(slot[0], []).append(slot)
            for version, slots in by_version.items():
                t0 = time.perf_counter()
                try:
                    self._forward(version, slots)
                except Exception as exc:  # noqa: BLE001 - handed to the caller, whose call raises it
                    for slot in slots:
                        slot[3] = exc
                with self.lock:
                    s = self.stats
                    s["batches"] += 1
                    s["requests"] += len(slots)
                    s["teams"] += sum(len(slot[1]["first"]) for slot in slots)
                    s["busy_s"] += time.perf_counter() - t0
                    s["queue"] += waiting
                for slot in slots:
                    slot[2].set()

    @torch.no_grad()
    def _forward(self, version: int, slots: list) -> None:
        version, policy, scale = self._policy(version)
        reqs = [slot[1] for slot in slots]
        obs = {k: torch.from_numpy(np.concatenate([r["obs"][k] for r in reqs])) for k in reqs[0]["obs"]}
        state = tuple(torch.from_numpy(np.concatenate([r["state"][i] for r in reqs])) for i in range(2))
        first = torch.from_numpy(np.concatenate([r["first"] for r in reqs]))
        slots_t = torch.from_numpy(np.concatenate([r["hero_slots"] for r in reqs]))
        actions, log_prob, value, win_prob, (h, c) = policy.act(obs, state, first, slots_t, self.generator)
        at = 0
        for slot, r in zip(slots, reqs):
            t, k = r["hero_slots"].shape
            rows = slice(at, at + t)
            srows = slice(at * k, (at + t) * k)
            slot[3] = {"actions": actions[rows].numpy(), "log_prob": log_prob[rows].numpy(),
                       "value": value[rows].numpy() * scale, "win_prob": win_prob[rows].numpy(),
                       "state": (h[srows].numpy(), c[srows].numpy()), "version": version}
            at += t


# ---------------------------------------------------------------------- rollout
@ray.remote(num_cpus=1, max_concurrency=2)
class RolloutActor:
    """Plays ``rollout.games`` games with the serial ``RolloutWorker`` and sends each segment as soon as it is
    full. Parameters are pulled by version at each segment's start, so every step of a segment is played by
    one version, which the inference stamps on its actions."""

    def __init__(self, config: dict, index: int, seed: int, namespace: str, optimizers: list):
        self.config = from_dict(config)
        _threads(self.config)
        self.index = index
        self.namespace = namespace
        self.controller = ray.get_actor(CONTROLLER, namespace=namespace)
        self.optimizers = optimizers
        # past versions: the pool's bookkeeping and weights come from the controller (no shared disk needed)
        self.pool_view = OpponentPool(self.config.pool, Path("."))
        opponents = None
        if self.config.pool.past_fraction > 0:
            opponents = PastOpponents(self.pool_view, self.config.policy, seed,
                                      lambda v: to_torch(ray.get(self.controller.pool_weights.remote(v))))
        self._refresh_pool()
        self.worker = RolloutWorker(self.config, seed=seed, opponents=opponents)
        self.widths = normalizer_widths(Policy(self.config.policy))
        self.n_inference = self.config.ray.inference
        self.inference = [None] * self.n_inference
        self.policy: Policy | None = None
        self.local_version = -1
        self.value_scale = 1.0
        self.generator = torch.Generator().manual_seed(seed)
        self.sent = 0
        self.pending: list[list] = [[] for _ in optimizers]  # unfinished deliveries per optimizer
        self.calls = 0

    def pid(self) -> int:
        return os.getpid()

    def _refresh_pool(self) -> None:
        self.pool_view.load_state_dict(ray.get(self.controller.pool_state.remote()))

    def _inference_actor(self, i: int):
        while True:
            try:
                if self.inference[i] is None:
                    self.inference[i] = ray.get_actor(f"inference-{i}", namespace=self.namespace)
                return self.inference[i]
            except ValueError:  # being restarted by the driver
                time.sleep(0.5)

    def _remote_infer(self, version: int):
        i = self.index % self.n_inference

        def infer(request: InferenceRequest) -> InferenceResult:
            message = {"obs": request.obs, "hero_slots": request.hero_slots, "state": request.state,
                       "first": request.first}
            while True:
                try:
                    out = ray.get(self._inference_actor(i).infer.remote(version, message))
                    break
                except RayActorError:  # the inference actor died: wait for its replacement, ask again
                    self.inference[i] = None
                    time.sleep(0.5)
            self.calls += 1
            return InferenceResult(out["actions"], out["log_prob"], out["value"], out["win_prob"],
                                   tuple(out["state"]), out["version"])
        return infer

    def _local_infer(self, version: int):
        if version != self.local_version:
            found = ray.get(self.controller.params.remote(version))
            self.local_version, refs, self.value_scale = found
            if self.policy is None:
                self.policy = Policy(self.config.policy)
                self.policy.eval()
            self.policy.load_state_dict(to_torch(ray.get(refs[0])))

        @torch.no_grad()
        def infer(request: InferenceRequest) -> InferenceResult:
            obs = {k: torch.from_numpy(v) for k, v in request.obs.items()}
            state = (torch.from_numpy(request.state[0]), torch.from_numpy(request.state[1]))
            actions, log_prob, value, win_prob, (h, c) = self.policy.act(
                obs, state, torch.from_numpy(request.first), torch.from_numpy(request.hero_slots), self.generator)
            self.calls += 1
            return InferenceResult(actions.numpy(), log_prob.numpy(), value.numpy() * self.value_scale,
                                   win_prob.numpy(), (h.numpy(), c.numpy()), self.local_version)
        return infer

    def _target(self) -> int:
        """The optimizer with the fewest unfinished deliveries (round-robin among equals)."""
        for i, refs in enumerate(self.pending):
            if refs:
                ready, rest = ray.wait(refs, num_returns=len(refs), timeout=0)
                self.pending[i] = rest
        loads = [len(p) for p in self.pending]
        order = [(self.index + self.sent + j) % len(loads) for j in range(len(loads))]
        return min(order, key=lambda i: loads[i])

    def run(self) -> None:
        while True:
            t0 = time.perf_counter()
            version = ray.get(self.controller.latest_version.remote())
            self._refresh_pool()
            infer = self._local_infer(version) if self.n_inference == 0 else self._remote_infer(version)
            self.calls = 0
            batch = self.worker.collect(infer, team_spirit(self.config.ppo, max(version, 0)))
            t1 = time.perf_counter()
            target = self._target()
            in_flight = sum(len(p) for p in self.pending)  # earlier segments not yet in a buffer
            message = batch_to_message(batch)
            # the normalisers' statistics are computed here, in parallel, rather than in the busy optimizer
            message["moments"] = observation_moments(self.widths, batch.obs, batch.returns)
            ref = ray.put(message)
            self.pending[target].append(self.optimizers[target].add_segment.remote(ref))
            del ref
            self.sent += 1
            t2 = time.perf_counter()
            info = batch.info
            self.controller.report_segment.remote({
                "hero_steps": info["hero_steps"], "simulation_s": info["simulation_seconds"],
                "inference_s": info["inference_seconds"], "send_s": t2 - t1, "wall_s": t2 - t0,
                "version": int(batch.version.min()), "games": info["games"], "event_sums": info["event_sums"],
                "reward_abs_mean": info["reward_abs_mean"], "inference_calls": self.calls,
                "deliveries_in_flight": in_flight})


# ---------------------------------------------------------------------- optimizers
class SampleBuffer:
    """One optimizer's experience: whole segments in arrival order, each sample with its use count.
    Batches take the least-used samples (random among equals); samples past the staleness cap, samples used
    ``max_uses`` times and, over capacity, the oldest samples leave the buffer."""

    def __init__(self, capacity: int, max_staleness: int, max_uses: int, rng: np.random.Generator):
        self.capacity, self.max_staleness, self.max_uses, self.rng = capacity, max_staleness, max_uses, rng
        self.segments: deque[list] = deque()  # [SampleBatch, uses (S,), alive (S,) bool]
        self.produced = self.consumed = self.dropped_stale = self.dropped_overflow = 0

    def add(self, batch: SampleBatch) -> None:
        self.segments.append([batch, np.zeros(len(batch), np.int64), np.ones(len(batch), bool)])
        self.produced += len(batch)

    def __len__(self) -> int:
        return int(sum(seg[2].sum() for seg in self.segments))

    def prune(self, version: int) -> None:
        for seg in self.segments:
            stale = seg[2] & (version - seg[0].version > self.max_staleness)
            self.dropped_stale += int(stale.sum())
            seg[2] &= ~stale
            if self.max_uses > 0:
                seg[2] &= seg[1] < self.max_uses
        excess = len(self) - self.capacity
        for seg in self.segments:
            if excess <= 0:
                break
            alive = np.flatnonzero(seg[2])[:excess]
            seg[2][alive] = False
            self.dropped_overflow += len(alive)
            excess -= len(alive)
        while self.segments and not self.segments[0][2].any():
            self.segments.popleft()

    def take(self, size: int) -> SampleBatch | None:
        where = [(i, j) for i, seg in enumerate(self.segments) for j in np.flatnonzero(seg[2])]
        if len(where) < size:
            return None
        uses = np.array([self.segments[i][1][j] for i, j in where])
        order = np.lexsort((self.rng.random(len(where)), uses))[:size]
        parts = []
        chosen: dict[int, list[int]] = {}
        for o in order:
            i, j = where[o]
            chosen.setdefault(i, []).append(j)
        for i, rows in chosen.items():
            rows = np.array(rows)
            self.segments[i][1][rows] += 1
            parts.append(self.segments[i][0].select(rows))
        self.consumed += size
        return SampleBatch.concat(parts) if len(parts) > 1 else parts[0]


@ray.remote(num_cpus=1, max_concurrency=4)
class OptimizerActor:
    """One optimizer of the pool: its own buffer, fed by rollout workers; it pulls batches from it in its own
    loop (``run``), averages gradients with the others by allreduce, and rank 0 publishes every K steps."""

    def __init__(self, config: dict, rank: int, world: int, namespace: str):
        self.config = from_dict(config)
        _threads(self.config)
        self.rank, self.world = rank, world
        self.controller = ray.get_actor(CONTROLLER, namespace=namespace)
        torch.manual_seed(self.config.run.seed)
        self.policy = Policy(self.config.policy)
        ppo = replace(self.config.ppo, steps_per_version=self.config.ray.steps_per_version)
        self.optimizer = Optimizer(self.policy, ppo)
        target = self.config.ray.reuse_target
        self.buffer = SampleBuffer(self.config.ray.buffer_samples, self.config.ppo.max_staleness,
                                   math.ceil(target) if target > 0 else 0,
                                   np.random.default_rng([self.config.run.seed, rank]))
        self.lock = threading.Lock()  # the model (a step, a checkpoint)
        self.data = threading.Condition()  # the buffer
        self.stop_requested = False
        self.sync = None
        self.stats = self._empty()
        self.max_staleness_seen = 0
        self.segment_sizes: list[int] = []  # samples of each segment added, in order (whole segments only)

    @staticmethod
    def _empty() -> dict:
        return {"steps": 0, "train_s": 0.0, "idle_s": 0.0, "comm_s": 0.0, "add_s": 0.0, "adds": 0,
                "stale_min": math.inf, "stale_max": -math.inf, "stale_sum": 0.0, "stale_n": 0, "consumed": 0,
                "produced": 0, "losses": {}, "started": time.monotonic()}

    def address(self) -> tuple[str, int]:
        from fivestack.system.distributed import free_port

        return ray.util.get_node_ip_address(), free_port()

    def setup(self, address: str, port: int, checkpoint: dict | None) -> int:
        from fivestack.system.distributed import GradientSync, init_group

        if checkpoint is not None:
            self.policy.load_state_dict(to_torch(checkpoint["model"]))
            self.optimizer.load_optimizer_tensors(to_torch(checkpoint["optim"]))
            self.optimizer.load_scalars(checkpoint["scalars"])
            self.buffer.produced = int(checkpoint["buffer"].get("produced", 0))
            self.buffer.consumed = int(checkpoint["buffer"].get("consumed", 0))
        init_group(self.rank, self.world, address, port)
        self.sync = GradientSync(self.policy, self.world)
        self.optimizer.sync = self.sync
        if self.rank == 0:
            self._publish()
        return self.optimizer.version

    def _publish(self) -> None:
        params = ray.put(to_numpy(self.policy.state_dict()))
        ray.get(self.controller.publish.remote(self.optimizer.version, [params], self.optimizer.value_scale))

    def add_segment(self, message: dict) -> int:
        t0 = time.perf_counter()
        batch = message_to_batch(message)
        with self.data:
            self.sync.add_observed(message["moments"])
            self.buffer.add(batch)
            self.segment_sizes.append(len(batch))
            self.stats["produced"] += len(batch)
            self.data.notify_all()
            self.stats["add_s"] += time.perf_counter() - t0
            self.stats["adds"] += 1
        return len(batch)

    def _next_batch(self) -> SampleBatch | None:
        """Block until a batch is allowed (enough fresh samples, reuse under target) or a stop is asked."""
        size, target = self.config.ppo.batch_samples, self.config.ray.reuse_target
        with self.data:
            while not self.stop_requested:
                self.buffer.prune(self.optimizer.version)
                if target <= 0 or self.buffer.consumed + size <= target * self.buffer.produced:
                    batch = self.buffer.take(size)
                    if batch is not None:
                        return batch
                t0 = time.perf_counter()
                self.data.wait(timeout=0.05)
                self.stats["idle_s"] += time.perf_counter() - t0
        return None

    def run(self) -> int:
        import torch.distributed as dist

        while True:
            batch = self._next_batch()
            t0 = time.perf_counter()
            flag = torch.tensor([1.0 if batch is None else 0.0])
            dist.all_reduce(flag, op=dist.ReduceOp.MAX)
            if flag.item() > 0:  # any optimizer stopping stops the pool, all at the same step
                return self.optimizer.version
            t1 = time.perf_counter()
            with self.lock:
                with self.data:  # the statistics of the segments added since the last step, shared by the pool
                    observed = self.sync.take_observed()
                self.sync.apply_observed(self.optimizer.return_std, observed)
                version = self.optimizer.version
                lag = version - batch.version
                metrics = self.optimizer.train(batch)
                published = self.optimizer.version != version
            if published and self.rank == 0:
                self._publish()
            t2 = time.perf_counter()
            with self.data:
                s = self.stats
                s["steps"] += 1
                s["train_s"] += t2 - t1
                s["comm_s"] += t1 - t0
                s["stale_min"] = min(s["stale_min"], int(lag.min()))
                s["stale_max"] = max(s["stale_max"], int(lag.max()))
                s["stale_sum"] += float(lag.sum())
                s["stale_n"] += len(lag)
                s["consumed"] += len(batch)
                self.max_staleness_seen = max(self.max_staleness_seen, int(lag.max()))
                for k, v in metrics.items():
                    s["losses"][k] = s["losses"].get(k, 0.0) + v

    def received(self) -> list[int]:
        return list(self.segment_sizes)

    def stop(self) -> None:
        with self.data:
            self.stop_requested = True
            self.data.notify_all()

    def take_stats(self) -> dict:
        with self.data:
            out, self.stats = self.stats, self._empty()
            out["seconds"] = time.monotonic() - out.pop("started")
            out["buffer"] = len(self.buffer)
            out["version"] = self.optimizer.version
            out["produced_total"] = self.buffer.produced
            out["consumed_total"] = self.buffer.consumed
            out["dropped_stale"] = self.buffer.dropped_stale
            out["dropped_overflow"] = self.buffer.dropped_overflow
            out["max_staleness_seen"] = self.max_staleness_seen
        return out

    def checkpoint_payload(self) -> dict:
        with self.lock:
            return {"model": to_numpy(self.policy.state_dict()), "optim": to_numpy(self.optimizer.optimizer_tensors()),
                    "scalars": self.optimizer.scalars(),
                    "buffer": {"produced": self.buffer.produced, "consumed": self.buffer.consumed,
                               "dropped": self.buffer.dropped_stale}}

    def close(self) -> None:
        from fivestack.system.distributed import close_group

        close_group()


# ---------------------------------------------------------------------- evaluator
@ray.remote(num_cpus=0)
class EvaluatorActor:
    """TrueSkill ratings of pool versions (``RatingEvaluator``), weights served by the controller."""

    def __init__(self, config: dict, state: dict, namespace: str):
        from fivestack.system.evaluator import RatingEvaluator

        self.config = from_dict(config)
        _threads(self.config)
        controller = ray.get_actor(CONTROLLER, namespace=namespace)
        self.evaluator = RatingEvaluator(self.config, Path("."), state, seed=self.config.run.seed,
                                         load_weights=lambda v: to_torch(ray.get(controller.pool_weights.remote(v))))

    def rate(self, version: int) -> dict:
        return {"record": self.evaluator.rate_version(version), "state": self.evaluator.state_dict()}


# ---------------------------------------------------------------------- the driver
def init_ray(rc, **kwargs) -> None:
    """Start Ray on this machine with one logical CPU per actor (or ``ray.cpus``), or join ``ray.address``."""
    import logging

    root = str(Path(__file__).resolve().parents[2])  # local actors import fivestack from this checkout
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    if rc.address:
        ray.init(address=rc.address, logging_level=logging.WARNING, **kwargs)
        return
    cpus = rc.cpus or (rc.rollout_workers + rc.inference + rc.optimizers)
    memory = min(8 << 30, max(2 << 30, rc.optimizers * rc.buffer_samples * (3 << 20)))
    ray.init(num_cpus=cpus, include_dashboard=False, logging_level=logging.WARNING, object_store_memory=memory,
             **kwargs)



class Slot:
    """A restartable actor (rollout, inference, evaluator) with crash-loop back-off."""

    def __init__(self, kind: str, index: int):
        self.kind, self.index = kind, index
        self.actor = None
        self.task = None
        self.deaths: deque[float] = deque(maxlen=8)
        self.restart_at = 0.0
        self.restarts = 0

    def backoff(self) -> float:
        now = time.monotonic()
        recent = [t for t in self.deaths if now - t < 60.0]
        return 0.0 if len(recent) <= 1 else min(2.0 ** (len(recent) - 1), 30.0)


class RayRunner:
    def __init__(self, config: TrainConfig, resume: Path | None = None, say=print):
        self.config = config
        self.say = say
        rc = config.ray
        checkpoint = None
        self.agent_steps, self.elapsed_before, worker_seed = 0, 0.0, config.run.seed * 1000
        pool_state = None
        self.ratings_state: dict = {}  # the evaluator's state (bots' and versions' ratings), for checkpoints
        self.rated = -1  # the last version sent to the evaluator
        self.pending_ratings: list[list[int]] = []  # [version, agent_steps] sent and not yet rated
        if resume is not None:
            self.run_dir = Path(resume)
            path = latest_checkpoint(self.run_dir)
            model, optim, state = load_checkpoint(path)
            checkpoint = {"model": to_numpy(model), "optim": to_numpy(optim), "scalars": state["optimizer"],
                          "buffer": state.get("buffer", {})}
            self.agent_steps = int(state["agent_steps"])
            self.elapsed_before = float(state["elapsed"])
            worker_seed = int(state.get("worker_seed", worker_seed)) + 1000
            pool_state = state.get("pool")
            self.ratings_state = state.get("ratings", {})
            self.rated = int(state.get("rated", -1))
            self.pending_ratings = [list(p) for p in state.get("pending_ratings", [])]
            self.say(f"resuming {self.run_dir} from {path} (version {state['version']})")
        else:
            self.run_dir = new_run_dir(config)
        self.started_ray = False
        if not ray.is_initialized():
            init_ray(config.ray)
            self.started_ray = True
        self.namespace = f"fivestack-{self.run_dir.name}-{os.getpid()}"
        cfg = config.to_dict()
        self.cfg_dict = cfg
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        self.controller = ControllerActor.options(  # on the driver's node, which reads the run directory it writes
            name=CONTROLLER, namespace=self.namespace, scheduling_strategy=here).remote(
            str(self.run_dir.resolve()), cfg, self.agent_steps, worker_seed, pool_state)
        self.optimizers = [OptimizerActor.remote(cfg, r, rc.optimizers, self.namespace) for r in range(rc.optimizers)]
        address, port = ray.get(self.optimizers[0].address.remote())
        versions = ray.get([o.setup.remote(address, port, checkpoint) for o in self.optimizers])
        self.version = versions[0]
        self.optimizer_tasks = [o.run.remote() for o in self.optimizers]
        self.inference = [Slot("inference", i) for i in range(rc.inference)]
        self.rollouts = [Slot("rollout", i) for i in range(rc.rollout_workers)]
        self.evaluator = Slot("evaluator", 0)
        for slot in self.inference:
            self._start(slot)
        for slot in self.rollouts:
            self._start(slot)

    # ------------------------------------------------------------------ actors
    def _start(self, slot: Slot) -> None:
        spread = {"scheduling_strategy": "SPREAD"} if self.config.ray.spread else {}
        if slot.kind == "inference":
            slot.actor = InferenceActor.options(name=f"inference-{slot.index}", namespace=self.namespace,
                                                **spread).remote(self.cfg_dict, slot.index, self.namespace)
            slot.task = slot.actor.alive.remote()
        elif slot.kind == "rollout":
            seed = ray.get(self.controller.next_worker_seed.remote())
            slot.actor = RolloutActor.options(**spread).remote(self.cfg_dict, slot.index, seed, self.namespace,
                                                               self.optimizers)
            slot.task = slot.actor.run.remote()
        else:
            slot.actor = EvaluatorActor.remote(self.cfg_dict, self.ratings_state, self.namespace)
            slot.task = None

    def _died(self, slot: Slot, error: Exception) -> None:
        if slot.actor is not None:  # one only unreachable (ActorUnavailableError) must not outlive its replacement
            ray.kill(slot.actor)
        slot.deaths.append(time.monotonic())
        wait = slot.backoff()
        slot.restart_at = time.monotonic() + wait
        slot.actor, slot.task = None, None
        slot.restarts += 1
        message = f"{slot.kind} actor {slot.index} died ({type(error).__name__}); restarting"
        message += f" in {wait:.0f} s (crash-loop back-off)" if wait else ""
        self.say(message)
        self.controller.log.remote(self.version, {f"restarts/{slot.kind}": float(slot.restarts)})

    def _watch(self) -> None:
        now = time.monotonic()
        for slot in self.inference + self.rollouts:
            if slot.actor is None:
                if now >= slot.restart_at:
                    self._start(slot)
                continue
            ready, _ = ray.wait([slot.task], timeout=0)
            if ready:
                try:
                    ray.get(ready[0])
                    error: Exception = RuntimeError("run() returned")
                except Exception as exc:  # noqa: BLE001 - any way the actor ended
                    error = exc
                self._died(slot, error)
        for task in self.optimizer_tasks:
            ready, _ = ray.wait([task], timeout=0)
            if ready:
                ray.get(ready[0])  # an optimizer that died ends the run: resume it from its checkpoint
                raise RunStopped("an optimizer stopped unexpectedly; resume the run with --resume "
                                 f"{self.run_dir}")

    def rollout_pids(self) -> list[int]:
        return ray.get([slot.actor.pid.remote() for slot in self.rollouts if slot.actor is not None])

    def inference_pids(self) -> list[int]:
        return ray.get([slot.actor.pid.remote() for slot in self.inference if slot.actor is not None])

    # ------------------------------------------------------------------ checkpoints
    def checkpoint(self, elapsed: float) -> Path:
        payload = self.optimizers[0].checkpoint_payload.remote()
        extra = {"ratings": self.ratings_state, "rated": self.rated, "pending_ratings": self.pending_ratings}
        return Path(ray.get(self.controller.save.remote(payload, elapsed, extra)))

    # ------------------------------------------------------------------ ratings
    def _next_rating(self) -> tuple[int, int] | None:
        """A version to rate: one left over from before a restart, else the pool's newest version once it
        crossed a multiple of ``eval.every_versions``."""
        every = self.config.eval.every_versions
        if not every:
            return None
        if not self.pending_ratings:
            joined = ray.get(self.controller.pool_state.remote())["last_joined"]
            if joined >= 0 and (self.rated < 0 or joined // every > self.rated // every):
                self.rated = joined
                self.pending_ratings.append([joined, self.agent_steps])
        return tuple(self.pending_ratings[0]) if self.pending_ratings else None

    def _rating_done(self, message: dict) -> dict:
        """Keep the evaluator's state; the finished rating's record."""
        record = message["record"]
        self.ratings_state = message["state"]
        self.pending_ratings = [p for p in self.pending_ratings if p[0] != record["version"]]
        return record

    # ------------------------------------------------------------------ metrics
    def _gather(self, interval: float) -> dict[str, float]:
        opt = ray.get([o.take_stats.remote() for o in self.optimizers])
        inf = []
        for slot in self.inference:
            if slot.actor is not None:
                try:
                    inf.append(ray.get(slot.actor.take_stats.remote(), timeout=30))
                except (RayActorError, GetTimeoutError):
                    pass
        agent_steps, ro = ray.get(self.controller.take_rollout_stats.remote())
        out_pool = ray.get(self.controller.pool_summary.remote())
        self.version = opt[0]["version"]
        out: dict[str, float] = dict(out_pool)
        n = sum(o["stale_n"] for o in opt)
        if n:
            out["staleness/min"] = float(min(o["stale_min"] for o in opt))
            out["staleness/mean"] = sum(o["stale_sum"] for o in opt) / n
            out["staleness/max"] = float(max(o["stale_max"] for o in opt))
        out["staleness/max_ever"] = float(max(o["max_staleness_seen"] for o in opt))
        produced, consumed = sum(o["produced"] for o in opt), sum(o["consumed"] for o in opt)
        out["sample_reuse"] = consumed / produced if produced else float("nan")
        out["sample_reuse/total"] = (sum(o["consumed_total"] for o in opt)
                                     / max(sum(o["produced_total"] for o in opt), 1))
        out["buffer/fill"] = float(np.mean([o["buffer"] for o in opt]))
        out["buffer/fill_fraction"] = out["buffer/fill"] / self.config.ray.buffer_samples
        out["samples/dropped_stale"] = float(sum(o["dropped_stale"] for o in opt))
        out["samples/dropped_overflow"] = float(sum(o["dropped_overflow"] for o in opt))
        steps = sum(o["steps"] for o in opt)
        out["optimizer/steps_per_s"] = steps / len(opt) / max(interval, 1e-9)
        out["optimizer/train_share"] = float(np.mean([o["train_s"] / max(o["seconds"], 1e-9) for o in opt]))
        out["optimizer/idle_share"] = float(np.mean([o["idle_s"] / max(o["seconds"], 1e-9) for o in opt]))
        out["optimizer/allreduce_share"] = float(np.mean([o["comm_s"] / max(o["seconds"], 1e-9) for o in opt]))
        adds = sum(o["adds"] for o in opt)
        out["optimizer/add_segment_ms"] = 1000 * sum(o["add_s"] for o in opt) / max(adds, 1)
        losses: dict[str, float] = {}
        for o in opt:
            for k, v in o["losses"].items():
                losses[k] = losses.get(k, 0.0) + v
        out.update({k: v / max(steps, 1) for k, v in losses.items()})
        out["throughput/agent_steps_per_s"] = ro["hero_steps"] / max(interval, 1e-9)
        heroes = active_heroes(self.config.game.mode).shape[1]
        out["throughput/trained_agent_steps_per_s"] = (consumed * self.config.rollout.sample_steps * heroes
                                                        / max(interval, 1e-9))
        out["rollout/segments"] = float(ro["segments"])
        if ro["segments"]:
            wall = max(ro["wall_s"], 1e-9)
            out["rollout/simulation_share"] = ro["simulation_s"] / wall
            out["rollout/inference_share"] = ro["inference_s"] / wall
            out["rollout/send_share"] = ro["send_s"] / wall
            out["rollout/send_ms"] = 1000 * ro["send_s"] / ro["segments"]
            out["rollout/inference_round_trip_ms"] = 1000 * ro["inference_s"] / max(ro["inference_calls"], 1)
            out["queue/deliveries"] = float(np.mean(ro["in_flight"]))
            out["rollout/versions_behind_mean"] = float(np.mean(ro["behind"]))
            out["rollout/versions_behind_max"] = float(np.max(ro["behind"]))
            out["reward/shaped_abs_mean"] = float(np.mean(ro["reward_abs_mean"]))
            out.update(reward_event_metrics(ro["event_sums"], ro["hero_steps"], reward_weights(self.config.reward)))
            out.update(games_metrics(ro["games"]))
        if inf:
            batches = sum(s["batches"] for s in inf)
            out["inference/busy_share"] = float(np.mean([s["busy_s"] / max(s["seconds"], 1e-9) for s in inf]))
            out["inference/forward_ms"] = 1000 * sum(s["busy_s"] for s in inf) / max(batches, 1)
            out["inference/requests_per_batch"] = sum(s["requests"] for s in inf) / max(batches, 1)
            out["inference/teams_per_batch"] = sum(s["teams"] for s in inf) / max(batches, 1)
            out["queue/inference"] = sum(s["queue"] for s in inf) / max(batches, 1)
        self.agent_steps = agent_steps
        return out

    # ------------------------------------------------------------------ the loop
    def run(self, on_progress=None, stop=lambda: False) -> Progress:
        cfg = self.config
        budget = cfg.run.minutes * 60.0
        start = time.monotonic()
        last_checkpoint = last_log = start
        eval_task = None
        signalled: list[int] = []
        previous = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                previous[sig] = signal.signal(sig, lambda s, f: signalled.append(s))
        win_rates: dict[str, float] = {}
        progress = Progress(self.version, self.agent_steps, 0.0, self.elapsed_before, budget)
        try:
            while not (signalled or stop()):
                time.sleep(0.2)
                now = time.monotonic()
                elapsed = self.elapsed_before + now - start
                self._watch()
                if now - last_log >= cfg.ray.log_seconds:
                    metrics = self._gather(now - last_log)
                    last_log = now
                    if eval_task is not None:
                        ready, _ = ray.wait([eval_task], timeout=0)
                        if ready:
                            try:
                                record = self._rating_done(ray.get(ready[0]))
                                metrics.update(rating_metrics(record))
                                win_rates = progress_ratings(record)
                            except RayActorError as exc:  # rated again by its replacement
                                self._died(self.evaluator, exc)
                            eval_task = None
                    job = self._next_rating() if eval_task is None else None
                    if job is not None and (self.evaluator.actor is not None or now >= self.evaluator.restart_at):
                        if self.evaluator.actor is None:
                            self._start(self.evaluator)
                        eval_task = self.evaluator.actor.rate.remote(job[0])
                    self.controller.log.remote(self.version, metrics)
                    progress = Progress(self.version, self.agent_steps,
                                        metrics.get("throughput/agent_steps_per_s", 0.0), elapsed, budget,
                                        dict(win_rates))
                    if on_progress is not None:
                        on_progress(progress)
                else:
                    self.version = ray.get(self.controller.latest_version.remote())
                if budget and elapsed >= budget:
                    break
                if cfg.run.max_versions and self.version >= cfg.run.max_versions:
                    break
                if now - last_checkpoint >= cfg.run.checkpoint_minutes * 60.0:
                    self.checkpoint(elapsed)
                    last_checkpoint = now
        except RayActorError as exc:  # an optimizer lost (with its node): the run cannot go on without its state
            raise RunStopped(f"an optimizer was lost ({type(exc).__name__}: its process or node died or cannot be "
                             f"reached); the run stops: resume it from its last checkpoint with --resume "
                             f"{self.run_dir}") from exc
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        self._stop_optimizers()
        self.elapsed_before += time.monotonic() - start
        path = self.checkpoint(self.elapsed_before)
        counters = ray.get(self.controller.counters.remote())
        self.agent_steps = counters["agent_steps"]
        self.version = int(path.name)
        if signalled:
            self.say(f"stopped by signal {signalled[0]}; checkpoint {path}")
        return Progress(self.version, self.agent_steps, progress.agent_steps_per_s,
                        self.elapsed_before, budget, dict(win_rates))

    def _stop_optimizers(self) -> None:
        for slot in self.rollouts:  # no new data while the optimizers stop
            if slot.actor is not None:
                ray.kill(slot.actor)
                slot.actor = None
        ray.get([o.stop.remote() for o in self.optimizers])
        ray.get(self.optimizer_tasks)

    def close(self) -> None:
        try:
            for slot in self.rollouts + self.inference + [self.evaluator]:
                if slot.actor is not None:
                    ray.kill(slot.actor)
            for o in self.optimizers:
                try:
                    ray.get(o.close.remote())
                except RayActorError:  # lost with its node
                    pass
            ray.get(self.controller.close.remote())
            for actor in self.optimizers + [self.controller]:
                ray.kill(actor)
        finally:
            if self.started_ray:
                ray.shutdown()

    def describe(self) -> str:
        rc = self.config.ray
        return (f"run {self.run_dir} | ray: {rc.rollout_workers} rollout workers x {self.config.rollout.games} games, "
                f"{rc.inference} inference, {rc.optimizers} optimizers (batch {rc.optimizers} x "
                f"{self.config.ppo.batch_samples}), a version every {rc.steps_per_version} steps | "
                f"{parameter_count(Policy(self.config.policy)):,} parameters | mode {self.config.game.mode} | "
                f"TensorBoard: tensorboard --logdir {self.run_dir / 'tb'}")
