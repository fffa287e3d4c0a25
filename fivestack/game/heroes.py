"""The heroes of the patch: the ``Ability`` and ``Hero`` dataclasses (one row of the ability and hero
tables each), the scripted skill builds, and ``HEROES`` (17 heroes, four abilities each: three basics and an
ultimate). ``game.patch`` builds the tables from them and re-exports ``Ability``, ``Hero`` and ``HEROES``.

The first five heroes are the default lineups (hero i of each team is ``HEROES[i]``): their data stays fixed so
that the default game, which every benchmark measures, does not change.
"""

from __future__ import annotations

from dataclasses import dataclass

from fivestack.game.layout import T_NONE, T_POINT, T_UNIT, T_UNIT_OFFSET

ROLES = ("carry", "support", "initiator", "pusher", "nuker")


@dataclass(frozen=True)
class Ability:
    """One hero ability: one row of the ability table. Numbers are at ability level 1; ``*_per_level`` fields
    add per further level (damage, heal, mana, cooldown); dot and aura buffs grow by 50% per further level,
    summons' health and damage by 25%.

    The new mechanics' semantics (kernels: ``abilities.resolve_ability``, ``behaviour``, ``frame``, ``vision``):

    * summon (``summon_count`` > 0): ``summon_count`` units of the caster's team appear in free slots of the
      creep pool around the cast point (the caster for T_NONE). They are melee creeps to everyone (kind
      ``K_CREEP_MELEE``, lane -1, ``SUMMONER`` = the caster): they attack the nearest enemy within 700 of
      themselves, else follow their summoner; they expire after ``summon_time`` s without bounty; killed,
      they pay half a melee creep's gold and xp. A pool too full to hold them summons fewer.
    * invisibility (``invisible_time`` > 0): the target (self or an ally) is hidden from the enemy team's
      vision for ``invisible_time`` s: enemies cannot target it, creeps and towers do not acquire it. Its own
      attack or any cast (ability or item) ends it at once; damage does not.
    * channel (``channel_time`` > 0): after the cast the caster channels (order ``O_CHANNEL``) for
      ``channel_time`` s; at each whole channelled second the ability's effects land again on its target
      area (damage, heal, stun, slow, ... at that moment). Any new order, a stun or a silence ends the
      channel; mana and cooldown are paid once, at the start.
    * blink (``blink``): a T_POINT ability whose caster first moves to the point (clamped to cast range, so it
      never walks to cast); the effects then land around the point. An unwalkable point: the caster stays,
      the effects still land at the point.
    * aura (``aura``): passive. It cannot be cast (never available); while its owner lives and has learnt it,
      every allied hero within ``radius`` (the owner included) gets ``buff_armor`` armor, ``buff_damage``
      attack damage and ``heal`` hp per second (+ ``heal_per_level``), refreshed every 10 frames; the
      strongest aura of each kind counts, not their sum.
    * global (``global_cast``): a T_NONE ability whose effects land on every living hero the ability
      affects (enemy heroes, or allied heroes for ``affects`` 2) wherever they are, seen or not.
    * burning ground (``dot`` > 0 on an area, ``radius`` > 0): the area's ground burns for ``dot_time`` s from
      the cast. Every unit the ability affects burns (its damage-over-time status: ``dot`` per second, +50% per
      level, credited to the caster) for each frame it stands within ``radius`` of the centre: those there at
      the cast and those that walk in later; a unit that leaves stops burning (it burns again if it comes
      back). A unit has one damage-over-time status: the ground takes it over while the unit stands in it. One
      ground per hero (a new one replaces the old); its hero's death does not put it out.
    """

    name: str
    target: int  # T_NONE / T_POINT / T_UNIT / T_UNIT_OFFSET
    affects: int = 1  # 1 enemies, 2 allies, 3 self
    cast_range: float = 0.0
    radius: float = 0.0  # 0: only the target unit
    damage: float = 0.0  # at level 1
    damage_per_level: float = 0.0
    damage_type: int = 1  # 0 physical, 1 magical, 2 pure
    stun: float = 0.0  # seconds
    slow: float = 0.0  # fraction
    slow_time: float = 0.0
    silence: float = 0.0
    dot: float = 0.0  # damage per second (magical)
    dot_time: float = 0.0
    heal: float = 0.0  # at level 1
    heal_per_level: float = 0.0
    buff_armor: float = 0.0
    buff_damage: float = 0.0
    buff_speed: float = 0.0  # fraction
    buff_time: float = 0.0
    projectile_speed: float = 0.0  # 0 instant
    mana: float = 100.0  # at level 1
    mana_per_level: float = 10.0
    cooldown: float = 10.0  # seconds at level 1
    cooldown_per_level: float = -1.0  # negative: shorter
    ultimate: bool = False
    # ---- the new mechanics (patch 0.1's 17 heroes); each is 0 on an ability that does not use it
    summon_count: int = 0  # units summoned next to the caster (T_NONE) or at the point (T_POINT)
    summon_hp: float = 0.0  # each summon's health at level 1 (+ 25% per further level)
    summon_damage: float = 0.0  # each summon's attack damage at level 1 (+ 25% per further level)
    summon_time: float = 0.0  # seconds before a summon expires (no bounty when it expires)
    invisible_time: float = 0.0  # seconds the target is invisible to the enemy team (attacking/casting breaks it)
    channel_time: float = 0.0  # seconds of channelling: the effects land once per channelled second
    blink: bool = False  # the caster first jumps to the target point (clamped to cast range) if walkable
    aura: bool = False  # passive: cannot be cast; its buff holds on allied heroes within ``radius``
    global_cast: bool = False  # affects every hero of the affected side on the map, whatever the range
    description: str = ""


@dataclass(frozen=True)
class Hero:
    name: str
    role: str  # one of ROLES
    primary: int  # 0 STR, 1 AGI, 2 INT
    attributes: tuple[float, float, float]
    gains: tuple[float, float, float]
    damage: float
    attack_range: float
    attack_time: float  # base attack time, seconds
    speed: float
    armor: float
    projectile_speed: float  # 0 melee
    abilities: tuple[Ability, Ability, Ability, Ability]
    skill_build: tuple[int, ...]  # ability slot learnt at levels 1, 2, 3, ...
    item_build: tuple[str, ...]




# Skill builds: slot per level 1..25 (3 = ultimate at 6, 12, 18); a 4th ability level caps basics.
_BUILD_NUKER = (0, 1, 0, 2, 0, 3, 0, 1, 1, 1, 2, 3, 2, 2, 4, 4, 4, 3, 4, 4, 4, 4, 4, 4, 4)
_BUILD_CARRY = (1, 0, 1, 2, 1, 3, 1, 0, 0, 0, 2, 3, 2, 2, 4, 4, 4, 3, 4, 4, 4, 4, 4, 4, 4)

HEROES: tuple[Hero, ...] = (
    Hero(
        "Bulwark", "initiator", 0, (25, 14, 16), (3.2, 1.4, 1.6), 52, 150, 1.7, 295, 2.0, 0.0,
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
        "Tempest Warden", "nuker", 1, (18, 21, 19), (2.0, 2.6, 2.0), 40, 500, 1.7, 305, 2.0, 1100.0,
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
    # ---------------------------------------------------------------- the twelve heroes of the pool
    Hero(
        "Riftdancer", "initiator", 1, (19, 22, 16), (2.1, 2.7, 1.5), 44, 150, 1.6, 305, 2.5, 0.0,
        (
            Ability("Phase Leap", T_POINT, 1, 700, 250, 60, 30, 1, blink=True, mana=90, cooldown=14,
                    description="blink to a point and jolt the enemies around the landing"),
            Ability("Sundering Strike", T_UNIT, 1, 200, 0, 70, 35, 0, stun=1.0, mana=90, cooldown=12,
                    description="strike one enemy: physical damage and a short stun"),
            Ability("Keen Edge", T_NONE, 3, 0, 0, buff_damage=25, buff_speed=0.15, buff_time=6, mana=60,
                    cooldown=18, description="hit harder and move faster for a while"),
            Ability("Fracture", T_POINT, 1, 1000, 400, 150, 75, 1, stun=1.6, blink=True, mana=175,
                    mana_per_level=50, cooldown=80, cooldown_per_level=-12, ultimate=True,
                    description="blink into a fight: magical damage and a stun around the landing"),
        ),
        _BUILD_CARRY, ("poultice", "twig", "bracers", "striders", "fang", "chain_vest", "stun_maul", "cleaver",
                       "troll_girdle", "waystone"),
    ),
    Hero(
        "Veilstalker", "carry", 1, (18, 24, 15), (1.9, 3.0, 1.4), 46, 150, 1.5, 310, 2.5, 0.0,
        (
            Ability("Shadowfade", T_NONE, 3, 0, 0, invisible_time=6, buff_speed=0.25, buff_time=6, mana=80,
                    cooldown=20, description="turn invisible and faster for 6 s; attacking or casting ends it"),
            Ability("Gutting Venom", T_UNIT, 1, 200, 0, 0, 0, 1, slow=0.25, slow_time=3, dot=30, dot_time=4,
                    mana=70, cooldown=10, description="poison one enemy: damage over time and a slow"),
            Ability("Shadow Step", T_POINT, 3, 600, 0, blink=True, mana=60, cooldown=12,
                    description="blink a short way"),
            Ability("Death Mark", T_UNIT, 1, 250, 0, 220, 110, 2, mana=150, mana_per_level=50, cooldown=60,
                    cooldown_per_level=-10, ultimate=True, description="pure damage to one enemy"),
        ),
        _BUILD_CARRY, ("poultice", "twig", "slippers", "striders", "fang", "swift_blade", "cleaver",
                       "war_blade", "chain_vest", "waystone"),
    ),
    Hero(
        "Hivecaller", "pusher", 2, (18, 15, 23), (1.9, 1.4, 3.0), 37, 550, 1.7, 295, 1.0, 900.0,
        (
            Ability("Swarm", T_NONE, 3, summon_count=2, summon_hp=300, summon_damage=18, summon_time=30, mana=100,
                    cooldown=25, description="summon two insects that fight for 30 s"),
            Ability("Acid Spit", T_UNIT, 1, 650, 0, 70, 40, 1, slow=0.3, slow_time=2, projectile_speed=900,
                    mana=90, cooldown=9, description="a projectile of magical damage and a slow"),
            Ability("Hive Frenzy", T_NONE, 2, 0, 900, buff_damage=8, aura=True, mana=0, mana_per_level=0,
                    cooldown=0, cooldown_per_level=0,
                    description="aura: allied heroes within 900 deal more attack damage"),
            Ability("Brood Surge", T_NONE, 3, summon_count=4, summon_hp=450, summon_damage=30, summon_time=40,
                    mana=175, mana_per_level=50, cooldown=70, cooldown_per_level=-10, ultimate=True,
                    description="summon four brood warriors that fight for 40 s"),
        ),
        _BUILD_NUKER, ("clear_draught", "twig", "mantle", "striders", "wellspring", "sage_staff", "vital_core",
                       "mending_charm", "plate", "waystone"),
    ),
    Hero(
        "Warbanner", "support", 0, (23, 14, 18), (2.9, 1.3, 1.9), 48, 150, 1.7, 300, 2.0, 0.0,
        (
            Ability("Iron Aura", T_NONE, 2, 0, 900, buff_armor=3, aura=True, mana=0, mana_per_level=0, cooldown=0,
                    cooldown_per_level=0, description="aura: allied heroes within 900 gain armor"),
            Ability("Rallying Charge", T_UNIT, 1, 300, 0, 60, 30, 0, stun=1.0, mana=90, cooldown=13,
                    description="bash one enemy: physical damage and a short stun"),
            Ability("Battle Hymn", T_NONE, 2, 0, 700, heal=90, heal_per_level=40, mana=100, cooldown=15,
                    description="heal allies around"),
            Ability("Last Stand", T_NONE, 2, 0, 900, buff_armor=10, buff_damage=20, buff_time=8, mana=150,
                    mana_per_level=50, cooldown=80, cooldown_per_level=-10, ultimate=True,
                    description="allies around gain armor and damage for 8 s"),
        ),
        _BUILD_NUKER, ("poultice", "twig", "bracers", "striders", "vital_core", "mending_charm", "chain_vest",
                       "troll_girdle", "plate", "waystone"),
    ),
    Hero(
        "Starfall Herald", "nuker", 2, (17, 16, 24), (1.7, 1.4, 3.1), 38, 600, 1.7, 290, 1.0, 1000.0,
        (
            Ability("Star Shard", T_UNIT, 1, 700, 0, 85, 45, 1, projectile_speed=1100, mana=95, cooldown=8,
                    description="a projectile of magical damage"),
            Ability("Comet Trail", T_POINT, 1, 800, 300, 50, 30, 1, slow=0.35, slow_time=2.5, mana=100,
                    cooldown=12, description="damage and a slow in an area"),
            Ability("Hush of Night", T_POINT, 1, 700, 300, 0, 0, 1, silence=2.0, mana=90, cooldown=16,
                    description="silence enemies in an area"),
            Ability("Falling Heavens", T_NONE, 1, 0, 0, 170, 80, 1, global_cast=True, mana=200, mana_per_level=50,
                    cooldown=100, cooldown_per_level=-15, ultimate=True,
                    description="global: magical damage to every enemy hero on the map"),
        ),
        _BUILD_NUKER, ("clear_draught", "twig", "mantle", "striders", "wellspring", "sage_staff", "blink_charm",
                       "vital_core", "sage_staff", "waystone"),
    ),
    Hero(
        "Dirgesinger", "support", 2, (18, 14, 22), (2.0, 1.2, 2.8), 36, 550, 1.7, 295, 1.0, 900.0,
        (
            Ability("Lament", T_POINT, 1, 700, 300, 40, 25, 1, silence=2.0, mana=90, cooldown=15,
                    description="magical damage and a silence in an area"),
            Ability("Soothing Dirge", T_NONE, 2, 0, 700, heal=45, heal_per_level=20, channel_time=3, mana=110,
                    cooldown=18, description="channel 3 s: allies around heal once a second"),
            Ability("Wail", T_NONE, 1, 0, 400, 75, 40, 1, slow=0.3, slow_time=2, mana=90, cooldown=11,
                    description="magical damage and a slow around the caster"),
            Ability("Chorus of Return", T_NONE, 2, 0, 0, heal=250, heal_per_level=100, global_cast=True,
                    mana=200, mana_per_level=50, cooldown=100, cooldown_per_level=-15, ultimate=True,
                    description="global: heal every allied hero on the map"),
        ),
        _BUILD_NUKER, ("poultice", "clear_draught", "mantle", "striders", "wellspring", "mending_charm",
                       "vital_core", "sage_staff", "plate", "waystone"),
    ),
    Hero(
        "Frostwell", "nuker", 2, (17, 15, 23), (1.8, 1.3, 3.0), 37, 600, 1.7, 290, 1.0, 900.0,
        (
            Ability("Glacial Spike", T_UNIT, 1, 650, 0, 70, 40, 1, stun=1.2, projectile_speed=1000, mana=100,
                    cooldown=12, description="a spike that freezes one enemy: damage and a stun"),
            Ability("Cold Snap", T_POINT, 1, 750, 275, 60, 35, 1, slow=0.3, slow_time=2, mana=95, cooldown=10,
                    description="damage and a slow in an area"),
            Ability("Rime Aura", T_NONE, 2, 0, 800, heal=2, heal_per_level=1.5, aura=True, mana=0,
                    mana_per_level=0, cooldown=0, cooldown_per_level=0,
                    description="aura: allied heroes within 800 regenerate health"),
            Ability("Blizzard", T_POINT, 1, 800, 450, 60, 30, 1, slow=0.3, slow_time=1.5, channel_time=4,
                    mana=200, mana_per_level=50, cooldown=90, cooldown_per_level=-15, ultimate=True,
                    description="channel 4 s: damage and a slow in an area once a second"),
        ),
        _BUILD_NUKER, ("clear_draught", "twig", "mantle", "striders", "wellspring", "sage_staff", "vital_core",
                       "blink_charm", "sage_staff", "waystone"),
    ),
    Hero(
        "Gravewright", "pusher", 2, (19, 14, 21), (2.1, 1.2, 2.7), 38, 550, 1.7, 295, 1.5, 900.0,
        (
            Ability("Raise Dead", T_NONE, 3, summon_count=3, summon_hp=220, summon_damage=20, summon_time=25,
                    mana=110, cooldown=22, description="raise three skeletons that fight for 25 s"),
            Ability("Bone Spear", T_UNIT, 1, 650, 0, 85, 45, 1, projectile_speed=1000, mana=90, cooldown=8,
                    description="a projectile of magical damage"),
            Ability("Grave Chill", T_POINT, 1, 700, 300, 30, 20, 1, slow=0.4, slow_time=3, mana=90, cooldown=13,
                    description="damage and a strong slow in an area"),
            Ability("Army of the Grave", T_POINT, 1, 600, 350, 100, 50, 1, summon_count=4, summon_hp=400,
                    summon_damage=32, summon_time=35, mana=200, mana_per_level=50, cooldown=80,
                    cooldown_per_level=-10, ultimate=True,
                    description="damage an area and raise four warriors there for 35 s"),
        ),
        _BUILD_NUKER, ("clear_draught", "twig", "mantle", "striders", "wellspring", "sage_staff", "vital_core",
                       "chain_vest", "plate", "waystone"),
    ),
    Hero(
        "Thornback", "initiator", 0, (25, 13, 15), (3.1, 1.3, 1.5), 50, 150, 1.7, 295, 2.5, 0.0,
        (
            Ability("Spine Burst", T_NONE, 1, 0, 350, 70, 35, 0, slow=0.3, slow_time=2, mana=100, cooldown=11,
                    description="physical damage and a slow around the caster"),
            Ability("Bark Hide", T_NONE, 3, 0, 0, buff_armor=8, buff_time=6, mana=70, cooldown=16,
                    description="harden: more armor for 6 s"),
            Ability("Thorn Charge", T_POINT, 1, 650, 200, 50, 30, 0, stun=0.8, blink=True, mana=100, cooldown=16,
                    description="leap to a point: physical damage and a short stun around the landing"),
            Ability("Earthsplitter", T_POINT, 1, 700, 350, 170, 85, 1, stun=2.0, mana=175, mana_per_level=50,
                    cooldown=85, cooldown_per_level=-12, ultimate=True,
                    description="split the ground: magical damage and a stun in an area"),
        ),
        _BUILD_CARRY, ("poultice", "twig", "bracers", "striders", "vital_core", "chain_vest", "giant_belt",
                       "troll_girdle", "plate", "waystone"),
    ),
    Hero(
        "Emberfist", "carry", 0, (22, 18, 14), (2.8, 2.1, 1.3), 50, 150, 1.6, 305, 2.0, 0.0,
        (
            Ability("Flame Jab", T_UNIT, 1, 200, 0, 80, 40, 0, mana=70, cooldown=8,
                    description="a burning jab: physical damage to one enemy"),
            Ability("Blazing Fury", T_NONE, 3, 0, 0, buff_damage=30, buff_speed=0.2, buff_time=6, mana=80,
                    cooldown=18, description="hit harder and move faster for 6 s"),
            Ability("Cinder Aura", T_NONE, 2, 0, 700, buff_damage=10, aura=True, mana=0, mana_per_level=0,
                    cooldown=0, cooldown_per_level=0,
                    description="aura: allied heroes within 700 deal more attack damage"),
            Ability("Inferno Strike", T_UNIT, 1, 250, 0, 200, 100, 2, stun=1.0, mana=150, mana_per_level=50,
                    cooldown=70, cooldown_per_level=-10, ultimate=True,
                    description="pure damage and a stun on one enemy"),
        ),
        _BUILD_CARRY, ("poultice", "twig", "bracers", "striders", "fang", "giant_belt", "cleaver", "war_blade",
                       "chain_vest", "waystone"),
    ),
    Hero(
        "Duskweaver", "support", 2, (17, 16, 22), (1.8, 1.5, 2.8), 37, 550, 1.7, 300, 1.5, 900.0,
        (
            Ability("Shroud", T_UNIT, 2, 600, 0, invisible_time=5, buff_speed=0.2, buff_time=5, mana=90,
                    cooldown=18, description="make an ally invisible and faster for 5 s"),
            Ability("Mind Spike", T_UNIT, 1, 650, 0, 80, 40, 1, projectile_speed=1000, mana=90, cooldown=8,
                    description="a projectile of magical damage"),
            Ability("Fog Veil", T_POINT, 1, 700, 300, 0, 0, 1, silence=1.5, slow=0.3, slow_time=2, mana=95,
                    cooldown=15, description="silence and slow enemies in an area"),
            Ability("Nightfall", T_NONE, 1, 0, 550, 60, 30, 1, slow=0.2, slow_time=1.5, channel_time=3,
                    mana=175, mana_per_level=50, cooldown=80, cooldown_per_level=-12, ultimate=True,
                    description="channel 3 s: magical damage and a slow around the caster once a second"),
        ),
        _BUILD_NUKER, ("poultice", "clear_draught", "mantle", "striders", "wellspring", "mending_charm",
                       "vital_core", "sage_staff", "plate", "waystone"),
    ),
    Hero(
        "Tidecaller", "pusher", 0, (22, 15, 17), (2.7, 1.5, 1.8), 46, 400, 1.7, 295, 2.0, 900.0,
        (
            Ability("Riptide", T_POINT, 1, 700, 300, 70, 35, 1, slow=0.3, slow_time=2, mana=95, cooldown=11,
                    description="magical damage and a slow in an area"),
            Ability("Brine Elemental", T_NONE, 3, summon_count=1, summon_hp=650, summon_damage=40, summon_time=40,
                    mana=110, cooldown=30, description="summon an elemental that fights for 40 s"),
            Ability("Undertow", T_UNIT, 1, 500, 0, 50, 30, 1, stun=1.3, mana=100, cooldown=13,
                    description="drag one enemy down: damage and a stun"),
            Ability("Tsunami", T_NONE, 1, 0, 0, 120, 60, 1, slow=0.3, slow_time=3, global_cast=True, mana=200,
                    mana_per_level=50, cooldown=100, cooldown_per_level=-15, ultimate=True,
                    description="global: magical damage and a slow on every enemy hero on the map"),
        ),
        _BUILD_CARRY, ("poultice", "twig", "bracers", "striders", "vital_core", "chain_vest", "giant_belt",
                       "troll_girdle", "plate", "waystone"),
    ),
)
