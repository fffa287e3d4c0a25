"""One process at a time writes a run (``system/controller.py``'s lock): a second process that starts or resumes a
run in use is one clear error naming the holder; the lock goes with its holder, killed or closed."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from fivestack.runs.config import load_config
from fivestack.system.controller import Controller, RunInUse

HOLD = textwrap.dedent("""
    import sys, time
    from fivestack.runs.config import load_config
    from fivestack.system.controller import Controller
    Controller(sys.argv[1], load_config(None, []))
    print("held", flush=True)
    time.sleep(120)
""")


def holder(run_dir):
    """A second process that holds ``run_dir`` (as a training run does) until it is killed."""
    process = subprocess.Popen([sys.executable, "-c", HOLD, str(run_dir)], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "held"
    return process


def test_a_run_in_use_by_another_process_is_refused_until_that_process_dies(tmp_path):
    run = tmp_path / "same-name"
    config = load_config(None, ["run.seed=99"])
    other = holder(run)
    try:
        with pytest.raises(RunInUse, match=rf"run {run} is in use by another process \(pid {other.pid} on .*\); "
                                           r"wait for it to end or stop it, or choose another run\.name"):
            Controller(run, config)
        assert "seed = 99" not in (run / "config.toml").read_text()  # the refused one wrote nothing over it
    finally:
        other.kill()
        other.wait()
    controller = Controller(run, config)  # killed: the lock went with it, the run starts again at once
    controller.close()


def test_close_frees_the_run_and_one_process_may_hold_it_twice(tmp_path):
    run = tmp_path / "mine"
    config = load_config(None, [])
    first = Controller(run, config)
    second = Controller(run, config)  # the same process reopening its own run (a resume in a test)
    first.close()
    first.close()  # twice is once
    probe = subprocess.run([sys.executable, "-c", HOLD.replace("time.sleep(120)", ""), str(run)],
                           capture_output=True, text=True)
    assert probe.returncode != 0 and "RunInUse" in probe.stderr  # the second still holds it
    second.close()
    probe = subprocess.run([sys.executable, "-c", HOLD.replace("time.sleep(120)", ""), str(run)],
                           capture_output=True, text=True)
    assert probe.returncode == 0 and probe.stdout.strip() == "held"  # all closed: free
