"""The cluster path for real, on this one machine: a head started by ``ray start --head`` and a second node by
``ray start --address``, training through ``fivestack train --runner ray --address``; the second node's raylet
is SIGKILLed mid-run. With rollout and inference actors on it (``ray.spread``), they are replaced on the head
and the run goes on; a SIGTERM stops it with a checkpoint and ``--resume`` continues it. With the optimizer on
it, the run stops with one line and exit code 1, and ``--resume`` continues it on a node that joins later.
Every node is stopped at the end.

Each node gets its own temp dir and its own process session (``ray start`` in a new session; the raylet, the
GCS, the agents and every worker it spawns stay in it), so the test finds a node's actors and raylet by
session and stops exactly its own processes. ``ray stop`` is not used: it stops every Ray on the machine,
including other runs and tests.

Run it alone with ``pytest tests/system/test_cluster.py``."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIVESTACK_ACTORS = ("ControllerActor", "OptimizerActor", "InferenceActor", "RolloutActor")
HEAD_CPUS = 4  # logical: room on the head for every actor once the second node is gone
NODE_CPUS = 2
TINY = ["game.mode='1v1'", "rollout.games=2", "rollout.segment_steps=32", "ppo.batch_samples=4",
        "eval.every_versions=0", "run.torch_threads=1", "ppo.steps_per_version=2", "ray.rollout_workers=2",
        "ray.inference=1", "ray.optimizers=1", "ray.log_seconds=1", "ppo.max_staleness=3",
        "pool.past_fraction=0.0", "ray.spread=true", "run.checkpoint_minutes=10.0"]


# ---------------------------------------------------------------------- processes by session
def session_processes(sid: int) -> dict[int, str]:
    """pid -> command line of the live processes in session ``sid``."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            state, _ppid, _pgrp, session = stat[stat.rindex(")") + 2:].split()[:4]
            if int(session) == sid and state != "Z":
                out[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(
                    errors="replace").strip()
        except (OSError, ValueError):
            continue
    return out


def actors_of(sid: int) -> list[str]:
    """The fivestack actors living in session ``sid`` (one node), by class, sorted."""
    names = [cmd[5:].split(".")[0].split()[0] for cmd in session_processes(sid).values() if cmd.startswith("ray::")]
    return sorted(n for n in names if n in FIVESTACK_ACTORS)


def stop_session(sid: int) -> None:
    """SIGTERM then SIGKILL every process of the session."""
    for sig, grace in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        for pid in session_processes(sid):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + grace
        while session_processes(sid) and time.monotonic() < deadline:
            time.sleep(0.2)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A head and a second node on this machine, each with its own temp dir and session."""

    def __init__(self):
        # short: Ray's unix sockets live under the temp dir and their paths are limited to ~107 characters
        self.root = Path(tempfile.mkdtemp(prefix="fs-", dir="/tmp"))
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0",  # the workers import fivestack from this checkout
                    "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
        self.sessions: dict[str, int] = {}

    def start(self, name: str, *args: str) -> None:
        temp = self.root / name
        temp.mkdir()
        proc = subprocess.Popen([sys.executable, "-m", "ray.scripts.scripts", "start", *args, f"--temp-dir={temp}",
                                 "--disable-usage-stats", f"--object-store-memory={512 << 20}"],
                                env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        self.sessions[name] = proc.pid  # a session leader's pid is its session id, kept by all it spawns
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0, f"ray start ({name}) failed:\n{out[-3000:]}"

    def raylet(self, name: str) -> int:
        found = [pid for pid, cmd in session_processes(self.sessions[name]).items()
                 if cmd.split(" ")[0].endswith("/raylet") and f"--temp_dir={self.root / name}" in cmd]
        assert len(found) == 1, f"raylets of {name}: {found}"
        return found[0]

    def stop(self) -> None:
        for sid in reversed(list(self.sessions.values())):  # the second node first, then the head
            stop_session(sid)
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture
def cluster():
    c = Cluster()
    try:
        yield c
    finally:
        c.stop()


# ---------------------------------------------------------------------- the run
def records(run: Path) -> list[dict]:
    path = run / "metrics.jsonl"
    out = []
    for line in path.read_text().splitlines() if path.is_file() else []:
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:  # a line being written
            pass
    return out


def checkpoints(run: Path) -> list[int]:
    return sorted(int(p.name) for p in (run / "checkpoints").iterdir() if p.name.isdigit())


def checkpoint_steps(run: Path, version: int) -> int:
    return json.loads((run / "checkpoints" / f"{version:08d}" / "state.json").read_text())["agent_steps"]


def latest_version(run: Path) -> int:
    return max((r["version"] for r in records(run)), default=-1)


def wait_for(condition, what: str, seconds: float, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        if proc.poll() is not None:
            pytest.fail(f"the run ended (exit {proc.returncode}) before {what}:\n{log.read_text()[-3000:]}")
        time.sleep(1.0)
    pytest.fail(f"no {what} within {seconds:.0f} s:\n{log.read_text()[-3000:]}")


def train(cluster: Cluster, *args: str, out: Path, resume: Path | None = None) -> subprocess.Popen:
    """``fivestack train --runner ray`` joining the cluster (a resumed run joins the address in its config)."""
    where = ["--resume", str(resume)] if resume is not None else ["--address", cluster.address]
    sets = [a for item in args for a in ("--set", item)]
    with out.open("w") as stream:  # the run writes to its own copy
        return subprocess.Popen([sys.executable, "-m", "fivestack.cli", "train", "--runner", "ray", *where, *sets],
                                env=cluster.env, cwd=out.parent, stdout=stream, stderr=subprocess.STDOUT,
                                start_new_session=True)


def finish(proc: subprocess.Popen, timeout: float) -> int:
    """The run's exit code; a run still going after ``timeout`` s is killed with its process group."""
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def resumed(cluster: Cluster, run: Path, version: int, out: Path) -> None:
    """``--resume`` continues the run from checkpoint ``version`` to two versions more, agent-steps growing."""
    proc = train(cluster, f"run.max_versions={version + 2}", "run.minutes=0.0", out=out, resume=run)
    assert finish(proc, 300) == 0, out.read_text()[-3000:]
    text = " ".join(out.read_text().split())  # rich wraps long lines
    assert f"(version {version})" in text and "Traceback" not in text, text[-3000:]
    final = int(text.split("stopped at version ")[1].split()[0])
    assert final >= version + 2 and checkpoints(run)[-1] == final
    assert checkpoint_steps(run, final) > checkpoint_steps(run, version)


@pytest.mark.slow
def test_two_node_cluster_survives_a_dead_node_and_resumes(cluster, tmp_path):
    cluster.start("head", "--head", f"--port={cluster.port}", f"--num-cpus={HEAD_CPUS}", "--include-dashboard=false",
                  f"--dashboard-port={free_port()}", f"--ray-client-server-port={free_port()}")
    cluster.start("node2", f"--address={cluster.address}", f"--num-cpus={NODE_CPUS}")
    head, node2 = cluster.sessions["head"], cluster.sessions["node2"]
    run = tmp_path / "cluster"
    log = tmp_path / "train.log"
    proc = train(cluster, *TINY, f"run.runs_dir='{tmp_path}'", "run.name='cluster'", "run.minutes=8.0", out=log)
    started = time.monotonic()
    try:
        # 1. actors on both nodes (the optimizer and the controller beside the driver, on the head), training
        wait_for(lambda: actors_of(node2) and len(actors_of(head) + actors_of(node2)) == 5,
                 "actors on both nodes", 240, proc, log)
        placed = {"head": actors_of(head), "node2": actors_of(node2)}
        assert {"ControllerActor", "OptimizerActor"} <= set(placed["head"]), placed
        assert set(placed["node2"]) <= {"InferenceActor", "RolloutActor"}, placed
        wait_for(lambda: latest_version(run) >= 3 and time.monotonic() - started >= 60,
                 "a minute of training with versions advancing", 300, proc, log)

        # 2. the second node dies: its raylet is SIGKILLed, its actors die with it
        os.kill(cluster.raylet("node2"), signal.SIGKILL)
        killed_at = latest_version(run)

        # 3. the run goes on: the lost actors are replaced on the head and versions keep advancing
        def replaced() -> bool:
            restarts = {k for r in records(run) for k in r if k.startswith("restarts/")}
            return (restarts >= {f"restarts/{kind[:-5].lower()}" for kind in placed["node2"]}
                    and sorted(actors_of(head)) == sorted(placed["head"] + placed["node2"])
                    and latest_version(run) >= killed_at + 3)

        wait_for(replaced, "the lost actors replaced on the head and 3 more versions", 240, proc, log)
        assert actors_of(node2) == []
        proc.send_signal(signal.SIGTERM)  # stops with a checkpoint of the version it reached
        code = finish(proc, 120)
    finally:
        finish(proc, 0)  # kills a run left going by a failure above
    assert code == 0, log.read_text()[-3000:]
    text = " ".join(log.read_text().split())
    assert "Traceback" not in text, text[-3000:]
    for kind in placed["node2"]:
        assert f"{kind[:-5].lower()} actor" in text and "died" in text and "restarting" in text, text[-3000:]
    version = checkpoints(run)[-1]
    assert version >= killed_at + 3

    # 4. resume on what is left of the cluster (the head): the version and the agent-steps go on from there
    resumed(cluster, run, version, tmp_path / "resume.log")

    # 5. both nodes stop, and nothing of theirs is left
    cluster.stop()
    assert not session_processes(head) and not session_processes(node2)


@pytest.mark.slow
def test_a_lost_optimizer_stops_the_run_with_one_message_and_it_resumes_on_a_new_node(cluster, tmp_path):
    """A head with no CPUs for actors (only the controller, pinned beside the driver): the optimizer lives on
    the second node, and losing that node stops the run with one line; a new node joins and the run resumes."""
    cluster.start("head", "--head", f"--port={cluster.port}", "--num-cpus=0", "--include-dashboard=false",
                  f"--dashboard-port={free_port()}", f"--ray-client-server-port={free_port()}")
    cluster.start("node2", f"--address={cluster.address}", f"--num-cpus={HEAD_CPUS}")
    head, node2 = cluster.sessions["head"], cluster.sessions["node2"]
    run = tmp_path / "lost"
    log = tmp_path / "train.log"
    proc = train(cluster, *TINY, f"run.runs_dir='{tmp_path}'", "run.name='lost'", "run.minutes=8.0",
                 "run.checkpoint_minutes=0.05", out=log)
    try:
        wait_for(lambda: (run / "checkpoints").is_dir() and checkpoints(run) and checkpoints(run)[-1] >= 2,
                 "a checkpoint of version 2", 300, proc, log)
        assert actors_of(head) == ["ControllerActor"] and "OptimizerActor" in actors_of(node2)
        os.kill(cluster.raylet("node2"), signal.SIGKILL)
        code = finish(proc, 180)
    finally:
        finish(proc, 0)
    assert code == 1, log.read_text()[-3000:]
    text = " ".join(log.read_text().split())
    assert "Traceback" not in text, text[-3000:]
    assert "Error: an optimizer was lost (" in text, text[-3000:]
    assert f"resume it from its last checkpoint with --resume {run}" in text, text[-3000:]
    version = checkpoints(run)[-1]

    cluster.start("node3", f"--address={cluster.address}", f"--num-cpus={HEAD_CPUS}")
    resumed(cluster, run, version, tmp_path / "resume.log")
    cluster.stop()
    assert not any(session_processes(sid) for sid in (head, node2, cluster.sessions["node3"]))
