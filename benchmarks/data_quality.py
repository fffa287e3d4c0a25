"""Data quality in miniature: the direction of the paper's Figure 5b (staleness) and 5c (sample reuse).

    python benchmarks/data_quality.py [--versions 16] [--seeds 0,1,2] [--games 8] [--batch 32]

1v1 mid, trained from scratch with the serial components for a fixed number of versions under three
conditions, three seeds each:

- baseline: every segment trained once, as soon as it is played (staleness ~0, sample reuse 1);
- staleness: segments wait in a queue of 8 versions before the optimizer sees them, as in the paper's
  experiment (rollouts put their data in a queue and the optimizer takes the oldest), so each sample is
  trained 8 versions after the parameters that played it;
- reuse: every segment is trained 4 times (4 passes), so at the same number of versions the optimizer has
  seen a quarter of the data (sample reuse 4, the paper's "fewer rollouts for the same optimizers").

A version is one pass of gradient steps over one segment's samples (``--games`` games x 2 teams x 16 samples
per segment, ``--batch`` samples per step). After the last version the policy plays ``--eval-games`` games
(half on each side, ``--eval-minutes`` game minutes each) against the random hero; the measure is the
policy's zero-sum shaped reward per game (the training reward: its reward-event gains minus the opponent's)
and its score (wins + half the unfinished games). Prints one JSON line: per condition, the mean and standard
deviation over seeds and the per-seed values, the measured staleness and reuse, and the untrained policy's
score for reference. The whole thing takes about 15-20 minutes on 2 shared cores.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import deque
from pathlib import Path

import numpy as np
import torch
from rich.progress import Progress

from fivestack.bots.agents import make_bot
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.model.policy import Policy
from fivestack.rl.rewards import shaped_reward
from fivestack.system.buffer import SampleBuffer
from fivestack.runs.config import FROM_SCRATCH, load_config
from fivestack.match.agents import PolicyTeamAgent
from fivestack.match.inference import Inference
from fivestack.system.optimizer import Optimizer, team_spirit_at
from fivestack.system.rollout import RolloutWorker
from fivestack.match.teams import active_heroes

CONDITIONS = {"baseline": {"delay": 0, "reuse": 1}, "staleness_8": {"delay": 8, "reuse": 1},
              "reuse_4": {"delay": 0, "reuse": 4}}


@torch.no_grad()
def play_random(policy: Policy, games: int, minutes: float, seed: int) -> dict[str, float]:
    """The policy against the random hero: mean zero-sum shaped reward per game, and the score."""
    rewards, score = [], 0.0
    heroes = active_heroes("1v1")
    for side, n in ((0, games - games // 2), (1, games // 2)):
        env = BatchedEnv(n, GameConfig(mode="1v1", max_seconds=minutes * 60.0))
        env.reset(10_000 * seed + 1_000 * side + 7)
        me, them = PolicyTeamAgent(side, policy, "1v1", seed), make_bot("random", 1 - side, seed + 1)
        total = np.zeros(n)
        finished = np.zeros(n, bool)
        while not finished.all():
            acts = [me.act(env), them.act(env)]
            _, events, terminated, truncated, info = env.step(np.concatenate(acts if side == 0 else acts[::-1], 1))
            reward = shaped_reward(events[:, heroes], info["seconds"], 0.0)[:, side].sum(-1)
            total += np.where(finished, 0.0, reward)
            for g in np.flatnonzero((terminated | truncated) & ~finished):
                winner = int(info["winner"][g])
                score += 0.5 if winner < 0 else float(winner == side)
            finished |= terminated | truncated
        rewards += total.tolist()
    return {"reward_per_game": float(np.mean(rewards)), "score": score / games}


def train(condition: str, seed: int, args) -> dict:
    spec = CONDITIONS[condition]
    preset = Path(__file__).resolve().parent.parent / "configs" / "1v1.toml"
    samples = args.games * 2 * 16
    config = load_config(preset, [f"run.seed={seed}", f"rollout.games={args.games}", f"ppo.batch_samples={args.batch}",
                                  f"ppo.sample_reuse={spec['reuse']}", f"ppo.steps_per_version={samples // args.batch}",
                                  f"ppo.max_staleness={10**6}", *FROM_SCRATCH, *args.overrides])
    torch.manual_seed(seed)
    policy = Policy(config.policy)
    optimizer = Optimizer(policy, config.ppo)
    inference = Inference(policy, seed)
    worker = RolloutWorker(config, seed=1_000 + seed)
    buffer = SampleBuffer(config.ppo.max_staleness)
    rng = np.random.default_rng(seed)
    waiting: deque = deque()  # the artificial queue (the paper's staleness experiment)
    lags, produced, consumed, agent_steps = [], 0, 0, 0
    start = time.monotonic()
    while optimizer.version < args.versions:
        inference.version, inference.value_scale = optimizer.version, optimizer.value_scale
        batch = worker.collect(inference, team_spirit_at(config.ppo, optimizer.version))
        agent_steps += batch.info["hero_steps"]
        produced += len(batch)
        waiting.append(batch)
        if len(waiting) <= spec["delay"]:
            continue
        batch = waiting.popleft()
        optimizer.observe(batch)
        buffer.add(batch)
        for minibatch in buffer.minibatches(config.ppo.batch_samples, lambda: optimizer.version,
                                            int(config.ppo.sample_reuse), rng):
            lags.append(float((optimizer.version - minibatch.version).mean()))
            consumed += len(minibatch)
            optimizer.train(minibatch)
    seconds = time.monotonic() - start
    result = play_random(policy, args.eval_games, args.eval_minutes, seed)
    return {**result, "staleness_mean": float(np.mean(lags)), "sample_reuse": consumed / produced,
            "agent_steps": agent_steps, "versions": optimizer.version, "train_seconds": round(seconds, 1)}


def summary(values: list[float]) -> dict:
    return {"mean": round(float(np.mean(values)), 4), "std": round(float(np.std(values, ddof=1)), 4)
            if len(values) > 1 else 0.0, "per_seed": [round(v, 4) for v in values]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--versions", type=int, default=16)
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--games", type=int, default=8, help="games per segment (one segment per version)")
    parser.add_argument("--batch", type=int, default=32, help="samples per gradient step")
    parser.add_argument("--eval-games", type=int, default=16)
    parser.add_argument("--eval-minutes", type=float, default=2.0)
    parser.add_argument("--conditions", default=",".join(CONDITIONS))
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    args = parser.parse_args()
    torch.set_num_threads(1)
    seeds = [int(s) for s in args.seeds.split(",") if s]
    conditions = [c for c in args.conditions.split(",") if c]
    runs: dict[str, list[dict]] = {c: [] for c in conditions}
    untrained = []
    start = time.monotonic()
    with Progress(transient=True) as bar:
        task = bar.add_task("data quality", total=len(seeds) * (len(conditions) + 1))
        for seed in seeds:
            torch.manual_seed(seed)
            untrained.append(play_random(Policy(load_config(None, ["game.mode='1v1'"]).policy), args.eval_games,
                                         args.eval_minutes, seed))
            bar.advance(task)
            for condition in conditions:
                runs[condition].append(train(condition, seed, args))
                bar.update(task, advance=1, description=f"seed {seed} {condition}")
    table = {"untrained": {k: summary([r[k] for r in untrained]) for k in ("reward_per_game", "score")}}
    for condition, results in runs.items():
        table[condition] = {k: summary([r[k] for r in results])
                            for k in ("reward_per_game", "score", "staleness_mean", "sample_reuse", "agent_steps",
                                      "train_seconds")}
    print(json.dumps({"benchmark": "data_quality", "mode": "1v1", "versions": args.versions, "seeds": seeds,
                      "games_per_segment": args.games, "batch_samples": args.batch, "eval_games": args.eval_games,
                      "eval_game_minutes": args.eval_minutes, "opponent": "random", "table": table,
                      "minutes": round((time.monotonic() - start) / 60, 1), "cpu_cores": os.cpu_count()}))


if __name__ == "__main__":
    main()
