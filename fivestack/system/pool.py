"""The opponent pool: past versions of the policy, sampled by quality, as in OpenAI Five.

    80% of games are latest vs latest; 20% are latest vs a past version i drawn with p = softmax(q)_i.
    Every ``add_every_versions`` versions the current agent joins the pool with q = max(q).
    When the current agent beats past version i:  q_i <- q_i - eta / (N p_i)   (N = pool size).

A rollout worker plays at most ``opponent_slots`` past versions at once (``OpponentSlots``): a game that draws a
past opponent takes a free slot and draws its version there (p = softmax(q)), or, when every slot is played,
joins the slot drawn last; a slot is redrawn only when no game plays it. So each decision runs
at most k past forward passes, and each game's past version is still drawn with p = softmax(q).

Past versions live on disk as ``runs/NAME/pool/VERSION.safetensors`` (weights only) and are loaded lazily
through a small cache. The pool's bookkeeping (versions, qualities, games played) is plain JSON in the
controller's checkpoint, so it survives ``--resume``.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from typing import Callable
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import save_file

from fivestack.model.policy import Policy, PolicyConfig
from fivestack.runs.checkpoints import PoolError, read_snapshot, snapshot_path
from fivestack.runs.config import PoolConfig
from fivestack.match.inference import Inference
from fivestack.match.inference import InferenceRequest, InferenceResult

LATEST = -1  # the "opponent version" of a latest-vs-latest game
BOT = -2  # the "opponent version" of a game against the training bot (``pool.bot``, ``pool.bot_fraction``)


class OpponentPool:
    def __init__(self, config: PoolConfig, directory: Path):
        self.config = config
        self.directory = Path(directory)
        self.versions: list[int] = []
        self.quality = np.zeros(0, np.float64)
        self.games = np.zeros(0, np.int64)  # games played against each version
        self.wins = np.zeros(0, np.int64)  # of those, games the latest agent won
        self.last_joined = -1  # the last version that joined

    def __len__(self) -> int:
        return len(self.versions)

    # ------------------------------------------------------------------ sampling
    def probabilities(self) -> np.ndarray:
        """p = softmax(q)."""
        if not self.versions:
            return np.zeros(0)
        z = np.exp(self.quality - self.quality.max())
        return z / z.sum()

    def sample(self, rng: np.random.Generator) -> int:
        """A past version drawn with p = softmax(q)."""
        if not self.versions:
            raise PoolError("the opponent pool is empty; add a version before sampling")
        return self.versions[int(rng.choice(len(self.versions), p=self.probabilities()))]

    def choose_opponent(self, rng: np.random.Generator) -> int:
        """The opponent of a new game: ``LATEST`` (80%) or a past version (20%)."""
        if self.versions and rng.random() < self.config.past_fraction:
            return self.sample(rng)
        return LATEST

    # ------------------------------------------------------------------ updates
    def join_if_due(self, version: int, weights: Callable[[], dict[str, torch.Tensor]]) -> bool:
        """Add ``version`` (its ``weights()``) when it crossed a multiple of ``add_every_versions`` since the last
        version joined (the first version joins at once): training may advance several versions at a time."""
        every = self.config.add_every_versions
        if every <= 0 or (self.last_joined >= 0 and version // every <= self.last_joined // every):
            return False
        if version not in self.versions:
            self.add(version, weights())
        self.last_joined = version
        return True

    def add(self, version: int, weights: dict[str, torch.Tensor]) -> Path:
        """Store ``weights`` as past version ``version``, joining with q = max(q) (0 for the first)."""
        if version in self.versions:
            raise PoolError(f"version {version} is already in the opponent pool")
        path = self.path_of(version)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".tmp-{path.name}-{os.getpid()}")
        save_file({k: v.detach().contiguous().clone() for k, v in weights.items()}, str(tmp))
        os.replace(tmp, path)  # a crash never leaves half a file under the final name
        self.quality = np.append(self.quality, self.quality.max() if self.versions else 0.0)
        self.versions.append(int(version))
        self.games = np.append(self.games, 0)
        self.wins = np.append(self.wins, 0)
        return path

    def record_games(self, games: list[dict]) -> None:
        """Score the past versions of finished games (a rollout worker's ``results``); other games are skipped."""
        for game in games:
            if game.get("opponent", LATEST) >= 0:
                self.record_game(game["opponent"], game["winner"] == 1 - game["opponent_side"])

    def record_game(self, version: int, latest_won: bool) -> None:
        """One finished game of the latest agent against past ``version``; a win lowers that version's quality."""
        if version not in self.versions:
            return  # the version left the pool (e.g. a resumed run with a different pool); nothing to score
        i = self.versions.index(version)
        self.games[i] += 1
        if latest_won:
            p = self.probabilities()[i]
            self.quality[i] -= self.config.learning_rate / (len(self.versions) * p)
            self.wins[i] += 1

    # ------------------------------------------------------------------ weights
    def path_of(self, version: int) -> Path:
        return snapshot_path(self.directory, version)

    def weights(self, version: int) -> dict[str, torch.Tensor]:
        """The weights of past ``version``, read from disk."""
        return read_snapshot(self.path_of(version), version)

    # ------------------------------------------------------------------ persistence (JSON in the checkpoint)
    def state_dict(self) -> dict:
        return {"versions": list(self.versions), "quality": self.quality.tolist(), "games": self.games.tolist(),
                "wins": self.wins.tolist(), "last_joined": self.last_joined}

    def load_state_dict(self, state: dict) -> None:
        self.versions = [int(v) for v in state["versions"]]
        self.quality = np.asarray(state["quality"], np.float64)
        self.games = np.asarray(state["games"], np.int64)
        self.wins = np.asarray(state.get("wins", [0] * len(self.versions)), np.int64)
        self.last_joined = int(state.get("last_joined", self.versions[-1] if self.versions else -1))
        if not (len(self.versions) == self.quality.size == self.games.size == self.wins.size):
            raise PoolError("the checkpoint's opponent pool is inconsistent (lists of different lengths)")

    def summary(self) -> dict[str, float]:
        """Metrics for TensorBoard: pool size, the spread of qualities, the most likely opponent."""
        if not self.versions:
            return {"pool/size": 0.0}
        p = self.probabilities()
        return {"pool/size": float(len(self.versions)), "pool/quality_max": float(self.quality.max()),
                "pool/quality_min": float(self.quality.min()), "pool/top_probability": float(p.max()),
                "pool/top_version": float(self.versions[int(p.argmax())])}


class OpponentSlots:
    """At most ``k`` past versions in play per rollout worker: slot s holds version ``versions[s]`` and is played
    by the games ``players[s]``.

    A game that needs a past opponent (``take``) takes the first free slot (no game plays it) and draws its version
    there, ``draw()``; when every slot is played it joins the youngest slot (the one drawn last), so that the
    older ones get no new games, empty, and are drawn again: every slot is redrawn within about a game's length of
    the last game joining it (one slot joined by overlapping games might never empty: ``k >= 2``). A slot's version changes only when it is taken free, so no game's
    opponent changes during the game. Which slot a game takes depends only on which slots are played and in what
    order they were drawn, never on the versions they hold, so the version each game plays is distributed as one
    ``draw()``: the pool's p = softmax(q) at the time of the slot's draw (exactly so when a game's length does not
    depend on the version it plays; a version whose games last longer keeps its slot a little longer). Games
    that share a slot share its draw: the versions of a worker's past games are correlated over about a game's
    length, not biased. With ``k`` at least the number of games, every game draws its own version, as without
    slots, and from the same random numbers.
    """

    def __init__(self, k: int):
        if k < 2:  # one slot joined by overlapping games would never empty, and keep its version for ever
            raise ValueError(f"opponent slots must be at least 2, got {k}")
        self.k = int(k)
        self.versions = np.full(self.k, LATEST, np.int64)  # LATEST: never drawn
        self.drawn_at = np.full(self.k, -1, np.int64)  # the draw count when each slot was drawn
        self.players: list[set[int]] = [set() for _ in range(self.k)]
        self.slot_of: dict[int, int] = {}  # game -> the slot it plays
        self.draws = 0  # versions drawn into slots
        self.joins = 0  # games that joined a played slot

    def release(self, game: int) -> None:
        """Game ``game`` no longer plays its slot (it ended, or plays someone else now)."""
        slot = self.slot_of.pop(int(game), None)
        if slot is not None:
            self.players[slot].discard(int(game))

    def take(self, game: int, draw: Callable[[], int]) -> int:
        """The past version new game ``game`` plays: a free slot's fresh ``draw()``, else a played slot's."""
        self.release(game)
        free = [s for s in range(self.k) if not self.players[s]]
        if free:
            slot = free[0]
            self.versions[slot] = draw()
            self.drawn_at[slot] = self.draws
            self.draws += 1
        else:
            slot = self.join()
            self.joins += 1
        self.players[slot].add(int(game))
        self.slot_of[int(game)] = slot
        return int(self.versions[slot])

    def join(self) -> int:
        """The played slot a new game joins when none is free: the youngest."""
        return int(np.argmax(self.drawn_at))

    def in_play(self) -> set[int]:
        """The versions of the slots some game plays (at most ``k``)."""
        return {int(self.versions[s]) for s in range(self.k) if self.players[s]}


class PastOpponents:
    """What a rollout worker needs from the pool: an opponent for each new game, and a policy per version.

    A new game plays a past version with probability ``pool.past_fraction``; its version comes from one of the
    worker's ``pool.opponent_slots`` slots (``OpponentSlots``), so at most that many past versions play at once.
    Past policies are built lazily and kept in an LRU cache of ``pool.cache_size`` policies that never
    evicts a version still in play (the worker says which with ``in_play``): a past version's weights are read
    once when its first game starts, not once per step. Each acts with its own sampling generator.
    ``loads`` counts the weights read.
    """

    def __init__(self, pool: OpponentPool, policy_config: PolicyConfig, seed: int = 0,
                 load_weights: Callable[[int], dict[str, torch.Tensor]] | None = None, patch: str | None = None):
        self.pool = pool
        self.policy_config = policy_config
        self.patch = patch  # the game's patch version (its observation features widen the policy's inputs)
        self.seed = seed
        self.load_weights = load_weights or pool.weights  # the ray runner serves them from its controller
        self._cache: OrderedDict[int, Inference] = OrderedDict()
        self._in_play: set[int] = set()
        self.loads = 0
        self.slots = OpponentSlots(pool.config.opponent_slots)

    def choose_opponent(self, rng: np.random.Generator, game: int = 0) -> int:
        """The opponent of new game ``game``: ``LATEST`` (1 - ``past_fraction``) or the past version of a slot.
        The game's previous slot, if any, is released first (a game that ends frees its slot)."""
        self.slots.release(game)
        if self.pool.versions and rng.random() < self.pool.config.past_fraction:
            return self.slots.take(game, lambda: self.pool.sample(rng))
        return LATEST

    def release(self, game: int) -> None:
        """Game ``game`` plays no past version any more (e.g. it now plays the bot)."""
        self.slots.release(game)

    def in_play(self, versions) -> None:
        """The past versions the worker's games are playing now: the cache keeps them whatever its size."""
        self._in_play = {int(v) for v in versions}

    def inference(self, version: int) -> Callable[[InferenceRequest], InferenceResult]:
        if version in self._cache:
            self._cache.move_to_end(version)
            return self._cache[version]
        policy = Policy(self.policy_config, self.patch)
        policy.load_state_dict(self.load_weights(version))
        self.loads += 1
        policy.eval()
        infer = Inference(policy, seed=self.seed + version)
        infer.version = version
        self._cache[version] = infer
        evictable = [v for v in self._cache if v not in self._in_play and v != version]  # oldest use first
        for old in evictable[:max(len(self._cache) - max(self.pool.config.cache_size, 1), 0)]:
            del self._cache[old]
        return infer
