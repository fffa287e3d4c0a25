"""What a player of the last-hit drill does when a last hit is there to take: one JSON line.

At each of the learner's decisions the benchmark asks the scripted hero's rule (``bots.scripted.farming.
last_hit_target``, denies left out, within the hero's reach + 250 units) whether an enemy lane creep will die to one
attack of the hero when it lands; such a decision is a *chance*. It counts what the player ordered at its chances:
an attack on that creep (``took``), an attack on another unit (``other_attack``) or no attack (``no_attack``), and
at how many of them the hero's attack was ready (``ready``: not still cooling down from an earlier attack, the
state a hero that holds fire is in). The episodes are the drill's evaluation episodes (``drill_success``: the same
games for every player with the same ``--eval-seed``)::

    python benchmarks/lasthit_chances.py --run runs/drill-lasthit-seed0-...            # a trained run, sampled
    python benchmarks/lasthit_chances.py --run runs/drill-lasthit-seed0-... --greedy   # ... its most likely actions
    python benchmarks/lasthit_chances.py --run runs/drill-lasthit-seed0-... --bot scripted   # the bot in its place

``--run`` names the run whose drill config the episodes follow (its patch, its window); with ``--bot`` the bot
plays them instead of the run's policy.
"""

from __future__ import annotations

import argparse
import json
import os

import numpy as np

from fivestack.bots.scripted.farming import last_hit_target
from fivestack.game.kernels import HULL
from fivestack.game.layout import A_ATTACK, ACT_PRIMARY, ACT_TARGET, ATTACK_RANGE, ATTACK_READY
from fivestack.match.agents import load_run_policy
from fivestack.match.inference import Inference
from fivestack.system.drill_eval import BotPlayer, drill_success
from fivestack.system.pool import LATEST

COUNTS = ("decisions", "attacks", "chances", "took", "other_attack", "no_attack", "ready", "ready_took")


class ChanceCounter(BotPlayer):
    """Plays as ``player`` (an ``Inference`` or a ``BotPlayer``) and counts what it does at each chance; bound to
    the evaluation's worker by ``drill_success``, as a bot is."""

    def __init__(self, player):
        self.player = player
        self.counts = dict.fromkeys(COUNTS, 0)

    def bind(self, worker):
        play = self.player.bind(worker) if isinstance(self.player, BotPlayer) else self.player
        S = worker.env.game.state
        c = self.counts

        def infer(request):
            rows = np.flatnonzero(worker.row_owners() == LATEST)  # the learner's rows: game 2g + side
            games, sides = rows // 2, rows % 2
            heroes = np.array([worker.heroes[s][0] for s in sides])
            chances = [last_hit_target(S, g, h, s, max(S.uf[g, h, ATTACK_RANGE] + HULL + 250.0, 500.0), False)
                       for g, h, s in zip(games, heroes, sides)]  # before the orders are carried out
            result = play(request)
            slot_units = worker.env.unit_of_slot  # (games, 2, slots): the unit in each slot of a team's view
            for i, (g, h, s, chance) in enumerate(zip(games, heroes, sides, chances)):
                order = result.actions[i, 0]
                attack = order[ACT_PRIMARY] == A_ATTACK
                target = int(slot_units[g, s, order[ACT_TARGET]]) if attack else -1
                c["decisions"] += 1
                c["attacks"] += int(attack)
                if chance < 0:
                    continue
                ready = bool(S.uf[g, h, ATTACK_READY] <= 0.0)
                c["chances"] += 1
                c["ready"] += int(ready)
                if target == chance:
                    c["took"] += 1
                    c["ready_took"] += int(ready)
                else:
                    c["other_attack" if attack else "no_attack"] += 1
            return result
        return infer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", required=True, help="a last-hit drill run folder (its config; its policy plays)")
    parser.add_argument("--bot", default="", help="a bot plays the learner's hero instead (e.g. scripted)")
    parser.add_argument("--greedy", action="store_true", help="the run's policy plays its most likely actions")
    parser.add_argument("--episodes", type=int, default=203, help="evaluation episodes (203: the drill's)")
    parser.add_argument("--eval-seed", type=int, default=12345, help="the episodes' seed (the drill's default)")
    args = parser.parse_args()
    policy, config, version = load_run_policy(args.run)
    if config.drill.name != "lasthit":
        raise SystemExit(f"--run {args.run}: a {config.drill.name or 'non-drill'} run; give a last-hit drill run")
    player = BotPlayer(args.bot) if args.bot else Inference(policy, seed=args.eval_seed, greedy=args.greedy)
    counter = ChanceCounter(player)
    figure = drill_success(counter, config, episodes=args.episodes, seed=args.eval_seed)
    c = counter.counts
    share = lambda n, d: round(n / d, 4) if d else None  # noqa: E731
    print(json.dumps({
        "benchmark": "lasthit_chances", "run": args.run, "version": version, "patch": config.game.patch,
        "player": args.bot or ("greedy" if args.greedy else "sampled"), "eval_seed": args.eval_seed,
        "success": figure["success"], **c, "chance_share": share(c["chances"], c["decisions"]),
        "took_share": share(c["took"], c["chances"]), "ready_share": share(c["ready"], c["chances"]),
        "attack_share": share(c["attacks"], c["decisions"]), "cpu_cores": os.cpu_count()}))


if __name__ == "__main__":
    main()
