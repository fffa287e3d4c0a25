"""The inference actor: batches the forward passes of the rollout workers it serves.

Requests arrive by two routes into one queue: through shared memory (``channel.ChannelServer``) from workers on
this machine, and as Ray calls (``infer``) from workers elsewhere. Requests that arrive together and ask for the
same version go through ``fivestack.match.inference.Inference`` as one request (``concatenate_requests``), and the
result is cut back per worker (``split_result``)."""

from __future__ import annotations

import os
import queue
import threading
import time
import warnings

import ray
import torch

from fivestack.model.policy import Policy
from fivestack.runs.config import from_dict
from fivestack.match.inference import Inference, concatenate_requests, split_result
from fivestack.match.inference import InferenceRequest, InferenceResult
from fivestack.system.ray import channel
from fivestack.system.ray.messages import CONTROLLER, message_to_request, result_to_message, set_threads, to_torch

@ray.remote(num_cpus=1, max_concurrency=64)
class InferenceActor:
    """Batches the forward passes of many rollout workers' games: requests that arrive together (and ask for
    the same version) go through the policy as one batch."""

    def __init__(self, config: dict, index: int, namespace: str):
        self.config = from_dict(config)
        set_threads(self.config)
        # Ray's requests are read-only buffers of its object store; the forward pass only reads them
        warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
        torch.manual_seed(self.config.run.seed + 7919 * (index + 1))
        self.policies: dict[int, Inference] = {}  # version -> its forward pass; a few kept
        self.controller = ray.get_actor(CONTROLLER, namespace=namespace)
        self.generator = torch.Generator().manual_seed(self.config.run.seed * 1000 + index)
        self.requests: queue.Queue = queue.Queue()
        self.stats = self._empty()
        self.lock = threading.Lock()
        self.wait_s = self.config.ray.batch_wait_ms / 1000.0
        rc = self.config.ray
        self.expected = len(range(index, rc.rollout_workers, rc.inference))  # the workers this actor serves
        self.server = None
        if rc.shared_memory and channel.available():
            self.server = channel.ChannelServer(self._enqueue)
        threading.Thread(target=self._loop, daemon=True).start()

    @staticmethod
    def _empty() -> dict:
        return {"batches": 0, "requests": 0, "teams": 0, "busy_s": 0.0, "queue": 0, "started": time.monotonic()}

    def pid(self) -> int:
        return os.getpid()

    def alive(self) -> None:
        """Never returns: a task that fails when the actor dies (the driver's liveness probe)."""
        threading.Event().wait()

    def channel_address(self) -> tuple[str, str] | None:
        """(node id, address) of the shared-memory channel, for workers on the same node; None: Ray calls only."""
        if self.server is None:
            return None
        return ray.get_runtime_context().get_node_id(), self.server.address

    def _enqueue(self, version: int, request: InferenceRequest, reply) -> None:
        self.requests.put((version, request, reply))

    def infer(self, version: int, message: dict) -> dict:
        """The Ray route: one request as a message, its result as a message."""
        done = threading.Event()
        out: list = []

        def reply(result) -> None:
            out.append(result)
            done.set()

        self._enqueue(version, message_to_request(message), reply)
        done.wait()
        if isinstance(out[0], Exception):
            raise out[0]
        return result_to_message(out[0])

    def take_stats(self) -> dict:
        with self.lock:
            out, self.stats = self.stats, self._empty()
        out["seconds"] = time.monotonic() - out.pop("started")
        return out

    def _inference(self, version: int) -> Inference:
        if version not in self.policies:
            version, refs, scale = ray.get(self.controller.params.remote(version))
            if version not in self.policies:
                inference = Inference(Policy(self.config.policy, self.config.game.patch))
                inference.policy.eval()
                inference.generator = self.generator  # one sampling stream across versions
                inference.load(to_torch(ray.get(refs[0])), version, scale)
                self.policies[version] = inference
                for old in sorted(self.policies)[:-3]:
                    del self.policies[old]
        return self.policies[version]

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
            for item in batch:
                by_version.setdefault(item[0], []).append(item)
            for version, items in by_version.items():
                t0 = time.perf_counter()
                requests = [item[1] for item in items]
                try:
                    results: list = forward_together(self._inference(version), requests)
                except Exception as exc:  # noqa: BLE001 - handed to the caller, whose call raises it
                    results = [exc] * len(items)
                with self.lock:
                    s = self.stats
                    s["batches"] += 1
                    s["requests"] += len(items)
                    s["teams"] += sum(len(r.first) for r in requests)
                    s["busy_s"] += time.perf_counter() - t0
                    s["queue"] += waiting
                for item, result in zip(items, results):
                    item[2](result)


def forward_together(inference: Inference, requests: list[InferenceRequest]) -> list[InferenceResult]:
    """One forward pass for several workers' requests: ``Inference`` on their concatenation, cut back."""
    return split_result(inference(concatenate_requests(requests)), [len(r.first) for r in requests])
