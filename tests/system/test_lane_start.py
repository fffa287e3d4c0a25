"""``rollout.lane_start`` (issue 30's stand-off): a share of new 1v1 training games begins with both heroes in the
mid lane, just ahead of their own tier-1 tower, instead of in their fountains (``rollout_hooks.LaneStart``)."""

import json
from pathlib import Path

import numpy as np
import pytest

from fivestack.game.geometry import FOUNTAIN
from fivestack.game.layout import X, Y
from fivestack.runs.config import ConfigError, load_config
from fivestack.system.drill_eval import do_nothing
from fivestack.system.drills import lane_start
from fivestack.system.metrics import lane_start_metrics
from fivestack.system.rollout import RolloutWorker
from fivestack.system.rollout_hooks import LaneStart
from fivestack.system.serial import SerialRunner

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
SMALL = ["rollout.games=4", "policy.lstm_size=16", "rollout.segment_steps=16", "clone.bot=''",
         "ppo.kl_weight=0", "ppo.kl_weight_end=0", "ppo.value_warmup_steps=0", "pool.bot_fraction=0"]
HEROES = (0, 5)  # the hero of each side in 1v1


def worker_of(*overrides, seed=2):
    return RolloutWorker(load_config(CONFIGS / "1v1.toml", [*SMALL, *overrides]), seed=seed)


def hero_xy(worker):
    """(games, side, 2) where each side's hero stands."""
    uf = worker.env.game.state.uf
    return np.stack([uf[:, h][:, [X, Y]] for h in HEROES], axis=1)


def test_every_new_game_starts_with_both_heroes_in_the_lane_and_is_observed_there():
    in_lane, at_home = worker_of("rollout.lane_start=1"), worker_of()
    for side in (0, 1):
        np.testing.assert_allclose(hero_xy(in_lane)[:, side], np.tile(lane_start(side), (4, 1)), atol=1e-3)
        # without it a hero starts near its fountain, thousands of units from the lane
        assert (np.hypot(*(hero_xy(at_home)[:, side] - lane_start(side)).T) > 3000).all()
        assert (np.hypot(*(hero_xy(at_home)[:, side] - FOUNTAIN[side]).T) < 1000).all()
    # the first observation is of the heroes where they stand: encoding it again changes nothing, and it is not
    # the fountain start's
    first = {k: v.copy() for k, v in in_lane.obs.items()}
    in_lane.env.observe_games(np.arange(4))
    for k in first:
        np.testing.assert_array_equal(first[k], in_lane.obs[k])
    assert any(not np.array_equal(first[k], at_home.obs[k]) for k in first)


def test_games_that_restart_in_a_segment_start_in_the_lane_too():
    # 2-second games: each of the 4 game slots restarts about twice in a 16-decision segment (4.3 game seconds)
    worker = worker_of("rollout.lane_start=1", "game.max_seconds=2")
    restarted = []
    original = LaneStart.new_games

    def look(hook, w, games):
        original(hook, w, games)
        restarted.append(hero_xy(w)[games].copy())

    hook = worker.hook(LaneStart)
    hook.new_games = lambda w, games: look(hook, w, games)
    batch = worker.collect(do_nothing, team_spirit=0.0)
    starts = np.concatenate(restarted)
    assert len(starts) >= 4  # every slot restarted at least once
    for side in (0, 1):
        np.testing.assert_allclose(starts[:, side], np.tile(lane_start(side), (len(starts), 1)), atol=1e-3)
    # every game begun (the first four and the restarts) began in the lane: the share logged is 1
    assert batch.info["games_started"] == batch.info["games_in_lane"] == 4 + len(starts)
    assert lane_start_metrics(batch.info) == {"games/lane_start": 1.0}


def test_a_share_starts_about_that_share_of_games_in_the_lane_with_its_own_draws():
    half, none = worker_of("rollout.lane_start=0.5"), worker_of()
    hook = half.hook(LaneStart)
    hook.games_in_lane = 0
    games = np.arange(4)
    for _ in range(100):
        hook.new_games(half, games)
    in_lane = hook.games_in_lane
    assert 170 <= in_lane <= 230  # 400 draws at 0.5: 200 +- 30 is beyond 3 standard deviations (10)
    assert lane_start_metrics({"games_started": 400, **hook.info(half)}) == {"games/lane_start": in_lane / 400}
    assert hook.info(half) == {"games_in_lane": 0}  # counts taken
    assert lane_start_metrics({"games_started": 0, "games_in_lane": 0}) == {}  # no new game: nothing logged
    # the worker's own random stream is untouched by the hook's draws: a run without it draws as before
    assert half.rng.bit_generator.state == none.rng.bit_generator.state
    with pytest.raises(LookupError, match="makes no LaneStart hook"):
        none.hook(LaneStart)


@pytest.mark.parametrize("overrides, words", [
    (["rollout.lane_start=1.5"], "rollout.lane_start must be"),
    (["rollout.lane_start=-0.1"], "rollout.lane_start must be"),
    (["rollout.lane_start=1", "asp.share=0.25", "policy.goal_inputs=6"], "asp.share"),
])
def test_config_rules_1v1(overrides, words):
    with pytest.raises(ConfigError, match=words):
        load_config(CONFIGS / "1v1.toml", [*SMALL, *overrides])


def test_config_rules_5v5_and_drills():
    with pytest.raises(ConfigError, match="game.mode='1v1'"):
        load_config(CONFIGS / "5v5.toml", ["rollout.lane_start=1"])
    with pytest.raises(ConfigError, match="drill.name"):
        load_config(CONFIGS / "drill-lasthit.toml", ["rollout.lane_start=1"])


@pytest.mark.parametrize("share, expected", [(1.0, {1.0}), (0.0, set())])
def test_a_serial_run_logs_the_share_of_its_games_begun_in_the_lane(tmp_path, share, expected):
    """Every segment's record holds ``games/lane_start`` (all of its games in the lane at a share of 1); a run
    without the option logs no such key."""
    config = load_config(CONFIGS / "1v1.toml", [*SMALL, f"run.runs_dir='{tmp_path}'", "run.name='lane'",
                                                "game.max_seconds=2.0", "rollout.games=2", "rollout.segment_steps=32",
                                                "ppo.batch_samples=4", "ppo.steps_per_version=1", "run.torch_threads=1",
                                                "eval.every_versions=0", "run.max_versions=2",
                                                f"rollout.lane_start={share}"])
    runner = SerialRunner(config)
    runner.run()
    runner.close()
    lines = [json.loads(line) for line in (runner.run_dir / "metrics.jsonl").read_text().splitlines()]
    segments = [r for r in lines if "throughput/agent_steps_per_s" in r]
    assert len(segments) == 2
    assert {r["games/lane_start"] for r in segments if "games/lane_start" in r} == expected
    assert all("games/lane_start" in r for r in segments) == bool(expected)
