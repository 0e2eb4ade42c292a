"""The bench command: the engine's speed, and the loop's cost around it, measured."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click

from engine.evaluation import Evaluation
from ga.cli.errors import Command

__all__ = ["bench", "tool_command"]

#: The experiment whose whole run the loop's cost is measured on: small generations, many of them.
LOOP_EXPERIMENT = Path("experiments") / "seed2021.toml"
#: The network run whose loop's CPU time is measured against its engine's: coevolution with a TD step.
NETWORK_LOOP_EXPERIMENT = Path("experiments") / "patterns-quick.toml"


def _experiment(name: Path) -> Path | None:
    """Returns an experiment from the working directory or from the source tree ga/ sits in (None if neither)."""
    for root in (Path.cwd(), Path(__file__).resolve().parents[2]):
        if (root / name).is_file():
            return root / name
    return None


def _loop_experiment() -> Path | None:
    """Returns seed2021.toml from the working directory or from the source tree ga/ sits in (None if neither)."""
    return _experiment(LOOP_EXPERIMENT)


def _network_loop_experiment() -> Path | None:
    """Returns patterns-quick.toml from the working directory or from the source tree (None if neither)."""
    return _experiment(NETWORK_LOOP_EXPERIMENT)


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


def _children_cpu() -> float:
    """Returns the CPU seconds (user and system) of this process's finished children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _command_work(*arguments: str) -> Callable[[], None]:
    """Returns what runs ``othello-ga ARGUMENTS`` from a fresh process, as the script starts it."""
    def work() -> None:
        command, env = tool_command()
        subprocess.run([*command, *arguments], check=True, capture_output=True, env=env)

    return work


def _network_loop_work(config_path: Path, scratch: Path) -> tuple[Callable[[int], tuple[float, int]], ...]:
    """Returns the network loop's measurements (see ga.analysis.bench.network_loop_overhead), each of a number
    of generations: a whole run in a fresh process (no figures), and the engine's work of its generations'
    games and TD self-play in this process; each returns (CPU seconds, games)."""
    import numpy as np

    from engine._learning import TDLearner
    from ga.config import load_config, network_of
    from ga.evolution.fitness import generation_batches
    from ga.games.executor import play

    config = load_config(config_path)
    network = network_of(config.patterns)
    if network is None:
        raise ValueError(f"{config_path} evolves no pattern network")
    learner = TDLearner([ntuple.copies for ntuple in network.tuples], network.phases, network.colours)
    runs = iter(range(1_000_000))

    def run(generations: int) -> tuple[float, int]:
        command, env = tool_command()
        out = scratch / f"network{next(runs)}"
        before = _children_cpu()
        subprocess.run([*command, "evolve", str(config_path), "--generations", str(generations), "--out", str(out),
                        "--quiet", "--no-plots"], check=True, capture_output=True, env=env)
        return _children_cpu() - before, 0

    def engine(generations: int) -> tuple[float, int]:
        td, size = config.td, config.population.size
        rng = np.random.default_rng(0)
        started, games = time.process_time(), 0
        for generation, batch in enumerate(generation_batches(config, generations)):
            play(batch)
            games += len(batch.plan)
            for individual in range(size if td.games else 0):  # the TD step: every individual, as it is played
                weights = rng.uniform(-config.patterns.init, config.patterns.init, network.n_weights)
                learner.train(weights, td.games, generation * size + individual, td.alpha, td.eps)
                games += td.games
        return time.process_time() - started, games

    return run, engine


#: Where the FFO endgame test set is published (it is data, never copied into this repository).
FFO_SOURCE = "Edax's repository, folder problem/: fforum-1-19.obf, fforum-20-39.obf, fforum-40-59.obf"


def _show(results: list[Any], measurements: Iterable[Any]) -> None:
    """Prints each measurement's row as it is measured, and keeps it for the ratios at the end."""
    from ga.analysis.bench import row

    for measurement in measurements:
        click.echo(row(measurement))
        results.append(measurement)


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
@click.option("--ffo", "ffo", type=click.Path(exists=True, dir_okay=False, path_type=Path), multiple=True,
              metavar="FILE", help=f"FFO endgame positions for the endgame rows (repeat for several files, in "
                                   f"order): {FFO_SOURCE}.")
@click.option("--network", "network_source", default=None, metavar="EVALUATION",
              help="An evaluation with a pattern network (an evaluation file, e.g. an imported published network) "
                   "for the pattern rows: its self-play games/s at 1 ply and alphabeta:4 against heuristic's table.")
def bench(quick: bool, repeat: int | None, groups: tuple[str, ...], ffo: tuple[Path, ...],
          network_source: str | None) -> None:
    """Measure the engine (perft, games per second, the alpha-beta search against the plain one, a pattern
    network against a table, the exact endgame on generated and FFO positions) and the loop's cost (a whole
    seed2021.toml run against its games played in one batch plus start-up; a whole patterns-quick.toml run's
    CPU time against its engine work); medians."""
    from ga.analysis.bench import (
        HEADER, HELP_TARGET, SHOW_TARGET, command_times, loop_overhead, machine_load, measure, network_loop_overhead,
        ratios, read_ffo,
    )
    from ga.files import check_stdout
    from ga.games.executor import all_cores

    check_stdout("bench prints its measurements there; redirect it to a file")
    chosen = groups or GROUP_CHOICES
    network = _network(network_source) if network_source is not None else None
    positions = read_ffo(ffo)  # read before anything is measured: a bad file is named at once
    # A whole run starts a process and draws figures: at --quick's 20 generations, once is most of the time.
    whole_runs = repeat or (1 if quick else 5)
    repeat = repeat or 5
    click.echo(machine_load(os.getloadavg()[0], all_cores()))
    click.echo(HEADER)
    results = []
    _show(results, measure(quick=quick, repeat=repeat, groups=chosen, ffo=positions, network=network))
    if "patterns" in chosen and network is None:
        click.echo("(the pattern rows need --network EVALUATION: an evaluation with a pattern network)")
    if "endgame" in chosen and not positions:
        click.echo("(the FFO endgame rows need the positions: --ffo fforum-1-19.obf --ffo fforum-20-39.obf, "
                   "from Edax's repository, folder problem/)")
    config_path = _loop_experiment()
    if "loop" not in chosen:
        pass
    elif config_path is None:
        click.echo(f"(the whole-run rows need {LOOP_EXPERIMENT}: run bench from the repository)")
    else:
        generations = 20 if quick else 1000
        with tempfile.TemporaryDirectory(prefix="othello-ga-bench-") as scratch:
            work = _loop_work(config_path, generations, Path(scratch))
            _show(results, loop_overhead(config_path.stem, *work, repeat=whole_runs, judge=not quick))
            # The fixed cost of two commands a user types often: the help, and show of a run (the first run above).
            commands = {"start-up: othello-ga --help": (_command_work("--help"), None if quick else HELP_TARGET),
                        "show of a run": (_command_work("show", str(Path(scratch) / "run0")),
                                          None if quick else SHOW_TARGET)}
            _show(results, command_times(commands, repeat))
    network_path = _network_loop_experiment()
    if "loop" not in chosen:
        pass
    elif network_path is None:
        click.echo(f"(the network run's rows need {NETWORK_LOOP_EXPERIMENT}: run bench from the repository)")
    else:
        generations = 40 if quick else 400
        with tempfile.TemporaryDirectory(prefix="othello-ga-bench-") as scratch:
            work = _network_loop_work(network_path, Path(scratch))
            _show(results, network_loop_overhead(network_path.stem, *work, generations, repeat=whole_runs,
                                                     judge=not quick))
    for line in ratios(results, judge=not quick):
        click.echo(line)
    click.echo(f"load average {os.getloadavg()[0]:.2f} after the last row (bench itself keeps a core busy)")
