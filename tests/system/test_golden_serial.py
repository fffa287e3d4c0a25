"""A seeded serial run replays exactly: the actions of its first segments, the losses it logs and the weights
after them equal the record in ``golden/serial_run.json``, taken before the runners were refactored onto one
core (issue "Scale up"). A change to the runner that changes what a seeded run does fails here.

The record is written by ``FIVESTACK_WRITE_GOLDEN=1 pytest tests/system/test_golden_serial.py``; rewrite it only
for a change that is meant to alter training (and say so in the commit)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

from fivestack.runs.config import load_config
from fivestack.system.serial import SerialRunner

GOLDEN = Path(__file__).parent / "golden" / "serial_run.json"
SEGMENTS = 4


def _digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()[:16]


def seeded_run(tmp_path: Path) -> dict:
    """Four segments of a small 1v1 run with past opponents in the pool: what each segment played and the
    losses, and the weights after them. The runner without overlap (collect, then train; ``test_overlap.py``
    holds the overlapped runner to replaying itself)."""
    config = load_config(None, [f"run.runs_dir='{tmp_path}'", "run.name='golden'", "game.mode='1v1'",
                                "rollout.games=2", "rollout.segment_steps=32", "ppo.batch_samples=4",
                                "ppo.steps_per_version=1", "policy.lstm_size=16", "run.torch_threads=1",
                                "eval.every_versions=0", "pool.past_fraction=0.5", "pool.add_every_versions=2",
                                "run.seed=3", f"run.max_versions={2 * SEGMENTS}", "run.overlap=false"])
    runner = SerialRunner(config)
    played: list[dict] = []
    collect = runner.worker.collect

    def recording_collect(*args, **kwargs):
        batch = collect(*args, **kwargs)
        trained = batch.info["trainable"]  # the samples trained on (the runner may take the segment whole)
        played.append({"actions": _digest(batch.actions[trained]),
                       "log_prob_sum": float(batch.log_prob[trained].sum()),
                       "versions": sorted({int(v) for v in batch.version[trained].ravel()})})
        return batch

    runner.worker.collect = recording_collect
    runner.run()
    runner.close()
    lines = [json.loads(line) for line in (runner.run_dir / "metrics.jsonl").read_text().splitlines()]
    losses = [{k: v for k, v in line.items() if k.startswith("loss/")} for line in lines if "loss/policy" in line]
    weights = {name: [float(t.double().sum()), float(t.double().norm())]
               for name, t in sorted(runner.policy.state_dict().items()) if t.dtype.is_floating_point}
    return {"segments": played, "losses": losses, "weights": weights,
            "version": runner.optimizer.version, "agent_steps": runner.agent_steps}


def test_a_seeded_serial_run_replays_the_recorded_segments_losses_and_weights(tmp_path):
    run = seeded_run(tmp_path)
    if os.environ.get("FIVESTACK_WRITE_GOLDEN"):
        GOLDEN.write_text(json.dumps(run, indent=1) + "\n")
    golden = json.loads(GOLDEN.read_text())
    assert len(run["segments"]) == SEGMENTS
    assert run["version"] == golden["version"] and run["agent_steps"] == golden["agent_steps"]
    for segment, recorded in zip(run["segments"], golden["segments"], strict=True):
        assert segment["actions"] == recorded["actions"]  # the same actions, bit for bit
        assert segment["versions"] == recorded["versions"]
        assert segment["log_prob_sum"] == pytest.approx(recorded["log_prob_sum"], rel=1e-5)
    assert len(run["losses"]) == len(golden["losses"]) > 0
    for logged, recorded in zip(run["losses"], golden["losses"]):
        assert logged.keys() == recorded.keys()
        for key, value in recorded.items():
            assert logged[key] == pytest.approx(value, rel=1e-4, abs=1e-7), key
    assert run["weights"].keys() == golden["weights"].keys()
    for name, (total, norm) in golden["weights"].items():
        assert run["weights"][name] == pytest.approx([total, norm], rel=1e-4, abs=1e-6), name
