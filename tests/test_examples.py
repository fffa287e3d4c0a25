"""The examples of ``examples/`` train: a few thousand agent-steps each, the loss moves, what they saved loads back
and plays games to the end (the libraries are the ``baselines`` extra, which ``scripts/setup.sh`` installs)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sb3_maskable_ppo_trains_saves_reloads_and_plays(tmp_path):
    from sb3_contrib import MaskablePPO

    example = load_example("sb3_ppo")
    losses = example.train(4096, tmp_path, opponent="scripted", n_games=8, seed=0)
    assert len(losses) == 2 and losses[0] != losses[1]  # two updates, and the loss moved
    reloaded = MaskablePPO.load(tmp_path / "model.zip", device="cpu")
    fresh = MaskablePPO("MlpPolicy", _venv(), seed=0, device="cpu")  # untrained: the reload is not it
    trained_weights = reloaded.policy.state_dict()
    assert any(not torch.equal(trained_weights[k], v) for k, v in fresh.policy.state_dict().items())
    result = example.play(tmp_path, "random", games=2, max_seconds=60.0)
    assert result.a_side.tolist() == [0, 1]
    assert np.all(result.minutes > 0) and np.all(result.minutes <= 1.0)


def _venv():
    from fivestack.match.sb3 import SB3VecEnv
    from fivestack.match.single_agent import SingleAgentGames

    return SB3VecEnv(SingleAgentGames(1, "random"))


@pytest.mark.slow
def test_rllib_ppo_trains_by_self_play_saves_reloads_and_plays(tmp_path):
    """In its own process (Ray's workers and state stay out of the test process)."""
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "rllib_ppo.py"), "--iterations", "2", "--batch",
                           "1000", "--games", "2", "--max-seconds", "60", "--out", str(tmp_path / "algo")],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(out["losses"]) == 2 and out["losses"][0] != out["losses"][1]
    assert out["games"] == 2 and all(0 < m <= 1.0 for m in out["minutes"])
    assert (tmp_path / "algo" / "learner_group").is_dir()
