"""The interactive draft, driven through real input streams: a function with StringIO, and ``fivestack draft``
in a subprocess with a pipe for stdin."""

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fivestack.draft.lineups import RADIANT, DraftError, HeroPool, pick_sides
from fivestack.draft.play import run_draft
from fivestack.draft.precompute import precompute
from fivestack.draft.search import Drafter
from fivestack.draft.stub import StubWinProbability

ROOT = Path(__file__).resolve().parents[2]
POOL = HeroPool(("Ash", "Birch", "Cedar", "Dune", "Elm", "Fern", "Gale", "Holm", "Iris", "Jade", "Kelp"))


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("draft") / "t.npy"
    stub = StubWinProbability(POOL.n, seed=2)
    return precompute(path, POOL, stub, stub.name, batch_size=1000, show_progress=False)


def picks(text):
    """(pick number, side, hero, printed probability) of every 'pick N:' line."""
    return [(int(m[0]), m[1], m[2], float(m[3]) / 100) for m in
            re.findall(r"pick +(\d+): (Radiant|Dire) +takes (\S+) +Radiant win probability ([\d.]+)%", text)]


def test_self_play_draft_prints_each_pick_and_its_value(table):
    drafter = Drafter(table.values, POOL.n, radiant_first=False)
    out = io.StringIO()
    radiant, dire = run_draft(drafter, POOL, None, io.StringIO(""), out)
    lines = picks(out.getvalue())
    assert [n for n, *_ in lines] == list(range(1, 11))
    assert [s for _, s, *_ in lines] == ["Radiant" if s == RADIANT else "Dire" for s in pick_sides(False)]
    # best play by both sides keeps the predicted value constant, and it is the lineup's own value at the end
    final = drafter.value(radiant, dire)
    assert all(abs(p - final) < 0.0005 for *_, p in lines)
    assert sorted(POOL.index(h) for _, _, h, _ in lines) == sorted(radiant + dire)


def test_a_person_picks_with_bad_inputs_re_asked(table):
    drafter = Drafter(table.values, POOL.n, radiant_first=True)
    # Radiant picks 1, 4, 5, 8, 9: a bad name, a number outside the pool and a taken hero are re-asked
    typed = ["nobody", "12", "birch", "", "3", "Birch", "ASH", "kelp", "4", "5", "6", "7", "8", "9", "10", "11"]
    out = io.StringIO()
    radiant, dire = run_draft(drafter, POOL, RADIANT, io.StringIO("\n".join(typed) + "\n"), out)
    text = out.getvalue()
    assert "unknown hero 'nobody'" in text and "unknown hero '12'" in text
    assert "available: " in text
    assert radiant[0] == POOL.index("Birch")
    assert re.search(r"(Ash|Cedar|Kelp|Birch) is already picked by (Radiant|Dire)", text)
    assert len(radiant) == 5 and len(dire) == 5 and not set(radiant) & set(dire)
    # the person's first pick is reported with the search's own choice when they differ
    first = drafter.best_pick([], [])
    if first.hero != POOL.index("Birch"):
        assert f"the search's pick: {POOL.names[first.hero]}" in text


def test_input_ending_mid_draft_is_a_clear_error(table):
    drafter = Drafter(table.values, POOL.n, radiant_first=True)
    with pytest.raises(DraftError, match="input ended at pick 1"):
        run_draft(drafter, POOL, RADIANT, io.StringIO("nobody\n"), io.StringIO())


def test_fivestack_draft_in_a_subprocess_with_piped_stdin(table, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # Dire picks first (pick 1) as the person: an unknown name, hero 1, hero 1 again (taken), then every number
    typed = "\n".join(["zzz", "1", "1"] + [str(i) for i in range(1, 12)]) + "\n"
    proc = subprocess.run([sys.executable, "-m", "fivestack.cli", "draft", "--table", str(table.path),
                           "--first", "dire", "--human", "dire"], input=typed, capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "unknown hero 'zzz'" in proc.stdout
    assert "is already picked by" in proc.stdout
    lines = picks(proc.stdout)
    assert len(lines) == 10 and lines[0][1] == "Dire" and lines[0][2] == "Ash"
    assert "Radiant win probability of this lineup" in proc.stdout


def test_fivestack_draft_precompute_then_user_errors(tmp_path):
    from typer.testing import CliRunner

    from fivestack.cli import app

    path = tmp_path / "s.npy"
    result = CliRunner().invoke(app, ["draft", "--precompute", "--table", str(path), "--pool", "10"])
    assert result.exit_code == 0, result.output
    assert "scored 252 lineups of 10 heroes" in result.output
    result = CliRunner().invoke(app, ["draft", "--table", str(path), "--human", "none"])
    assert result.exit_code == 0 and len(picks(result.output)) == 10
    for args, message in ((["--table", str(tmp_path / "none.npy")], "--precompute"),
                          (["--table", str(path), "--human", "both"], "--human must be"),
                          (["--precompute", "--table", str(tmp_path / "x.npy")], "needs --pool")):
        result = CliRunner().invoke(app, ["draft", *args])
        assert result.exit_code == 2 and message in result.output, result.output
        assert "Traceback" not in result.output
