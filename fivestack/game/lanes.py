"""Lane geometry, the one copy: where a point lies along a lane, and the lane point at a distance.

A lane is a polyline of waypoints ``lanes[lane, w]`` (``Data.lanes``) from the Radiant end to the Dire end.
The simulator uses it for the lane-assignment rule and the observation's lane distance, the scripted bot
for walking and holding its lane. Every function is a Numba kernel taking the waypoint array.
"""

from __future__ import annotations

import math

from fivestack.game.jit import kernel


@kernel
def lane_length(lanes, lane):
    """Total length of ``lane``."""
    total = 0.0
    for w in range(lanes.shape[1] - 1):
        dx = lanes[lane, w + 1, 0] - lanes[lane, w, 0]
        dy = lanes[lane, w + 1, 1] - lanes[lane, w, 1]
        total += math.sqrt(dx * dx + dy * dy)
    return total


@kernel
def lane_project(lanes, lane, x, y):
    """(arc length from the Radiant end of the lane point nearest to (x, y), distance to it)."""
    best = 1e30
    best_s = 0.0
    acc = 0.0
    for w in range(lanes.shape[1] - 1):
        ax, ay = lanes[lane, w, 0], lanes[lane, w, 1]
        dx, dy = lanes[lane, w + 1, 0] - ax, lanes[lane, w + 1, 1] - ay
        l2 = dx * dx + dy * dy
        if l2 <= 0.0:
            continue
        seg = math.sqrt(l2)
        t = ((x - ax) * dx + (y - ay) * dy) / l2
        t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
        px, py = ax + t * dx - x, ay + t * dy - y
        d = px * px + py * py
        if d < best:
            best = d
            best_s = acc + t * seg
        acc += seg
    return best_s, math.sqrt(best)


@kernel
def lane_distance(lanes, lane, x, y):
    """Distance from (x, y) to ``lane``."""
    return lane_project(lanes, lane, x, y)[1]


@kernel
def lane_point(lanes, lane, s):
    """The lane point at arc length ``s`` from the Radiant end (the ends beyond the lane's length)."""
    acc = 0.0
    n = lanes.shape[1]
    if s <= 0.0:
        return lanes[lane, 0, 0], lanes[lane, 0, 1]
    for w in range(n - 1):
        ax, ay = lanes[lane, w, 0], lanes[lane, w, 1]
        dx, dy = lanes[lane, w + 1, 0] - ax, lanes[lane, w + 1, 1] - ay
        seg = math.sqrt(dx * dx + dy * dy)
        if seg <= 0.0:
            continue
        if acc + seg >= s:
            t = (s - acc) / seg
            return ax + t * dx, ay + t * dy
        acc += seg
    return lanes[lane, n - 1, 0], lanes[lane, n - 1, 1]


@kernel
def progress(lanes, lane_len, team, lane, x, y):
    """How far along ``lane`` a point is from ``team``'s end, and its distance to the lane."""
    s, d = lane_project(lanes, lane, x, y)
    return (s if team == 0 else lane_len[lane] - s), d


@kernel
def progress_point(lanes, lane_len, team, lane, p):
    """The lane point ``p`` along ``lane`` from ``team``'s end (clamped to the lane)."""
    p = 0.0 if p < 0.0 else (lane_len[lane] if p > lane_len[lane] else p)
    return lane_point(lanes, lane, p if team == 0 else lane_len[lane] - p)
