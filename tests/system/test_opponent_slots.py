"""Opponent slots (``pool.opponent_slots``): a rollout worker plays at most k past versions at once, each game's
past version still drawn with the pool's p = softmax(q), counted over 10,000 draws; a slot is redrawn only when
no game plays it."""

import numpy as np
import pytest
import torch

from fivestack.model.policy import Policy, PolicyConfig
from fivestack.runs.config import ConfigError, PoolConfig, load_config
from fivestack.match.inference import Inference
from fivestack.system.pool import LATEST, OpponentPool, OpponentSlots, PastOpponents
from fivestack.system.rollout import RolloutWorker

QUALITIES = np.linspace(-1.5, 0.5, 8)  # a pool after some play: the newest versions the most likely
P = np.exp(QUALITIES) / np.exp(QUALITIES).sum()


def test_slots_on_a_hand_computed_sequence():
    draws = iter([10, 20, 30, 40, 50])
    slots = OpponentSlots(2)
    draw = lambda: next(draws)  # noqa: E731
    assert slots.take(0, draw) == 10 and slots.take(1, draw) == 20  # two free slots: two draws
    assert slots.take(2, draw) == 20  # none free: game 2 joins the youngest slot (drawn last)
    assert slots.in_play() == {10, 20} and (slots.draws, slots.joins) == (2, 1)
    slots.release(0)  # slot 0 is free: the next game draws there
    assert slots.in_play() == {20}
    assert slots.take(3, draw) == 30
    assert slots.take(4, draw) == 30  # slot 0 is the youngest now; slot 1 gets no new game
    slots.release(1)
    assert slots.in_play() == {20, 30}  # game 2 still plays slot 1: its version stays
    slots.release(2)
    assert slots.take(1, draw) == 40 and slots.in_play() == {30, 40}
    assert slots.take(1, draw) == 50  # a new game of game 1 leaves its slot first: alone there, it draws again
    assert slots.take(3, draw) == 50 and slots.players == [{4}, {1, 3}] and (slots.draws, slots.joins) == (5, 3)
    with pytest.raises(ValueError, match="at least 2"):
        OpponentSlots(1)


def test_opponent_slots_is_validated_with_a_clear_message():
    assert load_config(None, []).pool.opponent_slots == 2
    with pytest.raises(ConfigError, match=r"pool.opponent_slots must be at least 2, got 1: .*past versions"):
        load_config(None, ["pool.opponent_slots=1"])
    with pytest.raises(ConfigError, match="pool.opponent_slots must be int"):
        load_config(None, ["pool.opponent_slots=2.5"])


class NewestFirstSlots(OpponentSlots):
    """A biased scheme: a game that finds every slot played joins the one holding the newest version (here the
    most likely), which depends on the versions held."""

    def join(self) -> int:
        return max((s for s in range(self.k) if self.players[s]), key=lambda s: self.versions[s])


def simulate(slots_class, seed: int, slot_draws: int, games: int = 32, past_fraction: float = 0.2, k: int = 3,
             mean_decisions: float = 30.0):
    """A worker's opponent choices without the game: ``games`` games that each end with probability
    1 / ``mean_decisions`` per decision (whatever version they play) and start again through
    ``PastOpponents.choose_opponent``, until the slots have drawn ``slot_draws`` versions. Returns the versions
    drawn into slots, the versions the past games played, and how many games shared each draw."""
    pool = OpponentPool(PoolConfig(past_fraction=past_fraction, opponent_slots=k), "unused")
    pool.versions = [10 * i for i in range(len(QUALITIES))]  # sampling reads the bookkeeping only
    pool.quality = QUALITIES.copy()
    opponents = PastOpponents(pool, PolicyConfig(lstm_size=16))
    opponents.slots = slots_class(k)
    slots = opponents.slots
    rng, lengths = np.random.default_rng(seed), np.random.default_rng(seed + 1000)
    drawn, played, sharing = [], [], {}
    in_play_max = 0

    def start(game: int) -> None:
        before = slots.draws
        version = opponents.choose_opponent(rng, game)
        if version == LATEST:
            return
        if slots.draws > before:
            drawn.append(version)
        played.append(version)
        draw = int(slots.drawn_at[slots.slot_of[game]])
        sharing[draw] = sharing.get(draw, 0) + 1

    for g in range(games):
        start(g)
    while slots.draws < slot_draws:
        for g in np.flatnonzero(lengths.random(games) < 1.0 / mean_decisions):
            start(int(g))
        in_play_max = max(in_play_max, len(slots.in_play()))
    index = {v: i for i, v in enumerate(pool.versions)}
    return (np.bincount([index[v] for v in drawn[:slot_draws]], minlength=len(P)),
            np.bincount([index[v] for v in played], minlength=len(P)), np.array(list(sharing.values())), in_play_max)


def within_sigmas(counts: np.ndarray, sd: np.ndarray, sigmas: float = 4.0) -> np.ndarray:
    return np.abs(counts - counts.sum() * P) <= sigmas * sd


def test_versions_drawn_and_played_follow_the_pool_distribution_by_count():
    """Over 10,000 slot draws each version's count is within 4 binomial standard deviations of N p. The games
    that play them (about 5 per draw with 3 slots, 32 games, 20% against past versions) count each draw once per
    game, so their counts are sums of i.i.d. draws weighted by the games sharing each: unbiased, with variance
    p (1 - p) * sum(games per draw ^ 2); each version's count is within 4 of those standard deviations."""
    drawn, played, sharing, in_play_max = simulate(OpponentSlots, seed=0, slot_draws=10_000)
    assert drawn.sum() == 10_000 and in_play_max == 3
    assert within_sigmas(drawn, np.sqrt(10_000 * P * (1 - P))).all(), (drawn, 10_000 * P)
    assert sharing.sum() == played.sum() > 3 * 10_000  # games do share slots (about 5 a draw here)
    assert within_sigmas(played, np.sqrt((sharing ** 2).sum() * P * (1 - P))).all(), (played, played.sum() * P)


def test_a_scheme_that_joins_slots_by_their_version_fails_the_count():
    """The same count catches a bias: joining the slot of the newest version when none is free."""
    _, played, sharing, _ = simulate(NewestFirstSlots, seed=0, slot_draws=3_000)
    ok = within_sigmas(played, np.sqrt((sharing ** 2).sum() * P * (1 - P)))
    assert not ok[-1] and played[-1] > played.sum() * P[-1]  # the newest version is played far too often


def test_a_worker_runs_at_most_k_past_forward_passes_per_decision(tmp_path):
    """16 games, all against past versions of 8, 3 slots: every decision runs at most 3 past versions' forward
    passes; a game's opponent changes only when a new game starts there; slots are redrawn as games end."""
    config = load_config(None, [f"run.runs_dir='{tmp_path}'", "run.name='slots'", "game.mode='1v1'",
                                "game.max_seconds=8.0", "rollout.games=16", "rollout.segment_steps=32",
                                "policy.lstm_size=16", "run.torch_threads=1", "eval.every_versions=0",
                                "pool.past_fraction=1.0", "pool.opponent_slots=3"])
    pool = OpponentPool(config.pool, tmp_path / "pool")
    torch.manual_seed(0)
    for version in range(8):
        pool.add(version * 10, Policy(config.policy).state_dict())
    opponents = PastOpponents(pool, config.policy)
    worker = RolloutWorker(config, seed=5, opponents=opponents)
    passes: list[set] = []
    inference = opponents.inference

    def counting(version):
        passes[-1].add(version)
        return inference(version)

    opponents.inference = counting
    act = worker._act
    before = {"versions": worker.opponent_version.copy()}

    def recording_act(infer, request):
        changed = np.flatnonzero(worker.opponent_version != before["versions"])
        assert (request.first[2 * changed] == 1).all()  # a game's opponent changes only at its start
        before["versions"] = worker.opponent_version.copy()
        passes.append(set())
        result = act(infer, request)
        in_play = set(np.unique(worker.opponent_version).tolist())
        assert passes[-1] == in_play and len(in_play) <= 3
        return result

    worker._act = recording_act
    latest = Inference(Policy(config.policy), seed=0)
    played = set()
    for _ in range(3):  # 8 s games: each game ends once or twice and draws again
        calls = len(passes)
        batch = worker.collect(latest, team_spirit=0.3)
        played |= set(np.unique(worker.opponent_version).tolist())
        # the worker counts the passes it ran (the bootstrap passes of truncated games included)
        assert batch.info["past_forward_passes"] == sum(len(p) for p in passes[calls:]) > 0
    assert max(len(p) for p in passes) == 3  # the bound is reached (16 games, 3 slots)
    assert opponents.slots.draws > 3 and opponents.slots.joins > 0  # slots were redrawn; games shared them
    assert len(played | {v for p in passes for v in p}) > 3  # and over time more than 3 versions played


def test_redraw_opponents_draws_from_a_pool_filled_after_the_worker_was_made_and_only_before_play(tmp_path):
    config = load_config(None, [f"run.runs_dir='{tmp_path}'", "run.name='redraw'", "game.mode='1v1'",
                                "rollout.games=8", "rollout.segment_steps=16", "policy.lstm_size=16",
                                "run.torch_threads=1", "eval.every_versions=0", "pool.past_fraction=1.0",
                                "rollout.lane_start=1.0"])
    pool = OpponentPool(config.pool, tmp_path / "pool")
    worker = RolloutWorker(config, seed=1, opponents=PastOpponents(pool, config.policy))
    assert (worker.opponent_version == LATEST).all()  # the pool was empty
    pool.add(0, Policy(config.policy).state_dict())
    pool.add(10, Policy(config.policy).state_dict())
    worker.redraw_opponents()
    assert set(np.unique(worker.opponent_version).tolist()) <= {0, 10} and (worker.opponent_version >= 0).all()
    batch = worker.collect(Inference(Policy(config.policy), seed=0), team_spirit=0.3)
    # only the opponents were drawn again: the eight games were started (and placed in the lane) once
    assert batch.info["games_started"] == batch.info["games_in_lane"] == 8
    with pytest.raises(RuntimeError, match="games are in progress"):
        worker.redraw_opponents()
