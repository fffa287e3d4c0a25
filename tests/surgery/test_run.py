"""Surgery on a whole run, end to end through the CLI: a tiny 1v1 run trained for a few versions, operated on
(LSTM 16 -> 32 and trunk 256 -> 320), then resumed. The new run plays as the old one did, its past opponents
still play, and a mistake is one clear error line that writes nothing."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from fivestack.surgery.transforms import SurgeryError, widen_lstm
from fivestack.surgery.verify import TOLERANCE, Probe

# patch 0.1: the operated runs here move to patch 0.3, which is 0.1's game plus an observation column, so that the
# seeded games before and after the surgery are the same games
SMALL = ["game.mode='1v1'", "rollout.games=2", "rollout.segment_steps=32", "ppo.batch_samples=4",
         "ppo.steps_per_version=1", "eval.every_versions=0", "run.torch_threads=1", "policy.lstm_size=16",
         "pool.add_every_versions=1", "game.patch='0.1'"]


def cli(*args):
    return subprocess.run([sys.executable, "-m", "fivestack.cli", *args], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    sets = [a for s in SMALL for a in ("--set", s)]
    out = cli("train", *sets, "--set", f"run.runs_dir='{root}'", "--set", "run.name='old'", "--set",
              "run.max_versions=3")
    assert out.returncode == 0, out.stderr
    return root / "old"


def write_to(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def one_error_line(out) -> str:
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "Traceback" not in out.stderr
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), out.stderr
    return lines[0]


@pytest.mark.slow
def test_surgery_cli_moves_the_whole_run_and_training_resumes(trained, tmp_path):
    from fivestack.model.policy import Policy
    from fivestack.runs.config import load_config
    from fivestack.runs.checkpoints import latest_checkpoint, load_checkpoint
    from fivestack.system.optimizer import team_spirit_at
    from fivestack.system.pool import OpponentPool, PastOpponents
    from fivestack.system.serial import SerialRunner

    to = write_to(tmp_path / "to.toml", "[policy]\nlstm_size = 32\ntrunk = 320\n[ppo]\nwarmup_steps = 3\n")
    new_run = tmp_path / "new"
    out = cli("surgery", str(trained), "--to", str(to), "--out", str(new_run))
    assert out.returncode == 0, out.stderr
    print(out.stdout)
    assert "transform: widen the LSTM 16 -> 32" in out.stdout and "transform: widen the trunk 256 -> 320" in out.stdout
    assert "verification of version" in out.stdout and f"fivestack train --resume {new_run}" in out.stdout

    # the report: transforms and figures, every one within the tolerance, latest and past versions
    report = json.loads((new_run / "surgery" / "report.json").read_text())
    assert report["verification"]["passed"] and report["verification"]["team_steps"] >= 500
    assert max(report["verification"]["max_abs_diff"].values()) <= TOLERANCE
    old_model, old_optim, old_state = load_checkpoint(latest_checkpoint(trained))
    model, optim, state = load_checkpoint(latest_checkpoint(new_run))
    pool_versions = old_state["pool"]["versions"]
    assert len(pool_versions) >= 2 and sorted(map(int, report["pool"])) == pool_versions
    assert all(max(r.values()) <= TOLERANCE for r in report["pool"].values())
    # the run state moves with it: version, agent-steps, pool, and a warm-up at learning rate 0
    assert state["version"] == old_state["version"] and state["agent_steps"] == old_state["agent_steps"]
    assert state["pool"] == old_state["pool"]
    assert state["optimizer"]["lr_zero_until"] == old_state["optimizer"]["grad_steps"] + 3
    assert model["lstm.weight_hh"].shape == (128, 32) and optim["rng.torch"].equal(old_optim["rng.torch"])
    assert (trained / "surgery" / "probe.npz").is_file()  # the run's probe, kept for its next surgery

    old_cfg = load_config(trained / "config.toml")
    new_cfg = load_config(new_run / "config.toml")
    assert new_cfg.policy.lstm_size == 32 and new_cfg.run.name == "new"
    old_policy, new_policy = Policy(old_cfg.policy), Policy(new_cfg.policy)
    old_policy.load_state_dict(old_model)
    new_policy.load_state_dict(model)

    # greedy actions on the recorded observations are the same
    probe = Probe.load(new_run / "surgery" / "verified-probe.npz")
    s, steps = probe.first.shape
    obs = {k: torch.from_numpy(v[:, 0]) for k, v in probe.obs.items()}
    h0 = torch.from_numpy(probe.h0).reshape(s, -1)
    c0 = torch.from_numpy(probe.c0).reshape(s, -1)
    pad = torch.zeros(s, 16)
    first = torch.from_numpy(probe.first[:, 0])
    slots = torch.from_numpy(probe.hero_slots)
    with torch.no_grad():
        a_old = old_policy.act(obs, (h0, c0), first, slots, greedy=True)[0]
        a_new = new_policy.act(obs, (torch.cat([h0, pad], -1), torch.cat([c0, pad], -1)), first, slots, greedy=True)[0]
    assert torch.equal(a_old, a_new)

    # past opponents still play: every pool version loads into the new model
    opponents = PastOpponents(OpponentPool(new_cfg.pool, new_run / "pool"), new_cfg.policy)
    for version in pool_versions:
        assert opponents.inference(version).policy.config.lstm_size == 32

    # resumed, the new run plays its first segment move for move as the old run would have
    def first_segment(run: Path, cfg):
        runner = SerialRunner(cfg, resume=run)
        try:
            runner.inference.version = runner.version
            return runner.worker.collect(runner.inference, team_spirit_at(cfg.ppo, runner.version))
        finally:
            runner.close()

    before = first_segment(trained, old_cfg)
    after = first_segment(new_run, new_cfg)
    np.testing.assert_array_equal(before.actions, after.actions)
    np.testing.assert_allclose(before.log_prob, after.log_prob, atol=1e-5)

    # training continues from the operated checkpoint: 2 gradient steps per segment here, the first 3 at learning
    # rate 0 (the weights stay), then learning
    out = cli("train", "--resume", str(new_run), "--set", f"run.max_versions={state['version'] + 2}")
    assert out.returncode == 0, out.stderr
    model2, _, state2 = load_checkpoint(latest_checkpoint(new_run))
    assert state2["version"] == state["version"] + 2 and state2["agent_steps"] > state["agent_steps"]
    assert state2["optimizer"]["lr_zero_until"] == state["optimizer"]["lr_zero_until"]
    assert all(torch.equal(model2[k], model[k]) for k in model if not k.startswith("norms."))
    out = cli("train", "--resume", str(new_run), "--set", f"run.max_versions={state['version'] + 4}")
    assert out.returncode == 0, out.stderr
    model3, _, state3 = load_checkpoint(latest_checkpoint(new_run))
    assert state3["version"] == state["version"] + 4
    assert not torch.equal(model3["lstm.weight_hh"], model["lstm.weight_hh"])


@pytest.mark.slow
def test_surgery_mistakes_are_one_clear_error_line_and_write_nothing(trained, tmp_path):
    out_dir = tmp_path / "never"
    shrink = write_to(tmp_path / "shrink.toml", "[policy]\nlstm_size = 8\n")
    line = one_error_line(cli("surgery", str(trained), "--to", str(shrink), "--out", str(out_dir)))
    assert "policy.lstm_size shrinks from 16 to 8" in line and ">= 16" in line
    other = write_to(tmp_path / "other.toml", "[policy]\nlstm_size = 32\nunit_embedding = 32\n")
    line = one_error_line(cli("surgery", str(trained), "--to", str(other), "--out", str(out_dir)))
    assert "policy.unit_embedding changes from 64 to 32" in line and "keep policy.unit_embedding = 64" in line
    same = write_to(tmp_path / "same.toml", "[ppo]\nlearning_rate = 1e-4\n")
    line = one_error_line(cli("surgery", str(trained), "--to", str(same), "--out", str(out_dir)))
    assert "changes nothing surgery transforms" in line
    (tmp_path / "empty" / "checkpoints").mkdir(parents=True)
    line = one_error_line(cli("surgery", str(tmp_path / "empty"), "--to", str(shrink), "--out", str(out_dir)))
    assert "has no checkpoint yet" in line
    line = one_error_line(cli("surgery", str(trained), "--to", str(tmp_path / "missing.toml"), "--out", str(out_dir)))
    assert "no such file" in line
    assert not out_dir.exists()


@pytest.mark.slow
def test_a_broken_transform_is_refused_and_writes_nothing(trained, tmp_path):
    from fivestack.surgery.run import new_config, operate
    from fivestack.surgery.transforms import Step
    from fivestack.runs.config import load_config

    def broken(steps):  # random instead of zero outgoing weights from the new units into the value head
        def apply(tensors, fill):
            out = widen_lstm(tensors, fill, 16, 32)
            out["value_head.weight"] = out["value_head.weight"].clone()
            out["value_head.weight"][:, 16:] = torch.randn(out["value_head.weight"].shape[0], 16)
            return out
        return [Step("widen the LSTM 16 -> 32 (broken)", apply)]

    to = write_to(tmp_path / "to.toml", "[policy]\nlstm_size = 32\n")
    config = new_config(load_config(trained / "config.toml"), to)
    with pytest.raises(SurgeryError, match=r"does not compute the same function: value .* nothing was written"):
        operate(trained, config, tmp_path / "broken", tamper=broken)
    assert not (tmp_path / "broken").exists()


def test_the_warm_up_trains_at_learning_rate_0_while_adam_fills_its_moments():
    from fivestack.model.policy import Policy
    from fivestack.runs.config import load_config
    from fivestack.match.inference import Inference
    from fivestack.system.optimizer import Optimizer
    from fivestack.system.rollout import RolloutWorker

    config = load_config(None, SMALL)
    torch.manual_seed(0)
    policy = Policy(config.policy)
    batch = RolloutWorker(config, seed=1).collect(Inference(policy, seed=0), team_spirit=0.3)
    optimizer = Optimizer(policy, config.ppo)
    optimizer.lr_zero_until = 2
    start = {k: v.clone() for k, v in policy.state_dict().items()}
    for _ in range(2):
        optimizer.train(batch)
    assert all(torch.equal(v, policy.state_dict()[k]) for k, v in start.items())
    assert all(optimizer.adam.state[p]["exp_avg_sq"].abs().sum() > 0 for p in policy.parameters()
               if p.grad is not None and p.grad.abs().sum() > 0)
    assert optimizer.scalars()["lr_zero_until"] == 2
    optimizer.train(batch)
    assert any(not torch.equal(v, policy.state_dict()[k]) for k, v in start.items())
    assert optimizer.adam.param_groups[0]["lr"] == config.ppo.learning_rate


def seeded_games(policy, patch: str, opponent, seed: int = 3, games: int = 2):
    """``games`` seeded 1v1 evaluation games of 20 s of ``policy`` against ``opponent`` (an agent factory)."""
    from fivestack.surgery.replay import seeded_games as recorded_games

    return recorded_games(policy, patch, opponent, mode="1v1", games=games, max_seconds=20.0, seed=seed,
                          decision_steps=1)


@pytest.mark.slow
def test_surgery_with_a_patch_feature_replays_the_seeded_games_and_past_opponents_play(trained, tmp_path):
    """LSTM 16 -> 32 plus patch 0.3's observation column (--patch 0.3): the seeded evaluation games the operated
    run plays are move for move those of the run before it, against a bot and against a past version, and the
    transformed past versions play games to their end."""
    from fivestack.model.policy import Policy
    from fivestack.match.agents import PolicyTeamAgent, build_agent
    from fivestack.runs.config import load_config
    from fivestack.runs.checkpoints import latest_checkpoint, load_checkpoint
    from fivestack.system.pool import OpponentPool

    to = write_to(tmp_path / "to.toml", "[policy]\nlstm_size = 32\n")
    new_run = tmp_path / "new"
    out = cli("surgery", str(trained), "--to", str(to), "--patch", "0.3", "--out", str(new_run))
    assert out.returncode == 0, out.stderr
    assert "transform: add 1 feature(s) to the global observations (22 -> 23)" in out.stdout
    assert "transform: widen the LSTM 16 -> 32" in out.stdout
    old_cfg, new_cfg = load_config(trained / "config.toml"), load_config(new_run / "config.toml")
    assert old_cfg.game.patch == "0.1" and new_cfg.game.patch == "0.3"

    def policy(cfg, weights):
        p = Policy(cfg.policy, cfg.game.patch)
        p.load_state_dict(weights)
        return p.eval()

    old = policy(old_cfg, load_checkpoint(latest_checkpoint(trained))[0])
    new = policy(new_cfg, load_checkpoint(latest_checkpoint(new_run))[0])
    assert new.sizes.features["global"] == 23 and new.config.lstm_size == 32
    bot = lambda side: build_agent("scripted-weak", side, 11 + side, "1v1")  # noqa: E731
    before, moves_before = seeded_games(old, "0.1", bot)
    after, moves_after = seeded_games(new, "0.3", bot)
    np.testing.assert_array_equal(before.winner, after.winner)
    np.testing.assert_array_equal(before.minutes, after.minutes)
    assert len(moves_before) == len(moves_after) == 2
    for a, b in zip(moves_before, moves_after):
        np.testing.assert_array_equal(a, b)

    # past opponents: a transformed pool version plays as it did before, and the operated run plays it to the end
    version = min(load_checkpoint(latest_checkpoint(trained))[2]["pool"]["versions"])
    old_past = policy(old_cfg, OpponentPool(old_cfg.pool, trained / "pool").weights(version))
    new_past = policy(new_cfg, OpponentPool(new_cfg.pool, new_run / "pool").weights(version))
    past = lambda p, patch: lambda side: PolicyTeamAgent(side, p, "1v1", 20 + side, decision_steps=1,  # noqa: E731
                                                         patch=patch)
    before, moves_before = seeded_games(old, "0.1", past(old_past, "0.1"))
    after, moves_after = seeded_games(new, "0.3", past(new_past, "0.3"))
    np.testing.assert_array_equal(before.winner, after.winner)
    for a, b in zip(moves_before, moves_after):
        np.testing.assert_array_equal(a, b)
    assert (after.minutes > 0).all() and after.winner.shape == (2,)


def test_an_unknown_patch_is_one_clear_error(tmp_path):
    from fivestack.surgery.run import new_config
    from fivestack.runs.config import load_config

    to = write_to(tmp_path / "to.toml", "[policy]\nlstm_size = 32\n")
    with pytest.raises(SurgeryError, match=r"--patch 9.9: no such patch version; choose one of 0.1, 0.2, 0.3"):
        new_config(load_config(None, SMALL), to, "9.9")
    assert new_config(load_config(None, SMALL), to, "0.3").game.patch == "0.3"
    assert new_config(load_config(None, SMALL), to).game.patch == load_config(None, SMALL).game.patch  # the run's own


@pytest.mark.slow
def test_the_ray_runner_resumes_an_operated_run(trained, tmp_path):
    """An operated run (LSTM 16 -> 32 plus patch 0.3's column) goes on under the ray runner: its actors build the
    new model for the new game, and training advances from the operated checkpoint."""
    from fivestack.runs.checkpoints import latest_checkpoint, load_checkpoint

    to = write_to(tmp_path / "to.toml", "[policy]\nlstm_size = 32\n")
    new_run = tmp_path / "new"
    assert cli("surgery", str(trained), "--to", str(to), "--patch", "0.3", "--out", str(new_run)).returncode == 0
    _, _, state = load_checkpoint(latest_checkpoint(new_run))
    out = cli("train", "--runner", "ray", "--resume", str(new_run), "--set", f"run.max_versions={state['version'] + 3}",
              "--set", "ray.rollout_workers=1", "--set", "ray.optimizers=1", "--set", "ray.inference=1")
    assert out.returncode == 0, out.stderr[-2000:]
    model, _, after = load_checkpoint(latest_checkpoint(new_run))
    assert after["runner"] == "ray" and after["version"] >= state["version"] + 3
    assert after["agent_steps"] > state["agent_steps"]
    assert model["lstm.weight_hh"].shape == (128, 32) and model["norms.obs_global.mean"].shape == (23,)
