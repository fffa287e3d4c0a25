"""The observation and action layout: every group's shape and every feature's column, in one place.

Observations follow the paper's groups. Most of them are shared by a team and computed once per team
(leading axes ``(games, 2, ...)``); a few are per hero (``(games, 10, ...)``). A unit the team cannot see
is a row of zeros, so its ``seen`` column is 0 too.
"""

from __future__ import annotations

from fivestack.game.layout import N_DELAY, N_HEROES, N_ITEM_SLOTS, N_OFFSET, N_PRIMARY, N_UNIT_SLOTS
from fivestack.game.patch import PATCH_VERSION, observation_column, observation_columns

# ---------------------------------------------------------------- units: (games, 2, 189, 43)
# Slots 0-68 hold units 0-68 (heroes, buildings, couriers, neutrals) at fixed places; slots 69-188 hold the
# lane creeps the team sees in unit-index order (the order they spawned in), not nearest first; when it sees more
# than 120, the 120 nearest to a living allied hero are kept, still in unit-index order (obs_slots.select_slots).
U_SEEN = 0
U_KIND = 1  # 11 columns: one-hot of the unit kind (hero, melee, ranged, siege, tower, barracks, ancient,
# fountain, neutral, big neutral, courier)
U_ALLY = 12
U_ENEMY = 13
U_NEUTRAL = 14
U_X = 15  # x / 8000 - 1
U_Y = 16
U_FACING_COS = 17
U_FACING_SIN = 18
U_HP_FRAC = 19
U_HP = 20  # / 1000
U_HP_MAX = 21  # / 1000
U_MANA_FRAC = 22
U_HP_DELTA = 23  # 5 columns: health fraction now minus 1, 2, 4, 8 and 15 steps ago
U_DAMAGE = 28  # / 100
U_RANGE = 29  # / 1000
U_ATTACK_PERIOD = 30  # seconds
U_SPEED = 31  # / 500
U_VISION = 32  # / 2000
U_ARMOR = 33  # / 20
U_MAGIC_RES = 34
U_ATTACKING = 35
U_TARGET_IS_HERO = 36
U_STUNNED = 37
U_SILENCED = 38
U_SLOWED = 39
U_INVULNERABLE = 40  # glyph or tier protection
U_LEVEL = 41  # hero level / 25, tower tier / 4
U_LANE = 42  # (lane + 1) / 3, 0 for none
N_UNIT_FEATURES = 43
# patch 0.4's observation feature attack_ready (game.patch.FEATURES) adds one column, only to envs of a patch with it
# (``group_shapes``): the seconds until the unit's next attack may start, 0 when it is ready (0 without the bit)
U_ATTACK_READY = N_UNIT_FEATURES + observation_column("attack_ready")
# patch 0.7's hits_to_kill, the next column: the attacks of the team's hardest-hitting hero that the unit's
# health is worth after its armor, / 10, at most 1 (0.1 or less: one attack kills it; 0 without the bit)
U_HITS_TO_KILL = N_UNIT_FEATURES + observation_column("hits_to_kill")
HP_DELTA_LAGS = (1, 2, 4, 8, 15)
N_FIXED_SLOTS = 69  # slots that mirror unit indices

# ---------------------------------------------------------------- per-unit features relative to each hero
# (games, 10, 189, 4)
REL_DX = 0  # / 2000
REL_DY = 1  # / 2000
REL_DISTANCE = 2  # / 5000
REL_ATTACKS_ME = 3  # 1 if the unit is attacking this hero
N_UNIT_REL_FEATURES = 4

# ---------------------------------------------------------------- global: (games, 2, 22)
GL_TIME = 0  # minutes / 60
GL_DAY_SIN = 1
GL_DAY_COS = 2
GL_NIGHT = 3
GL_NEXT_WAVE = 4  # seconds / 30
GL_NEXT_RUNE = 5  # seconds / 120
GL_RUNE0 = 6
GL_RUNE1 = 7
GL_BIG_NEUTRAL_ALIVE = 8
GL_AEGIS_ON_GROUND = 9
GL_GLYPH_READY = 10
GL_GLYPH_COOLDOWN = 11  # seconds / 300
GL_OUR_KILLS = 12  # / 50
GL_THEIR_KILLS = 13
GL_OUR_TOWERS_LOST = 14  # / 11
GL_THEIR_TOWERS_LOST = 15
GL_OUR_BARRACKS_LOST = 16  # / 6
GL_THEIR_BARRACKS_LOST = 17
GL_OUR_ANCIENT_HP = 18
GL_THEIR_ANCIENT_HP = 19  # 0 unless seen
GL_ONE_VS_ONE = 20
GL_TIME_LEFT = 21  # fraction of the time limit left
N_GLOBAL = 22
# patch 0.3's observation feature creep_balance (game.patch.FEATURES) adds one column, only to envs of a patch with
# it (``group_shapes``): the team's living lane creeps minus the enemy lane creeps it sees, / 10 (0 without the bit)
GL_CREEP_BALANCE = N_GLOBAL

# ---------------------------------------------------------------- heroes: (games, 2, 10, 25), all ten heroes
HX_SEEN, HX_ALIVE, HX_LEVEL, HX_XP_FRAC, HX_GOLD, HX_NET_WORTH = 0, 1, 2, 3, 4, 5
HX_KILLS, HX_DEATHS, HX_ASSISTS, HX_LAST_HITS, HX_DENIES, HX_RESPAWN = 6, 7, 8, 9, 10, 11
HX_BUYBACK_READY, HX_BUYBACK_COST, HX_AEGIS, HX_STR, HX_AGI, HX_INT = 12, 13, 14, 15, 16, 17
HX_TELEPORTING, HX_DOUBLE_DAMAGE, HX_HASTE, HX_TYPE, HX_ENEMY, HX_HP_FRAC, HX_MANA_FRAC = 18, 19, 20, 21, 22, 23, 24
N_HERO_FEATURES = 25
# HX_TYPE is the hero's type / 16 as a float, kept so the column layout is unchanged; the hero's identity reaches the
# policy through ``hero_ids`` (below), the type as an integer the policy embeds (``Policy.hero_embed``)

# ---------------------------------------------------------------- allied heroes: (games, 2, 5, 16)
AX_LANE = 0  # 3 columns: one-hot assigned lane
AX_GOLD = 3
AX_BUYBACK_COOLDOWN = 4
AX_BUYBACK_COST = 5
AX_STASH = 6
AX_NEXT_ITEM_COST = 7
AX_NEXT_ITEM_AFFORDABLE = 8
AX_TP_READY = 9
AX_COURIER_COMING = 10
AX_DAMAGE_DEALT = 11
AX_X = 12
AX_Y = 13
AX_ALIVE = 14
AX_LANE_DISTANCE = 15
N_ALLIED_FEATURES = 16

# ---------------------------------------------------------------- modifiers: (games, 2, 10, 10, 2)
MODIFIERS = ("stun", "silence", "slow", "damage_over_time", "buff", "regeneration", "invulnerable",
             "double_damage", "haste", "aegis")
N_MODIFIERS = len(MODIFIERS)
N_MODIFIER_FEATURES = 2  # active, seconds left / 10

# ---------------------------------------------------------------- items: (games, 2, 10, 9, 13) + ids
IF_PRESENT, IF_INVENTORY, IF_COST, IF_CHARGES, IF_COOLDOWN, IF_READY, IF_ACTIVE = 0, 1, 2, 3, 4, 5, 6
IF_TARGET = 7  # 3 columns: one-hot no target / point / unit
IF_ATTRIBUTES, IF_DAMAGE, IF_ARMOR = 10, 11, 12
N_ITEM_FEATURES = 13

# ---------------------------------------------------------------- abilities: (games, 2, 10, 4, 7) + ids
AF_LEVEL, AF_READY, AF_COOLDOWN, AF_MANA, AF_TARGET, AF_ULTIMATE, AF_RANGE = 0, 1, 2, 3, 4, 5, 6
N_ABILITY_FEATURES = 7

# ---------------------------------------------------------------- pickups: (games, 2, 3, 8): two rune spots, the aegis
PK_PRESENT = 0
PK_KIND = 1  # 5 columns: bounty, double damage, haste, regeneration, aegis
PK_X = 6
PK_Y = 7
N_PICKUPS = 3
N_PICKUP_FEATURES = 8

# ---------------------------------------------------------------- minimap: (games, 2, 10, 10, 9), 1600-unit cells
MINIMAP = 10
MM_CHANNELS = ("ally_heroes", "enemy_heroes", "ally_creeps", "enemy_creeps", "ally_buildings", "enemy_buildings",
               "neutrals", "vision", "walkable")
N_MINIMAP_CHANNELS = len(MM_CHANNELS)

# ---------------------------------------------------------------- nearby map: (games, 10, 8, 8, 6), 256-unit cells
NEARBY = 8
NEARBY_CELL = 256.0
NB_CHANNELS = ("walkable", "river", "allies", "enemies", "creeps", "buildings")
N_NEARBY_CHANNELS = len(NB_CHANNELS)

N_PREVIOUS_ACTION = 5  # primary / 20, delay / 3, target slot / 189, offset x / 8, offset y / 8

TEAM_GROUPS = {
    "global": (N_GLOBAL,),
    "units": (N_UNIT_SLOTS, N_UNIT_FEATURES),
    "heroes": (N_HEROES, N_HERO_FEATURES),
    "allied_heroes": (5, N_ALLIED_FEATURES),
    "modifiers": (N_HEROES, N_MODIFIERS, N_MODIFIER_FEATURES),
    "items": (N_HEROES, N_ITEM_SLOTS, N_ITEM_FEATURES),
    "abilities": (N_HEROES, 4, N_ABILITY_FEATURES),
    "pickups": (N_PICKUPS, N_PICKUP_FEATURES),
    "minimap": (MINIMAP, MINIMAP, N_MINIMAP_CHANNELS),
}
TEAM_INT_GROUPS = {
    "item_ids": (N_HEROES, N_ITEM_SLOTS),  # -1 empty or unseen; else the item's row of the patch's items
    "ability_ids": (N_HEROES, 4),  # -1 unseen; else the ability's row of the patch's ability table
    "hero_ids": (N_HEROES,),  # every hero in the game, seen or not (the lineups are public): its type, its row of
    # the patch's heroes (patch.heroes); -1 for an absent hero (1v1)
}
HERO_GROUPS = {
    "unit_rel": (N_UNIT_SLOTS, N_UNIT_REL_FEATURES),
    "nearby_map": (NEARBY, NEARBY, N_NEARBY_CHANNELS),
    "previous_action": (N_PREVIOUS_ACTION,),
}
HERO_INT_GROUPS = {
    "own_hero_id": (),  # the type (row of patch.heroes) of the hero this observation is for: who it plays
}
HERO_MASK_GROUPS = {
    "primary_mask": (N_PRIMARY,),  # which primary actions are available
    "target_mask": (N_PRIMARY, N_UNIT_SLOTS),  # per primary action, which unit slots are valid targets
    "offset_mask": (N_PRIMARY,),  # which primary actions use the offset x/y parameters
}
ACTION_NVEC = (N_PRIMARY, N_DELAY, N_UNIT_SLOTS, N_OFFSET, N_OFFSET)
# team groups whose first axis is the ten heroes of the game (a team sees at most the heroes in play)
EVERY_HERO_GROUPS = ("heroes", "modifiers", "items", "abilities", "item_ids", "ability_ids", "hero_ids")


def group_shapes(patch: str = PATCH_VERSION) -> tuple[dict[str, tuple[int, ...]], dict[str, tuple[int, ...]]]:
    """``(TEAM_GROUPS, HERO_GROUPS)`` as an env of patch version ``patch`` fills them: its observation features
    (``game.patch.observation_columns``) widen their groups' last axis by one column each."""
    extra = observation_columns(patch)
    widen = lambda groups: {n: (*s[:-1], s[-1] + extra.get(n, 0)) for n, s in groups.items()}  # noqa: E731
    return widen(TEAM_GROUPS), widen(HERO_GROUPS)

__all__ = [name for name in dir() if name.isupper()] + ["group_shapes"]
