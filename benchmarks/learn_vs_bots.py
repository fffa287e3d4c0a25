"""Does it learn? Train from scratch for a budget, then play the random and the scripted teams.

    python benchmarks/learn_vs_bots.py --mode 1v1 --minutes 30 --seed 0             # wall-clock budget
    python benchmarks/learn_vs_bots.py --mode 5v5 --agent-steps 20000000 --seed 0   # agent-step budget
    python benchmarks/learn_vs_bots.py --resume runs/learn-5v5-seed0-1700000000 --agent-steps 40000000
    python benchmarks/learn_vs_bots.py --mode 1v1 --agent-steps 600000 --asp 0.25 --seed 0  # with Alice (1v1)

Training uses ``configs/MODE.toml`` (the defaults of ``fivestack.runs.config`` otherwise) plus ``--set``
overrides. The budget is ``--agent-steps`` when given (training stops between segments once the run has that
many agent-steps), else ``--minutes`` of training wall-clock. Curve points come every ``--curve-agent-steps``
(default a tenth of the budget) or every ``--curve-minutes``: at each the policy plays ``--curve-games`` games
against each team (evaluation time is not counted in the training budget); at the end of the budget it plays
``--games`` games (default 200) against each. Evaluation games last at most ``--eval-max-minutes`` game
minutes (default the config's ``eval.max_seconds``); a game not decided by then is a draw. The policy samples
its actions, or plays its most likely ones with ``--greedy``. Evaluation games have the training config's lineups
(``game.lineups``) unless ``--eval-lineups`` says; with random lineups each hero's win rate stands beside the overall
one (``per_hero_vs_BOT``: games, wins, win rate and interval per hero the policy played).

A win rate counts wins only (a draw counts 0), with its 95% Wilson interval; the draw rate, the mean game
length in game minutes and the evaluation's wall seconds stand beside it, and ``team_stats_vs_BOT`` says how the
games went: per game, the kills, deaths, last hits, denies, net worth and mean level of the policy's team and
the bot's, as ``[policy, bot]``.

``--asp SHARE`` mixes asymmetric self-play into 1v1 training (``fivestack/system/asp_moba.py``): SHARE of the
rollout's games are Alice/Bob games (``asp.share``, with the goal input ``policy.goal_inputs`` it needs; other
``asp.*`` keys through ``--set``). Their agent-steps count toward the budget like any other; the result then
holds ``asp``, the self-play figures (Bob's success, Alice's task length and distance) over the run's last
tenth, from ``metrics.jsonl``.

The benchmark writes its arguments and the curve so far to ``RUN/learn_vs_bots.json`` after every curve point
(every curve point is also a checkpoint of the run), so a stopped benchmark carries on with ``--resume RUN``:
the run's own settings (mode, seed, ``--set``) stay as they were; the budget and the evaluation options given
on the command line replace the saved ones. Progress shows as a bar on stderr and one ``{"progress": ...}``
line per curve point; the result is one JSON line at the end.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from fivestack.system.asp_moba import GOAL_WIDTH
from fivestack.match.agents import trained_game_of
from fivestack.runs.config import load_config
from fivestack.system.evaluator import EvalResult, evaluate
from fivestack.system.serial import SerialRunner

STATE_FILE = "learn_vs_bots.json"
RUN_SETTINGS = ("mode", "seed", "overrides", "runs_dir", "asp")  # fixed when the run starts: --resume cannot change them


def build_parser(explicit_only: bool = False) -> argparse.ArgumentParser:
    """The benchmark's options; with ``explicit_only`` no option has a default, so that parsing says which
    options the command line gave (on ``--resume`` they replace the saved ones)."""

    def default(value):
        return argparse.SUPPRESS if explicit_only else value

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", default=default("1v1"), choices=["1v1", "5v5"])
    parser.add_argument("--minutes", type=float, default=default(30.0), help="training wall-clock budget")
    parser.add_argument("--agent-steps", type=int, default=default(None),
                        help="training budget in agent-steps (replaces --minutes)")
    parser.add_argument("--seed", type=int, default=default(0))
    parser.add_argument("--games", type=int, default=default(200), help="final evaluation games per opponent")
    parser.add_argument("--curve-minutes", type=float, default=default(5.0))
    parser.add_argument("--curve-agent-steps", type=int, default=default(None),
                        help="with --agent-steps: a curve point this often (default a tenth of the budget)")
    parser.add_argument("--curve-games", type=int, default=default(40))
    parser.add_argument("--opponents", default=default("random,scripted"))
    parser.add_argument("--eval-max-minutes", type=float, default=default(None),
                        help="game-time limit of evaluation games (default: the config's eval.max_seconds)")
    parser.add_argument("--eval-lineups", choices=["fixed", "random"], default=default(None),
                        help="lineups of evaluation games (default: the training config's game.lineups); with "
                             "random, each hero's win rate is reported too (per_hero_vs_BOT)")
    parser.add_argument("--greedy", action="store_true", default=default(False),
                        help="evaluate the policy's most likely actions (default: sampled)")
    parser.add_argument("--asp", type=float, default=default(0.0),
                        help="share of 1v1 training games played as asymmetric self-play (Alice and Bob); 0: none")
    parser.add_argument("--runs-dir", default=default("runs"))
    parser.add_argument("--set", dest="overrides", action="append", default=default([]))
    parser.add_argument("--resume", default=default(None), help="continue this stopped benchmark run (runs/NAME)")
    return parser


def point_fields(result: EvalResult, eval_lineups: str) -> dict:
    """A curve point's figures against one opponent (``evaluate``'s result): the win rate and its interval, the draw
    rate, the games, their mean length, the evaluation's seconds, the team stats (and each hero's figures with random
    lineups), each key ending in ``_vs_OPPONENT``. ``benchmarks/reference_learner.py`` reports its points with it."""
    opponent = result.opponent
    fields = {f"win_rate_vs_{opponent}": round(result.win_rate, 4),
              f"ci95_vs_{opponent}": [round(result.ci95[0], 4), round(result.ci95[1], 4)],
              f"draw_rate_vs_{opponent}": round(result.draw_rate, 4), f"games_vs_{opponent}": result.games,
              f"minutes_per_game_vs_{opponent}": round(result.mean_minutes, 2),
              f"eval_seconds_vs_{opponent}": round(result.seconds, 1), f"team_stats_vs_{opponent}": result.team_stats}
    if eval_lineups == "random":
        fields[f"per_hero_vs_{opponent}"] = result.per_hero
    return fields


def save_state(run_dir: Path, args: argparse.Namespace, curve: list[dict]) -> None:
    """``RUN/learn_vs_bots.json``: written whole or not at all."""
    path = run_dir / STATE_FILE
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps({"benchmark": "learn_vs_bots", "args": vars(args), "curve": curve}, indent=1))
    os.replace(tmp, path)


def asp_summary(metrics_path: Path) -> dict:
    """The self-play figures (``asp/*`` of ``metrics.jsonl``) averaged, episode-weighted, over the last tenth of
    the run's segments, and the episodes played in all."""
    records = [r for r in map(json.loads, metrics_path.read_text().splitlines()) if "asp/episodes" in r]
    if not records:
        return {}
    tail = records[-max(len(records) // 10, 1):]
    out = {"episodes": int(sum(r["asp/episodes"] for r in records)), "last_tenth_segments": len(tail),
           "agent_steps_from": tail[0]["agent_steps"]}
    for key in ("bob_success", "t_a", "t_b", "alice_reward", "task_distance", "task_levels", "task_gold"):
        pairs = [(r[f"asp/{key}"], r["asp/episodes"]) for r in tail if f"asp/{key}" in r]
        if pairs:
            out[key] = round(sum(v * n for v, n in pairs) / sum(n for _, n in pairs), 4)
    return out


def start(argv: list[str] | None) -> tuple[argparse.Namespace, SerialRunner, list[dict]]:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.resume is None:
        name = f"learn-{args.mode}{'-asp' if args.asp else ''}-seed{args.seed}-{int(time.time())}"
        asp = [f"asp.share={args.asp}", f"policy.goal_inputs={GOAL_WIDTH}"] if args.asp else []
        preset = Path(__file__).resolve().parent.parent / "configs" / f"{args.mode}.toml"
        config = load_config(preset if preset.is_file() else None, [
            f"game.mode='{args.mode}'", f"run.seed={args.seed}", f"run.name='{name}'",
            f"run.runs_dir='{args.runs_dir}'", "eval.every_versions=0", *asp, *args.overrides, "run.minutes=0"])
        runner = SerialRunner(config)
        curve: list[dict] = []
    else:
        run_dir = Path(args.resume)
        state_path = run_dir / STATE_FILE
        if not state_path.is_file():
            parser.error(f"--resume {run_dir}: no {STATE_FILE} there; give the folder of a learn_vs_bots run "
                         f"(runs/learn-MODE-seedS-TIME)")
        saved = json.loads(state_path.read_text())
        saved["args"].setdefault("asp", 0.0)  # saved before the option existed
        given = vars(build_parser(explicit_only=True).parse_args(argv))
        for key in RUN_SETTINGS:
            if key in given and given[key] != saved["args"][key]:
                parser.error(f"--resume {run_dir}: {key} was {saved['args'][key]!r} for this run and cannot change")
        args = argparse.Namespace(**{**saved["args"], **given})
        config = load_config(run_dir / "config.toml")
        runner = SerialRunner(config, resume=run_dir)
        curve = saved["curve"]
        if curve and curve[-1]["agent_steps"] > runner.agent_steps:  # its checkpoint was damaged: an older one
            kept = [p for p in curve if p["agent_steps"] <= runner.agent_steps]
            print(f"resuming from {runner.agent_steps} agent-steps: dropping {len(curve) - len(kept)} curve "
                  f"point(s) made after that checkpoint", file=sys.stderr)
            curve = kept
    if args.agent_steps is not None and args.agent_steps < 1:
        parser.error(f"--agent-steps must be at least 1, got {args.agent_steps}")
    runner.config.run.minutes = 0.0  # the benchmark keeps its own budget
    return args, runner, curve


def main(argv: list[str] | None = None) -> None:
    args, runner, curve = start(argv)
    config = runner.config
    by_steps = args.agent_steps is not None
    budget = args.agent_steps if by_steps else args.minutes * 60.0
    every = (args.curve_agent_steps or max(args.agent_steps // 10, 1)) if by_steps else args.curve_minutes * 60.0
    eval_max_seconds = args.eval_max_minutes * 60.0 if args.eval_max_minutes is not None else config.eval.max_seconds
    eval_lineups = getattr(args, "eval_lineups", None) or config.game.lineups  # absent from older saved runs
    eval_policy = "greedy" if args.greedy else "sampled"
    opponents = [o for o in args.opponents.split(",") if o]
    save_state(runner.run_dir, args, curve)

    def done() -> float:
        return runner.agent_steps if by_steps else runner.elapsed_before

    def reached() -> bool:
        return done() >= budget - (0 if by_steps else 1e-6)

    bar = Progress(TextColumn("{task.description}"), BarColumn(),
                   TextColumn("{task.completed:,.0f}/{task.total:,.0f} " + ("agent-steps" if by_steps else "s")),
                   TimeElapsedColumn(), console=Console(stderr=True), transient=False)
    def evaluate_point(games: int, final: bool, **extra) -> dict:
        """Play ``games`` games against each opponent with the policy as it is now: one curve point."""
        point = {"agent_steps": runner.agent_steps, "version": runner.optimizer.version,
                 "train_seconds": round(runner.elapsed_before, 1),
                 "minutes": round(runner.elapsed_before / 60.0, 2), "final": final, "eval_games": games,
                 "eval_policy": eval_policy, **extra}
        eval_seconds = 0.0
        for opponent in opponents:
            bar.update(task, description=f"evaluating vs {opponent} ({games} games)")
            result = evaluate(runner.policy, opponent, games, config.game.mode, eval_max_seconds,
                              seed=10_000 + args.seed, greedy=args.greedy,
                              decision_steps=config.rollout.decision_steps, lineups=eval_lineups,
                              **trained_game_of(config.game))
            point.update(point_fields(result, eval_lineups))
            eval_seconds += result.seconds
        point["eval_seconds"] = round(eval_seconds, 1)
        return point

    with bar:
        task = bar.add_task("training", total=budget, completed=done())
        if config.clone.bot and not any(p.get("clone") for p in curve):
            # version 0 is the clone (clone.bot): make it, then evaluate it with the final point's games
            bar.update(task, description=f"cloning {config.clone.bot}")
            runner.clone(on_progress=lambda phase, d, t, text: bar.update(task, description=text))
            curve.append(evaluate_point(args.games, False, clone=True, clone_summary=runner.state.clone))
            save_state(runner.run_dir, args, curve)
            print(json.dumps({"progress": curve[-1]}), flush=True)
            bar.update(task, completed=done())
        while True:
            if not reached():
                if config.run.max_versions and runner.optimizer.version >= config.run.max_versions:
                    sys.exit(f"the run reached run.max_versions={config.run.max_versions} before the budget; "
                             f"resume with --set run.max_versions=0 or a smaller budget")
                mark = min((math.floor(done() / every + 1e-9) + 1) * every, budget)
                bar.update(task, description="training")
                if by_steps:
                    stop = lambda: runner.agent_steps >= mark  # noqa: E731
                else:
                    deadline = time.monotonic() + mark - runner.elapsed_before
                    stop = lambda: time.monotonic() >= deadline  # noqa: E731
                ended = runner.run(on_progress=lambda p: bar.update(task, completed=done()), stop=stop)
                bar.update(task, completed=done())
                if ended.signal is not None:  # SIGTERM / Ctrl-C: the run is checkpointed; stop here, not evaluate
                    runner.close()
                    sys.exit(f"stopped by signal {ended.signal} at {runner.agent_steps:,} agent-steps; carry on with "
                             f"--resume {runner.run_dir}")
            final = reached()
            if curve and curve[-1]["agent_steps"] == runner.agent_steps and not curve[-1].get("clone"):
                # this point was evaluated before a stop: keep it unless it must now be the (bigger) final one
                last = curve[-1]
                if not final or (last.get("final") and last.get("eval_games") == args.games
                                 and last.get("eval_policy") == eval_policy):
                    if final:
                        break
                    continue
                curve.pop()
            curve.append(evaluate_point(args.games if final else args.curve_games, final))
            save_state(runner.run_dir, args, curve)
            print(json.dumps({"progress": curve[-1]}), flush=True)
            if final:
                break
        bar.update(task, description="done")
    runner.close()
    last = curve[-1]
    out = {"benchmark": "learn_vs_bots", "mode": config.game.mode, "seed": args.seed,
           "budget": {"agent_steps": args.agent_steps} if by_steps else {"minutes": args.minutes},
           "agent_steps": runner.agent_steps, "train_seconds": round(runner.elapsed_before, 1),
           "version": runner.optimizer.version, "run": str(runner.run_dir), "eval_policy": eval_policy,
           "eval_max_minutes": round(eval_max_seconds / 60.0, 2), "eval_lineups": eval_lineups,
           "cpu_cores": os.cpu_count()}
    for opponent in opponents:
        for key in ("win_rate", "ci95", "draw_rate", "games", "minutes_per_game", "eval_seconds", "team_stats",
                    "per_hero"):
            out[f"{key}_vs_{opponent}"] = last.get(f"{key}_vs_{opponent}")
    out["eval_seconds"] = last["eval_seconds"]
    if config.asp.share > 0:
        out["asp"] = asp_summary(runner.run_dir / "metrics.jsonl")
    out["curve"] = curve
    print(json.dumps(out))


if __name__ == "__main__":
    main()
