"""Verification: a fixed set of recorded observations (the *probe*) replayed through the old and the new model.

The probe is one rollout segment of the run's own policy (``RolloutWorker`` + ``Inference``): 16 teams x 32
decisions = 512 team-steps, cut into 32 sequences of 16 steps with the LSTM state at each start. It is saved in
the run (``surgery/probe.npz``, plain arrays, read with ``allow_pickle=False``) so every surgery of the run
checks against the same observations.

Two replays, each through both models:

    steps       every team-step on its own, from the LSTM state the old model had there
    sequences   16 steps from the recorded start state, the state carried by each model

The new model sees the probe as the new game would show it: new feature columns filled with random numbers,
new LSTM units' start state random, new actions unavailable (their masks 0). Compared, in max |old - new|:
every head's logits over its valid entries (primary, delay, the unit target of the recorded action, offsets),
the primary probabilities, value, win probability, and the old LSTM units' h and c; the probability of the new
actions must be 0. Everything must be within ``TOLERANCE`` (fp32) or the surgery is refused.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from fivestack.model.policy import ALL_GROUPS, GameSizes, Policy
from fivestack.surgery.transforms import FEATURE_GROUPS

TOLERANCE = 1e-5
PROBE_TEAM_STEPS = 500
PROBE_GAMES = 8  # 16 teams
SEQUENCE_STEPS = 16
FIGURES = ("primary", "primary_prob", "delay", "target", "offset", "value", "win_prob", "h", "c")


@dataclass
class Probe:
    """Recorded team-steps, sequence-major: obs groups (S, L, ...), first (S, L), hero_slots (S, K), the LSTM state
    at each sequence's start h0 / c0 (S, K, H) and the actions played (S, L, K, 5)."""

    obs: dict[str, np.ndarray]
    first: np.ndarray
    hero_slots: np.ndarray
    h0: np.ndarray
    c0: np.ndarray
    actions: np.ndarray
    mode: str

    @property
    def team_steps(self) -> int:
        return int(self.first.size)

    def save(self, path: Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays = {f"obs.{k}": v for k, v in self.obs.items()}
        tmp = path.with_name(f".tmp-{path.name}")
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, first=self.first, hero_slots=self.hero_slots, h0=self.h0, c0=self.c0,
                                actions=self.actions, mode=np.array(self.mode), **arrays)
        tmp.replace(path)
        return path

    @classmethod
    def load(cls, path: Path) -> "Probe":
        with np.load(path, allow_pickle=False) as data:
            obs = {k[4:]: data[k] for k in data.files if k.startswith("obs.")}
            return cls(obs, data["first"], data["hero_slots"], data["h0"], data["c0"], data["actions"],
                       str(data["mode"]))

    def head(self, sequences: int) -> "Probe":
        """The first ``sequences`` sequences (a cheaper check)."""
        return Probe({k: v[:sequences] for k, v in self.obs.items()}, self.first[:sequences],
                     self.hero_slots[:sequences], self.h0[:sequences], self.c0[:sequences],
                     self.actions[:sequences], self.mode)

    def fits(self, policy: Policy) -> bool:
        """Recorded for a model of ``policy``'s LSTM width and observation layout (every group it reads)."""
        if any(name not in self.obs for name in ALL_GROUPS):
            return False
        widths = {g: self.obs[g].shape[-1] for g in FEATURE_GROUPS}
        return (self.h0.shape[-1] == policy.config.lstm_size and widths == policy.sizes.features
                and self.obs["primary_mask"].shape[-1] == policy.sizes.n_primary)


def record_probe(config, policy: Policy, seed: int = 0, team_steps: int = PROBE_TEAM_STEPS) -> Probe:
    """At least ``team_steps`` team-steps of ``policy`` playing itself in the run's game (``config``: its
    ``TrainConfig``), after one segment of warm-up so that games are under way."""
    from fivestack.match.inference import Inference
    from fivestack.system.rollout import RolloutWorker

    cfg = copy.deepcopy(config)
    cfg.rollout.games = PROBE_GAMES
    cfg.rollout.sample_steps = SEQUENCE_STEPS
    teams = 2 * PROBE_GAMES
    cfg.rollout.segment_steps = SEQUENCE_STEPS * math.ceil(team_steps / (teams * SEQUENCE_STEPS))
    cfg.pool.bot_fraction = 0.0
    cfg.ppo.teacher = ""
    worker = RolloutWorker(cfg, seed=seed)
    infer = Inference(policy, seed=seed)
    worker.collect(infer, team_spirit=0.3)  # warm-up: games under way
    batch = worker.collect(infer, team_spirit=0.3)
    return Probe(dict(batch.obs), batch.first, batch.hero_slots, batch.h0, batch.c0, batch.actions, cfg.game.mode)


# ---------------------------------------------------------------- replay
def pad_obs(obs: dict[str, np.ndarray], sizes: GameSizes, generator: torch.Generator) -> dict[str, torch.Tensor]:
    """The probe's observations as a game of ``sizes`` would show them: new feature columns random, new actions
    unavailable."""
    out = {}
    for name, arr in obs.items():
        t = torch.from_numpy(np.ascontiguousarray(arr))
        if name in FEATURE_GROUPS and sizes.features[name] > t.shape[-1]:
            extra = torch.randn(*t.shape[:-1], sizes.features[name] - t.shape[-1], generator=generator)
            t = torch.cat([t, extra.to(t.dtype)], -1)
        elif name in ("primary_mask", "offset_mask") and sizes.n_primary > t.shape[-1]:
            t = torch.cat([t, t.new_zeros(*t.shape[:-1], sizes.n_primary - t.shape[-1])], -1)
        elif name == "target_mask" and sizes.n_primary > t.shape[-2]:
            t = torch.cat([t, t.new_zeros(*t.shape[:-2], sizes.n_primary - t.shape[-2], t.shape[-1])], -2)
        out[name] = t
    return out


def pad_state(h: torch.Tensor, c: torch.Tensor, size: int, generator: torch.Generator):
    """A state of ``size`` units whose first units are (h, c) and whose new units hold random values."""
    extra = size - h.shape[-1]
    if extra <= 0:
        return h, c
    new_h = torch.tanh(torch.randn(*h.shape[:-1], extra, generator=generator))
    new_c = torch.randn(*c.shape[:-1], extra, generator=generator)
    return torch.cat([h, new_h], -1), torch.cat([c, new_c], -1)


def _heads(policy: Policy, core, units, flat, actions) -> dict[str, torch.Tensor]:
    masks = {name: flat[name].flatten(0, 1) for name in ("primary_mask", "target_mask", "offset_mask")}
    primary = actions.reshape(-1, 5)[:, 0].long()
    target, ox, oy = policy.parameter_logits(core, units, flat["unit_rel"].flatten(0, 1), primary)
    return {"primary": policy.primary_logits(core, masks), "delay": policy.delay_head(core), "target": target,
            "offset": torch.cat([ox, oy], -1), "value": policy.value_head(core).squeeze(-1),
            "win_prob": torch.sigmoid(policy.win_head(core).squeeze(-1))}


@torch.no_grad()
def replay_sequences(policy: Policy, obs: dict[str, torch.Tensor], probe: Probe, h0, c0):
    """16-step replays from (h0, c0) (S*K, H): the heads' outputs for every team-step (team-major, (S*L*K, ...)),
    the state after each step (S*L*K, H), and the state before each step (for ``replay_steps``)."""
    s, steps = probe.first.shape
    flat = {name: value.flatten(0, 1) for name, value in obs.items()}
    hero_slots = torch.from_numpy(probe.hero_slots)
    features, units = policy.encode(flat, hero_slots.repeat_interleave(steps, 0))
    k = features.shape[1]
    features = features.view(s, steps, k, -1)
    first = torch.from_numpy(probe.first)
    state = (h0, c0)
    cores, hs, cs, before_h, before_c = [], [], [], [], []
    for i in range(steps):
        before_h.append(state[0].view(s, k, -1))
        before_c.append(state[1].view(s, k, -1))
        core, state = policy.core_step(features[:, i], state, first[:, i])
        cores.append(core.view(s, k, -1))
        hs.append(state[0].view(s, k, -1))
        cs.append(state[1].view(s, k, -1))
    stack = lambda xs: torch.stack(xs, 1).flatten(0, 2)  # noqa: E731  (S*L*K, H), team-major like ``flat``
    out = _heads(policy, stack(cores), units, flat, torch.from_numpy(probe.actions))
    out["h"], out["c"] = stack(hs), stack(cs)
    return out, (stack(before_h), stack(before_c))


@torch.no_grad()
def replay_steps(policy: Policy, obs: dict[str, torch.Tensor], probe: Probe, state) -> dict[str, torch.Tensor]:
    """Every team-step on its own (a batch of S*L), from ``state`` (S*L*K, H) before it."""
    s, steps = probe.first.shape
    flat = {name: value.flatten(0, 1) for name, value in obs.items()}  # (S*L, ...): a batch of team-steps
    hero_slots = torch.from_numpy(probe.hero_slots).repeat_interleave(steps, 0)
    features, units = policy.encode(flat, hero_slots)
    core, (h, c) = policy.core_step(features, state, torch.from_numpy(probe.first).reshape(-1))
    out = _heads(policy, core, units, flat, torch.from_numpy(probe.actions))
    out["h"], out["c"] = h, c
    return out


def compare(old: dict[str, torch.Tensor], new: dict[str, torch.Tensor], probe_obs: dict[str, torch.Tensor],
            actions: np.ndarray) -> dict[str, float]:
    """Max |old - new| of each figure over its valid entries, and the largest probability of a new action."""
    primary_mask = probe_obs["primary_mask"].flatten(0, -2).bool()  # (N, A_old)
    n_old = primary_mask.shape[-1]
    primary = torch.from_numpy(actions).reshape(-1, 5)[:, 0].long()
    target_mask = probe_obs["target_mask"].flatten(0, -3).bool()[torch.arange(primary.shape[0]), primary]
    diff = lambda a, b, m=None: float((a - b).abs()[m].max()) if (m is None or m.any()) else 0.0  # noqa: E731
    new_primary = new["primary"][:, :n_old]
    old_prob, new_prob_all = torch.softmax(old["primary"], -1), torch.softmax(new["primary"], -1)
    h_old = old["h"].shape[-1]
    return {"primary": diff(old["primary"], new_primary, primary_mask),
            "primary_prob": diff(old_prob, new_prob_all[:, :n_old]),
            "delay": diff(old["delay"], new["delay"]),
            "target": diff(old["target"], new["target"], target_mask),
            "offset": diff(old["offset"], new["offset"]),
            "value": diff(old["value"], new["value"]), "win_prob": diff(old["win_prob"], new["win_prob"]),
            "h": diff(old["h"], new["h"][:, :h_old]), "c": diff(old["c"], new["c"][:, :h_old]),
            "new_action_prob": float(new_prob_all[:, n_old:].sum(-1).max()) if new_prob_all.shape[-1] > n_old
            else 0.0}


def verify(old: Policy, new: Policy, probe: Probe, seed: int = 0, tolerance: float = TOLERANCE) -> dict:
    """Replay ``probe`` through both models (steps and sequences); the figures and whether they pass."""
    old.eval()
    new.eval()
    gen = torch.Generator().manual_seed(seed)
    old_obs = pad_obs(probe.obs, old.sizes, gen)
    new_obs = pad_obs(probe.obs, new.sizes, gen)
    s, k = probe.hero_slots.shape
    h0 = torch.from_numpy(probe.h0).reshape(s * k, -1)
    c0 = torch.from_numpy(probe.c0).reshape(s * k, -1)
    old_seq, before = replay_sequences(old, old_obs, probe, h0, c0)
    new_seq, _ = replay_sequences(new, new_obs, probe, *pad_state(h0, c0, new.config.lstm_size, gen))
    old_steps = replay_steps(old, old_obs, probe, before)
    new_steps = replay_steps(new, new_obs, probe, pad_state(*before, new.config.lstm_size, gen))
    recorded = {name: torch.from_numpy(v) for name, v in probe.obs.items()}
    figures = {"sequences": compare(old_seq, new_seq, recorded, probe.actions),
               "steps": compare(old_steps, new_steps, recorded, probe.actions)}
    worst = {f: max(figures["sequences"][f], figures["steps"][f]) for f in (*FIGURES, "new_action_prob")}
    passed = all(v <= tolerance for v in worst.values()) and all(math.isfinite(v) for v in worst.values())
    return {"passed": passed, "tolerance": tolerance, "team_steps": probe.team_steps,
            "sequences": int(probe.first.shape[0]), "sequence_steps": int(probe.first.shape[1]), "max_abs_diff": worst,
            "figures": figures}


def failures(report: dict) -> str:
    """The figures over the tolerance, as text."""
    bad = [f"{name} {value:.3g}" for name, value in report["max_abs_diff"].items()
           if not value <= report["tolerance"]]
    return ", ".join(bad)


def summary(report: dict) -> str:
    return ", ".join(f"{name} {value:.1e}" for name, value in report["max_abs_diff"].items())


__all__ = ["Probe", "TOLERANCE", "record_probe", "verify", "failures", "summary"]
