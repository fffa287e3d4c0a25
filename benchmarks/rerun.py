"""The paper's *Rerun* question in miniature: is a run that had a surgery midway as good as a fresh run of the
final architecture trained from scratch for the same agent-steps?

    python benchmarks/rerun.py        # 2 seeds x 2 arms, 1v1, 104 versions of 2,048 agent-steps per run

Per seed, on ``configs/1v1.toml`` with the serial runner on one thread (``run.torch_threads=1``):

* SURGERY arm: the small model (LSTM ``--small-lstm``, patch 0.1) trains for ``--surgery-at`` versions; the real
  CLI operates on it (``fivestack surgery RUN --to bigger.toml --patch 0.3``: LSTM ``--big-lstm`` plus patch
  0.3's observation column ``creep_balance``, a warm-up at learning rate 0 of ``--warmup-steps`` gradient
  steps); ``fivestack train --resume`` continues it to ``--versions``.
* FRESH arm: the final architecture (LSTM ``--big-lstm``, patch 0.3) from scratch for as many agent-steps as the
  surgery arm trained (a segment gives 7 or 8 versions, so its versions can differ by a few).

Both arms use the same shrunk version (``--steps-per-version`` gradient steps of 512 samples, rollouts of
``--games`` games x ``--segment-steps`` decisions) so versions and agent-steps line up; training runs without
its evaluator. The rating is done afterwards, the same way for every version of every run: the bots are placed
on the TrueSkill scale once (``RatingEvaluator.calibrate_bots``: random = 0, then scripted-weak, scripted), and
each version in the pools (every ``--rate-every`` versions) plays ``--eval-games`` seeded games against those
bots only (the same seeds for every version), from the prior (0, 25/3): one scale for both arms and both seeds.
A version plays the game of its own run (patch 0.1 before the surgery, 0.3 after; the evaluator shows 0.3's
column and plays the default rules), and the bots play the same games under both (checked here).

The surgery arm also gives the checks of issue 16's second item: (i) the seeded evaluation games right after the
surgery replay move for move as before it (the version before the surgery vs the operated one, the same seeds,
``match.games.play_games`` with every action recorded); (ii) the rating ``--after`` versions later against the
pre-surgery rating minus 2 sigma; (iii) past opponents from before the surgery still play (a transformed pool
version plays its games as the original did, and the final version plays it to the end).

Prints one JSON line; writes ``--json`` (every figure) and ``--png`` (TrueSkill over agent-steps, both arms).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

ROOT = Path(__file__).resolve().parent.parent
BOTS = ["random", "scripted-weak", "scripted"]
MODE = "1v1"


# ====================================================================== training through the real CLI
def cli(args: list[str], log: Path) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    with open(log, "a") as out:
        out.write(f"$ fivestack {' '.join(args)}\n")
        out.flush()
        done = subprocess.run([sys.executable, "-m", "fivestack.cli", *args], stdout=out, stderr=subprocess.STDOUT,
                              env=env, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"fivestack {' '.join(args)} failed (exit {done.returncode}); see {log}")


def sets(values: list[str]) -> list[str]:
    return [a for v in values for a in ("--set", v)]


def common(args, seed: int, runs: Path, name: str) -> list[str]:
    return [f"run.seed={seed}", f"run.runs_dir='{runs}'", f"run.name='{name}'", "run.torch_threads=1",
            f"ppo.steps_per_version={args.steps_per_version}", f"rollout.games={args.games}",
            f"rollout.segment_steps={args.segment_steps}", "eval.every_versions=0",
            f"pool.add_every_versions={args.pool_every}"]


def agent_steps_of(run: Path) -> dict[int, int]:
    """version -> agent-steps trained, from the run's metrics (a surgery's new run continues the old one's)."""
    steps = {0: 0}
    for line in (run / "metrics.jsonl").read_text().splitlines():
        row = json.loads(line)
        if "version" in row and "agent_steps" in row:
            steps[int(row["version"])] = int(row["agent_steps"])
    return steps


# ====================================================================== policies, games, ratings
def load_policy(run: Path, version: int | None):
    """A version of ``run`` (its pool file, else its checkpoint; None: its latest checkpoint) as the run's config
    builds it."""
    from fivestack.model.policy import Policy
    from fivestack.runs.config import load_config
    from fivestack.runs.checkpoints import latest_checkpoint, load_checkpoint
    from fivestack.system.pool import OpponentPool

    config = load_config(run / "config.toml")
    pool = OpponentPool(config.pool, run / "pool")
    if version is None:
        weights = load_checkpoint(latest_checkpoint(run))[0]
    elif pool.path_of(version).is_file():
        weights = pool.weights(version)
    else:
        weights = load_checkpoint(run / "checkpoints" / f"{version:08d}")[0]
    policy = Policy(config.policy, config.game.patch)
    policy.load_state_dict(weights)
    return policy.eval(), config


def seeded_games(policy, patch: str, opponent, games: int, max_seconds: float, seed: int):
    """``games`` seeded evaluation games of ``policy`` against ``opponent`` (a bot's name or a policy); the results
    and every action ``policy`` chose (``fivestack.surgery.replay.seeded_games``)."""
    from fivestack.surgery.replay import seeded_games as recorded_games
    from fivestack.match.agents import PolicyTeamAgent, build_agent

    if isinstance(opponent, str):
        theirs = lambda side: build_agent(opponent, side, seed + 1 + 2 * side, MODE)  # noqa: E731
    else:
        theirs = lambda side: PolicyTeamAgent(side, opponent, MODE, seed + 7 + side, decision_steps=2,  # noqa: E731
                                              patch=patch)
    return recorded_games(policy, patch, theirs, mode=MODE, games=games, max_seconds=max_seconds, seed=seed,
                          decision_steps=2)


def same_games(a, b) -> dict:
    (ra, moves_a), (rb, moves_b) = a, b
    identical = all(x.shape == y.shape and np.array_equal(x, y) for x, y in zip(moves_a, moves_b))
    return {"games": int(ra.winner.size), "actions_compared": int(sum(x.size for x in moves_a)),
            "identical_actions": bool(identical and len(moves_a) == len(moves_b)),
            "identical_outcomes": bool(np.array_equal(ra.winner, rb.winner) and np.array_equal(ra.minutes, rb.minutes)),
            "policy_score": float(ra.scores.mean()), "minutes": float(ra.minutes.mean())}


class Rater:
    """Every version on one scale: the bots calibrated once, each version rated against them only, from the prior,
    on the same game seeds (``RatingEvaluator.rate`` with the evaluator of the version's own run)."""

    def __init__(self, args, bots: dict | None = None):
        from fivestack.runs.config import load_config
        from fivestack.system.evaluator import RatingEvaluator

        self.args = args
        config = load_config(ROOT / "configs" / "1v1.toml", [f"eval.max_seconds={args.eval_seconds}",
                                                              f"eval.calibration_games={args.calibration_games}"])
        if bots is None:
            calibration = RatingEvaluator(config, Path(args.runs_dir) / "no-pool", seed=args.rating_seed)
            calibration.calibrate_bots()
            bots = calibration.state_dict()["bots"]
        self.state = {"bots": bots}

    def rate(self, run: Path, version: int) -> dict:
        from fivestack.runs.config import from_dict
        from fivestack.system.evaluator import RatingEvaluator

        policy, config = load_policy(run, version)
        config = from_dict(config.to_dict())
        config.eval = replace(config.eval, max_seconds=self.args.eval_seconds)
        evaluator = RatingEvaluator(config, run / "pool", state=self.state, seed=self.args.rating_seed)
        evaluator.policies["candidate"] = policy
        rating, per = evaluator.rate("candidate", 0.0, BOTS, self.args.eval_games, self.args.rating_seed)
        return {"mu": rating.mu, "sigma": rating.sigma, "games": rating.games,
                "score": {o: r["win_rate"] for o, r in per.items()}}

    @property
    def bots(self) -> dict:
        return self.state["bots"]


# ====================================================================== the plot
def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8.5, 4.8), dpi=110)
    colors = {"surgery": "#d95f02", "fresh": "#1b9e77"}
    for seed_result in result["seeds"]:
        for arm, style in (("surgery", "-"), ("fresh", "-")):
            curve = seed_result[arm]["curve"]
            x = np.array([p["agent_steps"] / 1e3 for p in curve])
            mu = np.array([p["mu"] for p in curve])
            sigma = np.array([p["sigma"] for p in curve])
            ls = "-" if seed_result["seed"] == 0 else "--"
            ax.plot(x, mu, ls, marker="o", ms=3, color=colors[arm],
                    label=f"{arm} (seed {seed_result['seed']})")
            ax.fill_between(x, mu - sigma, mu + sigma, color=colors[arm], alpha=0.08)
        cut = seed_result["surgery"]["surgery_agent_steps"] / 1e3
    ax.axvline(cut, color="#555555", linewidth=1, linestyle=":")
    ax.text(cut, ax.get_ylim()[1], " surgery: LSTM 256 -> 512 + creep_balance", va="top", fontsize=8, color="#555555")
    for name, rating in result["bots"].items():
        ax.axhline(rating["mu"], linestyle="--", linewidth=0.8, color="#999999")
        ax.text(0, rating["mu"], f"{name} ", va="bottom", ha="left", fontsize=8, color="#777777")
    ax.set_xlabel("agent-steps trained (thousands)")
    ax.set_ylabel("TrueSkill mu (random = 0), band +- 1 sigma")
    ax.set_title(f"Rerun in miniature, 1v1: surgery midway vs fresh final architecture "
                 f"({len(result['seeds'])} seeds)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


# ====================================================================== one seed
def pool_versions(run: Path) -> list[int]:
    return sorted(int(p.stem) for p in (run / "pool").glob("*.safetensors"))


def spaced(versions: list[int], every: int, last: int) -> list[int]:
    """``versions`` thinned to one per ``every`` versions (the first kept), plus ``last``."""
    kept: list[int] = []
    for v in versions:
        if v < last and (not kept or v - kept[-1] >= every):
            kept.append(v)
    return kept + [last]


def last(run: Path) -> int:
    from fivestack.runs.checkpoints import latest_checkpoint

    return int(latest_checkpoint(run).name)


def run_seed(args, seed: int, runs: Path, log: Path, rater: Rater, say) -> dict:
    small, operated, fresh = (runs / f"s{seed}-small", runs / f"s{seed}-surgery", runs / f"s{seed}-fresh")
    from fivestack.runs.config import FROM_SCRATCH

    # the surgery benchmark trains from scratch: the preset's clone-then-surpass recipe is switched off
    base = ["--config", str(ROOT / "configs" / "1v1.toml"), *[a for item in FROM_SCRATCH for a in ("--set", item)]]
    out: dict = {"seed": seed}

    def rate(run: Path, version: int, latest: bool = False) -> dict:
        say(f"seed {seed}: rating {run.name} version {version}")
        return {"version": version, "agent_steps": agent_steps_of(run)[version], "run": run.name,
                **rater.rate(run, None if latest else version)}

    say(f"seed {seed}: SURGERY arm, LSTM {args.small_lstm} to version {args.surgery_at}")
    cli(["train", *base, *sets(common(args, seed, runs, small.name) + [
        f"policy.lstm_size={args.small_lstm}", f"run.max_versions={args.surgery_at}"])], log)
    to = runs / "bigger.toml"
    to.write_text(f"[policy]\nlstm_size = {args.big_lstm}\n[ppo]\nwarmup_steps = {args.warmup_steps}\n")
    say(f"seed {seed}: surgery (fivestack surgery --to {to.name} --patch 0.3)")
    cli(["surgery", str(small), "--to", str(to), "--patch", "0.3", "--out", str(operated), "--seed", str(seed)], log)
    report = json.loads((operated / "surgery" / "report.json").read_text())
    cut = int(report["version"])

    # (i) the seeded evaluation games right after the surgery, before it and after it; and both ratings
    say(f"seed {seed}: (i) seeded evaluation games before and after the surgery")
    before, _ = load_policy(small, None)
    after, _ = load_policy(operated, None)
    replay = {}
    for opponent in ("scripted-weak", "random"):
        a = seeded_games(before, "0.1", opponent, args.check_games, args.eval_seconds, 1000 + seed)
        b = seeded_games(after, "0.3", opponent, args.check_games, args.eval_seconds, 1000 + seed)
        replay[opponent] = same_games(a, b)
    pre, at = rate(small, cut, latest=True), rate(operated, cut, latest=True)

    say(f"seed {seed}: SURGERY arm resumed to version {args.versions}")
    cli(["train", "--resume", str(operated), *sets([f"run.max_versions={args.versions}"])], log)
    # the fresh arm trains as many agent-steps as the surgery arm did (a segment's versions vary: 7 or 8 here)
    budget = agent_steps_of(operated)[last(operated)]
    per_version = pre["agent_steps"] / cut
    fresh_versions = int(np.ceil(budget / per_version))
    say(f"seed {seed}: FRESH arm, LSTM {args.big_lstm} + patch 0.3 to {budget:,} agent-steps")
    cli(["train", *base, *sets(common(args, seed, runs, fresh.name) + [
        f"policy.lstm_size={args.big_lstm}", "game.patch='0.3'", f"run.max_versions={fresh_versions}"])], log)
    if agent_steps_of(fresh)[last(fresh)] < budget:  # one more segment
        cli(["train", "--resume", str(fresh), *sets([f"run.max_versions={last(fresh) + 1}"])], log)

    # (iii) past opponents from before the surgery still play
    say(f"seed {seed}: (iii) past opponents from before the surgery")
    past = min(v for v in pool_versions(small) if v > 0)
    original, _ = load_policy(small, past)
    moved, _ = load_policy(operated, past)
    latest, _ = load_policy(operated, None)
    moved_games = same_games(seeded_games(original, "0.1", "scripted-weak", args.check_games, args.eval_seconds, 7),
                             seeded_games(moved, "0.3", "scripted-weak", args.check_games, args.eval_seconds, 7))
    vs_past, _ = seeded_games(latest, "0.3", moved, args.check_games, args.eval_seconds, 11)
    out["past_opponents"] = {"version": past, "moved_vs_original_vs_scripted_weak": moved_games,
                             "final_vs_moved": {"games": int(vs_past.winner.size),
                                                "completed": int((vs_past.minutes > 0).sum()),
                                                "final_score": float(vs_past.scores.mean()),
                                                "minutes": float(vs_past.minutes.mean())}}

    # ratings, one scale: pool versions every --rate-every versions, and each run's last version
    surgery_curve = [rate(small, v) for v in spaced(pool_versions(small), args.rate_every, cut)[:-1]] + [pre]
    later = [v for v in pool_versions(operated) if v > cut]
    end = last(operated)
    # check (ii): the first version --after versions past the surgery
    target = next((v for v in later + [end] if v >= cut + args.after), end)
    wanted = sorted(set(spaced([v for v in later if v >= cut + args.rate_every], args.rate_every, end)) | {target})
    surgery_curve += [rate(operated, v, latest=v == end and v not in later) for v in wanted]
    post = next(p for p in surgery_curve if p["version"] == target and p["run"] == operated.name)
    fresh_end = last(fresh)
    fresh_curve = [rate(fresh, v, latest=v == fresh_end and v not in pool_versions(fresh))
                   for v in spaced(pool_versions(fresh), args.rate_every, fresh_end)]
    out["surgery"] = {"curve": surgery_curve, "surgery_version": cut, "surgery_agent_steps": pre["agent_steps"],
                      "transforms": report["transforms"],
                      "verification_max_abs_diff": max(report["verification"]["max_abs_diff"].values()),
                      "pool_versions_moved": len(report["pool"]),
                      "check_i_replay": replay,
                      "check_i_rating_of_operated_checkpoint": {"mu": at["mu"], "sigma": at["sigma"],
                                                                "same_as_before": at["mu"] == pre["mu"]
                                                                and at["sigma"] == pre["sigma"]},
                      "check_ii": {"pre": {"version": pre["version"], "mu": pre["mu"], "sigma": pre["sigma"]},
                                   "post": {"version": post["version"], "mu": post["mu"], "sigma": post["sigma"]},
                                   "versions_after": post["version"] - cut,
                                   "threshold": pre["mu"] - 2 * pre["sigma"],
                                   "passed": post["mu"] >= pre["mu"] - 2 * pre["sigma"]}}
    out["fresh"] = {"curve": fresh_curve}
    add_equal_point(out, runs, rater, say)
    return out


def stored_versions(run: Path) -> set[int]:
    return set(pool_versions(run)) | {int(p.name) for p in (run / "checkpoints").iterdir() if p.name.isdigit()}


def add_equal_point(seed_result: dict, runs: Path, rater: Rater, say) -> None:
    """The fresh arm at the surgery arm's agent-steps: its stored version (pool file or checkpoint) with the most
    agent-steps not above the surgery arm's last, rated and put on its curve."""
    fresh = runs / f"s{seed_result['seed']}-fresh"
    budget = seed_result["surgery"]["curve"][-1]["agent_steps"]
    steps = agent_steps_of(fresh)
    version = max(v for v in stored_versions(fresh) if steps.get(v, budget + 1) <= budget)
    point = next((p for p in seed_result["fresh"]["curve"] if p["version"] == version), None)
    if point is None:
        say(f"seed {seed_result['seed']}: rating {fresh.name} version {version} (the surgery arm's agent-steps)")
        point = {"version": version, "agent_steps": steps[version], "run": fresh.name, **rater.rate(fresh, version)}
        seed_result["fresh"]["curve"] = sorted(seed_result["fresh"]["curve"] + [point], key=lambda p: p["version"])
    seed_result["fresh"]["at_surgery_arm_agent_steps"] = point


def summarize(result: dict, args) -> dict:
    seeds = result["seeds"]
    result["final"] = {"surgery": [{k: s["surgery"]["curve"][-1][k] for k in ("version", "agent_steps", "mu", "sigma")}
                                   for s in seeds],
                       "fresh_at_equal_agent_steps": [{k: s["fresh"]["at_surgery_arm_agent_steps"][k]
                                                       for k in ("version", "agent_steps", "mu", "sigma")}
                                                      for s in seeds],
                       "fresh_last": [{k: s["fresh"]["curve"][-1][k] for k in ("version", "agent_steps", "mu", "sigma")}
                                      for s in seeds]}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(result, indent=1))
    plot(result, Path(args.png))
    return {"final_mu_surgery": [p["mu"] for p in result["final"]["surgery"]],
            "final_mu_fresh_equal_agent_steps": [p["mu"] for p in result["final"]["fresh_at_equal_agent_steps"]],
            "check_i_identical": [all(r["identical_actions"] and r["identical_outcomes"]
                                      for r in s["surgery"]["check_i_replay"].values()) for s in seeds],
            "check_ii_passed": [s["surgery"]["check_ii"]["passed"] for s in seeds],
            "check_iii_completed": [s["past_opponents"]["final_vs_moved"]["completed"] for s in seeds],
            "bots_same_games": result["bots_play_the_same_games_under_0.1_and_0.3"],
            "cpu_seconds": result["cpu_seconds"], "json": args.json, "png": args.png}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--versions", type=int, default=104, help="versions per run (both arms)")
    parser.add_argument("--surgery-at", type=int, default=48, help="the surgery arm's surgery, after this version")
    parser.add_argument("--after", type=int, default=50, help="check (ii): versions after the surgery")
    parser.add_argument("--small-lstm", type=int, default=256)
    parser.add_argument("--big-lstm", type=int, default=512)
    parser.add_argument("--warmup-steps", type=int, default=4, help="gradient steps at learning rate 0 after surgery")
    parser.add_argument("--steps-per-version", type=int, default=2, help="ppo.steps_per_version (default config: 32)")
    parser.add_argument("--games", type=int, default=16, help="rollout.games (configs/1v1.toml: 32)")
    parser.add_argument("--segment-steps", type=int, default=256, help="rollout.segment_steps")
    parser.add_argument("--pool-every", type=int, default=8, help="pool.add_every_versions (rated versions are pool "
                                                                  "files)")
    parser.add_argument("--rate-every", type=int, default=16, help="rate every N versions (and the surgery's and "
                                                                  "the last version)")
    parser.add_argument("--eval-games", type=int, default=12, help="games per rated version (split over the bots)")
    parser.add_argument("--eval-seconds", type=float, default=300.0, help="game seconds before a draw")
    parser.add_argument("--calibration-games", type=int, default=24)
    parser.add_argument("--check-games", type=int, default=4, help="games per check of (i) and (iii)")
    parser.add_argument("--rating-seed", type=int, default=5)
    parser.add_argument("--runs-dir", default=str(ROOT / "runs" / "rerun"))
    parser.add_argument("--json", default=str(ROOT / "docs" / "benchmarks" / "rerun.json"))
    parser.add_argument("--png", default=str(ROOT / "docs" / "rerun.png"))
    parser.add_argument("--post", action="store_true", help="only add the fresh arm's point at the surgery arm's "
                                                             "agent-steps to the result in --json (and redraw)")
    args = parser.parse_args()
    if args.post:
        post(args)
        return
    if args.versions < args.surgery_at + args.after:
        parser.error("--versions must be at least --surgery-at + --after (check ii rates --after versions later)")

    import torch

    torch.set_num_threads(1)
    runs = Path(args.runs_dir) / time.strftime("%Y%m%d-%H%M%S")
    runs.mkdir(parents=True)
    log = runs / "log.txt"
    start = time.monotonic()
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn()) as progress:
        task = progress.add_task("calibrating the bots", total=len(args.seeds) + 1)
        say = lambda text: progress.update(task, description=text)  # noqa: E731
        rater = Rater(args)
        # the bots play the same games whether the env shows patch 0.3's column or not
        bot_a = seeded_games_bots("scripted", "scripted-weak", "0.1", args)
        bot_b = seeded_games_bots("scripted", "scripted-weak", "0.3", args)
        bots_same = bool(np.array_equal(bot_a.winner, bot_b.winner) and np.array_equal(bot_a.minutes, bot_b.minutes))
        progress.advance(task)
        seeds = []
        for seed in args.seeds:
            seeds.append(run_seed(args, seed, runs, log, rater, say))
            progress.advance(task)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(resource.RUSAGE_SELF)
    cpu = sum(u.ru_utime + u.ru_stime for u in usage)

    result = {
        "benchmark": "rerun", "mode": MODE, "config": "configs/1v1.toml", "runner": "serial", "torch_threads": 1,
        "seeds": seeds, "bots": rater.bots, "bots_play_the_same_games_under_0.1_and_0.3": bots_same,
        "settings": {k: v for k, v in vars(args).items() if k not in ("json", "png", "runs_dir", "post")},
        "cpu_seconds": round(cpu, 1), "wall_seconds": round(time.monotonic() - start, 1),
        "runs": str(runs), "note": "CPU time of this process and its children on a shared machine",
    }
    print(json.dumps(summarize(result, args)))


def post(args) -> None:
    """``--post``: a result written before the fresh arm's equal-agent-steps point existed gets it (the same bots'
    calibration, read from the result), and its summary."""
    result = json.loads(Path(args.json).read_text())
    runs = Path(result["runs"])
    for key, value in result["settings"].items():
        setattr(args, key, value)
    rater = Rater(args, bots=result["bots"])
    for seed_result in result["seeds"]:
        if "at_surgery_arm_agent_steps" not in seed_result["fresh"]:
            add_equal_point(seed_result, runs, rater, print)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    result["cpu_seconds"] = round(result["cpu_seconds"] + usage.ru_utime + usage.ru_stime, 1)
    print(json.dumps(summarize(result, args)))


def seeded_games_bots(a: str, b: str, patch: str, args):
    from fivestack.match.agents import build_agent
    from fivestack.match.games import play_games

    return play_games(lambda side: build_agent(a, side, 3 + side, MODE), lambda side: build_agent(b, side, 5 + side,
                      MODE), args.check_games, MODE, args.eval_seconds, 9, patch)


if __name__ == "__main__":
    main()
