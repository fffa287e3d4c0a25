"""Run configuration: one dataclass per component, with the paper's defaults and our CPU-scale choices
marked as such. Loaded from TOML (``[run]``, ``[game]``, ``[rollout]``, ``[reward]``, ``[ppo]``, ``[policy]``,
``[pool]``, ``[eval]``, ``[ray]``)
with ``--set section.key=value`` overrides; an unknown key or a value of the wrong type is one clear error.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

import numpy as np

from fivestack.bots.agents import AGENTS as TRAINING_BOTS
from fivestack.env.events import EVENT_NAMES, PAPER_WEIGHTS
from fivestack.model.policy import PolicyConfig


class ConfigError(ValueError):
    """A user's mistake in a config file or an override."""


@dataclass
class RunConfig:
    name: str = ""  # empty: a name from the date and time
    runs_dir: str = "runs"
    seed: int = 0
    minutes: float = 0.0  # wall-clock budget; 0 = until stopped
    max_versions: int = 0  # 0 = no limit
    checkpoint_minutes: float = 2.0
    torch_threads: int = 0  # 0 = torch's default


@dataclass
class GameSettings:
    mode: str = "5v5"  # "5v5" or "1v1"
    max_seconds: float = 1200.0  # ours: 20-minute games keep early CPU runs moving (the paper plays to the end)
    training: bool = True  # randomise scripted item and skill builds


@dataclass
class RolloutConfig:
    games: int = 8  # ours: games per rollout worker on 2 cores
    segment_steps: int = 256  # paper: send data every 256 timesteps
    sample_steps: int = 16  # paper: LSTM unroll of 16 timesteps
    # timesteps per decision: the policy acts every k-th timestep and heroes keep their orders in between
    # (paper: 1, an action every 4 frames); segments and samples count decisions, agent-steps count timesteps
    decision_steps: int = 1


# The weight of each reward event (fivestack.env.events), one key per event, the paper's table by default:
# e.g. ``--set reward.last_hit=0.16``. Shaping (time decay, zero-sum, team spirit) applies on top.
RewardConfig = dataclasses.make_dataclass(
    "RewardConfig", [(name, float, field(default=PAPER_WEIGHTS[name])) for name in EVENT_NAMES])


def reward_weights(reward) -> np.ndarray:
    """A ``RewardConfig`` as the weight vector the reward code takes, in ``EVENT_NAMES`` order."""
    return np.array([getattr(reward, name) for name in EVENT_NAMES], dtype=np.float32)


@dataclass
class PPOConfig:
    learning_rate: float = 3e-4  # ours; paper 5e-5 at a batch of 123k-983k timesteps
    adam_beta1: float = 0.9
    adam_beta2: float = 0.999
    clip: float = 0.2
    # entropy bonus weight per action head (paper: one weight, 0.01, on the summed entropy); a head's
    # entropy counts only on the steps whose action uses it
    entropy_primary: float = 0.01
    entropy_delay: float = 0.01
    entropy_target: float = 0.01
    entropy_offset: float = 0.01
    value_weight: float = 1.0
    win_weight: float = 0.1  # auxiliary win-probability head (a small weight, as in the paper)
    gae_lambda: float = 0.95
    horizon_seconds: float = 180.0  # paper (gamma 0.9993); 30 s was measured no better in 1v1 (docs/learning.md)
    team_spirit_start: float = 0.3
    team_spirit_end: float = 0.8
    team_spirit_versions: int = 2000  # versions over which team spirit anneals start -> end
    batch_samples: int = 32  # ours; team-samples of 16 steps per gradient step (paper: 120 per GPU)
    epochs: int = 1  # passes over each segment (sample reuse ~1, as in the paper)
    steps_per_version: int = 32  # paper: 32 gradient steps per published version
    grad_clip: float = 5.0  # per-parameter clip to +-5 sqrt(v)
    max_staleness: int = 8  # drop samples older than this many versions
    # ours (the paper learnt from self-play alone): a teacher bot ("scripted", ...; "" = none) labels the states
    # the latest policy plays with the bot's own action there, and the loss adds a weight x the negative
    # log-probability of those labels (DAgger); the weight falls linearly from teacher_weight to
    # teacher_weight_end over teacher_versions versions and stays there
    teacher: str = ""
    teacher_weight: float = 1.0
    teacher_weight_end: float = 0.0
    teacher_versions: int = 150  # 1v1, 5M agent-steps: 60 (to 0) fell back into the stand-off by 3M (docs/learning.md)


@dataclass
class PoolConfig:
    past_fraction: float = 0.2  # paper: 20% of games against a past version
    learning_rate: float = 0.01  # paper: eta, the opponent-quality learning rate
    add_every_versions: int = 10  # paper: the current agent joins the pool every 10 versions
    cache_size: int = 4  # ours: past policies kept in memory per rollout worker, beyond those in play
    bot_fraction: float = 0.0  # ours: share of training games against ``bot`` (0 = the paper: self-play only)
    bot: str = "scripted"  # the bot of those games: "scripted", "scripted-weak" or "random"


@dataclass
class EvalConfig:
    every_versions: int = 20  # rate a version this often (a multiple of pool.add_every_versions); 0 = never
    games: int = 20  # ours: games per rated version (paper ~750)
    opponents: tuple[str, ...] = ("random", "scripted-weak", "scripted")  # the bots of the reference pool
    near_points: float = 10.0  # paper: prefer references within ~10 TrueSkill points (15-85% win rates)
    calibration_games: int = 32  # games that place each bot on the scale (once per run)
    max_seconds: float = 3600.0  # evaluation plays the standard game to its end, not the training cut-off
    in_process: bool = False  # true: rate in the training process (deterministic tests); false: its own process


@dataclass
class RayConfig:
    """The ray runner (``fivestack train --runner ray``); the serial runner ignores this section."""

    address: str = ""  # "" = start Ray on this machine; "auto" or HOST:PORT joins a running cluster
    rollout_workers: int = 2  # R, each playing rollout.games games
    inference: int = 1  # I actors batching forward passes across workers; 0 = each worker runs its own
    optimizers: int = 1  # O, averaging gradients by allreduce; the step's batch is O x ppo.batch_samples
    steps_per_version: int = 32  # paper: a new version every 32 gradient steps (replaces ppo.steps_per_version)
    buffer_samples: int = 1024  # per optimizer; ours (a 5v5 sample is ~1.4 MB); paper 4096
    reuse_target: float = 1.0  # optimizers wait rather than consume faster than this x production; 0 = never
    cpus: int = 0  # logical CPUs of a local Ray; 0 = one per actor
    batch_wait_ms: float = 2.0  # how long an inference actor waits for more workers' requests to batch
    log_seconds: float = 10.0  # one metrics record per interval


@dataclass
class TrainConfig:
    run: RunConfig = field(default_factory=RunConfig)
    game: GameSettings = field(default_factory=GameSettings)
    rollout: RolloutConfig = field(default_factory=RolloutConfig)
    reward: RewardConfig = field(default_factory=RewardConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    pool: PoolConfig = field(default_factory=PoolConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    ray: RayConfig = field(default_factory=RayConfig)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


SECTIONS = {f.name: f for f in dataclasses.fields(TrainConfig)}


def _coerce(section: str, key: str, value: Any, hint: Any) -> Any:
    where = f"{section}.{key}"
    try:
        if hint is bool:
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
                return value.lower() in ("true", "1")
            raise TypeError
        if hint is int:
            if isinstance(value, bool):
                raise TypeError
            if isinstance(value, float) and not value.is_integer():
                raise TypeError
            return int(value)
        if hint is float:
            if isinstance(value, bool):
                raise TypeError
            return float(value)
        if hint is str:
            if not isinstance(value, str):
                raise TypeError
            return value
        if getattr(hint, "__origin__", None) is tuple:
            if isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
            return tuple(str(v) for v in value)
    except (TypeError, ValueError):
        pass
    else:
        return value
    raise ConfigError(f"config key {where} must be {getattr(hint, '__name__', hint)}, got {value!r}")


def _parse_literal(text: str) -> Any:
    """An override's value as TOML would read it (numbers, booleans, quoted strings), else a plain string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply(config: TrainConfig, section: str, key: str, value: Any) -> None:
    if section not in SECTIONS:
        raise ConfigError(f"unknown config section [{section}]; sections: {', '.join(SECTIONS)}")
    part = getattr(config, section)
    hints = get_type_hints(type(part))
    if key not in hints:
        raise ConfigError(f"unknown config key {section}.{key}; keys in [{section}]: {', '.join(hints)}")
    setattr(part, key, _coerce(section, key, value, hints[key]))


def load_config(path: str | Path | None = None, overrides: list[str] | tuple[str, ...] = ()) -> TrainConfig:
    """Defaults, then the TOML file, then ``section.key=value`` overrides, in that order."""
    config = TrainConfig()
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise ConfigError(f"config file {path} does not exist; pass an existing TOML file to --config")
        try:
            data = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
        for section, table in data.items():
            if not isinstance(table, dict):
                raise ConfigError(f"config file {path}: top-level key {section!r} must be a [section] table")
            for key, value in table.items():
                apply(config, section, key, value)
    for item in overrides:
        if "=" not in item or "." not in item.split("=", 1)[0]:
            raise ConfigError(f"override {item!r} must look like section.key=value, e.g. ppo.learning_rate=1e-4")
        name, text = item.split("=", 1)
        section, key = name.strip().split(".", 1)
        apply(config, section, key, _parse_literal(text.strip()))
    validate(config)
    return config


def validate(config: TrainConfig) -> None:
    if config.game.mode not in ("5v5", "1v1"):
        raise ConfigError(f"game.mode must be '5v5' or '1v1', got {config.game.mode!r}")
    r = config.rollout
    if r.segment_steps % r.sample_steps != 0:
        raise ConfigError(f"rollout.segment_steps ({r.segment_steps}) must be a multiple of rollout.sample_steps "
                          f"({r.sample_steps})")
    for section, key in (("rollout", "games"), ("rollout", "decision_steps"), ("ppo", "batch_samples"), ("ppo", "epochs"), ("ppo", "steps_per_version")):
        if getattr(getattr(config, section), key) < 1:
            raise ConfigError(f"{section}.{key} must be at least 1")
    for key in ("rollout_workers", "optimizers", "steps_per_version", "buffer_samples"):
        if getattr(config.ray, key) < 1:
            raise ConfigError(f"ray.{key} must be at least 1")
    if config.ray.inference < 0 or config.ray.reuse_target < 0:
        raise ConfigError("ray.inference and ray.reuse_target must not be negative")
    if config.ray.buffer_samples < config.ppo.batch_samples:
        raise ConfigError(f"ray.buffer_samples ({config.ray.buffer_samples}) must hold at least one batch "
                          f"(ppo.batch_samples = {config.ppo.batch_samples})")
    pool, ev = config.pool, config.eval
    if not 0.0 <= pool.past_fraction <= 1.0:
        raise ConfigError(f"pool.past_fraction must lie in [0, 1], got {pool.past_fraction}")
    if not 0.0 <= pool.bot_fraction <= 1.0:
        raise ConfigError(f"pool.bot_fraction must lie in [0, 1], got {pool.bot_fraction}")
    if pool.bot not in TRAINING_BOTS:
        raise ConfigError(f"pool.bot must be one of {list(TRAINING_BOTS)}, got {pool.bot!r}")
    if config.ppo.teacher and config.ppo.teacher not in TRAINING_BOTS:
        raise ConfigError(f"ppo.teacher must be '' (none) or one of {list(TRAINING_BOTS)}, got {config.ppo.teacher!r}")
    if min(config.ppo.teacher_weight, config.ppo.teacher_weight_end) < 0 or config.ppo.teacher_versions < 1:
        raise ConfigError("ppo.teacher_weight and ppo.teacher_weight_end must not be negative and "
                          "ppo.teacher_versions must be at least 1")
    if ev.every_versions and (pool.add_every_versions <= 0 or ev.every_versions % pool.add_every_versions):
        raise ConfigError(f"eval.every_versions ({ev.every_versions}) must be a multiple of pool.add_every_versions "
                          f"({pool.add_every_versions}): only versions in the pool are rated")
    if ev.every_versions and "random" not in ev.opponents:
        raise ConfigError("eval.opponents must include 'random', the anchor (mu = 0) of the rating scale")
    if not 0 < config.ppo.learning_rate < 1:
        raise ConfigError(f"ppo.learning_rate must lie in (0, 1), got {config.ppo.learning_rate}")


def from_dict(data: dict) -> TrainConfig:
    """Rebuild a config saved with ``to_dict`` (checkpoints), with the same checks as a TOML file."""
    config = TrainConfig()
    for section, table in data.items():
        for key, value in table.items():
            apply(config, section, key, value)
    validate(config)
    return config


def to_toml(config: TrainConfig) -> str:
    lines = []
    for section, table in config.to_dict().items():
        lines.append(f"[{section}]")
        for key, value in table.items():
            if isinstance(value, bool):
                text = "true" if value else "false"
            elif isinstance(value, str):
                text = f'"{value}"'
            elif isinstance(value, (list, tuple)):
                text = "[" + ", ".join(f'"{v}"' for v in value) + "]"
            else:
                text = repr(value)
            lines.append(f"{key} = {text}")
        lines.append("")
    return "\n".join(lines)
