"""Run configuration: one dataclass per component, with the paper's defaults and our CPU-scale choices
marked as such. Loaded from TOML (``[run]``, ``[game]``, ``[rollout]``, ``[reward]``, ``[ppo]``, ``[policy]``,
``[pool]``, ``[clone]``, ``[eval]``, ``[anneal]``, ``[asp]``, ``[drill]``, ``[ray]``)
with ``--set section.key=value`` overrides; an unknown key or a value of the wrong type is one clear error.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

import numpy as np

from fivestack.env.events import EVENT_NAMES, PAPER_WEIGHTS
from fivestack.game.engine import GameConfig
from fivestack.game.layout import DUEL_KILLS, PAPER_MOVE_GOALS
from fivestack.game.patch import PATCH_VERSION, PATCHES
from fivestack.model.policy import PolicyConfig
from fivestack.runs.validation import (  # noqa: F401 (read from here by others)
    DEVICES, DRILL_NAMES, GOAL_OFFSET, GOAL_WIDTH, MATCH_DRILL_BOTS, RANGES, ConfigError, validate)


def setting(default: Any, doc: str) -> Any:
    """A config field and its one-line doc (``fivestack train --show-config`` prints both)."""
    return field(default=default, metadata={"doc": doc})


@dataclass
class RunConfig:
    name: str = setting("", "the run's folder under runs_dir; empty: a name from the date and time")
    runs_dir: str = setting("runs", "where run folders are made")
    seed: int = setting(0, "seed of the games, the policy's initial weights and the sampling")
    minutes: float = setting(0.0, "wall-clock budget, checked between segments; 0: until stopped")
    max_versions: int = setting(0, "stop after this many published versions; 0: no limit")
    checkpoint_minutes: float = setting(2.0, "minutes between checkpoints (and one at the end)")
    torch_threads: int = setting(0, "torch threads in the training process; 0: torch's default (1 with overlap)")
    # the serial runner: train on one segment in a second thread while the next is played (on 2 cores, one each);
    # the segment played meanwhile comes from the version before that training (one segment staler)
    overlap: bool = setting(True, "serial runner: play the next segment while training on the last (two threads)")
    # a curriculum's next stage (a drill's policy, then the game); the model and the game patch must be this run's
    init_from: str = setting("", "a trained version RUN[:VERSION] whose weights are a new run's version 0; empty: fresh")
    # the serial runner's forward passes and optimizer (rollouts stay on the CPU; the ray runner is CPU-only for now)
    device: str = setting("cpu", "where forward passes and the optimizer run: cpu, cuda, or auto (a CUDA GPU if any)")


@dataclass
class GameSettings:
    mode: str = setting("5v5", "5v5, or 1v1 (mid lane, first to two kills or the first tower)")
    max_seconds: float = setting(1200.0, "training games end (truncated) after this many game seconds; ours: the "
                                         "paper plays to the end")
    training: bool = setting(True, "randomise the scripted item and skill builds around each hero's")
    randomise: bool = setting(False, "domain randomisation: lanes, start health/mana/gold, big neutral health (Rules "
                                     "random_*)")
    lineups: str = setting("fixed", "fixed: the patch's first five, both sides; random: drawn per game from the pool")
    patch: str = setting(PATCH_VERSION, "patch version of every training game (game.patch.PATCHES): "
                                        + ", ".join(PATCHES))
    move_goals: str = setting(PAPER_MOVE_GOALS, "how far a move order reaches: grid, the paper's 600 units; reach, "
                                                "up to 9600 per axis (layout.MOVE_GOALS)")
    duel_kills: int = setting(DUEL_KILLS, "1v1: hero kills that end a training game (the paper's: 2); 0: only the "
                                          "tower or time (evaluation keeps 2)")
    net_worth_wins: bool = setting(False, "a training game at its time limit is won by the team ahead in net worth "
                                          "(the paper's: undecided; evaluation keeps that)")

    def game_config(self) -> GameConfig:
        """The training games' ``GameConfig`` (the rollout's and the clone recorder's)."""
        return GameConfig(mode=self.mode, max_seconds=self.max_seconds, training=self.training,
                          randomise=self.randomise, lineups=self.lineups, patch=self.patch,
                          move_goals=self.move_goals, duel_kills=self.duel_kills,
                          net_worth_wins=self.net_worth_wins)


@dataclass
class RolloutConfig:
    games: int = setting(8, "games per rollout worker; ours, for 2 cores")
    segment_steps: int = setting(256, "decisions per segment sent to the optimizer (paper: 256)")
    sample_steps: int = setting(16, "LSTM unroll (BPTT) length of a sample, in decisions (paper: 16)")
    decision_steps: int = setting(1, "timesteps per decision: the policy acts every k-th timestep and heroes keep "
                                     "their orders between (paper: 1)")
    lane_start: float = setting(0.0, "share of new 1v1 training games whose heroes start in the mid lane, not the "
                                     "fountain (paper: 0)")


# The weight of each reward event (fivestack.env.events), one key per event, the paper's table by default:
# e.g. ``--set reward.last_hit=0.16``. Shaping (time decay, zero-sum, team spirit) applies on top.
RewardConfig = dataclasses.make_dataclass(
    "RewardConfig", [(name, float, setting(PAPER_WEIGHTS[name], f"weight of the reward event {name!r} "
                                                                f"(docs/env.md); paper: {PAPER_WEIGHTS[name]:.4g}"))
                     for name in EVENT_NAMES])


def reward_weights(reward) -> np.ndarray:
    """A ``RewardConfig`` as the weight vector the reward code takes, in ``EVENT_NAMES`` order."""
    return np.array([getattr(reward, name) for name in EVENT_NAMES], dtype=np.float32)


@dataclass
class PPOConfig:
    learning_rate: float = setting(3e-4, "Adam's learning rate; ours (paper: 5e-5 at a far larger batch)")
    # ours (the paper lowered its learning rate by hand at points of its run)
    learning_rate_versions: int = setting(0, "versions over which the learning rate falls linearly to "
                                             "learning_rate_end, then stays; 0: constant")
    learning_rate_end: float = setting(0.0, "the learning rate after learning_rate_versions")
    adam_beta1: float = setting(0.9, "Adam's beta1")
    adam_beta2: float = setting(0.999, "Adam's beta2")
    clip: float = setting(0.2, "PPO's clipping of the probability ratio to 1 +- clip")
    head_ratios: bool = setting(False, "clip each action head's probability ratio on its own (rl.ppo.head_policy_loss); "
                                       "paper: one ratio for the whole action")
    # entropy bonus weight per action head (paper: one weight, 0.01, on the summed entropy); a head's
    # entropy counts only on the steps whose action uses it
    entropy_primary: float = setting(0.01, "entropy bonus weight of the primary-action head (paper: 0.01, all "
                                           "heads)")
    entropy_delay: float = setting(0.01, "entropy bonus weight of the delay head")
    entropy_target: float = setting(0.01, "entropy bonus weight of the unit-target head, on steps that use it")
    entropy_offset: float = setting(0.01, "entropy bonus weight of the offset heads, on steps that use them")
    value_weight: float = setting(1.0, "weight of the value loss")
    win_weight: float = setting(0.1, "weight of the auxiliary win-probability loss (small, as in the paper)")
    gae_lambda: float = setting(0.95, "GAE's lambda")
    horizon_seconds: float = setting(180.0, "reward horizon in game seconds, gamma = 1 - step / horizon (paper: "
                                            "180 s, gamma 0.9993)")
    team_spirit_start: float = setting(0.3, "team spirit (share of the team's mean reward in each hero's) at "
                                            "version 0")
    team_spirit_end: float = setting(0.8, "team spirit after team_spirit_versions")
    team_spirit_versions: int = setting(2000, "versions over which team spirit anneals from start to end")
    batch_samples: int = setting(32, "team-samples of sample_steps decisions per gradient step; ours (paper: 120 "
                                     "per GPU)")
    # the serial runner makes sample_reuse passes over each segment (so it must be whole); the ray runner's
    # optimizers wait rather than draw faster than sample_reuse x what they received (each sample is drawn at most
    # ceil(sample_reuse) times; 0: they never wait)
    sample_reuse: float = setting(1.0, "samples drawn per sample produced (paper: ~1); serial: passes per segment")
    steps_per_version: int = setting(32, "gradient steps per published version, both runners (paper: 32)")
    grad_clip: float = setting(5.0, "per-parameter gradient clip to +- grad_clip sqrt(v) (Adam's v); 0: off")
    grad_norm_clip: float = setting(0.0, "clip the gradient's global norm to this (CleanRL, SB3: 0.5); 0: off")
    max_staleness: int = setting(8, "drop samples older than this many versions")
    # ours (the paper learnt from self-play alone): a teacher bot labels the states the latest policy plays with
    # the bot's own action there, and the loss adds a weight x the negative log-probability of those labels
    # (DAgger); the weight falls linearly from teacher_weight to teacher_weight_end over teacher_versions
    teacher: str = setting("", "a bot whose actions are imitated (DAgger) beside PPO: scripted, ...; empty: none")
    teacher_weight: float = setting(1.0, "weight of the teacher's imitation loss at version 0")
    teacher_weight_end: float = setting(0.0, "teacher weight after teacher_versions")
    teacher_versions: int = setting(150, "versions over which the teacher weight falls from start to end")
    warmup_steps: int = setting(32, "gradient steps at learning rate 0 after a surgery, while Adam's moments fill "
                                     "(paper: hours)")
    # ours, from a clone (clone.bot; AlphaStar's route): a KL term toward the frozen clone, KL(pi || pi_clone) per
    # head, weight falling linearly from kl_weight to kl_weight_end over kl_versions; the critic warms up first
    kl_weight: float = setting(0.0, "weight of the KL term toward the run's clone at version 0 (needs clone.bot)")
    kl_weight_end: float = setting(0.0, "KL weight after kl_versions")
    kl_versions: int = setting(100, "versions over which the KL weight falls from kl_weight to kl_weight_end")
    value_warmup_steps: int = setting(0, "gradient steps from a clone in which only the value and win heads learn")


@dataclass
class CloneConfig:
    """Start from a clone of a bot's play (``fivestack.system.clone``): record its games, fit the policy to its
    actions, DAgger rounds; PPO then starts from that version 0. ``bot`` empty: from scratch (the paper's route)."""

    bot: str = setting("", "the bot to clone (scripted, ...; a name of fivestack.bots.agents.BOTS); empty: train "
                           "from scratch")
    opponents: tuple[str, ...] = setting(("scripted", "scripted-weak", "random"), "the bots the recorded games are "
                                                                                 "played against, one per game slot "
                                                                                 "in turn")
    agent_steps: int = setting(1_000_000, "agent-steps of the bot's recorded play")
    games: int = setting(32, "games played at once while recording")
    shard_steps: int = setting(256, "decisions per shard file")
    validation_share: float = setting(0.1, "share of recorded seats (whole games) held out for validation")
    passes: int = setting(10, "most passes over the data per training phase (fewer if the held-out loss stops "
                              "falling)")
    patience: int = setting(1, "passes without a lower held-out loss before a phase stops")
    batch_streams: int = setting(32, "streams (sequences) per gradient step")
    mix: int = setting(2, "shards read at once, their streams interleaved")
    burn_in: int = setting(16, "steps at a shard's start with no loss (the LSTM state warms up)")
    learning_rate: float = setting(1e-3, "Adam's learning rate of the supervised phases")
    grad_clip: float = setting(5.0, "per-parameter gradient clip to +- grad_clip sqrt(v), as PPO's")
    dagger_rounds: int = setting(1, "rounds in which the clone plays, the bot labels its states, and it trains "
                                    "again on all the data")
    dagger_agent_steps: int = setting(300_000, "agent-steps of the clone's play recorded per DAgger round")
    dagger_passes: int = setting(3, "most passes over all the data after each DAgger round")
    eval_games: int = setting(0, "games per bot (clone.eval_opponents) the clone plays after each training phase; "
                                 "0: none")
    eval_opponents: tuple[str, ...] = setting(("random", "scripted"), "the bots the clone meets after each phase")


@dataclass
class PoolConfig:
    past_fraction: float = setting(0.2, "share of games against a past version (paper: 20%)")
    learning_rate: float = setting(0.01, "learning rate of the past versions' quality scores (paper: eta 0.01)")
    add_every_versions: int = setting(10, "the latest version joins the pool every this many versions (paper: 10)")
    cache_size: int = setting(4, "past policies kept in memory per rollout worker, beyond those in play")
    opponent_slots: int = setting(2, "most past versions a rollout worker plays at once (a forward pass each per "
                                     "decision); ours")
    bot_fraction: float = setting(0.0, "share of training games against `bot`; ours (paper: 0, self-play only)")
    bot: str = setting("scripted", "the bot of those games: scripted, scripted-weak or random")


@dataclass
class EvalConfig:
    every_versions: int = setting(20, "rate a version this often (a multiple of pool.add_every_versions); 0: never")
    games: int = setting(20, "games per rated version; ours (paper: ~750)")
    opponents: tuple[str, ...] = setting(("random", "scripted-weak", "scripted"), "the bots of the reference pool "
                                                                                  "(random is the scale's zero)")
    near_points: float = setting(10.0, "prefer references within this many TrueSkill points (paper: ~10)")
    calibration_games: int = setting(32, "games that place each bot on the scale (once per run)")
    max_seconds: float = setting(3600.0, "evaluation games' time limit in game seconds (the standard game)")
    in_process: bool = setting(False, "rate in the training process (deterministic tests); else in its own process")


@dataclass
class AnnealConfig:
    """A new game feature switched on in a growing share of training games (``system/annealing.py``)."""

    feature: str = setting("", "the feature annealed in (game.patch.FEATURES, e.g. rich_creeps); empty: none")
    start_share: float = setting(0.0, "share of training games with the feature when annealing begins")
    versions: int = setting(100, "versions from start_share to 100% of games at the first rate")
    drop_sigmas: float = setting(2.0, "revert when TrueSkill mu falls more than this x its sigma below the best")
    slowdown: float = setting(0.5, "each revert multiplies the rate (share per version) by this (paper: slower)")


@dataclass
class AspConfig:
    """Asymmetric self-play games mixed into 1v1 training (``system/asp_moba.py``, repeat mode); share 0: off."""

    share: float = setting(0.0, "share of rollout games that are self-play (Alice sets a hero state, Bob repeats it); "
                                "0: none")
    t_max: int = setting(200, "decisions of a self-play episode, Alice's and Bob's (Bob has t_max - t_A)")
    alice_t_max: int = setting(100, "the most decisions Alice plays before she must stop")
    position_tolerance: float = setting(250.0, "Bob matches Alice's hero position within this distance (world "
                                               "units; the map is 16,000)")
    level_tolerance: int = setting(0, "... her hero level within this many levels")
    gold_tolerance: float = setting(150.0, "... her net worth (gold plus items) within this much gold")
    reward_scale: float = setting(0.01, "gamma of the rewards R_B = -gamma t_B, R_A = gamma max(0, t_B - t_A) "
                                        "(fivestack.asp.rewards)")
    alice_learning_rate: float = setting(0.003, "Alice's RMSProp learning rate (REINFORCE with a baseline)")
    alice_batch: int = setting(16, "finished self-play episodes per update of Alice")


@dataclass
class DrillConfig:
    """A drill on every 1v1 game of the rollout (``system/drills.py``): its task, reward and episodes replace the
    game's; name empty: off."""

    name: str = setting("", "each training game's drill: walk, lasthit, hold (vs scripted-weak), duel (vs scripted); "
                            "'': none")
    min_distance: float = setting(3000.0, "walk: the marked point lies at least this far from the hero (world units)")
    max_distance: float = setting(6000.0, "walk: ... and at most this far")
    radius: float = setting(300.0, "walk: the hero has arrived when within this distance of the point")
    seconds: float = setting(40.0, "game seconds of a drill episode, then failed (lasthit: its window; hold, duel: "
                                   "= game.max_seconds)")
    miss_penalty: float = setting(0.0, "lasthit: -this reward per enemy lane creep that dies not by the learner's "
                                       "last hit (0: none)")
    death_penalty: float = setting(0.0, "lasthit (and drill.reward='lasthit'): -this reward each time the learner's "
                                        "hero dies (0: none)")
    reward: str = setting("game", "hold, duel: pay the learner the game's shaped reward (game) or the last-hit drill's "
                                  "(lasthit)")
    stagger: bool = setting(False, "walk, lasthit: each game slot's first training episode starts part-way into "
                                   "its window (the slots never end together)")


@dataclass
class RayConfig:
    """The ray runner (``fivestack train --runner ray``); the serial runner ignores this section."""

    address: str = setting("", "empty: start Ray on this machine; auto or HOST:PORT joins a running cluster")
    rollout_workers: int = setting(2, "rollout workers R, each playing rollout.games games")
    inference: int = setting(1, "inference actors batching forward passes across workers; 0: each worker runs "
                                "its own")
    optimizers: int = setting(1, "optimizers O averaging gradients by allreduce; a step's batch is O x "
                                 "ppo.batch_samples")
    buffer_samples: int = setting(1024, "samples each optimizer's buffer holds; ours (paper: 4096)")
    cpus: int = setting(0, "logical CPUs of a local Ray; 0: one per actor")
    spread: bool = setting(False, "rollout and inference actors spread over the cluster's nodes (Ray's SPREAD); "
                                  "false: Ray's default")
    shared_memory: bool = setting(True, "requests to an inference actor on the same machine go through shared "
                                        "memory; false: as Ray calls")
    batch_wait_ms: float = setting(2.0, "how long an inference actor waits for more workers' requests to batch")
    log_seconds: float = setting(10.0, "seconds between metrics records")


@dataclass
class TrainConfig:
    run: RunConfig = field(default_factory=RunConfig)
    game: GameSettings = field(default_factory=GameSettings)
    rollout: RolloutConfig = field(default_factory=RolloutConfig)
    reward: RewardConfig = field(default_factory=RewardConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    pool: PoolConfig = field(default_factory=PoolConfig)
    clone: CloneConfig = field(default_factory=CloneConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    anneal: AnnealConfig = field(default_factory=AnnealConfig)
    asp: AspConfig = field(default_factory=AspConfig)
    drill: DrillConfig = field(default_factory=DrillConfig)
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


# Keys added after runs were saved, with the value that every run saved before them played with (a config saved
# without one is read with this value, not today's default): the paper's moves came before game.move_goals.
SAVED_BEFORE = {"game.move_goals": PAPER_MOVE_GOALS, "game.duel_kills": DUEL_KILLS,
                "game.net_worth_wins": False}

# Keys that moved: old name -> new name. A file or override with an old name is one error naming the new one; a
# config saved in an older checkpoint is read with its keys moved (``from_dict``).
RENAMED = {"ppo.epochs": "ppo.sample_reuse", "ray.reuse_target": "ppo.sample_reuse",
           "ray.steps_per_version": "ppo.steps_per_version"}


def apply(config: TrainConfig, section: str, key: str, value: Any) -> None:
    if f"{section}.{key}" in RENAMED:
        new = RENAMED[f"{section}.{key}"]
        raise ConfigError(f"config key {section}.{key} is now {new} (one setting for both runners); use {new} "
                          f"instead")
    if section not in SECTIONS:
        raise ConfigError(f"unknown config section [{section}]; sections: {', '.join(SECTIONS)}")
    part = getattr(config, section)
    hints = get_type_hints(type(part))
    if key not in hints:
        raise ConfigError(f"unknown config key {section}.{key}; keys in [{section}]: {', '.join(hints)}")
    setattr(part, key, _coerce(section, key, value, hints[key]))


def load_config(path: str | Path | None = None, overrides: list[str] | tuple[str, ...] = (),
                saved: bool = False) -> TrainConfig:
    """Defaults, then the TOML file, then ``section.key=value`` overrides, in that order. ``saved``: the file is a
    run's own ``config.toml``, so a key added since it was written (``SAVED_BEFORE``) takes the value the run played
    with, not today's default."""
    config = TrainConfig()
    if saved:
        for name, value in SAVED_BEFORE.items():
            apply(config, *name.split("."), value)
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


# The overrides that switch a preset's clone-then-surpass recipe off: PPO from scratch, the paper's route (no clone, no
# KL term toward one, no critic warm-up, no games against the bot).
# 1v1 in 10-minute games, the task the reference learner's and the reward probe's committed figures were measured on
# (configs/1v1.toml plays 30-minute games since 2026-12-08)
TEN_MINUTE_GAMES = ("game.max_seconds=600.0", "eval.max_seconds=600.0")
FROM_SCRATCH = ("clone.bot=''", "ppo.kl_weight=0.0", "ppo.kl_weight_end=0.0", "ppo.value_warmup_steps=0",
                "pool.bot_fraction=0.0")


def describe(config: TrainConfig) -> list[dict[str, Any]]:
    """Every key of ``config``: its name, value, default and one-line doc, in the order of the sections."""
    defaults = TrainConfig()
    rows = []
    for section in SECTIONS:
        part, default_part = getattr(config, section), getattr(defaults, section)
        for f in dataclasses.fields(part):
            rows.append({"key": f"{section}.{f.name}", "value": getattr(part, f.name),
                         "default": getattr(default_part, f.name), "doc": f.metadata.get("doc", "")})
    return rows


def from_dict(data: dict) -> TrainConfig:
    """Rebuild a config saved with ``to_dict`` (checkpoints), with the same checks as a TOML file; keys that
    moved since it was saved (``RENAMED``) are read under their new names, and keys added since (``SAVED_BEFORE``)
    with the value the run played with."""
    config = TrainConfig()
    for name, value in SAVED_BEFORE.items():
        apply(config, *name.split("."), value)
    for section, table in data.items():
        for key, value in table.items():
            new = RENAMED.get(f"{section}.{key}")
            if new is None:
                apply(config, section, key, value)
            elif new.split(".")[1] not in data.get(new.split(".")[0], {}):  # saved before the key moved
                apply(config, *new.split("."), value)
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
