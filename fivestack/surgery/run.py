"""Surgery on a whole run: the latest checkpoint (weights, Adam's moments, run state) and every past version in
the opponent pool move to the new model together, after the probe verifies each of them.

    RUN/surgery/probe.npz          the run's probe (recorded once from its latest policy, then reused)
    NEW/config.toml                the old run's config with the --to file's keys on top
    NEW/checkpoints/VERSION/       the transformed model, optimizer and state (a warm-up at learning rate 0 of
                                   ppo.warmup_steps gradient steps: ``lr_zero_until`` in the optimizer's state)
    NEW/pool/VERSION.safetensors   every past version, transformed the same way
    NEW/surgery/report.json        the transforms applied and the verification's figures
    NEW/surgery/verified-probe.npz the probe it was verified on
    NEW/metrics.jsonl              the old run's metrics, continued by training

Nothing is written to NEW unless every model passes the verification.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import torch
from safetensors.torch import load_file, save_file

from fivestack.game.patch import PATCHES
from fivestack.model.policy import GameSizes, Policy
from fivestack.surgery.transforms import Fill, Spec, Step, SurgeryError, apply_plan, plan, sizes_of, \
    transform_optimizer
from fivestack.surgery.verify import Probe, failures, record_probe, summary, verify
from fivestack.runs.config import TrainConfig, apply, from_dict, validate
from fivestack.system.controller import Controller
from fivestack.runs.checkpoints import latest_checkpoint, load_checkpoint
from fivestack.system.run_state import RunState, save_run

POOL_CHECK_SEQUENCES = 4  # a past version is verified on the probe's first sequences (64 team-steps)
INIT_SCALE = 0.01  # std of new incoming weights


@dataclass
class SurgeryResult:
    out: Path
    version: int
    steps: list[str]
    report: dict
    pool: dict[int, dict]


def new_config(old: TrainConfig, to: Path, patch: str | None = None) -> TrainConfig:
    """The old run's config with the keys of the TOML file ``to`` on top, and ``[game] patch = patch`` if given
    (a version of ``game.patch.PATCHES``; its observation features are new input columns of the model)."""
    if not Path(to).is_file():
        raise SurgeryError(f"--to {to}: no such file; pass a TOML file with the keys to change, e.g. [policy] "
                           f"lstm_size = 512")
    try:
        data = tomllib.loads(Path(to).read_text())
    except tomllib.TOMLDecodeError as exc:
        raise SurgeryError(f"--to {to} is not valid TOML: {exc}") from None
    config = from_dict(old.to_dict())
    for section, table in data.items():
        if not isinstance(table, dict):
            raise SurgeryError(f"--to {to}: top-level key {section!r} must be a [section] table")
        for key, value in table.items():
            apply(config, section, key, value)
    if patch is not None:
        if patch not in PATCHES:
            raise SurgeryError(f"--patch {patch}: no such patch version; choose one of {', '.join(sorted(PATCHES))} "
                               f"(fivestack.game.patch.PATCHES)")
        config.game.patch = patch
    validate(config)
    return config


def load_probe(run_dir: Path, config: TrainConfig, policy: Policy, seed: int) -> Probe:
    """The run's probe, recorded from ``policy`` (its latest) on first use and kept in ``RUN/surgery``."""
    path = Path(run_dir) / "surgery" / "probe.npz"
    if path.is_file():
        probe = Probe.load(path)
        if probe.fits(policy):
            return probe
    probe = record_probe(config, policy, seed=seed)
    probe.save(path)
    return probe


def _policy(spec: Spec, tensors: dict[str, torch.Tensor]) -> Policy:
    policy = Policy(spec.config, sizes=spec.sizes)
    policy.load_state_dict(tensors)
    return policy


def operate(run_dir: Path, config: TrainConfig, out: Path, sizes: GameSizes | None = None, seed: int = 0,
            tamper: Callable[[list[Step]], list[Step]] | None = None,
            say: Callable[[str], None] = lambda line: None) -> SurgeryResult:
    """Surgery on run ``run_dir`` to the model of ``config`` (and the game's ``sizes``, by default those of
    ``config.game.patch``: a patch with an observation feature adds its input column), written as a new run
    ``out``. ``tamper`` replaces the plan's steps (tests: a broken transform)."""
    run_dir, out = Path(run_dir), Path(out)
    path = latest_checkpoint(run_dir)
    model, optim, state_json = load_checkpoint(path)
    old_config = from_dict(state_json["config"])
    if (out / "checkpoints").is_dir() and any((out / "checkpoints").iterdir()):
        raise SurgeryError(f"--out {out} already holds a run; choose another --out (surgery writes a new run)")
    if out.resolve() == run_dir.resolve():
        raise SurgeryError("--out is the run itself; surgery writes a new run: choose another --out")
    old = Spec(old_config.policy, sizes_of(model))
    new = Spec(config.policy, sizes or GameSizes.of(config.game.patch))
    steps = plan(old, new)
    if not steps:
        raise SurgeryError("the --to config changes nothing surgery transforms (the model is the same size); change "
                           "policy.lstm_size or policy.trunk, or give the game new features, actions, items, "
                           "abilities or heroes")
    if tamper is not None:
        steps = tamper(steps)
    for step in steps:
        say(f"transform: {step.description}")
    old_policy = _policy(old, model)
    probe = load_probe(run_dir, old_config, old_policy, seed)
    fill = lambda: Fill(torch.Generator().manual_seed(seed), INIT_SCALE)  # noqa: E731 the same for every model
    new_model = apply_plan(steps, model, fill())
    report = verify(old_policy, _policy(new, new_model), probe, seed=seed)
    say(f"verification of version {state_json['version']} on {probe.team_steps} team-steps "
        f"({report['sequences']} sequences of {report['sequence_steps']}): max |old - new| {summary(report)}")
    if not report["passed"]:
        raise SurgeryError(f"the transformed model does not compute the same function: {failures(report)} over the "
                           f"tolerance {report['tolerance']:g} (max |old - new| on {probe.team_steps} recorded "
                           f"team-steps); nothing was written")
    # every past version in the pool, the same way
    state = RunState.from_json(state_json, config.run.seed)
    pool_versions = (state.pool or {}).get("versions", [])
    pool_out, pool_reports = {}, {}
    short = probe.head(POOL_CHECK_SEQUENCES)
    for version in pool_versions:
        file = run_dir / "pool" / f"{int(version):08d}.safetensors"
        if not file.is_file():
            raise SurgeryError(f"past version {version} has no file {file}; restore the run's pool folder before "
                               f"surgery (past opponents must move with the run)")
        weights = load_file(str(file))
        moved = apply_plan(steps, weights, fill())
        check = verify(_policy(old, weights), _policy(new, moved), short, seed=seed)
        if not check["passed"]:
            raise SurgeryError(f"past version {version} does not compute the same function after the transforms: "
                               f"{failures(check)}; nothing was written")
        pool_out[int(version)], pool_reports[int(version)] = moved, check["max_abs_diff"]
    if pool_versions:
        worst = max(max(r.values()) for r in pool_reports.values())
        say(f"verification of {len(pool_versions)} past versions ({short.team_steps} team-steps each): "
            f"largest |old - new| {worst:.1e}")
    new_optim = transform_optimizer(steps, optim, old)
    state.optimizer = dict(state.optimizer)
    state.optimizer["lr_zero_until"] = int(state.optimizer.get("grad_steps", 0)) + config.ppo.warmup_steps
    # write the new run
    config.run.runs_dir, config.run.name = str(out.parent), out.name
    out.mkdir(parents=True, exist_ok=True)
    if (run_dir / "metrics.jsonl").is_file():
        shutil.copyfile(run_dir / "metrics.jsonl", out / "metrics.jsonl")
    for version, weights in pool_out.items():
        (out / "pool").mkdir(exist_ok=True)
        save_file({k: v.contiguous() for k, v in weights.items()}, str(out / "pool" / f"{version:08d}.safetensors"))
    controller = Controller(out, config)
    try:
        save_run(controller, new_model, new_optim, state)
    finally:
        controller.close()
    (out / "surgery").mkdir(exist_ok=True)
    probe.save(out / "surgery" / "verified-probe.npz")
    record = {"from_run": str(run_dir), "from_checkpoint": str(path), "version": state.version,
              "transforms": [s.description for s in steps], "warmup_steps": config.ppo.warmup_steps,
              "lr_zero_until": state.optimizer["lr_zero_until"], "verification": report,
              "pool": {str(v): r for v, r in pool_reports.items()}}
    (out / "surgery" / "report.json").write_text(json.dumps(record, indent=1))
    return SurgeryResult(out, state.version, [s.description for s in steps], report, pool_reports)


__all__ = ["operate", "new_config", "load_probe", "SurgeryResult"]
