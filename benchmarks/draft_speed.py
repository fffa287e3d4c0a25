"""Drafting speed on 17 heroes (issue 13, Done-when 3: each pick in < 30 s on 2 cores after the precompute);
prints ONE JSON line.

1. Precompute: every one of the 4,900,896 lineups scored by the stub scorer (``StubWinProbability``, vectorised
   numpy, batches of ``--batch-size``) into a ``.npy`` table with its progress file, as
   ``fivestack draft --precompute`` does. A policy scorer will cost far more per lineup; the search does not
   depend on the scorer's cost.
2. The search's one-off costs: loading the Numba kernels (compiled on first use, then cached on disk) and
   building the ``Drafter`` (table into memory, move ordering from per-hero means over all lineups).
3. A full draft from an empty state, the search picking for both sides (Radiant first unless ``--dire-first``),
   timing each of the 10 ``best_pick`` calls: ``warm`` with one Drafter whose cache carries over from pick to
   pick (what ``fivestack draft`` does), and ``cold`` with the cache cleared before each pick.
4. The same on a table of independent uniform random values (``noise``), where move ordering cannot help: the
   hard case for alpha-beta.
5. ``verify`` (unless ``--no-verify``): the value of the first pick by exhaustive dynamic programming over
   every state (cache only, no pruning: ~26M nodes) equals alpha-beta's, on both tables.

Times are wall seconds and CPU seconds of this process (``time.process_time``), single-threaded; the load
average at the start and end is reported because the machine may be shared.

Usage: ``python benchmarks/draft_speed.py [--heroes 17] [--seed 0] [--batch-size 65536] [--dire-first]
[--no-verify]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from fivestack.draft.lineups import RADIANT, HeroPool, lineup_count, pick_sides
from fivestack.draft.precompute import precompute
from fivestack.draft.search import CACHE, Drafter
from fivestack.draft.stub import StubWinProbability


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, round(time.perf_counter() - wall, 4), round(time.process_time() - cpu, 4)


def full_draft(drafter: Drafter, cold: bool) -> dict:
    radiant, dire, wall, cpu, nodes, picks, values = [], [], [], [], [], [], []
    for side in pick_sides(drafter.radiant_first):
        if cold:
            drafter.clear_cache()
        result = drafter.best_pick(radiant, dire)
        (radiant if side == RADIANT else dire).append(result.hero)
        wall.append(round(result.seconds, 4))
        cpu.append(round(result.cpu_seconds, 4))
        nodes.append(result.nodes + result.leaves)
        picks.append(result.hero)
        values.append(round(result.value, 6))
    return {"per_pick_s": wall, "per_pick_cpu_s": cpu, "max_pick_s": max(wall), "max_pick_cpu_s": max(cpu),
            "nodes_and_leaves": nodes, "picks": picks, "values": values}


def measure(values: np.ndarray, n: int, radiant_first: bool, verify: bool) -> dict:
    drafter, build_s, build_cpu_s = timed(lambda: Drafter(values, n, radiant_first))
    out = {"drafter_build_s": build_s, "drafter_build_cpu_s": build_cpu_s,
           "warm": full_draft(drafter, cold=False), "cold": full_draft(drafter, cold=True)}
    if verify:
        exhaustive = Drafter(values, n, radiant_first, options=CACHE)
        result = exhaustive.best_pick()
        out["verify"] = {"exhaustive_value": round(result.value, 6), "exhaustive_pick": result.hero,
                         "exhaustive_cpu_s": round(result.cpu_seconds, 3), "exhaustive_nodes": result.nodes,
                         "equal": (result.hero, round(result.value, 6)) == (out["warm"]["picks"][0],
                                                                             out["warm"]["values"][0])}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--heroes", type=int, default=17)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=65536)
    parser.add_argument("--dire-first", action="store_true")
    parser.add_argument("--no-verify", action="store_true")
    args = parser.parse_args()
    load_start = os.getloadavg()[0]
    n, radiant_first = args.heroes, not args.dire_first

    # the Numba kernels: compiled once per checkout (then loaded from the on-disk cache); a 10-hero table
    warm_n = 10
    (_, jit_s, jit_cpu_s) = timed(lambda: Drafter(np.full(lineup_count(warm_n), 0.5, np.float32), warm_n, True)
                                  .best_pick())

    pool = HeroPool.parse(str(n))
    stub = StubWinProbability(n, seed=args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "lineups.npy"
        table, pre_s, pre_cpu_s = timed(lambda: precompute(path, pool, stub, stub.name, args.batch_size,
                                                           show_progress=sys.stderr.isatty()))
        stub_values = np.array(table.values)
    noise = np.random.default_rng(args.seed).random(lineup_count(n)).astype(np.float32)
    record = {
        "benchmark": "draft_speed", "heroes": n, "lineups": lineup_count(n), "first": "radiant" if radiant_first
        else "dire", "scorer": stub.name, "batch_size": args.batch_size,
        "precompute_s": pre_s, "precompute_cpu_s": pre_cpu_s, "table_mb": round(stub_values.nbytes / 1e6, 1),
        "jit_load_s": jit_s, "jit_load_cpu_s": jit_cpu_s,
        "stub": measure(stub_values, n, radiant_first, not args.no_verify),
        "noise": measure(noise, n, radiant_first, not args.no_verify),
        "load_average_start": round(load_start, 2), "load_average_end": round(os.getloadavg()[0], 2),
        "threads": 1,
    }
    print(json.dumps(record))


if __name__ == "__main__":
    main()
