"""A drill's success figure for any player, and its two baselines (issue 30).

    drill_success(infer, config, episodes, seed)   the share of hero episodes that succeed, played by ``infer``
                                                   (lasthit: the share of the enemy lane creeps that died in the
                                                   episodes that are the learner's last hits, pooled)
    do_nothing(request)                            an ``InferenceFn`` whose every hero gets no order (stands still)
    untrained(config)                              an ``Inference`` of fresh weights (``run.seed``'s, as a run's
                                                   version 0)

The episodes are played by a ``RolloutWorker`` with the drill's hook, as in training (no second loop): the worker
plays whole segments until every game slot has finished its first q episodes (both heroes' episodes of its first q
games), and those 2 x games x q episodes are counted, whatever their outcomes, so that fast successes are not
favoured over slow ones. The worker's seed fixes the games and the marked points: the same ``seed`` gives every
player the same scenarios.

The last-hit drill has one hero episode per game (the other hero is idle) and no success per episode: its first q
episodes of every slot are counted, their last hits and enemy lane-creep deaths are summed, and the figure is
last hits / deaths with a Wilson interval over the creeps (deaths are the trials: creeps of one episode are not
independent draws, so the interval is narrower than an interval over episodes would be).
"""

from __future__ import annotations

import copy
import math
from typing import Callable

import numpy as np
import torch

from fivestack.game.engine import no_orders
from fivestack.match.games import wilson_interval
from fivestack.match.inference import Inference, InferenceRequest, InferenceResult
from fivestack.model.policy import Policy
from fivestack.runs.config import TrainConfig
from fivestack.system.rollout import InferenceFn, RolloutWorker
from fivestack.system.rollout_hooks import Drill, bot_result

MOST_GAMES = 32  # game slots of an evaluation's worker


def do_nothing(request: InferenceRequest) -> InferenceResult:
    """No hero is told anything (``game.engine.no_orders``): each stands where it is."""
    rows, k = request.hero_slots.shape
    return bot_result(no_orders(rows, k), request.state, 0)  # as a bot's: no log-prob, value or state


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
    heroes = 1 if config.drill.name == "lasthit" else 2  # hero episodes per game episode
    per_slot = math.ceil(episodes / (heroes * MOST_GAMES))  # q episodes of each game slot
    games = math.ceil(episodes / (heroes * per_slot))
    cfg = copy.deepcopy(config)
    cfg.rollout.games = games
    cfg.rollout.segment_steps = cfg.rollout.sample_steps  # short segments: stop soon after the last episode
    cfg.pool.past_fraction = 0.0
    worker = RolloutWorker(cfg, seed=seed)
    drill = next(h for h in worker.hooks if isinstance(h, Drill)).drill
    drill.record = True
    total = heroes * games * per_slot
    records = drill.tallies if config.drill.name == "lasthit" else drill.outcomes

    def counted() -> list:
        return [o for o in records if o[1] < per_slot]

    while len(counted()) < total:
        worker.collect(infer, team_spirit=0.0)
        if on_progress is not None:
            on_progress(len(counted()), total)
    if config.drill.name == "lasthit":
        return lasthit_figure(counted())
    outcomes = counted()
    reached = sum(o[3] for o in outcomes)
    seconds = [o[4] for o in outcomes if o[3]]
    low, high = wilson_interval(reached, total)
    return {"episodes": total, "reached": int(reached), "success": round(reached / total, 4),
            "ci95": [round(low, 4), round(high, 4)],
            "reach_seconds": round(float(np.mean(seconds)), 2) if seconds else None}


def lasthit_figure(tallies: list[tuple[int, int, int, int, int]]) -> dict:
    """The last-hit drill's figure over its episodes' tallies (game, episode, side, last hits, deaths): {"episodes",
    "last_hits", "creep_deaths", "success" (last hits / deaths, pooled; None without a death), "ci95" (Wilson over
    the creeps), "per_episode_mean" (the mean of each episode's share, over the episodes with a death)}."""
    hits = sum(t[3] for t in tallies)
    deaths = sum(t[4] for t in tallies)
    shares = [t[3] / t[4] for t in tallies if t[4]]
    low, high = wilson_interval(hits, deaths) if deaths else (0.0, 1.0)
    return {"episodes": len(tallies), "last_hits": int(hits), "creep_deaths": int(deaths),
            "success": round(hits / deaths, 4) if deaths else None, "ci95": [round(low, 4), round(high, 4)],
            "per_episode_mean": round(float(np.mean(shares)), 4) if shares else None}
