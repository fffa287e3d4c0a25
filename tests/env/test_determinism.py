"""The same seed and the same actions give the same game, in another process too."""

import hashlib
import json
import subprocess
import sys

import numpy as np

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
