"""Issue 30's drills (c) hold the lane against scripted-weak and (d) 1v1 against scripted: the scenario is what it
says, on hand-set states (``fivestack/system/drills.py``, ``MatchDrill``)."""

from pathlib import Path

import numpy as np
import pytest

from fivestack.game.layout import (ALIVE, DEATHS, G_DONE, G_WINNER, HP, LAST_HITS, N_BUILDINGS_PER_TEAM,
                                   SLOT_BUILDINGS)
from fivestack.runs.config import ConfigError, load_config
from fivestack.system.drill_eval import do_nothing, drill_success
from fivestack.system.drills import LOST, MID_TIER1, UNDECIDED, WON
from fivestack.system.pool import BOT, LATEST
from fivestack.system.rollout import RolloutWorker
from fivestack.system.rollout_hooks import Drill

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
SMALL = ["rollout.games=6", "policy.lstm_size=16", "rollout.segment_steps=16"]
HEROES = (0, 5)  # the hero of each side in 1v1


def match_config(name, *overrides):
    return load_config(CONFIGS / f"drill-{name}.toml", [*SMALL, *overrides])


def drill_worker(name, *overrides, seed=3):
    worker = RolloutWorker(match_config(name, *overrides), seed=seed)
    hook = worker.hook(Drill)
    return worker, hook, hook.drill


def end_game(worker, g, winner, learner_hits, bot_hits, tower_stands=True, deaths=(0, 0)):
    """Hand-set game ``g``'s end: its winner (0, 1, or -1 for the time limit), both heroes' last hits, whether
    the learner's mid tier-1 tower stands and both heroes' deaths (learner's, bot's); returns the learner's side."""
    side = 1 - int(worker.opponent_side[g])
    state = worker.env.game.state
    state.gi[g, G_WINNER] = winner
    state.gi[g, G_DONE] = 2 if winner < 0 else 1
    state.hi[g, HEROES[side], LAST_HITS] = learner_hits
    state.hi[g, HEROES[1 - side], LAST_HITS] = bot_hits
    state.hi[g, HEROES[side], DEATHS], state.hi[g, HEROES[1 - side], DEATHS] = deaths
    tower = SLOT_BUILDINGS + side * N_BUILDINGS_PER_TEAM + MID_TIER1
    state.ui[g, tower, ALIVE] = int(tower_stands)
    if not tower_stands:
        state.uf[g, tower, HP] = 0.0
    return side


def decide(worker, hook, ended_games, cut_games=()):
    """One decision's end at which the games ``ended_games`` ended by the game's rules (terminated) and ``cut_games``
    by its time limit (truncated); the reward (filled with 3.0 beforehand) and what the hook returns."""
    reward = np.full((worker.n_teams, 1), 3.0, np.float32)
    terminated = np.zeros(worker.n_games, bool)
    truncated = np.zeros(worker.n_games, bool)
    terminated[list(ended_games)] = True
    truncated[list(cut_games)] = True
    terminated, truncated = hook.after_decision(worker, reward, terminated, truncated)
    return reward, terminated, truncated


@pytest.mark.parametrize("name, bot", [("hold", "scripted-weak"), ("duel", "scripted")])
def test_the_bot_plays_one_side_and_the_learner_the_other(name, bot):
    worker, hook, drill = drill_worker(name)
    assert worker.config.pool.bot == bot
    owners = worker.row_owners().reshape(worker.n_games, 2)
    assert set(worker.opponent_side) == {0, 1}  # drawn per game (seed 3: both sides among 6 games)
    for g in range(worker.n_games):
        b = int(worker.opponent_side[g])
        assert owners[g, b] == BOT and owners[g, 1 - b] == LATEST  # the bot's rows are not training data
        assert drill.running[g, 1 - b] and not drill.running[g, b]
    assert not drill.idle.any()  # nobody is idle: the bot plays its hero


def test_the_game_reward_and_flow_stay_the_games():
    worker, hook, drill = drill_worker("hold")
    reward, terminated, truncated = decide(worker, hook, [])
    assert (reward == 3.0).all() and not terminated.any() and not truncated.any()
    end_game(worker, 2, -1, 4, 1)
    end_game(worker, 4, int(worker.opponent_side[4]), 0, 2)
    reward, terminated, truncated = decide(worker, hook, [4], cut_games=[2])
    assert (reward == 3.0).all()  # the drill writes no reward
    assert list(np.flatnonzero(terminated)) == [4]  # ... and ends no game itself: the env's flags pass through,
    assert list(np.flatnonzero(truncated)) == [2]  # the time limit stays a cut (bootstrapped), as in any game
    assert hook.info(worker)["drill"]["drill/episodes"] == 2  # both scored


@pytest.mark.parametrize("penalty", [0.0, 2.0])
def test_the_lasthit_reward_pays_the_learners_last_hits_and_deaths_only(penalty):
    """drill.reward='lasthit': the learner's row gets +1 per last hit of its hero since the last decision and
    -drill.death_penalty per death, once each; the bot's last hits and deaths pay nothing (no zero-sum), and a game
    that ends pays its last decision's before it is scored."""
    worker, hook, drill = drill_worker("hold", "drill.reward='lasthit'", f"drill.death_penalty={penalty}")
    state = worker.env.game.state
    rows = np.arange(worker.n_games) * 2 + (1 - worker.opponent_side)  # each game's learner row
    reward, _, _ = decide(worker, hook, [])
    assert (reward == 0.0).all()  # nothing happened: nothing paid, the game's reward replaced
    g, h = 3, 5
    side = 1 - int(worker.opponent_side[g])
    state.hi[g, HEROES[side], LAST_HITS] += 2
    state.hi[g, HEROES[1 - side], LAST_HITS] += 7  # the bot's: not the learner's concern
    state.hi[h, HEROES[1 - int(worker.opponent_side[h])], DEATHS] += 1
    state.hi[h, HEROES[int(worker.opponent_side[h])], DEATHS] += 1
    reward, _, _ = decide(worker, hook, [])
    expected = np.zeros(worker.n_teams)
    expected[rows[g]], expected[rows[h]] = 2.0, -penalty
    assert reward[:, 0] == pytest.approx(expected)
    reward, _, _ = decide(worker, hook, [])
    assert (reward == 0.0).all()  # paid once
    end_game(worker, g, -1, learner_hits=5, bot_hits=1)  # 3 more last hits in the game's last decision
    reward, _, truncated = decide(worker, hook, [], cut_games=[g])
    assert reward[rows[g], 0] == 3.0 and truncated[g]
    assert hook.info(worker)["drill"]["drill/reached"] == 1.0  # the success rule is the hold's


def test_the_game_reward_stays_unless_asked():
    assert match_config("hold").drill.reward == "game"


# (winner is the learner, the bot, or nobody; learner's last hits, bot's; tower stands; deaths: learner's, bot's)
# -> hold, duel success
CASES = [
    ("learner", 5, 3, True, (0, 2), WON, True, True),
    ("learner", 0, 3, True, (1, 2), WON, False, True),  # a win by kills with fewer last hits: not a hold (passive
                                                        # heroes win so)
    ("bot", 9, 3, True, (2, 0), LOST, False, False),  # killed twice: a loss for the one killed
    ("nobody", 5, 3, True, (1, 1), UNDECIDED, True, False),  # 10 minutes, tower up, more last hits: held; not a duel
                                                             # win
    ("nobody", 3, 3, True, (0, 0), UNDECIDED, False, False),  # as many last hits as the bot: not more
    ("nobody", 5, 3, False, (0, 1), UNDECIDED, False, False),  # the tower fell
]


@pytest.mark.parametrize("winner, hits, bot_hits, stands, deaths, outcome, hold, duel", CASES)
def test_each_ending_scores_by_hand(winner, hits, bot_hits, stands, deaths, outcome, hold, duel):
    for name, success in (("hold", hold), ("duel", duel)):
        worker, hook, drill = drill_worker(name)
        drill.record = True
        g = 1
        side = 1 - int(worker.opponent_side[g])
        code = {"learner": side, "bot": 1 - side, "nobody": -1}[winner]
        end_game(worker, g, code, hits, bot_hits, stands, deaths)
        decide(worker, hook, [g] if code >= 0 else [], cut_games=[g] if code < 0 else [])
        assert drill.results == [(g, 0, side, outcome, hits, bot_hits, stands, *deaths)]
        assert drill.outcomes[0][3] == success, name
        figure = drill.figure(drill.records())
        assert figure["success"] == float(success) and figure["episodes"] == 1
        assert figure["last_hits"] == hits and figure["bot_last_hits"] == bot_hits
        assert (figure["deaths"], figure["bot_deaths"]) == deaths
        metrics = hook.info(worker)["drill"]
        assert metrics["drill/episodes"] == 1 and metrics["drill/reached"] == float(success)
        assert metrics["drill/won"] == float(outcome == WON) and metrics["drill/lost"] == float(outcome == LOST)
        assert (metrics["drill/deaths"], metrics["drill/bot_deaths"]) == deaths


def test_an_episode_counts_once_and_a_new_game_begins_the_next():
    worker, hook, drill = drill_worker("duel")
    drill.record = True
    end_game(worker, 0, -1, 0, 0)
    decide(worker, hook, [], cut_games=[0])
    decide(worker, hook, [])  # no game ended: nothing more is counted
    assert len(drill.results) == 1 and drill.episode_index[0] == 1 and not drill.running[0].any()
    worker.env.reset_games(np.array([0]), np.array([99], np.uint64))
    worker._new_games(np.array([0]))
    b = int(worker.opponent_side[0])
    assert drill.running[0, 1 - b] and not drill.running[0, b]


@pytest.mark.parametrize("name", ["hold", "duel"])
def test_do_nothing_never_succeeds(name):
    """A hero that stands in its fountain: against scripted-weak it wins some games by the bot's deaths (so 'won'
    alone would pass it: 1 of these 6 on the default lane, where creeps no longer chase the weak bot down; 6 of 6 on
    patch 0.1's) but has no last hits; against scripted it does not win. Measured under the paper's 1v1 rule even
    when training lets kills not end the game (``game.duel_kills = 0``): the weak bot's two deaths still end a game."""
    figure = drill_success(do_nothing, match_config(name, "game.duel_kills=0"), episodes=6, seed=5)
    assert figure["episodes"] == 6 and figure["success"] == 0.0
    assert figure["last_hits"] == 0.0
    if name == "duel":
        assert figure["won"] == 0.0
    else:
        assert figure["won"] > 0.0  # by kills: with duel_kills 0 no game would be won by the bot's deaths


@pytest.mark.parametrize("overrides, key", [
    (["pool.bot_fraction=0.5"], "pool.bot_fraction"),
    (["pool.bot='scripted'"], "pool.bot"),
    (["pool.past_fraction=0.2"], "pool.past_fraction"),
    (["drill.seconds=300.0"], "drill.seconds"),
    (["game.mode='5v5'"], "game.mode"),
    (["drill.stagger=true"], "drill.stagger"),
    (["drill.reward='gold'"], "drill.reward"),
    (["drill.death_penalty=1.0"], "drill.death_penalty"),  # paid only with drill.reward='lasthit'
])
def test_config_rules_name_the_key(overrides, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        match_config("hold", *overrides)


def test_the_other_drills_keep_their_own_reward():
    with pytest.raises(ConfigError, match=r"drill\.reward"):
        load_config(CONFIGS / "drill-lasthit.toml", [*SMALL, "drill.reward='lasthit'"])


def test_the_other_drills_still_refuse_the_bot():
    with pytest.raises(ConfigError, match=r"pool\.bot_fraction=0"):
        load_config(CONFIGS / "drill-walk.toml", [*SMALL, "pool.bot_fraction=1.0"])
