"""The serial runner: every component in one process, deterministic, for one machine, tests and debugging.

    loop: RolloutWorker.collect (via Inference; 20% of games against a past version from the OpponentPool)
          -> SampleBuffer -> Optimizer.train -> Controller (metrics every segment, a checkpoint every few
          minutes); every ``pool.add_every_versions`` the version joins the pool, and every
          ``eval.every_versions`` it is sent to the evaluator (its own process), whose TrueSkill ratings are
          logged as they arrive.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch

from fivestack.model.policy import Policy, parameter_count
from fivestack.system.annealing import Annealing
from fivestack.system.buffer import SampleBuffer
from fivestack.system.clone import clone_policy, load_clone_weights
from fivestack.runs.config import ConfigError, TrainConfig, reward_weights
from fivestack.system.controller import Controller, new_run_dir
from fivestack.match.device import resolve_device, to_cpu
from fivestack.system.evaluator import EvaluatorProcess, RatingEvaluator, progress_ratings, rating_metrics
from fivestack.match.inference import Inference
from fivestack.system.metrics import mean_metrics, serial_metrics
from fivestack.system.optimizer import Optimizer, team_spirit_at
from fivestack.system.pool import OpponentPool, PastOpponents
from fivestack.system.rollout import RolloutWorker
from fivestack.system.runner import Progress
from fivestack.system.run_state import RatingSchedule, RunState, load_run, model_mismatch, save_run


class SerialRunner:
    """The ``Runner`` of one process: ``run`` trains until the budget, ``close`` releases the evaluator and the
    logs; ``version``, ``agent_steps`` and ``run_dir`` say where the run stands."""

    def __init__(self, config: TrainConfig, resume: Path | None = None):
        if config.run.torch_threads > 0:
            torch.set_num_threads(config.run.torch_threads)
        passes = config.ppo.sample_reuse
        if passes < 1 or passes != int(passes):
            raise ConfigError(f"ppo.sample_reuse = {passes:g}: the serial runner makes that many passes over each "
                              f"segment, so it must be a whole number of at least 1")
        self.config = config
        self.device = resolve_device(config.run.device)  # first: a missing GPU fails before a run folder is made
        torch.manual_seed(config.run.seed)
        self.policy = Policy(config.policy, config.game.patch)
        self.optimizer = Optimizer(self.policy, config.ppo, self.device)  # inference shares the policy, there
        self.inference = Inference(self.policy, seed=config.run.seed)
        self.buffer = SampleBuffer(config.ppo.max_staleness)
        self.rng = np.random.default_rng(config.run.seed)
        self.state = RunState.new(config.run.seed, "serial")
        self.evaluator: EvaluatorProcess | RatingEvaluator | None = None
        self.run_dir = Path(resume) if resume is not None else new_run_dir(config)
        self.pool = OpponentPool(config.pool, self.run_dir / "pool")
        if resume is not None:
            self._restore()
            self._set_reference()
        self.ratings = RatingSchedule.from_state(config.eval.every_versions, self.state.ratings)
        self.annealing = Annealing.from_state(config.anneal, self.state.anneal, self.version)
        self.controller = Controller(self.run_dir, config)
        opponents = PastOpponents(self.pool, config.policy, config.run.seed, patch=config.game.patch) \
            if config.pool.past_fraction > 0 else None
        # one loop trains on a segment before it collects the next: the segments' observations (most of a GB)
        # are written into the same arrays each time, not into fresh memory
        self.worker = RolloutWorker(config, seed=self.state.worker_seed, opponents=opponents, reuse_buffers=True,
                                    feature_share=self.annealing.share(self.version) if self.annealing else 0.0)
        self.state.worker_seed += 1

    @property
    def version(self) -> int:
        return self.optimizer.version

    @property
    def agent_steps(self) -> int:
        return self.state.agent_steps

    @property
    def elapsed_before(self) -> float:
        """Seconds trained before the current ``run`` call (over every session of the run)."""
        return self.state.elapsed

    # ------------------------------------------------------------------ checkpoints
    def _restore(self) -> None:
        path, model, optim, self.state = load_run(self.run_dir, self.config.run.seed)
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

    def checkpoint(self, elapsed: float) -> Path:
        optim = self.optimizer.optimizer_tensors()
        optim["rng.inference"] = self.inference.rng_state().clone()
        optim["rng.torch"] = torch.get_rng_state().clone()
        self.state.optimizer = self.optimizer.scalars()
        self.state.buffer = self.buffer.state_dict()
        self.state.elapsed = elapsed
        self.state.numpy_rng = self.rng.bit_generator.state
        self.state.pool = self.pool.state_dict()
        self.state.ratings = self.ratings.state_dict()
        self.state.anneal = self.annealing.state_dict() if self.annealing else self.state.anneal
        self.state.runner = "serial"
        return save_run(self.controller, self.policy.state_dict(), optim, self.state)

    # ------------------------------------------------------------------ version 0 from a clone
    def clone(self, on_progress=None) -> None:
        """Make version 0 the clone of ``clone.bot`` (``fivestack.system.clone``), unless there is no bot to clone
        or the run has its clone already; its recorded agent-steps become the run's first, and version 0 is
        checkpointed. A killed clone resumes where it stopped."""
        cfg = self.config
        if not cfg.clone.bot or self.state.clone:
            return
        if self.version > 0:
            raise ConfigError(f"clone.bot = {cfg.clone.bot!r}, but run {self.run_dir} is at version {self.version} "
                              f"without a clone: a clone is a run's version 0; start a new run for it")
        t0 = time.monotonic()
        summary = clone_policy(cfg, self.run_dir, self.policy,
                               lambda steps, metrics: self.controller.log(0, steps, metrics), on_progress)
        self.state.agent_steps = summary.agent_steps
        self.state.clone = {"bot": cfg.clone.bot, "agent_steps": summary.agent_steps, **summary.held_out}
        self._set_reference()
        self.checkpoint(self.state.elapsed + time.monotonic() - t0)

    def _set_reference(self) -> None:
        """The frozen clone for the KL term (``ppo.kl_weight``), once the run has one."""
        ppo = self.config.ppo
        if self.state.clone and (ppo.kl_weight > 0 or ppo.kl_weight_end > 0):
            reference = Policy(self.config.policy, self.config.game.patch)
            reference.load_state_dict(load_clone_weights(self.run_dir))
            self.optimizer.set_reference(reference)

    # ------------------------------------------------------------------ the loop
    def run(self, on_progress=None, stop=lambda: False) -> Progress:
        cfg = self.config
        self.clone()
        budget = cfg.run.minutes * 60.0
        start = time.monotonic()
        last_checkpoint = start
        elapsed_before = self.state.elapsed
        progress = Progress(version=self.version, agent_steps=self.agent_steps, budget=budget)
        for version, steps in self.ratings.pending:  # sent before a restart and never rated: send again
            self._send_to_evaluator(version, steps)
        self._versions_joined()
        while not stop():
            elapsed = elapsed_before + time.monotonic() - start
            if budget and elapsed >= budget:
                break
            if cfg.run.max_versions and self.version >= cfg.run.max_versions:
                break
            t0 = time.monotonic()
            self.inference.version = self.version
            self.inference.value_scale = self.optimizer.value_scale
            tau = team_spirit_at(cfg.ppo, self.version)
            if self.annealing:
                self.worker.feature_share = self.annealing.share(self.version)
            # the segment whole, with the samples to train on listed (not copied without those a past version
            # played): the buffer and the statistics read only those
            batch = self.worker.collect(self.inference, tau, keep_all=True)
            trainable = batch.info["trainable"]
            keep = None if len(trainable) == len(batch) else trainable
            t1 = time.monotonic()
            self.buffer.add(batch, keep)
            losses = mean_metrics([self.optimizer.train(minibatch) for minibatch in self.buffer.minibatches(
                cfg.ppo.batch_samples, lambda: self.optimizer.version, int(cfg.ppo.sample_reuse), self.rng)])
            # the statistics move after training on the batch, which was collected (and is scored) with the
            # normalisers and reward scale it was collected with
            self.optimizer.observe(batch, keep)
            t2 = time.monotonic()
            hero_steps = batch.info["hero_steps"]
            self.state.agent_steps += hero_steps
            metrics = {**losses, **serial_metrics(batch.info, t1 - t0, t2 - t1, self.buffer.staleness.take(),
                                                  self.buffer.reuse(), self.buffer.dropped_stale, tau,
                                                  reward_weights(cfg.reward))}
            self.pool.record_games(batch.info["games"])
            self._versions_joined()
            metrics.update(self.pool.summary())
            if self.annealing:
                metrics.update(self.annealing.metrics(self.worker.feature_share, batch.info))
            metrics.update(batch.info.get("asp", {}))  # asymmetric self-play games (asp.share), if any
            self.controller.log(self.version, self.agent_steps, metrics)
            self.collect_ratings()
            now = time.monotonic()
            elapsed = elapsed_before + now - start
            if now - last_checkpoint >= cfg.run.checkpoint_minutes * 60.0:
                self.checkpoint(elapsed)
                last_checkpoint = now
            progress = Progress(self.version, self.agent_steps, hero_steps / max(t2 - t0, 1e-9), elapsed, budget,
                                dict(self.state.win_rates))
            if on_progress is not None:
                on_progress(progress)
        self.checkpoint(elapsed_before + time.monotonic() - start)
        return progress

    @property
    def pool_joined(self) -> int:
        """The last version that joined the opponent pool."""
        return self.pool.last_joined

    def close(self) -> None:
        if isinstance(self.evaluator, EvaluatorProcess):
            self.evaluator.close()
        self.controller.close()

    # ------------------------------------------------------------------ opponent pool and ratings
    def _versions_joined(self) -> None:
        """Add the version to the pool when it crossed a multiple of ``pool.add_every_versions`` (version 0
        joins at once), and send it to the evaluator when a rating is due (``RatingSchedule``)."""
        if self.pool.join_if_due(self.version, lambda: to_cpu(self.policy.state_dict())):
            if self.ratings.offer(self.version, self.agent_steps):
                self._send_to_evaluator(self.version, self.agent_steps)

    def _evaluator(self) -> EvaluatorProcess | RatingEvaluator:
        if self.evaluator is None:
            if self.config.eval.in_process:
                self.evaluator = RatingEvaluator(self.config, self.pool.directory, self.ratings.evaluator,
                                                 seed=self.config.run.seed)
            else:
                self.evaluator = EvaluatorProcess(self.config, self.pool.directory, self.ratings.evaluator)
        return self.evaluator

    def _send_to_evaluator(self, version: int, agent_steps: int) -> None:
        evaluator = self._evaluator()
        if isinstance(evaluator, EvaluatorProcess):  # in process, ``collect_ratings`` rates what is pending
            evaluator.submit(version, agent_steps)

    def collect_ratings(self, timeout: float = 0.0) -> list[dict]:
        """Log the ratings that finished since the last call (waiting up to ``timeout`` s for the next one)."""
        if not self.ratings.pending or self.evaluator is None:
            return []
        if isinstance(self.evaluator, RatingEvaluator):  # in-process: rate now, deterministically
            messages = []
            for version, steps in self.ratings.pending:
                messages.append({"record": {**self.evaluator.rate_version(version), "agent_steps": steps},
                                 "state": self.evaluator.state_dict()})
        else:
            messages = self.evaluator.poll(timeout)
        records = []
        for message in messages:
            record = self.ratings.finish(message)
            if record is None:
                print(f"warning: {message['error']}", flush=True)
                continue
            self.state.win_rates = progress_ratings(record)
            self.controller.log(record["version"], record["agent_steps"], rating_metrics(record))
            if self.annealing and self.annealing.on_record(record):
                print(f"anneal: TrueSkill of version {record['version']} dropped; the share of games with "
                      f"{self.annealing.feature} reverts to {self.annealing.anchor_share:.0%}, its rate slows to "
                      f"{self.annealing.rate:.4f} per version", flush=True)
            records.append(record)
        return records

    def wait_for_ratings(self, timeout: float) -> list[dict]:
        """Block until every submitted version is rated or ``timeout`` s pass; returns the new ratings."""
        deadline = time.monotonic() + timeout
        records = []
        while self.ratings.pending and time.monotonic() < deadline:
            records += self.collect_ratings(timeout=min(5.0, max(deadline - time.monotonic(), 0.01)))
        return records

    def describe(self) -> str:
        return (f"run {self.run_dir} | {parameter_count(self.policy):,} parameters | mode {self.config.game.mode} | "
                f"{self.config.rollout.games} games | TensorBoard: tensorboard --logdir {self.controller.tensorboard_dir}")
