"""Struct-of-arrays layout of the game state, shared by every Numba kernel.

All state lives in a handful of numpy arrays with a leading *game* axis, so that one kernel call advances
many games at once. Each array's last axis is a record of named fields; the names below are its column
indices. Numba reads module-level integers as compile-time constants, so ``uf[g, u, X]`` costs nothing
more than a plain index.

Unit slots have a fixed meaning per game (heroes first, then buildings, couriers, neutrals, then a pool
for lane creeps), which keeps every lookup O(1) and every game the same shape.
"""

# ---------------------------------------------------------------- time
FRAMES_PER_SECOND = 30
FRAMES_PER_STEP = 4  # the agent acts every 4th frame (one *timestep*, 0.133 s)
DT = 1.0 / FRAMES_PER_SECOND
STEP_SECONDS = FRAMES_PER_STEP / FRAMES_PER_SECOND

# ---------------------------------------------------------------- map
MAP_SIZE = 16000.0
CELL = 128.0
GRID = 125  # MAP_SIZE / CELL walkability cells per side

# ---------------------------------------------------------------- teams
RADIANT = 0
DIRE = 1
NEUTRAL_TEAM = 2
N_HEROES = 10  # hero slots per game; heroes 0-4 Radiant, 5-9 Dire
HEROES_PER_TEAM = 5
N_LANES = 3  # 0 top, 1 mid, 2 bottom

# ---------------------------------------------------------------- unit kinds
K_HERO = 0
K_CREEP_MELEE = 1
K_CREEP_RANGED = 2
K_CREEP_SIEGE = 3
K_TOWER = 4
K_BARRACKS = 5
K_ANCIENT = 6
K_FOUNTAIN = 7
K_NEUTRAL = 8
K_BIG_NEUTRAL = 9
K_COURIER = 10
N_KINDS = 11

# ---------------------------------------------------------------- unit slots (per game)
SLOT_HEROES = 0
N_TOWERS_PER_TEAM = 11
N_BARRACKS_PER_TEAM = 6
N_BUILDINGS_PER_TEAM = N_TOWERS_PER_TEAM + N_BARRACKS_PER_TEAM + 2  # + ancient + fountain
SLOT_BUILDINGS = N_HEROES
SLOT_COURIERS = SLOT_BUILDINGS + 2 * N_BUILDINGS_PER_TEAM  # 48
N_CAMPS = 6
CAMP_SIZE = 3
SLOT_NEUTRALS = SLOT_COURIERS + 2  # 50
SLOT_BIG_NEUTRAL = SLOT_NEUTRALS + N_CAMPS * CAMP_SIZE  # 68
SLOT_CREEPS = SLOT_BIG_NEUTRAL + 1  # 69
MAX_UNITS = 256  # creep pool holds MAX_UNITS - SLOT_CREEPS lane creeps; a wave that does not fit is skipped

# ---------------------------------------------------------------- unit float fields: uf[g, u, FIELD]
X = 0
Y = 1
HP = 2
HP_MAX = 3
MANA = 4
MANA_MAX = 5
HP_REGEN = 6  # per second
MANA_REGEN = 7
ARMOR = 8
MAGIC_RES = 9  # fraction of magical damage blocked
DAMAGE = 10  # attack damage
ATTACK_RANGE = 11
ATTACK_PERIOD = 12  # seconds between attacks
MOVE_SPEED = 13  # units per second
VISION_DAY = 14
VISION_NIGHT = 15
GOAL_X = 16  # where a move order or a creep path is heading
GOAL_Y = 17
FACING = 18  # radians
ATTACK_READY = 19  # frames until the next attack may start (>= 0)
SLOW_FRAC = 20
DOT_DPS = 21
BUFF_ARMOR = 22
BUFF_DAMAGE = 23
BUFF_SPEED = 24  # fraction
REGEN_BUFF = 25  # extra hp per second (consumables, auras)
MANA_BUFF = 26
HOME_X = 27  # neutrals' camp, buildings' own position
HOME_Y = 28
PROJ_SPEED = 29  # 0 = melee
BOUNTY_GOLD = 30
BOUNTY_XP = 31
AURA_ARMOR = 32  # armor, attack damage and hp/s from allied auras (heroes; refreshed every 10 frames)
AURA_DAMAGE = 33
AURA_REGEN = 34
N_UF = 35

# ---------------------------------------------------------------- unit int fields: ui[g, u, FIELD]
ALIVE = 0
TEAM = 1
KIND = 2
SUBTYPE = 3  # hero type / tower tier (1-4) / barracks 0 melee 1 ranged / camp index
LANE = 4  # 0 top, 1 mid, 2 bottom, -1 none
WAYPOINT = 5  # next lane waypoint index for creeps
TARGET = 6  # unit index being attacked, -1 none
ORDER = 7  # hero order, see O_*
STUN = 8  # frames left
SILENCE = 9
SLOW = 10
DOT = 11  # frames left of damage over time (DOT_DPS per second)
DOT_SOURCE = 12  # hero index credited for damage over time, -1 none
BUFF = 13  # frames left on the armor/damage/speed buff
REGEN = 14  # frames left on REGEN_BUFF (a poultice, the regeneration rune)
INVULN = 15  # frames of glyph invulnerability (towers)
PROTECTED = 16  # 1 while tier protection makes the building invulnerable
LAST_HERO = 17  # last hero index that damaged this unit, -1 none
LAST_HERO_FRAME = 18
HP_HISTORY = 19  # ring-buffer write position for hp history (see hp_hist)
DOUBLE_DAMAGE = 20  # frames left of the power rune
HASTE = 21  # frames left of the power rune
KILLER = 22  # unit that dealt the killing blow, -1 none
KILLER_HERO = 23  # hero credited with the killing blow, -1 none
INVISIBLE = 24  # frames left of invisibility (hidden from the enemy team's vision)
LIFETIME = 25  # frames before a summoned unit expires; 0 for every other unit
SUMMONER = 26  # the hero that summoned this unit (meaningful while LIFETIME > 0)
DOT_GROUND = 27  # 1 while the damage over time is DOT_SOURCE's burning ground's (it stops when the unit leaves)
MANA_RESTORE = 28  # frames left on MANA_BUFF (a clear_draught, the regeneration rune): its own timer, not REGEN
AGGRO_LEFT = 29  # lane creeps (feature dota_lane): frames left of the target a hero's attack on a hero drew them to
LOST_FRAMES = 30  # lane creeps (feature dota_lane): frames their target has been beyond their acquisition range
N_UI = 31

HP_HISTORY_LEN = 16

# hero orders
O_NONE = 0
O_MOVE = 1
O_ATTACK = 2
O_CAST = 3
O_HOLD = 4
O_TELEPORT = 5  # channelling a town portal
O_ATTACK_MOVE = 6
O_PICKUP = 7
O_CHANNEL = 8  # channelling an ability (hi CAST_ABILITY, CAST_TARGET, hf CAST_X/Y; hi CHANNEL_LEFT)

# ---------------------------------------------------------------- hero float fields: hf[g, h, FIELD]
STR = 0
AGI = 1
INT = 2
XP = 3
GOLD = 4
RESPAWN = 5  # seconds until respawn while dead
BUYBACK_CD = 6  # seconds
AEGIS = 7  # seconds the aegis is still held, 0 none
NET_WORTH = 8
TP_CHANNEL = 9  # seconds left of a town-portal channel
TP_X = 10
TP_Y = 11
CAST_X = 12  # pending cast point
CAST_Y = 13
DAMAGE_DEALT = 14  # stats for the summary
LANE_TIME_OUT = 15
HERO_ATTACK_FRAME = 16  # frame at which this hero last hit an enemy hero (tower aggro)
GROUND_X = 17  # centre of this hero's burning ground (meaningful while hi GROUND_LEFT > 0)
GROUND_Y = 18
N_HF = 19

# ---------------------------------------------------------------- hero int fields: hi[g, h, FIELD]
HERO_TYPE = 0
LEVEL = 1
ABILITY_LEVEL = 2  # 4 consecutive fields
ABILITY_CD = 6  # 4 consecutive fields, frames
SKILL_POINTS = 10
CAST_ABILITY = 11  # pending cast slot (0-3 ability, 4-9 item slot), -1 none
CAST_TARGET = 12  # pending cast target unit, -1 none
KILLS = 13
DEATHS = 14
ASSISTS = 15
LAST_HITS = 16
DENIES = 17
ASSIGNED_LANE = 18
ACTIVE = 19  # hero takes part in this game (1v1 mid uses two)
INVALID_ACTIONS = 20
BUILD_POS = 21  # next entry of the scripted item build
CHANNEL_LEFT = 22  # frames of channelling left (O_CHANNEL)
GROUND_LEFT = 23  # frames left of this hero's burning ground (an area ability with damage over time), 0 none
GROUND_ABILITY = 24  # the ability id and level of that ground
GROUND_LEVEL = 25
AGGRO_COOLDOWN = 26  # frames until this hero's attack on a hero draws the enemy's lane creeps again (dota_lane)
DEATHS_TO_CREEPS = 27  # this hero's deaths by the killing blow's unit: a lane creep,
DEATHS_TO_TOWERS = 28  # a tower or fountain,
DEATHS_TO_HEROES = 29  # a hero or its summon (the rest of DEATHS: neutrals, or no unit)
N_HI = 30

# ---------------------------------------------------------------- items: items[g, h, slot, FIELD]
N_INVENTORY = 6
N_BACKPACK = 3
N_ITEM_SLOTS = N_INVENTORY + N_BACKPACK
IT_ID = 0  # -1 empty
IT_CHARGES = 1
IT_COOLDOWN = 2  # frames
N_IT = 3
STASH = 6  # stash[g, h, k] items bought away from base, waiting for the courier

# ---------------------------------------------------------------- projectiles: proj[g, p, FIELD]
MAX_PROJECTILES = 96
PJ_ACTIVE = 0
PJ_X = 1
PJ_Y = 2
PJ_TARGET = 3
PJ_SPEED = 4
PJ_DAMAGE = 5
PJ_SOURCE = 6  # unit index of the attacker
PJ_ABILITY = 7  # ability id, -1 plain attack
PJ_LEVEL = 8
N_PJ = 9

# ---------------------------------------------------------------- per-game fields: gi[g, FIELD] (int64)
G_FRAME = 0
G_DONE = 1  # 0 running, 1 terminated (a side won), 2 truncated (time limit)
G_WINNER = 2  # -1 none
G_RNG = 3  # xorshift64 state
G_WAVE = 4  # lane waves spawned so far
G_MODE = 5  # 0 standard 5v5, 1 one-vs-one mid
G_MAX_FRAMES = 6
G_GLYPH_CD0 = 7  # frames, Radiant; Dire at +1
G_BIG_RESPAWN = 9  # frame at which the big neutral respawns, -1 alive
G_AEGIS_ON_GROUND = 10  # 1 while the aegis lies in the pit
G_RUNE0 = 11  # rune kind at rune spot 0 / 1: 0 none, 1 bounty, 2 double damage, 3 haste, 4 regeneration
G_RUNE1 = 12
RUNE_NAMES = ("none", "bounty", "double_damage", "haste", "regeneration")  # by rune kind (G_RUNE0, G_RUNE1)
G_COURIER_TARGET0 = 13  # hero the courier is delivering to, -1 none; Dire at +1
G_COURIER_RESPAWN0 = 15  # frame at which a dead courier respawns; Dire at +1
G_TRAINING = 17  # bits of the game's randomisation (0: none, the standard game):
RANDOM_BUILDS = 1  # scripted item and skill builds randomised around each hero's (GameConfig.training)
RANDOM_START = 2  # lanes, starting health/mana/gold and the big neutral's health drawn (GameConfig.randomise)
G_KILLS0 = 18  # hero kills per team (Radiant, Dire)
G_TOWERS_LOST0 = 20  # per team
G_BARRACKS_LOST0 = 22
G_MEGAS0 = 24
G_SUPER0 = 26  # bit mask per team of lanes x (melee, ranged) with super creeps; Dire at +1
N_GI = 28

# ---------------------------------------------------------------- reward events: events[g, h, EVENT]
# One column per row of the paper's reward table, in raw units; fivestack.rl turns them into rewards.
EV_WIN = 0  # 1 at the step the hero's team wins (team)
EV_HERO_DEATH = 1  # deaths (solo)
EV_COURIER_DEATH = 2  # own courier died (team)
EV_XP = 3  # experience gained (solo)
EV_GOLD = 4  # gold gained (solo)
EV_GOLD_SPENT = 5  # gold spent (solo)
EV_HEALTH = 6  # change of h(x) = (x + 1 - (1 - x)^4) / 2, x = health fraction (solo)
EV_MANA = 7  # change of the mana fraction (solo)
EV_KILLED_HERO = 8  # enemy heroes this hero killed (solo)
EV_LAST_HIT = 9  # (solo)
EV_DENY = 10  # (solo)
EV_AEGIS = 11  # own team picked up the aegis (team)
EV_ANCIENT_HP = 12  # change of the own ancient's health fraction, <= 0 (team)
EV_MEGAS = 13  # own team lost its last barracks (team)
EV_T1_HP = 14  # change of own tier-1 towers' health fractions, <= 0 (team)
EV_T2_HP = 15
EV_T3_HP = 16
EV_T4_HP = 17
EV_BARRACKS_HP = 18
EV_T1_LOST = 19  # own tier-1 towers destroyed (team)
EV_T2_LOST = 20
EV_T3_LOST = 21
EV_T4_LOST = 22
EV_BARRACKS_LOST = 23
EV_ANCIENT_LOST = 24
EV_LANE_OUTSIDE = 25  # seconds spent away from the assigned lane (solo)
N_EVENTS = 26

EVENT_NAMES = (
    "win", "hero_death", "courier_death", "xp", "gold", "gold_spent", "health", "mana",
    "killed_hero", "last_hit", "deny", "aegis", "ancient_hp", "megas",
    "tower_t1_hp", "tower_t2_hp", "tower_t3_hp", "tower_t4_hp", "barracks_hp",
    "tower_t1_lost", "tower_t2_lost", "tower_t3_lost", "tower_t4_lost", "barracks_lost", "ancient_lost",
    "lane_outside_seconds",
)
assert len(EVENT_NAMES) == N_EVENTS

# ---------------------------------------------------------------- the action
A_NOOP = 0
A_MOVE = 1  # point: caster + offset * MOVE_STEP
A_ATTACK = 2  # unit
A_STOP = 3  # drop the current order
A_HOLD = 4  # stay in place, attack what comes in range
A_ABILITY0 = 5  # 5..8 the hero's four abilities
A_ITEM0 = 9  # 9..14 inventory slots
A_TOWN_PORTAL = 15  # unit: an allied building
A_BUYBACK = 16
A_GLYPH = 17
A_ATTACK_MOVE = 18  # point: walk there, fighting what is met
A_PICKUP = 19  # walk to the nearest rune or aegis and take it
N_PRIMARY = 20
PRIMARY_NAMES = (
    "noop", "move", "attack", "stop", "hold", "ability_1", "ability_2", "ability_3", "ultimate",
    "item_1", "item_2", "item_3", "item_4", "item_5", "item_6", "town_portal", "buyback", "glyph",
    "attack_move", "pickup",
)
assert len(PRIMARY_NAMES) == N_PRIMARY

N_DELAY = 4
N_UNIT_SLOTS = 189  # observed unit slots, per team
N_OFFSET = 9  # offsets -4..+4 on each axis
MOVE_STEP = 150.0  # world units per offset cell around the caster (the paper's moves, point abilities)
TARGET_OFFSET_STEP = 100.0  # world units per offset cell around a unit target
# How far a move (and attack-move) reaches: offset cell k (0..8) of each axis puts the goal MOVE_GOALS[name][k] world
# units from the hero on that axis (``GameConfig.move_goals``, one table per game). "grid", the paper's: k - 4 steps
# of MOVE_STEP, at most 600 units; "reach": steps growing four-fold (150, 600, 2,400, 9,600 units), so that one order
# can cross the map (16,000 units) and the paper's 150 and 600 stay exact. Point abilities keep their uniform grid.
MOVE_GOALS = {
    "grid": tuple((k - (N_OFFSET - 1) // 2) * MOVE_STEP for k in range(N_OFFSET)),
    "reach": (-9600.0, -2400.0, -600.0, -150.0, 0.0, 150.0, 600.0, 2400.0, 9600.0),
}
PAPER_MOVE_GOALS = "grid"
DUEL_KILLS = 2  # 1v1 mid: the hero kills that end the game (GameConfig.duel_kills; 0: kills never end it)
assert all(len(t) == N_OFFSET and t[(N_OFFSET - 1) // 2] == 0.0 and list(t) == sorted(t) for t in MOVE_GOALS.values())

# action array columns: actions[g, h, COLUMN]
ACT_PRIMARY = 0
ACT_DELAY = 1
ACT_TARGET = 2
ACT_OFFSET_X = 3
ACT_OFFSET_Y = 4
N_ACTION_FIELDS = 5
# the action row of a hero told nothing: no-op, no delay, no target, offsets 0; it keeps its current order
NO_ORDER = (A_NOOP, 0, -1, 0, 0)

# ability target types
T_NONE = 0
T_POINT = 1
T_UNIT = 2
T_UNIT_OFFSET = 3
# the target kinds of an action (``kernels.target_kind_for``): 0 none, 1 attackable unit, 2 enemy non-building,
# 3 ally (hero or creep), 4 allied building (town portal), 5 any unit the team sees (an anchored move's anchor)
TK_ANCHOR = 5
N_TARGET_KINDS = TK_ANCHOR + 1

# modes
MODE_5V5 = 0
MODE_1V1_MID = 1
