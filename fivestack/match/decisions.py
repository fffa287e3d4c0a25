"""One decision of every game of a batch, and its shaped reward: the loop the trainer's rollout and the single-agent
env (``fivestack.match.single_agent``) both play, so that a library learner is paid exactly what the trainer is.

    play_decision(env, actions, heroes, decision_steps, team_spirit, weights, between_steps=None)
        -> reward (2 x games, K), terminated (games,), truncated (games,), info of the last timestep

A decision is ``decision_steps`` timesteps: the actions at the first (``match.teams.decides``), then timesteps in
which every hero keeps its order (``game.layout.NO_ORDER``) unless ``between_steps(actions)`` gives other rows (a
bot that acts at every timestep). Its reward is the shaped reward of the paper (``rl.rewards.shaped_reward``: time
decay, zero-sum, team spirit) summed over those timesteps, per team row (2g + side) and hero in play; a game that
ends stays finished for the rest of the decision (no events). Observations are encoded at the last timestep only,
and at the step where a game ends.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import no_orders
from fivestack.game.layout import N_EVENTS, N_HEROES
from fivestack.match.teams import decides
from fivestack.rl.rewards import shaped_reward

BetweenSteps = Callable[[np.ndarray], np.ndarray]  # the env actions of a timestep between decisions -> those played


def play_decision(env: BatchedEnv, actions: np.ndarray, heroes: np.ndarray, decision_steps: int, team_spirit: float,
                  weights: np.ndarray, between_steps: BetweenSteps | None = None,
                  event_sums: np.ndarray | None = None, keep_orders: np.ndarray | None = None,
                  game_events: np.ndarray | None = None):
    """Play one decision of every game of ``env``: ``actions`` (games, 10, 5) in env action space at the first
    timestep, then ``decision_steps - 1`` timesteps of ``keep_orders`` (default: no orders for anyone) passed
    through ``between_steps``. ``heroes`` (2, K): the heroes in play (``teams.active_heroes``). ``event_sums``
    (N_EVENTS,), if given, gains the raw events of the heroes in play; ``game_events`` (games, 2, K, N_EVENTS), if
    given, the same per game, team and hero.

    Returns the shaped reward summed over the timesteps, float32 (2 x games, K) in team-major rows (2g + side), which
    games terminated and which were truncated during the decision, and the last timestep's info."""
    n_games = env.n_games
    k = heroes.shape[1]
    reward = np.zeros((2 * n_games, k), np.float32)
    terminated = np.zeros(n_games, bool)
    truncated = np.zeros(n_games, bool)
    if keep_orders is None:
        keep_orders = no_orders(n_games, N_HEROES)
    env_actions = actions
    info = None
    for step in range(decision_steps):
        last = step == decision_steps - 1  # observations are encoded only where the policy looks
        if not decides(step, decision_steps):
            env_actions = keep_orders if between_steps is None else between_steps(keep_orders)
        _, events, term, trunc, info = env.step(env_actions, observe=last)
        team_events = events[:, heroes]  # (games, 2, K, E)
        if event_sums is not None:
            event_sums += team_events.reshape(-1, N_EVENTS).sum(0)
        if game_events is not None:
            game_events += team_events
        reward += shaped_reward(team_events, info["seconds"], team_spirit, weights).reshape(2 * n_games, k)
        terminated |= term
        truncated |= trunc
    return reward, terminated, truncated, info
