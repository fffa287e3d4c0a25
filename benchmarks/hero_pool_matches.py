"""Matches over the 17-hero pool with random lineups; prints ONE JSON line.

Each batch of ``--batch`` games draws one lineup per team (5 distinct heroes of the 17, ``numpy`` generator
seeded with ``--seed`` + batch index) and plays it with ``GameConfig(radiant=..., dire=...)`` (the engine's
per-game random lineups are another change; a lineup per batch is what the engine takes today).

* ``random``: the scripted team against the uniform random team, the scripted side alternating per batch;
  the issue's bar: scripted wins >= 95% of 200 games.
* ``scripted``: the scripted team against itself; how many games end (an ancient falls) before 60 game-minutes
  (bar: >= 80%), and each hero's win rate over the games it played (a decided game counts a win or a loss).

Usage: ``python benchmarks/hero_pool_matches.py [--games N] [--batch B] [--seed S] [--only random|scripted]``
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from fivestack.bots.random_team import RandomTeam
from fivestack.bots.scripted import ScriptedTeam
from fivestack.game.engine import GameBatch, GameConfig
from fivestack.game.layout import FRAMES_PER_SECOND, N_HEROES
from fivestack.game.patch import HEROES


def play(config: GameConfig, seeds, radiant, dire) -> dict:
    game = GameBatch(len(seeds), config)
    game.reset(np.asarray(seeds, dtype=np.uint64))
    actions = np.zeros((len(seeds), N_HEROES, 5), np.int64)
    actions[..., 2] = -1
    actions[..., 3:] = 4
    while (game.done == 0).any():
        radiant.act(game, actions)
        dire.act(game, actions)
        game.step(actions)
    return {"done": game.done.copy(), "winner": game.winner.copy(),
            "minutes": game.frame / (60.0 * FRAMES_PER_SECOND)}


def lineups(rng: np.random.Generator) -> tuple[tuple[str, ...], tuple[str, ...]]:
    names = [h.name for h in HEROES]
    picks = [rng.choice(len(names), 5, replace=False) for _ in range(2)]
    return tuple(names[i] for i in picks[0]), tuple(names[i] for i in picks[1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seed", type=int, default=30_000)
    ap.add_argument("--only", choices=("random", "scripted"), default=None)
    args = ap.parse_args(argv)
    out = {"games": args.games, "batch": args.batch, "seed": args.seed}
    for kind in ("random", "scripted"):
        if args.only and kind != args.only:
            continue
        wins = ended = 0
        hero_games = {h.name: 0 for h in HEROES}
        hero_wins = {h.name: 0 for h in HEROES}
        for b, start in enumerate(range(0, args.games, args.batch)):
            rng = np.random.default_rng(args.seed + b)
            radiant_names, dire_names = lineups(rng)
            seeds = np.arange(start, min(start + args.batch, args.games)) + args.seed
            config = GameConfig(radiant=radiant_names, dire=dire_names)
            if kind == "random":
                side = b % 2
                teams = [ScriptedTeam(side, seed=1), RandomTeam(1 - side, seed=int(seeds[0]))]
                r = play(config, seeds, *(teams if side == 0 else teams[::-1]))
                wins += int(((r["done"] == 1) & (r["winner"] == side)).sum())
            else:
                r = play(config, seeds, ScriptedTeam(0, seed=1), ScriptedTeam(1, seed=2))
                decided = r["done"] == 1
                ended += int((decided & (r["minutes"] < 60.0)).sum())
                for team, names in enumerate((radiant_names, dire_names)):
                    for name in names:
                        hero_games[name] += int(decided.sum())
                        hero_wins[name] += int((decided & (r["winner"] == team)).sum())
            print(f"{kind} batch {b}: {radiant_names} vs {dire_names}: done {r['done'].tolist()} "
                  f"winner {r['winner'].tolist()} minutes {np.round(r['minutes'], 1).tolist()}", file=sys.stderr)
        if kind == "random":
            out["scripted_vs_random_wins"] = wins
        else:
            out["scripted_vs_scripted_ended_before_60"] = ended
            out["hero_win_rate"] = {n: (round(hero_wins[n] / hero_games[n], 3) if hero_games[n] else None,
                                        hero_games[n]) for n in hero_games}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
