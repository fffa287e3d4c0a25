"""Asymmetric self-play (Sukhbaatar et al. 2018): Alice proposes tasks by doing them, Bob learns to undo or
repeat them faster, and Bob then learns a sparse target task in fewer episodes.

- ``rewards``: R_A, R_B and Bob's time on failure, each written once.
- ``policy``: tabular and numpy-MLP policies (REINFORCE with a learned baseline, or PPO), seeds in lockstep.
- ``selfplay``: ``SelfPlayConfig``, the episode runner ``play`` (reverse / repeat / target rows) and ``train``.
- ``envs``: the interface (``envs.base``), a Gymnasium wrapper, and the hallway, light-key, MountainCar and
  economy worlds, each with its paper configuration.
- ``frozenlake_example``: your own env end to end (Gymnasium's FrozenLake through ``GymnasiumASPEnv``).
- ``experiments`` and ``cli``: ``fivestack asp reproduce`` / ``train`` (JSON + PNG).
"""
