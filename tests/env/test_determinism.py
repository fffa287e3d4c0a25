"""The same seed and the same actions give the same game, in another process too."""

import hashlib
import json
import subprocess
import sys

import numpy as np
import pytest

SCRIPT = r"""
import hashlib, sys
import numpy as np
from fivestack.env.batched import BatchedEnv
from fivestack.bots.random_agent import RandomAgent
seed, steps = int(sys.argv[1]), int(sys.argv[2])
env = BatchedEnv(3)
obs = env.reset(seed)
agent = RandomAgent(seed)
digest = hashlib.sha256()
for _ in range(steps):
    obs, events, term, trunc, info = env.step(agent.act(obs))
    digest.update(events.tobytes())
for arr in env.game.state:
    digest.update(np.ascontiguousarray(arr).tobytes())
print(digest.hexdigest())
"""


def run(seed: int, steps: int = 600) -> str:
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(seed), str(steps)], capture_output=True, text=True,
                         check=True)
    return out.stdout.strip().splitlines()[-1]


@pytest.mark.slow
def test_same_seed_same_game_across_processes():
    first, second = run(11), run(11)
    assert first == second
    assert run(12) != first


def test_games_in_a_batch_do_not_interact():
    from fivestack.env.batched import BatchedEnv

    lone = BatchedEnv(1)
    lone.reset(np.array([5], np.uint64))
    batch = BatchedEnv(4)
    batch.reset(np.array([9, 5, 7, 8], np.uint64))
    noop = np.zeros((4, 10, 5), np.int64)
    for _ in range(300):
        lone.step(noop[:1])
        batch.step(noop)
    for a, b in zip(lone.game.state, batch.game.state):
        np.testing.assert_array_equal(a[0], b[1])


def test_skipping_observations_between_decisions_changes_nothing_the_agent_sees():
    """``step(observe=False)`` leaves the observations of running games as they were, and the next observed
    step shows exactly what an env that observed every step shows (the game does not depend on them)."""
    from fivestack.env.batched import BatchedEnv
    from fivestack.game.engine import GameConfig

    every, skipping = BatchedEnv(2, GameConfig(mode="1v1")), BatchedEnv(2, GameConfig(mode="1v1"))
    every.reset(7)
    skipping.reset(7)
    noop = np.zeros((2, 10, 5), np.int64)
    noop[..., 2] = -1
    for step in range(40):
        observe = step % 3 == 2
        before = {k: v.copy() for k, v in skipping.obs.items()}
        every.step(noop)
        skipping.step(noop, observe=observe)
        if observe:
            for name in every.obs:
                np.testing.assert_array_equal(every.obs[name], skipping.obs[name], err_msg=name)
        else:
            assert all(np.array_equal(before[k], skipping.obs[k]) for k in before if k != "previous_action")
    for a, b in zip(every.game.state, skipping.game.state):
        np.testing.assert_array_equal(a, b)
