"""Calibration of a run's win-probability head (issue 13, Done-when 4); prints ONE JSON line and writes the report
(JSON) and a reliability plot (PNG).

    python benchmarks/win_calibration.py RUN[:VERSION]|trained [--games 500] [--mode 5v5|1v1] [--max-minutes 20]
        [--opponents self,random,scripted] [--lineups fixed|random] [--every-minutes 2] [--chunk 100]
        [--seed 0] [--out DIR]

``trained``: the 1v1 policy that ships for ``fivestack arena`` (``fivestack/match/trained``; report under
``runs/arena-trained/calibration`` unless ``--out``).

Games: ``--games`` in all, dealt round-robin over ``--opponents`` (``self``: the policy on both sides, ``random``,
``scripted``, ``scripted-weak``); against a bot the policy plays Radiant in every other game of that opponent.
The policy samples its actions (as in training; ``--greedy`` for its most likely ones) and decides every
``rollout.decision_steps`` timesteps as its run trained it. Game g is reset with seed ``seed + g``.

What is recorded, per game and per team the policy plays (both teams of a ``self`` game: two records, one per
side, of one outcome each): its prediction, the mean over the team's heroes in play of the win-probability
head's output (each hero's probability that its team wins), at the team's first decision (t = 0, the first
frames: what drafting reads) and at its first decision at or after each ``--every-minutes`` mark while the game
runs (a game that has ended before a mark has no record there: the counts say how many games reached it); and
the outcome: 1 if the team won, 0 if it lost or the game reached ``--max-minutes`` (a truncated game is not a
win).

Report (``fivestack.draft.calibration``), per time mark: 10 equal-width bins of the prediction with the count,
mean prediction, observed win frequency and its 95% Wilson interval; the Brier score and the expected
calibration error. Also per opponent at t = 0.

Resumable: games are played ``--chunk`` at a time (one batched env each, all of the chunk's games wide) and each
chunk's records are written to ``OUT/chunk-I.json``; a rerun with the same arguments skips the chunks on disk.
``agent_steps`` counts the policy's hero-timesteps (what the games cost in the policy's forward passes' terms).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import fields
from pathlib import Path

import numpy as np
import torch
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from fivestack.bots.agents import BOTS, make_bot
from fivestack.draft.calibration import calibration, reliability_plot
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.match.agents import PolicyTeamAgent, load_run_policy, parse_run_spec
from fivestack.match.games import Seat, play_to_end

OPPONENTS = ("self",) + tuple(BOTS)


class RecordingPolicyAgent(PolicyTeamAgent):
    """A ``PolicyTeamAgent`` that keeps its team's prediction (mean win probability of its heroes) at the first
    decision at or after each time mark (seconds) of each game."""

    def __init__(self, *args, marks: np.ndarray, n_games: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.marks = marks
        self.predicted = np.full((n_games, len(marks)), np.nan)

    def act(self, env, games=None):
        rows = np.arange(env.n_games) if games is None else np.asarray(games, np.int64).reshape(-1)
        if self.steps_played is not None:
            rows = rows[self.steps_played[rows] % self.decision_steps == 0]
        out = super().act(env, games)
        if rows.size:
            p = np.asarray(self.last_result.win_prob, np.float64).mean(axis=1)  # (rows,)
            seconds = env.game.seconds[rows]
            for j, mark in enumerate(self.marks):
                fill = np.isnan(self.predicted[rows, j]) & (seconds >= mark) & (seconds < mark + 60.0)
                self.predicted[rows[fill], j] = p[fill]
        return out


def play_chunk(policy, config, games: np.ndarray, opponents: list[str], args, marks: np.ndarray, progress) -> dict:
    """Plays the games ``games`` (global indices) in one env; returns their records."""
    n = len(games)
    mode = args.mode or config.game.mode
    game_config = dict(mode=mode, max_seconds=args.max_minutes * 60.0, patch=config.game.patch)
    if args.lineups == "random":
        if "lineups" not in {f.name for f in fields(GameConfig)}:
            raise SystemExit("--lineups random needs games with random lineups (GameConfig.lineups), which this "
                             "fivestack does not have yet; use --lineups fixed")
        game_config["lineups"] = "random"
    env = BatchedEnv(n, GameConfig(**game_config))
    env.reset(np.asarray(args.seed + games, np.uint64))
    kind = np.array([opponents[g % len(opponents)] for g in games])
    # against a bot, the policy is Radiant in every other game of that opponent; in self-play, both sides
    turn = np.array([(g // len(opponents)) % 2 for g in games])
    policy_side = np.where(kind == "self", -1, turn)  # -1: both
    seats, agents = [], {}
    for side in (0, 1):
        mine = np.flatnonzero((policy_side == side) | (policy_side == -1))
        if mine.size:
            agents[side] = RecordingPolicyAgent(side, policy, mode, args.seed + side, args.greedy,
                                                config.rollout.decision_steps, marks=marks, n_games=n)
            seats.append(Seat(agents[side], side, mine))
        for bot in set(kind[policy_side == 1 - side]):
            theirs = np.flatnonzero((kind == bot) & (policy_side == 1 - side))
            seats.append(Seat(make_bot(bot, side, args.seed + side), side, theirs))
    last = [0]

    def on_step(finished):
        done = int(finished.sum())
        progress(done - last[0], float(env.game.seconds.max()) / 60.0)
        last[0] = done

    played = play_to_end(env, seats, on_step=on_step)
    records = []
    for side, agent in agents.items():
        rows = np.flatnonzero((policy_side == side) | (policy_side == -1))
        for g in rows:
            records.append({"game": int(games[g]), "opponent": str(kind[g]), "side": side,
                            "won": int(played.winner[g] == side), "truncated": int(played.winner[g] < 0),
                            "minutes": float(played.minutes[g]),
                            "predicted": [None if np.isnan(v) else float(v) for v in agent.predicted[g]]})
    agent_steps = int(sum(played.timesteps[seat.games].sum() * len(seat.agent.heroes) for seat in seats
                          if isinstance(seat.agent, PolicyTeamAgent)))
    return {"records": records, "agent_steps": agent_steps}


def report(records: list[dict], marks: np.ndarray) -> dict:
    out = {"by_time": {}, "by_opponent_t0": {}}
    for j, mark in enumerate(marks):
        rows = [r for r in records if r["predicted"][j] is not None]
        out["by_time"][f"{mark / 60:g} min"] = calibration([r["predicted"][j] for r in rows],
                                                           [r["won"] for r in rows])
    for opponent in sorted({r["opponent"] for r in records}):
        rows = [r for r in records if r["opponent"] == opponent and r["predicted"][0] is not None]
        out["by_opponent_t0"][opponent] = calibration([r["predicted"][0] for r in rows], [r["won"] for r in rows])
    return out


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run")
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--mode", default=None, help="5v5 or 1v1 (default: the run's)")
    parser.add_argument("--max-minutes", type=float, default=20.0)
    parser.add_argument("--opponents", default="self,random,scripted")
    parser.add_argument("--lineups", default="fixed", choices=("fixed", "random"))
    parser.add_argument("--every-minutes", type=float, default=2.0)
    parser.add_argument("--chunk", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--greedy", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    unknown = [o for o in opponents if o not in OPPONENTS]
    if unknown or not opponents:
        raise SystemExit(f"--opponents {unknown or args.opponents!r}: choose from {', '.join(OPPONENTS)}")
    if args.games < 1 or args.chunk < 1 or args.max_minutes <= 0 or args.every_minutes <= 0:
        raise SystemExit("--games, --chunk, --max-minutes and --every-minutes must be positive")
    try:
        if args.run == "trained":  # the 1v1 policy that ships for the arena (not a run folder)
            from fivestack.match.agents import load_trained_policy
            from fivestack.runs.config import load_config

            policy, info = load_trained_policy()
            config = load_config(None, [f"game.mode='{info['mode']}'",
                                        f"rollout.decision_steps={int(info['decision_steps'])}"])
            version, run = int(info["trained"]["version"]), Path("runs/arena-trained")
        else:
            policy, config, version = load_run_policy(args.run)
            run = parse_run_spec(args.run)[0]
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    tag = (f"v{version}-{args.mode or config.game.mode}-{args.lineups}-{'+'.join(opponents)}-{args.max_minutes:g}min"
           f"-seed{args.seed}{'-greedy' if args.greedy else ''}")
    out = args.out or run / "calibration" / tag
    out.mkdir(parents=True, exist_ok=True)
    marks = np.arange(0.0, args.max_minutes * 60.0, args.every_minutes * 60.0)
    chunks = [np.arange(s, min(s + args.chunk, args.games)) for s in range(0, args.games, args.chunk)]
    console = Console(stderr=True, highlight=False)
    wall, cpu = time.perf_counter(), time.process_time()
    columns = [TextColumn("[bold]calibration games"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[minutes]:.1f} game min"), TimeElapsedColumn()]
    results = []
    with Progress(*columns, console=console) as bar:
        task = bar.add_task("games", total=args.games, minutes=0.0)
        for i, games in enumerate(chunks):
            path = out / f"chunk-{i}.json"
            if path.exists():
                results.append(json.loads(path.read_text()))
                bar.advance(task, len(games))
                continue
            chunk = play_chunk(policy, config, games, opponents, args, marks,
                               lambda done, minutes: bar.update(task, advance=done, minutes=minutes))
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(json.dumps(chunk))
            tmp.replace(path)
            results.append(chunk)
    records = [r for chunk in results for r in chunk["records"]]
    result = {"benchmark": "win_calibration", "run": str(run), "version": version,
              "mode": args.mode or config.game.mode, "lineups": args.lineups, "opponents": opponents,
              "games": args.games, "max_minutes": args.max_minutes, "seed": args.seed,
              "policy": "greedy" if args.greedy else "sampled",
              "prediction": "mean over the team's heroes of the win head's output at its first decision at or "
                            "after each mark",
              "truncated_is_loss": True, "records": len(records),
              "truncated_games": len({r["game"] for r in records if r["truncated"]}),
              "agent_steps": sum(c["agent_steps"] for c in results),
              "wall_s_this_call": round(time.perf_counter() - wall, 1),
              "cpu_s_this_call": round(time.process_time() - cpu, 1), **report(records, marks)}
    (out / "report.json").write_text(json.dumps(result, indent=1))
    shown = {k: v for k, v in result["by_time"].items() if v["count"]}
    reliability_plot(shown, out / "reliability.png", title=f"{run.name} v{version}: win head calibration")
    summary = {k: v for k, v in result.items() if k not in ("by_time", "by_opponent_t0")}
    summary["by_time"] = {k: {"count": v["count"], "brier": v["brier"], "ece": v["ece"]}
                          for k, v in result["by_time"].items()}
    summary["report"] = str(out / "report.json")
    print(json.dumps(summary))
    return result


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
