"""How a hero grows: experience and levels (``give_xp``, ``share_xp`` among nearby heroes), gold,
skills learnt by the skill build (``learn_skill``), the scripted purchases of the item build, and moving items
between stash and inventory (``put_item``, ``swap_items``, ``deliver_stash``).
"""

from __future__ import annotations

from fivestack.game.jit import kernel
from fivestack.game.kernels.constants import MAX_LEVEL, SHOP_RADIUS
from fivestack.game.kernels.helpers import rand01, team_of_hero
from fivestack.game.kernels.stats import refresh_hero
from fivestack.game.layout import (
    ABILITY_LEVEL, ACTIVE, AGI, ALIVE, BUILD_POS, EV_GOLD, EV_GOLD_SPENT, EV_XP, GOLD, G_TRAINING, HEROES_PER_TEAM,
    HERO_TYPE, INT, IT_CHARGES, IT_COOLDOWN, IT_ID, LEVEL, N_INVENTORY, N_ITEM_SLOTS, RANDOM_BUILDS, STR, X, XP, Y,
)
from fivestack.game.patch import H_AGI_GAIN, H_INT_GAIN, H_STR_GAIN, I_CHARGES, I_COST, R_XP_RADIUS


@kernel
def put_item(S, D, g, h, it, charges):
    """Into the first free inventory slot, else the backpack; False when everything is full."""
    items = S.items
    for s in range(N_ITEM_SLOTS):
        if items[g, h, s, IT_ID] < 0:
            items[g, h, s, IT_ID] = it
            items[g, h, s, IT_CHARGES] = charges
            items[g, h, s, IT_COOLDOWN] = 0
            if s < N_INVENTORY:
                refresh_hero(S, D, g, h)
            else:
                swap_items(S, D, g, h)
            return True
    return False


@kernel
def swap_items(S, D, g, h):
    """Scripted item swap: keep the most valuable items in the inventory, the rest in the backpack."""
    items = S.items
    item_t = D.item_table
    changed = False
    for b in range(N_INVENTORY, N_ITEM_SLOTS):
        bi = items[g, h, b, IT_ID]
        if bi < 0:
            continue
        worst = -1
        worst_cost = item_t[bi, I_COST]
        for s in range(N_INVENTORY):
            si = items[g, h, s, IT_ID]
            cost = -1.0 if si < 0 else item_t[si, I_COST]
            if cost < worst_cost:
                worst_cost = cost
                worst = s
        if worst >= 0:
            for f in range(3):
                tmp = items[g, h, worst, f]
                items[g, h, worst, f] = items[g, h, b, f]
                items[g, h, b, f] = tmp
            changed = True
    if changed:
        refresh_hero(S, D, g, h)


@kernel
def deliver_stash(S, D, g, h):
    stash = S.stash
    item_t = D.item_table
    for k in range(stash.shape[2]):
        it = stash[g, h, k]
        if it >= 0 and put_item(S, D, g, h, it, int(item_t[it, I_CHARGES])):
            stash[g, h, k] = -1
    # keep the stash packed at the front
    w = 0
    for k in range(stash.shape[2]):
        if stash[g, h, k] >= 0:
            stash[g, h, w] = stash[g, h, k]
            if w != k:
                stash[g, h, k] = -1
            w += 1


@kernel
def scripted_purchases(S, D, g, h):
    """Buy the next item of the (randomised) build; a town-portal scroll is always kept in stock."""
    uf, ui, hf, hi, items, stash = S.uf, S.ui, S.hf, S.hi, S.items, S.stash
    item_t, fountain = D.item_table, D.fountain
    build_order = S.build_order
    it = -1
    from_build = False
    owns_tp = False
    for s in range(N_ITEM_SLOTS):
        if items[g, h, s, IT_ID] == 0:
            owns_tp = True
    for k in range(stash.shape[2]):
        if stash[g, h, k] == 0:
            owns_tp = True
    pos = hi[g, h, BUILD_POS]
    if not owns_tp and hi[g, h, LEVEL] >= 3:
        it = 0
    elif pos < build_order.shape[2] and build_order[g, h, pos] >= 0:
        it = build_order[g, h, pos]
        from_build = True
        if it == 0 and owns_tp:  # the build's own scroll is already in stock
            hi[g, h, BUILD_POS] += 1
            return
    if it < 0 or hf[g, h, GOLD] < item_t[it, I_COST]:
        return
    team = team_of_hero(h)
    near_shop = (uf[g, h, X] - fountain[team, 0]) ** 2 + (uf[g, h, Y] - fountain[team, 1]) ** 2 < SHOP_RADIUS ** 2
    placed = False
    if near_shop or ui[g, h, ALIVE] == 0:
        placed = put_item(S, D, g, h, it, int(item_t[it, I_CHARGES]))
    if not placed:
        for k in range(stash.shape[2]):
            if stash[g, h, k] < 0:
                stash[g, h, k] = it
                placed = True
                break
    if placed:
        hf[g, h, GOLD] -= item_t[it, I_COST]
        S.events[g, h, EV_GOLD_SPENT] += item_t[it, I_COST]
        if from_build:
            hi[g, h, BUILD_POS] += 1


@kernel
def learn_skill(S, D, g, h):
    """Scripted ability build: spend skill points on the build's next legal entry (4 = attribute bonus)."""
    hf, hi = S.hf, S.hi
    builds = D.skill_builds
    ht = hi[g, h, HERO_TYPE]
    level = hi[g, h, LEVEL]
    want = builds[ht, level - 1]
    training = S.gi[g, G_TRAINING]
    if (training & RANDOM_BUILDS) != 0 and rand01(S.gi, g) < 0.15:
        want = int(rand01(S.gi, g) * 4.0)
    for attempt in range(6):
        k = want if attempt == 0 else attempt - 1
        if k == 4 or attempt == 5:
            hf[g, h, STR] += 2.0
            hf[g, h, AGI] += 2.0
            hf[g, h, INT] += 2.0
            refresh_hero(S, D, g, h)
            return
        cur = hi[g, h, ABILITY_LEVEL + k]
        if k == 3:
            ok = cur < 3 and level >= 6 + 6 * cur
        else:
            ok = cur < 4 and level >= 2 * cur + 1
        if ok:
            hi[g, h, ABILITY_LEVEL + k] += 1
            return


@kernel
def give_xp(S, D, g, h, amount):
    hf, hi = S.hf, S.hi
    xp_table, hero_t = D.xp_table, D.hero_table
    if hi[g, h, ACTIVE] == 0:
        return
    hf[g, h, XP] += amount
    S.events[g, h, EV_XP] += amount
    while hi[g, h, LEVEL] < MAX_LEVEL and hf[g, h, XP] >= xp_table[hi[g, h, LEVEL]]:
        hi[g, h, LEVEL] += 1
        ht = hi[g, h, HERO_TYPE]
        hf[g, h, STR] += hero_t[ht, H_STR_GAIN]
        hf[g, h, AGI] += hero_t[ht, H_AGI_GAIN]
        hf[g, h, INT] += hero_t[ht, H_INT_GAIN]
        refresh_hero(S, D, g, h)
        learn_skill(S, D, g, h)


@kernel
def give_gold(S, g, h, amount):
    if S.hi[g, h, ACTIVE] == 0:
        return
    S.hf[g, h, GOLD] += amount
    S.events[g, h, EV_GOLD] += amount


@kernel
def share_xp(S, D, g, team, x, y, amount):
    """Split experience among the team's living heroes within the XP radius of (x, y)."""
    uf, ui = S.uf, S.ui
    r2 = D.rules[R_XP_RADIUS] ** 2
    n = 0
    for k in range(HEROES_PER_TEAM):
        h = team * HEROES_PER_TEAM + k
        if ui[g, h, ALIVE] != 0 and (uf[g, h, X] - x) ** 2 + (uf[g, h, Y] - y) ** 2 <= r2:
            n += 1
    if n == 0:
        return
    for k in range(HEROES_PER_TEAM):
        h = team * HEROES_PER_TEAM + k
        if ui[g, h, ALIVE] != 0 and (uf[g, h, X] - x) ** 2 + (uf[g, h, Y] - y) ** 2 <= r2:
            give_xp(S, D, g, h, amount / n)
