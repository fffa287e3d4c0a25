"""MountainCar: our batched dynamics are Gymnasium's; Bob's distance test; the Gymnasium wrapper plays."""

import numpy as np
from gymnasium.envs.classic_control.continuous_mountain_car import Continuous_MountainCarEnv

from fivestack.asp.envs.mountaincar import FORCES, MountainCar, gym_mountaincar
from fivestack.asp.policy import MLPPolicy
from fivestack.asp.selfplay import ASPConfig, play


def test_batched_dynamics_follow_gymnasium():
    rng = np.random.default_rng(0)
    gym_env = Continuous_MountainCarEnv()
    gym_env.reset(seed=0)
    ours = MountainCar(1)
    ours.state = np.asarray(gym_env.state, np.float64)[None].copy()
    for _ in range(300):
        a = int(rng.integers(0, len(FORCES)))
        gym_env.step(np.array([FORCES[a]], np.float32))
        ours.step(np.array([a]), np.array([True]), np.array([False]))
        np.testing.assert_allclose(ours.state[0], gym_env.state, atol=2e-4)


def test_bob_succeeds_within_0_2_of_alice():
    env = MountainCar(3)
    alice = np.array([[-0.5, 0.0]] * 3)
    bob = np.array([[-0.35, 0.01], [-0.29, 0.0], [-0.5, 0.0]])
    np.testing.assert_array_equal(env.success(bob, alice), [True, False, True])


def test_target_task_pays_one_at_the_top():
    env = MountainCar(2)
    env.state = np.array([[0.44, 0.02], [0.0, 0.0]])
    reward, reached, _ = env.step(np.array([4, 4]), np.array([True, True]), np.array([True, True]))
    np.testing.assert_array_equal(reached, [True, False])
    np.testing.assert_array_equal(reward, [1.0, 0.0])


def test_gymnasium_wrapper_runs_repeat_self_play():
    env = gym_mountaincar(4, t_max_target=40)
    rng = np.random.default_rng(0)
    cfg = ASPConfig(mode="repeat", gamma=0.01, t_max=40)
    pol = lambda: MLPPolicy(1, 5, env.num_actions, (8,), 0.01, rng)  # noqa: E731
    ep = play(env, pol(), pol(), np.array([False, False, True, True]), cfg, rng, seeds=1)
    assert (ep.t_a[:2] >= 1).all() and (ep.t_a[2:] == 0).all()
    # Bob's first state in repeat mode is s_0 again (the wrapper restored it)
    first_bob = np.argmax(ep.player == 1, axis=0)
    for i in range(2):
        if ep.t_b[i] > 0:
            np.testing.assert_allclose(ep.states[first_bob[i], i], ep.s0[i], atol=1e-6)
