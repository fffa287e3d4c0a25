"""Truncated BPTT: every rollout sample, replayed through ``Policy.forward_sequence`` from the LSTM state
stored at its start, gives back the rollout's log-probabilities and values, across game restarts inside a
sample (the ``first`` flag); and the stored state matters."""

from dataclasses import dataclass, replace

import numpy as np
import pytest
import torch

from fivestack.model.policy import Policy
from fivestack.runs.config import load_config
from fivestack.match.inference import Inference
from fivestack.system.messages import SampleBatch
from fivestack.system.rollout import RolloutWorker

BASE = ["rollout.segment_steps=32", "rollout.sample_steps=16",
        "game.max_seconds=3.0"]  # 3 s = 22.5 steps: every game is cut off (truncated) inside a segment


@dataclass
class Replayed:
    batch: SampleBatch
    log_prob: np.ndarray  # from the stored (h0, c0)
    value: np.ndarray
    log_prob_zero: np.ndarray  # from a zero state


def replay(policy: Policy, batch: SampleBatch, zero_state: bool):
    s, k = batch.hero_slots.shape
    h0 = torch.from_numpy(batch.h0).reshape(s * k, -1)
    c0 = torch.from_numpy(batch.c0).reshape(s * k, -1)
    if zero_state:
        h0, c0 = torch.zeros_like(h0), torch.zeros_like(c0)
    obs = {name: torch.from_numpy(arr) for name, arr in batch.obs.items()}
    with torch.no_grad():
        scores = policy.forward_sequence(obs, (h0, c0), torch.from_numpy(batch.first),
                                         torch.from_numpy(batch.hero_slots), torch.from_numpy(batch.actions))
    return scores.log_prob.numpy(), scores.value.numpy()


def play(overrides: list[str], segments: int) -> list[Replayed]:
    config = load_config(None, BASE + overrides)
    torch.manual_seed(0)
    policy = Policy(config.policy)
    inference = Inference(policy, seed=0)
    worker = RolloutWorker(config, seed=1)
    out = []
    for _ in range(segments):
        batch = worker.collect(inference, team_spirit=0.3)
        lp, value = replay(policy, batch, zero_state=False)
        lp_zero, _ = replay(policy, batch, zero_state=True)
        out.append(Replayed(batch, lp, value, lp_zero))
        # as the optimizer does between segments: the input normalisers move (then the next segment is
        # played and replayed with the same parameters)
        policy.update_normalizers({n: torch.from_numpy(a).flatten(0, 1) for n, a in batch.obs.items()})
    return out


@pytest.fixture(scope="module")
def one_vs_one() -> list[Replayed]:
    return play(["game.mode='1v1'", "rollout.games=2"], segments=3)


@pytest.fixture(scope="module")
def five_vs_five() -> list[Replayed]:
    return play(["game.mode='5v5'", "rollout.games=1"], segments=2)


def games_restart_inside_samples(segments: list[Replayed]) -> None:
    restarts = sum(int((seg.batch.first[:, 1:] > 0).sum()) for seg in segments)
    assert restarts > 0, "the test needs a game that ends inside a sample"
    games = [g for seg in segments for g in seg.batch.info["games"]]
    assert games and all(g["truncated"] for g in games)  # cut off at game.max_seconds


def assert_replay_matches(segments: list[Replayed]) -> None:
    for seg in segments:
        b = seg.batch
        assert seg.log_prob.shape == b.log_prob.shape
        np.testing.assert_allclose(seg.log_prob, b.log_prob, rtol=0, atol=1e-5)
        # the rollout's values are returns - advantages (value_scale is 1 in a fresh Inference)
        np.testing.assert_allclose(seg.value, b.returns - b.advantages, rtol=0, atol=1e-4)


def assert_state_matters(segments: list[Replayed]) -> None:
    mid_game = 0
    for seg in segments:
        first = seg.batch.first
        for i in range(first.shape[0]):
            restarts = np.flatnonzero(first[i] > 0)
            cut = restarts[0] if restarts.size else first.shape[1]  # steps before the first reset
            if cut > 0:  # the sample starts inside a game: its start state is not zero
                mid_game += 1
                assert np.abs(seg.batch.h0[i]).max() > 0
                diff = np.abs(seg.log_prob_zero[i, :cut] - seg.log_prob[i, :cut]).max()
                assert diff > 1e-4, f"sample {i}: a zero start state gave the same log-probs"
            # from a reset on, the start state no longer matters
            np.testing.assert_allclose(seg.log_prob_zero[i, cut:], seg.log_prob[i, cut:], rtol=0, atol=1e-6)
    assert mid_game > 0


def test_samples_carry_state_and_shapes(one_vs_one):
    b = one_vs_one[0].batch
    # 2 games x 2 teams, 2 samples per 32-step segment; sample-major then team
    assert b.first.shape == (8, 16) and b.actions.shape == (8, 16, 1, 5) and b.h0.shape == (8, 1, 256)
    assert (b.first[:4, 0] == 1).all()  # the very first step of every game
    assert (b.h0[:4] == 0).all()  # ... starts from a zero state
    assert (np.abs(b.h0[4:]).max(axis=(1, 2)) > 0).all()  # the second samples start mid-game


def test_games_end_inside_samples(one_vs_one):
    games_restart_inside_samples(one_vs_one)
    seconds = [g["seconds"] for seg in one_vs_one for g in seg.batch.info["games"]]
    assert seconds and all(s == pytest.approx(3.0, abs=0.2) for s in seconds)


def test_replay_matches_the_rollout_1v1(one_vs_one):
    assert all(len(seg.batch) > 0 for seg in one_vs_one)
    assert_replay_matches(one_vs_one)


def test_state_matters_1v1(one_vs_one):
    assert any(seg.batch.first[:, 0].min() == 0 for seg in one_vs_one)  # some samples start mid-game
    assert_state_matters(one_vs_one)


def test_replay_matches_the_rollout_5v5(five_vs_five):
    """Five replicas per team: the stored state rows must stay in team-major hero order."""
    b = five_vs_five[0].batch
    assert b.h0.shape == (4, 5, 256) and b.actions.shape == (4, 16, 5, 5)
    games_restart_inside_samples(five_vs_five)
    assert_replay_matches(five_vs_five)
    assert_state_matters(five_vs_five)


def test_replay_with_swapped_heroes_fails(five_vs_five):
    """The check above can fail: replaying with the heroes' stored states permuted does not match."""
    seg = five_vs_five[1]
    b = seg.batch
    swapped = replace(b, h0=b.h0[:, ::-1].copy(), c0=b.c0[:, ::-1].copy())
    config = load_config(None, BASE + ["game.mode='5v5'", "rollout.games=1"])
    torch.manual_seed(0)
    policy = Policy(config.policy)
    # the normalisers as they were for this segment: updated once, from segment 0
    policy.update_normalizers({n: torch.from_numpy(a).flatten(0, 1) for n, a in five_vs_five[0].batch.obs.items()})
    lp, _ = replay(policy, b, zero_state=False)
    np.testing.assert_allclose(lp, b.log_prob, rtol=0, atol=1e-5)
    lp_swapped, _ = replay(policy, swapped, zero_state=False)
    mid = b.first[:, 0] == 0
    assert np.abs(lp_swapped[mid] - b.log_prob[mid]).max() > 1e-4
