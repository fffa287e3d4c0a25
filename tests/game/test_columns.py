"""The patch tables' columns are derived from the dataclasses' fields, and the kernels' constants with them.

(a) in the real patch, each constant the kernels index with reads the attribute it is named for, in every row;
(b) a copy of a dataclass with a field inserted in the middle moves the columns, and every named column
    still holds its field (where the old hand-typed positions would now read the wrong field);
(c) the start-up check rejects a corrupted table with an error naming the table, row and column.
"""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
import pytest

from fivestack.game import kernels as K
from fivestack.game.engine import GameBatch
from fivestack.game.patch import (
    ABILITY_COLUMNS, CK, CREEP_KINDS, CREEPS, HERO_COLUMNS, HERO_COMPOSITES, HEROES, ITEM_COLUMNS, ITEMS, RULE_COLUMNS,
    Ability, Hero, Patch, PatchTableError, Rules, check_columns, check_table, table_columns, table_row,
)

# What each constant the kernels use reads: the kernels' contract with the patch, written out by hand.
HERO_READS = {
    "H_PRIMARY": ("primary", None), "H_STR": ("attributes", 0), "H_AGI": ("attributes", 1),
    "H_INT": ("attributes", 2), "H_STR_GAIN": ("gains", 0), "H_AGI_GAIN": ("gains", 1), "H_INT_GAIN": ("gains", 2),
    "H_DAMAGE": ("damage", None), "H_RANGE": ("attack_range", None), "H_ATTACK_TIME": ("attack_time", None),
    "H_SPEED": ("speed", None), "H_ARMOR": ("armor", None), "H_PROJ_SPEED": ("projectile_speed", None),
}
ABILITY_READS = {
    "AB_TARGET": "target", "AB_AFFECTS": "affects", "AB_RANGE": "cast_range", "AB_RADIUS": "radius",
    "AB_DAMAGE": "damage", "AB_DAMAGE_LVL": "damage_per_level", "AB_DAMAGE_TYPE": "damage_type", "AB_STUN": "stun",
    "AB_SLOW": "slow", "AB_SLOW_TIME": "slow_time", "AB_SILENCE": "silence", "AB_DOT": "dot",
    "AB_DOT_TIME": "dot_time", "AB_HEAL": "heal", "AB_HEAL_LVL": "heal_per_level", "AB_BUFF_ARMOR": "buff_armor",
    "AB_BUFF_DAMAGE": "buff_damage", "AB_BUFF_SPEED": "buff_speed", "AB_BUFF_TIME": "buff_time",
    "AB_PROJ_SPEED": "projectile_speed", "AB_MANA": "mana", "AB_MANA_LVL": "mana_per_level",
    "AB_COOLDOWN": "cooldown", "AB_COOLDOWN_LVL": "cooldown_per_level", "AB_ULTIMATE": "ultimate",
    "AB_SUMMON_COUNT": "summon_count", "AB_SUMMON_HP": "summon_hp", "AB_SUMMON_DAMAGE": "summon_damage",
    "AB_SUMMON_TIME": "summon_time", "AB_INVISIBLE_TIME": "invisible_time", "AB_CHANNEL_TIME": "channel_time",
    "AB_BLINK": "blink", "AB_AURA": "aura", "AB_GLOBAL": "global_cast",
}
ITEM_READS = {
    "I_COST": "cost", "I_STR": "strength", "I_AGI": "agility", "I_INT": "intelligence", "I_DAMAGE": "damage",
    "I_ARMOR": "armor", "I_HP": "hp", "I_MANA": "mana", "I_HP_REGEN": "hp_regen", "I_MANA_REGEN": "mana_regen",
    "I_SPEED": "speed", "I_ACTIVE": "active", "I_TARGET": "target", "I_RANGE": "cast_range", "I_AMOUNT": "amount",
    "I_DURATION": "duration", "I_COOLDOWN": "cooldown", "I_CHARGES": "charges",
}
CREEP_READS = {
    "C_HP": "hp", "C_DAMAGE": "damage", "C_RANGE": "attack_range", "C_ATTACK_TIME": "attack_time",
    "C_SPEED": "speed", "C_ARMOR": "armor", "C_PROJ": "projectile_speed", "C_GOLD": "gold", "C_XP": "xp",
    "C_VISION": "vision",
}
RULE_READS = {
    "R_WAVE": "wave_interval", "R_MELEE": "melee_per_wave", "R_RANGED": "ranged_per_wave",
    "R_SIEGE_EVERY": "siege_every", "R_UPGRADE_INTERVAL": "creep_upgrade_interval", "R_UPGRADE": "creep_upgrade",
    "R_CAMP_RESPAWN": "camp_respawn", "R_BIG_RESPAWN": "big_neutral_respawn", "R_AEGIS": "aegis_duration",
    "R_RUNE_INTERVAL": "rune_interval", "R_DAY_NIGHT": "day_night_cycle", "R_START_GOLD": "start_gold",
    "R_PASSIVE_GOLD": "passive_gold", "R_KILL_GOLD": "kill_gold", "R_KILL_GOLD_LVL": "kill_gold_per_level",
    "R_ASSIST_GOLD": "assist_gold", "R_KILL_XP": "kill_xp", "R_KILL_XP_LVL": "kill_xp_per_level",
    "R_XP_RADIUS": "xp_radius", "R_RESPAWN_BASE": "respawn_base", "R_RESPAWN_LVL": "respawn_per_level",
    "R_BUYBACK_BASE": "buyback_base", "R_BUYBACK_LVL": "buyback_per_level", "R_BUYBACK_CD": "buyback_cooldown",
    "R_GLYPH_CD": "glyph_cooldown", "R_GLYPH_TIME": "glyph_duration", "R_FOUNTAIN_REGEN": "fountain_regen",
    "R_TP_TIME": "teleport_time", "R_BOUNTY_GOLD": "bounty_rune_gold", "R_COURIER_RESPAWN": "courier_respawn",
    "R_CREEP_VS_BUILDING": "creep_vs_building", "R_SIEGE_VS_BUILDING": "siege_vs_building",
    "R_RICH_CREEPS_BOUNTY": "rich_creeps_bounty", "R_AGGRO_RADIUS": "creep_aggro_radius",
    "R_AGGRO_TIME": "creep_aggro_time", "R_AGGRO_COOLDOWN": "creep_aggro_cooldown", "R_CREEP_REPICK": "creep_repick",
    "R_CREEP_LEASH": "creep_leash", "R_CALL_FOR_HELP": "call_for_help_radius", "R_RANDOM_HEALTH_MIN": "random_health_min",
    "R_RANDOM_MANA_MIN": "random_mana_min", "R_RANDOM_GOLD_MIN": "random_gold_min",
    "R_RANDOM_GOLD_MAX": "random_gold_max", "R_RANDOM_BIG_HEALTH_MIN": "random_big_neutral_health_min",
}


@pytest.fixture(scope="module")
def patch() -> Patch:
    return Patch()


# ---------------------------------------------------------------- (a) the real patch
def test_every_kernel_constant_reads_its_attribute_in_every_row(patch):
    for const, (name, k) in HERO_READS.items():
        for r, hero in enumerate(patch.heroes):
            value = getattr(hero, name) if k is None else getattr(hero, name)[k]
            assert patch.hero_table[r, getattr(K, const)] == value, (const, hero.name)
    for tables, reads, records in ((patch.ability_table, ABILITY_READS, patch.abilities),
                                   (patch.item_table, ITEM_READS, patch.items),
                                   (patch.creep_table, CREEP_READS, [CREEPS[k] for k in CREEP_KINDS]),
                                   (patch.rule_vector[None, :], RULE_READS, [patch.rules])):
        assert tables.shape[1] == len(reads), "a table column that no kernel constant names"
        for const, name in reads.items():
            for r, record in enumerate(records):
                assert tables[r, getattr(K, const)] == float(getattr(record, name)), (const, r)


def test_hero_ability_columns_hold_the_rows_of_that_heros_abilities(patch):
    for r, hero in enumerate(patch.heroes):
        for slot in range(4):
            row = int(patch.hero_table[r, K.H_ABILITY0 + slot])
            assert patch.abilities[row] is hero.abilities[slot]
            assert patch.ability_table[row, K.AB_MANA] == hero.abilities[slot].mana


def test_known_values_at_their_columns(patch):
    # hand-computed from the dataclasses: the hero table starts with `primary`, then the three attributes
    assert HERO_COLUMNS[:4] == ("primary", "strength", "agility", "intelligence")
    assert (K.H_PRIMARY, K.H_STR, K.H_ABILITY0) == (0, 1, 13)
    bulwark, oracle = patch.hero_table[0], patch.hero_table[2]
    assert (bulwark[0], bulwark[1], bulwark[2], bulwark[3]) == (0, 25, 14, 16)
    assert (oracle[K.H_PRIMARY], oracle[K.H_PROJ_SPEED], oracle[K.H_INT_GAIN]) == (2, 900, 3.2)
    # Ability columns are its fields after `name`, up to `global_cast`: target=0 ... damage=4 ... mana=20 ...
    # ultimate=24, then the nine fields of the new mechanics (summon_count=25 ... global_cast=33)
    assert ABILITY_COLUMNS[0] == "target" and ABILITY_COLUMNS[-1] == "global_cast" and len(ABILITY_COLUMNS) == 34
    assert (K.AB_DAMAGE, K.AB_MANA, K.AB_ULTIMATE, K.AB_SUMMON_COUNT, K.AB_GLOBAL) == (4, 20, 24, 25, 33)
    shield_bash, skyfall = patch.ability_table[0], patch.ability_table[11]
    assert (shield_bash[4], shield_bash[7]) == (60, 1.4)  # damage, stun
    assert (skyfall[20], skyfall[21], skyfall[24]) == (200, 75, 1.0)  # mana, mana per level, ultimate
    assert ITEM_COLUMNS[0] == "cost" and len(ITEM_COLUMNS) == 18
    blink = patch.item_table[[it.name for it in ITEMS].index("blink_charm")]
    assert (blink[K.I_COST], blink[K.I_RANGE], blink[K.I_ACTIVE]) == (2250, 1200, K.ACT_BLINK)
    assert patch.creep_table[CK["melee"], K.C_HP] == 550 and patch.creep_table[CK["tier1"], K.C_VISION] == 1900
    assert (K.CR_MELEE, K.CR_NEUTRAL, K.CR_COURIER) == (0, 13, 15)
    assert RULE_COLUMNS[0] == "wave_interval" and patch.rule_vector[K.R_WAVE] == 30.0
    assert patch.rule_vector[K.R_SIEGE_VS_BUILDING] == 1.0 and K.R_SIEGE_VS_BUILDING == 31


# ---------------------------------------------------------------- (b) a field added in the middle
def with_field_inserted(cls, after: str, name: str, kind: type, default=dataclasses.MISSING):
    """A copy of dataclass ``cls`` with field ``name`` declared right after field ``after``."""
    hints = typing.get_type_hints(cls)
    specs = []
    for f in dataclasses.fields(cls):
        has_default = f.default is not dataclasses.MISSING
        specs.append((f.name, hints[f.name], dataclasses.field(default=f.default)) if has_default
                     else (f.name, hints[f.name]))
        if f.name == after:
            specs.append((name, kind, dataclasses.field(default=default)) if default is not dataclasses.MISSING
                         else (name, kind))
    return dataclasses.make_dataclass(f"{cls.__name__}WithNewField", specs, frozen=True)


def copy_as(cls, record, **extra):
    return cls(**{f.name: getattr(record, f.name) for f in dataclasses.fields(record)}, **extra)


def test_ability_field_inserted_in_the_middle_moves_columns_but_each_still_lands_right():
    Grown = with_field_inserted(Ability, after="radius", name="crit_chance", kind=float, default=0.0)
    abilities = [a for h in HEROES for a in h.abilities]
    grown = [copy_as(Grown, a, crit_chance=0.01 * (i + 1)) for i, a in enumerate(abilities)]
    columns = table_columns(Grown)
    table = np.array([table_row(a) for a in grown])
    assert len(columns) == len(ABILITY_COLUMNS) + 1
    assert columns.index("crit_chance") == 4  # target, affects, cast_range, radius, then the new field
    assert columns.index("damage") == 5 and ABILITY_COLUMNS.index("damage") == 4  # the columns after it shifted
    assert columns.index("target") == ABILITY_COLUMNS.index("target")  # the ones before it did not
    for r, a in enumerate(grown):
        for f in dataclasses.fields(Grown):
            if f.name in columns:
                assert table[r, columns.index(f.name)] == float(getattr(a, f.name)), (a.name, f.name)
    assert table[0, columns.index("damage")] == 60  # Shield Bash's damage, now at column 5
    assert table[0, K.AB_DAMAGE] == 0.01  # the old hand-typed position 4 would silently read crit_chance
    check_table("ability", table, grown)  # the start-up check accepts the grown table


def test_hero_field_inserted_before_a_composite_moves_the_composite_together():
    Grown = with_field_inserted(Hero, after="primary", name="turn_rate", kind=float)  # Hero has no defaults
    grown = [copy_as(Grown, h, turn_rate=0.5) for h in HEROES]
    columns = table_columns(Grown, HERO_COMPOSITES)
    rows = [table_row(h, HERO_COMPOSITES, abilities=tuple(range(4 * i, 4 * i + 4))) for i, h in enumerate(grown)]
    table = np.array(rows)
    assert columns[:5] == ("primary", "turn_rate", "strength", "agility", "intelligence")
    assert columns.index("ability0") == K.H_ABILITY0 + 1
    for r, h in enumerate(grown):
        assert table[r, columns.index("turn_rate")] == 0.5
        for k, attribute in enumerate(("strength", "agility", "intelligence")):
            assert table[r, columns.index(attribute)] == h.attributes[k]
            assert table[r, columns.index(attribute + "_gain")] == h.gains[k]
        assert table[r, columns.index("projectile_speed")] == h.projectile_speed
        assert [table[r, columns.index(f"ability{k}")] for k in range(4)] == [4 * r + k for k in range(4)]
    assert table[0, columns.index("strength")] == 25  # Bulwark's strength, now at column 2


def test_rule_inserted_in_the_middle_keeps_every_rule_at_its_named_column():
    Grown = with_field_inserted(Rules, after="rune_interval", name="roshan_taunt", kind=float, default=7.0)
    rules = Grown()
    columns = table_columns(Grown)
    vector = np.array(table_row(rules))
    assert columns.index("roshan_taunt") == RULE_COLUMNS.index("rune_interval") + 1
    assert columns.index("day_night_cycle") == K.R_DAY_NIGHT + 1
    for name in columns:
        assert vector[columns.index(name)] == float(getattr(rules, name))
    assert vector[columns.index("day_night_cycle")] == 300.0 and vector[K.R_DAY_NIGHT] == 7.0


# ---------------------------------------------------------------- (c) the start-up check
def test_check_names_table_row_and_column_of_a_corrupted_ability_cell():
    patch = Patch()
    patch.ability_table[4, K.AB_DAMAGE] = 51.0  # Lunge deals 50
    with pytest.raises(PatchTableError, match=r"ability table, row 4 \(Lunge\), column 4 'damage' holds 51.0, "
                                              r"but Ability.damage is 50.0"):
        check_columns(patch)
    with pytest.raises(PatchTableError, match="ability table, row 4"):
        GameBatch(1, patch=patch)  # a patch handed to the engine is checked too


def test_check_catches_a_wrong_ability_id_in_the_hero_table():
    patch = Patch()
    patch.hero_table[1, K.H_ABILITY0 + 2] = 0.0  # Vesper Blade's third ability is row 6, not Shield Bash
    with pytest.raises(PatchTableError, match=r"hero table, row 1 \(Vesper Blade\), column 15 'ability2' holds 0.0, "
                                              r"but Hero.abilities\[2\] is 6.0"):
        check_columns(patch)


def test_check_catches_a_missing_column_and_a_wrong_rule():
    patch = Patch()
    patch.item_table = patch.item_table[:, :-1]
    with pytest.raises(PatchTableError, match=r"item table has shape \(25, 17\).*need \(25, 18\)"):
        check_columns(patch)
    patch = Patch()
    patch.rule_vector[K.R_XP_RADIUS] = 1200.0
    with pytest.raises(PatchTableError, match=r"rules table, row 0, column 18 'xp_radius'"):
        check_columns(patch)
