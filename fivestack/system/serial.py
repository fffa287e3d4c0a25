"""The serial runner: every component in one process, deterministic, for one machine, tests and debugging.

    loop: RolloutWorker.collect (via Inference) -> ExperienceBuffer -> Optimizer.train -> Controller
          (metrics every segment, evaluation every ``eval.every_versions``, a checkpoint every few minutes)
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import numpy as np
import torch

from fivestack.game.layout import EVENT_NAMES
from fivestack.model.policy import Policy, parameter_count
from fivestack.system.buffer import ExperienceBuffer
from fivestack.system.config import TrainConfig
from fivestack.system.controller import Controller, latest_checkpoint, load_checkpoint
from fivestack.system.evaluator import evaluate
from fivestack.system.inference import Inference
from fivestack.system.optimizer import Optimizer, team_spirit
from fivestack.system.rollout import RolloutWorker, weighted_event_means


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
        torch.manual_seed(config.run.seed)
        self.policy = Policy(config.policy)
        self.optimizer = Optimizer(self.policy, config.ppo)
        self.inference = Inference(self.policy, seed=config.run.seed)
        self.buffer = ExperienceBuffer(config.ppo.max_staleness)
        self.rng = np.random.default_rng(config.run.seed)
        self.agent_steps = 0
        self.elapsed_before = 0.0
        self.worker_seed = config.run.seed
        self.win_rates: dict[str, float] = {}
        if resume is not None:
            self.run_dir = Path(resume)
            self._restore(latest_checkpoint(self.run_dir))
        else:
            name = config.run.name or datetime.now().strftime("%Y%m%d-%H%M%S")
            self.run_dir = Path(config.run.runs_dir) / name
            if (self.run_dir / "checkpoints").exists() and any((self.run_dir / "checkpoints").iterdir()):
                raise FileExistsError(f"run {self.run_dir} already has checkpoints; resume it with --resume "
                                      f"{self.run_dir} or choose another run.name")
        self.controller = Controller(self.run_dir, config)
        self.worker = RolloutWorker(config, seed=self.worker_seed)
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

    def checkpoint(self, elapsed: float) -> Path:
        optim = self.optimizer.optimizer_tensors()
        optim["rng.inference"] = self.inference.rng_state().clone()
        optim["rng.torch"] = torch.get_rng_state().clone()
        state = {"optimizer": self.optimizer.scalars(), "buffer": self.buffer.state_dict(),
                 "agent_steps": self.agent_steps, "elapsed": elapsed, "worker_seed": self.worker_seed,
                 "numpy_rng": self.rng.bit_generator.state, "win_rates": self.win_rates}
        json.dumps(state)  # fail here, not halfway through writing, if something is not JSON
        return self.controller.save(self.optimizer.version, self.policy.state_dict(), optim, state)

    # ------------------------------------------------------------------ the loop
    def run(self, on_progress=None, stop=lambda: False) -> Progress:
        cfg = self.config
        budget = cfg.run.minutes * 60.0
        start = time.monotonic()
        last_checkpoint = start
        last_eval_version = self.optimizer.version
        progress = Progress(version=self.optimizer.version, agent_steps=self.agent_steps, budget=budget)
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
            self.optimizer.observe(batch)
            self.buffer.add(batch)
            staleness_before = self.buffer.staleness(self.optimizer.version, batch)
            metrics: dict[str, float] = {}
            n_updates = 0
            for minibatch in self.buffer.minibatches(cfg.ppo.batch_samples, self.optimizer.version, cfg.ppo.epochs,
                                                     self.rng):
                step_metrics = self.optimizer.train(minibatch)
                for key, value in step_metrics.items():
                    metrics[key] = metrics.get(key, 0.0) + value
                n_updates += 1
            metrics = {k: v / max(n_updates, 1) for k, v in metrics.items()}
            t2 = time.monotonic()
            hero_steps = batch.info["hero_steps"]
            self.agent_steps += hero_steps
            metrics.update(self._segment_metrics(batch, staleness_before, t1 - t0, t2 - t1, tau))
            if cfg.eval.every_versions and self.optimizer.version - last_eval_version >= cfg.eval.every_versions:
                metrics.update(self.evaluate())
                last_eval_version = self.optimizer.version
            self.controller.log(self.optimizer.version, self.agent_steps, metrics)
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

    def close(self) -> None:
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
        for name, value in zip(EVENT_NAMES, weighted_event_means(info["event_sums"], info["hero_steps"])):
            out[f"reward_events/{name}"] = float(value)
        games = info["games"]
        if games:
            out["games/finished"] = float(len(games))
            out["games/minutes"] = float(np.mean([g["seconds"] for g in games]) / 60.0)
            out["games/radiant_win_rate"] = float(np.mean([g["winner"] == 0 for g in games]))
            out["games/truncated"] = float(np.mean([g["truncated"] for g in games]))
        return out

    def evaluate(self) -> dict[str, float]:
        cfg = self.config
        out = {}
        for opponent in cfg.eval.opponents:
            result = evaluate(self.policy, opponent, cfg.eval.games, cfg.game.mode, cfg.eval.max_seconds,
                              seed=self.optimizer.version)
            out[f"eval/win_rate_vs_{opponent}"] = result.win_rate
            out[f"eval/win_rate_vs_{opponent}_low"] = result.ci95[0]
            out[f"eval/win_rate_vs_{opponent}_high"] = result.ci95[1]
            self.win_rates[opponent] = result.win_rate
        return out

    def describe(self) -> str:
        return (f"run {self.run_dir} | {parameter_count(self.policy):,} parameters | mode {self.config.game.mode} | "
                f"{self.config.rollout.games} games | TensorBoard: tensorboard --logdir {self.controller.tensorboard_dir}")
