"""The metrics both runners log (``metrics.jsonl`` and TensorBoard), computed in one place.

    experience_metrics   what a stretch of rollouts played: reward events, shaped reward, finished games
    serial_metrics       one serial segment: throughput split, staleness, reuse, + experience_metrics
    ray_metrics          one ray logging interval, from the actors' statistics (optimizers, inference actors,
                         the controller's rollout totals): shares of each actor's time, hop costs, buffers,
                         losses, + experience_metrics

Losses (``loss/*``, ``entropy/*``, ``ppo/*``) are the optimizer's own, averaged over the gradient steps.
"""

from __future__ import annotations

import numpy as np

from fivestack.game.layout import EVENT_NAMES
from fivestack.system.pool import BOT


def games_metrics(games: list[dict]) -> dict[str, float]:
    """Metrics of the games finished in a segment (a worker's ``results``), with the win rate against the bot."""
    if not games:
        return {}
    out = {"games/finished": float(len(games)), "games/minutes": float(np.mean([g["seconds"] for g in games]) / 60),
           "games/radiant_win_rate": float(np.mean([g["winner"] == 0 for g in games])),
           "games/truncated": float(np.mean([g["truncated"] for g in games])),
           # reached the time limit, undecided or decided there (game.net_worth_wins): the stand-off's measure
           "games/time_limit": float(np.mean([g.get("time_limit", g["truncated"]) for g in games]))}
    bot = [g for g in games if g.get("opponent") == BOT]
    if bot:
        out["games/vs_bot"] = float(len(bot))
        out["games/win_rate_vs_bot"] = float(np.mean([g["winner"] == 1 - g["opponent_side"] for g in bot]))
    return out


def reward_event_metrics(event_sums: np.ndarray, hero_steps: int, weights: np.ndarray) -> dict[str, float]:
    """``reward_events/NAME``: the mean reward per hero-step each event type contributed (the run's
    ``[reward]`` weights, before shaping)."""
    means = event_sums * weights / max(hero_steps, 1)
    return {f"reward_events/{name}": float(value) for name, value in zip(EVENT_NAMES, means)}


def experience_metrics(hero_steps: int, event_sums: np.ndarray, games: list[dict], shaped_abs_mean: float,
                       weights: np.ndarray) -> dict[str, float]:
    out = {"reward/shaped_abs_mean": float(shaped_abs_mean)}
    out.update(reward_event_metrics(event_sums, hero_steps, weights))
    out.update(games_metrics(games))
    return out


# the counts of new games in a segment's info: every game the worker started, and the hooks' kinds among them
# (annealing's feature, rollout.lane_start); the ray controller sums them over an interval
GAME_COUNTS = ("games_started", "games_with_feature", "games_in_lane")


def lane_start_metrics(counts: dict) -> dict[str, float]:
    """``games/lane_start``: the share of the new training games begun in the lane (``rollout.lane_start``), from
    the counts (``games_started``, ``games_in_lane``) of a segment's info (serial) or a logging interval's sums
    (ray); nothing when no game began in it."""
    games = int(counts.get("games_started", 0))
    return {"games/lane_start": int(counts.get("games_in_lane", 0)) / games} if games else {}


def mean_metrics(records: list[dict[str, float]]) -> dict[str, float]:
    """Each key's mean over the records that have it (the losses of a segment's gradient steps)."""
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for record in records:
        for key, value in record.items():
            sums[key] = sums.get(key, 0.0) + value
            counts[key] = counts.get(key, 0) + 1
    return {key: value / counts[key] for key, value in sums.items()}


def serial_metrics(info: dict, rollout_s: float, optimize_s: float, staleness: dict[str, float], reuse: float,
                   dropped: int, team_spirit: float, weights: np.ndarray, step_s: float | None = None) -> dict[str, float]:
    """One segment of the serial runner: ``info`` is the segment's ``SampleBatch.info``; ``step_s`` the step's wall
    time (None: rollout then optimisation, one after the other; with ``run.overlap`` they run at the same time)."""
    step_s = rollout_s + optimize_s if step_s is None else step_s
    out = {"throughput/agent_steps_per_s": info["hero_steps"] / max(step_s, 1e-9), "throughput/step_seconds": step_s,
           "throughput/rollout_seconds": rollout_s, "throughput/optimize_seconds": optimize_s,
           "throughput/inference_seconds": info["inference_seconds"],
           "throughput/simulation_seconds": info["simulation_seconds"],
           # the rollout's inference split: the learner's forward passes, the past versions', the teacher's labels,
           # the opponent bot's decisions (what the rollout worker timed; its bootstrap passes included)
           **{f"throughput/{name}_seconds": float(info.get(f"{name}_seconds", 0.0))
              for name in ("learner_inference", "past_inference", "teacher", "bot")},
           "pool/past_forward_passes_per_decision": (info.get("past_forward_passes", 0)
                                                     / max(info.get("decisions", 1), 1)),
           **staleness, "sample_reuse": reuse, "samples/dropped_stale": float(dropped),
           "schedule/team_spirit": team_spirit}
    out.update(experience_metrics(info["hero_steps"], info["event_sums"], info["games"], info["reward_abs_mean"],
                                  weights))
    return out


def ray_metrics(opt: list[dict], inf: list[dict], ro: dict, interval: float, buffer_samples: int,
                sample_timesteps: int, heroes: int, weights: np.ndarray) -> dict[str, float]:
    """One logging interval of the ray runner from the optimizers' ``take_stats`` (``opt``), the inference
    actors' (``inf``) and the controller's rollout totals (``ro``). ``sample_timesteps``: the game timesteps a
    sample spans (``rollout.sample_steps`` decisions x ``rollout.decision_steps``), so that trained agent-steps
    count timesteps x heroes, as the agent-steps played do."""
    out: dict[str, float] = {}
    stale = [o["staleness"] for o in opt if o["staleness"]]
    if stale:  # each optimizer's mean weighted by the samples it covers (not by "consumed", counted apart)
        out["staleness/min"] = min(s["staleness/min"] for s in stale)
        out["staleness/mean"] = (sum(s["staleness/mean"] * s["staleness/samples"] for s in stale)
                                 / sum(s["staleness/samples"] for s in stale))
        out["staleness/max"] = max(s["staleness/max"] for s in stale)
    out["staleness/max_ever"] = float(max(o["max_staleness_seen"] for o in opt))
    produced, consumed = sum(o["produced"] for o in opt), sum(o["consumed"] for o in opt)
    out["sample_reuse"] = consumed / produced if produced else float("nan")
    out["sample_reuse/total"] = (sum(o["consumed_total"] for o in opt) / max(sum(o["produced_total"] for o in opt), 1))
    out["buffer/fill"] = float(np.mean([o["buffer"] for o in opt]))
    out["buffer/fill_fraction"] = out["buffer/fill"] / buffer_samples
    out["samples/dropped_stale"] = float(sum(o["dropped_stale"] for o in opt))
    out["samples/dropped_overflow"] = float(sum(o["dropped_overflow"] for o in opt))
    steps = sum(o["steps"] for o in opt)
    out["optimizer/steps_per_s"] = steps / len(opt) / max(interval, 1e-9)
    out["optimizer/train_share"] = float(np.mean([o["train_s"] / max(o["seconds"], 1e-9) for o in opt]))
    out["optimizer/idle_share"] = float(np.mean([o["idle_s"] / max(o["seconds"], 1e-9) for o in opt]))
    out["optimizer/allreduce_share"] = float(np.mean([o["comm_s"] / max(o["seconds"], 1e-9) for o in opt]))
    out["optimizer/add_segment_ms"] = 1000 * sum(o["add_s"] for o in opt) / max(sum(o["adds"] for o in opt), 1)
    losses: dict[str, float] = {}
    for o in opt:
        for k, v in o["losses"].items():
            losses[k] = losses.get(k, 0.0) + v
    out.update({k: v / max(steps, 1) for k, v in losses.items()})
    out["throughput/agent_steps_per_s"] = ro["hero_steps"] / max(interval, 1e-9)
    out["throughput/trained_agent_steps_per_s"] = consumed * sample_timesteps * heroes / max(interval, 1e-9)
    out["rollout/segments"] = float(ro["segments"])
    if ro["segments"]:
        wall = max(ro["wall_s"], 1e-9)
        out["rollout/simulation_share"] = ro["simulation_s"] / wall
        out["rollout/inference_share"] = ro["inference_s"] / wall
        out["rollout/send_share"] = ro["send_s"] / wall
        out["rollout/send_ms"] = 1000 * ro["send_s"] / ro["segments"]
        out["rollout/inference_round_trip_ms"] = 1000 * ro["inference_s"] / max(ro["inference_calls"], 1)
        if inf:  # the share of requests to inference actors that went through shared memory
            out["rollout/shared_memory_share"] = ro.get("channel_calls", 0) / max(ro["inference_calls"], 1)
        out["queue/deliveries"] = float(np.mean(ro["in_flight"]))
        out["rollout/versions_behind_mean"] = float(np.mean(ro["behind"]))
        out["rollout/versions_behind_max"] = float(np.max(ro["behind"]))
        out.update(experience_metrics(ro["hero_steps"], ro["event_sums"], ro["games"],
                                      float(np.mean(ro["reward_abs_mean"])), weights))
    if inf:
        batches = sum(s["batches"] for s in inf)
        out["inference/busy_share"] = float(np.mean([s["busy_s"] / max(s["seconds"], 1e-9) for s in inf]))
        out["inference/forward_ms"] = 1000 * sum(s["busy_s"] for s in inf) / max(batches, 1)
        out["inference/requests_per_batch"] = sum(s["requests"] for s in inf) / max(batches, 1)
        out["inference/teams_per_batch"] = sum(s["teams"] for s in inf) / max(batches, 1)
        out["queue/inference"] = sum(s["queue"] for s in inf) / max(batches, 1)
    return out
