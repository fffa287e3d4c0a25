"""The serial runner: every component in one process, deterministic, for one machine, tests and debugging.

    loop: RolloutWorker.collect (via Inference; 20% of games against a past version from the OpponentPool)
          -> ExperienceBuffer -> Optimizer.train -> Controller (metrics every segment, a checkpoint every few
          minutes); every ``pool.add_every_versions`` the version joins the pool, and every
          ``eval.every_versions`` it is sent to the evaluator (its own process), whose TrueSkill ratings are
          logged as they arrive.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from fivestack.model.policy import Policy, parameter_count
from fivestack.system.buffer import ExperienceBuffer
from fivestack.system.config import TrainConfig, reward_weights
from fivestack.system.controller import Controller, latest_checkpoint, load_checkpoint, new_run_dir
from fivestack.system.device import resolve_device, to_cpu
from fivestack.system.evaluator import EvaluatorProcess, RatingEvaluator, progress_ratings, rating_metrics
from fivestack.system.inference import Inference
from fivestack.system.optimizer import Optimizer, team_spirit
from fivestack.system.pool import OpponentPool, PastOpponents
from fivestack.system.rollout import RolloutWorker, games_metrics, reward_event_metrics


@dataclass
class Progress:
    """What a progress display needs after each segment."""

    version: int = 0
    agent_steps: int = 0
    agent_steps_per_s: float = 0.0
    elapsed: float = 0.0
    budget: float = 0.0
    win_rates: dict[str, float] = field(default_factory=dict)


class SerialRunner:
    def __init__(self, config: TrainConfig, resume: Path | None = None):
        if config.run.torch_threads > 0:
            torch.set_num_threads(config.run.torch_threads)
        self.config = config
        self.device = resolve_device(config.run.device)  # first: a missing GPU fails before a run folder is made
        torch.manual_seed(config.run.seed)
        self.policy = Policy(config.policy)
        self.optimizer = Optimizer(self.policy, config.ppo, self.device)  # inference shares the policy, there
        self.inference = Inference(self.policy, seed=config.run.seed)
        self.buffer = ExperienceBuffer(config.ppo.max_staleness)
        self.rng = np.random.default_rng(config.run.seed)
        self.agent_steps = 0
        self.elapsed_before = 0.0
        self.worker_seed = config.run.seed
        self.win_rates: dict[str, float] = {}
        self.rated = -1  # the last version sent to the evaluator
        self.pending_ratings: list[tuple[int, int]] = []  # (version, agent_steps) sent, not yet rated
        self.ratings_state: dict = {}  # the evaluator's state (bots' and versions' ratings), for checkpoints
        self.evaluator: EvaluatorProcess | RatingEvaluator | None = None
        if resume is not None:
            self.run_dir = Path(resume)
        else:
            self.run_dir = new_run_dir(config)
        self.pool = OpponentPool(config.pool, self.run_dir / "pool")
        if resume is not None:
            self._restore(latest_checkpoint(self.run_dir))
        self.controller = Controller(self.run_dir, config)
        opponents = PastOpponents(self.pool, config.policy, config.run.seed) if config.pool.past_fraction > 0 else None
        self.worker = RolloutWorker(config, seed=self.worker_seed, opponents=opponents)
        self.worker_seed += 1

    # ------------------------------------------------------------------ checkpoints
    def _restore(self, path: Path) -> None:
        model, optim, state = load_checkpoint(path)
        try:
            self.policy.load_state_dict(model)
        except RuntimeError as exc:
            raise ValueError(f"checkpoint {path} does not fit this model ({str(exc).splitlines()[0]}); resume with "
                             f"the run's own config") from None
        self.optimizer.load_optimizer_tensors(optim)
        self.optimizer.load_scalars(state["optimizer"])
        self.buffer.load_state_dict(state["buffer"])
        self.agent_steps = int(state["agent_steps"])
        self.elapsed_before = float(state["elapsed"])
        self.worker_seed = int(state["worker_seed"])
        self.rng.bit_generator.state = state["numpy_rng"]
        if "rng.inference" in optim:
            self.inference.set_rng_state(optim["rng.inference"].to(torch.uint8))
        if "rng.torch" in optim:
            torch.set_rng_state(optim["rng.torch"].to(torch.uint8))
        self.win_rates = state.get("win_rates", {})
        self.pool.load_state_dict(state.get("pool", self.pool.state_dict()))
        self.rated = int(state.get("rated", -1))
        self.pending_ratings = [tuple(p) for p in state.get("pending_ratings", [])]
        self.ratings_state = state.get("ratings", {})

    def checkpoint(self, elapsed: float) -> Path:
        optim = self.optimizer.optimizer_tensors()
        optim["rng.inference"] = self.inference.rng_state().clone()
        optim["rng.torch"] = torch.get_rng_state().clone()
        state = {"optimizer": self.optimizer.scalars(), "buffer": self.buffer.state_dict(),
                 "agent_steps": self.agent_steps, "elapsed": elapsed, "worker_seed": self.worker_seed,
                 "numpy_rng": self.rng.bit_generator.state, "win_rates": self.win_rates,
                 "pool": self.pool.state_dict(), "rated": self.rated,
                 "pending_ratings": [list(p) for p in self.pending_ratings], "ratings": self.ratings_state}
        json.dumps(state)  # fail here, not halfway through writing, if something is not JSON
        return self.controller.save(self.optimizer.version, to_cpu(self.policy.state_dict()), optim, state)

    # ------------------------------------------------------------------ the loop
    def run(self, on_progress=None, stop=lambda: False) -> Progress:
        cfg = self.config
        budget = cfg.run.minutes * 60.0
        start = time.monotonic()
        last_checkpoint = start
        progress = Progress(version=self.optimizer.version, agent_steps=self.agent_steps, budget=budget)
        for version, steps in self.pending_ratings:  # sent before a restart and never rated: send again
            self._send_to_evaluator(version, steps)
        self._versions_joined()
        while not stop():
            elapsed = self.elapsed_before + time.monotonic() - start
            if budget and elapsed >= budget:
                break
            if cfg.run.max_versions and self.optimizer.version >= cfg.run.max_versions:
                break
            t0 = time.monotonic()
            self.inference.version = self.optimizer.version
            self.inference.value_scale = self.optimizer.value_scale
            tau = team_spirit(cfg.ppo, self.optimizer.version)
            batch = self.worker.collect(self.inference, tau)
            t1 = time.monotonic()
            self.buffer.add(batch)
            metrics: dict[str, float] = {}
            n_updates = 0
            for minibatch in self.buffer.minibatches(cfg.ppo.batch_samples, lambda: self.optimizer.version,
                                                     cfg.ppo.epochs, self.rng):
                step_metrics = self.optimizer.train(minibatch)
                for key, value in step_metrics.items():
                    metrics[key] = metrics.get(key, 0.0) + value
                n_updates += 1
            metrics = {k: v / max(n_updates, 1) for k, v in metrics.items()}
            # the statistics move after training on the batch, which was collected (and is scored) with the
            # normalisers and reward scale it was collected with
            self.optimizer.observe(batch)
            t2 = time.monotonic()
            hero_steps = batch.info["hero_steps"]
            self.agent_steps += hero_steps
            metrics.update(self._segment_metrics(batch, self.buffer.last_staleness, t1 - t0, t2 - t1, tau))
            self.pool.record_games(batch.info["games"])
            self._versions_joined()
            metrics.update(self.pool.summary())
            self.controller.log(self.optimizer.version, self.agent_steps, metrics)
            self.collect_ratings()
            now = time.monotonic()
            elapsed = self.elapsed_before + now - start
            if now - last_checkpoint >= cfg.run.checkpoint_minutes * 60.0:
                self.checkpoint(elapsed)
                last_checkpoint = now
            progress = Progress(self.optimizer.version, self.agent_steps, hero_steps / max(t2 - t0, 1e-9), elapsed,
                                budget, dict(self.win_rates))
            if on_progress is not None:
                on_progress(progress)
        self.elapsed_before += time.monotonic() - start
        self.checkpoint(self.elapsed_before)
        return progress

    @property
    def pool_joined(self) -> int:
        """The last version that joined the opponent pool."""
        return self.pool.last_joined

    def close(self) -> None:
        if isinstance(self.evaluator, EvaluatorProcess):
            self.evaluator.close()
        self.controller.close()

    def _segment_metrics(self, batch, staleness, rollout_s, optimize_s, tau) -> dict[str, float]:
        info = batch.info
        out = {"throughput/agent_steps_per_s": info["hero_steps"] / max(rollout_s + optimize_s, 1e-9),
               "throughput/rollout_seconds": rollout_s, "throughput/optimize_seconds": optimize_s,
               "staleness/min": staleness["min"], "staleness/mean": staleness["mean"],
               "staleness/max": staleness["max"], "sample_reuse": self.buffer.reuse(),
               "samples/dropped": float(self.buffer.dropped), "reward/shaped_abs_mean": info["reward_abs_mean"],
               "throughput/inference_seconds": info["inference_seconds"],
               "throughput/simulation_seconds": info["simulation_seconds"],
               "schedule/team_spirit": tau}
        out.update(reward_event_metrics(info["event_sums"], info["hero_steps"], reward_weights(self.config.reward)))
        out.update(games_metrics(info["games"]))
        return out

    # ------------------------------------------------------------------ opponent pool and ratings
    def _versions_joined(self) -> None:
        """Add the version to the pool when it crossed a multiple of ``pool.add_every_versions`` (version 0
        joins at once), and send it to the evaluator when it crossed a multiple of ``eval.every_versions``."""
        version = self.optimizer.version
        if self.pool.join_if_due(version, lambda: to_cpu(self.policy.state_dict())):
            rate_every = self.config.eval.every_versions
            if rate_every and (self.rated < 0 or version // rate_every > self.rated // rate_every):
                self.rated = version
                self.pending_ratings.append((version, self.agent_steps))
                self._send_to_evaluator(version, self.agent_steps)

    def _evaluator(self) -> EvaluatorProcess | RatingEvaluator:
        if self.evaluator is None:
            if self.config.eval.in_process:
                self.evaluator = RatingEvaluator(self.config, self.pool.directory, self.ratings_state,
                                                 seed=self.config.run.seed)
            else:
                self.evaluator = EvaluatorProcess(self.config, self.pool.directory, self.ratings_state)
        return self.evaluator

    def _send_to_evaluator(self, version: int, agent_steps: int) -> None:
        evaluator = self._evaluator()
        if isinstance(evaluator, EvaluatorProcess):  # in process, ``collect_ratings`` rates what is pending
            evaluator.submit(version, agent_steps)

    def collect_ratings(self, timeout: float = 0.0) -> list[dict]:
        """Log the ratings that finished since the last call (waiting up to ``timeout`` s for the next one)."""
        if not self.pending_ratings or self.evaluator is None:
            return []
        if isinstance(self.evaluator, RatingEvaluator):  # in-process: rate now, deterministically
            messages = []
            for version, steps in self.pending_ratings:
                messages.append({"record": {**self.evaluator.rate_version(version), "agent_steps": steps},
                                 "state": self.evaluator.state_dict()})
        else:
            messages = self.evaluator.poll(timeout)
        records = []
        for message in messages:
            if "state" in message:
                self.ratings_state = message["state"]
            if "error" in message:
                print(f"warning: {message['error']}", flush=True)
                done = message.get("version")  # None: the evaluator is gone and nothing pending will be rated
                self.pending_ratings = [p for p in self.pending_ratings if done is not None and p[0] != done]
                continue
            record = message["record"]
            self.pending_ratings = [p for p in self.pending_ratings if p[0] != record["version"]]
            self.win_rates = progress_ratings(record)
            self.controller.log(record["version"], record["agent_steps"], rating_metrics(record))
            records.append(record)
        return records

    def wait_for_ratings(self, timeout: float) -> list[dict]:
        """Block until every submitted version is rated or ``timeout`` s pass; returns the new ratings."""
        deadline = time.monotonic() + timeout
        records = []
        while self.pending_ratings and time.monotonic() < deadline:
            records += self.collect_ratings(timeout=min(5.0, max(deadline - time.monotonic(), 0.01)))
        return records

    def describe(self) -> str:
        return (f"run {self.run_dir} | {parameter_count(self.policy):,} parameters | mode {self.config.game.mode} | "
                f"{self.config.rollout.games} games | TensorBoard: tensorboard --logdir {self.controller.tensorboard_dir}")
