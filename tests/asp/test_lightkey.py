"""The light-key world at the authors' size: its rules on hand-set states (wall in either orientation, door,
key, light, what is visible in the dark, the flag), Bob's success test, how episodes are dealt, and the
random Alice's stop distribution (uniform over 1..40 moves)."""

import numpy as np
import pytest

from fivestack.asp.envs import lightkey
from fivestack.asp.envs.base import check_env
from fivestack.asp.envs.lightkey import (AC, AR, COLUMNS, DOOR, DOWN, GC, GR, KC, KR, LC, LEFT, LIGHT, LR, OPEN,
                                         RIGHT, STOP, TOGGLE, UP, VERT, WALL, LightKey)
from fivestack.asp.policy import RandomAlice


def _world(n=1, words="egocentric", **kw):
    """A 6 x 6 world with a vertical wall in column 3, the door at row 4 (closed), the light off; the agent
    at (3, 0), the light switch at (1, 1), the key at (5, 2), the goal flag at (3, 5)::

        . . . # . .
        . L . # . .
        . . . # . .
        A . . # . G
        . . . D . .
        . . K # . .
    """
    env = LightKey(n, words=words)
    s = np.zeros((n, len(COLUMNS)), np.int64)
    s[:, [AR, AC, LR, LC, KR, KC, VERT, WALL, DOOR, LIGHT, OPEN, GR, GC]] = [3, 0, 1, 1, 5, 2, 1, 3, 4, 0, 0, 3, 5]
    for k, v in kw.items():
        s[:, globals()[k]] = v
    env.state = s
    return env


def _do(env, *actions):
    rewards, reached = [], []
    for a in actions:
        r, done, _ = env.step(np.array([a]), np.array([True]), np.array([True]))
        rewards.append(r[0])
        reached.append(done[0])
    return rewards, reached


def _at(env):
    return tuple(env.state[0, [AR, AC]])


def test_the_target_task_needs_light_key_and_door_through_a_vertical_wall():
    env = _world()
    _do(env, RIGHT, RIGHT, RIGHT)                              # the wall (column 3) stops the agent
    assert _at(env) == (3, 2)
    _do(env, DOWN, RIGHT)                                      # the closed door at (4, 3) stops it too
    assert _at(env) == (4, 2)
    _do(env, UP, UP, UP, LEFT, TOGGLE)                         # to the light switch at (1, 1)
    assert env.state[0, LIGHT] == 1
    _do(env, DOWN, DOWN, DOWN, DOWN, RIGHT, TOGGLE)            # to the key at (5, 2)
    assert env.state[0, OPEN] == 1
    rewards, reached = _do(env, UP, RIGHT, RIGHT, UP, RIGHT)   # through the door at (4, 3) to the flag at (3, 5)
    assert _at(env) == (3, 5)
    assert reached[-1] and not any(reached[:-1])
    assert rewards[-1] == pytest.approx(1 - 0.1) and rewards[0] == pytest.approx(-0.1)


def test_a_horizontal_wall_blocks_up_and_down_and_its_door_opens_with_the_key():
    env = _world(VERT=0, WALL=2, DOOR=1, AR=4, AC=1, KR=5, KC=4, GR=0, GC=4)   # wall along row 2, door at (2, 1)
    _do(env, UP, UP)
    assert _at(env) == (3, 1)                                  # closed door
    _do(env, RIGHT, UP)
    assert _at(env) == (3, 2)                                  # wall
    _do(env, DOWN, DOWN, RIGHT, RIGHT, TOGGLE)                 # the key at (5, 4), in the dark: it still works
    assert env.state[0, OPEN] == 1 and env.state[0, LIGHT] == 0
    _do(env, UP, UP, LEFT, LEFT, LEFT, UP, UP)                 # (3, 1) -> the door (2, 1) -> (1, 1)
    assert _at(env) == (1, 1)
    _do(env, DOWN, TOGGLE)                                     # back onto the open door; the key is far away
    assert _at(env) == (2, 1) and env.state[0, OPEN] == 1


def test_with_key_needs_light_the_key_does_nothing_in_the_dark():
    for light, opens in ((0, False), (1, True)):
        env = _world(AR=5, AC=2, LIGHT=light)                   # on the key
        env.key_needs_light = True
        _do(env, TOGGLE)
        assert env.state[0, OPEN] == opens
        env = _world(AR=5, AC=2, LIGHT=light)                   # the default: the key works unseen
        _do(env, TOGGLE)
        assert env.state[0, OPEN] == 1


def test_toggle_acts_only_on_a_switch_and_stop_or_idle_rows_do_not_move():
    env = _world()
    _do(env, TOGGLE)                                           # (3, 0) holds no switch
    assert env.state[0, LIGHT] == 0 and env.state[0, OPEN] == 0
    before = env.state.copy()
    r, _, _ = env.step(np.array([RIGHT]), np.array([False]), np.array([True]))
    np.testing.assert_array_equal(env.state, before)
    assert r[0] == 0.0
    env = _world(AR=1, AC=1)
    _do(env, TOGGLE, TOGGLE)                                   # on the light switch: on, then off again
    assert env.state[0, LIGHT] == 0
    assert STOP == env.num_actions - 1


def test_in_the_dark_only_the_light_switch_and_the_agent_are_seen():
    """Our first words (``words="rows_columns"``): (object, row) and (object, column)."""
    env = _world(words="rows_columns")
    dark = env.observe(env.state)[0]
    lit = env.observe(_world(LIGHT=1).state)[0]
    assert dark.sum() == 4                                     # agent row, column; switch row, column
    assert lit.sum() == 13                                     # + key (2), goal (2), wall (2), door (2), light
    self_play = env.observe(_world(LIGHT=1, GR=-1, GC=-1).state)[0]
    assert self_play.sum() == 11                               # no goal flag in self-play
    horizontal = env.observe(_world(LIGHT=1, VERT=0).state)[0]
    assert not np.array_equal(horizontal, lit)                 # the orientation is seen


def test_cell_words_name_each_object_cell_and_each_wall_block_and_hide_them_in_the_dark():
    """The paper's input (``words="cells"``): one word per (object, cell); the wall is a block word on each of its
    cells but the door's; in the dark only the agent's and the light switch's words are seen."""
    def seen(**kw):
        env = LightKey(1, words="cells")
        env.state = _world(**kw).state
        x = env.observe(env.state)[0]
        return {(int(i) // 36, divmod(int(i) % 36, 6)) if i < 6 * 36 else ("flag", int(i) - 6 * 36)
                for i in np.flatnonzero(x)}

    assert seen() == {(0, (3, 0)), (1, (1, 1))}                               # agent, light switch
    wall = {(5, (r, 3)) for r in (0, 1, 2, 3, 5)}                              # blocks; the door at (4, 3)
    assert seen(LIGHT=1) == {(0, (3, 0)), (1, (1, 1)), (2, (5, 2)), (3, (3, 5)), (4, (4, 3)),
                             ("flag", 0), ("flag", 2)} | wall                   # door closed, light on
    horizontal = seen(LIGHT=1, VERT=0)                                         # row 3, the door at column 4
    assert {(5, (3, c)) for c in (0, 1, 2, 3, 5)} | {(4, (3, 4))} <= horizontal
    assert not {(5, (r, 3)) for r in (0, 1, 2, 5)} & horizontal                 # no vertical blocks
    assert ("flag", 1) in seen(LIGHT=1, OPEN=1)
    assert (3, (3, 5)) not in seen(LIGHT=1, GR=-1, GC=-1)                     # no goal flag in self-play
    env = LightKey(1, words="cells")
    assert env.words == 6 * 36 + 3 and env.input_dim == 2 * env.words + 1
    check_env(lightkey.CELLS_VARIANT.make(8))


def test_egocentric_words_are_the_cells_relative_to_the_agent_and_the_corners_say_where_it_stands():
    """``words="egocentric"`` (MazeBase's view): each seen object's offset from the agent; the four corners are
    seen in the dark too; a step right shifts every offset one column left."""
    names = ("light", "corner", "key", "goal", "door", "block")
    span = 11                                                     # 2 x 6 - 1 offsets per axis

    def seen(**kw):
        env = LightKey(1, words="egocentric")
        env.state = _world(**kw).state
        out = set()
        for i in np.flatnonzero(env.observe(env.state)[0]):
            kind, at = divmod(int(i), span * span)
            out.add((names[kind], (at // span - 5, at % span - 5)) if kind < 6 else ("flag", at))
        return out

    corners = {("corner", (-3, 0)), ("corner", (-3, 5)), ("corner", (2, 0)), ("corner", (2, 5))}
    assert seen() == {("light", (-2, 1))} | corners              # the agent at (3, 0), the switch at (1, 1)
    lit = seen(LIGHT=1)
    blocks = {("block", (r - 3, 3)) for r in (0, 1, 2, 3, 5)}
    assert lit == {("light", (-2, 1)), ("key", (2, 2)), ("goal", (0, 5)), ("door", (1, 3)), ("flag", 0),
                   ("flag", 2)} | corners | blocks
    moved = seen(LIGHT=1, AC=1)
    assert moved == {(name, at if name == "flag" else (at[0], at[1] - 1)) for name, at in lit}
    with pytest.raises(ValueError, match="words 'pixels': choose one of rows_columns, cells, egocentric"):
        LightKey(1, words="pixels")
    check_env(lightkey.make(8))
    check_env(lightkey.ROWS_VARIANT.make(8))


@pytest.mark.parametrize("words", ["rows_columns", "cells", "egocentric"])
def test_the_goal_words_are_zero_on_the_target_task_and_the_flag_is_last(words):
    env = _world(n=2, words=words, LIGHT=1)
    x = env.encode(env.state, env.state, np.array([0.0, 1.0]))
    assert x.shape == (2, env.input_dim)
    # every word of the lit world is seen (the goal flag too): its words per state, on the self-play row only
    assert x[0, env.words:2 * env.words].sum() == env.words_per_state and x[1, env.words:2 * env.words].sum() == 0
    assert list(x[:, -1]) == [0.0, 1.0]
    np.testing.assert_array_equal(x[:, :env.words], env.observe(env.state))
    check_env(env)


def test_bob_matches_only_what_is_visible_in_alices_final_state():
    env = LightKey(4)
    alice = _world(LIGHT=0, OPEN=1).state.repeat(4, 0)
    bob = alice.copy()
    bob[1, OPEN] = 0                                           # door differs, but it is dark: success
    bob[2, AC] = 1                                             # agent elsewhere: failure
    bob[3, LIGHT] = 1                                          # light differs: failure
    np.testing.assert_array_equal(env.success(bob, alice), [True, True, False, False])
    lit = alice.copy()
    lit[:, LIGHT] = 1
    bob_lit = lit.copy()
    bob_lit[1, OPEN] = 0                                       # door differs in the light: failure
    np.testing.assert_array_equal(env.success(bob_lit, lit), [True, False, True, True])


def test_episodes_are_dealt_as_the_authors_did():
    n = 4000
    env = LightKey(n)
    target = np.arange(n) % 2 == 0
    env.reset(np.random.default_rng(0), target)
    s = env.state
    assert 0.45 < s[:, VERT].mean() < 0.55                     # wall orientation: a fair coin
    assert set(s[:, WALL]) == {2, 3, 4}                        # its line: 2..size-2, as MazeBase
    assert set(s[:, DOOR]) == set(range(6))
    side = {k: env.side(s, s[:, r], s[:, c]) for k, (r, c) in {"agent": (AR, AC), "light": (LR, LC),
                                                                "key": (KR, KC), "goal": (GR, GC)}.items()}
    for k in ("agent", "light", "key"):
        assert (side[k] != 0).all()                            # nothing on the wall
    t = target
    assert (s[t, LIGHT] == 0).all() and (s[t, OPEN] == 0).all()
    assert (side["light"][t] == side["agent"][t]).all() and (side["key"][t] == side["agent"][t]).all()
    assert (side["goal"][t] == -side["agent"][t]).all()
    assert (s[~t, GR] == -1).all() and (s[~t, GC] == -1).all()
    assert 0.45 < s[~t, LIGHT].mean() < 0.55 and 0.45 < s[~t, OPEN].mean() < 0.55
    assert (side["light"][~t] != side["agent"][~t]).any()      # self-play: objects on either side
    for a, b in (((AR, AC), (LR, LC)), ((AR, AC), (KR, KC)), ((LR, LC), (KR, KC))):
        assert (np.abs(s[:, list(a)] - s[:, list(b)]).sum(1) > 0).all()   # distinct cells


def test_the_easier_target_stages_start_lit_or_open_and_change_nothing_else():
    """``target_lit`` / ``target_open`` (the stages benchmark) change only the target rows' light and door; the
    self-play rows and every placement are drawn as in the paper's task from the same seed."""
    target = np.arange(400) % 2 == 0
    paper, easy = LightKey(400), LightKey(400, target_lit=True, target_open=True)
    paper.reset(np.random.default_rng(5), target)
    easy.reset(np.random.default_rng(5), target)
    assert (easy.state[target, LIGHT] == 1).all() and (easy.state[target, OPEN] == 1).all()
    assert (paper.state[target, LIGHT] == 0).all() and (paper.state[target, OPEN] == 0).all()
    others = [c for c in range(len(COLUMNS)) if c not in (LIGHT, OPEN)]
    assert (easy.state[:, others] == paper.state[:, others]).all()
    assert (easy.state[~target] == paper.state[~target]).all()
    lit_only = LightKey(400, target_lit=True)
    lit_only.reset(np.random.default_rng(5), target)
    assert (lit_only.state[target, LIGHT] == 1).all() and (lit_only.state[target, OPEN] == 0).all()


def test_random_alice_stops_after_a_uniform_number_of_moves_in_1_to_40():
    rng = np.random.default_rng(0)
    alice = RandomAlice(6, lightkey.config().random_alice_steps)
    n = 40_000
    t_a = np.zeros(n, np.int64)
    moves = np.full(n, -1)
    for _ in range(45):
        a = alice.act_random(t_a, rng)
        live = moves < 0
        moves = np.where(live & (a == STOP), t_a, moves)
        t_a += live & (a != STOP)
    assert moves.min() == 1 and moves.max() == 40
    counts = np.bincount(moves, minlength=41)[1:]
    assert np.abs(counts / n - 1 / 40).max() < 0.005           # each of 1..40 about 1/40
    fixed = RandomAlice(6, 10)                                 # an int: exactly that many moves
    assert (fixed.act_random(np.full(5, 10), rng) == STOP).all()
    assert (fixed.act_random(np.full(1000, 9), rng) != STOP).all()


def test_the_experiment_is_the_authors_small_configuration():
    cfg = lightkey.config()
    env = lightkey.make(4)
    assert env.size == 6 and cfg.t_max == 80 and env.t_max_target == 80
    assert cfg.mode == "repeat" and cfg.target_share == 0.2 and cfg.gamma == 0.1 and cfg.hidden == (100, 50)
    assert cfg.bob_must_act and cfg.time_input
    assert env.word_set == "egocentric" and lightkey.BIG_VARIANT.make(4).word_set == "egocentric"   # MazeBase's view


def test_lightkey10_is_the_authors_full_size_with_the_same_settings():
    """``fivestack asp reproduce lightkey10``: a 10 x 10 map dealt by the same rules (the wall's line 2..8, the
    door anywhere along it, the target task dark and closed) and the 6 x 6 experiment's settings."""
    from fivestack.asp.experiments import env_module

    big = env_module("lightkey10")
    env = big.make(4000)
    assert env.size == 10 and big.config() == lightkey.config() and big.METHODS == lightkey.METHODS
    target = np.arange(env.n) % 2 == 0
    env.reset(np.random.default_rng(0), target)
    s = env.state
    assert set(s[:, WALL]) == set(range(2, 9)) and set(s[:, DOOR]) == set(range(10))
    assert s[:, [AR, AC, LR, LC, KR, KC]].max() == 9 and (s[target][:, [LIGHT, OPEN]] == 0).all()
    check_env(big.make(8))


def test_an_untrained_agent_rarely_solves_the_target_task():
    level = lightkey.untrained_level(seeds=2, episodes=256)
    assert level["untrained_net"]["mean"] < 0.06 and level["uniform_random_moves"] < 0.06


def test_target_behaviour_counts_light_door_and_flag():
    from fivestack.asp.selfplay import make_policy
    cfg = lightkey.config()
    env = lightkey.make(2 * cfg.batch)
    rng = np.random.default_rng(0)
    bob = make_policy(env, cfg, 2, rng, cfg.entropy)
    b = lightkey.target_behaviour(env, bob, cfg, 2, rng, reps=1)
    assert 0 <= b["solved"] <= b["door_opened"] <= 1 and 0 < b["light_on"] < 1
