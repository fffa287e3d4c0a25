"""Game data, versioned as a *patch*: heroes, abilities, items, creeps and buildings.

The engine reads only the numpy tables built here (``Patch.hero_table``, ``Patch.ability_table``, ...), so
balance changes never touch the kernels. Names are original; mechanics echo Dota's.

Map of this file:

* ``table_columns`` / ``table_row``: a table's columns are the numeric fields of its dataclass, in
  declaration order (a tuple field such as a hero's ``attributes`` spreads over the sub-columns named once in
  ``HERO_COMPOSITES``; names, descriptions and builds stay out). Adding a field therefore moves the columns
  and their constants together.
* the dataclasses and their data: ``Ability``, ``Hero`` (``HEROES``: in ``game.heroes``, re-exported), ``Item`` (``ITEMS``), ``Creep``
  (``CREEPS``: lane creeps, buildings, neutrals, courier) and ``Rules``.
* the column constants the kernels index with (``H_*``, ``AB_*``, ``I_*``, ``C_*``, ``R_*``) and the creep
  table's rows (``CR_*``, ``CK``): each derived from the column lists, none typed by hand. They are plain
  ints at import time, so Numba folds them into the kernels as constants.
* ``Patch``: builds the float64 tables; ``check_columns`` proves every named column of every table holds
  the attribute it names (run for every ``Patch`` built and when ``game.engine`` is imported).
* patch versions: ``FEATURES`` (a rule a game can switch on by itself, one bit each of a game's feature mask,
  ``Data.features[g]``) and ``PATCHES`` (each version: the features every game of it plays with). A version
  adds features on top of the tables, which stay the same, so games of several versions share one batch.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, field, fields
from functools import lru_cache

import numpy as np

from fivestack.game.heroes import HEROES, Ability, Hero
from fivestack.game.layout import T_NONE, T_POINT, T_UNIT

PATCH_VERSION = "1.0"  # the default game, the one every benchmark measures (1.0: the lane as Dota plays it)

# what an item's active does (the item table's ``active`` column)
ACT_NONE, ACT_HEAL_OVER_TIME, ACT_MANA_OVER_TIME, ACT_TELEPORT, ACT_BLINK, ACT_STUN, ACT_AREA_HEAL = 0, 1, 2, 3, 4, 5, 6


# ---------------------------------------------------------------- tables from dataclasses
NUMERIC_TYPES = (int, float, bool)


class PatchTableError(ValueError):
    """A patch table's column does not hold the dataclass attribute its name says."""


def column_sources(cls, composite: dict[str, tuple[str, ...]] | None = None) -> tuple[tuple[str, str, int], ...]:
    """``(column, field, k)`` for each table column of dataclass ``cls``, in field declaration order.

    A numeric field (int, float, bool) is one column named after it (``k = -1``); a field named in
    ``composite`` is a tuple spread over the columns ``composite[field]`` (``k`` = its index in the tuple);
    every other field (names, descriptions, builds) is not in the table.
    """
    return _column_sources(cls, tuple(sorted((composite or {}).items())))


@lru_cache(maxsize=None)
def _column_sources(cls, composite_items: tuple[tuple[str, tuple[str, ...]], ...]):
    composite = dict(composite_items)
    hints = typing.get_type_hints(cls)
    sources = []
    for f in fields(cls):
        if f.name in composite:
            sources += [(column, f.name, k) for k, column in enumerate(composite[f.name])]
        elif hints[f.name] in NUMERIC_TYPES:
            sources.append((f.name, f.name, -1))
    return tuple(sources)


def table_columns(cls, composite: dict[str, tuple[str, ...]] | None = None) -> tuple[str, ...]:
    """The column names of the table of dataclass ``cls`` (see ``column_sources``)."""
    return tuple(column for column, _, _ in column_sources(cls, composite))


def table_row(record, composite: dict[str, tuple[str, ...]] | None = None, **replace) -> list[float]:
    """``record``'s table row: its column values in ``table_columns`` order. ``replace`` gives a field's value
    when the table stores something else than the attribute (a hero's ability *ids*, not the abilities)."""
    row = []
    for _, name, k in column_sources(type(record), composite):
        value = replace[name] if name in replace else getattr(record, name)
        if k == 0 and len(value) != len(composite[name]):
            raise PatchTableError(f"{type(record).__name__} {getattr(record, 'name', '')!r}: {name} has "
                                  f"{len(value)} entries, but its table columns are {composite[name]}")
        row.append(float(value if k < 0 else value[k]))
    return row


@dataclass(frozen=True)
class Item:
    name: str
    cost: float
    strength: float = 0.0
    agility: float = 0.0
    intelligence: float = 0.0
    damage: float = 0.0
    armor: float = 0.0
    hp: float = 0.0
    mana: float = 0.0
    hp_regen: float = 0.0
    mana_regen: float = 0.0
    speed: float = 0.0  # flat move speed
    active: int = ACT_NONE  # ACT_NONE: passive, else one of ACT_*
    target: int = T_NONE  # target type of the active
    cast_range: float = 0.0
    amount: float = 0.0  # heal / restore / damage of the active
    duration: float = 0.0
    cooldown: float = 0.0  # seconds
    charges: int = 0  # 0: not consumable
    description: str = ""


ITEMS: tuple[Item, ...] = (
    Item("waystone", 90, active=ACT_TELEPORT, target=T_UNIT, cooldown=60, charges=1,
         description="town-portal scroll: after 3 s, teleport next to an allied building"),
    Item("poultice", 110, active=ACT_HEAL_OVER_TIME, target=T_NONE, amount=400, duration=10, charges=1,
         description="heal 400 over 10 s"),
    Item("clear_draught", 50, active=ACT_MANA_OVER_TIME, target=T_NONE, amount=150, duration=20, charges=1,
         description="restore 150 mana over 20 s"),
    Item("twig", 50, strength=1, agility=1, intelligence=1),
    Item("circlet", 155, strength=2, agility=2, intelligence=2),
    Item("bracers", 140, strength=3),
    Item("slippers", 140, agility=3),
    Item("mantle", 140, intelligence=3),
    Item("ring_guard", 175, armor=2),
    Item("fang", 450, damage=9),
    Item("cleaver", 1000, damage=15),
    Item("war_blade", 1400, damage=24),
    Item("chain_vest", 550, armor=4),
    Item("plate", 1400, armor=10),
    Item("striders", 500, speed=45),
    Item("vital_core", 1000, hp=250),
    Item("mana_core", 800, mana=250),
    Item("troll_girdle", 700, hp_regen=5),
    Item("wellspring", 700, mana_regen=2.0),
    Item("giant_belt", 1000, strength=10),
    Item("swift_blade", 1000, agility=10),
    Item("sage_staff", 1000, intelligence=10),
    Item("blink_charm", 2250, active=ACT_BLINK, target=T_POINT, cast_range=1200, cooldown=12,
         description="teleport to a point up to 1200 away"),
    Item("stun_maul", 2000, damage=10, strength=5, active=ACT_STUN, target=T_UNIT, cast_range=250, amount=1.5,
         cooldown=25, description="stun one enemy for 1.5 s"),
    Item("mending_charm", 1800, armor=3, active=ACT_AREA_HEAL, target=T_NONE, cast_range=900, amount=250,
         cooldown=40, description="heal allies within 900 by 250"),
)
ITEM_INDEX = {item.name: i for i, item in enumerate(ITEMS)}


@dataclass(frozen=True)
class Creep:
    """Stats of a lane creep, building, neutral or courier: one row of the creep table."""

    hp: float
    damage: float
    attack_range: float
    attack_time: float  # seconds between attacks
    speed: float  # 0: does not move
    armor: float
    projectile_speed: float  # 0: melee (or does not attack)
    gold: float  # bounty
    xp: float
    vision: float  # day vision


CREEPS = {
    "melee": Creep(550, 21, 100, 1.0, 325, 2, 0, 40, 57, 1200),
    "ranged": Creep(300, 24, 500, 1.0, 325, 0, 900, 50, 69, 1200),
    "siege": Creep(850, 40, 690, 2.7, 325, 0, 1100, 70, 88, 1200),
    "super_melee": Creep(700, 36, 100, 1.0, 325, 3, 0, 20, 25, 1200),
    "super_ranged": Creep(475, 40, 500, 1.0, 325, 1, 900, 20, 25, 1200),
    "tier1": Creep(1800, 100, 700, 0.9, 0, 12, 750, 120, 0, 1900),
    "tier2": Creep(2000, 120, 700, 0.9, 0, 14, 750, 150, 0, 1900),
    "tier3": Creep(2200, 140, 700, 0.9, 0, 16, 750, 180, 0, 1900),
    "tier4": Creep(2300, 140, 700, 0.9, 0, 18, 750, 200, 0, 1900),
    "barracks_melee": Creep(2200, 0, 0, 1.0, 0, 12, 0, 150, 0, 900),
    "barracks_ranged": Creep(1300, 0, 0, 1.0, 0, 8, 0, 100, 0, 900),
    "ancient": Creep(4500, 0, 0, 1.0, 0, 15, 0, 0, 0, 1200),
    "fountain": Creep(1000, 250, 1200, 0.2, 0, 99, 1500, 0, 0, 1800),
    "neutral": Creep(450, 24, 100, 1.2, 300, 2, 0, 45, 60, 800),
    "big_neutral": Creep(5500, 75, 150, 1.1, 300, 20, 0, 250, 400, 800),
    "courier": Creep(120, 0, 0, 1.0, 380, 0, 0, 100, 0, 700),
}
CREEP_KINDS = tuple(CREEPS)
CK = {name: i for i, name in enumerate(CREEP_KINDS)}  # row of each creep/building kind in creep_table


@dataclass(frozen=True)
class Rules:
    """Rule constants of a patch (seconds, gold, XP, distances)."""

    wave_interval: float = 30.0
    melee_per_wave: int = 3
    ranged_per_wave: int = 1
    siege_every: int = 5
    creep_upgrade_interval: float = 450.0  # lane creeps gain hp and damage every 7.5 minutes
    creep_upgrade: float = 0.05
    camp_respawn: float = 60.0
    big_neutral_respawn: float = 480.0
    aegis_duration: float = 300.0
    rune_interval: float = 120.0
    day_night_cycle: float = 300.0  # a full day and night
    start_gold: float = 600.0
    passive_gold: float = 1.5  # per second
    kill_gold: float = 150.0
    kill_gold_per_level: float = 8.0
    assist_gold: float = 60.0
    kill_xp: float = 100.0
    kill_xp_per_level: float = 30.0
    xp_radius: float = 1300.0
    respawn_base: float = 4.0
    respawn_per_level: float = 2.0
    buyback_base: float = 150.0
    buyback_per_level: float = 25.0
    buyback_cooldown: float = 300.0
    glyph_cooldown: float = 300.0
    glyph_duration: float = 5.0
    fountain_regen: float = 0.05  # fraction of max hp and mana per second
    teleport_time: float = 3.0
    bounty_rune_gold: float = 100.0
    courier_respawn: float = 60.0
    creep_vs_building: float = 0.25  # lane creeps' attacks on buildings (Dota's structure armor type)
    siege_vs_building: float = 1.0
    rich_creeps_bounty: float = 1.25  # feature "rich_creeps" (patch 0.2): lane creeps' last-hit gold x this
    # Feature "dota_lane" (patch 1.0): lane creeps' and towers' targets as Dota's (game.kernels.aggro). Sources: the
    # Dota 2 wiki's and players' aggro guides (500 aggro radius, 2.3 s of aggro, 3 s trigger cooldown, the pick order)
    # and DotA's AI notes (600 call-for-help range, "out of acquisition range for some time"); the re-pick period
    # and the leash time are not public: chosen here.
    creep_aggro_radius: float = 500.0  # a hero's attack on a hero draws its victim's lane creeps this close to it
    creep_aggro_time: float = 2.3  # seconds the drawn creeps keep the attacker before they pick again
    creep_aggro_cooldown: float = 3.0  # seconds before the same hero's attack on a hero draws creeps again
    creep_repick: float = 1.0  # seconds between a busy lane creep's re-picks (chosen: Dota's period is not public)
    creep_leash: float = 2.0  # seconds a lane creep's target may stay beyond its acquisition range before it is dropped
    call_for_help_radius: float = 600.0  # an idle lane creep answers an attack on an ally this close to it
    # Domain randomisation (``GameConfig.randomise``, training games only), each drawn uniformly per game:
    random_health_min: float = 0.5  # a hero starts with a fraction in [this, 1] of its max health
    random_mana_min: float = 0.5  # ... and of its max mana
    random_gold_min: float = 0.5  # ... and start_gold x a factor in [min, max]: 300-900 gold
    random_gold_max: float = 1.5
    random_big_neutral_health_min: float = 0.25  # the big neutral (re)spawns with a fraction in [this, 1]

    def vector(self) -> np.ndarray:
        return np.array(table_row(self), dtype=np.float64)


# ---------------------------------------------------------------- table columns (all derived)
# A hero's tuple fields, spread over named columns; the ``abilities`` columns hold ids into the ability table.
HERO_COMPOSITES = {
    "attributes": ("strength", "agility", "intelligence"),
    "gains": ("strength_gain", "agility_gain", "intelligence_gain"),
    "abilities": ("ability0", "ability1", "ability2", "ability3"),
}
HERO_COLUMNS = table_columns(Hero, HERO_COMPOSITES)
ABILITY_COLUMNS = table_columns(Ability)
ITEM_COLUMNS = table_columns(Item)
CREEP_COLUMNS = table_columns(Creep)
RULE_COLUMNS = table_columns(Rules)

H_PRIMARY = HERO_COLUMNS.index("primary")  # 0 STR, 1 AGI, 2 INT
H_STR = HERO_COLUMNS.index("strength")
H_AGI = HERO_COLUMNS.index("agility")
H_INT = HERO_COLUMNS.index("intelligence")
H_STR_GAIN = HERO_COLUMNS.index("strength_gain")
H_AGI_GAIN = HERO_COLUMNS.index("agility_gain")
H_INT_GAIN = HERO_COLUMNS.index("intelligence_gain")
H_DAMAGE = HERO_COLUMNS.index("damage")
H_RANGE = HERO_COLUMNS.index("attack_range")
H_ATTACK_TIME = HERO_COLUMNS.index("attack_time")
H_SPEED = HERO_COLUMNS.index("speed")
H_ARMOR = HERO_COLUMNS.index("armor")
H_PROJ_SPEED = HERO_COLUMNS.index("projectile_speed")
H_ABILITY0 = HERO_COLUMNS.index("ability0")  # the 4 ability ids are H_ABILITY0 + slot

AB_TARGET = ABILITY_COLUMNS.index("target")
AB_AFFECTS = ABILITY_COLUMNS.index("affects")
AB_RANGE = ABILITY_COLUMNS.index("cast_range")
AB_RADIUS = ABILITY_COLUMNS.index("radius")
AB_DAMAGE = ABILITY_COLUMNS.index("damage")
AB_DAMAGE_LVL = ABILITY_COLUMNS.index("damage_per_level")
AB_DAMAGE_TYPE = ABILITY_COLUMNS.index("damage_type")
AB_STUN = ABILITY_COLUMNS.index("stun")
AB_SLOW = ABILITY_COLUMNS.index("slow")
AB_SLOW_TIME = ABILITY_COLUMNS.index("slow_time")
AB_SILENCE = ABILITY_COLUMNS.index("silence")
AB_DOT = ABILITY_COLUMNS.index("dot")
AB_DOT_TIME = ABILITY_COLUMNS.index("dot_time")
AB_HEAL = ABILITY_COLUMNS.index("heal")
AB_HEAL_LVL = ABILITY_COLUMNS.index("heal_per_level")
AB_BUFF_ARMOR = ABILITY_COLUMNS.index("buff_armor")
AB_BUFF_DAMAGE = ABILITY_COLUMNS.index("buff_damage")
AB_BUFF_SPEED = ABILITY_COLUMNS.index("buff_speed")
AB_BUFF_TIME = ABILITY_COLUMNS.index("buff_time")
AB_PROJ_SPEED = ABILITY_COLUMNS.index("projectile_speed")
AB_MANA = ABILITY_COLUMNS.index("mana")
AB_MANA_LVL = ABILITY_COLUMNS.index("mana_per_level")
AB_COOLDOWN = ABILITY_COLUMNS.index("cooldown")
AB_COOLDOWN_LVL = ABILITY_COLUMNS.index("cooldown_per_level")
AB_ULTIMATE = ABILITY_COLUMNS.index("ultimate")
AB_SUMMON_COUNT = ABILITY_COLUMNS.index("summon_count")
AB_SUMMON_HP = ABILITY_COLUMNS.index("summon_hp")
AB_SUMMON_DAMAGE = ABILITY_COLUMNS.index("summon_damage")
AB_SUMMON_TIME = ABILITY_COLUMNS.index("summon_time")
AB_INVISIBLE_TIME = ABILITY_COLUMNS.index("invisible_time")
AB_CHANNEL_TIME = ABILITY_COLUMNS.index("channel_time")
AB_BLINK = ABILITY_COLUMNS.index("blink")
AB_AURA = ABILITY_COLUMNS.index("aura")
AB_GLOBAL = ABILITY_COLUMNS.index("global_cast")

I_COST = ITEM_COLUMNS.index("cost")
I_STR = ITEM_COLUMNS.index("strength")
I_AGI = ITEM_COLUMNS.index("agility")
I_INT = ITEM_COLUMNS.index("intelligence")
I_DAMAGE = ITEM_COLUMNS.index("damage")
I_ARMOR = ITEM_COLUMNS.index("armor")
I_HP = ITEM_COLUMNS.index("hp")
I_MANA = ITEM_COLUMNS.index("mana")
I_HP_REGEN = ITEM_COLUMNS.index("hp_regen")
I_MANA_REGEN = ITEM_COLUMNS.index("mana_regen")
I_SPEED = ITEM_COLUMNS.index("speed")
I_ACTIVE = ITEM_COLUMNS.index("active")
I_TARGET = ITEM_COLUMNS.index("target")
I_RANGE = ITEM_COLUMNS.index("cast_range")
I_AMOUNT = ITEM_COLUMNS.index("amount")
I_DURATION = ITEM_COLUMNS.index("duration")
I_COOLDOWN = ITEM_COLUMNS.index("cooldown")
I_CHARGES = ITEM_COLUMNS.index("charges")

C_HP = CREEP_COLUMNS.index("hp")
C_DAMAGE = CREEP_COLUMNS.index("damage")
C_RANGE = CREEP_COLUMNS.index("attack_range")
C_ATTACK_TIME = CREEP_COLUMNS.index("attack_time")
C_SPEED = CREEP_COLUMNS.index("speed")
C_ARMOR = CREEP_COLUMNS.index("armor")
C_PROJ = CREEP_COLUMNS.index("projectile_speed")
C_GOLD = CREEP_COLUMNS.index("gold")
C_XP = CREEP_COLUMNS.index("xp")
C_VISION = CREEP_COLUMNS.index("vision")

# rows of the creep table the kernels spawn by kind (buildings take theirs from geometry's building specs)
CR_MELEE, CR_RANGED, CR_SIEGE = CK["melee"], CK["ranged"], CK["siege"]
CR_SUPER_MELEE, CR_SUPER_RANGED = CK["super_melee"], CK["super_ranged"]
CR_NEUTRAL, CR_BIG_NEUTRAL, CR_COURIER = CK["neutral"], CK["big_neutral"], CK["courier"]

R_WAVE = RULE_COLUMNS.index("wave_interval")
R_MELEE = RULE_COLUMNS.index("melee_per_wave")
R_RANGED = RULE_COLUMNS.index("ranged_per_wave")
R_SIEGE_EVERY = RULE_COLUMNS.index("siege_every")
R_UPGRADE_INTERVAL = RULE_COLUMNS.index("creep_upgrade_interval")
R_UPGRADE = RULE_COLUMNS.index("creep_upgrade")
R_CAMP_RESPAWN = RULE_COLUMNS.index("camp_respawn")
R_BIG_RESPAWN = RULE_COLUMNS.index("big_neutral_respawn")
R_AEGIS = RULE_COLUMNS.index("aegis_duration")
R_RUNE_INTERVAL = RULE_COLUMNS.index("rune_interval")
R_DAY_NIGHT = RULE_COLUMNS.index("day_night_cycle")
R_START_GOLD = RULE_COLUMNS.index("start_gold")
R_PASSIVE_GOLD = RULE_COLUMNS.index("passive_gold")
R_KILL_GOLD = RULE_COLUMNS.index("kill_gold")
R_KILL_GOLD_LVL = RULE_COLUMNS.index("kill_gold_per_level")
R_ASSIST_GOLD = RULE_COLUMNS.index("assist_gold")
R_KILL_XP = RULE_COLUMNS.index("kill_xp")
R_KILL_XP_LVL = RULE_COLUMNS.index("kill_xp_per_level")
R_XP_RADIUS = RULE_COLUMNS.index("xp_radius")
R_RESPAWN_BASE = RULE_COLUMNS.index("respawn_base")
R_RESPAWN_LVL = RULE_COLUMNS.index("respawn_per_level")
R_BUYBACK_BASE = RULE_COLUMNS.index("buyback_base")
R_BUYBACK_LVL = RULE_COLUMNS.index("buyback_per_level")
R_BUYBACK_CD = RULE_COLUMNS.index("buyback_cooldown")
R_GLYPH_CD = RULE_COLUMNS.index("glyph_cooldown")
R_GLYPH_TIME = RULE_COLUMNS.index("glyph_duration")
R_FOUNTAIN_REGEN = RULE_COLUMNS.index("fountain_regen")
R_TP_TIME = RULE_COLUMNS.index("teleport_time")
R_BOUNTY_GOLD = RULE_COLUMNS.index("bounty_rune_gold")
R_COURIER_RESPAWN = RULE_COLUMNS.index("courier_respawn")
R_CREEP_VS_BUILDING = RULE_COLUMNS.index("creep_vs_building")
R_SIEGE_VS_BUILDING = RULE_COLUMNS.index("siege_vs_building")
R_RICH_CREEPS_BOUNTY = RULE_COLUMNS.index("rich_creeps_bounty")
R_AGGRO_RADIUS = RULE_COLUMNS.index("creep_aggro_radius")
R_AGGRO_TIME = RULE_COLUMNS.index("creep_aggro_time")
R_AGGRO_COOLDOWN = RULE_COLUMNS.index("creep_aggro_cooldown")
R_CREEP_REPICK = RULE_COLUMNS.index("creep_repick")
R_CREEP_LEASH = RULE_COLUMNS.index("creep_leash")
R_CALL_FOR_HELP = RULE_COLUMNS.index("call_for_help_radius")
R_RANDOM_HEALTH_MIN = RULE_COLUMNS.index("random_health_min")
R_RANDOM_MANA_MIN = RULE_COLUMNS.index("random_mana_min")
R_RANDOM_GOLD_MIN = RULE_COLUMNS.index("random_gold_min")
R_RANDOM_GOLD_MAX = RULE_COLUMNS.index("random_gold_max")
R_RANDOM_BIG_HEALTH_MIN = RULE_COLUMNS.index("random_big_neutral_health_min")


# ---------------------------------------------------------------- patch versions
@dataclass(frozen=True)
class Feature:
    """A rule a game can play with or without, chosen per game at reset (bit ``bit`` of its feature mask).
    An *observation* feature (``observes`` names the group) adds one column to that observation group of every
    env whose patch version has it (``observation_columns``); a game without the bit shows the column as 0."""

    name: str
    bit: int
    description: str
    observes: str = ""  # the observation group it adds a column to ("" for a rule)


FEATURES: dict[str, Feature] = {f.name: f for f in (
    Feature("rich_creeps", 1, "a lane creep's (melee, ranged, siege, super) last-hit gold is multiplied by "
                              "Rules.rich_creeps_bounty (1.25: melee 40 -> 50, ranged 50 -> 62.5, siege 70 -> "
                              "87.5); neutrals, buildings, couriers and denies are unchanged"),
    Feature("creep_balance", 2, "one more global observation column (env.spaces.GL_CREEP_BALANCE): the team's "
                                "living lane creeps minus the enemy lane creeps it sees, / 10", observes="global"),
    Feature("attack_ready", 4, "one more units observation column (env.spaces.U_ATTACK_READY): the seconds until "
                               "the unit's next attack may start (0: ready now)", observes="units"),
    Feature("manual_attack", 8, "a hero without an order does not attack what comes near (Dota's auto-attack "
                                "setting 'never'): it attacks when ordered to (attack, hold, attack-move); lane "
                                "creeps, towers and summons are unchanged"),
    Feature("hits_to_kill", 16, "one more units observation column (env.spaces.U_HITS_TO_KILL): how many attacks of "
                                "the team's hardest-hitting hero the unit's health is now, after its armor, "
                                "/ 10, at most 1 (0.1 or less: one attack kills it)", observes="units"),
    Feature("anchored_moves", 32, "a move or attack-move names an anchor, any unit the team sees (the hero itself, "
                                  "a creep, a tower, a fountain): its goal is the anchor's place plus the move "
                                  "table's offsets, so one order reaches any landmark in sight; with the hero "
                                  "itself as anchor (or none named) it is the usual move"),
    Feature("team_frame", 64, "Dire's observation is the map turned half a turn about its centre (positions, "
                              "directions, lanes, grids; env.obs_turn), and the policy turns its move and cast "
                              "offsets back: one view of the game for both sides; the game itself is unchanged"),
    Feature("dota_lane", 128, "lane creeps and towers pick targets as Dota's (game.kernels.aggro): creeps re-pick "
                              "every Rules.creep_repick s, preferring the nearest unit attacking an allied hero, then "
                              "one attacking an allied unit, then the nearest; a hero's attack on a hero draws the "
                              "victim's creeps within 500 for 2.3 s (3 s cooldown); idle creeps answer an attack on an "
                              "ally within 600; a target beyond their acquisition range for 2 s is dropped and they "
                              "walk back to their lane; towers switch to the nearest hero attacking an allied hero in "
                              "their range"),
)}
F_RICH_CREEPS = FEATURES["rich_creeps"].bit  # the kernels test ``D.features[g] & F_RICH_CREEPS``
F_CREEP_BALANCE = FEATURES["creep_balance"].bit
F_ATTACK_READY = FEATURES["attack_ready"].bit
F_MANUAL_ATTACK = FEATURES["manual_attack"].bit
F_HITS_TO_KILL = FEATURES["hits_to_kill"].bit
F_ANCHORED_MOVES = FEATURES["anchored_moves"].bit
F_TEAM_FRAME = FEATURES["team_frame"].bit
F_DOTA_LANE = FEATURES["dota_lane"].bit


def group_columns(group: str) -> list[str]:
    """The observation features of ``group``, in the order of the columns they take after the group's own."""
    return [f.name for f in FEATURES.values() if f.observes == group]


def observation_column(name: str) -> int:
    """Where observation feature ``name``'s column sits after its group's own columns: the group's observation
    features take columns in ``FEATURES``' order, and a patch version with one has every earlier one of its group
    (``PatchVersion`` checks it), so a column is at the same place in every env that has it."""
    return group_columns(FEATURES[name].observes).index(name)


@dataclass(frozen=True)
class PatchVersion:
    version: str
    features: tuple[str, ...]  # on in every game of this version
    notes: str

    def __post_init__(self) -> None:
        for group in {FEATURES[n].observes for n in self.features} - {""}:
            columns = group_columns(group)
            has = [n for n in columns if n in self.features]
            if has != columns[:len(has)]:
                raise ValueError(f"patch {self.version}: the {group} observation features {has} would not sit in "
                                 f"their fixed columns; a version with {has[-1]!r} needs every earlier one of "
                                 f"{columns[:columns.index(has[-1])]}")


PATCHES: dict[str, PatchVersion] = {p.version: p for p in (
    PatchVersion("0.1", (), "the standard game"),
    PatchVersion("0.2", ("rich_creeps",), "0.1 with lane creeps worth 25% more gold (feature rich_creeps)"),
    PatchVersion("0.3", ("creep_balance",), "0.1 with one more global observation column, the lane creep balance "
                                            "(feature creep_balance)"),
    PatchVersion("0.4", ("attack_ready",), "0.1 with one more units observation column, the seconds until each "
                                           "unit's next attack (feature attack_ready)"),
    PatchVersion("0.5", ("manual_attack",), "0.1 where a hero without an order does not attack what comes near "
                                            "(feature manual_attack)"),
    PatchVersion("0.6", ("attack_ready", "manual_attack"), "0.4 and 0.5 together: the attack-readiness column and "
                                                           "no auto-attack for an idle hero"),
    PatchVersion("0.7", ("attack_ready", "manual_attack", "hits_to_kill"),
                 "0.6 with one more units observation column, the attacks of the team's hardest hitter each unit's "
                 "health is worth (feature hits_to_kill)"),
    PatchVersion("0.8", ("anchored_moves",), "0.1 where a move names an anchor unit, its goal that unit's place plus "
                                             "the offsets: landmarks as move targets (feature anchored_moves)"),
    PatchVersion("0.9", ("team_frame",), "0.1 where Dire sees the map turned half a turn, as Radiant sees it, and its "
                                         "offsets are turned back: one view for both sides (feature team_frame)"),
    PatchVersion("1.0", ("team_frame", "dota_lane"), "0.9 with the lane as Dota plays it: lane creeps re-pick their "
                                                     "targets, answer aggro and calls for help and give up a chase; "
                                                     "towers defend the hero under attack (feature dota_lane)"),
)}


def feature_mask(names) -> int:
    """The feature mask (bits of ``FEATURES``) of the feature names ``names``."""
    mask = 0
    for name in names:
        if name not in FEATURES:
            raise ValueError(f"game feature {name!r} is unknown; features: {sorted(FEATURES)}")
        mask |= FEATURES[name].bit
    return mask


def patch_features(version: str) -> int:
    """The feature mask every game of patch ``version`` plays with."""
    if version not in PATCHES:
        raise ValueError(f"patch {version!r} is not available; patches: {sorted(PATCHES)}")
    return feature_mask(PATCHES[version].features)


def observation_columns(version: str) -> dict[str, int]:
    """The columns patch ``version``'s observation features add to each observation group (group -> count)."""
    if version not in PATCHES:
        raise ValueError(f"patch {version!r} is not available; patches: {sorted(PATCHES)}")
    extra: dict[str, int] = {}
    for name in PATCHES[version].features:
        group = FEATURES[name].observes
        if group:
            extra[group] = extra.get(group, 0) + 1
    return extra


def observation_mask(version: str) -> int:
    """The bits of patch ``version``'s observation features: the columns its envs have (``BatchedEnv``)."""
    return feature_mask(n for n in PATCHES[version].features if FEATURES[n].observes)


@dataclass
class Patch:
    """Every number the engine needs, as arrays the Numba kernels take directly."""

    version: str = PATCH_VERSION
    heroes: tuple[Hero, ...] = HEROES
    items: tuple[Item, ...] = ITEMS
    rules: Rules = field(default_factory=Rules)

    def __post_init__(self) -> None:
        self.features = patch_features(self.version)  # every game's features (a game may add more at reset)
        self.abilities = tuple(a for h in self.heroes for a in h.abilities)  # row i of ability_table
        self.ability_table = np.array([table_row(a) for a in self.abilities], dtype=np.float64)
        hero_rows, first_ability = [], 0
        for h in self.heroes:
            ids = tuple(range(first_ability, first_ability + len(h.abilities)))
            hero_rows.append(table_row(h, HERO_COMPOSITES, abilities=ids))
            first_ability += len(h.abilities)
        self.hero_table = np.array(hero_rows, dtype=np.float64)
        self.item_table = np.array([table_row(it) for it in self.items], dtype=np.float64)
        self.creep_table = np.array([table_row(CREEPS[k]) for k in CREEP_KINDS], dtype=np.float64)
        self.rule_vector = self.rules.vector()
        self.skill_builds = np.array([h.skill_build for h in self.heroes], dtype=np.int64)
        index = {it.name: i for i, it in enumerate(self.items)}
        width = max(len(h.item_build) for h in self.heroes)
        self.item_builds = np.full((len(self.heroes), width), -1, dtype=np.int64)
        for i, h in enumerate(self.heroes):
            self.item_builds[i, : len(h.item_build)] = [index[n] for n in h.item_build]
        check_columns(self)

    @property
    def n_heroes(self) -> int:
        return len(self.heroes)


def check_table(table_name: str, table: np.ndarray, records, composite=None, cell_of=None, labels=None) -> None:
    """Raise ``PatchTableError`` unless ``table``'s row r, column named c holds ``records[r]``'s attribute c.

    ``cell_of(value)`` turns an attribute into what the table stores (default ``float``); ``table`` may be
    one row (the rules vector). The error names the table, the row (``labels[r]`` or the record's name) and
    the column.
    """
    rows = np.atleast_2d(table)
    cell_of = cell_of or float
    for r, record in enumerate(records):
        sources = column_sources(type(record), composite)
        if rows.shape != (len(records), len(sources)):
            raise PatchTableError(
                f"the {table_name} table has shape {rows.shape}, but {len(records)} {type(record).__name__} "
                f"records with {len(sources)} table columns each need {(len(records), len(sources))}; "
                "build tables with table_row/Patch, not by hand")
        label = labels[r] if labels is not None else getattr(record, "name", None)
        where = f"{table_name} table, row {r}" + (f" ({label})" if label else "")
        for col, (column, name, k) in enumerate(sources):
            expected = cell_of(getattr(record, name) if k < 0 else getattr(record, name)[k])
            if rows[r, col] != expected:
                attribute = f"{type(record).__name__}.{name}" + ("" if k < 0 else f"[{k}]")
                raise PatchTableError(
                    f"{where}, column {col} {column!r} holds {float(rows[r, col])!r}, but {attribute} is "
                    f"{expected!r}: the table's columns no longer match the dataclass fields; build tables with "
                    "table_row/Patch, not by hand")


def check_columns(patch: Patch) -> None:
    """Check every named column of every table of ``patch`` against the dataclass attribute it names."""
    ability_row = {id(a): i for i, a in enumerate(patch.abilities)}

    def hero_cell(value):  # the ability columns hold the ability's row in ability_table
        return float(ability_row[id(value)]) if isinstance(value, Ability) else float(value)

    check_table("hero", patch.hero_table, patch.heroes, HERO_COMPOSITES, hero_cell)
    check_table("ability", patch.ability_table, patch.abilities)
    check_table("item", patch.item_table, patch.items)
    check_table("creep", patch.creep_table, [CREEPS[k] for k in CREEP_KINDS], labels=CREEP_KINDS)
    check_table("rules", patch.rule_vector, [patch.rules])
