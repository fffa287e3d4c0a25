"""GAE pinned to hand-computed numbers (every expected value below is written out, not recomputed)."""

import numpy as np
import pytest

from fivestack.game.layout import STEP_SECONDS
from fivestack.rl.gae import gae, gamma_from_horizon

GAMMA, LAM = 0.9, 0.8
GL = GAMMA * LAM  # 0.72

# one 5-step trajectory: the game ends with step 2 (terminated), a new one starts at step 3 and is still
# running after step 4, so it is bootstrapped from V(s_5) = 0.6
REWARDS = [1.0, 0.0, 2.0, -1.0, 0.5]
VALUES = [0.5, 1.0, 0.2, 0.4, 0.3]
ENDS = [0.0, 0.0, 1.0, 0.0, 0.0]
BOOTSTRAP = 0.6

# by hand, from the back:
#   t=4: delta = 0.5 + 0.9 * 0.6 - 0.3 = 0.74                       A = 0.74
#   t=3: delta = -1 + 0.9 * 0.3 - 0.4 = -1.13                       A = -1.13 + 0.72 * 0.74 = -0.5972
#   t=2: (end) delta = 2 + 0 - 0.2 = 1.8                            A = 1.8 (nothing after the end)
#   t=1: delta = 0 + 0.9 * 0.2 - 1.0 = -0.82                        A = -0.82 + 0.72 * 1.8 = 0.476
#   t=0: delta = 1 + 0.9 * 1.0 - 0.5 = 1.4                          A = 1.4 + 0.72 * 0.476 = 1.74272
EXPECTED_ADV = [1.74272, 0.476, 1.8, -0.5972, 0.74]
EXPECTED_RET = [1.74272 + 0.5, 0.476 + 1.0, 1.8 + 0.2, -0.5972 + 0.4, 0.74 + 0.3]


def test_gae_five_steps_with_an_episode_end_and_a_bootstrap():
    adv, ret = gae(np.array(REWARDS, np.float32), np.array(VALUES, np.float32), np.array(ENDS, np.float32),
                   np.array(BOOTSTRAP, np.float32), GAMMA, LAM)
    np.testing.assert_allclose(adv, EXPECTED_ADV, rtol=0, atol=1e-6)
    np.testing.assert_allclose(ret, EXPECTED_RET, rtol=0, atol=1e-6)
    assert adv.dtype == np.float32 and ret.dtype == np.float32


def test_gae_batched_columns_are_independent():
    """(L, 2): column 0 is the trajectory above, column 1 has no end (everything is bootstrapped)."""
    rewards = np.array([[r, 1.0] for r in REWARDS], np.float32)
    values = np.array([[v, 0.0] for v in VALUES], np.float32)
    ends = np.array([[e, 0.0] for e in ENDS], np.float32)
    adv, ret = gae(rewards, values, ends, np.array([BOOTSTRAP, 2.0], np.float32), GAMMA, LAM)
    # column 1: V = 0 everywhere, r = 1, V(s_5) = 2
    #   t=4: delta = 1 + 0.9 * 2 = 2.8                A = 2.8
    #   t=3..0: delta = 1                              A = 1 + 0.72 A_next
    a4 = 2.8
    a3 = 1.0 + 0.72 * a4  # 3.016
    a2 = 1.0 + 0.72 * a3  # 3.17152
    a1 = 1.0 + 0.72 * a2  # 3.2834944
    a0 = 1.0 + 0.72 * a1  # 3.364115968
    np.testing.assert_allclose(adv[:, 0], EXPECTED_ADV, rtol=0, atol=1e-6)
    np.testing.assert_allclose(adv[:, 1], [3.364115968, 3.2834944, 3.17152, 3.016, 2.8], rtol=0, atol=1e-6)
    np.testing.assert_allclose([a0, a1, a2, a3, a4], adv[:, 1], rtol=0, atol=1e-6)
    np.testing.assert_allclose(ret[:, 1], adv[:, 1], rtol=0, atol=1e-6)  # V = 0


def test_gae_lambda_zero_is_one_step_td_and_lambda_one_is_monte_carlo():
    r = np.array(REWARDS, np.float32)
    v = np.array(VALUES, np.float32)
    e = np.array(ENDS, np.float32)
    b = np.array(BOOTSTRAP, np.float32)
    adv0, _ = gae(r, v, e, b, GAMMA, 0.0)
    # the deltas from above
    np.testing.assert_allclose(adv0, [1.4, -0.82, 1.8, -1.13, 0.74], rtol=0, atol=1e-6)
    _, ret1 = gae(r, v, e, b, GAMMA, 1.0)
    # lambda = 1: returns are discounted reward sums up to the end (or the bootstrap)
    #   t=4: 0.5 + 0.9 * 0.6 = 1.04; t=3: -1 + 0.9 * 1.04 = -0.064
    #   t=2: 2 (end);                t=1: 0 + 0.9 * 2 = 1.8;     t=0: 1 + 0.9 * 1.8 = 2.62
    np.testing.assert_allclose(ret1, [2.62, 1.8, 2.0, -0.064, 1.04], rtol=0, atol=1e-6)


def test_an_end_at_the_last_step_ignores_the_bootstrap():
    r = np.array([1.0, 1.0], np.float32)
    v = np.array([0.0, 0.0], np.float32)
    adv, _ = gae(r, v, np.array([0.0, 1.0], np.float32), np.array(100.0, np.float32), 0.5, 1.0)
    # t=1: 1 (the 100 after the end is not used); t=0: 1 + 0.5 * 1 = 1.5
    np.testing.assert_allclose(adv, [1.5, 1.0], rtol=0, atol=1e-6)


def test_gamma_from_horizon():
    assert STEP_SECONDS == pytest.approx(4 / 30)
    # H = T / (1 - gamma): 1 - (4 / 30) / 180 = 1 - 0.000740740... = 0.99925926
    assert gamma_from_horizon(180.0) == pytest.approx(0.99925926, abs=1e-8)
    assert round(gamma_from_horizon(180.0), 5) == 0.99926
    assert gamma_from_horizon(360.0) == pytest.approx(1 - 0.1333333333 / 360, abs=1e-9)
    assert gamma_from_horizon(1.0, step_seconds=0.25) == pytest.approx(0.75)
