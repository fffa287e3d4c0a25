"""The share of invalid actions each mask option of the single-agent env gives (``match.single_agent``, ``masks``).

    python benchmarks/mask_options.py --decisions 2000 --games 32 --seed 0

sb3-contrib's ``MaskablePPO`` masks each part of a MultiDiscrete action on its own, so a mask cannot say which unit
targets go with which primary action. Each option (``union``, ``primary``, ``none``, ``joint``) is played here by a
policy that draws every part uniformly among the entries its mask allows (``sample_masked``: an untrained masked
policy), in 1v1 against ``--opponent``, for ``--decisions`` decisions of ``--games`` games (finished games restart).
The share is the env's count of the learner's invalid actions (each a counted no-op) over its actions, with the
share among actions whose primary takes a unit target. A trained policy's share is lower (it learns to pick the
targets that go with its primary): ``benchmarks/reference_learner.py`` reports it over training. One JSON line.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from fivestack.game.layout import N_UNIT_SLOTS
from fivestack.match.single_agent import MASK_OPTIONS, SingleAgentGames, sample_masked


def measure(masks: str, decisions: int, games: int, opponent: str, seed: int) -> dict:
    env = SingleAgentGames(games, opponent, masks=masks, seed=seed)
    env.reset()
    rng = np.random.default_rng([seed, 0x3A5C])
    invalid = targeted = invalid_targeted = 0
    start = time.perf_counter()
    for _ in range(decisions):
        mask = env.action_masks()
        actions = sample_masked(mask, env.encoding.nvec, rng)
        primary = actions[:, 0] // N_UNIT_SLOTS if masks == "joint" else actions[:, 0]
        heroes = env.heroes[env.learner_side, 0]
        takes = env.env.obs["target_mask"][np.arange(games), heroes, primary].any(axis=1)
        _, _, terminated, truncated, infos = env.step(actions)
        wrong = np.array([info["invalid_actions"] for info in infos])
        invalid += int(wrong.sum())
        targeted += int(takes.sum())
        invalid_targeted += int(wrong[takes].sum())
        env.restart(np.flatnonzero(terminated | truncated))
    n = decisions * games
    return {"invalid_share": round(invalid / n, 5), "actions": n, "targeted_share": round(targeted / n, 4),
            "invalid_share_of_targeted": round(invalid_targeted / max(targeted, 1), 5),
            "seconds": round(time.perf_counter() - start, 1)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--decisions", type=int, default=2000)
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--opponent", default="scripted")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--masks", default=",".join(MASK_OPTIONS))
    args = parser.parse_args(argv)
    out = {"benchmark": "mask_options", "mode": "1v1", "opponent": args.opponent, "seed": args.seed,
           "policy": "uniform among the mask's entries, per part"}
    for masks in args.masks.split(","):
        out[masks] = measure(masks, args.decisions, args.games, args.opponent, args.seed)
    from fivestack.game.patch import PATCH_VERSION

    out["patch"] = PATCH_VERSION
    print(json.dumps(out))


if __name__ == "__main__":
    main()
