"""The evaluate command: a table or player against opponents, with intervals and Elo."""

from __future__ import annotations

import contextlib
import csv
import io
import math
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from engine import build_player
from ga.analysis.evaluation import (
    LADDER_DEPTHS, MAX_GAMES, PROTOCOLS, EvaluationProgress, check_evaluation, evaluate_player, like_for_like, protocol_opponents, trained_on_random_tables, training_overlap,
)
from ga.analysis.stats import MatchSummary
from ga.cli.errors import Command, saved, warn
from ga.cli.outputs import note_if_live, output_path
from ga.config import ConfigError
from ga.files import Output, StandardOutputError, check_stdout
from ga.games.executor import all_cores
from ga.ggf import GameRecord
from ga.rundir.reader import printable
from ga.rundir.resolve import resolve_player, run_player
from ga.weights import load_evaluation

__all__ = ["CSV_COLUMNS", "evaluate", "ladder_label"]

#: Columns of ``evaluate --csv``, one row per opponent.
CSV_COLUMNS = (
    "player", "protocol", "opponent", "games", "wins", "draws", "losses", "score",
    "score_low", "score_high", "elo", "elo_low", "elo_high", "eps", "seed",
)


@click.command(cls=Command)
@click.argument("player", metavar="WEIGHTS_OR_SPEC")
@click.option("--vs", "opponents", multiple=True, metavar="SPEC",
              help="Opponent player spec; repeat for several (league default: wpc:1@heuristic).")
@click.option("--games", type=click.IntRange(1, MAX_GAMES), default=2000, show_default=True,
              help="Games per opponent (eu: random tables, each played twice).")
@click.option("--eps", type=click.FloatRange(0.0, 1.0), default=None,
              help="Random-move probability of both players (plain protocol).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
              help="Seed of the game seeds; the same seed replays the same games.")
@click.option("--workers", type=click.IntRange(min=0), default=0, show_default=True,
              help="Threads playing the games; 0 = all cores. Results do not depend on it.")
@click.option("--protocol", type=click.Choice(PROTOCOLS), default="plain", show_default=True,
              help="plain: as given; league: 1-ply, eps 0.1, both colours; eu: vs random U(-1,1) tables; "
                   "ladder: alphabeta:d@TABLE vs alphabeta:d@T for each published table T and depth d, eps 0.1.")
@click.option("--depths", default=None, metavar="D-D|D,D,...",
              help="ladder: the depths, e.g. 1-4 (the default) or 2,4.")
@click.option("--end", type=click.IntRange(0, 60), default=0, show_default=True,
              help="ladder: both sides solve the last N empty squares exactly (end=N); 0: never.")
@click.option("--csv", "csv_path", type=click.Path(), callback=output_path, default=None,
              help="Also write the rows to this CSV file.")
@click.option("--save-games", "games_path", type=click.Path(path_type=Path), default=None,
              help="Also write every game played to this file, one GGF record a line (replayed: twice the time).")
@click.option("--force", is_flag=True, help="Replace an existing --csv or --save-games file.")
def evaluate(
    player: str, opponents: tuple[str, ...], games: int, eps: float | None, seed: int,
    workers: int, protocol: str, depths: str | None, end: int, csv_path: Path | None, games_path: Path | None,
    force: bool,
) -> None:
    """Play WEIGHTS_OR_SPEC against each --vs opponent; print score, Wilson interval and Elo.

    WEIGHTS_OR_SPEC is a weights file, a run directory (its best table), a
    built-in table name (played as wpc:1) or a player spec such as nhand:2.
    Half the games are played with each colour.
    """
    check_stdout("evaluate prints its results there; run it in a terminal, redirect it to a file, "
                 "or keep them with --csv FILE")
    evaluated, label, run_dir = resolve_player(player)
    note_if_live(run_dir)
    if run_dir is not None and protocol in ("league", "eu", "ladder"):
        evaluated = label = run_player(run_dir, one_ply=True)  # the protocol sets the player; the run its table
    played = protocol_opponents(protocol, opponents)
    cautions: list[str] = []
    if protocol == "plain":  # a bare table name plays as the evaluated player plays; other mismatches are named
        played, cautions = like_for_like(evaluated, played)
    # Every player is built now, its weights file read: a bad one ends the command before any warning or game.
    for spec in ([evaluated] if isinstance(evaluated, str) else []) + list(played):
        build_player(spec, load_weights=load_evaluation)
    chosen_depths = parse_depths(depths) if depths is not None else ()
    if end and protocol != "ladder":
        raise ValueError(f"--end sets both sides of the ladder protocol; with {protocol!r} write end=N in the specs")
    check_evaluation(evaluated, played, eps=eps, protocol=protocol, depths=chosen_depths)
    with contextlib.ExitStack() as stack:
        csv_output = None
        if csv_path is not None:
            csv_output = stack.enter_context(Output(csv_path, force=force, stdout_use="give --csv a file"))
            if not csv_output.is_stdout:
                # Written before the games: a full device or a FIFO whose reader left is found now, not after.
                csv_output.write(_CSV_HEADER)
        games_output = None
        if games_path is not None:
            games_output = stack.enter_context(Output(games_path, force=force, stdout_use="give --save-games a file"))
        _warn_about_training(run_dir, played, protocol)
        for caution in cautions:
            warn(caution)
        records: list[GameRecord] | None = None if games_output is None else []
        # With --csv - the CSV alone is on standard output, and the table on standard error.
        report = ((lambda line: click.echo(line, err=True)) if csv_output is not None and csv_output.is_stdout
                  else click.echo)
        rows = _Rows(report)
        shown = ladder_label(label) if protocol == "ladder" else label
        rows.report(f"player    {shown}")
        ladder_depths = f", depths {', '.join(map(str, chosen_depths or LADDER_DEPTHS))}" if protocol == "ladder" else ""
        rows.report(f"protocol  {protocol}, seed {seed}" + (f", eps {eps:g}" if eps is not None else "")
                    + ladder_depths + (f", end {end}" if end else ""))
        with rows:  # the table's rows as they complete, under a bar on a terminal
            summaries = evaluate_player(
                evaluated, played, games, eps=eps, seed=seed, workers=workers or all_cores(),
                protocol=protocol, depths=chosen_depths, end=end, records=records, label=label, progress=rows,
            )
        label = shown
        if games_output is not None and records is not None:
            games_output.write("".join(record.to_text() + "\n" for record in records))
        if csv_output is not None:
            csv_output.write((_CSV_HEADER if csv_output.is_stdout else "") + _csv_rows(summaries, label, protocol,
                                                                                      eps, seed))
    kept = [str(path) for path, output in ((csv_path, csv_output), (games_path, games_output))
            if output is not None and not output.is_stdout]
    with saved(f"the results are saved in {' and '.join(kept)}" if kept else
               "nothing was saved (--csv FILE keeps the results)"):
        if rows.failed is not None:
            raise rows.failed
        for path in kept:
            report(f"wrote {path}")


def _warn_about_training(run_dir: Path | None, played: Sequence[str], protocol: str) -> None:
    """Warns when a run's evaluation plays its own training opponents (or, in eu, the kind of tables it trained on)."""
    if run_dir is None:
        return
    try:
        overlap = training_overlap(run_dir, played)
        random_tables = protocol == "eu" and trained_on_random_tables(run_dir)
    except ConfigError as error:
        warn(f"cannot tell whether the opponents were training opponents: {error}")
        overlap, random_tables = [], False
    for opponent in overlap:
        warn(f"{opponent!r} was a training opponent of run '{run_dir}'; its score is not a held-out result")
    if random_tables:
        warn(
            f"run '{run_dir}' trained against random U(-1, 1) tables "
            "(fitness.random_table_games or the [refine] panel); "
            "expected utility plays fresh tables of that distribution, not unseen kinds of opponent"
        )


def ladder_label(label: str) -> str:
    """Returns the label of the player the ladder plays: its table searched by ``alphabeta:d`` at each depth d,
    whatever kind and depth the label names (``wpc:1@run/best_weights.csv`` -> ``alphabeta:d@run/best_weights.csv``).

    >>> ladder_label("wpc:1@runs/a/best_weights.csv"), ladder_label("wpc:1 with lr06 (Lucas & Runarsson 2006)")
    ('alphabeta:d@runs/a/best_weights.csv', 'alphabeta:d with lr06 (Lucas & Runarsson 2006)')
    """
    return re.sub(r"^[a-z_]+(?::\d+)?(?=@| with )", "alphabeta:d", label, count=1)


def parse_depths(text: str) -> list[int]:
    """Returns the depths of ``--depths``: a range ``1-4`` or a list ``2,4``.

    :raises ValueError: naming the option and the forms it takes.
    """
    try:
        if "-" in text:
            low, high = (int(part) for part in text.split("-", 1))
            values = list(range(low, high + 1))
        else:
            values = [int(part) for part in text.split(",")]
    except ValueError:
        values = []
    if not values:
        raise ValueError(f"--depths {text!r} must be a range such as 1-4 or a list such as 2,4")
    return values


class _Rows(EvaluationProgress):
    """The results table, printed as the evaluation plays: its header when the games start, each row the moment
    its opponent's games are all played (a 16-cell ladder takes minutes), and, when standard error is a
    terminal, a bar of the games played (as ``evolve`` draws one)."""

    in_pieces = True  # the games in pieces: the bar moves, and each row is printed as soon as it is complete

    def __init__(self, report: Callable[[str], None]) -> None:
        self.printed = report  # standard output, or standard error when the CSV goes there
        # A stream that cannot take a row stops the table, not the games: the files are still written, and the
        # error is reported after them (naming what was saved).
        self.failed: StandardOutputError | None = None
        self.width = 0
        self.bar: Any = None

    def report(self, line: str) -> None:
        if self.failed is not None:
            return
        try:
            self.printed(line)
        except StandardOutputError as error:
            self.failed = error

    def __enter__(self) -> _Rows:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def start(self, rows: Sequence[str], games: int) -> None:
        self.width = max(len("opponent"), *(len(row) for row in rows))
        self.report(f"{'opponent':<{self.width}}  {'games':>7} {'wins':>7} {'draws':>6} {'losses':>7}  "
                   f"{'score':>5}  {'95% interval':<14}  {'Elo':>5}  95% interval")
        if sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=games, unit=" games", file=sys.stderr, dynamic_ncols=True, leave=False,
                            bar_format="{percentage:3.0f}%|{bar}| {n:,}/{total:,} games, {elapsed}, about "
                                       "{remaining} left")

    def played(self, games: int) -> None:
        if self.bar is not None:
            self.bar.update(games)

    def row(self, summary: MatchSummary) -> None:
        low, high = summary.interval
        elo_low, elo_high = summary.elo_interval
        line = (f"{summary.opponent:<{self.width}}  {summary.games:>7} {summary.wins:>7} {summary.draws:>6} "
                f"{summary.losses:>7}  {summary.score:.3f}  [{low:.3f}, {high:.3f}]  "
                f"{_elo(summary.elo):>5}  [{_elo(elo_low)}, {_elo(elo_high)}]")
        if self.bar is None:
            self.report(line)
            return
        self.bar.clear()  # the row on a line of its own, the bar drawn again under it
        self.report(line)
        self.bar.refresh()


def _elo(value: float) -> str:
    return "nan" if math.isnan(value) else f"{value:+.0f}"


#: The first line of ``evaluate --csv``.
_CSV_HEADER = ",".join(CSV_COLUMNS) + "\n"


def _csv_rows(
    summaries: Sequence[MatchSummary], label: str, protocol: str, eps: float | None, seed: int
) -> str:
    """Returns the rows of ``evaluate --csv`` (after :data:`_CSV_HEADER`): one per opponent."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for summary in summaries:
        low, high = summary.interval
        elo_low, elo_high = summary.elo_interval
        writer.writerow(
            [printable(label), protocol, printable(summary.opponent), summary.games, summary.wins, summary.draws,
             summary.losses, repr(summary.score), repr(low), repr(high), repr(summary.elo),
             repr(elo_low), repr(elo_high), "" if eps is None else repr(eps), seed]
        )
    return buffer.getvalue()
