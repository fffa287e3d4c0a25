"""The simulator's hot loops: Numba kernels over the struct-of-arrays state of many games.

This package's ``__init__`` is its public face: code outside ``game/`` imports ``from fivestack.game import
kernels`` (often as ``K``) and uses ``kernels.step_games``, ``K.dist2``, ``K.AB_MANA``, ... from here, never
from the modules below, which may be re-cut without notice.

Every kernel takes ``S``, the mutable state of all games (``game.state.State``), and/or ``D``, the read-only
data of the patch and the map (``game.state.Data``), and a game index ``g``. ``step_games`` advances every
running game by one agent timestep (4 frames) and is the only entry point the engine calls per step;
``reset_games`` lays out fresh games.

Map (each module imports only from those above it):

    constants     engine distances and limits (ACQUIRE_RADIUS, HULL, GRID_SIDE, ...)
    helpers       random streams, distances, day/night, team of a hero, building slots, walkability
    stats         refresh_hero (derived stats), net_worth
    progression   xp, gold, levels, skills, scripted purchases, stash and inventory
    creation      set_unit, spawn_hero, camps, tower protection, reset_game
    spatial       the spatial hash and nearest_enemy
    aggro         whom lane creeps and towers attack under patch feature dota_lane (priority, aggro, call for
                  help, leash, the walk back to the lane)
    combat        movement, projectiles, damage, attacking
    abilities     what abilities and item actives do (with summons, channels, blinks, auras, global casts)
    availability  which actions are available (shared with the env's masks)
    actions       apply_action, continue_cast
    behaviour     per-frame behaviour of heroes, creeps, towers, neutrals, the courier
    deaths        kills, bounties, respawn, buildings falling, the end of a game
    spawning      creep waves, runes, pick-ups
    frame         one frame of one game (frame_update)
    vision        vision and the per-step bookkeeping (finish_step)
    step          the entry points step_games and reset_games

The table columns (``H_*``, ``AB_*``, ``I_*``, ``C_*``, ``R_*``), the creep-table rows (``CR_*``) and the item
actives (``ACT_*``) are derived in ``game.patch`` from the patch's dataclasses; they are re-exported here.
"""

from __future__ import annotations

from fivestack.game.kernels.constants import (
    ACQUIRE_RADIUS, CHASE_LIMIT, COURIER_REACH, FOUNTAIN_RADIUS, GRID_CELL, GRID_SIDE, HULL,
    LANE_ASSIGNMENT_DISTANCE, LANE_ASSIGNMENT_SECONDS, LANE_RETURN, MAX_LEVEL, NEUTRAL_LEASH, PICKUP_RADIUS, SHOP_RADIUS,
    TEAM_GOLD_FOR_BUILDING, WAYPOINT_REACHED,
)
from fivestack.game.kernels.helpers import (
    building_slot, clampf, dist2, health_shape, is_night, rand01, splitmix64, team_of_hero, walkable, xorshift01,
)
from fivestack.game.kernels.stats import net_worth, refresh_hero
from fivestack.game.kernels.progression import (
    deliver_stash, give_gold, give_xp, learn_skill, put_item, scripted_purchases, share_xp, swap_items,
)
from fivestack.game.kernels.creation import (
    reset_game, set_unit, spawn_big_neutral, spawn_camp, spawn_hero, update_protection,
)
from fivestack.game.kernels.spatial import build_grid, can_be_attacked, cell_range, nearest_enemy
from fivestack.game.kernels.combat import (
    attack_damage, attack_or_approach, building_damage_factor, deal_damage, hero_of, move_toward,
    physical_multiplier, spawn_projectile,
)
from fivestack.game.kernels.abilities import (
    ability_value, affects, apply_area, apply_effects, channel_tick, consume_charge, has_tp, interrupt_channel,
    land_ability, refresh_auras, resolve_ability, spawn_summons, start_teleport, use_item,
)
from fivestack.game.kernels.availability import (
    ability_of, ability_ready, any_pickup, buyback_cost, item_ready, primary_available, target_kind_for,
    uses_offset, valid_target,
)
from fivestack.game.kernels.aggro import (
    attack_target, call_for_help, draw_creep_aggro, lane_creep_target, lane_walk_point, pick_target,
    tower_defends_heroes,
)
from fivestack.game.kernels.actions import apply_action, continue_cast, goal_cells, move_goal, nearest_cell, offset_point
from fivestack.game.kernels.behaviour import (
    hero_may_attack, update_courier, update_creep, update_hero, update_neutral, update_summon, update_tower,
)
from fivestack.game.kernels.deaths import end_game, kill_building, kill_hero, kill_unit, resolve_deaths
from fivestack.game.kernels.spawning import free_creep_slot, pick_up, spawn_runes, spawn_wave
from fivestack.game.kernels.frame import frame_update, tick_statuses, update_projectiles
from fivestack.game.kernels.vision import finish_step, snapshot, update_vision
from fivestack.game.kernels.step import reset_games, step_games
from fivestack.game.lanes import lane_distance
from fivestack.game.layout import SLOT_CREEPS
from fivestack.game.patch import (
    AB_AURA, AB_BLINK, AB_CHANNEL_TIME, AB_GLOBAL, AB_INVISIBLE_TIME, AB_SUMMON_COUNT, AB_SUMMON_DAMAGE,
    AB_SUMMON_HP, AB_SUMMON_TIME, AB_AFFECTS, AB_BUFF_ARMOR, AB_BUFF_DAMAGE, AB_BUFF_SPEED, AB_BUFF_TIME, AB_COOLDOWN, AB_COOLDOWN_LVL, AB_DAMAGE,
    AB_DAMAGE_LVL, AB_DAMAGE_TYPE, AB_DOT, AB_DOT_TIME, AB_HEAL, AB_HEAL_LVL, AB_MANA, AB_MANA_LVL, AB_PROJ_SPEED,
    AB_RADIUS, AB_RANGE, AB_SILENCE, AB_SLOW, AB_SLOW_TIME, AB_STUN, AB_TARGET, AB_ULTIMATE, ACT_AREA_HEAL,
    ACT_BLINK, ACT_HEAL_OVER_TIME, ACT_MANA_OVER_TIME, ACT_NONE, ACT_STUN, ACT_TELEPORT, CR_BIG_NEUTRAL, CR_COURIER,
    CR_MELEE, CR_NEUTRAL, CR_RANGED, CR_SIEGE, CR_SUPER_MELEE, CR_SUPER_RANGED, C_ARMOR, C_ATTACK_TIME, C_DAMAGE,
    C_GOLD, C_HP, C_PROJ, C_RANGE, C_SPEED, C_VISION, C_XP, H_ABILITY0, H_AGI, H_AGI_GAIN, H_ARMOR, H_ATTACK_TIME,
    H_DAMAGE, H_INT, H_INT_GAIN, H_PRIMARY, H_PROJ_SPEED, H_RANGE, H_SPEED, H_STR, H_STR_GAIN, I_ACTIVE, I_AGI,
    I_AMOUNT, I_ARMOR, I_CHARGES, I_COOLDOWN, I_COST, I_DAMAGE, I_DURATION, I_HP, I_HP_REGEN, I_INT, I_MANA,
    I_MANA_REGEN, I_RANGE, I_SPEED, I_STR, I_TARGET, R_AEGIS, R_AGGRO_COOLDOWN, R_AGGRO_RADIUS, R_AGGRO_TIME,
    R_ASSIST_GOLD, R_CALL_FOR_HELP, R_CREEP_LEASH, R_CREEP_REPICK, R_BIG_RESPAWN, R_BOUNTY_GOLD,
    R_BUYBACK_BASE, R_BUYBACK_CD, R_BUYBACK_LVL, R_CAMP_RESPAWN, R_COURIER_RESPAWN, R_CREEP_VS_BUILDING,
    R_DAY_NIGHT, R_FOUNTAIN_REGEN, R_GLYPH_CD, R_GLYPH_TIME, R_KILL_GOLD, R_KILL_GOLD_LVL, R_KILL_XP, R_KILL_XP_LVL,
    R_MELEE, R_PASSIVE_GOLD, R_RANDOM_BIG_HEALTH_MIN, R_RANDOM_GOLD_MAX, R_RANDOM_GOLD_MIN, R_RANDOM_HEALTH_MIN,
    R_RANDOM_MANA_MIN, R_RANGED, R_RESPAWN_BASE, R_RESPAWN_LVL, R_RICH_CREEPS_BOUNTY, R_RUNE_INTERVAL,
    R_SIEGE_EVERY, R_SIEGE_VS_BUILDING, R_START_GOLD, R_TP_TIME, R_UPGRADE, R_UPGRADE_INTERVAL, R_WAVE, R_XP_RADIUS,
)
