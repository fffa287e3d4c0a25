"""A drill's success figure for any player, and its two baselines (issue 30).

    drill_success(infer, config, episodes, seed)   the share of hero episodes that succeed, played by ``infer``
                                                   (lasthit: the share of the enemy lane creeps that died in the
                                                   episodes that are the learner's last hits, pooled)
    do_nothing(request)                            an ``InferenceFn`` whose every hero gets no order (stands still)
    untrained(config)                              an ``Inference`` of fresh weights (``run.seed``'s, as a run's
                                                   version 0)
    BotPlayer("scripted")                          a bot in the learner's place (a reference, not a baseline: what
                                                   the game's own bot makes of the drill), deciding when the
                                                   learner decides (``rollout.decision_steps``) and keeping its
                                                   orders in between, as the learner does

The episodes are played by a ``RolloutWorker`` with the drill's hook, as in training (no second loop): the worker
plays whole segments until every game slot has finished its first q episodes (both heroes' episodes of its first q
games), and those 2 x games x q episodes are counted, whatever their outcomes, so that fast successes are not
favoured over slow ones. The worker's seed fixes the games and the marked points: the same ``seed`` gives every
player the same scenarios.

The last-hit drill and the match drills (hold, duel) have one hero episode per game (the other hero is idle, or the
bot's). Each drill says what it records per episode and how its figure reads them (``Drill.records`` and
``Drill.figure``): the share of successes for walk, hold and duel (hold and duel also say how the games went), last
hits / enemy lane-creep deaths pooled for lasthit (``drills.lasthit_figure``).
"""

from __future__ import annotations

import copy
import math
from typing import Callable

import numpy as np
import torch

from fivestack.bots.agents import check_bot_name, make_bot
from fivestack.game.engine import no_orders
from fivestack.game.layout import DUEL_KILLS
from fivestack.match.inference import Inference, InferenceRequest, InferenceResult
from fivestack.model.policy import Policy
from fivestack.runs.config import TrainConfig
from fivestack.system.rollout import InferenceFn, RolloutWorker
from fivestack.system.drills import DRILLS
from fivestack.system.pool import LATEST
from fivestack.system.rollout_hooks import Drill, bot_result, bot_row_actions

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


class BotPlayer:
    """The bot ``name`` (``fivestack.bots.agents.BOTS``) playing the learner's heroes of a drill. It reads the game,
    not the observation, so ``drill_success`` binds it to the worker that plays the episodes (``bind``); the rows
    it is asked for are the learner's, in the order the worker asks (``RolloutWorker.row_owners``)."""

    def __init__(self, name: str, seed: int = 0):
        check_bot_name(name)  # before any game is played
        self.name, self.seed = name, seed

    def bind(self, worker: RolloutWorker) -> InferenceFn:
        bots = [make_bot(self.name, team, self.seed) for team in (0, 1)]

        def infer(request: InferenceRequest) -> InferenceResult:
            rows = np.flatnonzero(worker.row_owners() == LATEST)
            return bot_result(bot_row_actions(bots, worker.env, rows, worker.heroes), request.state, 0)
        return infer


def drill_success(infer: InferenceFn | BotPlayer, config: TrainConfig, episodes: int = 200, seed: int = 12345,
                  on_progress: Callable[[int, int], None] | None = None) -> dict:
    """Play at least ``episodes`` hero episodes of ``config``'s drill with ``infer`` (or a ``BotPlayer``); returns
    the drill's figure over them (``Drill.figure``: walk, hold and duel {"episodes", "reached", "success", "ci95",
    ...})."""
    if not config.drill.name:
        raise ValueError("drill_success needs a drill: set drill.name (e.g. drill.name='walk')")
    heroes = DRILLS[config.drill.name].heroes_per_game  # hero episodes per game episode
    per_slot = math.ceil(episodes / (heroes * MOST_GAMES))  # q episodes of each game slot
    games = math.ceil(episodes / (heroes * per_slot))
    cfg = copy.deepcopy(config)
    cfg.rollout.games = games
    cfg.rollout.segment_steps = cfg.rollout.sample_steps  # short segments: stop soon after the last episode
    cfg.pool.past_fraction = 0.0
    cfg.game.duel_kills = DUEL_KILLS  # measured under the paper's 1v1 rule, as every evaluation (a training-only key)
    cfg.game.net_worth_wins = False  # ... and its time limit (undecided), likewise
    cfg.drill.stagger = False  # every measured episode is a whole window (a training-only key)
    worker = RolloutWorker(cfg, seed=seed)
    if isinstance(infer, BotPlayer):
        infer = infer.bind(worker)
    drill = worker.hook(Drill).drill
    drill.record = True
    total = heroes * games * per_slot

    def counted() -> list:
        return [o for o in drill.records() if o.episode < per_slot]

    while len(counted()) < total:
        worker.collect(infer, team_spirit=0.0)
        if on_progress is not None:
            on_progress(len(counted()), total)
    return drill.figure(counted())
