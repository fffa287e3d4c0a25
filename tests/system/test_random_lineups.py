"""Training with ``[game] lineups = "random"`` and ``randomise = true``: the keys are checked with one clear
error, reach the rollout worker's games, and a tiny serial run plays games whose lineups vary (each game's
drawn from its seed at every reset) while evaluation games keep the fixed lineup and the standard start."""

from __future__ import annotations

import numpy as np
import pytest

from fivestack.game.layout import G_TRAINING, MODE_1V1_MID, MODE_5V5, RANDOM_BUILDS, RANDOM_START
from fivestack.game.lineups import check_pool, random_lineups
from fivestack.game.patch import Patch
from fivestack.runs.config import ConfigError, from_dict, load_config
from fivestack.system.rollout import RolloutWorker
from fivestack.system.serial import SerialRunner

TINY = ["rollout.games=4", "rollout.segment_steps=32", "ppo.batch_samples=8", "ppo.steps_per_version=1",
        "policy.lstm_size=16", "run.torch_threads=1", "eval.every_versions=0", "pool.past_fraction=0.0"]


@pytest.mark.parametrize("override, message", [
    ("game.lineups='draft'", "game.lineups must be one of 'fixed', 'random', got 'draft'"),
    ("game.lineups=3", "game.lineups"),
    ("game.randomise='yes'", "game.randomise"),
])
def test_a_bad_lineup_or_randomise_value_is_one_clear_error(override, message):
    with pytest.raises(ConfigError, match=message):
        load_config(overrides=[override])


def test_random_lineups_on_a_pool_too_small_for_the_mode_is_one_clear_error():
    """The config checks the patch's pool with ``check_pool`` (its message, prefixed with the key); the game's
    patch has 17 heroes, so the small pools are cut from it."""
    base = Patch()
    nine, one = (Patch(base.version, base.heroes[:n], base.items, base.rules) for n in (9, 1))
    with pytest.raises(ValueError, match=r"draws 10 distinct heroes a game, but patch .* has 9 \(Bulwark, "):
        check_pool(nine, MODE_5V5)
    check_pool(nine, MODE_1V1_MID)  # two heroes are enough for 1v1
    with pytest.raises(ValueError, match=r"draws 2 distinct heroes a game, but patch .* has 1 \(Bulwark\)"):
        random_lineups(one, MODE_1V1_MID, seeds=[0])
    load_config(overrides=["game.lineups='random'"])  # the real pool is large enough


def test_the_defaults_play_the_standard_game():
    config = load_config()
    assert (config.game.lineups, config.game.randomise) == ("fixed", False)


def test_the_keys_reach_a_rollout_worker_built_from_the_saved_config():
    """The Ray actors rebuild the config from its dict (``from_dict``); the serial runner uses it directly."""
    config = load_config(None, ["game.mode='1v1'", "game.lineups='random'", "game.randomise=true", *TINY])
    rebuilt = from_dict(config.to_dict())
    assert (rebuilt.game.lineups, rebuilt.game.randomise) == ("random", True)
    game = RolloutWorker(rebuilt, seed=0).env.game.config
    assert (game.lineups, game.randomise, game.training) == ("random", True, True)


def recorded_run(tmp_path, mode: str, extra=()) -> tuple[SerialRunner, list[np.ndarray], list[np.ndarray]]:
    """A tiny serial run whose games end after 5 game seconds (so each restarts a few times); every reset's
    lineups and randomisation bits."""
    config = load_config(None, [f"run.runs_dir='{tmp_path}'", "run.name='random'", f"game.mode='{mode}'",
                                "game.lineups='random'", "game.randomise=true", "game.max_seconds=5",
                                "run.max_versions=12", *TINY, *extra])
    runner = SerialRunner(config)
    game = runner.worker.env.game
    lineups, bits = [game.hero_types.copy()], [game.state.gi[:, G_TRAINING].copy()]
    reset = game.reset

    def recording_reset(seeds, which=None, features=None, hero_types=None):
        reset(seeds, which, features, hero_types)
        rows = np.arange(game.n_games) if which is None else np.asarray(which).reshape(-1)
        lineups.append(game.hero_types[rows].copy())
        bits.append(game.state.gi[rows, G_TRAINING].copy())

    game.reset = recording_reset
    runner.run()
    runner.close()
    return runner, lineups, bits


@pytest.mark.parametrize("mode", ["1v1", "5v5"])
def test_a_random_lineup_run_trains_on_games_with_varying_lineups(tmp_path, mode):
    if mode == "5v5" and Patch().n_heroes < 10:
        pytest.skip("random 5v5 lineups need a pool of 10 heroes; the patch has fewer")
    runner, lineups, bits = recorded_run(tmp_path, mode)
    assert runner.version >= 12
    drawn = np.concatenate(lineups)
    assert len(lineups) > 2  # games ended by the 5-second limit and restarted with new lineups
    assert len({tuple(row) for row in drawn.tolist()}) > len(lineups[0])  # more lineups than games
    for row in drawn:
        playing = row if mode == "5v5" else row[[0, 5]]
        assert len(set(playing.tolist())) == len(playing)  # no hero twice in a game
    assert (np.concatenate(bits) == RANDOM_BUILDS | RANDOM_START).all()  # every training game randomised


def test_evaluation_games_keep_the_standard_game_unless_asked_for_random_lineups(monkeypatch):
    """``play_games`` (every evaluation and rating match) plays fixed lineups and the standard start; asked, it
    draws each game's lineup from the pool, still without randomising the start."""
    from fivestack.match import games as match_games
    from fivestack.match.agents import build_agent

    envs = []

    class RecordedEnv(match_games.BatchedEnv):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            envs.append(self)

    monkeypatch.setattr(match_games, "BatchedEnv", RecordedEnv)
    bot = lambda side: build_agent("random", side, 0, "1v1")  # noqa: E731
    for lineups in ("fixed", "random"):
        result = match_games.play_games(bot, bot, 6, "1v1", max_seconds=1.0, seed=2, lineups=lineups)
        assert len(result.winner) == 6
    fixed, drawn = envs
    assert (fixed.game.state.gi[:, G_TRAINING] == 0).all() and (drawn.game.state.gi[:, G_TRAINING] == 0).all()
    assert (fixed.game.hero_types == fixed.game.lineup).all()
    assert len({tuple(row) for row in drawn.game.hero_types.tolist()}) > 1


def test_an_evaluation_with_random_lineups_reports_each_heros_wins_from_the_games_it_played():
    """``GameResults.per_hero`` counts, for every hero A played, the games it was in and A's wins there: in 1v1
    each game counts for exactly one hero, so the heroes' games add up to all games and their wins to A's wins."""
    from fivestack.match import games as match_games
    from fivestack.match.agents import build_agent

    scripted = lambda side: build_agent("scripted", side, 0, "1v1")  # noqa: E731
    random_team = lambda side: build_agent("random", side, 1, "1v1")  # noqa: E731
    result = match_games.play_games(scripted, random_team, 12, "1v1", max_seconds=240.0, seed=3, lineups="random")
    per_hero = result.per_hero()
    assert all(len(heroes) == 1 for heroes in result.a_heroes)
    assert len(per_hero) > 1  # the lineups were drawn
    assert sum(h["games"] for h in per_hero.values()) == 12
    assert sum(h["wins"] for h in per_hero.values()) == int(result.wins.sum())
    for name, row in per_hero.items():
        games = [g for g, heroes in enumerate(result.a_heroes) if heroes == [name]]
        assert row["games"] == len(games) and row["wins"] == int(result.wins[games].sum())
        assert row["ci95"][0] <= row["win_rate"] <= row["ci95"][1]
