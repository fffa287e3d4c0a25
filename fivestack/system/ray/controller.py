"""The controller actor: the run's versions (the last few parameter sets, by number), metrics, checkpoints and
the opponent pool, shared by every other actor through its name."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import ray

from fivestack.game.layout import EVENT_NAMES
from fivestack.runs.config import from_dict
from fivestack.system.controller import Controller
from fivestack.system.metrics import GAME_COUNTS
from fivestack.system.pool import OpponentPool
from fivestack.system.run_state import RunState, save_run
from fivestack.system.ray.messages import KEEP_VERSIONS, to_torch, to_numpy


@ray.remote(num_cpus=0, max_concurrency=8)
class ControllerActor:
    """Versions (the last few parameter sets, by number), run metadata, metrics and checkpoints."""

    def __init__(self, run_dir: str, config: dict, state: dict):
        """``state``: the run's ``RunState`` (as JSON) to start from."""
        self.config = from_dict(config)
        self.controller = Controller(Path(run_dir), self.config)
        self.state = RunState.from_json(state, self.config.run.seed)
        self.pool = OpponentPool(self.config.pool, Path(run_dir) / "pool")
        if self.state.pool:
            self.pool.load_state_dict(self.state.pool)
        self.lock = threading.Lock()
        self.versions: dict[int, tuple[list, float]] = {}  # version -> ([params ref], value_scale)
        self.latest = -1
        self.agent_steps = self.state.agent_steps
        self.anneal = self.state.anneal  # the driver's Annealing.state_dict(), read by the rollout actors
        self.worker_seed = self.state.worker_seed  # the next one handed out
        self.rollout: dict = self._empty_rollout_stats()
        self.events: list[str] = []

    @staticmethod
    def _empty_rollout_stats() -> dict:
        return {"segments": 0, "hero_steps": 0, "simulation_s": 0.0, "inference_s": 0.0, "send_s": 0.0,
                "wall_s": 0.0, "behind": [], "games": [], "event_sums": np.zeros(len(EVENT_NAMES)),
                "reward_abs_mean": [], "inference_calls": 0, "channel_calls": 0, "in_flight": [],
                **dict.fromkeys(GAME_COUNTS, 0)}

    # versions
    def publish(self, version: int, params: list, value_scale: float) -> None:
        with self.lock:
            self.versions[version] = (params, value_scale)
            self.latest = max(self.latest, version)
            for old in sorted(self.versions)[:-KEEP_VERSIONS]:
                del self.versions[old]
            self.pool.join_if_due(version, lambda: to_torch(ray.get(params[0])))

    # the opponent pool
    def pool_state(self) -> dict:
        with self.lock:
            return self.pool.state_dict()

    def pool_summary(self) -> dict:
        with self.lock:
            return self.pool.summary()

    def pool_weights(self, version: int) -> dict:
        return to_numpy(self.pool.weights(version))

    def latest_version(self) -> int:
        return self.latest

    def params(self, version: int = -1):
        """(version, [params ref], value_scale) for ``version`` (the latest if -1 or no longer kept)."""
        with self.lock:
            if not self.versions:
                return None
            if version not in self.versions:
                version = self.latest
            refs, scale = self.versions[version]
            return version, refs, scale

    # rollout workers
    def next_worker_seed(self) -> int:
        with self.lock:
            self.worker_seed += 1
            return self.worker_seed - 1

    def report_segment(self, info: dict) -> None:
        with self.lock:
            r = self.rollout
            self.agent_steps += int(info["hero_steps"])
            r["segments"] += 1
            r["hero_steps"] += int(info["hero_steps"])
            for key in ("simulation_s", "inference_s", "send_s", "wall_s"):
                r[key] += float(info[key])
            r["inference_calls"] += int(info["inference_calls"])
            r["channel_calls"] += int(info.get("channel_calls", 0))
            r["in_flight"].append(int(info["deliveries_in_flight"]))
            r["behind"].append(self.latest - int(info["version"]))
            r["games"] += info["games"]
            self.pool.record_games(info["games"])
            r["event_sums"] += np.asarray(info["event_sums"])
            r["reward_abs_mean"].append(float(info["reward_abs_mean"]))
            for key in GAME_COUNTS:  # annealing's and lane_start's
                r[key] += int(info[key])

    def take_rollout_stats(self) -> tuple[int, dict]:
        with self.lock:
            out, self.rollout = self.rollout, self._empty_rollout_stats()
            return self.agent_steps, out

    # annealing a game feature: the driver's state (reverted on a TrueSkill drop), each actor's share from it
    def set_anneal(self, state: dict) -> None:
        self.anneal = state

    def anneal_state(self) -> dict:
        return self.anneal

    def counters(self) -> dict:
        return {"agent_steps": self.agent_steps, "worker_seed": self.worker_seed, "latest": self.latest}

    # metrics and checkpoints
    def log(self, version: int, metrics: dict, agent_steps: int | None = None) -> None:
        """Log ``metrics`` at ``version`` and ``agent_steps`` (the run's agent-steps now if None)."""
        with self.lock:
            self.controller.log(version, self.agent_steps if agent_steps is None else agent_steps, metrics)

    def save(self, payload: dict, elapsed: float, win_rates: dict, ratings: dict) -> str:
        """A checkpoint of rank 0's ``payload`` (model, optimizer tensors and scalars, buffer accounting) with
        the driver's part of the run state (``elapsed``, ``win_rates``, ``ratings``, ``anneal`` as last set) and
        the controller's."""
        with self.lock:
            state = replace(self.state, optimizer=payload["scalars"], buffer=payload["buffer"], elapsed=elapsed,
                            agent_steps=self.agent_steps, worker_seed=self.worker_seed, pool=self.pool.state_dict(),
                            win_rates=win_rates, ratings=ratings, anneal=self.anneal, runner="ray")
        return str(save_run(self.controller, to_torch(payload["model"]), to_torch(payload["optim"]), state))

    def close(self) -> None:
        self.controller.close()
