"""The numpy MLP's hand-written gradients against finite differences, for both update rules."""

import numpy as np
import pytest

from fivestack.asp.policy import MLPPolicy, TabularPolicy, UpdateBatch


def _batch(rng, seeds=2, rows=7, d=5, actions=4):
    return UpdateBatch(inputs=rng.normal(size=(seeds, rows, d)), actions=rng.integers(0, actions, (seeds, rows)),
                       returns=rng.normal(size=(seeds, rows)), weight=(rng.random((seeds, rows)) < 0.8) * 1.0,
                       old_logp=np.log(np.full((seeds, rows), 0.2)), episodes=np.array([3.0, 2.0]),
                       stop_allowed=rng.random((seeds, rows)) < 0.5)


@pytest.mark.parametrize("algo", ["reinforce", "ppo"])
def test_hand_gradients_match_finite_differences(algo):
    rng = np.random.default_rng(0)
    pol = MLPPolicy(2, 5, 4, (6, 3), 0.01, rng, init_std=0.5, entropy=0.05, algo=algo)
    pol.params = [p.astype(np.float64) for p in pol.params]
    b = _batch(rng)
    # the advantage's baseline is held fixed (no gradient flows into it), so fix it for the differences too
    old_value = pol.forward(b.inputs)[1] + (0.3 if algo == "ppo" else 0.0)
    _, grads = pol.loss_and_grads(b, old_value)
    eps = 1e-6
    for p, g in zip(pol.params, grads):
        for idx in [tuple(rng.integers(0, s) for s in p.shape) for _ in range(4)]:
            old = p[idx]
            p[idx] = old + eps
            up = pol.loss_and_grads(b, old_value)[0][idx[0]]
            p[idx] = old - eps
            down = pol.loss_and_grads(b, old_value)[0][idx[0]]
            p[idx] = old
            assert g[idx] == pytest.approx((up - down) / (2 * eps), rel=1e-3, abs=1e-6)


def test_reinforce_makes_a_rewarded_action_likelier():
    rng = np.random.default_rng(1)
    for pol, x in ((MLPPolicy(1, 3, 3, (8,), 0.05, rng), rng.normal(size=(1, 20, 3))),
                   (TabularPolicy(1, 5, 3, 0.5, rng), rng.integers(0, 5, (1, 20)))):
        stop = np.ones((1, 20), bool)
        b = UpdateBatch(x, np.zeros((1, 20), np.int64), np.ones((1, 20)), np.ones((1, 20)), np.zeros((1, 20)),
                        np.array([20.0]), stop)
        before = pol.act(x.reshape(20, -1).squeeze(-1) if x.ndim == 2 else x.reshape(20, 3), rng,
                         stop.reshape(-1))[1]
        for _ in range(20):
            pol.update(b)
        p = pol.probs(x, stop) if isinstance(pol, TabularPolicy) else pol._probs(pol.forward(x)[0], stop)
        assert p[..., 0].mean() > 0.6 > np.exp(before).mean()
