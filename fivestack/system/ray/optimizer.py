"""The optimizer actor: one optimizer of the pool, with its own sample buffer fed by rollout workers."""

from __future__ import annotations

import math
import threading
import time

import numpy as np
import ray
import torch

from fivestack.model.policy import Policy
from fivestack.system.buffer import SampleBuffer
from fivestack.runs.config import from_dict
from fivestack.system.messages import SampleBatch
from fivestack.system.optimizer import Optimizer
from fivestack.system.ray.messages import CONTROLLER, message_to_batch, set_threads, to_numpy, to_torch


@ray.remote(num_cpus=1, max_concurrency=4)
class OptimizerActor:
    """One optimizer of the pool: its own buffer, fed by rollout workers; it pulls batches from it in its own
    loop (``run``), averages gradients with the others by allreduce, and rank 0 publishes every K steps."""

    def __init__(self, config: dict, rank: int, world: int, namespace: str):
        self.config = from_dict(config)
        set_threads(self.config)
        self.rank, self.world = rank, world
        self.controller = ray.get_actor(CONTROLLER, namespace=namespace)
        torch.manual_seed(self.config.run.seed)
        self.policy = Policy(self.config.policy, self.config.game.patch)
        self.optimizer = Optimizer(self.policy, self.config.ppo, warm_start=bool(self.config.run.init_from))
        reuse = self.config.ppo.sample_reuse
        self.buffer = SampleBuffer(self.config.ppo.max_staleness, capacity=self.config.ray.buffer_samples,
                                   max_uses=math.ceil(reuse) if reuse > 0 else 0,
                                   rng=np.random.default_rng([self.config.run.seed, rank]))
        self.lock = threading.Lock()  # the model (a step, a checkpoint)
        self.data = threading.Condition()  # the buffer
        self.stop_requested = False
        self.sync = None
        self.stats = self._empty()
        self.segment_sizes: list[int] = []  # samples of each segment added, in order (whole segments only)

    @staticmethod
    def _empty() -> dict:
        return {"steps": 0, "train_s": 0.0, "idle_s": 0.0, "comm_s": 0.0, "add_s": 0.0, "adds": 0, "consumed": 0,
                "produced": 0, "losses": {}, "started": time.monotonic()}

    def address(self) -> tuple[str, int]:
        from fivestack.system.distributed import free_port

        return ray.util.get_node_ip_address(), free_port()

    def setup(self, address: str, port: int, checkpoint: dict | None) -> int:
        from fivestack.system.distributed import GradientSync, init_group

        if checkpoint is not None and "model" in checkpoint:  # a resumed run's, or the weights a new run starts from
            self.policy.load_state_dict(to_torch(checkpoint["model"]))
        if checkpoint is not None and "reference" in checkpoint:  # the run's clone, for the KL term
            reference = Policy(self.config.policy, self.config.game.patch)
            reference.load_state_dict(to_torch(checkpoint["reference"]))
            self.optimizer.set_reference(reference)
        if checkpoint is not None and "optim" in checkpoint:
            self.optimizer.load_optimizer_tensors(to_torch(checkpoint["optim"]))
            self.optimizer.load_scalars(checkpoint["scalars"])
            self.buffer.load_state_dict(checkpoint["buffer"])
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
        batch = message_to_batch(message)  # views of the object store's copy: nothing copied here
        with self.data:
            self.sync.add_observed(message["moments"])
            added = self.buffer.add(batch, message.get("keep"))  # only the trainable samples
            self.segment_sizes.append(added)
            self.stats["produced"] += added
            self.data.notify_all()
            self.stats["add_s"] += time.perf_counter() - t0
            self.stats["adds"] += 1
        return added

    def _next_batch(self) -> SampleBatch | None:
        """Block until a batch is allowed (enough fresh samples, reuse under target) or a stop is asked."""
        size, target = self.config.ppo.batch_samples, self.config.ppo.sample_reuse
        with self.data:
            while not self.stop_requested:
                self.buffer.prune(self.optimizer.version)
                if target <= 0 or self.buffer.consumed + size <= target * self.buffer.produced:
                    batch = self.buffer.take(size, self.optimizer.version)
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
                s["consumed"] += len(batch)
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
            out["staleness"] = self.buffer.staleness.take()
            out["max_staleness_seen"] = self.buffer.staleness.max_ever
        return out

    def checkpoint_payload(self) -> dict:
        with self.lock:
            return {"model": to_numpy(self.policy.state_dict()), "optim": to_numpy(self.optimizer.optimizer_tensors()),
                    "scalars": self.optimizer.scalars(),
                    "buffer": self.buffer.state_dict()}

    def close(self) -> None:
        from fivestack.system.distributed import close_group

        close_group()
