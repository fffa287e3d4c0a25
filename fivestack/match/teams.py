"""Teams as the policy sees them: which heroes a team's replicas drive, and the env's observations cut per team.

    active_heroes(mode)        (2, K) the hero indices each team drives: all five, or the mid hero in 1v1
    team_view(obs, heroes)     env observations (games, 2 | 10, ...) -> team-major rows (2 games, [K,] ...),
                               the rows the policy takes (row 2g + side is game g's team ``side``)
    decides(timestep, k)       the decision-steps rule: whether a policy decides at a game's timestep
"""

from __future__ import annotations

import numpy as np

from fivestack.env.spaces import EVERY_HERO_GROUPS
from fivestack.game.layout import HEROES_PER_TEAM, N_HEROES
from fivestack.model.policy import ALL_GROUPS, HERO_AXIS_GROUPS


def active_heroes(mode: str) -> np.ndarray:
    """(2, K) hero indices each team's replicas drive: all five, or the one mid hero in 1v1."""
    k = 1 if mode == "1v1" else HEROES_PER_TEAM
    return np.stack([np.arange(k), HEROES_PER_TEAM + np.arange(k)])


def decides(timestep: int | np.ndarray, decision_steps: int) -> bool | np.ndarray:
    """The one decision-steps rule (``rollout.decision_steps = k``): a policy decides at timesteps 0, k, 2k, ...
    of a game, and at the others every hero keeps its order (``game.layout.NO_ORDER``: a no-op continues a move
    or an attack). The rollout trains under it and ``PolicyTeamAgent`` plays under it."""
    return timestep % decision_steps == 0


def deciding_rows(steps_played: np.ndarray, games: np.ndarray | None, decision_steps: int) -> np.ndarray:
    """The games among ``games`` (every game if None) that decide at this timestep (``decides``); each listed game's
    timestep count in ``steps_played`` advances by one, in place. A team agent's per-call bookkeeping."""
    rows = np.arange(steps_played.shape[0]) if games is None else np.asarray(games, np.int64).reshape(-1)
    deciding = decides(steps_played[rows], decision_steps)
    steps_played[rows] += 1
    return rows[deciding]


def team_view(obs: dict[str, np.ndarray], heroes: np.ndarray) -> dict[str, np.ndarray]:
    """Env observations (games, 2, ...) / (games, 10, ...) -> team-major (2 games, ...) / (2 games, K, ...).

    Groups with a row for each of the ten heroes keep only the 2K heroes in play (in 1v1 mid, 2 of 10): the
    others' rows are empty (unseen), so the policy's max-pools over heroes, items and abilities give the same
    result without spending compute and memory on them."""
    out = {}
    in_play = heroes.reshape(-1)
    everyone = in_play.size == N_HEROES
    for name in ALL_GROUPS:
        arr = obs[name]
        if name in HERO_AXIS_GROUPS:
            out[name] = arr[:, heroes].reshape(arr.shape[0] * 2, heroes.shape[1], *arr.shape[2:])
        elif name in EVERY_HERO_GROUPS and not everyone:
            arr = arr[:, :, in_play]
            out[name] = arr.reshape(arr.shape[0] * 2, *arr.shape[2:])
        else:
            out[name] = arr.reshape(arr.shape[0] * 2, *arr.shape[2:])
    return out
