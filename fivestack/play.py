"""Play matches between two team agents: ``play_match("scripted", "random", n_games=4, seed=1)``.

The games run together in one ``BatchedEnv``; each game is played to its end (an ancient falls, a 1v1 is
decided, or the time limit truncates it). Game ``i`` gets the env seed ``seed + i``; the Radiant agent is built
with seed ``2 * seed`` and the Dire agent with ``2 * seed + 1``, so a match is a pure function of its
arguments. With ``replay`` set, every game is recorded (``fivestack.viewer.replay``) and saved.

Agents are named and built by ``fivestack.match.agents.build_agent`` (a bot or ``RUN:VERSION``) and the games
are played by its ``play_to_end``, the match loop the evaluator uses too.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np

from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import MODES, GameConfig
from fivestack.match.agents import TEAMS, AgentUnavailable, build_agent, check_agent, trained_game
from fivestack.match.games import Seat, play_to_end
from fivestack.viewer.replay import ReplayRecorder, game_summary


@dataclass
class GameResult:
    """One finished game: ``summary`` is exactly the replay's summary line (see ``fivestack.viewer.replay``)."""

    game_index: int
    seed: int
    summary: dict[str, Any]
    replay: Path | None = None

    @property
    def outcome(self) -> str:
        return self.summary["outcome"]

    @property
    def winner(self) -> str | None:
        return self.summary["winner"]

    @property
    def duration_minutes(self) -> float:
        return self.summary["duration_minutes"]

    @property
    def teams(self) -> dict[str, dict[str, int]]:
        return self.summary["teams"]


@dataclass
class MatchResult:
    radiant: str
    dire: str
    config: GameConfig
    seed: int
    games: list[GameResult] = field(default_factory=list)

    @property
    def wins(self) -> dict[str, int]:
        """Games won by each side, and games truncated by the time limit (no winner)."""
        out = {"radiant": 0, "dire": 0, "truncated": 0}
        for game in self.games:
            out[game.winner if game.winner else "truncated"] += 1
        return out


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of: {', '.join(sorted(MODES))}")
    return mode


def replay_paths(path: str | Path, n_games: int) -> list[Path]:
    """Where each game's replay goes: ``path`` for one game; ``NAME-<i>.npz`` next to it for several."""
    path = Path(path)
    if n_games == 1:
        return [path]
    name = path.name
    for suffix in (".replay.npz", ".npz", ".jsonl.gz", ".json.gz", ".gz"):
        if name.endswith(suffix):
            stem, ext = name[: -len(suffix)], suffix
            break
    else:
        stem, ext = name, ""
    return [path.with_name(f"{stem}-{i}{ext}") for i in range(n_games)]


def play_match(
    radiant: str = "scripted",
    dire: str = "random",
    n_games: int = 1,
    seed: int = 0,
    config: GameConfig | None = None,
    progress: Callable[[float], None] | None = None,
    replay: str | Path | None = None,
) -> MatchResult:
    """Play ``n_games`` games of ``radiant`` vs ``dire`` to their ends and return every game's result.

    ``progress(minutes)`` is called after every step with the game minutes played, averaged over the games
    (a finished game counts as its time limit), so it rises to ``config.max_seconds / 60`` at the end.
    ``replay``: save each game's replay there (see ``replay_paths``). If the match is interrupted
    (``KeyboardInterrupt``), the replays recorded so far are saved before the interrupt goes on.
    """
    config = config or GameConfig()
    if n_games < 1:
        raise ValueError(f"n_games must be at least 1, got {n_games}")
    check_agent(radiant)
    check_agent(dire)
    agents = (build_agent(radiant, 0, 2 * seed, config.mode), build_agent(dire, 1, 2 * seed + 1, config.mode))
    config = replace(config, **trained_game(agents))  # a trained policy's game: its moves and patch
    env = BatchedEnv(n_games, config)
    env.reset(seed)
    paths = replay_paths(replay, n_games) if replay is not None else []
    recorders = [ReplayRecorder(env, g, seed=seed + g, players={"radiant": radiant, "dire": dire}, agents=agents)
                 for g in range(len(paths))]
    limit = config.max_seconds

    def after_step(finished: np.ndarray) -> None:
        for recorder in recorders:
            recorder.record()
        if progress is not None:
            played = np.where(finished, limit, np.minimum(env.game.seconds, limit))
            progress(float(played.mean()) / 60.0)

    everyone = np.arange(n_games)
    try:
        played = play_to_end(env, [Seat(agents[0], 0, everyone), Seat(agents[1], 1, everyone)], after_step,
                             ask_finished_games=True)
    except KeyboardInterrupt:
        for recorder, path in zip(recorders, paths):
            recorder.save(path)
        raise
    result = MatchResult(radiant=radiant, dire=dire, config=config, seed=seed)
    for g in range(n_games):
        summary = game_summary(env.game, g)
        summary["timesteps"] = int(played.timesteps[g])
        path = None
        if recorders:
            assert recorders[g].n_steps == summary["timesteps"]
            path = recorders[g].save(paths[g])
        result.games.append(GameResult(game_index=g, seed=seed + g, summary=summary, replay=path))
    return result


__all__ = ["AgentUnavailable", "GameResult", "MatchResult", "TEAMS", "check_agent", "check_mode", "play_match",
           "replay_paths"]
