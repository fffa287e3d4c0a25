"""A PettingZoo ``ParallelEnv`` for one game: agents ``radiant_0..4`` and ``dire_0..4``.

Each agent observes a dictionary: its team's shared groups and its own per-hero groups (see
``fivestack.env.spaces``), and acts with ``MultiDiscrete([20, 4, 189, 9, 9])`` = primary, delay, unit
target slot, offset x, offset y. Rewards are the paper's weighted reward events, before time decay,
zero-sum and team spirit (those belong to ``fivestack.rl``); the raw events are in ``infos[agent]``, with
``invalid_actions`` (the agent's invalid actions in this step: 0 or 1) and ``invalid_actions_total`` (its running
count in the game, which is what ``BatchedEnv``'s info holds). For speed, train on ``BatchedEnv``; this class is the
standard interface for one game; a single-agent Gymnasium env against a bot, with the trainer's shaped reward and
decision rate, is ``fivestack.match.single_agent.SingleAgentEnv``.
"""

from __future__ import annotations

import functools

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from fivestack.env import spaces as layout
from fivestack.env.batched import BatchedEnv
from fivestack.env.events import weighted_reward
from fivestack.game.engine import GameConfig, no_orders
from fivestack.game.layout import HEROES_PER_TEAM, MODE_1V1_MID, N_ACTION_FIELDS, N_HEROES

TEAM_NAMES = ("radiant", "dire")


def agent_name(hero: int) -> str:
    return f"{TEAM_NAMES[hero // HEROES_PER_TEAM]}_{hero % HEROES_PER_TEAM}"


def _observation_space(n_items: int, n_abilities: int, n_heroes: int,
                       patch: str = layout.PATCH_VERSION) -> spaces.Dict:
    groups: dict[str, spaces.Space] = {}
    team_groups, hero_groups = layout.group_shapes(patch)
    for name, shape in {**team_groups, **hero_groups}.items():
        groups[name] = spaces.Box(-np.inf, np.inf, shape, np.float32)
    groups["item_ids"] = spaces.Box(-1, n_items - 1, layout.TEAM_INT_GROUPS["item_ids"], np.int32)
    groups["ability_ids"] = spaces.Box(-1, n_abilities - 1, layout.TEAM_INT_GROUPS["ability_ids"], np.int32)
    groups["hero_ids"] = spaces.Box(-1, n_heroes - 1, layout.TEAM_INT_GROUPS["hero_ids"], np.int32)
    groups["own_hero_id"] = spaces.Box(0, n_heroes - 1, layout.HERO_INT_GROUPS["own_hero_id"], np.int32)
    for name, shape in layout.HERO_MASK_GROUPS.items():
        groups[name] = spaces.Box(0, 1, shape, np.uint8)
    return spaces.Dict(groups)


class FivestackParallelEnv(ParallelEnv):
    metadata = {"name": "fivestack_v0", "render_modes": [], "is_parallelizable": True}

    def __init__(self, config: GameConfig | None = None):
        """``config``: the game; ``GameConfig()`` (the default) is a 5v5 game of up to 3,600 game seconds, so give
        ``GameConfig(mode="1v1", max_seconds=600.0)`` for the 1v1 mid game of the laptop recipe."""
        self.env = BatchedEnv(1, config)
        one_vs_one = self.env.game.mode == MODE_1V1_MID
        self.heroes = [h for h in range(N_HEROES) if not one_vs_one or h % HEROES_PER_TEAM == 0]
        self.possible_agents = [agent_name(h) for h in self.heroes]
        self.hero_of = {agent_name(h): h for h in self.heroes}
        self.agents: list[str] = []
        patch = self.env.game.patch
        self._obs_space = _observation_space(len(patch.items), len(patch.ability_table), patch.n_heroes,
                                             patch.version)
        self._act_space = spaces.MultiDiscrete(layout.ACTION_NVEC)
        self._seed = 0
        self._invalid_before = np.zeros(N_HEROES, np.int64)  # each hero's running count of invalid actions

    @functools.lru_cache(maxsize=None)
    def observation_space(self, agent: str) -> spaces.Dict:
        return self._obs_space

    @functools.lru_cache(maxsize=None)
    def action_space(self, agent: str) -> spaces.MultiDiscrete:
        return self._act_space

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._seed = int(seed)
        else:
            self._seed += 1
        self.env.reset(np.array([self._seed], dtype=np.uint64))
        self._invalid_before = np.zeros(N_HEROES, np.int64)
        self.agents = list(self.possible_agents)
        observations = {a: self.env.hero_obs(0, self.hero_of[a]) for a in self.agents}
        infos = {a: {} for a in self.agents}
        return observations, infos

    def step(self, actions: dict):
        unknown = set(actions) - set(self.agents)
        if unknown:
            raise ValueError(f"actions for agents not in the game: {sorted(unknown)}; live agents: {self.agents}")
        batch = no_orders(1, N_HEROES)
        for agent, action in actions.items():
            row = np.asarray(action)
            if row.shape != (N_ACTION_FIELDS,):
                raise ValueError(f"action of {agent} must have shape ({N_ACTION_FIELDS},) = [primary, delay, "
                                 f"unit_target, offset_x, offset_y]; got shape {row.shape}")
            batch[0, self.hero_of[agent]] = np.nan_to_num(row.astype(np.float64), nan=-1).astype(np.int64)
        obs, events, terminated, truncated, info = self.env.step(batch)
        rewards_all = weighted_reward(events[0])
        invalid_total = info["invalid_actions"][0]  # the game's running count per hero
        invalid_step, self._invalid_before = invalid_total - self._invalid_before, invalid_total.copy()
        observations, rewards, terms, truncs, infos = {}, {}, {}, {}, {}
        for agent in self.agents:
            h = self.hero_of[agent]
            observations[agent] = self.env.hero_obs(0, h)
            rewards[agent] = float(rewards_all[h])
            terms[agent] = bool(terminated[0])
            truncs[agent] = bool(truncated[0])
            infos[agent] = {"events": events[0, h].copy(), "winner": int(info["winner"][0]),
                            "invalid_actions": int(invalid_step[h]), "invalid_actions_total": int(invalid_total[h])}
        if terminated[0] or truncated[0]:
            self.agents = []
        return observations, rewards, terms, truncs, infos

    def close(self) -> None:
        pass
