"""Annealing a new game feature (issue "Surgery", Done-when 3): the share of rollout games with the feature
follows the schedule from 0 to 100%, and a TrueSkill drop beyond the threshold reverts the share and slows the
schedule, as the paper did.

The schedule and its revert rule are checked on hand-computed cases; the share is measured on real rollouts
(``RolloutWorker.collect`` with an untrained policy, one segment per version); the wiring is checked on a tiny
serial run with its real in-process evaluator.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from fivestack.game.patch import F_DOTA_LANE, F_RICH_CREEPS, F_TEAM_FRAME, PATCH_VERSION, patch_features
from fivestack.model.policy import Policy
from fivestack.system.annealing import Annealing, anneal_share, draw_features
from fivestack.runs.config import ConfigError, load_config
from fivestack.match.inference import Inference
from fivestack.system.rollout import RolloutWorker
from fivestack.system.rollout_hooks import GameFeatures
from fivestack.system.run_state import RunState
from fivestack.system.serial import SerialRunner


def anneal_config(**keys):
    return load_config(None, ["anneal.feature='rich_creeps'"] + [f"anneal.{k}={v}" for k, v in keys.items()]).anneal


# ---------------------------------------------------------------------------------------------- the schedule
def test_the_schedule_grows_linearly_from_its_anchor_to_one():
    assert anneal_share(0, 0, 0.0, 0.01) == 0.0
    assert anneal_share(50, 0, 0.0, 0.01) == pytest.approx(0.5)
    assert anneal_share(100, 0, 0.0, 0.01) == pytest.approx(1.0)
    assert anneal_share(250, 0, 0.0, 0.01) == 1.0  # at most 100%
    assert anneal_share(30, 40, 0.4, 0.005) == 0.4  # before its anchor: the anchor's share
    assert anneal_share(60, 40, 0.4, 0.005) == pytest.approx(0.5)
    a = Annealing.start(anneal_config(versions=100), version=200)  # a run operated on at version 200
    assert [a.share(v) for v in (200, 250, 300, 400)] == pytest.approx([0.0, 0.5, 1.0, 1.0])
    b = Annealing.start(anneal_config(versions=10, start_share=0.2), version=0)
    assert b.rate == pytest.approx(0.08) and b.share(5) == pytest.approx(0.6)


def test_draws_are_a_share_of_games_and_nothing_else():
    rng = np.random.default_rng(0)
    assert (draw_features(rng, 50, 0.0, F_RICH_CREEPS) == 0).all()
    assert (draw_features(rng, 50, 1.0, F_RICH_CREEPS) == F_RICH_CREEPS).all()
    assert set(draw_features(rng, 200, 0.5, 4).tolist()) == {0, 4}


# ---------------------------------------------------------------------------------------------- the revert rule
def test_a_drop_of_more_than_two_sigmas_reverts_the_share_and_halves_the_rate():
    """versions = 100 (rate 0.01 per version), drop_sigmas = 2, slowdown = 0.5; every number by hand."""
    a = Annealing.start(anneal_config(versions=100, drop_sigmas=2.0, slowdown=0.5), version=0)
    assert not a.on_rating(20, mu=10.0, sigma=1.0)  # the first rating is the best: 10 at share 0.2
    assert (a.best_mu, a.best_share) == (10.0, pytest.approx(0.2))
    assert not a.on_rating(40, mu=12.0, sigma=1.0)  # a better one: 12 at share 0.4
    assert (a.best_mu, a.best_share) == (12.0, pytest.approx(0.4))
    assert not a.on_rating(60, mu=10.5, sigma=1.0)  # 1.5 below the best: within 2 sigma (2.0)
    assert not a.on_rating(70, mu=9.5, sigma=1.5)  # 2.5 below, but 2 sigma is 3.0 here
    assert a.share(80) == pytest.approx(0.8) and a.reverts == 0
    assert a.on_rating(80, mu=9.5, sigma=1.0)  # 2.5 below > 2.0: revert to 0.4 (the best's share), rate 0.005
    assert (a.anchor_version, a.anchor_share, a.rate, a.reverts) == (80, pytest.approx(0.4), 0.005, 1)
    assert [a.share(v) for v in (80, 100, 120, 200)] == pytest.approx([0.4, 0.5, 0.6, 1.0])
    assert not a.on_rating(80, mu=9.0, sigma=1.0)  # still low, but the share is back at the best's: nothing to undo
    assert a.on_rating(100, mu=9.0, sigma=1.0)  # share 0.5 > 0.4 and 3.0 below: revert again, rate 0.0025
    assert (a.anchor_version, a.anchor_share, a.rate, a.reverts) == (100, pytest.approx(0.4), 0.0025, 2)
    assert a.share(140) == pytest.approx(0.5)
    assert not a.on_rating(140, mu=13.0, sigma=1.0)  # recovered: a new best, 13 at share 0.5
    assert (a.best_mu, a.best_share) == (13.0, pytest.approx(0.5))
    assert a.on_rating(160, mu=10.0, sigma=1.0)  # share 0.55: reverts to 0.5 now, rate 0.00125
    assert (a.anchor_share, a.rate) == (pytest.approx(0.5), 0.00125)


def test_an_early_drop_reverts_to_zero_and_a_rating_at_full_share_ends_annealing():
    a = Annealing.start(anneal_config(versions=10, drop_sigmas=1.0, slowdown=0.25), version=100)
    assert not a.on_rating(90, mu=-50.0, sigma=1.0)  # rated before annealing began: ignored
    assert a.best_mu is None
    assert not a.on_rating(100, mu=20.0, sigma=2.0)  # best 20 at share 0
    assert a.on_rating(104, mu=17.0, sigma=2.0)  # 3 > 1 x 2 below at share 0.4: back to 0, rate 0.1 -> 0.025
    assert (a.share(104), a.rate) == (0.0, 0.025)
    assert a.share(144) == pytest.approx(1.0)
    assert not a.on_rating(144, mu=21.0, sigma=2.0)  # at 100% and no drop: annealing is over
    assert a.finished and a.share(144) == 1.0
    assert not a.on_rating(150, mu=0.0, sigma=1.0)  # no revert once finished
    assert a.share(150) == 1.0 and a.reverts == 1


def test_the_schedule_resumes_from_the_run_state(tmp_path):
    config = anneal_config(versions=100, drop_sigmas=2.0, slowdown=0.5)
    a = Annealing.start(config, version=0)
    a.on_rating(20, 10.0, 1.0)
    a.on_rating(60, 5.0, 1.0)  # a revert: anchor 60 at 0.2, rate 0.005
    state = RunState.new(0, "serial")
    state.anneal = a.state_dict()
    saved = json.loads(json.dumps(state.to_json()))
    back = Annealing.from_state(config, RunState.from_json(saved, 0).anneal, version=500)
    assert back == a and back.share(100) == pytest.approx(0.4)
    other = load_config(None, ["anneal.feature='rich_creeps'", "anneal.versions=100"]).anneal
    assert Annealing.from_state(other, {**a.state_dict(), "feature": "something_else"}, 500).start_version == 500
    assert Annealing.from_state(load_config(None, []).anneal, a.state_dict(), 500) is None  # no feature: off


def test_config_keys_are_checked():
    with pytest.raises(ConfigError, match="anneal.feature must be"):
        load_config(None, ["anneal.feature='gold_rain'"])
    with pytest.raises(ConfigError, match="already in every game of patch 0.2"):
        load_config(None, ["anneal.feature='rich_creeps'", "game.patch='0.2'"])
    with pytest.raises(ConfigError, match="game.patch must be one of"):
        load_config(None, ["game.patch='9.9'"])
    with pytest.raises(ConfigError, match="anneal.slowdown"):
        load_config(None, ["anneal.slowdown=0"])
    with pytest.raises(ConfigError, match="anneal.start_share"):
        load_config(None, ["anneal.start_share=1.0"])


# ---------------------------------------------------------------------------------------------- real rollouts
VERSIONS = 8  # 0 -> 100% over 8 versions: 0, 0.125, ..., 1
BASE = patch_features(PATCH_VERSION)  # the default game's own features, in every game whether annealed or not


def test_the_share_of_rollout_games_with_the_feature_follows_the_schedule():
    """One segment per version of a 16-game 1v1 worker whose games last 1 s (8 steps), so each 32-step segment
    starts 64 games (the first also the 16 it began with). At share 0 no game has the feature, at 100% every
    one; between, the count is within 4 binomial standard deviations of n x share, and over all versions the
    total within 3. The masks the games really played with (``features`` of each finished game and of the games
    still running) add up to the draws."""
    config = load_config(None, ["game.mode='1v1'", "game.max_seconds=1.0", "rollout.games=16",
                                "rollout.segment_steps=32", "policy.lstm_size=16", "anneal.feature='rich_creeps'",
                                f"anneal.versions={VERSIONS}"])
    annealing = Annealing.start(config.anneal, version=0)
    worker = RolloutWorker(config, seed=4, feature_share=annealing.share(0))
    inference = Inference(Policy(config.policy), seed=0)
    shares, started, with_feature, played = [], [], [], 0
    for version in range(VERSIONS + 1):
        worker.feature_share = annealing.share(version)
        info = worker.collect(inference, team_spirit=0.3).info
        shares.append(worker.feature_share)
        started.append(info["games_started"])
        with_feature.append(info["games_with_feature"])
        played += sum(game["features"] == BASE | F_RICH_CREEPS for game in info["games"])
        assert {game["features"] for game in info["games"]} <= {BASE, BASE | F_RICH_CREEPS}
    assert shares == pytest.approx([v / VERSIONS for v in range(VERSIONS + 1)])
    assert started == [80] + [64] * VERSIONS
    assert with_feature[0] == 0 and with_feature[-1] == started[-1]
    assert (worker.env.game.features == BASE | F_RICH_CREEPS).all()  # the games running now began at 100%
    for n, k, p in zip(started, with_feature, shares):
        assert abs(k - n * p) <= 4 * math.sqrt(n * p * (1 - p)), (n, k, p)
    n, k, p = np.array(started), np.array(with_feature), np.array(shares)
    assert abs(k.sum() - (n * p).sum()) <= 3 * math.sqrt((n * p * (1 - p)).sum())
    assert played + int((worker.env.game.features == BASE | F_RICH_CREEPS).sum()) == k.sum()


def test_without_an_annealed_feature_no_game_has_it_and_nothing_is_drawn():
    config = load_config(None, ["game.mode='1v1'", "game.max_seconds=1.0", "rollout.games=4",
                                "rollout.segment_steps=16", "policy.lstm_size=16"])
    worker = RolloutWorker(config, seed=4, feature_share=1.0)  # a share without a feature does nothing
    info = worker.collect(Inference(Policy(config.policy), seed=0), team_spirit=0.3).info
    assert info["games_with_feature"] == 0 and info["games_started"] == 4 + len(info["games"]) > 4  # all counted
    assert all(game["features"] == BASE for game in info["games"]) and (worker.env.game.features == BASE).all()
    assert worker.feature_rng.bit_generator.state == np.random.default_rng([4, 0xFEA7]).bit_generator.state


# ---------------------------------------------------------------------------------------------- the serial runner
def replay_log(lines: list[dict], annealing: Annealing, collected_at: int) -> tuple[int, int]:
    """Check every segment's logged share against ``annealing`` fed the ratings logged before it, in order;
    returns (segments, ratings) seen. ``collected_at``: the version the first segment was collected at."""
    segments = ratings = 0
    for line in lines:
        if "eval/trueskill_mu" in line:
            annealing.on_rating(int(line["eval/rated_version"]), line["eval/trueskill_mu"],
                                line["eval/trueskill_sigma"])
            ratings += 1
        elif "anneal/share" in line:
            assert line["anneal/share"] == pytest.approx(annealing.share(collected_at))
            assert 0 <= line["anneal/games_with_feature"] <= line["anneal/games_started"] > 0
            assert line["anneal/reverts"] == annealing.reverts
            collected_at = line["version"]
            segments += 1
    return segments, ratings


def test_the_serial_runner_anneals_on_its_real_ratings_and_reverts_after_a_drop(tmp_path):
    """A tiny run rated every 2 versions by its in-process evaluator, annealing over 8 versions: every segment's
    logged share is the schedule's after the ratings logged before it (replayed from metrics.jsonl) and the
    checkpoint holds the schedule's state. Then its state is hand-set as if its best rating had been mu = 100
    and the run resumed: its next real rating (an untrained policy, near 0) is a drop, so the share goes back to
    0 and the rate halves (0.125 -> 0.0625 per version), and again at the rating after."""
    def config(max_versions: int):
        return load_config(None, [f"run.runs_dir='{tmp_path}'", "run.name='a'", "game.mode='1v1'",
                                  "game.max_seconds=2.0", "rollout.games=2", "rollout.segment_steps=32",
                                  "ppo.batch_samples=4", "ppo.steps_per_version=1", "policy.lstm_size=16",
                                  "run.torch_threads=1", "pool.past_fraction=0.0", "pool.add_every_versions=2",
                                  "eval.every_versions=2", "eval.in_process=true", "eval.games=2",
                                  "eval.calibration_games=2", "eval.max_seconds=10.0", "anneal.versions=8",
                                  f"run.max_versions={max_versions}", "anneal.feature='rich_creeps'"])

    runner = SerialRunner(config(4))
    runner.run()
    runner.close()
    metrics = runner.run_dir / "metrics.jsonl"
    lines = [json.loads(line) for line in metrics.read_text().splitlines()]
    replay = Annealing.start(config(4).anneal, version=0)
    assert replay_log(lines, replay, 0) == (2, 3)  # segments at versions 0 and 2; ratings of 0, 2 and 4
    assert replay.reverts == 0 and replay.share(4) == 0.5
    state_path = sorted((runner.run_dir / "checkpoints").iterdir())[-1] / "state.json"
    state = json.loads(state_path.read_text())
    assert state["anneal"] == replay.state_dict()

    state["anneal"]["best_mu"] = 100.0  # hand-set: the best rating since annealing began, at share 0
    state["anneal"]["best_share"] = 0.0
    state_path.write_text(json.dumps(state))
    resumed = SerialRunner(config(8), resume=runner.run_dir)
    assert resumed.annealing.best_mu == 100.0 and resumed.annealing.share(4) == 0.5
    resumed.run()
    resumed.close()
    replay = Annealing.from_state(config(8).anneal, state["anneal"], 4)
    later = [json.loads(line) for line in metrics.read_text().splitlines()][len(lines):]
    assert replay_log(later, replay, 4) == (2, 2)  # segments at versions 4 and 6; ratings of 6 and 8
    assert replay.reverts == 2 and replay.anchor_version == 8 and replay.anchor_share == 0.0
    assert replay.rate == pytest.approx(0.125 / 4)
    shares = [line["anneal/share"] for line in later if "anneal/share" in line]
    assert shares == [0.5, 0.0]  # at version 4 as before; at 6, after the revert of version 6's rating
    assert resumed.annealing == replay


def test_the_lane_of_patch_1_0_anneals_into_a_run_of_0_9():
    """``dota_lane`` is a rule like rich_creeps: a 0.9 run anneals it (new games get 0.9's team_frame plus the lane
    at the schedule's share), while the default patch, which has it in every game, refuses to anneal it."""
    config = load_config(None, ["game.patch='0.9'", "anneal.feature='dota_lane'"])
    hook = GameFeatures(config, seed=1, share=1.0)
    assert set(hook.draw(8).tolist()) == {F_TEAM_FRAME | F_DOTA_LANE}
    hook.share = 0.0
    assert set(hook.draw(8).tolist()) == {F_TEAM_FRAME}
    with pytest.raises(ConfigError, match="'dota_lane' is already in every game of patch 1.0"):
        load_config(None, ["anneal.feature='dota_lane'"])
