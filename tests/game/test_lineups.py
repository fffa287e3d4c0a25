"""Lineups: which hero plays in each slot of each game (``game/lineups.py``, ``GameBatch.reset(hero_types=)``).

The standard patch may hold fewer than the ten heroes a 5v5 game of distinct heroes needs, so the 5v5 tests
play a patch of the standard heroes plus renamed copies of them (``wide_patch``): a copy is a separate hero
of the pool with the same numbers, so "the right hero in the right slot" is checked by the hero index and by
the stats that differ between the standard heroes.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fivestack.game.engine import GameBatch, GameConfig
from fivestack.game.layout import ACTIVE, AGI, HERO_TYPE, INT, N_HEROES, STR, SUBTYPE
from fivestack.game.patch import HEROES, H_ABILITY0, H_AGI, H_INT, H_STR, Patch


FIVE = HEROES[:5]  # the default lineup's heroes: the pools below are built from them, whatever the patch's size


def wide_patch(copies: int = 1) -> Patch:
    """The five default heroes, then ``copies`` renamed copies of each (own ability records, same numbers)."""
    heroes = list(FIVE)
    for c in range(copies):
        for h in FIVE:
            abilities = tuple(dataclasses.replace(a, name=f"{a.name} {c + 2}") for a in h.abilities)
            heroes.append(dataclasses.replace(h, name=f"{h.name} {c + 2}", abilities=abilities))
    return Patch(heroes=tuple(heroes))


def assert_plays(game: GameBatch, g: int, lineup) -> None:
    """Game ``g``'s slot h holds hero ``lineup[h]``: its type, its attributes and its abilities."""
    hero_t, hi, hf = game.patch.hero_table, game.state.hi, game.state.hf
    for h, ht in enumerate(lineup):
        assert hi[g, h, HERO_TYPE] == ht and game.state.ui[g, h, SUBTYPE] == ht
        assert game.hero_types[g, h] == ht
        if hi[g, h, ACTIVE]:
            assert (hf[g, h, STR], hf[g, h, AGI], hf[g, h, INT]) == \
                (hero_t[ht, H_STR], hero_t[ht, H_AGI], hero_t[ht, H_INT])
            first = sum(len(hero.abilities) for hero in game.patch.heroes[:ht])
            assert [int(hero_t[hi[g, h, HERO_TYPE], H_ABILITY0 + k]) for k in range(4)] == \
                [first + k for k in range(4)]


def test_the_default_lineup_is_the_patchs_first_five_on_both_sides():
    game = GameBatch(2)
    game.reset([1, 2])
    assert game.hero_types.tolist() == [[0, 1, 2, 3, 4] * 2] * 2
    assert_plays(game, 1, [0, 1, 2, 3, 4] * 2)


def test_a_per_game_lineup_takes_effect_in_the_games_reset_only():
    patch = wide_patch()
    game = GameBatch(3, patch=patch)
    game.reset([1, 2, 3])
    lineup = [9, 3, 0, 7, 5, 1, 8, 2, 6, 4]
    game.reset([5], which=[1], hero_types=[lineup])
    assert game.hero_types.tolist() == [[0, 1, 2, 3, 4] * 2, lineup, [0, 1, 2, 3, 4] * 2]
    assert_plays(game, 1, lineup)
    assert_plays(game, 0, [0, 1, 2, 3, 4] * 2)
    assert_plays(game, 2, [0, 1, 2, 3, 4] * 2)
    game.reset([6], which=[1])  # no lineup: the batch's rule again
    assert game.hero_types[1].tolist() == [0, 1, 2, 3, 4] * 2
    assert_plays(game, 1, [0, 1, 2, 3, 4] * 2)


def test_a_game_is_a_function_of_its_seed_and_lineup():
    patch = wide_patch()
    lineup = np.array([[5, 6, 7, 8, 9, 0, 1, 2, 3, 4]])
    games = [GameBatch(1, patch=patch) for _ in range(2)]
    for game in games:
        game.reset([11], hero_types=lineup)
        for _ in range(30):
            game.step()
    assert np.array_equal(games[0].state.uf, games[1].state.uf)
    assert np.array_equal(games[0].state.hf, games[1].state.hf)


def test_1v1_reads_slots_0_and_5():
    game = GameBatch(1, GameConfig(mode="1v1"))
    lineup = np.full((1, N_HEROES), -7)  # the slots that do not play are not read
    lineup[0, 0], lineup[0, 5] = 3, 1
    game.reset([4], hero_types=lineup)
    assert game.hero_types[0].tolist() == [3] * 5 + [1] * 5
    assert_plays(game, 0, [3] * 5 + [1] * 5)
    game.reset([4], hero_types=[[2] * 10])  # a mirror match is a 1v1 lineup too
    assert game.hero_types[0].tolist() == [2] * 10


@pytest.mark.parametrize("hero_types, message", [
    (np.zeros((2, N_HEROES), np.int64), r"shape \(1, 10\)"),
    (np.zeros((1, 5), np.int64), r"shape \(1, 10\)"),
    (np.full((1, N_HEROES), 0.5), "integer hero indices"),
    (np.array([[0, 1, 2, 3, 4, 5, 6, 7, 8, 10]]), r"hero_types\[0, 9\] = 10 is not a hero"),
    (np.array([[0, 1, 2, 3, 4, 5, 6, 7, 8, -1]]), r"hero_types\[0, 9\] = -1 is not a hero"),
    (np.array([[0, 1, 2, 3, 4, 5, 6, 7, 8, 0]]), "more than once"),
])
def test_a_bad_lineup_gets_one_clear_error_and_changes_nothing(hero_types, message):
    game = GameBatch(1, patch=wide_patch())
    game.reset([1])
    before = game.hero_types.copy()
    with pytest.raises(ValueError, match=message):
        game.reset([2], hero_types=hero_types)
    assert np.array_equal(game.hero_types, before)


def test_a_1v1_lineup_checks_only_the_playing_slots():
    game = GameBatch(1, GameConfig(mode="1v1"), patch=Patch(heroes=FIVE))
    with pytest.raises(ValueError, match=r"hero_types\[0, 5\] = 5 is not a hero"):
        game.reset([1], hero_types=[[0] * 5 + [5] * 5])


# ---------------------------------------------------------------- lineups = "random"
def random_batch(n: int, mode: str = "5v5", patch: Patch | None = None) -> GameBatch:
    return GameBatch(n, GameConfig(mode=mode, lineups="random"), patch=patch)


def test_random_lineups_are_ten_distinct_heroes_drawn_by_the_seed():
    patch = wide_patch(copies=2)  # 15 heroes
    seeds = np.arange(40, dtype=np.uint64)
    a, b = random_batch(40, patch=patch), random_batch(40, patch=patch)
    a.reset(seeds)
    b.reset(seeds[::-1])  # the same seeds in other games: each game's lineup follows its own seed
    assert np.array_equal(a.hero_types, b.hero_types[::-1])
    for g in range(40):
        assert len(set(a.hero_types[g].tolist())) == N_HEROES
        assert_plays(a, g, a.hero_types[g])
    assert len({tuple(row) for row in a.hero_types.tolist()}) == 40  # different seeds, different lineups
    a.reset(seeds + 1000)
    assert not np.array_equal(a.hero_types, b.hero_types[::-1])
    a.reset(seeds)  # and a seed's lineup again at its next reset
    assert np.array_equal(a.hero_types, b.hero_types[::-1])


def test_every_hero_of_the_pool_plays_on_both_sides():
    patch = wide_patch(copies=2)
    game = random_batch(60, patch=patch)
    game.reset(np.arange(60) + 7)
    radiant, dire = game.hero_types[:, :5], game.hero_types[:, 5:]
    assert set(radiant.ravel().tolist()) == set(range(patch.n_heroes)) == set(dire.ravel().tolist())
    # each hero plays 10 of 15 seats a game on average: 40 of 60 games, well inside [25, 55] for any sane draw
    counts = np.bincount(game.hero_types.ravel(), minlength=patch.n_heroes)
    assert counts.min() >= 25 and counts.max() <= 55


def test_random_1v1_draws_two_distinct_heroes_from_the_pool():
    game = random_batch(40, mode="1v1")
    game.reset(np.arange(40))
    mid, their_mid = game.hero_types[:, 0], game.hero_types[:, 5]
    assert (mid != their_mid).all()
    assert set(mid.tolist()) | set(their_mid.tolist()) == set(range(game.patch.n_heroes))
    assert (game.hero_types[:, :5] == mid[:, None]).all() and (game.hero_types[:, 5:] == their_mid[:, None]).all()
    for g in range(3):
        assert_plays(game, g, game.hero_types[g])


def test_a_per_game_lineup_overrides_the_random_rule():
    game = random_batch(1, patch=wide_patch())
    lineup = [[9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
    game.reset([3], hero_types=lineup)
    assert game.hero_types.tolist() == lineup


@pytest.mark.parametrize("kwargs, message", [
    ({"lineups": "draft"}, r"lineups 'draft' is unknown; use one of \['fixed', 'random'\]"),
    ({"lineups": "random", "radiant": ("Bulwark",)}, "radiant/dire name a fixed lineup"),
])
def test_a_bad_lineup_setting_gets_one_clear_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GameConfig(**kwargs)


def test_random_5v5_lineups_need_ten_heroes_in_the_pool():
    small = Patch(heroes=FIVE)
    with pytest.raises(ValueError, match=r'draws 10 distinct heroes a game, but patch .* has 5'):
        GameBatch(1, GameConfig(lineups="random"), patch=small)
    with pytest.raises(ValueError, match=r'draws 2 distinct heroes a game, but patch .* has 1'):
        GameBatch(1, GameConfig(mode="1v1", lineups="random"), patch=Patch(heroes=HEROES[:1]))
