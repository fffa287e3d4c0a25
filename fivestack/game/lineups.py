"""Lineups: which patch hero plays in each of a game's ten hero slots (Radiant 0-4, Dire 5-9).

A lineup is an int array of patch hero indices (``patch.heroes[i]``). ``fixed_lineup`` turns
``GameConfig.radiant``/``dire`` names into one; ``check_lineups`` validates lineups handed to
``GameBatch.reset``. In 1v1 only slots 0 and 5 play; the other slots repeat their side's hero (as the fixed
lineup always has), so a 1v1 lineup's slots 1-4 and 6-9 are ignored.
"""

from __future__ import annotations

import numpy as np

from fivestack.game.layout import HEROES_PER_TEAM, MODE_1V1_MID, N_HEROES
from fivestack.game.patch import Patch

ACTIVE_1V1 = (0, HEROES_PER_TEAM)  # the slots that play in 1v1


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


__all__ = ["ACTIVE_1V1", "check_lineups", "fixed_lineup"]
