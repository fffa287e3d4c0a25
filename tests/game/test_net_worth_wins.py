"""The time limit decided by net worth (``GameConfig.net_worth_wins``, a training-only rule against the stand-off):
at the limit the team whose heroes hold more net worth wins, a tie stays undecided; off, every game at the limit is
undecided (the paper's), on hand-set gold."""

from __future__ import annotations

import numpy as np
import pytest

from rules_arena import run

from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameBatch, GameConfig
from fivestack.game.layout import ACTIVE, EV_WIN, GOLD, HEROES_PER_TEAM
from fivestack.runs.config import load_config
from fivestack.system.drill_eval import do_nothing
from fivestack.system.metrics import games_metrics
from fivestack.system.rollout import RolloutWorker

SECONDS = 2.0  # each game's time limit here: 15 timesteps


def limited(mode: str, on: bool) -> GameBatch:
    game = GameBatch(1, GameConfig(mode=mode, max_seconds=SECONDS, net_worth_wins=on))
    game.reset(11)
    return game


def play_to_the_limit(game: GameBatch) -> np.ndarray:
    """Step until the game ends; the win events of its last step, per hero."""
    for _ in range(40):
        run(game, 1)
        if game.done[0]:
            return game.events[0, :, EV_WIN].copy()
    raise AssertionError("the game did not end at its time limit")


@pytest.mark.parametrize("mode, rich, winner", [("1v1", {0: 300.0}, 0), ("1v1", {5: 1.0}, 1),
                                                ("5v5", {0: 500.0, 5: 300.0, 6: 300.0}, 1),
                                                ("5v5", {1: 250.0, 9: 200.0}, 0)])
def test_the_team_ahead_in_net_worth_wins_at_the_limit(mode, rich, winner):
    game = limited(mode, on=True)
    for hero, gold in rich.items():  # a 5v5 team counts all five heroes, a 1v1 side its one
        game.state.hf[0, hero, GOLD] += gold
    wins = play_to_the_limit(game)
    assert game.done[0] == 1 and game.winner[0] == winner  # terminated: decided, not cut off
    winners = np.zeros(2 * HEROES_PER_TEAM)
    active = game.state.hi[0, :, ACTIVE] != 0
    winners[winner * HEROES_PER_TEAM:(winner + 1) * HEROES_PER_TEAM] = 1.0
    np.testing.assert_array_equal(wins[active], winners[active])  # the win's event, as a game won any other way


def test_a_tie_or_the_rule_off_leaves_the_game_undecided():
    tie = limited("1v1", on=True)  # both sides earn the same passive gold: nobody is ahead
    assert not play_to_the_limit(tie).any() and tie.done[0] == 2 and tie.winner[0] == -1
    off = limited("1v1", on=False)
    off.state.hf[0, 0, GOLD] += 1000.0
    assert not play_to_the_limit(off).any() and off.done[0] == 2 and off.winner[0] == -1


def test_the_env_reports_a_decided_game_as_terminated_not_truncated():
    env = BatchedEnv(1, GameConfig(mode="1v1", max_seconds=SECONDS, net_worth_wins=True))
    env.reset(np.array([3], np.uint64))
    env.game.state.hf[0, 0, GOLD] += 100.0
    for _ in range(40):
        _, events, terminated, truncated, info = env.step(np.zeros((1, 2 * HEROES_PER_TEAM, 5), np.int64) - 1)
        if terminated[0] or truncated[0]:
            break
    assert terminated[0] and not truncated[0] and info["winner"][0] == 0


def test_training_games_take_the_setting():
    config = load_config(None, ["game.mode='1v1'", "game.net_worth_wins=true", "rollout.games=2",
                                "policy.lstm_size=16"])
    assert RolloutWorker(config, seed=0).env.game.data.net_worth_wins[0] == 1
    assert load_config(None, ["game.mode='1v1'"]).game.game_config().net_worth_wins is False  # the paper's


def test_a_training_game_decided_at_the_limit_counts_as_a_time_limit_game_not_a_truncated_one():
    config = load_config(None, ["game.mode='1v1'", "game.net_worth_wins=true", "game.max_seconds=2",
                                "rollout.games=2", "rollout.segment_steps=16", "policy.lstm_size=16"])
    worker = RolloutWorker(config, seed=0)
    worker.env.game.state.hf[:, 0, GOLD] += 100.0  # Radiant ahead in both first games
    first = worker.collect(do_nothing, team_spirit=0.0).info["games"][:2]
    assert all(g["winner"] == 0 and not g["truncated"] and g["time_limit"] for g in first)
    assert games_metrics(first)["games/time_limit"] == 1.0 and games_metrics(first)["games/truncated"] == 0.0
