"""Hero identity by embedding: the policy's tables are sized from the patch (a hero added to the patch is a new
row, nothing else), and a checkpoint written for another hero count, or before hero embeddings, is one clear
error when loaded through the real checkpoint files, not a size-mismatch traceback."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from fivestack.env import spaces as sp
from fivestack.game.patch import HEROES, Patch
from fivestack.model.policy import CheckpointMismatch, GameSizes, Policy, PolicyConfig
from fivestack.runs.config import load_config
from fivestack.system.controller import Controller
from fivestack.runs.checkpoints import latest_checkpoint, load_checkpoint

SMALL = PolicyConfig(unit_embedding=8, element_hidden=8, trunk=16, lstm_size=8, action_embedding=8)


def patch_with_more_heroes(k: int) -> Patch:
    """The default patch plus ``k`` copies of its first hero under new names, each with its own four abilities."""
    extra = tuple(dataclasses.replace(HEROES[0], name=f"Copy {i}", abilities=tuple(
        dataclasses.replace(a, name=f"{a.name} {i}") for a in HEROES[0].abilities)) for i in range(k))
    return Patch(heroes=HEROES + extra)


def one_team_step(gen: torch.Generator) -> dict[str, torch.Tensor]:
    """One team-step of five replicas with the env's groups, dtypes and shapes: every unit and hero seen, every
    item and ability slot empty, every action available."""
    obs = {name: torch.randn(1, *shape, generator=gen) for name, shape in sp.TEAM_GROUPS.items()}
    obs.update({name: torch.randn(1, 5, *shape, generator=gen) for name, shape in sp.HERO_GROUPS.items()})
    obs.update({name: torch.ones(1, 5, *shape, dtype=torch.uint8) for name, shape in sp.HERO_MASK_GROUPS.items()})
    obs.update({name: torch.full((1, *shape), -1, dtype=torch.int32) for name, shape in sp.TEAM_INT_GROUPS.items()})
    obs["units"][..., sp.U_SEEN] = 1.0
    obs["heroes"][..., sp.HX_SEEN] = 1.0
    obs["hero_ids"][:] = torch.tensor([0, 1, 2, 3, 4, 0, 1, 2, 3, 4])
    obs["own_hero_id"] = torch.zeros(1, 5, dtype=torch.int32)
    return obs


def saved_run(tmp_path, policy: Policy):
    """``policy`` saved as version 1 of a run (``tmp_path / "five"``, its config the policy's widths) through the
    run's checkpoint code, then read back as a load would."""
    widths = [f"policy.{k}={v}" for k, v in vars(SMALL).items() if k != "goal_inputs"]
    config = load_config(None, [f"run.runs_dir='{tmp_path}'", "run.name='five'", *widths])
    controller = Controller(tmp_path / "five", config)
    try:
        controller.save(1, policy.state_dict(), {}, {})
    finally:
        controller.close()
    return load_checkpoint(latest_checkpoint(tmp_path / "five"))[0]


def test_embedding_tables_are_sized_from_the_patch():
    base, grown = Patch(), patch_with_more_heroes(12)
    assert GameSizes.of(base).n_heroes == len(HEROES) and GameSizes.of(grown).n_heroes == len(HEROES) + 12
    policy = Policy(SMALL, grown)
    assert policy.hero_embed.weight.shape == (len(HEROES) + 12 + 1, 16)  # + the "none" row (id -1)
    # ability ids are rows of the patch's ability table: a new hero's four abilities are four new rows
    assert len(grown.ability_table) == len(base.ability_table) + 4 * 12
    assert policy.ability_embed.weight.shape[0] == len(grown.ability_table) + 1
    # and the trunk reads no slot one-hot: the hero identity part is the embedding's width
    assert dict((name, width) for name, _, width in policy.trunk_inputs())["hero_identity"] == 16


def test_the_hero_identity_reaches_the_trunk_through_the_embedding_only():
    """Two replicas differing only in ``own_hero_id`` get different trunk features; editing the embedding row of a
    hero changes exactly the replicas that play it."""
    torch.manual_seed(0)
    obs = one_team_step(torch.Generator().manual_seed(0))
    obs["own_hero_id"][:] = torch.tensor([[0, 1, 0, 2, 3]])
    policy = Policy(SMALL).eval()
    slots = torch.arange(5).unsqueeze(0)
    with torch.no_grad():
        before, _ = policy.encode(obs, slots)
        policy.hero_embed.weight[1 + 1] += 1.0  # hero type 1's row
        obs["hero_ids"][:] = -1  # (so that only the own identity reads it)
        after_ids_cleared, _ = policy.encode(obs, slots)
        policy.hero_embed.weight[1 + 1] -= 1.0
        baseline, _ = policy.encode(obs, slots)
    changed = (after_ids_cleared - baseline).abs().amax(-1)[0] > 0
    assert changed.tolist() == [False, True, False, False, False]
    assert not torch.equal(before[0, 0], before[0, 1])


def test_a_checkpoint_for_fewer_heroes_is_one_clear_error_naming_the_counts_and_the_fix(tmp_path):
    weights = saved_run(tmp_path, Policy(SMALL, Patch()))
    n, a = len(HEROES), len(Patch().ability_table)
    with pytest.raises(CheckpointMismatch) as caught:
        Policy(SMALL, patch_with_more_heroes(2)).load_state_dict(weights)
    message = str(caught.value)
    assert f"built for a game of {n} heroes, {a} abilities" in message
    assert f"this game has {n + 2} heroes, {a + 8} abilities" in message
    assert "train a new run" in message and "fivestack surgery" in message
    # the same game loads
    Policy(SMALL, Patch()).load_state_dict(weights)


def test_a_checkpoint_for_more_heroes_names_the_patch_and_no_surgery(tmp_path):
    weights = saved_run(tmp_path, Policy(SMALL, patch_with_more_heroes(1)))
    with pytest.raises(CheckpointMismatch, match="surgery never removes heroes"):
        Policy(SMALL, Patch()).load_state_dict(weights)


def test_play_and_eval_load_a_run_through_the_same_check(tmp_path):
    """``fivestack play`` / ``eval`` / the arena read a run's version with ``load_run_policy``: a run whose policy
    was built for another hero count is the same one error there."""
    from fivestack.match.agents import load_run_policy

    saved_run(tmp_path, Policy(SMALL, patch_with_more_heroes(1)))
    with pytest.raises(ValueError, match=f"built for a game of {len(HEROES) + 1} heroes"):
        load_run_policy(str(tmp_path / "five"))


def test_a_checkpoint_from_before_hero_embeddings_is_one_clear_error(tmp_path):
    weights = saved_run(tmp_path, Policy(SMALL, Patch()))
    del weights["hero_embed.weight"]  # what a checkpoint of the slot one-hot policy holds: no hero table
    with pytest.raises(CheckpointMismatch, match="written before hero embeddings.*train a new run"):
        Policy(SMALL, Patch()).load_state_dict(weights)
