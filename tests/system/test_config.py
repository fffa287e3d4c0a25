"""The run configuration reads well: every key has a one-line doc that ``fivestack train --show-config`` prints
with its value and default, and every number is checked against its range with one error naming the key."""

from __future__ import annotations

import dataclasses
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fivestack.runs.config import RANGES, SECTIONS, ConfigError, TrainConfig, describe, load_config

ROOT = Path(__file__).resolve().parents[2]
NOT_RANGED = {"run.seed"}  # any integer is a seed; reward weights may be any sign


def test_every_key_has_a_one_line_doc():
    rows = describe(TrainConfig())
    assert len(rows) == sum(len(dataclasses.fields(getattr(TrainConfig(), s))) for s in SECTIONS)
    for row in rows:
        assert row["doc"] and "\n" not in row["doc"] and len(row["doc"]) <= 120, row["key"]


def test_every_number_outside_the_reward_weights_has_a_range():
    config = TrainConfig()
    numbers = {f"{s}.{f.name}" for s in SECTIONS if s != "reward" for f in dataclasses.fields(getattr(config, s))
               if isinstance(getattr(getattr(config, s), f.name), (int, float))
               and not isinstance(getattr(getattr(config, s), f.name), bool)}
    ranged = {f"{s}.{k}" for s, k in RANGES}
    assert numbers - NOT_RANGED == ranged


def test_the_defaults_lie_in_their_ranges():
    config = TrainConfig()
    for (section, key), (low, high, low_ok, high_ok) in RANGES.items():
        value = getattr(getattr(config, section), key)
        assert (value >= low if low_ok else value > low), f"{section}.{key} = {value}"
        assert high is None or (value <= high if high_ok else value < high), f"{section}.{key} = {value}"
    assert dataclasses.asdict(load_config()) == dataclasses.asdict(config)  # validate() lets the defaults through


@pytest.mark.parametrize("override, message", [
    ("ppo.clip=0", "ppo.clip must be in (0, 1), got 0.0"),
    ("ppo.clip=1.0", "ppo.clip must be in (0, 1)"),
    ("ppo.gae_lambda=1.01", "ppo.gae_lambda must be in [0, 1]"),
    ("ppo.gae_lambda=-0.1", "ppo.gae_lambda must be in [0, 1]"),
    ("ppo.entropy_target=-0.001", "ppo.entropy_target must be at least 0"),
    ("ppo.learning_rate=nan", "ppo.learning_rate must be in (0, 1), got nan"),
    ("rollout.games=0", "rollout.games must be at least 1, got 0"),
    ("eval.games=0", "eval.games must be at least 1"),
    ("policy.lstm_size=0", "policy.lstm_size must be at least 1"),
    ("pool.past_fraction=1.5", "pool.past_fraction must be in [0, 1]"),
    ("ray.log_seconds=0", "ray.log_seconds must be greater than 0"),
    ("game.max_seconds=-5", "game.max_seconds must be greater than 0"),
])
def test_a_value_out_of_range_is_one_error_naming_the_key_and_its_range(override, message):
    with pytest.raises(ConfigError) as e:
        load_config(overrides=[override])
    assert message in str(e.value)


def test_ranges_admit_their_edges_as_stated():
    assert load_config(overrides=["ppo.gae_lambda=1", "pool.past_fraction=0", "ppo.entropy_delay=0"])
    assert math.isclose(load_config(overrides=["ppo.clip=0.999"]).ppo.clip, 0.999)


def test_show_config_prints_value_default_and_doc_and_makes_no_run(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
               COLUMNS="200")
    out = subprocess.run([sys.executable, "-m", "fivestack.cli", "train", "--show-config", "--set", "ppo.clip=0.3",
                          "--set", f"run.runs_dir={tmp_path / 'runs'}"], capture_output=True, text=True, env=env,
                         timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = {line.split()[0]: line for line in out.stdout.splitlines() if line.strip()}
    assert "0.3" in lines["ppo.clip"] and "0.2" in lines["ppo.clip"] and "probability ratio" in lines["ppo.clip"]
    assert "0.95" in lines["ppo.gae_lambda"] and "GAE" in lines["ppo.gae_lambda"]
    assert len([k for k in lines if "." in k and k.split(".")[0] in SECTIONS]) == len(describe(TrainConfig()))
    assert not (tmp_path / "runs").exists()


def test_a_moved_key_is_one_error_naming_its_new_name_and_old_checkpoints_still_load(tmp_path):
    from fivestack.runs.config import from_dict
    from fivestack.system.serial import SerialRunner

    with pytest.raises(ConfigError, match=r"ray.reuse_target is now ppo.sample_reuse"):
        load_config(None, ["ray.reuse_target=2.0"])
    with pytest.raises(ConfigError, match=r"ppo.epochs is now ppo.sample_reuse"):
        load_config(None, ["ppo.epochs=2"])
    old = TrainConfig().to_dict()  # a config saved before the keys moved
    old["ppo"].pop("sample_reuse")
    old["ppo"]["epochs"] = 3
    old["ray"]["steps_per_version"] = 8
    migrated = from_dict(old)
    assert migrated.ppo.sample_reuse == 3.0 and migrated.ppo.steps_per_version == 32  # the ppo key was saved too
    with pytest.raises(ConfigError, match=r"ppo.sample_reuse = 1.5: .* whole number"):
        SerialRunner(load_config(None, [f"run.runs_dir='{tmp_path}'", "ppo.sample_reuse=1.5"]))


def test_a_serial_run_whose_segments_cannot_fill_one_minibatch_is_refused(tmp_path):
    """2 games x 2 teams x 32 / 16 decisions = 8 team-samples a segment: a minibatch of 9 would never be filled
    (the serial runner trains on whole minibatches of one segment), so the run would never take a step."""
    from fivestack.system.serial import SerialRunner

    small = [f"run.runs_dir='{tmp_path}'", "rollout.games=2", "rollout.segment_steps=32", "rollout.sample_steps=16",
             "policy.lstm_size=16", "eval.every_versions=0", "run.max_versions=1", "run.torch_threads=1"]
    with pytest.raises(ConfigError, match=r"ppo.batch_samples = 9 is more than a segment's 8 team-samples .* lower "
                                          r"ppo.batch_samples or raise rollout.games"):
        SerialRunner(load_config(None, [*small, "ppo.batch_samples=9"]))
    runner = SerialRunner(load_config(None, [*small, "ppo.batch_samples=8"]))  # one whole minibatch: it trains
    runner.run()
    runner.close()
    assert runner.optimizer.version == 1
