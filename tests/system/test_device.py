"""``run.device``: cpu, cuda or auto. On a machine without a CUDA GPU, "cuda" is one clear error (also through
``fivestack train``) and "auto" falls back to the CPU with a notice; the one forward pass gives exactly what the
previous ``Inference`` gave on the CPU and serves a concatenation of requests; optimizer checkpoints come back on
the CPU and load onto the parameters' device.

The tests marked ``gpu`` need a CUDA GPU and skip without one (``pytest -m gpu``; ``scripts/gpu_check.sh`` runs
them on a GPU machine): the forward pass on CUDA matches the CPU's within bf16 tolerance, an optimizer step on
CUDA, NCCL between optimizers (one GPU: a pool of one), and a run written on CUDA resumes on the CPU. None of
them needs Ray.
"""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file

from fivestack.env import spaces as sp
from fivestack.game.layout import N_PRIMARY
from fivestack.game.patch import Patch
from fivestack.model.policy import Policy, PolicyConfig
from fivestack.runs.config import ConfigError, PPOConfig, load_config
from fivestack.match.device import resolve_device, to_cpu
from fivestack.system.distributed import backend_for
from fivestack.match.inference import Inference, concatenate_requests, forward, split_result
from fivestack.system.messages import SampleBatch
from fivestack.match.inference import InferenceRequest
from fivestack.system.optimizer import Optimizer

HAS_CUDA = torch.cuda.is_available()
needs_no_gpu = pytest.mark.skipif(HAS_CUDA, reason="checks the behaviour on a machine without a CUDA GPU")

SMALL = PolicyConfig(unit_embedding=16, element_hidden=16, trunk=32, lstm_size=32, action_embedding=16)
K = 5  # heroes per team


def small_policy(seed: int = 0) -> Policy:
    torch.manual_seed(seed)
    policy = Policy(SMALL)
    with torch.no_grad():  # away from the near-uniform initialisation, so that every head's choice is clear
        for head in (policy.offset_x, policy.offset_y, policy.delay_head, policy.value_head, policy.win_head):
            head.weight.normal_(0.0, 0.5)
        policy.target_gate.weight.normal_(0.0, 1.0)
    return policy


def synthetic_obs(lead: tuple[int, ...], rng: np.random.Generator, all_valid: bool = False) -> dict[str, np.ndarray]:
    """Observations with the env's groups, dtypes and shapes: team groups (*lead, ...), hero groups
    (*lead, K, ...); about half the units and heroes seen, every row with at least one available action
    (``all_valid``: every action and target available, so that any action is a valid one)."""
    patch = Patch()
    obs = {name: rng.normal(size=(*lead, *shape)).astype(np.float32) for name, shape in sp.TEAM_GROUPS.items()}
    obs["units"][..., sp.U_SEEN] = rng.random(obs["units"].shape[:-1]) < 0.5
    obs["heroes"][..., sp.HX_SEEN] = rng.random(obs["heroes"].shape[:-1]) < 0.5
    obs["item_ids"] = rng.integers(-1, len(patch.items), (*lead, *sp.TEAM_INT_GROUPS["item_ids"])).astype(np.int32)
    obs["ability_ids"] = rng.integers(-1, len(patch.ability_table),
                                      (*lead, *sp.TEAM_INT_GROUPS["ability_ids"])).astype(np.int32)
    obs["hero_ids"] = np.where(obs["heroes"][..., sp.HX_SEEN] > 0,
                               rng.integers(0, patch.n_heroes, (*lead, *sp.TEAM_INT_GROUPS["hero_ids"])), -1
                               ).astype(np.int32)
    obs["own_hero_id"] = rng.integers(0, patch.n_heroes, (*lead, K)).astype(np.int32)
    for name, shape in sp.HERO_GROUPS.items():
        obs[name] = rng.normal(size=(*lead, K, *shape)).astype(np.float32)
    for name, shape in sp.HERO_MASK_GROUPS.items():
        on = np.ones((*lead, K, *shape)) if all_valid else rng.random((*lead, K, *shape)) < 0.5
        obs[name] = on.astype(np.uint8)
    obs["primary_mask"][..., 0] = 1  # noop is always available
    return obs


def synthetic_request(teams: int, seed: int, lstm: int = SMALL.lstm_size) -> InferenceRequest:
    rng = np.random.default_rng(seed)
    slots = np.array([[team % 2 * 5 + h for h in range(K)] for team in range(teams)], np.int64)
    state = tuple(rng.normal(size=(teams * K, lstm)).astype(np.float32) for _ in range(2))
    first = (rng.random(teams) < 0.3).astype(np.float32)
    return InferenceRequest(synthetic_obs((teams,), rng), slots, state, first)


def synthetic_batch(samples: int, steps: int, seed: int, lstm: int = SMALL.lstm_size) -> SampleBatch:
    """A training batch whose every action is valid (all masks on), with log-probs near the policy's."""
    rng = np.random.default_rng(seed)
    actions = np.stack([rng.integers(0, n, (samples, steps, K)) for n in sp.ACTION_NVEC], -1).astype(np.int64)
    first = np.zeros((samples, steps), np.float32)
    first[:, 0] = 1.0
    return SampleBatch(
        obs=synthetic_obs((samples, steps), rng, all_valid=True),
        hero_slots=np.tile(np.arange(K, dtype=np.int64), (samples, 1)),
        actions=actions, teacher_actions=np.full_like(actions, -1),
        head_log_prob=rng.normal(-3.0, 0.5, (samples, steps, K, 4)).astype(np.float32),
        advantages=rng.normal(size=(samples, steps, K)).astype(np.float32),
        returns=rng.normal(size=(samples, steps, K)).astype(np.float32),
        win_target=(rng.random((samples, steps, K)) < 0.5).astype(np.float32), first=first,
        h0=np.zeros((samples, K, lstm), np.float32), c0=np.zeros((samples, K, lstm), np.float32),
        version=np.zeros(samples, np.int64))


def train_cli(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fivestack.cli", "train", *args], capture_output=True, text=True,
                          timeout=600)


# 1v1, 2 games: 4 teams x 32 steps = 8 samples a segment, 2 gradient steps = 2 versions
TINY_RUN = ["game.mode='1v1'", "rollout.games=2", "rollout.segment_steps=32", "ppo.batch_samples=4",
            "ppo.steps_per_version=1", "eval.every_versions=0", "run.torch_threads=1", "pool.past_fraction=0.0"]


# ---------------------------------------------------------------------- run.device
def test_run_device_is_cpu_cuda_or_auto():
    assert load_config().run.device == "cpu"
    assert load_config(None, ["run.device='auto'"]).run.device == "auto"
    with pytest.raises(ConfigError, match="run.device must be one of 'cpu', 'cuda', 'auto', got 'gpu'"):
        load_config(None, ["run.device=gpu"])


@needs_no_gpu
def test_cuda_without_a_gpu_is_one_line_naming_the_fix():
    with pytest.raises(ConfigError) as caught:
        resolve_device("cuda")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith('run.device = "cuda" but torch ') and torch.__version__ in message
    assert "--set run.device=cpu" in message


@needs_no_gpu
def test_auto_without_a_gpu_falls_back_to_the_cpu_with_one_notice():
    notices: list[str] = []
    assert resolve_device("auto", notices.append) == torch.device("cpu")
    assert len(notices) == 1 and "\n" not in notices[0] and "training on the CPU" in notices[0]
    assert resolve_device("cpu", notices.append) == torch.device("cpu") and len(notices) == 1  # cpu: said nothing


@needs_no_gpu
def test_train_with_cuda_on_a_machine_without_a_gpu_fails_with_one_line(tmp_path):
    out = train_cli(["--set", "run.device=cuda", "--set", f"run.runs_dir='{tmp_path}'"])
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and 'run.device = "cuda"' in lines[0] and "--set run.device=cpu" in lines[0], lines
    assert list(tmp_path.iterdir()) == []  # no run folder is left behind
    out = train_cli(["--runner", "ray", "--set", "run.device=cuda", "--set", f"run.runs_dir='{tmp_path}'"])
    assert out.returncode == 2 and "--runner serial" in out.stderr and "Traceback" not in out.stderr
    assert list(tmp_path.iterdir()) == []


@needs_no_gpu
@pytest.mark.slow
def test_train_with_auto_on_a_machine_without_a_gpu_trains_on_the_cpu(tmp_path):
    sets = [item for key in [*TINY_RUN, "run.device=auto", "run.max_versions=1", f"run.runs_dir='{tmp_path}'",
                             "run.name='auto'"] for item in ("--set", key)]
    out = train_cli(sets)
    assert out.returncode == 0, out.stderr
    assert 'run.device = "auto"' in out.stderr and "training on the CPU" in out.stderr
    assert list((tmp_path / "auto" / "checkpoints").glob("*/model.safetensors"))


# ---------------------------------------------------------------------- the one forward pass
def previous_inference(policy: Policy, request: InferenceRequest, generator: torch.Generator, value_scale: float):
    """``Inference.__call__`` as it was before the device work (the reference of the CPU path)."""
    with torch.inference_mode():
        obs = {k: torch.from_numpy(v) for k, v in request.obs.items()}
        state = (torch.from_numpy(request.state[0]), torch.from_numpy(request.state[1]))
        actions, head_log_prob, value, win_prob, (h, c) = policy.act(
            obs, state, torch.from_numpy(request.first), torch.from_numpy(request.hero_slots), generator, False)
        return (actions.numpy(), head_log_prob.numpy(), value.numpy() * value_scale, win_prob.numpy(), h.numpy(),
                c.numpy())


def test_forward_on_the_cpu_is_exactly_the_previous_inference():
    policy = small_policy()
    inference = Inference(policy, seed=3)
    inference.value_scale, inference.version = 2.5, 7
    reference = torch.Generator().manual_seed(3)
    for call in range(3):  # the sampling stream advances identically, call after call
        request = synthetic_request(teams=4, seed=call)
        result = inference(request)
        expected = previous_inference(policy, request, reference, 2.5)
        got = (result.actions, result.head_log_prob, result.value, result.win_prob, *result.state)
        for name, a, b in zip(("actions", "head_log_prob", "value", "win_prob", "h", "c"), got, expected):
            assert a.dtype == b.dtype and np.array_equal(a, b), (call, name)
        assert result.version == 7
    assert inference.device == torch.device("cpu") and inference.generator.device == torch.device("cpu")


def test_a_concatenation_of_requests_splits_back_into_each_requests_result():
    """What a batching inference actor does: several workers' requests as one forward pass, cut back."""
    policy = small_policy()
    requests = [synthetic_request(teams=2, seed=10), synthetic_request(teams=3, seed=11)]
    batch = concatenate_requests(requests)
    assert batch.hero_slots.shape == (5, K) and batch.state[0].shape == (5 * K, SMALL.lstm_size)
    together = split_result(forward(policy, batch, None, 2.0, version=4, greedy=True), [2, 3])
    for request, part in zip(requests, together):
        alone = forward(policy, request, None, 2.0, version=4, greedy=True)
        assert np.array_equal(part.actions, alone.actions) and part.version == 4
        np.testing.assert_allclose(part.value, alone.value, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(part.state[1], alone.state[1], rtol=1e-5, atol=1e-6)
        assert part.state[0].shape == (len(request.first) * K, SMALL.lstm_size)
    with pytest.raises(ValueError, match="hold 4 teams but the result has 5"):
        split_result(forward(policy, batch, None, greedy=True), [2, 2])


def test_the_sampling_generator_must_live_where_the_pass_runs():
    policy = small_policy()
    with pytest.raises(ValueError, match="the sampling generator is on cpu but the forward pass runs on meta"):
        forward(policy, synthetic_request(2, 0), torch.Generator(), device="meta")


def test_a_sampling_state_from_another_devices_generator_restarts_from_the_seed():
    """A CPU generator's state continues exactly; a CUDA generator's (16 bytes of Philox seed and offset, as in a
    checkpoint written on a GPU) cannot continue on the CPU: the stream restarts from the seed."""
    inference = Inference(small_policy(), seed=5)
    torch.rand(3, generator=inference.generator)
    saved = inference.rng_state().clone()
    expected = torch.rand(4, generator=inference.generator)
    assert inference.set_rng_state(saved) is True
    assert torch.equal(torch.rand(4, generator=inference.generator), expected)
    assert inference.set_rng_state(torch.zeros(16, dtype=torch.uint8)) is False
    from_the_seed = torch.rand(4, generator=torch.Generator().manual_seed(5))
    assert torch.equal(torch.rand(4, generator=inference.generator), from_the_seed)


# ---------------------------------------------------------------------- optimizer state across devices
def test_optimizer_checkpoint_round_trip_continues_exactly(tmp_path):
    """Train a step, save the weights and Adam's state as a checkpoint does, load them into a fresh optimizer:
    the next step gives the same parameters bit for bit."""
    config = PPOConfig()
    first, second = synthetic_batch(2, 4, seed=0), synthetic_batch(2, 4, seed=1)
    optimizer = Optimizer(small_policy(0), config, device="cpu")
    optimizer.train(first)
    optim = optimizer.optimizer_tensors()
    assert optim and all(t.device.type == "cpu" for t in optim.values())
    save_file(to_cpu(optimizer.policy.state_dict()), str(tmp_path / "model.safetensors"))
    save_file(optim, str(tmp_path / "optim.safetensors"))
    restored = Optimizer(small_policy(1), config, device="cpu")
    restored.policy.load_state_dict(load_file(str(tmp_path / "model.safetensors")))
    restored.load_optimizer_tensors(load_file(str(tmp_path / "optim.safetensors")))
    optimizer.train(second)
    restored.train(second)
    for (name, a), b in zip(optimizer.policy.state_dict().items(), restored.policy.state_dict().values()):
        assert torch.equal(a, b), name


def test_optimizer_state_loads_onto_the_parameters_device():
    """CPU tensors from a checkpoint go where the parameters are (``meta`` stands in for a GPU here)."""
    source = Optimizer(small_policy(0), PPOConfig())
    source.train(synthetic_batch(2, 4, seed=0))
    tensors = source.optimizer_tensors()
    target = Optimizer(small_policy(0), PPOConfig(), device="meta")
    assert all(p.device.type == "meta" for p in target.policy.parameters())
    target.load_optimizer_tensors(tensors)
    states = [target.adam.state[p] for p in target.policy.parameters()]
    assert len(states) == len(list(source.policy.parameters()))
    assert all(s["exp_avg"].device.type == "meta" and s["exp_avg_sq"].device.type == "meta" for s in states)
    assert all(s["step"].device.type == "cpu" for s in states)  # Adam keeps its step count on the CPU


def test_to_cpu_gives_contiguous_cpu_tensors():
    weights = {"a": torch.arange(6.0).reshape(2, 3).T, "b": torch.ones(2, requires_grad=True)}
    out = to_cpu(weights)
    assert all(t.device.type == "cpu" and t.is_contiguous() and not t.requires_grad for t in out.values())
    assert torch.equal(out["a"], weights["a"])


def test_the_collective_backend_follows_the_device_not_the_machine():
    assert backend_for("cpu") == "gloo" and backend_for(torch.device("cpu")) == "gloo"
    assert backend_for("cuda") == "nccl" and backend_for(torch.device("cuda", 0)) == "nccl"


# ---------------------------------------------------------------------- on a CUDA GPU
@pytest.mark.gpu
@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU")
def test_forward_on_cuda_matches_the_cpu_within_bf16_tolerance():
    cpu_policy = small_policy()
    cuda_policy = copy.deepcopy(cpu_policy).to("cuda")
    request = synthetic_request(teams=16, seed=0)
    on_cpu = forward(cpu_policy, request, None, 2.0, greedy=True)
    on_cuda = forward(cuda_policy, request, None, 2.0, greedy=True)
    for name in ("head_log_prob", "value", "win_prob"):
        assert getattr(on_cuda, name).dtype == np.float32, name
    assert on_cuda.state[0].dtype == np.float32 and on_cuda.state[1].dtype == np.float32
    np.testing.assert_allclose(on_cuda.value, on_cpu.value, rtol=0.05, atol=0.05)
    np.testing.assert_allclose(on_cuda.win_prob, on_cpu.win_prob, atol=0.02)
    np.testing.assert_allclose(on_cuda.state[1], on_cpu.state[1], atol=0.05)
    same = (on_cuda.actions == on_cpu.actions).all(-1).mean()
    assert same >= 0.9, f"only {same:.0%} of the greedy actions agree"
    # sampling on the GPU, with its generator there: valid actions, fp32 log-probs
    inference = Inference(copy.deepcopy(cpu_policy), seed=1, device="cuda")
    assert inference.generator.device.type == "cuda"
    sampled = inference(request)
    primary = sampled.actions[..., 0]
    assert request.obs["primary_mask"][np.arange(16)[:, None], np.arange(K)[None, :], primary].all()
    assert np.isfinite(sampled.log_prob).all() and (sampled.log_prob <= 0).all()
    assert sampled.log_prob.dtype == np.float32 and primary.max() < N_PRIMARY


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU")
def test_an_optimizer_step_on_cuda():
    optimizer = Optimizer(small_policy(), PPOConfig(), device="cuda")
    before = [p.detach().clone() for p in optimizer.policy.parameters()]
    metrics = optimizer.train(synthetic_batch(4, 8, seed=0))
    assert all(np.isfinite(v) for v in metrics.values()), metrics
    assert all(p.device.type == "cuda" for p in optimizer.policy.parameters())
    assert any(not torch.equal(a, p) for a, p in zip(before, optimizer.policy.parameters()))
    optim = optimizer.optimizer_tensors()
    assert optim and all(t.device.type == "cpu" for t in optim.values())
    restored = Optimizer(small_policy(), PPOConfig(), device="cpu")
    restored.policy.load_state_dict(to_cpu(optimizer.policy.state_dict()))
    restored.load_optimizer_tensors(optim)
    assert all(np.isfinite(v) for v in restored.train(synthetic_batch(4, 8, seed=1)).values())


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU")
def test_nccl_gradient_sync_on_cuda_in_a_pool_of_one():
    """NCCL between optimizers needs several GPUs to show an allreduce; with one, a pool of one checks that
    every collective runs on the GPU's tensors."""
    from fivestack.system.distributed import GradientSync, close_group, free_port, init_group

    assert init_group(0, 1, "127.0.0.1", free_port(), device="cuda") == "nccl"
    try:
        optimizer = Optimizer(small_policy(), PPOConfig(), device="cuda")
        optimizer.sync = GradientSync(optimizer.policy, 1)
        batch = synthetic_batch(4, 8, seed=0)
        metrics = optimizer.train(batch)
        optimizer.sync.observe(batch.obs, batch.returns)
        optimizer.sync.apply_observed(optimizer.return_std)
        assert all(np.isfinite(v) for v in metrics.values()), metrics
        assert all(torch.isfinite(p).all() for p in optimizer.policy.parameters())
    finally:
        close_group()


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU")
def test_a_run_written_on_cuda_resumes_on_the_cpu(tmp_path):
    from fivestack.runs.checkpoints import latest_checkpoint, load_checkpoint
    from fivestack.system.serial import SerialRunner

    base = [*TINY_RUN, f"run.runs_dir='{tmp_path}'", "run.name='gpu'"]
    runner = SerialRunner(load_config(None, [*base, "run.device=cuda", "run.max_versions=2"]))
    assert runner.device.type == "cuda" and runner.inference.generator.device.type == "cuda"
    runner.run()
    runner.close()
    saved, _, state = load_checkpoint(latest_checkpoint(tmp_path / "gpu"))
    assert state["version"] == 2 and all(t.device.type == "cpu" for t in saved.values())
    resumed = SerialRunner(load_config(None, [*base, "run.device=cpu", "run.max_versions=4"]), resume=tmp_path / "gpu")
    for name, tensor in resumed.policy.state_dict().items():
        assert tensor.device.type == "cpu" and torch.equal(tensor, saved[name]), name
    progress = resumed.run()
    resumed.close()
    assert progress.version == 4
