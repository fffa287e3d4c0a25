"""The ray runner on this machine: R = 2 rollout workers, I = 1 inference actor, O = 2 optimizers.

Versions advance, staleness and reuse are reported and every trained sample is within the staleness cap; a
SIGKILLed rollout worker (and inference actor) is replaced and the run goes on with whole segments only; a killed run resumes with
its version counter, optimizer state and normalisers; a truncated newest checkpoint falls back to the one
before. Ray is started once for the module."""

import fcntl
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import ray
import torch

from fivestack.system.annealing import Annealing
from fivestack.runs.config import load_config
from fivestack.runs.checkpoints import CheckpointFallbackWarning, load_checkpoint
from fivestack.system.messages import SampleBatch
from fivestack.system.buffer import SampleBuffer
from fivestack.system.ray import RayRunner, init_ray

CAP = 3  # ppo.max_staleness in these runs
SMALL = ["game.mode='1v1'", "rollout.games=2", "rollout.segment_steps=32", "ppo.batch_samples=4",
         "eval.every_versions=0", "run.torch_threads=1", "ppo.steps_per_version=2", "ray.rollout_workers=2",
         "ray.inference=1", "ray.optimizers=2", "ray.log_seconds=1", f"ppo.max_staleness={CAP}",
         "pool.past_fraction=0.0"]  # whole segments of 8 samples (past-opponent samples are dropped)
SAMPLES_PER_SEGMENT = 2 * 2 * 2  # 2 games x 2 teams x (32 / 16) samples


def wait_for_the_lock(run, seconds: float = 120.0) -> None:
    """Until no process holds the run's lock: a killed driver's controller actor runs in a Ray worker outside the
    driver's process group and keeps the lock until Ray reaps it, moments after the driver is gone."""
    from fivestack.system.controller import LOCK_FILE

    deadline = time.monotonic() + seconds
    with open(run / LOCK_FILE, "a+") as lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(lock, fcntl.LOCK_UN)
                return
            except BlockingIOError:
                assert time.monotonic() < deadline, f"the killed run's lock was still held after {seconds:.0f} s"
                time.sleep(0.2)


def records(run) -> list[dict]:
    return [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]


def checkpoints(run) -> list[int]:
    folder = run / "checkpoints"
    return sorted(int(p.name) for p in folder.iterdir() if p.name.isdigit()) if folder.is_dir() else []


@pytest.fixture(scope="module")
def ray_cluster():
    config = load_config(None, SMALL)
    init_ray(config.ray, log_to_driver=False)
    yield
    ray.shutdown()


def small(tmp_path, name, *extra):
    return load_config(None, [*SMALL, f"run.runs_dir='{tmp_path}'", f"run.name='{name}'", *extra])


# ---------------------------------------------------------------------- the buffer (no Ray)
def fake_segment(versions: list[int]) -> SampleBatch:
    s = len(versions)
    z = np.zeros((s, 2, 1), np.float32)
    return SampleBatch(obs={"x": np.arange(s, dtype=np.float32)[:, None]}, hero_slots=np.zeros((s, 1), np.int64),
                       actions=np.zeros((s, 2, 1, 5), np.int64), teacher_actions=np.full((s, 2, 1, 5), -1),
                       head_log_prob=np.zeros((s, 2, 1, 4), np.float32), advantages=z, returns=z, win_target=z,
                       first=np.zeros((s, 2), np.float32), h0=np.zeros((s, 1, 4), np.float32),
                       c0=np.zeros((s, 1, 4), np.float32), version=np.array(versions, np.int64))


def test_buffer_drops_stale_samples_and_caps_reuse():
    buffer = SampleBuffer(max_staleness=2, capacity=100, max_uses=1, rng=np.random.default_rng(0))
    buffer.add(fake_segment([0, 0, 0, 0]))
    buffer.add(fake_segment([3, 3, 3, 3]))
    buffer.prune(version=4)  # the version-0 samples are 4 versions old: over the cap of 2
    assert buffer.dropped_stale == 4 and len(buffer) == 4
    batch = buffer.take(4, version=4)
    assert (4 - batch.version <= 2).all()
    assert buffer.staleness.take() == {"staleness/min": 1.0, "staleness/mean": 1.0, "staleness/max": 1.0,
                                       "staleness/samples": 4.0}
    buffer.prune(version=4)  # each sample may be used once (reuse target 1)
    assert len(buffer) == 0 and buffer.take(1, version=4) is None
    assert buffer.consumed == 4 and buffer.produced == 8


def test_buffer_takes_least_used_first_and_sheds_the_oldest_over_capacity():
    buffer = SampleBuffer(max_staleness=100, capacity=6, max_uses=2, rng=np.random.default_rng(0))
    buffer.add(fake_segment([1, 1, 1, 1]))
    first = buffer.take(4, version=1)
    buffer.add(fake_segment([2, 2, 2, 2]))
    buffer.prune(version=2)  # 8 samples, capacity 6: the two oldest go
    assert buffer.dropped_overflow == 2 and len(buffer) == 6
    second = buffer.take(4, version=2)
    assert sorted(second.version.tolist()) == [2, 2, 2, 2]  # the unused ones before the used ones
    assert sorted(first.obs["x"][:, 0].tolist()) == [0, 1, 2, 3]


# ---------------------------------------------------------------------- runs
@pytest.mark.slow
def test_ray_run_advances_versions_and_reports_data_quality(ray_cluster, tmp_path):
    """... and stops on SIGTERM with a checkpoint of the version it reached."""
    runner = RayRunner(small(tmp_path, "quality", "run.max_versions=60"), say=lambda m: None)

    def terminate_at_six(progress) -> None:
        if progress.version >= 6:
            os.kill(os.getpid(), signal.SIGTERM)

    try:
        final = runner.run(on_progress=terminate_at_six)
        received = ray.get([o.received.remote() for o in runner.optimizers])
    finally:
        runner.close()
    assert 6 <= final.version < 60 and checkpoints(tmp_path / "quality")[-1] == final.version
    lines = records(tmp_path / "quality")
    trained = [r for r in lines if "staleness/mean" in r]
    assert trained, "no record with trained samples"
    assert max(r["version"] for r in lines) >= 3  # versions advanced while metrics were written
    for r in trained:
        assert 0 <= r["staleness/min"] <= r["staleness/mean"] <= r["staleness/max"] <= CAP
        # this interval's reuse is undefined (not logged) when no new segment arrived in it
        assert r.get("sample_reuse", 0.0) >= 0 and r["sample_reuse/total"] >= 0
        assert "buffer/fill" in r and "optimizer/idle_share" in r
    assert all(r["staleness/max_ever"] <= CAP for r in lines)  # every trained sample within the cap
    reuse = [r["sample_reuse/total"] for r in lines if r["sample_reuse/total"] > 0]
    assert reuse and max(reuse) <= 1.0 + 1e-9  # the reuse target of 1 holds
    assert any(r.get("inference/requests_per_batch", 0) > 0 for r in lines)
    assert all(received) and all(n == SAMPLES_PER_SEGMENT for sizes in received for n in sizes)
    # every request went to the inference actor through shared memory (one machine)
    shares = [r["rollout/shared_memory_share"] for r in lines if "rollout/shared_memory_share" in r]
    assert shares and all(share == 1.0 for share in shares)


@pytest.mark.slow
def test_a_ray_run_that_ends_before_its_first_report_logs_what_it_trained(ray_cluster, tmp_path):
    """The driver gathers the actors' statistics every ``ray.log_seconds``; when the loop ends it gathers the last
    interval too, so a run that reaches ``run.max_versions`` first (as a short resumed run can) still logs it."""
    runner = RayRunner(small(tmp_path, "short", "run.max_versions=2", "ray.log_seconds=600"), say=lambda m: None)
    try:
        final = runner.run()
    finally:
        runner.close()
    trained = [r for r in records(tmp_path / "short") if "staleness/mean" in r]
    assert len(trained) == 1, "one record: the interval the loop ended in"
    assert trained[0]["version"] >= 2 and 0 < trained[0]["agent_steps"] <= final.agent_steps


@pytest.mark.slow
def test_ray_run_without_shared_memory_sends_requests_as_ray_calls(ray_cluster, tmp_path):
    """... and logs the share of its games begun in the lane (``rollout.lane_start``: all of them here), summed
    over the rollout actors' segments of each interval by the controller."""
    runner = RayRunner(small(tmp_path, "calls", "run.max_versions=3", "ray.shared_memory=false",
                             "rollout.lane_start=1.0", "game.max_seconds=2.0"), say=lambda m: None)
    try:
        final = runner.run()
    finally:
        runner.close()
    assert final.version >= 3
    lines = records(tmp_path / "calls")
    shares = [r["rollout/shared_memory_share"] for r in lines if "rollout/shared_memory_share" in r]
    assert shares and all(share == 0.0 for share in shares)
    assert any(r.get("inference/requests_per_batch", 0) > 0 for r in lines)
    lane = [r["games/lane_start"] for r in lines if "games/lane_start" in r]
    assert lane and all(share == 1.0 for share in lane)


@pytest.mark.slow
def test_ray_run_plays_past_versions_and_rates_pool_versions(ray_cluster, tmp_path):
    """The controller grows the opponent pool, workers play past versions, the evaluator actor rates by
    TrueSkill, and the checkpoint keeps the pool and the ratings."""
    config = small(tmp_path, "pool", "run.max_versions=400", "game.max_seconds=8.0", "pool.past_fraction=0.5",
                   "pool.add_every_versions=2", "eval.every_versions=4", "eval.games=2", "eval.calibration_games=2",
                   "eval.max_seconds=8.0", "eval.opponents=random,scripted")
    runner = RayRunner(config, say=lambda m: None)

    def stop_when_rated(progress) -> bool:
        return "TrueSkill" in progress.win_rates and progress.version >= 6

    rated = []
    try:
        runner.run(on_progress=lambda p: rated.append(stop_when_rated(p)), stop=lambda: any(rated))
    finally:
        runner.close()
    lines = records(tmp_path / "pool")
    ratings = [r for r in lines if "eval/trueskill_mu" in r]
    assert ratings and all(r["eval/trueskill_sigma"] > 0 for r in ratings)
    sizes = [r["pool/size"] for r in lines if "pool/size" in r]
    assert sizes and max(sizes) >= 3
    state = load_checkpoint(tmp_path / "pool" / "checkpoints" / f"{checkpoints(tmp_path / 'pool')[-1]:08d}")[2]
    pool = state["pool"]
    assert len(pool["versions"]) >= 3 and pool["versions"][0] == 0
    assert all((tmp_path / "pool" / "pool" / f"{v:08d}.safetensors").is_file() for v in pool["versions"])
    assert sum(pool["games"]) > 0  # finished games against past versions were scored
    assert "scripted" in state["ratings"]["bots"] and state["ratings"]["versions"]


@pytest.mark.slow
def test_killed_rollout_and_inference_actors_are_replaced_and_training_goes_on(ray_cluster, tmp_path):
    runner = RayRunner(small(tmp_path, "kill", "run.max_versions=12"), say=lambda m: None)
    killed = {}

    def kill(progress) -> None:
        if "rollout" not in killed and progress.version >= 2:
            pid = runner.rollout_pids()[0]
            os.kill(pid, signal.SIGKILL)
            killed["rollout"] = (pid, progress.version)
        elif "rollout" in killed and "inference" not in killed and progress.version >= killed["rollout"][1] + 2:
            pid = runner.inference_pids()[0]
            os.kill(pid, signal.SIGKILL)
            killed["inference"] = (pid, progress.version)

    try:
        final = runner.run(on_progress=kill)
        restarts = {"rollout": runner.rollouts[0].restarts, "inference": runner.inference[0].restarts}
        pids = {"rollout": runner.rollout_pids(), "inference": runner.inference_pids()}
        received = ray.get([o.received.remote() for o in runner.optimizers])
    finally:
        runner.close()
    assert set(killed) == {"rollout", "inference"}, f"the run ended before the kills: {killed}"
    for kind, (pid, version) in killed.items():
        assert restarts[kind] >= 1 and pid not in pids[kind]
        assert final.version >= 12 > version  # versions kept advancing after the kill
    # every delivery into a buffer was a whole segment
    assert all(n == SAMPLES_PER_SEGMENT for sizes in received for n in sizes)
    lines = records(tmp_path / "kill")
    assert any(r.get("restarts/rollout", 0) >= 1 for r in lines)
    assert any(r.get("restarts/inference", 0) >= 1 for r in lines)
    # the rollout worker found the replacement inference actor's shared memory (not a fallback to Ray calls)
    after = [r for r in lines if "rollout/shared_memory_share" in r and r["version"] >= killed["inference"][1] + 2]
    assert after and after[-1]["rollout/shared_memory_share"] == 1.0


def train_cli(args, **kw):
    return subprocess.run([sys.executable, "-m", "fivestack.cli", "train", *args], capture_output=True, text=True,
                          timeout=300, **kw)


@pytest.mark.slow
def test_killed_run_resumes_with_its_state_then_falls_back_from_a_truncated_checkpoint(ray_cluster, tmp_path):
    run = tmp_path / "whole"
    args = [a for item in SMALL for a in ("--set", item)]
    proc = subprocess.Popen([sys.executable, "-m", "fivestack.cli", "train", "--runner", "ray", *args,
                             "--set", f"run.runs_dir='{tmp_path}'", "--set", "run.name='whole'",
                             "--set", "run.checkpoint_minutes=0.02"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while (len(checkpoints(run)) < 2 or checkpoints(run)[-1] < 2) and time.monotonic() < deadline:
            time.sleep(0.5)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the driver and the Ray processes it started
        proc.wait()
    wait_for_the_lock(run)
    saved = checkpoints(run)
    assert len(saved) >= 2 and saved[-1] >= 2, f"the run wrote checkpoints {saved}"
    model, optim, state = load_checkpoint(run / "checkpoints" / f"{saved[-1]:08d}")

    config = load_config(run / "config.toml", [f"run.max_versions={saved[-1] + 2}"])
    runner = RayRunner(config, resume=run, say=lambda m: None)
    try:
        payload = ray.get(runner.optimizers[1].checkpoint_payload.remote())  # before any new step
        assert payload["scalars"]["version"] == state["version"] == saved[-1]
        assert payload["scalars"]["return_std"] == state["optimizer"]["return_std"]
        for name, tensor in model.items():  # parameters and input normalisers
            assert np.array_equal(payload["model"][name], tensor.numpy()), name
        for name, tensor in optim.items():  # Adam moments
            if not name.startswith("rng."):
                assert np.array_equal(payload["optim"][name], tensor.numpy()), name
        assert any(k.startswith("norms.") and k.endswith(".count") and float(v) > 1 for k, v in model.items())
        final = runner.run()
    finally:
        runner.close()
    assert final.version >= saved[-1] + 2
    assert final.agent_steps > state["agent_steps"]
    resumed = [r for r in records(run) if r["agent_steps"] > state["agent_steps"]]
    assert resumed and min(r["version"] for r in resumed) >= saved[-1]

    # truncate the newest checkpoint's model: resume says so and takes the one before
    newest = checkpoints(run)
    target = run / "checkpoints" / f"{newest[-1]:08d}" / "model.safetensors"
    target.write_bytes(target.read_bytes()[: target.stat().st_size // 2])
    with pytest.warns(CheckpointFallbackWarning, match=f"falling back to the previous checkpoint .*{newest[-2]:08d}"):
        runner = RayRunner(load_config(run / "config.toml"), resume=run, say=lambda m: None)
    try:
        assert runner.version == newest[-2]
    finally:
        runner.close()


def test_ray_flags_need_the_ray_runner():
    out = train_cli(["--rollout-workers", "2"])
    assert out.returncode == 2 and "need --runner ray" in out.stderr
    out = train_cli(["--runner", "ray", "--set", "ray.optimizers=0"])
    assert out.returncode == 2 and "ray.optimizers must be at least 1" in out.stderr


@pytest.mark.slow
def test_ray_run_anneals_a_feature_with_the_drivers_schedule(ray_cluster, tmp_path):
    """Annealing in the ray runner: the rollout actors draw each new game's feature with the share of the
    driver's schedule (read through the controller), the share and the games with the feature are logged, the
    evaluator's ratings reach the schedule, and the checkpoint holds it."""
    config = small(tmp_path, "anneal", "run.max_versions=400", "game.max_seconds=2.0", "pool.add_every_versions=2",
                   "eval.every_versions=4", "eval.games=2", "eval.calibration_games=2", "eval.max_seconds=8.0",
                   "eval.opponents=random,scripted", "anneal.feature='rich_creeps'", "anneal.versions=4")
    runner = RayRunner(config, say=lambda m: None)
    rated = []
    try:
        runner.run(on_progress=lambda p: rated.append("TrueSkill" in p.win_rates and p.version >= 4),
                   stop=lambda: any(rated))
    finally:
        runner.close()
    lines = records(tmp_path / "anneal")
    annealed = [r for r in lines if "anneal/share" in r]
    assert annealed and sum(r["anneal/games_started"] for r in annealed) > 0
    assert sum(r["anneal/games_with_feature"] for r in annealed) > 0  # the share grew past 0 and games drew it
    assert all(0 <= r["anneal/games_with_feature"] <= r["anneal/games_started"] for r in annealed)
    ratings = [r for r in lines if "eval/trueskill_mu" in r]
    state = load_checkpoint(tmp_path / "anneal" / "checkpoints" / f"{checkpoints(tmp_path / 'anneal')[-1]:08d}")[2]
    assert state["anneal"]["feature"] == "rich_creeps" and state["anneal"]["start_version"] == 0
    replay = Annealing.start(config.anneal, version=0)  # the driver's schedule, fed the ratings in logged order
    for r in ratings:
        replay.on_rating(int(r["eval/rated_version"]), r["eval/trueskill_mu"], r["eval/trueskill_sigma"])
    assert ratings and state["anneal"] == replay.state_dict()


@pytest.mark.slow
def test_a_ray_run_starts_from_another_runs_version(ray_cluster, tmp_path):
    """``run.init_from`` in the ray runner: the optimizers start from the named version's weights (version 0 of the
    pool is that version), and the run's checkpoint says where they came from."""
    from fivestack.runs.checkpoints import read_snapshot, snapshot_path
    from fivestack.system.serial import SerialRunner

    source = SerialRunner(small(tmp_path, "source", "run.seed=3", "run.max_versions=2", "policy.lstm_size=16"))
    source.run()
    source.close()
    trained = load_checkpoint(tmp_path / "source" / "checkpoints" / f"{2:08d}")[0]
    runner = RayRunner(small(tmp_path, "next", "run.max_versions=2", "policy.lstm_size=16",
                             f"run.init_from='{tmp_path / 'source'}:2'"), say=lambda m: None)
    try:
        runner.run()
    finally:
        runner.close()
    zero = read_snapshot(snapshot_path(tmp_path / "next" / "pool", 0), 0)
    assert all(torch.equal(zero[k], trained[k]) for k in trained)
    state = load_checkpoint(tmp_path / "next" / "checkpoints" / f"{checkpoints(tmp_path / 'next')[-1]:08d}")[2]
    assert state["init_from"] == {"run": str(tmp_path / "source"), "version": 2, "agent_steps": source.agent_steps}


@pytest.mark.slow
def test_a_ray_run_starts_from_its_clone_and_keeps_the_kl_term(ray_cluster, tmp_path):
    """``clone.bot`` in the ray runner: the clone phase runs in the driver before the actors start; version 0 (its
    checkpoint and pool snapshot) is the clone, its recorded agent-steps are the run's first, and the optimizers
    train with the KL term toward it after the critic's warm-up."""
    from safetensors.torch import load_file

    from fivestack.runs.checkpoints import read_snapshot, snapshot_path

    config = small(tmp_path, "cloned", "run.max_versions=3", "policy.lstm_size=16", "rollout.decision_steps=2",
                   "clone.bot='scripted'", "clone.games=6", "clone.shard_steps=48", "clone.burn_in=8",
                   "clone.batch_streams=4", "clone.validation_share=0.25", "clone.agent_steps=400", "clone.passes=1",
                   "clone.dagger_rounds=1", "clone.dagger_agent_steps=200", "clone.dagger_passes=1",
                   "ppo.kl_weight=0.5", "ppo.kl_weight_end=0.5", "ppo.value_warmup_steps=2")
    runner = RayRunner(config, say=lambda m: None)
    assert runner.controller is None  # no actor plays before version 0 exists
    try:
        runner.run()
    finally:
        runner.close()
    run = tmp_path / "cloned"
    clone = load_file(str(run / "clone" / "model.safetensors"))
    recorded = sum(s["agent_steps"] for s in json.loads((run / "clone" / "progress.json").read_text())["shards"])
    model, _, state = load_checkpoint(run / "checkpoints" / f"{0:08d}")
    assert all(torch.equal(model[k], clone[k]) for k in clone)
    zero = read_snapshot(snapshot_path(run / "pool", 0), 0)
    assert all(torch.equal(zero[k], clone[k]) for k in clone)
    assert state["agent_steps"] == recorded and state["clone"]["bot"] == "scripted"
    final = load_checkpoint(run / "checkpoints" / f"{checkpoints(run)[-1]:08d}")[2]
    assert final["agent_steps"] > recorded and final["clone"] == state["clone"]
    trained = [r for r in records(run) if "loss/total" in r]
    assert any("kl_clone/total" in r for r in trained)  # the optimizers hold the clone as their reference
    assert any(r.get("clone/pass") for r in records(run))  # the clone phase's metrics are in the run's log
