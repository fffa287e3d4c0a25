"""Reward shaping pinned to a hand-made event table, in the paper's order:
weights -> time decay (not on win) -> zero-sum -> team spirit."""

import numpy as np
import pytest

from fivestack.env.events import PAPER_WEIGHTS, WEIGHT_VECTOR, weighted_reward
from fivestack.game import layout as L
from fivestack.rl import rewards
from fivestack.rl.rewards import shaped_reward, team_spirit, time_decay, weighted_events, zero_sum


def test_weights_are_the_papers_table():
    paper = {  # OpenAI Five, reward table (buildings: 2/3 on health loss, 1/3 on destruction)
        L.EV_WIN: 5.0, L.EV_HERO_DEATH: -1.0, L.EV_COURIER_DEATH: -2.0, L.EV_XP: 0.002, L.EV_GOLD: 0.006,
        L.EV_GOLD_SPENT: 0.0006, L.EV_HEALTH: 2.0, L.EV_MANA: 0.75, L.EV_KILLED_HERO: -0.6,
        L.EV_LAST_HIT: -0.16, L.EV_DENY: 0.15, L.EV_AEGIS: 5.0,
        L.EV_ANCIENT_HP: 5.0 * 2 / 3, L.EV_MEGAS: -4.0,
        L.EV_T1_HP: 1.5, L.EV_T2_HP: 2.0, L.EV_T3_HP: 3.0, L.EV_T4_HP: 1.5, L.EV_BARRACKS_HP: 4.0,
        L.EV_T1_LOST: -0.75, L.EV_T2_LOST: -1.0, L.EV_T3_LOST: -1.5, L.EV_T4_LOST: -0.75,
        L.EV_BARRACKS_LOST: -2.0, L.EV_ANCIENT_LOST: -5.0 / 3, L.EV_LANE_OUTSIDE: -0.15,
    }
    assert len(paper) == L.N_EVENTS
    for column, weight in paper.items():
        assert WEIGHT_VECTOR[column] == pytest.approx(weight, rel=1e-6), L.EVENT_NAMES[column]
        assert PAPER_WEIGHTS[L.EVENT_NAMES[column]] == pytest.approx(weight)
    # a building is worth its full weight over health loss (2/3) plus destruction (1/3), e.g. a T3 tower 4.5
    assert -1.0 * WEIGHT_VECTOR[L.EV_T3_HP] + WEIGHT_VECTOR[L.EV_T3_LOST] == pytest.approx(-4.5)
    assert -1.0 * WEIGHT_VECTOR[L.EV_BARRACKS_HP] + WEIGHT_VECTOR[L.EV_BARRACKS_LOST] == pytest.approx(-6.0)


def test_docstring_states_the_papers_order():
    doc = rewards.__doc__
    steps = ["sum_e w_e", "0.6 ** (T / 10 min)", "zero-sum", "team spirit"]
    positions = [doc.index(s) for s in steps]
    assert positions == sorted(positions)
    assert "everything but win" in doc


def event_table() -> np.ndarray:
    """(2 teams, 3 heroes, E) for one step."""
    ev = np.zeros((2, 3, L.N_EVENTS), np.float32)
    ev[0, :, L.EV_WIN] = 1.0  # team 0 wins at this step
    ev[0, 0, L.EV_GOLD] = 100.0  # 100 * 0.006 = 0.6
    ev[0, 0, L.EV_XP] = 50.0  # 50 * 0.002 = 0.1
    ev[0, 1, L.EV_HERO_DEATH] = 1.0  # -1
    ev[0, 2, L.EV_LAST_HIT] = 2.0  # 2 * -0.16 = -0.32
    ev[0, 2, L.EV_GOLD] = 80.0  # 80 * 0.006 = 0.48
    ev[1, 0, L.EV_KILLED_HERO] = 1.0  # -0.6
    ev[1, 0, L.EV_T1_LOST] = 1.0  # -0.75
    ev[1, 1, L.EV_DENY] = 1.0  # 0.15
    ev[1, 1, L.EV_MANA] = -0.5  # -0.375
    ev[1, 2, L.EV_HEALTH] = -0.25  # -0.5
    return ev


# dense (everything but win), by hand
DENSE = [[0.6 + 0.1, -1.0, -0.32 + 0.48],  # [0.7, -1.0, 0.16]
         [-0.6 - 0.75, 0.15 - 0.375, -0.5]]  # [-1.35, -0.225, -0.5]
WIN = [[5.0, 5.0, 5.0], [0.0, 0.0, 0.0]]


def test_weighted_events_split_win_from_the_rest():
    dense, win = weighted_events(event_table())
    np.testing.assert_allclose(dense, DENSE, atol=1e-6)
    np.testing.assert_allclose(win, WIN, atol=1e-6)
    np.testing.assert_allclose(weighted_reward(event_table()), np.add(DENSE, WIN), atol=1e-6)


def test_shaped_reward_by_hand():
    tau = 0.3
    d = 0.6 ** (300.0 / 600.0)  # 5 minutes into the game: 0.6 ** 0.5 = 0.7745966...
    assert d == pytest.approx(0.7745966692)
    # 1. time decay on everything but the win
    rho = [[DENSE[t][i] * d + WIN[t][i] for i in range(3)] for t in range(2)]
    # 2. zero-sum: subtract the enemy team's mean
    mean0 = (rho[0][0] + rho[0][1] + rho[0][2]) / 3
    mean1 = (rho[1][0] + rho[1][1] + rho[1][2]) / 3
    zs = [[rho[0][i] - mean1 for i in range(3)], [rho[1][i] - mean0 for i in range(3)]]
    # 3. team spirit
    zmean = [(zs[t][0] + zs[t][1] + zs[t][2]) / 3 for t in range(2)]
    expected = [[(1 - tau) * zs[t][i] + tau * zmean[t] for i in range(3)] for t in range(2)]
    # spelled out for hero 0 of team 0: 0.7 d + 5 - (-2.075 d / 3), blended with its team
    zs00 = 0.7 * d + 5.0 + 2.075 * d / 3
    assert zs[0][0] == pytest.approx(zs00)
    got = shaped_reward(event_table(), 300.0, tau)
    assert got.shape == (2, 3)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5)
    # zero-sum: the six heroes' rewards cancel (team spirit keeps each team's mean)
    assert float(got.sum()) == pytest.approx(0.0, abs=1e-5)


def test_win_is_not_decayed_everything_else_is():
    ev = np.zeros((2, 1, L.N_EVENTS), np.float32)
    ev[0, 0, L.EV_WIN] = 1.0
    late = shaped_reward(ev, 6000.0, 0.0)  # 100 minutes: decay 0.6 ** 10 would leave 0.03
    np.testing.assert_allclose(late, [[5.0], [-5.0]], atol=1e-6)  # the loss penalty comes from zero-sum
    ev[0, 0, L.EV_WIN] = 0.0
    ev[0, 0, L.EV_GOLD] = 100.0  # 0.6
    late = shaped_reward(ev, 6000.0, 0.0)
    np.testing.assert_allclose(late, [[0.6 * 0.6**10], [-0.6 * 0.6**10]], rtol=1e-5)


def test_time_decay_per_game_broadcast():
    ev = np.zeros((3, 2, 1, L.N_EVENTS), np.float32)  # three games
    ev[:, 0, 0, L.EV_XP] = 500.0  # 1.0 for team 0 in every game
    got = shaped_reward(ev, np.array([0.0, 600.0, 1200.0]), 0.5)
    # decay 1, 0.6, 0.36 per game; 1v1 zero-sum: [d, -d]
    np.testing.assert_allclose(got[..., 0], [[1.0, -1.0], [0.6, -0.6], [0.36, -0.36]], rtol=1e-5)
    np.testing.assert_allclose(time_decay(np.array([2.0]), 1800.0), [2.0 * 0.216], rtol=1e-6)


def test_one_vs_one():
    ev = np.zeros((2, 1, L.N_EVENTS), np.float32)
    ev[0, 0, L.EV_GOLD] = 50.0  # 0.3
    ev[1, 0, L.EV_HERO_DEATH] = 1.0  # -1
    ev[1, 0, L.EV_XP] = 100.0  # +0.2
    # 10 minutes: decay 0.6; rho = [0.18, -0.48]; zero-sum [0.18 + 0.48, -0.48 - 0.18]; team spirit: no-op
    for tau in (0.0, 0.3, 1.0):
        np.testing.assert_allclose(shaped_reward(ev, 600.0, tau), [[0.66], [-0.66]], rtol=1e-5)


def test_zero_sum_and_team_spirit_steps():
    r = np.array([[1.0, 2.0, 6.0], [0.0, -3.0, 0.0]])
    # enemy means: team 1 -> -1, team 0 -> 3
    np.testing.assert_allclose(zero_sum(r), [[2.0, 3.0, 7.0], [-3.0, -6.0, -3.0]])
    # team means 3 and -1; tau = 0.25: 0.75 r + 0.25 mean
    np.testing.assert_allclose(team_spirit(r, 0.25), [[1.5, 2.25, 5.25], [-0.25, -2.5, -0.25]])
    np.testing.assert_allclose(team_spirit(r, 1.0), [[3.0, 3.0, 3.0], [-1.0, -1.0, -1.0]])
    np.testing.assert_allclose(team_spirit(r, 0.0), r)
    # with a leading games axis the team axis is still the second to last
    both = np.stack([r, r[::-1]])
    np.testing.assert_allclose(zero_sum(both)[1], [[-3.0, -6.0, -3.0], [2.0, 3.0, 7.0]])
