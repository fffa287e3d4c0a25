"""The ray runner's half of ``train_speed.py --runner ray`` (kept apart so that the serial benchmark does not
import Ray): one local Ray per R, a warm-up, then ``--seconds`` measured from the run's own metrics."""

from __future__ import annotations

import json
import os
import tempfile
import time

import ray

from fivestack.runs.config import load_config
from fivestack.system.ray import RayRunner

WARMUP_S = 30.0  # actor start-up, Numba and torch first calls, the first version published

SHARES = {
    "rollout_simulation": "rollout/simulation_share",
    "rollout_inference_wait": "rollout/inference_share",
    "rollout_send": "rollout/send_share",
    "inference_busy": "inference/busy_share",
    "optimizer_train": "optimizer/train_share",
    "optimizer_wait_for_data": "optimizer/idle_share",
    "optimizer_allreduce": "optimizer/allreduce_share",
}
HOPS = {
    "rollout_inference_round_trip_ms": "rollout/inference_round_trip_ms",
    "inference_forward_ms": "inference/forward_ms",
    "rollout_to_buffer_send_ms": "rollout/send_ms",
    "buffer_add_segment_ms": "optimizer/add_segment_ms",
}
QUALITY = ("staleness/mean", "staleness/max", "sample_reuse", "buffer/fill", "inference/requests_per_batch",
           "rollout/versions_behind_mean", "samples/dropped_stale", "samples/dropped_overflow",
           "rollout/shared_memory_share")


def weighted(records: list[dict], key: str) -> float | None:
    """Time-weighted mean of a per-interval metric over the measured records."""
    pairs = [(r[key], r["_dt"]) for r in records if key in r]
    if not pairs:
        return None
    return float(sum(v * dt for v, dt in pairs) / max(sum(dt for _, dt in pairs), 1e-9))


def measure_ray(seconds: float, workers: int, overrides: list[str], inference: int | None,
                optimizers: int | None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        extra = [f"ray.rollout_workers={workers}", "ray.log_seconds=5"]
        extra += [f"ray.inference={inference}"] if inference is not None else []
        extra += [f"ray.optimizers={optimizers}"] if optimizers is not None else []
        config = load_config(None, [f"run.runs_dir='{tmp}'", "run.name='speed'", "eval.every_versions=0",
                                    "run.checkpoint_minutes=1000", *extra, *overrides])
        runner = RayRunner(config, say=lambda m: None)
        start = time.time()
        try:
            runner.run(stop=lambda: time.time() - start >= WARMUP_S + seconds)
        finally:
            runner.close()
        lines = [json.loads(line) for line in open(runner.run_dir / "metrics.jsonl")]
    lines = [r for r in lines if "throughput/agent_steps_per_s" in r]
    for prev, cur in zip(lines, lines[1:]):
        cur["_dt"] = cur["time"] - prev["time"]
    window = [r for r in lines[1:] if r["time"] - start > WARMUP_S]
    wall = sum(r["_dt"] for r in window)
    produced = weighted(window, "throughput/agent_steps_per_s") or 0.0
    trained = weighted(window, "throughput/trained_agent_steps_per_s") or 0.0
    rc = config.ray
    out = {"rollout_workers": workers, "inference": rc.inference, "optimizers": rc.optimizers,
           "games_per_worker": config.rollout.games, "seconds": round(wall, 1),
           "agent_steps_per_s": round(produced, 1), "trained_agent_steps_per_s": round(trained, 1),
           "versions": [window[0]["version"], window[-1]["version"]] if window else None,
           "share": {name: round(v, 3) for name, key in SHARES.items() if (v := weighted(window, key)) is not None},
           "hops": {name: round(v, 2) for name, key in HOPS.items() if (v := weighted(window, key)) is not None},
           "quality": {key: round(v, 3) for key in QUALITY if (v := weighted(window, key)) is not None}}
    out["quality"]["sample_reuse"] = round(trained / max(produced, 1e-9), 3)  # consumed / produced, whole window
    return out


def measure_ray_runs(args, serial) -> dict:
    runs = []
    for workers in [int(w) for w in str(args.rollout_workers).split(",") if w]:
        runs.append(measure_ray(args.seconds, workers, args.overrides, args.inference, args.optimizers))
        ray.shutdown()
    seconds = args.seconds if args.serial_seconds is None else args.serial_seconds
    reference = serial(seconds, args.overrides) if seconds > 0 else None
    if reference:
        for run in runs:
            run["ratio_to_serial"] = round(run["agent_steps_per_s"] / max(reference["agent_steps_per_s"], 1e-9), 3)
            run["trained_ratio_to_serial"] = round(run["trained_agent_steps_per_s"]
                                                   / max(reference["agent_steps_per_s"], 1e-9), 3)
    config = load_config(None, list(args.overrides))
    return {"benchmark": "train_speed", "runner": "ray", "mode": config.game.mode,
            "lstm_size": config.policy.lstm_size, "batch_samples": config.ppo.batch_samples,
            "steps_per_version": config.ppo.steps_per_version, "runs": runs,
            "serial": reference, "cpu_cores": os.cpu_count(),
            "load_average_1min_at_end": round(os.getloadavg()[0], 2)}
