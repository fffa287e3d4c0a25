"""Calibration of the win head: the binning on a hand-computed example, and benchmarks/win_calibration.py on a tiny
real run (records, truncation as a loss, resume)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fivestack.draft.calibration import calibration, reliability_plot
from tiny_runs import tiny_run


def test_bins_brier_and_ece_by_hand(tmp_path):
    predicted = [0.05, 0.15, 0.12, 0.95, 1.0, 0.5, 0.1]
    won = [0, 1, 0, 1, 1, 0, 1]
    report = calibration(predicted, won)
    bins = report["bins"]
    assert [b["count"] for b in bins] == [1, 3, 0, 0, 0, 1, 0, 0, 0, 2]  # 0.1 opens bin 1, 1.0 is in the last
    assert bins[1]["mean_predicted"] == pytest.approx((0.15 + 0.12 + 0.1) / 3)
    assert bins[1]["observed"] == pytest.approx(2 / 3)
    assert bins[9]["mean_predicted"] == pytest.approx(0.975) and bins[9]["observed"] == 1.0
    assert "mean_predicted" not in bins[2]
    # Wilson 95% for 2 wins of 2: centre (1 + z^2/4)/(1 + z^2/2), half z*sqrt(z^2/16)/(1 + z^2/2), z = 1.96
    z2 = 1.96 ** 2
    assert bins[9]["ci95"] == pytest.approx([(1 + z2 / 4 - 1.96 * (z2 / 16) ** 0.5) / (1 + z2 / 2), 1.0])
    brier = (0.05**2 + 0.85**2 + 0.12**2 + 0.05**2 + 0.0 + 0.5**2 + 0.9**2) / 7
    assert report["brier"] == pytest.approx(brier)
    ece = (1 * 0.05 + 3 * abs(0.37 / 3 - 2 / 3) + 1 * 0.5 + 2 * 0.025) / 7
    assert report["ece"] == pytest.approx(ece)
    assert report["count"] == 7 and report["observed"] == pytest.approx(4 / 7)
    png = reliability_plot({"0 min": report, "empty": calibration([], [])}, tmp_path / "r.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_perfectly_calibrated_and_a_confidently_wrong_predictor():
    assert calibration([0.0, 0.0, 1.0, 1.0], [0, 0, 1, 1])["ece"] == 0.0
    wrong = calibration([0.95] * 4, [0, 0, 0, 0])
    assert wrong["ece"] == pytest.approx(0.95) and wrong["brier"] == pytest.approx(0.95**2)


@pytest.mark.parametrize("predicted, won, message", [
    ([0.5, 1.2], [0, 1], "probabilities"), ([0.5], [2], "0 or 1"), ([0.5, 0.5], [1], "outcomes")])
def test_bad_inputs_are_refused(predicted, won, message):
    with pytest.raises(ValueError, match=message):
        calibration(predicted, won)


@pytest.fixture(scope="module")
def duel(tmp_path_factory):
    return tiny_run(tmp_path_factory.mktemp("runs"), "duel", "1v1")


@pytest.mark.slow  # quick loop: under 3 minutes in all (pytest -m 'not slow')
def test_win_calibration_records_every_policy_team_and_resumes(duel, tmp_path):
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "win_calibration.py"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    args = [sys.executable, str(script), str(duel), "--games", "4", "--chunk", "2", "--max-minutes", "0.5",
            "--every-minutes", "0.25", "--opponents", "self,random", "--out", str(tmp_path / "cal")]

    def bench():
        done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    first = bench()
    # games 0 and 2 are self-play (both sides recorded), 1 and 3 against random (the policy Radiant, then Dire)
    assert first["records"] == 6 and first["games"] == 4
    assert first["by_time"]["0 min"]["count"] == 6
    report = json.loads((tmp_path / "cal" / "report.json").read_text())
    records = [r for i in range(2) for r in json.loads((tmp_path / "cal" / f"chunk-{i}.json").read_text())["records"]]
    assert sorted((r["game"], r["side"]) for r in records) == [(0, 0), (0, 1), (1, 0), (2, 0), (2, 1), (3, 1)]
    for r in records:  # a truncated game (30 s is too short to decide a duel, mostly) is never a win
        assert not (r["truncated"] and r["won"])
        assert r["predicted"][0] is not None and 0.0 <= r["predicted"][0] <= 1.0
    self_play = [r for r in records if r["opponent"] == "self" and not r["truncated"]]
    for game in {r["game"] for r in self_play}:
        assert sum(r["won"] for r in self_play if r["game"] == game) == 1
    assert first["agent_steps"] > 0 and (tmp_path / "cal" / "reliability.png").exists()
    assert report["truncated_is_loss"] is True
    again = bench()  # every chunk is on disk: nothing is played again, the report is the same
    assert again["by_time"] == first["by_time"] and again["agent_steps"] == first["agent_steps"]
