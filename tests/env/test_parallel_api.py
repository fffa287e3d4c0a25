import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from fivestack.env.parallel import FivestackParallelEnv
from fivestack.game.engine import GameConfig


@pytest.mark.parametrize("mode, cycles", [("1v1", 400), ("5v5", 150)])
def test_parallel_api(mode, cycles):
    env = FivestackParallelEnv(GameConfig(mode=mode))
    parallel_api_test(env, num_cycles=cycles)  # raises AssertionError on any API violation
    obs, _ = env.reset(seed=1)
    assert all(env.observation_space(a).contains(obs[a]) for a in env.agents)


def test_agents_and_spaces():
    env = FivestackParallelEnv()
    obs, infos = env.reset(seed=3)
    assert env.agents == [f"radiant_{i}" for i in range(5)] + [f"dire_{i}" for i in range(5)]
    space = env.observation_space("dire_2")
    assert space.contains(obs["dire_2"])
    assert obs["dire_2"]["target_mask"].shape == (20, 189)
    one = FivestackParallelEnv(GameConfig(mode="1v1"))
    one.reset(seed=0)
    assert one.agents == ["radiant_0", "dire_0"]


def test_game_over_removes_agents_and_reports_truncation():
    env = FivestackParallelEnv(GameConfig(mode="1v1", max_seconds=2.0))
    env.reset(seed=1)
    noop = np.zeros(5, np.int64)
    for _ in range(20):
        obs, rew, term, trunc, info = env.step({a: noop for a in env.agents})
        if not env.agents:
            break
    assert env.agents == []
    assert all(trunc.values()) and not any(term.values())


def test_bad_action_shape_is_a_clear_error():
    env = FivestackParallelEnv(GameConfig(mode="1v1"))
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"must have shape \(5,\)"):
        env.step({"radiant_0": np.zeros(3)})


def test_invalid_actions_in_info_are_this_steps_and_the_running_total_beside():
    """``infos[agent]["invalid_actions"]`` was the game's running count (BatchedEnv's), read as a per-step value: it
    is now this step's, with the running count in ``invalid_actions_total``; a reset starts both again."""
    env = FivestackParallelEnv(GameConfig(mode="1v1", max_seconds=60.0))
    env.reset(seed=2)
    bad = np.array([2, 0, 188, 0, 0])  # attack an empty creep slot: invalid
    noop = np.zeros(5, np.int64)
    seen = []
    for action in (bad, bad, noop, bad):
        _, _, _, _, infos = env.step({"radiant_0": action, "dire_0": noop})
        seen.append((infos["radiant_0"]["invalid_actions"], infos["radiant_0"]["invalid_actions_total"],
                     infos["dire_0"]["invalid_actions"]))
    assert seen == [(1, 1, 0), (1, 2, 0), (0, 2, 0), (1, 3, 0)]
    env.reset(seed=3)
    _, _, _, _, infos = env.step({"radiant_0": bad, "dire_0": noop})
    assert (infos["radiant_0"]["invalid_actions"], infos["radiant_0"]["invalid_actions_total"]) == (1, 1)
