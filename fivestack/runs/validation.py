"""The rules a training config must keep: every number's range (``RANGES``) and the rules between keys
(``validate`` and the section rules it calls), each broken rule one ``ConfigError`` naming the key and the fix.
``fivestack.runs.config`` defines the sections, loads a config and calls ``validate``; the few names both read
(``ConfigError``, the drill names, the goal width) live here, below it; ``config`` here is a ``TrainConfig``
(this module does not import it: the config module imports this one)."""

from __future__ import annotations

from fivestack.bots.agents import BOTS
from fivestack.game.engine import MODES
from fivestack.game.layout import MOVE_GOALS
from fivestack.game.lineups import LINEUP_RULES, check_pool
from fivestack.game.patch import FEATURES, PATCHES, Patch
from fivestack.model.policy import CORES


class ConfigError(ValueError):
    """A user's mistake in a config file or an override."""


DEVICES = ("cpu", "cuda", "auto")  # the values of run.device (``fivestack.match.device`` resolves them)
# the width of the policy's goal input in asymmetric self-play games (``fivestack.system.asp_moba``): [flag 1,
# dx, dy, dlevel, dgold (goal minus now, scaled), share of the episode's decisions left]; the drills use the same
# columns. GOAL_OFFSET: the columns of the goal's offset on the map (dx, dy), which a turned view negates
GOAL_WIDTH = 6
GOAL_OFFSET = [1, 2]
# the drills (issue 30, ``fivestack.system.drills.DRILLS``): small scenarios on the real game with a success figure
DRILL_NAMES = ("walk", "lasthit", "hold", "duel")
MATCH_DRILL_BOTS = {"hold": "scripted-weak", "duel": "scripted"}  # the drills that are the game against a bot: its name
MATCH_DRILL_REWARDS = ("game", "lasthit")  # drill.reward: what a match drill pays its learner (system/drills.py)

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
    ("ppo", "learning_rate_versions"): (0, None, True, False),
    ("ppo", "learning_rate_end"): (0, 1, True, False),
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
    ("ppo", "grad_clip"): (0, None, True, False),
    ("ppo", "grad_norm_clip"): (0, None, True, False),
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
    ("clone", "eval_games"): (0, None, True, False),
    ("policy", "unit_embedding"): (1, None, True, False),
    ("policy", "element_hidden"): (1, None, True, False),
    ("policy", "trunk"): (1, None, True, False),
    ("policy", "lstm_size"): (1, None, True, False),
    ("policy", "action_embedding"): (1, None, True, False),
    ("policy", "cross_hero_fraction"): (0, 1, True, True),
    ("policy", "normalizer_clip"): (0, None, False, False),
    ("policy", "value_hidden"): (0, None, True, False),
    ("policy", "flat_unit_slots"): (0, 189, True, True),
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
    ("drill", "miss_penalty"): (0, None, True, False),
    ("drill", "death_penalty"): (0, None, True, False),
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


def validate(config) -> None:
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
    if config.policy.core not in CORES:
        raise ConfigError(f"policy.core must be one of {', '.join(repr(c) for c in CORES)}, got {config.policy.core!r}")
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
    if feature == "team_frame":
        raise ConfigError("anneal.feature 'team_frame' cannot be annealed: the policy turns Dire's offsets in every "
                          "game or in none (by its patch); play patch 0.9 from the start")
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


def validate_clone(config) -> None:
    """The [clone] rules: known bots, shards at least one BPTT chunk long, and no KL term without a clone."""
    c = config.clone
    if c.bot and c.bot not in BOTS:
        raise ConfigError(f"clone.bot must be '' (train from scratch) or one of {list(BOTS)}, got {c.bot!r}; "
                          f"a bot of your own is cloned once it is registered in fivestack.bots.agents.BOTS")
    unknown = [name for name in c.opponents if name not in BOTS]
    if unknown or not c.opponents:
        raise ConfigError(f"clone.opponents must name bots of {list(BOTS)}, got {list(c.opponents)}")
    unknown = [name for name in c.eval_opponents if name not in BOTS]
    if c.eval_games and (unknown or not c.eval_opponents):
        raise ConfigError(f"clone.eval_opponents must name bots of {list(BOTS)}, got {list(c.eval_opponents)}; "
                          f"or set clone.eval_games=0 to measure the clone on held-out labels only")
    if c.shard_steps < config.rollout.sample_steps + c.burn_in:
        raise ConfigError(f"clone.shard_steps ({c.shard_steps}) must be at least rollout.sample_steps + clone.burn_in "
                          f"({config.rollout.sample_steps} + {c.burn_in}): a shard holds whole BPTT chunks")
    p = config.ppo
    if not c.bot and (p.kl_weight > 0 or p.kl_weight_end > 0):
        raise ConfigError("ppo.kl_weight and ppo.kl_weight_end act on a clone: set clone.bot (e.g. clone.bot=scripted) "
                          "or set them to 0 to train from scratch")
    if c.bot and config.run.init_from:
        raise ConfigError(f"clone.bot = {c.bot!r} and run.init_from = {config.run.init_from!r}: a run's version 0 is "
                          f"either a clone or a trained version's weights; set clone.bot='' or run.init_from=''")
    if not c.bot and not config.run.init_from and p.value_warmup_steps > 0:
        raise ConfigError("ppo.value_warmup_steps acts on a run that starts from trained weights: set clone.bot (e.g. "
                          "clone.bot=scripted) or run.init_from (RUN[:VERSION]), or set it to 0 to train from scratch")


def one_hero_with_goal(config, what: str, why: str, fix: str) -> None:
    """The rules of a feature that drives one hero per side and tells the policy its task through the goal input
    (asymmetric self-play, the drills): 1v1 games, and the goal input in the model."""
    if config.game.mode != "1v1":
        raise ConfigError(f"{what} needs game.mode = '1v1' ({why}), got {config.game.mode!r}; {fix}")
    if config.policy.goal_inputs != GOAL_WIDTH:
        raise ConfigError(f"{what} tells the policy its task through the goal input, which changes the model: set "
                          f"policy.goal_inputs={GOAL_WIDTH} (got {config.policy.goal_inputs})")


def validate_asp(config) -> None:
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


def validate_drill(config) -> None:
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
    if bot is not None and d.stagger:
        raise ConfigError(f"drill.stagger staggers the windows of the walk and last-hit drills; a {d.name} episode is "
                          f"the whole game, ended by its rules: leave drill.stagger false")
    if d.name == "walk":
        validate_walk(d)
    if d.reward not in MATCH_DRILL_REWARDS:
        raise ConfigError(f"drill.reward must be one of {list(MATCH_DRILL_REWARDS)}, got {d.reward!r}")
    if d.reward != "game" and bot is None:
        raise ConfigError(f"drill.reward = {d.reward!r} chooses what the hold and duel drills pay; the {d.name} "
                          f"drill has its own reward: leave drill.reward='game'")
    if d.miss_penalty and d.name != "lasthit":
        raise ConfigError(f"drill.miss_penalty ({d.miss_penalty:g}) is the last-hit drill's charge for a creep it "
                          f"lets die: leave it 0 with drill.name={d.name!r}")
    if d.death_penalty and d.name != "lasthit" and d.reward != "lasthit":
        raise ConfigError(f"drill.death_penalty ({d.death_penalty:g}) is the last-hit reward's charge for a death: "
                          f"leave it 0 with drill.name={d.name!r}, or set drill.reward='lasthit' (hold, duel)")
    if d.seconds > config.game.max_seconds:
        raise ConfigError(f"drill.seconds ({d.seconds:g}) must be at most game.max_seconds "
                          f"({config.game.max_seconds:g}): the game would end before the episode")


def validate_lane_start(config) -> None:
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


def validate_walk(d) -> None:
    """The walk drill's own keys (the other drills do not read them)."""
    if d.max_distance <= d.min_distance:
        raise ConfigError(f"drill.max_distance ({d.max_distance:g}) must be above drill.min_distance "
                          f"({d.min_distance:g})")
    if d.min_distance <= d.radius:
        raise ConfigError(f"drill.min_distance ({d.min_distance:g}) must be above drill.radius ({d.radius:g}), or "
                          f"a hero could start on its point")
