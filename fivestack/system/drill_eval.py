"""A drill's success figure for any player, and its two baselines (issue 30).

    drill_success(infer, config, episodes, seed)   the share of hero episodes that succeed, played by ``infer``
    do_nothing(request)                            an ``InferenceFn`` whose every hero gets no order (stands still)
    untrained(config)                              an ``Inference`` of fresh weights (``run.seed``'s, as a run's
                                                   version 0)

The episodes are played by a ``RolloutWorker`` with the drill's hook, as in training (no second loop): the worker
plays whole segments until every game slot has finished its first q episodes (both heroes' episodes of its first q
games), and those 2 x games x q episodes are counted, whatever their outcomes, so that fast successes are not
favoured over slow ones. The worker's seed fixes the games and the marked points: the same ``seed`` gives every
player the same scenarios.
"""

from __future__ import annotations

import copy
import math
from typing import Callable

import numpy as np
import torch

from fivestack.game.engine import no_orders
from fivestack.game.layout import N_ACTION_FIELDS
from fivestack.match.games import wilson_interval
from fivestack.match.inference import Inference, InferenceRequest, InferenceResult
from fivestack.model.policy import HEADS, Policy
from fivestack.runs.config import TrainConfig
from fivestack.system.rollout import InferenceFn, RolloutWorker
from fivestack.system.rollout_hooks import Drill

MOST_GAMES = 32  # game slots of an evaluation's worker


def do_nothing(request: InferenceRequest) -> InferenceResult:
    """No hero is told anything (``game.engine.no_orders``): each stands where it is."""
    rows, k = request.hero_slots.shape
    zeros = np.zeros((rows, k), np.float32)
    state = tuple(np.zeros_like(s) for s in request.state)
    return InferenceResult(no_orders(rows, k).reshape(rows, k, N_ACTION_FIELDS), np.zeros((rows, k, len(HEADS)),
                                                                                          np.float32),
                           zeros, zeros + 0.5, state, 0)


def untrained(config: TrainConfig, seed: int = 0) -> Inference:
    """The policy a run of ``config`` starts from (its weights drawn as ``SerialRunner`` draws them, with
    ``run.seed``), sampling its actions with ``seed``."""
    torch.manual_seed(config.run.seed)
    return Inference(Policy(config.policy, config.game.patch), seed=seed)


def drill_success(infer: InferenceFn, config: TrainConfig, episodes: int = 200, seed: int = 12345,
                  on_progress: Callable[[int, int], None] | None = None) -> dict:
    """Play at least ``episodes`` hero episodes of ``config``'s drill with ``infer``; returns {"episodes",
    "reached", "success", "ci95", "reach_seconds"} (the mean game seconds of the successes; None without one)."""
    if not config.drill.name:
        raise ValueError("drill_success needs a drill: set drill.name (e.g. drill.name='walk')")
    per_slot = math.ceil(episodes / (2 * MOST_GAMES))  # q episodes of each game slot
    games = math.ceil(episodes / (2 * per_slot))
    cfg = copy.deepcopy(config)
    cfg.rollout.games = games
    cfg.rollout.segment_steps = cfg.rollout.sample_steps  # short segments: stop soon after the last episode
    cfg.pool.past_fraction = 0.0
    worker = RolloutWorker(cfg, seed=seed)
    drill = next(h for h in worker.hooks if isinstance(h, Drill)).drill
    drill.record = True
    total = 2 * games * per_slot

    def counted() -> list:
        return [o for o in drill.outcomes if o[1] < per_slot]

    while len(counted()) < total:
        worker.collect(infer, team_spirit=0.0)
        if on_progress is not None:
            on_progress(len(counted()), total)
    outcomes = counted()
    reached = sum(o[3] for o in outcomes)
    seconds = [o[4] for o in outcomes if o[3]]
    low, high = wilson_interval(reached, total)
    return {"episodes": total, "reached": int(reached), "success": round(reached / total, 4),
            "ci95": [round(low, 4), round(high, 4)],
            "reach_seconds": round(float(np.mean(seconds)), 2) if seconds else None}
