"""The driver: starts, watches and restarts the actors, gathers their statistics, triggers checkpoints and
ratings. It never calls an optimizer per batch."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import deque
from pathlib import Path

import numpy as np
import ray
from ray.exceptions import GetTimeoutError, RayActorError

from fivestack.model.policy import Policy, parameter_count
from fivestack.system.config import TrainConfig, reward_weights
from fivestack.system.controller import latest_checkpoint, load_checkpoint, new_run_dir
from fivestack.system.evaluator import progress_ratings, rating_metrics
from fivestack.system.ray.controller import ControllerActor
from fivestack.system.ray.evaluator import EvaluatorActor
from fivestack.system.ray.inference import InferenceActor
from fivestack.system.ray.messages import CONTROLLER, to_numpy
from fivestack.system.ray.optimizer import OptimizerActor
from fivestack.system.ray.rollout import RolloutActor
from fivestack.system.rollout import active_heroes, games_metrics, reward_event_metrics
from fivestack.system.serial import Progress


def init_ray(rc, **kwargs) -> None:
    """Start Ray on this machine with one logical CPU per actor (or ``ray.cpus``), or join ``ray.address``."""
    import logging

    root = str(Path(__file__).resolve().parents[3])  # local actors import fivestack from this checkout
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
        self.controller = ControllerActor.options(name=CONTROLLER, namespace=self.namespace).remote(
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
        if slot.kind == "inference":
            slot.actor = InferenceActor.options(name=f"inference-{slot.index}", namespace=self.namespace).remote(
                self.cfg_dict, slot.index, self.namespace)
            slot.task = slot.actor.alive.remote()
        elif slot.kind == "rollout":
            seed = ray.get(self.controller.next_worker_seed.remote())
            slot.actor = RolloutActor.remote(self.cfg_dict, slot.index, seed, self.namespace, self.optimizers)
            slot.task = slot.actor.run.remote()
        else:
            slot.actor = EvaluatorActor.remote(self.cfg_dict, self.ratings_state, self.namespace)
            slot.task = None

    def _died(self, slot: Slot, error: Exception) -> None:
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
                raise RuntimeError("an optimizer stopped unexpectedly; resume the run with --resume "
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
            if self.config.ray.inference:  # the share of requests that went through shared memory
                out["rollout/shared_memory_share"] = ro["channel_calls"] / max(ro["inference_calls"], 1)
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
            ray.get([o.close.remote() for o in self.optimizers])
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
