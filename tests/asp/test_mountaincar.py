"""MountainCar in its two variants.

The paper's car (RLLab's damped Box2D car, ``box2d_car`` + ``RLLabMountainCar``): the damping against a
trajectory worked out by hand and against what Box2D itself measured, random actions never at the top, a
velocity-sensitive success test, the authors' setup. The Gymnasium variant (``MountainCar``): our batched
dynamics are Gymnasium's; Bob's distance test; the Gymnasium wrapper plays."""

import math

import numpy as np
from gymnasium.envs.classic_control.continuous_mountain_car import Continuous_MountainCarEnv

from fivestack.asp.envs import box2d_car
from fivestack.asp.envs.mountaincar import (EPISODES, FORCES, GYM_VARIANT, MountainCar, RLLabMountainCar, config,
                                            gym_mountaincar, make)
from fivestack.asp.experiments import env_module
from fivestack.asp.policy import MLPPolicy
from fivestack.asp.selfplay import ALICE, SelfPlayConfig, play, policy_input

# --- the paper's car ---


def test_damping_follows_a_hand_computed_trajectory():
    # From (x, x-dot) = (0, 1), no force. Step 1, at the valley bottom h' = 0 and k = 1:
    #   a = -DAMPING * 1 = -0.5;  v = 1 - 0.05 * 0.5 = 0.975;  friction 0.05 * 0.006 * 10 / 1 = 0.003 -> 0.972;
    #   x = 0 + 0.05 * 0.972 = 0.0486.
    # Step 2, at x = 0.0486: h' = (pi/2) sin(0.0763407) = 0.1197997, h'' = (pi^2/4) cos(0.0763407) = 2.4602164,
    #   k = 1.0143519;  a = (-10 h' - h' h'' 0.972^2) / (1.1 k) - 0.5 * 0.972 = -1.8092666;
    #   v = 0.972 - 0.05 * 1.8092666 = 0.8815367, less friction 0.003 / k = 0.0029576 -> 0.8785791;
    #   x = 0.0486 + 0.05 * 0.8785791 = 0.0925290.
    x, v = box2d_car.step(np.array([0.0]), np.array([1.0]), np.array([0.0]))
    np.testing.assert_allclose([x[0], v[0]], [0.0486, 0.972], atol=1e-9)
    x, v = box2d_car.step(x, v, np.array([0.0]))
    np.testing.assert_allclose([x[0], v[0]], [0.0925290, 0.8785791], atol=2e-6)


def _coast(x, v, steps):
    out = []
    for _ in range(steps):
        x, v = box2d_car.step(x, v, 0.0)
        out.append((x, v))
    return np.array(out)


def test_damping_matches_the_box2d_world():
    # Measured in RLLab's world rebuilt in pybox2d 2.3.10 (see box2d_car's docstring): from the state after
    # Box2D's first step, (0.021, 0.854), peak |x-dot| per 25 steps was 0.75 0.54 0.37 0.21 0.14 0.03 0, and
    # from (0, 1) |x-dot| stayed below 0.01 after step 140.
    tr = _coast(0.021, 0.854, 175)
    peaks = [np.abs(tr[i:i + 25, 1]).max() for i in range(0, 175, 25)]
    np.testing.assert_allclose(peaks, [0.75, 0.54, 0.37, 0.21, 0.14, 0.03, 0.0], atol=0.06)
    tr = _coast(0.0, 1.0, 400)
    still = np.flatnonzero(np.abs(tr[:, 1]) >= 0.01)[-1] + 1
    assert 120 <= still <= 170                     # "a velocity of 1 dies out in about 150 steps"
    assert np.abs(tr[-1, 1]) == 0.0                # and then the car stands (friction)
    assert tr[:, 0].max() < 0.25                   # it never gets far up the slope


def test_a_constant_push_settles_where_gravity_along_the_track_balances_it():
    x, v = 0.0, 0.0
    for _ in range(400):
        x, v = box2d_car.step(x, v, 1.0)
    # sin(theta) = F / (M G) = 0.25, tan(theta) = h'(x)  ->  x = 0.105 (Box2D: 0.102)
    assert v == 0.0 and abs(x - 2 / math.pi * math.asin(math.tan(math.asin(0.25)) / (math.pi / 2))) < 0.003


def test_uniform_random_actions_never_reach_the_top_in_2000_episodes():
    env = RLLabMountainCar(2000)
    rng = np.random.default_rng(0)
    target = np.ones(env.n, bool)
    env.reset(rng, target)
    reached = np.zeros(env.n, bool)
    for _ in range(500):
        _, r, _ = env.step(rng.integers(0, len(FORCES), env.n), np.ones(env.n, bool), target)
        reached |= r
    assert reached.sum() == 0


def test_pushing_with_the_velocity_reaches_the_top_within_100_steps():
    env = RLLabMountainCar(64)
    rng = np.random.default_rng(1)
    target = np.ones(env.n, bool)
    env.reset(rng, target)
    done = np.zeros(env.n, bool)
    for _ in range(100):
        a = np.where(env.state[:, 1] >= 0, len(FORCES) - 1, 0)           # full force along x-dot
        _, r, ended = env.step(a, ~done, target)
        done |= r
    assert done.all()


def test_start_reward_and_ends_as_rllab():
    env = RLLabMountainCar(1000)
    env.reset(np.random.default_rng(0), np.zeros(1000, bool))
    assert (env.state[:, 0] == 0).all()
    v = env.state[:, 1]
    assert -1 <= v.min() < -0.95 and 0.95 < v.max() <= 1 and abs(v.mean()) < 0.05
    env = RLLabMountainCar(3)
    env.state = np.array([[0.59, 1.0], [-1.99, -1.0], [0.0, 1.0]])
    reward, reached, ended = env.step(np.array([4, 0, 2]), np.ones(3, bool), np.ones(3, bool))
    np.testing.assert_array_equal(reward, [1, 0, 0])
    np.testing.assert_array_equal(reached, [True, False, False])
    np.testing.assert_array_equal(ended, [True, True, False])          # the top, and |x| >= 2


def test_bob_succeeds_within_0_2_in_the_cars_own_units_so_velocity_counts():
    env = RLLabMountainCar(4)
    alice = np.array([[0.3, 0.0]] * 4)
    bob = np.array([[0.3, 0.1], [0.3, 0.25], [0.45, 0.1], [0.05, 0.0]])
    np.testing.assert_array_equal(env.success(bob, alice), [True, False, True, False])


def test_the_authors_setup():
    cfg = config()
    assert (cfg.mode, cfg.t_max, cfg.batch, cfg.target_share, cfg.lr, cfg.gamma) == ("repeat", 500, 128, 0.1,
                                                                                     0.003, 0.01)
    assert cfg.bob_must_act and cfg.time_input and cfg.hidden == (50, 50)
    assert EPISODES == 6_400                        # 50 epochs x 10 batches x 128 episodes, 10% target
    env = make(2)
    assert env.num_actions == 6 and env.t_max_target == 500              # 5 force bins + STOP, 500 steps
    np.testing.assert_allclose(FORCES, [-1, -0.5, 0, 0.5, 1])
    # input: (x, x-dot), the goal (zero on the target task), the mode flag, t / t_max
    states, goals = np.array([[0.1, -0.5], [0.2, 0.3]]), np.array([[0.4, 0.9], [0.4, 0.9]])
    x = policy_input(env, cfg, states, goals, np.array([0.0, 1.0]), 100 / 500)
    np.testing.assert_allclose(x, [[0.1, -0.5, 0.4, 0.9, 0.0, 0.2], [0.2, 0.3, 0.0, 0.0, 1.0, 0.2]], atol=1e-6)


def test_self_play_on_the_paper_car_runs_and_bob_acts_at_least_once():
    env = RLLabMountainCar(8, t_max_target=30)
    rng = np.random.default_rng(0)
    cfg = SelfPlayConfig(mode="repeat", gamma=0.01, t_max=30, bob_must_act=True, time_input=True)
    pol = lambda: MLPPolicy(1, 6, env.num_actions, (8,), 0.01, rng)  # noqa: E731
    ep = play(env, pol(), pol(), np.array([False] * 6 + [True] * 2), cfg, rng, seeds=1)
    assert (ep.t_a[:6] >= 1).all() and (ep.t_b[:6] >= 1).all() and (ep.t_a[6:] == 0).all()


def test_both_variants_are_named_environments():
    assert env_module("mountaincar").make(2).__class__ is RLLabMountainCar
    assert env_module("mountaincar_gym") is GYM_VARIANT and GYM_VARIANT.make(2).__class__ is MountainCar


# --- the Gymnasium variant ---

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
    cfg = SelfPlayConfig(mode="repeat", gamma=0.01, t_max=40)
    pol = lambda: MLPPolicy(1, 5, env.num_actions, (8,), 0.01, rng)  # noqa: E731
    ep = play(env, pol(), pol(), np.array([False, False, True, True]), cfg, rng, seeds=1)
    assert (ep.t_a[:2] >= 1).all() and (ep.t_a[2:] == 0).all()
    # Bob's first state in repeat mode is s_0 again (the wrapper restored it)
    first_bob = np.argmax(ep.player == 1, axis=0)
    for i in range(2):
        if ep.t_b[i] > 0:
            np.testing.assert_allclose(ep.states[first_bob[i], i], ep.s0[i], atol=1e-6)



class _FixedStartCar(RLLabMountainCar):
    def __init__(self, starts):
        super().__init__(len(starts))
        self.starts = np.array(starts, float)

    def reset(self, rng, target):
        self.state = self.starts.copy()


class _PushWithVelocity:
    """Alice: full force along x-dot (to the top in 82 actions from rest), STOP after ``stop_after[row]`` pushes."""

    def __init__(self, stop_after):
        self.stop_after, self.calls = np.array(stop_after), 0

    def act(self, x, rng, stop_allowed, greedy=False):
        self.calls += 1
        push = np.where(x[:, 1] >= 0, len(FORCES) - 1, 0)
        return np.where(self.calls > self.stop_after, len(FORCES), push), np.zeros(len(x))


class _NeverMoves:
    def act(self, x, rng, stop_allowed, greedy=False):
        return np.full(len(x), len(FORCES)), np.zeros(len(x))


def _episode_at_the_top(alice_ended_is_task):
    # Both rows start at rest in the valley. Row 0: Alice pushes until the car passes x = 0.6 (the episode's end)
    # at her 82nd action, before any STOP. Row 1: 30 pushes and STOP (t_A = 31). Bob never moves, so he matches
    # neither (he stays at s_0 = (0, 0)).
    env = _FixedStartCar([[0.0, 0.0], [0.0, 0.0]])
    cfg = SelfPlayConfig(mode="repeat", gamma=0.01, t_max=200, bob_must_act=True,
                         alice_ended_is_task=alice_ended_is_task)
    return play(env, _PushWithVelocity([1000, 30]), _NeverMoves(), np.zeros(2, bool), cfg,
                np.random.default_rng(0), seeds=1)


def test_the_top_reached_before_alices_stop_is_no_task_and_pays_her_nothing():
    ep = _episode_at_the_top(alice_ended_is_task=False)      # the paper's car's rule (config())
    assert not config().alice_ended_is_task
    np.testing.assert_array_equal(ep.no_task, [True, False])
    np.testing.assert_array_equal(ep.t_a, [82, 31])
    np.testing.assert_array_equal(ep.t_b, [0, 169])            # no Bob on row 0; row 1 ran to t_max = 200
    assert not ep.bob_success.any()
    # row 0: R_A = 0 (no STOP, no task), no R_B; row 1: t_B = 200 - 31 = 169, R_A = 0.01 * 138, R_B = -1.69
    np.testing.assert_allclose(ep.returns(ALICE)[0], [0.0, 1.38])
    np.testing.assert_allclose(ep.rewards.sum(0), [0.0, 1.38 - 1.69])


def test_with_the_old_rule_the_top_was_alices_task_and_paid_her_the_most():
    ep = _episode_at_the_top(alice_ended_is_task=True)
    assert ep.goals[0, 0] >= 0.6 and ep.t_a[0] == 82 and ep.t_b[0] == 118 and not ep.bob_success[0]
    # t_B = 200 - 82 = 118: R_A = 0.01 * 36
    np.testing.assert_allclose(ep.returns(ALICE)[0], [0.36, 1.38])
