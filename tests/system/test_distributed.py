"""A pool of two optimizers (two real processes, gloo) that each train on a batch of B samples takes the same
step as one optimizer on the union batch of 2B: parameters, Adam moments, input normalisers and the reward
scale agree to 1e-5 after each of two steps."""

import numpy as np
import pytest
import torch
import torch.multiprocessing as mp
from safetensors.torch import load_file, save_file

from fivestack.model.policy import Policy
from fivestack.runs.config import load_config
from fivestack.system.distributed import GradientSync, close_group, free_port, init_group
from fivestack.match.inference import Inference
from fivestack.system.messages import SAMPLE_ARRAYS, SampleBatch
from fivestack.system.optimizer import Optimizer
from fivestack.system.rollout import RolloutWorker

OVERRIDES = ["game.mode='1v1'", "rollout.games=2", "rollout.segment_steps=64", "ppo.learning_rate=1e-3"]
B = 4  # samples per optimizer per step
# two steps; each optimizer takes half of each step's samples
STEPS = [np.arange(0, 8), np.array([9, 3, 12, 14, 1, 6, 10, 15])]


def save_batch(batch: SampleBatch, path) -> None:
    arrays = {f"obs.{k}": v for k, v in batch.obs.items()}
    for name in SAMPLE_ARRAYS:
        arrays[name] = getattr(batch, name)
    np.savez(path, **arrays)


def load_batch(path) -> SampleBatch:
    with np.load(path, allow_pickle=False) as f:
        data = {k: f[k] for k in f.files}
    obs = {k[4:]: v for k, v in data.items() if k.startswith("obs.")}
    return SampleBatch(obs=obs, **{k: v for k, v in data.items() if not k.startswith("obs.")})


def fresh(config):
    torch.manual_seed(0)
    policy = Policy(config.policy)
    return policy, Optimizer(policy, config.ppo)


def snapshot(policy: Policy, optimizer: Optimizer) -> dict[str, torch.Tensor]:
    out = {f"model.{k}": v.detach().clone() for k, v in policy.state_dict().items()}
    out.update({f"adam.{k}": v.clone() for k, v in optimizer.optimizer_tensors().items()})
    out["return_std"] = torch.tensor([optimizer.return_std.mean, optimizer.return_std.var,
                                      optimizer.return_std.count], dtype=torch.float64)
    return out


def pool_member(rank: int, world: int, port: int, folder: str, use_sync: bool) -> None:
    torch.set_num_threads(1)
    config = load_config(None, OVERRIDES)
    batch = load_batch(f"{folder}/batch.npz")
    policy, optimizer = fresh(config)
    init_group(rank, world, "127.0.0.1", port, backend="gloo")
    sync = GradientSync(policy, world)
    if use_sync:
        optimizer.sync = sync
    for step, order in enumerate(STEPS):
        mine = batch.select(order[rank * B:(rank + 1) * B])
        if step == 0:  # the new experience, observed by whichever optimizer received it
            if use_sync:
                sync.observe(mine.obs, mine.returns)
                sync.apply_observed(optimizer.return_std)
            else:
                optimizer.observe(mine)
        optimizer.train(mine)
        save_file(snapshot(policy, optimizer), f"{folder}/rank{rank}-step{step}.safetensors")
    close_group()


@pytest.fixture(scope="module")
def experience(tmp_path_factory):
    config = load_config(None, OVERRIDES)
    torch.manual_seed(0)
    worker = RolloutWorker(config, seed=3)
    batch = worker.collect(Inference(Policy(config.policy)), team_spirit=0.3)
    assert len(batch) == 16
    folder = tmp_path_factory.mktemp("pool")
    save_batch(batch, folder / "batch.npz")
    # the reference: one optimizer, the union batch
    policy, optimizer = fresh(config)
    reference = []
    for step, order in enumerate(STEPS):
        union = batch.select(order)
        if step == 0:
            optimizer.observe(union)
        optimizer.train(union)
        reference.append(snapshot(policy, optimizer))
    return config, folder, reference


def run_pool(folder, use_sync: bool) -> None:
    mp.spawn(pool_member, args=(2, free_port(), str(folder), use_sync), nprocs=2, join=True)


def max_difference(a: dict, b: dict) -> tuple[float, str]:
    assert a.keys() == b.keys()
    worst = max(a, key=lambda k: (a[k].double() - b[k].double()).abs().max().item())
    return (a[worst].double() - b[worst].double()).abs().max().item(), worst


@pytest.mark.slow
def test_two_optimizers_step_like_one_on_the_union_batch(experience):
    config, folder, reference = experience
    run_pool(folder, use_sync=True)
    for step, ref in enumerate(reference):
        ranks = [load_file(str(folder / f"rank{r}-step{step}.safetensors")) for r in range(2)]
        for r, got in enumerate(ranks):
            diff, where = max_difference(got, ref)
            assert diff < 1e-5, f"step {step}, optimizer {r}: {where} differs by {diff}"
        assert ranks[0].keys() == ref.keys()
    # the comparison is not vacuous: the parameters moved between the steps
    first, second = reference
    assert max((first[k] - second[k]).abs().max().item() for k in first if k.startswith("model.")) > 1e-4


@pytest.mark.slow
def test_without_the_allreduce_the_optimizers_drift_apart(experience):
    """The check above can fail: two optimizers on their own halves neither agree nor match the union step."""
    config, folder, reference = experience
    run_pool(folder, use_sync=False)
    a = load_file(str(folder / "rank0-step0.safetensors"))
    b = load_file(str(folder / "rank1-step0.safetensors"))
    assert max_difference(a, b)[0] > 1e-4
    assert max_difference(a, reference[0])[0] > 1e-4
