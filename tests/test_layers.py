"""The floors of ``fivestack/`` (``scripts/check_layers.py``): imports flow one way, and no module imports itself
back. The checker is run on the source, then on copies with a deliberate bad import or cycle, which it must name."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "check_layers.py"
spec = importlib.util.spec_from_file_location("check_layers", SCRIPT)
check_layers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_layers)


@pytest.fixture(scope="module")
def problems_of_source() -> set[str]:
    """What the checker finds in the source (nothing, when the first test passes): a copy adds to this."""
    return set(check_layers.problems(ROOT))


@pytest.fixture
def copy_of_source(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "fivestack", tmp_path / "fivestack", ignore=shutil.ignore_patterns("__pycache__", "static",
                                                                                              "trained", "*.so"))
    return tmp_path


def add_line(root: Path, module: str, line: str) -> None:
    path = root / "fivestack" / module
    path.write_text(path.read_text() + "\n" + line + "\n")


def test_the_source_has_no_import_against_the_floors_and_no_cycle():
    assert check_layers.problems(ROOT) == []
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout
    assert "no problem" in done.stdout


def test_every_package_has_a_floor():
    packages = {p.name for p in (ROOT / "fivestack").iterdir() if (p / "__init__.py").is_file()}
    packages |= {p.stem for p in (ROOT / "fivestack").glob("*.py") if p.stem != "__init__"}
    assert packages == set(check_layers.FLOOR_OF)


@pytest.mark.parametrize("module, line, named", [
    # the game reaching up to the training system, inside a function: every import counts
    ("game/engine.py", "def _late():\n    from fivestack.system.pool import OpponentPool", "fivestack.system.pool"),
    # the viewer importing an app on a floor above it
    ("viewer/server.py", "import fivestack.draft.search", "fivestack.draft.search"),
    # two packages on one floor
    ("env/batched.py", "from fivestack.viewer import replay", "fivestack.viewer.replay"),
    # under TYPE_CHECKING
    ("model/policy.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from fivestack.rl import ppo",
     "fivestack.rl.ppo"),
    # an app using the training system's internals
    ("arena/records.py", "from fivestack.system.evaluator import RatingEvaluator", "fivestack.system.evaluator"),
])
def test_a_deliberate_bad_import_is_named(copy_of_source, problems_of_source, module, line, named):
    before = problems_of_source
    add_line(copy_of_source, module, line)
    found = [problem for problem in check_layers.problems(copy_of_source) if problem not in before]
    against_floors = [problem for problem in found if not problem.startswith("import cycle")]  # it may close one too
    assert len(against_floors) == 1, found
    assert named in against_floors[0] and module.replace("/", ".")[:-3] in against_floors[0]
    if module.startswith("game/"):  # the command line says it too, and fails
        done = subprocess.run([sys.executable, str(SCRIPT), str(copy_of_source)], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 1 and named in done.stdout


def test_a_cycle_inside_one_package_is_found(copy_of_source, problems_of_source):
    """``match.agents`` imports ``match.teams``; ``teams`` importing ``agents`` back (relatively, in a function) closes
    a cycle that no floor rule sees."""
    before = problems_of_source
    add_line(copy_of_source, "match/teams.py", "def _late():\n    from . import agents")
    found = [problem for problem in check_layers.problems(copy_of_source) if problem not in before]
    assert found == ["import cycle between fivestack.match.agents, fivestack.match.teams"]
