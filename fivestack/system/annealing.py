"""Annealing a new game feature into training, as OpenAI Five did after a game patch: the feature is switched on
in a growing share of rollout games (0 -> 100%) rather than in all of them at once, and when TrueSkill drops the
share goes back and the schedule slows.

* ``anneal_share``: the schedule, one pure function: the share of new games with the feature at a version.
* ``draw_features``: the rule it feeds, each new rollout game's feature mask (the rollout worker's
  ``GameFeatures`` hook calls it for every game it starts, in both runners).
* ``Annealing``: the schedule's state and its revert rule, a small pure state machine kept in ``RunState.anneal``
  so that a resumed run goes on where it was. The training loop of both runners (``loop.py``) asks it for
  ``share(version)`` (the serial runner's worker draws with it each segment, the ray actors read it from the
  controller), logs its ``metrics`` and hands it every TrueSkill rating (``on_record``).

The revert rule: a rating of version v with mean ``mu`` and deviation ``sigma`` (TrueSkill points, the
evaluator's ``eval/trueskill_mu`` and ``eval/trueskill_sigma``) is a *drop* when ``best_mu - mu >
drop_sigmas x sigma``, ``best_mu`` being the best mu rated since annealing began. On a drop, if the share at v is
above the share the best rating was played at, the schedule restarts at v from that share (the level before it
grew past the best rating's; 0 when the best came first) and its rate (share per version) is multiplied by
``slowdown``. A rating at 100% that is not a drop ends annealing: the share stays 100% for good.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from fivestack.game.patch import feature_mask


def anneal_share(version: int, anchor_version: int, anchor_share: float, rate: float) -> float:
    """The share of new games with the feature at ``version``: ``anchor_share`` at ``anchor_version``, growing by
    ``rate`` per version after it, at most 1 (and ``anchor_share`` before it)."""
    share = anchor_share + rate * max(version - anchor_version, 0)
    return 1.0 if share > 1.0 - 1e-9 else float(max(0.0, share))  # 1 exactly at the end, whatever the rounding


def draw_features(rng: np.random.Generator, n: int, share: float, feature: int) -> np.ndarray:
    """The feature masks of ``n`` new games: each has ``feature`` with probability ``share``, drawn with ``rng``."""
    return np.where(rng.random(n) < share, feature, 0).astype(np.int64)


@dataclass
class Annealing:
    """The schedule of one annealed feature (``share``) and its revert rule (``on_rating``).

    ``anchor_version``, ``anchor_share`` and ``rate`` are the schedule now (``anneal_share``); ``best_mu`` and
    ``best_share`` the best rating since annealing began and the share its version was played at."""

    feature: str
    start_version: int
    anchor_version: int
    anchor_share: float
    rate: float  # share per version (slowed by each revert)
    drop_sigmas: float
    slowdown: float
    best_mu: float | None = None
    best_share: float = 0.0
    reverts: int = 0
    finished: bool = False

    @classmethod
    def start(cls, config, version: int) -> "Annealing":
        """Annealing ``config.feature`` (an ``AnnealConfig``) from ``version`` on, at ``config.start_share``."""
        rate = (1.0 - config.start_share) / config.versions
        return cls(config.feature, version, version, config.start_share, rate, config.drop_sigmas, config.slowdown)

    @classmethod
    def from_state(cls, config, state: dict, version: int) -> "Annealing | None":
        """The annealing of a run: None when ``config.feature`` is empty, the saved ``state`` when it anneals the
        same feature, else a new one starting at ``version`` (a run resumed, or operated on, with a new feature).
        ``drop_sigmas`` and ``slowdown`` are always the config's."""
        if not config.feature:
            return None
        if not state or state.get("feature") != config.feature:
            return cls.start(config, version)
        keep = {k: state[k] for k in ("start_version", "anchor_version", "anchor_share", "rate", "best_mu",
                                      "best_share", "reverts", "finished")}
        return cls(feature=config.feature, drop_sigmas=config.drop_sigmas, slowdown=config.slowdown, **keep)

    def state_dict(self) -> dict:
        state = asdict(self)
        del state["drop_sigmas"], state["slowdown"]
        return state

    @property
    def mask(self) -> int:
        return feature_mask([self.feature])

    def share(self, version: int) -> float:
        """The share of games started at ``version`` that play with the feature."""
        return 1.0 if self.finished else anneal_share(version, self.anchor_version, self.anchor_share, self.rate)

    def on_rating(self, version: int, mu: float, sigma: float) -> bool:
        """Take the TrueSkill rating of ``version``; True if it reverted the share (and slowed the schedule)."""
        if self.finished or version < self.start_version:
            return False
        share = self.share(version)
        if self.best_mu is not None and self.best_mu - mu > self.drop_sigmas * sigma:
            if share > self.best_share:
                self.anchor_version, self.anchor_share = version, self.best_share
                self.rate *= self.slowdown
                self.reverts += 1
                return True
            return False
        if self.best_mu is None or mu > self.best_mu:
            self.best_mu, self.best_share = float(mu), share
        self.finished = share >= 1.0
        return False

    def on_record(self, record: dict) -> bool:
        """``on_rating`` for an evaluator's rating record (``RatingSchedule.finish``)."""
        return self.on_rating(int(record["version"]), float(record["mu"]), float(record["sigma"]))

    def metrics(self, share: float, counts: dict) -> dict[str, float]:
        """What the runners log each segment (serial) or interval (ray): the share games were drawn with, and
        ``counts``' games started and started with the feature (a segment's info, the ray controller's totals)."""
        return {"anneal/share": float(share), "anneal/games_with_feature": float(counts["games_with_feature"]),
                "anneal/games_started": float(counts["games_started"]), "anneal/rate": self.rate,
                "anneal/reverts": float(self.reverts)}
