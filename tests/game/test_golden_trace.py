"""A golden trace: seeded games played for 2,000 steps must end in exactly the state they ended in when the
hashes below were taken (commit 54ca1c3, before the simulator was reorganised).

A refactor of the kernels, the observation encoder or the scripted bot that changes any rule, any random
draw or any float operation order shows up here as a different hash. If a change is *meant* to alter the
game (a new rule, a balance change), re-take the hashes with ``python tests/game/test_golden_trace.py``
and say so in the commit.

The state hashes were re-taken when the 17-hero pool added state columns (auras, invisibility, summons,
channels): the arrays grew, so their bytes changed, while every observation hash stayed the same. The observation
hashes were re-taken when the hero identities became observation groups the policy embeds (``hero_ids``, every
hero of the game, public; ``own_hero_id``): new arrays of the observation, while every state hash stayed the same.
Both were re-taken when two rule bugs were fixed: Ember Field became a burning ground (units that walk in burn,
units that walk out stop) and the poultice and the clear_draught got a timer each; the state gained columns
(hi GROUND_*, hf GROUND_X/Y, ui DOT_GROUND, MANA_RESTORE), so every state hash changed; the 1v1 observation
hash stayed the same (its two Bulwarks play the same game as before), the 5v5 ones changed with the games.
The state hashes were re-taken when the state gained the columns of the lane as Dota plays it (ui AGGRO_LEFT,
LOST_FRAMES; hi AGGRO_COOLDOWN, DEATHS_TO_*): on patch 0.1 the digest of the state cut to the columns it had before,
and every observation hash, stayed the same. All were re-taken when patch 1.0 (team_frame and dota_lane) became the
default game; the trace ``1v1-patch-0.1`` pins the old game's rules, which old runs and replays keep.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from fivestack.bots.random_agent import RandomAgent
from fivestack.bots.scripted import ScriptedTeam
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.game.layout import ACT_TARGET, N_ACTION_FIELDS, N_HEROES
from fivestack.game.patch import PATCH_VERSION

STEPS = 2_000
SEED = 1234

# (mode, Radiant, Dire, steps, patch): the 2,000-step 5v5 game, the same in 1v1, a 33-minute scripted
# game (15,000 steps) in which towers fall and super creeps spawn, so the late-game rules are covered too, all on the
# default game; and the 1v1 game on patch 0.1, whose rules earlier runs and replays still play.
TRACES = {
    "5v5": ("5v5", "scripted", "random", STEPS, PATCH_VERSION),
    "1v1": ("1v1", "scripted", "random", STEPS, PATCH_VERSION),
    "5v5-scripted-33min": ("5v5", "scripted", "scripted", 15_000, PATCH_VERSION),
    "1v1-patch-0.1": ("1v1", "scripted", "random", STEPS, "0.1"),
}
GOLDEN = {
    "1v1": {"state": "83e7b8f9f63cdc375b01898beb6d4ba7", "observation": "b48d6168a68007135e8b27cd67676d2f"},
    "1v1-patch-0.1": {"state": "ae6ea870661dea01ae0962675fd0a0c8", "observation": "ffccbf3bfcafa1e3e8c9d13bc54f8e76"},
    "5v5": {"state": "e40e60c275f870b4bf2e704a741ee04b", "observation": "214835caac59ec8fac585494f14788ea"},
    "5v5-scripted-33min": {"state": "38a39f12fd4acdfccc4fc0927b6ae8c2",
                           "observation": "ceacc48b46ef500bbf3a30189e70eed4"},
}


def _digest(arrays) -> str:
    h = hashlib.sha256()
    for arr in arrays:
        arr = np.ascontiguousarray(arr)
        h.update(str((arr.dtype.str, arr.shape)).encode())
        h.update(arr.tobytes())
    return h.hexdigest()[:32]


class _Scripted:
    """The scripted team in env action space (its unit targets turned into the team's observation slots).
    The trace drives the bots directly, not through ``bots.agents``, so that the hashes pin the game and
    not the choice of agent wrappers."""

    def __init__(self, team: int, seed: int):
        self.team, self.bot = team, ScriptedTeam(team, seed)

    def act(self, env: BatchedEnv) -> np.ndarray:
        out = np.zeros((env.n_games, N_HEROES, N_ACTION_FIELDS), np.int64)
        self.bot.act(env.game, out)
        mine = out[:, 5 * self.team:5 * self.team + 5]
        units = mine[..., ACT_TARGET]
        games = np.arange(env.n_games)[:, None]
        slots = env.slot_of_unit[games, self.team, np.clip(units, 0, None)]
        mine[..., ACT_TARGET] = np.where(units >= 0, slots, -1)
        return mine


class _Random:
    """The observation-level random agent, sampling the env's action masks."""

    def __init__(self, team: int, seed: int):
        self.team, self.agent = team, RandomAgent(seed)

    def act(self, env: BatchedEnv) -> np.ndarray:
        return self.agent.act(env.obs, range(5 * self.team, 5 * self.team + 5))


def play_trace(name: str) -> dict[str, str]:
    """Two seeded games with the training-time build randomisation on; the digest of state and observation."""
    mode, radiant_name, dire_name, steps, patch = TRACES[name]
    agents = {"scripted": _Scripted, "random": _Random}
    env = BatchedEnv(2, GameConfig(mode=mode, training=True, max_seconds=7200.0, patch=patch))
    env.reset(SEED)
    radiant, dire = agents[radiant_name](0, seed=SEED), agents[dire_name](1, seed=SEED + 1)
    for _ in range(steps):
        env.step(np.concatenate([radiant.act(env), dire.act(env)], axis=1))
    return {"state": _digest(tuple(env.game.state)),
            "observation": _digest(env.obs[k] for k in sorted(env.obs))}


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow) if name.endswith("33min") else name
                                  for name in sorted(TRACES)])
def test_seeded_game_reaches_the_golden_state(name):
    assert play_trace(name) == GOLDEN[name]


if __name__ == "__main__":
    for name in sorted(TRACES):
        print(f'    "{name}": {play_trace(name)},')
