"""``evaluate`` and ``play_games``: wins only in the win rate, draws beside it, both sides in one batched env,
the same games for the same seed (sampled or greedy), and a policy that plays only the games it is asked to."""

import numpy as np
import pytest
import torch

from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.model.policy import Policy, PolicyConfig
from fivestack.match.agents import PolicyTeamAgent, build_agent
from fivestack.system.evaluator import evaluate
from fivestack.match.games import play_games, play_scores, wilson_interval


@pytest.fixture(scope="module")
def policy():
    torch.manual_seed(3)
    return Policy(PolicyConfig(lstm_size=16)).eval()


def test_a_game_the_time_limit_ends_is_a_draw_and_no_win(policy):
    # 6 game seconds: no 1v1 can be decided, so every game is truncated
    result = evaluate(policy, "random", 5, "1v1", max_seconds=6.0, seed=2)
    assert (result.games, result.wins, result.draws) == (5, 0, 5)
    assert result.win_rate == 0.0 and result.draw_rate == 1.0
    assert result.ci95 == wilson_interval(0, 5) and result.ci95[0] == 0.0 < result.ci95[1]
    assert result.mean_minutes == pytest.approx(0.1)
    assert result.seconds > 0 and result.greedy is False
    assert (result.games_as_radiant, result.wins_as_radiant) == (3, 0)
    # 6 seconds in, nobody has farmed or died yet; both heroes are level 1 with about their starting gold (a
    # random hero may have sold or used an item)
    stats = result.team_stats
    assert [stats[k] for k in ("kills", "deaths", "last_hits", "denies", "level")] == [[0, 0]] * 4 + [[1, 1]]
    assert all(value > 0 for value in stats["net_worth"])
    # TrueSkill still takes a draw as a draw
    scores, minutes = play_scores(lambda side: build_agent("random", side, 1),
                                  lambda side: build_agent("random", side, 2), 3, "1v1", 6.0, seed=2)
    assert scores == [0.5, 0.5, 0.5] and minutes == pytest.approx([0.1] * 3)


def test_both_sides_play_at_once_each_agent_on_its_own_side():
    # scripted beats random in a 1v1 within minutes (94 games in 100); if the games' sides were mixed up, the winners
    # would mostly be the side scripted did not play
    result = play_games(lambda side: build_agent("scripted", side, 1), lambda side: build_agent("random", side, 2),
                        6, "1v1", max_seconds=900.0, seed=2)
    assert result.a_side.tolist() == [0, 0, 0, 1, 1, 1]
    decided = result.winner >= 0
    assert decided[:3].sum() >= 2 and decided[3:].sum() >= 2  # both halves produced wins to check
    scripted_won = result.winner[decided] == result.a_side[decided]
    assert scripted_won.sum() >= decided.sum() - 1  # one loss in six is within the 6% loss rate's reach
    assert result.wins.sum() == scripted_won.sum() and not result.draws[decided].any()
    assert result.scores[decided].tolist() == scripted_won.astype(float).tolist()
    assert (result.minutes[decided] < 15.0).all()
    # each team's end-of-game figures are read from its own side: the scripted hero farms, the random one does not
    a, b = result.a_stats, result.b_stats
    assert (a["last_hits"] > b["last_hits"]).all() and (a["net_worth"] > b["net_worth"]).all()
    assert (a["kills"] <= b["deaths"]).all() and (b["kills"] <= a["deaths"]).all()  # a hero kill is a death
    assert (a["level"] >= 1).all() and (b["level"] >= 1).all()


def _lstm_states(policy, greedy: bool, seed: int = 4) -> tuple:
    """Play 4 short games of the policy against random; the policy agents' final LSTM states (they depend on every
    observation, hence on every action of both teams) and the results."""
    agents = {}

    def policy_agent(side):
        agents[side] = PolicyTeamAgent(side, policy, "1v1", seed=seed + side, greedy=greedy)
        return agents[side]

    result = play_games(policy_agent, lambda side: build_agent("random", side, seed + 10 + side), 4, "1v1",
                        max_seconds=8.0, seed=seed)
    return [np.concatenate(agents[side].state) for side in (0, 1)], result


def test_the_same_seed_plays_the_same_games_sampled_or_greedy(policy):
    sampled, again = _lstm_states(policy, False), _lstm_states(policy, False)
    greedy, greedy_again = _lstm_states(policy, True), _lstm_states(policy, True)
    for a, b in ((sampled, again), (greedy, greedy_again)):
        for side in (0, 1):
            np.testing.assert_array_equal(a[0][side], b[0][side])
        np.testing.assert_array_equal(a[1].winner, b[1].winner)
        np.testing.assert_array_equal(a[1].minutes, b[1].minutes)
    assert not np.array_equal(sampled[0][0], greedy[0][0])  # greedy is not sampling
    assert not np.array_equal(sampled[0][0], _lstm_states(policy, False, seed=5)[0][0])  # the seed matters
    one, two = (evaluate(policy, "random", 3, "1v1", 6.0, seed=7, greedy=True) for _ in range(2))
    assert one.greedy and {**one.to_dict(), "seconds": 0} == {**two.to_dict(), "seconds": 0}


def test_a_policy_asked_for_some_games_plays_them_as_if_alone(policy):
    """Greedy, so that the rows asked for must match a pass over every game exactly; the LSTM state of the
    other games stays where it was."""
    env = BatchedEnv(4, GameConfig(mode="1v1", max_seconds=60.0))
    env.reset(11)
    everyone = PolicyTeamAgent(1, policy, "1v1", seed=0, greedy=True)
    some = PolicyTeamAgent(1, policy, "1v1", seed=0, greedy=True)
    radiant = build_agent("random", 0, 3)
    rows = np.array([1, 3])
    for step in range(6):
        full, part = everyone.act(env), some.act(env, rows)
        np.testing.assert_array_equal(part[rows], full[rows])
        assert (part[[0, 2], :, 0] == 0).all() and (part[[0, 2], :, 2] == -1).all()  # no-ops elsewhere
        for mine, theirs in zip(some.state, everyone.state):
            np.testing.assert_allclose(mine[rows], theirs[rows], atol=1e-5)
            assert (mine[[0, 2]] == 0).all()
        env.step(np.concatenate([radiant.act(env), full], axis=1))
    assert not np.allclose(everyone.state[0][rows], 0)



def test_a_policy_decides_every_decision_steps_timesteps_and_keeps_its_orders_between():
    """Trained with rollout.decision_steps = k, a policy plays k timesteps per decision in evaluation too:
    the policy runs on timesteps 0, k, 2k, ... of each game and sends no-ops (orders kept) in between."""
    torch.manual_seed(0)
    agent = PolicyTeamAgent(0, Policy(PolicyConfig(lstm_size=16)), "1v1", seed=0, decision_steps=3)
    env = BatchedEnv(2, GameConfig(mode="1v1"))
    env.reset(0)
    decisions = 0
    for step in range(7):
        before = agent.last_result
        actions = agent.act(env)
        if agent.last_result is not before:
            decisions += 1
            assert step % 3 == 0
        else:  # between decisions: a no-op for the hero, whose order is kept
            assert (actions[:, 0, 0] == 0).all() and (actions[:, 0, 2] == -1).all()
        env.step(np.concatenate([actions, np.zeros_like(actions)], axis=1))
    assert decisions == 3 and agent.steps_played.tolist() == [7, 7]
