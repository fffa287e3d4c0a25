"""Where arena games are kept, and the record of a trained team against people.

Each finished arena game appends one JSON line to ``DIR/arena.jsonl`` and saves its replay under ``DIR/arena/``.
``DIR`` is the run folder of the trained version played against (``RUN[:VERSION]``), so that a run's record
against people lives beside its checkpoints, or ``runs/arena-NAME`` for a bot or the shipped hero.

    append_result(dir, record)     one line, flushed and fsynced (a crash loses at most the game being written)
    read_results(dir)              the lines, each checked; a damaged line is one clear error naming file and line
    record_stats(dir)              the opponent's record against people: games, wins, losses, draws, win rate
                                   with its 95% Wilson interval
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from fivestack.match.agents import is_run_spec, parse_run_spec
from fivestack.match.games import wilson_interval

RESULTS_FILE = "arena.jsonl"
OUTCOMES = ("win", "loss", "draw")  # the player's
REQUIRED = ("against", "mode", "outcome", "steps")


def results_dir_for(against: str, runs_dir: str | Path = "runs") -> Path:
    """The folder an arena game against ``against`` writes to (see the module docstring)."""
    if is_run_spec(against):
        return parse_run_spec(against)[0]
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in against)
    return Path(runs_dir) / f"arena-{safe}"


def append_result(directory: str | Path, record: dict) -> Path:
    """Append one game to ``directory/arena.jsonl``."""
    path = Path(directory) / RESULTS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(record, separators=(",", ":"), allow_nan=False) + "\n"
    with open(path, "a", encoding="utf-8") as f:
        f.write(line)
        f.flush()
        os.fsync(f.fileno())
    return path


def read_results(directory: str | Path) -> list[dict]:
    """Every game of ``directory/arena.jsonl``; ``ValueError`` naming the file and line of a damaged entry."""
    path = Path(directory) / RESULTS_FILE
    if not path.is_file():
        raise ValueError(f"{path} does not exist: no arena game was played against this run yet "
                         "(play one with `fivestack arena --against RUN`)")
    out = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                raise ValueError(f"{path}:{number} is not JSON; remove or repair that line") from None
            if not isinstance(record, dict) or any(k not in record for k in REQUIRED) \
                    or record["outcome"] not in OUTCOMES:
                raise ValueError(f"{path}:{number} is not an arena result (needs {', '.join(REQUIRED)} and an "
                                 f"outcome in {OUTCOMES}); remove or repair that line")
            out.append(record)
    return out


def record_stats(directory: str | Path) -> dict:
    """The trained team's (or bot's) record against people in ``directory``: a person's loss is its win."""
    results = read_results(directory)
    games = len(results)
    wins = sum(r["outcome"] == "loss" for r in results)
    losses = sum(r["outcome"] == "win" for r in results)
    draws = games - wins - losses
    low, high = wilson_interval(wins, games) if games else (0.0, 1.0)
    by_mode = {}
    for mode in sorted({r["mode"] for r in results}):
        sub = [r for r in results if r["mode"] == mode]
        by_mode[mode] = {"games": len(sub), "wins": sum(r["outcome"] == "loss" for r in sub)}
    return {"games": games, "wins": wins, "losses": losses, "draws": draws,
            "win_rate": wins / games if games else None, "interval95": [low, high], "by_mode": by_mode,
            "left_early": sum(r.get("reason") in ("left", "closed") for r in results)}


def format_stats(directory: str | Path, stats: dict) -> str:
    """The record as the CLI prints it."""
    if not stats["games"]:
        return f"{directory}: no arena games yet"
    low, high = stats["interval95"]
    modes = ", ".join(f"{m}: {v['wins']}/{v['games']}" for m, v in stats["by_mode"].items())
    return (f"{directory}: won {stats['wins']} of {stats['games']} games against people "
            f"({100 * stats['win_rate']:.1f}%, 95% interval {100 * low:.1f}-{100 * high:.1f}%), "
            f"lost {stats['losses']}, drew {stats['draws']} ({modes}); "
            f"{stats['left_early']} ended by the person leaving")


__all__ = ["RESULTS_FILE", "append_result", "format_stats", "read_results", "record_stats", "results_dir_for"]
