"""The replay viewer's and the draft screen's servers against hostile HTTP (the arena's: tests/arena/test_hostile.py).

The rules are ``fivestack/viewer/http_rules.py``'s: hand-computed cases of ``screen`` and ``SiteNames`` first; then
each server over loopback: only its methods (405 with ``Allow``; HEAD without a body), only its own Host (421: a
DNS-rebinding page gets nothing, and the draft API cannot be driven from one; the main branch before the fix
served any Host and let a rebinding page POST picks), and ``HTTP_REQUESTS`` generated hostile requests per server
(``tests/http_fuzz.py``, seeds 41 and 42), after which each still serves its page.
"""

from __future__ import annotations

import http.client
import json
from http import HTTPStatus

import pytest
from typer.testing import CliRunner

from draft_fixtures import draft, table  # noqa: F401 (fixtures)
from fivestack.bots.agents import make_bot, play_step
from fivestack.cli import app
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import GameConfig
from fivestack.draft import server as draft_server
from fivestack.viewer.http_rules import STATIC, Route, SiteNames, screen
from fivestack.viewer.replay import ReplayRecorder
from fivestack.viewer.server import ROUTES, make_server, prepare, start_serving
from http_fuzz import Target, ask, fuzz_http

HTTP_REQUESTS = 2_000


# ------------------------------------------------------------------------------------ the rules, by hand
def test_site_names_of_loopback_and_of_a_named_host():
    site = SiteNames.of("127.0.0.1", 8000)
    assert site.hosts == {"127.0.0.1:8000", "localhost:8000", "[::1]:8000"}
    assert site.origins == {"http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000"}
    lan = SiteNames.of("192.168.1.5", 80)
    assert lan.hosts == {"192.168.1.5:80", "192.168.1.5"} and lan.origins == {"http://192.168.1.5:80",
                                                                             "http://192.168.1.5"}
    assert SiteNames.of("::1", 9).hosts == {"127.0.0.1:9", "localhost:9", "[::1]:9"}


def test_screen_applies_host_then_path_then_method_then_body_then_origin():
    site = SiteNames.of("127.0.0.1", 8000)
    routes = {"/": STATIC, "/api/pick": Route(("POST",), takes_body=True, changes_state=True)}

    def verdict(method, target, has_body=False, **headers):
        given = {k.replace("_", "-"): v if isinstance(v, list) else [v] for k, v in headers.items()}
        refusal = screen(method, target, lambda name: given.get(name, []), routes, site, has_body)
        return None if refusal is None else (refusal.status, refusal.headers)

    own = {"Host": "localhost:8000"}
    assert verdict("GET", "/", **own) is None and verdict("HEAD", "/?a=1", **own) is None
    assert verdict("GET", "/", Host="evil.example:8000") == (HTTPStatus.MISDIRECTED_REQUEST, ())
    assert verdict("GET", "/", Host=["localhost:8000", "localhost:8000"])[0] == 421
    assert verdict("GET", "/") [0] == 421  # no Host
    assert verdict("DELETE", "/nope", Host="evil.example")[0] == 421  # Host first
    assert verdict("DELETE", "/nope", **own)[0] == 404  # then the path
    assert verdict("DELETE", "/", **own) == (HTTPStatus.METHOD_NOT_ALLOWED, (("Allow", "GET, HEAD"),))
    assert verdict("GET", "/api/pick", **own) == (HTTPStatus.METHOD_NOT_ALLOWED, (("Allow", "POST"),))
    assert verdict("GET", "/", True, **own)[0] == 400  # a body where none is taken
    assert verdict("POST", "/api/pick", True, **own)[0] == 403  # no Origin
    assert verdict("POST", "/api/pick", True, Origin="http://evil.example", **own)[0] == 403
    assert verdict("POST", "/api/pick", True, Origin=["http://localhost:8000"] * 2, **own)[0] == 403
    assert verdict("POST", "/api/pick", True, Origin="http://127.0.0.1:8000", **own) is None


# ------------------------------------------------------------------------------------ the viewer
@pytest.fixture(scope="module")
def replay_path(tmp_path_factory):
    env = BatchedEnv(1, GameConfig(mode="1v1", max_seconds=60.0))
    env.reset(5)
    radiant, dire = make_bot("scripted", 0, 1), make_bot("scripted", 1, 2)
    recorder = ReplayRecorder(env, 0, seed=5, players={"radiant": "scripted", "dire": "scripted"})
    for _ in range(30):
        play_step(env, radiant, dire)
        assert recorder.record()
    return recorder.save(tmp_path_factory.mktemp("hostile") / "short.npz")


@pytest.fixture
def viewer(replay_path):
    started = start_serving(lambda: make_server(prepare(replay_path)), "127.0.0.1", 0, print, "test-viewer")
    assert started is not None
    server, url, thread = started
    yield Target("127.0.0.1", server.server_address[1], {path: route.methods for path, route in ROUTES.items()})
    server.shutdown()
    server.server_close()


def test_the_viewer_answers_get_and_head_only_and_only_at_its_names(viewer):
    host = f"Host: 127.0.0.1:{viewer.port}"
    status, headers, body = ask(viewer, f"GET /replay/meta.json HTTP/1.1\n{host}\nConnection: close\n")
    assert status == 200 and json.loads(body)["name"] == "short.npz"
    status, headers, body = ask(viewer, f"HEAD /replay/data.bin HTTP/1.1\n{host}\n")
    assert status == 200 and body == b"" and int(headers["content-length"]) > 0
    for method in ("OPTIONS", "PUT", "DELETE", "TRACE", "POST", "PATCH"):
        status, headers, _ = ask(viewer, f"{method} / HTTP/1.1\n{host}\n")
        assert status == 405 and headers["allow"] == "GET, HEAD", method
        assert headers["content-security-policy"].startswith("default-src 'self'")
    status, headers, _ = ask(viewer, f"POST /replay/meta.json HTTP/1.1\n{host}\nContent-Length: 4\n", b"abcd")
    assert status == 405
    for name in ("evil.example", f"evil.example:{viewer.port}", f"127.0.0.1:{viewer.port + 1}"):
        status, headers, body = ask(viewer, f"GET /replay/meta.json HTTP/1.1\nHost: {name}\n")
        assert status == 421 and b"short.npz" not in body, name
    status, _, _ = ask(viewer, f"GET / HTTP/1.1\nHost: localhost:{viewer.port}\nConnection: close\n")
    assert status == 200


def test_view_and_draft_refuse_a_wildcard_address_with_one_line(replay_path, table):
    result = CliRunner().invoke(app, ["view", str(replay_path), "--host", "0.0.0.0", "--no-browser"])
    assert result.exit_code == 2 and "listens everywhere" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(app, ["draft", "--table", str(table.path), "--view", "--no-browser", "--host", "::"])
    assert result.exit_code == 2 and "listens everywhere" in result.output


@pytest.mark.slow
def test_http_fuzz_against_the_viewer(viewer):
    counts = fuzz_http(viewer, seed=41, n=HTTP_REQUESTS)
    assert sum(counts.values()) == HTTP_REQUESTS
    for status in (200, 400, 404, 405, 421):
        assert counts.get(status, 0) > 10, counts
    status, _, body = ask(viewer, f"GET /replay/meta.json HTTP/1.1\nHost: 127.0.0.1:{viewer.port}\n"
                                  "Connection: close\n")
    assert status == 200 and json.loads(body)["name"] == "short.npz"


# ------------------------------------------------------------------------------------ the draft screen
def post(draft, path: str, body: dict, host: str, origin: str | None):
    conn = http.client.HTTPConnection(draft.host, draft.port, timeout=30)
    conn.putrequest("POST", path, skip_host=True)
    data = json.dumps(body).encode()
    for key, value in (("Host", host), ("Origin", origin), ("Content-Type", "application/json"),
                       ("Content-Length", str(len(data)))):
        if value is not None:
            conn.putheader(key, value)
    conn.endheaders(data)
    response = conn.getresponse()
    answer = response.status, json.loads(response.read())
    conn.close()
    return answer


def test_a_rebinding_page_cannot_drive_the_draft(draft):
    before = draft.service.state()
    # a page of evil.example, whose name now resolves to 127.0.0.1: its Origin matches its own Host
    evil = f"evil.example:{draft.port}"
    status, answer = post(draft, "/api/pick", {"hero": 1}, host=evil, origin=f"http://{evil}")
    assert (status, answer["error"]["code"]) == (421, "misdirected")
    status, answer = post(draft, "/api/new", {"human": "none"}, host=evil, origin=None)
    assert status == 421
    assert draft.service.state() == before
    own = f"127.0.0.1:{draft.port}"
    status, answer = post(draft, "/api/pick", {"hero": 1}, host=own, origin=None)
    assert (status, answer["error"]["code"]) == (403, "bad_origin")
    status, answer = post(draft, "/api/pick", {"hero": 1}, host=own, origin=f"http://localhost:{draft.port}")
    assert status == 200 and answer["radiant"] == [1]


def test_the_draft_api_answers_only_its_methods(draft):
    t = Target(draft.host, draft.port, {})
    host = f"Host: 127.0.0.1:{draft.port}"
    status, headers, body = ask(t, f"GET /api/pick HTTP/1.1\n{host}\n")
    assert status == 405 and headers["allow"] == "POST" and json.loads(body)["error"]["code"] == "method_not_allowed"
    status, headers, _ = ask(t, f"DELETE /api/state HTTP/1.1\n{host}\n")
    assert status == 405 and headers["allow"] == "GET, HEAD"
    status, headers, body = ask(t, f"HEAD /api/state HTTP/1.1\n{host}\n")
    assert status == 200 and body == b"" and int(headers["content-length"]) > 100
    status, _, body = ask(t, f"POST /api/step HTTP/1.1\n{host}\nOrigin: http://127.0.0.1:{draft.port}\n"
                             "Content-Type: application/json\nTransfer-Encoding: chunked\n", b"2\r\n{}\r\n0\r\n\r\n")
    assert status == 400 and "not chunked" in json.loads(body)["error"]["message"]


@pytest.mark.slow
def test_http_fuzz_against_the_draft_screen(draft):
    routes = {path: route.methods for path, route in draft_server.ROUTES.items()}
    api = frozenset(path for path, route in draft_server.ROUTES.items() if route.changes_state)
    target = Target(draft.host, draft.port, routes, with_body=api, changes_state=api)
    counts = fuzz_http(target, seed=42, n=HTTP_REQUESTS)
    assert sum(counts.values()) == HTTP_REQUESTS
    for status in (200, 400, 403, 404, 405, 421):
        assert counts.get(status, 0) > 10, counts
    state = draft.service.state()  # still a valid draft, and the page still served
    assert len(state["radiant"]) + len(state["dire"]) == len(state["picks"])
    status, _, body = ask(target, f"GET /api/state HTTP/1.1\nHost: 127.0.0.1:{draft.port}\nConnection: close\n")
    assert status == 200 and json.loads(body)["pool"]
