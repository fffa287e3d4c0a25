"""Random and malformed actions never break the game: 100,000 agent-steps, invariants checked every step."""

import numpy as np
import pytest

from fivestack.bots.random_agent import RandomAgent
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.game.patch import HEROES
from fivestack.game.layout import (
    ABILITY_CD, ALIVE, ATTACK_READY, GOLD, HP, HP_MAX, IT_COOLDOWN, MANA, MANA_MAX, MAP_SIZE, X, Y,
)

GAMES = 5
STEPS = 2100  # 5 games x 2,100 steps x 10 heroes = 105,000 agent-steps (280 game-seconds each)


def garbage_actions(rng: np.random.Generator, valid: np.ndarray, step: int):
    """Mix valid actions with out-of-range indices, NaN offsets and odd dtypes."""
    kind = step % 5
    actions = valid.astype(np.float64)
    junk = rng.random(valid.shape[:2]) < 0.5
    wild = rng.integers(-1000, 1000, size=valid.shape).astype(np.float64)
    actions[junk] = wild[junk]
    nan_rows = rng.random(valid.shape[:2]) < 0.2
    actions[nan_rows, 3] = np.nan
    actions[rng.random(valid.shape[:2]) < 0.05, 4] = np.inf
    if kind == 0:
        return actions  # float64 with NaN / inf
    if kind == 1:
        return np.nan_to_num(actions, nan=7, posinf=300, neginf=-300).astype(np.int64).astype(np.int8)  # wraps around: wrong dtype, wild values
    if kind == 2:
        return np.nan_to_num(actions, nan=-3, posinf=9, neginf=-9).astype(np.int64).astype(np.uint16)
    if kind == 3:
        return actions.astype(np.float32)
    return valid  # plain valid int64 actions, so the games also progress


def check_invariants(env: BatchedEnv, obs) -> None:
    S = env.game.state
    uf, ui, hf, hi, items = S.uf, S.ui, S.hf, S.hi, S.items
    alive = ui[..., ALIVE] != 0
    hp, hp_max = uf[..., HP], uf[..., HP_MAX]
    assert np.all(hp[alive] >= 0.0) and np.all(hp[alive] <= hp_max[alive] + 1e-3)
    assert np.all(uf[..., MANA][alive] >= -1e-3) and np.all(uf[..., MANA][alive] <= uf[..., MANA_MAX][alive] + 1e-3)
    assert np.all(hf[..., GOLD] >= 0.0)
    xy = uf[..., [X, Y]][alive]
    assert np.all((xy >= 0.0) & (xy <= MAP_SIZE))
    assert np.all(hi[..., ABILITY_CD:ABILITY_CD + 4] >= 0)
    assert np.all(items[..., IT_COOLDOWN] >= 0)
    assert np.all(uf[..., ATTACK_READY] >= -1.0)
    assert np.all(np.isfinite(uf))
    for name, arr in obs.items():
        assert np.all(np.isfinite(arr)), f"non-finite values in observation group {name}"


@pytest.mark.slow
def test_fuzz_hundred_thousand_agent_steps():
    env = BatchedEnv(GAMES)
    obs = env.reset(seed=1234)
    rng = np.random.default_rng(1234)
    agent = RandomAgent(99)
    agent_steps = 0
    for step in range(STEPS):
        actions = garbage_actions(rng, agent.act(obs), step)
        obs, events, terminated, truncated, info = env.step(actions)
        agent_steps += GAMES * 10
        assert np.all(np.isfinite(events))
        check_invariants(env, obs)
        done = np.flatnonzero(info["finished"])
        if done.size:
            env.reset_games(done, 10_000 + step + done)
    assert agent_steps >= 100_000
    assert info["invalid_actions"].sum() > 0  # the junk was noticed and counted, not acted on


# every hero of the pool plays in one of these lineups (the default five play in the test above too)
NAMES = [h.name for h in HEROES]
POOL_LINEUPS = [(tuple(NAMES[5:10]), tuple(NAMES[10:15])), (tuple(NAMES[15:17] + NAMES[0:3]), tuple(NAMES[3:8]))]


@pytest.mark.slow
@pytest.mark.parametrize("radiant, dire", POOL_LINEUPS)
def test_fuzz_every_hero_of_the_pool(radiant, dire):
    """Garbage and random actions with every hero of the 17 (summons, channels, blinks, auras, invisibility and
    global casts included): 4 games x 1,500 steps per lineup, invariants checked every step."""
    env = BatchedEnv(4, GameConfig(radiant=radiant, dire=dire))
    obs = env.reset(seed=77)
    rng = np.random.default_rng(77)
    agent = RandomAgent(7)
    for step in range(1500):
        obs, events, terminated, truncated, info = env.step(garbage_actions(rng, agent.act(obs), step))
        assert np.all(np.isfinite(events))
        check_invariants(env, obs)
        done = np.flatnonzero(info["finished"])
        if done.size:
            env.reset_games(done, 20_000 + step + done)
    assert info["invalid_actions"].sum() > 0


@pytest.mark.parametrize("shape", [(4, 10), (4, 10, 4), (3, 10, 5), (4, 5, 5), (4, 10, 5, 1)])
def test_wrong_action_shape_is_one_clear_error(shape):
    env = BatchedEnv(4)
    env.reset(0)
    with pytest.raises(ValueError, match=r"actions must have shape \(4, 10, 5\)"):
        env.step(np.zeros(shape))


def test_non_numeric_actions_are_rejected_clearly():
    env = BatchedEnv(1)
    env.reset(0)
    with pytest.raises(ValueError, match="numeric"):
        env.step(np.full((1, 10, 5), "attack", dtype=object))


def test_out_of_range_actions_are_counted_noops():
    env = BatchedEnv(2)
    env.reset(0)
    bad = np.zeros((2, 10, 5), np.int64)
    bad[..., 0] = 99  # no such primary action
    _, _, _, _, info = env.step(bad)
    assert np.all(info["invalid_actions"] == 1)
    noop = BatchedEnv(2)
    noop.reset(0)
    noop.step(np.zeros((2, 10, 5), np.int64))
    # the game went on exactly as if nothing had been asked
    np.testing.assert_array_equal(env.game.state.uf, noop.game.state.uf)
