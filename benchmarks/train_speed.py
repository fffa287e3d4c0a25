"""Throughput of the whole training loop (serial runner, default config unless overridden).

    python benchmarks/train_speed.py --seconds 60 [--set game.mode='1v1' ...]

Prints one JSON line: agent-steps/s and the share of wall time in simulation (env step and observation
encoding), inference (batched forward passes in rollouts), optimisation (PPO updates) and the rest.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

from fivestack.system.config import load_config
from fivestack.system.serial import SerialRunner


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config = load_config(None, [f"run.runs_dir='{tmp}'", "run.name='speed'", "eval.every_versions=0",
                                    *args.overrides])
        runner = SerialRunner(config)
        totals = {"simulation": 0.0, "inference": 0.0, "optimisation": 0.0}
        steps = 0
        wall = 0.0

        def record(progress) -> None:
            nonlocal steps
            steps = progress.agent_steps

        # one warm-up segment (Numba and torch first calls), not measured
        runner.run(stop=_after(1))
        start_steps = runner.agent_steps
        lines_before = _metric_lines(runner)
        start = time.monotonic()
        runner.run(on_progress=record, stop=lambda: time.monotonic() - start >= args.seconds)
        wall = time.monotonic() - start
        for line in _metric_lines(runner)[len(lines_before):]:
            totals["simulation"] += line["throughput/simulation_seconds"]
            totals["inference"] += line["throughput/inference_seconds"]
            totals["optimisation"] += line["throughput/optimize_seconds"]
        runner.close()
    measured = runner.agent_steps - start_steps
    share = {k: round(v / wall, 3) for k, v in totals.items()}
    share["other"] = round(1.0 - sum(share.values()), 3)
    print(json.dumps({"benchmark": "train_speed", "mode": config.game.mode, "games": config.rollout.games,
                      "lstm_size": config.policy.lstm_size, "agent_steps_per_s": round(measured / wall, 1),
                      "agent_steps": measured, "seconds": round(wall, 1), "time_share": share,
                      "torch_threads": config.run.torch_threads or "default", "cpu_cores": os.cpu_count()}))


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
