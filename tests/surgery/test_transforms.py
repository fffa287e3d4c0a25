"""Each transform computes the same function: on 512 recorded 5v5 team-steps (32 sequences of 16, replayed step by
step and as sequences) every head's logits, value, win probability and the old LSTM units' h and c match the old
model's to 1e-5; an added action has probability 0; a broken transform fails the verification."""

import dataclasses

import pytest
import torch

from fivestack.model.policy import GameSizes, Policy
from fivestack.surgery.transforms import (FEATURE_GROUPS, Fill, Spec, SurgeryError, apply_plan, plan, sizes_of,
                                          transform_optimizer, widen_lstm)
from fivestack.surgery.verify import TOLERANCE, pad_obs, replay_sequences, summary, verify


def operate(recorded, config=None, sizes=None, scale=0.1):
    old = recorded.spec
    new = Spec(config or old.config, sizes or old.sizes)
    steps = plan(old, new)
    assert steps, "the test asks for a change"
    moved = apply_plan(steps, recorded.policy.state_dict(), Fill(torch.Generator().manual_seed(0), scale))
    policy = Policy(new.config, sizes=new.sizes)
    policy.load_state_dict(moved)
    report = verify(recorded.policy, policy, recorded.probe)
    print(f"\n{[s.description for s in steps]}: {summary(report)}")
    return policy, report


def assert_exact(report):
    assert report["team_steps"] >= 500 and report["sequence_steps"] == 16
    for replay in ("steps", "sequences"):
        for name, value in report["figures"][replay].items():
            assert value <= TOLERANCE, f"{replay} {name}: {value}"
    assert report["passed"]


def sizes_with(sizes: GameSizes, **changes) -> GameSizes:
    out = dataclasses.replace(sizes, features=dict(sizes.features))
    for key, value in changes.items():
        if key in out.features:
            out.features[key] = value
        else:
            setattr(out, key, value)
    return out


def test_the_probe_is_500_recorded_5v5_team_steps_in_16_step_sequences(recorded):
    probe = recorded.probe
    assert probe.mode == "5v5" and probe.team_steps >= 500 and probe.first.shape[1] == 16
    assert probe.hero_slots.shape[1] == 5 and probe.h0.shape[-1] == 32
    assert (probe.h0 != 0).any(), "sequences start mid-game, from the LSTM state the rollout had there"


def test_widen_lstm_is_exact_and_the_new_units_are_alive(recorded):
    config = dataclasses.replace(recorded.spec.config, lstm_size=64)
    policy, report = operate(recorded, config)
    assert_exact(report)
    # the new units compute something (their h is not 0): they are free to learn, yet change no output
    gen = torch.Generator().manual_seed(0)
    probe = recorded.probe
    s, k = probe.hero_slots.shape
    zeros = torch.zeros(s * k, 64)
    out, _ = replay_sequences(policy, pad_obs(probe.obs, policy.sizes, gen), probe, zeros, zeros.clone())
    assert out["h"][:, 32:].abs().max() > 1e-3


def test_widen_trunk_is_exact_with_the_cross_hero_pool_growing(recorded):
    config = dataclasses.replace(recorded.spec.config, trunk=96)
    policy, report = operate(recorded, config)
    assert policy.n_pooled == 24 and recorded.policy.n_pooled == 16
    assert_exact(report)


def test_add_features_to_every_observation_group_is_exact_and_their_normaliser_starts_fresh(recorded):
    old = recorded.spec.sizes
    sizes = sizes_with(old, **{g: w + 2 for g, w in old.features.items()})
    policy, report = operate(recorded, sizes=sizes)
    assert_exact(report)
    old_norm = recorded.policy.norms["obs_units"]
    norm = policy.norms["obs_units"]
    w = old.features["units"]
    assert torch.equal(norm.mean[:w], old_norm.mean) and torch.equal(norm.var[:w], old_norm.var)
    assert torch.equal(norm.mean[w:], torch.zeros(2)) and torch.equal(norm.var[w:], torch.ones(2))
    assert torch.all(norm.count[:w] == old_norm.count) and torch.all(norm.count[w:] == 1e-4)
    # a new batch moves the new columns' statistics as a fresh normaliser's, the old ones barely
    norm.update(torch.full((100, w + 2), 3.0))
    assert torch.allclose(norm.mean[w:], torch.full((2,), 3.0), atol=1e-4)
    assert (norm.mean[:w] - old_norm.mean).abs().max() < 0.5


@pytest.mark.parametrize("group", ["global", "allied_heroes", "modifiers", "items", "unit_rel"])
def test_add_one_feature_to_one_group_is_exact(recorded, group):
    old = recorded.spec.sizes
    policy, report = operate(recorded, sizes=sizes_with(old, **{group: old.features[group] + 1}))
    assert_exact(report)
    assert policy.sizes.features[group] == old.features[group] + 1  # the new model reads the extra column
    assert sum(p.numel() for p in policy.parameters()) > sum(p.numel() for p in recorded.policy.parameters())


def test_an_added_action_has_probability_0_on_the_recorded_observations(recorded):
    old = recorded.spec.sizes
    policy, report = operate(recorded, sizes=sizes_with(old, n_primary=old.n_primary + 2))
    assert_exact(report)
    assert report["max_abs_diff"]["new_action_prob"] == 0.0
    # the mask is what keeps it at 0: its logit is finite and, once the game offers it, it can be chosen and learnt
    probe = recorded.probe
    obs = pad_obs(probe.obs, policy.sizes, torch.Generator().manual_seed(0))
    obs["primary_mask"][..., old.n_primary:] = 1
    s, k = probe.hero_slots.shape
    h0, c0 = torch.from_numpy(probe.h0).reshape(s * k, -1), torch.from_numpy(probe.c0).reshape(s * k, -1)
    out, _ = replay_sequences(policy, obs, probe, h0, c0)
    assert torch.softmax(out["primary"], -1)[:, old.n_primary:].min() > 0


def test_added_items_and_abilities_are_exact(recorded):
    old = recorded.spec.sizes
    policy, report = operate(recorded, sizes=sizes_with(old, n_items=old.n_items + 3, n_abilities=old.n_abilities + 2))
    assert_exact(report)
    assert policy.item_embed.weight.shape[0] == old.n_items + 4
    assert torch.equal(policy.item_embed.weight[:old.n_items + 1], recorded.policy.item_embed.weight)


def test_added_heroes_are_exact_and_old_heroes_keep_their_rows(recorded):
    """A patch with more heroes (and their abilities): new rows of hero_embed and ability_embed; the recorded
    games' heroes (every old id) compute the same function to the tolerance, their rows unchanged exactly."""
    old = recorded.spec.sizes
    policy, report = operate(recorded, sizes=sizes_with(old, n_heroes=old.n_heroes + 12,
                                                        n_abilities=old.n_abilities + 48))
    assert_exact(report)
    assert policy.hero_embed.weight.shape[0] == old.n_heroes + 13  # + the "none" row
    assert torch.equal(policy.hero_embed.weight[:old.n_heroes + 1], recorded.policy.hero_embed.weight)
    assert torch.equal(policy.ability_embed.weight[:old.n_abilities + 1], recorded.policy.ability_embed.weight)


def test_every_transform_at_once_is_exact(recorded):
    old = recorded.spec.sizes
    sizes = sizes_with(old, **{g: w + 1 for g, w in old.features.items()}, n_primary=old.n_primary + 1,
                       n_items=old.n_items + 1, n_abilities=old.n_abilities + 1, n_heroes=old.n_heroes + 1)
    config = dataclasses.replace(recorded.spec.config, lstm_size=48, trunk=80)
    policy, report = operate(recorded, config, sizes)
    assert_exact(report)
    assert policy.lstm.hidden_size == 48 and policy.n_pooled == int(80 * config.cross_hero_fraction)
    assert policy.action_embed.weight.shape[0] == old.n_primary + 1
    assert policy.item_embed.weight.shape[0] == old.n_items + 2  # + the "none" row
    assert policy.ability_embed.weight.shape[0] == old.n_abilities + 2


def test_a_broken_transform_fails_the_verification(recorded):
    """Random instead of zero outgoing weights from the new LSTM units into the value head, or into the old
    gates: the verification sees it, with the figure that moved."""
    old = recorded.spec
    new = Spec(dataclasses.replace(old.config, lstm_size=64), old.sizes)
    for key in ("value_head.weight", "lstm.weight_hh"):
        moved = widen_lstm(recorded.policy.state_dict(), Fill(torch.Generator().manual_seed(0), 0.1), 32, 64)
        moved[key] = moved[key].clone()
        moved[key][:, 32:] = torch.randn(moved[key][:, 32:].shape) * 0.1
        policy = Policy(new.config, sizes=new.sizes)
        policy.load_state_dict(moved)
        report = verify(recorded.policy, policy, recorded.probe)
        print(f"\nbroken {key}: {summary(report)}")
        assert not report["passed"]
        assert report["max_abs_diff"]["value"] > 1e-3
        if key == "lstm.weight_hh":
            assert report["max_abs_diff"]["h"] > 1e-3 and report["max_abs_diff"]["c"] > 1e-3


def test_optimizer_moments_move_with_the_weights_and_new_entries_start_at_zero(recorded):
    from fivestack.runs.config import PPOConfig
    from fivestack.system.optimizer import Optimizer

    old = recorded.spec
    new = Spec(dataclasses.replace(old.config, lstm_size=48, trunk=80), old.sizes)
    names = [n for n, _ in recorded.policy.named_parameters()]
    optim = {}
    for i, (name, p) in enumerate(recorded.policy.named_parameters()):
        optim[f"{i}.exp_avg"] = torch.randn(p.shape)
        optim[f"{i}.exp_avg_sq"] = torch.rand(p.shape) + 0.1
        optim[f"{i}.step"] = torch.tensor([7.0])
    optim["rng.torch"] = torch.arange(4, dtype=torch.uint8)
    moved = transform_optimizer(plan(old, new), optim, old)
    policy = Policy(new.config, sizes=new.sizes)
    Optimizer(policy, PPOConfig()).load_optimizer_tensors(moved)  # every shape fits the new model
    i = names.index("lstm.weight_hh")
    v = moved[f"{i}.exp_avg_sq"]
    assert v.shape == (4 * 48, 48)
    assert torch.equal(v[:32, :32], optim[f"{i}.exp_avg_sq"][:32, :32])  # input gate of the old units
    assert torch.equal(v[48:80, :32], optim[f"{i}.exp_avg_sq"][32:64, :32])  # forget gate
    assert (v[32:48] == 0).all() and (v[:, 32:] == 0).all()
    assert torch.equal(moved[f"{i}.step"], optim[f"{i}.step"]) and torch.equal(moved["rng.torch"], optim["rng.torch"])


def test_plan_refuses_what_no_transform_handles(recorded):
    old = recorded.spec
    with pytest.raises(SurgeryError, match="policy.lstm_size shrinks from 32 to 16"):
        plan(old, Spec(dataclasses.replace(old.config, lstm_size=16), old.sizes))
    with pytest.raises(SurgeryError, match="policy.unit_embedding changes from 16 to 32"):
        plan(old, Spec(dataclasses.replace(old.config, unit_embedding=32), old.sizes))
    with pytest.raises(SurgeryError, match="fewer than the run was trained on.*units features 43 -> 42"):
        plan(old, Spec(old.config, sizes_with(old.sizes, units=42)))
    with pytest.raises(SurgeryError, match="policy.core changes from lstm to mlp"):
        plan(old, Spec(dataclasses.replace(old.config, core="mlp"), old.sizes))
    feed_forward = Spec(dataclasses.replace(old.config, core="mlp"), old.sizes)
    with pytest.raises(SurgeryError, match="core is 'mlp', not an LSTM"):
        plan(feed_forward, Spec(dataclasses.replace(feed_forward.config, lstm_size=48), old.sizes))
    assert plan(old, old) == []
    assert set(FEATURE_GROUPS) == set(sizes_of(recorded.policy.state_dict()).features)
