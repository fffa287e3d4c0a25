"""What a hero sees of a randomised game: its drawn lane in ``allied_heroes`` (the one-hot ``AX_LANE`` columns
and the distance from it), and a per-game lineup handed to ``BatchedEnv.reset``."""

from __future__ import annotations

import numpy as np

from fivestack.env.batched import BatchedEnv
from fivestack.env.spaces import AX_LANE, AX_LANE_DISTANCE
from fivestack.game.engine import GameConfig
from fivestack.game.lanes import lane_distance
from fivestack.game.layout import ACTIVE, ASSIGNED_LANE, HERO_TYPE, X, Y
from fivestack.game.patch import F_TEAM_FRAME


def test_each_hero_observes_its_drawn_lane():
    """Each hero sees its lane one-hot; Dire, whose view is turned half a turn on the default patch (team_frame),
    sees top and bottom swapped, as Radiant would name them."""
    env = BatchedEnv(6, GameConfig(randomise=True))
    obs = env.reset(40)
    turned = bool(env.game.patch.features & F_TEAM_FRAME)
    hi, uf = env.game.state.hi, env.game.state.uf
    assert len({tuple(row) for row in hi[:, :, ASSIGNED_LANE].tolist()}) == 6  # drawn per game
    for g in range(6):
        for h in range(10):
            team, j = divmod(h, 5)
            lane = hi[g, h, ASSIGNED_LANE]
            seen = 2 - lane if team == 1 and turned else lane
            assert obs["allied_heroes"][g, team, j, AX_LANE:AX_LANE + 3].tolist() == \
                [float(k == seen) for k in range(3)]
            distance = lane_distance(env.game.data.lanes, lane, uf[g, h, X], uf[g, h, Y]) / 2000.0
            assert np.isclose(obs["allied_heroes"][g, team, j, AX_LANE_DISTANCE], distance)


def test_a_lineup_handed_to_the_env_plays_in_that_game_only():
    env = BatchedEnv(2, GameConfig(mode="1v1", lineups="random"))
    env.reset(5)
    before = env.game.hero_types[0].copy()
    env.reset_games([1], [9], hero_types=[[4] * 5 + [2] * 5])
    hi = env.game.state.hi
    assert hi[1, 0, HERO_TYPE] == 4 and hi[1, 5, HERO_TYPE] == 2 and hi[1, 0, ACTIVE] == 1
    assert np.array_equal(env.game.hero_types[0], before)
