"""The ``fivestack`` command.

    fivestack play --radiant scripted --dire random --seed 1 [--mode 5v5|1v1] [--max-minutes 60]
                   [--games N] [--replay FILE] [--view]
    fivestack view REPLAY [--host 127.0.0.1] [--port 0] [--no-browser]
    fivestack arena [--against trained|scripted|scripted-weak|random|RUN[:VERSION]] [--mode 1v1|5v5] [--hero NAME]
                    [--side radiant|dire] [--coop] [--seed 0] [--host 127.0.0.1] [--port 0] [--no-browser]
    fivestack arena --stats RUN
    fivestack train [--config F] [--set section.key=value ...] [--resume runs/NAME]
    fivestack eval runs/NAME [--version V] [--games N] [--against random,scripted,400,...]
    fivestack surgery runs/NAME --to CONFIG.toml [--patch VERSION] [--out runs/NEW]
    fivestack draft RUN[:VERSION] [--table FILE.npy] [--pool NAME,...] [--precompute] [--first ...] [--human ...]
                    [--view]
    fivestack draft --table FILE.npy [--first radiant|dire] [--human radiant|dire|none] [--view [--port 0]]
    fivestack draft --precompute --table FILE.npy --pool 17|NAME,NAME,... [--stub-seed 0] [--batch-size 65536]

Errors a user can cause (an unknown agent or mode, a bad number, a replay path that cannot be written)
end in one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

app = typer.Typer(
    help="fivestack: OpenAI-Five-style self-play training for a Dota-like 5v5 game.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)

from fivestack.asp.cli import asp_app  # noqa: E402

app.add_typer(asp_app, name="asp")

USAGE_ERROR = 2

TEAM_ROWS = (
    ("Kills", "kills"),
    ("Deaths", "deaths"),
    ("Last hits", "last_hits"),
    ("Denies", "denies"),
    ("Gold (net worth)", "gold"),
    ("Towers destroyed", "towers_destroyed"),
    ("Barracks destroyed", "barracks_destroyed"),
)


@app.callback()
def main() -> None:
    """fivestack: OpenAI-Five-style self-play training for a Dota-like 5v5 game."""


def _fail(message: str, code: int = USAGE_ERROR) -> None:
    Console(stderr=True, highlight=False, soft_wrap=True).print(f"Error: {message}", markup=False)
    raise typer.Exit(code)


def _check_port(port: int) -> None:
    if not 0 <= port <= 65535:
        _fail(f"--port must lie in 0..65535 (0 picks a free one), got {port}")


def _check_replay_path(path: Path) -> None:
    """Refuse a replay path that cannot be written *before* the game is played, not after."""
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        _fail(f"--replay {str(path)!r} is a directory; give a file name such as {str(path / 'game.npz')!r}")
    if not parent.is_dir():
        _fail(f"--replay {str(path)!r}: the folder {str(parent)!r} does not exist; "
              "create it first or choose another path")
    if not os.access(parent, os.W_OK):
        _fail(f"--replay {str(path)!r}: the folder {str(parent)!r} is not writable; choose another path")


def _result_line(game) -> str:
    minutes = f"{game.duration_minutes:.1f} game minutes"
    if game.winner:
        return f"{game.winner.capitalize()} wins after {minutes}"
    if game.outcome == "truncated":
        return f"Truncated at the time limit after {minutes} (no winner)"
    return f"Unfinished after {minutes}"


def _summary_table(result, game) -> Table:
    table = Table(title=f"Game {game.game_index} (seed {game.seed})" if len(result.games) > 1 else "Summary")
    table.add_column("")
    table.add_column(f"Radiant ({result.radiant})", justify="right")
    table.add_column(f"Dire ({result.dire})", justify="right")
    minutes = f"{game.duration_minutes:.1f}"
    table.add_row("Duration (game min)", minutes, minutes)
    for label, key in TEAM_ROWS:
        table.add_row(label, str(game.teams["radiant"][key]), str(game.teams["dire"][key]))
    return table


def _match_table(result) -> Table:
    wins = result.wins
    n = len(result.games)
    table = Table(title=f"{n} games: Radiant ({result.radiant}) vs Dire ({result.dire})")
    table.add_column("")
    table.add_column(f"Radiant ({result.radiant})", justify="right")
    table.add_column(f"Dire ({result.dire})", justify="right")
    table.add_row("Wins", str(wins["radiant"]), str(wins["dire"]))
    table.add_row("Truncated (no winner)", str(wins["truncated"]), str(wins["truncated"]))
    mean_minutes = sum(g.duration_minutes for g in result.games) / n
    table.add_row("Mean duration (game min)", f"{mean_minutes:.1f}", f"{mean_minutes:.1f}")
    for label, key in TEAM_ROWS:
        values = [sum(g.teams[team][key] for g in result.games) / n for team in ("radiant", "dire")]
        table.add_row(f"{label} (mean)", f"{values[0]:.1f}", f"{values[1]:.1f}")
    return table


@app.command()
def play(
    radiant: str = typer.Option("scripted", help="Radiant's agent: random, scripted-weak, scripted, trained (the "
                                                 "shipped 1v1 model), or a trained version RUN:VERSION (e.g. "
                                                 "runs/NAME:1200, runs/NAME:latest)."),
    dire: str = typer.Option("random", help="Dire's agent: random, scripted-weak, scripted, trained or RUN:VERSION."),
    seed: int = typer.Option(0, help="Game i gets seed SEED + i; the agents are seeded from it too."),
    mode: str = typer.Option("5v5", help="5v5 (standard) or 1v1 (mid lane, first to two kills or the first tower)."),
    max_minutes: float = typer.Option(60.0, help="Time limit in game minutes; a game that reaches it is truncated."),
    games: int = typer.Option(1, help="Number of games, played together in one batched env."),
    replay: Path | None = typer.Option(
        None, help="Save the replay here (.npz, e.g. game.npz); with --games N, one file per game named "
                   "NAME-<i>.npz."),
    view: bool = typer.Option(False, "--view", help="Open the replay viewer on the game just played (the first "
                              "game with --games N); without --replay the replay goes to a temporary file."),
) -> None:
    """Play full games between two agents, print the result and a summary, and optionally save replays."""
    from fivestack.game.engine import GameConfig
    from fivestack.play import check_mode, play_match, replay_paths
    from fivestack.match.agents import AgentUnavailable, check_agent

    try:
        check_agent(radiant)
    except ValueError as e:
        _fail(f"--radiant: {e}")
    try:
        check_agent(dire)
    except ValueError as e:
        _fail(f"--dire: {e}")
    try:
        check_mode(mode)
    except ValueError as e:
        _fail(f"--mode: {e}")
    if not 0 < max_minutes < float("inf"):
        _fail(f"--max-minutes must be a positive number of minutes, got {max_minutes}")
    if games < 1:
        _fail(f"--games must be at least 1, got {games}")
    if replay is not None:
        _check_replay_path(replay)
    elif view:
        import tempfile

        replay = Path(tempfile.mkdtemp(prefix="fivestack-")) / "game.npz"

    out = Console(highlight=False)
    err = Console(stderr=True, highlight=False)
    config = GameConfig(mode=mode, max_seconds=max_minutes * 60.0)
    what = f"{games} games" if games > 1 else "game"
    progress = Progress(
        TextColumn(f"[bold]{radiant} vs {dire}[/bold] ({mode}, {what})"), BarColumn(),
        TextColumn("{task.completed:.1f}/{task.total:.1f} game min"), TimeElapsedColumn(), console=err,
    )
    try:
        with progress:
            task = progress.add_task("play", total=max_minutes)
            result = play_match(radiant, dire, n_games=games, seed=seed, config=config, replay=replay,
                                progress=lambda minutes: progress.update(task, completed=minutes))
            if games == 1:  # a game that ended early: show its real length, not the time limit
                played = result.games[0].duration_minutes
                progress.update(task, total=played, completed=played)
    except AgentUnavailable as e:
        _fail(str(e), code=1)
    except ValueError as e:  # a run's version that cannot be loaded (missing, damaged, wrong shape)
        _fail(str(e))
    except KeyboardInterrupt:
        saved = ""
        if replay is not None:
            saved = f"; the games so far were saved to {', '.join(map(str, replay_paths(replay, games)))}"
        _fail(f"interrupted{saved}", code=130)

    for game in result.games:
        prefix = f"Game {game.game_index}: " if games > 1 else ""
        out.print(f"{prefix}{_result_line(game)}")
    if games == 1:
        out.print(_summary_table(result, result.games[0]))
    else:
        out.print(_match_table(result))
        wins = result.wins
        out.print(f"Wins: Radiant {wins['radiant']}, Dire {wins['dire']}, truncated {wins['truncated']}")
    for game in result.games:
        if game.replay is not None:
            out.print(f"Replay saved to {game.replay}")
    if view:
        _view(result.games[0].replay)


def _view(path: Path, host: str = "127.0.0.1", port: int = 0, browser: bool = True) -> None:
    from fivestack.viewer.server import view as serve

    code = serve(path, host=host, port=port, open_browser=browser, say=lambda m: print(m, flush=True),
                 complain=lambda m: typer.echo(m, err=True))
    if code:
        raise typer.Exit(code)


@app.command("view")
def view_command(
    replay: Path = typer.Argument(..., help="A replay file (.npz) written by `fivestack play --replay`."),
    host: str = typer.Option("127.0.0.1", help="Address to bind; the default serves this machine only."),
    port: int = typer.Option(0, help="Port to listen on; 0 picks a free one."),
    browser: bool = typer.Option(True, "--browser/--no-browser", help="Open the page in the default browser."),
) -> None:
    """Watch a replay in the browser: map, units, fog of war, scoreboard, events and the planning view."""
    _check_port(port)
    _view(replay, host=host, port=port, browser=browser)


@app.command("arena")
def arena_command(
    against: str = typer.Option("trained", help="Who the player meets: trained (the small 1v1 hero that ships "
                                                "with fivestack), scripted, scripted-weak, random, or a trained "
                                                "version RUN[:VERSION] (e.g. runs/NAME:1200)."),
    mode: str = typer.Option("1v1", help="1v1 (mid lane, first to two kills or the first tower) or 5v5."),
    hero: str = typer.Option(None, help="The player's hero (a hero name, any case); default: the team's first."),
    side: str = typer.Option("radiant", help="The player's team: radiant or dire."),
    coop: bool = typer.Option(False, "--coop", help="5v5: the player's four teammates are the trained policy "
                                                    "instead of the scripted team."),
    seed: int = typer.Option(0, help="Seed of the game and of the agents."),
    host: str = typer.Option("127.0.0.1", help="Address to bind, and the one the page must be opened at; the "
                                               "default serves this machine only."),
    port: int = typer.Option(0, help="Port to listen on; 0 picks a free one."),
    browser: bool = typer.Option(True, "--browser/--no-browser", help="Open the page in the default browser."),
    stats: Path = typer.Option(None, "--stats", help="Print the record against people of this folder (RUN, or "
                                                     "runs/arena-NAME for a bot) from its arena.jsonl, and exit."),
) -> None:
    """Play a live game in the browser, against (or, with --coop, beside) a trained team or a bot."""
    if stats is not None:
        from fivestack.arena.records import format_stats, record_stats

        try:
            print(format_stats(stats, record_stats(stats)))
        except ValueError as e:
            _fail(str(e))
        return
    from fivestack.arena.server import serve_game
    from fivestack.arena.session import ArenaGame, ArenaSetup
    from fivestack.game.layout import STEP_SECONDS
    from fivestack.match.agents import AgentUnavailable
    from fivestack.viewer.http_rules import check_bind_host

    _check_port(port)
    try:
        check_bind_host(host)
    except ValueError as e:
        _fail(str(e))
    if seed < 0:
        _fail(f"--seed must be a non-negative integer, got {seed}")
    import torch

    torch.set_num_threads(1)  # small batches: one thread keeps a 5v5 tick at a few ms; more threads only contend
    setup = ArenaSetup(against=against, mode=mode, hero=hero, side=side, coop=coop, seed=seed)
    err = Console(stderr=True, highlight=False)
    try:
        setup.check()
        with err.status(f"setting up {mode} against {against} (the first game compiles the simulator: minutes) ..."):
            game = ArenaGame(setup)
    except AgentUnavailable as e:
        _fail(str(e), code=1)
        return
    except ValueError as e:
        _fail(str(e))
        return
    say = lambda line: print(line, flush=True)  # noqa: E731
    try:
        server = serve_game(game, host=host, port=port, open_browser=browser, say=say)
    except OSError as e:
        _fail(f"cannot listen on {host}:{port} ({e.strerror or e}); choose another --port, or 0 for a free one")
        return
    if server.error is not None:
        _fail(f"the arena stopped on an error: {type(server.error).__name__}: {server.error}", code=1)
    end = game.end_message()
    if end is None:
        say("No game was played (no page joined it).")
    else:
        outcome = {"win": "You won", "loss": "You lost", "draw": "A draw"}.get(end["outcome"], end["outcome"])
        say(f"{outcome} ({end['reason']}) after {game.step * STEP_SECONDS:.0f} game seconds.")
        if end.get("replay"):
            say(f"Replay: {end['replay']} (watch it with: fivestack view {end['replay']})")
        say(f"Record against people: fivestack arena --stats {game.results_dir}")


@app.command("eval")
def eval_command(
    run: Path = typer.Argument(..., help="A run folder (runs/NAME)."),
    version: str = typer.Option("latest", "--version", help="The version to rate: a number, or latest (the latest "
                                                            "checkpoint)."),
    games: int = typer.Option(None, "--games", help="Games in all, spread over the opponents (default: the run's "
                                                    "eval.games)."),
    against: str = typer.Option(None, "--against", help="Comma-separated opponents: random, scripted-weak, scripted, "
                                                        "or versions of this run (e.g. 400 or v400); default: the "
                                                        "references within eval.near_points of the rating."),
    out: Path = typer.Option(None, "--out", help="Write the table as JSON here (default RUN/eval/v<VERSION>.json)."),
) -> None:
    """Rate a version of a run by TrueSkill (random = 0) and print its win rates against each opponent."""
    import json

    from fivestack.runs.checkpoints import CheckpointError
    from fivestack.system.eval_report import rate_run_version

    err = Console(stderr=True, highlight=False)
    items = None if not against else [a.strip() for a in against.split(",") if a.strip()]
    try:
        report = rate_run_version(run, version, games, items, status=err.status)
    except (ValueError, CheckpointError) as exc:
        _fail(str(exc))
        return
    Console(highlight=False).print(_eval_table(report))
    out = out or run / "eval" / f"{report.name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report.to_json(), indent=1))
    print(f"written to {out}")


def _eval_table(report) -> Table:
    record, name = report.record, report.name
    table = Table(title=f"{report.run} {name}: TrueSkill {record['mu']:.1f} +- {record['sigma']:.1f} (random = 0)")
    for column in ("agent", "mu", "sigma", "games", f"{name} score [95% CI]", "draws"):
        table.add_column(column, justify="left" if column == "agent" else "right")
    table.caption = ("score: wins and half the draws per game (as TrueSkill counts them); draws: games the time "
                     "limit ended")
    low, high = report.ci95
    table.add_row(name, f"{record['mu']:.2f}", f"{record['sigma']:.2f}", str(record["games"]),
                  f"{report.score:.0%} [{low:.0%}, {high:.0%}]", f"{report.draw_rate:.0%}")
    for row in report.opponents:
        table.add_row(row["agent"], f"{row['mu']:.2f}", f"{row['sigma']:.2f}", str(row["games"]),
                      f"{row['win_rate']:.0%} [{row['ci95'][0]:.0%}, {row['ci95'][1]:.0%}]", f"{row['draw_rate']:.0%}")
    return table


def _show_config(cfg) -> None:
    """The table of ``fivestack train --show-config``: key, value, default (blank when the value is the default)
    and the key's one-line doc."""
    from rich.table import Table

    from fivestack.runs.config import describe

    table = Table(box=None, pad_edge=False, show_header=True, header_style="bold")
    table.add_column("key", no_wrap=True)
    table.add_column("value", max_width=28, overflow="fold")
    table.add_column("default", max_width=28, overflow="fold")
    table.add_column("what it does", overflow="fold")
    for row in describe(cfg):
        changed = row["value"] != row["default"]
        table.add_row(row["key"], f"[bold]{row['value']!r}[/bold]" if changed else repr(row["value"]),
                      repr(row["default"]) if changed else "", row["doc"])
    Console(width=max(Console().width, 140)).print(table)


@app.command()
def train(
    config: Path = typer.Option(None, "--config", help="TOML run configuration (sections run, game, rollout, ppo, "
                                                       "policy, eval)."),
    set_: list[str] = typer.Option([], "--set", help="Override one key, e.g. --set ppo.learning_rate=1e-4 "
                                                     "(repeatable)."),
    runner: str = typer.Option("serial", "--runner", help="serial: every component in this process; ray: rollout "
                                                          "workers, inference and optimizers as Ray actors."),
    resume: Path = typer.Option(None, "--resume", help="Continue the run in this folder (runs/NAME) from its latest "
                                                       "checkpoint."),
    rollout_workers: int = typer.Option(None, "--rollout-workers", help="ray: rollout workers R (ray.rollout_workers)."),
    optimizers: int = typer.Option(None, "--optimizers", help="ray: optimizers O averaging gradients (ray.optimizers)."),
    inference: int = typer.Option(None, "--inference", help="ray: inference actors I; 0 = workers run their own "
                                                            "forward passes (ray.inference)."),
    address: str = typer.Option(None, "--address", help="ray: join this Ray cluster (e.g. auto or HOST:6379) instead "
                                                        "of starting Ray on this machine (ray.address)."),
    show_config: bool = typer.Option(False, "--show-config", help="Print every config key with its value (after "
                                                                  "--config, --set and --resume), its default and "
                                                                  "what it does, and exit."),
) -> None:
    """Train a team by self-play (latest vs latest) with PPO; checkpoints, TensorBoard and metrics.jsonl go to
    runs/NAME."""
    from fivestack.runs.config import ConfigError, load_config
    from fivestack.system.controller import RunStopped
    from fivestack.runs.checkpoints import CheckpointError
    from fivestack.system.runner import RUNNERS, make_runner

    if runner not in RUNNERS:
        _fail(f"--runner {runner!r} is not available; use --runner serial or --runner ray")
    ray_flags = {"rollout_workers": rollout_workers, "optimizers": optimizers, "inference": inference,
                 "address": address}
    if runner == "serial" and any(v is not None for v in ray_flags.values()):
        _fail("--rollout-workers, --optimizers, --inference and --address need --runner ray")
    set_ = list(set_) + [f"ray.{k}={v!r}" if isinstance(v, str) else f"ray.{k}={v}"
                         for k, v in ray_flags.items() if v is not None]
    try:
        if resume is not None:
            run_config = resume / "config.toml"
            if not run_config.is_file():
                _fail(f"--resume {str(resume)!r}: no run there (no config.toml); pass a folder such as runs/NAME")
            cfg = load_config(run_config, list(set_), saved=True)
        else:
            cfg = load_config(config, list(set_))
        if show_config:
            _show_config(cfg)
            return
        trainer = make_runner(cfg, runner, resume=resume,
                              say=lambda m: Console(stderr=True).print(m, markup=False))
    except (ConfigError, CheckpointError, FileExistsError, ValueError) as exc:
        _fail(str(exc))
        return
    console = Console()
    console.print(trainer.describe())
    if getattr(trainer, "clone", None) is not None and cfg.clone.bot:
        _clone_with_progress(trainer, console)
    budget = cfg.run.minutes * 60.0
    columns = [TextColumn("version {task.fields[version]}"), BarColumn(),
               TextColumn("{task.fields[steps]:,} agent-steps  {task.fields[rate]:,.0f}/s  {task.fields[wins]}"),
               TimeElapsedColumn()]
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("train", total=budget or None, version=trainer.version, steps=0, rate=0.0, wins="")

        def show(p) -> None:
            wins = "  ".join(f"TrueSkill {v:.1f}" if k == "TrueSkill" else f"vs {k} {v:.0%}"
                             for k, v in p.win_rates.items())
            bar.update(task, completed=min(p.elapsed, budget) if budget else None, version=p.version,
                       steps=p.agent_steps, rate=p.agent_steps_per_s, wins=wins)

        try:
            final = trainer.run(on_progress=show)
        except RunStopped as exc:
            _fail(str(exc), code=1)
        finally:
            trainer.close()
    console.print(f"stopped at version {final.version} after {final.agent_steps:,} agent-steps; "
                  f"checkpoint in {trainer.run_dir / 'checkpoints'}; resume with: fivestack train "
                  f"{'--runner ray ' if runner == 'ray' else ''}--resume {trainer.run_dir}")


def _clone_with_progress(trainer, console: Console) -> None:
    """Run the clone phase of a run (``clone.bot``) under its own progress bar, before training's."""
    columns = [TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
               TimeElapsedColumn()]
    with Progress(*columns, console=console, transient=False) as bar:
        tasks = {}

        def show(phase: str, done: float, total: float, text: str) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(text, total=total)
            bar.update(tasks[phase], completed=done, total=total, description=text)

        trainer.clone(on_progress=show)


@app.command("surgery")
def surgery_command(
    run: Path = typer.Argument(..., help="The run to operate on (runs/NAME); its latest checkpoint and opponent pool "
                                         "move to the new model."),
    to: Path = typer.Option(..., "--to", help="A TOML file with the keys that change, on top of the run's config "
                                              "(e.g. [policy] lstm_size = 512)."),
    patch: str = typer.Option(None, "--patch", help="The new run's game patch version (game.patch, one of "
                                                     "fivestack.game.patch.PATCHES; e.g. 0.3 adds the creep_balance "
                                                     "observation column)."),
    out: Path = typer.Option(None, "--out", help="The new run's folder (default: RUN-surgery-vVERSION beside RUN)."),
    seed: int = typer.Option(0, help="Seed of the new weights and of the probe's recording."),
) -> None:
    """Change the model (wider LSTM or trunk; new features, actions, items or abilities of the game) without
    starting over: the run's latest weights, optimizer state and past opponents are transformed into a new run
    that computes the same function, verified on recorded observations; continue it with train --resume."""
    from fivestack.surgery.run import new_config, operate
    from fivestack.surgery.transforms import SurgeryError
    from fivestack.runs.config import ConfigError
    from fivestack.runs.checkpoints import CheckpointError, latest_checkpoint, load_checkpoint
    from fivestack.runs.config import from_dict

    try:
        state = load_checkpoint(latest_checkpoint(run))[2]
        cfg = new_config(from_dict(state["config"]), to, patch)
        out = out or run.parent / f"{run.name}-surgery-v{int(state['version'])}"
        say = lambda line: print(line, flush=True)  # noqa: E731
        result = operate(run, cfg, out, seed=seed, say=say)
    except (SurgeryError, ConfigError, CheckpointError) as exc:
        _fail(str(exc))
        return
    print(f"wrote run {result.out} at version {result.version} ({len(result.pool)} past versions moved with it; "
          f"learning rate 0 for the first {cfg.ppo.warmup_steps} gradient steps); report: "
          f"{result.out / 'surgery' / 'report.json'}; continue with: fivestack train --resume {result.out}")


@app.command("draft")
def draft_command(
    run: str = typer.Argument(None, help="A trained version RUN[:VERSION] (e.g. runs/NAME:1200, runs/NAME:latest): "
                                         "draft from its policy's win probability at the first frame of each "
                                         "lineup, scoring the lineups first (resumable) into --table or "
                                         "RUN/draft/vVERSION.npy."),
    table: Path = typer.Option(None, "--table", help="The lineup table (FILE.npy with FILE.progress.json beside "
                                                     "it); needed without RUN."),
    precompute: bool = typer.Option(False, "--precompute", help="Score every lineup into the table (resumes a "
                                                                "partial table), then stop."),
    pool: str = typer.Option(None, "--pool", help="Without RUN, with --precompute: a number of heroes (17) or "
                                                  "comma-separated names for the stub scorer. With RUN: some of "
                                                  "the run's heroes by name (default: all of its patch's)."),
    stub_seed: int = typer.Option(0, "--stub-seed", help="Without RUN: the stub scorer's seed."),
    batch_size: int = typer.Option(None, "--batch-size", help="Lineups per scorer call when precomputing, each "
                                                              "written before the next (default 65536 for the stub, "
                                                              "4096 for a run's policy: a few seconds each)."),
    games: int = typer.Option(64, "--games", help="With RUN: games per batch of the policy scorer."),
    seed: int = typer.Option(0, "--seed", help="With RUN: the seed every scored game is reset with."),
    threads: int = typer.Option(1, "--threads", help="With RUN: torch threads of the policy's forward passes."),
    first: str = typer.Option("radiant", "--first", help="The side with the first pick: radiant or dire."),
    human: str = typer.Option("radiant", "--human", help="The side you draft (radiant or dire); none: the search "
                                                         "drafts both."),
    view: bool = typer.Option(False, "--view", help="Draft in the browser instead of the terminal (the draft screen; "
                                                    "--first and --human are its first draft's settings)."),
    host: str = typer.Option("127.0.0.1", "--host", help="With --view: the address to bind."),
    port: int = typer.Option(0, "--port", help="With --view: the port; 0 picks a free one."),
    browser: bool = typer.Option(True, "--browser/--no-browser", help="With --view: open the page in the default "
                                                                      "browser."),
) -> None:
    """Draft by minimax over a table of lineup win probabilities (pick order 1-2-2-2-2-1): type picks by name or
    number (or click them with --view), and see Radiant's predicted win probability after each pick."""
    from fivestack.draft.lineups import DraftError

    try:
        if run is not None:
            import torch

            from fivestack.draft.run_draft import draft_run

            if threads < 1:
                raise DraftError(f"--threads must be at least 1, got {threads}")
            torch.set_num_threads(threads)
            table = draft_run(run, table=table, pool=pool, precompute_only=precompute or view,
                              batch_size=batch_size or 4096, scorer_batch=games, seed=seed, first=first, human=human)
            if precompute or not view:
                return
        elif table is None:
            raise DraftError("give a run (fivestack draft RUN[:VERSION]) or a table (--table FILE.npy)")
        if view and not precompute:
            _check_port(port)
            from fivestack.draft.server import serve_draft

            code = serve_draft(table, first=first, human=human, host=host, port=port, open_browser=browser,
                               say=lambda m: print(m, flush=True), complain=lambda m: typer.echo(m, err=True))
            if code:
                raise typer.Exit(code)
            return
        from fivestack.draft.play import draft_from_table

        draft_from_table(table, precompute=precompute, pool=pool, stub_seed=stub_seed, batch_size=batch_size or 65536,
                  first=first, human=human)
    except DraftError as exc:
        _fail(str(exc))


if __name__ == "__main__":  # pragma: no cover
    app()
