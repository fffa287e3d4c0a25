"""TrueSkill ratings against a pool of frozen reference agents, on OpenAI Five's scale.

Settings (paper): sigma0 = 25/3, beta = sigma0 / 2, tau = 0, draw probability 0.02, and the random team is
anchored at mu = 0. A version is rated by playing reference agents near its own rating (within
``near_points``, ~15-85% win rates) and updating only its own rating: references are frozen.

The scale. A frozen reference keeps its mean *and* the prior's uncertainty sigma0: each game is then judged
with performance noise c^2 = 2 beta^2 + sigma^2 + sigma0^2, which puts a true 80% win rate at a gap of
~8.6 points (the paper: "a difference of approximately 8.3 TrueSkill ... roughly an 80% winrate"). Were the
references exact (sigma 0), the same settings would put 80% at ~5 points, off the paper's scale.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

# trueskill 0.4.5 has an invalid escape sequence in a docstring: Python 3.12+ warns as it compiles the module
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "invalid escape sequence", SyntaxWarning)
    import trueskill

SIGMA0 = 25.0 / 3.0
BETA = SIGMA0 / 2.0
TAU = 0.0
DRAW_PROBABILITY = 0.02
RANDOM = "random"


@dataclass
class Rating:
    mu: float
    sigma: float
    games: int = 0

    def to_dict(self) -> dict:
        return {"mu": self.mu, "sigma": self.sigma, "games": self.games}

    @staticmethod
    def from_dict(data: dict) -> "Rating":
        return Rating(float(data["mu"]), float(data["sigma"]), int(data.get("games", 0)))


def environment() -> trueskill.TrueSkill:
    return trueskill.TrueSkill(mu=0.0, sigma=SIGMA0, beta=BETA, tau=TAU, draw_probability=DRAW_PROBABILITY,
                               backend=None)


class ReferencePool:
    """Frozen reference agents (name -> mean rating) and the rating of new agents against them."""

    def __init__(self, references: dict[str, float] | None = None):
        self.env = environment()
        self.references: dict[str, float] = {RANDOM: 0.0}
        for name, mu in (references or {}).items():
            self.freeze(name, mu)

    def freeze(self, name: str, mu: float) -> None:
        if name == RANDOM and mu != 0.0:
            raise ValueError("the random team is the anchor of the scale and stays at mu = 0")
        self.references[name] = float(mu)

    def update(self, rating: Rating, opponent: str, score: float) -> Rating:
        """``rating`` after one game against reference ``opponent``; score 1 win, 0 loss, 0.5 draw."""
        if opponent not in self.references:
            raise KeyError(f"unknown reference agent {opponent!r}; known: {', '.join(self.references)}")
        me = self.env.create_rating(rating.mu, rating.sigma)
        them = self.env.create_rating(self.references[opponent], SIGMA0)
        if score == 0.5:
            me, _ = trueskill.rate_1vs1(me, them, drawn=True, env=self.env)
        elif score > 0.5:
            me, _ = trueskill.rate_1vs1(me, them, env=self.env)
        else:
            _, me = trueskill.rate_1vs1(them, me, env=self.env)
        return Rating(me.mu, me.sigma, rating.games + 1)

    def rate(self, rating: Rating, results: list[tuple[str, float]]) -> Rating:
        for opponent, score in results:
            rating = self.update(rating, opponent, score)
        return rating

    def near(self, mu: float, points: float) -> list[str]:
        """References within ``points`` of ``mu``; if none, the nearest one below and the nearest above."""
        close = [name for name, m in self.references.items() if abs(m - mu) <= points]
        if close:
            return close
        below = [n for n, m in self.references.items() if m <= mu]
        above = [n for n, m in self.references.items() if m > mu]
        out = []
        if below:
            out.append(max(below, key=lambda n: self.references[n]))
        if above:
            out.append(min(above, key=lambda n: self.references[n]))
        return out


def win_probability(mu_a: float, mu_b: float, sigma_a: float = 0.0) -> float:
    """P(a beats b) on this scale (b a frozen reference)."""
    c = math.sqrt(2 * BETA**2 + sigma_a**2 + SIGMA0**2)
    return 0.5 * (1.0 + math.erf((mu_a - mu_b) / (c * math.sqrt(2.0))))
