"""Generalised advantage estimation (Schulman et al. 2016), with gamma set by a horizon in seconds."""

from __future__ import annotations

import numpy as np

from fivestack.game.layout import STEP_SECONDS


def gamma_from_horizon(horizon_seconds: float, step_seconds: float = STEP_SECONDS) -> float:
    """OpenAI Five: H = T / (1 - gamma), so gamma = 1 - T / H (180 s -> 0.99926)."""
    return 1.0 - step_seconds / horizon_seconds


def gae(rewards: np.ndarray, values: np.ndarray, episode_ends: np.ndarray, bootstrap: np.ndarray,
        gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and returns over a trajectory of L steps.

    rewards, values, episode_ends: (L, ...). ``episode_ends[t]`` is 1 when the game ended with step t
    (terminated: nothing follows; the value after it is 0). ``bootstrap`` (...) is V(s_L), the value after the
    last step. A truncated game is bootstrapped by the caller, which passes its last value in ``bootstrap``.

        delta_t = r_t + gamma V(s_{t+1}) (1 - end_t) - V(s_t)
        A_t     = delta_t + gamma lambda (1 - end_t) A_{t+1}
    """
    steps = rewards.shape[0]
    advantages = np.zeros_like(rewards, dtype=np.float64)
    next_value = bootstrap.astype(np.float64)
    next_adv = np.zeros_like(next_value)
    for t in range(steps - 1, -1, -1):
        not_end = 1.0 - episode_ends[t]
        delta = rewards[t] + gamma * next_value * not_end - values[t]
        next_adv = delta + gamma * lam * not_end * next_adv
        advantages[t] = next_adv
        next_value = values[t]
    return advantages.astype(np.float32), (advantages + values).astype(np.float32)
