"""Commands that look at runs: show, plot, compare."""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from pathlib import Path

import click

from ga.analysis.summary import summarize_run
from ga.cli.errors import Command, saved
from ga.cli.outputs import emit_warnings, figures_not_drawn, note_if_live, output_path
from ga.files import STDOUT, Output, check_stdout, write_output
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
    with saved(f"the figures are drawn in {run / PLOTS}"):
        for path in written:
            click.echo(str(path))
        if figures_not_drawn(run):
            click.echo(figures_not_drawn(run))


@click.command(cls=Command)
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="RUN_DIR...")
@click.option("-o", "--output", type=click.Path(), callback=output_path, default=None,
              help="Image file to write, exactly this path; - for standard output [default: compare.FORMAT in the "
                   "folder that holds the runs].")
@click.option("--format", "fmt", type=click.Choice(PLOT_FORMATS), default=None,
              help="Image format [default: from the suffix of -o, else png].")
@click.option("--force", is_flag=True, help="Replace an existing output file.")
@click.option("--window", type=click.IntRange(min=1), default=None, metavar="N",
              help="Smooth every curve over N generations [default: each over a twentieth of its own run].")
def compare(run_dirs: tuple[Path, ...], output: Path | None, fmt: str | None, force: bool,
            window: int | None) -> None:
    """Overlay the rolling win rates of several runs in one figure (a study: each config's mean over seeds)."""
    from ga.analysis.plots import compare_figure

    from ga.study.figures import study_curves
    from ga.study.layout import is_study_dir

    curves = []
    for path in run_dirs:
        if is_study_dir(path):
            drawn = study_curves(path, window)
            if not drawn:  # it would have been drawn as nothing, or named as no run at all
                raise ValueError(f"study '{path}' has no run with a generation done yet, so no curve to draw; run "
                                 f"it (othello-ga study {path}) and compare it then")
            curves += drawn
    runs = [check_run_dir(run_dir) for run_dir in run_dirs if not is_study_dir(run_dir)]
    for run in runs:
        note_if_live(run)
    for run in runs:
        read_generations(run)
    if output is None:  # beside the runs (results/, usually), wherever the command is run from
        output = _common_folder(run_dirs) / f"compare.{fmt or 'png'}"
    fmt = _image_format(output, fmt)
    with Output(output, force=force) as target:  # checked before the figure is drawn
        target.write(compare_figure(runs, fmt, curves, window))
    if not target.is_stdout:
        with saved(f"'{output}' is written"):
            click.echo(str(output))


def _common_folder(run_dirs: Sequence[Path]) -> Path:
    """Returns the folder that holds every run (their parent, for runs side by side), as the user wrote it."""
    parents = [os.path.abspath(run_dir.parent) for run_dir in run_dirs]
    common = Path(os.path.commonpath(parents))
    given = run_dirs[0].parent
    return given if os.path.abspath(given) == os.fspath(common) else common


def _image_format(output: Path, fmt: str | None) -> str:
    """Returns the image format of ``compare -o``: --format, or the output's suffix, or png for a path without one.

    :raises ValueError: a suffix that names another image format than --format, or no format at all.
    """
    suffix = output.suffix.lstrip(".").lower() if str(output) != STDOUT else ""
    if suffix in PLOT_FORMATS and fmt not in (None, suffix):
        raise ValueError(f"'{output}' has suffix .{suffix}, an image of another format than --format {fmt}; "
                         f"name it .{fmt} or pass --format {suffix}")
    if fmt is None and suffix and suffix not in PLOT_FORMATS:
        raise ValueError(f"cannot tell the image format of '{output}'; name it .png, .svg or .pdf or pass --format")
    return fmt or suffix or "png"


@click.command(cls=Command)
@click.argument("run_dir", type=click.Path(path_type=Path))
def show(run_dir: Path) -> None:
    """Summarize RUN_DIR: progress, win rates, files and the best table (a study directory: its runs and summary)."""
    from ga.study.layout import is_study_dir

    check_stdout("show prints the summary there; run it in a terminal or redirect it to a file (> FILE)")
    if is_study_dir(run_dir):
        from ga.study.summary import summarize_study  # pandas: only a study's summary needs it

        summary = summarize_study(run_dir)
    else:
        summary = summarize_run(run_dir)
    write_output(STDOUT, summary, force=True)
