"""Your own environment through the documented interface: Gymnasium's FrozenLake (4 x 4, not slippery)
wrapped by ``GymnasiumASPEnv``, where falling into a hole ends an episode without reaching the goal; Bob's
one-action minimum; the t / t_max input; and the one clear error for each mistake a new user can make."""

import gymnasium
import numpy as np
import pytest

from fivestack.asp.envs.base import ASPEnvBase, GymnasiumASPEnv
from fivestack.asp.envs.hallway import Hallway
from fivestack.asp.envs.mountaincar import MountainCar
from fivestack.asp.selfplay import SelfPlayConfig, evaluate, make_policy, play, train

LEFT, DOWN, RIGHT, UP = 0, 1, 2, 3
NCOL = 4
# SFFF / FHFH / FFFH / HFFG: the hole at (1, 1) is two moves from the start, the goal six
INTO_THE_HOLE = [DOWN, RIGHT]
TO_THE_GOAL = [DOWN, DOWN, RIGHT, RIGHT, DOWN, RIGHT]


def get_state(env):
    return np.array(divmod(int(env.unwrapped.s), NCOL), np.float64)       # (row, col)


def set_state(env, state):
    env.unwrapped.s = int(state[0]) * NCOL + int(state[1])


def frozen_lake(n, **overrides):
    kw = dict(make=lambda: gymnasium.make("FrozenLake-v1", map_name="4x4", is_slippery=False),
              get_state=get_state, set_state=set_state,
              distance=lambda a, b: float(np.abs(a - b).sum()), threshold=0.5,
              reached=lambda state, goal: bool(np.array_equal(state, goal)),
              target_goal=np.array([3.0, 3.0]), t_max_target=20, n=n)
    kw.update(overrides)
    return GymnasiumASPEnv(**kw)


class Scripted:
    """A fixed action sequence per row, then the last action again; records the policy inputs it saw."""

    def __init__(self, plans):
        self.plans, self.t, self.inputs = plans, 0, []

    def act(self, x, rng, stop_allowed, greedy=False):
        self.inputs.append(np.array(x))
        a = np.array([plan[min(self.t, len(plan) - 1)] for plan in self.plans])
        self.t += 1
        return a, np.zeros(len(a))


def test_a_fall_into_a_hole_is_not_reaching_the_goal():
    env = frozen_lake(2)
    bob = Scripted([INTO_THE_HOLE, TO_THE_GOAL])
    ep = play(env, None, bob, np.ones(2, bool), SelfPlayConfig(), np.random.default_rng(0), seeds=1)
    np.testing.assert_array_equal(ep.target_success, [False, True])
    np.testing.assert_array_equal(ep.t_b, [2, 6])          # the hole ends the episode: no steps after it
    np.testing.assert_array_equal(ep.target_return, [0.0, 1.0])


def test_an_untrained_bob_rarely_reaches_the_goal():
    cfg = SelfPlayConfig(batch=32, eval_episodes=64, hidden=(16,))
    env = frozen_lake(cfg.batch)
    bob = make_policy(env, cfg, 1, np.random.default_rng(0), 0.0)
    success, _ = evaluate(env, bob, cfg, np.random.default_rng(1), seeds=1)
    assert success[0] < 0.2                                  # it was 1.0 when terminated counted as success


def test_alice_in_a_hole_hands_over_and_bob_can_repeat_it():
    env = frozen_lake(1)
    cfg = SelfPlayConfig(mode="repeat", t_max=20)
    ep = play(env, Scripted([INTO_THE_HOLE]), Scripted([INTO_THE_HOLE]), np.zeros(1, bool), cfg,
              np.random.default_rng(0), seeds=1)
    assert ep.t_a[0] == 2 and ep.t_b[0] == 2 and ep.bob_success[0]
    np.testing.assert_array_equal(ep.goals[0], [1, 1])      # Alice's task is the hole she ended in


@pytest.mark.parametrize("must_act,t_b", [(True, 1), (False, 0)])
def test_bob_needs_one_action_to_win(must_act, t_b):
    env = frozen_lake(1)                                     # Alice stops at once; Bob bumps the wall
    cfg = SelfPlayConfig(mode="repeat", t_max=20, bob_must_act=must_act)
    STOP = env.num_actions - 1
    ep = play(env, Scripted([[STOP]]), Scripted([[LEFT]]), np.zeros(1, bool), cfg, np.random.default_rng(0),
              seeds=1)
    assert ep.bob_success[0] and ep.t_b[0] == t_b


def test_time_input_is_t_over_each_episode_kinds_cap():
    env = frozen_lake(2)
    cfg = SelfPlayConfig(mode="repeat", t_max=10, time_input=True)
    STOP = env.num_actions - 1
    alice, bob = Scripted([[RIGHT, STOP]] * 2), Scripted([[RIGHT, RIGHT, RIGHT, LEFT]] * 2)
    ep = play(env, alice, bob, np.array([False, True]), cfg, np.random.default_rng(0), seeds=1)
    assert alice.inputs[0].shape == (2, env.input_dim + 1)
    np.testing.assert_allclose([x[1, -1] for x in bob.inputs[:3]], [0, 1 / 20, 2 / 20])     # t_max_target
    np.testing.assert_allclose([x[0, -1] for x in alice.inputs[:2]], [0, 1 / 10])         # SelfPlayConfig.t_max
    np.testing.assert_allclose(ep.time_frac[:3, 1], [0, 1 / 20, 2 / 20])


def test_time_input_trains_an_mlp_with_one_more_input():
    cfg = SelfPlayConfig(mode="repeat", t_max=30, batch=8, time_input=True, hidden=(8,), eval_every=16,
                    eval_episodes=8)
    env = MountainCar(2 * cfg.batch, t_max_target=30)
    curves, bob = train(env, "self_play", cfg, 2, 8, np.random.default_rng(0))
    assert bob.params[0].shape == (2, env.input_dim + 1, 8) and len(curves.x) >= 2


# --- one clear error per mistake ---

@pytest.mark.parametrize("overrides,error,match", [
    ({"reached": None}, TypeError, r"reached=lambda state, goal"),
    ({"target_goal": None}, TypeError, r"target_goal=\.\.\., the target task's goal"),
    ({"t_max": 50}, TypeError, r"t_max_target=.*SelfPlayConfig\(t_max="),
    ({"target_goal": np.array([3.0, 3.0, 0.0])}, ValueError, r"target_goal has shape \(3,\).*\(2,\)"),
    ({"get_state": lambda env: float(env.unwrapped.s)}, ValueError, r"get_state\(env\) returned shape \(\)"),
])
def test_wrapper_errors_name_the_problem_and_the_fix(overrides, error, match):
    with pytest.raises(error, match=match):
        frozen_lake(1, **overrides)


def test_train_refuses_a_batch_the_env_does_not_hold():
    cfg = SelfPlayConfig(batch=8)
    with pytest.raises(ValueError, match=r"n = 12 rows but seeds x cfg.batch = 2 x 8 = 16"):
        train(MountainCar(12), "self_play", cfg, 2, 10, np.random.default_rng(0))


def test_time_input_on_a_tabular_policy_is_refused():
    cfg = SelfPlayConfig(batch=4, time_input=True)
    with pytest.raises(ValueError, match="time_input needs an MLP policy"):
        train(Hallway(4), "self_play", cfg, 1, 10, np.random.default_rng(0))


class Unfinished(ASPEnvBase):
    """An env a user has half written: state, caps and encode, but no step."""
    num_actions, input_dim, t_max_target = 3, 5, 10

    def __init__(self, n=4):
        self.n, self.state = n, np.zeros((n, 2))

    def reset(self, rng, target):
        pass

    def target_goal(self):
        return np.zeros_like(self.state)

    def encode(self, states, goals, z):
        return np.concatenate([states, goals, np.asarray(z)[..., None]], -1)

    def success(self, states, goals):
        return np.zeros(len(states), bool)


class OldStep(Unfinished):
    def step(self, actions, moving, target):
        return np.zeros(self.n), np.zeros(self.n, bool)


class WrongEncode(OldStep):
    def encode(self, states, goals, z):
        return states


class OldCapName(OldStep):
    t_max = 10


@pytest.mark.parametrize("env,error,match", [
    (Unfinished(), TypeError, r"Unfinished has no method step\(actions, moving, target\)"),
    (WrongEncode(), ValueError, r"WrongEncode.encode\(states, goals, z\) returned shape \(4, 2\).*\(4, 5\)"),
    (OldCapName(), TypeError, r"OldCapName has an attribute t_max.*rename it to t_max_target"),
    (OldStep(), TypeError, r"OldStep.step must return \(reward, reached, ended\)"),
])
def test_env_mistakes_are_named(env, error, match):
    with pytest.raises(error, match=match):
        train(env, "target_only", SelfPlayConfig(batch=4, t_max=10), 1, 4, np.random.default_rng(0))
