"""Reading a replay: loading and validating a file, and the ``Replay`` the viewer server serves.

``load_replay(path)`` opens a file written by ``ReplayRecorder.save`` (the format:
``fivestack.viewer.replay.format``) with ``numpy.load(allow_pickle=False)``, so nothing in it can run code,
and checks it before anything reads it: a missing, empty or foreign file, an old format version, a
truncated archive, a missing array or a shape that does not fit each raise one ``ValueError`` naming the
problem and the fix (usually: record it again). It returns a ``Replay``:

    header, summary, events    the three JSON documents
    arrays                     every other array of the file, by name
    n_steps, steps[t], step(t) timestep t as a dict (frame, night, kills, runes, units, events)
    units(t), unit_columns(t)  timestep t's alive units, as dicts or as column views
    heroes(t)                  per hero slot: stats, gold, net worth, item names
    policy(t)                  per hero slot: the recorded policy outputs (None without a policy)
"""

from __future__ import annotations

import json
import math
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fivestack.game.layout import N_HEROES, PRIMARY_NAMES
from fivestack.viewer.replay.format import (
    ARRAY_SHAPES, FORMAT_NAME, FORMAT_VERSION, HERO_ARRAYS, HERO_STATS, OUTCOMES, POLICY_ARRAYS, RECORD_HINT,
    STEP_ARRAYS, UNIT_DTYPES, UNIT_FIELDS, unit_dicts,
)


class _Steps:
    """``replay.steps[t]``: timestep ``t`` as a dict (step, frame, night, kills, runes, units, events)."""

    def __init__(self, replay: "Replay"):
        self._replay = replay

    def __len__(self) -> int:
        return self._replay.n_steps

    def __getitem__(self, t: int) -> dict[str, Any]:
        n = len(self)
        if not -n <= t < n:
            raise IndexError(f"timestep {t} is outside this replay's {n} timesteps")
        return self._replay.step(t % n)

    def __iter__(self):
        return (self._replay.step(t) for t in range(len(self)))


@dataclass
class Replay:
    header: dict[str, Any]
    summary: dict[str, Any]
    events: list[dict[str, Any]]
    arrays: dict[str, np.ndarray]

    @property
    def n_steps(self) -> int:
        return int(self.arrays["step_frame"].shape[0])

    @property
    def steps(self) -> _Steps:
        return _Steps(self)

    @property
    def has_policy(self) -> bool:
        return "policy_value" in self.arrays

    def unit_columns(self, t: int) -> dict[str, np.ndarray]:
        """Timestep ``t``'s unit rows as one array per column (views into the replay)."""
        start = self.arrays["step_start"]
        a, b = int(start[t]), int(start[t + 1])
        return {k: self.arrays[f"unit_{k}"][a:b] for k in UNIT_FIELDS}

    def units(self, t: int) -> list[dict[str, Any]]:
        """The alive units of timestep ``t`` as dicts keyed by ``UNIT_FIELDS`` (mana as a fraction)."""
        if not 0 <= t < self.n_steps:
            raise IndexError(f"timestep {t} is outside this replay's 0..{self.n_steps - 1}")
        return unit_dicts(self.unit_columns(t))

    def heroes(self, t: int) -> list[dict[str, Any]]:
        """Per hero slot at timestep ``t``: stats, gold, net worth and item names."""
        a = self.arrays
        names = self.header["item_names"]
        out = []
        for h in range(N_HEROES):
            row = dict(zip(HERO_STATS, a["hero_stats"][t, h].tolist()))
            row.update(index=h, gold=int(a["hero_gold"][t, h]), net_worth=int(a["hero_net_worth"][t, h]),
                       items=[names[i] if i >= 0 else None for i in a["hero_items"][t, h].tolist()])
            out.append(row)
        return out

    def policy(self, t: int) -> list[dict[str, Any]] | None:
        """Per hero slot at timestep ``t``: the policy's value, win probability, action and target (None for a
        hero without a policy); None when no team was played by a policy."""
        if not self.has_policy:
            return None
        a = self.arrays
        out = []
        for h in range(N_HEROES):
            v = float(a["policy_value"][t, h])
            if math.isnan(v):
                out.append(None)
                continue
            act = a["policy_action"][t, h].tolist()
            out.append({"value": v, "win_prob": float(a["policy_win_prob"][t, h]), "action": act,
                        "primary": PRIMARY_NAMES[act[0]] if 0 <= act[0] < len(PRIMARY_NAMES) else None,
                        "target": int(a["policy_target"][t, h])})
        return out

    def step(self, t: int) -> dict[str, Any]:
        a = self.arrays
        return {"step": t, "frame": int(a["step_frame"][t]), "night": bool(a["step_night"][t]),
                "kills": a["step_kills"][t].tolist(), "runes": a["step_runes"][t].tolist(), "units": self.units(t),
                "events": [{k: v for k, v in e.items() if k not in ("step", "frame")}
                           for e in self.events if e["step"] == t]}


def _corrupted(path: Path, what: str) -> ValueError:
    return ValueError(f"replay {str(path)!r} is corrupted: {what}; {RECORD_HINT}")


def load_replay(path) -> Replay:
    """Read and validate a replay file. Raises ``ValueError`` saying what is wrong and what to do."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"replay file {str(path)!r} does not exist; check the path, or {RECORD_HINT}")
    if not path.is_file():
        raise ValueError(f"replay path {str(path)!r} is not a file; give the path of a .npz replay file")
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except PermissionError as e:
        raise ValueError(f"replay {str(path)!r} cannot be read ({e}); check the file's permissions") from None
    if magic[:2] == b"\x1f\x8b":
        raise ValueError(f"replay {str(path)!r} has format version 1 (gzip JSON lines, written by an older "
                         f"fivestack), but this fivestack reads version {FORMAT_VERSION} (.npz); open it with the "
                         f"fivestack version that wrote it, or {RECORD_HINT}")
    if magic != b"PK\x03\x04":
        if not magic:
            raise ValueError(f"replay {str(path)!r} is empty; {RECORD_HINT}")
        raise ValueError(f"{str(path)!r} is not a fivestack replay (not an .npz archive); give a file written by "
                         f"`fivestack play --replay` or ReplayRecorder.save, or {RECORD_HINT}")
    arrays: dict[str, np.ndarray] = {}
    try:
        with np.load(path, allow_pickle=False) as archive:
            names = set(archive.files)
            if "header" not in names:
                raise ValueError(f"{str(path)!r} is not a fivestack replay: the archive has no header; give a file "
                                 f"written by ReplayRecorder.save, or {RECORD_HINT}")
            header = _json(path, archive["header"], "header")
            if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
                raise ValueError(f"{str(path)!r} is not a fivestack replay: its header is not a {FORMAT_NAME!r} "
                                 f"header; give a file written by ReplayRecorder.save, or {RECORD_HINT}")
            version = header.get("version")
            if version != FORMAT_VERSION:
                raise ValueError(f"replay {str(path)!r} has format version {version!r} (written by "
                                 f"{header.get('created_by', 'an unknown fivestack')}), but this fivestack reads "
                                 f"version {FORMAT_VERSION}; open it with the fivestack version that wrote it, or "
                                 f"{RECORD_HINT}")
            for name in archive.files:
                arrays[name] = archive[name]
    except ValueError as e:
        if "replay" in str(e) and ("fivestack" in str(e) or "format version" in str(e)):
            raise
        raise _corrupted(path, f"an array cannot be read ({e})") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, KeyError) as e:
        raise ValueError(f"replay {str(path)!r} is truncated or corrupted ({e or type(e).__name__}); the file was "
                         f"not written completely or was damaged since: {RECORD_HINT}") from None
    missing = [k for k in ("config", "unit_fields", "heroes", "map", "time", "item_names") if k not in header]
    if missing:
        raise _corrupted(path, f"the header lacks {missing}")
    if header["unit_fields"] != list(UNIT_FIELDS):
        raise _corrupted(path, f"the header's unit_fields {header['unit_fields']} are not {list(UNIT_FIELDS)}")
    need = ["summary", "events", "step_start", *STEP_ARRAYS, *HERO_ARRAYS, *(f"unit_{k}" for k in UNIT_FIELDS)]
    if header.get("policy", {}).get("radiant") or header.get("policy", {}).get("dire"):
        need += list(POLICY_ARRAYS)
    absent = [k for k in need if k not in arrays]
    if absent:
        raise _corrupted(path, f"it lacks the arrays {absent}")
    summary = _json(path, arrays.pop("summary"), "summary")
    events = _json(path, arrays.pop("events"), "events")
    arrays.pop("header")
    if not isinstance(summary, dict) or not isinstance(events, list):
        raise _corrupted(path, "the summary is not an object or the events are not a list")
    t = int(arrays["step_frame"].shape[0]) if arrays["step_frame"].ndim == 1 else -1
    for name, shape in ARRAY_SHAPES.items():
        if name in arrays and arrays[name].shape != (t, *shape):
            raise _corrupted(path, f"{name} has shape {arrays[name].shape}, expected {(t, *shape)}")
    start = arrays["step_start"]
    n = int(arrays["unit_unit"].shape[0])
    if start.shape != (t + 1,) or start[0] != 0 or start[-1] != n or np.any(np.diff(start) < 0):
        raise _corrupted(path, f"step_start does not index the {n} unit rows of {t} timesteps")
    for k in UNIT_FIELDS:
        a = arrays[f"unit_{k}"]
        if a.shape != (n,) or a.dtype != np.dtype(UNIT_DTYPES[k]):
            raise _corrupted(path, f"unit_{k} has shape {a.shape} and dtype {a.dtype}, expected ({n},) "
                                   f"{np.dtype(UNIT_DTYPES[k])}")
    if summary.get("timesteps") != t:
        raise _corrupted(path, f"the summary counts {summary.get('timesteps')!r} timesteps but the file holds {t}")
    if summary.get("outcome") not in OUTCOMES:
        raise _corrupted(path, f"unknown outcome {summary.get('outcome')!r}")
    return Replay(header=header, summary=summary, events=events, arrays=arrays)


def _json(path: Path, array: np.ndarray, name: str):
    if array.dtype != np.uint8 or array.ndim != 1:
        raise _corrupted(path, f"the {name} is not UTF-8 JSON bytes")
    try:
        return json.loads(array.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise _corrupted(path, f"the {name} is not valid JSON ({e})") from None
