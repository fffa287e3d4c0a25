"""Done-when 3: the drafting search (alpha-beta + cache) equals brute-force minimax on 11 heroes (2,772 lineups).

Brute force here shares nothing with the search but the stub function: it enumerates lineups with itertools,
stores each one's win probability in a dense array indexed by the two teams' bitmasks (no ranks), and runs
plain minimax over the full tree of ordered picks (one ply per pick; 39.9M leaves from an empty draft), with
no pruning and no cache. The stub's values are rounded to float32 as the table stores them.
"""

from itertools import combinations

import numpy as np
import pytest
from numba import njit

from fivestack.draft.lineups import RADIANT, lineup_rank, pick_sides
from fivestack.draft.precompute import score_all
from fivestack.draft.search import (CACHE, EXACT_SEARCH, FAULT_BOUND_AS_VALUE, FAULT_CUTOFF_AT_ALPHA,
                                    FAULT_KEY_WITHOUT_SIDES, ORDER, PRUNE, Drafter)
from fivestack.draft.stub import StubWinProbability

N = 11


@njit(cache=True)
def _brute_value(r, d, k, n, sides, leaf):
    if k == 10:
        return np.float64(leaf[r, d])
    maximise = sides[k] == 0
    best = -np.inf if maximise else np.inf
    for h in range(n):
        if ((r | d) >> h) & 1:
            continue
        bit = np.int64(1) << h
        if maximise:
            best = max(best, _brute_value(r | bit, d, k + 1, n, sides, leaf))
        else:
            best = min(best, _brute_value(r, d | bit, k + 1, n, sides, leaf))
    return best


@njit(cache=True)
def _brute_children(r, d, k, n, sides, leaf):
    """The minimax value after each pick (NaN for taken heroes)."""
    out = np.full(n, np.nan)
    for h in range(n):
        if ((r | d) >> h) & 1:
            continue
        bit = np.int64(1) << h
        if sides[k] == 0:
            out[h] = _brute_value(r | bit, d, k + 1, n, sides, leaf)
        else:
            out[h] = _brute_value(r, d | bit, k + 1, n, sides, leaf)
    return out


def brute_force(leaf, radiant, dire, radiant_first):
    """(first best pick in id order, its value, the value after every pick) by full-tree minimax."""
    sides = np.array(pick_sides(radiant_first), dtype=np.int8)
    r = sum(1 << h for h in radiant)
    d = sum(1 << h for h in dire)
    children = _brute_children(np.int64(r), np.int64(d), len(radiant) + len(dire), N, sides, leaf)
    maximise = sides[len(radiant) + len(dire)] == RADIANT
    value = np.nanmax(children) if maximise else np.nanmin(children)
    return int(np.flatnonzero(children == value)[0]), float(value), children


@pytest.fixture(scope="module")
def stub():
    return StubWinProbability(N, seed=3)


@pytest.fixture(scope="module")
def leaf(stub):
    """Win probability by (Radiant mask, Dire mask), from the stub over plainly enumerated lineups."""
    table = np.full((1 << N, 1 << N), np.nan, dtype=np.float32)
    lineups = [(r, d) for r in combinations(range(N), 5) for d in combinations([h for h in range(N) if h not in r], 5)]
    values = stub(np.array([r for r, _ in lineups]), np.array([d for _, d in lineups])).astype(np.float32)
    for (r, d), v in zip(lineups, values):
        table[sum(1 << h for h in r), sum(1 << h for h in d)] = v
    return table


@pytest.fixture(scope="module")
def values(stub):
    return score_all(N, stub, batch_size=500, scorer_name=stub.name)


def states(radiant_first):
    """Starting states: empty, and after 1, 3, 4, 6 and 9 picks of a fixed, order-respecting sequence."""
    sequence = [3, 7, 0, 10, 5, 1, 8, 2, 9, 6]
    out = []
    for k in (0, 1, 3, 4, 6, 9):
        radiant, dire = [], []
        for h, side in zip(sequence[:k], pick_sides(radiant_first)):
            (radiant if side == RADIANT else dire).append(h)
        out.append((radiant, dire))
    return out


@pytest.fixture(scope="module")
def expected(leaf):
    return {(rf, i): brute_force(leaf, *state, rf) for rf in (True, False) for i, state in enumerate(states(rf))}


def test_the_table_holds_the_stub_at_each_lineup_rank(values, leaf):
    for r in combinations(range(N), 5):
        rest = [h for h in range(N) if h not in r]
        for d in combinations(rest, 5):
            assert values[lineup_rank(r, d, N)] == leaf[sum(1 << h for h in r), sum(1 << h for h in d)]


@pytest.mark.parametrize("options", [EXACT_SEARCH, PRUNE, CACHE, PRUNE | CACHE, PRUNE | ORDER, CACHE | ORDER])
@pytest.mark.parametrize("radiant_first", [True, False])
def test_minimax_pick_and_value_equal_brute_force(values, expected, options, radiant_first):
    drafter = Drafter(values, N, radiant_first, options)  # one cache across all states, as in a draft
    for i, (radiant, dire) in enumerate(states(radiant_first)):
        pick, value, _ = expected[(radiant_first, i)]
        result = drafter.best_pick(radiant, dire)
        assert (result.hero, result.value) == (pick, value), (radiant, dire)
        assert drafter.value(radiant, dire) == value


def test_value_of_every_pick_equals_brute_force(values, expected):
    for radiant_first in (True, False):
        drafter = Drafter(values, N, radiant_first)
        for i, (radiant, dire) in enumerate(states(radiant_first)):
            children = expected[(radiant_first, i)][2]
            got = drafter.pick_values(radiant, dire)
            assert got == {h: children[h] for h in range(N) if not np.isnan(children[h])}


def test_search_prunes_and_caches(values):
    plain = Drafter(values, N, True, PRUNE)
    full = Drafter(values, N, True, EXACT_SEARCH)
    a, b = plain.best_pick([3], [7, 0]), full.best_pick([3], [7, 0])
    assert a.value == b.value
    assert b.cache_hits > 0 and b.leaves < a.leaves
    assert full.cache_entries > 0


def test_the_first_pick_side_matters(values, expected):
    # the two orders give different games: the same empty state has different values
    assert expected[(True, 0)][1] != expected[(False, 0)][1]


@pytest.mark.parametrize("fault", [FAULT_BOUND_AS_VALUE, FAULT_KEY_WITHOUT_SIDES, FAULT_CUTOFF_AT_ALPHA])
def test_a_broken_search_fails_the_comparison(values, expected, fault):
    """The exactness test can fail: each deliberate bug disagrees with brute force on some state."""
    wrong = 0
    for radiant_first in (True, False):
        drafter = Drafter(values, N, radiant_first, EXACT_SEARCH | fault)
        for i, (radiant, dire) in enumerate(states(radiant_first)):
            pick, value, _ = expected[(radiant_first, i)]
            result = drafter.best_pick(radiant, dire)
            wrong += (result.hero, result.value) != (pick, value)
    assert wrong > 0


def test_search_on_a_complete_or_invalid_state_is_refused(values):
    from fivestack.draft.lineups import DraftError

    drafter = Drafter(values, N, True)
    with pytest.raises(DraftError, match="complete"):
        drafter.best_pick([0, 3, 4, 7, 8], [1, 2, 5, 6, 9])
    with pytest.raises(DraftError, match="order"):
        drafter.best_pick([], [0])
    assert drafter.value([0, 3, 4, 7, 8], [1, 2, 5, 6, 9]) == values[lineup_rank([0, 3, 4, 7, 8], [1, 2, 5, 6, 9], N)]
    with pytest.raises(DraftError, match="lineups"):
        Drafter(values[:-1], N, True)
