"""The run state both runners share: the rating schedule by hand, the state's JSON round trip, and one run
carried across runners (serial -> ray -> serial) with its version, agent-steps, opponent pool and RNG."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fivestack.runs.config import load_config
from fivestack.runs.checkpoints import load_checkpoint
from fivestack.system.run_state import RatingSchedule, RunState
from fivestack.system.serial import SerialRunner


def test_ratings_are_due_each_time_the_pool_crosses_a_multiple_of_every():
    schedule = RatingSchedule(every=4)
    due = [v for v in (0, 2, 4, 6, 10, 12, 14, 16) if schedule.offer(v, agent_steps=100 * v)]
    assert due == [0, 4, 10, 12, 16]  # 10 crossed 8 (skipped by the pool); 14 is in 12's block
    assert schedule.pending == [(0, 0), (4, 400), (10, 1000), (12, 1200), (16, 1600)]
    assert schedule.finish({"record": {"version": 4, "mu": 3.0}, "state": {"bots": 1}}) == {"version": 4, "mu": 3.0}
    assert schedule.evaluator == {"bots": 1} and [v for v, _ in schedule.pending] == [0, 10, 12, 16]
    assert schedule.finish({"error": "version 10 failed", "version": 10}) is None
    assert [v for v, _ in schedule.pending] == [0, 12, 16]
    assert schedule.finish({"error": "the evaluator is gone"}) is None and schedule.pending == []
    assert not RatingSchedule(every=0).offer(0, 0)  # ratings off


def test_run_state_round_trips_through_json_with_the_checkpoint_keys_of_before():
    state = RunState.new(seed=5, runner="serial")
    state.optimizer = {"version": 7, "grad_steps": 70, "return_std": {"gamma": 0.99, "mean": 0.0, "var": 1.0,
                                                                      "count": 1.0}}
    state.agent_steps, state.elapsed, state.worker_seed = 1234, 56.5, 9
    state.ratings = RatingSchedule(every=2, rated=6, pending=[(6, 1200)], evaluator={"x": 1}).state_dict()
    saved = json.loads(json.dumps(state.to_json()))
    assert saved["rated"] == 6 and saved["pending_ratings"] == [[6, 1200]] and saved["ratings"] == {"x": 1}
    back = RunState.from_json(saved, seed=5)
    assert back == state and back.version == 7
    np.random.default_rng().bit_generator.state = back.numpy_rng  # a bit generator state numpy accepts


def _config(tmp_path, max_versions: int):
    return load_config(None, [f"run.runs_dir='{tmp_path}'", "run.name='across'", "game.mode='1v1'",
                              "rollout.games=2", "rollout.segment_steps=32", "ppo.batch_samples=4",
                              "ppo.steps_per_version=1", "policy.lstm_size=16", "run.torch_threads=1",
                              "eval.every_versions=0", "pool.past_fraction=0.5", "pool.add_every_versions=2",
                              "ray.rollout_workers=1", "ray.inference=0", "ray.optimizers=1", "ray.log_seconds=1",
                              f"run.max_versions={max_versions}"])


def _latest_state(run_dir) -> dict:
    newest = max(p for p in (run_dir / "checkpoints").iterdir() if p.name.isdigit())
    return load_checkpoint(newest)[2]


@pytest.mark.slow
def test_a_run_resumes_across_runners_serial_ray_serial(tmp_path):
    import ray

    from fivestack.system.ray import RayRunner, init_ray

    serial = SerialRunner(_config(tmp_path, 4))
    serial.run()
    serial.close()
    run_dir = serial.run_dir
    first = _latest_state(run_dir)
    assert first["runner"] == "serial" and first["version"] == 4 and first["pool"]["versions"]

    config = _config(tmp_path, 8)
    init_ray(config.ray, log_to_driver=False)
    try:
        runner = RayRunner(config, resume=run_dir, say=lambda m: None)
        try:
            assert runner.version == 4 and runner.agent_steps == first["agent_steps"]
            runner.run()
        finally:
            runner.close()
    finally:
        ray.shutdown()
    second = _latest_state(run_dir)
    assert second["runner"] == "ray" and second["version"] >= 8
    assert second["agent_steps"] > first["agent_steps"] and second["elapsed"] > first["elapsed"]
    assert set(first["pool"]["versions"]) <= set(second["pool"]["versions"])  # past opponents kept
    assert second["numpy_rng"] == first["numpy_rng"]  # the serial runner's RNG, carried through unchanged
    assert second["worker_seed"] > first["worker_seed"]  # no worker seed used twice

    resumed = SerialRunner(_config(tmp_path, second["version"] + 2), resume=run_dir)
    assert resumed.version == second["version"] and resumed.agent_steps == second["agent_steps"]
    assert resumed.pool.state_dict() == second["pool"]
    resumed.run()
    resumed.close()
    third = _latest_state(run_dir)
    assert third["runner"] == "serial" and third["version"] == second["version"] + 2
    assert third["agent_steps"] > second["agent_steps"]
    records = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    steps = [r["agent_steps"] for r in records if "loss/policy" in r]
    assert steps == sorted(steps)  # one curve over the three sessions
