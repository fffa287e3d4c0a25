"""What cloning a bot costs (``configs/MODE.toml``'s ``[clone]``, then ``--set`` overrides), phase by phase.

    python benchmarks/clone_speed.py --mode 1v1 --seconds 60
    python benchmarks/clone_speed.py --mode 5v5 --seconds 60 --set clone.games=16

Three measurements, each after one unmeasured warm-up call (Numba's and torch's first calls):
  * recording the bot's play (``CloneRecorder``, the bot plays the recorded seats): agent-steps/s, and the bytes
    its shards take per million agent-steps (compressed .npz, training and held-out together);
  * recording DAgger data (the policy plays the seats, sampling, and the bot labels them): agent-steps/s;
  * supervised training (``SupervisedTrainer.train_pass`` over the recorded shards, repeated): agent-steps/s of
    data trained on, and gradient steps/s.
An agent-step is one hero's timestep, as in training: a recorded decision of a seat counts K heroes x
``rollout.decision_steps``. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from fivestack.model.policy import Policy
from fivestack.system.clone.recorder import CloneRecorder
from fivestack.system.clone.shards import ShardStore, ShardWriter, bytes_per_million
from fivestack.system.clone.supervised import SupervisedTrainer
from fivestack.runs.config import load_config
from fivestack.match.inference import Inference

ROOT = Path(__file__).resolve().parent.parent


def record_rate(config, seconds: float, store: ShardStore | None, inference=None) -> dict:
    recorder = CloneRecorder(config, seed=1, inference=inference)
    steps = config.clone.shard_steps
    recorder.record(8)  # warm-up
    per_decision = len(recorder.seats) * recorder.k * config.rollout.decision_steps
    done, start = 0, time.perf_counter()
    writer = ShardWriter(store) if store is not None else None  # as the clone pipeline writes them
    while time.perf_counter() - start < seconds:
        shard = recorder.record(steps)
        if writer is not None:
            for split, mask in (("train", ~recorder.held_out), ("valid", recorder.held_out)):
                if mask.any():
                    writer.write(shard.select_streams(np.flatnonzero(mask)), split, "teacher",
                                 steps * recorder.k * config.rollout.decision_steps * int(mask.sum()))
        done += steps * per_decision
    if writer is not None:
        writer.close()  # the last shard's write counts in the time
    wall = time.perf_counter() - start
    return {"agent_steps_per_s": round(done / wall, 1), "agent_steps": done, "seconds": round(wall, 1),
            "seats": len(recorder.seats)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", default="1v1", choices=["1v1", "5v5"], help="loads configs/MODE.toml")
    parser.add_argument("--seconds", type=float, default=60.0, help="per measurement")
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    config = load_config(ROOT / "configs" / f"{args.mode}.toml", ["clone.bot='scripted'", *args.overrides])
    with tempfile.TemporaryDirectory() as tmp:
        store = ShardStore(Path(tmp) / "clone")
        teacher = record_rate(config, args.seconds, store)
        policy = Policy(config.policy, config.game.patch)
        dagger = record_rate(config, args.seconds, None, Inference(policy, seed=0))
        trainer = SupervisedTrainer(policy, config.clone, config.rollout.sample_steps)
        files = store.progress.files("train")
        trainer.train_pass(store, files[:1])  # warm-up
        k = 1 if config.game.mode == "1v1" else 5
        trained, steps_before, start = 0, trainer.grad_steps, time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            trainer.train_pass(store, files)
            trained += sum(s.steps * s.streams for s in store.progress.shards if s.split == "train")
        wall = time.perf_counter() - start
        out = {"benchmark": "clone_speed", "mode": config.game.mode, "bot": config.clone.bot,
               "record_teacher": teacher, "record_dagger": dagger,
               "supervised": {"agent_steps_per_s": round(trained * k * config.rollout.decision_steps / wall, 1),
                              "grad_steps_per_s": round((trainer.grad_steps - steps_before) / wall, 2),
                              "batch_streams": config.clone.batch_streams, "seconds": round(wall, 1)},
               "bytes_per_million_agent_steps": round(bytes_per_million(store.progress)),
               "lstm_size": config.policy.lstm_size, "torch_threads": torch.get_num_threads(),
               "cpu_cores": os.cpu_count(), "torch": torch.__version__}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
