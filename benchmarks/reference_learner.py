"""The reference curve: a standard library learner (sb3-contrib's MaskablePPO, a flat MLP) trained from scratch on the
game against a bot, evaluated as ``learn_vs_bots.py`` evaluates fivestack's trainer.

    python benchmarks/reference_learner.py --seed 0 --agent-steps 5000000 --points 0.5,1,2,3,5 \\
        --out docs/benchmarks/reference_learner_seed0.jsonl

The task (the issue "The trainer learns its own game at least as fast as a vanilla PPO does"): 1v1 mid, every
training game against ``--opponent`` (the scripted hero) on a random side, the project's shaped reward and decision
rate (``configs/1v1.toml``: a decision every 2 timesteps, 600 game seconds; ``match.single_agent``, which plays the
trainer's own decision loop). The learner: 32 games x 256 decisions per rollout, minibatches of 2,048 decisions, 4
epochs, gamma 0.998, GAE lambda 0.95, clip 0.2, entropy 0.01 (on the summed entropy of the five masked heads), value
coefficient 0.5, gradient-norm clip 0.5, Adam 3e-4; the observation the flat 1v1 cut (6,149 floats on patch 0.1)
behind ``VecNormalize`` (observations and rewards, clip 10); a shared Linear(obs, 256) + ReLU, then policy [256]
and value [256] ReLU layers, orthogonal initialisation (1.77M parameters); masks: the primary mask and the union of
the target masks (``--masks``). One torch thread.

Budget and points are in agent-steps as the project counts them: a decision every 2 timesteps of one hero is 2
agent-steps. At each point of ``--points`` (millions of agent-steps; the last is the budget unless
``--agent-steps`` says more) the learner plays ``--curve-games`` games against each of ``--eval-opponents`` (the
last point ``--games``), half on each side, sampled actions (``--greedy``: most likely), ``eval.max_seconds`` of
the config (600 s), with ``system.evaluator.evaluate_agent`` and the seeds of ``learn_vs_bots.py`` (10,000 +
seed), reported with its ``point_fields``: win rate and 95% Wilson interval, draws, game length, team stats. Each
point is one JSON line, on stdout and appended to ``--out``, with the training seconds (evaluation not counted),
agent-steps per second of training, the training games' results since the last point, the invalid-action share
of the learner's actions since the last point, and the last update's losses. The model and its normaliser are
saved at each point under ``--save-dir`` (``model_AGENTSTEPS.zip``, ``vecnormalize_AGENTSTEPS.pkl``).

    python benchmarks/reference_learner.py --table SEED0.jsonl SEED1.jsonl    # the points as a markdown table
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from learn_vs_bots import point_fields  # noqa: E402  (the benchmarks' shared reporting)

from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor  # noqa: E402
from stable_baselines3.common.vec_env import VecNormalize  # noqa: E402

from fivestack.game.patch import PATCH_VERSION  # noqa: E402
from fivestack.match.sb3 import SB3VecEnv, sb3_team_agent  # noqa: E402
from fivestack.match.single_agent import MASK_OPTIONS, SingleAgentGames  # noqa: E402
from fivestack.runs.config import TEN_MINUTE_GAMES, load_config  # noqa: E402
from fivestack.system.evaluator import evaluate_agent  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


class SharedLayer(BaseFeaturesExtractor):
    """Linear(obs, width) + ReLU, shared by the policy and the value (SB3 2.x has no shared layers in net_arch)."""

    def __init__(self, observation_space, width: int = 256):
        super().__init__(observation_space, width)
        self.net = nn.Sequential(nn.Linear(int(np.prod(observation_space.shape)), width), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net(observations)


def make_model(venv, seed: int, n_steps: int = 256, batch_size: int = 2048, width: int = 256) -> MaskablePPO:
    """The reference learner of the module docstring on ``venv``."""
    return MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=batch_size, n_epochs=4, gamma=0.998,
                       gae_lambda=0.95, clip_range=0.2, ent_coef=0.01, vf_coef=0.5, max_grad_norm=0.5,
                       learning_rate=3e-4, seed=seed, verbose=0, device="cpu",
                       policy_kwargs={"features_extractor_class": SharedLayer,
                                      "features_extractor_kwargs": {"width": width},
                                      "net_arch": {"pi": [width], "vf": [width]}, "activation_fn": nn.ReLU,
                                      "ortho_init": True})


class TrainingGames(BaseCallback):
    """Counts the training games that ended (won, lost, undecided) and the learner's invalid actions, and keeps the
    last update's losses (SB3's logger), between two ``take()``s."""

    def __init__(self):
        super().__init__()
        self.reset_counts()
        self.losses: dict[str, float] = {}

    def reset_counts(self) -> None:
        self.games = self.wins = self.draws = self.invalid = self.decisions = 0

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            self.invalid += info["invalid_actions"]
            self.decisions += 1
            episode = info.get("episode")
            if episode is not None:
                self.games += 1
                self.wins += episode["won"] == 1.0
                self.draws += episode["won"] == 0.5
        return True

    def _on_rollout_end(self) -> None:
        values = self.model.logger.name_to_value
        self.losses.update({k.split("/")[1]: round(float(v), 5) for k, v in values.items() if k.startswith("train/")})

    def take(self) -> dict:
        out = {"train_games": self.games, "train_win_rate": round(self.wins / max(self.games, 1), 4),
               "train_draw_rate": round(self.draws / max(self.games, 1), 4),
               "invalid_action_share": round(self.invalid / max(self.decisions, 1), 5), "losses": dict(self.losses)}
        self.reset_counts()
        return out


def evaluate_saved(args: argparse.Namespace) -> None:
    """``--evaluate-saved``: one JSON line of the saved model's evaluation (``point_fields``), marked as such."""
    config = load_config(args.config, [*TEN_MINUTE_GAMES, *args.overrides])
    games = SingleAgentGames(1, args.opponent, config=config, masks=args.masks, seed=args.seed)
    save_dir = Path(args.save_dir or f"runs/reference-seed{args.seed}")
    steps = args.evaluate_saved
    normalizer = VecNormalize.load(str(save_dir / f"vecnormalize_{steps}.pkl"), SB3VecEnv(games))
    normalizer.training = False
    model = MaskablePPO.load(save_dir / f"model_{steps}.zip", device="cpu")
    out = {"benchmark": "reference_learner", "learner": "sb3-contrib MaskablePPO", "seed": args.seed,
           "patch": games.env.config.patch, "default_patch": PATCH_VERSION, "opponent": args.opponent,
           "masks": args.masks, "agent_steps": steps, "evaluation_of_saved": str(save_dir / f"model_{steps}.zip")}
    eval_seconds = 0.0
    for opponent in [o for o in args.eval_opponents.split(",") if o]:
        agent = sb3_team_agent(model, games.encoding, games.decision_steps, normalizer=normalizer,
                               deterministic=args.greedy)
        result = evaluate_agent(agent, opponent, args.games, config.game.mode, config.eval.max_seconds,
                                seed=10_000 + args.seed, greedy=args.greedy, lineups=config.game.lineups)
        out.update(point_fields(result, config.game.lineups))
        eval_seconds += result.seconds
    out.update({"eval_games": args.games, "eval_policy": "greedy" if args.greedy else "sampled",
                "eval_seconds": round(eval_seconds, 1), "load_average": [round(x, 2) for x in os.getloadavg()]})
    line = json.dumps(out)
    print(line, flush=True)
    if args.out:
        with open(args.out, "a") as f:
            f.write(line + "\n")


def pct(rate: float) -> str:
    return f"{100 * rate:.1f}%"


def table(paths: list[str]) -> str:
    """The points of the JSON-lines files ``paths`` (one per seed) as a markdown table, one row per point and seed."""
    rows = ["| agent-steps | seed | games per bot | vs random (draws) | vs scripted [95% CI] (draws) | deaths a game vs "
            "scripted, learner / bot | last hits vs scripted, learner / bot | training games won / undecided | "
            "invalid actions | agent-steps/s (load) |", "|---|---|---|---|---|---|---|---|---|---|"]
    points = [json.loads(line) for path in paths for line in Path(path).read_text().splitlines() if line.strip()]
    for p in sorted(points, key=lambda p: (p["agent_steps"], p["seed"], "evaluation_of_saved" in p)):
        p = {"train_win_rate": float("nan"), "train_draw_rate": float("nan"), "train_games": "-",
             "invalid_action_share": float("nan"), "agent_steps_per_second": float("nan"), **p}
        ci = p["ci95_vs_scripted"]
        stats = p["team_stats_vs_scripted"]
        rows.append(f"| {p['agent_steps'] / 1e6:.2f}M | {p['seed']} | {p['eval_games']} | "
                    f"{pct(p['win_rate_vs_random'])} ({pct(p['draw_rate_vs_random'])}) | "
                    f"{pct(p['win_rate_vs_scripted'])} [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}] "
                    f"({pct(p['draw_rate_vs_scripted'])}) | {stats['deaths'][0]:.2f} / {stats['deaths'][1]:.2f} | "
                    f"{stats['last_hits'][0]:.1f} / {stats['last_hits'][1]:.1f} | "
                    f"{pct(p['train_win_rate'])} / {pct(p['train_draw_rate'])} of {p['train_games']} | "
                    f"{100 * p['invalid_action_share']:.2f}% | {p['agent_steps_per_second']:,.0f} "
                    f"({p['load_average'][0]:.1f}) |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    if argv is None and sys.argv[1:2] == ["--table"]:  # python benchmarks/reference_learner.py --table SEED0.jsonl ...
        print(table(sys.argv[2:]))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agent-steps", type=int, default=None, help="budget (default: the last point)")
    parser.add_argument("--points", default="0.5,1,2,3,5", help="curve points in millions of agent-steps")
    parser.add_argument("--opponent", default="scripted", help="the training games' opponent (an agent name)")
    parser.add_argument("--eval-opponents", default="random,scripted")
    parser.add_argument("--curve-games", type=int, default=40, help="games per opponent at intermediate points")
    parser.add_argument("--games", type=int, default=200, help="games per opponent at the last point")
    parser.add_argument("--greedy", action="store_true", help="evaluate the most likely actions (default: sampled)")
    parser.add_argument("--masks", default="union", choices=MASK_OPTIONS)
    parser.add_argument("--n-games", type=int, default=32, help="games in the rollout (SB3's n_envs)")
    parser.add_argument("--n-steps", type=int, default=256, help="decisions per game per rollout")
    parser.add_argument("--batch-size", type=int, default=2048)
    parser.add_argument("--config", default=str(ROOT / "configs" / "1v1.toml"),
                        help="the training config whose game, decision rate and reward the games follow")
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    parser.add_argument("--out", default=None, help="append each point's JSON line to this file")
    parser.add_argument("--save-dir", default=None, help="default: runs/reference-seedS")
    parser.add_argument("--evaluate-saved", type=int, default=None, metavar="AGENT_STEPS",
                        help="train nothing: evaluate the model saved at AGENT_STEPS in --save-dir with --games games "
                             "per opponent (a point's evaluation again, with more games)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    if args.evaluate_saved is not None:
        evaluate_saved(args)
        return
    points = sorted(int(round(float(p) * 1e6)) for p in args.points.split(",") if p)
    budget = args.agent_steps if args.agent_steps is not None else points[-1]
    points = [p for p in points if p < budget] + [budget]
    config = load_config(args.config, [*TEN_MINUTE_GAMES, *args.overrides])
    games = SingleAgentGames(args.n_games, args.opponent, config=config, masks=args.masks, seed=args.seed)
    venv = VecNormalize(SB3VecEnv(games), norm_obs=True, norm_reward=True, clip_obs=10.0, clip_reward=10.0,
                        gamma=0.998)
    model = make_model(venv, args.seed, args.n_steps, args.batch_size)
    save_dir = Path(args.save_dir or f"runs/reference-seed{args.seed}")
    save_dir.mkdir(parents=True, exist_ok=True)
    counter = TrainingGames()
    per_step = games.agent_steps_per_step
    eval_seconds_limit = config.eval.max_seconds
    opponents = [o for o in args.eval_opponents.split(",") if o]
    params = sum(p.numel() for p in model.policy.parameters())
    train_seconds = 0.0
    for i, point in enumerate(points):
        final = i == len(points) - 1
        start, before = time.perf_counter(), model.num_timesteps
        model.learn(total_timesteps=max(point // per_step - model.num_timesteps, 1), callback=counter,
                    reset_num_timesteps=False)
        seconds = time.perf_counter() - start
        train_seconds += seconds
        agent_steps = model.num_timesteps * per_step
        out = {"benchmark": "reference_learner", "learner": "sb3-contrib MaskablePPO", "seed": args.seed,
               "patch": games.env.config.patch, "default_patch": PATCH_VERSION, "opponent": args.opponent,
               "masks": args.masks, "agent_steps": agent_steps, "point": point, "final": final,
               "train_seconds": round(train_seconds, 1),
               "agent_steps_per_second": round((model.num_timesteps - before) * per_step / seconds, 1),
               "load_average": [round(x, 2) for x in os.getloadavg()], "parameters": params,
               "obs_size": int(games.observation_space.shape[0]), **counter.take()}
        model.save(save_dir / f"model_{agent_steps}.zip")
        venv.save(str(save_dir / f"vecnormalize_{agent_steps}.pkl"))
        venv.training = False  # the evaluation reads the observation statistics, it does not move them
        n = args.games if final else args.curve_games
        eval_seconds = 0.0
        for opponent in opponents:
            agent = sb3_team_agent(model, games.encoding, games.decision_steps, normalizer=venv,
                                   deterministic=args.greedy)
            result = evaluate_agent(agent, opponent, n, config.game.mode, eval_seconds_limit, seed=10_000 + args.seed,
                                    greedy=args.greedy, lineups=config.game.lineups)
            out.update(point_fields(result, config.game.lineups))
            eval_seconds += result.seconds
        venv.training = True
        out.update({"eval_games": n, "eval_policy": "greedy" if args.greedy else "sampled",
                    "eval_seconds": round(eval_seconds, 1)})
        line = json.dumps(out)
        print(line, flush=True)
        if args.out:
            with open(args.out, "a") as f:
                f.write(line + "\n")


if __name__ == "__main__":
    main()
