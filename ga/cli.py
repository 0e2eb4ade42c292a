"""The ``othello-ga`` command line: the only module that parses arguments.

Bad input (a config, a weights file, a spec, a path) ends with one line on
stderr naming the problem and exit code 2; set OTHELLO_GA_DEBUG=1 to see the
traceback instead.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Any

import click

from ga import commands
from ga.cluster import ClusterUnavailable
from ga.config import ConfigError
from ga.fitness import WorkersLost
from ga.runio import RunDirError
from ga.weights import WeightsError

EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


class Progress:
    """A tqdm bar over generations: games/s, current and best fitness, ETA."""

    def __init__(self, start: int, total: int, quiet: bool) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=total, initial=start, unit="gen", disable=quiet, dynamic_ncols=True, file=sys.stderr)
        self.games = 0
        self.started = time.perf_counter()

    def update(self, record: dict[str, Any]) -> None:
        """Advances the bar by one generation."""
        self.games += record["games"]
        rate = self.games / max(time.perf_counter() - self.started, 1e-9)
        self.bar.set_postfix_str(
            f"{rate:,.0f} games/s, win rate {record['win_rate']:.3f}, best fitness {record['best_fitness']:.3f}",
            refresh=False,
        )
        self.bar.update(1)

    def close(self) -> None:
        """Closes the bar."""
        self.bar.close()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="othello-ga")
def cli() -> None:
    """Evolve the 64 square weights of an Othello evaluation function with a genetic algorithm."""


def _plot_helper(plots: bool) -> Any:
    """Returns a helper that imports the plotting code while the run plays (see :mod:`ga.plothelper`)."""
    if not plots:
        return contextlib.nullcontext()
    from ga.plothelper import PlotHelper

    return PlotHelper()


def _finish_run(result: Any, plot_helper: Any) -> None:
    if plot_helper is not None and result.finished:
        plot_helper.draw(result.run_dir)
    if result.finished:
        click.echo(f"finished {result.generations_done} generations; results in {result.run_dir}")
    else:
        click.echo(
            f"stopped after generation {result.generations_done - 1} (checkpoint saved); "
            f"continue with: othello-ga resume {result.run_dir}",
            err=True,
        )
        raise click.exceptions.Exit(EXIT_INTERRUPTED)


def _dask_options(command: Any) -> Any:
    """Adds the Dask options shared by ``evolve`` and ``resume``."""
    file = click.Path(exists=True, dir_okay=False, path_type=Path)
    options = [
        click.option("--dask", "dask", metavar="ADDRESS",
                     help="Evaluate on the Dask scheduler at ADDRESS (tcp://HOST:PORT, tls://HOST:PORT), "
                          "or 'local[:N]' for an in-process cluster of N workers."),
        click.option("--dask-tls-ca", type=file, help="TLS: the certificate authority (PEM) of the Dask cluster."),
        click.option("--dask-tls-cert", type=file, help="TLS: this client's certificate (PEM, may include the key)."),
        click.option("--dask-tls-key", type=file, help="TLS: this client's private key (PEM), if not in the certificate."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _run_on(run_dir: Path, start: Any) -> Any:
    """Returns ``start()``, adding to lost workers' error (a thread's or a cluster's) how to continue the run."""
    try:
        return start()
    except WorkersLost as error:
        from ga.runio import CHECKPOINT

        if (run_dir / CHECKPOINT).is_file():
            hint = f"the last checkpoint is intact; continue with: othello-ga resume {run_dir} --local (or --dask ADDRESS)"
        else:
            hint = f"no generation was finished; '{run_dir}' holds nothing to resume"
        raise type(error)(f"{error}; {hint}") from error


def _configure_tls(ca: Path | None, cert: Path | None, key: Path | None) -> None:
    if ca is None and cert is None and key is None:
        return
    if ca is None or cert is None:
        raise click.UsageError("--dask-tls-ca and --dask-tls-cert go together (and --dask-tls-key if the key is separate)")
    from ga.cluster import use_tls

    use_tls(str(ca), str(cert), str(key) if key is not None else None)


@cli.command()
@click.argument("config", type=click.Path(path_type=Path))
@click.option("--seed", type=click.IntRange(min=0), help="Override experiment.seed.")
@click.option("--generations", type=click.IntRange(min=1), help="Override experiment.generations.")
@click.option("--workers", type=click.IntRange(min=0), help="Local workers (0 = all cores); with --dask local, its workers.")
@click.option("--out", type=click.Path(path_type=Path), help="Run directory (default results/<experiment>-<timestamp>).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--plots/--no-plots", default=True, show_default=True, help="Draw the plots at the end.")
@_dask_options
def evolve(config: Path, seed: int | None, generations: int | None, workers: int | None, out: Path | None,
           quiet: bool, plots: bool, dask: str | None, dask_tls_ca: Path | None, dask_tls_cert: Path | None,
           dask_tls_key: Path | None) -> None:
    """Run the experiment described by the TOML file CONFIG."""
    from ga.config import load_config, with_overrides
    from ga.evolve import default_run_dir, run

    loaded = with_overrides(load_config(config), seed=seed, generations=generations, workers=workers,
                            backend="dask" if dask is not None else None, address=dask)
    _configure_tls(dask_tls_ca, dask_tls_cert, dask_tls_key)
    run_dir = out if out is not None else default_run_dir(loaded)
    with _plot_helper(plots) as plot_helper:
        result = _run_on(run_dir, lambda: run(loaded, run_dir, progress=lambda start, total: Progress(start, total, quiet)))
        _finish_run(result, plot_helper)


@cli.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--generations", type=click.IntRange(min=1), help="New total number of generations (to extend a run).")
@click.option("--workers", type=click.IntRange(min=0), help="Local workers (0 = all cores); with --dask local, its workers.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--plots/--no-plots", default=True, show_default=True, help="Draw the plots at the end.")
@click.option("--local", is_flag=True, help="Continue on this machine, whatever backend the run used (e.g. its cluster is gone).")
@_dask_options
def resume(run_dir: Path, generations: int | None, workers: int | None, quiet: bool, plots: bool, local: bool,
           dask: str | None, dask_tls_ca: Path | None, dask_tls_cert: Path | None, dask_tls_key: Path | None) -> None:
    """Continue an interrupted run in RUN_DIR from its last checkpoint."""
    from ga.evolve import resume as resume_run

    if local and dask is not None:
        raise click.UsageError("--local and --dask exclude each other")
    _configure_tls(dask_tls_ca, dask_tls_cert, dask_tls_key)
    with _plot_helper(plots) as plot_helper:
        result = _run_on(run_dir, lambda: resume_run(run_dir, generations=generations, workers=workers, dask=dask,
                                                     local=local, progress=lambda start, total: Progress(start, total, quiet)))
        _finish_run(result, plot_helper)


@cli.command()
@click.argument("opponent", default="wpc:1@heuristic")
@click.option("--black", "human_colour", flag_value="black", default=True, help="You play black (first).")
@click.option("--white", "human_colour", flag_value="white", help="You play white.")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Seed of the computer's random choices.")
def play(opponent: str, human_colour: str, seed: int | None) -> None:
    """Play against OPPONENT (a player spec, default wpc:1@heuristic) in the terminal."""
    from engine import BLACK, WHITE, build_player
    from ga.play import play_human
    from ga.weights import load_weights

    computer = build_player(opponent, load_weights=load_weights)
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "little")
    human = BLACK if human_colour == "black" else WHITE
    click.echo(f"You play {human_colour} against {opponent} (seed {seed}). Type a square like d3; Ctrl-D quits.")
    try:
        play_human(computer, human, seed, ask=lambda prompt: input(prompt), say=click.echo)
    except (EOFError, KeyboardInterrupt):
        click.echo("\nBye.")


@cli.command()
@click.option("--quick", is_flag=True, help="Small sizes (seconds, for a smoke test).")
@click.option("--repeat", type=click.IntRange(min=1), default=5, show_default=True, help="Runs per measurement.")
def bench(quick: bool, repeat: int) -> None:
    """Measure the engine: perft and games per second (single core, medians)."""
    from ga.bench import report, run_benchmarks

    click.echo(report(run_benchmarks(quick=quick, repeat=repeat)))


for _command in (commands.plot, commands.compare, commands.export, commands.evaluate, commands.show):
    cli.add_command(_command)


def main(argv: list[str] | None = None) -> int:
    """Runs the command line and returns the exit code."""
    try:
        code = cli.main(args=argv, prog_name="othello-ga", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return 1
    except click.UsageError as error:
        command = error.ctx.command_path if error.ctx is not None else "othello-ga"
        click.echo(f"othello-ga: error: {_one_line(error.format_message())} (see '{command} --help')", err=True)
        return EXIT_BAD_INPUT
    except click.ClickException as error:
        error.show()
        return error.exit_code
    except KeyboardInterrupt:
        click.echo("interrupted; the last checkpoint is intact (othello-ga resume RUN_DIR continues)", err=True)
        return EXIT_INTERRUPTED
    except WorkersLost as error:
        if os.environ.get("OTHELLO_GA_DEBUG") == "1":
            raise
        click.echo(f"othello-ga: error: {_one_line(error)}", err=True)
        return EXIT_FAILED
    except (ConfigError, RunDirError, WeightsError, ClusterUnavailable, ValueError, OSError) as error:
        if os.environ.get("OTHELLO_GA_DEBUG") == "1":
            raise
        click.echo(f"othello-ga: error: {_one_line(error)}", err=True)
        return EXIT_BAD_INPUT
    return code if isinstance(code, int) else 0


def _one_line(error: BaseException) -> str:
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.strerror or error} ('{error.filename}')"
    return " ".join(str(error).split())


if __name__ == "__main__":
    sys.exit(main())
