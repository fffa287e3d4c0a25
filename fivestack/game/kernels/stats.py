"""A hero's derived stats (armor, damage, attack period, speed, hp and mana pools) recomputed from its
attributes, level and inventory (``refresh_hero``), its net worth, and the team ahead in net worth.
"""

from __future__ import annotations

from fivestack.game.jit import kernel
from fivestack.game.layout import (
    ACTIVE, AGI, ARMOR, ATTACK_PERIOD, DAMAGE, GOLD, HERO_TYPE, HP, HP_MAX, HP_REGEN, INT, IT_ID, MANA, MANA_MAX,
    HEROES_PER_TEAM, MANA_REGEN, MOVE_SPEED, N_INVENTORY, N_ITEM_SLOTS, STR,
)
from fivestack.game.patch import (
    H_ARMOR, H_ATTACK_TIME, H_DAMAGE, H_PRIMARY, H_SPEED, I_AGI, I_ARMOR, I_COST, I_DAMAGE, I_HP, I_HP_REGEN, I_INT,
    I_MANA, I_MANA_REGEN, I_SPEED, I_STR,
)


@kernel
def refresh_hero(S, D, g, h):
    """Recompute a hero's derived stats from attributes, level and inventory, keeping health fractions."""
    uf, ui, hf, hi, items = S.uf, S.ui, S.hf, S.hi, S.items
    hero_t, item_t = D.hero_table, D.item_table
    ht = hi[g, h, HERO_TYPE]
    strength, agility, intel = hf[g, h, STR], hf[g, h, AGI], hf[g, h, INT]
    dmg = 0.0
    armor = 0.0
    hp = 0.0
    mana = 0.0
    hp_regen = 0.0
    mana_regen = 0.0
    speed = 0.0
    for s in range(N_INVENTORY):
        it = items[g, h, s, IT_ID]
        if it < 0:
            continue
        strength += item_t[it, I_STR]
        agility += item_t[it, I_AGI]
        intel += item_t[it, I_INT]
        dmg += item_t[it, I_DAMAGE]
        armor += item_t[it, I_ARMOR]
        hp += item_t[it, I_HP]
        mana += item_t[it, I_MANA]
        hp_regen += item_t[it, I_HP_REGEN]
        mana_regen += item_t[it, I_MANA_REGEN]
        speed += item_t[it, I_SPEED]
    primary = int(hero_t[ht, H_PRIMARY])
    prim_value = strength if primary == 0 else (agility if primary == 1 else intel)
    hp_frac = uf[g, h, HP] / uf[g, h, HP_MAX] if uf[g, h, HP_MAX] > 0 else 1.0
    mana_frac = uf[g, h, MANA] / uf[g, h, MANA_MAX] if uf[g, h, MANA_MAX] > 0 else 1.0
    uf[g, h, HP_MAX] = 200.0 + 20.0 * strength + hp
    uf[g, h, MANA_MAX] = 75.0 + 12.0 * intel + mana
    uf[g, h, HP] = hp_frac * uf[g, h, HP_MAX]
    uf[g, h, MANA] = mana_frac * uf[g, h, MANA_MAX]
    uf[g, h, HP_REGEN] = 0.5 + 0.1 * strength + hp_regen
    uf[g, h, MANA_REGEN] = 0.3 + 0.05 * intel + mana_regen
    uf[g, h, ARMOR] = hero_t[ht, H_ARMOR] + agility / 6.0 + armor
    uf[g, h, DAMAGE] = hero_t[ht, H_DAMAGE] + prim_value + dmg
    uf[g, h, ATTACK_PERIOD] = hero_t[ht, H_ATTACK_TIME] * 100.0 / (100.0 + agility)
    uf[g, h, MOVE_SPEED] = hero_t[ht, H_SPEED] + speed


@kernel
def net_worth(S, D, g, h):
    hf, items = S.hf, S.items
    item_t = D.item_table
    total = hf[g, h, GOLD]
    for s in range(N_ITEM_SLOTS):
        it = items[g, h, s, IT_ID]
        if it >= 0:
            total += item_t[it, I_COST]
    return total


@kernel
def net_worth_leader(S, D, g):
    """The team whose heroes in play (``ACTIVE``) hold more net worth in game ``g`` together; -1 on a tie."""
    hi = S.hi
    radiant = 0.0
    dire = 0.0
    for k in range(HEROES_PER_TEAM):
        if hi[g, k, ACTIVE] != 0:
            radiant += net_worth(S, D, g, k)
        if hi[g, HEROES_PER_TEAM + k, ACTIVE] != 0:
            dire += net_worth(S, D, g, HEROES_PER_TEAM + k)
    if radiant > dire:
        return 0
    if dire > radiant:
        return 1
    return -1
