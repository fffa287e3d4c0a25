"""A run's policy as a lineup scorer: Radiant's win probability at the first frame of each lineup.

Definition (what ``fivestack draft RUN[:VERSION]`` drafts from). For a lineup (Radiant set R, Dire set D) of
hero types of the run's patch:

1. One 5v5 game with those lineups (``GameBatch.reset(hero_types=)``), reset with a fixed seed (``seed``, 0 by
   default) and no randomisation (``GameConfig.training`` and ``randomise`` off: the evaluation game). A team's
   heroes take its slots in ascending hero-type order (slot k, and so lane k, gets the k-th smallest type): a
   lineup is a pair of *sets*, and this is the one order the scorer plays them in.
2. The observation of the first timestep (the state right after the reset, before any action): "the win
   probability at the first frames". Both lineups are public in it (``hero_ids`` names every hero of the game,
   seen or not), so a team's prediction depends on the enemy's heroes too: counter-picks exist for the search.
3. The policy run once per team on it, from a fresh LSTM state (``first`` = 1), in fp32 on the CPU, gives each
   hero its win-probability head's output ``sigmoid(win_head(lstm output))``: the probability that *its own*
   team wins (the head's training target, ``fivestack/system/rollout.py``).
4. Radiant's win probability ``P(R, D) = a + b`` with ``a = 0.5 * mean over Radiant heroes of p`` and
   ``b = 0.5 * mean over Dire heroes of (1 - p)`` (float64): the mean of the ten heroes' opinions, each turned
   into Radiant's.

One game and two team forward passes per lineup, ``batch`` games per env reset (``benchmarks/draft_policy.py``
measures the rate). A scorer is deterministic: the same lineup gets the same score in any batch.

Map: ``PolicyScorer`` (``from_run``, ``observe``, ``score``, ``__call__`` for ``precompute``),
``team_win_probabilities`` (the forward pass: encoder, one LSTM step, the win head), ``radiant_share``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import torch

from fivestack.draft.lineups import TEAM_SIZE, DraftError, HeroPool
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.game.layout import HEROES_PER_TEAM
from fivestack.game.patch import Patch
from fivestack.model.policy import Policy
from fivestack.match.teams import active_heroes, team_view

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
    label: str = "policy"  # names the run and version in the scorer's name

    def __post_init__(self):
        if self.batch < 1:
            raise DraftError(f"the scorer's batch size must be at least 1, got {self.batch}")
        self.types = np.asarray(self.types, dtype=np.int64)
        self.policy.eval()
        self._env: BatchedEnv | None = None
        self.games_played = 0  # games reset and observed (the work the scorer did)
        self.team_forwards = 0  # team forward passes

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_run(cls, spec: str, pool_names: str | None = None, **kwargs) -> tuple["PolicyScorer", int]:
        """The scorer of a run's version (``RUN[:VERSION]``, resolved as ``fivestack play`` does) over the pool
        ``pool_names`` (comma-separated hero names of the run's patch; None: every hero of the patch); returns
        it and the version number."""
        from fivestack.match.agents import load_run_policy, parse_run_spec

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

    # ------------------------------------------------------------------ scoring
    def score(self, radiant: np.ndarray, dire: np.ndarray) -> np.ndarray:
        """Radiant's win probability of each lineup (rows of (B, 5) pool ids), one game per lineup, in batches of
        ``batch`` games."""
        out = np.empty(len(radiant))
        for start in range(0, len(radiant), self.batch):
            rows = slice(start, start + self.batch)
            p = team_win_probabilities(self.policy, self.observe(radiant[rows], dire[rows]))
            self.team_forwards += 2 * len(p)
            a, b = radiant_share(p)
            out[rows] = a + b
        return out

    def __call__(self, radiant: np.ndarray, dire: np.ndarray) -> np.ndarray:
        """The ``precompute`` scorer: Radiant's win probability per row of (B, 5) pool ids."""
        return self.score(np.asarray(radiant, np.int64), np.asarray(dire, np.int64))


def pool_tag(pool: HeroPool) -> str:
    """A short stable tag of a pool's names (a default table's file name for a pool other than the patch's)."""
    return hashlib.sha256(",".join(pool.names).encode()).hexdigest()[:8]
