"""``fivestack asp reproduce``: the paper's experiments, several seeds in lockstep, written as JSON (mean and
std over seeds of the target metric against counted episodes) and a PNG of the curves.

Each environment module provides ``make(n)``, ``config()``, ``METHODS`` (what its figure compares),
``EPISODES`` (the default budget in counted episodes), ``METRIC`` ("success" or "reward") and ``summary``
(the figures its "done when" item names); optionally ``METHOD_OVERRIDES`` (config changes per method),
``extra_plots(results, stem)`` (more figures, STEM_*.png beside STEM.json), and an env's ``run_extras()`` (more JSON
per method).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import time
from pathlib import Path

import numpy as np

from fivestack.asp.selfplay import train

WORLDS = ("hallway", "lightkey", "mountaincar", "economy", "swimmergather")   # a module of fivestack.asp.envs each
VARIANTS = {"lightkey10": ("lightkey", "BIG_VARIANT"),   # a second world defined in another's module
            "lightkey_cells": ("lightkey", "CELLS_VARIANT"),
            "lightkey_rows": ("lightkey", "ROWS_VARIANT"),
            "mountaincar_gym": ("mountaincar", "GYM_VARIANT"),
            "swimmergather_ppo": ("swimmergather", "PPO_VARIANT")}
ENV_NAMES = WORLDS + tuple(VARIANTS)
LABELS = {"self_play": "self-play", "target_only": "target task only (policy gradient)",
          "random_alice": "random Alice", "count_based": "count-based bonus",
          "self_play_bc": "self-play + Alice cloning", "self_play_multi": "self-play, 3 Alices"}


def env_module(name: str):
    if name not in ENV_NAMES:
        raise ValueError(f"unknown environment {name!r}; choose one of {', '.join(ENV_NAMES)}")
    if name in VARIANTS:
        module, attr = VARIANTS[name]
        return getattr(importlib.import_module(f"fivestack.asp.envs.{module}"), attr)
    return importlib.import_module(f"fivestack.asp.envs.{name}")


CHOICES = {"mode": ("repeat", "reverse"), "algo": ("reinforce", "ppo")}   # SelfPlayConfig's fields with named values
POSITIVE = ("batch", "lr", "t_max", "eval_every", "eval_episodes", "n_alices")


# what a --set value is read as, by the type of the field's default (first match: bool before int, as bool is an int)
KIND = ((bool, "true or false"), (tuple, "comma-separated integers"), (int, "int"), (float, "float"), (str, "str"))


def _read_value(current, text: str, takes_pair: bool):
    """``text`` read as the type of ``current`` (a field's default); ``ValueError`` when it is not one.
    ``takes_pair``: an int field that may also be a pair lo,hi (``random_alice_steps``)."""
    if isinstance(current, bool):
        if text.lower() not in ("true", "false"):
            raise ValueError
        return text.lower() == "true"
    if isinstance(current, tuple) or takes_pair and "," in text:
        return tuple(int(v) for v in text.split(","))
    if current is None or isinstance(current, (int, float)):
        value = int(text) if text.lstrip("-").isdigit() else float(text)
        if isinstance(current, int) and not isinstance(value, int):
            raise ValueError
        return value
    return type(current)(text)


def parse_overrides(name: str, pairs: list[str]) -> dict:
    """``KEY=VALUE`` strings (``fivestack asp reproduce --set``) as changes to env ``name``'s ``config()``: each key
    a ``SelfPlayConfig`` field, each value read as that field's type (a tuple field as comma-separated ints, a
    bool as true/false). One ``ValueError`` naming the pair and what is accepted."""
    cfg = env_module(name).config()
    fields = {f.name: f for f in dataclasses.fields(cfg)}
    overrides = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        key, text = key.strip(), text.strip()
        if not sep or not key or not text:
            raise ValueError(f"--set {pair!r}: give KEY=VALUE, e.g. --set batch=256")
        if key not in fields:
            raise ValueError(f"--set {pair!r}: {key!r} is not a setting of {name}; settings: {', '.join(sorted(fields))}")
        current = getattr(cfg, key)
        try:
            value = _read_value(current, text, takes_pair="tuple" in str(fields[key].type))
        except ValueError:
            kind = "a number" if current is None else next(k for t, k in KIND if isinstance(current, t))
            raise ValueError(f"--set {pair!r}: {key} takes {kind} (now {current!r})") from None
        if key in CHOICES and value not in CHOICES[key]:
            raise ValueError(f"--set {pair!r}: {key} is one of {', '.join(CHOICES[key])}")
        if key in POSITIVE and value <= 0:
            raise ValueError(f"--set {pair!r}: {key} must be above 0")
        if key == "target_share" and not 0 <= value <= 1:
            raise ValueError(f"--set {pair!r}: target_share is a share of episodes, from 0 to 1")
        overrides[key] = value
    return overrides


def run_method(name: str, method: str, seeds: int, episodes: int, seed: int = 0, overrides: dict | None = None,
               on_progress=None) -> dict:
    """Train ``seeds`` runs of one method; returns its curves as plain lists (JSON-ready). ``overrides`` (e.g.
    ``parse_overrides``'s) change the env's ``config()`` after the method's own ``METHOD_OVERRIDES``: what a user
    sets is what runs."""
    mod = env_module(name)
    cfg = dataclasses.replace(mod.config(), **getattr(mod, "METHOD_OVERRIDES", {}).get(method, {}))
    cfg = dataclasses.replace(cfg, **(overrides or {}))
    env = mod.make(seeds * cfg.batch)
    start, cpu_start = time.time(), time.process_time()
    curves, _ = train(env, method, cfg, seeds, episodes, np.random.default_rng(seed), on_progress)
    out = {"method": method, "seconds": round(time.time() - start, 1),
           "cpu_seconds": round(time.process_time() - cpu_start, 1), "x": [int(v) for v in curves.x],
           "config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(cfg).items()}}
    if hasattr(env, "run_extras"):
        out.update(env.run_extras())
    for key in ("success", "reward"):
        a = np.array(curves.success if key == "success" else curves.reward)  # (K, S)
        out[key] = {"mean": a.mean(1).round(4).tolist(), "std": a.std(1).round(4).tolist(),
                    "per_seed_final": a[-1].round(4).tolist()}
    if curves.alice:
        x = np.array(curves.alice_x)
        bins = np.unique(np.linspace(0, len(x), min(len(x), 50) + 1).astype(int))
        out["alice"] = {"x": [int(x[b - 1]) for b in bins[1:]]}
        for k, v in curves.alice.items():
            v = np.array(v)  # (batches, S)
            means = [v[a:b].mean() for a, b in zip(bins[:-1], bins[1:])]
            out["alice"][k] = [round(float(m), 4) for m in means]
    return out


def reproduce(name: str, seeds: int, episodes: int | None, out_dir: Path, methods=None, progress=None,
              seed: int = 0, overrides: dict | None = None) -> dict:
    """Every method of ``methods`` (default: the env's) on ``seeds`` seeds; writes ENV.json and ENV.png under
    ``out_dir``. ``overrides`` change the env's config for every method (``run_method``) and are recorded."""
    mod = env_module(name)
    episodes = episodes or mod.EPISODES
    methods = methods or mod.METHODS
    results = {"env": name, "seeds": seeds, "episodes": episodes, "metric": mod.METRIC, "methods": {}}
    if overrides:
        results["overrides"] = {k: list(v) if isinstance(v, tuple) else v for k, v in overrides.items()}
    start = time.time()
    for m in methods:
        task = progress.add_task(f"{name}: {LABELS.get(m, m)}", total=episodes) if progress else None
        cb = (lambda done, s, r, task=task: progress.update(task, completed=done)) if progress else None
        results["methods"][m] = run_method(name, m, seeds, episodes, seed, overrides, on_progress=cb)
    results["seconds"] = round(time.time() - start, 1)
    results["summary"] = mod.summary(results)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{name}.json").write_text(json.dumps(results, indent=1))
    plot(results, out_dir / f"{name}.png")
    if hasattr(mod, "extra_plots"):
        mod.extra_plots(results, out_dir / name)
    return results


def resummarize(json_path: Path) -> dict:
    """Recompute the summary of ENV.json and redraw ENV.png (no training)."""
    results = json.loads(Path(json_path).read_text())
    results["summary"] = env_module(results["env"]).summary(results)
    Path(json_path).write_text(json.dumps(results, indent=1))
    plot(results, Path(json_path).with_suffix(".png"))
    mod = env_module(results["env"])
    if hasattr(mod, "extra_plots"):
        mod.extra_plots(results, Path(json_path).with_suffix(""))
    return results


def final(res: dict, key: str) -> float:
    """The mean curve of ``key`` at the last evaluation, at the end of the budget (it may overshoot the
    budget by less than one batch of counted episodes)."""
    return float(res[key]["mean"][-1])


def value_at(res: dict, key: str, x: float) -> float:
    """The mean curve of ``key`` at the last evaluation at or before x counted episodes."""
    xs = np.array(res["x"])
    i = max(0, int(np.searchsorted(xs, x, side="right")) - 1)
    return float(res[key]["mean"][i])


def plot(results: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metric = results["metric"]
    present = {k for r in results["methods"].values() for k in r.get("alice", {})}
    alice_keys = [k for k in getattr(env_module(results["env"]), "ALICE_PLOTS", ("t_a",)) if k in present]
    fig, axes = plt.subplots(1, 1 + len(alice_keys), figsize=(5.5 + 3.6 * len(alice_keys), 4))
    axes = np.atleast_1d(axes)
    ax = axes[0]
    for m, r in results["methods"].items():
        mean, std = np.array(r[metric]["mean"]), np.array(r[metric]["std"])
        ax.plot(r["x"], mean, label=LABELS.get(m, m))
        floor = getattr(env_module(results["env"]), "REWARD_FLOOR", 0.0)   # swimmergather: -inf (bombs)
        low, high = (0.0, 1.0) if metric == "success" else (floor, np.inf)
        ax.fill_between(r["x"], np.clip(mean - std, low, high), np.clip(mean + std, low, high), alpha=0.2)
    xlabel = "episodes" if results["env"] == "hallway" else "target-task episodes"
    ax.set_xlabel(xlabel)
    ax.set_ylabel("target success rate" if metric == "success" else "target reward")
    ax.set_title(f"{results['env']} ({results['seeds']} seeds, mean +- std)")
    ax.legend(fontsize=7)
    for ax, k in zip(axes[1:], alice_keys):
        for m, r in results["methods"].items():
            if k in r.get("alice", {}):
                ax.plot(r["alice"]["x"], r["alice"][k], label=LABELS.get(m, m))
        ax.set_xlabel(xlabel)
        ax.set_title(f"Alice's tasks: {k}")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
