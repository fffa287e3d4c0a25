"""Stable-Baselines3 on fivestack: sb3-contrib's MaskablePPO learns 1v1 mid against the scripted hero, then the saved
model is loaded back and plays games as a team agent.

    pip install -e ".[baselines]"
    python examples/sb3_ppo.py --agent-steps 200000 --out runs/sb3-example

The env (``fivestack.match.single_agent``) is the trainer's task: a random side per game, a decision every 2
timesteps (2 agent-steps), the trainer's shaped reward, the flat 1v1 observation, the union target mask
(``masks="joint"`` for an exact one). ``benchmarks/reference_learner.py`` is the full-size version of this file.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecNormalize

from fivestack.match.agents import build_agent
from fivestack.match.games import play_games
from fivestack.match.sb3 import SB3VecEnv, sb3_team_agent
from fivestack.match.single_agent import SingleAgentGames


class Losses(BaseCallback):
    """Each update's total loss (SB3's logger holds the last one when the next rollout starts)."""

    def __init__(self):
        super().__init__()
        self.losses: list[float] = []

    def _on_rollout_start(self) -> None:
        if "train/loss" in self.model.logger.name_to_value:
            self.losses.append(float(self.model.logger.name_to_value["train/loss"]))

    def _on_step(self) -> bool:
        return True


def train(agent_steps: int, out: Path, opponent: str = "scripted", n_games: int = 8, seed: int = 0) -> list[float]:
    """Train for ``agent_steps`` agent-steps, save ``model.zip`` and ``vecnormalize.pkl`` in ``out``; the losses."""
    games = SingleAgentGames(n_games, opponent, mode="1v1", seed=seed)
    venv = VecNormalize(SB3VecEnv(games), gamma=0.998)
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=256, n_epochs=4, gamma=0.998, ent_coef=0.01,
                        seed=seed, device="cpu")
    losses = Losses()
    model.learn(agent_steps // games.agent_steps_per_step, callback=losses)
    losses._on_rollout_start()  # the last update's loss
    out.mkdir(parents=True, exist_ok=True)
    model.save(out / "model.zip")
    venv.save(str(out / "vecnormalize.pkl"))
    return losses.losses


def play(out: Path, opponent: str = "random", games: int = 2, max_seconds: float = 600.0):
    """Load what ``train`` saved and play ``games`` 1v1 games against ``opponent``, half on each side."""
    env = SingleAgentGames(1, opponent, mode="1v1")  # the encoding and decision rate the model was trained with
    normalizer = VecNormalize.load(str(out / "vecnormalize.pkl"), SB3VecEnv(env))
    normalizer.training = False
    model = MaskablePPO.load(out / "model.zip", device="cpu")
    learner = sb3_team_agent(model, env.encoding, env.decision_steps, normalizer=normalizer)
    return play_games(learner, lambda side: build_agent(opponent, side, 1, "1v1"), games, "1v1", max_seconds)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent-steps", type=int, default=200_000)
    parser.add_argument("--out", default="runs/sb3-example")
    parser.add_argument("--opponent", default="scripted")
    args = parser.parse_args()
    torch.set_num_threads(1)
    losses = train(args.agent_steps, Path(args.out), args.opponent)
    print(f"losses per update: {[round(x, 4) for x in losses]}")
    for bot in ("random", "scripted"):
        result = play(Path(args.out), bot, games=20)
        print(f"vs {bot}: {int(result.wins.sum())} wins, {int(result.draws.sum())} draws of {len(result.wins)} games")
