"""The commands that run experiments: evolve and resume."""

from __future__ import annotations

import contextlib
import os
import warnings
from pathlib import Path
from typing import Any

import click

from ga.cli.errors import EXIT_INTERRUPTED, Command, one_line, saved
from ga.cli.outputs import emit_warnings, figures_not_drawn
from ga.cli.progress import Progress
from ga.games.executor import WorkersLost
from ga.rundir.layout import CHECKPOINT, PLOTS

__all__ = ["evolve", "resume"]


def _plot_helper(plots: bool) -> Any:
    """Returns a helper that imports the plotting code while the run plays (see :mod:`ga.analysis.plothelper`)."""
    from ga.analysis.plothelper import PlotHelper, take_early

    early = take_early()  # started by the script before the command line loaded (ga.launch)
    if not plots:
        if early is not None:
            early.close()
        return contextlib.nullcontext()
    return early or PlotHelper()


def _finish_run(result: Any, plot_helper: Any, progress: Progress) -> None:
    if result.already_finished:
        progress.finish()
        done = result.generations_done
        if result.checkpoint_kept:
            extend = f"To extend it: othello-ga resume {result.run_dir} --generations N, with N more than {done:,}"
        else:  # (a shipped run): its config makes it again, longer if asked
            extend = (f"It was kept without its {CHECKPOINT}, so it cannot be extended in place; to run it again, "
                      f"longer, into a new directory: othello-ga evolve {result.run_dir / 'config.toml'} "
                      f"--generations N --out NEW_DIR, with N more than {done:,}")
        with saved("nothing was written"):
            click.echo(f"'{result.run_dir}' is finished ({done:,} of {done:,} generations done, and every stage after "
                       f"them): nothing to resume, nothing written. {extend}")
        return
    drawn = []
    caught: list[warnings.WarningMessage] = []
    if plot_helper is not None and result.finished:
        with warnings.catch_warnings(record=True) as caught:  # one line each, as every command prints them
            warnings.simplefilter("always")
            try:
                drawn = plot_helper.draw(result.run_dir)
            except KeyboardInterrupt:  # the run's files are all saved: only its figures are missing
                progress.finish()
                emit_warnings(caught)
                click.echo(f"stopped while drawing the figures; the run is finished and saved in {result.run_dir}; "
                           f"draw its figures with: othello-ga plot {result.run_dir}", err=True)
                raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
    summary = progress.finish(result.finished)  # a stopped run's bar stays where it stopped
    emit_warnings(caught)  # after the bar is closed: each on a line of its own
    if result.finished:
        plots = f"; figures in {result.run_dir / PLOTS}" if drawn else ""
        with saved(f"the run is finished and saved in {result.run_dir}"):
            click.echo(f"finished {result.generations_done} generations in {summary}; results in "
                       f"{result.run_dir}{plots}")
            if drawn and figures_not_drawn(result.run_dir):
                click.echo(figures_not_drawn(result.run_dir))
    elif not os.path.lexists(result.run_dir / CHECKPOINT):  # stopped before its first generation was done
        click.echo(f"stopped during {result.stopped_in}; '{result.run_dir}' holds nothing to resume: remove it and "
                   "run evolve again", err=True)
        raise click.exceptions.Exit(EXIT_INTERRUPTED)
    else:
        click.echo(
            f"stopped during {result.stopped_in} (checkpoint saved); "
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
        click.option("--dask-timeout", type=click.FloatRange(min=0, max=3600, min_open=True), default=10.0,
                     show_default=True, metavar="SECONDS",
                     help="Give up on a scheduler that has not answered (connected and greeted) in SECONDS."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _run_on(start: Any) -> Any:
    """Returns ``start()``, adding to the error of a run that failed once started (lost workers, a thread's or a
    cluster's; a full disk) how to continue it."""
    try:
        return start()
    except KeyboardInterrupt as error:  # a second Ctrl-C: stopped at once
        run_dir = getattr(error, "run_dir", None)
        if run_dir is None:
            raise
        saved = (f"the last checkpoint is intact; continue with: othello-ga resume {run_dir}"
                 if os.path.lexists(run_dir / CHECKPOINT) else
                 f"no generation was finished, so '{run_dir}' holds nothing to resume: remove it and run evolve again")
        click.echo(f"interrupted; {saved}", err=True)
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
    except (WorkersLost, OSError) as error:
        run_dir = getattr(error, "run_dir", None)
        if run_dir is None:
            raise
        lost = isinstance(error, WorkersLost)
        if os.path.lexists(run_dir / CHECKPOINT):
            fix = "" if lost else "make room (or raise the file size limit), then "
            hint = (f"the last checkpoint is intact; {fix}continue with: othello-ga resume {run_dir}"
                    + (" --local (or --dask ADDRESS)" if lost else ""))
        else:
            hint = (f"no generation was finished, so '{run_dir}' holds nothing to resume; run the experiment again "
                    "into a new directory (--out NEW_DIR)")
        message = f"{one_line(error)}; {hint}"
        raise (type(error)(message) if lost else OSError(message)) from error


def _configure_dask(ca: Path | None, cert: Path | None, key: Path | None, timeout: float) -> None:
    from ga.games.cluster import set_connect_timeout, use_tls

    set_connect_timeout(timeout)
    if ca is None and cert is None and key is None:
        return
    if ca is None or cert is None:
        raise click.UsageError("--dask-tls-ca and --dask-tls-cert go together (and --dask-tls-key if the key is separate)")
    use_tls(str(ca), str(cert), str(key) if key is not None else None)


@click.command(cls=Command)
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
           dask_tls_key: Path | None, dask_timeout: float) -> None:
    """Run the experiment described by the TOML file CONFIG."""
    # The helper first: its imports take a core that this process's set-up leaves free.
    with _plot_helper(plots) as plot_helper, Progress(quiet) as progress:
        from ga.config import load_config, with_overrides
        from ga.evolution.run import evolve as evolve_run

        _configure_dask(dask_tls_ca, dask_tls_cert, dask_tls_key, dask_timeout)
        loaded = with_overrides(load_config(config), seed=seed, generations=generations)
        result = _run_on(lambda: evolve_run(loaded, out=out, workers=workers, dask=dask, progress=progress))
        _finish_run(result, plot_helper, progress)


@click.command(cls=Command)
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--generations", type=click.IntRange(min=1), help="New total number of generations (to extend a run).")
@click.option("--workers", type=click.IntRange(min=0), help="Local workers (0 = all cores); with --dask local, its workers.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--plots/--no-plots", default=True, show_default=True, help="Draw the plots at the end.")
@click.option("--local", is_flag=True, help="Continue on this machine, whatever backend the run used (e.g. its cluster is gone).")
@_dask_options
def resume(run_dir: Path, generations: int | None, workers: int | None, quiet: bool, plots: bool, local: bool,
           dask: str | None, dask_tls_ca: Path | None, dask_tls_cert: Path | None, dask_tls_key: Path | None,
           dask_timeout: float) -> None:
    """Continue an interrupted run in RUN_DIR from its last checkpoint."""
    if local and dask is not None:
        raise click.UsageError("--local and --dask exclude each other")
    with _plot_helper(plots) as plot_helper, Progress(quiet) as progress:  # the helper first, as for evolve
        from ga.evolution.run import resume as resume_run

        _configure_dask(dask_tls_ca, dask_tls_cert, dask_tls_key, dask_timeout)
        result = _run_on(lambda: resume_run(run_dir, generations=generations, workers=workers, dask=dask,
                                            local=local, progress=progress))
        _finish_run(result, plot_helper, progress)
