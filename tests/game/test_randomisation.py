"""Domain randomisation (``GameConfig.randomise``, training games only): each hero's assigned lane and starting
health, mana and gold, and the big neutral's health, drawn per game from the game's own RNG within the ranges
the patch's Rules name (``random_*``). Off, the game is the standard one (the golden trace pins it)."""

from __future__ import annotations

import numpy as np
import pytest

from fivestack.game import kernels
from fivestack.game.engine import GameBatch, GameConfig
from fivestack.game.layout import (
    ACTIVE, ASSIGNED_LANE, EV_LANE_OUTSIDE, GOLD, G_TRAINING, HP, HP_MAX, LANE, MANA, MANA_MAX, N_HEROES,
    RANDOM_BUILDS, RANDOM_START, SLOT_BIG_NEUTRAL, X, Y,
)
from fivestack.game.patch import Rules

RULES = Rules()
GAMES = 64
STANDARD_LANES = [0, 1, 2, 2, 0] * 2  # top, mid, the safe-lane pair, the offlane (both teams)


def started(config: GameConfig, n: int = GAMES, first_seed: int = 0) -> GameBatch:
    game = GameBatch(n, config)
    game.reset(np.arange(n) + first_seed)
    return game


def fractions(game: GameBatch, value: int, maximum: int, units=slice(0, N_HEROES)) -> np.ndarray:
    return game.state.uf[:, units, value] / game.state.uf[:, units, maximum]


@pytest.mark.parametrize("training", [False, True])
def test_without_randomise_every_game_starts_the_standard_way(training):
    game = started(GameConfig(training=training), n=8)
    assert (game.state.gi[:, G_TRAINING] == (RANDOM_BUILDS if training else 0)).all()
    assert game.state.hi[:, :, ASSIGNED_LANE].tolist() == [STANDARD_LANES] * 8
    assert (fractions(game, HP, HP_MAX) == 1.0).all() and (fractions(game, MANA, MANA_MAX) == 1.0).all()
    assert (game.state.hf[:, :, GOLD] == RULES.start_gold).all()
    big = fractions(game, HP, HP_MAX, SLOT_BIG_NEUTRAL)
    assert (big == 1.0).all()


def test_randomised_starts_lie_in_the_named_ranges_and_spread_over_them():
    game = started(GameConfig(randomise=True))
    assert (game.state.gi[:, G_TRAINING] == RANDOM_BUILDS | RANDOM_START).all()  # randomise includes the builds
    health, mana = fractions(game, HP, HP_MAX), fractions(game, MANA, MANA_MAX)
    gold = game.state.hf[:, :, GOLD] / RULES.start_gold
    big = fractions(game, HP, HP_MAX, SLOT_BIG_NEUTRAL)
    for values, low, high in ((health, RULES.random_health_min, 1.0), (mana, RULES.random_mana_min, 1.0),
                              (gold, RULES.random_gold_min, RULES.random_gold_max),
                              (big, RULES.random_big_neutral_health_min, 1.0)):
        assert values.min() >= low and values.max() <= high
        width = high - low  # 640 draws (64 for the big neutral) reach both ends of the range
        assert values.min() < low + 0.1 * width and values.max() > high - 0.1 * width
    lanes = game.state.hi[:, :, ASSIGNED_LANE]
    assert np.array_equal(lanes, game.state.ui[:, :N_HEROES, LANE])
    assert np.bincount(lanes.ravel(), minlength=3).min() > 150  # 640 heroes over 3 lanes: ~213 each
    assert len({tuple(row) for row in lanes.tolist()}) == GAMES


def test_randomisation_is_a_function_of_the_seed():
    a = started(GameConfig(randomise=True), n=8)
    b = GameBatch(8, GameConfig(randomise=True))
    b.reset(np.arange(8)[::-1])
    for name in ("uf", "hf", "hi", "ui", "gi"):
        assert np.array_equal(getattr(a.state, name), getattr(b.state, name)[::-1]), name
    c = started(GameConfig(randomise=True), n=8, first_seed=100)
    assert not np.array_equal(a.state.hi[:, :, ASSIGNED_LANE], c.state.hi[:, :, ASSIGNED_LANE])
    for game in (a, b):
        for _ in range(25):
            game.step()
    assert np.array_equal(a.state.uf, b.state.uf[::-1]) and np.array_equal(a.state.hf, b.state.hf[::-1])


def test_a_randomised_1v1_stays_in_the_mid_lane():
    game = started(GameConfig(mode="1v1", randomise=True), n=16)
    active = game.state.hi[:, :, ACTIVE] == 1
    assert (game.state.hi[:, :, ASSIGNED_LANE][active] == 1).all()
    health = fractions(game, HP, HP_MAX)[active]
    assert health.min() >= RULES.random_health_min and health.min() < 1.0


def test_the_big_neutral_respawns_with_a_drawn_health():
    game = started(GameConfig(randomise=True), n=1)
    drawn = []
    for _ in range(20):
        kernels.spawn_big_neutral(game.state, game.data, 0)
        drawn.append(fractions(game, HP, HP_MAX, SLOT_BIG_NEUTRAL)[0])
    assert min(drawn) >= RULES.random_big_neutral_health_min and max(drawn) <= 1.0
    assert len(set(drawn)) == 20
    plain = started(GameConfig(training=True), n=1)
    kernels.spawn_big_neutral(plain.state, plain.data, 0)
    assert fractions(plain, HP, HP_MAX, SLOT_BIG_NEUTRAL)[0] == 1.0


def test_the_lane_assignment_event_follows_the_drawn_lane():
    """A hero standing on its drawn lane is inside it; on another lane it counts a step's seconds outside."""
    game = started(GameConfig(randomise=True), n=1, first_seed=3)
    lanes = game.state.hi[0, :, ASSIGNED_LANE]
    h = int(np.flatnonzero(lanes != 1)[0])  # a hero sent to a side lane
    mid_point = game.data.lanes[1, 3]  # the middle of the mid lane: far from either side lane
    own_point = game.data.lanes[lanes[h], 3]
    for point, outside in ((own_point, 0.0), (mid_point, 4 / 30)):
        game.state.uf[0, h, X], game.state.uf[0, h, Y] = point
        game.step()
        assert game.events[0, h, EV_LANE_OUTSIDE] == pytest.approx(outside)
