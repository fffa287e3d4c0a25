"""Reward shaping, as in OpenAI Five (appendix on rewards), applied in the paper's order:

    r_i   = sum_e w_e * event_{i,e}                 weighted reward events (fivestack.env.events)
    rho_i = r_i * 0.6 ** (T / 10 min)               time decay, on everything but win/loss
    rho_i = rho_i - mean_{j in enemies} rho_j       zero-sum
    r_i   = (1 - tau) rho_i + tau mean_{j in team} rho_j   team spirit
"""

from __future__ import annotations

import numpy as np

from fivestack.env.events import WEIGHT_VECTOR
from fivestack.game.layout import EV_WIN

DECAY_BASE = 0.6
DECAY_SECONDS = 600.0


def weighted_events(events: np.ndarray, weights: np.ndarray = WEIGHT_VECTOR) -> tuple[np.ndarray, np.ndarray]:
    """Events (..., E) -> (reward without win/loss, win/loss reward), each (...)."""
    win = events[..., EV_WIN] * weights[EV_WIN]
    return events @ weights - win, win


def time_decay(reward: np.ndarray, seconds: np.ndarray | float) -> np.ndarray:
    """rho *= 0.6 ** (T / 10 minutes); ``seconds`` broadcasts against the reward's leading axes."""
    return reward * DECAY_BASE ** (np.asarray(seconds) / DECAY_SECONDS)


def zero_sum(reward: np.ndarray) -> np.ndarray:
    """(..., 2, K) per team and hero: subtract the enemy team's average."""
    enemy_mean = reward.mean(-1, keepdims=True)[..., ::-1, :]
    return reward - enemy_mean


def team_spirit(reward: np.ndarray, tau: float) -> np.ndarray:
    """(..., 2, K): blend each hero's reward with its team's average."""
    return (1.0 - tau) * reward + tau * reward.mean(-1, keepdims=True)


def team_spirit_tau(version: int, start: float, end: float, versions: int) -> float:
    """The schedule of team spirit's tau: ``start`` at version 0, linearly to ``end`` at ``versions``, then
    constant (the paper: 0.3 -> 1.0 over training; ``ppo.team_spirit_*``)."""
    frac = min(1.0, version / max(versions, 1))
    return start + frac * (end - start)


def shaped_reward(events: np.ndarray, seconds: np.ndarray | float, tau: float,
                  weights: np.ndarray = WEIGHT_VECTOR) -> np.ndarray:
    """Raw events (..., 2, K, E) of one step -> the training reward (..., 2, K).

    ``seconds`` is the game time of the step, shaped like the leading axes (e.g. (games,)). With K = 1
    (1v1 mid) team spirit changes nothing and zero-sum subtracts the single enemy's reward.
    """
    dense, win = weighted_events(events, weights)
    seconds = np.asarray(seconds, dtype=np.float64)
    decayed = time_decay(dense, seconds.reshape(seconds.shape + (1, 1)))
    return team_spirit(zero_sum(decayed + win), tau)
