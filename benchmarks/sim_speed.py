"""Simulator throughput: one process, random *available* actions, observation encoding included.

    python benchmarks/sim_speed.py --games 64 --seconds 10

Prints one JSON line. Games are first played for ``--warmup-minutes`` of game time so that the measured
stretch has full creep waves on the map, not the empty first seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from fivestack.bots.random_agent import RandomAgent  # noqa: E402
from fivestack.env.batched import BatchedEnv  # noqa: E402
from fivestack.game.engine import GameConfig  # noqa: E402
from fivestack.game.layout import FRAMES_PER_STEP, MAX_UNITS  # noqa: E402
from fivestack.game.patch import PATCH_VERSION  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=10.0, help="wall-clock seconds to measure")
    parser.add_argument("--warmup-minutes", type=float, default=5.0, help="game minutes played before measuring")
    parser.add_argument("--mode", default="5v5")
    parser.add_argument("--patch", default=PATCH_VERSION, help=f"patch version (default {PATCH_VERSION}, the default game)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-obs", action="store_true", help="skip observation encoding (engine only)")
    args = parser.parse_args()

    env = BatchedEnv(args.games, GameConfig(mode=args.mode, max_seconds=7200.0, patch=args.patch))
    obs = env.reset(args.seed)
    agent = RandomAgent(args.seed)
    warmup_steps = int(args.warmup_minutes * 60 * 30 / FRAMES_PER_STEP)
    for _ in range(warmup_steps):
        obs, *_ = env.step(agent.act(obs))
    alive_units = float(env.game.state.ui[:, :, 0].sum(1).mean())

    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        actions = agent.act(obs)
        if args.no_obs:
            env.game.step(np.where(actions < 0, 0, actions))
        else:
            obs, *_ = env.step(actions)
        steps += 1
    elapsed = time.perf_counter() - start
    game_steps = steps * args.games / elapsed
    print(json.dumps({
        "benchmark": "sim_speed",
        "games": args.games,
        "mode": args.mode,
        "patch": args.patch,
        "observations": not args.no_obs,
        "game_steps_per_s": round(game_steps, 1),
        "agent_steps_per_s": round(game_steps * 10, 1),
        "frames_per_s": round(game_steps * FRAMES_PER_STEP, 1),
        "measured_seconds": round(elapsed, 2),
        "warmup_game_minutes": args.warmup_minutes,
        "mean_alive_units": round(alive_units, 1),
        "max_units": MAX_UNITS,
        "cpu_cores": os.cpu_count(),
        "processor": platform.processor() or platform.machine(),
    }))


if __name__ == "__main__":
    main()
