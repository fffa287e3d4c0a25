"""The scripted baseline team: a compiled rule-based player, the reference opponent for evaluation.

Each step, for every game at once, one Numba kernel decides the five heroes of one team in engine space
(targets are unit indices). It plays a plain Dota game plan:

* **laning**: stand behind the front friendly creep of the assigned lane (``hi[ASSIGNED_LANE]``), never
  inside the range of an enemy tower that no friendly creep tanks; last-hit enemy creeps and deny own
  creeps (below half health) whose health is below the hero's armour-adjusted attack damage; harass enemy
  heroes in range when the local fight is even or better;
* **retreating**: below ~30% health (or outnumbered below half health) walk back along the lane to the
  fountain, drink a poultice, town-portal home when far and safe; back to lane by town portal to the
  allied building nearest the goal when the walk is long;
* **abilities and items**: nukes and disables on enemy heroes in range, heals on hurt allies, area
  abilities where enemies cluster (heroes count triple), self buffs in a fight, stun and heal items;
* **pushing**: after ``PUSH_MINUTE`` or when ahead, all heroes group in one lane and push it with the
  creep wave: towers are hit while friendly creeps tank them (or when the group is strong enough to dive),
  then barracks, tier-4 towers and the ancient;
* **defending**: when enemies come near the own tier-3 towers, barracks or ancient, the nearest heroes go
  back (by town portal when far) and fight there: one more than the enemy heroes seen, one or two against
  creeps alone; a dead hero buys back to save the ancient from heroes.

The bot respects the fog of war (only enemy units with ``vis[g, team, u] != 0`` are considered; enemy
buildings' positions are map knowledge) and only issues available actions with valid targets, so its
invalid-action counter stays at zero. Per-hero memory (retreat state, pending casts) and per-game memory
(push lane) live in arrays owned by the ``ScriptedTeam``; a game whose frame counter goes back is treated
as a new game.

The package, in the order a step runs through it (each module's docstring says more):

* ``team`` -- ``ScriptedTeam``, the Python class: owns the memory and runs the team kernel on a ``GameBatch``;
* ``team_step`` -- ``scripted_team_act``, the per-step kernel: new-game memory, the team's plan (defend, push,
  lane), the glyph, the push lane and group cap, defenders and buybacks, then each hero's role;
* ``hero`` -- ``decide_hero``: one hero's step (retreat, items, abilities, then defend, push or lane);
* ``context`` -- what the team reads off the map: lane fronts, objectives, towers and creeps tanking them,
  the threatened base building;
* ``fights`` -- local fight values and enemy targets; ``casting`` -- abilities and items;
* ``farming`` -- last hits, denies and the laning creep plan;
* ``navigation`` -- walking along lanes, unsticking, town portals;
* ``actions`` -- writing actions (moves, orders on valid targets) and unit-kind predicates;
* ``memory`` -- the per-hero (``M_*``) and per-game (``MG_*``) memory layout and the bot's random stream;
* ``tuning`` -- the tunable constants, enemy building indices and the heroes' roles.

Imports flow one way, from ``tuning`` and ``memory`` up to ``team``; the kernels call kernels of sibling
modules directly.
"""

from fivestack.bots.scripted.farming import last_hit_target
from fivestack.bots.scripted.memory import (
    MG_ENGAGE, MG_FRAME, MG_LANE_BIAS, MG_PUSH_FRAME, MG_PUSH_LANE, MG_PUSH_SINCE, MG_RNG, M_CAST_FRAME, M_LAST_X,
    M_LAST_Y, M_RETREAT, M_RETREAT_HP, M_SPOT_JITTER, M_STUCK, M_UNSTICK, M_UNSTICK_DIR, N_MEM_G, N_MEM_H,
)
from fivestack.bots.scripted.team import ScriptedTeam
from fivestack.bots.scripted.team_step import scripted_team_act
from fivestack.bots.scripted.tuning import B_ANCIENT, B_BARRACKS0, B_FOUNTAIN, B_T4A, B_T4B

__all__ = [
    "ScriptedTeam", "scripted_team_act", "last_hit_target",
    "MG_ENGAGE", "MG_FRAME", "MG_LANE_BIAS", "MG_PUSH_FRAME", "MG_PUSH_LANE", "MG_PUSH_SINCE", "MG_RNG",
    "M_CAST_FRAME", "M_LAST_X", "M_LAST_Y", "M_RETREAT", "M_RETREAT_HP", "M_SPOT_JITTER", "M_STUCK", "M_UNSTICK",
    "M_UNSTICK_DIR", "N_MEM_G", "N_MEM_H",
    "B_ANCIENT", "B_BARRACKS0", "B_FOUNTAIN", "B_T4A", "B_T4B",
]
