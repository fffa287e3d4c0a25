"""A policy plays the game it was trained on (``match.agents.TRAINED_GAME``): its run's move table and patch (the
observation columns it reads *and* the rules it learnt), in every game it plays: ``fivestack play`` and the arena
(``trained_game``), ``fivestack eval``, the evaluator and the benchmarks (``play_games``). The agent refuses a game
made otherwise with one error naming the fix, and policies trained on two games cannot meet."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.game.patch import F_MANUAL_ATTACK, PATCH_VERSION, patch_features
from fivestack.match.agents import PolicyTeamAgent, build_agent, trained_game
from fivestack.match.games import play_games
from fivestack.model.policy import Policy, PolicyConfig
from fivestack.play import play_match
from fivestack.runs.config import load_config
from fivestack.system.controller import Controller


@pytest.fixture(scope="module")
def run_on(tmp_path_factory):
    """A run folder trained (version 0) on a patch, as training leaves it: config.toml and a checkpoint."""
    def make(patch: str):
        run = tmp_path_factory.mktemp("runs") / f"on-{patch}"
        config = load_config(None, ["game.mode='1v1'", "policy.lstm_size=16", f"game.patch='{patch}'"])
        controller = Controller(run, config)
        torch.manual_seed(0)
        controller.save(0, Policy(config.policy, patch).state_dict(), {}, {})
        controller.close()
        return run
    return make


class GameSpy:
    """A team agent that passes every call on and keeps what each game it was asked for played with."""

    def __init__(self, agent):
        self.agent, self.patches, self.features = agent, set(), set()

    def act(self, env, games=None):
        self.patches.add(env.game.config.patch)
        self.features.update(env.game.features.tolist())
        return self.agent.act(env, games)


def scripted(side: int):
    return build_agent("scripted", side, 5 + side, "1v1")


def test_fivestack_play_plays_a_run_whose_patch_widens_the_inputs(run_on):
    """Patch 0.4's policy reads one more ``units`` column (attack readiness); its games must have it (they were
    made on the default game before, and the first forward pass failed on a 43-wide input)."""
    run = run_on("0.4")
    result = play_match(f"{run}:0", "scripted", n_games=2, seed=1, config=GameConfig(mode="1v1", max_seconds=20.0))
    assert len(result.games) == 2 and result.config.patch == "0.4"
    assert trained_game([build_agent(f"{run}:0", 0, mode="1v1")]) == {"move_goals": "grid", "patch": "0.4"}


def test_a_policys_games_play_its_patchs_rules_and_a_ladder_plays_its_own(run_on):
    """Patch 0.5 is a rule without a column (heroes do not attack on their own): the policy's games are 0.5 games,
    every one of them with the rule's bit, not default games that only show 0.5's columns; bots between
    themselves play the ladder's patch when it names one, the default game otherwise."""
    run = run_on("0.5")
    spies = []  # on the bot's side (a spy around the policy would hide it from ``trained_game``): the same env

    def watched_bot(side):
        spies.append(GameSpy(scripted(side)))
        return spies[-1]

    play_games(lambda side: build_agent(f"{run}:0", side, 3 + side, "1v1"), watched_bot, 2, "1v1", 20.0, seed=2)
    assert spies and all(s.patches == {"0.5"} and s.features == {F_MANUAL_ATTACK} for s in spies)

    bots = [GameSpy(scripted(0)), GameSpy(scripted(1))]
    play_games(lambda side: bots[side], scripted, 2, "1v1", 10.0, seed=2, patch="0.5")
    assert {p for b in bots for p in b.patches} == {"0.5"} and {f for b in bots for f in b.features} == {F_MANUAL_ATTACK}
    default = GameSpy(scripted(0))
    play_games(lambda side: default if side == 0 else scripted(1), scripted, 1, "1v1", 10.0)
    assert default.patches == {PATCH_VERSION} and default.features == {patch_features(PATCH_VERSION)}


@pytest.mark.parametrize("name, trained, default, why", [
    ("move_goals", "reach", "grid", "its move orders would mean other places"),
    ("patch", "0.4", PATCH_VERSION, "its inputs would have other columns and the game other rules than the ones it learnt"),
])
def test_a_policy_refuses_a_game_made_otherwise_and_policies_of_two_games_cannot_meet(name, trained, default, why):
    policy = Policy(PolicyConfig(lstm_size=16), trained if name == "patch" else None).eval()
    agent = PolicyTeamAgent(0, policy, "1v1", **{name: trained})
    env = BatchedEnv(1, GameConfig(mode="1v1"))
    env.reset(np.array([0], np.uint64))
    with pytest.raises(ValueError, match=rf"trained with {name} '{trained}' but the game's is '{default}': {why}; "
                                          rf"make the game with GameConfig\({name}='{trained}'\)"):
        agent.act(env)
    plain = PolicyTeamAgent(1, Policy(PolicyConfig(lstm_size=16)).eval(), "1v1")
    assert trained_game([plain, scripted(0)]) == {"move_goals": "grid", "patch": PATCH_VERSION}
    assert trained_game([agent, scripted(1)])[name] == trained and trained_game([scripted(1)]) == {}
    with pytest.raises(ValueError, match=rf"different {name} \({', '.join(sorted((default, trained)))}\): a game "
                                          rf"has one"):
        trained_game([agent, plain])
    own = BatchedEnv(1, GameConfig(mode="1v1", **{name: trained}))  # its own game: it plays
    own.reset(np.array([0], np.uint64))
    assert agent.act(own).shape == (1, 5, 5)


def test_a_ladder_of_another_patch_is_refused_at_the_policys_first_decision():
    wide = Policy(PolicyConfig(lstm_size=16), "0.4").eval()
    with pytest.raises(ValueError, match=r"trained with patch '0.4' but the game's is '0.1'"):
        play_games(lambda side: PolicyTeamAgent(side, wide, "1v1", patch="0.4"), scripted, 2, "1v1", 10.0,
                   patch="0.1")
    played = play_games(lambda side: PolicyTeamAgent(side, wide, "1v1", patch="0.4"), scripted, 2, "1v1", 10.0,
                        patch="0.4")
    assert played.winner.shape == (2,)


def test_the_shipped_model_plays_the_patch_it_was_trained_on():
    """The shipped 1v1 model learnt patch 0.1 (its policy.json says so): it plays 0.1's games, not the default
    game's (1.0, another lane), and ``trained_game`` makes its matches with 0.1."""
    agent = build_agent("trained", 0, 0, "1v1")
    assert agent.patch == "0.1" != PATCH_VERSION
    assert trained_game([agent, scripted(1)])["patch"] == "0.1"
    played = play_games(lambda side: build_agent("trained", side, side, "1v1"), scripted, 2, "1v1", 10.0)
    assert played.winner.shape == (2,)
