"""The combinatorial number system that indexes lineups, the pick order's checks and hero pools."""

from itertools import combinations
from math import comb

import numpy as np
import pytest

from fivestack.draft.lineups import (DIRE, RADIANT, DraftError, HeroPool, LineupIndex, check_state, lineup_count,
                                     lineup_rank, lineup_unrank, pick_sides, subset_rank, subset_unrank)


def all_lineups(n):
    """Every lineup by plain enumeration (no ranks): Radiant 5-set, then Dire 5-set of the rest."""
    for radiant in combinations(range(n), 5):
        rest = [h for h in range(n) if h not in radiant]
        for dire in combinations(rest, 5):
            yield list(radiant), list(dire)


def test_lineup_counts_match_the_paper_and_the_issue():
    assert lineup_count(17) == 4_900_896  # the paper's "4,900,896 lineups for 17 heroes"
    assert lineup_count(11) == 2_772  # issue 13's small case
    assert lineup_count(11) == sum(1 for _ in all_lineups(11))


@pytest.mark.parametrize("n,k", [(7, 3), (11, 5), (12, 4)])
def test_subset_rank_is_a_bijection_onto_the_range(n, k):
    ranks = [subset_rank(s) for s in combinations(range(n), k)]
    assert sorted(ranks) == list(range(comb(n, k)))
    for s in combinations(range(n), k):
        assert subset_unrank(subset_rank(s), k) == list(s)


def test_every_lineup_of_11_heroes_round_trips_and_ranks_cover_the_range():
    ranks = []
    for radiant, dire in all_lineups(11):
        r = lineup_rank(radiant, dire, 11)
        assert lineup_unrank(r, 11) == (radiant, dire)
        ranks.append(r)
    assert sorted(ranks) == list(range(2772))


def test_lineup_rank_ignores_order_within_a_team_but_not_the_sides():
    a, b = [4, 0, 9, 2, 7], [1, 3, 10, 5, 6]
    assert lineup_rank(a, b, 11) == lineup_rank(sorted(a), sorted(b)[::-1], 11)
    assert lineup_rank(a, b, 11) != lineup_rank(b, a, 11)


def test_random_lineups_of_17_heroes_round_trip():
    rng = np.random.default_rng(0)
    for _ in range(500):
        heroes = rng.permutation(17)[:10].tolist()
        radiant, dire = sorted(heroes[:5]), sorted(heroes[5:])
        r = lineup_rank(radiant, dire, 17)
        assert 0 <= r < lineup_count(17)
        assert lineup_unrank(r, 17) == (radiant, dire)
    for r in rng.integers(0, lineup_count(17), 500).tolist() + [0, lineup_count(17) - 1]:
        assert lineup_rank(*lineup_unrank(r, 17), 17) == r


def test_vectorised_unrank_matches_the_scalar_one():
    index = LineupIndex.of(11)
    radiant, dire = index.unrank(0, index.count)
    assert index.count == 2772
    for r in range(0, 2772, 7):
        assert (radiant[r].tolist(), dire[r].tolist()) == lineup_unrank(r, 11)
    index17 = LineupIndex.of(17)
    start = 3_000_000
    radiant, dire = index17.unrank(start, start + 300)
    for i in range(0, 300, 13):
        assert (radiant[i].tolist(), dire[i].tolist()) == lineup_unrank(start + i, 17)


def test_unrank_outside_the_range_is_a_clear_error():
    with pytest.raises(DraftError, match="outside"):
        lineup_unrank(2772, 11)
    with pytest.raises(DraftError, match="disjoint"):
        lineup_rank([0, 1, 2, 3, 4], [4, 5, 6, 7, 8], 11)


def test_pick_order_is_1_2_2_2_2_1():
    assert pick_sides(True) == (RADIANT, DIRE, DIRE, RADIANT, RADIANT, DIRE, DIRE, RADIANT, RADIANT, DIRE)
    assert pick_sides(False) == tuple(1 - s for s in pick_sides(True))
    assert check_state([], [], 11, True)[0] == RADIANT
    assert check_state([0], [], 11, True) == pick_sides(True)[1:]


def test_states_that_do_not_fit_the_order_are_refused():
    with pytest.raises(DraftError, match="Radiant 1 and Dire 1"):
        check_state([0, 1], [], 11, True)
    with pytest.raises(DraftError, match="both teams"):
        check_state([0], [0], 11, True)
    with pytest.raises(DraftError, match="not a hero id"):
        check_state([11], [], 11, True)


def test_pool_resolves_names_and_numbers():
    pool = HeroPool.parse("Axe, Lina,Zeus,a4,a5,a6,a7,a8,a9,a10")
    assert pool.n == 10
    assert pool.index("lina") == 1 and pool.index("  ZEUS ") == 2 and pool.index("1") == 0 and pool.index("10") == 9
    for bad in ("11", "0", "pudge", ""):
        with pytest.raises(DraftError, match="unknown hero"):
            pool.index(bad)
    assert HeroPool.parse("12").names[11] == "hero12"
    with pytest.raises(DraftError, match="twice"):
        HeroPool.parse("a,b,c,d,e,f,g,h,i,A")
    with pytest.raises(DraftError, match="at least 10"):
        HeroPool.parse("9")
