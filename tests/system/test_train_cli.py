"""`fivestack train` end to end: checkpoints, TensorBoard logs, resume, resume after SIGKILL, and SIGTERM."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fivestack.runs.checkpoints import CheckpointError, latest_checkpoint, load_checkpoint

SMALL = ["--set", "game.mode='1v1'", "--set", "rollout.games=2", "--set", "rollout.segment_steps=32",
         "--set", "ppo.batch_samples=4", "--set", "ppo.steps_per_version=1", "--set", "eval.every_versions=0", "--set", "run.torch_threads=1"]


def train(args, **kw):
    return subprocess.run([sys.executable, "-m", "fivestack.cli", "train", *args], capture_output=True, text=True,
                          timeout=600, **kw)


def checkpoint_versions(run: Path) -> list[int]:
    folder = run / "checkpoints"
    return sorted(int(p.name) for p in folder.iterdir() if p.name.isdigit()) if folder.is_dir() else []


@pytest.mark.slow
def test_train_writes_checkpoint_and_logs_then_resumes(tmp_path):
    run = tmp_path / "r1"
    out = train([*SMALL, "--set", f"run.runs_dir='{tmp_path}'", "--set", "run.name='r1'", "--set", "run.max_versions=8"])
    assert out.returncode == 0, out.stderr
    assert checkpoint_versions(run) == [8]
    assert any((run / "tb").iterdir()), "TensorBoard event file expected"
    lines = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert lines[-1]["version"] == 8 and "loss/policy" in lines[-1] and "reward_events/gold" in lines[-1]
    model, optim, state = load_checkpoint(latest_checkpoint(run))
    assert state["version"] == 8 and state["agent_steps"] == lines[-1]["agent_steps"]
    out = train(["--resume", str(run), "--set", "run.max_versions=12"])
    assert out.returncode == 0, out.stderr
    assert checkpoint_versions(run)[-1] == 12
    resumed = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert resumed[len(lines)]["version"] > 8  # continued from version 8, not from 0
    assert resumed[len(lines)]["agent_steps"] > lines[-1]["agent_steps"]


@pytest.mark.slow
def test_sigkill_mid_run_loses_only_work_since_last_checkpoint(tmp_path):
    run = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-m", "fivestack.cli", "train", *SMALL, "--set", f"run.runs_dir='{tmp_path}'",
         "--set", "run.name='killed'", "--set", "run.checkpoint_minutes=0.002"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while len(checkpoint_versions(run)) < 2 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert len(checkpoint_versions(run)) >= 2, "the run never wrote two checkpoints"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    saved = checkpoint_versions(run)[-1]
    model, optim, state = load_checkpoint(latest_checkpoint(run))  # the newest checkpoint is whole
    assert state["version"] == saved
    out = train(["--resume", str(run), "--set", f"run.max_versions={saved + 4}"])
    assert out.returncode == 0, out.stderr
    assert checkpoint_versions(run)[-1] == saved + 4
    assert f"version {saved + 4}" in out.stdout.replace("\n", " ")


@pytest.mark.slow
def test_sigterm_stops_a_serial_run_with_a_checkpoint_and_a_message(tmp_path):
    """The training loop handles SIGTERM for the serial runner as for the ray one: the run stops after its
    segment, checkpoints the version it reached, says so, and exits 0."""
    run = tmp_path / "term"
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with open(out, "w") as stdout, open(err, "w") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "fivestack.cli", "train", *SMALL, "--set",
                                 f"run.runs_dir='{tmp_path}'", "--set", "run.name='term'"], stdout=stdout, stderr=stderr)
    try:
        metrics = run / "metrics.jsonl"
        deadline = time.monotonic() + 300
        while proc.poll() is None and time.monotonic() < deadline and not (
                metrics.is_file() and "loss/policy" in metrics.read_text()):
            time.sleep(0.5)
        assert proc.poll() is None, err.read_text()[-3000:]
        assert checkpoint_versions(run) == [], "a checkpoint before the signal (checkpoint_minutes is 2)"
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 0, err.read_text()[-3000:]
    saved = checkpoint_versions(run)
    assert len(saved) == 1 and saved[0] > 0
    assert load_checkpoint(latest_checkpoint(run))[2]["version"] == saved[0]
    said = "".join(err.read_text().split())  # rich wraps long lines, a long path anywhere
    assert f"stoppedbysignal{int(signal.SIGTERM)};checkpoint" in said, said[-3000:]
    assert f"term/checkpoints/{saved[0]:08d}" in said, said[-3000:]
    assert f"stoppedatversion{saved[0]}after" in "".join(out.read_text().split())


@pytest.mark.slow  # quick loop: under 3 minutes in all (pytest -m 'not slow')
def test_resume_errors_are_one_clear_line(tmp_path):
    out = train(["--resume", str(tmp_path / "missing")])
    assert out.returncode == 2 and "no run there" in out.stderr and "Traceback" not in out.stderr
    (tmp_path / "broken" / "checkpoints" / "00000004").mkdir(parents=True)
    (tmp_path / "broken" / "config.toml").write_text("[game]\nmode = '1v1'\n")
    out = train(["--resume", str(tmp_path / "broken")])
    assert out.returncode == 2 and "missing model.safetensors" in out.stderr and "Traceback" not in out.stderr
    with pytest.raises(CheckpointError, match="no checkpoint yet"):
        latest_checkpoint(tmp_path)


@pytest.mark.slow  # quick loop: under 3 minutes in all (pytest -m 'not slow')
def test_bad_override_is_one_clear_line():
    out = train(["--set", "ppo.learning_rte=1e-4"])
    assert out.returncode == 2
    assert "unknown config key ppo.learning_rte" in out.stderr and "Traceback" not in out.stderr
    out = train(["--set", "rollout.games=many"])
    assert out.returncode == 2 and "rollout.games must be int" in out.stderr
