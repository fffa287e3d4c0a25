"""Hero balance in the scripted meta: each hero's win rate over many scripted-vs-scripted games with random
lineups; prints ONE JSON line.

Every game draws its ten heroes from the patch's pool by its seed (``GameConfig(lineups="random")``: ten
distinct heroes, five a side), and both teams are the scripted bot, so a hero's win rate says how strong the
hero is *as the scripted bot plays it*, beside random teammates and against random enemies. A hero's win rate
counts its team's wins over the games it played (a game the time limit ended is a draw and counts 0 for both
sides), with a 95% Wilson interval; the balance bar is every hero inside [35%, 65%].

The seeds start at ``SEED_BASE`` (7,300,000): no tuning of the heroes used them, so the figure is not fitted
to them (re-check on others with ``--seed-base``).

Usage: ``python benchmarks/hero_balance.py [--games N] [--batch B] [--max-seconds S] [--seed-base K] [--patch V]
[--out FILE.json] [--markdown]`` (``--markdown`` prints the table of docs/benchmarks.md on stderr as well).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
from rich.progress import Progress

from bot_matches import Settings, play_batch, wilson
from fivestack.bots.scripted import ScriptedTeam
from fivestack.game.patch import HEROES, PATCH_VERSION

SEED_BASE = 7_300_000
BAR = (0.35, 0.65)


def hero_table(hero_types: np.ndarray, winner: np.ndarray, done: np.ndarray) -> list[dict]:
    """Per patch hero: games played, wins and draws of its team, the win rate (wins / games) and its interval.

    ``hero_types``: (games, 10) patch hero indices, Radiant slots 0-4; ``winner``: the winning team per game
    (-1 none); ``done``: 1 a side won, 2 the time limit ended it."""
    rows = []
    for index, hero in enumerate(HEROES):
        games = wins = draws = 0
        for g in range(hero_types.shape[0]):
            slots = np.flatnonzero(hero_types[g] == index)
            if slots.size == 0:
                continue
            team = int(slots[0] >= 5)
            games += 1
            wins += int(done[g] == 1 and winner[g] == team)
            draws += int(done[g] != 1)
        low, high = wilson(wins, games)
        rows.append({"hero": hero.name, "role": hero.role, "games": games, "wins": wins, "draws": draws,
                     "win_rate": round(wins / games, 4) if games else None,
                     "ci95": [round(low, 4), round(high, 4)]})
    return rows


def markdown(rows: list[dict]) -> str:
    lines = ["| hero | role | games | win rate [95% interval] | draws |", "|---|---|---|---|---|"]
    for r in rows:
        rate = "-" if r["win_rate"] is None else f"{100 * r['win_rate']:.1f}% [{100 * r['ci95'][0]:.1f}, " \
                                                 f"{100 * r['ci95'][1]:.1f}]"
        lines.append(f"| {r['hero']} | {r['role']} | {r['games']} | {rate} | {r['draws']} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400, help="games (default 400)")
    ap.add_argument("--batch", type=int, default=100, help="games stepped together (default 100)")
    ap.add_argument("--max-seconds", type=float, default=3600.0, help="game time limit (default 3600)")
    ap.add_argument("--seed-base", type=int, default=SEED_BASE, help=f"first seed (default {SEED_BASE})")
    ap.add_argument("--patch", default=PATCH_VERSION, help=f"patch version (default {PATCH_VERSION}, the default game)")
    ap.add_argument("--out", default=None, help="also write the result to this JSON file")
    ap.add_argument("--markdown", action="store_true", help="print the docs/benchmarks.md table on stderr")
    args = ap.parse_args(argv)
    if args.games < 1 or args.batch < 1:
        print("--games and --batch must be at least 1", file=sys.stderr)
        return 2
    start = time.perf_counter()
    types, winners, dones, minutes = [], [], [], []
    with Progress(transient=True) as progress:
        task = progress.add_task("scripted vs scripted, random lineups", total=args.games)
        for first in range(0, args.games, args.batch):
            seeds = args.seed_base + np.arange(first, min(first + args.batch, args.games))
            r = play_batch(seeds, ScriptedTeam(0, seed=1), ScriptedTeam(1, seed=2), args.max_seconds,
                           settings=Settings(lineups="random", patch=args.patch))
            types.append(r["hero_types"])
            winners.append(r["winner"])
            dones.append(r["done"])
            minutes.append(r["minutes"])
            progress.advance(task, len(seeds))
    hero_types, winner, done = np.concatenate(types), np.concatenate(winners), np.concatenate(dones)
    rows = hero_table(hero_types, winner, done)
    rates = [r["win_rate"] for r in rows if r["win_rate"] is not None]
    result = {
        "games": args.games, "seeds": f"{args.seed_base}..{args.seed_base + args.games - 1}",
        "max_seconds": args.max_seconds, "heroes": len(HEROES), "patch": args.patch,
        "decided_share": round(float((done == 1).mean()), 4),
        "radiant_win_share": round(float(((done == 1) & (winner == 0)).mean()), 4),
        "mean_minutes": round(float(np.concatenate(minutes).mean()), 2),
        "bar": list(BAR), "min_win_rate": min(rates), "max_win_rate": max(rates),
        "all_inside_bar": all(BAR[0] <= r <= BAR[1] for r in rates) and len(rates) == len(HEROES),
        "per_hero": rows, "wall_seconds": round(time.perf_counter() - start, 1),
    }
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
    if args.markdown:
        print(markdown(rows), file=sys.stderr)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
