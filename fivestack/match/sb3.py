"""Stable-Baselines3 on ``SingleAgentGames``: N games in one object as an SB3 ``VecEnv``, and a trained SB3 model as a
team agent. This module needs the optional extra (``pip install -e ".[baselines]"``); nothing in the package imports
it (``examples/sb3_ppo.py`` and ``benchmarks/reference_learner.py`` do).

    venv = SB3VecEnv(SingleAgentGames(32, opponent="scripted"))   # MaskablePPO reads venv.action_masks()
    agent = sb3_team_agent(model, venv.games.encoding, decision_steps, normalizer=vec_normalize)

A game that ends is restarted at once (SB3's auto-reset): its last observation is in ``info["terminal_observation"]``,
``info["TimeLimit.truncated"]`` says whether the time limit cut it (SB3 then bootstraps it from the value), and
``info["episode"]`` holds its return ``r`` and length ``l`` in decisions, with ``won`` (1, 0, or 0.5 undecided).
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

try:
    from stable_baselines3.common.vec_env import VecEnv
except ImportError as error:  # pragma: no cover - the extra is installed wherever the tests run
    raise ImportError(f"fivestack.match.sb3 needs Stable-Baselines3 ({error}); install the extra: "
                      f"pip install -e \".[baselines]\"") from None

from fivestack.match.single_agent import Encoding, LearnerTeamAgent, SingleAgentGames


class SB3VecEnv(VecEnv):
    """``SingleAgentGames`` with SB3's ``VecEnv`` API: one env per game of the batch, stepped all at once."""

    def __init__(self, games: SingleAgentGames):
        self.games = games
        super().__init__(games.n_games, games.observation_space, games.action_space)
        self._actions: np.ndarray | None = None
        self._returns = np.zeros(games.n_games, np.float64)
        self._lengths = np.zeros(games.n_games, np.int64)

    def reset(self):
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        obs = self.games.reset(seed)
        self._reset_seeds()
        self._returns[:] = 0.0
        self._lengths[:] = 0
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs, -1)

    def step_wait(self):
        obs, reward, terminated, truncated, infos = self.games.step(self._actions)
        done = terminated | truncated
        self._returns += reward
        self._lengths += 1
        ended = np.flatnonzero(done)
        if ended.size:
            for g in ended:
                last = {k: v[g].copy() for k, v in obs.items()} if isinstance(obs, dict) else obs[g].copy()
                winner = infos[g]["winner"]
                won = 0.5 if winner < 0 else float(winner == infos[g]["learner_side"])
                infos[g].update({"terminal_observation": last,
                                 "TimeLimit.truncated": bool(truncated[g] and not terminated[g]),
                                 "episode": {"r": float(self._returns[g]), "l": int(self._lengths[g]), "won": won}})
            self._returns[ended] = 0.0
            self._lengths[ended] = 0
            self.games.restart(ended)
            fresh = self.games.observe(ended)
            if isinstance(obs, dict):
                for k in obs:
                    obs[k][ended] = fresh[k]
            else:
                obs[ended] = fresh
        return obs, reward, done, infos

    def action_masks(self) -> np.ndarray:
        return self.games.action_masks()

    def close(self) -> None:
        self.games.close()

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        value = getattr(self, attr_name) if hasattr(type(self), attr_name) else getattr(self.games, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self.games, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        wanted = list(self._get_indices(indices))
        if method_name == "action_masks":  # what sb3-contrib's MaskablePPO asks each env for
            masks = self.games.action_masks()
            return [masks[i] for i in wanted]
        result = getattr(self.games, method_name)(*method_args, **method_kwargs)
        return [result for _ in wanted]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]


def sb3_predict(model, normalizer=None, deterministic: bool = False):
    """``LearnerTeamAgent``'s ``predict`` for an SB3 model (``MaskablePPO`` gets the masks; another algorithm acts
    unmasked); ``normalizer``: the ``VecNormalize`` it was trained behind (its observation statistics, frozen)."""
    masked = "action_masks" in inspect.signature(model.predict).parameters

    def predict(obs, masks: np.ndarray) -> np.ndarray:
        if normalizer is not None:
            obs = normalizer.normalize_obs(obs)
        if masked:
            actions, _ = model.predict(obs, action_masks=masks, deterministic=deterministic)
        else:
            actions, _ = model.predict(obs, deterministic=deterministic)
        return np.asarray(actions)

    return predict


def sb3_team_agent(model, encoding: Encoding, decision_steps: int, normalizer=None, deterministic: bool = False):
    """An ``AgentFactory`` (side -> team agent) of a trained SB3 model, for ``match.games.play_games`` and
    ``system.evaluator.evaluate_agent``."""
    predict = sb3_predict(model, normalizer, deterministic)
    return lambda side: LearnerTeamAgent(side, predict, encoding, decision_steps)


__all__ = ["SB3VecEnv", "sb3_predict", "sb3_team_agent"]
