"""Replay files: what a viewer needs to redraw a game, in an open, compact, non-executable format.

Three modules, one concern each; everything public is re-exported here, so callers import
``fivestack.viewer.replay``:

    format     the on-disk format (an ``.npz`` of flat arrays and three JSON documents, version
               ``FORMAT_VERSION``): its full description, and the names, dtypes and shapes both sides use
    recorder   ``ReplayRecorder``: game state -> timesteps and events while a game plays, ``save(path)``;
               the state readers ``unit_columns``, ``unit_rows``, ``game_summary``, ``map_description``
    reader     ``load_replay(path)``: validates a file (one ``ValueError`` naming the problem and the fix)
               and returns the ``Replay`` the viewer server (``fivestack.viewer.server``) serves

Record with ``ReplayRecorder(env, game_index, agents=(radiant, dire))``: call ``record()`` after every
``env.step`` and ``save(path)`` at the end. Read with ``load_replay(path)``.
"""

from fivestack.viewer.replay.format import (
    ARRAY_SHAPES, FORMAT_NAME, FORMAT_VERSION, HERO_ARRAYS, HERO_STATS, JSON_ENTRIES, KIND_NAMES, LANE_NAMES, OUTCOMES,
    POLICY_ARRAYS, RUNE_NAMES, STEP_ARRAYS, TEAM_NAMES, TEAM_STATS, UNIT_DTYPES, UNIT_FIELDS, expected_timesteps,
)
from fivestack.viewer.replay.reader import Replay, load_replay
from fivestack.viewer.replay.recorder import (
    ReplayRecorder, game_summary, hero_names, map_description, unit_columns, unit_rows,
)

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "UNIT_FIELDS", "KIND_NAMES", "TEAM_NAMES", "HERO_STATS", "RUNE_NAMES",
           "Replay", "ReplayRecorder", "expected_timesteps", "game_summary", "load_replay", "map_description",
           "unit_columns", "unit_rows"]
