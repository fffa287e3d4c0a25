"""A small lineup table (11 heroes, the stub scorer) and a running draft server, for the draft screen's tests;
``table`` and ``draft`` are fixtures a test module imports."""

from __future__ import annotations

import threading

import pytest

from fivestack.draft.lineups import HeroPool
from fivestack.draft.precompute import load_table, precompute
from fivestack.draft.stub import StubWinProbability
from fivestack.draft.server import DraftService, make_server

# "Bulwark" is a hero of the game's patch (role: tank): its card shows the role; the others have none
POOL = HeroPool(("Bulwark", "Birch", "Cedar", "Dune", "Elm", "Fern", "Gale", "Holm", "Iris", "Jade", "Kelp"))


def make_table(directory):
    stub = StubWinProbability(POOL.n, seed=2)
    return precompute(directory / "draft11.npy", POOL, stub, stub.name, batch_size=1000, show_progress=False)


class RunningDraft:
    """A ``DraftService`` on ``table`` served on a free loopback port in a background thread."""

    def __init__(self, table, first: str = "radiant", human: str = "radiant"):
        self.service = DraftService(load_table(table.path), first, human)
        self.server = make_server(self.service)
        self.host, self.port = self.server.server_address[:2]
        self.url = f"http://{self.host}:{self.port}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """The 11-hero stub table, once per test module that imports this fixture."""
    return make_table(tmp_path_factory.mktemp("draft"))


@pytest.fixture
def draft(table):
    """A running draft server on ``table`` (Radiant first, the person drafts Radiant), stopped after the test."""
    running = RunningDraft(table, first="radiant", human="radiant")
    yield running
    running.stop()
