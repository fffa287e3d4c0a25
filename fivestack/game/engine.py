"""``GameBatch``: N games advanced together by the Numba kernels, with a plain Python face.

The engine speaks in *unit indices*; what an agent sees (unit slots, masks, fog) is the env's business.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fivestack.game import geometry, kernels
from fivestack.game.layout import (
    ACT_DELAY, ACT_OFFSET_X, ACT_OFFSET_Y, ACT_PRIMARY, ACT_TARGET, DUEL_KILLS, FRAMES_PER_SECOND, FRAMES_PER_STEP,
    G_DONE, G_FRAME, G_WINNER, HP_HISTORY_LEN, MAX_PROJECTILES, MAX_UNITS, MODE_1V1_MID, MODE_5V5, MOVE_GOALS,
    N_ACTION_FIELDS, N_DELAY, N_EVENTS, N_GI, N_HEROES, N_HF, N_HI, N_IT, N_ITEM_SLOTS, N_OFFSET, N_PJ, N_PRIMARY,
    N_UF, N_UI, NO_ORDER, PAPER_MOVE_GOALS, RANDOM_BUILDS, RANDOM_START, STASH,
)
from fivestack.game.lineups import LINEUP_RULES, check_lineups, check_pool, fixed_lineup, random_lineups
from fivestack.game.patch import PATCH_VERSION, PATCHES, Patch, check_columns
from fivestack.game.state import Data, Scratch, State

MODES = {"5v5": MODE_5V5, "1v1": MODE_1V1_MID}


@dataclass
class GameConfig:
    """What game to play. The defaults are the standard 5v5 game."""

    mode: str = "5v5"  # "5v5" or "1v1" (mid lane, first to two kills or the first tower)
    max_seconds: float = 3600.0  # time limit: the game is *truncated* (not terminated) when it is reached
    training: bool = False  # randomise scripted item and skill builds around the fixed ones
    # domain randomisation (training games; the paper's): each hero's lane and starting health, mana and gold,
    # and the big neutral's health, drawn per game within the patch Rules' random_* ranges; implies `training`
    randomise: bool = False
    lineups: str = "fixed"  # "fixed": radiant/dire in every game; "random": drawn from the pool at each reset
    radiant: tuple[str, ...] = ()  # hero names; empty = the patch's first five heroes
    dire: tuple[str, ...] = ()
    patch: str = PATCH_VERSION  # a version of game.patch.PATCHES: the features every game plays with
    # how far one move order reaches: a table of layout.MOVE_GOALS ("grid", the paper's 600 units; "reach": across
    # the map). An action space: a policy plays in the table it was trained with
    move_goals: str = PAPER_MOVE_GOALS
    # 1v1: the hero kills that end the game (the paper's 1v1: two); 0: kills never end it, only the first tower or
    # the time limit (a training-only rule: deaths cost their gold, experience and respawn time, not the game)
    duel_kills: int = DUEL_KILLS
    # at the time limit the team ahead in net worth wins (terminated, with the win's reward) instead of an undecided
    # (truncated) game; a tie stays undecided. A training-only rule (evaluation games are played to the paper's)
    net_worth_wins: bool = False

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"game mode {self.mode!r} is unknown; use one of {sorted(MODES)}")
        if self.lineups not in LINEUP_RULES:
            raise ValueError(f"lineups {self.lineups!r} is unknown; use one of {list(LINEUP_RULES)}")
        if self.lineups == "random" and (self.radiant or self.dire):
            raise ValueError('lineups = "random" draws every hero; radiant/dire name a fixed lineup: drop them or '
                             'use lineups = "fixed"')
        if not self.max_seconds > 0:
            raise ValueError(f"max_seconds must be positive, got {self.max_seconds}")
        if self.patch not in PATCHES:
            raise ValueError(f"patch {self.patch!r} is not available; patches: {sorted(PATCHES)}")
        if self.move_goals not in MOVE_GOALS:
            raise ValueError(f"move_goals {self.move_goals!r} is unknown; use one of {sorted(MOVE_GOALS)}")
        if self.duel_kills < 0:
            raise ValueError(f"duel_kills must be 0 (kills never end a 1v1) or more, got {self.duel_kills}")


def no_orders(*leading: int) -> np.ndarray:
    """int64 (*leading, N_ACTION_FIELDS) action rows that tell no hero anything (``layout.NO_ORDER``): every hero
    keeps its order. The same rows in engine space and in env space (there is no target to translate)."""
    return np.tile(np.array(NO_ORDER, np.int64), (*leading, 1))


def xp_table() -> np.ndarray:
    """xp_table[L] = total experience needed to pass level L (index 0 unused)."""
    per_level = np.array([0.0] + [200.0 + 100.0 * (lvl - 1) for lvl in range(1, 26)])
    return np.cumsum(per_level)


def make_data(patch: Patch, n_games: int = 1, move_goals: str = PAPER_MOVE_GOALS, duel_kills: int = DUEL_KILLS,
              net_worth_wins: bool = False) -> Data:
    """The read-only tables the kernels take as ``D``: the patch's and the map's, the move goals' table
    (``layout.MOVE_GOALS[move_goals]``), the kills that end a 1v1 (``GameConfig.duel_kills``), whether the time
    limit decides a game by net worth (``GameConfig.net_worth_wins``), and each game's feature mask (the patch's
    features; ``GameBatch.reset`` sets a game's own when it starts)."""
    g = geometry
    return Data(
        hero_table=patch.hero_table, ability_table=patch.ability_table, item_table=patch.item_table,
        creep_table=patch.creep_table, rules=patch.rule_vector, skill_builds=patch.skill_builds,
        item_builds=patch.item_builds, lanes=g.LANES, walk=g.build_walk_grid(), building_pos=g.BUILDING_POS,
        building_kind=g.BUILDING_KIND, building_subtype=g.BUILDING_SUBTYPE, building_lane=g.BUILDING_LANE,
        building_row=g.BUILDING_ROW, building_protectors=g.BUILDING_PROTECTORS, building_needed=g.BUILDING_NEEDED,
        camps=g.CAMPS, big_neutral=g.BIG_NEUTRAL, rune_spots=g.RUNE_SPOTS, fountain=g.FOUNTAIN, ancient=g.ANCIENT,
        xp_table=xp_table(), move_offsets=np.array(MOVE_GOALS[move_goals], np.float64),
        duel_kills=np.array([duel_kills], np.int64), net_worth_wins=np.array([int(net_worth_wins)], np.int64),
        features=np.full(n_games, patch.features, np.int64),
    )


# Start-up check: every named column of the standard patch's tables holds the attribute it names (the kernels
# index the tables with the same derived constants). A Patch handed to GameBatch is checked again there.
check_columns(Patch())


def new_state(n_games: int, build_width: int) -> State:
    """Zeroed state arrays for ``n_games`` (the kernels' ``S``; shapes and columns in ``game.state``)."""
    return State(
        uf=np.zeros((n_games, MAX_UNITS, N_UF), np.float32),
        ui=np.zeros((n_games, MAX_UNITS, N_UI), np.int32),
        hf=np.zeros((n_games, N_HEROES, N_HF), np.float64),
        hi=np.zeros((n_games, N_HEROES, N_HI), np.int32),
        items=np.full((n_games, N_HEROES, N_ITEM_SLOTS, N_IT), -1, np.int32),
        stash=np.full((n_games, N_HEROES, STASH), -1, np.int32),
        proj=np.zeros((n_games, MAX_PROJECTILES, N_PJ), np.float32),
        gi=np.zeros((n_games, N_GI), np.int64),
        hp_hist=np.zeros((n_games, MAX_UNITS, HP_HISTORY_LEN), np.float32),
        events=np.zeros((n_games, N_HEROES, N_EVENTS), np.float32),
        vis=np.zeros((n_games, 2, MAX_UNITS), np.uint8),
        grid_head=np.full((n_games, kernels.GRID_SIDE * kernels.GRID_SIDE), -1, np.int32),
        grid_next=np.full((n_games, MAX_UNITS), -1, np.int32),
        build_order=np.full((n_games, N_HEROES, build_width), -1, np.int64),
        assist_frames=np.zeros((n_games, N_HEROES, N_HEROES), np.int64),
        prev_fractions=np.zeros((n_games, MAX_UNITS, 2), np.float32),
    )


class GameBatch:
    """N independent games stepped together. Each game is a pure function of its seed and its actions."""

    def __init__(self, n_games: int, config: GameConfig | None = None, patch: Patch | None = None):
        if n_games < 1:
            raise ValueError(f"n_games must be at least 1, got {n_games}")
        self.config = config or GameConfig()
        self.patch = patch or Patch(self.config.patch)
        check_columns(self.patch)  # a patch's tables may have been edited after it was built
        self.n_games = n_games
        self.data = make_data(self.patch, n_games, self.config.move_goals, self.config.duel_kills,
                              self.config.net_worth_wins)
        self.state = new_state(n_games, self.patch.item_builds.shape[1])
        self.scratch = Scratch(vision_sources=np.zeros((2, MAX_UNITS, 3), np.float32))
        self.mode = MODES[self.config.mode]
        self.max_frames = int(self.config.max_seconds * FRAMES_PER_SECOND)
        self.lineup = fixed_lineup(self.patch, self.mode, self.config.radiant, self.config.dire)  # lineups "fixed"
        if self.config.lineups == "random":
            check_pool(self.patch, self.mode)
        self.randomisation = (RANDOM_BUILDS if self.config.training or self.config.randomise else 0) | \
            (RANDOM_START if self.config.randomise else 0)  # the bits of gi[G_TRAINING]
        self.hero_types = np.tile(self.lineup, (n_games, 1))  # (games, 10): each game's heroes since its reset
        self._noop = no_orders(n_games, N_HEROES)

    # ------------------------------------------------------------------ control
    def reset(self, seeds, which=None, features=None, hero_types=None) -> None:
        """Start fresh games: ``seeds[i]`` for game ``which[i]`` (all games when ``which`` is None), each with
        the feature mask ``features[i]`` (bits of ``patch.FEATURES``; None: the patch's own features) and the
        lineup ``hero_types[i]`` (10 indices of ``patch.heroes``, Radiant slots 0-4, Dire 5-9; in 5v5 a hero at
        most once per game, in 1v1 only slots 0 and 5 are read; None: the batch's ``config.lineups`` rule, the
        fixed lineup or one drawn from each game's seed)."""
        which = np.arange(self.n_games) if which is None else np.asarray(which, dtype=np.int64).reshape(-1)
        seeds = np.broadcast_to(np.asarray(seeds, dtype=np.uint64), which.shape).astype(np.uint64)
        if hero_types is None:
            if self.config.lineups == "random":
                self.hero_types[which] = random_lineups(self.patch, self.mode, seeds)
            else:
                self.hero_types[which] = self.lineup
        else:
            self.hero_types[which] = check_lineups(hero_types, len(which), self.patch, self.mode)
        features = self.patch.features if features is None else features
        self.data.features[which] = np.broadcast_to(np.asarray(features, dtype=np.int64), which.shape)
        kernels.reset_games(self.state, self.data, self.scratch, which.astype(np.int64), seeds, self.mode,
                            self.randomisation, self.max_frames, self.hero_types)

    def step(self, actions: np.ndarray | None = None) -> None:
        """One timestep (4 frames) of every running game; ``actions`` as from ``sanitize_actions``."""
        kernels.step_games(self.state, self.data, self.scratch, self._noop if actions is None else actions)

    # ------------------------------------------------------------------ views
    @property
    def frame(self) -> np.ndarray:
        return self.state.gi[:, G_FRAME]

    @property
    def seconds(self) -> np.ndarray:
        return self.state.gi[:, G_FRAME] / FRAMES_PER_SECOND

    @property
    def done(self) -> np.ndarray:
        """0 running, 1 terminated (an ancient fell / 1v1 decided), 2 truncated (time limit)."""
        return self.state.gi[:, G_DONE]

    @property
    def winner(self) -> np.ndarray:
        return self.state.gi[:, G_WINNER]

    @property
    def events(self) -> np.ndarray:
        return self.state.events

    @property
    def features(self) -> np.ndarray:
        """(games,) the feature mask each game plays with (bits of ``patch.FEATURES``)."""
        return self.data.features


def sanitize_actions(actions, n_games: int) -> np.ndarray:
    """Validate the shape of an action array and turn every malformed entry into a counted no-op.

    Entries may be any numeric dtype; NaN, infinities and out-of-range values mark the action invalid
    (primary = -1) rather than raising, as the env contract promises. Only a wrong *shape* raises.
    """
    arr = np.asarray(actions)
    expected = (n_games, N_HEROES, N_ACTION_FIELDS)
    if arr.shape != expected:
        raise ValueError(
            f"actions must have shape {expected} = (games, heroes, [primary, delay, unit_target, offset_x, "
            f"offset_y]); got shape {arr.shape}"
        )
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"actions must be numeric; got dtype {arr.dtype}") from None
    as_float = arr.astype(np.float64, copy=False)
    bad = ~np.isfinite(as_float)
    clean = np.where(bad, -1.0, as_float)
    clean = np.clip(clean, -(2**31), 2**31).astype(np.int64)
    out = clean.copy()
    limits = {ACT_PRIMARY: N_PRIMARY, ACT_DELAY: N_DELAY, ACT_OFFSET_X: N_OFFSET, ACT_OFFSET_Y: N_OFFSET}
    invalid = bad[..., [ACT_PRIMARY, ACT_DELAY, ACT_OFFSET_X, ACT_OFFSET_Y]].any(axis=-1)
    for col, n in limits.items():
        invalid |= (clean[..., col] < 0) | (clean[..., col] >= n)
    out[..., ACT_PRIMARY] = np.where(invalid, -1, clean[..., ACT_PRIMARY])
    out[..., ACT_DELAY] = np.where(invalid, 0, clean[..., ACT_DELAY])
    out[..., ACT_OFFSET_X] = np.where(invalid, 4, clean[..., ACT_OFFSET_X])
    out[..., ACT_OFFSET_Y] = np.where(invalid, 4, clean[..., ACT_OFFSET_Y])
    target_bad = bad[..., ACT_TARGET] | (clean[..., ACT_TARGET] < 0) | (clean[..., ACT_TARGET] >= MAX_UNITS)
    out[..., ACT_TARGET] = np.where(target_bad, -1, clean[..., ACT_TARGET])
    return out


__all__ = ["GameBatch", "GameConfig", "MODES", "sanitize_actions", "FRAMES_PER_STEP"]
