"""The self-play rewards on hand values, and the reverse / repeat episode flow with scripted players."""

import numpy as np
import pytest

from fivestack.asp.envs.hallway import LEFT, RIGHT, STOP, Hallway
from fivestack.asp.rewards import alice_reward, bob_reward, bob_time
from fivestack.asp.selfplay import ALICE, BOB, SelfPlayConfig, play


def test_rewards_on_hand_values():
    assert alice_reward(5, 12, 0.1) == pytest.approx(0.7)
    assert bob_reward(12, 0.1) == pytest.approx(-1.2)


def test_bob_failure_takes_the_rest_of_the_episode():
    t_b = bob_time(10, 3, False, 30)
    assert t_b == 20
    assert alice_reward(10, t_b, 0.1) == pytest.approx(1.0)
    assert bob_time(10, 3, True, 30) == 3


@pytest.mark.parametrize("t_a,t_b", [(5, 5), (5, 4), (12, 0), (30, 1)])
def test_alice_gets_nothing_when_bob_is_as_fast(t_a, t_b):
    assert alice_reward(t_a, t_b, 0.1) == 0.0


class FixedStartHallway(Hallway):
    """The real hallway with chosen start positions, counting the resets-to-s_0 it is asked for."""

    def __init__(self, starts, **kw):
        super().__init__(len(starts), **kw)
        self.starts = np.array(starts)
        self.set_state_calls = 0

    def reset(self, rng, target):
        self.state = np.stack([self.starts, self.starts], 1)

    def set_state(self, states, where):
        self.set_state_calls += 1
        super().set_state(states, where)


class WalkRight:
    """Alice: ``k`` steps right, then STOP."""

    def __init__(self, k):
        self.k, self.calls = k, 0

    def act(self, x, rng, stop_allowed, greedy=False):
        self.calls += 1
        a = RIGHT if self.calls <= self.k else STOP
        return np.full(len(x), a), np.zeros(len(x))


class FastBob:
    """Bob: the fast policy of the chain, towards the goal, STOP on it."""

    def __init__(self, m):
        self.m = m

    def act(self, x, rng, stop_allowed, greedy=False):
        pos, goal = x // self.m, x % self.m
        return np.where(pos < goal, RIGHT, np.where(pos > goal, LEFT, STOP)), np.zeros(len(x))


class AlwaysLeft:
    def act(self, x, rng, stop_allowed, greedy=False):
        return np.full(len(x), LEFT), np.zeros(len(x))


def _run(mode, bob, starts=(5, 10), k=3, t_max=30):
    env = FixedStartHallway(list(starts), t_max_target=t_max)
    cfg = SelfPlayConfig(mode=mode, gamma=0.1, t_max=t_max)
    ep = play(env, WalkRight(k), bob, np.zeros(len(starts), bool), cfg, np.random.default_rng(0), seeds=1)
    return env, ep


def _bob_first_states(ep):
    first = np.argmax(ep.player == BOB, axis=0)
    return ep.states[first, np.arange(ep.states.shape[1]), 0]


def test_reverse_bob_starts_where_alice_stopped_and_returns_to_s0():
    env, ep = _run("reverse", FastBob(25))
    assert env.set_state_calls == 0                      # no reset in reverse mode
    np.testing.assert_array_equal(_bob_first_states(ep), [8, 13])
    np.testing.assert_array_equal(ep.goals[:, 0], [5, 10])
    np.testing.assert_array_equal(ep.t_a, [4, 4])        # 3 moves + STOP
    np.testing.assert_array_equal(ep.t_b, [4, 4])        # 3 moves back + STOP
    assert ep.bob_success.all()
    np.testing.assert_allclose(ep.returns(ALICE)[0], [0.0, 0.0])
    np.testing.assert_allclose(ep.returns(BOB)[ep.t_a[0]], [-0.4, -0.4])


def test_repeat_resets_to_s0_and_bob_reaches_alices_state():
    env, ep = _run("repeat", FastBob(25))
    assert env.set_state_calls == 1                      # the one reset, at Alice's STOP
    np.testing.assert_array_equal(_bob_first_states(ep), [5, 10])
    np.testing.assert_array_equal(ep.goals[:, 0], [8, 13])
    assert ep.bob_success.all()
    np.testing.assert_array_equal(env.state[:, 0], [8, 13])


def test_repeat_failure_pays_alice_for_the_rest_of_the_budget():
    env, ep = _run("repeat", AlwaysLeft(), k=5, t_max=30)
    assert not ep.bob_success.any()
    np.testing.assert_array_equal(ep.t_a + ep.t_b, [30, 30])   # the episode ran to t_max
    # t_A = 6, t_B = t_max - t_A = 24: R_A = 0.1 * 18, R_B = -2.4
    np.testing.assert_allclose(ep.returns(ALICE)[0], [1.8, 1.8])
    np.testing.assert_allclose(ep.rewards.sum(0), [1.8 - 2.4, 1.8 - 2.4])


def test_target_rows_are_bob_only_with_the_task_flag():
    env = Hallway(64)
    cfg = SelfPlayConfig(mode="reverse", gamma=0.1, t_max=30)
    target = np.arange(64) % 2 == 0
    ep = play(env, WalkRight(2), FastBob(25), target, cfg, np.random.default_rng(1), seeds=1)
    assert not (ep.player[:, target] == ALICE).any()
    np.testing.assert_array_equal(ep.z, target.astype(float))
    assert ep.target_success[target].all()               # the fast policy solves every target
    dist = np.abs(ep.states[0, target, 0] - ep.states[0, target, 1])
    np.testing.assert_allclose(ep.target_return[target], -(dist + 1) / 30)


def test_separate_budgets_stop_alice_at_her_cap_and_give_bob_his_own():
    env = FixedStartHallway([0, 3], length=100, t_max_target=30)
    cfg = SelfPlayConfig(mode="reverse", gamma=0.1, t_max=60, t_max_bob=30)
    ep = play(env, WalkRight(100), AlwaysLeft(), np.zeros(2, bool), cfg, np.random.default_rng(0), seeds=1)
    np.testing.assert_array_equal(ep.t_a, [30, 30])            # forced STOP at her 30th action
    np.testing.assert_array_equal(ep.t_b, [30, 30])            # Bob's own 30, never stopping: failure
    # t_B = t_max - t_A = 30: R_A = 0 (Bob was not slower), R_B = -3
    np.testing.assert_allclose(ep.rewards.sum(0), [-3.0, -3.0])
