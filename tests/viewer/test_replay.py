"""Replay files: what is recorded matches the game, the file round-trips, and a bad file gives a clear error."""

import gzip
import io
import json
import zipfile

import numpy as np
import pytest

from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.game.geometry import RUNE_SPOTS
from fivestack.game.layout import (
    ACT_TARGET, ALIVE, G_RUNE0, GOLD, GRID, HP, IT_ID, KILLER_HERO, KIND, K_CREEP_MELEE, LEVEL, MAX_UNITS, N_ACTION_FIELDS,
    SLOT_BUILDINGS, SLOT_CREEPS, TEAM, X, Y,
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
    """80 no-op steps of a 1v1 game, with the unit rows and vision seen at every step, saved mid-game."""
    env = new_env()
    recorder = ReplayRecorder(env, 0, seed=3, players={"radiant": "noop", "dire": "noop"})
    seen, vision = [], []
    for _ in range(80):
        env.step(noop_actions())
        assert recorder.record()
        seen.append(unit_rows(env.game, 0))
        vision.append(env.game.state.vis[0].copy())
    path = recorder.save(tmp_path_factory.mktemp("replay") / "game.npz")
    return env, recorder, seen, path, vision


def test_round_trip_keeps_every_timestep(recorded):
    env, recorder, seen, path, _ = recorded
    replay = load_replay(path)
    assert len(replay.steps) == replay.n_steps == recorder.n_steps == 80
    assert [s["step"] for s in replay.steps] == list(range(80))
    assert [s["frame"] for s in replay.steps] == [4 * (k + 1) for k in range(80)]
    assert [replay.units(k) for k in range(80)] == seen
    assert replay.summary == {**game_summary(env.game, 0), "timesteps": 80}
    assert replay.summary["outcome"] == "unfinished" and replay.summary["winner"] is None
    assert not replay.has_policy and replay.policy(0) is None


def test_unit_rows_are_the_alive_units_of_the_state(recorded):
    env, _, _, path, _ = recorded
    replay = load_replay(path)
    uf, ui, hi = env.game.state.uf, env.game.state.ui, env.game.state.hi
    last = replay.units(replay.n_steps - 1)
    assert [u["unit"] for u in last] == np.flatnonzero(ui[0, :, ALIVE]).tolist()
    assert any(u["kind"] == K_CREEP_MELEE for u in last)  # waves have spawned by step 80
    for u in last:
        k = u["unit"]
        assert u["kind"] == ui[0, k, KIND] and u["team"] == ui[0, k, TEAM]
        assert abs(u["x"] - uf[0, k, X]) <= 0.5 and abs(u["y"] - uf[0, k, Y]) <= 0.5
        assert 0 <= u["hp"] - float(uf[0, k, HP]) < 1.0 and u["hp"] >= 1  # rounded up: alive never shows 0
        assert u["level"] == (hi[0, k, LEVEL] if k < 10 else 0)
    heroes = [u for u in last if u["kind"] == 0]
    assert [u["unit"] for u in heroes] == [0, 5]  # 1v1: one hero a side


def test_vis_is_each_teams_fog_of_war(recorded):
    _, _, _, path, vision = recorded
    replay = load_replay(path)
    hidden_somewhere = 0
    for t in (0, 40, 79):
        for u in replay.units(t):
            expected = int(vision[t][0, u["unit"]] != 0) | (int(vision[t][1, u["unit"]] != 0) << 1)
            assert u["vis"] == expected
            if u["team"] in (0, 1):
                assert u["vis"] & (1 << u["team"])  # a team always sees its own units
            hidden_somewhere += u["vis"] != 3
        assert all(u["vision"] > 0 for u in replay.units(t) if u["team"] in (0, 1) and u["kind"] != 7)
    assert hidden_somewhere > 0  # the fog hides something: enemy buildings and creeps across the map


def test_heroes_gold_and_items_per_timestep(recorded):
    env, _, _, path, _ = recorded
    replay = load_replay(path)
    hf, items = env.game.state.hf, env.game.state.items
    last = replay.heroes(replay.n_steps - 1)
    names = replay.header["item_names"]
    for h in (0, 5):
        assert last[h]["gold"] == round(float(hf[0, h, GOLD]))
        assert last[h]["items"] == [names[i] if i >= 0 else None for i in items[0, h, :, IT_ID].tolist()]
        assert last[h]["level"] >= 1 and last[h]["net_worth"] >= last[h]["gold"]
    purchases = [e for e in replay.events if e["type"] == "purchase"]
    assert purchases and all(e["hero"] in (0, 5) and e["gold"] > 0 and e["items"] for e in purchases)
    first = {e["hero"]: e for e in reversed(purchases)}
    assert all(set(first[h]["items"]) <= set(replay.heroes(first[h]["step"])[h]["items"]) | {"waystone"}
               for h in first)


def test_header_describes_the_game_and_the_map(recorded):
    path = recorded[3]
    header = load_replay(path).header
    assert header["format"] == FORMAT_NAME and header["version"] == FORMAT_VERSION == 2
    assert header["config"]["mode"] == "1v1" and header["seed"] == 3
    assert header["players"] == {"radiant": "noop", "dire": "noop"}
    assert header["unit_fields"] == list(UNIT_FIELDS)
    assert header["policy"] == {"radiant": False, "dire": False}
    assert len(header["lineup"]["radiant"]) == len(header["lineup"]["dire"]) == 1
    assert [h["active"] for h in header["heroes"]] == [True, False, False, False, False] * 2
    assert all(len(h["abilities"]) == 4 for h in header["heroes"])
    grid = header["map"]["walk_grid"]
    assert grid["cells"] == GRID and len(grid["rows"]) == GRID and all(len(r) == GRID for r in grid["rows"])
    assert set("".join(grid["rows"])) == {"0", "1"}
    buildings = header["map"]["buildings"]
    assert len(buildings) == 38 and sum(b["kind"] == "tower" for b in buildings) == 22
    assert sorted(header["map"]["lanes"]) == ["bottom", "mid", "top"]
    assert header["start"]["frame"] == 0 and "waystone" in header["item_names"]


def test_events_kill_last_hit_deny_and_tower_then_game_over(tmp_path):
    env = new_env()
    recorder = ReplayRecorder(env, 0)
    uf, ui = env.game.state.uf, env.game.state.ui
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
    replay = load_replay(recorder.save(tmp_path / "events.npz"))
    events = [{k: v for k, v in e.items() if k not in ("step", "frame")} for e in replay.events
              if e["type"] != "purchase"]
    assert events == [
        {"type": "last_hit", "hero": 0, "count": 1},
        {"type": "deny", "hero": 0, "count": 1},
        {"type": "kill", "victim": 5, "killer": 0},
        {"type": "building_destroyed", "unit": DIRE_MID_T1, "team": "dire", "kind": "tower", "tier": 1,
         "lane": "mid"},
        {"type": "game_over", "outcome": "win", "winner": "radiant"},
    ]
    assert [e["step"] for e in replay.events if e["type"] != "purchase"] == [12, 13, 14, 15, 15]
    s = replay.summary
    assert (s["outcome"], s["winner"], s["timesteps"]) == ("win", "radiant", 16)
    assert s["teams"]["radiant"]["towers_destroyed"] == 1 and s["teams"]["dire"]["towers_destroyed"] == 0
    assert (s["teams"]["radiant"]["kills"], s["teams"]["dire"]["deaths"]) == (1, 1)
    assert (s["teams"]["radiant"]["last_hits"], s["teams"]["radiant"]["denies"]) == (1, 1)
    assert replay.n_steps == expected_timesteps(s["duration_seconds"])
    assert replay.steps[-1]["kills"] == [1, 0]
    assert [e for e in replay.steps[14]["events"] if e["type"] == "kill"] == [{"type": "kill", "victim": 5,
                                                                                "killer": 0}]


def test_rune_pickup_is_an_event(tmp_path):
    env = new_env()
    recorder = ReplayRecorder(env, 0)
    gi, uf = env.game.state.gi, env.game.state.uf
    gi[0, G_RUNE0] = 3  # a haste rune at spot 0 ...
    env.step(noop_actions())
    recorder.record()
    uf[0, 5, X], uf[0, 5, Y] = RUNE_SPOTS[0]  # ... and then Dire's hero standing on it
    env.step(noop_actions())
    recorder.record()
    replay = load_replay(recorder.save(tmp_path / "rune.npz"))
    assert replay.steps[0]["runes"][0] == 3 and replay.steps[1]["runes"][0] == 0
    runes = [e for e in replay.events if e["type"] == "rune"]
    assert [(e["spot"], e["rune"], e["hero"], e["step"]) for e in runes] == [(0, "haste", 5, 1)]


def test_same_game_gives_the_same_recording(tmp_path):
    env = BatchedEnv(2, GameConfig(mode="1v1"))
    env.reset(np.array([9, 9]))
    recorders = [ReplayRecorder(env, g, seed=9) for g in (0, 1)]
    for _ in range(30):
        env.step(noop_actions(2))
        for r in recorders:
            r.record()
    a, b = (load_replay(r.save(tmp_path / f"{g}.npz")) for g, r in enumerate(recorders))
    assert a.arrays.keys() == b.arrays.keys()
    assert all(np.array_equal(a.arrays[k], b.arrays[k]) for k in a.arrays)
    assert a.events == b.events and a.summary == b.summary
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


def test_a_20_minute_game_stays_small(tmp_path):
    """Size scales with units x timesteps: 750 steps of 5v5 (100 s) must stay far under 20 MB / 12 (1/12 of
    the 9,000 steps of 20 minutes); benchmarks/replay_size.py measures the full game."""
    env = BatchedEnv(1, GameConfig(mode="5v5"))
    env.reset(5)
    recorder = ReplayRecorder(env, 0)
    for _ in range(750):
        env.step(noop_actions())
        recorder.record()
    path = recorder.save(tmp_path / "five.npz")
    assert path.stat().st_size < 20e6 / 12 / 4


# ---------------------------------------------------------------- bad files
def rewrite(path, src, change):
    """Copy the replay ``src`` to ``path`` with ``change(arrays)`` applied to its arrays."""
    with np.load(src, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    change(arrays)
    with open(path, "wb") as f:
        np.savez_compressed(f, **arrays)


def json_entry(arrays, name):
    return json.loads(arrays[name].tobytes().decode())


def set_json(arrays, name, obj):
    arrays[name] = np.frombuffer(json.dumps(obj).encode(), np.uint8)


def test_missing_file(tmp_path):
    with pytest.raises(ValueError, match="does not exist.*fivestack play .*--replay"):
        load_replay(tmp_path / "nothing.npz")


def test_truncated_file(recorded, tmp_path):
    data = recorded[3].read_bytes()
    bad = tmp_path / "cut.npz"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="truncated or corrupted.*record a new one"):
        load_replay(bad)


def test_flipped_bytes_are_caught(recorded, tmp_path):
    data = bytearray(recorded[3].read_bytes())
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo("unit_x.npy")
    middle = info.header_offset + 30 + len(info.filename) + info.compress_size // 2
    data[middle] ^= 0xFF
    bad = tmp_path / "flipped.npz"
    bad.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="corrupted.*record a new one"):
        load_replay(bad)


def test_old_gzip_json_lines_replay_is_refused(tmp_path):
    old = tmp_path / "old.jsonl.gz"
    old.write_bytes(gzip.compress(json.dumps({"type": "header", "format": FORMAT_NAME, "version": 1}).encode()))
    with pytest.raises(ValueError, match="format version 1 .*reads version 2.*record a new one"):
        load_replay(old)


def test_wrong_version(recorded, tmp_path):
    bad = tmp_path / "future.npz"
    rewrite(bad, recorded[3], lambda a: set_json(a, "header", {**json_entry(a, "header"), "version": 99}))
    with pytest.raises(ValueError, match=f"format version 99.*reads version {FORMAT_VERSION}"):
        load_replay(bad)


def test_not_a_replay(tmp_path):
    bad = tmp_path / "other.npz"
    bad.write_text('{"type": "header"}\n')
    with pytest.raises(ValueError, match="not a fivestack replay"):
        load_replay(bad)
    with open(bad, "wb") as f:
        np.savez(f, x=np.zeros(3))
    with pytest.raises(ValueError, match="not a fivestack replay: the archive has no header"):
        load_replay(bad)


def test_inconsistent_arrays(recorded, tmp_path):
    bad = tmp_path / "bad.npz"
    rewrite(bad, recorded[3], lambda a: a.pop("unit_hp"))
    with pytest.raises(ValueError, match=r"corrupted: it lacks the arrays \['unit_hp'\]"):
        load_replay(bad)
    rewrite(bad, recorded[3], lambda a: a.__setitem__("unit_x", a["unit_x"][:-1]))
    with pytest.raises(ValueError, match="unit_x has shape"):
        load_replay(bad)
    rewrite(bad, recorded[3], lambda a: set_json(a, "summary", {**json_entry(a, "summary"), "timesteps": 81}))
    with pytest.raises(ValueError, match="summary counts 81 timesteps but the file holds 80"):
        load_replay(bad)
    rewrite(bad, recorded[3], lambda a: a.__setitem__("header", a["header"][:-5]))
    with pytest.raises(ValueError, match="header is not valid JSON"):
        load_replay(bad)


def test_object_arrays_are_never_unpickled(recorded, tmp_path):
    bad = tmp_path / "pickled.npz"
    rewrite(bad, recorded[3], lambda a: a.__setitem__("events", np.array([{"a": 1}], dtype=object)))
    with pytest.raises(ValueError, match="corrupted"):
        load_replay(bad)
