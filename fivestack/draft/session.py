"""One draft in progress, shared by the terminal draft (``play.py``) and the browser's draft screen
(``fivestack/draft/server.py``): the state, every rule a pick must pass, and the calls to the search.

Map of this file:

* ``PickError``: a refused pick (a ``DraftError`` with a ``code``: ``unknown_hero``, ``taken``,
  ``not_your_turn``, ``complete``), one message naming the problem and the fix.
* ``LineupMeans``: the value of the lineup so far, the mean table value over every lineup that completes the
  picks made (what they are worth if the rest were drawn at random), vectorised over the table's matrix of
  (Radiant set, Dire set relative to the rest).
* ``Pick``: one pick as made: number, side, hero, who made it, Radiant's win probability with best play from
  there on (the minimax value), the lineup-so-far mean, and for the search's picks its answer time; for a
  person's pick, what the search would have picked there and its value.
* ``DraftSession``: the state (Radiant's and Dire's heroes in pick order), ``next_side`` / ``human_to_pick``,
  ``resolve`` (a typed name or number, or a hero id, to an available hero), ``pick`` (a person's pick) and
  ``search_pick`` (the search's), and ``to_json`` for the page.

Only the search decides the search's picks; the session checks each person's pick against the pool, the heroes
taken and the pick order before anything changes, so a refused pick leaves the state as it was.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from fivestack.draft.lineups import (
    DIRE, RADIANT, SIDE_NAMES, DraftError, HeroPool, LineupIndex, mask_of, pick_sides,
)
from fivestack.draft.search import Drafter

SEARCH, PERSON = "search", "person"


class PickError(DraftError):
    """A pick the rules refuse; ``code`` names the rule (for the page's JSON error)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


class LineupMeans:
    """Mean table value over the lineups that complete a partial draft, for a pool of ``n`` heroes.

    The table in rank order is a matrix: row ``rank(R)`` (Radiant's 5-set), column ``rank(D relative to the
    heroes not in R)``. A lineup completes (radiant, dire) when Radiant's set holds every Radiant hero and no
    Dire hero, and Dire's set, as positions among the heroes not in R, holds every Dire hero's position."""

    def __init__(self, values: np.ndarray, n: int):
        index = LineupIndex.of(n)
        self.rest_of = index.rest_of
        self.matrix = np.asarray(values, dtype=np.float64).reshape(len(index.radiant_sets), len(index.relative_sets))
        bits = np.int64(1) << np.arange(max(n, 1), dtype=np.int64)
        self.radiant_masks = bits[index.radiant_sets].sum(1)
        self.relative_masks = bits[index.relative_sets].sum(1)

    def mean(self, radiant=(), dire=()) -> float:
        r, d = mask_of(radiant), mask_of(dire)
        rows = np.flatnonzero(((self.radiant_masks & r) == r) & ((self.radiant_masks & d) == 0))
        rest_bits = np.int64(1) << np.arange(self.rest_of.shape[1], dtype=np.int64)
        in_dire = np.isin(self.rest_of[rows], list(dire))
        relative = (in_dire * rest_bits).sum(1)  # each row's Dire heroes as positions among the rest
        fits = (self.relative_masks[None, :] & relative[:, None]) == relative[:, None]
        return float((self.matrix[rows] * fits).sum() / fits.sum())


@dataclass(frozen=True)
class Pick:
    """One pick as made. ``value``: Radiant's win probability with best play from the state after it;
    ``lineup_mean``: the mean over the lineups that complete it; ``seconds``: the search's answer time (its
    picks); ``search_hero`` / ``search_value``: what the search would have picked instead (a person's picks)."""

    number: int
    side: int
    hero: int
    by: str
    value: float
    lineup_mean: float
    seconds: float | None = None
    search_hero: int | None = None
    search_value: float | None = None


class DraftSession:
    """A draft of ``pool`` on ``drafter``'s table; ``human`` is the side a person drafts (RADIANT, DIRE), or None
    when the search drafts both sides."""

    def __init__(self, drafter: Drafter, pool: HeroPool, human: int | None, means: LineupMeans | None = None,
                 roles: dict[int, str] | None = None):
        if drafter.n != pool.n:
            raise DraftError(f"the search was built for {drafter.n} heroes but the pool has {pool.n}")
        if human not in (RADIANT, DIRE, None):
            raise DraftError(f"the person's side must be Radiant ({RADIANT}), Dire ({DIRE}) or None, not {human!r}")
        self.drafter, self.pool, self.human = drafter, pool, human
        self.means = means or LineupMeans(drafter.table, pool.n)
        self.roles = roles or {}
        self.sides = pick_sides(drafter.radiant_first)
        self.radiant: list[int] = []
        self.dire: list[int] = []
        self.picks: list[Pick] = []
        self.start_value = drafter.value()
        self.start_mean = self.means.mean()

    # ---- the state
    @property
    def complete(self) -> bool:
        return len(self.picks) == len(self.sides)

    @property
    def next_side(self) -> int | None:
        return None if self.complete else self.sides[len(self.picks)]

    @property
    def human_to_pick(self) -> bool:
        return not self.complete and self.next_side == self.human

    def taken_by(self) -> dict[int, int]:
        return {p.hero: p.side for p in self.picks}

    def available(self) -> list[int]:
        taken = self.taken_by()
        return [h for h in range(self.pool.n) if h not in taken]

    # ---- the rules
    def resolve(self, chosen: str | int) -> int:
        """An available hero's id from a typed name or 1-based number (str) or a hero id (int)."""
        if isinstance(chosen, bool) or not isinstance(chosen, (str, int)):
            raise PickError("unknown_hero", f"a pick is a hero's name or id, not {chosen!r}")
        if isinstance(chosen, int):
            if not 0 <= chosen < self.pool.n:
                raise PickError("unknown_hero", f"hero id {chosen} is not in the pool (ids 0-{self.pool.n - 1})")
            hero = chosen
        else:
            try:
                hero = self.pool.index(chosen)
            except DraftError as exc:
                raise PickError("unknown_hero", str(exc)) from None
        side = self.taken_by().get(hero)
        if side is not None:
            raise PickError("taken", f"{self.pool.names[hero]} is already picked by {SIDE_NAMES[side]}: "
                                     f"choose another hero")
        return hero

    def _check_turn(self, by: str, side: int | None) -> int:
        if self.complete:
            raise PickError("complete", "the draft is complete: start a new draft to pick again")
        turn = self.next_side
        if by == PERSON:
            if self.human != turn:
                who = "you draft no side" if self.human is None else f"you draft {SIDE_NAMES[self.human]}"
                raise PickError("not_your_turn", f"pick {len(self.picks) + 1} is {SIDE_NAMES[turn]}'s, made by "
                                                 f"the search ({who}): wait for its pick")
            if side is not None and side != turn:
                raise PickError("not_your_turn", f"pick {len(self.picks) + 1} is {SIDE_NAMES[turn]}'s, not "
                                                 f"{SIDE_NAMES[side]}'s")
        elif turn == self.human:
            raise PickError("not_your_turn", f"pick {len(self.picks) + 1} is yours ({SIDE_NAMES[turn]}): the "
                                             f"search does not pick for you")
        return turn

    def _apply(self, side: int, hero: int, by: str, **extra) -> Pick:
        (self.radiant if side == RADIANT else self.dire).append(hero)
        pick = Pick(len(self.picks) + 1, side, hero, by, self.drafter.value(self.radiant, self.dire),
                    self.means.mean(self.radiant, self.dire), **extra)
        self.picks.append(pick)
        return pick

    # ---- the two ways a pick is made
    def pick(self, chosen: str | int, side: int | None = None) -> Pick:
        """A person's pick (for ``side`` when given); PickError, with the state unchanged, if refused."""
        turn = self._check_turn(PERSON, side)
        hero = self.resolve(chosen)
        best = self.drafter.best_pick(self.radiant, self.dire)
        return self._apply(turn, hero, PERSON, search_hero=best.hero, search_value=best.value)

    def search_pick(self) -> Pick:
        """The search's pick for the side to pick, which must not be the person's."""
        turn = self._check_turn(SEARCH, None)
        best = self.drafter.best_pick(self.radiant, self.dire)
        return self._apply(turn, best.hero, SEARCH, seconds=best.seconds)

    # ---- for the page
    def to_json(self) -> dict:
        names = self.pool.names
        side_name = lambda s: None if s is None else SIDE_NAMES[s]  # noqa: E731
        picks = []
        for p in self.picks:
            row = asdict(p)
            row.update(side=SIDE_NAMES[p.side], name=names[p.hero],
                       search_name=None if p.search_hero is None else names[p.search_hero])
            picks.append(row)
        nxt = self.next_side
        return {
            "pool": [{"id": h, "name": name, "role": self.roles.get(h)} for h, name in enumerate(names)],
            "order": [SIDE_NAMES[s] for s in self.sides],
            "groups": _groups(self.sides),
            "first": SIDE_NAMES[self.sides[0]],
            "human": side_name(self.human),
            "radiant": list(self.radiant),
            "dire": list(self.dire),
            "picks": picks,
            "start_value": self.start_value,
            "start_mean": self.start_mean,
            "next": None if nxt is None else {"number": len(self.picks) + 1, "side": SIDE_NAMES[nxt],
                                              "by": PERSON if nxt == self.human else SEARCH},
            "complete": self.complete,
            "final_value": self.picks[-1].value if self.complete else None,
        }


def _groups(sides) -> list[int]:
    """The run lengths of the pick order (1, 2, 2, 2, 2, 1)."""
    out = [1]
    for a, b in zip(sides, sides[1:]):
        if a == b:
            out[-1] += 1
        else:
            out.append(1)
    return out

