"""Clone data on disk: shards of recorded play, one ``.npz`` file each (numpy's zip of arrays, deflated; read
with ``allow_pickle=False``, so nothing loaded can run code), and the progress file that makes a recording
resumable.

    clone/
      progress.json           the shards written, in order, each with its split, kind, steps, streams and
                              agent-steps (written atomically after each shard: a killed recording resumes after
                              its last whole shard), and the move-goal table their labels are in
                              (``game.move_goals``; a file without it was written in the paper's, ``grid``): a
                              store opened in another table with shards in it is one clear error
      train-00000.npz ...     shards for training
      valid-00000.npz ...     held-out shards (whole streams, i.e. whole games, kept out of training)

A shard holds ``steps`` consecutive decisions of ``streams`` recorded team seats (a seat is one side of one game
slot; when a game ends the next game in that slot starts on the next step, its ``first`` flag set):

    obs/GROUP    (steps, streams, ...)       the team's observation, as the policy reads it (``team_view``)
    labels       (steps, streams, K, 5)      the teacher's action (env action space) at each step
    actions      (steps, streams, K, 5)      the action played (the teacher's own, or the clone's in DAgger)
    first        (steps, streams) uint8      1 where a new game starts (the LSTM state resets)
    hero_slots   (streams, K)                the heroes each seat drives
"""

from __future__ import annotations

import json
import os
import zipfile
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from fivestack.game.layout import MOVE_GOALS, PAPER_MOVE_GOALS

SPLITS = ("train", "valid")
ARRAYS = ("labels", "actions", "first", "hero_slots")


class ShardError(ValueError):
    """A clone shard or progress file that cannot be read."""


@dataclass
class Shard:
    """Recorded play in memory: see the module docstring for the arrays' shapes."""

    obs: dict[str, np.ndarray]
    labels: np.ndarray
    actions: np.ndarray
    first: np.ndarray
    hero_slots: np.ndarray

    @property
    def steps(self) -> int:
        return self.first.shape[0]

    @property
    def streams(self) -> int:
        return self.first.shape[1]

    def select_streams(self, index: np.ndarray) -> "Shard":
        return Shard({k: v[:, index] for k, v in self.obs.items()}, self.labels[:, index], self.actions[:, index],
                     self.first[:, index], self.hero_slots[index])

    @staticmethod
    def concat_streams(shards: list["Shard"]) -> "Shard":
        """Shards of the same length side by side (their streams concatenated)."""
        return Shard({k: np.concatenate([s.obs[k] for s in shards], 1) for k in shards[0].obs},
                     *(np.concatenate([getattr(s, name) for s in shards], 1 if name != "hero_slots" else 0)
                       for name in ARRAYS))


@dataclass
class ShardRecord:
    file: str
    split: str  # "train" or "valid"
    kind: str  # "teacher" (the bot played) or "dagger-N" (the clone played, the bot labelled), N the round
    steps: int
    streams: int
    agent_steps: int  # hero decisions x decision_steps: the agent-steps of play the shard holds
    bytes: int


@dataclass
class Progress:
    """What ``progress.json`` holds: the shards written, and the phases of the clone done so far."""

    shards: list[ShardRecord] = field(default_factory=list)
    phases: dict = field(default_factory=dict)  # e.g. {"teacher": {...}, "train-0": {...}, "dagger-1": {...}}

    def agent_steps(self, kind: str | None = None) -> int:
        return sum(s.agent_steps for s in self.shards if kind is None or s.kind == kind)

    def files(self, split: str, kinds: tuple[str, ...] | None = None) -> list[str]:
        return [s.file for s in self.shards if s.split == split and (kinds is None or s.kind in kinds)]


def write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text)
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class ShardStore:
    """The ``clone/`` folder of a run: writes shards atomically and keeps ``progress.json`` in step with them.
    ``move_goals`` is the table of the run's action space (``game.move_goals``): the labels of the shards written
    are in it, and shards recorded in another cannot be read on (their move orders would mean other places)."""

    def __init__(self, directory: Path, move_goals: str = PAPER_MOVE_GOALS):
        if move_goals not in MOVE_GOALS:
            raise ValueError(f"move_goals must be one of {sorted(MOVE_GOALS)}, got {move_goals!r}")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.move_goals = move_goals
        self.progress = self._read_progress()

    @property
    def progress_file(self) -> Path:
        return self.directory / "progress.json"

    def _read_progress(self) -> Progress:
        if not self.progress_file.exists():
            return Progress()
        try:
            data = json.loads(self.progress_file.read_text())
            shards = [ShardRecord(**s) for s in data["shards"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ShardError(f"{self.progress_file} cannot be read ({exc}); delete the clone folder {self.directory} "
                             f"to record the clone data again") from None
        recorded = data.get("move_goals", PAPER_MOVE_GOALS)  # written before the key existed: the paper's table
        if shards and recorded != self.move_goals:
            raise ShardError(f"the clone data in {self.directory} was recorded with game.move_goals={recorded!r}, this "
                             f"run says {self.move_goals!r}: its move labels would mean other places; resume with "
                             f"game.move_goals={recorded!r}, or delete {self.directory} to record the clone again")
        return Progress(shards, dict(data.get("phases", {})))

    def save_progress(self) -> None:
        write_atomic(self.progress_file, json.dumps({"shards": [asdict(s) for s in self.progress.shards],
                                                     "phases": self.progress.phases,
                                                     "move_goals": self.move_goals}, indent=1))

    def write(self, shard: Shard, split: str, kind: str, agent_steps: int) -> ShardRecord:
        """Write ``shard`` as the next file of ``split`` and record it in the progress file."""
        if split not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
        index = sum(1 for s in self.progress.shards if s.split == split)
        name = f"{split}-{index:05d}.npz"
        tmp = self.directory / f".{name}.tmp-{os.getpid()}.npz"
        arrays = {f"obs/{k}": v for k, v in shard.obs.items()}
        arrays.update({name_: getattr(shard, name_) for name_ in ARRAYS})
        np.savez_compressed(tmp, **arrays)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, self.directory / name)
        record = ShardRecord(name, split, kind, shard.steps, shard.streams, int(agent_steps),
                             (self.directory / name).stat().st_size)
        self.progress.shards.append(record)
        self.save_progress()
        return record

    def read(self, name: str) -> Shard:
        return read_shard(self.directory / name)


class ShardWriter:
    """``ShardStore.write`` in a second thread, so that deflating a shard (about as long as recording it on one
    core) runs while the next is recorded. Writes happen one at a time in the order given, each recorded in
    ``progress.json`` only once its file is whole, as ``ShardStore.write`` does; at most one shard waits, so that
    memory holds two. ``close`` (or leaving the ``with`` block) waits for the last; an error in a write is raised
    by the next ``write`` or by ``close``."""

    def __init__(self, store: ShardStore):
        self.store = store
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="fivestack-shards")
        self._pending: Future | None = None

    def write(self, shard: Shard, split: str, kind: str, agent_steps: int) -> None:
        self._wait()
        self._pending = self._thread.submit(self.store.write, shard, split, kind, agent_steps)

    def _wait(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def close(self) -> None:
        try:
            self._wait()
        finally:
            self._thread.shutdown()

    def __enter__(self) -> "ShardWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_shard(path: Path) -> Shard:
    """A shard from disk, with one clear error for a missing, truncated or foreign file."""
    path = Path(path)
    if not path.is_file():
        raise ShardError(f"clone shard {path} is missing; delete the clone folder {path.parent} to record the clone "
                         f"data again")
    try:
        with np.load(path, allow_pickle=False) as data:
            obs = {key[4:]: data[key] for key in data.files if key.startswith("obs/")}
            arrays = {name: data[name] for name in ARRAYS}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise ShardError(f"clone shard {path} cannot be read ({type(exc).__name__}: {exc}); delete it and its entry "
                         f"in progress.json, or the clone folder {path.parent}, to record it again") from None
    shard = Shard(obs, **arrays)
    steps, streams = shard.first.shape if shard.first.ndim == 2 else (-1, -1)
    bad = [name for name, arr in (*obs.items(), *arrays.items())
           if name != "hero_slots" and arr.shape[:2] != (steps, streams)]
    if steps < 0 or bad or not obs or shard.hero_slots.shape[0] != streams:
        raise ShardError(f"clone shard {path} has inconsistent shapes ({', '.join(bad) or 'first/hero_slots'}); "
                         f"it was not written by this version of fivestack: record the clone data again")
    return shard


def bytes_per_million(progress: Progress) -> float:
    """Disk bytes per million agent-steps of recorded play (train and held-out shards together)."""
    steps = progress.agent_steps()
    return sum(s.bytes for s in progress.shards) / steps * 1e6 if steps else 0.0
