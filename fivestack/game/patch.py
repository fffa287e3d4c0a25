"""Game data, versioned as a *patch*: heroes, abilities, items, creeps and buildings.

The engine reads only the numpy tables built here (``Patch.hero``, ``Patch.ability``, ...), so balance
changes never touch the kernels. Each table is a float64 matrix whose columns are named by the constants
below. Names are original; mechanics echo Dota's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fivestack.game.layout import T_NONE, T_POINT, T_UNIT, T_UNIT_OFFSET

PATCH_VERSION = "0.1"

# ---------------------------------------------------------------- hero table columns
H_STR, H_AGI, H_INT, H_STR_GAIN, H_AGI_GAIN, H_INT_GAIN = 0, 1, 2, 3, 4, 5
H_PRIMARY = 6  # 0 STR, 1 AGI, 2 INT
H_DAMAGE = 7
H_RANGE = 8
H_ATTACK_TIME = 9  # base attack time, seconds
H_SPEED = 10
H_ARMOR = 11
H_PROJ_SPEED = 12  # 0 melee
H_ABILITY0 = 13  # 4 ability ids
N_HERO_COLS = 17

# ---------------------------------------------------------------- ability table columns
AB_TARGET = 0  # T_NONE / T_POINT / T_UNIT / T_UNIT_OFFSET
AB_AFFECTS = 1  # 1 enemies, 2 allies, 3 self
AB_RANGE = 2  # cast range
AB_RADIUS = 3  # 0: only the target unit
AB_DAMAGE = 4  # at level 1
AB_DAMAGE_LVL = 5  # added per level
AB_DAMAGE_TYPE = 6  # 0 physical, 1 magical, 2 pure
AB_STUN = 7  # seconds
AB_SLOW = 8  # fraction
AB_SLOW_TIME = 9
AB_SILENCE = 10
AB_DOT = 11  # damage per second (magical)
AB_DOT_TIME = 12
AB_HEAL = 13  # at level 1
AB_HEAL_LVL = 14
AB_BUFF_ARMOR = 15
AB_BUFF_DAMAGE = 16
AB_BUFF_SPEED = 17  # fraction
AB_BUFF_TIME = 18
AB_PROJ_SPEED = 19  # 0 instant
AB_MANA = 20  # at level 1
AB_MANA_LVL = 21
AB_COOLDOWN = 22  # seconds at level 1
AB_COOLDOWN_LVL = 23  # added per level (negative: shorter)
AB_ULTIMATE = 24
N_ABILITY_COLS = 25

# ---------------------------------------------------------------- item table columns
I_COST = 0
I_STR, I_AGI, I_INT = 1, 2, 3
I_DAMAGE = 4
I_ARMOR = 5
I_HP = 6
I_MANA = 7
I_HP_REGEN = 8
I_MANA_REGEN = 9
I_SPEED = 10  # flat move speed
I_ACTIVE = 11  # 0 passive, else one of ACT_*
I_TARGET = 12  # target type of the active
I_RANGE = 13
I_AMOUNT = 14  # heal / restore / damage of the active
I_DURATION = 15
I_COOLDOWN = 16  # seconds
I_CHARGES = 17  # 0: not consumable
N_ITEM_COLS = 18

ACT_NONE, ACT_HEAL_OVER_TIME, ACT_MANA_OVER_TIME, ACT_TELEPORT, ACT_BLINK, ACT_STUN, ACT_AREA_HEAL = 0, 1, 2, 3, 4, 5, 6

# ---------------------------------------------------------------- creep / building table columns
C_HP, C_DAMAGE, C_RANGE, C_ATTACK_TIME, C_SPEED, C_ARMOR, C_PROJ, C_GOLD, C_XP, C_VISION = range(10)
N_CREEP_COLS = 10


@dataclass(frozen=True)
class Ability:
    name: str
    target: int
    affects: int = 1
    cast_range: float = 0.0
    radius: float = 0.0
    damage: float = 0.0
    damage_per_level: float = 0.0
    damage_type: int = 1
    stun: float = 0.0
    slow: float = 0.0
    slow_time: float = 0.0
    silence: float = 0.0
    dot: float = 0.0
    dot_time: float = 0.0
    heal: float = 0.0
    heal_per_level: float = 0.0
    buff_armor: float = 0.0
    buff_damage: float = 0.0
    buff_speed: float = 0.0
    buff_time: float = 0.0
    projectile_speed: float = 0.0
    mana: float = 100.0
    mana_per_level: float = 10.0
    cooldown: float = 10.0
    cooldown_per_level: float = -1.0
    ultimate: bool = False
    description: str = ""

    def row(self) -> list[float]:
        return [
            self.target, self.affects, self.cast_range, self.radius, self.damage, self.damage_per_level,
            self.damage_type, self.stun, self.slow, self.slow_time, self.silence, self.dot, self.dot_time,
            self.heal, self.heal_per_level, self.buff_armor, self.buff_damage, self.buff_speed, self.buff_time,
            self.projectile_speed, self.mana, self.mana_per_level, self.cooldown, self.cooldown_per_level,
            float(self.ultimate),
        ]


@dataclass(frozen=True)
class Hero:
    name: str
    role: str
    primary: int  # 0 STR, 1 AGI, 2 INT
    attributes: tuple[float, float, float]
    gains: tuple[float, float, float]
    damage: float
    attack_range: float
    attack_time: float
    speed: float
    armor: float
    projectile_speed: float
    abilities: tuple[Ability, Ability, Ability, Ability]
    skill_build: tuple[int, ...]  # ability slot learnt at levels 1, 2, 3, ...
    item_build: tuple[str, ...]


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
    speed: float = 0.0
    active: int = ACT_NONE
    target: int = T_NONE
    cast_range: float = 0.0
    amount: float = 0.0
    duration: float = 0.0
    cooldown: float = 0.0
    charges: int = 0
    description: str = ""

    def row(self) -> list[float]:
        return [
            self.cost, self.strength, self.agility, self.intelligence, self.damage, self.armor, self.hp,
            self.mana, self.hp_regen, self.mana_regen, self.speed, self.active, self.target, self.cast_range,
            self.amount, self.duration, self.cooldown, self.charges,
        ]


# Skill builds: slot per level 1..25 (3 = ultimate at 6, 12, 18); a 4th ability level caps basics.
_BUILD_NUKER = (0, 1, 0, 2, 0, 3, 0, 1, 1, 1, 2, 3, 2, 2, 4, 4, 4, 3, 4, 4, 4, 4, 4, 4, 4)
_BUILD_CARRY = (1, 0, 1, 2, 1, 3, 1, 0, 0, 0, 2, 3, 2, 2, 4, 4, 4, 3, 4, 4, 4, 4, 4, 4, 4)

HEROES: tuple[Hero, ...] = (
    Hero(
        "Bulwark", "tank", 0, (25, 14, 16), (3.2, 1.4, 1.6), 52, 150, 1.7, 295, 2.0, 0.0,
        (
            Ability("Shield Bash", T_UNIT, 1, 250, 0, 60, 35, 0, stun=1.4, mana=110, cooldown=12,
                    description="strike one enemy: physical damage and a stun"),
            Ability("Rally Cry", T_NONE, 2, 0, 900, buff_armor=6, buff_time=8, mana=80, cooldown=20,
                    description="allies around gain armor"),
            Ability("Earthshaker Stomp", T_NONE, 1, 0, 350, 80, 40, 1, slow=0.4, slow_time=3, mana=120,
                    cooldown=14, description="magical damage and a slow around the caster"),
            Ability("Unbreakable", T_NONE, 3, 0, 0, heal=350, heal_per_level=150, buff_armor=12, buff_time=10,
                    mana=150, mana_per_level=50, cooldown=80, cooldown_per_level=-10, ultimate=True,
                    description="heal self and harden for 10 s"),
        ),
        _BUILD_CARRY, ("poultice", "twig", "bracers", "striders", "vital_core", "chain_vest", "stun_maul",
                       "troll_girdle", "plate", "waystone"),
    ),
    Hero(
        "Vesper Blade", "carry", 1, (19, 24, 15), (2.0, 3.0, 1.4), 44, 150, 1.6, 310, 3.0, 0.0,
        (
            Ability("Lunge", T_POINT, 1, 600, 250, 50, 40, 0, mana=80, cooldown=11,
                    description="a strike landing at a point: physical damage in an area"),
            Ability("Venom Edge", T_UNIT, 1, 200, 0, 0, 0, 1, slow=0.3, slow_time=4, dot=25, dot_time=4,
                    mana=70, cooldown=10, description="poison one enemy: damage over time and a slow"),
            Ability("Windstep", T_NONE, 3, 0, 0, buff_speed=0.3, buff_damage=20, buff_time=5, mana=60,
                    cooldown=16, description="move faster and hit harder for a while"),
            Ability("Final Verdict", T_UNIT, 1, 300, 0, 250, 125, 2, mana=150, mana_per_level=50, cooldown=60,
                    cooldown_per_level=-10, ultimate=True, description="pure damage to one enemy"),
        ),
        _BUILD_CARRY, ("poultice", "twig", "slippers", "striders", "fang", "swift_blade", "cleaver",
                       "blink_charm", "war_blade", "waystone"),
    ),
    Hero(
        "Cinder Oracle", "nuker", 2, (17, 15, 24), (1.7, 1.3, 3.2), 38, 600, 1.7, 290, 1.0, 900.0,
        (
            Ability("Flame Lance", T_UNIT, 1, 700, 0, 90, 50, 1, projectile_speed=1000, mana=100, cooldown=8,
                    description="a projectile of magical damage"),
            Ability("Ember Field", T_POINT, 1, 800, 300, 0, 0, 1, dot=30, dot_time=5, mana=110, cooldown=13,
                    description="burning ground: damage over time in an area"),
            Ability("Scatterflare", T_UNIT_OFFSET, 1, 800, 275, 70, 40, 1, slow=0.25, slow_time=2, mana=100,
                    cooldown=10, description="a blast at an offset from a unit: damage and a slow"),
            Ability("Skyfall", T_POINT, 1, 900, 400, 200, 100, 1, stun=1.5, mana=200, mana_per_level=75,
                    cooldown=90, cooldown_per_level=-15, ultimate=True,
                    description="a meteor: heavy magical damage and a stun in an area"),
        ),
        _BUILD_NUKER, ("clear_draught", "twig", "mantle", "striders", "wellspring", "sage_staff", "mending_charm",
                       "blink_charm", "sage_staff", "waystone"),
    ),
    Hero(
        "Grovekeeper", "support", 2, (18, 14, 22), (2.0, 1.2, 2.8), 36, 550, 1.7, 300, 1.0, 900.0,
        (
            Ability("Mend", T_UNIT, 2, 600, 0, heal=120, heal_per_level=60, mana=90, cooldown=9,
                    description="heal one ally"),
            Ability("Rootsnare", T_UNIT, 1, 650, 0, 40, 30, 1, stun=1.2, projectile_speed=900, mana=100,
                    cooldown=12, description="a seed that roots one enemy: damage and a stun"),
            Ability("Hush", T_POINT, 1, 700, 300, 0, 0, 1, silence=2.5, mana=90, cooldown=16,
                    description="silence enemies in an area"),
            Ability("Sanctuary", T_NONE, 2, 0, 900, heal=250, heal_per_level=125, buff_armor=5, buff_time=6,
                    mana=200, mana_per_level=50, cooldown=100, cooldown_per_level=-15, ultimate=True,
                    description="heal and shield allies around"),
        ),
        _BUILD_NUKER, ("poultice", "clear_draught", "mantle", "striders", "wellspring", "mending_charm", "vital_core",
                       "sage_staff", "plate", "waystone"),
    ),
    Hero(
        "Tempest Warden", "disabler", 1, (18, 21, 19), (2.0, 2.6, 2.0), 40, 500, 1.7, 305, 2.0, 1100.0,
        (
            Ability("Static Coil", T_NONE, 1, 0, 400, 50, 30, 1, silence=2.0, mana=90, cooldown=14,
                    description="magical damage and a silence around the caster"),
            Ability("Gale", T_POINT, 1, 800, 350, 30, 25, 1, slow=0.5, slow_time=3, mana=90, cooldown=12,
                    description="a gust at a point: damage and a strong slow"),
            Ability("Arc Bolt", T_UNIT, 1, 650, 0, 80, 45, 1, projectile_speed=1200, mana=85, cooldown=7,
                    description="a bolt of magical damage"),
            Ability("Thunderhead", T_UNIT, 1, 600, 0, 150, 75, 1, stun=2.5, mana=175, mana_per_level=50,
                    cooldown=80, cooldown_per_level=-12, ultimate=True,
                    description="a long stun with magical damage on one enemy"),
        ),
        _BUILD_NUKER, ("poultice", "twig", "slippers", "striders", "fang", "stun_maul", "swift_blade",
                       "war_blade", "troll_girdle", "waystone"),
    ),
)

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

# Lane creeps, buildings and neutrals: hp, damage, range, attack time, speed, armor, projectile, gold, xp, vision
CREEPS = {
    "melee": (550, 21, 100, 1.0, 325, 2, 0, 40, 57, 1200),
    "ranged": (300, 24, 500, 1.0, 325, 0, 900, 50, 69, 1200),
    "siege": (850, 40, 690, 2.7, 325, 0, 1100, 70, 88, 1200),
    "super_melee": (700, 36, 100, 1.0, 325, 3, 0, 20, 25, 1200),
    "super_ranged": (475, 40, 500, 1.0, 325, 1, 900, 20, 25, 1200),
    "tier1": (1800, 100, 700, 0.9, 0, 12, 750, 120, 0, 1900),
    "tier2": (2000, 120, 700, 0.9, 0, 14, 750, 150, 0, 1900),
    "tier3": (2200, 140, 700, 0.9, 0, 16, 750, 180, 0, 1900),
    "tier4": (2300, 140, 700, 0.9, 0, 18, 750, 200, 0, 1900),
    "barracks_melee": (2200, 0, 0, 1.0, 0, 12, 0, 150, 0, 900),
    "barracks_ranged": (1300, 0, 0, 1.0, 0, 8, 0, 100, 0, 900),
    "ancient": (4500, 0, 0, 1.0, 0, 15, 0, 0, 0, 1200),
    "fountain": (1000, 250, 1200, 0.2, 0, 99, 1500, 0, 0, 1800),
    "neutral": (450, 24, 100, 1.2, 300, 2, 0, 45, 60, 800),
    "big_neutral": (5500, 75, 150, 1.1, 300, 20, 0, 250, 400, 800),
    "courier": (120, 0, 0, 1.0, 380, 0, 0, 100, 0, 700),
}
CREEP_KINDS = tuple(CREEPS)


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

    def vector(self) -> np.ndarray:
        return np.array([float(getattr(self, f)) for f in self.__dataclass_fields__], dtype=np.float64)


RULE_FIELDS = tuple(Rules.__dataclass_fields__)
R = {name: i for i, name in enumerate(RULE_FIELDS)}  # column of each rule in Patch.rules


@dataclass
class Patch:
    """Every number the engine needs, as arrays the Numba kernels take directly."""

    version: str = PATCH_VERSION
    heroes: tuple[Hero, ...] = HEROES
    items: tuple[Item, ...] = ITEMS
    rules: Rules = field(default_factory=Rules)

    def __post_init__(self) -> None:
        abilities = [a for h in self.heroes for a in h.abilities]
        self.ability_table = np.array([a.row() for a in abilities], dtype=np.float64)
        hero_rows = []
        for i, h in enumerate(self.heroes):
            hero_rows.append([*h.attributes, *h.gains, h.primary, h.damage, h.attack_range, h.attack_time,
                              h.speed, h.armor, h.projectile_speed, 4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3])
        self.hero_table = np.array(hero_rows, dtype=np.float64)
        self.item_table = np.array([it.row() for it in self.items], dtype=np.float64)
        self.creep_table = np.array([CREEPS[k] for k in CREEP_KINDS], dtype=np.float64)
        self.rule_vector = self.rules.vector()
        self.skill_builds = np.array([h.skill_build for h in self.heroes], dtype=np.int64)
        index = {it.name: i for i, it in enumerate(self.items)}
        width = max(len(h.item_build) for h in self.heroes)
        self.item_builds = np.full((len(self.heroes), width), -1, dtype=np.int64)
        for i, h in enumerate(self.heroes):
            self.item_builds[i, : len(h.item_build)] = [index[n] for n in h.item_build]

    @property
    def n_heroes(self) -> int:
        return len(self.heroes)


CK = {name: i for i, name in enumerate(CREEP_KINDS)}  # row of each creep/building kind in creep_table
