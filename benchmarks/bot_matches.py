"""Matches between the engine-level reference teams; prints ONE JSON line.

* ``scripted_vs_random``: the scripted team against the uniform random team; the scripted side
  alternates (Radiant in even games, Dire in odd games). Seeds ``SEED_BASE_RANDOM + i``.
* ``scripted_vs_scripted``: the scripted team against itself; how many games end by an ancient's fall
  before 60 game-minutes, and how long games last. Seeds ``SEED_BASE_SCRIPTED + i``.
* ``bot_speed``: game-steps per second of the scripted decision kernel alone (both teams), beside the
  simulator's own game-steps per second in the same games.
* ``reference_idle_vs_idle``: for context, the one (deterministic) game in which neither team acts: lane
  creeps alone decide it, so a game length near it says that creeps, not heroes, ended the game.
* ``scripted_vs_weak``: the scripted team against ``scripted-weak`` (half its orders the random team's), through
  the match loop (``match.games.play_games`` with seed ``WEAK_SEED``, half the games on each side).

Every match-up reports the scripted side's deaths a game split by the unit that dealt the killing blow (lane creeps,
towers, heroes: ``match.games.TEAM_STATS``). ``--mode 1v1`` plays 1v1 mid (600 game seconds unless
``--max-seconds``); ``--patch`` a patch version (default: the default game); ``--decision-steps K`` has the scripted
team decide every K timesteps, as a policy of ``rollout.decision_steps = K`` does, its heroes keeping their orders
in between.

Usage: ``python benchmarks/bot_matches.py [--games N] [--batch B] [--max-seconds S] [--only random|scripted|weak]
[--lineups fixed|random] [--mode 5v5|1v1] [--patch V] [--decision-steps K]`` (random lineups: each game's ten
heroes drawn from the patch's pool by its seed). Rates carry Wilson 95% confidence intervals.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numpy as np

from fivestack.bots.agents import ScriptedTeamAgent, WeakScriptedTeamAgent
from fivestack.bots.random_team import RandomTeam
from fivestack.bots.scripted import ScriptedTeam
from fivestack.game.engine import GameBatch, GameConfig
from fivestack.game.layout import (
    DEATHS, DEATHS_TO_CREEPS, DEATHS_TO_HEROES, DEATHS_TO_TOWERS, FRAMES_PER_SECOND, G_TOWERS_LOST0, HERO_TYPE,
    HEROES_PER_TEAM, INVALID_ACTIONS, KILLS, LAST_HITS, LEVEL, N_HEROES, NO_ORDER,
)
from fivestack.game.patch import PATCH_VERSION
from fivestack.match.games import play_games
from fivestack.match.teams import decides

SEED_BASE_RANDOM = 10_000
SEED_BASE_SCRIPTED = 20_000
WEAK_SEED = 3  # play_games seed of scripted_vs_weak
KILLERS = {"creeps": DEATHS_TO_CREEPS, "towers": DEATHS_TO_TOWERS, "heroes": DEATHS_TO_HEROES}


class EveryKSteps:
    """An engine-level team (``act(game, out)``) that decides every ``k`` timesteps (``match.teams.decides``); in
    between its heroes get no orders and keep the ones they have, as a policy's do."""

    def __init__(self, bot, k: int):
        self.bot, self.k, self.team = bot, k, bot.team
        self.step = 0

    def act(self, game: GameBatch, out: np.ndarray) -> None:
        if decides(self.step, self.k):
            self.bot.act(game, out)
        else:
            out[:, self.team * HEROES_PER_TEAM:(self.team + 1) * HEROES_PER_TEAM] = NO_ORDER
        self.step += 1


class Settings:
    """The game and the scripted team's decision rate every match-up of one run plays with."""

    def __init__(self, mode: str = "5v5", patch: str = PATCH_VERSION, decision_steps: int = 1,
                 lineups: str = "fixed"):
        self.mode, self.patch, self.decision_steps, self.lineups = mode, patch, decision_steps, lineups

    def scripted(self, team: int, seed: int):
        bot = ScriptedTeam(team, seed=seed)
        return bot if self.decision_steps == 1 else EveryKSteps(bot, self.decision_steps)

    def config(self, max_seconds: float) -> GameConfig:
        return GameConfig(mode=self.mode, max_seconds=max_seconds, lineups=self.lineups, patch=self.patch)


def deaths_by_killer(hi: np.ndarray, team: int) -> dict[str, np.ndarray]:
    """Per game, team ``team``'s hero deaths in all and by the unit of the killing blow."""
    heroes = slice(team * HEROES_PER_TEAM, (team + 1) * HEROES_PER_TEAM)
    out = {"all": hi[:, heroes, DEATHS].sum(1)}
    out.update({name: hi[:, heroes, column].sum(1) for name, column in KILLERS.items()})
    return out


def mean_deaths(per_game: list[dict[str, np.ndarray]]) -> dict[str, float]:
    """Deaths a game (all, and to creeps, towers, heroes) over the batches' games."""
    return {name: round(float(np.mean(np.concatenate([d[name] for d in per_game]))), 3) for name in per_game[0]}


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def play_batch(seeds, radiant, dire, max_seconds: float = 3600.0, timing: dict | None = None,
               settings: Settings | None = None) -> dict:
    """Play ``len(seeds)`` games at once to the end; per-game results as arrays (``hero_types``: each game's
    ten heroes, patch hero indices, Radiant first). ``settings``: the mode, patch and lineups (``GameConfig``;
    random lineups: each game's ten heroes drawn from the patch's pool by its seed)."""
    n = len(seeds)
    game = GameBatch(n, (settings or Settings()).config(max_seconds))
    game.reset(np.asarray(seeds, dtype=np.uint64))
    actions = np.zeros((n, N_HEROES, 5), np.int64)
    actions[..., 2] = -1
    actions[..., 3:] = 4
    t_bot = 0.0
    t_sim = 0.0
    steps = 0
    while (game.done == 0).any():
        running = int((game.done == 0).sum())
        t0 = time.perf_counter()
        radiant.act(game, actions)
        dire.act(game, actions)
        t1 = time.perf_counter()
        game.step(actions)
        t2 = time.perf_counter()
        t_bot += t1 - t0
        t_sim += t2 - t1
        steps += running
    if timing is not None:
        timing["bot_s"] = timing.get("bot_s", 0.0) + t_bot
        timing["sim_s"] = timing.get("sim_s", 0.0) + t_sim
        timing["game_steps"] = timing.get("game_steps", 0) + steps
    S = game.state
    hi = S.hi
    return {
        "hero_types": hi[:, :, HERO_TYPE].copy(),
        "done": game.done.copy(),
        "winner": game.winner.copy(),
        "minutes": game.frame / (60.0 * FRAMES_PER_SECOND),
        "towers_lost": S.gi[:, G_TOWERS_LOST0:G_TOWERS_LOST0 + 2].copy(),
        "kills": np.stack([hi[:, :5, KILLS].sum(1), hi[:, 5:, KILLS].sum(1)], 1),
        "deaths": np.stack([hi[:, :5, DEATHS].sum(1), hi[:, 5:, DEATHS].sum(1)], 1),
        "last_hits": np.stack([hi[:, :5, LAST_HITS].sum(1), hi[:, 5:, LAST_HITS].sum(1)], 1),
        "levels": np.stack([hi[:, :5, LEVEL].mean(1), hi[:, 5:, LEVEL].mean(1)], 1),
        "invalid": np.stack([hi[:, :5, INVALID_ACTIONS].sum(1), hi[:, 5:, INVALID_ACTIONS].sum(1)], 1),
        "deaths_by_killer": (deaths_by_killer(hi, 0), deaths_by_killer(hi, 1)),
    }


def scripted_vs_random(n_games: int, batch: int, max_seconds: float, timing: dict, settings: Settings) -> dict:
    wins = 0
    draws = 0
    minutes = []
    scripted_deaths = []
    scripted_invalid = 0
    random_levels = []
    scripted_levels = []
    for start in range(0, n_games, batch):
        seeds = np.arange(start, min(start + batch, n_games)) + SEED_BASE_RANDOM
        for side in (0, 1):  # scripted plays Radiant in even games, Dire in odd ones
            idx = [i for i, s in enumerate(seeds) if (s - SEED_BASE_RANDOM) % 2 == side]
            if not idx:
                continue
            sub = seeds[idx]
            teams = [settings.scripted(side, 1), RandomTeam(1 - side, seed=int(sub[0]))]
            radiant, dire = (teams[0], teams[1]) if side == 0 else (teams[1], teams[0])
            r = play_batch(sub, radiant, dire, max_seconds, timing, settings)
            won = (r["done"] == 1) & (r["winner"] == side)
            wins += int(won.sum())
            draws += int((r["done"] != 1).sum())
            scripted_deaths.append(r["deaths_by_killer"][side])
            minutes += list(r["minutes"][r["done"] == 1])
            scripted_invalid += int(r["invalid"][:, side].sum())
            scripted_levels += list(r["levels"][:, side])
            random_levels += list(r["levels"][:, 1 - side])
    lo, hi = wilson(wins, n_games)
    return {
        "games": n_games, "wins": wins, "win_rate": round(wins / n_games, 4), "ci95": [round(lo, 4), round(hi, 4)],
        "draws": draws, "seeds": f"{SEED_BASE_RANDOM}..{SEED_BASE_RANDOM + n_games - 1}",
        "scripted_deaths_per_game": mean_deaths(scripted_deaths),
        "scripted_side": "Radiant for even seeds, Dire for odd",
        "mean_minutes_when_ended": round(float(np.mean(minutes)), 2) if minutes else None,
        "scripted_invalid_actions": scripted_invalid,
        "mean_level_scripted": round(float(np.mean(scripted_levels)), 2),
        "mean_level_random": round(float(np.mean(random_levels)), 2),
    }


def scripted_vs_scripted(n_games: int, batch: int, max_seconds: float, timing: dict, settings: Settings) -> dict:
    ended = 0
    radiant_wins = 0
    minutes = []
    minutes_ended = []
    kills = []
    towers = []
    invalid = 0
    for start in range(0, n_games, batch):
        seeds = np.arange(start, min(start + batch, n_games)) + SEED_BASE_SCRIPTED
        r = play_batch(seeds, settings.scripted(0, 1), settings.scripted(1, 2), max_seconds, timing, settings)
        fell = (r["done"] == 1) & (r["minutes"] < 60.0)
        ended += int(fell.sum())
        radiant_wins += int(((r["done"] == 1) & (r["winner"] == 0)).sum())
        minutes += list(r["minutes"])
        minutes_ended += list(r["minutes"][fell])
        kills += list(r["kills"].sum(1))
        towers += list(r["towers_lost"].sum(1))
        invalid += int(r["invalid"].sum())
    lo, hi = wilson(ended, n_games)
    return {
        "games": n_games, "ended_by_ancient_before_60min": ended, "rate": round(ended / n_games, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "seeds": f"{SEED_BASE_SCRIPTED}..{SEED_BASE_SCRIPTED + n_games - 1}",
        "mean_minutes": round(float(np.mean(minutes)), 2),
        "mean_minutes_when_ended": round(float(np.mean(minutes_ended)), 2) if minutes_ended else None,
        "median_minutes": round(float(np.median(minutes)), 2),
        "minutes_p10_p90": [round(float(np.percentile(minutes, 10)), 2), round(float(np.percentile(minutes, 90)), 2)],
        "share_15_to_30_minutes": round(float(np.mean((np.array(minutes) >= 15) & (np.array(minutes) <= 30))), 4),
        "radiant_wins": radiant_wins,
        "mean_kills": round(float(np.mean(kills)), 2),
        "mean_towers_lost": round(float(np.mean(towers)), 2),
        "invalid_actions": invalid,
    }


class IdleTeam:
    """Never acts (every action a no-op)."""

    def __init__(self, team: int):
        self.team = team

    def act(self, game: GameBatch, out: np.ndarray) -> None:
        out[:, 5 * self.team:5 * self.team + 5] = (0, 0, -1, 4, 4)


def idle_vs_idle(max_seconds: float, settings: Settings) -> dict:
    r = play_batch([SEED_BASE_SCRIPTED], IdleTeam(0), IdleTeam(1), max_seconds, settings=settings)
    return {"minutes": round(float(r["minutes"][0]), 2), "ended_by_ancient": bool(r["done"][0] == 1),
            "winner": int(r["winner"][0])}


def scripted_vs_weak(n_games: int, max_seconds: float, settings: Settings) -> dict:
    """The scripted team against scripted-weak through the match loop, half the games on each side."""
    if settings.decision_steps != 1 or settings.lineups != "fixed":
        raise SystemExit("--only weak plays the scripted team as the match loop has it: every timestep, fixed lineups")
    r = play_games(lambda side: ScriptedTeamAgent(side, 1), lambda side: WeakScriptedTeamAgent(side, 2), n_games,
                   settings.mode, max_seconds, WEAK_SEED, patch=settings.patch)
    wins = int((r.winner == r.a_side).sum())
    lo, hi = wilson(wins, n_games)
    stats = {name: round(float(np.mean(r.a_stats[name])), 3) for name in ("deaths", "deaths_to_creeps",
                                                                          "deaths_to_towers", "deaths_to_heroes")}
    return {"games": n_games, "wins": wins, "win_rate": round(wins / n_games, 4), "ci95": [round(lo, 4), round(hi, 4)],
            "draws": int((r.winner < 0).sum()), "play_games_seed": WEAK_SEED, "scripted_deaths_per_game": stats}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="games per match-up (default 200)")
    ap.add_argument("--batch", type=int, default=100, help="games stepped together (default 100)")
    ap.add_argument("--max-seconds", type=float, default=None, help="game time limit (default 3600; 1v1 600)")
    ap.add_argument("--only", choices=("random", "scripted", "weak"), default=None, help="play one match-up only")
    ap.add_argument("--mode", choices=("5v5", "1v1"), default="5v5")
    ap.add_argument("--patch", default=PATCH_VERSION, help=f"patch version (default {PATCH_VERSION}, the default game)")
    ap.add_argument("--decision-steps", type=int, default=1,
                    help="the scripted team decides every K timesteps (default 1: every one)")
    ap.add_argument("--lineups", choices=("fixed", "random"), default="fixed",
                    help="fixed: the default lineups; random: each game's ten heroes drawn from the pool by its seed")
    args = ap.parse_args(argv)
    if args.games < 1 or args.batch < 1 or args.decision_steps < 1:
        print("--games, --batch and --decision-steps must be at least 1", file=sys.stderr)
        return 2
    if args.max_seconds is None:
        args.max_seconds = 600.0 if args.mode == "1v1" else 3600.0
    settings = Settings(args.mode, args.patch, args.decision_steps, args.lineups)
    result: dict = {"max_seconds": args.max_seconds, "lineups": args.lineups, "mode": args.mode, "patch": args.patch,
                    "scripted_decision_steps": args.decision_steps}
    t0 = time.perf_counter()
    timing: dict = {}
    if args.only in (None, "random"):
        result["scripted_vs_random"] = scripted_vs_random(args.games, args.batch, args.max_seconds, {}, settings)
    if args.only in (None, "scripted"):
        result["scripted_vs_scripted"] = scripted_vs_scripted(args.games, args.batch, args.max_seconds, timing, settings)
        steps = timing["game_steps"]
        result["bot_speed"] = {
            "game_steps": steps,
            "scripted_both_teams_game_steps_per_s": round(steps / max(timing["bot_s"], 1e-9), 1),
            "simulator_game_steps_per_s": round(steps / max(timing["sim_s"], 1e-9), 1),
        }
        result["reference_idle_vs_idle"] = idle_vs_idle(args.max_seconds, settings)
    if args.only == "weak":
        result["scripted_vs_weak"] = scripted_vs_weak(args.games, args.max_seconds, settings)
    result["wall_seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
