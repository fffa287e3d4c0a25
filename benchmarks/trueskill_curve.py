"""Is the run getting better? Train from scratch with past-opponent sampling, rate versions by TrueSkill as
training goes, and draw the curve.

    python benchmarks/trueskill_curve.py --mode 1v1 --minutes 60 --seed 0

Training uses ``configs/MODE.toml`` plus ``--set`` overrides; the evaluator runs in its own process and rates
every ``--every-versions`` versions with ``--games`` games against the references near the version's rating
(random = 0, scripted-weak, scripted, and the versions it rated before). At the end the last version joins
the pool and is rated with ``--final-games`` games. Prints one JSON line (the curve, the start and end
ratings with sigma, the bots' ratings) and writes the curve as a PNG (``--png``).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from fivestack.runs.config import load_config
from fivestack.system.evaluator import RatingEvaluator
from fivestack.system.serial import SerialRunner


def plot(curve: list[dict], bots: dict, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    x = [p["agent_steps"] / 1e6 for p in curve]
    mu = [p["mu"] for p in curve]
    two_sigma = [2 * p["sigma"] for p in curve]
    ax.errorbar(x, mu, yerr=two_sigma, fmt="o-", color="#1f77b4", ecolor="#9ecae1", capsize=3,
                label="latest version (mu +- 2 sigma)")
    for name, rating in bots.items():
        ax.axhline(rating["mu"], linestyle="--", linewidth=1, color="#777777")
        ax.text(x[-1] if x else 0, rating["mu"], f" {name}", va="bottom", ha="right", fontsize=8, color="#555555")
    ax.set_xlabel("agent-steps trained (millions)")
    ax.set_ylabel("TrueSkill (random = 0)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", default="1v1", choices=["1v1", "5v5"])
    parser.add_argument("--minutes", type=float, default=60.0, help="training wall-clock budget")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--every-versions", type=int, default=400)
    parser.add_argument("--games", type=int, default=40, help="games per rated version")
    parser.add_argument("--final-games", type=int, default=100)
    parser.add_argument("--rating-wait-minutes", type=float, default=15.0,
                        help="after training, wait this long at most for the evaluator to catch up")
    parser.add_argument("--runs-dir", default="runs")
    parser.add_argument("--png", default="docs/trueskill_curve.png")
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    args = parser.parse_args()

    name = f"trueskill-{args.mode}-seed{args.seed}-{int(time.time())}"
    preset = Path(__file__).resolve().parent.parent / "configs" / f"{args.mode}.toml"
    config = load_config(preset if preset.is_file() else None, [
        f"game.mode='{args.mode}'", f"run.seed={args.seed}", f"run.name='{name}'", f"run.runs_dir='{args.runs_dir}'",
        f"run.minutes={args.minutes}", f"eval.every_versions={args.every_versions}", f"eval.games={args.games}",
        *args.overrides])
    runner = SerialRunner(config)
    start = time.monotonic()
    progress = runner.run()
    train_seconds = time.monotonic() - start
    runner.wait_for_ratings(args.rating_wait_minutes * 60.0)
    unrated = [v for v, _ in runner.ratings.pending]
    if runner.evaluator is not None and hasattr(runner.evaluator, "close"):
        runner.evaluator.close()

    # the last version, rated in this process with more games, so that the curve ends on a precise point
    final_version = runner.optimizer.version
    if final_version not in runner.pool.versions:
        runner.pool.add(final_version, runner.policy.state_dict())
    evaluator = RatingEvaluator(config, runner.pool.directory, runner.ratings.evaluator, seed=args.seed + 1)
    final = evaluator.rate_version(final_version, games=args.final_games)
    final["agent_steps"] = runner.agent_steps
    runner.ratings.evaluator = evaluator.state_dict()
    runner.controller.log(final_version, runner.agent_steps, {"eval/trueskill_mu": final["mu"],
                                                             "eval/trueskill_sigma": final["sigma"]})
    runner.checkpoint(runner.elapsed_before)
    runner.close()

    rated = []
    for line in (runner.run_dir / "metrics.jsonl").read_text().splitlines():
        record = json.loads(line)
        if "eval/trueskill_mu" in record:
            rated.append({"version": record["version"], "agent_steps": record["agent_steps"],
                          "mu": round(record["eval/trueskill_mu"], 3),
                          "sigma": round(record["eval/trueskill_sigma"], 3)})
    curve = sorted({p["version"]: p for p in rated}.values(), key=lambda p: p["version"])
    bots = {k: v for k, v in evaluator.state_dict()["bots"].items() if k != "random"}
    plot(curve, bots, Path(args.png), f"fivestack {args.mode}: TrueSkill of the latest version "
                                      f"({args.minutes:g} min on {os.cpu_count()} cores, seed {args.seed})")
    out = {"benchmark": "trueskill_curve", "mode": args.mode, "seed": args.seed, "train_minutes": args.minutes,
           "train_seconds": round(train_seconds, 1), "agent_steps": runner.agent_steps, "version": progress.version,
           "cpu_cores": os.cpu_count(), "run": str(runner.run_dir), "start": curve[0] if curve else None,
           "end": curve[-1] if curve else None, "final_opponents": final["opponents"],
           "bots": {k: {"mu": round(v["mu"], 3), "sigma": round(v["sigma"], 3)} for k, v in bots.items()},
           "pool": runner.pool.summary(), "unrated_versions": unrated, "curve": curve, "png": args.png}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
