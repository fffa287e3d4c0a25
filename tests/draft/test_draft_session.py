"""``DraftSession``: the rules every pick passes (terminal and browser alike), the search's picks, and the
lineup-so-far mean against a brute-force enumeration of the stub's lineups."""

from itertools import combinations

import pytest

from fivestack.draft.lineups import DIRE, RADIANT, DraftError, HeroPool, pick_sides
from fivestack.draft.precompute import score_all
from fivestack.draft.search import Drafter
from fivestack.draft.session import PERSON, SEARCH, DraftSession, LineupMeans, PickError
from fivestack.draft.stub import StubWinProbability

POOL = HeroPool(("Ash", "Birch", "Cedar", "Dune", "Elm", "Fern", "Gale", "Holm", "Iris", "Jade", "Kelp"))
STUB = StubWinProbability(POOL.n, seed=4)


@pytest.fixture(scope="module")
def values():
    return score_all(POOL.n, STUB)


def brute_mean(radiant, dire):
    """The stub's mean over every lineup whose Radiant set holds ``radiant`` and Dire set holds ``dire``."""
    total, count = 0.0, 0
    for r in combinations(range(POOL.n), 5):
        if not set(radiant) <= set(r) or set(dire) & set(r):
            continue
        rest = [h for h in range(POOL.n) if h not in r]
        for d in combinations(rest, 5):
            if set(dire) <= set(d):
                total += STUB.one(r, d)
                count += 1
    return total / count


@pytest.mark.parametrize("radiant,dire", [((), ()), ((3,), ()), ((3,), (0, 10)), ((3, 4, 7), (0, 10, 2)),
                                          ((1, 2, 3, 4, 5), (6, 7, 8, 9))])
def test_lineup_mean_equals_brute_force(values, radiant, dire):
    assert LineupMeans(values, POOL.n).mean(radiant, dire) == pytest.approx(brute_mean(radiant, dire), abs=1e-6)


def test_lineup_mean_of_a_complete_lineup_is_its_value(values):
    radiant, dire = (0, 2, 4, 6, 8), (1, 3, 5, 7, 9)
    assert LineupMeans(values, POOL.n).mean(radiant, dire) == pytest.approx(STUB.one(radiant, dire), abs=1e-6)


def test_a_refused_pick_names_its_rule_and_changes_nothing(values):
    drafter = Drafter(values, POOL.n, radiant_first=True)
    session = DraftSession(drafter, POOL, DIRE)
    with pytest.raises(PickError, match="made by the search") as refused:
        session.pick("Ash")  # pick 1 is Radiant's: the search's
    assert refused.value.code == "not_your_turn" and session.picks == []
    first = session.search_pick()
    assert first.by == SEARCH and first.hero == drafter.best_pick([], []).hero and first.seconds >= 0
    for chosen, code in (("nobody", "unknown_hero"), (11, "unknown_hero"), (-1, "unknown_hero"),
                         (True, "unknown_hero"), (first.hero, "taken"), (POOL.names[first.hero].upper(), "taken")):
        with pytest.raises(PickError) as refused:
            session.pick(chosen)
        assert refused.value.code == code, chosen
        assert isinstance(refused.value, DraftError) and len(session.picks) == 1
    with pytest.raises(PickError, match="not Radiant's") as refused:
        session.pick("Kelp", side=RADIANT)
    with pytest.raises(PickError, match="does not pick for you") as refused:
        session.search_pick()  # pick 2 is the person's (Dire)
    assert refused.value.code == "not_your_turn" and len(session.picks) == 1
    free = [h for h in range(POOL.n) if h != first.hero]
    second = session.pick(str(free[0] + 1))  # a typed 1-based number
    assert second.by == PERSON and second.hero == free[0] and second.side == DIRE
    assert second.search_hero == drafter.best_pick([first.hero], []).hero and second.seconds is None
    assert second.value == pytest.approx(drafter.value([first.hero], [free[0]]))


def test_a_whole_draft_follows_the_order_and_ends_complete(values):
    drafter = Drafter(values, POOL.n, radiant_first=False)
    session = DraftSession(drafter, POOL, RADIANT)
    sides = pick_sides(False)
    while not session.complete:
        assert session.next_side == sides[len(session.picks)]
        if session.human_to_pick:
            session.pick(session.available()[-1])  # the person takes the highest id left
        else:
            session.search_pick()
    assert [p.side for p in session.picks] == list(sides)
    assert len(session.radiant) == len(session.dire) == 5
    state = session.to_json()
    assert state["complete"] and state["next"] is None and state["groups"] == [1, 2, 2, 2, 2, 1]
    assert state["final_value"] == pytest.approx(STUB.one(session.radiant, session.dire), abs=1e-6)
    with pytest.raises(PickError) as refused:
        session.pick(0)
    assert refused.value.code == "complete"
    with pytest.raises(PickError) as refused:
        session.search_pick()
    assert refused.value.code == "complete"
