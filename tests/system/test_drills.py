"""Issue 30's drills: each scenario is what it says, on hand-set states (``fivestack/system/drills.py``)."""

from pathlib import Path

import numpy as np
import pytest

from fivestack.game.engine import no_orders
from fivestack.game.geometry import BUILDING_POS, RIVER_HALF_WIDTH
from fivestack.game.layout import CELL, MAP_SIZE, N_HEROES, X, Y
from fivestack.runs.config import ConfigError, load_config
from fivestack.system.drill_eval import do_nothing, drill_success
from fivestack.system.drills import ARRIVAL_REWARD, DISTANCE_SCALE, POSITION_SCALE, cell_of, clear_line
from fivestack.system.rollout import RolloutWorker
from fivestack.system.rollout_hooks import Drill

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "drill-walk.toml"
SMALL = ["rollout.games=4", "policy.lstm_size=16", "rollout.segment_steps=16"]
HEROES = (0, 5)  # the hero of each side in 1v1


def walk_config(*overrides):
    return load_config(CONFIG, [*SMALL, *overrides])


def drill_worker(*overrides, seed=3):
    worker = RolloutWorker(walk_config(*overrides), seed=seed)
    hook = worker.hook(Drill)
    return worker, hook, hook.drill


def place(worker, game, side, x, y):
    worker.env.game.state.uf[game, HEROES[side], X] = x
    worker.env.game.state.uf[game, HEROES[side], Y] = y


def check_point(drill, walk, game, side, x, y):
    px, py = drill.points[game, side]
    d = np.hypot(px - x, py - y)
    assert drill.config.min_distance <= d <= drill.config.max_distance, (game, side, d)
    cell = cell_of(px, py)
    assert walk[cell] != 0
    start = (np.array(cell_of(x, y)) + 0.5) * CELL
    assert clear_line(walk, *start, np.array([px]), np.array([py]))[0]  # one straight walk from where it stands
    across = (MAP_SIZE - px - py) / np.sqrt(2.0)
    assert (across if side == 0 else -across) >= RIVER_HALF_WIDTH  # its own side, out of the river
    assert np.hypot(*(BUILDING_POS[1 - side] - (px, py)).T).min() >= 1500.0


def test_marked_points_are_walkable_reachable_and_in_range():
    worker, _, drill = drill_worker()
    walk = worker.env.game.data.walk
    uf = worker.env.game.state.uf
    for g in range(4):  # the games' first points, from the fountain
        for side in (0, 1):
            check_point(drill, walk, g, side, uf[g, HEROES[side], X], uf[g, HEROES[side], Y])
    assert len({tuple(p) for p in drill.points.reshape(-1, 2)}) > 4  # drawn, not one fixed point
    for x, y in ((3000.0, 1500.0), (1500.0, 6000.0), (5000.0, 5000.0)):  # hand-set heroes elsewhere on side 0
        place(worker, 1, 0, x, y)
        place(worker, 1, 1, MAP_SIZE - x, MAP_SIZE - y)
        for _ in range(5):
            drill.begin_games(worker.env, np.array([1]))
            check_point(drill, walk, 1, 0, x, y)
            check_point(drill, walk, 1, 1, MAP_SIZE - x, MAP_SIZE - y)


def test_clear_line_leaves_out_points_behind_a_wall():
    walk = np.ones((125, 125), np.uint8)
    walk[10, 0:20] = 0  # a wall across x in [1280, 1408), for y below 2560
    x, y = 500.0, 500.0
    px, py = np.array([2000.0, 1500.0, 900.0]), np.array([500.0, 3500.0, 2000.0])
    # straight through the wall; over its end (the line passes x = 1280..1408 at y > 2560); on this side of it
    assert clear_line(walk, x, y, px, py).tolist() == [False, True, True]


@pytest.mark.parametrize("patch, turn", [("0.1", 1), ("0.9", -1)])  # 0.9: Dire reads the goal's offset turned
def test_goal_input_is_the_hand_computed_one(patch, turn):
    worker, _, drill = drill_worker("drill.seconds=10", f"game.patch='{patch}'")
    place(worker, 2, 0, 1234.0, 2345.0)
    place(worker, 2, 1, 14000.0, 13000.0)
    drill.points[2] = [[4000.0, 3000.0], [11000.0, 14500.0]]
    steps = 15
    for _ in range(steps):
        worker.env.step(no_orders(4, N_HEROES))
    place(worker, 2, 0, 1234.0, 2345.0)  # where the hero is when the goal input is read
    place(worker, 2, 1, 14000.0, 13000.0)
    left = 1.0 - worker.env.game.seconds[2] / 10.0
    assert 0.7 < left < 0.9
    goal = worker._view()["goal"]
    assert goal.shape == (8, 1, 6)
    np.testing.assert_allclose(goal[4, 0], [1, (4000 - 1234) / 2000, (3000 - 2345) / 2000, 0, 0, left], rtol=1e-5)
    np.testing.assert_allclose(goal[5, 0], [1, turn * -3000 / 2000, turn * 1500 / 2000, 0, 0, left], rtol=1e-5)
    assert POSITION_SCALE == 2000.0


def test_arrival_ends_the_heros_episode_with_the_bonus_and_the_game_once_both_are_done():
    worker, hook, drill = drill_worker()
    before = drill.distance[0].copy()
    (p0x, p0y), (p1x, p1y) = drill.points[0]
    place(worker, 0, 0, p0x + 100.0, p0y - 200.0)  # 224 < 300: arrived
    place(worker, 0, 1, p1x + 400.0, p1y)  # 400 > 300: not yet
    reward = np.zeros((8, 1), np.float32)
    none = np.zeros(4, bool)
    terminated, truncated = hook.after_decision(worker, reward, none.copy(), none.copy())
    d0 = np.hypot(100.0, 200.0)
    assert reward[0, 0] == pytest.approx((before[0] - d0) / DISTANCE_SCALE + ARRIVAL_REWARD, rel=1e-5)
    assert reward[1, 0] == pytest.approx((before[1] - 400.0) / DISTANCE_SCALE, rel=1e-5)  # no bonus
    assert not terminated.any() and not truncated.any()  # the other hero is still walking
    assert drill.running[0].tolist() == [False, True]
    goal = worker._view()["goal"]
    np.testing.assert_array_equal(goal[0], 0.0)  # done: no goal (flag 0), nothing left to earn
    assert goal[1, 0, 0] == 1.0
    np.testing.assert_array_equal(reward[2:], 0.0)  # the other games' heroes did not move
    # the hero that arrived earns nothing more; the other arrives: +1 and the game ends, terminated
    place(worker, 0, 0, p0x + 2000.0, p0y)
    place(worker, 0, 1, p1x, p1y + 50.0)
    reward[:] = 0.0
    terminated, truncated = hook.after_decision(worker, reward, none.copy(), none.copy())
    assert reward[0, 0] == 0.0
    assert reward[1, 0] == pytest.approx((400.0 - 50.0) / DISTANCE_SCALE + ARRIVAL_REWARD, rel=1e-5)
    assert terminated.tolist() == [True, False, False, False] and not truncated.any()
    metrics = hook.info(worker)["drill"]
    assert metrics["drill/episodes"] == 2 and metrics["drill/reached"] == 2 and metrics["drill/success"] == 1.0
    assert hook.info(worker)["drill"]["drill/episodes"] == 0  # counters taken


def test_the_figure_reads_the_way_walked_and_what_was_left():
    """A hero that walks a dog-leg to its point (detour: the way walked over the straight distance at the start)
    and one that times out 500 units short: the walk figure says so, successes and failures apart."""
    worker, hook, drill = drill_worker("drill.seconds=1.0")
    drill.record = True
    none = np.zeros(4, bool)
    reward = np.zeros((8, 1), np.float32)
    (px, py) = drill.points[0, 0]
    x0, y0 = drill.last_position[0, 0]
    start = drill.start_distance[0, 0]
    assert start == pytest.approx(np.hypot(px - x0, py - y0))
    place(worker, 0, 0, px, y0)                                      # first along x, then along y
    hook.after_decision(worker, reward, none.copy(), none.copy())
    place(worker, 0, 0, px, py)
    (qx, qy) = drill.points[0, 1]
    place(worker, 0, 1, qx + 500.0, qy)
    for _ in range(8):                                               # past the second: side 1 times out
        worker.env.step(no_orders(4, N_HEROES))
    hook.after_decision(worker, reward, none.copy(), none.copy())
    mine = [o for o in drill.records() if o[0] == 0]
    figure = drill.figure(mine)
    assert figure["reached"] == 1 and figure["episodes"] == 2
    walked = abs(px - x0) + abs(py - y0)
    assert figure["successes"]["detour"] == pytest.approx(walked / start, abs=0.006)
    assert figure["successes"]["distance_left"] == 0.0
    assert figure["failures"]["distance_left"] == pytest.approx(500.0, abs=0.05)


def test_distance_reward_is_the_potential_difference_both_ways():
    worker, hook, drill = drill_worker()
    (px, py) = drill.points[1, 0]
    none = np.zeros(4, bool)
    for d_then, d_now in ((4000.0, 3500.0), (3500.0, 3800.0)):
        place(worker, 1, 0, px - d_then, py)
        reward = np.zeros((8, 1), np.float32)
        hook.after_decision(worker, reward, none.copy(), none.copy())  # the distance is now d_then
        place(worker, 1, 0, px - d_now, py)
        reward[:] = 0.0
        hook.after_decision(worker, reward, none.copy(), none.copy())
        assert reward[2, 0] == pytest.approx((d_then - d_now) / DISTANCE_SCALE, abs=1e-6)
    assert drill.running[1, 0]


def test_time_out_and_the_games_own_end_are_failures():
    worker, hook, drill = drill_worker("drill.seconds=1.0")
    none = np.zeros(4, bool)
    reward = np.zeros((8, 1), np.float32)
    worker.env.step(no_orders(4, N_HEROES))
    ended = none.copy()
    ended[3] = True  # the game's own rules end game 3 now
    terminated, _ = hook.after_decision(worker, reward, ended, none.copy())
    assert terminated.tolist() == [False, False, False, True]
    assert not drill.running[3].any() and drill.running[:3].all()
    for _ in range(8):  # 8 x 0.133 s: past the second
        worker.env.step(no_orders(4, N_HEROES))
    terminated, _ = hook.after_decision(worker, reward, ended, none.copy())
    assert terminated.all()
    metrics = hook.info(worker)["drill"]
    assert metrics["drill/episodes"] == 8 and metrics["drill/reached"] == 0


def test_new_game_restarts_the_episode():
    worker, hook, drill = drill_worker()
    drill.running[0] = False
    worker.env.reset_games(np.array([0]), np.array([99], np.uint64))
    hook.new_games(worker, np.array([0]))
    assert drill.running[0].all()
    assert worker._view()["goal"][0, 0, 5] == pytest.approx(1.0)


def test_do_nothing_reaches_nothing_and_the_rollout_carries_the_drill():
    config = walk_config("drill.seconds=3.0")
    result = drill_success(do_nothing, config, episodes=8, seed=5)
    assert result["episodes"] == 8 and result["reached"] == 0 and result["success"] == 0.0
    worker = RolloutWorker(config, seed=1)
    batch = worker.collect(do_nothing, team_spirit=0.0)
    assert batch.info["drill"]["drill/episodes"] == 8  # 16 decisions of 2 steps: one 3-second episode per hero
    assert (batch.obs["goal"][..., 0] == 1).all()
    np.testing.assert_allclose(batch.returns, 0.0, atol=1e-6)  # standing still earns nothing


def test_eval_counts_the_first_episodes_of_each_slot():
    config = walk_config("drill.seconds=2.0")
    result = drill_success(do_nothing, config, episodes=70, seed=5)
    assert result["episodes"] == 72  # 2 episodes of each of 18 slots, 2 heroes each: at least 70


@pytest.mark.parametrize("overrides, key", [
    (["drill.name='run'"], "drill.name"),
    (["game.mode='5v5'"], "game.mode"),
    (["policy.goal_inputs=0"], "policy.goal_inputs"),
    (["asp.share=0.25"], "asp.share"),
    (["pool.bot_fraction=0.3"], "pool.bot_fraction"),
    (["pool.past_fraction=0.2"], "pool.past_fraction"),
    (["drill.max_distance=2000"], "drill.max_distance"),
    (["drill.min_distance=200"], "drill.min_distance"),
    (["drill.seconds=700"], "drill.seconds"),
    (["drill.radius=0"], "drill.radius"),
    (["drill.miss_penalty=0.5"], "drill.miss_penalty"),  # the last-hit drill's reward, not the walk's
    (["drill.death_penalty=1"], "drill.death_penalty"),
])
def test_config_rules_name_the_key(overrides, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        load_config(CONFIG, overrides)


def test_the_drill_config_trains_from_scratch():
    config = load_config(CONFIG)
    assert config.drill.name == "walk" and config.clone.bot == "" and config.ppo.kl_weight == 0
    assert config.pool.bot_fraction == 0 and config.pool.past_fraction == 0
    assert load_config().drill.name == ""  # off by default
    assert CELL == 128.0


def test_the_benchmark_measures_a_finished_run_again_as_it_measured_it_at_the_end(tmp_path):
    """``benchmarks/drills.py --run RUN`` trains nothing and measures the run's latest policy with the run's own
    config: on the same episodes (``--eval-seed``) it reads the figure the training invocation printed, and the
    mistakes (another drill, ``--set`` beside ``--run``, a folder that is not a run) are one clear line each."""
    import json
    import os
    import subprocess
    import sys

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "drills.py"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}

    def bench(*args):
        return subprocess.run([sys.executable, str(script), "--episodes", "8", *args], capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=600)

    trained = bench("--drill", "lasthit", "--agent-steps", "2000", "--runs-dir", "runs", "--set", "run.torch_threads=1",
                    "--set", "drill.seconds=45.0", "--set", "ppo.batch_samples=4", "--set", "ppo.steps_per_version=2",
                    *[a for item in SMALL for a in ("--set", item)])
    assert trained.returncode == 0, trained.stderr[-3000:]
    first = json.loads(trained.stdout.strip().splitlines()[-1])
    assert first["trained"] != first["untrained"]  # a figure that reads the weights (the learner last-hits)
    again = bench("--drill", "lasthit", "--run", first["run"])
    assert again.returncode == 0, again.stderr[-3000:]
    second = json.loads(again.stdout.strip().splitlines()[-1])
    assert second["version"] == first["version"] > 0 and second["budget_agent_steps"] == 0
    for player in ("trained", "untrained", "do_nothing"):
        assert second[player] == first[player], player
    assert second["during_training"] == first["during_training"]  # the run's own curve

    other = bench("--drill", "walk", "--run", first["run"])
    assert other.returncode != 0 and "trained drill 'lasthit', not 'walk'" in other.stderr
    with_set = bench("--drill", "lasthit", "--run", first["run"], "--set", "ppo.clip=0.1")
    assert with_set.returncode != 0 and "drop --set" in with_set.stderr
    missing = bench("--drill", "lasthit", "--run", str(tmp_path / "nope"))
    assert missing.returncode != 0 and "not a run folder" in missing.stderr and "bot name" not in missing.stderr
