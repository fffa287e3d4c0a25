"""The kills that end a 1v1 game (``GameConfig.duel_kills``): the paper's two, more, or none (a training-only rule
under which deaths cost their gold, experience and respawn time but not the game), on hand-set deaths."""

from __future__ import annotations

import pytest

from rules_arena import idle, run

from fivestack.game.engine import GameBatch, GameConfig
from fivestack.game.layout import ALIVE, G_KILLS0, HP
from fivestack.runs.config import ConfigError, load_config
from fivestack.system.rollout import RolloutWorker

DIRE_HERO = 5  # the Dire hero of a 1v1


def duel(kills: int | None) -> GameBatch:
    game = GameBatch(1, GameConfig(mode="1v1") if kills is None else GameConfig(mode="1v1", duel_kills=kills))
    game.reset(7)
    return game


def kill_dire_hero(game: GameBatch) -> None:
    """Wait for the Dire hero to be alive, then set its health below zero: it dies in the next frame, a kill for
    Radiant."""
    for _ in range(400):
        if game.state.ui[0, DIRE_HERO, ALIVE]:
            break
        idle(game, 1)
    game.state.uf[0, DIRE_HERO, HP] = -1000.0
    run(game, 1)


@pytest.mark.parametrize("kills, ends_at", [(None, 2), (2, 2), (3, 3)])
def test_the_kth_kill_ends_the_game_for_the_killers_side(kills, ends_at):
    game = duel(kills)
    for k in range(1, ends_at + 1):
        kill_dire_hero(game)
        assert game.state.gi[0, G_KILLS0] == k
        assert game.done[0] == (1 if k == ends_at else 0), k
    assert game.winner[0] == 0


def test_with_zero_kills_never_end_it_and_the_hero_respawns():
    game = duel(0)
    for k in range(1, 5):
        kill_dire_hero(game)
        assert game.state.gi[0, G_KILLS0] == k and game.done[0] == 0 and game.winner[0] == -1
    idle(game, 100)  # 400 frames: past the level-1 respawn of 6 s
    assert game.state.ui[0, DIRE_HERO, ALIVE] == 1


def test_bad_values_are_one_error_and_training_games_take_the_setting():
    with pytest.raises(ValueError, match="duel_kills"):
        GameConfig(mode="1v1", duel_kills=-1)
    with pytest.raises(ConfigError, match=r"game\.duel_kills"):
        load_config(None, ["game.mode='1v1'", "game.duel_kills=-1"])
    config = load_config(None, ["game.mode='1v1'", "game.duel_kills=0", "rollout.games=2", "policy.lstm_size=16"])
    assert RolloutWorker(config, seed=0).env.game.data.duel_kills[0] == 0
    assert load_config(None, ["game.mode='1v1'"]).game.game_config().duel_kills == 2  # the paper's 1v1
