"""Alice behavioural cloning: on the tasks Bob failed, Bob learns Alice's actions from Alice's states."""

import copy

import numpy as np

from fivestack.asp.envs.mountaincar import MountainCar
from fivestack.asp.policy import MLPPolicy
from fivestack.asp.selfplay import ALICE, SelfPlayConfig, _learn, play

PUSH_LEFT, STOP = 0, 5


class PushLeft:
    """Alice: full force left for ``k`` actions, then STOP."""

    def __init__(self, k):
        self.k, self.calls = k, 0

    def act(self, x, rng, stop_allowed, greedy=False):
        self.calls += 1
        return np.full(len(x), PUSH_LEFT if self.calls <= self.k else STOP), np.zeros(len(x))


def _prob_of_alices_action(env, bob, ep, rows):
    steps = (ep.player == ALICE) & rows[None, :] & (ep.actions == PUSH_LEFT)
    t, i = np.nonzero(steps)
    x = env.encode(ep.states[t, i], ep.goals[i], np.zeros(len(i)))
    logits, _, _ = bob.forward(x[None].astype(np.float32))
    return bob._probs(logits, np.zeros((1, len(i)), bool))[0, :, PUSH_LEFT].mean()


def test_bob_imitates_alice_on_failed_tasks_only_with_cloning():
    rng = np.random.default_rng(0)
    env = MountainCar(16, t_max_target=40)
    cfg = SelfPlayConfig(mode="repeat", gamma=0.01, t_max=40, bc_weight=0.5)
    bob = MLPPolicy(1, env.input_dim, env.num_actions, (16,), 0.01, rng, init_std=0.3)
    ep = play(env, PushLeft(30), bob, np.zeros(16, bool), cfg, rng, seeds=1)
    failed = ~ep.bob_success
    assert failed.sum() >= 4
    plain, cloned = copy.deepcopy(bob), copy.deepcopy(bob)
    for _ in range(20):
        _learn(env, ep, "self_play", None, plain, cfg, 1)
        _learn(env, ep, "self_play_bc", None, cloned, cfg, 1)
    before = _prob_of_alices_action(env, bob, ep, failed)
    assert _prob_of_alices_action(env, cloned, ep, failed) > max(0.5, before + 0.2,
                                                                  _prob_of_alices_action(env, plain, ep, failed))
