"""The inference actor: batches the forward passes of the rollout workers it serves."""

from __future__ import annotations

import os
import queue
import threading
import time

import numpy as np
import ray
import torch

from fivestack.model.policy import Policy
from fivestack.system.config import from_dict
from fivestack.system.ray.messages import CONTROLLER, set_threads, to_torch


@ray.remote(num_cpus=1, max_concurrency=64)
class InferenceActor:
    """Batches the forward passes of many rollout workers' games: requests that arrive together (and ask for
    the same version) go through the policy as one batch."""

    def __init__(self, config: dict, index: int, namespace: str):
        self.config = from_dict(config)
        set_threads(self.config)
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
