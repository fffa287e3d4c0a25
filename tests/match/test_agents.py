"""``fivestack.match.agents``: one resolver from a spec string to a team agent (bots and trained versions, with
one clear error for each mistake), and one match loop (``play_to_end``) that plays games to their ends."""

import numpy as np
import pytest
import torch

from fivestack.bots.agents import RandomTeamAgent, ScriptedTeamAgent, WeakScriptedTeamAgent, play_step
from fivestack.bots.random_team import RandomTeam
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.game.layout import ACT_TARGET, N_HEROES
from fivestack.model.policy import Policy
from fivestack.match.agents import PolicyTeamAgent, build_agent, check_agent, load_run_policy
from fivestack.match.games import Seat, play_to_end, team_stats
from fivestack.runs.config import load_config
from fivestack.system.controller import Controller

ONE_VS_ONE = GameConfig(mode="1v1", max_seconds=600.0)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A run folder as training leaves it: config.toml and checkpoints of versions 0 and 7 (different weights)."""
    run = tmp_path_factory.mktemp("runs") / "tiny"
    config = load_config(None, ["game.mode='1v1'", "policy.lstm_size=16", "rollout.decision_steps=3"])
    controller = Controller(run, config)
    for version in (0, 7):
        torch.manual_seed(version)
        controller.save(version, Policy(config.policy).state_dict(), {}, {})
    controller.close()
    return run


def saved_weights(version: int) -> dict[str, torch.Tensor]:
    config = load_config(None, ["policy.lstm_size=16"])
    torch.manual_seed(version)
    return Policy(config.policy).state_dict()


# ---------------------------------------------------------------------------------------------- the resolver
@pytest.mark.parametrize("spec, kind", [("random", RandomTeamAgent), ("scripted", ScriptedTeamAgent),
                                        ("scripted-weak", WeakScriptedTeamAgent)])
def test_a_bot_name_builds_that_bot_for_the_team(spec, kind):
    agent = build_agent(spec, 1, seed=4)
    assert type(agent) is kind and agent.team == 1 and check_agent(spec) == spec


def test_random_is_the_engine_level_random_team_in_slot_space():
    """The "random" of matches and of the rating zero is ``RandomTeam`` (the agent of bot_matches): the same
    draws, each unit target turned into its slot, which the env turns back into the same unit."""
    env = BatchedEnv(2, GameConfig())
    env.reset(5)
    agent, engine = build_agent("random", 1, seed=9), RandomTeam(1, seed=9)
    for _ in range(30):
        units = np.zeros((2, N_HEROES, 5), np.int64)
        engine.act(env.game, units)
        slots = agent.act(env)
        mine = units[:, 5:]
        np.testing.assert_array_equal(np.delete(slots, ACT_TARGET, -1), np.delete(mine, ACT_TARGET, -1))
        targeted = mine[..., ACT_TARGET] >= 0
        back = env.unit_of_slot[np.arange(2)[:, None], 1, np.clip(slots[..., ACT_TARGET], 0, None)]
        np.testing.assert_array_equal(back[targeted], mine[..., ACT_TARGET][targeted])
        assert (slots[..., ACT_TARGET][~targeted] == -1).all()
        env.step(np.concatenate([np.zeros_like(slots), slots], axis=1))


def test_a_run_version_builds_its_policy_deciding_as_the_run_trained_it(run_dir):
    agent = build_agent(f"{run_dir}:0", 0, seed=1, mode="1v1")
    assert isinstance(agent, PolicyTeamAgent) and agent.decision_steps == 3 and agent.mode == "1v1"
    for name, tensor in saved_weights(0).items():
        torch.testing.assert_close(agent.inference.policy.state_dict()[name], tensor)
    # the run alone, or RUN:latest, is its newest checkpoint
    for spec in (str(run_dir), f"{run_dir}:latest"):
        policy, config, version = load_run_policy(spec)
        assert version == 7 and config.rollout.decision_steps == 3
        for name, tensor in saved_weights(7).items():
            torch.testing.assert_close(policy.state_dict()[name], tensor)
    assert check_agent(f"{run_dir}:7") == f"{run_dir}:7"


@pytest.mark.parametrize("spec, message", [
    ("bogus", "unknown agent 'bogus'; choose one of: random, scripted, scripted-weak, trained (the shipped 1v1 model), "
              "or RUN:VERSION"),
    ("Random", "unknown agent 'Random'"),
    ("nowhere/run:3", "'nowhere/run:3' is not a run folder (no config.toml); give RUN:VERSION"),
    ("{run}:ten", "the version after ':' must be a number or 'latest'"),
    ("{run}:999", "has no version 999; versions stored: 0, 7"),
])
def test_each_mistake_gets_one_error_naming_what_exists(run_dir, spec, message):
    with pytest.raises(ValueError) as error:
        build_agent(spec.replace("{run}", str(run_dir)), 0)
    assert message in str(error.value)


# ---------------------------------------------------------------------------------------------- the match loop
def test_play_to_end_plays_the_games_a_step_by_step_loop_plays():
    """Scripted vs random in 1v1, two seeded games: the loop's winners, lengths and end-of-game figures are those
    of stepping the same env by hand; a game that ended first keeps its figures while the other plays on."""
    seeds = np.array([3, 8], np.uint64)
    env = BatchedEnv(2, ONE_VS_ONE)
    env.reset(seeds)
    both = np.arange(2)
    played = play_to_end(env, [Seat(ScriptedTeamAgent(0, 1), 0, both), Seat(RandomTeamAgent(1, 2), 1, both)])

    by_hand = BatchedEnv(2, ONE_VS_ONE)
    by_hand.reset(seeds)
    radiant, dire = ScriptedTeamAgent(0, 1), RandomTeamAgent(1, 2)
    steps, ended_at, stats_when_ended = 0, {}, {}
    while (by_hand.game.done == 0).any():
        running = by_hand.game.done == 0
        play_step(by_hand, radiant, dire)
        steps += 1
        for g in np.flatnonzero(running & (by_hand.game.done != 0)):
            ended_at[g] = steps
            stats_when_ended[g] = {name: value[g] for name, value in team_stats(by_hand.game, np.zeros(2, int)).items()}
    assert sorted(ended_at) == [0, 1] and ended_at[0] != ended_at[1]  # they end at different steps
    assert played.winner.tolist() == by_hand.game.winner.tolist() == [0, 0]  # scripted wins both
    np.testing.assert_allclose(played.minutes, by_hand.game.seconds / 60.0)
    assert played.timesteps.tolist() == [ended_at[0], ended_at[1]]
    for g in (0, 1):
        assert {name: value[g] for name, value in played.stats[0].items()} == stats_when_ended[g]
    assert (played.stats[0]["last_hits"] > played.stats[1]["last_hits"]).all()


class Recording:
    """A team agent that records which games it is asked for."""

    def __init__(self, agent):
        self.agent, self.team, self.asked = agent, agent.team, []

    def act(self, env, games=None):
        self.asked.append((games.tolist(), (env.game.done != 0).tolist()))
        return self.agent.act(env, games)


@pytest.mark.parametrize("ask_finished_games", [False, True])
def test_a_seat_is_asked_for_its_running_games_or_for_all(ask_finished_games):
    """A seat is asked only for its games still running, unless ``ask_finished_games`` (what ``fivestack play``
    does): then for all of its games to the end. A game no seat covers for a side gets no-ops."""
    env = BatchedEnv(3, ONE_VS_ONE)
    env.reset(np.array([3, 8, 4], np.uint64))
    scripted, random = Recording(ScriptedTeamAgent(0, 1)), Recording(RandomTeamAgent(1, 2))
    played = play_to_end(env, [Seat(scripted, 0, np.array([0, 1])), Seat(random, 1, np.array([0, 1, 2]))],
                         ask_finished_games=ask_finished_games)
    for games, finished in scripted.asked:
        if ask_finished_games:
            assert games == [0, 1]
        else:
            assert games == [g for g in (0, 1) if not finished[g]] and games
    assert any(finished[0] != finished[1] for _, finished in scripted.asked)  # one of them ended first
    assert played.winner[:2].tolist() == [0, 0]
    assert played.stats[0]["last_hits"][2] == 0  # nobody played Radiant in game 2


def test_the_shipped_model_is_an_agent_by_name_with_the_decision_steps_it_was_trained_with():
    """``trained`` (the arena's default) is in the registry: it decides every ``decision_steps`` of its
    policy.json, and can drive only some heroes of its team; a bot cannot be narrowed to some heroes."""
    from fivestack.match.agents import load_trained_policy

    _, info = load_trained_policy()
    agent = build_agent("trained", 1, seed=3, mode="1v1")
    assert isinstance(agent, PolicyTeamAgent) and agent.decision_steps == int(info["decision_steps"]) > 1
    assert check_agent("trained") == "trained"
    mates = build_agent("trained", 0, mode="5v5", heroes=np.array([1, 2, 3, 4]))
    assert mates.heroes.tolist() == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="drives its whole team"):
        build_agent("scripted", 0, heroes=np.array([1]))
