"""The game as a single-agent environment against a named opponent, for a library learner (Stable-Baselines3, RLlib,
CleanRL, ...): one hero in 1v1 mid, or one team in 5v5, on a random side of each game.

    env = SingleAgentEnv(opponent="scripted")               # Gymnasium env, one game
    games = SingleAgentGames(32, opponent="scripted")       # N games in one BatchedEnv, arrays in and out
    agent = LearnerTeamAgent(team, predict, encoding)       # a learner trained here, as a team agent for matches

The opponent is an agent name of ``match.agents.build_agent``: ``scripted``, ``scripted-weak``, ``random``,
``trained`` or ``RUN:VERSION`` (a trained version; the game is then made with the patch and move table it was
trained on). The learner's side is drawn per game, so it learns both.

Why here, on ``match/``: the env needs the bots and trained versions by name (``match.agents``), the shaped reward
(``rl.rewards``) and the training config's reward weights (``runs.config``), all on floors below ``match/``, and
plays each decision with the trainer's own loop, ``match.decisions.play_decision``, which the rollout
(``system.rollout``) calls as well: the reward a library learner gets is the trainer's by construction, not a copy
(``tests/match/test_single_agent.py`` checks it against the rollout). ``match/`` is also where every game outside
training is played; the env is one such game. ``system/`` would have been a floor too high (nothing of the training
system is needed) and ``env/`` one too low (it may import only ``game/``).

What a step is (the trainer's rules, ``TrainConfig``):

* one **decision**: the learner's action, then ``rollout.decision_steps - 1`` timesteps in which its heroes keep
  their orders (``match.teams.decides``), while the opponent acts at every timestep (a bot) or at its own decisions
  (a trained version). One step is ``K x decision_steps`` agent-steps as the project counts them (K = 1 hero in
  1v1, 5 in 5v5).
* the **reward** is the trainer's shaped reward (the paper's event weights ``[reward]``, time decay, zero-sum, team
  spirit at its version-0 value ``ppo.team_spirit_start``) summed over the decision's timesteps; in 5v5 the team's
  mean over its five heroes. The raw events are in ``info["events"]``.
* **terminated** when the game is decided (in 1v1 the first side with two enemy *deaths*, to heroes, creeps or
  towers alike, or the first tower), **truncated** at ``game.max_seconds``.

Observations (``obs``):

* ``"flat"``: one float32 vector (``flat_layout`` lists its pieces). In 1v1, the learner's team view cut to what
  exists in 1v1 mid: the unit slots of the two heroes, the buildings, couriers and neutrals (slots 10-68), the first
  ``creep_slots`` lane-creep slots (in unit-index order: see below), their hero-relative features, the global row,
  the two heroes' rows (heroes, modifiers, items, abilities and their item and ability ids as numbers), its own row
  of allied heroes, pickups, minimap, its nearby map, its previous action, its primary mask and its hero id. In
  5v5, every slot and every hero.
* ``"dict"``: the ``FivestackParallelEnv``'s dictionary of the learner's hero (1v1), or its team's groups with the
  per-hero groups stacked on a first axis of five (5v5); ``own_hero_id`` has shape (K,) (the ParallelEnv's is a
  0-d array, which SB3's ``check_env`` cannot check).

Actions and masks (``masks``): per hero ``[primary, delay, unit target slot, offset x, offset y]`` =
``MultiDiscrete([20, 4, 189, 9, 9])``; in 5v5 the five heroes' parts one after the other (25 parts). A library
that masks each part of a MultiDiscrete on its own (sb3-contrib's ``MaskablePPO``) cannot say which targets go with
which primary action, so ``action_masks()`` (bool, the parts' masks concatenated) offers:

* ``"union"``: the primary mask and, for the target, the union of the target masks of the available primaries;
* ``"primary"``: the primary mask, every target allowed;
* ``"none"``: everything allowed;
* ``"joint"``: primary and target as one part, ``MultiDiscrete([20 x 189, 4, 9, 9])`` per hero, index
  ``primary * 189 + slot``, masked exactly (a primary that takes no target is allowed with slot 0 only). Exact at
  the decision: an action with a delay (1-3 frames) can still find its target gone or its ability no longer
  available when it is applied, which any mask allows.

An invalid action is a counted no-op; ``info["invalid_actions"]`` is the count of this step's invalid actions of the
learner's heroes (``info["invalid_actions_total"]`` the game's running count, which is what ``BatchedEnv``'s info
holds). ``benchmarks/mask_options.py`` measures each option's share.

Creep slots: slots 69-188 of ``units`` hold the lane creeps the team sees in unit-index order (the order in which
they spawned), not nearest first; only when more than 120 are seen are the 120 nearest to an allied hero kept, still
in unit-index order (``env.obs_slots.select_slots``). A cut to the first ``creep_slots`` keeps the oldest creeps the
team sees.

Sides: on a patch without the ``team_frame`` feature (0.1-0.8), Dire sees the map in the map's own frame, so the
learner meets two mirror images of one situation; on a patch with it (0.9, 1.0), Dire's view is turned and this env
turns Dire's offset actions back (as ``Policy.head_logits`` does), so that the learner acts in the frame it sees.
"""

from __future__ import annotations

from typing import Any, Callable

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from fivestack.bots.agents import TeamAgent
from fivestack.env.batched import BatchedEnv
from fivestack.env.parallel import _observation_space
from fivestack.env.spaces import ACTION_NVEC, EVERY_HERO_GROUPS, N_FIXED_SLOTS, TEAM_INT_GROUPS, group_shapes
from fivestack.game.engine import GameConfig, no_orders
from fivestack.game.layout import (A_NOOP, ACT_OFFSET_X, ACT_OFFSET_Y, ACT_PRIMARY, ACT_TARGET, HEROES_PER_TEAM,
                                   INVALID_ACTIONS, N_ACTION_FIELDS, N_HEROES, N_OFFSET, N_PRIMARY, N_UNIT_SLOTS,
                                   PAPER_MOVE_GOALS)
from fivestack.match.agents import PolicyTeamAgent, build_agent, trained_game
from fivestack.match.decisions import play_decision
from fivestack.match.teams import active_heroes, deciding_rows
from fivestack.rl.rewards import team_spirit_tau
from fivestack.runs.config import TrainConfig, load_config, reward_weights

MASK_OPTIONS = ("union", "primary", "none", "joint")
OBS_OPTIONS = ("flat", "dict")
PER_HERO = ("unit_rel", "nearby_map", "previous_action", "own_hero_id", "primary_mask", "target_mask", "offset_mask")
FLAT_TEAM = ("units", "global", "heroes", "allied_heroes", "modifiers", "items", "abilities", "pickups", "minimap",
             "item_ids", "ability_ids")
FLAT_HERO = ("unit_rel", "nearby_map", "previous_action", "primary_mask", "own_hero_id")
ONE_VS_ONE_DEFAULTS = {"max_seconds": 600.0, "decision_steps": 2}  # configs/1v1.toml's game and decision rate


def default_config(mode: str = "1v1") -> TrainConfig:
    """The training config the env plays by when given none: the package defaults, the mode, and in 1v1 the
    laptop recipe's game length and decision rate (``configs/1v1.toml``: 600 game seconds, a decision every 2
    timesteps); in 5v5 the defaults' 1,200 s and a decision every 2 timesteps (``configs/5v5.toml``)."""
    if mode not in ("1v1", "5v5"):
        raise ValueError(f"mode must be '1v1' or '5v5', got {mode!r}")
    overrides = [f"game.mode='{mode}'", "rollout.decision_steps=2"]
    if mode == "1v1":
        overrides.append(f"game.max_seconds={ONE_VS_ONE_DEFAULTS['max_seconds']}")
    return load_config(None, overrides)


# ====================================================================== observations and actions
class Encoding:
    """How the learner's observation and action are laid out: the same for the env that trains it and for the team
    agent that plays it afterwards (``LearnerTeamAgent``). ``patch``: the game's patch version (its observation
    columns); ``move_goals``: its move table."""

    def __init__(self, mode: str, patch: str, obs: str = "flat", masks: str = "union", creep_slots: int = 32,
                 n_items: int = 0, n_abilities: int = 0, n_heroes: int = 0, move_goals: str = PAPER_MOVE_GOALS):
        if obs not in OBS_OPTIONS:
            raise ValueError(f"obs must be one of {OBS_OPTIONS}, got {obs!r}")
        if masks not in MASK_OPTIONS:
            raise ValueError(f"masks must be one of {MASK_OPTIONS}, got {masks!r}")
        if not 0 <= creep_slots <= N_UNIT_SLOTS - N_FIXED_SLOTS:
            raise ValueError(f"creep_slots must lie in [0, {N_UNIT_SLOTS - N_FIXED_SLOTS}], got {creep_slots}")
        self.mode, self.patch, self.obs, self.masks, self.creep_slots = mode, patch, obs, masks, creep_slots
        self.move_goals = move_goals  # the game's move table: what its offset cells mean
        self.heroes = active_heroes(mode)  # (2, K)
        self.k = self.heroes.shape[1]
        self.in_play = self.heroes.reshape(-1)  # the heroes' rows of the every-hero groups kept (1v1: 2 of 10)
        if mode == "1v1":
            fixed = np.concatenate([self.in_play, np.arange(N_HEROES, N_FIXED_SLOTS)])
            self.slots = np.concatenate([fixed, N_FIXED_SLOTS + np.arange(creep_slots)])
        else:
            self.slots = np.arange(N_UNIT_SLOTS)
        team_shapes, hero_shapes = group_shapes(patch)
        self._team_shapes, self._hero_shapes = team_shapes, hero_shapes
        self.hero_nvec = (N_PRIMARY * N_UNIT_SLOTS, *ACTION_NVEC[1:2], *ACTION_NVEC[3:]) if masks == "joint" \
            else ACTION_NVEC
        self.nvec = np.tile(np.array(self.hero_nvec, np.int64), self.k)
        self.action_space = spaces.MultiDiscrete(self.nvec)
        self.observation_space = self._flat_space() if obs == "flat" else self._dict_space(n_items, n_abilities,
                                                                                           n_heroes)

    # ------------------------------------------------------------------ spaces
    def flat_layout(self) -> list[tuple[str, tuple[int, ...]]]:
        """The pieces of the flat vector in order: (group, shape of the piece)."""
        pieces = []
        for name in FLAT_TEAM:
            shape = {**TEAM_INT_GROUPS, **self._team_shapes}[name]
            if name == "units":
                shape = (self.slots.size, *shape[1:])
            elif name == "allied_heroes":
                shape = (self.k, *shape[1:])  # the learner's own rows (its team's heroes in play)
            elif name in EVERY_HERO_GROUPS:
                shape = (self.in_play.size, *shape[1:])
            pieces.append((name, shape))
        for name in FLAT_HERO:
            shape = {"primary_mask": (N_PRIMARY,), "own_hero_id": (), **self._hero_shapes}[name]
            if name == "unit_rel":
                shape = (self.slots.size, *shape[1:])
            pieces.append((name, (self.k, *shape)))
        return pieces

    def _flat_space(self) -> spaces.Box:
        size = sum(int(np.prod(shape)) for _, shape in self.flat_layout())
        return spaces.Box(-np.inf, np.inf, (size,), np.float32)

    def _dict_space(self, n_items: int, n_abilities: int, n_heroes: int) -> spaces.Dict:
        one = _observation_space(n_items, n_abilities, n_heroes, self.patch)
        hero_id = one.spaces["own_hero_id"]  # (K,), not () as the ParallelEnv's: SB3's check_env fails on a 0-d Box
        one.spaces["own_hero_id"] = spaces.Box(int(hero_id.low), int(hero_id.high), (self.k,), hero_id.dtype)
        if self.k == 1:
            return one
        return spaces.Dict({name: space if name not in PER_HERO or name == "own_hero_id" else
                            spaces.Box(np.broadcast_to(space.low, (self.k, *space.shape)),
                                       np.broadcast_to(space.high, (self.k, *space.shape)), (self.k, *space.shape),
                                       space.dtype)
                            for name, space in one.spaces.items()})

    # ------------------------------------------------------------------ observations
    def observe(self, obs: dict[str, np.ndarray], games: np.ndarray, sides: np.ndarray):
        """The learner's observations in ``games`` of an env whose observations are ``obs`` (``BatchedEnv.obs``), the
        learner playing side ``sides[i]`` in game ``games[i]``: (len(games), size) float32, or a dict of arrays with
        a leading axis of len(games)."""
        games = np.asarray(games, np.int64)
        sides = np.asarray(sides, np.int64)
        rows = games[:, None]
        heroes = self.heroes[sides]  # (m, K)
        if self.obs == "dict":
            out = {}
            for name, arr in obs.items():
                part = arr[rows, heroes] if name in PER_HERO else arr[games, sides]
                squeeze = name in PER_HERO and name != "own_hero_id" and self.k == 1
                out[name] = part[:, 0].copy() if squeeze else part.copy()
            return out
        parts = []
        m = games.size
        for name, _ in self.flat_layout():
            arr = obs[name]
            if name in PER_HERO:
                part = arr[rows, heroes]  # (m, K, ...)
                if name == "unit_rel":
                    part = part[:, :, self.slots]
            else:
                part = arr[games, sides]  # (m, ...)
                if name == "units":
                    part = part[:, self.slots]
                elif name == "allied_heroes":
                    part = part[:, self.heroes[0]]  # the team's rows of its heroes in play (0..K-1 on both sides)
                elif name in EVERY_HERO_GROUPS:
                    part = part[:, self.in_play]
            parts.append(part.reshape(m, -1).astype(np.float32, copy=False))
        return np.concatenate(parts, axis=1)

    def action_masks(self, obs: dict[str, np.ndarray], games: np.ndarray, sides: np.ndarray) -> np.ndarray:
        """bool (len(games), sum(nvec)): each part's mask, the parts one after the other (``masks``)."""
        games = np.asarray(games, np.int64)
        heroes = self.heroes[np.asarray(sides, np.int64)]
        primary = obs["primary_mask"][games[:, None], heroes].astype(bool)  # (m, K, 20)
        target = obs["target_mask"][games[:, None], heroes].astype(bool)  # (m, K, 20, 189)
        m = games.size
        if self.masks == "joint":
            takes_target = target.any(-1)  # (m, K, 20): a primary available only with a target
            no_target = np.zeros(N_UNIT_SLOTS, bool)
            no_target[0] = True
            joint = np.where(takes_target[..., None], target, no_target) & primary[..., None]
            rest = np.ones((m, self.k, sum(self.hero_nvec[1:])), bool)
            return np.concatenate([joint.reshape(m, self.k, -1), rest], axis=-1).reshape(m, -1)
        if self.masks == "none":
            primary = np.ones_like(primary)
        if self.masks == "union":
            targets = (target & primary[..., None]).any(axis=-2)  # (m, K, 189)
            targets[~targets.any(-1)] = True  # no target anywhere: let the part sample something, it is ignored
        else:
            targets = np.ones((m, self.k, N_UNIT_SLOTS), bool)
        delay = np.ones((m, self.k, ACTION_NVEC[1]), bool)
        offsets = np.ones((m, self.k, 2 * N_OFFSET), bool)
        return np.concatenate([primary, delay, targets, offsets], axis=-1).reshape(m, -1)

    # ------------------------------------------------------------------ actions
    def env_actions(self, actions: np.ndarray, turned: np.ndarray | None = None) -> np.ndarray:
        """The learner's actions (m, len(nvec)) -> env action rows (m, K, 5). ``turned`` (m,): rows whose view is
        turned (``BatchedEnv.turned_teams``), whose offset cells are turned back into the map's frame."""
        a = np.asarray(actions, np.int64).reshape(-1, self.k, len(self.hero_nvec))
        out = np.empty((a.shape[0], self.k, N_ACTION_FIELDS), np.int64)
        if self.masks == "joint":
            out[..., ACT_PRIMARY], out[..., ACT_TARGET] = np.divmod(a[..., 0], N_UNIT_SLOTS)
            out[..., 1], out[..., ACT_OFFSET_X], out[..., ACT_OFFSET_Y] = a[..., 1], a[..., 2], a[..., 3]
        else:
            out[:] = a
        if turned is not None and turned.any():
            flip = turned[:, None] & (out[..., ACT_PRIMARY] != A_NOOP)
            for col in (ACT_OFFSET_X, ACT_OFFSET_Y):
                out[..., col] = np.where(flip, N_OFFSET - 1 - out[..., col], out[..., col])
        return out


def sample_masked(masks: np.ndarray, nvec: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Actions (rows, len(nvec)) with each part drawn uniformly among the entries its mask allows, as an untrained
    masked policy acts (``masks``: bool (rows, sum(nvec)), ``action_masks()``'s)."""
    bounds = np.concatenate([[0], np.cumsum(nvec)])
    keys = np.where(masks, rng.random(masks.shape), -1.0)
    return np.stack([keys[:, bounds[j]:bounds[j + 1]].argmax(axis=1) for j in range(len(nvec))], axis=1)


# ====================================================================== N games against an opponent
class SingleAgentGames:
    """N games in one ``BatchedEnv``: in each the learner plays one side (drawn per game), the opponent the other.

    ``reset(seed)`` starts every game; ``step(actions)`` plays one decision of every game and returns
    ``obs, reward (N,), terminated (N,), truncated (N,), infos (N dicts)``; a finished game stays finished until
    ``restart(games)`` (a vector env's auto-reset calls it). ``action_masks()`` gives the masks of the current
    observations. ``config``: the training config whose game, decision rate, reward weights and team spirit the
    games follow (default ``default_config(mode)``)."""

    def __init__(self, n_games: int = 1, opponent: str = "scripted", mode: str | None = None,
                 config: TrainConfig | None = None, obs: str = "flat", masks: str = "union", creep_slots: int = 32,
                 seed: int = 0, patch: str | None = None):
        if config is None:
            config = default_config(mode or "1v1")
        elif mode is not None and mode != config.game.mode:
            raise ValueError(f"mode {mode!r} is not the config's game.mode {config.game.mode!r}")
        self.config = config
        self.mode = config.game.mode
        self.n_games = int(n_games)
        self.opponent = opponent
        self.seed = int(seed)
        self.decision_steps = config.rollout.decision_steps
        self.team_spirit = team_spirit_tau(0, config.ppo.team_spirit_start, config.ppo.team_spirit_end,
                                           config.ppo.team_spirit_versions)
        self.weights = reward_weights(config.reward)
        self._opponents: list[TeamAgent | None] = [None, None]
        game = config.game.game_config()
        first = self._opponent_agent(0)  # a trained version dictates the game (its patch and move table)
        dictated = trained_game([first])
        settings = {**game.__dict__, **dictated}
        if patch is not None:
            settings["patch"] = patch
        self.env = BatchedEnv(self.n_games, GameConfig(**settings))
        p = self.env.game.patch
        self.encoding = Encoding(self.mode, self.env.config.patch, obs, masks, creep_slots, len(p.items),
                                 len(p.ability_table), p.n_heroes, self.env.config.move_goals)
        self.heroes = self.encoding.heroes
        self.k = self.encoding.k
        self.agent_steps_per_step = self.k * self.decision_steps
        self.observation_space = self.encoding.observation_space
        self.action_space = self.encoding.action_space
        self.rng = np.random.default_rng([self.seed, 0x51DE])
        self.next_seed = self.seed * 1_000_003
        self.learner_side = np.zeros(self.n_games, np.int64)
        self.keep_orders = no_orders(self.n_games, N_HEROES)
        self._invalid = np.zeros((self.n_games, N_HEROES), np.int64)
        self._all = np.arange(self.n_games)
        self.started = False

    # ------------------------------------------------------------------ opponents
    def _opponent_agent(self, side: int) -> TeamAgent:
        if self._opponents[side] is None:
            self._opponents[side] = build_agent(self.opponent, side, self.seed, self.mode)
        return self._opponents[side]

    def _opponent_rows(self, env_actions: np.ndarray) -> np.ndarray:
        """``env_actions`` with the opponent's actions in its rows of every running game (its heroes in play)."""
        out = env_actions.copy()
        running = self.env.game.done == 0
        for side in (0, 1):
            games = np.flatnonzero((self.learner_side != side) & running)
            if games.size == 0:
                continue
            team = self._opponent_agent(side).act(self.env, games)  # (N, 5, 5)
            mine = self.heroes[side]
            out[games[:, None], mine] = team[games][:, mine - side * HEROES_PER_TEAM]
        return out

    # ------------------------------------------------------------------ games
    def take_seeds(self, n: int) -> np.ndarray:
        seeds = np.arange(self.next_seed, self.next_seed + n, dtype=np.uint64)
        self.next_seed += n
        return seeds

    def reset(self, seed: int | None = None):
        """Start every game (fresh seeds and sides; ``seed`` re-seeds the env's draws and the opponent's first). The
        observations."""
        if seed is not None:  # the same seed, the same games: the draws and the opponent's own stream start again
            self.seed = int(seed)
            self.rng = np.random.default_rng([self.seed, 0x51DE])
            self.next_seed = self.seed * 1_000_003
            self._opponents = [None, None]
        self.restart(self._all)
        return self.observe()

    def restart(self, games, seeds=None, sides=None) -> None:
        """Start the games ``games`` again: the next seeds (or ``seeds``), the learner's side drawn (or ``sides``)."""
        games = np.asarray(games, np.int64).reshape(-1)
        if games.size == 0:
            return
        seeds = self.take_seeds(games.size) if seeds is None else np.asarray(seeds, np.uint64)
        sides = self.rng.integers(2, size=games.size) if sides is None else np.asarray(sides, np.int64)
        self.env.reset_games(games, seeds)
        self.learner_side[games] = sides
        self._invalid[games] = 0
        for agent in self._opponents:
            if isinstance(agent, PolicyTeamAgent):
                agent.restart(games)
        self.started = True

    def observe(self, games: np.ndarray | None = None):
        games = self._all if games is None else np.asarray(games, np.int64)
        return self.encoding.observe(self.env.obs, games, self.learner_side[games])

    def action_masks(self) -> np.ndarray:
        return self.encoding.action_masks(self.env.obs, self._all, self.learner_side)

    def step(self, actions: np.ndarray):
        """One decision of every game: the learner's ``actions`` (N, len(nvec)); see the class docstring."""
        if not self.started:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.n_games, self.nvec_size):
            raise ValueError(f"actions must have shape ({self.n_games}, {self.nvec_size}) (games, parts "
                             f"{self.encoding.nvec.tolist()}); got {actions.shape}")
        turned = self.env.turned_teams().reshape(self.n_games, 2)[self._all, self.learner_side]
        mine = self.encoding.env_actions(actions, turned)
        env_actions = no_orders(self.n_games, N_HEROES)
        env_actions[self._all[:, None], self.heroes[self.learner_side]] = mine
        env_actions = self._opponent_rows(env_actions)
        invalid_before = self.env.game.state.hi[:, :, INVALID_ACTIONS].copy()
        events = np.zeros((self.n_games, 2, self.k, self.env.game.events.shape[-1]), np.float64)
        reward, terminated, truncated, info = play_decision(
            self.env, env_actions, self.heroes, self.decision_steps, self.team_spirit, self.weights,
            self._opponent_rows, None, self.keep_orders, events)
        rows = 2 * self._all + self.learner_side
        team_reward = reward[rows].mean(axis=1)
        invalid_now = self.env.game.state.hi[:, :, INVALID_ACTIONS]
        learner_heroes = self.heroes[self.learner_side]  # (N, K)
        invalid_step = (invalid_now - invalid_before)[self._all[:, None], learner_heroes].sum(1)
        invalid_total = invalid_now[self._all[:, None], learner_heroes].sum(1)
        learner_events = events[self._all, self.learner_side].sum(1)  # (N, E), summed over the learner's heroes
        infos = [{"invalid_actions": int(invalid_step[g]), "invalid_actions_total": int(invalid_total[g]),
                  "learner_side": int(self.learner_side[g]), "winner": int(info["winner"][g]),
                  "seconds": float(info["seconds"][g]), "events": learner_events[g]} for g in range(self.n_games)]
        return self.observe(), team_reward.astype(np.float32), terminated, truncated, infos

    @property
    def nvec_size(self) -> int:
        return int(self.encoding.nvec.size)

    def close(self) -> None:
        pass


# ====================================================================== one game, as a Gymnasium env
class SingleAgentEnv(gym.Env):
    """One game of ``SingleAgentGames`` with Gymnasium's API (``reset(seed=...)``, ``step(action)``) and
    ``action_masks()`` for sb3-contrib's ``MaskablePPO``. Keywords as ``SingleAgentGames``'s. A finished game must be
    reset."""

    metadata = {"render_modes": []}

    def __init__(self, opponent: str = "scripted", mode: str | None = None, config: TrainConfig | None = None,
                 obs: str = "flat", masks: str = "union", creep_slots: int = 32, seed: int = 0,
                 patch: str | None = None):
        super().__init__()
        self.games = SingleAgentGames(1, opponent, mode, config, obs, masks, creep_slots, seed, patch)
        self.observation_space = self.games.observation_space
        self.action_space = self.games.action_space

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.games.reset(seed)
        else:
            self.games.restart([0])
        return self._one(self.games.observe()), {"learner_side": int(self.games.learner_side[0])}

    def step(self, action):
        obs, reward, terminated, truncated, infos = self.games.step(np.asarray(action)[None])
        return self._one(obs), float(reward[0]), bool(terminated[0]), bool(truncated[0]), infos[0]

    def action_masks(self) -> np.ndarray:
        return self.games.action_masks()[0]

    @staticmethod
    def _one(obs):
        return {k: np.array(v[0]) for k, v in obs.items()} if isinstance(obs, dict) else obs[0]


# ====================================================================== a learner as a team agent
Predict = Callable[[Any, np.ndarray], np.ndarray]  # (observations, action masks) -> actions (m, len(nvec))


class LearnerTeamAgent:
    """A learner trained on ``SingleAgentGames`` as a team agent (``bots.agents.TeamAgent``), to play matches
    (``match.games.play_games``, ``system.evaluator.evaluate_agent``): it decides every ``decision_steps``
    timesteps of a game, as it was trained, observing and acting through the same ``Encoding``; ``predict`` maps
    the observations and action masks of the games deciding to their actions. It plays only games of its patch
    and move table (``patch``, ``move_goals``, the encoding's: ``match.agents.trained_game`` reads them)."""

    def __init__(self, team: int, predict: Predict, encoding: Encoding, decision_steps: int):
        self.team = team
        self.predict = predict
        self.encoding = encoding
        self.decision_steps = decision_steps
        self.patch = encoding.patch
        self.move_goals = encoding.move_goals
        self.steps_played: np.ndarray | None = None

    def act(self, env: BatchedEnv, games: np.ndarray | None = None) -> np.ndarray:
        n = env.n_games
        if self.steps_played is None or self.steps_played.shape[0] != n:
            self.steps_played = np.zeros(n, np.int64)
        out = no_orders(n, HEROES_PER_TEAM)
        rows = deciding_rows(self.steps_played, games, self.decision_steps)
        if rows.size == 0:
            return out
        sides = np.full(rows.size, self.team, np.int64)
        obs = self.encoding.observe(env.obs, rows, sides)
        masks = self.encoding.action_masks(env.obs, rows, sides)
        turned = env.turned_teams().reshape(n, 2)[rows, self.team]
        actions = self.encoding.env_actions(self.predict(obs, masks), turned)
        out[rows[:, None], self.encoding.heroes[self.team] - self.team * HEROES_PER_TEAM] = actions
        return out


__all__ = ["Encoding", "LearnerTeamAgent", "MASK_OPTIONS", "OBS_OPTIONS", "SingleAgentEnv", "SingleAgentGames",
           "default_config", "sample_masked"]
