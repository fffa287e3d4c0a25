"""What ``torch.compile`` (inductor, CPU) does for the policy's rollout forward pass (``configs/MODE.toml``'s model,
a batch of the worker's first observations, one torch thread).

    python benchmarks/compile_speed.py --mode 1v1 [--part encode|act] [--repeats 50]

Measures the eager pass, then compiles ``Policy.encode`` (the trunk's input networks; ``--part act``: the whole
step, encoder, LSTM and heads) with ``dynamic=True`` (the number of seen units changes every step) and measures
the first call (the compile a user's first run would pay) and the compiled pass. Prints one JSON line; a compile
that fails is reported with its error, not raised.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_speed import preset_overrides  # noqa: E402

from fivestack.match.inference import forward_arrays  # noqa: E402
from fivestack.model.policy import Policy  # noqa: E402
from fivestack.runs.config import FROM_SCRATCH, load_config  # noqa: E402
from fivestack.system.rollout import RolloutWorker  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", default="1v1", choices=["1v1", "5v5"])
    parser.add_argument("--part", default="encode", choices=["encode", "act"])
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    torch.set_num_threads(1)
    config = load_config(None, [*preset_overrides(args.mode), *FROM_SCRATCH])
    worker = RolloutWorker(config, seed=0)
    policy = Policy(config.policy, config.game.patch).eval()
    obs, state, first, slots = worker._view(), worker.state, worker.first, worker.hero_slots
    generator = torch.Generator().manual_seed(0)

    def step() -> None:
        forward_arrays(policy, obs, state, first, slots, generator)

    def per_pass_ms() -> float:
        for _ in range(3):
            step()
        start = time.perf_counter()
        for _ in range(args.repeats):
            step()
        return (time.perf_counter() - start) / args.repeats * 1e3

    out = {"benchmark": "compile_speed", "mode": args.mode, "part": args.part, "teams": len(first),
           "eager_ms": round(per_pass_ms(), 2)}
    setattr(policy, args.part, torch.compile(getattr(policy, args.part), dynamic=True))
    start = time.perf_counter()
    try:
        step()
        out["first_call_s"] = round(time.perf_counter() - start, 1)
        out["compiled_ms"] = round(per_pass_ms(), 2)
        out["speedup"] = round(out["eager_ms"] / out["compiled_ms"], 3)
    except Exception as exc:  # a compile that fails is a result here
        out["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
    out.update({"torch_threads": 1, "cpu_cores": os.cpu_count(), "torch": torch.__version__})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
