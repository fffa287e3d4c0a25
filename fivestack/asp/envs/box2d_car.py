"""RLLab's damped Box2D mountain car (``rllab/envs/box2d/mountain_car_env.py``), the car the paper used,
re-implemented for many cars at once in numpy. Written here from the RLLab world description, not copied.

The RLLab world (``mountain_car.xml.mako``): a 0.4 x 0.2 box of density 5 (mass 0.4 kg) on a static track
y = 1 - cos(pi x / 2) for |x| <= 2 (valley bottom at x = 0, height 1 - cos(0.3 pi) = 0.41 at the goal x = 0.6),
Box2D's default gravity 10 m/s^2, a time step of 0.05 s, and a force of at most 1 N along the box's own
x axis. Observation (x, x-dot): the box's horizontal position and velocity. An episode starts at the valley
bottom with x-dot ~ U(-1, 1) and ends when x >= 0.6 (the top; the paper's sparse +1) or |x| >= 2.

What is modelled: the car as a point on the track, its force along the track's tangent, and the exact
geometry of the curve (the bead-on-a-wire equation in x):

    k = 1 + h'(x)^2,  h(x) = 1 - cos(pi x / 2)
    x'' = (F / M sqrt(k) - G h' - h' h'' x'^2) / (INERTIA k) - DAMPING x'
    friction: |x'| shrinks by DT MU G / k each step, never past zero (so a car at rest on the flat stays)

stepped by semi-implicit Euler (velocity first, then position with the new velocity), as Box2D does.

What Box2D adds on top of the geometry, and how it is matched: the box rests on two corners and turns with
the track (rotational inertia m (0.4^2 + 0.2^2) / 12 = 0.0067, about 10% of the car's translational inertia
at the valley bottom: ``INERTIA`` 1.1), and it loses energy in its contacts with the 200-segment chain that
is the track (the chain's vertices, Box2D's friction sqrt(0.0005 * 0.2) = 0.01 and its contact solver).
``DAMPING`` (viscous, per second) and ``MU`` (friction) were fitted by a grid search to the free decay of the
real Box2D world (pybox2d 2.3.10, the RLLab XML world rebuilt, no force applied): peak |x-dot| per 25-step
window, the steps where x-dot changes sign, and the step after which |x-dot| stays below 0.01. Measured there
against this model:

    no force, from Box2D's state after its first step (x, x-dot) = (0.02, 0.85):
      peak |x-dot| per 25 steps     Box2D 0.75 0.54 0.37 0.21 0.14 0.03 0    here 0.80 0.55 0.35 0.21 0.10 0.03 0
      x-dot changes sign at steps   Box2D 5 19 33 47 62 76 92 108           here 5 19 32 46 59 72 86 99
    no force, |x-dot| < 0.01 for good after, from (0, 1) / (0.32, 0.93) / (-0.25, -1.04):
                                    Box2D 140 / 194 / 182 steps             here 152 / 192 / 179
    uniform random force bins, 500 steps from x-dot ~ U(-1, 1):
                                    Box2D 0 of 2,000 reach the top          here 0 of 20,000
                                    max x: median 0.17, 99th percentile 0.25   here 0.17, 0.26
    force = sign(x-dot), steps to the top from x-dot 0 / -1:
                                    Box2D 80-115 / 57                       here 82 / 62

So with no force a velocity of 1 dies out in about 150 steps, random actions never reach the top, and a car
that pushes with its velocity gets there in under 100 steps. The first Box2D step also pushes the box out of
the track it starts in (x-dot 1 -> 0.85); that artefact of RLLab's reset is not modelled.
"""

from __future__ import annotations

import numpy as np

G = 10.0            # Box2D's default gravity (the RLLab world sets none)
M = 0.4             # 0.4 x 0.2 box, density 5
DT = 0.05           # the world's timestep
MAX_FORCE = 1.0     # the control's ctrllimit (-1, 1) N
INERTIA = 1.1       # translational + rotational inertia of the turning box, relative to translational alone
DAMPING = 0.5       # 1/s, viscous loss in the contacts (fitted to Box2D's free decay)
MU = 0.006          # Coulomb friction along the track (fitted with DAMPING)
GOAL_X = 0.6        # RLLab's goal_cart_pos
MAX_X = 2.0         # RLLab's max_cart_pos: |x| >= 2 ends the episode (the track's ends)


def height(x):
    """The track: y = 1 - cos(pi x / 2), 0 at the valley bottom, 2 at x = +-2."""
    return 1.0 - np.cos(np.pi * np.asarray(x) / 2)


def step(x, v, force):
    """One 0.05 s step for arrays of cars: position x, velocity v (both horizontal), force in [-1, 1] N
    along the track. Returns the new (x, v)."""
    s, c = np.sin(np.pi * x / 2), np.cos(np.pi * x / 2)
    slope = np.pi / 2 * s                      # h'(x)
    curve = np.pi ** 2 / 4 * c                 # h''(x)
    k = 1.0 + slope * slope
    accel = (np.clip(force, -MAX_FORCE, MAX_FORCE) / M * np.sqrt(k) - G * slope
             - slope * curve * v * v) / (INERTIA * k) - DAMPING * v
    v = v + DT * accel
    v = np.sign(v) * np.maximum(np.abs(v) - DT * MU * G / k, 0.0)
    return x + DT * v, v
