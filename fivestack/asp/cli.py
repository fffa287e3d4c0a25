"""``fivestack asp``: asymmetric self-play experiments.

    fivestack asp reproduce ENV [--seeds 10] [--episodes N] [--out docs/asp] [--methods a,b] [--set KEY=VALUE ...]
    fivestack asp train ENV [--method self_play] [--seeds 1] [--episodes N] [--out runs/asp] [--set KEY=VALUE ...]

ENV is one of hallway, lightkey (6 x 6, MazeBase's view; lightkey10: the authors' 10 x 10; lightkey_cells and
lightkey_rows: 6 x 6 with input words at absolute cells, or by row and column), mountaincar (RLLab's damped car, the
paper's), mountaincar_gym (Gymnasium's car), economy, swimmergather (MuJoCo; swimmergather_ppo: the same with PPO).
Both write ENV.json and ENV.png under --out.
--set changes one setting of the env's config (``SelfPlayConfig``), e.g. ``--set batch=256`` for light-key at the
paper's batch; the JSON records it.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from fivestack.asp.experiments import ENV_NAMES, env_module, parse_overrides, reproduce
from fivestack.asp.selfplay import METHODS

asp_app = typer.Typer(help="Asymmetric self-play (Alice proposes, Bob learns): train and reproduce the "
                      "paper's experiments.", no_args_is_help=True, add_completion=False)


def _fail(message: str) -> None:
    Console(stderr=True, highlight=False, soft_wrap=True).print(f"Error: {message}", markup=False)
    raise typer.Exit(2)


SET_HELP = "KEY=VALUE: one setting of the env's config (asp.selfplay.SelfPlayConfig), e.g. batch=256; repeatable"


def _check(env: str, seeds: int, episodes: int | None, methods: list[str], settings: list[str]) -> dict:
    """The arguments' errors as one line each (exit 2); the parsed ``--set`` overrides."""
    if env not in ENV_NAMES:
        _fail(f"unknown environment {env!r}; choose one of {', '.join(ENV_NAMES)}")
    if seeds < 1:
        _fail(f"--seeds {seeds}: give at least 1")
    if episodes is not None and episodes < 1:
        _fail(f"--episodes {episodes}: give at least 1")
    for m in methods:
        if m not in METHODS:
            _fail(f"unknown method {m!r}; choose from {', '.join(METHODS)}")
    try:
        return parse_overrides(env, settings)
    except ValueError as e:
        _fail(str(e))


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
                  seed: int = typer.Option(0, help="random seed of the whole experiment"),
                  settings: list[str] = typer.Option([], "--set", help=SET_HELP)) -> None:
    """Self-play and the baselines with the paper's hyperparameters; JSON + PNG of the curves."""
    chosen = [m for m in methods.split(",") if m]
    overrides = _check(env, seeds, episodes, chosen, settings)
    try:
        with _progress() as progress:
            results = reproduce(env, seeds, episodes, out, chosen or None, progress, seed, overrides)
    except ImportError as e:      # a world's optional dependency (swimmergather: mujoco), named with its fix
        _fail(str(e))
    _report(results, out)


@asp_app.command("train")
def train_cmd(env: str = typer.Argument(..., help=f"one of {', '.join(ENV_NAMES)}"),
              method: str = typer.Option("self_play", help=", ".join(METHODS)),
              seeds: int = typer.Option(1), episodes: int = typer.Option(None),
              out: Path = typer.Option(Path("runs/asp")), seed: int = typer.Option(0),
              settings: list[str] = typer.Option([], "--set", help=SET_HELP)) -> None:
    """A single method (default: self-play) on one environment."""
    overrides = _check(env, seeds, episodes, [method], settings)
    try:
        with _progress() as progress:
            results = reproduce(env, seeds, episodes, out, [method], progress, seed, overrides)
    except ImportError as e:
        _fail(str(e))
    _report(results, out)
