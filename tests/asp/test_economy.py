"""The economy world: a build order makes marines, supply caps them, and Bob's "every count" test."""

import numpy as np

from fivestack.asp.envs.economy import (BUILD_BARRACKS, BUILD_DEPOT, MARINES, MINE, MINERALS, TRAIN_MARINE,
                                        WAIT, Economy, global_counts)


def _run(env, order, steps=200):
    """Play a fixed build order (a function of the state) for ``steps`` steps; return the total reward."""
    total = 0.0
    for _ in range(steps):
        a = np.array([order(env.state[0])])
        r, _, _ = env.step(a, np.array([True]), np.array([True]))
        total += r[0]
    return total


def _build_order(depots: bool):
    def order(s):
        if s[2] < 4:
            return MINE
        if s[3] == 0 and s[7] == 0:
            return BUILD_BARRACKS
        if depots and s[4] == 0 and s[8] == 0 and s[3] > 0:
            return BUILD_DEPOT
        return TRAIN_MARINE
    return order


def test_a_build_order_trains_marines_and_each_pays_one():
    env = Economy(1)
    env.reset(np.random.default_rng(0), np.array([True]))
    assert _run(env, lambda s: WAIT) == 0.0                  # idle workers mine nothing
    env.reset(np.random.default_rng(0), np.array([True]))
    total = _run(env, _build_order(depots=False))
    assert total == env.state[0, MARINES] == 6               # the supply cap without a depot


def test_a_supply_depot_lifts_the_cap():
    env = Economy(1)
    env.reset(np.random.default_rng(0), np.array([True]))
    assert _run(env, _build_order(depots=True)) > 6


def test_orders_without_minerals_are_ignored():
    env = Economy(1)
    env.reset(np.random.default_rng(0), np.array([True]))
    env.step(np.array([BUILD_BARRACKS]), np.array([True]), np.array([True]))
    assert env.state[0, MINERALS] == 50 and env.state[0, 7] == 0


def test_bob_succeeds_when_every_count_is_at_least_alices():
    env = Economy(3)
    alice = np.zeros((3, 10), np.int64)
    alice[:, [MINERALS, 2, 3, MARINES]] = [60, 4, 1, 2]       # 2 x 25 minerals, 4 workers, 1 barracks, 2 marines
    bob = alice.copy()
    bob[1, MINERALS] = 40                                     # 1 x 25 minerals: short
    bob[2, MARINES] = 5
    bob[2, MINERALS] = 75                                     # more of everything: success
    np.testing.assert_array_equal(env.success(bob, alice), [True, False, True])
    np.testing.assert_array_equal(global_counts(alice[0]), [2, 4, 1, 0, 2])
