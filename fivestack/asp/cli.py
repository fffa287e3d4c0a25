"""``fivestack asp``: asymmetric self-play experiments.

    fivestack asp reproduce ENV [--seeds 10] [--episodes N] [--out docs/asp] [--methods a,b]
    fivestack asp train ENV [--method self_play] [--seeds 1] [--episodes N] [--out runs/asp]

ENV is one of hallway, lightkey, mountaincar (RLLab's damped car, the paper's), mountaincar_gym (Gymnasium's
car), economy, swimmergather (MuJoCo; swimmergather_ppo: the same with PPO). Both write ENV.json and ENV.png under --out.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from fivestack.asp.experiments import ENV_NAMES, env_module, reproduce
from fivestack.asp.selfplay import METHODS

asp_app = typer.Typer(help="Asymmetric self-play (Alice proposes, Bob learns): train and reproduce the "
                      "paper's experiments.", no_args_is_help=True, add_completion=False)


def _fail(message: str) -> None:
    Console(stderr=True, highlight=False, soft_wrap=True).print(f"Error: {message}", markup=False)
    raise typer.Exit(2)


def _check(env: str, seeds: int, episodes: int | None, methods: list[str]) -> None:
    if env not in ENV_NAMES:
        _fail(f"unknown environment {env!r}; choose one of {', '.join(ENV_NAMES)}")
    if seeds < 1:
        _fail(f"--seeds {seeds}: give at least 1")
    if episodes is not None and episodes < 1:
        _fail(f"--episodes {episodes}: give at least 1")
    for m in methods:
        if m not in METHODS:
            _fail(f"unknown method {m!r}; choose from {', '.join(METHODS)}")


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("episodes"), TimeElapsedColumn())


def _report(results: dict, out: Path) -> None:
    console = Console()
    console.print(f"{results['env']}: {results['seconds']} s; wrote {out / (results['env'] + '.json')} "
                  f"and {out / (results['env'] + '.png')}")
    console.print_json(json.dumps(results["summary"]))


@asp_app.command("reproduce")
def reproduce_cmd(env: str = typer.Argument(..., help=f"one of {', '.join(ENV_NAMES)}"),
                  seeds: int = typer.Option(10, help="independent runs (trained in lockstep)"),
                  episodes: int = typer.Option(None, help="counted episodes per run (default: the env's)"),
                  out: Path = typer.Option(Path("docs/asp"), help="folder for ENV.json and ENV.png"),
                  methods: str = typer.Option("", help="comma-separated subset of the env's methods"),
                  seed: int = typer.Option(0, help="random seed of the whole experiment")) -> None:
    """Self-play and the baselines with the paper's hyperparameters; JSON + PNG of the curves."""
    chosen = [m for m in methods.split(",") if m]
    _check(env, seeds, episodes, chosen)
    try:
        with _progress() as progress:
            results = reproduce(env, seeds, episodes, out, chosen or None, progress, seed)
    except ImportError as e:      # a world's optional dependency (swimmergather: mujoco), named with its fix
        _fail(str(e))
    _report(results, out)


@asp_app.command("train")
def train_cmd(env: str = typer.Argument(..., help=f"one of {', '.join(ENV_NAMES)}"),
              method: str = typer.Option("self_play", help=", ".join(METHODS)),
              seeds: int = typer.Option(1), episodes: int = typer.Option(None),
              out: Path = typer.Option(Path("runs/asp")), seed: int = typer.Option(0)) -> None:
    """A single method (default: self-play) on one environment."""
    _check(env, seeds, episodes, [method])
    env_module(env)
    try:
        with _progress() as progress:
            results = reproduce(env, seeds, episodes, out, [method], progress, seed)
    except ImportError as e:
        _fail(str(e))
    _report(results, out)
