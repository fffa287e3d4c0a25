"""TrueSkill on OpenAI Five's scale: synthetic outcomes with known win probabilities, and real games between
the bots of the reference ladder."""

import numpy as np
import pytest

from fivestack.runs.config import load_config
from fivestack.system.evaluator import RatingEvaluator
from fivestack.match.rating import RANDOM, SIGMA0, Rating, ReferencePool, win_probability


def rate_against(pool: ReferencePool, opponent: str, p_win: float, games: int, rng) -> Rating:
    outcomes = [(opponent, float(rng.random() < p_win)) for _ in range(games)]
    return pool.rate(Rating(pool.references[opponent], SIGMA0), outcomes)


def test_known_win_probabilities_give_ratings_in_order_and_random_stays_at_zero():
    rng = np.random.default_rng(0)
    pool = ReferencePool()
    ratings = {p: rate_against(pool, RANDOM, p, 750, rng) for p in (0.6, 0.8, 0.95)}
    mus = [ratings[p].mu for p in (0.6, 0.8, 0.95)]
    assert 0 < mus[0] < mus[1] < mus[2]
    assert pool.references[RANDOM] == 0.0
    with pytest.raises(ValueError, match="anchor"):
        pool.freeze(RANDOM, 3.0)


def test_an_80_percent_win_rate_is_a_gap_of_about_8_3_points():
    """The paper: "a difference of approximately 8.3 TrueSkill ... roughly corresponds to an 80% winrate"."""
    rng = np.random.default_rng(1)
    pool = ReferencePool({"reference": 20.0})
    gaps = [rate_against(pool, "reference", 0.8, 750, rng).mu - 20.0 for _ in range(5)]
    assert abs(np.mean(gaps) - 8.3) <= 1.5, gaps
    # and the model's own win probability at that gap is about 80%
    assert win_probability(28.3, 20.0) == pytest.approx(0.8, abs=0.03)


def test_a_rating_moves_toward_its_results_and_sigma_shrinks():
    pool = ReferencePool({"scripted": 10.0})
    start = Rating(10.0, SIGMA0)
    won = pool.update(start, "scripted", 1.0)
    lost = pool.update(start, "scripted", 0.0)
    drawn = pool.update(start, "scripted", 0.5)
    assert lost.mu < drawn.mu < won.mu
    assert drawn.mu == pytest.approx(10.0, abs=1e-6)
    assert max(won.sigma, lost.sigma, drawn.sigma) < SIGMA0
    assert pool.near(10.0, 10.0) == [RANDOM, "scripted"]
    assert pool.near(40.0, 10.0) == ["scripted"]  # none within 10 points: the nearest below


@pytest.mark.slow
def test_real_games_rank_random_below_weak_below_scripted(tmp_path):
    """5v5 games: the ladder random (0) < scripted-weak < scripted, 2-sigma intervals apart."""
    config = load_config(None, ["game.mode='5v5'", "eval.calibration_games=32", "eval.max_seconds=3600.0"])
    evaluator = RatingEvaluator(config, tmp_path, seed=11)
    bots = evaluator.calibrate_bots()
    weak, scripted = bots["scripted-weak"], bots["scripted"]
    assert weak.games == scripted.games == 32
    assert 0.0 < weak.mu - 2 * weak.sigma, weak
    assert weak.mu + 2 * weak.sigma < scripted.mu - 2 * scripted.sigma, (weak, scripted)
    # the ladder is kept in the evaluator's state, and comes back from it
    again = RatingEvaluator(config, tmp_path, state=evaluator.state_dict())
    assert again.references.references == evaluator.references.references
