"""The rollout actor: plays its games with the serial ``RolloutWorker`` and ships each segment to an optimizer."""

from __future__ import annotations

import os
import time
from pathlib import Path

import ray
from ray.exceptions import RayActorError

from fivestack.model.policy import Policy
from fivestack.system.annealing import Annealing
from fivestack.runs.config import from_dict
from fivestack.system.distributed import normalizer_widths, observation_moments
from fivestack.match.inference import Inference
from fivestack.match.inference import InferenceRequest, InferenceResult
from fivestack.system.metrics import GAME_COUNTS
from fivestack.system.optimizer import team_spirit_at
from fivestack.system.pool import OpponentPool, PastOpponents
from fivestack.system.ray import channel
from fivestack.system.ray.messages import (CONTROLLER, batch_to_message, message_to_result, request_to_message,
                                           set_threads, to_torch)
from fivestack.system.rollout import RolloutWorker
from fivestack.match.teams import team_view


@ray.remote(num_cpus=1, max_concurrency=2)
class RolloutActor:
    """Plays ``rollout.games`` games with the serial ``RolloutWorker`` and sends each segment as soon as it is
    full. Parameters are pulled by version at each segment's start, so every step of a segment is played by
    one version, which the inference stamps on its actions."""

    def __init__(self, config: dict, index: int, seed: int, namespace: str, optimizers: list):
        self.config = from_dict(config)
        set_threads(self.config)
        self.index = index
        self.namespace = namespace
        self.controller = ray.get_actor(CONTROLLER, namespace=namespace)
        self.optimizers = optimizers
        # past versions: the pool's bookkeeping and weights come from the controller (no shared disk needed)
        self.pool_view = OpponentPool(self.config.pool, Path("."))
        opponents = None
        if self.config.pool.past_fraction > 0:
            opponents = PastOpponents(self.pool_view, self.config.policy, seed,
                                      lambda v: to_torch(ray.get(self.controller.pool_weights.remote(v))),
                                      patch=self.config.game.patch)
        self._refresh_pool()
        # the segment's observations are sent (copied into the object store) before the next one overwrites them
        self.worker = RolloutWorker(self.config, seed=seed, opponents=opponents, reuse_buffers=True)
        self.widths = normalizer_widths(Policy(self.config.policy, self.config.game.patch))
        self.n_inference = self.config.ray.inference
        self.inference = [None] * self.n_inference
        self.channel: channel.ChannelClient | None = None  # shared memory to the inference actor, if on this node
        self.local: Inference | None = None  # with ray.inference = 0: this worker's own forward passes
        self.seed = seed
        self.sent = 0
        self.pending: list[list] = [[] for _ in optimizers]  # unfinished deliveries per optimizer
        self.calls = 0
        self.channel_calls = 0

    def pid(self) -> int:
        return os.getpid()

    def _refresh_pool(self) -> None:
        self.pool_view.load_state_dict(ray.get(self.controller.pool_state.remote()))

    def _inference_actor(self, i: int):
        while True:
            try:
                if self.inference[i] is None:
                    self.inference[i] = ray.get_actor(f"inference-{i}", namespace=self.namespace)
                    self._open_channel(self.inference[i])
                return self.inference[i]
            except ValueError:  # being restarted by the driver
                time.sleep(0.5)

    def _open_channel(self, actor) -> None:
        """Shared memory to ``actor`` when it runs on this node (else the Ray call is the route)."""
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        if not (self.config.ray.shared_memory and channel.available()):
            return
        found = ray.get(actor.channel_address.remote())
        if found is None or found[0] != ray.get_runtime_context().get_node_id():
            return
        request = InferenceRequest(team_view(self.worker.obs, self.worker.heroes), self.worker.hero_slots,
                                   self.worker.state, self.worker.first)
        self.channel = channel.ChannelClient(found[1], channel.Layout.for_request(request, self.worker.n_teams))

    def _remote_infer(self, version: int):
        i = self.index % self.n_inference

        def infer(request: InferenceRequest) -> InferenceResult:
            while True:
                try:
                    actor = self._inference_actor(i)
                    if self.channel is not None and self.channel.fits(request):
                        result = self.channel(version, request)
                        self.channel_calls += 1
                    else:
                        result = message_to_result(ray.get(actor.infer.remote(version, request_to_message(request))))
                    break
                except (RayActorError, channel.ChannelClosed):  # the inference actor died: wait for its
                    self.inference[i] = None                     # replacement, ask again
                    time.sleep(0.5)
            self.calls += 1
            return result
        return infer

    def _local_infer(self, version: int):
        if self.local is None or version != self.local.version:
            found, refs, scale = ray.get(self.controller.params.remote(version))
            if self.local is None:
                self.local = Inference(Policy(self.config.policy, self.config.game.patch), seed=self.seed)
                self.local.policy.eval()
            self.local.load(to_torch(ray.get(refs[0])), found, scale)

        def infer(request: InferenceRequest) -> InferenceResult:
            self.calls += 1
            return self.local(request)
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
            if self.config.anneal.feature:  # the share of new games with the annealed feature, at this version
                state = ray.get(self.controller.anneal_state.remote())
                self.worker.feature_share = Annealing.from_state(self.config.anneal, state, 0).share(max(version, 0))
            self.calls = self.channel_calls = 0
            batch = self.worker.collect(infer, team_spirit_at(self.config.ppo, max(version, 0)), keep_all=True)
            t1 = time.perf_counter()
            target = self._target()
            in_flight = sum(len(p) for p in self.pending)  # earlier segments not yet in a buffer
            # sent whole with the trainable samples' indices: the optimizer's buffer leaves the others out, so
            # the segment is copied once (into the object store), not first into a smaller copy of itself
            keep = batch.info["trainable"]
            message = batch_to_message(batch)
            message["keep"] = keep
            # the normalisers' statistics (of the trainable samples) are computed here, in parallel, rather than
            # in the busy optimizer
            message["moments"] = observation_moments(self.widths, batch.obs, batch.returns,
                                                     None if len(keep) == len(batch) else keep)
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
                "channel_calls": self.channel_calls, "deliveries_in_flight": in_flight,
                **{key: info.get(key, 0) for key in GAME_COUNTS}})  # a hook that is off counts nothing
