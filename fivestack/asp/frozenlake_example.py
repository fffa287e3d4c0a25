"""Your own environment, end to end: Gymnasium's FrozenLake 8 x 8 (not slippery) through ``GymnasiumASPEnv``,
and the measurement behind ``docs/asp.md``'s FrozenLake figure (self-play against target-only).

    python -m fivestack.asp.frozenlake_example --seeds 2 --episodes 1000

The state is the agent's cell, one-hot (64 numbers): ``get_state`` reads it, ``set_state`` writes it back.
Bob's self-play test: the same cell. The target task: the goal cell G (bottom right); a hole ends an episode
as a failure, because only ``reached`` counts.
"""

from __future__ import annotations

import argparse

import numpy as np

from fivestack.asp.envs.base import GymnasiumASPEnv
from fivestack.asp.selfplay import SelfPlayConfig, train

SIDE = 8
CELLS = SIDE * SIDE


def one_hot(cell: int) -> np.ndarray:
    v = np.zeros(CELLS)
    v[cell] = 1.0
    return v


def make_env(n: int) -> GymnasiumASPEnv:
    import gymnasium

    def make():
        # the env's own time limit must not cut a self-play episode (Alice + Bob) short
        return gymnasium.make("FrozenLake-v1", map_name="8x8", is_slippery=False, max_episode_steps=1000)

    def get_state(env):
        return one_hot(int(env.unwrapped.s))

    def set_state(env, state):
        env.unwrapped.s = int(np.argmax(state))

    return GymnasiumASPEnv(
        make=make, get_state=get_state, set_state=set_state,
        distance=lambda a, b: float(np.abs(a - b).sum()), threshold=0.5,     # same cell
        reached=lambda state, goal: int(np.argmax(state)) == int(np.argmax(goal)),
        target_goal=one_hot(CELLS - 1),                                      # G, bottom right
        t_max_target=60, n=n)


def config() -> SelfPlayConfig:
    """Repeat mode, 10% target episodes, 32 episodes per batch; t / t_max as an input (the paper's)."""
    return SelfPlayConfig(mode="repeat", gamma=0.01, t_max=60, target_share=0.1, batch=32, lr=0.003,
                     entropy=0.003, entropy_target=0.003, hidden=(50, 50), eval_every=100, eval_episodes=32,
                     time_input=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--episodes", type=int, default=1000, help="target-task episodes per seed")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    cfg = config()
    for method in ("self_play", "target_only"):
        env = make_env(args.seeds * cfg.batch)
        curves, _ = train(env, method, cfg, args.seeds, args.episodes, np.random.default_rng(args.seed))
        success = np.array(curves.success)                                   # (evaluations, seeds)
        print(f"{method}: final target success per seed {success[-1].round(3).tolist()}, "
              f"mean {success[-1].mean():.3f}; mean over training {success.mean():.3f}")


if __name__ == "__main__":
    main()
