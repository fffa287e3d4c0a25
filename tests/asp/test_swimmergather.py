"""SwimmerGather (``fivestack.asp.envs.swimmergather``): the MuJoCo swimmer steps and is reproducible by seed,
its location is MuJoCo's centre of mass, apples and bombs pay +1 / -1 once, Bob's 0.3 test, the sensors, the
missing-MuJoCo message, and one tiny self-play run through ``run_method`` with the hand-over plot."""

import numpy as np
import pytest

from fivestack.asp.envs import swimmergather as sg



@pytest.fixture
def mujoco():
    """MuJoCo itself; the test is skipped where it is not installed (CI installs it with the dev extra)."""
    return pytest.importorskip("mujoco")

STILL = 4 * 9 + 4            # both controls 0 (the middle bin)


def test_the_swimmer_moves_and_is_reproducible_by_seed(mujoco):
    def rollout(seed):
        env = sg.SwimmerGather(3)
        rng = np.random.default_rng(seed)
        env.reset(rng, np.array([True, False, True]))
        start = env.state.copy()
        for _ in range(4):
            env.step(rng.integers(0, sg.STOP, 3), np.ones(3, bool), np.array([True, False, True]))
        return start, env.state.copy()

    start, end = rollout(7)
    start_again, end_again = rollout(7)
    np.testing.assert_array_equal(start, start_again)
    np.testing.assert_array_equal(end, end_again)
    assert not np.array_equal(rollout(8)[1], end)
    assert np.abs(end[:, sg.QPOS] - start[:, sg.QPOS]).max() > 0.1        # the joints bent, the body moved
    assert (start[[0, 2], sg.OBJECTS].reshape(2, -1, 3)[..., 2] != 0).all()  # target rows: 16 objects
    assert (start[1, sg.OBJECTS] == 0).all()                                 # self-play: none


def test_location_is_mujocos_centre_of_mass_and_rows_not_moving_stay(mujoco):
    env = sg.SwimmerGather(2)
    qpos = np.array([0.3, -0.2, 0.7, 0.5, -1.2])
    states = env.state.copy()
    states[0, sg.QPOS] = qpos
    env.set_state(states, np.array([True, False]))
    np.testing.assert_allclose(sg.location(qpos), env.data[0].subtree_com[1][:2], atol=1e-9)
    before = env.state.copy()
    env.step(np.array([0, 80]), np.array([True, False]), np.zeros(2, bool))
    np.testing.assert_array_equal(env.state[1], before[1])
    mujoco.mj_forward(env.model, env.data[0])          # subtree_com is computed before a step integrates
    np.testing.assert_allclose(sg.location(env.state[0, sg.QPOS]), env.data[0].subtree_com[1][:2], atol=1e-9)


def _with_object(env, kind, offset):
    """One object of ``kind`` at the swimmer's location + offset, nothing else."""
    states = env.state.copy()
    states[:, sg.OBJECTS] = 0.0
    loc = sg.location(states[0, sg.QPOS])
    states[0, 10:13] = [loc[0] + offset[0], loc[1] + offset[1], kind]
    env.set_state(states, np.ones(env.n, bool))


@pytest.mark.parametrize("kind", [1.0, -1.0])
def test_an_apple_pays_plus_one_and_a_bomb_minus_one_once(mujoco, kind):
    env = sg.SwimmerGather(1)
    _with_object(env, kind, (0.5, 0.0))
    reward, reached, ended = env.step(np.array([STILL]), np.ones(1, bool), np.ones(1, bool))
    assert reward[0] == kind and not reached[0] and not ended[0]
    assert env.state[0, 12] == 0.0                                          # eaten: gone
    reward, _, _ = env.step(np.array([STILL]), np.ones(1, bool), np.ones(1, bool))
    assert reward[0] == 0.0


def test_an_object_out_of_reach_or_a_self_play_row_pays_nothing(mujoco):
    env = sg.SwimmerGather(1)
    _with_object(env, 1.0, (2.5, 0.0))
    reward, _, _ = env.step(np.array([STILL]), np.ones(1, bool), np.ones(1, bool))
    assert reward[0] == 0.0 and env.state[0, 12] == 1.0
    _with_object(env, 1.0, (0.5, 0.0))
    reward, _, _ = env.step(np.array([STILL]), np.ones(1, bool), np.zeros(1, bool))   # not a target row
    assert reward[0] == 0.0


def test_bob_succeeds_within_0_3_of_the_goal_location(mujoco):
    goal = np.zeros((3, sg.STATE_DIM))
    goal[:, sg.QPOS] = [1.0, 2.0, 0.4, 0.3, -0.2]
    states = goal.copy()
    states[0, :2] += [0.2, 0.2]          # 0.28 away
    states[1, :2] += [0.25, 0.2]         # 0.32 away
    states[2, 3:5] = [-1.0, 1.0]         # same root, bent body: the centre of mass moved
    env = sg.SwimmerGather(3)
    ok = env.success(states, goal)
    assert ok[0] and not ok[1]
    moved = np.linalg.norm(sg.location(states[2, sg.QPOS]) - sg.location(goal[2, sg.QPOS]))
    assert ok[2] == (moved < 0.3)


def test_sensors_see_the_nearest_object_ahead_and_not_behind():
    s = np.zeros(sg.STATE_DIM)
    loc = sg.location(s[sg.QPOS])                       # heading 0: ahead is +x
    s[10:13] = [loc[0] + 3.0, loc[1] + 0.01, 1.0]       # an apple 3 ahead
    s[13:16] = [loc[0] + 1.5, loc[1] - 0.01, 1.0]       # a nearer apple in the neighbouring bin
    s[16:19] = [loc[0] - 2.0, loc[1], -1.0]             # a bomb behind
    reading = sg.sensors(s)
    assert reading[5] == pytest.approx(1 - 3.0 / 6, abs=1e-3)
    assert reading[4] == pytest.approx(1 - 1.5 / 6, abs=1e-3)
    assert reading[sg.SENSOR_BINS:].sum() == 0.0


def test_the_missing_mujoco_message_names_the_install():
    message = sg.missing_mujoco_message(ImportError("No module named 'mujoco'"))
    assert "pip install mujoco" in message and "No module named 'mujoco'" in message
    assert "pip install mujoco" in sg.missing_mujoco_message()


def test_load_mujoco_returns_the_module(mujoco):
    assert sg.load_mujoco() is mujoco


def test_a_tiny_self_play_run_records_where_alice_hands_over(mujoco, tmp_path):
    import dataclasses

    from fivestack.asp.selfplay import train
    cfg = dataclasses.replace(sg.config(), batch=10, t_max=30, eval_episodes=1, eval_every=1)
    env = sg.SwimmerGather(10, t_max_target=10)           # short episodes: a smoke run of the whole loop
    curves, _ = train(env, "self_play", cfg, 1, 1, np.random.default_rng(0))
    h = env.run_extras()["handovers"]
    assert len(h["ahead"]) == len(h["left"]) == len(h["batch"]) == 9      # the 9 self-play rows of a batch
    assert np.mean(curves.alice["t_a"]) >= 1 and len(curves.reward) == 2
    assert np.mean(np.hypot(h["ahead"], h["left"])) == pytest.approx(curves.alice["distance"][0][0], abs=1e-2)
    res = {"handovers": h}
    results = {"env": "swimmergather", "seeds": 1, "methods": {"self_play": res}}
    sg.plot_handovers(results, tmp_path / "alice.png")
    assert (tmp_path / "alice.png").stat().st_size > 5_000
