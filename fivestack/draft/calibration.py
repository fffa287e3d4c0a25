"""How well the win-probability head's predictions match what happened (drafting relies on them).

``calibration(predicted, won, bins=10)`` takes predictions ``p`` in [0, 1] and outcomes ``y`` (1: the predicting
team won; 0: it lost, or the game was truncated at its time limit: a truncated game is not a win) and returns:

* per bin (``bins`` equal-width bins of ``p`` over [0, 1]; bin i holds i/bins <= p < (i+1)/bins, the last bin
  also p = 1): the count, the mean prediction, the observed win frequency and its 95% Wilson interval;
* the Brier score ``mean((p - y)^2)``;
* the expected calibration error ``sum over bins of (count / total) * |mean prediction - frequency|``.

``reliability_plot(rows, path)`` draws one reliability diagram per time (matplotlib, Agg backend; four to a row): mean
prediction against frequency with the Wilson intervals, the diagonal, and the counts.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fivestack.match.games import wilson_interval


def calibration(predicted, won, bins: int = 10) -> dict:
    """The calibration report of the module docstring (empty bins have count 0 and no means)."""
    p = np.asarray(predicted, dtype=np.float64).reshape(-1)
    y = np.asarray(won, dtype=np.float64).reshape(-1)
    if p.shape != y.shape:
        raise ValueError(f"{p.size} predictions but {y.size} outcomes")
    if p.size and (np.any(~np.isfinite(p)) or p.min() < 0.0 or p.max() > 1.0):
        raise ValueError("predictions must be probabilities in [0, 1]")
    if np.any((y != 0) & (y != 1)):
        raise ValueError("outcomes must be 0 or 1")
    which = np.minimum((p * bins).astype(np.int64), bins - 1)
    rows, ece = [], 0.0
    for b in range(bins):
        inside = which == b
        n = int(inside.sum())
        row = {"bin": [b / bins, (b + 1) / bins], "count": n}
        if n:
            mean_p, wins = float(p[inside].mean()), float(y[inside].sum())
            low, high = wilson_interval(wins, n)
            row.update(mean_predicted=mean_p, observed=wins / n, ci95=[low, high])
            ece += n / p.size * abs(mean_p - wins / n)
        rows.append(row)
    return {"count": int(p.size), "brier": float(np.mean((p - y) ** 2)) if p.size else None,
            "ece": float(ece) if p.size else None, "mean_predicted": float(p.mean()) if p.size else None,
            "observed": float(y.mean()) if p.size else None, "bins": rows}


def reliability_plot(reports: dict[str, dict], path: Path, title: str = "") -> Path:
    """One reliability diagram per entry of ``reports`` (label -> ``calibration(...)``) side by side, to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = min(4, max(1, len(reports)))
    rows_of_plots = -(-max(1, len(reports)) // cols)
    fig, axes = plt.subplots(rows_of_plots, cols, figsize=(3.2 * cols, 3.4 * rows_of_plots), squeeze=False)
    for ax in axes.flat[len(reports):]:
        ax.set_visible(False)
    for ax, (label, report) in zip(axes.flat, reports.items()):
        ax.plot([0, 1], [0, 1], color="0.7", lw=1)
        rows = [r for r in report["bins"] if r["count"]]
        x = [r["mean_predicted"] for r in rows]
        y = [r["observed"] for r in rows]
        # (rounding can put an interval's end a hair inside its observed frequency: no negative bar)
        err = [[max(0.0, r["observed"] - r["ci95"][0]) for r in rows],
               [max(0.0, r["ci95"][1] - r["observed"]) for r in rows]]
        ax.errorbar(x, y, yerr=err, fmt="o", ms=4, capsize=2)
        for r in rows:
            ax.annotate(str(r["count"]), (r["mean_predicted"], r["observed"]), fontsize=6, xytext=(3, 3),
                        textcoords="offset points")
        brier = "-" if report["brier"] is None else f"{report['brier']:.3f}"
        ece = "-" if report["ece"] is None else f"{report['ece']:.3f}"
        ax.set_title(f"{label}\nn={report['count']} Brier {brier} ECE {ece}", fontsize=8)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel("predicted", fontsize=8)
        ax.tick_params(labelsize=7)
    for row in axes:
        row[0].set_ylabel("observed win frequency", fontsize=8)
    if title:
        fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
