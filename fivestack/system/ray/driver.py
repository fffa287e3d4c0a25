"""The driver: a ``TrainingLoop`` (``system/loop.py``: budget, checkpoints, ratings, annealing, signals, progress)
whose step watches and restarts the actors and gathers their statistics every ``ray.log_seconds``. It starts the
actors, runs the evaluator actor one version at a time, and never calls an optimizer per batch."""

from __future__ import annotations

import os
import time
from collections import deque
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

import ray
import torch
from ray.exceptions import GetTimeoutError, RayActorError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from fivestack.model.policy import Policy, parameter_count
from fivestack.runs.config import ConfigError, TrainConfig, reward_weights
from fivestack.system.clone import clone_needed, clone_policy, kl_reference
from fivestack.system.controller import Controller, RunStopped, new_run_dir
from fivestack.system.loop import Report, TrainingLoop, say_line
from fivestack.system.metrics import ray_metrics
from fivestack.system.ray.controller import ControllerActor
from fivestack.system.ray.evaluator import EvaluatorActor
from fivestack.system.ray.inference import InferenceActor
from fivestack.system.ray.messages import CONTROLLER, to_numpy
from fivestack.system.ray.optimizer import OptimizerActor
from fivestack.system.ray.rollout import RolloutActor
from fivestack.match.teams import active_heroes
from fivestack.system.run_state import RunState, load_run, model_mismatch, starting_policy
from fivestack.system.serial import use_torch_threads


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


class RayRunner(TrainingLoop):
    """The ``Runner`` of Ray actors: ``run`` (the ``TrainingLoop``'s) trains until the budget, ``close`` stops the
    actors (and Ray, if it started it)."""

    rate_one_at_a_time = True  # one evaluator actor, one version at a time

    def __init__(self, config: TrainConfig, resume: Path | None = None, say: Callable[[str], None] = say_line):
        if config.run.device == "cuda":
            raise ConfigError('run.device = "cuda" is for --runner serial (the ray runner\'s actors run on the CPU for '
                              'now); use --runner serial or --set run.device=cpu')
        if config.asp.share > 0:
            raise ConfigError(f"asp.share = {config.asp.share:g}: the ray runner does not play asymmetric self-play "
                              f"games; use --runner serial, or asp.share=0")
        self.config = config
        self.say = say
        self.started_ray = False
        self.controller = None  # the actors start once version 0 is there (after the clone phase, if any)
        self.optimizers: list = []
        self.inference, self.rollouts = [], []
        self.evaluator = Slot("evaluator", 0)
        checkpoint = None
        if resume is not None:
            self.run_dir = Path(resume)
            path, model, optim, self.state = load_run(self.run_dir, config)
            try:  # here, with one clear error, rather than in every optimizer actor
                Policy(config.policy, config.game.patch).load_state_dict(model)
            except RuntimeError as exc:
                raise model_mismatch(path, exc) from None
            checkpoint = {"model": to_numpy(model), "optim": to_numpy(optim), "scalars": self.state.optimizer,
                          "buffer": self.state.buffer}
            self.say(f"resuming {self.run_dir} from {path} (version {self.state.version})")
        else:
            start, init_from = starting_policy(config) if config.run.init_from else (None, {})
            self.run_dir = new_run_dir(config)
            self.state = RunState.new(config.run.seed, "ray")
            self.state.init_from = init_from
            if start is not None:  # version 0 is a trained version's weights: the optimizers start from them
                checkpoint = {"model": to_numpy(start.state_dict())}
        self._init_loop(config, self.state, say)  # the annealing's state goes to the controller
        self.agent_steps = self.state.agent_steps
        self.version = self.state.version
        if not clone_needed(config, self.state.clone, self.state.version, self.run_dir):
            self._start_actors(checkpoint)

    # ------------------------------------------------------------------ version 0 from a clone
    def clone(self, on_progress=None) -> None:
        """Make version 0 the clone of ``clone.bot`` in this process (``fivestack.system.clone``, the serial
        runner's phases), then start the actors from it: the optimizers with its weights and, for the KL term, as
        their frozen reference. Nothing to do once the actors run (no bot to clone, or the run has its clone)."""
        if self.controller is not None:
            return
        cfg, t0 = self.config, time.monotonic()
        use_torch_threads(cfg)
        torch.manual_seed(cfg.run.seed)
        policy = Policy(cfg.policy, cfg.game.patch)
        log = Controller(self.run_dir, cfg)  # the clone phase's metrics; the controller actor appends after them
        try:
            summary = clone_policy(cfg, self.run_dir, policy, lambda steps, metrics: log.log(0, steps, metrics),
                                   on_progress)
        finally:
            log.close()
        self.state.agent_steps = self.agent_steps = summary.agent_steps
        self.state.clone = {"bot": cfg.clone.bot, "agent_steps": summary.agent_steps, **summary.held_out}
        self.state.elapsed += time.monotonic() - t0
        self._start_actors({"model": to_numpy(policy.state_dict())})
        self.checkpoint(self.state.elapsed)  # version 0, as the serial runner keeps it

    def _start_actors(self, checkpoint: dict | None) -> None:
        """Ray (unless it runs), the controller, the optimizers (from ``checkpoint``: a resumed run's, or a new
        run's starting weights; None: their own seed's), the inference and rollout actors."""
        config, rc = self.config, self.config.ray
        reference = kl_reference(config, self.run_dir, self.state.clone)
        if reference is not None:
            checkpoint = {**(checkpoint or {}), "reference": to_numpy(reference)}
        if not ray.is_initialized():
            init_ray(config.ray)
            self.started_ray = True
        self.namespace = f"fivestack-{self.run_dir.name}-{os.getpid()}"
        cfg = config.to_dict()
        self.cfg_dict = cfg
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        self.controller = ControllerActor.options(  # on the driver's node, which reads the run directory it writes
            name=CONTROLLER, namespace=self.namespace, scheduling_strategy=here).remote(
            str(self.run_dir.resolve()), cfg, self.state.to_json())
        self.optimizers = [OptimizerActor.remote(cfg, r, rc.optimizers, self.namespace) for r in range(rc.optimizers)]
        address, port = ray.get(self.optimizers[0].address.remote())
        versions = ray.get([o.setup.remote(address, port, checkpoint) for o in self.optimizers])
        self.version = versions[0]
        self.optimizer_tasks = [o.run.remote() for o in self.optimizers]
        self.inference = [Slot("inference", i) for i in range(rc.inference)]
        self.rollouts = [Slot("rollout", i) for i in range(rc.rollout_workers)]
        self.eval_task = None  # the version the evaluator actor rates now: its task and (version, agent_steps)
        self.eval_job: tuple[int, int] | None = None
        self.last_log = time.monotonic()
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
            slot.actor = EvaluatorActor.remote(self.cfg_dict, self.ratings.evaluator, self.namespace)
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

    # ------------------------------------------------------------------ the step: watch the actors, gather statistics
    def _begin(self) -> None:
        self.clone()  # the clone phase, if the caller did not run it first (the CLI does, under its own bar)
        self.last_log = time.monotonic()

    @contextmanager
    def _running(self):
        try:
            yield
        except RayActorError as exc:  # an optimizer lost (with its node): the run cannot go on without its state
            raise RunStopped(f"an optimizer was lost ({type(exc).__name__}: its process or node died or cannot be "
                             f"reached); the run stops: resume it from its last checkpoint with --resume "
                             f"{self.run_dir}") from exc

    def _step(self) -> Report | None:
        time.sleep(0.2)
        now = time.monotonic()
        self._watch()
        if now - self.last_log < self.config.ray.log_seconds:
            self.version = ray.get(self.controller.latest_version.remote())
            return None
        return self._interval_report(now)

    def _last_report(self) -> Report | None:
        """The statistics since the last interval's report: a run that stops between two reports (or ends before its
        first, as a short resumed run can) still logs them."""
        return self._interval_report(time.monotonic())

    def _interval_report(self, now: float) -> Report:
        metrics, rollouts = self._gather(now - self.last_log)
        self.last_log = now
        return Report(metrics, metrics.get("throughput/agent_steps_per_s", 0.0), rollouts)

    def _gather(self, interval: float) -> tuple[dict[str, float], dict]:
        """Every actor's statistics since the last call, as the interval's metrics (``metrics.ray_metrics``), and
        the rollout workers' totals."""
        opt = ray.get([o.take_stats.remote() for o in self.optimizers])
        inf = []
        for slot in self.inference:
            if slot.actor is not None:
                try:
                    inf.append(ray.get(slot.actor.take_stats.remote(), timeout=30))
                except (RayActorError, GetTimeoutError):
                    pass
        self.agent_steps, rollouts = ray.get(self.controller.take_rollout_stats.remote())
        self.version = opt[0]["version"]
        cfg = self.config
        out = dict(ray.get(self.controller.pool_summary.remote()))
        out.update(ray_metrics(opt, inf, rollouts, interval, cfg.ray.buffer_samples,
                               cfg.rollout.sample_steps * cfg.rollout.decision_steps,
                               active_heroes(cfg.game.mode).shape[1], reward_weights(cfg.reward)))
        return out, rollouts

    def _log(self, version: int, agent_steps: int, metrics: dict[str, float]) -> None:
        self.controller.log.remote(version, metrics, agent_steps)

    def _save(self) -> Path:
        """The checkpoint (``TrainingLoop.checkpoint``): rank 0's weights and optimizer, written by the controller
        with its own part of the run state."""
        payload = self.optimizers[0].checkpoint_payload.remote()
        return Path(ray.get(self.controller.save.remote(payload, self.state.elapsed, self.state.win_rates,
                                                        self.state.ratings)))

    def _annealing_changed(self) -> None:
        self.controller.set_anneal.remote(self.annealing.state_dict())  # the rollout actors read the share there

    def _stop_components(self) -> None:
        self._stop_optimizers()

    def _stopped(self, path: Path) -> None:
        self.agent_steps = ray.get(self.controller.counters.remote())["agent_steps"]
        self.version = int(path.name)

    # ------------------------------------------------------------------ the evaluator actor
    @property
    def pool_joined(self) -> int:
        """The last version that joined the opponent pool (the controller's)."""
        return ray.get(self.controller.pool_state.remote())["last_joined"]

    def _send_rating(self, version: int, agent_steps: int) -> None:
        self._start_rating()

    def _start_rating(self) -> None:
        """Rate the oldest pending version, once the evaluator actor is free (and past its back-off if it died)."""
        if self.eval_task is not None or not self.ratings.pending:
            return
        if self.evaluator.actor is None:
            if time.monotonic() < self.evaluator.restart_at:
                return
            self._start(self.evaluator)
        self.eval_job = self.ratings.pending[0]
        self.eval_task = self.evaluator.actor.rate.remote(self.eval_job[0])

    def _rating_messages(self, timeout: float) -> list[dict]:
        if self.eval_task is None:  # left pending by an evaluator that died, or by an earlier session
            self._start_rating()
            return []
        ready, _ = ray.wait([self.eval_task], timeout=timeout)
        if not ready:
            return []
        self.eval_task = None
        try:
            message = ray.get(ready[0])
        except RayActorError as exc:  # rated again by its replacement
            self._died(self.evaluator, exc)
            return []
        message["record"]["agent_steps"] = self.eval_job[1]
        return [message]

    def _stop_optimizers(self) -> None:
        for slot in self.rollouts:  # no new data while the optimizers stop
            if slot.actor is not None:
                ray.kill(slot.actor)
                slot.actor = None
        ray.get([o.stop.remote() for o in self.optimizers])
        ray.get(self.optimizer_tasks)

    def close(self) -> None:
        if self.controller is None:  # closed before the actors started (a clone phase that did not finish)
            return
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
                f"{self.config.ppo.batch_samples}), a version every {self.config.ppo.steps_per_version} steps | "
                f"{parameter_count(Policy(self.config.policy, self.config.game.patch)):,} parameters | "
                f"mode {self.config.game.mode} | "
                f"TensorBoard: tensorboard --logdir {self.run_dir / 'tb'}")
