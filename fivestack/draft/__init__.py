"""Drafting: minimax over the pick order on a table of lineup win probabilities, independent of the game.

* ``lineups``: hero pools, the pick order 1-2-2-2-2-1, and the combinatorial number system that ranks
  lineups (rank/unrank of (Radiant set, Dire set) pairs).
* ``precompute``: every lineup scored in batches by a scorer into ``FILE.npy`` + ``FILE.progress.json``,
  resumable after a kill (``fivestack draft --precompute``); ``score_all`` for small pools in memory.
* ``search``: ``Drafter``, alpha-beta minimax with a transposition cache keyed by the sets picked (Numba).
* ``stub``: a deterministic, irregular stub win probability for tests and benchmarks.
* ``play``: the interactive draft in a terminal, and what ``fivestack draft`` runs.

See ``docs/draft.md``.
"""
