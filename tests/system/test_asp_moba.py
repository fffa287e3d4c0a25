"""Asymmetric self-play on the MOBA (``fivestack/system/asp_moba.py``, ``[asp]``): the config's rules, the
rewards of an episode on hand-set cases against the paper's formula, and the games inside a rollout.

With ``asp.share = 0`` (the default) training is unchanged: ``test_golden_serial.py`` replays a seeded run."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.model.policy import Policy, PolicyConfig
from fivestack.asp.selfplay import BOB
from fivestack.system.asp_moba import GOAL_WIDTH, OWNER_ALICE, OWNER_IDLE, MobaSelfPlay, hero_state
from fivestack.runs.config import ConfigError, load_config
from fivestack.system.pool import LATEST
from fivestack.system.rollout import RolloutWorker
from fivestack.match.teams import active_heroes

ON = ["game.mode='1v1'", "asp.share=0.5", f"policy.goal_inputs={GOAL_WIDTH}"]


@pytest.mark.parametrize("overrides, names", [
    (["asp.share=0.5", f"policy.goal_inputs={GOAL_WIDTH}"], "game.mode"),  # the default mode is 5v5
    (["game.mode='1v1'", "asp.share=0.5"], f"policy.goal_inputs={GOAL_WIDTH}"),
    (ON + ["rollout.games=8", "asp.share=0.01"], "rounds to no self-play game"),
    (ON + ["rollout.games=2", "asp.share=1.0"], "keep at least one ordinary game"),
    (ON + ["asp.t_max=50", "asp.alice_t_max=50"], "asp.alice_t_max"),
    (ON + ["asp.position_tolerance=0"], "asp.position_tolerance"),
    (ON + ["asp.share=1.5"], "asp.share"),
])
def test_config_mistakes_are_one_error_naming_the_fix(overrides, names):
    with pytest.raises(ConfigError, match=re.escape(names)):
        load_config(None, overrides)


def test_the_default_has_no_self_play_and_no_goal_input():
    config = load_config(None, [])
    assert config.asp.share == 0 and config.policy.goal_inputs == 0
    names = {n for n, _ in Policy(config.policy).named_parameters()}
    wider = Policy(PolicyConfig(goal_inputs=GOAL_WIDTH))
    assert {n for n, _ in wider.named_parameters()} == names  # the same tensors, only the trunk reads more
    assert Policy(config.policy).trunk[0].weight.shape[1] + GOAL_WIDTH == wider.trunk[0].weight.shape[1]


def test_the_ray_runner_refuses_self_play():
    pytest.importorskip("ray")
    from fivestack.system.ray.driver import RayRunner

    with pytest.raises(ConfigError, match="ray runner does not play asymmetric self-play"):
        RayRunner(load_config(None, ON))


def self_play(t_max=20, alice_t_max=10, gamma=0.01):
    config = load_config(None, ON + ["rollout.games=2", f"asp.t_max={t_max}", f"asp.alice_t_max={alice_t_max}",
                                     f"asp.reward_scale={gamma}", "asp.alice_batch=100"])
    env = BatchedEnv(2, GameConfig(mode="1v1"))
    seeds = np.array([11, 12], np.uint64)
    env.reset(seeds)
    fresh = iter(range(1000, 2000))
    asp = MobaSelfPlay(config.asp, 2, active_heroes("1v1"), seed=0,
                       take_seeds=lambda n: np.array([next(fresh) for _ in range(n)], np.uint64))
    asp.begin(env, seeds)
    return asp, env


def bob_turn(asp, env, t_a, t_b, goal_offset):
    """Game 0 in Bob's turn after Alice's t_a decisions and t_b of his own, the goal this far from his hero."""
    asp.phase[0], asp.t_a[0], asp.t_b[0] = BOB, t_a, t_b
    asp.trajectory[0] = [(np.zeros(12, np.float32), 0, True)] * t_a
    asp.goal[0] = hero_state(env.game, np.array([0]), asp.heroes[asp.side[[0]]])[0] + goal_offset


def test_bob_reaching_the_goal_ends_the_episode_with_the_papers_rewards():
    asp, env = self_play(t_max=20, gamma=0.01)
    bob_turn(asp, env, t_a=5, t_b=0, goal_offset=[100.0, -100.0, 0.0, 50.0])  # within 250 units, 150 gold
    reward = np.full((4, 1), 7.0, np.float32)  # the game's own rewards, to be replaced
    row = asp.alice_rows()[0]  # Bob's (the next episode may put Alice on the other side)
    games, seeds = asp.after_decision(env, reward, np.zeros(2, bool))
    assert reward[row, 0] == pytest.approx(-0.01 * 1)  # R_B = -gamma t_B, t_B = 1
    assert asp.finished[0][1] == pytest.approx(0.0)  # R_A = gamma max(0, 1 - 5)
    assert reward[row ^ 1, 0] == 0.0  # the game's rewards do not count in the self-play game (game 0)
    assert (reward[2:, 0] == 7.0).all()  # and stay as they were in the ordinary game
    assert list(games) == [0] and seeds[0] == 1000  # a new episode from a fresh seed
    assert asp.stats["bob_success"] == [1.0]


def test_bob_missing_the_goal_fails_at_t_max_and_pays_alice():
    asp, env = self_play(t_max=20, gamma=0.01)
    bob_turn(asp, env, t_a=5, t_b=13, goal_offset=[3000.0, 0.0, 0.0, 0.0])  # his 14th decision: 5 + 14 < 20
    reward = np.zeros((4, 1), np.float32)
    row = asp.alice_rows()[0]
    games, _ = asp.after_decision(env, reward, np.zeros(2, bool))
    assert games.size == 0 and reward[row, 0] == 0.0  # still his turn
    games, _ = asp.after_decision(env, reward, np.zeros(2, bool))  # 5 + 15 = t_max: he failed
    assert list(games) == [0]
    assert reward[row, 0] == pytest.approx(-0.01 * 15)  # t_B = t_max - t_A = 15
    assert asp.finished[0][1] == pytest.approx(0.01 * (15 - 5))  # R_A = gamma (t_B - t_A)
    assert asp.stats["bob_success"] == [0.0]


def test_a_level_or_gold_outside_the_tolerance_is_not_the_goal():
    for offset in ([0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 400.0], [300.0, 0.0, 0.0, 0.0]):
        asp, env = self_play(t_max=20)
        bob_turn(asp, env, t_a=5, t_b=0, goal_offset=offset)
        reward = np.zeros((4, 1), np.float32)
        games, _ = asp.after_decision(env, reward, np.zeros(2, bool))
        assert games.size == 0, offset


def test_alice_stops_and_bob_starts_from_her_start():
    asp, env = self_play(alice_t_max=10)
    owners = np.full(4, LATEST)
    asp.set_owners(owners)
    alice_row = asp.alice_rows()[0]
    assert owners[alice_row] == OWNER_ALICE and owners[alice_row ^ 1] == OWNER_IDLE and (owners[2:] == LATEST).all()
    asp.decide(env)
    asp.stopped[0] = True  # as if she chose STOP now: her task is the state before it
    asp.goal[0] = [1.0, 2.0, 3.0, 4.0]
    games, seeds = asp.after_decision(env, np.zeros((4, 1), np.float32), np.zeros(2, bool))
    assert list(games) == [0] and seeds[0] == 11  # the same game again, for Bob
    assert asp.phase[0] == BOB and asp.t_a[0] == 1 and asp.goal[0].tolist() == [1.0, 2.0, 3.0, 4.0]
    owners = np.full(4, LATEST)
    asp.set_owners(owners)
    assert owners[alice_row] == LATEST  # Bob is the learner
    goal = asp.goal_features(env, 4, 1)
    assert goal[alice_row, 0, 0] == 1.0 and (goal[np.arange(4) != alice_row] == 0).all()


@pytest.mark.slow
def test_a_rollout_with_self_play_trains_bob_with_his_goal_and_counts_every_step():
    config = load_config(None, ON + ["rollout.games=2", "rollout.segment_steps=64", "policy.lstm_size=16",
                                     "asp.t_max=40", "asp.alice_t_max=4", "asp.position_tolerance=1",
                                     "pool.past_fraction=0",
                                     "rollout.decision_steps=2"])
    torch.manual_seed(0)
    policy = Policy(config.policy)
    worker = RolloutWorker(config, seed=0)

    from fivestack.match.inference import Inference

    batch = worker.collect(Inference(policy, seed=0), team_spirit=0.3)
    assert batch.info["hero_steps"] == 64 * 2 * 2 * 2  # steps x teams x K x decision_steps: self-play counts
    flags = batch.obs["goal"][..., 0]  # (samples, L, K)
    assert flags.max() == 1.0  # Bob's samples are training data, with his goal
    assert batch.info["asp"]["asp/episodes"] >= 1
    # the ordinary game's two rows are the learner's (8 samples); of the self-play game only Bob's samples are
    assert 8 < len(batch) <= 8 + 4
