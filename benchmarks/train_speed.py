"""Throughput of the whole training loop (``configs/MODE.toml``, then ``--set`` overrides).

    python benchmarks/train_speed.py --seconds 60 [--mode 1v1] [--set ppo.batch_samples=64 ...]
    python benchmarks/train_speed.py --mode 5v5 --pool off --warmup-seconds 300 --seconds 60
    python benchmarks/train_speed.py --runner ray --rollout-workers 1,2 --seconds 120 [--inference 0]

``--pool off`` plays no past versions (``pool.past_fraction=0``); ``--warmup-seconds S`` trains unmeasured for S
seconds first (default: one segment, for Numba's and torch's first calls), so that the opponent pool has filled
before the measurement; the JSON says how many versions the pool held then and at the end (``pool_versions``).

Prints one JSON line: agent-steps/s and the share of wall time in simulation (env step and observation
encoding), inference (batched forward passes in rollouts), optimisation (PPO updates) and the rest. With
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

from fivestack.system.config import load_config
from fivestack.system.serial import SerialRunner


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--mode", default="5v5", choices=["1v1", "5v5"], help="loads configs/MODE.toml")
    parser.add_argument("--pool", default="on", choices=["on", "off"], help="off: no past opponents")
    parser.add_argument("--warmup-seconds", type=float, default=0.0,
                        help="train unmeasured this long first (0: one segment)")
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    parser.add_argument("--runner", default="serial", choices=["serial", "ray"])
    parser.add_argument("--rollout-workers", default="1,2", help="ray: R values to measure, e.g. 1,2")
    parser.add_argument("--inference", type=int, default=None, help="ray: inference actors (default: config)")
    parser.add_argument("--optimizers", type=int, default=None, help="ray: optimizers (default: config)")
    parser.add_argument("--serial-seconds", type=float, default=None, help="ray: serial reference (default --seconds)")
    args = parser.parse_args()
    # the preset as overrides, so that the ray half (ray_speed.py) reads the same configuration
    args.overrides = [*preset_overrides(args.mode), *(["pool.past_fraction=0.0"] if args.pool == "off" else []),
                      *args.overrides]
    if args.runner == "ray":
        from ray_speed import measure_ray_runs

        out = measure_ray_runs(args, functools.partial(serial, warmup_seconds=args.warmup_seconds))
        out["pool"] = args.pool
        print(json.dumps(out))
        return
    out = serial(args.seconds, args.overrides, args.warmup_seconds)
    out["pool"] = args.pool
    print(json.dumps(out))


def preset_overrides(mode: str) -> list[str]:
    """``configs/MODE.toml`` as ``section.key=value`` overrides (none if the file is missing)."""
    path = Path(__file__).resolve().parent.parent / "configs" / f"{mode}.toml"
    if not path.is_file():
        return [f"game.mode='{mode}'"]
    data = tomllib.loads(path.read_text())
    return [f"{section}.{key}={json.dumps(value)}" for section, table in data.items() for key, value in table.items()]


def serial(seconds: float, overrides: list[str], warmup_seconds: float = 0.0) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        config = load_config(None, [f"run.runs_dir='{tmp}'", "run.name='speed'", "eval.every_versions=0",
                                    *overrides])
        runner = SerialRunner(config)
        totals = {"simulation": 0.0, "inference": 0.0, "optimisation": 0.0}
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
            totals["simulation"] += line["throughput/simulation_seconds"]
            totals["inference"] += line["throughput/inference_seconds"]
            totals["optimisation"] += line["throughput/optimize_seconds"]
        pool_versions = len(runner.pool)
        runner.close()
    measured = runner.agent_steps - start_steps
    share = {k: round(v / wall, 3) for k, v in totals.items()}
    share["other"] = round(1.0 - sum(share.values()), 3)
    return {"benchmark": "train_speed", "runner": "serial", "mode": config.game.mode, "games": config.rollout.games,
            "lstm_size": config.policy.lstm_size, "agent_steps_per_s": round(measured / wall, 1),
            "agent_steps": measured, "seconds": round(wall, 1), "time_share": share,
            "past_fraction": config.pool.past_fraction, "warmup_seconds": warmup_seconds,
            "pool_versions_at_start": pool_at_start, "pool_versions": pool_versions,
            "torch_threads": config.run.torch_threads or "default", "cpu_cores": os.cpu_count()}


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
