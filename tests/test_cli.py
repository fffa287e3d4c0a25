"""`fivestack play` end to end: the printed result and summary, the saved replay, and user errors."""

import pytest
from typer.testing import CliRunner

from fivestack.cli import app
from fivestack.game.engine import GameConfig
from fivestack.play import play_match, replay_paths
from fivestack.viewer.replay import load_replay

ROWS = {"Kills": "kills", "Deaths": "deaths", "Last hits": "last_hits", "Denies": "denies",
        "Gold (net worth)": "gold", "Towers destroyed": "towers_destroyed", "Barracks destroyed": "barracks_destroyed"}


def invoke(*args):
    return CliRunner().invoke(app, ["play", *args])


def table_rows(text: str) -> dict[str, tuple[str, str]]:
    """The rows of the printed summary table: label -> (Radiant, Dire)."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("│")]
        if len(cells) == 5:
            rows[cells[1]] = (cells[2], cells[3])
    return rows


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    path = tmp_path_factory.mktemp("play") / "game.npz"
    result = invoke("--radiant", "random", "--dire", "random", "--seed", "1", "--mode", "1v1",
                    "--max-minutes", "3", "--replay", str(path))
    return result, path


def test_play_prints_result_and_summary(played):
    result, path = played
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Summary" in out and f"Replay saved to {path}" in out
    rows = table_rows(out)
    assert set(ROWS) | {"Duration (game min)"} <= set(rows)
    assert "Radiant (random)" in out and "Dire (random)" in out


def test_replay_matches_printed_summary(played):
    result, path = played
    replay = load_replay(path)
    summary = replay.summary
    rows = table_rows(result.stdout)
    for label, key in ROWS.items():
        assert rows[label] == (str(summary["teams"]["radiant"][key]), str(summary["teams"]["dire"][key])), label
    minutes = f"{summary['duration_minutes']:.1f}"
    assert rows["Duration (game min)"] == (minutes, minutes)
    if summary["winner"]:
        assert f"{summary['winner'].capitalize()} wins after {minutes} game minutes" in result.stdout
    else:
        assert summary["outcome"] == "truncated" and summary["duration_seconds"] == 180.0
        assert f"Truncated at the time limit after {minutes} game minutes" in result.stdout
    # one line per agent timestep: 7.5 timesteps per game second
    assert len(replay.steps) == summary["timesteps"] == round(summary["duration_seconds"] * 7.5)
    header = replay.header
    assert header["config"]["mode"] == "1v1" and header["config"]["max_seconds"] == 180.0
    assert header["seed"] == 1 and header["players"] == {"radiant": "random", "dire": "random"}


@pytest.mark.parametrize("args, message", [
    (["--radiant", "nobody"], "Error: --radiant: unknown agent 'nobody'; choose one of: random, scripted"),
    (["--radiant", "random", "--dire", "Random"], "Error: --dire: unknown agent 'Random'"),
    (["--radiant", "random", "--mode", "3v3"], "Error: --mode: unknown mode '3v3'; choose one of: 1v1, 5v5"),
    (["--radiant", "random", "--max-minutes", "0"], "Error: --max-minutes must be a positive number of minutes"),
    (["--radiant", "random", "--max-minutes", "inf"], "Error: --max-minutes must be a positive number"),
    (["--radiant", "random", "--games", "0"], "Error: --games must be at least 1"),
])
def test_bad_arguments_give_one_clear_line_and_exit_2(args, message, tmp_path):
    path = tmp_path / "never.npz"
    result = invoke(*args, "--replay", str(path))
    assert result.exit_code == 2
    assert result.stderr.strip().startswith(message)
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert not path.exists()


def test_unwritable_replay_folder_is_refused_before_playing(tmp_path):
    result = invoke("--radiant", "random", "--replay", str(tmp_path / "missing" / "game.npz"))
    assert result.exit_code == 2
    assert "does not exist" in result.stderr and "Summary" not in result.stdout


def test_several_games_print_win_counts_and_save_one_replay_each(tmp_path):
    path = tmp_path / "m.npz"
    result = invoke("--radiant", "random", "--dire", "random", "--mode", "1v1", "--max-minutes", "0.5",
                    "--games", "2", "--seed", "5", "--replay", str(path))
    assert result.exit_code == 0, result.output
    assert "Wins: Radiant 0, Dire 0, truncated 2" in result.stdout  # random agents decide nothing in 30 s
    for i, p in enumerate(replay_paths(path, 2)):
        assert p.name == f"m-{i}.npz"
        replay = load_replay(p)
        assert replay.header["seed"] == 5 + i and replay.header["game_index"] == i
        assert len(replay.steps) == 225


def test_play_match_is_a_function_of_its_seed():
    config = GameConfig(mode="1v1", max_seconds=60.0)
    seen = []
    first = play_match("random", "random", n_games=2, seed=2, config=config, progress=seen.append)
    again = play_match("random", "random", n_games=2, seed=2, config=config)
    assert [g.summary for g in first.games] == [g.summary for g in again.games]
    assert seen == sorted(seen) and seen[-1] == pytest.approx(1.0)  # progress rises to the limit in minutes
    assert first.wins == {"radiant": 0, "dire": 0, "truncated": 2}
    assert [g.seed for g in first.games] == [2, 3]


def test_play_match_rejects_unknown_agents():
    with pytest.raises(ValueError, match="unknown agent 'bogus'"):
        play_match("bogus", "random")
