"""The two entry points the engine calls: ``step_games`` advances every running game by one agent timestep
(4 frames; each hero's action is applied on the frame its delay names), ``reset_games`` lays out fresh games
from seeds.
"""

from __future__ import annotations

from fivestack.game.jit import kernel
from fivestack.game.kernels.actions import apply_action
from fivestack.game.kernels.creation import reset_game
from fivestack.game.kernels.frame import frame_update
from fivestack.game.kernels.vision import finish_step, snapshot, update_vision
from fivestack.game.layout import (
    ACT_DELAY, ACT_OFFSET_X, ACT_OFFSET_Y, ACT_PRIMARY, ACT_TARGET, FRAMES_PER_STEP, G_DONE, N_HEROES,
)


@kernel
def step_games(S, D, W, actions):
    """Advance every running game by one timestep. ``actions[g, h]`` = primary, delay, target unit, ox, oy;
    a primary of -1 marks an action the caller found malformed (counted as invalid). ``W`` is the kernels'
    working memory (``state.Scratch``)."""
    ev, gi = S.events, S.gi
    ev[:] = 0.0
    n_games = gi.shape[0]
    for g in range(n_games):
        if gi[g, G_DONE] != 0:
            continue
        snapshot(S, g)
        for f in range(FRAMES_PER_STEP):
            for h in range(N_HEROES):
                if actions[g, h, ACT_DELAY] == f:
                    apply_action(S, D, g, h, actions[g, h, ACT_PRIMARY], actions[g, h, ACT_TARGET],
                                 actions[g, h, ACT_OFFSET_X], actions[g, h, ACT_OFFSET_Y])
            frame_update(S, D, g)
            if gi[g, G_DONE] != 0:
                break
        finish_step(S, D, W, g)


@kernel
def reset_games(S, D, W, which, seeds, mode, training, max_frames, hero_types):
    for i in range(which.shape[0]):
        g = which[i]
        reset_game(S, D, g, seeds[i], mode, training, max_frames, hero_types[g])
        snapshot(S, g)
        update_vision(S, D, W, g)
