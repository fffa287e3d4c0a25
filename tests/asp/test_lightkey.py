"""The light-key world: its rules, what is visible in the dark, and Bob's success test."""

import numpy as np

from fivestack.asp.envs.lightkey import (AC, AR, DOOR, DOWN, GC, GR, KC, KR, LC, LEFT, LIGHT, LR, OPEN,
                                         RIGHT, TOGGLE, UP, LightKey)


def _world(**kw):
    env = LightKey(1)
    s = np.zeros((1, 11), np.int64)
    s[0, [AR, AC, LR, LC, KR, KC, DOOR, LIGHT, OPEN, GR, GC]] = [2, 0, 0, 0, 4, 1, 2, 0, 0, 2, 4]
    for k, v in kw.items():
        s[0, globals()[k]] = v
    env.state = s
    return env


def _do(env, *actions):
    rewards, reached = [], []
    for a in actions:
        r, done, _ = env.step(np.array([a]), np.array([True]), np.array([True]))
        rewards.append(r[0])
        reached.append(done[0])
    return rewards, reached


def test_the_target_task_needs_light_key_and_door():
    env = _world()
    _do(env, RIGHT, RIGHT)                                     # the wall stops the agent
    assert env.state[0, AC] == 1
    _do(env, UP, UP, LEFT, TOGGLE)                             # to the light switch at (0, 0)
    assert env.state[0, LIGHT] == 1
    _do(env, DOWN, DOWN, DOWN, DOWN, RIGHT, TOGGLE)            # to the key at (4, 1)
    assert env.state[0, OPEN] == 1
    rewards, reached = _do(env, UP, UP, RIGHT, RIGHT, RIGHT)   # through the door at row 2 to the flag
    assert reached[-1] and not any(reached[:-1])
    assert rewards[-1] == 1 - 0.1 and rewards[0] == -0.1


def test_in_the_dark_only_the_light_switch_and_the_agent_are_seen():
    env = _world()
    dark = env.observe(env.state)[0]
    lit = env.observe(_world(LIGHT=1).state)[0]
    assert dark.sum() == 2 and lit.sum() == 6                  # agent, switch | + key, door, goal, light flag


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


def test_target_episodes_start_dark_and_closed_with_the_goal_across_the_wall():
    env = LightKey(200)
    target = np.arange(200) % 2 == 0
    env.reset(np.random.default_rng(0), target)
    s = env.state
    assert (s[target, LIGHT] == 0).all() and (s[target, OPEN] == 0).all()
    side = s[target, AC] < env.wall
    assert ((s[target, GC] < env.wall) != side).all()
    assert ((s[target, LC] < env.wall) == side).all() and ((s[target, KC] < env.wall) == side).all()
    assert (s[~target, GR] == -1).all()
    assert 0.3 < s[~target, LIGHT].mean() < 0.7
