"""The interactive draft in a terminal: a person types picks against the search, or the search drafts both sides.

``run_draft(drafter, pool, human, stdin, stdout)`` plays the 10 picks of 1-2-2-2-2-1 on a ``DraftSession``
(``session.py``: the state and the rules, shared with the browser's draft screen). At a person's pick it
asks for a hero by name or by its number in the pool (case-insensitive); an unknown name, a number outside the
pool or a hero already picked gets one line saying so and the question again; the end of the input abandons
the draft with a ``DraftError``. The search makes the other side's picks (both sides' with ``human=None``).
After every pick it prints Radiant's predicted win probability with best play from there on (the minimax
value of the new state), and for a person's pick also the best pick the search would have made and its value.

``draft_from_table`` is what ``fivestack draft --table`` runs: precompute a table with the stub scorer, or draft on a
finished table. The policy-based scorer (``fivestack draft RUN[:VERSION]``) needs hero identities and lineups
that the game does not have yet; a table made by any scorer drafts the same way.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TextIO

from fivestack.draft.lineups import DIRE, RADIANT, SIDE_NAMES, DraftError, HeroPool
from fivestack.draft.search import Drafter
from fivestack.draft.session import DraftSession, Pick, PickError

HUMAN_SIDES = {"radiant": RADIANT, "dire": DIRE, "none": None}


def _say(out: TextIO, line: str = "") -> None:
    out.write(line + "\n")
    out.flush()


def _read_pick(session: DraftSession, stdin: TextIO, out: TextIO) -> Pick:
    """A person's pick: asks until the line names an available hero (the session's rules say which)."""
    pool, k, side = session.pool, len(session.picks), session.next_side
    while True:
        out.write(f"{SIDE_NAMES[side]}, pick {k + 1} of 10 (a hero's name or number): ")
        out.flush()
        line = stdin.readline()
        if not line:
            raise DraftError(f"the input ended at pick {k + 1}; the draft is abandoned")
        typed = line.strip()
        if not stdin.isatty():  # echo piped input, so that a transcript reads like the terminal
            out.write(typed + "\n")
        if not typed:
            _say(out, "available: " + ", ".join(f"{h + 1} {pool.names[h]}" for h in session.available()))
            continue
        try:
            return session.pick(typed)
        except PickError as exc:
            _say(out, str(exc))


def run_draft(drafter: Drafter, pool: HeroPool, human: int | None, stdin: TextIO | None = None,
              out: TextIO | None = None) -> tuple[list[int], list[int]]:
    """Plays a whole draft (on sys.stdin / sys.stdout unless given); returns the Radiant and Dire hero ids in
    pick order."""
    stdin, out = stdin or sys.stdin, out or sys.stdout
    session = DraftSession(drafter, pool, human)
    first = SIDE_NAMES[session.sides[0]]
    _say(out, "heroes: " + ", ".join(f"{h + 1} {name}" for h, name in enumerate(pool.names)))
    who = "you play " + SIDE_NAMES[human] if human is not None else "the search drafts both sides"
    _say(out, f"pick order 1-2-2-2-2-1, {first} first; {who}")
    _say(out, f"before any pick: Radiant win probability {session.start_value:.1%} with best play by both sides")
    while not session.complete:
        pick = _read_pick(session, stdin, out) if session.human_to_pick else session.search_pick()
        line = (f"pick {pick.number:>2}: {SIDE_NAMES[pick.side]:<7} takes {pool.names[pick.hero]:<14} Radiant win "
                f"probability {pick.value:.1%}")
        if pick.search_hero is not None:
            line += (f" (the search's pick: {pool.names[pick.search_hero]}, {pick.search_value:.1%})"
                     if pick.search_hero != pick.hero else " (the search's pick too)")
        _say(out, line)
    radiant, dire = session.radiant, session.dire
    _say(out, f"Radiant: {', '.join(pool.names_of(radiant))}")
    _say(out, f"Dire:    {', '.join(pool.names_of(dire))}")
    _say(out, f"Radiant win probability of this lineup: {drafter.value(radiant, dire):.1%}")
    return radiant, dire


def draft_from_table(table: Path, precompute: bool = False, pool: str | None = None, stub_seed: int = 0,
                  batch_size: int = 65536, first: str = "radiant", human: str = "radiant",
                  stdin: TextIO | None = None, out: TextIO | None = None) -> None:
    """``fivestack draft``: with ``precompute``, score every lineup of ``pool`` with the stub scorer into
    ``table`` (resuming a partial one); else draft on the finished ``table``. Raises DraftError for a user
    mistake."""
    from fivestack.draft.precompute import load_table, precompute as run_precompute

    stdin, out = stdin or sys.stdin, out or sys.stdout

    if first not in ("radiant", "dire"):
        raise DraftError(f"--first must be radiant or dire, not {first!r}")
    if human not in HUMAN_SIDES:
        raise DraftError(f"--human must be radiant, dire or none, not {human!r}")
    if precompute:
        if not pool:
            raise DraftError("--precompute needs --pool: a number of heroes (e.g. 17) or comma-separated names")
        from fivestack.draft.stub import StubWinProbability

        heroes = HeroPool.parse(pool)
        scorer = StubWinProbability(heroes.n, seed=stub_seed)
        wall, cpu = time.perf_counter(), time.process_time()
        done = run_precompute(table, heroes, scorer, scorer.name, batch_size=batch_size)
        _say(out, f"scored {len(done.values):,} lineups of {heroes.n} heroes into {table} with {scorer.name} in "
                  f"{time.perf_counter() - wall:.1f} s ({time.process_time() - cpu:.1f} s CPU in this process)")
        return
    loaded = load_table(table)
    if pool and HeroPool.parse(pool) != loaded.pool:
        raise DraftError(f"--pool differs from the pool {table} was scored for ({', '.join(loaded.pool.names)}); "
                         f"leave --pool out to use the table's")
    drafter = Drafter(loaded.values, loaded.pool.n, radiant_first=first == "radiant")
    _say(out, f"table {table}: {len(loaded.values):,} lineups scored by {loaded.scorer}")
    run_draft(drafter, loaded.pool, HUMAN_SIDES[human], stdin, out)
