"""The precompute: every lineup scored in batches into .npy + progress JSON, resumable after a real interruption."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from fivestack.draft.lineups import DraftError, HeroPool, lineup_unrank
from fivestack.draft.precompute import load_table, precompute, progress_path, score_all
from fivestack.draft.stub import StubWinProbability

ROOT = Path(__file__).resolve().parents[2]
POOL = HeroPool.parse("11")
STUB = StubWinProbability(11, seed=5)


class Counting:
    """The stub, counting the rows it scores; raises after ``fail_after`` batches when set."""

    def __init__(self, fail_after=None):
        self.rows, self.batches, self.fail_after = 0, 0, fail_after

    def __call__(self, radiant, dire):
        if self.fail_after is not None and self.batches == self.fail_after:
            raise RuntimeError("scorer died")
        self.batches += 1
        self.rows += len(radiant)
        return STUB(radiant, dire)


def test_precompute_scores_every_lineup_at_its_rank(tmp_path):
    table = precompute(tmp_path / "t.npy", POOL, STUB, STUB.name, batch_size=300, show_progress=False)
    assert table.complete and table.pool == POOL and table.scorer == STUB.name
    assert np.array_equal(np.asarray(table.values), score_all(11, STUB))
    for rank in (0, 1, 1000, 2771):
        assert table.values[rank] == np.float32(STUB.one(*lineup_unrank(rank, 11)))
    assert np.load(tmp_path / "t.npy", allow_pickle=False).dtype == np.float32
    assert json.loads(progress_path(tmp_path / "t.npy").read_text())["scored"] == 2772


def test_resume_after_the_scorer_raises_equals_an_uninterrupted_run(tmp_path):
    whole = precompute(tmp_path / "whole.npy", POOL, Counting(), STUB.name, batch_size=256, show_progress=False)
    path = tmp_path / "part.npy"
    with pytest.raises(RuntimeError, match="scorer died"):
        precompute(path, POOL, Counting(fail_after=4), STUB.name, batch_size=256, show_progress=False)
    partial = load_table(path, require_complete=False)
    assert partial.scored == 4 * 256 and not partial.complete
    with pytest.raises(DraftError, match="resumes"):
        load_table(path)
    second = Counting()
    done = precompute(path, POOL, second, STUB.name, batch_size=256, show_progress=False)
    assert second.rows == 2772 - 4 * 256  # only the rest was scored
    assert np.array_equal(np.asarray(done.values), np.asarray(whole.values))
    again = Counting()
    precompute(path, POOL, again, STUB.name, show_progress=False)  # finished: nothing to score
    assert again.rows == 0


class Burning(Counting):
    """The stub, spending ``BURN`` CPU-seconds on each batch (a busy loop), so the table's cost is known."""

    BURN = 0.02

    def __call__(self, radiant, dire):
        out = super().__call__(radiant, dire)
        until = time.process_time() + self.BURN
        while time.process_time() < until:
            pass
        return out


def test_the_progress_file_sums_the_scoring_time_over_resumes(tmp_path):
    path = tmp_path / "t.npy"
    with pytest.raises(RuntimeError, match="scorer died"):
        precompute(path, POOL, Burning(fail_after=4), STUB.name, batch_size=256, show_progress=False)
    partial = load_table(path, require_complete=False)
    assert partial.cpu_seconds >= 4 * Burning.BURN and partial.wall_seconds >= 4 * Burning.BURN
    precompute(path, POOL, Burning(), STUB.name, batch_size=256, show_progress=False)
    done = load_table(path)
    batches = -(-2772 // 256)  # 11: 4 before the failure, 7 after the resume
    assert done.cpu_seconds >= partial.cpu_seconds + (batches - 4) * Burning.BURN
    assert done.cpu_seconds >= batches * Burning.BURN and done.wall_seconds >= batches * Burning.BURN


KILLED_RUN = """
import sys, time
from fivestack.draft.lineups import HeroPool
from fivestack.draft.precompute import precompute
from fivestack.draft.stub import StubWinProbability
stub = StubWinProbability(11, seed=5)
def slow(radiant, dire):
    time.sleep(0.05)
    return stub(radiant, dire)
precompute(sys.argv[1], HeroPool.parse("11"), slow, stub.name, batch_size=64, show_progress=False)
"""


@pytest.mark.slow
def test_resume_after_a_kill_equals_an_uninterrupted_run(tmp_path):
    path = tmp_path / "killed.npy"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(path)], env=env)
    meta = progress_path(path)
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            if meta.exists() and json.loads(meta.read_text())["scored"] >= 640:
                break
            assert proc.poll() is None, "the precompute ended before it could be killed"
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    scored = load_table(path, require_complete=False).scored
    assert 640 <= scored < 2772
    rest = Counting()
    done = precompute(path, POOL, rest, STUB.name, show_progress=False)
    assert rest.rows == 2772 - scored
    assert np.array_equal(np.asarray(done.values), score_all(11, STUB))


def test_user_mistakes_are_clear_errors(tmp_path):
    path = tmp_path / "t.npy"
    precompute(path, POOL, STUB, STUB.name, batch_size=1000, show_progress=False)
    with pytest.raises(DraftError, match="same pool and scorer"):
        precompute(path, HeroPool.parse("12"), STUB, STUB.name, show_progress=False)
    other = StubWinProbability(11, seed=6)
    with pytest.raises(DraftError, match="same pool and scorer"):
        precompute(path, POOL, other, other.name, show_progress=False)
    with pytest.raises(DraftError, match="outside"):
        precompute(tmp_path / "bad.npy", POOL, lambda r, d: STUB(r, d) + 1.0, "bad", show_progress=False)
    with pytest.raises(DraftError, match="one Radiant win probability per row"):
        precompute(tmp_path / "short.npy", POOL, lambda r, d: STUB(r, d)[:-1], "short", show_progress=False)
    with pytest.raises(DraftError, match="--precompute"):
        load_table(tmp_path / "missing.npy")
    (tmp_path / "orphan.npy").write_bytes(b"x")
    with pytest.raises(DraftError, match="without its progress file"):
        precompute(tmp_path / "orphan.npy", POOL, STUB, STUB.name, show_progress=False)
