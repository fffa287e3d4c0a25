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

from fivestack.bots.agents import BOTS
from fivestack.env.events import EVENT_NAMES, PAPER_WEIGHTS
from fivestack.game.engine import MODES, GameConfig
from fivestack.game.layout import DUEL_KILLS, MOVE_GOALS, PAPER_MOVE_GOALS
from fivestack.game.lineups import LINEUP_RULES, check_pool
from fivestack.game.patch import FEATURES, PATCH_VERSION, PATCHES, Patch
from fivestack.model.policy import PolicyConfig


class ConfigError(ValueError):
    """A user's mistake in a config file or an override."""


DEVICES = ("cpu", "cuda", "auto")  # the values of run.device (``fivestack.match.device`` resolves them)


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
    torch_threads: int = setting(0, "torch threads in the training process; 0: torch's default")
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
    patch: str = setting(PATCH_VERSION, "the patch version of every training game (game.patch.PATCHES: 0.1, 0.2, 0.3)")
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
    grad_clip: float = setting(5.0, "per-parameter gradient clip to +- grad_clip sqrt(v) (Adam's v)")
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


# the width of the policy's goal input in asymmetric self-play games (``fivestack.system.asp_moba``): [flag 1,
# dx, dy, dlevel, dgold (goal minus now, scaled), share of the episode's decisions left]
GOAL_WIDTH = 6


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


# the drills (issue 30, ``fivestack.system.drills.DRILLS``): small scenarios on the real game with a success figure
DRILL_NAMES = ("walk", "lasthit", "hold", "duel")
MATCH_DRILL_BOTS = {"hold": "scripted-weak", "duel": "scripted"}  # the drills that are the game against a bot: its name


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


# Ranges every value must lie in: (section, key) -> (low, high, whether low is allowed, whether high is allowed);
# None: no bound on that side. Checked by ``validate``, with one error naming the key and its range.
RANGES: dict[tuple[str, str], tuple[float | None, float | None, bool, bool]] = {
    ("run", "minutes"): (0, None, True, False),
    ("run", "max_versions"): (0, None, True, False),
    ("run", "checkpoint_minutes"): (0, None, False, False),
    ("run", "torch_threads"): (0, None, True, False),
    ("game", "max_seconds"): (0, None, False, False),
    ("game", "duel_kills"): (0, None, True, False),
    ("rollout", "games"): (1, None, True, False),
    ("rollout", "segment_steps"): (1, None, True, False),
    ("rollout", "sample_steps"): (1, None, True, False),
    ("rollout", "decision_steps"): (1, None, True, False),
    ("rollout", "lane_start"): (0, 1, True, True),
    ("ppo", "learning_rate"): (0, 1, False, False),
    ("ppo", "adam_beta1"): (0, 1, True, False),
    ("ppo", "adam_beta2"): (0, 1, True, False),
    ("ppo", "clip"): (0, 1, False, False),
    ("ppo", "entropy_primary"): (0, None, True, False),
    ("ppo", "entropy_delay"): (0, None, True, False),
    ("ppo", "entropy_target"): (0, None, True, False),
    ("ppo", "entropy_offset"): (0, None, True, False),
    ("ppo", "value_weight"): (0, None, True, False),
    ("ppo", "win_weight"): (0, None, True, False),
    ("ppo", "gae_lambda"): (0, 1, True, True),
    ("ppo", "horizon_seconds"): (0, None, False, False),
    ("ppo", "team_spirit_start"): (0, 1, True, True),
    ("ppo", "team_spirit_end"): (0, 1, True, True),
    ("ppo", "team_spirit_versions"): (1, None, True, False),
    ("ppo", "batch_samples"): (1, None, True, False),
    ("ppo", "sample_reuse"): (0, None, True, False),
    ("ppo", "steps_per_version"): (1, None, True, False),
    ("ppo", "grad_clip"): (0, None, False, False),
    ("ppo", "max_staleness"): (0, None, True, False),
    ("ppo", "teacher_weight"): (0, None, True, False),
    ("ppo", "teacher_weight_end"): (0, None, True, False),
    ("ppo", "teacher_versions"): (1, None, True, False),
    ("ppo", "warmup_steps"): (0, None, True, False),
    ("ppo", "kl_weight"): (0, None, True, False),
    ("ppo", "kl_weight_end"): (0, None, True, False),
    ("ppo", "kl_versions"): (1, None, True, False),
    ("ppo", "value_warmup_steps"): (0, None, True, False),
    ("clone", "agent_steps"): (1, None, True, False),
    ("clone", "games"): (1, None, True, False),
    ("clone", "shard_steps"): (1, None, True, False),
    ("clone", "validation_share"): (0, 0.5, True, True),
    ("clone", "passes"): (1, None, True, False),
    ("clone", "patience"): (1, None, True, False),
    ("clone", "batch_streams"): (1, None, True, False),
    ("clone", "mix"): (1, None, True, False),
    ("clone", "burn_in"): (0, None, True, False),
    ("clone", "learning_rate"): (0, 1, False, False),
    ("clone", "grad_clip"): (0, None, False, False),
    ("clone", "dagger_rounds"): (0, None, True, False),
    ("clone", "dagger_agent_steps"): (1, None, True, False),
    ("clone", "dagger_passes"): (1, None, True, False),
    ("policy", "unit_embedding"): (1, None, True, False),
    ("policy", "element_hidden"): (1, None, True, False),
    ("policy", "trunk"): (1, None, True, False),
    ("policy", "lstm_size"): (1, None, True, False),
    ("policy", "action_embedding"): (1, None, True, False),
    ("policy", "cross_hero_fraction"): (0, 1, True, True),
    ("policy", "normalizer_clip"): (0, None, False, False),
    ("pool", "past_fraction"): (0, 1, True, True),
    ("pool", "learning_rate"): (0, None, False, False),
    ("pool", "add_every_versions"): (1, None, True, False),
    ("pool", "cache_size"): (0, None, True, False),
    ("pool", "opponent_slots"): (2, None, True, False),
    ("pool", "bot_fraction"): (0, 1, True, True),
    ("eval", "every_versions"): (0, None, True, False),
    ("eval", "games"): (1, None, True, False),
    ("eval", "near_points"): (0, None, False, False),
    ("eval", "calibration_games"): (1, None, True, False),
    ("eval", "max_seconds"): (0, None, False, False),
    ("anneal", "start_share"): (0, 1, True, False),
    ("anneal", "versions"): (1, None, True, False),
    ("anneal", "drop_sigmas"): (0, None, False, False),
    ("anneal", "slowdown"): (0, 1, False, True),
    ("policy", "goal_inputs"): (0, None, True, False),
    ("asp", "share"): (0, 1, True, True),
    ("asp", "t_max"): (2, None, True, False),
    ("asp", "alice_t_max"): (1, None, True, False),
    ("asp", "position_tolerance"): (0, None, False, False),
    ("asp", "level_tolerance"): (0, None, True, False),
    ("asp", "gold_tolerance"): (0, None, True, False),
    ("asp", "reward_scale"): (0, None, False, False),
    ("asp", "alice_learning_rate"): (0, None, False, False),
    ("asp", "alice_batch"): (1, None, True, False),
    ("drill", "min_distance"): (0, None, False, False),
    ("drill", "max_distance"): (0, None, False, False),
    ("drill", "radius"): (0, None, False, False),
    ("drill", "seconds"): (0, None, False, False),
    ("ray", "rollout_workers"): (1, None, True, False),
    ("ray", "inference"): (0, None, True, False),
    ("ray", "optimizers"): (1, None, True, False),
    ("ray", "buffer_samples"): (1, None, True, False),
    ("ray", "cpus"): (0, None, True, False),
    ("ray", "batch_wait_ms"): (0, None, True, False),
    ("ray", "log_seconds"): (0, None, False, False),
}


def _range_text(low, high, low_ok: bool, high_ok: bool) -> str:
    if high is None:
        return f"{'at least' if low_ok else 'greater than'} {low:g}"
    return f"in {'[' if low_ok else '('}{low:g}, {high:g}{']' if high_ok else ')'}"


def validate(config: TrainConfig) -> None:
    """Every value in its range (``RANGES``) and the rules between keys; one ``ConfigError`` naming the key."""
    if config.pool.opponent_slots < 2:  # before the ranges: say why
        raise ConfigError(f"pool.opponent_slots must be at least 2, got {config.pool.opponent_slots}: it is how many "
                          f"past versions a rollout worker plays at once, and one slot shared by overlapping games "
                          f"would never empty to be drawn again (to play no past versions, set pool.past_fraction=0)")
    for (section, key), (low, high, low_ok, high_ok) in RANGES.items():
        value = getattr(getattr(config, section), key)
        below = value < low if low_ok else value <= low
        above = high is not None and (value > high if high_ok else value >= high)
        if below or above or value != value:  # NaN is in no range
            raise ConfigError(f"{section}.{key} must be {_range_text(low, high, low_ok, high_ok)}, got {value!r}")
    if config.run.device not in DEVICES:
        raise ConfigError(f"run.device must be one of {', '.join(repr(d) for d in DEVICES)}, got "
                          f"{config.run.device!r}")
    if config.game.mode not in ("5v5", "1v1"):
        raise ConfigError(f"game.mode must be '5v5' or '1v1', got {config.game.mode!r}")
    if config.game.patch not in PATCHES:
        raise ConfigError(f"game.patch must be one of {sorted(PATCHES)}, got {config.game.patch!r}")
    if config.game.move_goals not in MOVE_GOALS:
        raise ConfigError(f"game.move_goals must be one of {', '.join(repr(m) for m in MOVE_GOALS)}, got "
                          f"{config.game.move_goals!r}")
    if config.game.lineups not in LINEUP_RULES:
        raise ConfigError(f"game.lineups must be one of {', '.join(repr(r) for r in LINEUP_RULES)}, got "
                          f"{config.game.lineups!r}")
    if config.game.lineups == "random":
        try:
            check_pool(Patch(config.game.patch), MODES[config.game.mode])
        except ValueError as e:
            raise ConfigError(f"game.lineups: {e}") from None
    feature = config.anneal.feature
    if feature and feature not in FEATURES:
        raise ConfigError(f"anneal.feature must be '' (none) or one of {sorted(FEATURES)}, got {feature!r}")
    if feature in PATCHES[config.game.patch].features:
        raise ConfigError(f"anneal.feature {feature!r} is already in every game of patch {config.game.patch}; "
                          f"anneal it from a patch without it")
    r = config.rollout
    if r.segment_steps % r.sample_steps != 0:
        raise ConfigError(f"rollout.segment_steps ({r.segment_steps}) must be a multiple of rollout.sample_steps "
                          f"({r.sample_steps})")
    if config.ray.buffer_samples < config.ppo.batch_samples:
        raise ConfigError(f"ray.buffer_samples ({config.ray.buffer_samples}) must hold at least one batch "
                          f"(ppo.batch_samples = {config.ppo.batch_samples})")
    validate_asp(config)
    validate_drill(config)
    validate_lane_start(config)
    pool, ev = config.pool, config.eval
    if pool.bot not in BOTS:
        raise ConfigError(f"pool.bot must be one of {list(BOTS)}, got {pool.bot!r}")
    if config.ppo.teacher and config.ppo.teacher not in BOTS:
        raise ConfigError(f"ppo.teacher must be '' (none) or one of {list(BOTS)}, got {config.ppo.teacher!r}")
    validate_clone(config)
    if ev.every_versions and ev.every_versions % pool.add_every_versions:
        raise ConfigError(f"eval.every_versions ({ev.every_versions}) must be a multiple of pool.add_every_versions "
                          f"({pool.add_every_versions}): only versions in the pool are rated")
    if ev.every_versions and "random" not in ev.opponents:
        raise ConfigError("eval.opponents must include 'random', the anchor (mu = 0) of the rating scale")


# The overrides that switch a preset's clone-then-surpass recipe off: PPO from scratch, the paper's route (no clone, no
# KL term toward one, no critic warm-up, no games against the bot).
FROM_SCRATCH = ("clone.bot=''", "ppo.kl_weight=0.0", "ppo.kl_weight_end=0.0", "ppo.value_warmup_steps=0",
                "pool.bot_fraction=0.0")


def validate_clone(config: TrainConfig) -> None:
    """The [clone] rules: known bots, shards at least one BPTT chunk long, and no KL term without a clone."""
    c = config.clone
    if c.bot and c.bot not in BOTS:
        raise ConfigError(f"clone.bot must be '' (train from scratch) or one of {list(BOTS)}, got {c.bot!r}; "
                          f"a bot of your own is cloned once it is registered in fivestack.bots.agents.BOTS")
    unknown = [name for name in c.opponents if name not in BOTS]
    if unknown or not c.opponents:
        raise ConfigError(f"clone.opponents must name bots of {list(BOTS)}, got {list(c.opponents)}")
    if c.shard_steps < config.rollout.sample_steps + c.burn_in:
        raise ConfigError(f"clone.shard_steps ({c.shard_steps}) must be at least rollout.sample_steps + clone.burn_in "
                          f"({config.rollout.sample_steps} + {c.burn_in}): a shard holds whole BPTT chunks")
    p = config.ppo
    if not c.bot and (p.kl_weight > 0 or p.kl_weight_end > 0 or p.value_warmup_steps > 0):
        raise ConfigError("ppo.kl_weight, ppo.kl_weight_end and ppo.value_warmup_steps act on a clone: set clone.bot "
                          "(e.g. clone.bot=scripted) or set them to 0 to train from scratch")


def one_hero_with_goal(config: TrainConfig, what: str, why: str, fix: str) -> None:
    """The rules of a feature that drives one hero per side and tells the policy its task through the goal input
    (asymmetric self-play, the drills): 1v1 games, and the goal input in the model."""
    if config.game.mode != "1v1":
        raise ConfigError(f"{what} needs game.mode = '1v1' ({why}), got {config.game.mode!r}; {fix}")
    if config.policy.goal_inputs != GOAL_WIDTH:
        raise ConfigError(f"{what} tells the policy its task through the goal input, which changes the model: set "
                          f"policy.goal_inputs={GOAL_WIDTH} (got {config.policy.goal_inputs})")


def validate_asp(config: TrainConfig) -> None:
    """The [asp] rules between keys: 1v1 only, the goal input the policy needs, at least one game, Bob's time."""
    asp = config.asp
    if asp.share == 0:
        return
    one_hero_with_goal(config, f"asp.share = {asp.share:g}", "self-play games drive one hero",
                       "use --config configs/1v1.toml or asp.share=0")
    if round(asp.share * config.rollout.games) < 1:
        raise ConfigError(f"asp.share = {asp.share:g} of rollout.games = {config.rollout.games} rounds to no self-play "
                          f"game; raise asp.share to at least {0.5 / config.rollout.games:.3g} or set it to 0")
    if round(asp.share * config.rollout.games) >= config.rollout.games:
        raise ConfigError(f"asp.share = {asp.share:g} makes all {config.rollout.games} rollout games self-play games; "
                          f"keep at least one ordinary game (the learner must play every step): lower asp.share")
    if asp.alice_t_max >= asp.t_max:
        raise ConfigError(f"asp.alice_t_max ({asp.alice_t_max}) must be below asp.t_max ({asp.t_max}), or Bob has no "
                          f"time to repeat her task")


def validate_drill(config: TrainConfig) -> None:
    """The [drill] rules: a known drill, on 1v1 games, with the policy's goal input, every row the learner's."""
    d = config.drill
    if not d.name:
        return
    if d.name not in DRILL_NAMES:
        raise ConfigError(f"drill.name must be '' (no drill) or one of {list(DRILL_NAMES)}, got {d.name!r}")
    one_hero_with_goal(config, f"drill.name = {d.name!r}", "a drill drives one hero per side",
                       f"use --config configs/drill-{d.name}.toml or set game.mode='1v1'")
    if config.asp.share > 0:
        raise ConfigError(f"drill.name = {d.name!r} plays every game as a drill: set asp.share=0 (got "
                          f"{config.asp.share:g}); asymmetric self-play and drills do not mix")
    bot = MATCH_DRILL_BOTS.get(d.name)
    if bot is not None and (config.pool.bot_fraction != 1.0 or config.pool.bot != bot):
        raise ConfigError(f"drill.name = {d.name!r} plays every game against {bot}: set pool.bot_fraction=1 and "
                          f"pool.bot={bot!r} (got {config.pool.bot_fraction:g} and {config.pool.bot!r}), or use "
                          f"--config configs/drill-{d.name}.toml")
    if bot is None and config.pool.bot_fraction > 0:
        raise ConfigError(f"drill.name = {d.name!r} plays both heroes itself (the learner, or idle): set "
                          f"pool.bot_fraction=0 (got {config.pool.bot_fraction:g})")
    if config.pool.past_fraction > 0:
        raise ConfigError(f"drill.name = {d.name!r} plays the other hero itself (idle, or a bot): set "
                          f"pool.past_fraction=0 (got {config.pool.past_fraction:g})")
    if bot is not None and d.seconds != config.game.max_seconds:
        raise ConfigError(f"drill.seconds ({d.seconds:g}) must equal game.max_seconds ({config.game.max_seconds:g}): "
                          f"a {d.name} episode is the whole game")
    if d.name == "walk":
        validate_walk(d)
    if d.seconds > config.game.max_seconds:
        raise ConfigError(f"drill.seconds ({d.seconds:g}) must be at most game.max_seconds "
                          f"({config.game.max_seconds:g}): the game would end before the episode")


def validate_lane_start(config: TrainConfig) -> None:
    """``rollout.lane_start`` moves both heroes of a 1v1 game at its start; the features that place heroes
    themselves (drills, asymmetric self-play) own their games' starts."""
    share = config.rollout.lane_start
    if share == 0:
        return
    if config.game.mode != "1v1":
        raise ConfigError(f"rollout.lane_start = {share:g} places the one hero of each side in the mid lane: use "
                          f"--config configs/1v1.toml (game.mode='1v1'), or set rollout.lane_start=0")
    for owner, value in (("drill.name", config.drill.name), ("asp.share", config.asp.share)):
        if value:
            raise ConfigError(f"rollout.lane_start = {share:g} and {owner} = {value!r} both place heroes at a game's "
                              f"start: set rollout.lane_start=0 or turn {owner} off")


def validate_walk(d: DrillConfig) -> None:
    """The walk drill's own keys (the other drills do not read them)."""
    if d.max_distance <= d.min_distance:
        raise ConfigError(f"drill.max_distance ({d.max_distance:g}) must be above drill.min_distance "
                          f"({d.min_distance:g})")
    if d.min_distance <= d.radius:
        raise ConfigError(f"drill.min_distance ({d.min_distance:g}) must be above drill.radius ({d.radius:g}), or "
                          f"a hero could start on its point")


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
