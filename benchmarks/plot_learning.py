"""Plot learning curves from ``learn_vs_bots.py`` runs: win rate against each bot over agent-steps, one line per
run (labelled by its seed and the ``--set`` overrides the other runs lack), with the 95% interval of each
point as a band.

    python benchmarks/plot_learning.py runs/learn-1v1-seed0-* runs/learn-1v1-seed1-* --out docs/learning_1v1.png
    python benchmarks/plot_learning.py docs/learning/a.json docs/learning/b.json --label base --label new --out x.png

A run's ``learn_vs_bots.json`` can be kept (e.g. under ``docs/learning/``) and plotted without its run folder.

Reads each run's ``learn_vs_bots.json`` (written by the benchmark after every curve point, so a run still
in progress plots what it has). Prints one JSON line: the runs and their last points.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=Path, help="run folders, or learn_vs_bots.json files kept from them")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--title", default="")
    parser.add_argument("--label", action="append", default=[],
                        help="a line's label, once per run in order (default: the seed and the run's own --set)")
    args = parser.parse_args()
    if args.label and len(args.label) != len(args.runs):
        raise SystemExit(f"Error: {len(args.label)} --label for {len(args.runs)} runs; give one per run or none")
    saved = []
    for run in args.runs:
        path = run if run.suffix == ".json" else run / "learn_vs_bots.json"
        if not path.is_file():
            raise SystemExit(f"Error: {path} does not exist; give folders of learn_vs_bots.py runs or their "
                             "learn_vs_bots.json")
        saved.append((run, json.loads(path.read_text())))
    opponents = saved[0][1]["args"]["opponents"].split(",")
    shared = set.intersection(*(set(data["args"]["overrides"]) for _, data in saved))
    fig, axes = plt.subplots(1, len(opponents), figsize=(5.5 * len(opponents), 4), sharey=True, squeeze=False)
    summary = []
    for i, (run, data) in enumerate(saved):
        curve = data["curve"]
        label = args.label[i] if args.label else " ".join(
            [f"seed {data['args']['seed']}",  # and the overrides that set this run apart
             *(o for o in data["args"]["overrides"] if o not in shared)])
        steps = [p["agent_steps"] / 1e6 for p in curve]
        for ax, opponent in zip(axes[0], opponents):
            rate = [p[f"win_rate_vs_{opponent}"] for p in curve]
            low = [p[f"ci95_vs_{opponent}"][0] for p in curve]
            high = [p[f"ci95_vs_{opponent}"][1] for p in curve]
            line, = ax.plot(steps, rate, marker="o", label=label)
            ax.fill_between(steps, low, high, color=line.get_color(), alpha=0.15)
        summary.append({"run": str(run), "seed": data["args"]["seed"], "last": curve[-1] if curve else None})
    for ax, opponent in zip(axes[0], opponents):
        ax.set_title(f"against {opponent}")
        ax.set_xlabel("agent-steps (millions)")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("win rate (wins only; 95% interval)")
    axes[0][-1].legend()
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    print(json.dumps({"benchmark": "plot_learning", "out": str(args.out), "runs": summary}))


if __name__ == "__main__":
    main()
