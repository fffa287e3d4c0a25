"""Policy: ignored action parameters are masked out of the log-probability, the cross-hero pool, and the
masks of the primary and attention target heads."""

import numpy as np
import pytest
import torch

from fivestack.env.batched import BatchedEnv
from fivestack.game.layout import N_DELAY, N_OFFSET, N_PRIMARY, N_UNIT_SLOTS
from fivestack.env.spaces import N_UNIT_REL_FEATURES
from fivestack.model.policy import PackedUnits, Policy, PolicyConfig
from fivestack.match.teams import active_heroes, team_view

SMALL = PolicyConfig(unit_embedding=16, element_hidden=16, trunk=32, lstm_size=32, action_embedding=16)


def small_policy(seed: int = 0) -> Policy:
    torch.manual_seed(seed)
    policy = Policy(SMALL)
    with torch.no_grad():  # away from the near-uniform initialisation, so that every head matters
        for head in (policy.offset_x, policy.offset_y, policy.delay_head):
            head.weight.normal_(0.0, 0.5)
        policy.target_gate.weight.normal_(0.0, 1.0)
    return policy


def head_inputs(b: int, k: int, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    n = b * k
    core = torch.randn(n, SMALL.lstm_size, generator=g)
    unit_emb = torch.randn(b, N_UNIT_SLOTS, SMALL.unit_embedding, generator=g)
    unit_rel = torch.randn(n, N_UNIT_SLOTS, N_UNIT_REL_FEATURES, generator=g)
    return core, PackedUnits.from_dense(unit_emb), unit_rel


# ---------------------------------------------------------------------- ignored parameters
PRIMARY = 2  # the chosen primary action of every row below


def masks_for(n: int, target_rows: dict[int, list[int]], offset_rows: set[int]) -> dict[str, torch.Tensor]:
    """Every primary available; only PRIMARY's rows matter. ``target_rows`` maps row -> valid target slots
    of PRIMARY (absent: the action takes no target), ``offset_rows`` the rows where PRIMARY uses offsets."""
    primary = torch.ones(n, N_PRIMARY, dtype=torch.uint8)
    target = torch.zeros(n, N_PRIMARY, N_UNIT_SLOTS, dtype=torch.uint8)
    target[:, PRIMARY + 1, :] = 1  # other actions' targets must not leak into PRIMARY's
    offset = torch.zeros(n, N_PRIMARY, dtype=torch.uint8)
    offset[:, PRIMARY + 1] = 1
    for row, slots in target_rows.items():
        target[row, PRIMARY, slots] = 1
    for row in offset_rows:
        offset[row, PRIMARY] = 1
    return {"primary_mask": primary, "target_mask": target, "offset_mask": offset}


def actions_with(n: int, target: int, ox: int, oy: int) -> torch.Tensor:
    a = torch.zeros(n, 5, dtype=torch.long)
    a[:, 0], a[:, 1], a[:, 2], a[:, 3], a[:, 4] = PRIMARY, 1, target, ox, oy
    return a


def test_ignored_target_and_offsets_do_not_change_the_log_prob():
    policy = small_policy()
    b, k = 2, 3
    n = b * k
    core, unit_emb, unit_rel = head_inputs(b, k)
    # rows 0, 2, 4: a unit target among slots {5, 17, 40}; rows 1, 3, 5: no target.
    # rows 0, 1: offsets used; the other rows: not
    masks = masks_for(n, {0: [5, 17, 40], 2: [5, 17, 40], 4: [5, 17, 40]}, {0, 1})
    score = {}
    for target in (5, 17, 40):
        for ox, oy in ((0, 0), (4, 8), (8, 1)):
            _, lp, ent, _, _, used = policy.heads(core, unit_emb, unit_rel, masks, actions_with(n, target, ox, oy))
            score[target, ox, oy] = lp.sum(-1)  # the action's log-prob: its heads' sum
    torch.testing.assert_close(used, torch.tensor([[1.0, 1.0], [0.0, 1.0], [1.0, 0.0], [0.0, 0.0],
                                                   [1.0, 0.0], [0.0, 0.0]]))
    base = score[5, 0, 0]
    for key, lp in score.items():
        # rows 3 and 5 use neither: the log-prob is the same whatever is stored
        assert torch.equal(lp[[3, 5]], base[[3, 5]]), key
    for target in (5, 17, 40):
        for ox, oy in ((4, 8), (8, 1)):
            # row 1 uses offsets but no target; rows 2 and 4 a target but no offsets
            assert torch.equal(score[target, ox, oy][[2, 4]], score[target, 0, 0][[2, 4]])
            assert (score[target, ox, oy][[0, 1]] - score[target, 0, 0][[0, 1]]).abs().min() > 1e-4
        assert torch.equal(score[target, 0, 0][1], base[1])
    for target in (17, 40):
        # rows 0, 2, 4 use the target: another stored target, another log-prob
        assert (score[target, 0, 0][[0, 2, 4]] - base[[0, 2, 4]]).abs().min() > 1e-4


def test_ignored_parameters_get_no_gradient_and_no_entropy():
    policy = small_policy()
    b, k = 1, 2
    n = b * k
    core, unit_emb, unit_rel = head_inputs(b, k, seed=1)

    def grads(masks):
        policy.zero_grad(set_to_none=False)
        _, lp, ent, _, _, _ = policy.heads(core, unit_emb, unit_rel, masks, actions_with(n, 17, 3, 6))
        (lp.sum() + ent.sum()).backward()
        return (policy.target_query.weight.grad.abs().sum().item(), policy.offset_x.weight.grad.abs().sum().item(),
                policy.delay_head.weight.grad.abs().sum().item())

    target_g, offset_g, delay_g = grads(masks_for(n, {}, set()))
    assert target_g == 0.0 and offset_g == 0.0 and delay_g > 0.0
    target_g, offset_g, _ = grads(masks_for(n, {0: [17, 18]}, {1}))
    assert target_g > 0.0 and offset_g > 0.0


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_log_prob_adds_exactly_the_used_heads(dtype):
    """log p = log p(primary) + log p(delay) [+ log p(target)] [+ log p(ox) + log p(oy)]: the difference
    between a row that uses a parameter and one that does not is that head's log-probability, a
    log-softmax over only the valid targets. (In float64 an all-masked target row has log-prob -log 189,
    so this also checks that the unused head is multiplied out, not merely masked.)"""
    policy = small_policy().to(dtype)
    core, units, unit_rel = head_inputs(1, 1, seed=2)
    core, unit_rel = core.to(dtype), unit_rel.to(dtype)
    unit_emb = PackedUnits(units.emb.to(dtype), units.batch, units.slot, units.n_batch)
    only_two = masks_for(1, {0: [10, 11]}, set())
    _, lp10, _, _, _, _ = policy.heads(core, unit_emb, unit_rel, only_two, actions_with(1, 10, 0, 0))
    _, lp11, _, _, _, _ = policy.heads(core, unit_emb, unit_rel, only_two, actions_with(1, 11, 0, 0))
    _, lp_none, _, _, _, _ = policy.heads(core, unit_emb, unit_rel, masks_for(1, {}, set()), actions_with(1, 10, 0, 0))
    p10, p11 = torch.exp(lp10.sum(-1) - lp_none.sum(-1)), torch.exp(lp11.sum(-1) - lp_none.sum(-1))
    torch.testing.assert_close(p10 + p11, torch.ones(1, dtype=dtype))  # the target head's mass: two valid slots
    assert 0.01 < p10.item() < 0.99


# ---------------------------------------------------------------------- cross-hero pool
def test_cross_hero_pool_by_hand():
    policy = small_policy()
    assert policy.n_pooled == 8  # 25% of the 32-wide trunk
    x = torch.tensor(np.random.default_rng(0).normal(size=(3, 5, 32)), dtype=torch.float32)  # 3 teams x 5
    out = policy.cross_hero_pool(x)
    assert out.shape == (3, 5, 32 + 8)
    for t in range(3):
        for i in range(5):
            assert torch.equal(out[t, i, :32], x[t, i])
            for f in range(8):  # max over the team's five replicas, not over other teams
                manual = max(x[t, j, f].item() for j in range(5))
                assert out[t, i, 32 + f].item() == manual


def test_cross_hero_pool_with_one_hero_is_the_identity_plus_a_copy():
    policy = small_policy()
    x = torch.randn(4, 1, 32)
    out = policy.cross_hero_pool(x)
    assert torch.equal(out[..., :32], x)
    assert torch.equal(out[..., 32:], x[..., :8])


def test_core_step_pools_within_a_team():
    """Changing one hero's features changes its teammates' LSTM output (through the pool) but not the
    other team's."""
    policy = small_policy()
    feats = torch.randn(2, 5, 32)
    state = policy.initial_state(10)
    base, _ = policy.core_step(feats, state, torch.ones(2))
    bumped = feats.clone()
    bumped[0, 0, : policy.n_pooled] += 10.0  # raises the team-0 max of the pooled features
    out, _ = policy.core_step(bumped, state, torch.ones(2))
    assert (out[1:5] - base[1:5]).abs().max() > 1e-3  # team 0's other heroes (rows 1-4)
    assert torch.equal(out[5:], base[5:])  # team 1


# ---------------------------------------------------------------------- masks of the sampled actions
def random_masks(n: int, rng: np.random.Generator) -> dict[str, torch.Tensor]:
    primary = rng.random((n, N_PRIMARY)) < 0.3
    primary[np.arange(n), rng.integers(0, N_PRIMARY, n)] = True  # at least one available
    primary[0] = False
    primary[0, 7] = True  # a row with exactly one choice
    target = rng.random((n, N_PRIMARY, N_UNIT_SLOTS)) < 0.02  # a few valid units per action...
    target[rng.random((n, N_PRIMARY)) < 0.4] = False  # ...and actions that take no target
    offset = rng.random((n, N_PRIMARY)) < 0.5
    return {"primary_mask": torch.from_numpy(primary.astype(np.uint8)),
            "target_mask": torch.from_numpy(target.astype(np.uint8)),
            "offset_mask": torch.from_numpy(offset.astype(np.uint8))}


def check_sampled(actions, used, masks) -> int:
    rows = torch.arange(actions.shape[0])
    primary = actions[:, 0]
    assert masks["primary_mask"][rows, primary].bool().all()
    valid_targets = masks["target_mask"][rows, primary].bool()  # (N, 189) for the chosen primary
    uses_target = valid_targets.any(-1)
    assert torch.equal(used[:, 0].bool(), uses_target)
    assert torch.equal(used[:, 1].bool(), masks["offset_mask"][rows, primary].bool())
    assert valid_targets[rows[uses_target], actions[uses_target, 2]].all()
    assert ((actions[:, 1] >= 0) & (actions[:, 1] < N_DELAY)).all()
    assert ((actions[:, 3:] >= 0) & (actions[:, 3:] < N_OFFSET)).all()
    return int(uses_target.sum())


def test_sampled_targets_and_primaries_are_always_valid():
    policy = small_policy()
    with torch.no_grad():  # extreme logits: masking must hold even when invalid choices are very likely
        policy.action_embed.weight.mul_(30.0)
        policy.target_query.weight.mul_(30.0)
    rng = np.random.default_rng(0)
    gen = torch.Generator().manual_seed(0)
    b, k = 64, 5
    targeted = 0
    chosen = set()
    with torch.no_grad():
        for rep in range(10):
            core, unit_emb, unit_rel = head_inputs(b, k, seed=rep)
            unit_emb = PackedUnits(unit_emb.emb * 20.0, unit_emb.batch, unit_emb.slot, unit_emb.n_batch)
            masks = random_masks(b * k, rng)
            actions, lp, _, _, _, used = policy.heads(core, unit_emb, unit_rel, masks, None, gen)
            targeted += check_sampled(actions, used, masks)
            assert actions[0, 0] == 7
            assert torch.isfinite(lp).all() and (lp > -1e3).all()  # nothing invalid was scored
            chosen |= set(actions[:, 0].tolist())
    assert targeted > 1000  # the check above ran on many targeted samples
    assert len(chosen) == N_PRIMARY


def test_act_on_real_observations_respects_random_masks():
    policy = small_policy(1)
    env = BatchedEnv(1)
    heroes = active_heroes("5v5")
    view = team_view(env.reset(5), heroes)
    hero_slots = torch.from_numpy(np.tile(heroes, (1, 1)))
    rng = np.random.default_rng(1)
    gen = torch.Generator().manual_seed(1)
    state = policy.initial_state(10)
    first = torch.ones(2)
    targeted = 0
    with torch.no_grad():
        for _ in range(40):
            obs = {name: torch.from_numpy(arr.copy()) for name, arr in view.items()}
            masks = random_masks(10, rng)
            for name, m in masks.items():
                obs[name] = m.view(2, 5, *m.shape[1:])
            actions, lp, value, win, state = policy.act(obs, state, first, hero_slots, gen)
            assert actions.shape == (2, 5, 5) and lp.shape == (2, 5, 4)  # per head
            # score what was sampled again, to get which parameters it uses
            flat = actions.view(10, 5)
            rows = torch.arange(10)
            used = torch.stack([masks["target_mask"][rows, flat[:, 0]].any(-1).float(),
                                masks["offset_mask"][rows, flat[:, 0]].float()], -1)
            targeted += check_sampled(flat, used, masks)
            first = torch.zeros(2)
    assert targeted > 50


def test_weights_for_another_observation_layout_get_one_clear_error():
    """A checkpoint written for another observation layout (here: two more hero-relative columns per unit, as an
    experiment of this project once had) names the tensor and the way out instead of torch's long size-mismatch
    dump."""
    weights = Policy(SMALL).state_dict()
    weights["unit_rel.weight"] = torch.zeros(1, N_UNIT_REL_FEATURES + 2)
    with pytest.raises(ValueError, match=rf"unit_rel\.weight \(1, {N_UNIT_REL_FEATURES + 2}\) \(this model: "
                                         rf"\(1, {N_UNIT_REL_FEATURES}\)\).*another observation"):
        Policy(SMALL).load_state_dict(weights)
    Policy(SMALL).load_state_dict(Policy(SMALL).state_dict())  # matching weights still load
