"""Scoring every lineup once, in batches, into a file that survives a kill (``fivestack draft --precompute``).

The paper scored all 4,900,896 lineups of 17 heroes offline and drafted from that table; so does this. A
*scorer* is any callable ``scorer(radiant, dire) -> probabilities`` over arrays of shape (B, 5) of hero ids
(rows are lineups), returning Radiant's win probability per row; ``per_lineup(fn)`` adapts a function of one
lineup.

The table is two files:

* ``FILE.npy``: float32 of shape (C(n,5) * C(n-5,5),), entry ``r`` the win probability of the lineup of
  rank ``r`` (``fivestack/draft/lineups.py``: the combinatorial number system), written through a numpy
  memmap; plain ``.npy``, no pickle.
* ``FILE.progress.json``: the pool's names, the scorer's name, the batch size and ``scored``: every rank below
  it is in ``FILE.npy`` (flushed before ``scored`` is advanced, and the JSON is replaced atomically); and
  ``cpu_seconds`` / ``wall_seconds``, the scoring time so far summed over every process that resumed it (the
  precompute's cost, however many times it was interrupted).

Lineups are scored in rank order, one batch of ranks at a time: unrank (vectorised), score, write, flush,
advance ``scored``. A kill at any point loses at most the batch in flight; ``precompute`` on the same file
continues from ``scored`` (refusing if the pool or the scorer differ), so the finished table equals an
uninterrupted run's. ``load_table`` opens a finished table (memory-mapped) for the search. A rich progress bar
shows lineups scored, the rate and the time left.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from fivestack.draft.lineups import DraftError, HeroPool, LineupIndex, lineup_count

FORMAT = "fivestack-draft-table/1"
Scorer = Callable[[np.ndarray, np.ndarray], np.ndarray]


def progress_path(path: Path) -> Path:
    """FILE.npy -> FILE.progress.json."""
    path = Path(path)
    return path.with_name(path.stem + ".progress.json")


@dataclass
class LineupTable:
    """A table on disk: its pool, scorer name, how many ranks are scored, and the values (memory-mapped)."""

    path: Path
    pool: HeroPool
    scorer: str
    batch_size: int
    scored: int
    values: np.ndarray
    source: dict | None = None  # what made it, e.g. {"run": ..., "version": ...} for a policy's table
    cpu_seconds: float = 0.0  # scoring time so far, summed over every resume
    wall_seconds: float = 0.0

    @property
    def complete(self) -> bool:
        return self.scored == len(self.values)


def per_lineup(fn: Callable[[tuple, tuple], float]) -> Scorer:
    """A batched scorer from a function of one lineup ``fn(radiant_ids, dire_ids) -> probability``."""
    def scorer(radiant: np.ndarray, dire: np.ndarray) -> np.ndarray:
        return np.array([fn(tuple(r), tuple(d)) for r, d in zip(radiant.tolist(), dire.tolist())])
    return scorer


def _checked(scores, rows: int, scorer_name: str) -> np.ndarray:
    scores = np.asarray(scores, dtype=np.float64).reshape(-1)
    if scores.shape != (rows,):
        raise DraftError(f"scorer {scorer_name} returned {scores.size} values for a batch of {rows} lineups; it "
                         f"must return one Radiant win probability per row")
    if not np.all(np.isfinite(scores)) or scores.min() < 0.0 or scores.max() > 1.0:
        raise DraftError(f"scorer {scorer_name} returned a value outside [0, 1] (or NaN): win probabilities only")
    return scores


def score_all(n: int, scorer: Scorer, batch_size: int = 65536, scorer_name: str = "scorer") -> np.ndarray:
    """Every lineup's score in memory (float32, rank order): for small pools and tests; no file, no resume."""
    index = LineupIndex.of(n)
    out = np.empty(index.count, dtype=np.float32)
    for start in range(0, index.count, batch_size):
        stop = min(start + batch_size, index.count)
        out[start:stop] = _checked(scorer(*index.unrank(start, stop)), stop - start, scorer_name)
    return out


def _write_progress(path: Path, pool: HeroPool, scorer_name: str, batch_size: int, scored: int,
                    source: dict | None = None, cpu_seconds: float = 0.0, wall_seconds: float = 0.0) -> None:
    record = {"format": FORMAT, "pool": list(pool.names), "lineups": lineup_count(pool.n), "scorer": scorer_name,
              "batch_size": batch_size, "scored": scored, "cpu_seconds": round(cpu_seconds, 3),
              "wall_seconds": round(wall_seconds, 3)}
    if source:
        record["source"] = source
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as f:
        json.dump(record, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _scoring_time(record: dict) -> tuple[float, float]:
    """(cpu_seconds, wall_seconds) a progress record says were spent scoring (0 for a table made before they
    were recorded)."""
    return float(record.get("cpu_seconds", 0.0)), float(record.get("wall_seconds", 0.0))


def _read_progress(path: Path) -> dict:
    try:
        record = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise DraftError(f"cannot read the table's progress file {path} ({exc}); delete the table and "
                         f"precompute again") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise DraftError(f"{path} is not a fivestack draft progress file (format {FORMAT}); delete it or "
                         f"choose another --table")
    return record


def load_table(path: Path, require_complete: bool = True) -> LineupTable:
    """Opens a table (values memory-mapped, read-only). With ``require_complete``, a partial table is an error
    that says how to finish it."""
    path = Path(path)
    meta = progress_path(path)
    if not path.exists() or not meta.exists():
        raise DraftError(f"no lineup table at {path} (needs {path.name} and {meta.name}); make one with "
                         f"`fivestack draft --precompute --table {path} --pool ...`")
    record = _read_progress(meta)
    pool = HeroPool(tuple(record["pool"]))
    values = np.load(path, mmap_mode="r", allow_pickle=False)
    if values.dtype != np.float32 or values.shape != (lineup_count(pool.n),):
        raise DraftError(f"{path} holds {values.dtype} {values.shape}, but a table of {pool.n} heroes is float32 "
                         f"({lineup_count(pool.n)},); delete it and precompute again")
    table = LineupTable(path, pool, record["scorer"], int(record["batch_size"]), int(record["scored"]), values,
                        record.get("source"), *_scoring_time(record))
    if require_complete and not table.complete:
        raise DraftError(f"the table {path} is {table.scored:,} of {len(values):,} lineups scored (interrupted); "
                         f"finish it with the same `fivestack draft --precompute` command, which resumes")
    return table


def check_source(path: Path, recorded: dict | None, source: dict | None) -> None:
    """A table's recorded source (run, version, ...) must be the one asked for: one error naming both."""
    if source and recorded != source:
        said = ", ".join(f"{k} {v}" for k, v in (recorded or {}).items()) or "no run (a stub or another scorer)"
        want = ", ".join(f"{k} {v}" for k, v in source.items())
        raise DraftError(f"the table {path} was scored by {said}, not {want}; choose another --table (or leave it "
                         f"out for the run's own), or delete it to score it again")


def precompute(path: Path, pool: HeroPool, scorer: Scorer, scorer_name: str, batch_size: int = 65536,
               console: Console | None = None, show_progress: bool = True, source: dict | None = None) -> LineupTable:
    """Scores every lineup of ``pool`` into ``path`` (resuming a partial table made with the same pool and
    scorer, and ``source``, a JSON record of what made it, e.g. a run and version) and returns the finished
    table. An exception from the scorer leaves a valid partial table."""
    path, meta = Path(path), progress_path(Path(path))
    count = lineup_count(pool.n)
    if batch_size < 1:
        raise DraftError(f"batch size {batch_size} must be at least 1")
    if meta.exists():
        record = _read_progress(meta)
        check_source(path, record.get("source"), source)
        if list(record["pool"]) != list(pool.names) or record["scorer"] != scorer_name:
            raise DraftError(f"{path} was started for pool {record['pool']} with scorer {record['scorer']}, not "
                             f"pool {list(pool.names)} with {scorer_name}; resume it with the same pool and scorer, "
                             f"or delete it / choose another --table")
        scored, batch_size = int(record["scored"]), int(record["batch_size"])
        cpu_before, wall_before = _scoring_time(record)
        if not path.exists():
            if scored:
                raise DraftError(f"{meta} says {scored:,} lineups are scored but {path} is missing; delete {meta} "
                                 f"and precompute again")
            np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(count,)).flush()
    else:
        if path.exists():
            raise DraftError(f"{path} exists without its progress file {meta.name}; delete it or choose "
                             f"another --table")
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_progress(meta, pool, scorer_name, batch_size, 0, source)
        np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(count,)).flush()
        scored, cpu_before, wall_before = 0, 0.0, 0.0
    values = np.lib.format.open_memmap(path, mode="r+")
    index = LineupIndex.of(pool.n)
    columns = [TextColumn("[bold]scoring lineups"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]} lineups/s"), TimeElapsedColumn(), TextColumn("left"),
               TimeRemainingColumn()]
    with Progress(*columns, console=console, disable=not show_progress) as bar:
        task = bar.add_task("score", total=count, completed=scored, rate="-")
        started, cpu_started, done_here = time.perf_counter(), time.process_time(), 0
        while scored < count:
            stop = min(scored + batch_size, count)
            values[scored:stop] = _checked(scorer(*index.unrank(scored, stop)), stop - scored, scorer_name)
            values.flush()
            _write_progress(meta, pool, scorer_name, batch_size, stop, source,
                            cpu_seconds=cpu_before + time.process_time() - cpu_started,
                            wall_seconds=wall_before + time.perf_counter() - started)
            done_here += stop - scored
            scored = stop
            rate = done_here / max(time.perf_counter() - started, 1e-9)
            bar.update(task, completed=scored, rate=f"{rate:,.0f}")
    del values
    return load_table(path)
