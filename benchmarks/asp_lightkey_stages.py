"""Which step of light-key's target task stops learning: target-only REINFORCE (light-key's config) on the
paper's task and on easier starts of it, prints ONE JSON line.

The paper's target task starts in the dark with the door closed: the agent must turn the light on, toggle the
key, walk through the one-cell door and reach the flag. The stages start with the light already on
(``lit``), the door already open (``open``), or both (``lit_open``: walk through the open door to a visible
flag), through ``LightKey(target_lit=..., target_open=...)``; everything else (placements, the network, the
optimiser, the evaluation) is the experiment's. Per stage: the share of evaluation episodes that reach the
flag per seed, untrained (the first evaluation) and after ``--episodes`` target episodes.

Usage: ``python benchmarks/asp_lightkey_stages.py [--seeds 2] [--episodes 20000] [--seed 3] [--batch 64]
[--words rows_columns]`` (``--batch 64`` and ``--words rows_columns``, the defaults here, are the batch and the input
words the figures in docs/asp.md were measured with; light-key's config now has the paper's batch of 256 and
MazeBase's view, ``egocentric``)
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time

import numpy as np

from fivestack.asp.envs import lightkey
from fivestack.asp.selfplay import train

STAGES = {"paper": (False, False), "lit": (True, False), "open": (False, True), "lit_open": (True, True)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--episodes", type=int, default=20_000, help="target episodes per seed and stage")
    ap.add_argument("--seed", type=int, default=3, help="random seed of each stage's experiment")
    ap.add_argument("--stages", default=",".join(STAGES), help=f"comma-separated among {', '.join(STAGES)}")
    ap.add_argument("--words", choices=list(lightkey.WORD_SETS), default="rows_columns",
                    help="the input words (lightkey.WORD_SETS)")
    ap.add_argument("--batch", type=int, default=64, help="episodes per update per seed (the config's: 256)")
    args = ap.parse_args()
    names = [s.strip() for s in args.stages.split(",") if s.strip()]
    unknown = sorted(set(names) - set(STAGES))
    if unknown:
        ap.error(f"unknown stage(s) {', '.join(unknown)}; choose among {', '.join(STAGES)}")
    if args.batch < 1:
        ap.error(f"--batch {args.batch}: give at least 1")
    cfg = dataclasses.replace(lightkey.config(), batch=args.batch)
    out = {"method": "target_only", "seeds": args.seeds, "target_episodes": args.episodes, "seed": args.seed,
           "batch": args.batch, "words": args.words}
    for name in names:
        lit, open_ = STAGES[name]
        env = lightkey.LightKey(args.seeds * cfg.batch, size=lightkey.SIZE, target_lit=lit, target_open=open_,
                                words=args.words)
        start = time.perf_counter()
        curves, _ = train(env, "target_only", cfg, args.seeds, args.episodes, np.random.default_rng(args.seed))
        first, last = np.asarray(curves.success[0]), np.asarray(curves.success[-1])
        out[name] = {"untrained": [round(float(v), 3) for v in first], "final": [round(float(v), 3) for v in last],
                     "final_mean": round(float(last.mean()), 3), "seconds": round(time.perf_counter() - start, 1)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
