"""Hand-set game states for the rule tests (``test_rules_*.py``): one game, a few units placed by hand.

A rule test builds a game with ``new_game``, clears what would interfere with ``isolate`` (every hero not
named is taken out of the game, purchases stop, no creep wave is due for 30 s), puts units where it wants
them with ``place`` / ``spawn_creep``, and steps with explicit actions (``action``, ``run``). Every
position is around ``ARENA``, a spot on the river far from every building, camp, lane and rune, so that
only the units a test places can see, reach or hit each other.

The engine speaks in unit indices (heroes 0-4 Radiant, 5-9 Dire), and so do these helpers.

Casting: ``cast`` has a hero cast one of its abilities at a set level and checks the mana and cooldown the
patch's table gives; ``target`` / ``lost`` make a unit measurable and read what it lost; ``armor_factor`` and
``magical`` are the README's damage rules, computed by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fivestack.game import kernels
from fivestack.game.engine import GameBatch, GameConfig
from fivestack.game.layout import (
    A_ABILITY0, A_MOVE, ABILITY_CD, ABILITY_LEVEL, ACT_DELAY, ACT_OFFSET_X, ACT_OFFSET_Y, ACT_PRIMARY, ACT_TARGET,
    ACTIVE, ALIVE, ARMOR, ATTACK_READY, CELL, FRAMES_PER_SECOND, FRAMES_PER_STEP, G_FRAME, GOAL_X, GOAL_Y, GOLD, HP,
    HP_REGEN, INVALID_ACTIONS, K_CREEP_MELEE, K_CREEP_RANGED, K_CREEP_SIEGE, MANA, MANA_REGEN, N_ACTION_FIELDS,
    N_HEROES, SLOT_CREEPS, STUN, X, Y,
)
from fivestack.game.patch import HEROES, Ability, CK

G = 0  # every helper works on game 0 of a one-game batch
ARENA = (4000.0, 12000.0)  # on the river (x + y = 16000), > 2000 from every building, camp and rune
START_FRAME = 931  # 31 s in, by day; waves spawn when frame % 900 == 30, so none is due for 30 s
NEVER = 10**8  # frames: "not for the rest of the test" (an attack that never comes ready, a stun)

CREEP_KIND = {"melee": K_CREEP_MELEE, "ranged": K_CREEP_RANGED, "siege": K_CREEP_SIEGE}
MAGIC_RESISTANCE = 0.25  # README: every hero has 25% magic resistance


def new_game(mode: str = "5v5", seed: int = 0, radiant: tuple[str, ...] = (), dire: tuple[str, ...] = ()) -> GameBatch:
    """One game of ``mode``, reset with ``seed``. Lineups as ``GameConfig``'s: empty, hero i of each team is the
    patch's hero i."""
    game = GameBatch(1, GameConfig(mode=mode, radiant=radiant, dire=dire))
    game.reset(seed)
    return game


def hero_name(game: GameBatch, h: int) -> str:
    """The patch name of the hero in slot ``h`` of the game's lineups."""
    return game.patch.heroes[int(game.hero_types[G, h])].name


def isolate(game: GameBatch, *keep: int) -> None:
    """Take every hero not in ``keep`` out of the game, stop purchases and wind the clock to ``START_FRAME``.

    A benched hero is dead *and* inactive, so it neither respawns, sees, earns nor counts for experience.
    Kept heroes keep their stats but have no gold and an empty item build, so nothing is bought mid-test.
    """
    S = game.state
    S.gi[G, G_FRAME] = START_FRAME
    S.build_order[G] = -1
    for h in range(N_HEROES):
        S.hf[G, h, GOLD] = 0.0
        if h not in keep:
            S.ui[G, h, ALIVE] = 0
            S.hi[G, h, ACTIVE] = 0
            S.uf[G, h, HP] = 0.0


def place(game: GameBatch, u: int, dx: float, dy: float = 0.0) -> None:
    """Put unit ``u`` at ARENA + (dx, dy), standing still."""
    put(game, u, ARENA[0] + dx, ARENA[1] + dy)


def put(game: GameBatch, u: int, x: float, y: float) -> None:
    """Put unit ``u`` at (x, y) on the map, standing still."""
    S = game.state
    S.uf[G, u, X] = S.uf[G, u, GOAL_X] = x
    S.uf[G, u, Y] = S.uf[G, u, GOAL_Y] = y


def spawn_creep(game: GameBatch, team: int, kind: str = "melee", dx: float = 0.0, dy: float = 0.0,
                k: int = 0) -> int:
    """A lane creep of the patch's table in creep slot ``k``, at ARENA + (dx, dy), stunned for good so it
    neither walks its lane nor attacks. Returns its unit index."""
    u = SLOT_CREEPS + k
    kernels.set_unit(game.state, game.data, G, u, team, CREEP_KIND[kind], CK[kind],
                     ARENA[0] + dx, ARENA[1] + dy, 1.0)
    game.state.ui[G, u, STUN] = NEVER
    return u


def disarm(game: GameBatch, *units: int) -> None:
    """No auto-attacks from these units for the rest of the test (their next attack never comes ready)."""
    for u in units:
        game.state.uf[G, u, ATTACK_READY] = NEVER


def freeze(game: GameBatch, *units: int) -> None:
    """Stun these units for the rest of the test: they neither move nor attack."""
    for u in units:
        game.state.ui[G, u, STUN] = NEVER


def no_regen(game: GameBatch, *units: int) -> None:
    """Zero health and mana regeneration, so that health and mana change only by the rule under test."""
    for u in units:
        game.state.uf[G, u, HP_REGEN] = 0.0
        game.state.uf[G, u, MANA_REGEN] = 0.0


def see(game: GameBatch) -> None:
    """Recompute fog of war now (the engine does it at the end of each step) after units were moved."""
    kernels.update_vision(game.state, game.data, game.scratch, G)


def noop_actions() -> np.ndarray:
    actions = np.zeros((1, N_HEROES, N_ACTION_FIELDS), np.int64)
    actions[..., ACT_TARGET] = -1
    actions[..., ACT_OFFSET_X] = 4
    actions[..., ACT_OFFSET_Y] = 4
    return actions


def action(h: int, primary: int, target: int = -1, offset: tuple[int, int] = (4, 4), delay: int = 0,
           actions: np.ndarray | None = None) -> np.ndarray:
    """Actions where hero ``h`` takes ``primary`` (offsets are cells 0-8, 4 = none) and all others no-op."""
    actions = noop_actions() if actions is None else actions
    actions[G, h, ACT_PRIMARY] = primary
    actions[G, h, ACT_DELAY] = delay
    actions[G, h, ACT_TARGET] = target
    actions[G, h, ACT_OFFSET_X], actions[G, h, ACT_OFFSET_Y] = offset
    return actions


def run(game: GameBatch, steps: int = 1, actions: np.ndarray | None = None) -> None:
    """``steps`` timesteps: ``actions`` in the first, no-ops after."""
    for i in range(steps):
        game.step(actions if i == 0 and actions is not None else noop_actions())


def idle(game: GameBatch, steps: int) -> None:
    """``steps`` timesteps of no-ops, in a game that must still be running after them."""
    run(game, steps)
    assert game.done[G] == 0, "the game ended, so the clock stopped"


def steps_refused(game: GameBatch, h: int, limit: int = 200) -> int:
    """Order hero ``h`` to move every step: how many steps pass before an order is accepted (a stunned
    hero's orders are refused as invalid actions)."""
    S = game.state
    for n in range(limit):
        before = int(S.hi[G, h, INVALID_ACTIONS])
        run(game, 1, action(h, A_MOVE, offset=(2, 6)))
        if S.hi[G, h, INVALID_ACTIONS] == before:
            return n
    raise AssertionError(f"hero {h} still cannot act after {limit} steps")


def steps_for(seconds: float) -> int:
    """Timesteps that cover ``seconds`` of game time (rounded up)."""
    return math.ceil(seconds * FRAMES_PER_SECOND / FRAMES_PER_STEP - 1e-9)


def walkable(game: GameBatch, x: float, y: float) -> bool:
    """Whether (x, y) is open ground on the game's walkability grid."""
    return bool(game.data.walk[int(x / CELL), int(y / CELL)])


def ability(hero: str, name: str, heroes: tuple = HEROES) -> tuple[int, Ability]:
    """(slot 0-3, the patch's ability) of a hero's ability by name (among ``heroes``, the standard patch's)."""
    for h in heroes:
        if h.name == hero:
            for slot, ab in enumerate(h.abilities):
                if ab.name == name:
                    return slot, ab
    raise KeyError(f"{hero} has no ability {name!r}")


def at_level(base: float, per_level: float, level: int) -> float:
    """The README's rule for ability numbers: per-level changes apply from ability level 2 on."""
    return base + per_level * (level - 1)


# ---------------------------------------------------------------------------------------------- casting
def armor_factor(armor: float) -> float:
    """The share of physical damage that gets through ``armor`` (Dota's 1 - 0.06 a / (1 + 0.06 |a|))."""
    return 1.0 - 0.06 * armor / (1.0 + 0.06 * abs(armor))


def magical(amount: float) -> float:
    """Magical damage through a hero's magic resistance."""
    return amount * (1.0 - MAGIC_RESISTANCE)


def cast(game: GameBatch, h: int, name: str, level: int, target: int = -1, offset: tuple[int, int] = (4, 4)):
    """Hero ``h`` casts its ability ``name`` at ``level`` in the last frame of one step; checks that the
    cast went off, spending the patch's mana cost and setting its cooldown. Returns the patch's ability."""
    S = game.state
    slot, ab = ability(hero_name(game, h), name, game.patch.heroes)
    S.hi[G, h, ABILITY_LEVEL + slot] = level
    no_regen(game, h)
    mana = float(S.uf[G, h, MANA])
    invalid = int(S.hi[G, h, INVALID_ACTIONS])
    see(game)
    run(game, 1, action(h, A_ABILITY0 + slot, target, offset, delay=3))
    assert S.hi[G, h, INVALID_ACTIONS] == invalid, f"{name} was refused"
    assert S.uf[G, h, MANA] == pytest.approx(mana - at_level(ab.mana, ab.mana_per_level, level)), f"{name}'s mana"
    cooldown = at_level(ab.cooldown, ab.cooldown_per_level, level)
    assert S.hi[G, h, ABILITY_CD + slot] == round(cooldown * FRAMES_PER_SECOND), f"{name}'s cooldown"
    return ab


def target(game: GameBatch, u: int, armor: float = 5.0, hp: float | None = None) -> float:
    """Make unit ``u`` a measurable target (known armor, no regeneration); returns its health."""
    S = game.state
    no_regen(game, u)
    S.uf[G, u, ARMOR] = armor
    if hp is not None:
        S.uf[G, u, HP] = hp
    return float(S.uf[G, u, HP])


def lost(game: GameBatch, u: int, before: float) -> float:
    """Health unit ``u`` lost since it had ``before``."""
    return before - float(game.state.uf[G, u, HP])
