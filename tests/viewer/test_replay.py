"""Replay files: what is recorded matches the game, the file round-trips, and a bad file gives a clear error."""

import gzip
import json

import numpy as np
import pytest

from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.game.layout import (
    ACT_TARGET, ALIVE, GRID, HP, KILLER_HERO, KIND, K_CREEP_MELEE, LEVEL, MAX_UNITS, N_ACTION_FIELDS,
    SLOT_BUILDINGS, SLOT_CREEPS, TEAM,
)
from fivestack.viewer.replay import (
    FORMAT_NAME, FORMAT_VERSION, UNIT_FIELDS, ReplayRecorder, expected_timesteps, game_summary, load_replay, unit_rows,
)

DIRE_MID_T1 = SLOT_BUILDINGS + 19 + 1  # Dire's local building 1: the tier-1 tower of the middle lane


def noop_actions(n_games: int = 1) -> np.ndarray:
    actions = np.zeros((n_games, 10, N_ACTION_FIELDS), np.int64)
    actions[..., ACT_TARGET] = -1
    return actions


def new_env(mode: str = "1v1", seed: int = 3, max_seconds: float = 600.0) -> BatchedEnv:
    env = BatchedEnv(1, GameConfig(mode=mode, max_seconds=max_seconds))
    env.reset(seed)
    return env


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """80 no-op steps of a 1v1 game, with the unit rows seen at every step, saved mid-game."""
    env = new_env()
    recorder = ReplayRecorder(env, 0, seed=3, players={"radiant": "noop", "dire": "noop"})
    seen = []
    for _ in range(80):
        env.step(noop_actions())
        assert recorder.record()
        seen.append(unit_rows(env.game, 0))
    path = recorder.save(tmp_path_factory.mktemp("replay") / "game.jsonl.gz")
    return env, recorder, seen, path


def test_round_trip_keeps_every_timestep(recorded):
    env, recorder, seen, path = recorded
    replay = load_replay(path)
    assert len(replay.steps) == recorder.n_steps == 80
    assert [s["step"] for s in replay.steps] == list(range(80))
    assert [s["frame"] for s in replay.steps] == [4 * (k + 1) for k in range(80)]
    assert [s["units"] for s in replay.steps] == seen
    assert replay.summary == {**game_summary(env.game, 0), "timesteps": 80}
    assert replay.summary["outcome"] == "unfinished" and replay.summary["winner"] is None


def test_unit_rows_are_the_alive_units_of_the_state(recorded):
    env, _, _, path = recorded
    replay = load_replay(path)
    uf, ui, hi = env.game.state[0], env.game.state[1], env.game.state[3]
    last = replay.units(len(replay.steps) - 1)
    assert [u["unit"] for u in last] == np.flatnonzero(ui[0, :, ALIVE]).tolist()
    assert any(u["kind"] == K_CREEP_MELEE for u in last)  # waves have spawned by step 80
    for u in last:
        k = u["unit"]
        assert u["kind"] == ui[0, k, KIND] and u["team"] == ui[0, k, TEAM]
        assert u["hp"] == pytest.approx(float(uf[0, k, HP]), abs=0.051)
        assert u["level"] == (hi[0, k, LEVEL] if k < 10 else 0)
    heroes = [u for u in last if u["kind"] == 0]
    assert [u["unit"] for u in heroes] == [0, 5]  # 1v1: one hero a side


def test_header_describes_the_game_and_the_map(recorded):
    _, _, _, path = recorded
    header = load_replay(path).header
    assert header["format"] == FORMAT_NAME and header["version"] == FORMAT_VERSION
    assert header["config"]["mode"] == "1v1" and header["seed"] == 3
    assert header["players"] == {"radiant": "noop", "dire": "noop"}
    assert header["unit_fields"] == list(UNIT_FIELDS)
    assert len(header["lineup"]["radiant"]) == len(header["lineup"]["dire"]) == 1
    assert [h["active"] for h in header["heroes"]] == [True, False, False, False, False] * 2
    assert all(len(h["abilities"]) == 4 for h in header["heroes"])
    grid = header["map"]["walk_grid"]
    assert grid["cells"] == GRID and len(grid["rows"]) == GRID and all(len(r) == GRID for r in grid["rows"])
    assert set("".join(grid["rows"])) == {"0", "1"}
    buildings = header["map"]["buildings"]
    assert len(buildings) == 38 and sum(b["kind"] == "tower" for b in buildings) == 22
    assert sorted(header["map"]["lanes"]) == ["bottom", "mid", "top"]
    assert header["start"]["frame"] == 0 and len(header["start"]["units"]) > 40


def test_events_kill_last_hit_deny_and_tower_then_game_over(tmp_path):
    env = new_env()
    recorder = ReplayRecorder(env, 0)
    uf, ui = env.game.state[0], env.game.state[1]
    for _ in range(12):  # the first wave spawns at one second
        env.step(noop_actions())
        recorder.record()
    creeps = [u for u in range(SLOT_CREEPS, MAX_UNITS) if ui[0, u, ALIVE]]
    dire_creep = next(u for u in creeps if ui[0, u, TEAM] == 1)
    radiant_creep = next(u for u in creeps if ui[0, u, TEAM] == 0)

    def finish(unit, credited_hero):
        uf[0, unit, HP] = -1000.0
        ui[0, unit, KILLER_HERO] = credited_hero
        env.step(noop_actions())
        recorder.record()

    finish(dire_creep, 0)  # Radiant's hero last-hits an enemy creep
    finish(radiant_creep, 0)  # ... and denies its own
    finish(5, 0)  # ... and kills the Dire hero
    finish(DIRE_MID_T1, 0)  # the first tower decides a 1v1
    env.step(noop_actions())
    assert not recorder.record()  # a finished game does not advance: nothing more is recorded
    replay = load_replay(recorder.save(tmp_path / "events.jsonl.gz"))
    events = [{k: v for k, v in e.items() if k not in ("step", "frame")} for e in replay.events]
    assert events == [
        {"type": "last_hit", "hero": 0, "count": 1},
        {"type": "deny", "hero": 0, "count": 1},
        {"type": "kill", "victim": 5, "killer": 0},
        {"type": "building_destroyed", "unit": DIRE_MID_T1, "team": "dire", "kind": "tower", "tier": 1,
         "lane": "mid"},
        {"type": "game_over", "outcome": "win", "winner": "radiant"},
    ]
    s = replay.summary
    assert (s["outcome"], s["winner"], s["timesteps"]) == ("win", "radiant", 16)
    assert s["teams"]["radiant"]["towers_destroyed"] == 1 and s["teams"]["dire"]["towers_destroyed"] == 0
    assert (s["teams"]["radiant"]["kills"], s["teams"]["dire"]["deaths"]) == (1, 1)
    assert (s["teams"]["radiant"]["last_hits"], s["teams"]["radiant"]["denies"]) == (1, 1)
    assert len(replay.steps) == expected_timesteps(s["duration_seconds"])
    assert replay.steps[-1]["kills"] == [1, 0]


def test_same_game_gives_the_same_recording(tmp_path):
    env = BatchedEnv(2, GameConfig(mode="1v1"))
    env.reset(np.array([9, 9]))
    recorders = [ReplayRecorder(env, g, seed=9) for g in (0, 1)]
    for _ in range(30):
        env.step(noop_actions(2))
        for r in recorders:
            r.record()
    a, b = (load_replay(r.save(tmp_path / f"{g}.jsonl.gz")) for g, r in enumerate(recorders))
    assert a.steps == b.steps and a.summary == b.summary
    assert a.header["game_index"] == 0 and b.header["game_index"] == 1


def test_recorder_refuses_a_reset_game_and_a_bad_index():
    env = new_env()
    recorder = ReplayRecorder(env, 0)
    for _ in range(2):
        env.step(noop_actions())
        recorder.record()
    env.reset(4)  # a new game behind the recorder's back
    env.step(noop_actions())
    with pytest.raises(RuntimeError, match="was reset"):
        recorder.record()
    with pytest.raises(ValueError, match="game_index"):
        ReplayRecorder(env, 1)


# ---------------------------------------------------------------- bad files
def rewrite(path, lines):
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("".join(json.dumps(line) + "\n" for line in lines))


def records(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def test_missing_file(tmp_path):
    with pytest.raises(ValueError, match="does not exist.*fivestack play .*--replay"):
        load_replay(tmp_path / "nothing.jsonl.gz")


def test_truncated_gzip(recorded, tmp_path):
    data = recorded[3].read_bytes()
    bad = tmp_path / "cut.jsonl.gz"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="truncated or corrupted.*record a new one"):
        load_replay(bad)


def test_not_gzip(tmp_path):
    bad = tmp_path / "plain.jsonl.gz"
    bad.write_text('{"type": "header"}\n')
    with pytest.raises(ValueError, match="not gzip-compressed"):
        load_replay(bad)


def test_wrong_version(recorded, tmp_path):
    lines = records(recorded[3])
    lines[0]["version"] = FORMAT_VERSION + 98
    bad = tmp_path / "future.jsonl.gz"
    rewrite(bad, lines)
    with pytest.raises(ValueError, match=f"format version {FORMAT_VERSION + 98}.*reads version {FORMAT_VERSION}"):
        load_replay(bad)


def test_not_a_replay(tmp_path):
    bad = tmp_path / "other.jsonl.gz"
    rewrite(bad, [{"type": "header", "format": "something-else", "version": 1}])
    with pytest.raises(ValueError, match="not a fivestack replay"):
        load_replay(bad)


def test_missing_summary_and_dropped_steps(recorded, tmp_path):
    lines = records(recorded[3])
    bad = tmp_path / "nosummary.jsonl.gz"
    rewrite(bad, lines[:-1])
    with pytest.raises(ValueError, match="no summary line"):
        load_replay(bad)
    rewrite(bad, lines[:10] + lines[11:])  # one step lost in the middle
    with pytest.raises(ValueError, match="should be timestep 9"):
        load_replay(bad)
    rewrite(bad, lines[:-2] + lines[-1:])  # the last step lost: only the count gives it away
    with pytest.raises(ValueError, match="summary counts 80 timesteps but the file holds 79"):
        load_replay(bad)


def test_garbled_line(recorded, tmp_path):
    bad = tmp_path / "garbled.jsonl.gz"
    text = gzip.decompress(recorded[3].read_bytes()).decode().splitlines()
    text[5] = text[5][:40]
    bad.write_bytes(gzip.compress(("\n".join(text) + "\n").encode()))
    with pytest.raises(ValueError, match="line 6 is not valid JSON"):
        load_replay(bad)
