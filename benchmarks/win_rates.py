"""Win rates of one trained version against the bots, sampled and greedy side by side.

    python benchmarks/win_rates.py runs/NAME:0 --games 200                      # the clone (version 0)
    python benchmarks/win_rates.py runs/NAME:latest --games 200 --opponents random,scripted --policy greedy

Half the games on each side, in one batched env per opponent, at most ``--max-minutes`` game minutes (default: the
run's ``eval.max_seconds``); an undecided game is a draw and counts 0. The version decides every
``rollout.decision_steps`` timesteps, as it was trained. Prints one JSON line: per policy (sampled, greedy) and
opponent, the win rate with its 95% Wilson interval, the draw rate and how the games went (``team_stats``).
"""

from __future__ import annotations

import argparse
import json
import os

from fivestack.match.agents import load_run_policy, trained_game_of
from fivestack.system.evaluator import evaluate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("version", help="RUN:VERSION, RUN:latest or RUN")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--opponents", default="random,scripted")
    parser.add_argument("--policy", default="sampled,greedy", help="sampled, greedy or both (comma-separated)")
    parser.add_argument("--max-minutes", type=float, default=None)
    parser.add_argument("--seed", type=int, default=10_000)
    args = parser.parse_args()
    policy, config, version = load_run_policy(args.version)
    max_seconds = args.max_minutes * 60.0 if args.max_minutes is not None else config.eval.max_seconds
    out = {"benchmark": "win_rates", "run": args.version, "version": version, "mode": config.game.mode,
           "games": args.games, "max_minutes": max_seconds / 60.0, "cpu_cores": os.cpu_count()}
    for how in args.policy.split(","):
        for opponent in args.opponents.split(","):
            r = evaluate(policy, opponent, args.games, config.game.mode, max_seconds, seed=args.seed,
                         greedy=how == "greedy", decision_steps=config.rollout.decision_steps,
                         lineups=config.game.lineups, **trained_game_of(config.game))
            out[f"{how}_vs_{opponent}"] = {"win_rate": round(r.win_rate, 4),
                                           "ci95": [round(r.ci95[0], 4), round(r.ci95[1], 4)],
                                           "draw_rate": round(r.draw_rate, 4), "team_stats": r.team_stats,
                                           "seconds": round(r.seconds, 1)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
