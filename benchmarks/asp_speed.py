"""Asymmetric self-play speed: episodes per second (training included) for each environment, 10 seeds in
lockstep with the env's batch; prints ONE JSON line. ``ENV_episodes_per_s`` counts every episode (self-play and
target), ``ENV_target_episodes_per_s`` only the target-task episodes, the unit of the paper's curves and of our
budgets (for the hallway, whose curves count all episodes, the two are equal). The evaluations at the start and
the end of the run are included in the time, as in a real run; one untimed batch first loads (or compiles) the
Numba kernels, a one-off cost of a process.

Usage: ``python benchmarks/asp_speed.py [--seeds 10] [--batches 5] [--envs hallway,economy,...]``

By default every world but the MuJoCo ones (SwimmerGather holds each action for 150 physics steps: about 1 s of
CPU per episode, half an hour for the default 10 x 5 batches); name them in ``--envs`` to time them too.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time

import numpy as np

from fivestack.asp.experiments import ENV_NAMES, env_module
from fivestack.asp.selfplay import train


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--batches", type=int, default=5)
    ap.add_argument("--envs", default=",".join(n for n in ENV_NAMES if not n.startswith("swimmergather")),
                    help=f"comma-separated worlds among {', '.join(ENV_NAMES)}")
    args = ap.parse_args()
    names = [n.strip() for n in args.envs.split(",") if n.strip()]
    unknown = sorted(set(names) - set(ENV_NAMES))
    if unknown:
        ap.error(f"unknown world(s) {', '.join(unknown)}; choose among {', '.join(ENV_NAMES)}")
    out = {"seeds": args.seeds}
    for name in names:
        mod = env_module(name)
        cfg = mod.config()
        share = cfg.target_share if not cfg.count_self_play else 1.0
        per_batch = max(1, round(cfg.batch * share))
        budget = per_batch * args.batches
        cfg = dataclasses.replace(cfg, eval_every=10**9)
        env = mod.make(args.seeds * cfg.batch)
        train(env, "self_play", cfg, args.seeds, per_batch, np.random.default_rng(1))   # warm-up, untimed
        start = time.perf_counter()
        train(env, "self_play", cfg, args.seeds, budget, np.random.default_rng(0))
        seconds = time.perf_counter() - start
        episodes = args.seeds * cfg.batch * args.batches
        out[f"{name}_episodes_per_s"] = round(episodes / seconds, 1)
        out[f"{name}_target_episodes_per_s"] = round(args.seeds * budget / seconds, 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
