"""A small 5v5 policy and 512 team-steps it played (32 sequences of 16), recorded once per test session."""

from dataclasses import dataclass

import pytest
import torch

from fivestack.model.policy import Policy, PolicyConfig
from fivestack.surgery.transforms import Spec, sizes_of
from fivestack.surgery.verify import Probe, record_probe
from fivestack.runs.config import load_config

SMALL = ["policy.lstm_size=32", "policy.trunk=64", "policy.unit_embedding=16", "policy.element_hidden=16",
         "policy.action_embedding=16"]


@dataclass
class Recorded:
    policy: Policy
    spec: Spec
    probe: Probe


@pytest.fixture(scope="session")
def recorded(tmp_path_factory) -> Recorded:
    config = load_config(None, SMALL)
    torch.manual_seed(0)
    policy = Policy(config.policy)
    probe = record_probe(config, policy, seed=3)
    path = probe.save(tmp_path_factory.mktemp("probe") / "probe.npz")
    probe = Probe.load(path)  # as a surgery reads it: plain arrays, no pickle
    # a model whose outputs are not all near 0: trained-looking normalisers and heads of unit scale
    policy.update_normalizers({k: torch.from_numpy(v).flatten(0, 1) for k, v in probe.obs.items()})
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for head in (policy.delay_head, policy.offset_x, policy.offset_y, policy.value_head, policy.win_head,
                     policy.target_gate):
            head.weight.copy_(torch.randn(head.weight.shape, generator=gen) * 0.3)
    policy.eval()
    return Recorded(policy, Spec(PolicyConfig(**vars(config.policy)), sizes_of(policy.state_dict())), probe)
