"""The draft screen's JSON API over loopback: each refused request gets one JSON error naming its rule and leaves
the draft unchanged; the server serves its four files and nothing else."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from fivestack.game.patch import HEROES
from typer.testing import CliRunner

from draft_fixtures import draft, table  # noqa: F401 (fixtures)
from fivestack.cli import app

ROOT = Path(__file__).resolve().parents[2]


def request(draft, method, path, body=None, headers=None, raw=None, origin=True):
    """One request, as the page sends it: a POST carries the page's own Origin unless ``origin`` is False."""
    conn = http.client.HTTPConnection(draft.host, draft.port, timeout=60)
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    hdrs = {"Content-Type": "application/json"} if data is not None else {}
    if method == "POST" and origin:
        hdrs["Origin"] = f"http://{draft.host}:{draft.port}"
    hdrs.update(headers or {})
    conn.request(method, path, data, hdrs)
    response = conn.getresponse()
    payload = response.read()
    conn.close()
    ctype = response.getheader("Content-Type", "")
    return response.status, (json.loads(payload) if ctype == "application/json" else payload), response


def state(draft):
    status, body, _ = request(draft, "GET", "/api/state")
    assert status == 200
    return body


def refused(draft, path, body, status, code, **kw):
    """POST a request that must be refused: its status, error code, and no change to the draft."""
    before = state(draft)
    got, answer, _ = request(draft, "POST", path, body, **kw)
    assert (got, answer["error"]["code"]) == (status, code), answer
    assert set(answer) == {"error"} and answer["error"]["message"]
    assert state(draft) == before
    return answer["error"]["message"]


def test_state_describes_the_pool_the_order_and_the_start(draft, table):
    s = state(draft)
    assert [h["name"] for h in s["pool"]] == list(table.pool.names)
    roles = {hero.name: hero.role for hero in HEROES}
    assert s["pool"][0]["role"] == roles["Bulwark"] and s["pool"][1]["role"] is None  # Bulwark is a patch hero
    assert s["order"] == ["Radiant", "Dire", "Dire", "Radiant", "Radiant", "Dire", "Dire", "Radiant", "Radiant",
                          "Dire"]
    assert s["groups"] == [1, 2, 2, 2, 2, 1] and s["human"] == "Radiant" and s["first"] == "Radiant"
    assert s["next"] == {"number": 1, "side": "Radiant", "by": "person"} and s["picks"] == []
    assert s["scorer"] == "stub(n=11,seed=2)" and s["table"] == "draft11.npy"
    drafter = draft.service.session.drafter
    assert s["start_value"] == pytest.approx(drafter.value())


def test_every_pick_rule_is_a_json_error_and_changes_nothing(draft):
    assert "unknown hero 'nobody'" in refused(draft, "/api/pick", {"hero": "nobody"}, 400, "unknown_hero")
    assert "not in the pool" in refused(draft, "/api/pick", {"hero": 11}, 400, "unknown_hero")
    refused(draft, "/api/pick", {"hero": [1]}, 400, "unknown_hero")
    refused(draft, "/api/pick", {"hero": True}, 400, "unknown_hero")
    refused(draft, "/api/pick", {"hero": 1, "side": "Dire"}, 400, "not_your_turn")
    refused(draft, "/api/step", {}, 400, "not_your_turn")  # pick 1 is the person's
    status, after, _ = request(draft, "POST", "/api/pick", {"hero": "birch", "side": "Radiant"})
    assert status == 200 and after["radiant"] == [1] and after["picks"][0]["by"] == "person"
    assert "made by the search" in refused(draft, "/api/pick", {"hero": 2}, 400, "not_your_turn")
    status, after, _ = request(draft, "POST", "/api/step", {})
    assert status == 200 and len(after["dire"]) == 1 and after["picks"][1]["by"] == "search"
    status, after, _ = request(draft, "POST", "/api/step", {})
    taken = after["dire"][0]
    assert "already picked by Radiant" in refused(draft, "/api/pick", {"hero": 1}, 400, "taken")
    assert "already picked by Dire" in refused(draft, "/api/pick", {"hero": taken}, 400, "taken")
    while not state(draft)["complete"]:
        s = state(draft)
        if s["next"]["by"] == "person":
            free = [h["id"] for h in s["pool"] if h["id"] not in s["radiant"] + s["dire"]]
            assert request(draft, "POST", "/api/pick", {"hero": free[0]})[0] == 200
        else:
            assert request(draft, "POST", "/api/step", {})[0] == 200
    assert "complete" in refused(draft, "/api/pick", {"hero": 0}, 400, "complete")
    refused(draft, "/api/step", {}, 400, "complete")


def test_malformed_requests_are_json_errors(draft):
    refused(draft, "/api/pick", None, 400, "bad_request", raw=b"{not json")
    refused(draft, "/api/pick", None, 400, "bad_request", raw=b"[1, 2]")
    refused(draft, "/api/pick", None, 400, "bad_request", raw=b"\xff\xfe")
    assert "needs \"hero\"" in refused(draft, "/api/pick", {}, 400, "bad_request")
    assert "unknown field" in refused(draft, "/api/pick", {"hero": 1, "by": "me"}, 400, "bad_request")
    refused(draft, "/api/step", {"hero": 1}, 400, "bad_request")
    refused(draft, "/api/pick", {"hero": 1, "side": "north"}, 400, "bad_request")
    assert "human must be one of" in refused(draft, "/api/new", {"human": "both"}, 400, "bad_request")
    refused(draft, "/api/new", {"first": 1}, 400, "bad_request")
    refused(draft, "/api/pick", {"hero": 1}, 415, "bad_request", headers={"Content-Type": "text/plain"})
    refused(draft, "/api/pick", None, 400, "bad_request", raw=b"{" + b" " * 5000 + b"}")
    refused(draft, "/api/undo", {}, 404, "not_found")
    assert "refused" in refused(draft, "/api/pick", {"hero": 1}, 403, "bad_origin",
                                headers={"Origin": "http://evil.example"})
    # a POST without an Origin is refused too: every browser sends one, so its absence is not the page
    assert "Origin none" in refused(draft, "/api/pick", {"hero": 1}, 403, "bad_origin", origin=False)
    # the page's own origin is accepted
    own = {"Origin": f"http://{draft.host}:{draft.port}"}
    status, _, _ = request(draft, "POST", "/api/pick", {"hero": 1}, headers=own)
    assert status == 200


def test_a_new_draft_takes_the_sides_and_the_search_drafts_both(draft):
    status, s, _ = request(draft, "POST", "/api/new", {"human": "none", "first": "dire"})
    assert status == 200 and s["human"] is None and s["first"] == "Dire" and s["next"]["by"] == "search"
    refused(draft, "/api/pick", {"hero": 1}, 400, "not_your_turn")
    for _ in range(10):
        status, s, _ = request(draft, "POST", "/api/step", {})
        assert status == 200
    assert s["complete"] and [p["side"] for p in s["picks"]] == s["order"]
    assert all(p["by"] == "search" and p["seconds"] >= 0 for p in s["picks"])


def test_only_the_pages_files_and_the_state_are_served(draft):
    for path, ctype in (("/", "text/html"), ("/draft.js", "text/javascript"), ("/draft.css", "text/css"),
                        ("/viewer.css", "text/css")):
        status, _, response = request(draft, "GET", path)
        assert status == 200 and response.getheader("Content-Type").startswith(ctype)
        assert response.getheader("X-Content-Type-Options") == "nosniff"
    for path in ("/viewer.js", "/../pyproject.toml", "/%2e%2e/README.md", "/api", "/api/state/x", "/draft11.npy"):
        assert request(draft, "GET", path)[0] == 404, path


def test_cli_view_errors_are_one_line(tmp_path, table):
    for args, message in ((["--table", str(tmp_path / "none.npy"), "--view", "--no-browser"], "no lineup table"),
                          (["--table", str(table.path), "--view", "--no-browser", "--first", "north"],
                           "--first must be one of"),
                          (["--table", str(table.path), "--view", "--no-browser", "--port", "70000"], "--port")):
        result = CliRunner().invoke(app, ["draft", *args])
        assert result.exit_code == 2 and message in result.output, result.output
        assert "Traceback" not in result.output


def default_sigint() -> None:
    """In the child before it starts: Ctrl-C's default action, as in a terminal. A test run started in the
    background by a shell without job control (``pytest &`` in a script) ignores SIGINT, its children inherit that,
    and a Python started so never turns SIGINT into KeyboardInterrupt: the server would not stop."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_fivestack_draft_view_serves_the_table_until_interrupted(table):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "fivestack.cli", "draft", "--table", str(table.path), "--view",
                             "--no-browser", "--first", "dire", "--human", "none"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, preexec_fn=default_sigint)
    try:
        line = proc.stdout.readline()
        match = re.search(r"at http://127\.0\.0\.1:(\d+)/ ", line)
        assert match and "11 heroes, scored by stub(n=11,seed=2)" in line, (line, proc.stderr.read())

        class Address:
            host, port = "127.0.0.1", int(match[1])

        status, s, _ = request(Address, "GET", "/api/state")
        assert status == 200 and s["first"] == "Dire" and s["human"] is None
        status, s, _ = request(Address, "POST", "/api/step", {})
        assert status == 200 and s["picks"][0]["side"] == "Dire" and s["picks"][0]["by"] == "search"
    finally:
        proc.send_signal(signal.SIGINT)
        # communicate, not wait: it drains both pipes, so a chatty exit cannot block on a full pipe, and a failure
        # shows what the server said
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail(f"the draft server was still running 60 s after Ctrl-C; it said: {proc.communicate()[1]}")
        assert proc.returncode == 0, err
