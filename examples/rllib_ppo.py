"""RLlib on fivestack: PPO (RLlib's new API stack) on the PettingZoo env, 1v1 mid by self-play (one policy plays both
heroes), then the saved algorithm is loaded back and its policy plays games against a bot.

    pip install -e ".[baselines]"
    python examples/rllib_ppo.py --iterations 20 --out runs/rllib-example

``FivestackParallelEnv`` is the standard interface: every agent acts every timestep and is paid the paper's weighted
reward events (no time decay or zero-sum: those are the trainer's, ``fivestack.match.single_agent`` has them). Its
Dict observation is cut here to the flat 1v1 vector (``single_agent.Encoding``); RLlib's PPO does not mask a
MultiDiscrete action, so an invalid action is a no-op the env counts (``infos[agent]["invalid_actions"]``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
from pettingzoo import ParallelEnv

from fivestack.env.parallel import FivestackParallelEnv
from fivestack.game.engine import GameConfig
from fivestack.match.agents import build_agent
from fivestack.match.games import play_games
from fivestack.match.single_agent import Encoding, LearnerTeamAgent


class FlatOneVsOne(ParallelEnv):
    """``FivestackParallelEnv`` in 1v1 with each hero's observation the flat 1v1 cut of its team's view."""

    metadata = {"name": "fivestack_flat_1v1", "render_modes": []}

    def __init__(self, config: dict | None = None):
        config = config or {}
        self.game = FivestackParallelEnv(GameConfig(mode="1v1", max_seconds=config.get("max_seconds", 600.0)))
        self.encoding = Encoding("1v1", self.game.env.config.patch)
        self.possible_agents = self.game.possible_agents
        self.agents: list[str] = []

    def observation_space(self, agent):
        return self.encoding.observation_space

    def action_space(self, agent):
        return self.game.action_space(agent)

    def _flat(self, agents) -> dict:
        return {a: self.encoding.observe(self.game.env.obs, [0], [self.game.hero_of[a] // 5])[0] for a in agents}

    def reset(self, seed=None, options=None):
        _, infos = self.game.reset(seed, options)
        self.agents = list(self.game.agents)
        return self._flat(self.agents), infos

    def step(self, actions):
        live = list(self.game.agents)
        _, rewards, terms, truncs, infos = self.game.step(actions)
        self.agents = list(self.game.agents)
        return self._flat(live), rewards, terms, truncs, infos


def build(iterations_batch: int = 2000, seed: int = 0):
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv
    from ray.tune.registry import register_env

    register_env("fivestack_1v1", lambda config: ParallelPettingZooEnv(FlatOneVsOne(config)))
    config = (PPOConfig().environment("fivestack_1v1", env_config={"max_seconds": 600.0})
              .multi_agent(policies={"hero"}, policy_mapping_fn=lambda agent_id, episode, **kw: "hero")
              .env_runners(num_env_runners=0, rollout_fragment_length=iterations_batch // 2)
              .training(train_batch_size_per_learner=iterations_batch, minibatch_size=iterations_batch // 4,
                        num_epochs=2, gamma=0.998, lr=3e-4)
              .debugging(seed=seed))
    return config.build_algo()


def train(iterations: int, out: Path, batch: int = 2000) -> list[float]:
    """Train ``iterations`` PPO iterations of ``batch`` agent-steps, save the algorithm to ``out``; the losses."""
    algo = build(batch)
    losses = []
    for _ in range(iterations):
        result = algo.train()
        losses.append(float(result["learners"]["hero"]["total_loss"]))
    algo.save_to_path(str(out.resolve()))
    algo.stop()
    return losses


def play(out: Path, opponent: str = "random", games: int = 2, max_seconds: float = 600.0):
    """Load the saved policy and play ``games`` 1v1 games against ``opponent`` (sampled actions, every timestep)."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    module = RLModule.from_checkpoint(out.resolve() / "learner_group" / "learner" / "rl_module" / "hero")
    encoding = Encoding("1v1", GameConfig(mode="1v1").patch)

    def predict(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = module.forward_inference({"obs": torch.as_tensor(obs)})["action_dist_inputs"]
        dist = module.get_inference_action_dist_cls().from_logits(logits)
        return dist.sample().numpy()

    return play_games(lambda side: LearnerTeamAgent(side, predict, encoding, 1),
                      lambda side: build_agent(opponent, side, 1, "1v1"), games, "1v1", max_seconds)


if __name__ == "__main__":
    import json

    import ray

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--batch", type=int, default=2000, help="agent-steps per PPO iteration")
    parser.add_argument("--games", type=int, default=20, help="games against random after training")
    parser.add_argument("--max-seconds", type=float, default=600.0, help="their game-time limit")
    parser.add_argument("--out", default="runs/rllib-example")
    args = parser.parse_args()
    torch.set_num_threads(1)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    losses = train(args.iterations, Path(args.out), args.batch)
    result = play(Path(args.out), "random", args.games, args.max_seconds)
    ray.shutdown()
    print(json.dumps({"losses": losses, "games": len(result.winner), "wins": int(result.wins.sum()),
                      "draws": int(result.draws.sum()), "minutes": result.minutes.round(2).tolist()}))
