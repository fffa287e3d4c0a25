"""The evaluator actor: TrueSkill ratings of pool versions, their weights served by the controller."""

from __future__ import annotations

from pathlib import Path

import ray

from fivestack.runs.config import from_dict
from fivestack.system.ray.messages import CONTROLLER, set_threads, to_torch


@ray.remote(num_cpus=0)
class EvaluatorActor:
    """TrueSkill ratings of pool versions (``RatingEvaluator``), weights served by the controller."""

    def __init__(self, config: dict, state: dict, namespace: str):
        from fivestack.system.evaluator import RatingEvaluator

        self.config = from_dict(config)
        set_threads(self.config)
        controller = ray.get_actor(CONTROLLER, namespace=namespace)
        self.evaluator = RatingEvaluator(self.config, Path("."), state, seed=self.config.run.seed,
                                         load_weights=lambda v: to_torch(ray.get(controller.pool_weights.remote(v))))

    def rate(self, version: int) -> dict:
        return {"record": self.evaluator.rate_version(version), "state": self.evaluator.state_dict()}
