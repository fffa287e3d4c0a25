"""Throughput of the policy scorer (``fivestack/draft/policy_scorer.py``) and the 17-hero precompute it implies
(issue 13, Done-when 3); prints ONE JSON line.

The policy: a run's version (``--run RUN[:VERSION]``, its patch's heroes) or, by default, a freshly initialised
policy of the default ``PolicyConfig`` (the width a run trains with) on ``stub_patch(--heroes)`` (the game's
heroes, and renamed copies while the game has fewer). The forward pass's cost does not depend on the weights.

1. ``plain``: ``--sample`` random lineups scored (one game and two team forward passes per lineup) at each
   ``--batches`` size (games per env reset): lineups per CPU-second, and the full table's projected CPU hours
   (C(n,5) * C(n-5,5) lineups / rate).
2. ``parts``: where a lineup's CPU goes, per lineup at batch 64: the env reset and first observation, the
   policy's encoder (of which the trunk layer), and the LSTM step.
3. with ``--full``: the real table (every lineup, batches of 4,096, into a ``.npy`` with its progress file, as
   ``fivestack draft RUN`` does; hours on 17 heroes) and a full draft on it (the search picking both sides,
   Radiant first, one Drafter whose cache carries over): its slowest pick (the bar: < 30 s). With ``--table
   FILE.npy`` the table is kept there and an interrupted benchmark resumes it; the precompute's cost is then the
   CPU and wall seconds summed over every resume (its progress file's ``cpu_seconds`` / ``wall_seconds``).

CPU seconds are this process's (``time.process_time``), torch and Numba single-threaded; the machine may be
shared, so wall seconds are reported beside them but are not the figure.

Usage: ``python benchmarks/draft_policy.py [--run RUN[:VERSION]] [--heroes 17] [--sample 512]
[--batches 16,64,256] [--seed 0] [--full [--table FILE.npy]]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from math import comb
from pathlib import Path

import numpy as np
import torch


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def parts(scorer, radiant: np.ndarray, dire: np.ndarray, repeats: int = 5) -> dict:
    """CPU microseconds per lineup of each part of scoring ``len(radiant)`` lineups in one batch."""
    from fivestack.draft.policy_scorer import team_win_probabilities
    from fivestack.match.teams import active_heroes, team_view

    b = len(radiant)

    def cpu(fn):
        start = time.process_time()
        for _ in range(repeats):
            fn()
        return round((time.process_time() - start) / repeats / b * 1e6, 1)

    obs = {k: v.copy() for k, v in scorer.observe(radiant, dire).items()}
    view = {k: torch.from_numpy(v) for k, v in team_view(obs, active_heroes("5v5")).items()}
    slots = torch.from_numpy(np.tile(active_heroes("5v5"), (b, 1)).astype(np.int64))
    policy = scorer.policy
    with torch.no_grad():
        features, _ = policy.encode(view, slots)
        trunk_in = torch.zeros(2 * b, 5, policy.trunk[0].in_features)
        state = policy.initial_state(2 * b * 5)
        return {"score": cpu(lambda: scorer.score(radiant, dire)),
                "reset_and_observe": cpu(lambda: scorer.observe(radiant, dire)),
                "forward": cpu(lambda: team_win_probabilities(policy, obs)),
                "encode": cpu(lambda: policy.encode(view, slots)),
                "of_which_trunk_layer": cpu(lambda: policy.trunk(trunk_in)),
                "lstm_step": cpu(lambda: policy.core_step(features, state, torch.ones(2 * b)))}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", default=None)
    parser.add_argument("--heroes", type=int, default=17)
    parser.add_argument("--sample", type=int, default=512)
    parser.add_argument("--batches", default="16,64,256")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--full", action="store_true", help="score the whole table and draft on it (hours)")
    parser.add_argument("--table", default=None, help="with --full: keep the table here (resumes it)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)

    from fivestack.draft.lineups import RADIANT, HeroPool, LineupIndex, lineup_count, pick_sides
    from fivestack.draft.policy_scorer import PolicyScorer
    from fivestack.draft.precompute import precompute
    from fivestack.draft.search import Drafter
    from fivestack.draft.stub import stub_patch
    from fivestack.model.policy import Policy, PolicyConfig

    def build(batch: int) -> PolicyScorer:
        if args.run:
            return PolicyScorer.from_run(args.run, batch=batch)[0]
        return PolicyScorer(policy, patch, np.arange(args.heroes), pool, batch=batch)

    if not args.run:
        torch.manual_seed(args.seed)
        patch = stub_patch(args.heroes)
        policy = Policy(PolicyConfig(), patch).eval()
        pool = HeroPool(tuple(h.name for h in patch.heroes))
    probe = build(64)
    n = probe.pool.n
    count = lineup_count(n)
    index = LineupIndex.of(n)
    rng = np.random.default_rng(args.seed)
    ranks = np.sort(rng.choice(count, min(args.sample, count), replace=False))
    radiant = np.concatenate([index.unrank(int(r), int(r) + 1)[0] for r in ranks])
    dire = np.concatenate([index.unrank(int(r), int(r) + 1)[1] for r in ranks])
    probe.score(radiant[:8], dire[:8])  # warm-up: Numba kernels from the disk cache, torch's first calls

    result = {"benchmark": "draft_policy", "policy": args.run or f"fresh PolicyConfig() on stub_patch({n})",
              "heroes": n, "lineups": count, "team_sets": comb(n, 5), "threads": 1,
              "load_avg": list(os.getloadavg())}
    plain = {}
    for batch in (int(b) for b in args.batches.split(",")):
        scorer = build(batch)
        scores, wall, cpu = timed(lambda: scorer.score(radiant, dire))
        plain[batch] = {"lineups": len(ranks), "cpu_s": round(cpu, 3), "wall_s": round(wall, 3),
                        "lineups_per_cpu_s": round(len(ranks) / cpu, 1),
                        "full_table_cpu_hours": round(count / (len(ranks) / cpu) / 3600, 2)}
    result["plain"] = plain
    best = max(plain.values(), key=lambda p: p["lineups_per_cpu_s"])
    result["plain_full_table_cpu_hours"] = best["full_table_cpu_hours"]

    result["parts_us_per_lineup"] = parts(probe, radiant[:64], dire[:64])
    if args.full:
        scorer = build(64)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(args.table) if args.table else Path(tmp) / "table.npy"
            table = precompute(path, scorer.pool, scorer, scorer.name, batch_size=4096, show_progress=False)
            values = np.array(table.values)
        result["full"] = {"table": str(args.table) if args.table else None, "cpu_s": round(table.cpu_seconds, 1),
                          "wall_s": round(table.wall_seconds, 1),
                          "lineups_per_cpu_s": round(count / max(table.cpu_seconds, 1e-9), 1)}
        drafter, build_wall, build_cpu = timed(lambda: Drafter(values, n, radiant_first=True))
        r, d, picks = [], [], []
        for side in pick_sides(True):
            pick = drafter.best_pick(r, d)
            (r if side == RADIANT else d).append(pick.hero)
            picks.append({"hero": pick.hero, "value": round(pick.value, 6), "wall_s": round(pick.seconds, 4),
                          "cpu_s": round(pick.cpu_seconds, 4), "nodes": pick.nodes + pick.leaves})
        result["search"] = {"drafter_build_cpu_s": round(build_cpu, 3),
                            "slowest_pick_wall_s": max(p["wall_s"] for p in picks),
                            "slowest_pick_cpu_s": max(p["cpu_s"] for p in picks), "picks": picks,
                            "radiant": r, "dire": d, "value": round(drafter.value(r, d), 6)}
    result["load_avg_end"] = list(os.getloadavg())
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
