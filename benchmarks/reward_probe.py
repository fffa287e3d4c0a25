"""What the shaped reward pays for a behaviour: the learner's return over whole games against an opponent bot, for
fixed behaviours in the learner's place; prints ONE JSON line.

    python benchmarks/reward_probe.py                          # 1v1 mid against the scripted hero, 64 games each
    python benchmarks/reward_probe.py --opponent scripted-weak --games 128 --set reward.win=10

The reward is the trainer's (``rl.rewards.shaped_reward``, as ``match.decisions.play_decision`` applies it: the
``[reward]`` weights of ``--config``, time decay, zero-sum, team spirit at ``ppo.team_spirit_start``), one timestep at
a time, summed per game for the learner's hero; the games are played by ``match.games.play_to_end``.
Each game is one episode: the first game of each of ``--games`` slots, half with the learner on each side, seeds
``SEED_BASE + i``. Behaviours (``--behaviours``):

* a bot by name (``scripted``, ``scripted-weak``, ``random``): the bot plays the learner's hero;
* ``charge``: an attack-move toward the enemy's base at every timestep (a hero that walks into the enemy's lane and
  fights whatever it meets: it dies fast);
* ``idle``: no order ever (the hero stays by its fountain, out of its lane).

Per behaviour: win, draw and loss shares, game minutes, the learner's deaths a game, its return (mean and standard
deviation) and the discounted return from the game's start (gamma per timestep from ``ppo.horizon_seconds``, as the
trainer's value sees the start of a game). A reward term's part shows by switching it off with ``--set`` (e.g.
``reward.lane_outside_seconds=0``: under zero-sum the enemy's lane penalty, handed to the learner, goes too).

Why it exists: a learner that cannot win against the opponent compares dying fast with surviving; the figures say
which the reward prefers (docs/learning.md, "The trainer against the library PPO").
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Callable

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from fivestack.bots.agents import TeamAgent
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import no_orders
from fivestack.game.layout import (
    A_ATTACK_MOVE, ACT_OFFSET_X, ACT_OFFSET_Y, ACT_PRIMARY, HEROES_PER_TEAM, N_HEROES, N_OFFSET, STEP_SECONDS,
)
from fivestack.match.agents import build_agent
from fivestack.match.games import Seat, play_to_end, wilson_interval
from fivestack.match.teams import active_heroes
from fivestack.rl.rewards import shaped_reward
from fivestack.runs.config import TEN_MINUTE_GAMES, load_config, reward_weights

SEED_BASE = 40_000
BEHAVIOURS = ("scripted", "scripted-weak", "random", "charge", "idle")


class FixedOrders:
    """A team agent that gives every hero of ``team`` the same order at every timestep: ``charge`` (an attack-move
    to the far corner of the map, toward the enemy's base, in the map's frame) or ``idle`` (no order)."""

    def __init__(self, team: int, kind: str):
        self.team, self.kind = team, kind

    def act(self, env: BatchedEnv, games: np.ndarray | None = None) -> np.ndarray:
        orders = no_orders(env.n_games, N_HEROES)[:, :HEROES_PER_TEAM].copy()
        if self.kind == "charge":
            corner = N_OFFSET - 1 if self.team == 0 else 0  # Radiant's enemy is up and right, Dire's down and left
            orders[..., ACT_PRIMARY] = A_ATTACK_MOVE
            orders[..., ACT_OFFSET_X] = corner
            orders[..., ACT_OFFSET_Y] = corner
        return orders


def learner_agent(behaviour: str, team: int, mode: str, seed: int) -> TeamAgent:
    if behaviour in ("charge", "idle"):
        return FixedOrders(team, behaviour)
    return build_agent(behaviour, team, seed=seed, mode=mode)


def probe(behaviour: str, opponent: str, config, games: int,
          factory: Callable[[int], TeamAgent] | None = None) -> dict:
    """Play ``games`` games to their end (``match.games.play_to_end``; the learner Radiant in the first half) and sum
    the learner's shaped reward in each, step by step. The learner is ``factory(team)`` if given (e.g.
    ``match.sb3.sb3_team_agent`` of a library learner's model), else the behaviour ``behaviour`` names."""
    mode = config.game.mode
    heroes = active_heroes(mode)
    weights = reward_weights(config.reward)
    gamma = 1.0 - STEP_SECONDS / config.ppo.horizon_seconds
    side = (np.arange(games) >= games // 2).astype(np.int64)  # the learner's team per game
    env = BatchedEnv(games, config.game.game_config())
    env.reset(SEED_BASE + np.arange(games, dtype=np.uint64))
    seats = []
    for team in (0, 1):
        learner = factory(team) if factory is not None else learner_agent(behaviour, team, mode, seed=1 + team)
        seats += [Seat(learner, team, np.flatnonzero(side == team)),
                  Seat(build_agent(opponent, team, seed=11 + team, mode=mode), team, np.flatnonzero(side != team))]
    rows = 2 * np.arange(games) + side
    total, discounted = np.zeros(games), np.zeros(games)
    discount = [1.0]  # gamma ** the timesteps played before this one (every game starts at once)

    def add_reward(finished: np.ndarray) -> None:
        # the step's shaped reward, as the trainer's play_decision makes it; a game that ended earlier has no events
        # (BatchedEnv), so it gains nothing
        events = env.game.events[:, heroes]  # (games, 2, K, E)
        reward = shaped_reward(events, env.game.seconds, config.ppo.team_spirit_start, weights)
        mine = reward.reshape(2 * games, -1)[rows].sum(1)
        total[:] += mine
        discounted[:] += discount[0] * mine
        discount[0] *= gamma

    played = play_to_end(env, seats, on_step=add_reward)
    won, drawn = played.winner == side, played.winner < 0
    interval = wilson_interval(float(won.sum()), games)
    return {"behaviour": behaviour, "games": games, "win_rate": round(float(won.mean()), 4),
            "ci95": [round(v, 4) for v in interval], "draw_rate": round(float(drawn.mean()), 4),
            "loss_rate": round(float((~won & ~drawn).mean()), 4), "minutes": round(float(played.minutes.mean()), 2),
            "deaths": round(float(played.stats_of(side)["deaths"].mean()), 2),
            "return": round(float(total.mean()), 2), "return_sd": round(float(total.std()), 2),
            "discounted_return": round(float(discounted.mean()), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="configs/1v1.toml", help="the training config whose game and reward "
                                                                     "the games follow")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a config override")
    parser.add_argument("--opponent", default="scripted")
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--behaviours", default=",".join(BEHAVIOURS),
                        help="comma-separated: bot names, charge, idle, or trained versions RUN:VERSION")
    args = parser.parse_args()
    config = load_config(args.config, [*TEN_MINUTE_GAMES, *args.set])
    t0 = time.time()
    behaviours = args.behaviours.split(",")
    results = []
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), console=Console(stderr=True)) as progress:
        task = progress.add_task("behaviours probed", total=len(behaviours))
        for behaviour in behaviours:
            progress.update(task, description=f"probing {behaviour}")
            results.append(probe(behaviour, args.opponent, config, args.games))
            progress.advance(task)
    print(json.dumps({"benchmark": "reward_probe", "mode": config.game.mode, "patch": config.game.patch,
                      "opponent": args.opponent, "horizon_seconds": config.ppo.horizon_seconds,
                      "overrides": args.set, "seconds": round(time.time() - t0, 1), "behaviours": results}))


if __name__ == "__main__":
    main()
