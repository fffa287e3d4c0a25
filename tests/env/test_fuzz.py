"""Random and malformed actions never break the game: ~100,000 agent-steps, invariants checked every step, in
lineups that together play every hero of the patch."""

import math

import numpy as np
import pytest

from fivestack.bots.random_agent import RandomAgent
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.game.layout import (
    ABILITY_CD, ALIVE, ATTACK_READY, GOLD, HP, HP_MAX, IT_COOLDOWN, MANA, MANA_MAX, MAP_SIZE, X, Y,
)
from fivestack.game.patch import Patch

AGENT_STEPS = 105_000  # in all: lineups x games x steps x 10 heroes
GAMES = 2  # per lineup
MIN_LINEUPS = 3  # at least this many, more when the patch has more than 10 x this many heroes


def fuzz_lineups(heroes: list[str], n_lineups: int, rng: np.random.Generator) -> list[tuple[tuple[str, ...], ...]]:
    """``n_lineups`` (radiant, dire) pairs that together field every hero: shuffled copies of the pool laid end
    to end, 10 slots a lineup. The first copy fills the first ``len(heroes)`` slots, so every hero plays as long
    as ``len(heroes) <= 10 x n_lineups``; a team may field a hero twice (the engine allows it)."""
    if len(heroes) > 10 * n_lineups:
        raise ValueError(f"{n_lineups} lineups of 10 cannot field {len(heroes)} heroes")
    slots: list[str] = []
    while len(slots) < 10 * n_lineups:
        slots += [str(h) for h in rng.permutation(heroes)]
    return [(tuple(slots[10 * i:10 * i + 5]), tuple(slots[10 * i + 5:10 * i + 10])) for i in range(n_lineups)]


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
    heroes = [h.name for h in Patch().heroes]
    n_lineups = max(MIN_LINEUPS, math.ceil(len(heroes) / 10))
    steps = math.ceil(AGENT_STEPS / (n_lineups * GAMES * 10))  # 1,750 game steps (233 game-seconds) for 3 lineups
    rng = np.random.default_rng(1234)
    agent = RandomAgent(99)
    agent_steps = invalid = 0
    played: set[str] = set()
    for b, (radiant, dire) in enumerate(fuzz_lineups(heroes, n_lineups, rng)):
        env = BatchedEnv(GAMES, GameConfig(radiant=radiant, dire=dire))
        obs = env.reset(seed=1234 + 100 * b)
        played |= {env.game.patch.heroes[int(t)].name for t in env.game.hero_types.ravel()}
        for step in range(steps):
            actions = garbage_actions(rng, agent.act(obs), step)
            obs, events, terminated, truncated, info = env.step(actions)
            agent_steps += GAMES * 10
            assert np.all(np.isfinite(events))
            check_invariants(env, obs)
            done = np.flatnonzero(info["finished"])
            if done.size:
                env.reset_games(done, 10_000 + 100 * b + step + done)
        invalid += int(info["invalid_actions"].sum())
    assert played == set(heroes), f"heroes never played: {sorted(set(heroes) - played)}"
    assert agent_steps >= 100_000
    assert invalid > 0  # the junk was noticed and counted, not acted on


def test_fuzz_lineups_field_every_hero():
    """The fuzz test's lineups play every hero of a pool of 5 (today's patch) or 17, with 3 lineups of 10."""
    rng = np.random.default_rng(0)
    for pool in ([f"h{i}" for i in range(5)], [f"h{i}" for i in range(17)], [f"h{i}" for i in range(30)]):
        lineups = fuzz_lineups(pool, 3, rng)
        assert len(lineups) == 3 and all(len(team) == 5 for pair in lineups for team in pair)
        assert {h for pair in lineups for team in pair for h in team} == set(pool)
    with pytest.raises(ValueError, match="cannot field 31 heroes"):
        fuzz_lineups([f"h{i}" for i in range(31)], 3, rng)


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
