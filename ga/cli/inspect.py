"""Commands that look at runs: show, plot, compare."""

from __future__ import annotations

import warnings
from pathlib import Path

import click

from ga.analysis.summary import summarize_run
from ga.cli.errors import Command
from ga.cli.outputs import check_output, emit_warnings, note_if_live
from ga.files import write_output
from ga.rundir.layout import PLOTS, check_no_links, check_run_dir
from ga.rundir.reader import read_generations

__all__ = ["PLOT_FORMATS", "compare", "plot", "show"]

PLOT_FORMATS = ("png", "svg", "pdf")  # ga.analysis.plots.PLOT_FORMATS; matplotlib is imported only to plot


@click.command(cls=Command)
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(PLOT_FORMATS), default="png", show_default=True,
              help="Image format.")
def plot(run_dir: Path, fmt: str) -> None:
    """Draw the figures of RUN_DIR into RUN_DIR/plots and lists them.

    Win rate per generation, win rate by opponent, win rate per opponent over the
    run, fitness and diversity, and heatmaps of the best and mean tables.
    """
    from ga.analysis.plots import plot_run

    run = check_run_dir(run_dir)
    note_if_live(run)
    read_generations(run)  # a run without generations has nothing to plot: fail before writing
    check_no_links(run, [PLOTS])
    if (run / PLOTS).is_dir():
        check_no_links(run / PLOTS, [path.name for path in (run / PLOTS).iterdir()])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        written = plot_run(run, run / PLOTS, fmt)  # each figure replaced whole (ga.files.atomic_write)
    emit_warnings(caught)
    for path in written:
        click.echo(str(path))


@click.command(cls=Command)
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="RUN_DIR...")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="Image file to write [default: results/compare.FORMAT].")
@click.option("--format", "fmt", type=click.Choice(PLOT_FORMATS), default=None,
              help="Image format [default: from the suffix of -o, else png].")
@click.option("--force", is_flag=True, help="Replace an existing output file.")
def compare(run_dirs: tuple[Path, ...], output: Path | None, fmt: str | None, force: bool) -> None:
    """Overlay the rolling win rates of several runs in one figure (a study: each config's mean over seeds)."""
    from ga.analysis.plots import plot_compare

    from ga.study.figures import study_curves
    from ga.study.layout import is_study_dir

    curves = [curve for path in run_dirs if is_study_dir(path) for curve in study_curves(path)]
    runs = [check_run_dir(run_dir) for run_dir in run_dirs if not is_study_dir(run_dir)]
    for run in runs:
        note_if_live(run)
    for run in runs:
        read_generations(run)
    if output is None:
        output = Path("results") / f"compare.{fmt or 'png'}"  # results/ holds what runs make (git-ignored)
        output.parent.mkdir(exist_ok=True)
    elif fmt is None:
        fmt = output.suffix.lstrip(".").lower() or "png"
        if fmt not in PLOT_FORMATS:
            raise ValueError(
                f"cannot tell the image format of '{output}'; name it .png, .svg or .pdf or pass --format"
            )
    fmt = fmt or "png"
    output = output.with_suffix(f".{fmt}")
    check_output(output, force)
    plot_compare(runs, output, fmt, write=lambda path, data: write_output(path, data, force=force), curves=curves)
    click.echo(str(output))


@click.command(cls=Command)
@click.argument("run_dir", type=click.Path(path_type=Path))
def show(run_dir: Path) -> None:
    """Summarize RUN_DIR: progress, win rates, files and the best table (a study directory: its runs and summary)."""
    from ga.study.layout import is_study_dir
    from ga.study.summary import summarize_study

    write_output("-", summarize_study(run_dir) if is_study_dir(run_dir) else summarize_run(run_dir), force=True)
