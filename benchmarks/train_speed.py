"""Throughput of the whole training loop (``configs/MODE.toml``, then ``--set`` overrides).

    python benchmarks/train_speed.py --seconds 60 [--mode 1v1] [--set ppo.batch_samples=64 ...]
    python benchmarks/train_speed.py --mode 1v1 --pool-versions 0 --seconds 60      # a fresh run's pool
    python benchmarks/train_speed.py --mode 5v5 --pool off --warmup-seconds 300 --seconds 60
    python benchmarks/train_speed.py --runner ray --rollout-workers 1,2 --seconds 120 [--inference 0]
    python benchmarks/train_speed.py --device cuda --model paper --pool off --seconds 60 --optimizer-seconds 30

``--start scratch`` (the default) measures PPO from scratch, the paper's route: the preset's clone-then-surpass
recipe is switched off (no clone, no KL term, no bot games), which is the configuration benchmarked before the
recipe existed; ``--start clone`` measures PPO from a clone as the preset runs it (the KL term's extra forward
pass of the clone, the bot's share of games), after a small unmeasured clone (20k agent-steps, one pass).

``--pool-versions N`` (default 30; serial runner) measures the steady state of a run whose opponent pool already
holds N past versions, as a run's pool looks once it has trained a while: before the warm-up, N versions are written into the pool
(versions 0, a, ..., (N - 1) a for a = ``pool.add_every_versions``; each a copy of the starting weights with every
parameter moved by 2% of its tensor's standard deviation, so each is its own policy), with qualities spread
evenly from -1.5 (the oldest) to 0 (the newest), as the paper's update leaves versions the latest agent beats, so
that the newest is drawn ~4.5 times as often as the oldest; the run's own versions join once it passes version
N a. ``--pool-versions 0`` measures from a fresh run (the pool starts empty and fills as the run goes).
``--pool off`` plays no past versions (``pool.past_fraction=0``; no versions are written). ``--warmup-seconds S``
trains unmeasured for S seconds first (default: one segment, for Numba's and torch's first calls); the JSON says
how many versions the pool held then and at the end (``pool_versions``), and how many past versions' forward
passes a decision ran on average (``past_forward_passes_per_decision``: at most ``pool.opponent_slots``, a little
more with the bootstrap passes at truncated games and segment ends).

``--device cuda`` runs the forward passes and the optimizer on the GPU (``run.device``; the simulation stays on
the CPU); ``--model paper`` takes the ``[policy]`` and ``[ppo]`` sections of ``configs/5v5-paper.toml`` (the
paper-size network, LSTM 4096, and its batch and learning rate) on top of ``configs/MODE.toml``.

Prints one JSON line: agent-steps/s and the share of wall time (``time_share``; ``seconds`` in all, the same
split in ``seconds_split``) in simulation (env step and observation encoding), learner_inference (the latest
version's batched forward passes in rollouts), past_inference (the past versions' forward passes), teacher_labels
(the teacher bot's actions, ``ppo.teacher``), bots (the opponent bot's decisions, ``pool.bot_fraction``),
optimisation (PPO updates) and other (the rest: copying observations into the segment, GAE, logging). With
``run.overlap`` (the serial runner's threads) the optimisation runs beside the rollout and the past versions and
bots beside the learner's pass, so the shares overlap and sum to more than 1: in place of other, rollout_thread
(the rollout thread's busy share) and rollout_waiting (the time it waited for the optimizer and the acting
weights' copy). And
``optimizer_agent_steps_per_s``, the optimizer alone: ``Optimizer.train`` in a loop for ``--optimizer-seconds``
on one batch of ``ppo.batch_samples`` samples cut from a freshly played segment (host-to-device copies
included; an agent-step is one hero's timestep, as in the whole loop's figure). With
``--runner ray``, for each R: agent-steps/s produced and trained, each component's share of its own wall time
(rollout: simulation / waiting for inference / sending; inference: busy; optimizer: training / waiting for
data / allreduce), the cost of each hop, and the ratio to the serial runner measured the same way in the
same invocation (``--serial-seconds 0`` skips it).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import tempfile
import time
import tomllib
from pathlib import Path

import numpy as np
import torch

from fivestack.runs.config import FROM_SCRATCH, ConfigError, load_config
from fivestack.system.optimizer import team_spirit_at
from fivestack.system.serial import SerialRunner

ROOT = Path(__file__).resolve().parent.parent
MODELS = {"default": None, "paper": ROOT / "configs" / "5v5-paper.toml"}  # --model: its [policy] and [ppo]
# --start: PPO from scratch (the recipe off), or from a small clone made before the measurement
STARTS = {"scratch": list(FROM_SCRATCH),
          "clone": ["clone.agent_steps=20000", "clone.passes=1", "clone.dagger_rounds=0"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--mode", default="5v5", choices=["1v1", "5v5"], help="loads configs/MODE.toml")
    parser.add_argument("--pool", default="on", choices=["on", "off"], help="off: no past opponents")
    parser.add_argument("--pool-versions", type=int, default=None,
                        help="past versions written into the pool before the warm-up (default 30; 0: a fresh run; "
                             "serial runner)")
    parser.add_argument("--warmup-seconds", type=float, default=0.0,
                        help="train unmeasured this long first (0: one segment)")
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    parser.add_argument("--start", default="scratch", choices=list(STARTS),
                        help="scratch: PPO from scratch (the preset's recipe off); clone: PPO from a small clone")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"],
                        help="where forward passes and the optimizer run (run.device); serial runner only")
    parser.add_argument("--model", default="default", choices=list(MODELS),
                        help="default: the config's network; paper: configs/5v5-paper.toml's [policy] and [ppo]")
    parser.add_argument("--optimizer-seconds", type=float, default=20.0,
                        help="measure the optimizer alone this long after the whole loop (0: skip)")
    parser.add_argument("--runner", default="serial", choices=["serial", "ray"])
    parser.add_argument("--rollout-workers", default="1,2", help="ray: R values to measure, e.g. 1,2")
    parser.add_argument("--inference", type=int, default=None, help="ray: inference actors (default: config)")
    parser.add_argument("--optimizers", type=int, default=None, help="ray: optimizers (default: config)")
    parser.add_argument("--serial-seconds", type=float, default=None, help="ray: serial reference (default --seconds)")
    args = parser.parse_args()
    if args.runner == "ray" and args.device != "cpu":
        parser.error("--device cuda is for the serial runner (the ray runner's actors run on the CPU for now)")
    if args.pool_versions is not None and args.pool_versions < 0:
        parser.error(f"--pool-versions must be 0 or more, got {args.pool_versions}")
    if args.pool_versions and (args.pool == "off" or args.runner == "ray"):
        parser.error("--pool-versions fills the serial runner's opponent pool: use it without --pool off and "
                     "--runner ray (or give --pool-versions 0)")
    if args.pool_versions is None:
        args.pool_versions = 30 if args.pool == "on" and args.runner == "serial" else 0
    # the preset as overrides, so that the ray half (ray_speed.py) reads the same configuration
    args.overrides = [*preset_overrides(args.mode), *STARTS[args.start], *model_overrides(args.model),
                      *(["pool.past_fraction=0.0"] if args.pool == "off" else []),
                      *([f"run.device='{args.device}'"] if args.runner == "serial" else []), *args.overrides]
    if args.runner == "ray":
        from ray_speed import measure_ray_runs

        out = measure_ray_runs(args, functools.partial(serial, warmup_seconds=args.warmup_seconds))
        out["pool"] = args.pool
        print(json.dumps(out))
        return
    try:
        out = serial(args.seconds, args.overrides, args.warmup_seconds, args.optimizer_seconds, args.pool_versions)
    except ConfigError as exc:  # e.g. --device cuda without a GPU: one line, no traceback
        parser.exit(2, f"error: {exc}\n")
    out["pool"] = args.pool
    out["model"] = args.model
    out["start"] = args.start
    print(json.dumps(out))


def preset_overrides(mode: str) -> list[str]:
    """``configs/MODE.toml`` as ``section.key=value`` overrides (none if the file is missing)."""
    path = ROOT / "configs" / f"{mode}.toml"
    if not path.is_file():
        return [f"game.mode='{mode}'"]
    data = tomllib.loads(path.read_text())
    return [f"{section}.{key}={json.dumps(value)}" for section, table in data.items() for key, value in table.items()]


def model_overrides(model: str) -> list[str]:
    """``--model``'s network and batch: the ``[policy]`` and ``[ppo]`` sections of its config file."""
    path = MODELS[model]
    if path is None:
        return []
    data = tomllib.loads(path.read_text())
    return [f"{section}.{key}={json.dumps(value)}" for section in ("policy", "ppo")
            for key, value in data.get(section, {}).items()]


def optimizer_speed(runner: SerialRunner, seconds: float, warmup_steps: int = 2) -> dict:
    """The optimizer alone: ``Optimizer.train`` in a loop on one batch of ``ppo.batch_samples`` samples cut from
    a freshly played segment (each step copies the batch to the device and reads its losses back, so the
    clock never runs ahead of the GPU)."""
    config = runner.config
    segment = runner.worker.collect(runner.inference, team_spirit_at(config.ppo, runner.optimizer.version))
    n = config.ppo.batch_samples
    batch = segment.select(np.arange(n) % len(segment))
    heroes = batch.hero_slots.shape[1]
    agent_steps_per_step = n * config.rollout.sample_steps * heroes * config.rollout.decision_steps
    synchronize = torch.cuda.synchronize if runner.device.type == "cuda" else (lambda: None)
    for _ in range(warmup_steps):
        runner.optimizer.train(batch)
    synchronize()
    if runner.device.type == "cuda":
        torch.cuda.reset_peak_memory_stats()
    steps, start = 0, time.monotonic()
    while steps == 0 or time.monotonic() - start < seconds:
        runner.optimizer.train(batch)
        steps += 1
    synchronize()
    wall = time.monotonic() - start
    out = {"optimizer_agent_steps_per_s": round(steps * agent_steps_per_step / wall, 1),
           "optimizer_steps": steps, "optimizer_seconds": round(wall, 1),
           "optimizer_seconds_per_step": round(wall / steps, 4), "optimizer_agent_steps_per_step": agent_steps_per_step}
    if runner.device.type == "cuda":
        out["gpu"] = torch.cuda.get_device_name()
        out["gpu_peak_memory_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
    return out


def fill_pool(runner: SerialRunner, n_versions: int, seed: int = 0) -> None:
    """Write ``n_versions`` past versions into the runner's opponent pool (``--pool-versions``): perturbed copies of
    its current weights, qualities from -1.5 (oldest) to 0 (newest); the run's own versions join after them."""
    if n_versions <= 0:
        return
    every = runner.config.pool.add_every_versions
    state = {name: t.detach().cpu().clone() for name, t in runner.policy.state_dict().items()}
    parameters = {name for name, _ in runner.policy.named_parameters()}
    generator = torch.Generator().manual_seed(seed)  # not the run's torch generator
    for i in range(n_versions):
        weights = {}
        for name, t in state.items():
            if name in parameters and t.is_floating_point() and t.numel() > 1:
                t = t + 0.02 * t.std() * torch.randn(t.shape, generator=generator, dtype=t.dtype)
            weights[name] = t
        runner.pool.add(i * every, weights)
    runner.pool.quality = np.linspace(-1.5, 0.0, n_versions)
    runner.pool.last_joined = (n_versions - 1) * every
    runner.worker.redraw_opponents()  # the games drew theirs from the empty pool: draw again from the full one


SPLIT = {"simulation": "simulation_seconds", "learner_inference": "learner_inference_seconds",
         "past_inference": "past_inference_seconds", "teacher_labels": "teacher_seconds", "bots": "bot_seconds",
         "optimisation": "optimize_seconds"}  # time_share's parts: the metrics' throughput/* keys


def serial(seconds: float, overrides: list[str], warmup_seconds: float = 0.0, optimizer_seconds: float = 0.0,
           pool_versions: int = 0) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        config = load_config(None, [f"run.runs_dir='{tmp}'", "run.name='speed'", "eval.every_versions=0",
                                    *overrides])
        runner = SerialRunner(config)
        runner.clone()  # --start clone: version 0 is a small clone (not measured)
        fill_pool(runner, pool_versions if config.pool.past_fraction > 0 else 0, seed=config.run.seed)
        totals = dict.fromkeys(SPLIT, 0.0)
        rollout_seconds = 0.0  # the rollout's own clock (with run.overlap it runs beside the optimisation)
        past_passes = segments = 0.0  # the per-segment rates, averaged over the measured segments
        steps = 0
        wall = 0.0

        def record(progress) -> None:
            nonlocal steps
            steps = progress.agent_steps

        # warm-up, not measured: one segment (Numba and torch first calls), or --warmup-seconds of training
        if warmup_seconds > 0:
            warm_until = time.monotonic() + warmup_seconds
            runner.run(stop=lambda: time.monotonic() >= warm_until)
        else:
            runner.run(stop=_after(1))
        pool_at_start = len(runner.pool)
        start_steps = runner.agent_steps
        lines_before = _metric_lines(runner)
        start = time.monotonic()
        runner.run(on_progress=record, stop=lambda: time.monotonic() - start >= seconds)
        wall = time.monotonic() - start
        for line in _metric_lines(runner)[len(lines_before):]:
            for part, key in SPLIT.items():
                totals[part] += line.get(f"throughput/{key}", 0.0)
            rollout_seconds += line.get("throughput/rollout_seconds", 0.0)
            past_passes += line.get("pool/past_forward_passes_per_decision", 0.0)
            segments += 1
        pool_versions_end = len(runner.pool)
        optimizer = optimizer_speed(runner, optimizer_seconds) if optimizer_seconds > 0 else {}
        runner.close()
    measured = runner.agent_steps - start_steps
    share = {k: round(v / wall, 3) for k, v in totals.items()}
    split = {k: round(v, 2) for k, v in totals.items()}
    overlap = config.run.overlap
    if overlap:  # threads at once: each part a share of the same wall time (past versions and bots beside the
        # learner's pass), so the shares overlap; what each thread was busy with instead of a remainder
        split["rollout_thread"] = round(rollout_seconds, 2)
        split["rollout_waiting"] = round(wall - rollout_seconds, 2)  # for the optimizer, and the weights' copy
        share["rollout_thread"] = round(rollout_seconds / wall, 3)
        share["rollout_waiting"] = round(split["rollout_waiting"] / wall, 3)
    else:
        share["other"] = round(1.0 - sum(totals.values()) / wall, 3)
        split["other"] = round(wall - sum(totals.values()), 2)
    return {"benchmark": "train_speed", "runner": "serial", "mode": config.game.mode, "games": config.rollout.games,
            "lstm_size": config.policy.lstm_size, "parameters": sum(p.numel() for p in runner.policy.parameters()),
            "device": str(runner.device), "batch_samples": config.ppo.batch_samples,
            "agent_steps_per_s": round(measured / wall, 1),
            "agent_steps": measured, "seconds": round(wall, 1), "time_share": share, "seconds_split": split,
            "past_fraction": config.pool.past_fraction, "warmup_seconds": warmup_seconds,
            "pool_versions_written": pool_versions if config.pool.past_fraction > 0 else 0,
            "pool_versions_at_start": pool_at_start, "pool_versions": pool_versions_end,
            "opponent_slots": config.pool.opponent_slots, "teacher": config.ppo.teacher or None,
            "past_forward_passes_per_decision": round(past_passes / max(segments, 1), 3),
            "overlap": overlap, "cpu_cores": os.cpu_count(),
            "torch_threads": config.run.torch_threads or ("1 per thread" if overlap else "default"),
            "torch": torch.__version__, **optimizer}


def _after(n_segments: int):
    count = {"n": 0}

    def stop() -> bool:
        count["n"] += 1
        return count["n"] > n_segments

    return stop


def _metric_lines(runner) -> list[dict]:
    runner.controller._metrics.flush()
    with open(runner.run_dir / "metrics.jsonl") as fh:
        return [json.loads(line) for line in fh]


if __name__ == "__main__":
    main()
