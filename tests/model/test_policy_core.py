"""The policy's core and value head options (``policy.core``, ``policy.value_hidden``): the feed-forward core has
no memory (the LSTM has), the value head's own layer is the critic's, and each builds, saves and loads."""

import dataclasses

import pytest
import torch

from fivestack.model.policy import Policy, PolicyConfig

SMALL = PolicyConfig(unit_embedding=16, element_hidden=16, trunk=32, lstm_size=32, action_embedding=16)


def core_outputs(policy: Policy, features: torch.Tensor, first: torch.Tensor) -> torch.Tensor:
    """The core's outputs over L steps (features (L, T, K, F), first (L, T)) from a zero state."""
    state = policy.initial_state(features.shape[1] * features.shape[2])
    outputs = []
    for step in range(features.shape[0]):
        out, state = policy.core_step(features[step], state, first[step])
        outputs.append(out)
    return torch.stack(outputs)


@pytest.mark.parametrize("core", ["lstm", "mlp"])
def test_only_the_lstm_core_remembers(core):
    """The last step's output with and without a different first step: the same for the feed-forward core, not for
    the LSTM (so the test can tell them apart), and the same for both when the last step starts a new game."""
    torch.manual_seed(0)
    policy = Policy(dataclasses.replace(SMALL, core=core))
    features = torch.randn(3, 2, 1, 32)
    changed = features.clone()
    changed[0] += 5.0
    no_reset = torch.zeros(3, 2)
    a, b = core_outputs(policy, features, no_reset)[-1], core_outputs(policy, changed, no_reset)[-1]
    if core == "mlp":
        torch.testing.assert_close(a, b)
    else:
        assert (a - b).abs().max() > 1e-4
    reset = no_reset.clone()
    reset[-1] = 1.0  # the last step begins a new game: nothing before it counts
    torch.testing.assert_close(core_outputs(policy, features, reset)[-1], core_outputs(policy, changed, reset)[-1])


def test_value_hidden_is_the_critics_own_layer_and_round_trips():
    torch.manual_seed(0)
    config = dataclasses.replace(SMALL, core="mlp", value_hidden=24)
    policy = Policy(config)
    assert not hasattr(policy, "lstm")
    core = torch.randn(5, SMALL.lstm_size, requires_grad=True)
    policy.value_head(core).sum().backward()
    hidden = policy.value_head[0].weight
    assert hidden.shape == (24, SMALL.lstm_size) and hidden.grad.abs().sum() > 0  # the value's gradient reaches it
    assert all(p.grad is None for p in policy.primary_query.parameters())  # and no policy head's weights
    again = Policy(config)
    again.load_state_dict(policy.state_dict())
    torch.testing.assert_close(again.value_head(core), policy.value_head(core))
    with pytest.raises(RuntimeError, match="core_net"):  # an LSTM policy cannot read a feed-forward one's weights
        Policy(SMALL).load_state_dict(policy.state_dict())


def test_flat_unit_slots_make_the_trunk_read_which_slot_a_unit_is_in():
    """The max-pooled unit set cannot tell two seen creeps apart by their slots; the flat slots can: swapping two
    creeps' slots leaves the encoding unchanged without ``flat_unit_slots`` and changes it with them."""
    import numpy as np

    from fivestack.env.batched import BatchedEnv
    from fivestack.env.spaces import U_SEEN
    from fivestack.game.engine import GameConfig, no_orders
    from fivestack.game.layout import N_HEROES
    from fivestack.match.teams import active_heroes, team_view

    env = BatchedEnv(1, GameConfig(mode="1v1"))
    env.reset(np.array([3], dtype=np.uint64))
    for _ in range(300):  # 40 game seconds: the first waves are in sight
        env.step(no_orders(1, N_HEROES))
    heroes = active_heroes("1v1")
    view = team_view(env.obs, heroes)
    obs = {name: torch.from_numpy(np.ascontiguousarray(arr)) for name, arr in view.items()}
    seen = np.flatnonzero(view["units"][0, 69:101, U_SEEN] > 0) + 69
    assert len(seen) >= 2, "the test needs two seen creeps in the flat slots"
    a, b = int(seen[0]), int(seen[1])
    swapped = {name: value.clone() for name, value in obs.items()}
    for name in ("units", "unit_rel"):
        axis = 1 if name == "units" else 2
        index = [slice(None)] * axis
        first, second = swapped[name][tuple(index + [a])].clone(), swapped[name][tuple(index + [b])].clone()
        swapped[name][tuple(index + [a])], swapped[name][tuple(index + [b])] = second, first
    slots = torch.from_numpy(heroes.astype(np.int64))
    for flat, changes in ((0, False), (101, True)):
        torch.manual_seed(0)
        policy = Policy(dataclasses.replace(SMALL, flat_unit_slots=flat))
        before, after = policy.encode(obs, slots)[0], policy.encode(swapped, slots)[0]
        assert ((before - after).abs().max() > 1e-6) == changes


def test_an_unknown_core_is_refused_with_the_choices():
    from fivestack.runs.config import ConfigError, load_config

    with pytest.raises(ConfigError, match="policy.core must be one of 'lstm', 'mlp', got 'gru'"):
        load_config(None, ["policy.core=gru"])


@pytest.mark.parametrize("core", ["lstm", "mlp"])
def test_the_fused_sequence_equals_stepping_the_cell_with_resets_inside(core):
    """``core_sequence`` (one fused LSTM call per stretch between resets) gives the outputs, the end state and the
    gradients of ``core_step`` stepped L times, with games starting at step 0 for one team and mid-sequence for
    others (two at the same step, one alone); a split that ignored a reset, or zeroed the wrong rows, fails."""
    torch.manual_seed(1)
    policy = Policy(dataclasses.replace(SMALL, core=core))
    t, steps, k = 4, 9, 2
    features = torch.randn(t, steps, k, 32, requires_grad=True)
    first = torch.zeros(t, steps)
    first[0, 0] = first[1, 4] = first[2, 4] = first[3, 7] = 1.0
    start = tuple(torch.randn(t * k, SMALL.lstm_size) for _ in range(2))

    stepped, state = [], start
    for i in range(steps):
        out, state = policy.core_step(features[:, i], state, first[:, i])
        stepped.append(out.view(t, k, -1))
    stepped = torch.stack(stepped, 1)
    fused, end = policy.core_sequence(features, start, first)
    torch.testing.assert_close(fused, stepped, atol=1e-6, rtol=1e-5)
    for a, b in zip(end, state):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-5)
    grad_stepped = torch.autograd.grad(stepped.square().sum(), [features, *policy.parameters()], allow_unused=True)
    grad_fused = torch.autograd.grad(fused.square().sum(), [features, *policy.parameters()], allow_unused=True)
    for a, b in zip(grad_fused, grad_stepped):
        if a is not None or b is not None:
            torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-4)
    if core == "lstm":  # the resets matter: without them the same call gives other outputs after step 4
        unreset, _ = policy.core_sequence(features, start, torch.zeros(t, steps))
        assert (unreset[1, 4:] - fused[1, 4:]).abs().max() > 1e-3
