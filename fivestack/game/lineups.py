"""Lineups: which patch hero plays in each of a game's ten hero slots (Radiant 0-4, Dire 5-9).

A lineup is an int array of patch hero indices (``patch.heroes[i]``). ``GameConfig.lineups`` picks a batch's
rule (``LINEUP_RULES``): "fixed" plays ``fixed_lineup`` (``GameConfig.radiant``/``dire`` names, or the patch's
first five on both sides) in every game; "random" draws each game's lineup from the patch's pool at every
reset (``random_lineups``: ten distinct heroes in 5v5, two in 1v1), a function of the game's seed alone.
``check_lineups`` validates lineups handed to ``GameBatch.reset``. In 1v1 only slots 0 and 5 play; the other
slots repeat their side's hero (as the fixed lineup always has), so a 1v1 lineup's slots 1-4 and 6-9 are ignored.
"""

from __future__ import annotations

import numpy as np

from fivestack.game.layout import HEROES_PER_TEAM, MODE_1V1_MID, N_HEROES
from fivestack.game.patch import Patch

ACTIVE_1V1 = (0, HEROES_PER_TEAM)  # the slots that play in 1v1
LINEUP_RULES = ("fixed", "random")
LINEUP_STREAM = 0x11E5  # the random lineup's own stream of a game's seed (the game's RNG is another)


def heroes_per_game(mode: int) -> int:
    """How many distinct heroes a game draws: 10 in 5v5, 2 in 1v1."""
    return len(ACTIVE_1V1) if mode == MODE_1V1_MID else N_HEROES


def check_pool(patch: Patch, mode: int) -> None:
    """Raise unless the patch has enough heroes for random lineups of ``mode``."""
    need = heroes_per_game(mode)
    if patch.n_heroes < need:
        raise ValueError(f'lineups = "random" draws {need} distinct heroes a game, but patch {patch.version} has '
                         f'{patch.n_heroes} ({", ".join(h.name for h in patch.heroes)}); use lineups = "fixed" '
                         "or a patch with more heroes")


def random_lineups(patch: Patch, mode: int, seeds) -> np.ndarray:
    """(len(seeds), 10) lineups drawn uniformly from the pool, one per seed and a function of it alone: in 5v5 a
    random ordering of ten distinct heroes (Radiant the first five), in 1v1 two distinct heroes (slot 0, slot 5,
    each repeated over its team's other slots)."""
    check_pool(patch, mode)
    need = heroes_per_game(mode)
    seeds = np.asarray(seeds, dtype=np.uint64).reshape(-1)
    out = np.empty((len(seeds), N_HEROES), np.int64)
    for i, seed in enumerate(seeds):
        drawn = np.random.default_rng([int(seed), LINEUP_STREAM]).permutation(patch.n_heroes)[:need]
        out[i] = np.repeat(drawn, HEROES_PER_TEAM) if mode == MODE_1V1_MID else drawn
    return out


def fixed_lineup(patch: Patch, mode: int, radiant: tuple[str, ...], dire: tuple[str, ...]) -> np.ndarray:
    """(10,) hero indices from hero names (case-insensitive); an empty team is the patch's first five."""
    names = [h.name.lower() for h in patch.heroes]
    lineup = np.zeros(N_HEROES, np.int64)
    for team, team_names in enumerate((radiant, dire)):
        team_names = tuple(team_names) or tuple(h.name for h in patch.heroes[:HEROES_PER_TEAM])
        if mode == MODE_1V1_MID:
            team_names = (team_names[0],) * HEROES_PER_TEAM
        if len(team_names) != HEROES_PER_TEAM:
            raise ValueError(f"a team needs {HEROES_PER_TEAM} heroes, got {len(team_names)}: {team_names}")
        for k, name in enumerate(team_names):
            if name.lower() not in names:
                raise ValueError(f"hero {name!r} is not in patch {patch.version}; heroes: "
                                 f"{[h.name for h in patch.heroes]}")
            lineup[team * HEROES_PER_TEAM + k] = names.index(name.lower())
    return lineup


def check_lineups(hero_types, n_games: int, patch: Patch, mode: int) -> np.ndarray:
    """``hero_types`` as an int64 (n_games, 10) array of hero indices, or one ValueError naming the problem.

    Every playing slot holds an index of ``patch.heroes``; in 5v5 no hero plays twice in a game. In 1v1 only
    slots 0 and 5 are read, and the returned array repeats them over their team's other slots.
    """
    arr = np.asarray(hero_types)
    expected = (n_games, N_HEROES)
    if arr.shape != expected:
        raise ValueError(f"hero_types must have shape {expected} = (games reset, 10 hero slots: Radiant 0-4, "
                         f"Dire 5-9); got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise ValueError(f"hero_types must hold integer hero indices (patch.heroes); got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    slots = list(ACTIVE_1V1) if mode == MODE_1V1_MID else list(range(N_HEROES))
    playing = arr[:, slots]
    bad = (playing < 0) | (playing >= patch.n_heroes)
    if bad.any():
        i, k = np.argwhere(bad)[0]
        raise ValueError(f"hero_types[{i}, {slots[k]}] = {playing[i, k]} is not a hero of patch {patch.version}; "
                         f"indices run 0..{patch.n_heroes - 1} ({', '.join(h.name for h in patch.heroes)})")
    if mode == MODE_1V1_MID:
        return np.repeat(playing, HEROES_PER_TEAM, axis=1)
    for i, row in enumerate(arr):
        if len(set(row.tolist())) != N_HEROES:
            twice = sorted({int(t) for t in row if (row == t).sum() > 1})
            raise ValueError(f"hero_types[{i}] = {row.tolist()} has {[patch.heroes[t].name for t in twice]} more than "
                             "once; in 5v5 a hero plays at most once per game")
    return arr


__all__ = ["ACTIVE_1V1", "LINEUP_RULES", "check_lineups", "check_pool", "fixed_lineup", "heroes_per_game",
           "random_lineups"]
