"""Commands to see and use the results of runs: plot, compare, export, evaluate, show.

Each is a :func:`click.command` that ``ga.cli`` registers on the main group.
Every expected problem (a bad path, weights file, spec or option, an existing
or unwritable output) ends the command through :func:`fail`: one line
``othello-ga: error: <message>`` on stderr and exit code 2, with nothing
written (``OTHELLO_GA_DEBUG=1`` shows the traceback instead). Files are
written whole or not at all: a temporary file in the same directory is
renamed into place.
"""

from __future__ import annotations

import csv
import functools
import io
import math
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click
import numpy as np
import numpy.typing as npt

from engine import parse_spec
from engine.tables import TABLES
from ga.config import ConfigError
from ga.evaluation import (
    PROTOCOLS, evaluate_player, protocol_opponents, trained_on_random_tables, training_overlap,
)
from ga.stats import MatchSummary
from ga.summary import RunDirError, check_run_dir, summarize_run
from ga.weights import (
    FORMAT_BY_SUFFIX,
    FORMATS,
    WeightsError,
    format_weights,
    load_weights,
    parse_weights,
    save_weights,
)

__all__ = [
    "CSV_COLUMNS",
    "OneLineErrorCommand",
    "builtin_table",
    "compare",
    "evaluate",
    "export",
    "fail",
    "plot",
    "resolve_player",
    "resolve_weights",
    "show",
    "warn",
]

PROG = "othello-ga"
PLOT_FORMATS = ("png", "svg", "pdf")  # ga.plots.PLOT_FORMATS; matplotlib is imported only to plot
#: Columns of ``evaluate --csv``, one row per opponent.
CSV_COLUMNS = (
    "player", "protocol", "opponent", "games", "wins", "draws", "losses", "score",
    "score_low", "score_high", "elo", "elo_low", "elo_high", "eps", "seed",
)
# The problems a user can cause; anything else is a bug and keeps its traceback.
_EXPECTED_ERRORS = (WeightsError, RunDirError, ConfigError, ValueError, OSError)

Function = TypeVar("Function", bound=Callable[..., Any])


# ---------------------------------------------------------------- errors


def fail(message: str) -> NoReturn:
    """Prints ``othello-ga: error: <message>`` (one line) on stderr and exits with code 2."""
    click.echo(f"{PROG}: error: {' '.join(str(message).split())}", err=True)
    raise click.exceptions.Exit(2)


def warn(message: str) -> None:
    """Prints ``othello-ga: warning: <message>`` (one line) on stderr."""
    click.echo(f"{PROG}: warning: {' '.join(str(message).split())}", err=True)


class OneLineErrorCommand(click.Command):
    """A command whose usage errors (bad option value, missing argument) are one line, exit 2."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as error:
            fail(f"{error.format_message()} (see '{PROG} {ctx.info_name} --help')")


def _error_message(error: BaseException) -> str:
    """Returns the one-line message of an expected error."""
    if isinstance(error, OSError) and error.strerror and error.filename is not None:
        return f"cannot write or read '{error.filename}': {error.strerror}"
    return str(error) or type(error).__name__


def _one_line_errors(function: Function) -> Function:
    """Turns the expected errors of a command into :func:`fail`."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except _EXPECTED_ERRORS as error:
            if os.environ.get("OTHELLO_GA_DEBUG") == "1":
                raise  # the traceback, as ga.cli shows it for its own commands
            fail(_error_message(error))

    return wrapper  # type: ignore[return-value]


# ---------------------------------------------------------------- sources


REFERENCE = "reference"  # the shipped results of results/reference/
REFERENCE_WHICH = ("strong", "seed2021")
WHICH = ("best", "mean", "ga_best", *REFERENCE_WHICH)  # ga_best: a refined run's table before refinement


def builtin_table(name: str) -> npt.NDArray[np.float64] | None:
    """Returns the built-in weight table called ``name`` (``engine.tables.TABLES``), or None."""
    table = TABLES.get(name)
    return None if table is None else np.array(table, dtype=np.float64)


def _builtin_names() -> str:
    return ", ".join(TABLES)


def _looks_like_path(text: str) -> bool:
    return "/" in text or "\\" in text or Path(text).suffix.lower() in FORMAT_BY_SUFFIX


def resolve_weights(source: str, which: str = "best") -> tuple[npt.NDArray[np.float64], str]:
    """Returns ``(weights, description)`` of a run directory, weights file or built-in table name.

    A run directory gives its ``best_weights.csv`` or ``mean_weights.csv``
    (``which`` = best or mean); ``reference`` gives the table of
    experiments/strong.toml shipped in results/reference/ (``which`` = best or
    strong), or that of experiments/seed2021.toml (``which`` = seed2021).

    :raises RunDirError: for a directory that is not a run or lacks the table.
    :raises WeightsError: for a missing or malformed weights file.
    :raises ValueError: if ``source`` is none of the three.
    """
    if which not in WHICH:
        raise ValueError(f"unknown table {which!r}; use {', '.join(WHICH)}")
    path = Path(source)
    if source == REFERENCE and not path.exists():
        # The shipped results (results/reference/): strong.toml's table, or seed2021's.
        if which in ("mean", "ga_best"):
            raise ValueError("the reference has one table per experiment; use --which strong or --which seed2021")
        name = REFERENCE if which in ("best", "strong") else f"{REFERENCE}-{which}"
        return np.array(TABLES[name], dtype=np.float64), f"built-in table {name}"
    if which in REFERENCE_WHICH:
        raise ValueError(f"--which {which} selects a table of the shipped reference; use it with SOURCE 'reference'")
    if source and path.is_dir():
        run_dir = check_run_dir(path)
        table_path = run_dir / f"{which}_weights.csv"
        if not table_path.is_file():
            raise RunDirError(
                f"run '{source}' has no {table_path.name} "
                + ("(it has no [refine] stage, or has not finished it); use --which best"
                   if which == "ga_best" else "(it stopped before writing it); resume the run or export a weights file")
            )
        return load_weights(table_path), str(table_path)
    if source and (path.exists() or _looks_like_path(source)):
        return load_weights(path), str(path)
    table = builtin_table(source)
    if table is not None:
        return table, f"built-in table {source}"
    raise ValueError(
        f"'{source}' is not a run directory, a weights file or a built-in table ({_builtin_names()})"
    )


def resolve_player(text: str) -> tuple[str | npt.NDArray[np.float64], str, Path | None]:
    """Returns ``(player, label, run_dir)`` for ``evaluate``'s WEIGHTS_OR_SPEC.

    ``player`` is a weights array (a run directory's best table, a weights file,
    a built-in table; played as ``wpc:1``) or a player spec; ``run_dir`` is set
    when the table comes from a run.

    :raises ValueError: (or a subclass) naming what is wrong.
    """
    path = Path(text)
    if text and (path.exists() or builtin_table(text) is not None):
        weights, description = resolve_weights(text)
        return weights, f"wpc:1 with {description}", path if path.is_dir() else None
    try:
        spec = parse_spec(text)
    except ValueError as error:
        if _looks_like_path(text):
            load_weights(path)  # raises "weights file '...' does not exist"
        raise ValueError(
            f"{error}; WEIGHTS_OR_SPEC may also be a weights file, a run directory "
            f"or a built-in table ({_builtin_names()})"
        ) from None
    return text, str(spec), None


# ---------------------------------------------------------------- writing


def _check_output(path: Path, force: bool) -> None:
    """Raises before any work if ``path`` cannot be written or would be overwritten."""
    parent = path.parent
    if not parent.is_dir():
        raise FileNotFoundError(f"cannot write '{path}': directory '{parent}' does not exist")
    if path.is_dir():
        raise IsADirectoryError(f"cannot write '{path}': it is a directory")
    if path.exists() and not force:
        raise FileExistsError(f"'{path}' already exists; pass --force to replace it")
    if not os.access(parent, os.W_OK):
        raise PermissionError(f"cannot write '{path}': directory '{parent}' is not writable")


def _write_atomically(path: Path, payload: bytes, force: bool) -> None:
    """Writes ``payload`` to ``path`` whole or not at all; refuses to overwrite unless ``force``."""
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(payload)
        os.chmod(temporary, 0o644)
        if force:
            os.replace(temporary, path)
        else:
            os.link(temporary, path)  # fails if the file appeared meanwhile
    except FileExistsError:
        raise FileExistsError(f"'{path}' already exists; pass --force to replace it") from None
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def _emit_warnings(caught: Sequence[warnings.WarningMessage]) -> None:
    for warning in caught:
        if issubclass(warning.category, UserWarning):
            warn(str(warning.message))


# ---------------------------------------------------------------- commands


@click.command(cls=OneLineErrorCommand)
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(PLOT_FORMATS), default="png", show_default=True,
              help="Image format.")
@_one_line_errors
def plot(run_dir: Path, fmt: str) -> None:
    """Draw the figures of RUN_DIR into RUN_DIR/plots and lists them.

    Win rate per generation, win rate by opponent, win rate per opponent over the
    run, fitness and diversity, and heatmaps of the best and mean tables.
    """
    from ga.plots import plot_run, read_generations

    run = check_run_dir(run_dir)
    read_generations(run)  # a run without generations has nothing to plot: fail before writing
    scratch = Path(tempfile.mkdtemp(prefix=".plots-", dir=run))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            drawn = plot_run(run, scratch, fmt)
        out_dir = run / "plots"
        out_dir.mkdir(exist_ok=True)
        written = []
        for path in drawn:
            os.replace(path, out_dir / path.name)
            written.append(out_dir / path.name)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    _emit_warnings(caught)
    for path in written:
        click.echo(str(path))


@click.command(cls=OneLineErrorCommand)
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="RUN_DIR...")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="Image file to write [default: compare.FORMAT].")
@click.option("--format", "fmt", type=click.Choice(PLOT_FORMATS), default=None,
              help="Image format [default: from the suffix of -o, else png].")
@_one_line_errors
def compare(run_dirs: tuple[Path, ...], output: Path | None, fmt: str | None) -> None:
    """Overlay the rolling win rates of several runs in one figure."""
    from ga.plots import plot_compare, read_generations

    runs = [check_run_dir(run_dir) for run_dir in run_dirs]
    for run in runs:
        read_generations(run)
    if output is None:
        output = Path(f"compare.{fmt or 'png'}")
    elif fmt is None:
        fmt = output.suffix.lstrip(".").lower() or "png"
        if fmt not in PLOT_FORMATS:
            raise ValueError(
                f"cannot tell the image format of '{output}'; name it .png, .svg or .pdf or pass --format"
            )
    fmt = fmt or "png"
    output = output.with_suffix(f".{fmt}")
    _check_output(output, force=True)
    descriptor, scratch = tempfile.mkstemp(dir=output.parent, prefix=f".{output.stem}.", suffix=f".{fmt}")
    os.close(descriptor)
    try:
        plot_compare(runs, scratch, fmt)
        os.chmod(scratch, 0o644)
        os.replace(scratch, output)
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)
    click.echo(str(output))


@click.command(cls=OneLineErrorCommand)
@click.argument("source")
@click.option("--format", "fmt", type=click.Choice(FORMATS), required=True, help="Output format.")
@click.option("--which", type=click.Choice(WHICH), default="best", show_default=True,
              help="Table of a run directory: best_weights.csv, mean_weights.csv or (refined runs) "
                   "ga_best_weights.csv; of 'reference': strong (= best) or seed2021.")
@click.option("--scale", type=float, default=None,
              help="Scale so that the largest magnitude equals K.", metavar="K")
@click.option("--round", "round_", is_flag=True, help="Round to integers (after --scale).")
@click.option("--name", default="weights", show_default=True, help="Variable name in c and python.")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="File to write [default: stdout; npy needs a file].")
@click.option("--force", is_flag=True, help="Replace an existing output file.")
@_one_line_errors
def export(
    source: str, fmt: str, which: str, scale: float | None, round_: bool, name: str,
    output: Path | None, force: bool,
) -> None:
    """Write a weight table as csv, json, npy, markdown, c or python.

    SOURCE is a run directory (its best or mean table), a weights file or a
    built-in table name (heuristic, classic, disc, lr06, sjk11, reference).
    'reference' is the table evolved by experiments/strong.toml and shipped
    in results/reference/; --which seed2021 gives that of the blog's experiment.
    """
    weights, description = resolve_weights(source, which)
    if fmt == "npy":
        if output is None:
            raise ValueError("npy is binary; write it to a file with -o FILE")
        if scale is not None or round_:
            # Scale and round exactly as the text formats do (repr round-trips).
            weights = parse_weights(format_weights(weights, "csv", scale=scale, round_=round_), "csv")
    text = None
    if fmt != "npy":
        text = format_weights(weights, fmt, scale=scale, round_=round_, name=name, source=description)
    if output is None:
        click.echo(text, nl=False)
        return
    implied = FORMAT_BY_SUFFIX.get(output.suffix.lower())
    if implied is not None and implied != fmt:
        raise ValueError(
            f"'{output}' has suffix {output.suffix}, which reads as {implied}; "
            f"name it with a {fmt} suffix or pass --format {implied}"
        )
    _check_output(output, force)
    save_weights(output, weights, fmt, overwrite=force, scale=scale, round_=round_, name=name,
                 source=description)
    if implied is None:
        warn(f"'{output}' has no weights suffix; read it back with load_weights(path, fmt={fmt!r})")
    click.echo(f"wrote {output} ({fmt}, from {description})")


@click.command(cls=OneLineErrorCommand)
@click.argument("player", metavar="WEIGHTS_OR_SPEC")
@click.option("--vs", "opponents", multiple=True, metavar="SPEC",
              help="Opponent player spec; repeat for several (league default: wpc:1@heuristic).")
@click.option("--games", type=click.IntRange(min=1), required=True,
              help="Games per opponent (eu: random tables, each played twice).")
@click.option("--eps", type=click.FloatRange(0.0, 1.0), default=None,
              help="Random-move probability of both players (plain protocol).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
              help="Seed of the game seeds; the same seed replays the same games.")
@click.option("--workers", type=click.IntRange(min=0), default=0, show_default=True,
              help="Threads playing the games; 0 = all cores. Results do not depend on it.")
@click.option("--protocol", type=click.Choice(PROTOCOLS), default="plain", show_default=True,
              help="plain: as given; league: 1-ply, eps 0.1, both colours; eu: vs random U(-1,1) tables.")
@click.option("--csv", "csv_path", type=click.Path(path_type=Path), default=None,
              help="Also write the rows to this CSV file.")
@click.option("--force", is_flag=True, help="Replace an existing --csv file.")
@_one_line_errors
def evaluate(
    player: str, opponents: tuple[str, ...], games: int, eps: float | None, seed: int,
    workers: int, protocol: str, csv_path: Path | None, force: bool,
) -> None:
    """Play WEIGHTS_OR_SPEC against each --vs opponent; print score, Wilson interval and Elo.

    WEIGHTS_OR_SPEC is a weights file, a run directory (its best table), a
    built-in table name (played as wpc:1) or a player spec such as nhand:2.
    Half the games are played with each colour.
    """
    evaluated, label, run_dir = resolve_player(player)
    played = protocol_opponents(protocol, opponents)
    for opponent in played:
        parse_spec(opponent)
    if csv_path is not None:
        _check_output(csv_path, force)
    if run_dir is not None:
        try:
            overlap = training_overlap(run_dir, played)
            random_tables = protocol == "eu" and trained_on_random_tables(run_dir)
        except ConfigError as error:
            warn(f"cannot tell whether the opponents were training opponents: {error}")
            overlap, random_tables = [], False
        for opponent in overlap:
            warn(
                f"{opponent!r} was a training opponent of run '{run_dir}'; its score is not a held-out result"
            )
        if random_tables:
            warn(
                f"run '{run_dir}' trained against random U(-1, 1) tables "
                "(fitness.random_table_games or the [refine] panel); "
                "expected utility plays fresh tables of that distribution, not unseen kinds of opponent"
            )
    summaries = evaluate_player(
        evaluated, played, games, eps=eps, seed=seed, workers=workers or os.cpu_count() or 1,
        protocol=protocol,
    )
    click.echo(f"player    {label}")
    click.echo(f"protocol  {protocol}, seed {seed}" + (f", eps {eps:g}" if eps is not None else ""))
    click.echo(_format_table(summaries))
    if csv_path is not None:
        _write_atomically(csv_path, _csv_text(summaries, label, protocol, eps, seed).encode("utf-8"), force)
        click.echo(f"wrote {csv_path}")


@click.command(cls=OneLineErrorCommand)
@click.argument("run_dir", type=click.Path(path_type=Path))
@_one_line_errors
def show(run_dir: Path) -> None:
    """Summarize RUN_DIR: progress, win rates, files and the best table."""
    click.echo(summarize_run(run_dir), nl=False)


# ---------------------------------------------------------------- evaluation output


def _format_table(summaries: Sequence[MatchSummary]) -> str:
    """Returns one aligned row per opponent: counts, score with Wilson interval, Elo with interval."""
    width = max(len("opponent"), *(len(summary.opponent) for summary in summaries))
    header = (
        f"{'opponent':<{width}}  {'games':>7} {'wins':>7} {'draws':>6} {'losses':>7}  "
        f"{'score':>5}  {'95% interval':<14}  {'Elo':>5}  95% interval"
    )
    lines = [header]
    for summary in summaries:
        low, high = summary.interval
        elo_low, elo_high = summary.elo_interval
        lines.append(
            f"{summary.opponent:<{width}}  {summary.games:>7} {summary.wins:>7} {summary.draws:>6} "
            f"{summary.losses:>7}  {summary.score:.3f}  [{low:.3f}, {high:.3f}]  "
            f"{_elo(summary.elo):>5}  [{_elo(elo_low)}, {_elo(elo_high)}]"
        )
    return "\n".join(lines)


def _elo(value: float) -> str:
    return "nan" if math.isnan(value) else f"{value:+.0f}"


def _csv_text(
    summaries: Sequence[MatchSummary], label: str, protocol: str, eps: float | None, seed: int
) -> str:
    """Returns the CSV of ``evaluate``: a header and one row per opponent."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for summary in summaries:
        low, high = summary.interval
        elo_low, elo_high = summary.elo_interval
        writer.writerow(
            [label, protocol, summary.opponent, summary.games, summary.wins, summary.draws,
             summary.losses, repr(summary.score), repr(low), repr(high), repr(summary.elo),
             repr(elo_low), repr(elo_high), "" if eps is None else repr(eps), seed]
        )
    return buffer.getvalue()
