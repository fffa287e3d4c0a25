"""A tiny real training run (one version, a few samples) for tests that need a run folder: the drafting CLI,
the policy scorer and the win-probability calibration benchmark. Imported as ``from tiny_runs import tiny_run``
(``tests/`` is on the path as the rootdir of ``conftest.py``, as ``page_waits`` is)."""

from fivestack.runs.config import load_config
from fivestack.system.serial import SerialRunner


def tiny_run(root, name, mode):
    config = load_config(None, [
        f"run.runs_dir='{root}'", f"run.name='{name}'", f"game.mode='{mode}'", "game.max_seconds=30.0",
        "rollout.games=2", "ppo.batch_samples=4", "ppo.steps_per_version=1", "policy.lstm_size=16",
        "run.torch_threads=1", "run.max_versions=1", "eval.every_versions=0", "eval.calibration_games=2",
        "eval.games=2", "eval.max_seconds=30.0"])
    runner = SerialRunner(config)
    runner.run()
    runner.close()
    return runner.run_dir
