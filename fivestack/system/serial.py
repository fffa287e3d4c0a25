"""The serial runner: every component in one process, deterministic, for one machine, tests and debugging.

A ``TrainingLoop`` (``loop.py``: budget, checkpoints, ratings, annealing, signals, progress) whose step runs the
components here, one after the other:

    step: RolloutWorker.collect (via Inference; with past versions of the OpponentPool, the bot, the teacher,
          self-play as the worker's hooks) -> SampleBuffer -> Optimizer.train -> the segment's metrics; every
          ``pool.add_every_versions`` the version joins the pool
    with ``run.overlap``: the same, with collect and train at the same time on two threads: the optimizer trains
          on the segment played in the previous step while the worker plays the next one with a copy of the
          weights from before that training (``acting``; one segment staler than without overlap); at the end of
          the step the copy takes the new weights. The segment in play when the loop ends (or the process dies)
          is dropped, never counted: a segment's agent-steps count when it is trained on, so a budget stops the
          run where it stops without overlap.
    the evaluator: its own process (EvaluatorProcess), or this one with ``eval.in_process`` (RatingEvaluator,
          deterministic: a version is rated as soon as it is offered)
"""

from __future__ import annotations

import copy
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from fivestack.model.policy import Policy, parameter_count
from fivestack.system.buffer import SampleBuffer
from fivestack.system.clone import clone_needed, clone_policy, kl_reference
from fivestack.runs.config import ConfigError, TrainConfig, reward_weights
from fivestack.system.controller import Controller, new_run_dir
from fivestack.match.device import resolve_device, to_cpu
from fivestack.system.evaluator import EvaluatorProcess, RatingEvaluator
from fivestack.match.inference import Inference
from fivestack.system.loop import Report, TrainingLoop, say_line
from fivestack.system.messages import SampleBatch
from fivestack.system.metrics import mean_metrics, serial_metrics
from fivestack.system.optimizer import Optimizer, team_spirit_at
from fivestack.system.pool import OpponentPool, PastOpponents
from fivestack.system.rollout import RolloutWorker
from fivestack.system.run_state import RunState, load_run, model_mismatch, save_run, starting_policy


def use_torch_threads(config: TrainConfig) -> None:
    """``run.torch_threads`` for this process (0: torch's default), for training and for the evaluations that a
    script runs without training (two jobs on 2 cores: set 1). With ``run.overlap`` and 0, the overlapped steps
    run with one torch thread each (``SerialRunner._overlapped_step``), the clone phase with torch's default."""
    if config.run.torch_threads > 0:
        torch.set_num_threads(config.run.torch_threads)


class SerialRunner(TrainingLoop):
    """The ``Runner`` of one process: ``run`` (the ``TrainingLoop``'s) trains until the budget, ``close`` releases
    the evaluator and the logs; ``version``, ``agent_steps`` and ``run_dir`` say where the run stands."""

    def __init__(self, config: TrainConfig, resume: Path | None = None, say: Callable[[str], None] = say_line):
        use_torch_threads(config)
        passes = config.ppo.sample_reuse
        if passes < 1 or passes != int(passes):
            raise ConfigError(f"ppo.sample_reuse = {passes:g}: the serial runner makes that many passes over each "
                              f"segment, so it must be a whole number of at least 1")
        r = config.rollout
        most = r.games * 2 * (r.segment_steps // r.sample_steps)  # team-samples in a segment if every row trains
        if most < config.ppo.batch_samples:
            raise ConfigError(f"ppo.batch_samples = {config.ppo.batch_samples} is more than a segment's "
                              f"{most} team-samples (rollout.games x 2 teams x segment_steps / sample_steps): the "
                              f"serial runner trains on whole minibatches of one segment and would never take a "
                              f"step; lower ppo.batch_samples or raise rollout.games or rollout.segment_steps")
        self.config = config
        self.device = resolve_device(config.run.device)  # first: a missing GPU fails before a run folder is made
        torch.manual_seed(config.run.seed)
        self.policy = Policy(config.policy, config.game.patch)
        self.state = RunState.new(config.run.seed, "serial")
        if resume is None and config.run.init_from:  # version 0: a trained version's (a resumed run has its own)
            start, self.state.init_from = starting_policy(config)
            self.policy.load_state_dict(start.state_dict())
        self.optimizer = Optimizer(self.policy, config.ppo, self.device, warm_start=bool(config.run.init_from))
        # the weights the rollouts play: the optimizer's own, or with overlap a copy that changes between steps only
        self.acting = copy.deepcopy(self.policy) if config.run.overlap else self.policy
        self.inference = Inference(self.acting, seed=config.run.seed)
        self._pending: tuple[SampleBatch, float] | None = None  # with overlap: the segment played, not trained yet
        self._trainer: ThreadPoolExecutor | None = None  # with overlap: the thread the optimizer trains in
        self._threads_before = 0  # torch's threads before the overlapped steps set one (restored when they end)
        self.buffer = SampleBuffer(config.ppo.max_staleness)
        self.rng = np.random.default_rng(config.run.seed)
        self.evaluator: EvaluatorProcess | RatingEvaluator | None = None
        self.run_dir = Path(resume) if resume is not None else new_run_dir(config)
        self.pool = OpponentPool(config.pool, self.run_dir / "pool")
        if resume is not None:
            self._restore()
            self._set_reference()
        self._update_acting()
        self._init_loop(config, self.state, say)
        self.controller = Controller(self.run_dir, config)
        opponents = PastOpponents(self.pool, config.policy, config.run.seed, patch=config.game.patch) \
            if config.pool.past_fraction > 0 else None
        # one loop trains on a segment before it collects the next: the segments' observations (most of a GB)
        # are written into the same arrays each time, not into fresh memory (with overlap, two sets in turn)
        self.worker = RolloutWorker(config, seed=self.state.worker_seed, opponents=opponents,
                                    reuse_buffers=2 if config.run.overlap else 1, feature_share=self.feature_share(),
                                    parallel_players=config.run.overlap)
        self.state.worker_seed += 1

    @property
    def version(self) -> int:
        return self.optimizer.version

    @property
    def agent_steps(self) -> int:
        return self.state.agent_steps

    # ------------------------------------------------------------------ checkpoints
    def _restore(self) -> None:
        path, model, optim, self.state = load_run(self.run_dir, self.config)
        try:
            self.policy.load_state_dict(model)
        except RuntimeError as exc:
            raise model_mismatch(path, exc) from None
        self.optimizer.load_optimizer_tensors(optim)
        self.optimizer.load_scalars(self.state.optimizer)
        self.buffer.load_state_dict(self.state.buffer)
        self.rng.bit_generator.state = self.state.numpy_rng
        if "rng.inference" in optim:  # written by the serial runner only
            self.inference.set_rng_state(optim["rng.inference"].to(torch.uint8))
        if "rng.torch" in optim:
            torch.set_rng_state(optim["rng.torch"].to(torch.uint8))
        if self.state.pool is not None:
            self.pool.load_state_dict(self.state.pool)

    def _save(self) -> Path:
        """The checkpoint (``TrainingLoop.checkpoint``): weights, Adam's moments and this process's RNGs."""
        optim = self.optimizer.optimizer_tensors()
        optim["rng.inference"] = self.inference.rng_state().clone()
        optim["rng.torch"] = torch.get_rng_state().clone()
        self.state.optimizer = self.optimizer.scalars()
        self.state.buffer = self.buffer.state_dict()
        self.state.numpy_rng = self.rng.bit_generator.state
        self.state.pool = self.pool.state_dict()
        self.state.runner = "serial"
        return save_run(self.controller, self.policy.state_dict(), optim, self.state)

    # ------------------------------------------------------------------ version 0 from a clone
    def clone(self, on_progress=None) -> None:
        """Make version 0 the clone of ``clone.bot`` (``fivestack.system.clone``), unless there is no bot to clone
        or the run has its clone already; its recorded agent-steps become the run's first, and version 0 is
        checkpointed. A killed clone resumes where it stopped."""
        cfg = self.config
        if not clone_needed(cfg, self.state.clone, self.version, self.run_dir):
            return
        t0 = time.monotonic()
        summary = clone_policy(cfg, self.run_dir, self.policy,
                               lambda steps, metrics: self.controller.log(0, steps, metrics), on_progress)
        self.state.agent_steps = summary.agent_steps
        self.state.clone = {"bot": cfg.clone.bot, "agent_steps": summary.agent_steps, **summary.held_out}
        self._set_reference()
        self.checkpoint(self.state.elapsed + time.monotonic() - t0)

    def _set_reference(self) -> None:
        """The frozen clone for the KL term (``ppo.kl_weight``), once the run has one."""
        weights = kl_reference(self.config, self.run_dir, self.state.clone)
        if weights is not None:
            reference = Policy(self.config.policy, self.config.game.patch)
            reference.load_state_dict(weights)
            self.optimizer.set_reference(reference)

    # ------------------------------------------------------------------ the step: collect a segment, train on it
    def _begin(self) -> None:
        self.clone()
        self._update_acting()  # a clone or a resumed run's weights
        self._join_pool()  # version 0 of a new run joins at once

    def _step(self) -> Report:
        if self.config.run.overlap:
            return self._overlapped_step()
        t0 = time.monotonic()
        batch, tau = self._collect()
        t1 = time.monotonic()
        losses = self._train(batch)
        t2 = time.monotonic()
        return self._segment_report(batch, tau, losses, t1 - t0, t2 - t1, t2 - t0)

    def _overlapped_step(self) -> Report:
        """``run.overlap``: train on the segment played last step (in the trainer thread) while this thread plays
        the next with the weights from before that training; then the acting copy takes the trained weights."""
        t0 = time.monotonic()
        if not self.config.run.torch_threads and torch.get_num_threads() != 1:  # a core each: one torch thread
            self._threads_before = torch.get_num_threads()
            torch.set_num_threads(1)
        if self._pending is None:  # the loop's first step has nothing to train on yet
            self._pending = self._collect()
        batch, tau = self._pending
        self._pending = None
        next_tau = self._prepare_collect()  # the version, value scale and team spirit, before training moves them
        if self._trainer is None:
            self._trainer = ThreadPoolExecutor(1, thread_name_prefix="fivestack-optimizer")
        training = self._trainer.submit(self._timed_train, batch)
        t1 = time.monotonic()
        try:
            next_segment = self._collect(next_tau)
        finally:
            losses, train_s = training.result()  # a failure in either thread ends the step
        t2 = time.monotonic()
        self._pending = next_segment
        self._update_acting()
        return self._segment_report(batch, tau, losses, t2 - t1, train_s, time.monotonic() - t0)

    def _timed_train(self, batch: SampleBatch) -> tuple[dict[str, float], float]:
        t0 = time.monotonic()
        losses = self._train(batch)
        return losses, time.monotonic() - t0

    def _last_report(self) -> Report | None:
        """With overlap, when the loop ends: the segment played in the last step is dropped, never trained on nor
        counted (a segment's agent-steps count when it is trained on), so that a run stops where its budget says,
        as without overlap; the next ``run`` plays a fresh one."""
        self._pending = None
        return None

    def _segment_report(self, batch: SampleBatch, tau: float, losses: dict[str, float], rollout_s: float,
                        train_s: float, step_s: float) -> Report:
        """A trained segment's metrics (its agent-steps count now), its games recorded in the pool, which the
        version joins when due."""
        hero_steps = batch.info["hero_steps"]
        self.state.agent_steps += hero_steps
        metrics = {**losses, **serial_metrics(batch.info, rollout_s, train_s, self.buffer.staleness.take(),
                                              self.buffer.reuse(), self.buffer.dropped_stale, tau,
                                              reward_weights(self.config.reward), step_s)}
        self.pool.record_games(batch.info["games"])
        self._join_pool()
        metrics.update(self.pool.summary())
        metrics.update(batch.info.get("asp", {}))  # asymmetric self-play games (asp.share), if any
        metrics.update(batch.info.get("drill", {}))  # the drill's episodes and successes (drill.name), if any
        return Report(metrics, hero_steps / max(step_s, 1e-9), batch.info, self.worker.feature_share)

    def _prepare_collect(self) -> float:
        """Set the version, value scale and share of the annealed feature the next segment is played with, as the
        optimizer stands; the team spirit to play it with."""
        self.inference.version = self.version
        self.inference.value_scale = self.optimizer.value_scale
        self.worker.feature_share = self.feature_share()
        return team_spirit_at(self.config.ppo, self.version)

    def _collect(self, tau: float | None = None) -> tuple[SampleBatch, float]:
        """One segment played by the acting version, and the team spirit it was played with. The segment is
        whole, with the samples to train on listed (not copied without those a past version played): the
        buffer and the statistics read only those."""
        tau = self._prepare_collect() if tau is None else tau  # given: prepared before the optimizer moved on
        return self.worker.collect(self.inference, tau, keep_all=True), tau

    def _update_acting(self) -> None:
        """With overlap, the acting copy takes the optimizer's weights and input normalisers (without, it is them)."""
        if self.acting is not self.policy:
            self.acting.load_state_dict(self.policy.state_dict())

    def _train(self, batch: SampleBatch) -> dict[str, float]:
        """``ppo.sample_reuse`` passes over the segment's trainable samples; the mean losses."""
        cfg = self.config.ppo
        trainable = batch.info["trainable"]
        keep = None if len(trainable) == len(batch) else trainable
        self.buffer.add(batch, keep)
        losses = mean_metrics([self.optimizer.train(minibatch) for minibatch in self.buffer.minibatches(
            cfg.batch_samples, lambda: self.optimizer.version, int(cfg.sample_reuse), self.rng)])
        # the statistics move after training on the batch, which was collected (and is scored) with the
        # normalisers and reward scale it was collected with
        self.optimizer.observe(batch, keep)
        return losses

    def _log(self, version: int, agent_steps: int, metrics: dict[str, float]) -> None:
        self.controller.log(version, agent_steps, metrics)

    def _stop_components(self) -> None:
        """After the loop: torch's threads as they were before the overlap."""
        if self._threads_before:
            torch.set_num_threads(self._threads_before)
            self._threads_before = 0

    @property
    def pool_joined(self) -> int:
        """The last version that joined the opponent pool."""
        return self.pool.last_joined

    def close(self) -> None:
        if self._trainer is not None:
            self._trainer.shutdown()
        if isinstance(self.evaluator, EvaluatorProcess):
            self.evaluator.close()
        self.controller.close()

    # ------------------------------------------------------------------ opponent pool and evaluator
    def _join_pool(self) -> None:
        """Add the version to the pool when it crossed a multiple of ``pool.add_every_versions`` (version 0
        joins at once); the loop offers the pool's newest version for a rating."""
        self.pool.join_if_due(self.version, lambda: to_cpu(self.policy.state_dict()))

    def _evaluator(self) -> EvaluatorProcess | RatingEvaluator:
        if self.evaluator is None:
            if self.config.eval.in_process:
                self.evaluator = RatingEvaluator(self.config, self.pool.directory, self.ratings.evaluator,
                                                 seed=self.config.run.seed)
            else:
                self.evaluator = EvaluatorProcess(self.config, self.pool.directory, self.ratings.evaluator)
        return self.evaluator

    def _send_rating(self, version: int, agent_steps: int) -> None:
        evaluator = self._evaluator()
        if isinstance(evaluator, EvaluatorProcess):  # in process, ``_rating_messages`` rates what is pending
            evaluator.submit(version, agent_steps)

    def _rating_messages(self, timeout: float) -> list[dict]:
        if self.evaluator is None:
            return []
        if isinstance(self.evaluator, RatingEvaluator):  # in-process: rate now, deterministically
            return [{"record": {**self.evaluator.rate_version(version), "agent_steps": steps},
                     "state": self.evaluator.state_dict()} for version, steps in self.ratings.pending]
        return self.evaluator.poll(timeout)

    def describe(self) -> str:
        return (f"run {self.run_dir} | {parameter_count(self.policy):,} parameters | mode {self.config.game.mode} | "
                f"{self.config.rollout.games} games | TensorBoard: tensorboard --logdir {self.controller.tensorboard_dir}")
