"""One way to build a team agent from its name: the registry of agents every app and the evaluator use.

    build_agent(spec, team, seed, mode)   a team agent from a spec string:
                                            "random", "scripted", "scripted-weak"  a bot (fivestack.bots.agents)
                                            "trained"                           the shipped 1v1 model
                                            RUN:VERSION, RUN:latest or RUN      a trained version of a run folder
                                                                                (its pool snapshot or checkpoint)
    check_agent(spec)                     the same checks without loading anything (for a CLI, before it plays)
    load_run_policy(spec)                 (policy, config, version) of a trained version, read from its run folder
    load_trained_version(spec)            the same and the version's agent-steps (``TrainedVersion``)
    PolicyTeamAgent(team, policy, mode)   a policy as a team agent, deciding every ``decision_steps`` timesteps
    trained_game(agents)                  the game settings the trained policies among them were trained on (patch,
                                            move table): what a game of these agents must be made with
    trained_game_of(config.game)          the same settings read from a run's [game], as PolicyTeamAgent's keywords

A team agent acts for the five heroes of one team: ``act(env, games=None) -> int64 (n_games, 5, 5)``, in env
action space (unit targets are slots of its team's observation). ``games`` lists the games it is asked for;
a bot acts in every game anyway (its other rows are ignored), a ``PolicyTeamAgent`` runs its network on
those games only, so that one forward pass serves all of its games and none is spent on a finished game.

``fivestack play``, the evaluator, the arena, surgery and the draft build their agents here and play their games
with ``fivestack.match.games``.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import NamedTuple

import numpy as np

from fivestack.bots.agents import BOTS, TeamAgent, make_bot
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import no_orders
from fivestack.game.layout import HEROES_PER_TEAM, PAPER_MOVE_GOALS
from fivestack.game.patch import PATCH_VERSION
from fivestack.match.inference import Inference, InferenceRequest, InferenceResult, initial_state
from fivestack.match.teams import active_heroes, deciding_rows, team_view
from fivestack.model.policy import ALL_GROUPS, CheckpointMismatch, Policy, PolicyConfig
from fivestack.runs.checkpoints import (checkpoint_paths, latest_checkpoint, load_checkpoint, load_state, read_snapshot,
                                       snapshot_path)
from fivestack.runs.config import TrainConfig, load_config

TEAMS = ("radiant", "dire")
RUN_EXAMPLE = "runs/NAME:1200"
TRAINED = "trained"  # the 1v1 model that ships with fivestack (``fivestack/match/trained``): the arena's default


class AgentUnavailable(RuntimeError):
    """An agent name is known but the agent cannot be built in this installation."""


# ====================================================================== a trained policy as a team agent
class PolicyTeamAgent:
    """A team driven by a policy, with the TeamAgent interface (``act(env, games=None) -> (games, 5, 5)``).

    ``act(env, games)`` runs the policy for the listed games only (the others get no-ops, and their LSTM state
    stays as it was): a wide evaluation gives each agent just the games where it plays this side and that are
    still running. ``greedy`` plays each action head's most likely choice instead of sampling. The policy
    decides every ``decision_steps`` timesteps of a game, as it was trained (``rollout.decision_steps``); in
    between its heroes keep their orders (no-ops). ``heroes`` narrows the heroes it drives (default: all of its
    team's in play), e.g. the four teammates of a person in the arena; the rows of the others stay no-ops.
    ``move_goals`` and ``patch`` are the game it was trained on (``[game]`` of its run): it plays only games made
    with them (``trained_game``), and says so in one error otherwise."""

    def __init__(self, team: int, policy: Policy, mode: str, seed: int = 0, greedy: bool = False,
                 decision_steps: int = 1, heroes: np.ndarray | None = None, move_goals: str = PAPER_MOVE_GOALS,
                 patch: str = PATCH_VERSION):
        self.team = team
        self.move_goals = move_goals  # the action space it was trained in: it plays only games of that table
        self.patch = patch  # its inputs' columns and the rules it learnt: it plays only games of that patch
        self.decision_steps = decision_steps
        self.steps_played = None  # (games,) timesteps each game has been played
        self.inference = Inference(policy, seed, greedy=greedy)
        self.mode = mode
        self.in_play = active_heroes(mode)[team]  # the heroes the network runs for, as it was trained
        self.heroes = self.in_play if heroes is None else np.asarray(heroes, np.int64)  # the heroes it plays
        if self.heroes.size == 0 or not np.isin(self.heroes, self.in_play).all():
            raise ValueError(f"heroes {self.heroes.tolist()} are not heroes of team {team} in play in {mode} "
                             f"({self.in_play.tolist()})")
        self._played = np.searchsorted(self.in_play, self.heroes)  # their columns in the network's outputs
        self.k = len(self.in_play)
        self.state = None
        self.first = None
        # The policy's outputs for the last ``act`` call (value, win probability, actions per active hero, for the
        # games it acted for), kept so that a replay can record what the agents thought.
        self.last_result: InferenceResult | None = None

    def restart(self, games: np.ndarray) -> None:
        """The games ``games`` of the env it plays begin again (an env that restarts finished games in place, e.g.
        ``match.single_agent``): their LSTM state starts fresh and their timesteps count from 0."""
        if self.first is not None:
            self.first[games] = 1.0
            self.steps_played[games] = 0

    def act(self, env: BatchedEnv, games: np.ndarray | None = None) -> np.ndarray:
        for name, why in TRAINED_GAME.items():
            mine, games_own = getattr(self, name), getattr(env.game.config, name)
            if games_own != mine:
                raise ValueError(f"this policy was trained with {name} {mine!r} but the game's is {games_own!r}: "
                                 f"{why}; make the game with GameConfig({name}={mine!r}) (match.agents.trained_game)")
        n = env.n_games
        if self.state is None or self.first.shape[0] != n:
            self.state = initial_state(n * self.k, self.inference.policy.config.lstm_size)
            self.first = np.ones(n, np.float32)
            self.steps_played = np.zeros(n, np.int64)
        out = no_orders(n, HEROES_PER_TEAM)
        rows = deciding_rows(self.steps_played, games, self.decision_steps)
        m = rows.size
        if m == 0:
            return out
        obs = env.obs if m == n else {name: env.obs[name][rows] for name in ALL_GROUPS}
        view = team_view(obs, active_heroes(self.mode))
        mine = {name: arr.reshape(m, 2, *arr.shape[1:])[:, self.team] for name, arr in view.items()}
        slots = np.tile(self.in_play, (m, 1)).astype(np.int64)
        if m == n:
            state, first = self.state, self.first
        else:
            lstm_rows = (rows[:, None] * self.k + np.arange(self.k)).reshape(-1)
            state, first = (self.state[0][lstm_rows], self.state[1][lstm_rows]), self.first[rows]
        result = self.inference(InferenceRequest(mine, slots, state, first))
        if m == n:
            self.state = result.state
        else:
            self.state[0][lstm_rows], self.state[1][lstm_rows] = result.state
        self.first[rows] = 0.0
        if self._played.size < self.k:  # what it played and reports: its own heroes' columns only
            c = self._played
            result = InferenceResult(result.actions[:, c], result.head_log_prob[:, c], result.value[:, c],
                                     result.win_prob[:, c], result.state, result.version)
        self.last_result = result
        out[np.ix_(rows, self.heroes - self.team * HEROES_PER_TEAM)] = result.actions
        return out


# ====================================================================== trained versions of a run
def parse_run_spec(spec: str) -> tuple[Path, int | None]:
    """``RUN:VERSION`` / ``RUN:latest`` / ``RUN`` -> (run folder, version or None for the latest)."""
    run, sep, version = spec.rpartition(":")
    if not sep or not version or "/" in version:
        run, version = spec, "latest"
    if version == "latest":
        return Path(run), None
    if not version.isdigit():
        raise ValueError(f"agent {spec!r}: the version after ':' must be a number or 'latest', e.g. {RUN_EXAMPLE}")
    return Path(run), int(version)


def is_run_spec(spec: str) -> bool:
    """Whether ``spec`` names a run folder (one with a config.toml), with or without a version."""
    run, _ = parse_run_spec(spec) if ":" in spec else (Path(spec), None)
    return (run / "config.toml").is_file()


class TrainedVersion(NamedTuple):
    """A run's version read back: its policy (ready to play), the run's config, the version and its agent-steps
    (None where only a pool snapshot holds the version, a snapshot being weights alone, or its state has none)."""

    policy: Policy
    config: TrainConfig
    version: int
    agent_steps: int | None


def load_trained_version(spec: str) -> TrainedVersion:
    """The version ``spec`` names (``RUN[:VERSION]``): its pool snapshot, else its checkpoint; the latest checkpoint
    if no version is given. Errors name what is missing and what exists."""
    run, version = parse_run_spec(spec)
    if not (run / "config.toml").is_file():
        raise ValueError(f"agent {spec!r}: {run} is not a run folder (no config.toml); give RUN:VERSION, e.g. "
                         f"{RUN_EXAMPLE}")  # a bot's name is build_agent's (check_agent), not a run's
    config = load_config(run / "config.toml", saved=True)
    snapshot = snapshot_path(run / "pool", version) if version is not None else None
    checkpoints = checkpoint_paths(run)
    if version is None:
        path = latest_checkpoint(run)
        weights, _, state = load_checkpoint(path)
        version = int(path.name)
    elif snapshot.is_file():
        weights = read_snapshot(snapshot, version)
        state = load_state(checkpoints[version]) if version in checkpoints else None
    elif version in checkpoints:
        weights, _, state = load_checkpoint(checkpoints[version])
    else:
        known = sorted(set(checkpoints) | {int(p.stem) for p in (run / "pool").glob("*.safetensors")})
        raise ValueError(f"agent {spec!r}: run {run} has no version {version}; versions stored: "
                         f"{', '.join(map(str, known)) or 'none'}")
    policy = Policy(config.policy, config.game.patch)
    policy.load_state_dict(weights)
    steps = None if state is None else state.get("agent_steps")
    return TrainedVersion(policy.eval(), config, version, None if steps is None else int(steps))


def load_run_policy(spec: str) -> tuple[Policy, TrainConfig, int]:
    """(policy, config, version) of a trained version (``load_trained_version``)."""
    policy, config, version, _ = load_trained_version(spec)
    return policy, config, version


# ====================================================================== the shipped model
def trained_files(root: Path | None = None) -> tuple[bytes, dict]:
    """The shipped 1v1 checkpoint (or the one in folder ``root``): its weights (safetensors bytes) and
    ``policy.json`` (config and provenance)."""
    folder = resources.files("fivestack.match") / "trained" if root is None else Path(root)
    return (folder / "model.safetensors").read_bytes(), json.loads((folder / "policy.json").read_text())


def load_trained_policy(root: Path | None = None) -> tuple[Policy, dict]:
    """The shipped policy (or the one in ``root``), ready to play, and its ``policy.json``. A missing or damaged
    file is one clear error."""
    from safetensors import SafetensorError
    from safetensors.torch import load as load_safetensors

    where = "the shipped checkpoint (fivestack/match/trained)" if root is None else f"checkpoint {root}"
    try:
        weights, info = trained_files(root)
        policy = Policy(PolicyConfig(**info["policy"]))
        policy.load_state_dict(load_safetensors(weights))
        int(info["decision_steps"])
    except CheckpointMismatch as e:  # weights of an older policy or another game: reinstalling will not help
        raise ValueError(f"{where} cannot be loaded: {e}; or play --against scripted") from None
    except (OSError, ValueError, KeyError, TypeError, RuntimeError, SafetensorError) as e:
        raise ValueError(f"{where} cannot be loaded ({type(e).__name__}: {str(e)[:160]}); "
                         "reinstall fivestack, or play --against scripted") from None
    return policy.eval(), info


TRAINED_GAME = {"move_goals": "its move orders would mean other places",
                "patch": "its inputs would have other columns and the game other rules than the ones it learnt"}
"""The ``GameConfig`` settings a trained policy dictates (it cannot play a game made otherwise), and why."""


def trained_game(agents) -> dict[str, str]:
    """The ``GameConfig`` settings (``TRAINED_GAME``: the move table and the patch) a game of these team agents
    must be made with: the ones the trained policies among them share; {} without one (a bot plays any game: it
    reads the game's table and rules). Policies trained on different games cannot meet: one clear error. A trained
    agent is one with these settings as attributes (``PolicyTeamAgent``, ``single_agent.LearnerTeamAgent``)."""
    policies = [a for a in agents if all(hasattr(a, name) for name in TRAINED_GAME)]
    settings = {}
    for name in TRAINED_GAME:
        values = {getattr(a, name) for a in policies}
        if len(values) > 1:
            raise ValueError(f"these policies were trained with different {name} ({', '.join(sorted(values))}): a "
                             f"game has one, so they cannot play each other")
        if values:
            settings[name] = values.pop()
    return settings


def trained_game_of(game) -> dict[str, str]:
    """The ``TRAINED_GAME`` settings of a run's ``[game]`` (or any object with those attributes): the game a policy
    of that run was trained on, as the keywords ``PolicyTeamAgent`` and ``match.games.evaluate`` take."""
    return {name: getattr(game, name) for name in TRAINED_GAME}


# ====================================================================== the resolver
def check_agent(spec: str) -> str:
    """``spec`` if it is a bot's name, ``trained`` or a run folder (``RUN:VERSION``), else one ``ValueError`` that
    says what is accepted. Nothing is loaded: a missing version is found by ``build_agent``."""
    if spec in BOTS or spec == TRAINED:
        return spec
    if ":" in spec or "/" in spec:
        parse_run_spec(spec)  # a malformed version is its own error
        if is_run_spec(spec):
            return spec
        raise ValueError(f"{spec!r} is not a run folder (no config.toml); give RUN:VERSION, e.g. {RUN_EXAMPLE}")
    raise ValueError(f"unknown agent {spec!r}; choose one of: {', '.join(sorted(BOTS))}, {TRAINED} (the shipped "
                     f"1v1 model), or RUN:VERSION (a trained version, e.g. {RUN_EXAMPLE})")


def build_agent(spec: str, team: int, seed: int = 0, mode: str = "5v5", greedy: bool = False,
                heroes: np.ndarray | None = None) -> TeamAgent:
    """The team agent ``spec`` names (see the module docstring) for ``team`` (0 Radiant, 1 Dire), seeded with
    ``seed``. A trained version decides every ``rollout.decision_steps`` timesteps, as its run trained it, and
    samples its actions unless ``greedy``; ``mode`` is the mode of the games it will play; ``heroes`` narrows the
    heroes a trained policy drives (``PolicyTeamAgent``; a bot drives its whole team)."""
    check_agent(spec)
    if spec == TRAINED:
        policy, info = load_trained_policy()
        shipped_game = {name: info[name] for name in TRAINED_GAME if name in info}  # absent: the paper's defaults
        return PolicyTeamAgent(team, policy, mode, seed, greedy, int(info["decision_steps"]), heroes, **shipped_game)
    if spec not in BOTS:
        policy, config, _ = load_run_policy(spec)
        return PolicyTeamAgent(team, policy, mode, seed, greedy, config.rollout.decision_steps, heroes,
                               **trained_game_of(config.game))
    if heroes is not None:
        raise ValueError(f"agent {spec!r} is a bot, which drives its whole team: it takes no heroes")
    try:
        return make_bot(spec, team, seed)
    except ImportError as e:
        raise AgentUnavailable(f"agent {spec!r} cannot be built in this installation ({e}); "
                               f"use another agent, e.g. --{TEAMS[team]} random") from None


__all__ = ["AgentUnavailable", "PolicyTeamAgent", "TEAMS", "TRAINED", "build_agent", "check_agent", "is_run_spec",
           "load_run_policy", "load_trained_policy", "parse_run_spec", "trained_files", "trained_game"]
