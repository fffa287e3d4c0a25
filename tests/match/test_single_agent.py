"""The single-agent env (``fivestack.match.single_agent``): the trainer's reward for the same game and actions, both
``check_env``s, the mask options, the SB3 vector env's auto-reset, and a learner as a team agent."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from fivestack.env.batched import BatchedEnv
from fivestack.env.spaces import N_FIXED_SLOTS
from fivestack.game.engine import GameConfig
from fivestack.game.layout import N_UNIT_SLOTS, STEP_SECONDS
from fivestack.game.patch import PATCHES
from fivestack.match.agents import build_agent
from fivestack.match.games import play_games
from fivestack.match.inference import InferenceResult
from fivestack.match.single_agent import Encoding, LearnerTeamAgent, SingleAgentEnv, SingleAgentGames, sample_masked
from fivestack.model.policy import HEADS
from fivestack.runs.config import load_config
from fivestack.system.rollout import RolloutWorker


def random_valid_actions(view: dict, rng: np.random.Generator) -> np.ndarray:
    """(rows, K, 5) actions with an available primary and, where it takes one, a valid target."""
    primary, target = view["primary_mask"], view["target_mask"]
    rows, k = primary.shape[:2]
    actions = np.zeros((rows, k, 5), np.int64)
    for r in range(rows):
        for h in range(k):
            p = rng.choice(np.flatnonzero(primary[r, h]))
            slots = np.flatnonzero(target[r, h, p])
            actions[r, h] = (p, rng.integers(4), rng.choice(slots) if slots.size else 0, rng.integers(9),
                             rng.integers(9))
    return actions


class RecordingWorker(RolloutWorker):
    """The rollout worker, keeping each decision's shaped reward (T, K) as it computed it."""

    rewards: list

    def _play_decision(self, actions, team_spirit, event_sums):
        out = super()._play_decision(actions, team_spirit, event_sums)
        self.rewards.append(out[0].copy())
        return out


def test_rewards_equal_the_trainers_for_the_same_game_and_actions():
    """A rollout worker playing every game against the scripted bot (``pool.bot_fraction = 1``) and the env given the
    same seeds, sides and learner actions: the same observations and, decision by decision, the same reward."""
    config = load_config(None, ["game.mode='1v1'", "game.max_seconds=600", "rollout.games=3", "rollout.decision_steps=2",
                                "rollout.segment_steps=24", "rollout.sample_steps=8", "pool.bot_fraction=1",
                                "pool.bot='scripted'", "policy.lstm_size=8"])
    worker = RecordingWorker(config, seed=5)
    worker.rewards = []
    first_seeds = 5 * 1_000_003 + np.arange(3)
    learner_side = 1 - worker.opponent_side.copy()
    rng = np.random.default_rng(0)
    played, views = [], []

    def infer(request):
        actions = random_valid_actions(request.obs, rng)
        played.append(actions.copy())
        views.append({name: request.obs[name].copy() for name in ("primary_mask", "units", "unit_rel")})
        rows, k = actions.shape[:2]
        zeros = np.zeros((rows, k), np.float32)
        state = tuple(np.zeros_like(s) for s in request.state)
        return InferenceResult(actions, np.zeros((rows, k, len(HEADS)), np.float32), zeros, zeros + 0.5, state, 0)

    worker.collect(infer, team_spirit=0.3)
    assert len(worker.rewards) == 24
    games = SingleAgentGames(3, "scripted", config=config, seed=5, obs="dict")
    games.restart(np.arange(3), seeds=first_seeds, sides=learner_side)
    rows = 2 * np.arange(3) + learner_side
    moved = 0.0
    turned = games.env.turned_teams().reshape(3, 2)[np.arange(3), learner_side]
    for i, trainer_reward in enumerate(worker.rewards):
        obs = games.observe()  # the request held the learner rows, in game order: the same games, seen the same
        assert np.array_equal(obs["primary_mask"], views[i]["primary_mask"][:, 0])
        assert np.array_equal(obs["units"], views[i]["units"])
        assert np.array_equal(obs["unit_rel"], views[i]["unit_rel"][:, 0])
        actions = played[i].copy()  # the rollout's actions are in the map's frame; the env takes the learner's own
        actions[turned, :, 3:5] = np.where(actions[turned, :, :1] != 0, 8 - actions[turned, :, 3:5],
                                           actions[turned, :, 3:5])
        _, reward, terminated, truncated, infos = games.step(actions.reshape(3, -1))
        assert not (terminated | truncated).any()
        assert np.array_equal(reward, trainer_reward[rows, 0]), i
        moved += np.abs(reward).sum()
    assert moved > 0  # the comparison saw rewards, not only zeros


def test_the_reward_is_zero_sum():
    """The reward is zero-sum: a learner that stands still while the scripted hero farms loses what the bot gains."""
    games = SingleAgentGames(2, "scripted", seed=2)
    games.reset()
    total = np.zeros(2)
    noop = np.zeros((2, 5), np.int64)
    for _ in range(400):
        _, reward, terminated, truncated, infos = games.step(noop)
        total += reward
        if (terminated | truncated).any():
            break
    assert (total < 0).all(), total  # the opponent's gains are the learner's losses (zero-sum)


@pytest.mark.parametrize("mode, obs, masks", [("1v1", "flat", "union"), ("1v1", "dict", "joint"),
                                             ("5v5", "dict", "union")])
def test_gymnasium_and_sb3_check_env_pass(mode, obs, masks):
    from gymnasium.utils.env_checker import check_env as gymnasium_check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = SingleAgentEnv("random", mode=mode, obs=obs, masks=masks, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the Dict's unbounded Boxes and image-like groups: warnings, not errors
        gymnasium_check_env(env, skip_render_check=True)  # each checker raises on the first breach of its API
        sb3_check_env(env, warn=False)
    observation, _ = env.reset(seed=2)
    assert env.observation_space.contains(observation)


def test_the_flat_observation_is_the_1v1_cut():
    """6,149 floats on patch 0.1 (the reference learner's), and every piece at its place: the units' rows are those
    of the two heroes, slots 10-68 and the first 32 creep slots."""
    games = SingleAgentGames(2, "random", seed=3)
    flat = games.reset()
    layout = games.encoding.flat_layout()
    assert flat.shape == (2, sum(int(np.prod(s)) for _, s in layout)) == (2,) + games.observation_space.shape
    if games.env.config.patch == "0.1":
        assert flat.shape[1] == 6149
    units = flat[:, :int(np.prod(layout[0][1]))].reshape(2, *layout[0][1])
    for g in range(2):
        side = games.learner_side[g]
        expected = games.env.obs["units"][g, side][np.r_[0, 5, 10:N_FIXED_SLOTS, N_FIXED_SLOTS:N_FIXED_SLOTS + 32]]
        assert np.array_equal(units[g], expected)


def test_union_and_joint_masks_say_what_the_env_allows():
    """The union target mask is the OR of the available primaries' target rows; the joint mask allows exactly the
    (primary, target) pairs of the env's masks."""
    games = SingleAgentGames(2, "scripted", masks="union", seed=4)
    games.reset()
    rng = np.random.default_rng(1)
    for _ in range(60):  # into the lane, where there are targets
        games.step(sample_masked(games.action_masks(), games.encoding.nvec, rng))
    masks = games.action_masks()
    for g in range(2):
        h = games.heroes[games.learner_side[g], 0]
        primary = games.env.obs["primary_mask"][g, h].astype(bool)
        target = games.env.obs["target_mask"][g, h].astype(bool)
        assert np.array_equal(masks[g, :20], primary)
        assert np.array_equal(masks[g, 24:24 + N_UNIT_SLOTS], target[primary].any(0) | ~target[primary].any())
    joint = Encoding("1v1", games.env.config.patch, masks="joint")
    jm = joint.action_masks(games.env.obs, np.arange(2), games.learner_side)
    for g in range(2):
        h = games.heroes[games.learner_side[g], 0]
        pairs = jm[g, :20 * N_UNIT_SLOTS].reshape(20, N_UNIT_SLOTS)
        primary = games.env.obs["primary_mask"][g, h].astype(bool)
        target = games.env.obs["target_mask"][g, h].astype(bool)
        assert np.array_equal(pairs.any(1), primary)
        takes = target.any(1)
        assert np.array_equal(pairs[takes], target[takes])
        assert (pairs[primary & ~takes][:, 1:] == 0).all()


def invalid_share(masks: str, decisions: int = 120, seed: int = 0, delay: int | None = None) -> float:
    games = SingleAgentGames(4, "scripted", masks=masks, seed=seed)
    games.reset()
    rng = np.random.default_rng(seed)
    invalid = 0
    for _ in range(decisions):
        actions = sample_masked(games.action_masks(), games.encoding.nvec, rng)
        if delay is not None:
            actions[:, 1] = delay
        _, _, terminated, truncated, infos = games.step(actions)
        invalid += sum(info["invalid_actions"] for info in infos)
        games.restart(np.flatnonzero(terminated | truncated))
    return invalid / (4 * decisions)


def test_the_joint_encoding_makes_no_invalid_action_and_the_union_fewer_than_the_primary_mask():
    """The joint mask is exact when the action is applied at once (delay 0; with a delay of 1-3 frames a target can
    die first); the union mask allows some wrong pairs, the primary mask alone many more."""
    joint, union, primary = invalid_share("joint", delay=0), invalid_share("union"), invalid_share("primary")
    assert joint == 0.0
    assert union < primary
    assert primary > 0.02  # an attack on one of 189 slots, most of them empty: often invalid


def test_info_counts_this_steps_invalid_actions_and_the_running_total():
    games = SingleAgentGames(1, "random", masks="none", seed=6)
    games.reset()
    bad = np.array([[2, 0, N_UNIT_SLOTS - 1, 0, 0]])  # attack an empty creep slot: invalid at every decision
    totals = []
    for _ in range(3):
        _, _, _, _, infos = games.step(bad)
        assert infos[0]["invalid_actions"] == 1
        totals.append(infos[0]["invalid_actions_total"])
    assert totals == [1, 2, 3]


def test_5v5_plays_one_team_with_a_part_per_hero_field():
    games = SingleAgentGames(1, "random", mode="5v5", seed=7)
    obs = games.reset()
    assert games.action_space.nvec.size == 25 and games.agent_steps_per_step == 10
    assert obs.shape == (1,) + games.observation_space.shape
    masks = games.action_masks()
    assert masks.shape == (1, int(games.encoding.nvec.sum()))
    _, reward, _, _, infos = games.step(sample_masked(masks, games.encoding.nvec, np.random.default_rng(0)))
    assert reward.shape == (1,) and infos[0]["events"].ndim == 1


def test_a_turned_view_turns_the_offsets_back():
    """On a patch with the turned view (``team_frame``), Dire's offset cells are turned back into the map's frame, as
    ``Policy.head_logits`` does; a no-op's are left as they are."""
    encoding = Encoding("1v1", next(iter(PATCHES)))
    actions = np.array([[1, 0, 0, 2, 7], [0, 0, 0, 2, 7]])
    out = encoding.env_actions(actions, np.array([True, True]))
    assert out[:, 0].tolist() == [[1, 0, 0, 6, 1], [0, 0, 0, 2, 7]]
    assert encoding.env_actions(actions, np.array([False, False]))[:, 0].tolist() == actions.tolist()


def test_the_sb3_vector_env_restarts_a_finished_game_and_says_how_it_ended():
    from fivestack.match.sb3 import SB3VecEnv

    config = load_config(None, ["game.mode='1v1'", "game.max_seconds=2", "rollout.decision_steps=2"])
    venv = SB3VecEnv(SingleAgentGames(2, "random", config=config, seed=8))
    obs = venv.reset()
    noop = np.zeros((2, 5), np.int64)
    for step in range(1, 20):
        obs, reward, done, infos = venv.step(noop)
        if done.any():
            break
    assert done.all()  # the time limit cut both games (2 game seconds = 7.5 decisions)
    for g in range(2):
        assert infos[g]["TimeLimit.truncated"] and infos[g]["episode"]["l"] == step
        assert not np.array_equal(infos[g]["terminal_observation"], obs[g])  # the new game's first observation
    assert len(venv.env_method("action_masks")) == 2 and venv.has_attr("action_masks")


def test_a_learner_plays_matches_as_a_team_agent():
    """``LearnerTeamAgent`` decides every ``decision_steps`` timesteps through the env's encoding: a learner that
    always attacks the enemy hero's slot (when it may) plays full games against the random hero on both sides."""
    games = SingleAgentGames(1, "random", masks="union", seed=9)
    encoding = games.encoding
    calls = []

    def predict(obs, masks):
        calls.append(len(obs))
        out = np.zeros((len(obs), encoding.nvec.size), np.int64)
        out[:, 0] = np.where(masks[:, 2], 2, 1)  # attack if allowed, else move
        out[:, 2] = 5  # the Dire hero's slot (Radiant's agent); a Dire agent's attack is invalid: a counted no-op
        out[:, 3:5] = 4
        return out

    result = play_games(lambda side: LearnerTeamAgent(side, predict, encoding, 2),
                        lambda side: build_agent("random", side, 1, "1v1"), 2, "1v1", 30.0, seed=0)
    assert result.a_side.tolist() == [0, 1]
    timesteps = 30.0 / STEP_SECONDS
    assert 0 < sum(calls) <= 2 * (timesteps / 2 + 1)  # a decision every 2 timesteps per game, not one per timestep


def test_a_batched_env_of_the_env_game_has_creep_slots_in_unit_index_order():
    """``env.spaces`` and ``obs_slots.select_slots`` said nearest first; the slots are in unit-index order."""
    env = BatchedEnv(2, GameConfig(mode="1v1", max_seconds=600))
    env.reset(0)
    noop = np.zeros((2, 10, 5), np.int64)
    seen = 0
    for _ in range(300):
        env.step(noop)
        units = env.unit_of_slot[:, :, N_FIXED_SLOTS:]
        for row in units.reshape(-1, units.shape[-1]):
            creeps = row[row >= 0]
            assert (np.diff(creeps) > 0).all()
            seen = max(seen, creeps.size)
    assert seen >= 2
