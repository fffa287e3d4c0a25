"""The shared-memory hop between a rollout worker and an inference actor (``fivestack.system.ray.channel``), and
the ray path's forward pass (``fivestack.system.ray.inference.forward_together``), without Ray: real processes, real
sockets, real shared memory, the real policy."""

import multiprocessing as mp
import os
import signal
import time

import numpy as np
import pytest
import torch

from fivestack.model.policy import Policy
from fivestack.runs.config import load_config
from fivestack.match.inference import Inference
from fivestack.match.inference import InferenceRequest, InferenceResult
from fivestack.system.ray import channel
from fivestack.system.ray.inference import forward_together
from fivestack.match.inference import concatenate_requests
from fivestack.system.rollout import RolloutWorker
from fivestack.match.teams import team_view

pytestmark = pytest.mark.skipif(not channel.available(), reason="needs memfd_create and Unix sockets (Linux)")

SETTINGS = ["game.mode='5v5'", "rollout.games=2", "run.torch_threads=1"]
SEED = 11


def a_request(seed: int = 0) -> tuple[InferenceRequest, int]:
    """A real 5v5 request from a worker's games (with a nonzero LSTM state), and the worker's team count."""
    worker = RolloutWorker(load_config(None, SETTINGS), seed=seed)
    rng = np.random.default_rng(seed)
    state = tuple(rng.standard_normal(s.shape).astype(np.float32) for s in worker.state)
    first = (rng.random(worker.n_teams) < 0.5).astype(np.float32)
    return InferenceRequest(team_view(worker.obs, worker.heroes), worker.hero_slots, state, first), worker.n_teams


def an_inference() -> Inference:
    torch.manual_seed(3)
    torch.set_num_threads(1)
    inference = Inference(Policy(load_config(None, SETTINGS).policy), seed=SEED)
    inference.policy.eval()
    inference.version, inference.value_scale = 5, 2.5
    return inference


def same(a: InferenceResult, b: InferenceResult) -> bool:
    arrays = [(a.actions, b.actions), (a.head_log_prob, b.head_log_prob), (a.value, b.value), (a.win_prob, b.win_prob),
              (a.state[0], b.state[0]), (a.state[1], b.state[1])]
    return a.version == b.version and all(x.dtype == y.dtype and np.array_equal(x, y) for x, y in arrays)


def serve_forever(addresses, echo: bool) -> None:
    """A server in its own process: the ray path's forward pass (or an echo of the request), until killed."""
    if echo:
        def handler(version, request, reply):  # every array of the request comes back, so the test sees them all
            t, k = request.hero_slots.shape
            obs = sum(float(np.asarray(v, np.float64).sum()) for v in request.obs.values())
            head_log_prob = np.zeros((t, k, 4), np.float32)
            head_log_prob[..., 0] = obs  # the primary head's slot: the action's log-prob sums to it exactly
            reply(InferenceResult(np.broadcast_to(request.hero_slots[..., None], (t, k, 5)).copy(),
                                  head_log_prob, request.first[:, None].repeat(k, 1),
                                  np.full((t, k), version, np.float32), request.state, version + 1))
    else:
        inference = an_inference()

        def handler(version, request, reply):
            reply(forward_together(inference, [request])[0])
    server = channel.ChannelServer(handler)
    addresses.put(server.address)
    while True:
        time.sleep(1)


@pytest.fixture
def server_process():
    started = []

    def start(echo: bool = False):
        ctx = mp.get_context("spawn")
        addresses = ctx.Queue()
        proc = ctx.Process(target=serve_forever, args=(addresses, echo), daemon=True)
        proc.start()
        started.append(proc)
        return proc, addresses.get(timeout=120)

    yield start
    for proc in started:
        if proc.is_alive():
            os.kill(proc.pid, signal.SIGKILL)
        proc.join(timeout=10)


def test_a_request_crosses_the_channel_exactly_whole_and_in_part(server_process):
    request, teams = a_request()
    _, address = server_process(echo=True)
    client = channel.ChannelClient(address, channel.Layout.for_request(request, teams))
    for rows in (np.arange(teams), np.array([0, 3]), np.array([2])):  # all teams; a past version's rows left out
        part = request.select(rows)
        out = client(7, part)
        t, k = part.hero_slots.shape
        assert out.version == 8 and out.actions.shape == (t, k, 5)
        assert np.array_equal(out.actions[..., 0], part.hero_slots)
        assert np.array_equal(out.log_prob, np.full((t, k), sum(float(np.asarray(v, np.float64).sum())
                                                                for v in part.obs.values()), np.float32))
        assert np.array_equal(out.value[:, 0], part.first) and np.all(out.win_prob == 7)
        assert np.array_equal(out.state[0], part.state[0]) and np.array_equal(out.state[1], part.state[1])
        assert out.state[0].shape == part.state[0].shape
    # the result is the caller's own: the next call does not overwrite it
    kept = client(7, request)
    before = kept.state[0].copy()
    client(7, request.select(np.array([1])))
    assert np.array_equal(kept.state[0], before)
    client.close()


def test_the_forward_pass_across_the_channel_is_inference_on_the_same_request_and_seed(server_process):
    request, teams = a_request(seed=4)
    _, address = server_process()
    client = channel.ChannelClient(address, channel.Layout.for_request(request, teams))
    here = an_inference()  # the same weights and sampling seed as the server's
    for rows in (np.arange(teams), np.array([1, 2])):
        part = request.select(rows)
        assert same(client(5, part), here(part))
    client.close()


def test_the_batched_forward_pass_gives_each_worker_its_rows_of_one_inference_call():
    a, _ = a_request(seed=1)
    b, _ = a_request(seed=2)
    parts = forward_together(an_inference(), [a, b.select(np.array([0, 2, 3]))])
    whole = an_inference()(concatenate_requests([a, b.select(np.array([0, 2, 3]))]))
    t, k = a.hero_slots.shape
    assert same(parts[0], InferenceResult(whole.actions[:t], whole.head_log_prob[:t], whole.value[:t], whole.win_prob[:t],
                                          (whole.state[0][:t * k], whole.state[1][:t * k]), whole.version))
    assert same(parts[1], InferenceResult(whole.actions[t:], whole.head_log_prob[t:], whole.value[t:], whole.win_prob[t:],
                                          (whole.state[0][t * k:], whole.state[1][t * k:]), whole.version))
    assert parts[1].actions.shape[0] == 3 and np.all(parts[0].value == whole.value[:t])


def test_a_dead_inference_process_is_a_clear_error_not_a_hang(server_process):
    request, teams = a_request()
    proc, address = server_process()
    client = channel.ChannelClient(address, channel.Layout.for_request(request, teams))
    client(0, request)
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(timeout=10)
    started = time.monotonic()
    with pytest.raises(channel.ChannelClosed, match="inference actor closed the channel"):
        client(0, request)
    assert time.monotonic() - started < 5
    with pytest.raises(channel.ChannelClosed, match="not listening"):  # its replacement is not there yet
        channel.ChannelClient(address, channel.Layout.for_request(request, teams))


def test_the_server_drops_a_dead_worker_and_serves_the_others():
    request, teams = a_request()
    inference = an_inference()
    server = channel.ChannelServer(lambda v, r, reply: reply(forward_together(inference, [r])[0]))
    try:
        layout = channel.Layout.for_request(request, teams)
        gone = channel.ChannelClient(server.address, layout)
        gone(0, request)
        gone.close()  # as a worker's process ending closes its socket
        stays = channel.ChannelClient(server.address, layout)
        here = an_inference()
        here(request)  # the server's sampling stream has served one request
        assert same(stays(0, request), here(request))
        deadline = time.monotonic() + 5
        while len(server.peers) != 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(server.peers) == 1
        stays.close()
    finally:
        server.close()


def test_a_request_that_does_not_fit_the_layout_is_refused_before_it_is_sent():
    request, teams = a_request()
    layout = channel.Layout.for_request(request.select(np.arange(2)), 2)  # room for two teams only
    server = channel.ChannelServer(lambda v, r, reply: reply(RuntimeError("no forward pass here")))
    try:
        client = channel.ChannelClient(server.address, layout)
        assert client.fits(request.select(np.arange(2))) and not client.fits(request)
        other = InferenceRequest({**request.obs, "units": request.obs["units"].astype(np.float64)},
                                 request.hero_slots, request.state, request.first)
        assert not client.fits(other.select(np.arange(2)))
        with pytest.raises(RuntimeError, match="RuntimeError: no forward pass here"):  # the server's error
            client(0, request.select(np.arange(2)))
        client.close()
    finally:
        server.close()
