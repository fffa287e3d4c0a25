"""Does it learn? Train from scratch for a wall-clock budget, then play the random and the scripted teams.

    python benchmarks/learn_vs_bots.py --mode 1v1 --minutes 30 --seed 0
    python benchmarks/learn_vs_bots.py --mode 5v5 --minutes 60 --seed 0

Training uses ``configs/MODE.toml`` (the defaults of ``fivestack.system.config`` otherwise) plus ``--set``
overrides. Every
``--curve-minutes`` of training the policy plays ``--curve-games`` games against each team (evaluation time is
not counted in the training budget); at the end it plays ``--games`` games (default 200) against each.
Prints one JSON line: agent_steps, the final win rates with 95% Wilson intervals, and the curve.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from fivestack.system.config import load_config
from fivestack.system.evaluator import evaluate
from fivestack.system.serial import SerialRunner


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", default="1v1", choices=["1v1", "5v5"])
    parser.add_argument("--minutes", type=float, default=30.0, help="training wall-clock budget")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=200, help="final evaluation games per opponent")
    parser.add_argument("--curve-minutes", type=float, default=5.0)
    parser.add_argument("--curve-games", type=int, default=40)
    parser.add_argument("--opponents", default="random,scripted")
    parser.add_argument("--runs-dir", default="runs")
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    args = parser.parse_args()

    name = f"learn-{args.mode}-seed{args.seed}-{int(time.time())}"
    preset = Path(__file__).resolve().parent.parent / "configs" / f"{args.mode}.toml"
    config = load_config(preset if preset.is_file() else None, [f"game.mode='{args.mode}'", f"run.seed={args.seed}", f"run.name='{name}'",
                                f"run.runs_dir='{args.runs_dir}'", "eval.every_versions=0", *args.overrides])
    opponents = [o for o in args.opponents.split(",") if o]
    runner = SerialRunner(config)
    curve = []
    trained = 0.0
    segment_minutes = args.curve_minutes
    while trained < args.minutes - 1e-9:
        chunk = min(segment_minutes, args.minutes - trained)
        deadline = time.monotonic() + chunk * 60.0
        runner.config.run.minutes = 0.0  # the benchmark keeps its own clock
        runner.run(stop=lambda: time.monotonic() >= deadline)
        trained += chunk
        point = {"minutes": round(trained, 2), "agent_steps": runner.agent_steps, "version": runner.optimizer.version}
        final = trained >= args.minutes - 1e-9
        for opponent in opponents:
            result = evaluate(runner.policy, opponent, args.games if final else args.curve_games, args.mode,
                              config.eval.max_seconds, seed=10_000 + int(trained * 100))
            point[f"win_rate_vs_{opponent}"] = round(result.win_rate, 4)
            point[f"ci95_vs_{opponent}"] = [round(result.ci95[0], 4), round(result.ci95[1], 4)]
            point[f"games_vs_{opponent}"] = result.games
            point[f"minutes_per_game_vs_{opponent}"] = round(result.mean_minutes, 2)
        curve.append(point)
        print(json.dumps({"progress": point}), flush=True)
    runner.close()
    last = curve[-1]
    out = {"benchmark": "learn_vs_bots", "mode": args.mode, "seed": args.seed, "train_minutes": args.minutes,
           "agent_steps": runner.agent_steps, "version": runner.optimizer.version, "run": str(runner.run_dir),
           "cpu_cores": os.cpu_count()}
    for opponent in opponents:
        out[f"win_rate_vs_{opponent}"] = last[f"win_rate_vs_{opponent}"]
        out[f"ci95_vs_{opponent}"] = last[f"ci95_vs_{opponent}"]
        out[f"games_vs_{opponent}"] = last[f"games_vs_{opponent}"]
    out["curve"] = curve
    print(json.dumps(out))


if __name__ == "__main__":
    main()
