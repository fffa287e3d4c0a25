"""The run's state beside its weights, the same for both runners: what a checkpoint holds, what a resumed run
reads back, the weights a new run starts from when they are another run's (``starting_policy``, ``run.init_from``),
and the rule that picks the versions to rate.

    checkpoints/VERSION/model.safetensors   the policy, input normalisers included
                        optim.safetensors   Adam's moments; the serial runner adds its RNGs (rng.torch,
                                            rng.inference)
                        state.json          RunState.to_json(), the version and the run's config

A checkpoint written by one runner resumes in the other: both write every field of ``RunState``, and a field
one runner does not use (the serial runner's minibatch RNG in a ray run) is carried through unchanged.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import numpy as np
import torch

from fivestack.system.controller import Controller

from fivestack.runs.checkpoints import latest_checkpoint, load_checkpoint
from fivestack.model.policy import Policy
from fivestack.runs.config import ConfigError, TrainConfig, from_dict
from fivestack.match.agents import TRAINED_GAME, load_trained_version, parse_run_spec
from fivestack.match.device import to_cpu


@dataclass
class RatingSchedule:
    """Which versions the evaluator rates: the pool's newest version each time it crosses a multiple of
    ``eval.every_versions`` (the first one at once), in order, one record per version. ``pending`` are versions
    sent and not yet rated (sent again after a restart); ``evaluator`` is the evaluator's own state (the bots' and
    versions' ratings), kept so that a restarted evaluator goes on from it."""

    every: int
    rated: int = -1  # the last version scheduled
    pending: list[tuple[int, int]] = field(default_factory=list)  # (version, agent_steps) not yet rated
    evaluator: dict = field(default_factory=dict)

    def offer(self, joined: int, agent_steps: int) -> bool:
        """Schedule ``joined`` (a version that just joined the pool) if a rating is due; True if scheduled."""
        if not self.every or joined < 0:
            return False
        if self.rated >= 0 and joined // self.every <= self.rated // self.every:
            return False
        self.rated = joined
        self.pending.append((joined, agent_steps))
        return True

    def finish(self, message: dict) -> dict | None:
        """Take an evaluator's message: its state, and the rating record it holds (None for an error, which
        drops the version it names, or every pending version when it names none: the evaluator is gone)."""
        if "state" in message:
            self.evaluator = message["state"]
        if "error" in message:
            done = message.get("version")
            self.pending = [p for p in self.pending if done is not None and p[0] != done]
            return None
        record = message["record"]
        self.pending = [p for p in self.pending if p[0] != record["version"]]
        return record

    def state_dict(self) -> dict:
        return {"rated": self.rated, "pending_ratings": [list(p) for p in self.pending], "ratings": self.evaluator}

    @classmethod
    def from_state(cls, every: int, state: dict) -> "RatingSchedule":
        return cls(every, int(state.get("rated", -1)), [(int(v), int(s)) for v, s in state.get("pending_ratings", [])],
                   dict(state.get("ratings", {})))


@dataclass
class RunState:
    """Everything a run resumes from besides the model and optimizer tensors."""

    optimizer: dict = field(default_factory=lambda: {"version": 0})  # Optimizer.scalars(): version, steps, ...
    buffer: dict = field(default_factory=dict)  # sample accounting: produced, consumed, dropped
    agent_steps: int = 0
    elapsed: float = 0.0  # seconds trained, over every session of the run
    worker_seed: int = 0  # the seed of the next rollout worker started
    numpy_rng: dict = field(default_factory=dict)  # the serial runner's minibatch RNG (bit generator state)
    pool: dict | None = None  # OpponentPool.state_dict()
    win_rates: dict = field(default_factory=dict)  # the latest rating's win rates, for the progress display
    ratings: dict = field(default_factory=dict)  # RatingSchedule.state_dict()
    anneal: dict = field(default_factory=dict)  # Annealing.state_dict(): the annealed feature's schedule; {}: none
    clone: dict = field(default_factory=dict)  # the clone's summary once it is version 0 (clone.bot); {}: none yet
    init_from: dict = field(default_factory=dict)  # where version 0's weights came from (run.init_from); {}: fresh
    runner: str = "serial"  # the runner that wrote it

    @property
    def version(self) -> int:
        return int(self.optimizer["version"])

    @classmethod
    def new(cls, seed: int, runner: str) -> "RunState":
        """A new run's state: no steps yet, the first worker seeded with the run's seed."""
        return cls(worker_seed=seed, numpy_rng=np.random.default_rng(seed).bit_generator.state, runner=runner)

    def to_json(self) -> dict:
        state = asdict(self)
        state.update(state.pop("ratings"))  # rated, pending_ratings, ratings: top-level keys of state.json
        json.dumps(state)  # fail here, not halfway through writing a checkpoint, if something is not JSON
        return state

    @classmethod
    def from_json(cls, state: dict, seed: int) -> "RunState":
        return cls(optimizer=state["optimizer"], buffer=state.get("buffer", {}), agent_steps=int(state["agent_steps"]),
                   elapsed=float(state["elapsed"]), worker_seed=int(state.get("worker_seed", seed)),
                   numpy_rng=state.get("numpy_rng") or np.random.default_rng(seed).bit_generator.state,
                   pool=state.get("pool"), win_rates=state.get("win_rates", {}),
                   ratings=RatingSchedule.from_state(0, state).state_dict(), anneal=state.get("anneal", {}),
                   clone=state.get("clone", {}), init_from=state.get("init_from", {}),
                   runner=state.get("runner", "serial"))


def starting_policy(config: TrainConfig) -> tuple[Policy, dict]:
    """``run.init_from``: the trained version a new run starts from, and where it came from (``{"run", "version",
    "agent_steps"}``, the version's own agent-steps, so that the stages of a curriculum add up; None where only a
    pool snapshot holds the version). A version whose model or game (the patch, the move table:
    ``match.agents.TRAINED_GAME``) is not this run's is one clear error naming the keys."""
    spec = config.run.init_from
    try:
        start = load_trained_version(spec)
    except ValueError as exc:  # not a run, no such version, a damaged checkpoint
        raise ConfigError(f"run.init_from: {exc}") from None
    differ = []  # (section, key, that run's value, this run's)
    for section, key in [("policy", f.name) for f in fields(start.config.policy)] + [("game", k) for k in TRAINED_GAME]:
        theirs, ours = (getattr(getattr(c, section), key) for c in (start.config, config))
        if theirs != ours:
            differ.append((section, key, theirs, ours))
    if differ:
        said = "; ".join(f"{s}.{k} = {theirs!r} there, {ours!r} here" for s, k, theirs, ours in differ)
        raise ConfigError(f"run.init_from = {spec!r} was trained with another model or game ({said}): its weights "
                          f"would not fit or its actions would mean other things; set "
                          f"{', '.join(f'{s}.{k}' for s, k, _, _ in differ)} as that run's, or run.init_from='' "
                          f"for fresh weights")
    run, _ = parse_run_spec(spec)
    return start.policy, {"run": str(run), "version": start.version, "agent_steps": start.agent_steps}


def save_run(controller: Controller, model: dict[str, torch.Tensor], optim: dict[str, torch.Tensor],
             state: RunState) -> Path:
    """Write a checkpoint (atomically: ``Controller.save``); tensors on any device are stored from the CPU."""
    return controller.save(state.version, to_cpu(model), to_cpu(optim), state.to_json())


def load_run(run_dir: Path, config: TrainConfig) -> tuple[Path, dict[str, torch.Tensor], dict[str, torch.Tensor],
                                                         RunState]:
    """The newest checkpoint of ``run_dir`` that loads (``latest_checkpoint``'s fallback): its path, model and
    optimizer tensors (on the CPU) and state. A run resumes in the action space it was trained in: a ``config``
    whose move goals differ from the checkpoint's is one clear error."""
    path = latest_checkpoint(run_dir)
    model, optim, state = load_checkpoint(path)
    trained = from_dict(state["config"]).game.move_goals
    if trained != config.game.move_goals:
        raise ValueError(f"checkpoint {path} was trained with game.move_goals={trained!r}, this config says "
                         f"{config.game.move_goals!r}: its move orders would mean other places; resume without "
                         f"changing game.move_goals, or start a new run (surgery cannot convert move goals)")
    return path, model, optim, RunState.from_json(state, config.run.seed)


def model_mismatch(path: Path, error: RuntimeError) -> ValueError:
    """The error for a checkpoint whose tensors do not fit the configured model."""
    return ValueError(f"checkpoint {path} does not fit this model ({str(error).splitlines()[0]}); resume with the "
                      f"run's own config")
