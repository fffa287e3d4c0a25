"""The policy scorer (``fivestack/draft/policy_scorer.py``) and ``fivestack draft RUN[:VERSION]``.

A freshly initialised policy (seeded) on ``stub_patch(11)`` (the game's heroes and renamed copies: 2,772 lineups)
stands in for a trained run while the game has fewer than ten heroes; the CLI errors use tiny real runs.
"""

import io

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from fivestack.cli import app
from fivestack.draft.lineups import DraftError, HeroPool, LineupIndex, lineup_count
from fivestack.draft.policy_scorer import PolicyScorer, radiant_share, team_win_probabilities
from fivestack.draft.precompute import load_table, precompute
from fivestack.draft.run_draft import score_and_draft
from fivestack.draft.stub import StubWinProbability, stub_patch
from fivestack.model.policy import Policy, PolicyConfig
from fivestack.match.inference import forward_arrays, initial_state
from fivestack.match.teams import active_heroes, team_view
from tiny_runs import tiny_run

N = 11


@pytest.fixture(scope="module")
def patch():
    return stub_patch(N)


@pytest.fixture(scope="module")
def policy(patch):
    torch.manual_seed(3)
    torch.set_num_threads(1)
    model = Policy(PolicyConfig(lstm_size=32, trunk=64), patch).eval()
    with torch.no_grad():  # a win head with opinions: the fresh one (std 0.01) says ~0.5 everywhere
        model.win_head.weight.normal_(0.0, 1.0)
    return model


def make_scorer(policy, patch, **kwargs):
    pool = HeroPool(tuple(h.name for h in patch.heroes[:N]))
    return PolicyScorer(policy, patch, np.arange(N), pool, **kwargs)


def test_the_win_probability_is_the_policys_first_step_output(policy, patch):
    """The scorer's per-hero probabilities are what a rollout reads (Policy.act's win_prob, fresh state)."""
    scorer = make_scorer(policy, patch)
    index = LineupIndex.of(N)
    radiant, dire = index.unrank(0, 6)
    obs = scorer.observe(radiant, dire)
    mine = team_win_probabilities(policy, obs)
    heroes = active_heroes("5v5")
    view = team_view(obs, heroes)
    out = forward_arrays(policy, view, initial_state(12 * 5, policy.config.lstm_size), np.ones(12, np.float32),
                         np.tile(heroes, (6, 1)), torch.Generator().manual_seed(0))
    np.testing.assert_allclose(mine.reshape(12, 5), out.win_prob, rtol=0, atol=1e-6)
    a, b = radiant_share(mine)
    mine = mine.astype(np.float64)
    np.testing.assert_allclose(a + b, (mine[:, 0].mean(1) + (1 - mine[:, 1]).mean(1)) / 2, rtol=0, atol=1e-12)


def test_batched_equals_one_lineup_at_a_time(policy, patch):
    index = LineupIndex.of(N)
    rows = np.random.default_rng(0).choice(index.count, 12, replace=False)
    radiant, dire = zip(*(index.unrank(int(r), int(r) + 1) for r in rows))
    radiant, dire = np.concatenate(radiant), np.concatenate(dire)
    batched = make_scorer(policy, patch, batch=12).score(radiant, dire)
    single = make_scorer(policy, patch, batch=1)
    one_by_one = np.array([single.score(radiant[i:i + 1], dire[i:i + 1])[0] for i in range(12)])
    np.testing.assert_allclose(batched, one_by_one, rtol=0, atol=1e-6)
    # the order of heroes within a team does not matter: the scorer plays a set in ascending order
    np.testing.assert_array_equal(batched, make_scorer(policy, patch).score(radiant[:, ::-1], dire))
    assert np.ptp(batched) > 1e-3  # the lineups are told apart


def test_both_lineups_count_and_not_additively():
    """Both lineups are public at the first frame, so Radiant's score depends on Dire's heroes, and not as a
    Radiant term plus a Dire term: the gap between two Dire teams differs against two Radiant teams (what lets
    the search counter-pick). Swapping the sides is another lineup, not 1 - p."""
    patch12 = stub_patch(12)
    torch.manual_seed(4)
    model = Policy(PolicyConfig(lstm_size=32, trunk=64), patch12).eval()
    with torch.no_grad():
        model.win_head.weight.normal_(0.0, 1.0)
    scorer = PolicyScorer(model, patch12, np.arange(12), HeroPool(tuple(h.name for h in patch12.heroes)))
    r1, r2, d1, d2 = [0, 1, 2, 3, 4], [0, 1, 2, 3, 5], [6, 7, 8, 9, 10], [6, 7, 8, 9, 11]
    p = scorer.score(np.array([r1, r1, r2, r2]), np.array([d1, d2, d1, d2]))
    assert abs(p[0] - p[1]) > 1e-5  # Dire's heroes move Radiant's win probability
    assert abs((p[0] - p[1]) - (p[2] - p[3])) > 1e-6  # ... by how much depends on Radiant's
    swapped = scorer.score(np.array([d1, d2]), np.array([r1, r1]))
    assert np.abs(swapped - (1 - p[:2])).max() > 1e-5


def test_a_policy_table_resumes_and_refuses_another_source(policy, patch, tmp_path):
    path = tmp_path / "t.npy"
    scorer = make_scorer(policy, patch, batch=256)
    source = {"run": "tiny", "version": 3}
    calls = []

    def dying(radiant, dire):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return scorer(radiant, dire)

    with pytest.raises(KeyboardInterrupt):
        precompute(path, scorer.pool, dying, scorer.name, batch_size=500, show_progress=False, source=source)
    partial = load_table(path, require_complete=False)
    assert partial.scored == 1000 and partial.source == source
    with pytest.raises(DraftError, match="scored by run tiny, version 3, not run tiny, version 4"):
        precompute(path, scorer.pool, scorer, scorer.name, batch_size=500, show_progress=False,
                   source={"run": "tiny", "version": 4})
    done = precompute(path, scorer.pool, scorer, scorer.name, batch_size=500, show_progress=False, source=source)
    radiant, dire = LineupIndex.of(N).unrank(0, lineup_count(N))
    # the same values as one pass over every lineup, to float32 rounding: the forward pass's batch (500 per resumed
    # call, all lineups here) may change the order of a sum (one value of 2,772 by 6e-8 on patch 1.0)
    np.testing.assert_allclose(done.values, scorer(radiant, dire).astype(np.float32), rtol=1e-6, atol=1e-7)


def test_score_and_draft_from_a_policy(policy, patch, tmp_path):
    """The pipeline of ``fivestack draft RUN``: score the table, then the search drafts both sides; a second call
    reuses the table; a stub table is refused as another source."""
    scorer = make_scorer(policy, patch)
    out = io.StringIO()
    source = {"run": "tiny", "version": 0}
    score_and_draft(scorer, tmp_path / "v0.npy", source, human="none", out=out, show_progress=False)
    text = out.getvalue()
    assert "scored 2,772 lineups of 11 heroes" in text and text.count(" takes ") == 10
    out = io.StringIO()
    score_and_draft(scorer, tmp_path / "v0.npy", source, human="none", out=out, show_progress=False)
    assert "scored" not in out.getvalue().split("table")[0] and out.getvalue().count(" takes ") == 10
    stub = StubWinProbability(N)
    precompute(tmp_path / "stub.npy", scorer.pool, stub, stub.name, show_progress=False)
    with pytest.raises(DraftError, match="scored by no run"):
        score_and_draft(scorer, tmp_path / "stub.npy", source, human="none", out=io.StringIO())


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    return {"1v1": tiny_run(root, "duel", "1v1"), "5v5": tiny_run(root, "team", "5v5")}


@pytest.mark.parametrize("args, message", [
    (["draft", "nowhere/run"], "not a run folder"),
    (["draft", "{5v5}:12345"], "has no version 12345"),
    (["draft", "{5v5}:ten"], "must be a number or 'latest'"),
    (["draft", "{1v1}"], "drafting is for 5v5 teams"),
    (["draft", "{5v5}", "--pool", "Nobody,Bulwark"], "not in patch"),
    (["draft", "{5v5}", "--pool", "Bulwark,Vesper Blade"], "a pool needs at least 10 heroes"),
    (["draft"], "give a run"),
])
def test_draft_run_user_mistakes_get_one_clear_error(runs, args, message):
    args = [a.replace("{1v1}", str(runs["1v1"])).replace("{5v5}", str(runs["5v5"])) for a in args]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_draft_a_run_end_to_end(runs):
    """``fivestack draft RUN --pool (11 of its heroes)``: scores the 2,772 lineups into RUN/draft, drafts both sides;
    a second call drafts on the same table without scoring; another version's table is refused."""
    from fivestack.game.patch import Patch

    run = runs["5v5"]
    pool = ",".join(h.name for h in Patch().heroes[:11])
    result = CliRunner().invoke(app, ["draft", str(run), "--pool", pool, "--human", "none"])
    assert result.exit_code == 0, result.output
    assert "scored 2,772 lineups of 11 heroes" in result.output and result.output.count(" takes ") == 10
    tables = list((run / "draft").glob("v*-pool-*.npy"))
    assert len(tables) == 1
    again = CliRunner().invoke(app, ["draft", f"{run}:latest", "--pool", pool, "--human", "none"])
    assert again.exit_code == 0 and "scored 2,772" not in again.output and again.output.count(" takes ") == 10
    other = CliRunner().invoke(app, ["draft", f"{run}:0", "--pool", pool, "--table", str(tables[0]), "--precompute"])
    assert other.exit_code == 2 and "not run team, version 0" in other.output, other.output
