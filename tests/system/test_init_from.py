"""A run that starts from another run's trained version (``run.init_from``, a curriculum's next stage): its version
0 is that version's weights, it records where they came from, its critic can warm up alone, and a version of
another model or game, or a missing one, is one clear error before any run folder is made."""

import pytest
import torch

from fivestack.game.patch import PATCH_VERSION
from fivestack.runs.checkpoints import latest_checkpoint, load_checkpoint, read_snapshot, snapshot_path
from fivestack.runs.config import ConfigError, load_config
from fivestack.system.serial import SerialRunner

TINY = ["game.mode='1v1'", "rollout.games=2", "rollout.segment_steps=32", "ppo.batch_samples=4",
        "ppo.steps_per_version=1", "policy.lstm_size=16", "run.torch_threads=1", "eval.every_versions=0",
        "pool.past_fraction=0.0"]


def train(tmp_path, name: str, *extra: str) -> SerialRunner:
    runner = SerialRunner(load_config(None, [*TINY, f"run.runs_dir='{tmp_path}'", f"run.name='{name}'", *extra]))
    runner.run()
    runner.close()
    return runner


def weights_of(runner_or_dir) -> dict[str, torch.Tensor]:
    run_dir = getattr(runner_or_dir, "run_dir", runner_or_dir)
    return load_checkpoint(latest_checkpoint(run_dir))[0]


def same(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor], keys=None) -> bool:
    return all(torch.equal(a[k], b[k]) for k in (keys or a))


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A trained run to start from: 4 versions (its last checkpoint is version 4)."""
    return train(tmp_path_factory.mktemp("source"), "source", "run.seed=3", "run.max_versions=4")


def test_a_new_run_starts_from_the_named_versions_weights_and_says_where_they_came_from(source, tmp_path):
    trained = weights_of(source)
    assert int(latest_checkpoint(source.run_dir).name) == 4
    fresh = SerialRunner(load_config(None, [*TINY, f"run.runs_dir='{tmp_path}'", "run.name='fresh'", "run.seed=5"]))
    fresh.close()
    assert not same(fresh.policy.state_dict(), trained)  # a run of seed 5 starts elsewhere ...
    started = SerialRunner(load_config(None, [*TINY, f"run.runs_dir='{tmp_path}'", "run.name='next'", "run.seed=5",
                                              f"run.init_from='{source.run_dir}'", "run.max_versions=1"]))
    assert same(started.policy.state_dict(), trained)  # ... unless it starts from the source's latest version
    started.run()
    started.close()
    # version 0 of its opponent pool is the source's version, and its checkpoint names where it came from
    assert same(read_snapshot(snapshot_path(started.run_dir / "pool", 0), 0), trained)
    state = load_checkpoint(latest_checkpoint(started.run_dir))[2]
    assert state["init_from"] == {"run": str(source.run_dir), "version": 4, "agent_steps": source.agent_steps}
    assert state["agent_steps"] == started.agent_steps < source.agent_steps  # its own count starts at 0
    assert not same(weights_of(started), trained)  # and it trained on from there
    # a version named by number: a pool snapshot (version 0 here), whose agent-steps no checkpoint records
    from_zero = SerialRunner(load_config(None, [*TINY, f"run.runs_dir='{tmp_path}'", "run.name='zero'",
                                                f"run.init_from='{source.run_dir}:0'"]))
    from_zero.close()
    assert same(from_zero.policy.state_dict(), read_snapshot(snapshot_path(source.run_dir / "pool", 0), 0))
    assert from_zero.state.init_from == {"run": str(source.run_dir), "version": 0, "agent_steps": None}


def test_a_resumed_run_keeps_its_own_weights_not_the_ones_it_started_from(source, tmp_path):
    started = train(tmp_path, "next", f"run.init_from='{source.run_dir}'", "run.max_versions=2")
    own = weights_of(started)
    resumed = SerialRunner(load_config(started.run_dir / "config.toml", [], saved=True), resume=started.run_dir)
    resumed.close()
    assert same(resumed.policy.state_dict(), own) and not same(own, weights_of(source))
    assert resumed.state.init_from["version"] == 4


def test_the_critic_warms_up_alone_on_weights_from_another_run(source, tmp_path):
    trained = weights_of(source)
    warm = train(tmp_path, "warm", f"run.init_from='{source.run_dir}'", "ppo.value_warmup_steps=100",
                 "run.max_versions=2")
    after = weights_of(warm)
    critic = [k for k in after if k.startswith(("value_head", "win_head"))]
    rest = [k for k in after if k not in critic and not k.startswith("norm")]  # the input normalisers move anyway
    assert critic and rest
    assert same(after, trained, rest)  # the policy is the source's ...
    assert not same(after, trained, critic)  # ... while its value and win heads learnt
    cold = weights_of(train(tmp_path, "cold", f"run.init_from='{source.run_dir}'", "run.max_versions=2"))
    assert not same(cold, trained, rest)  # without the warm-up every weight moves


def test_a_version_of_another_model_or_game_or_none_at_all_is_one_clear_error(source, tmp_path):
    def start(*extra):
        return SerialRunner(load_config(None, [*TINY, f"run.runs_dir='{tmp_path}'", "run.name='x'", *extra]))

    with pytest.raises(ConfigError, match=r"policy.lstm_size = 16 there, 32 here.*set policy.lstm_size as that "
                                          r"run's, or run.init_from='' for fresh weights"):
        start(f"run.init_from='{source.run_dir}'", "policy.lstm_size=32")
    with pytest.raises(ConfigError, match=rf"game.patch = '{PATCH_VERSION}' there, '0.9' here"):
        start(f"run.init_from='{source.run_dir}'", "game.patch='0.9'")
    with pytest.raises(ConfigError, match=r"run.init_from: .*has no version 7; versions stored: 0, 4"):
        start(f"run.init_from='{source.run_dir}:7'")
    with pytest.raises(ConfigError, match=r"run.init_from: .*is not a run folder"):
        start(f"run.init_from='{tmp_path / 'nothing'}'")
    assert not (tmp_path / "x").exists()  # refused before a run folder was made
    with pytest.raises(ConfigError, match="a run's version 0 is either a clone or a trained version's weights"):
        load_config(None, ["clone.bot='scripted'", f"run.init_from='{source.run_dir}'"])
    with pytest.raises(ConfigError, match="ppo.value_warmup_steps acts on a run that starts from trained weights"):
        load_config(None, ["ppo.value_warmup_steps=8"])
