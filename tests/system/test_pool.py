"""The opponent pool: the paper's quality update, softmax sampling, joining every 10 versions, persistence,
and past versions really playing (and not being trained on) in rollouts."""

import math

import numpy as np
import pytest
import torch

from fivestack.model.policy import Policy, PolicyConfig
from fivestack.runs.config import PoolConfig, load_config
from fivestack.system.pool import LATEST, OpponentPool, PastOpponents
from fivestack.runs.checkpoints import PoolError
from fivestack.system.rollout import RolloutWorker
from fivestack.system.serial import SerialRunner


def small_policy(seed: int = 0) -> Policy:
    torch.manual_seed(seed)
    return Policy(PolicyConfig(lstm_size=16))


def pool_with(tmp_path, qualities) -> OpponentPool:
    pool = OpponentPool(PoolConfig(), tmp_path / "pool")
    weights = small_policy().state_dict()
    for version in range(len(qualities)):
        pool.add(version * 10, weights)
    pool.quality = np.asarray(qualities, np.float64)
    return pool


def test_quality_update_matches_the_paper_on_a_hand_computed_case(tmp_path):
    pool = pool_with(tmp_path, [0.0, 0.0])
    pool.record_game(0, latest_won=True)  # p = (0.5, 0.5), N = 2: q_0 = 0 - 0.01 / (2 * 0.5)
    assert pool.quality[0] == pytest.approx(-0.01)
    p1 = math.exp(0.0) / (math.exp(-0.01) + math.exp(0.0))
    pool.record_game(10, latest_won=True)
    assert pool.quality[1] == pytest.approx(-0.01 / (2 * p1))
    before = pool.quality.copy()
    pool.record_game(10, latest_won=False)  # a loss leaves the qualities alone
    np.testing.assert_array_equal(pool.quality, before)
    assert pool.games.tolist() == [1, 2] and pool.wins.tolist() == [1, 1]


def test_sampling_frequencies_match_softmax_of_quality(tmp_path):
    qualities = [0.0, 0.5, -1.0, 1.0]
    pool = pool_with(tmp_path, qualities)
    expected = np.exp(qualities) / np.exp(qualities).sum()
    np.testing.assert_allclose(pool.probabilities(), expected)
    rng = np.random.default_rng(0)
    draws = 10_000
    counts = np.bincount([pool.versions.index(pool.sample(rng)) for _ in range(draws)], minlength=4)
    chi_square = float((((counts - draws * expected) ** 2) / (draws * expected)).sum())
    assert chi_square < 16.27, (counts, chi_square)  # 3 degrees of freedom, p = 0.001


def test_a_new_version_joins_with_the_highest_quality(tmp_path):
    pool = pool_with(tmp_path, [0.0, 0.0, 0.0])
    pool.quality = np.array([-0.3, 0.2, -0.1])
    pool.add(30, small_policy().state_dict())
    assert pool.versions == [0, 10, 20, 30]
    assert pool.quality[-1] == pytest.approx(0.2)
    with pytest.raises(PoolError, match="already in the opponent pool"):
        pool.add(30, small_policy().state_dict())


def test_latest_vs_latest_share_and_a_corrupted_past_version(tmp_path):
    pool = pool_with(tmp_path, [0.0, 0.0])
    rng = np.random.default_rng(1)
    choices = np.array([pool.choose_opponent(rng) for _ in range(5000)])
    assert abs((choices != LATEST).mean() - 0.2) < 0.02
    pool.path_of(10).write_bytes(b"not a safetensors file")
    with pytest.raises(PoolError, match="corrupted"):
        pool.weights(10)


def rollout_config(tmp_path, **overrides):
    sets = [f"run.runs_dir='{tmp_path}'", "run.name='pool'", "game.mode='1v1'", "game.max_seconds=30.0",
            "rollout.games=4", "ppo.batch_samples=8", "ppo.steps_per_version=1", "policy.lstm_size=16",
            "run.torch_threads=1", "eval.every_versions=0"]
    return load_config(None, sets + [f"{k}={v}" for k, v in overrides.items()])


def test_past_versions_play_their_own_weights_and_their_steps_are_not_trained_on(tmp_path):
    config = rollout_config(tmp_path, **{"pool.past_fraction": 1.0})
    pool = OpponentPool(config.pool, tmp_path / "pool")
    past = Policy(config.policy)
    with torch.no_grad():
        for p in past.parameters():
            p.add_(torch.randn_like(p))
    pool.add(0, past.state_dict())
    worker = RolloutWorker(config, seed=3, opponents=PastOpponents(pool, config.policy))
    owners = worker.row_owners()
    assert (owners == 0).sum() == config.rollout.games and (owners == LATEST).sum() == config.rollout.games
    assert torch.equal(worker.opponents.inference(0).policy.state_dict()["lstm.weight_ih"],
                       past.state_dict()["lstm.weight_ih"])

    from fivestack.match.inference import Inference

    latest = Inference(Policy(config.policy), seed=0)
    latest.version = 7
    batch = worker.collect(latest, team_spirit=0.3)
    samples_per_team = config.rollout.segment_steps // config.rollout.sample_steps
    # games that ended mid-segment started a new game with a new draw; every kept sample is the learner's
    assert 0 < len(batch) <= samples_per_team * config.rollout.games
    assert (batch.version == 7).all()
    assert batch.info["past_opponent_steps"] > 0


@pytest.mark.slow  # quick loop: under 3 minutes in all (pytest -m 'not slow')
def test_versions_join_every_ten_and_the_pool_survives_resume(tmp_path):
    config = rollout_config(tmp_path, **{"run.max_versions": 25, "pool.past_fraction": 0.5})
    runner = SerialRunner(config)
    runner.run()
    runner.close()
    versions = runner.pool.versions
    assert versions[0] == 0 and len(versions) >= 3
    assert all(b // 10 > a // 10 for a, b in zip(versions, versions[1:]))  # one per multiple of 10 crossed
    assert all(runner.pool.path_of(v).is_file() for v in versions)
    state = runner.pool.state_dict()

    config.run.max_versions = runner.optimizer.version + 12
    resumed = SerialRunner(config, resume=runner.run_dir)
    assert resumed.pool.state_dict() == state
    assert resumed.pool_joined == runner.pool_joined
    resumed.run()
    resumed.close()
    assert resumed.pool.versions[:len(versions)] == versions and len(resumed.pool) > len(versions)


def past_opponents_in_play(tmp_path, cache_size: int, n_versions: int = 8):
    """A worker whose games all play past versions drawn from ``n_versions`` (equal qualities), a slot per game
    (``pool.opponent_slots``), so that many versions play at once."""
    config = rollout_config(tmp_path, **{"pool.past_fraction": 1.0, "pool.cache_size": cache_size,
                                         "pool.opponent_slots": 16, "rollout.games": 16,
                                         "rollout.segment_steps": 32, "game.max_seconds": 8.0})
    pool = OpponentPool(config.pool, tmp_path / "pool")
    for version in range(n_versions):
        pool.add(version * 10, Policy(config.policy).state_dict())
    opponents = PastOpponents(pool, config.policy)
    worker = RolloutWorker(config, seed=5, opponents=opponents)
    return worker, opponents


@pytest.mark.slow  # quick loop: under 3 minutes in all (pytest -m 'not slow')
def test_past_versions_in_play_are_read_from_disk_once(tmp_path):
    """The cache never evicts a version in play: weights are read when a version starts playing, never per
    step (before, 8 versions in play and a cache of 4 re-read weights on every step)."""
    from fivestack.match.inference import Inference

    latest = Inference(Policy(rollout_config(tmp_path).policy), seed=0)
    worker, opponents = past_opponents_in_play(tmp_path / "big", cache_size=8)
    worker.collect(latest, team_spirit=0.3)
    assert len(np.unique(worker.opponent_version)) >= 5  # many versions in play at once
    after_first = opponents.loads
    assert after_first <= 8
    for _ in range(3):  # 8 s games: every game ends and new ones draw again from the 8 versions
        worker.collect(latest, team_spirit=0.3)
    assert opponents.loads == after_first  # a cache that holds them: nothing more is read

    worker, opponents = past_opponents_in_play(tmp_path / "small", cache_size=1)
    games_started = worker.n_games
    for _ in range(2):
        games_started += len(worker.collect(latest, team_spirit=0.3).info["games"])
    # at most one read per game start (about 32 here), not one per version in play per step (over 300)
    assert opponents.loads <= games_started


def test_bot_games_the_bot_decides_every_timestep_and_is_not_trained_on(tmp_path):
    """``pool.bot_fraction = 1``: every game is against the scripted bot on a random side; the bot's team
    acts at every timestep (the learner, deciding every 2, keeps its orders in between), and only the
    learner's team rows become samples."""
    from fivestack.match.inference import Inference
    from fivestack.system.pool import BOT

    config = rollout_config(tmp_path, **{"pool.past_fraction": 0.0, "pool.bot_fraction": 1.0,
                                         "rollout.decision_steps": 2, "rollout.segment_steps": 32})
    worker = RolloutWorker(config, seed=3)
    assert (worker.opponent_version == BOT).all() and 0 < worker.opponent_side.sum() < worker.n_games
    sent = []
    step = worker.env.step
    worker.env.step = lambda actions, **kw: (sent.append(actions.copy()), step(actions, **kw))[1]
    latest = Inference(Policy(config.policy), seed=0)
    latest.version = 4
    batch = worker.collect(latest, team_spirit=0.3)

    bot_heroes = worker.heroes[worker.opponent_side, 0]  # 1v1: one hero per team
    learner_heroes = worker.heroes[1 - worker.opponent_side, 0]
    games = np.arange(worker.n_games)
    between = np.stack(sent[1::2])  # the timesteps between decisions, (decisions, games, 10, 5)
    keep = worker.keep_orders
    assert (between[:, games, learner_heroes] == keep[games, learner_heroes]).all()
    assert (between[:, games, bot_heroes] != keep[games, bot_heroes]).any(axis=-1).mean() > 0.5
    assert len(batch) == config.rollout.games * config.rollout.segment_steps // config.rollout.sample_steps
    assert batch.info["past_opponent_steps"] == batch.info["hero_steps"] // 2


def test_pool_scores_past_versions_only_and_games_metrics_count_wins_against_the_bot(tmp_path):
    from fivestack.system.pool import BOT
    from fivestack.system.metrics import games_metrics

    pool = pool_with(tmp_path, [0.0, 0.0])
    games = [{"winner": 1, "seconds": 60.0, "truncated": False, "opponent": BOT, "opponent_side": 0},
             {"winner": 1, "seconds": 120.0, "truncated": False, "opponent": BOT, "opponent_side": 1},
             {"winner": -1, "seconds": 180.0, "truncated": True, "opponent": BOT, "opponent_side": 1},
             {"winner": 0, "seconds": 240.0, "truncated": False, "opponent": 10, "opponent_side": 1},
             {"winner": 0, "seconds": 300.0, "truncated": False, "opponent": LATEST, "opponent_side": 0}]
    pool.record_games(games)
    assert pool.games.tolist() == [0, 1] and pool.wins.tolist() == [0, 1]
    metrics = games_metrics(games)
    assert metrics["games/vs_bot"] == 3 and metrics["games/win_rate_vs_bot"] == pytest.approx(1 / 3)
    assert metrics["games/minutes"] == pytest.approx(3.0) and metrics["games/truncated"] == pytest.approx(0.2)
