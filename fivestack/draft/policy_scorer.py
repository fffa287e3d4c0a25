"""A run's policy as a lineup scorer: Radiant's win probability at the first frame of each lineup.

Definition (what ``fivestack draft RUN[:VERSION]`` drafts from). For a lineup (Radiant set R, Dire set D) of
hero types of the run's patch:

1. One 5v5 game with those lineups (``GameBatch.reset(hero_types=)``), reset with a fixed seed (``seed``, 0 by
   default) and no randomisation (``GameConfig.training`` and ``randomise`` off: the evaluation game). A team's heroes take its slots in ascending hero-type
   order (slot k, and so lane k, gets the k-th smallest type): a lineup is a pair of *sets*, and this is the
   one order the scorer plays them in.
2. The observation of the first timestep (the state right after the reset, before any action): "the win
   probability at the first frames". Later frames would need actions (whose?) and, under the fog, show no more
   of the enemy (see below).
3. The policy run once per team on it, from a fresh LSTM state (``first`` = 1), in fp32 on the CPU, gives each
   hero its win-probability head's output ``sigmoid(win_head(lstm output))``: the probability that *its own*
   team wins (the head's training target, ``fivestack/system/rollout.py``).
4. Radiant's win probability ``P(R, D) = a(R) + b(D)`` with ``a = 0.5 * mean over Radiant heroes of p`` and
   ``b = 0.5 * mean over Dire heroes of (1 - p)`` (float64): the mean of the ten heroes' opinions, each turned
   into Radiant's.

Two ways to compute it, the same numbers:

* ``plain``: one game per lineup, both teams' forward passes: ``score(radiant, dire)``.
* ``separable``: a team's observation at the first frame does not depend on the enemy's heroes (the fog hides
  them: they stand in their own base), so ``a`` is a function of R alone and ``b`` of D alone. The scorer
  computes ``a`` for every 5-set (as Radiant) and ``b`` for every 5-set (as Dire): 2 * C(n, 5) team games
  (12,376 for 17 heroes instead of 4,900,896 lineups), and a lineup's score is two table reads. Whether a
  team's observation really ignores the enemy is checked on the game itself (``check_separable``: several own
  sets against several enemy sets, every observation group compared bit for bit) before the separable tables
  are used; if it fails, ``mode="auto"`` falls back to ``plain`` and says so.

The consequence for drafting (reported, not hidden): with the first-frame observation, a side's value does not
depend on the enemy's picks, so the search finds no counter-picks; it picks the best own team.

Map: ``PolicyScorer`` (``from_run``, ``score``, ``team_values``, ``__call__`` for ``precompute``),
``check_separable``, ``team_win_probabilities`` (the forward pass: encoder, one LSTM step, the win head).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from math import comb
from typing import Callable

import numpy as np
import torch

from fivestack.draft.lineups import TEAM_SIZE, DraftError, HeroPool, LineupIndex
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.game.layout import HEROES_PER_TEAM
from fivestack.game.patch import Patch
from fivestack.model.policy import Policy
from fivestack.system.rollout import active_heroes, team_view

MODES = ("auto", "separable", "plain")


@torch.no_grad()
def team_win_probabilities(policy: Policy, obs: dict[str, np.ndarray]) -> np.ndarray:
    """(games, 2, 5) float32: each hero's win-probability output (its own team wins) on the env observation
    ``obs`` (a 5v5 ``BatchedEnv``'s), from a fresh LSTM state: the encoder, one LSTM step and the win head,
    as ``Policy.act`` computes them (without the action heads)."""
    heroes = active_heroes("5v5")
    view = team_view(obs, heroes)
    teams = view["units"].shape[0]
    obs_t = {name: torch.from_numpy(arr) for name, arr in view.items()}
    slots = torch.from_numpy(np.tile(heroes, (teams // 2, 1)).astype(np.int64))
    features, _ = policy.encode(obs_t, slots)
    state = policy.initial_state(teams * HEROES_PER_TEAM)
    core, _ = policy.core_step(features, state, torch.ones(teams))
    win = torch.sigmoid(policy.win_head(core).squeeze(-1).float())
    return win.view(teams // 2, 2, HEROES_PER_TEAM).numpy()


def radiant_share(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) of the module docstring from (games, 2, 5) per-hero win probabilities: a = 0.5 * mean of Radiant's
    p, b = 0.5 * mean of Dire's (1 - p), float64; Radiant's win probability is a + b."""
    p = p.astype(np.float64)
    return 0.5 * p[:, 0].mean(axis=1), 0.5 * (1.0 - p[:, 1]).mean(axis=1)


@dataclass
class PolicyScorer:
    """Scores lineups of ``pool`` (hero types of ``patch``, by position: pool hero i is patch hero
    ``types[i]``) with ``policy``; ``batch`` games per env (one env is built and reset per batch)."""

    policy: Policy
    patch: Patch
    types: np.ndarray  # (n,) patch hero type of each pool hero
    pool: HeroPool
    seed: int = 0
    batch: int = 64
    mode: str = "auto"
    label: str = "policy"  # names the run and version in the scorer's name
    say: Callable[[str], None] | None = None
    progress: Callable[[int, int], None] | None = None  # (team games done, of) while the team tables fill

    def __post_init__(self):
        if self.mode not in MODES:
            raise DraftError(f"scorer mode {self.mode!r} is unknown; use one of {', '.join(MODES)}")
        if self.batch < 1:
            raise DraftError(f"the scorer's batch size must be at least 1, got {self.batch}")
        self.types = np.asarray(self.types, dtype=np.int64)
        self.policy.eval()
        self._env: BatchedEnv | None = None
        self._tables: tuple[np.ndarray, np.ndarray] | None = None
        self.games_played = 0  # games reset and observed (the work the scorer did)
        self.team_forwards = 0  # team forward passes

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_run(cls, spec: str, pool_names: str | None = None, **kwargs) -> tuple["PolicyScorer", int]:
        """The scorer of a run's version (``RUN[:VERSION]``, resolved as ``fivestack play`` does) over the pool
        ``pool_names`` (comma-separated hero names of the run's patch; None: every hero of the patch); returns
        it and the version number."""
        from fivestack.system.agents import load_run_policy, parse_run_spec

        try:
            policy, config, version = load_run_policy(spec)
            run = parse_run_spec(spec)[0]
        except ValueError as exc:
            raise DraftError(str(exc)) from None
        if config.game.mode != "5v5":
            raise DraftError(f"run {spec} plays {config.game.mode}; drafting is for 5v5 teams: draft with a 5v5 run")
        patch = Patch(config.game.patch)
        names = [h.name for h in patch.heroes]
        if pool_names:
            typed = [name.strip() for name in pool_names.split(",") if name.strip()]
            if any(name.isdigit() for name in typed):
                raise DraftError("with a run, --pool takes hero names of the run's patch, not numbers")
            lowered = [n.lower() for n in names]
            unknown = [n for n in typed if n.lower() not in lowered]
            if unknown:
                raise DraftError(f"--pool names heroes that are not in patch {patch.version}: {unknown}; its "
                                 f"heroes: {', '.join(names)}")
            chosen = HeroPool(tuple(typed))
            types = [lowered.index(n.lower()) for n in chosen.names]
            pool = HeroPool(tuple(names[t] for t in types))
        else:
            if len(names) < 2 * TEAM_SIZE:
                raise DraftError(f"run {spec} plays patch {patch.version} with {len(names)} heroes "
                                 f"({', '.join(names)}); a draft needs at least {2 * TEAM_SIZE}: draft with a run "
                                 f"of a patch with more heroes")
            types, pool = list(range(len(names))), HeroPool(tuple(names))
        label = f"policy(run={run.resolve().name},version={version})"  # the folder's name, however it was typed
        return cls(policy, patch, np.array(types), pool, label=label, **kwargs), version

    @property
    def name(self) -> str:
        """What the table's progress file records: run, version, seed, and the definition."""
        return f"{self.label},seed={self.seed},frame=first,combine=mean"

    # ------------------------------------------------------------------ games
    def _games(self, n: int) -> BatchedEnv:
        if self._env is None or self._env.n_games != n:
            config = GameConfig(mode="5v5", training=False, randomise=False, patch=self.patch.version)
            self._env = BatchedEnv(n, config, patch=self.patch)
        return self._env

    def observe(self, radiant: np.ndarray, dire: np.ndarray) -> dict[str, np.ndarray]:
        """The first-frame observations of one game per row (pool ids (B, 5) each; any order within a row)."""
        radiant, dire = np.sort(np.asarray(radiant, np.int64), 1), np.sort(np.asarray(dire, np.int64), 1)
        env = self._games(len(radiant))
        lineups = np.concatenate([self.types[radiant], self.types[dire]], axis=1)
        obs = env.reset(np.full(len(radiant), self.seed, np.uint64), hero_types=lineups)
        self.games_played += len(radiant)
        return obs

    def _shares(self, radiant: np.ndarray, dire: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(a, b) of every row, in batches of ``batch`` games."""
        a, b = np.empty(len(radiant)), np.empty(len(radiant))
        for start in range(0, len(radiant), self.batch):
            rows = slice(start, start + self.batch)
            p = team_win_probabilities(self.policy, self.observe(radiant[rows], dire[rows]))
            self.team_forwards += 2 * len(p)
            a[rows], b[rows] = radiant_share(p)
        return a, b

    # ------------------------------------------------------------------ scoring
    def score(self, radiant: np.ndarray, dire: np.ndarray) -> np.ndarray:
        """Plain: Radiant's win probability of each lineup, one game per lineup."""
        a, b = self._shares(radiant, dire)
        return a + b

    def filler(self, team: np.ndarray) -> np.ndarray:
        """For each row (B, 5) of pool ids, the five smallest pool ids not in it: the other side of a team game."""
        n = self.pool.n
        free = np.ones((len(team), n), bool)
        np.put_along_axis(free, team, False, axis=1)
        return np.argsort(~free, axis=1, kind="stable")[:, :TEAM_SIZE]

    def team_values(self) -> tuple[np.ndarray, np.ndarray]:
        """(a, b): arrays over every 5-set of the pool in colex rank order (``LineupIndex.radiant_sets``), a as
        Radiant, b as Dire; computed once (2 * C(n, 5) games)."""
        if self._tables is None:
            sets = LineupIndex.of(self.pool.n).radiant_sets
            others = self.filler(sets)
            a, b = np.empty(len(sets)), np.empty(len(sets))
            total = 2 * len(sets)
            for start in range(0, len(sets), self.batch):
                rows = slice(start, start + self.batch)
                a[rows] = self._shares(sets[rows], others[rows])[0]
                b[rows] = self._shares(others[rows], sets[rows])[1]
                if self.progress:
                    self.progress(2 * min(start + self.batch, len(sets)), total)
            self._tables = (a, b)
        return self._tables

    def separable(self) -> bool:
        """Whether the separable tables are used (``mode``; in ``auto``, ``check_separable`` decides once)."""
        if self.mode == "auto":
            ok, why = check_separable(self)
            self.mode = "separable" if ok else "plain"
            if self.say:
                self.say("a team's first-frame observation ignores the enemy's heroes: scoring every team once "
                         "(separable)" if ok else f"scoring every lineup with its own game (plain): {why}")
        return self.mode == "separable"

    def __call__(self, radiant: np.ndarray, dire: np.ndarray) -> np.ndarray:
        """The ``precompute`` scorer: Radiant's win probability per row of (B, 5) pool ids."""
        radiant, dire = np.asarray(radiant, np.int64), np.asarray(dire, np.int64)
        if not self.separable():
            return self.score(radiant, dire)
        a, b = self.team_values()
        return a[_set_ranks(radiant)] + b[_set_ranks(dire)]


def _set_ranks(teams: np.ndarray) -> np.ndarray:
    """Colex rank of each row's set (B, 5) of pool ids (``lineups.subset_rank``, vectorised)."""
    ordered = np.sort(teams, axis=1)
    binom = np.array([[comb(c, j) for j in range(TEAM_SIZE + 1)] for c in range(int(ordered.max()) + 1)],
                     dtype=np.int64)
    return sum(binom[ordered[:, j - 1], j] for j in range(1, TEAM_SIZE + 1))


def check_separable(scorer: PolicyScorer, own_sets: int = 4, enemy_sets: int = 3, seed: int = 0) -> tuple[bool, str]:
    """Whether a team's first-frame observation is the same whatever the enemy's heroes: ``own_sets`` random own
    5-sets (and the pool's first and last five), each against ``enemy_sets`` random disjoint enemy sets, on both
    sides; every observation group of the team (its team rows and its heroes' rows) compared bit for bit.
    Returns (ok, the first difference found)."""
    rng = np.random.default_rng(seed)
    n = scorer.pool.n
    owns = [np.arange(TEAM_SIZE), np.arange(n - TEAM_SIZE, n)] + [
        np.sort(rng.choice(n, TEAM_SIZE, replace=False)) for _ in range(own_sets)]
    own_rows, enemy_rows = [], []
    for own in owns:
        rest = np.setdiff1d(np.arange(n), own)
        for _ in range(enemy_sets):
            own_rows.append(own)
            enemy_rows.append(np.sort(rng.choice(rest, TEAM_SIZE, replace=False)))
    own_rows, enemy_rows = np.array(own_rows), np.array(enemy_rows)
    for side in (0, 1):
        r, d = (own_rows, enemy_rows) if side == 0 else (enemy_rows, own_rows)
        obs = {k: v.copy() for k, v in scorer.observe(r, d).items()}
        heroes = slice(side * HEROES_PER_TEAM, (side + 1) * HEROES_PER_TEAM)
        for name, arr in obs.items():
            part = arr[:, side] if arr.shape[1] == 2 else arr[:, heroes]
            for g in range(len(r)):
                first = g - g % enemy_sets
                if not np.array_equal(part[g], part[first]):
                    return False, (f"{('Radiant', 'Dire')[side]}'s {name!r} observation changes with the enemy's "
                                   f"heroes (own {own_rows[g].tolist()}, enemies {enemy_rows[first].tolist()} vs "
                                   f"{enemy_rows[g].tolist()})")
    return True, ""


def pool_tag(pool: HeroPool) -> str:
    """A short stable tag of a pool's names (a default table's file name for a pool other than the patch's)."""
    return hashlib.sha256(",".join(pool.names).encode()).hexdigest()[:8]
