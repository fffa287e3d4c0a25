"""Engine constants the kernels share: neighbour-query grid, reach and radius distances, and limits.

They are rules of the engine, not data of a patch (those are the tables built in ``game.patch``).
"""

GRID_CELL = 1000.0  # spatial hash cell for neighbour queries
GRID_SIDE = 16
ACQUIRE_RADIUS = 500.0  # lane creeps and heroes pick targets within this distance
CHASE_LIMIT = 1200.0  # creeps give up a target this far away
NEUTRAL_LEASH = 900.0
PICKUP_RADIUS = 150.0
COURIER_REACH = 200.0
FOUNTAIN_RADIUS = 1200.0
SHOP_RADIUS = 1500.0
HULL = 40.0  # attack reach beyond the attack range
TEAM_GOLD_FOR_BUILDING = 1  # buildings pay their bounty to every hero of the enemy team
WAYPOINT_REACHED = 150.0
LANE_RETURN = 200.0  # dota_lane: a lane creep this far off its lane's path walks back to it before walking on
LANE_ASSIGNMENT_SECONDS = 600.0  # the lane-assignment event counts during the first 10 minutes
LANE_ASSIGNMENT_DISTANCE = 1500.0
MAX_LEVEL = 25
