"""``fivestack draft RUN[:VERSION]``: score a run's lineups with its policy (once, resumable), then draft.

``draft_run(spec, ...)``:

1. resolves the run's version as ``fivestack play`` does (``fivestack.match.agents.load_run_policy``) and builds
   its ``PolicyScorer`` (``fivestack/draft/policy_scorer.py``: the win probability at the first frame);
2. the table: ``--table FILE``, else ``RUN/draft/vVERSION.npy`` (the patch's whole pool) or
   ``RUN/draft/vVERSION-pool-TAG.npy`` (a ``--pool`` of some of its heroes). Its progress file records the
   source ``{"run": NAME, "version": V}``; a table of another run or version, pool or scorer is refused with one
   error. An unfinished table is scored (every lineup in batches, with a rich progress bar; a kill loses at most
   one batch and the same command resumes);
3. unless ``precompute_only``, the interactive draft on it (``fivestack.draft.play.run_draft``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TextIO

from rich.console import Console

from fivestack.draft.lineups import DraftError
from fivestack.draft.play import HUMAN_SIDES, run_draft
from fivestack.draft.policy_scorer import PolicyScorer, pool_tag
from fivestack.draft.precompute import check_source, load_table, precompute, progress_path
from fivestack.draft.search import Drafter


def default_table(run: Path, version: int, scorer: PolicyScorer) -> Path:
    """Where a run's table lives unless ``--table`` says otherwise."""
    whole = [h.name for h in scorer.patch.heroes] == list(scorer.pool.names)
    return run / "draft" / (f"v{version}.npy" if whole else f"v{version}-pool-{pool_tag(scorer.pool)}.npy")


def draft_run(spec: str, table: Path | None = None, pool: str | None = None, precompute_only: bool = False,
              batch_size: int = 4096, scorer_batch: int = 64, seed: int = 0,
              first: str = "radiant", human: str = "radiant", stdin: TextIO | None = None,
              out: TextIO | None = None, show_progress: bool = True) -> Path:
    """What ``fivestack draft RUN[:VERSION]`` runs (see the module docstring); returns the table's path. Raises
    ``DraftError`` for a user mistake."""
    from fivestack.match.agents import parse_run_spec

    out = out or sys.stdout
    if first not in ("radiant", "dire"):
        raise DraftError(f"--first must be radiant or dire, not {first!r}")
    if human not in HUMAN_SIDES:
        raise DraftError(f"--human must be radiant, dire or none, not {human!r}")
    try:
        run = parse_run_spec(spec)[0]
    except ValueError as exc:
        raise DraftError(str(exc)) from None
    console = Console(stderr=True, highlight=False)
    scorer, version = PolicyScorer.from_run(spec, pool, seed=seed, batch=scorer_batch)
    table = Path(table) if table is not None else default_table(run, version, scorer)
    source = {"run": run.resolve().name, "version": version}
    score_and_draft(scorer, table, source, precompute_only, batch_size, first, human, stdin, out, console,
                    show_progress)
    return table


def score_and_draft(scorer: PolicyScorer, table: Path, source: dict, precompute_only: bool = False,
                    batch_size: int = 4096, first: str = "radiant", human: str = "radiant",
                    stdin: TextIO | None = None, out: TextIO | None = None, console: Console | None = None,
                    show_progress: bool = True) -> None:
    """Steps 2 and 3 of the module docstring for a built scorer: finish (or check) the table, then draft."""
    out = out or sys.stdout
    table = Path(table)
    existing = None
    if progress_path(table).exists():
        existing = load_table(table, require_complete=False)
        check_source(table, existing.source, source)
    if existing is None or not existing.complete:
        wall, cpu = time.perf_counter(), time.process_time()
        done = precompute(table, scorer.pool, scorer, scorer.name, batch_size=batch_size, console=console,
                          show_progress=show_progress, source=source)
        out.write(f"scored {len(done.values):,} lineups of {scorer.pool.n} heroes with {scorer.name} "
                  f"({scorer.games_played:,} games) into {table} in {time.perf_counter() - wall:.1f} s "
                  f"({time.process_time() - cpu:.1f} s CPU)\n")
    loaded = load_table(table)
    check_source(table, loaded.source, source)
    if loaded.scorer != scorer.name:
        raise DraftError(f"the table {table} was scored by {loaded.scorer}, not {scorer.name}; choose another --table "
                         f"or delete it to score it again")
    if loaded.pool != scorer.pool:
        raise DraftError(f"the table {table} was scored for the pool {', '.join(loaded.pool.names)}, not "
                         f"{', '.join(scorer.pool.names)}; choose another --table or leave it out")
    if precompute_only:
        return
    out.write(f"table {table}: {len(loaded.values):,} lineups scored by {loaded.scorer}\n")
    drafter = Drafter(loaded.values, loaded.pool.n, radiant_first=first == "radiant")
    run_draft(drafter, loaded.pool, HUMAN_SIDES[human], stdin, out)
