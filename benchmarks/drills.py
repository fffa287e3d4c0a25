"""Issue 30's drills: train from scratch on one drill for an agent-step budget, then measure its success figure
beside two baselines on the same scenario.

    python benchmarks/drills.py --drill walk --agent-steps 1000000 --seed 0
    python benchmarks/drills.py --drill walk --agent-steps 50000 --seed 0 --episodes 64 --set rollout.games=16
    python benchmarks/drills.py --drill lasthit --agent-steps 2000000 --seed 0
    python benchmarks/drills.py --drill hold --agent-steps 3000000 --seed 0     # the lane against scripted-weak
    python benchmarks/drills.py --drill duel --agent-steps 10000000 --seed 0    # 1v1 against scripted
    python benchmarks/drills.py --drill lasthit --agent-steps 0 --bot scripted  # no training: what the bot does
    python benchmarks/drills.py --drill lasthit --run runs/drill-lasthit-seed0-... --greedy   # a finished run

Training uses ``configs/drill-DRILL.toml`` plus ``--set`` overrides (passed through as they are, e.g. a game
setting to compare), with the serial runner; training stops between segments once the run has the budget's
agent-steps. Then three players play the same ``--episodes`` hero episodes (the same games and marked points:
``--eval-seed``, fixed), each sampling its actions (``--greedy``: the trained policy's most likely ones):

    trained     the policy at the end of the budget
    untrained   fresh weights with the run's seed (a run's version 0, unless it starts from trained weights)
    do_nothing  every hero gets no order (``fivestack.game.engine.no_orders``)
    start       only for a run that starts from another run's version (``--set run.init_from=RUN[:VERSION]``, a
                curriculum: e.g. the last-hit drill's policy, then the hold): that version, untrained on this drill

and, with ``--bot NAME`` (repeatable), a bot in the learner's place as a reference (``drill_eval.BotPlayer``:
deciding when the learner decides, under ``bots``); ``--agent-steps 0`` trains nothing and measures only the
untrained, do-nothing and bot players. ``--run RUN[:VERSION]`` trains nothing either: the trained player is that
run's policy (its latest checkpoint, or the version named), measured with the run's own config (its seed, drill
and overrides; ``--seed`` and ``--set`` do not apply), e.g. a finished run measured again with ``--greedy``.

The result is one JSON line: the drill, seed, agent-steps trained, each player's success share with its 95% Wilson
interval (``fivestack.match.games.wilson_interval``) and the mean game seconds of its successes (lasthit: last hits,
enemy lane-creep deaths and their pooled share, ``drill_eval.lasthit_figure``; its episodes are learner episodes,
one per game, and its agent-steps count the idle hero's too, as played; hold and duel: one learner episode per
game, the bot's hero the other, with the shares of games won, undecided and lost, both heroes' mean last hits and
deaths, the share whose end found the learner's tower standing, ``MatchDrill.figure``), the overrides, the
drill's own success over the last tenth of training (``drill/*`` of the run's ``metrics.jsonl``), the run's folder
and the wall time. Progress shows as a bar on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from fivestack.match.agents import load_run_policy, parse_run_spec
from fivestack.match.inference import Inference
from fivestack.runs.config import DRILL_NAMES, load_config
from fivestack.system.drill_eval import BotPlayer, do_nothing, drill_success, untrained
from fivestack.system.drills import TALLIED
from fivestack.system.run_state import starting_policy
from fivestack.system.serial import SerialRunner, use_torch_threads

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def training_summary(metrics_path: Path) -> dict:
    """The drill's success over the last tenth of the run's segments, from ``metrics.jsonl``."""
    records = [r for r in map(json.loads, metrics_path.read_text().splitlines()) if "drill/episodes" in r]
    if not records:
        return {}
    tail = records[-max(len(records) // 10, 1):]
    episodes = sum(r["drill/episodes"] for r in tail)
    if "drill/creep_deaths" in records[0]:  # lasthit: last hits / enemy lane-creep deaths, pooled
        deaths = sum(r["drill/creep_deaths"] for r in tail)
        return {"episodes": int(sum(r["drill/episodes"] for r in records)), "last_tenth_episodes": int(episodes),
                "last_tenth_last_hits": int(sum(r["drill/last_hits"] for r in tail)),
                "last_tenth_creep_deaths": int(deaths),
                "last_tenth_success": round(sum(r["drill/last_hits"] for r in tail) / deaths, 4) if deaths else None}
    out = {"episodes": int(sum(r["drill/episodes"] for r in records)), "last_tenth_episodes": int(episodes),
           "last_tenth_success": round(sum(r["drill/reached"] for r in tail) / episodes, 4) if episodes else None}
    if "drill/won" in records[0] and episodes:  # hold, duel: how the training games against the bot went
        for key in ("won", "lost"):
            out[f"last_tenth_{key}"] = round(sum(r[f"drill/{key}"] for r in tail) / episodes, 4)
        for key in TALLIED:  # per game (runs from before deaths were counted have no deaths)
            if f"drill/{key}" in records[0]:
                out[f"last_tenth_{key}"] = round(sum(r[f"drill/{key}"] for r in tail) / episodes, 2)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--drill", choices=DRILL_NAMES, required=True)
    parser.add_argument("--agent-steps", type=int, default=1_000_000, help="training budget in agent-steps")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (weights, games, sampling)")
    parser.add_argument("--episodes", type=int, default=200, help="hero episodes each player is measured on")
    parser.add_argument("--eval-seed", type=int, default=12345, help="the measured episodes' games and points")
    parser.add_argument("--greedy", action="store_true", help="the trained policy plays its most likely actions")
    parser.add_argument("--runs-dir", default="runs")
    parser.add_argument("--bot", dest="bots", action="append", default=[],
                        help="also measure this bot in the learner's place (scripted, scripted-weak, random)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="section.key=value")
    parser.add_argument("--run", help="measure this run's policy (RUN or RUN:VERSION) instead of training one")
    args = parser.parse_args(argv)
    if args.agent_steps < 0 or args.episodes < 1:
        parser.error("--agent-steps must be at least 0 and --episodes at least 1")
    if args.run is not None and args.overrides:
        parser.error("--run measures a run with its own config: drop --set (start a new run to change a setting)")
    try:
        bots = {name: BotPlayer(name) for name in args.bots}
    except ValueError as e:
        parser.error(f"--bot: {e}")
    t_start = time.monotonic()
    name = f"drill-{args.drill}-seed{args.seed}-{int(time.time())}-{os.getpid()}"  # two started at once: two runs
    if args.run is not None:
        try:
            policy, config, version = load_run_policy(args.run)
        except ValueError as e:  # CheckpointError included: not a run, no such version, a damaged checkpoint
            sys.exit(f"--run: {e}")
        if config.drill.name != args.drill:
            sys.exit(f"--run: {args.run} trained drill {config.drill.name or '(none)'!r}, not {args.drill!r}; pass "
                     f"--drill {config.drill.name or 'NAME'} or another run")
    else:
        config = load_config(CONFIGS / f"drill-{args.drill}.toml", [
            f"run.seed={args.seed}", f"run.name='{name}'", f"run.runs_dir='{args.runs_dir}'",
            "eval.every_versions=0", *args.overrides, "run.minutes=0"])
    bar = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed:,.0f}/{task.total:,.0f}"),
                   TimeElapsedColumn(), console=Console(stderr=True))
    use_torch_threads(config)
    out = {"benchmark": "drills", "drill": args.drill, "seed": config.run.seed,
           "budget_agent_steps": 0 if args.run else args.agent_steps}
    runner = SerialRunner(config) if args.agent_steps and args.run is None else None
    with bar:
        def measure(player: str, infer) -> dict:
            task = bar.add_task(f"{player} ({args.drill}, episodes)", total=args.episodes)
            return drill_success(infer, config, args.episodes, args.eval_seed,
                                 on_progress=lambda done, total: bar.update(task, completed=done, total=total))

        if runner is not None:
            task = bar.add_task("training (agent-steps)", total=args.agent_steps)
            ended = runner.run(on_progress=lambda p: bar.update(task, completed=min(runner.agent_steps,
                                                                                    args.agent_steps)),
                               stop=lambda: runner.agent_steps >= args.agent_steps)
            runner.close()
            if ended.signal is not None:  # SIGTERM / Ctrl-C: stop, do not measure a run cut short
                sys.exit(f"stopped by signal {ended.signal} at {runner.agent_steps:,} agent-steps (run {runner.run_dir})")
            out.update(agent_steps=runner.agent_steps, version=runner.version, run=str(runner.run_dir),
                       train_seconds=round(time.monotonic() - t_start, 1))
            trained = Inference(runner.policy, seed=args.eval_seed, greedy=args.greedy)
            trained.value_scale = runner.optimizer.value_scale
            out["trained"] = measure("trained", trained)
        elif args.run is not None:
            out.update(run=args.run, version=version)
            out["trained"] = measure("trained", Inference(policy, seed=args.eval_seed, greedy=args.greedy))
        out["untrained"] = measure("untrained", untrained(config, seed=args.eval_seed))
        if config.run.init_from:
            start, out["init_from"] = starting_policy(config)
            out["start"] = measure("start", Inference(start, seed=args.eval_seed))
        out["do_nothing"] = measure("do_nothing", do_nothing)
        if bots:
            out["bots"] = {name: measure(f"bot {name}", player) for name, player in bots.items()}
    run_dir = runner.run_dir if runner else parse_run_spec(args.run)[0] if args.run else None
    out.update(eval_policy="greedy" if args.greedy else "sampled", eval_seed=args.eval_seed,
               during_training=training_summary(run_dir / "metrics.jsonl") if run_dir else {},
               overrides=args.overrides,
               drill_config=vars(config.drill), wall_seconds=round(time.monotonic() - t_start, 1),
               cpu_cores=os.cpu_count())
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
