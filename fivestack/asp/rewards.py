"""The self-play rewards of Sukhbaatar et al. (2018), eq. (1) and (2), each written once.

t_A is the number of actions Alice took (her STOP included), t_B the number Bob took; an episode is capped at
t_max actions in all, and when Bob fails t_B = t_max - t_A.
"""

from __future__ import annotations

import numpy as np


def bob_time(t_a, t_b, success, t_max: int):
    """t_B: Bob's own step count when he succeeds, t_max - t_A when he fails."""
    return np.where(success, t_b, t_max - np.asarray(t_a))


def bob_reward(t_b, gamma: float):
    """R_B = -gamma t_B."""
    return -gamma * np.asarray(t_b, dtype=np.float64)


def alice_reward(t_a, t_b, gamma: float):
    """R_A = gamma max(0, t_B - t_A): Alice gains only when Bob is slower than she was."""
    return gamma * np.maximum(0.0, np.asarray(t_b, dtype=np.float64) - np.asarray(t_a, dtype=np.float64))
