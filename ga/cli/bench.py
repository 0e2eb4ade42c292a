"""The bench command: the engine's speed, and the loop's cost around it, measured."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import click

from engine.evaluation import Evaluation
from ga.cli.errors import Command

__all__ = ["bench", "tool_command"]

#: The experiment whose whole run the loop's cost is measured on: small generations, many of them.
LOOP_EXPERIMENT = Path("experiments") / "seed2021.toml"


def _loop_experiment() -> Path | None:
    """Returns seed2021.toml from the working directory or from the source tree ga/ sits in (None if neither)."""
    for root in (Path.cwd(), Path(__file__).resolve().parents[2]):
        if (root / LOOP_EXPERIMENT).is_file():
            return root / LOOP_EXPERIMENT
    return None


#: What the installed ``othello-ga`` script runs.
_SCRIPT = "import sys; from ga.launch import main; sys.exit(main())"


def tool_command(checkout: Path | None = None) -> tuple[list[str], dict[str, str]]:
    """Returns the command, and its environment, that start this tool as its script does, from this checkout
    (or from ``checkout``, another one built in place).

    Not the installed script itself: an editable install makes that script
    import the checkout it was installed from, so a bench run from another
    checkout (the code before a change, side by side) would time the wrong
    code's whole run. Nor is it started from inside another checkout:
    ``python -c`` imports from its working folder first.
    """
    from ga.analysis.plothelper import checkout_environment

    return [sys.executable, "-c", _SCRIPT], checkout_environment(checkout)


def _loop_work(config_path: Path, generations: int, scratch: Path) -> tuple[Callable[[], None], Callable[[], int],
                                                                              Callable[[], None]]:
    from ga.config import load_config
    from ga.evolution.fitness import run_games
    from ga.games.executor import play

    batch = run_games(load_config(config_path), generations)
    runs = iter(range(1_000_000))

    def run() -> None:  # plots included, as a user runs it
        out = scratch / f"run{next(runs)}"
        command, env = tool_command()
        subprocess.run([*command, "evolve", str(config_path), "--generations", str(generations), "--out", str(out),
                        "--quiet"], check=True, capture_output=True, env=env)

    def games() -> int:
        play(batch)
        return len(batch.plan)

    def startup() -> None:
        command, env = tool_command()
        subprocess.run([*command, "--version"], check=True, capture_output=True, env=env)

    return run, games, startup


def _command_work(*arguments: str) -> Callable[[], None]:
    """Returns what runs ``othello-ga ARGUMENTS`` from a fresh process, as the script starts it."""
    def work() -> None:
        command, env = tool_command()
        subprocess.run([*command, *arguments], check=True, capture_output=True, env=env)

    return work


#: The FFO endgame test set, beside the repository (it is data, never copied into it).
FFO_CSV = Path("..") / "shared" / "ffo" / "ffo-1-79.csv"


def _ffo_positions() -> Path | None:
    """Returns the FFO CSV beside the working directory or beside the source tree ga/ sits in (None if neither)."""
    for root in (Path.cwd(), Path(__file__).resolve().parents[2]):
        if (root / FFO_CSV).is_file():
            return (root / FFO_CSV).resolve()
    return None


def _network(source: str) -> Evaluation:
    """Returns the evaluation ``--network`` names, which must hold a pattern network."""
    from ga.rundir.resolve import resolve_weights

    evaluation, _ = resolve_weights(source)
    if not isinstance(evaluation, Evaluation) or evaluation.patterns is None:
        raise ValueError(f"--network {source!r} has no pattern network; give an evaluation with one (import a "
                         "published network with othello-ga export FILE.player --colours ... --format json)")
    return evaluation


GROUP_CHOICES = ("engine", "search", "patterns", "endgame", "loop")


@click.command(cls=Command)
@click.option("--quick", is_flag=True, help="Small sizes, a few seconds in all (a smoke test: no verdicts).")
@click.option("--repeat", type=click.IntRange(min=1), default=None,
              help="Runs per measurement [default: 5; with --quick, 5 but 1 whole run].")
@click.option("--only", "groups", type=click.Choice(GROUP_CHOICES), multiple=True,
              help="Only these rows (repeat for several): engine (perft, games), search, patterns, endgame, loop.")
@click.option("--ffo", "ffo", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help=f"The FFO endgame CSV of the endgame rows (default: {FFO_CSV} if it is there).")
@click.option("--network", "network_source", default=None, metavar="EVALUATION",
              help="An evaluation with a pattern network (an evaluation file, e.g. an imported published network) "
                   "for the pattern rows: its self-play games/s at 1 ply and alphabeta:4 against heuristic's table.")
def bench(quick: bool, repeat: int | None, groups: tuple[str, ...], ffo: Path | None,
          network_source: str | None) -> None:
    """Measure the engine (perft, games per second, the alpha-beta search against the plain one, a pattern
    network against a table, the exact endgame on generated and FFO positions) and the loop's cost (a whole
    seed2021.toml run against its games played in one batch plus start-up); medians."""
    from ga.analysis.bench import (HEADER, HELP_TARGET, SHOW_TARGET, command_times, loop_overhead, machine_load,
                                   measure, ratios, row)
    from ga.files import check_stdout
    from ga.games.executor import all_cores

    check_stdout("bench prints its measurements there; redirect it to a file")
    chosen = groups or GROUP_CHOICES
    network = _network(network_source) if network_source is not None else None
    ffo = ffo or _ffo_positions()
    # A whole run starts a process and draws figures: at --quick's 20 generations, once is most of the time.
    whole_runs = repeat or (1 if quick else 5)
    repeat = repeat or 5
    click.echo(machine_load(os.getloadavg()[0], all_cores()))
    click.echo(HEADER)
    results = []
    for measurement in measure(quick=quick, repeat=repeat, groups=chosen, ffo=ffo, network=network):
        click.echo(row(measurement))
        results.append(measurement)
    if "patterns" in chosen and network is None:
        click.echo("(the pattern rows need --network EVALUATION: an evaluation with a pattern network)")
    if "endgame" in chosen and ffo is None:
        click.echo(f"(the FFO endgame rows need {FFO_CSV} or --ffo FILE)")
    config_path = _loop_experiment()
    if "loop" not in chosen:
        pass
    elif config_path is None:
        click.echo(f"(the whole-run rows need {LOOP_EXPERIMENT}: run bench from the repository)")
    else:
        generations = 20 if quick else 1000
        with tempfile.TemporaryDirectory(prefix="othello-ga-bench-") as scratch:
            work = _loop_work(config_path, generations, Path(scratch))
            for measurement in loop_overhead(config_path.stem, *work, repeat=whole_runs, judge=not quick):
                click.echo(row(measurement))
                results.append(measurement)
            # The fixed cost of two commands a user types often: the help, and show of a run (the first run above).
            commands = {"start-up: othello-ga --help": (_command_work("--help"), None if quick else HELP_TARGET),
                        "show of a run": (_command_work("show", str(Path(scratch) / "run0")),
                                          None if quick else SHOW_TARGET)}
            for measurement in command_times(commands, repeat):
                click.echo(row(measurement))
                results.append(measurement)
    for line in ratios(results, judge=not quick):
        click.echo(line)
    click.echo(f"load average {os.getloadavg()[0]:.2f} after the last row (bench itself keeps a core busy)")
