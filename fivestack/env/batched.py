"""``BatchedEnv``: N games in one object, numpy arrays in and out (the fast path for training).

    env = BatchedEnv(n_games=64)
    obs = env.reset(seed=0)                      # dict of arrays, see fivestack.env.spaces
    obs, events, terminated, truncated, info = env.step(actions)   # actions (64, 10, 5)

An action row is ``[primary, delay, unit_target_slot, offset_x, offset_y]``; the target is a slot of the
acting hero's team's ``units`` observation from the previous step. Invalid actions are counted no-ops.
A finished game stays finished (its events are zero) until ``reset_games`` restarts it: there is no hidden
auto-reset inside a game, so an LSTM never sees two games glued together.

Observation arrays are reused from step to step: copy what you keep. With the game feature ``team_frame`` (patch
0.9) Dire observes the map turned half a turn (``env.obs_turn``; ``turned_teams``), actions stay in the map's frame.
"""

from __future__ import annotations

from dataclasses import asdict

import numpy as np

from fivestack.env import observation
from fivestack.game.engine import GameBatch, GameConfig, sanitize_actions
from fivestack.game.layout import (
    A_NOOP, ACT_OFFSET_X, ACT_OFFSET_Y, ACT_PRIMARY, ACT_TARGET, DIRE, INVALID_ACTIONS, MAX_UNITS, N_HEROES, N_OFFSET,
    N_PRIMARY, N_TARGET_KINDS, N_UNIT_SLOTS,
)
from fivestack.game.patch import F_TEAM_FRAME, FEATURES, PATCHES, Patch, feature_mask, observation_mask


OBSERVATION_BITS = feature_mask(f.name for f in FEATURES.values() if f.observes)


class BatchedEnv:
    def __init__(self, n_games: int, config: GameConfig | None = None, patch: Patch | None = None):
        """``patch``: the game's data tables when not those of ``config.patch``'s version (a ``Patch`` with other
        heroes, e.g. a test pool); its version must be ``config.patch``'s."""
        self.game = GameBatch(n_games, config, patch)
        self.config = self.game.config
        self.n_games = n_games
        self.obs = observation.allocate(n_games, self.config.patch)  # a patch's observation features: more columns
        self._observed = observation_mask(self.config.patch)  # the features whose columns this env has
        self.unit_of_slot = np.full((n_games, 2, N_UNIT_SLOTS), -1, np.int64)
        self.slot_of_unit = np.full((n_games, 2, MAX_UNITS), -1, np.int64)
        self._target_validity = np.zeros((2, N_TARGET_KINDS, N_UNIT_SLOTS + 1), np.uint8)  # (team, kind, slot)
        self._obs_buffers = observation.buffers(self.obs, self.unit_of_slot, self.slot_of_unit, self.game.data.walk,
                                               self._target_validity)
        self._all = np.arange(n_games, dtype=np.int64)
        self._team_of_hero = np.repeat([0, 1], 5)
        self._started = False

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | np.ndarray = 0, features=None, hero_types=None) -> dict[str, np.ndarray]:
        """Start every game; an int seed gives game i the seed ``seed + i`` (``features``, ``hero_types``: see
        ``reset_games``)."""
        seeds = self._seeds(seed, self.n_games)
        self.reset_games(self._all, seeds, features, hero_types)
        self._started = True
        return self.obs

    def reset_games(self, which, seeds, features=None, hero_types=None) -> None:
        """Restart only the games in ``which`` (the others keep playing); their observations are rewritten.
        ``features``: each restarted game's feature mask (``game.patch.FEATURES`` bits; None: the patch's);
        ``hero_types``: each restarted game's lineup (``GameBatch.reset``; None: the config's lineup rule)."""
        which = np.asarray(which, dtype=np.int64).reshape(-1)
        if which.size == 0:
            return
        if which.min() < 0 or which.max() >= self.n_games:
            raise ValueError(f"game indices must lie in [0, {self.n_games}); got {which.tolist()}")
        seeds = self._seeds(seeds, which.size)
        if features is not None:
            self._check_features(features)
        self.game.reset(seeds, which, features, hero_types)
        self.obs["previous_action"][which] = 0.0
        observation.encode(self.game.state, self.game.data, self._obs_buffers, which)
        self._started = True

    def observe_games(self, which) -> None:
        """Encode the observations of the games in ``which`` again from their state as it is now (after a caller
        wrote into it, e.g. a drill placing a hero at an episode's start), as a reset or a step would."""
        which = np.asarray(which, dtype=np.int64).reshape(-1)
        if which.size:
            observation.encode(self.game.state, self.game.data, self._obs_buffers, which)

    def turned_teams(self) -> np.ndarray:
        """(2 x games,) bool, team-major (row 2g + side): whether the team's view of the game is turned (Dire's,
        where the game plays with ``team_frame``; ``env.obs_turn``)."""
        turned = np.zeros((self.n_games, 2), bool)
        turned[:, 1] = (self.game.data.features & F_TEAM_FRAME) != 0
        return turned.reshape(-1)

    def _check_features(self, features) -> None:
        features = np.asarray(features, np.int64).reshape(-1)
        if ((features & F_TEAM_FRAME) != (self.game.patch.features & F_TEAM_FRAME)).any():
            fix = (f"patch {self.config.patch} has it, so add it to every game's features (F_TEAM_FRAME)"
                   if self.game.patch.features & F_TEAM_FRAME else
                   f"play a patch with it (0.9, 1.0), or leave it out of the features of patch {self.config.patch}")
            raise ValueError(f"game feature 'team_frame' is every game's or none's (the policy turns its actions "
                             f"by its patch): {fix}")
        missing = int(np.bitwise_or.reduce(features, initial=0)) & OBSERVATION_BITS & ~self._observed
        if missing:
            names = [f.name for f in FEATURES.values() if f.bit & missing]
            raise ValueError(f"game feature(s) {names} add an observation column that an env of patch "
                             f"{self.config.patch} does not have; play a patch with them (game.patch: "
                             f"{[v for v, p in PATCHES.items() if set(names) <= set(p.features)]})")

    def step(self, actions, observe: bool = True):
        """One timestep of every game. With ``observe=False`` the observations of games still running are not
        encoded (their arrays keep the last encoded step: for a caller that steps again before it looks, as
        between an agent's decisions); games that end in this step are always encoded."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        clean = sanitize_actions(actions, self.n_games)
        self._remember_previous(clean)
        unit_actions = clean.copy()
        slot = clean[..., ACT_TARGET]
        in_range = (slot >= 0) & (slot < N_UNIT_SLOTS)
        team = np.broadcast_to(self._team_of_hero, slot.shape)
        games = np.broadcast_to(self._all[:, None], slot.shape)
        unit_actions[..., ACT_TARGET] = np.where(
            in_range, self.unit_of_slot[games, team, np.clip(slot, 0, N_UNIT_SLOTS - 1)], -1)
        running = self.game.done == 0
        self.game.step(unit_actions)
        done = self.game.done
        encode = running if observe else running & (done != 0)
        if encode.any():
            observation.encode(self.game.state, self.game.data, self._obs_buffers, self._all[encode])
        terminated = (done == 1) & running
        truncated = (done == 2) & running
        info = {
            "winner": self.game.winner.copy(),
            "seconds": self.game.seconds.copy(),
            "finished": done != 0,
            "invalid_actions": self.game.state.hi[:, :, INVALID_ACTIONS].copy(),
        }
        return self.obs, self.game.events, terminated, truncated, info

    # ------------------------------------------------------------------ helpers
    def _remember_previous(self, clean: np.ndarray) -> None:
        prev = self.obs["previous_action"]
        prev[..., 0] = np.maximum(clean[..., ACT_PRIMARY], 0) / (N_PRIMARY - 1)
        prev[..., 1] = clean[..., 1] / 3.0
        prev[..., 2] = np.clip(clean[..., ACT_TARGET], 0, N_UNIT_SLOTS - 1) / (N_UNIT_SLOTS - 1)
        offsets = clean[..., [ACT_OFFSET_X, ACT_OFFSET_Y]]
        if self.game.patch.features & F_TEAM_FRAME:  # Dire's cells as its turned view reads them (a no-op's stay)
            turn = (self._team_of_hero == DIRE) & (clean[..., ACT_PRIMARY] != A_NOOP)
            offsets = np.where(turn[..., None], N_OFFSET - 1 - offsets, offsets)
        prev[..., 3:5] = offsets / 8.0

    @staticmethod
    def _seeds(seed, n: int) -> np.ndarray:
        arr = np.asarray(seed)
        if arr.ndim == 0:
            return (int(arr) + np.arange(n)).astype(np.uint64)
        if arr.shape != (n,):
            raise ValueError(f"seeds must be an int or an array of shape ({n},); got shape {arr.shape}")
        return arr.astype(np.uint64)

    def hero_obs(self, g: int, h: int) -> dict[str, np.ndarray]:
        """One hero's observation (copies): its team's shared groups plus its own parts."""
        team = int(self._team_of_hero[h])
        out = {}
        per_hero = {**observation.HERO_GROUPS, **observation.HERO_INT_GROUPS, **observation.HERO_MASK_GROUPS}
        for name, arr in self.obs.items():
            out[name] = arr[g, h].copy() if name in per_hero else arr[g, team].copy()
        return out

    def describe(self) -> dict:
        return {"n_games": self.n_games, "config": asdict(self.config),
                "groups": {k: v.shape[1:] for k, v in self.obs.items()}, "heroes": N_HEROES}
