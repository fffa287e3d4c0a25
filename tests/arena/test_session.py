"""The arena's live game, in process: a person's orders become the agents' action rows, the page sees only what
the team sees, refused orders leave the game untouched, and every game leaves a replay and a result line."""

from __future__ import annotations

import json
import shutil
from importlib import resources

import numpy as np
import pytest
import torch

from fivestack.arena.protocol import Command, ProtocolError, parse_command
from fivestack.arena.records import read_results, record_stats, results_dir_for
from fivestack.arena.session import ArenaGame, ArenaSetup
from fivestack.game.layout import NO_ORDER
from fivestack.match.agents import load_trained_policy, trained_files
from fivestack.game.layout import A_ABILITY0, A_MOVE, HEROES_PER_TEAM, MANA, MAX_UNITS, N_OFFSET, X, Y
from fivestack.model.policy import Policy, PolicyConfig
from fivestack.match.agents import PolicyTeamAgent
from fivestack.viewer.replay import load_replay


@pytest.fixture(autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def send(game: ArenaGame, **fields) -> None:
    game.order(parse_command(json.dumps({"type": "order", "hero": game.hero, **fields})))


def hero_xy(game: ArenaGame, h: int | None = None) -> np.ndarray:
    return game.env.game.state.uf[0, game.hero if h is None else h, [X, Y]].astype(float)


def state_digest(game: ArenaGame) -> list[bytes]:
    return [np.ascontiguousarray(a).tobytes() for a in game.env.game.state]


# ---------------------------------------------------------------------------------------------- orders
def test_a_far_move_is_walked_by_legal_move_actions_until_the_hero_arrives(tmp_path):
    game = ArenaGame(ArenaSetup(against="scripted", mode="1v1", seed=3), results_dir=tmp_path)
    start = hero_xy(game)
    goal = start + np.array([1800.0, 1500.0])
    send(game, order="move", x=goal[0], y=goal[1])
    for _ in range(120):
        masks = game.env.obs["primary_mask"][0, game.hero].copy()
        before = len(game.player_actions)
        game.tick()
        if len(game.player_actions) > before:
            _, row = game.player_actions[-1]
            assert row[0] == A_MOVE and masks[A_MOVE]  # an action the hero's mask allowed, in env space
            assert all(0 <= v < N_OFFSET for v in row[3:]) and row[2] == -1
        if game._standing is None:
            break
    assert np.hypot(*(hero_xy(game) - goal)) <= 100.0 + 1e-6, "the standing order ends within 100 units"
    moves = len(game.player_actions)
    assert moves > 1, "a walk past the action grid's 600-unit reach takes several move actions"
    for _ in range(10):
        game.tick()
    assert len(game.player_actions) == moves, "no more orders once arrived"


def test_casting_a_no_target_ability_spends_its_mana(tmp_path):
    game = ArenaGame(ArenaSetup(against="scripted", mode="1v1", hero="Bulwark"), results_dir=tmp_path)
    rally = game.hero_type.abilities[1]  # Bulwark learns Rally Cry (no target) at level 1
    assert rally.target == 0
    for _ in range(3):
        game.tick()
    mana = float(game.env.game.state.uf[0, game.hero, MANA])
    send(game, order="ability", slot=1)
    game.tick()
    assert game.player_actions[-1][1][0] == A_ABILITY0 + 1
    spent = mana - float(game.env.game.state.uf[0, game.hero, MANA])
    assert spent == pytest.approx(rally.mana, abs=2.0)  # less a step's regeneration
    with pytest.raises(ProtocolError) as e:  # now on cooldown: the mask refuses it
        send(game, order="ability", slot=1)
    assert e.value.code == "not_available"


def test_orders_an_agent_could_not_give_are_refused_and_change_nothing(tmp_path):
    game = ArenaGame(ArenaSetup(against="scripted", mode="1v1"), results_dir=tmp_path)
    game.tick()
    before = state_digest(game)
    enemy_hero = (1 - game.team) * HEROES_PER_TEAM
    state = game.env.game.state
    unseen = [u for u in range(MAX_UNITS) if state.ui[0, u, 0] and not state.vis[0, game.team, u]]
    cases = [
        ({"type": "order", "hero": enemy_hero, "order": "stop"}, "not_your_hero"),
        ({"type": "order", "hero": game.hero, "order": "attack", "unit": unseen[0]}, "unit_not_visible"),
        ({"type": "order", "hero": game.hero, "order": "attack", "unit": game.hero}, "not_available"),  # itself
        ({"type": "order", "hero": game.hero, "order": "ability", "slot": 3}, "not_available"),  # not learnt
        ({"type": "order", "hero": game.hero, "order": "ability", "slot": 0, "unit": game.hero}, "not_available"),
        ({"type": "order", "hero": game.hero, "order": "ability", "slot": 0}, "bad_field"),  # Shield Bash: a unit
        ({"type": "order", "hero": game.hero, "order": "item", "slot": 5}, "not_available"),  # empty slot
        ({"type": "order", "hero": game.hero, "order": "buyback"}, "not_available"),  # alive
    ]
    for message, code in cases:
        with pytest.raises(ProtocolError) as e:
            game.order(parse_command(json.dumps(message)))
        assert e.value.code == code, message
    with pytest.raises(ProtocolError) as e:
        game.order(Command("pause"))
    assert e.value.code == "unknown_type"
    assert state_digest(game) == before and game._pending is None and game._standing is None
    assert game.counters["accepted"] == 0


def test_frames_hold_only_units_the_players_team_sees(tmp_path):
    game = ArenaGame(ArenaSetup(against="scripted", mode="5v5", seed=5), results_dir=tmp_path)
    hidden_seen = 0
    for t in range(500):
        frame = game.tick()
        vis = game.env.game.state.vis[0, game.team]
        teams = game.env.game.state.ui[0, :, 1]
        units = np.asarray(frame["units"]["unit"], dtype=np.int64)
        assert ((teams[units] == game.team) | (vis[units] != 0)).all(), f"step {t}: a unit the team cannot see"
        alive_enemies = np.flatnonzero((game.env.game.state.ui[0, :, 0] != 0) & (teams != game.team))
        hidden_seen += np.isin(alive_enemies, units, invert=True).sum()
        assert frame["step"] == t + 1 and frame["me"]["hero"] == game.hero
    assert hidden_seen > 0, "some enemy units were in the fog (else this test proves nothing)"


def test_the_game_replays_from_its_seed_and_the_players_actions(tmp_path):
    setup = ArenaSetup(against="scripted", mode="1v1", seed=11)
    game = ArenaGame(setup, results_dir=tmp_path)
    rng = np.random.default_rng(0)
    for t in range(150):
        if t % 20 == 0:
            x, y = hero_xy(game) + rng.uniform(-1500, 1500, 2)
            send(game, order="move", x=float(np.clip(x, 0, 16000)), y=float(np.clip(y, 0, 16000)))
        game.tick()
    twin = ArenaGame(setup, results_dir=tmp_path / "twin")
    actions = dict(game.player_actions)
    for t in range(game.step):
        twin.tick(player_row=actions.get(t, NO_ORDER))
    assert state_digest(twin) == state_digest(game)
    assert len(actions) > 10


# ---------------------------------------------------------------------------------------------- who plays
def test_coop_teammates_are_the_policy_and_the_players_hero_is_not(tmp_path):
    game = ArenaGame(ArenaSetup(against="scripted", mode="5v5", coop=True, seed=2), results_dir=tmp_path)
    mates = [h for h in range(game.team * 5, game.team * 5 + 5) if h != game.hero]
    assert isinstance(game.teammates, PolicyTeamAgent) and game.teammates.heroes.tolist() == mates
    start = {h: hero_xy(game, h) for h in mates}
    me = hero_xy(game)
    for _ in range(450):  # 60 game seconds
        frame = game.tick()
    moved = [h for h in mates if np.hypot(*(hero_xy(game, h) - start[h])) > 300]
    assert len(moved) == 4, f"teammates that moved: {moved}"
    assert np.allclose(hero_xy(game), me), "nobody moves the idle player's hero"
    assert 0.0 <= frame["win_prob"] <= 1.0
    game.forfeit("left")
    path = game.close()
    replay = load_replay(path)
    value = replay.arrays["policy_value"]
    assert np.isnan(value[:, game.hero]).all() and np.isfinite(value[:, mates]).any(axis=0).all()


def test_policy_team_agent_plays_only_the_heroes_it_is_given():
    torch.manual_seed(0)
    policy = Policy(PolicyConfig(unit_embedding=16, element_hidden=16, trunk=32, lstm_size=32, action_embedding=16))
    with pytest.raises(ValueError, match="not heroes of team 0"):
        PolicyTeamAgent(0, policy, "5v5", heroes=np.array([5]))
    with pytest.raises(ValueError, match="not heroes of team 0"):
        PolicyTeamAgent(0, policy, "1v1", heroes=np.array([2]))
    from fivestack.env.batched import BatchedEnv
    from fivestack.game.engine import GameConfig

    env = BatchedEnv(2, GameConfig(mode="5v5"))
    env.reset(0)
    full = PolicyTeamAgent(0, policy, "5v5", seed=4)
    part = PolicyTeamAgent(0, policy, "5v5", seed=4, heroes=np.array([1, 3]))
    a, b = full.act(env), part.act(env)
    assert (b[:, [1, 3]] == a[:, [1, 3]]).all(), "the same network and draws as the whole team's"
    assert (b[:, [0, 2, 4], 0] == 0).all() and (b[:, [0, 2, 4], 2] == -1).all()
    assert part.last_result.value.shape == (2, 2)


def test_the_shipped_hero_loads_and_a_damaged_copy_is_one_clear_error(tmp_path):
    policy, info = load_trained_policy()
    assert info["mode"] == "1v1" and info["trained"]["agent_steps"] > 1_000_000
    assert policy.config.lstm_size == info["policy"]["lstm_size"]
    weights, _ = trained_files()
    assert 1_000_000 < len(weights) < 10_000_000, "a few MB"
    damaged = tmp_path / "trained"
    shutil.copytree(resources.files("fivestack.match") / "trained", damaged)
    (damaged / "model.safetensors").write_bytes(weights[:1000])
    with pytest.raises(ValueError, match="cannot be loaded.*--against scripted"):
        load_trained_policy(damaged)


@pytest.mark.parametrize("fields, message", [
    ({"mode": "3v3"}, "mode '3v3' is unknown"),
    ({"side": "blue"}, "side 'blue' is unknown"),
    ({"coop": True}, "needs --mode 5v5"),
    ({"against": "nobody"}, "unknown agent 'nobody'"),
    ({"max_seconds": -1.0}, "positive"),
])
def test_a_bad_setup_is_one_error_naming_the_field(fields, message):
    with pytest.raises(ValueError, match=message):
        ArenaSetup(**fields).check()


def test_an_unknown_hero_names_the_heroes(tmp_path):
    with pytest.raises(ValueError, match="hero 'Pudge' is unknown; heroes: Bulwark"):
        ArenaGame(ArenaSetup(against="random", hero="Pudge"), results_dir=tmp_path)


def test_dire_side_and_hero_choice_in_5v5(tmp_path):
    game = ArenaGame(ArenaSetup(against="random", mode="5v5", side="dire", hero="grovekeeper"), results_dir=tmp_path)
    assert game.team == 1 and game.hero_type.name == "Grovekeeper" and 5 <= game.hero < 10
    assert game.welcome()["game"]["player"] == {"hero": game.hero, "team": 1, "side": "dire", "name": "Grovekeeper"}


# ---------------------------------------------------------------------------------------------- results
def test_each_game_leaves_a_replay_and_a_result_line(tmp_path):
    setup = ArenaSetup(against="trained", mode="1v1", seed=1, max_seconds=20.0)
    for _ in range(2):
        game = ArenaGame(setup, results_dir=tmp_path)
        while not game.finished:
            frame = game.tick()
            assert frame["win_prob"] is None or 0.0 <= frame["win_prob"] <= 1.0
        assert game.end_message()["outcome"] == "draw" and game.end_message()["reason"] == "time limit"
        path = game.close()
        assert game.close() == path, "closing twice writes once"
        replay = load_replay(path)
        assert replay.header["policy"]["dire"] and replay.summary["outcome"] == "truncated"
        assert len(replay.arrays["step_frame"]) == game.step
    game = ArenaGame(setup, results_dir=tmp_path)
    game.tick()
    end = game.forfeit("left")
    assert end["outcome"] == "loss" and end["winner"] == "dire"
    game.close()
    results = read_results(tmp_path)
    assert [r["outcome"] for r in results] == ["draw", "draw", "loss"]
    stats = record_stats(tmp_path)
    assert (stats["games"], stats["wins"], stats["losses"], stats["draws"], stats["left_early"]) == (3, 1, 0, 2, 1)
    low, high = stats["interval95"]
    assert low < 1 / 3 < high
    (tmp_path / "arena.jsonl").open("a").write('{"broken\n')
    with pytest.raises(ValueError, match=r"arena.jsonl:4 is not JSON"):
        read_results(tmp_path)


def test_results_go_to_the_run_folder_played_against(tmp_path):
    run = tmp_path / "myrun"
    run.mkdir()
    (run / "config.toml").write_text("")
    assert results_dir_for(f"{run}:12") == run
    assert results_dir_for("scripted", runs_dir=tmp_path) == tmp_path / "arena-scripted"
    assert results_dir_for("trained", runs_dir=tmp_path) == tmp_path / "arena-trained"


def test_a_rune_is_shown_only_while_the_team_sees_its_spot(tmp_path):
    from fivestack.game.layout import G_RUNE0

    game = ArenaGame(ArenaSetup(against="scripted", mode="5v5"), results_dir=tmp_path)
    while not game.env.game.state.gi[0, G_RUNE0 + 1]:  # the first runes appear at 0:00 or after 2 minutes
        frame = game.tick()
    assert frame["runes"][1] == 0, "no Radiant unit stands by the rune spots this early"
    spot = game.env.game.data.rune_spots[1]
    game.env.game.state.uf[0, game.hero, [X, Y]] = spot[0] + 400.0, spot[1]  # beside the spot, not on it
    frame = game.tick()
    assert frame["runes"][1] == int(game.env.game.state.gi[0, G_RUNE0 + 1]) > 0
