"""Recording a bot's play for cloning: batched games in which one side (or both) is the teacher bot and every
decision of its seats is recorded as the policy would see and take it.

Each game slot has a fixed opponent (``clone.opponents``, in turn) and a fixed teacher side (alternating), or
two teacher seats when the opponent is the teacher bot itself; a *stream* is one recorded seat, played game
after game. The recorded seats decide as the policy does, every ``rollout.decision_steps`` timesteps, keeping
their orders in between; the opponent bots act at every timestep, as the training opponents do
(``fivestack.system.rollout``). With ``inference`` (DAgger), the clone plays the recorded seats (sampling its
actions, its LSTM state carried per stream) and the teacher bot only labels them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fivestack.bots.agents import make_bot
from fivestack.env.batched import BatchedEnv
from fivestack.game.engine import no_orders
from fivestack.game.layout import HEROES_PER_TEAM, N_ACTION_FIELDS, N_HEROES
from fivestack.system.clone.shards import Shard
from fivestack.runs.config import TrainConfig
from fivestack.match.inference import initial_state
from fivestack.match.inference import InferenceRequest
from fivestack.system.rollout_hooks import bot_row_actions
from fivestack.match.teams import active_heroes, team_view


@dataclass
class Seat:
    game: int
    side: int
    held_out: bool  # a validation stream: its games never reach training


def seats(n_games: int, opponents: tuple[str, ...], teacher: str, valid_every: int) -> tuple[list[Seat], list[str]]:
    """The recorded seats of ``n_games`` slots and each slot's opponent: slot g meets ``opponents[g % n]``; the
    teacher sits on side ``(g // n) % 2`` (both sides when the opponent is the teacher); every ``valid_every``-th
    seat is held out."""
    opponent_of = [opponents[g % len(opponents)] for g in range(n_games)]
    places = [(g, side) for g, opponent in enumerate(opponent_of)
              for side in ((0, 1) if opponent == teacher else ((g // len(opponents)) % 2,))]
    if valid_every > 0:
        if len(places) < 2:
            raise ValueError(f"clone.games = {n_games} records {len(places)} seat: holding one out leaves none to "
                             f"train on; raise clone.games or set clone.validation_share=0")
        valid_every = min(valid_every, len(places))  # at least one held-out seat
    return [Seat(g, side, held_out=valid_every > 0 and i % valid_every == valid_every - 1)
            for i, (g, side) in enumerate(places)], opponent_of


class CloneRecorder:
    """Plays ``clone.games`` games and returns ``steps`` decisions of every recorded seat at a time
    (``record``), split into training and held-out streams."""

    def __init__(self, config: TrainConfig, seed: int, inference=None):
        c = config.clone
        self.config = config
        self.teacher = c.bot
        self.inference = inference
        self.n_games = c.games
        game = config.game.game_config()
        self.env = BatchedEnv(self.n_games, game)
        self.heroes = active_heroes(config.game.mode)
        self.k = self.heroes.shape[1]
        self.decision_steps = config.rollout.decision_steps
        valid_every = round(1 / c.validation_share) if c.validation_share > 0 else 0
        self.seats, opponent_of = seats(self.n_games, tuple(c.opponents), c.bot, valid_every)
        self.rows = np.array([2 * s.game + s.side for s in self.seats])  # each stream's team row
        self.held_out = np.array([s.held_out for s in self.seats])
        self.hero_slots = self.heroes[[s.side for s in self.seats]].astype(np.int64)  # (streams, K)
        # one agent per (bot, side) in play: a bot acts for every game at once, the caller keeps its rows
        names = sorted(set(opponent_of) | {c.bot})
        self.agents = {(name, side): make_bot(name, side, seed + 7919 * i + side)
                       for i, name in enumerate(names) for side in (0, 1)}
        self.recorded = np.zeros((self.n_games, 2), bool)
        self.recorded[[s.game for s in self.seats], [s.side for s in self.seats]] = True
        self.opponent_of = opponent_of
        self.next_seed = int(seed) * 1_000_003 + 17
        self.env.reset(self._take_seeds(self.n_games))
        self.first = np.ones(len(self.seats), np.uint8)
        self.state = initial_state(len(self.seats) * self.k, config.policy.lstm_size) if inference else None
        self.results: list[dict] = []  # games finished since the last ``take_results``: opponent, side, winner

    def _take_seeds(self, n: int) -> np.ndarray:
        seeds = np.arange(self.next_seed, self.next_seed + n, dtype=np.uint64)
        self.next_seed += n
        return seeds

    def _opponent_actions(self) -> np.ndarray:
        """(games, 10, 5) env actions: every opponent bot's (they act at each timestep), no-ops (orders kept) for
        the recorded seats, whose decisions the caller fills in."""
        out = no_orders(self.n_games, N_HEROES)  # every hero keeps its order
        for side in (0, 1):
            cols = slice(side * HEROES_PER_TEAM, (side + 1) * HEROES_PER_TEAM)
            for name in set(self.opponent_of):
                games = np.flatnonzero((np.array(self.opponent_of) == name) & ~self.recorded[:, side])
                if games.size:
                    out[games, cols] = self.agents[(name, side)].act(self.env)[games]
        return out

    def _labels(self) -> np.ndarray:
        """(streams, K, 5) the teacher bot's action for every recorded seat now."""
        teachers = [self.agents[(self.teacher, side)] for side in (0, 1)]
        return bot_row_actions(teachers, self.env, self.rows, self.heroes)

    def record(self, steps: int) -> Shard:
        """Play ``steps`` decisions; every stream's observations, labels, actions and game starts."""
        r = len(self.seats)
        obs: dict[str, np.ndarray] | None = None
        labels = np.empty((steps, r, self.k, N_ACTION_FIELDS), np.int64)
        actions = np.empty_like(labels)
        first = np.empty((steps, r), np.uint8)
        for i in range(steps):
            view = team_view(self.env.obs, self.heroes)
            mine = {name: arr[self.rows] for name, arr in view.items()}
            if obs is None:
                obs = {name: np.empty((steps, *arr.shape), arr.dtype) for name, arr in mine.items()}
            for name, arr in mine.items():
                obs[name][i] = arr
            labels[i] = self._labels()
            first[i] = self.first
            if self.inference is None:
                actions[i] = labels[i]
            else:
                result = self.inference(InferenceRequest(mine, self.hero_slots, self.state,
                                                         self.first.astype(np.float32)))
                actions[i], self.state = result.actions, result.state
            self._play_decision(actions[i])
        return Shard(obs, labels, actions, first, self.hero_slots.copy())

    def _play_decision(self, actions: np.ndarray) -> None:
        """The recorded seats' actions, then ``decision_steps - 1`` timesteps of kept orders; the opponent bots
        act at every timestep. Games that ended are restarted afterwards, their streams' ``first`` set."""
        ended = np.zeros(self.n_games, bool)
        winners = np.full(self.n_games, -1)
        for step in range(self.decision_steps):
            env_actions = self._opponent_actions()
            if step == 0:
                games, sides = self.rows // 2, self.rows % 2
                slots = self.heroes[sides]  # (streams, K)
                env_actions[games[:, None], slots] = actions
            _, _, term, trunc, info = self.env.step(env_actions, observe=step == self.decision_steps - 1)
            done = (term | trunc) & ~ended
            winners[done] = info["winner"][done]
            ended |= done
        self.first[:] = 0
        if ended.any():
            games = np.flatnonzero(ended)
            for g in games:
                for side in np.flatnonzero(self.recorded[g]):
                    self.results.append({"opponent": self.opponent_of[g], "side": int(side),
                                         "winner": int(winners[g])})
            self.env.reset_games(games, self._take_seeds(games.size))
            self.first[np.isin(self.rows // 2, games)] = 1

    def take_results(self) -> list[dict]:
        out, self.results = self.results, []
        return out
