"""The batched self-play loop against the straightforward computation it replaces:

- light-key: N worlds stepped together (a Numba loop over rows) match the same N worlds stepped one at a time,
  and the numpy rule, step for step (states, rewards, reached, ended); its sparse input equals ``encode``;
- SwimmerGather: N swimmers stepped together match the same N stepped alone, and the threaded
  ``mujoco.rollout`` path matches stepping each swimmer;
- the policy's sparse first layer and its gradient equal the dense matmuls; the update built from the rows a
  policy acted on (``_acted_batch``) has the loss and gradient of the full (T x B) batch, and that gradient is
  the sum of per-episode gradients computed one episode at a time;
- acting on packed rows (``_act_packed``) draws the same actions as acting on every row with ``act``, and a
  whole ``play`` gives the same episodes either way (same random stream).
"""

import dataclasses

import numpy as np
import pytest

from fivestack.asp import selfplay
from fivestack.asp.envs import lightkey
from fivestack.asp.envs.lightkey import LightKey
from fivestack.asp.policy import MLPPolicy, SparseRows, UpdateBatch, first_layer, first_layer_weight_grad
from fivestack.asp.selfplay import ALICE, BOB, make_policy, play


def _dealt(n, seed, **rules):
    env = LightKey(n, **rules)
    rng = np.random.default_rng(seed)
    target = rng.random(n) < 0.4
    env.reset(rng, target)
    env.state[:, lightkey.OPEN] = rng.random(n) < 0.5    # doors open and closed, on target rows too
    return env, target, rng


@pytest.mark.parametrize("key_needs_light", [False, True])
def test_lightkey_batch_matches_worlds_stepped_one_at_a_time_and_the_numpy_rule(key_needs_light):
    n = 24
    env, target, rng = _dealt(n, 0, key_needs_light=key_needs_light)
    alone = []
    for i in range(n):
        e = LightKey(1, key_needs_light=key_needs_light)
        e.state = env.state[i:i + 1].copy()
        alone.append(e)
    ref = LightKey(n, key_needs_light=key_needs_light)
    ref.state = env.state.copy()
    for _ in range(120):
        actions = rng.integers(0, lightkey.STOP + 1, n)
        moving = (rng.random(n) < 0.9) & (actions != lightkey.STOP)
        got = env.step(actions, moving, target)
        want = ref.step_numpy(actions, moving, target)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(env.state, ref.state)
        for i, e in enumerate(alone):
            r, reached, ended = e.step(actions[i:i + 1], moving[i:i + 1], target[i:i + 1])
            assert (r[0], reached[0], ended[0]) == (got[0][i], got[1][i], got[2][i])
            np.testing.assert_array_equal(e.state[0], env.state[i])
    assert env.state[:, lightkey.LIGHT].any() and (env.state[:, [lightkey.AR, lightkey.AC]] != 0).any()


@pytest.mark.parametrize("size, words", [(6, "rows_columns"), (6, "cells"), (10, "cells"), (6, "egocentric"),
                                         (10, "egocentric")])
def test_lightkey_sparse_input_is_encode(size, words):
    env, target, rng = _dealt(300, 1, size=size, words=words)
    for _ in range(25):
        env.step(rng.integers(0, lightkey.STOP, env.n), np.ones(env.n, bool), target)
    states = env.state.copy()
    env.reset(rng, ~target)
    goals, z = env.state.copy(), target.astype(float)
    sparse = env.encode_sparse(states, goals, z)
    np.testing.assert_array_equal(sparse.dense(), env.encode(states, goals, z))
    # leading axes (T, n) as the update batch uses them
    np.testing.assert_array_equal(env.encode_sparse(states[None], goals[None], z[None]).dense(),
                                  env.encode(states[None], goals[None], z[None]))


def test_swimmergather_batch_matches_swimmers_stepped_one_at_a_time():
    pytest.importorskip("mujoco")
    from fivestack.asp.envs import swimmergather as sg

    n = 3
    env = sg.SwimmerGather(n)
    rng = np.random.default_rng(3)
    target = np.array([True, False, True])
    env.reset(rng, target)
    alone = []
    for i in range(n):
        e = sg.SwimmerGather(1)
        e.reset(np.random.default_rng(0), target[i:i + 1])
        e.set_state(env.state[i:i + 1].copy(), np.ones(1, bool))
        alone.append(e)
    for _ in range(3):
        actions = rng.integers(0, sg.STOP, n)
        moving = np.array([True, rng.random() < 0.5, True])
        got = env.step(actions, moving, target)
        for i, e in enumerate(alone):
            r, reached, ended = e.step(actions[i:i + 1], moving[i:i + 1], target[i:i + 1])
            assert (r[0], reached[0], ended[0]) == (got[0][i], got[1][i], got[2][i])
            np.testing.assert_array_equal(e.state[0], env.state[i])


def test_swimmergather_threaded_rollout_matches_stepping_each_swimmer():
    pytest.importorskip("mujoco")
    from fivestack.asp.envs import swimmergather as sg

    n = 4
    plain, threaded = sg.SwimmerGather(n), sg.SwimmerGather(n, threads=2)
    rng = np.random.default_rng(4)
    target = np.array([True, False, True, False])
    plain.reset(np.random.default_rng(9), target)
    threaded.reset(np.random.default_rng(9), target)
    for _ in range(6):
        actions = rng.integers(0, sg.STOP, n)
        moving = rng.random(n) < 0.8
        got = threaded.step(actions, moving, target)
        want = plain.step(actions, moving, target)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        # not bit for bit over many actions: rollout does not hand back the constraint solver's warm start, so
        # at a joint limit the next action's solve starts elsewhere (measured: 3e-6 apart after 30 actions)
        np.testing.assert_allclose(threaded.state, plain.state, rtol=0, atol=1e-6)


def _sparse_rows(rng, S=2, R=9, K=5, d=12):
    index = np.stack([np.stack([rng.choice(d, K, replace=False) for _ in range(R)]) for _ in range(S)])
    value = (rng.random((S, R, K)) < 0.7) * rng.normal(size=(S, R, K))
    return SparseRows(index.astype(np.int32), value.astype(np.float32), d)


def test_the_sparse_first_layer_and_its_gradient_are_the_dense_matmuls():
    rng = np.random.default_rng(2)
    x = _sparse_rows(rng)
    w = rng.normal(size=(2, 12, 7)).astype(np.float32)
    b = rng.normal(size=(2, 1, 7)).astype(np.float32)
    dz = rng.normal(size=(2, 9, 7)).astype(np.float32)
    dense = x.dense()
    np.testing.assert_allclose(first_layer(x, w, b), dense @ w + b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(first_layer_weight_grad(x, dz), np.swapaxes(dense, 1, 2) @ dz, rtol=1e-5, atol=1e-5)


def test_an_mlp_on_sparse_rows_has_the_loss_and_gradient_of_the_dense_input():
    rng = np.random.default_rng(4)
    pol = MLPPolicy(2, 12, 4, (8, 6), 0.01, rng, init_std=0.5, entropy=0.05)
    x = _sparse_rows(rng)
    kw = dict(actions=rng.integers(0, 4, (2, 9)), returns=rng.normal(size=(2, 9)).astype(np.float32),
              weight=(rng.random((2, 9)) < 0.8).astype(np.float32), old_logp=np.zeros((2, 9), np.float32),
              episodes=np.array([3.0, 2.0], np.float32), stop_allowed=rng.random((2, 9)) < 0.5)
    loss_s, grads_s = pol.loss_and_grads(UpdateBatch(inputs=x, **kw))
    loss_d, grads_d = pol.loss_and_grads(UpdateBatch(inputs=x.dense(), **kw))
    np.testing.assert_allclose(loss_s, loss_d, rtol=1e-5)
    for gs, gd in zip(grads_s, grads_d):
        np.testing.assert_allclose(gs, gd, rtol=1e-4, atol=1e-6)


def _episodes(method="self_play", seeds=2, batch=16, seed=0):
    cfg = dataclasses.replace(lightkey.config(), batch=batch)
    env = lightkey.make(seeds * batch)
    rng = np.random.default_rng(seed)
    bob = make_policy(env, cfg, seeds, rng, cfg.entropy)
    alice = make_policy(env, cfg, seeds, rng, cfg.entropy, cfg.alice_stop_bias)
    target = np.zeros((seeds, batch), bool)
    target[:, : batch // 4] = True
    ep = play(env, alice, bob, target.reshape(-1), cfg, rng, seeds)
    return env, cfg, alice, bob, ep, seeds


@pytest.mark.parametrize("player", [BOB, ALICE])
def test_the_update_from_acted_rows_is_the_full_batch_update_and_the_sum_over_episodes(player):
    env, cfg, alice, bob, ep, seeds = _episodes()
    n = env.n
    pol = bob if player == BOB else alice
    rows = np.ones(n, bool) if player == BOB else ~ep.kind_target
    goals, z, stops = (ep.goals, ep.z, env.bob_stops) if player == BOB else (ep.s0, np.zeros(n), True)
    packed = selfplay._acted_batch(ep, pol, player, rows, seeds, stops)
    assert packed is not None and packed.cache is not None
    assert packed.weight.sum() == ((ep.player == player) & rows).sum()
    full = selfplay._update_batch(env, cfg, ep, player, rows, seeds, goals, z, stops)
    loss_p, grads_p = pol.loss_and_grads(packed)
    loss_f, grads_f = pol.loss_and_grads(full)
    np.testing.assert_allclose(loss_p, loss_f, rtol=1e-4)
    for gp, gf in zip(grads_p, grads_f):
        np.testing.assert_allclose(gp, gf, rtol=1e-3, atol=1e-6)
    # brute force: one episode at a time (its T rows only, the batch's normaliser), summed
    B = n // seeds
    total = [np.zeros_like(g) for g in grads_f]
    for e in np.flatnonzero(rows):
        s, j = divmod(e, B)
        mine = np.zeros((seeds, 1), np.float32)
        mine[s] = 1
        one = UpdateBatch(full.inputs[:, j::B], full.actions[:, j::B], full.returns[:, j::B],
                          full.weight[:, j::B] * mine, full.old_logp[:, j::B], full.episodes,
                          full.stop_allowed[:, j::B])
        assert one.inputs.shape[1] == ep.player.shape[0]
        for acc, g in zip(total, pol.loss_and_grads(one)[1]):
            acc += g
    for acc, gf in zip(total, grads_f):
        np.testing.assert_allclose(acc, gf, rtol=1e-3, atol=1e-6)


class _Plain:
    """A policy that is not an MLPPolicy: ``play`` then acts on every row with ``act`` (the unpacked path)."""

    def __init__(self, pol):
        self.pol = pol

    def act(self, *args, **kwargs):
        return self.pol.act(*args, **kwargs)


@pytest.mark.parametrize("sparse", [True, False])
def test_play_on_packed_rows_gives_the_episodes_of_acting_on_every_row(sparse, monkeypatch):
    env, cfg, alice, bob, _, seeds = _episodes(batch=32)
    if not sparse:           # the dense input path (the other worlds'): no encode_sparse
        monkeypatch.setattr(LightKey, "encode_sparse", property(lambda self: (_ for _ in ()).throw(AttributeError)))
        assert not hasattr(env, "encode_sparse")
    target = np.zeros((seeds, 32), bool)
    target[:, :8] = True
    target = target.reshape(-1)
    a = play(env, alice, bob, target, cfg, np.random.default_rng(5), seeds)
    b = play(env, _Plain(alice), _Plain(bob), target, cfg, np.random.default_rng(5), seeds)
    assert a.acted and not b.acted
    # the same random stream: the same actions, unless a float difference of the sparse sum moved a sample
    # across a bin edge (then the episodes part; this seed has none)
    np.testing.assert_array_equal(a.actions, b.actions)
    np.testing.assert_array_equal(a.states, b.states)
    for k in ("t_a", "t_b", "bob_success", "target_success"):
        np.testing.assert_array_equal(getattr(a, k), getattr(b, k))
    np.testing.assert_allclose(a.logp, b.logp, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(a.rewards, b.rewards)


def test_greedy_evaluation_on_packed_rows_matches_acting_on_every_row():
    env, cfg, alice, bob, _, seeds = _episodes(batch=32)
    target = np.ones(env.n, bool)
    a = play(env, None, bob, target, cfg, np.random.default_rng(6), seeds, greedy=True)
    b = play(env, None, _Plain(bob), target, cfg, np.random.default_rng(6), seeds, greedy=True)
    np.testing.assert_array_equal(a.actions, b.actions)
    np.testing.assert_array_equal(a.target_success, b.target_success)
