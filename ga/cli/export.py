"""The export command: a weight table, or an evaluation with features or a pattern network, in the format of the
user's own engine; and the import of a published n-tuple network (a .player file)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import click

from engine.evaluation import Evaluation
from engine.patterns import COLOURS
from ga.cli.errors import Command, saved, warn
from ga.cli.outputs import emit_warnings, note_if_live, output_path
from ga.rundir.resolve import WHICH, resolve_weights, run_phase_move
from ga.files import STDOUT, Output
from ga.rundir.reader import printable
from ga.ntuple_format import read_player
from ga.weights import (
    EVALUATION_NAME,
    FORMAT_BY_SUFFIX,
    FORMATS,
    PLAYER_SUFFIX,
    evaluation_npy_bytes,
    format_evaluation,
    format_weights,
    npy_bytes,
    parse_weights,
)

#: What export writes: every weights format, and the published n-tuple networks' (``player``).
EXPORT_FORMATS = (*FORMATS, "player")

__all__ = ["export"]


@click.command(cls=Command)
@click.argument("source")
@click.option("--format", "fmt", type=click.Choice(EXPORT_FORMATS), required=True, help="Output format.")
@click.option("--which", type=click.Choice(WHICH), default="best", show_default=True,
              help="Table of a run directory: best_weights.csv, mean_weights.csv or (refined runs) "
                   "ga_best_weights.csv; of 'reference': strong (= best) or seed2021.")
@click.option("--scale", type=float, default=None,
              help="Scale so that the largest magnitude equals K.", metavar="K")
@click.option("--round", "round_", is_flag=True, help="Round to integers (after --scale).")
@click.option("--name", default=None,
              help=f"Variable name in c and python [default: weights; an evaluation's: {EVALUATION_NAME}].")
@click.option("-o", "--output", type=click.Path(), callback=output_path, default=None,
              help="File to write, - for standard output [default: stdout; npy needs -o].")
@click.option("--force", is_flag=True, help="Replace an existing output file.")
@click.option("--colours", type=click.Choice(COLOURS), default=None,
              help="A .player SOURCE's colour convention (required for one, refused otherwise): invert, white swaps "
                   "every disc's colour and plays as black; negate, white minimises black's value.")
def export(
    source: str, fmt: str, which: str, scale: float | None, round_: bool, name: str | None,
    output: Path | None, force: bool, colours: str | None,
) -> None:
    """Write a weight table or an evaluation as csv, json, npy, markdown, c, python or player.

    SOURCE is a run directory (its best or mean table), a weights file or a
    built-in name: a table (heuristic, classic, disc, lr06, sjk11, reference,
    reference-seed2021, deep) or an evaluation (paip, engine, patterns).
    'reference' is the table evolved by experiments/strong.toml and shipped in
    results/reference/; 'reference-seed2021' (or reference --which seed2021)
    is that of the blog's experiment. An evaluation with features or a pattern
    network (an evaluation file, a run that evolved them, paip, engine,
    patterns) is written whole in every format but csv: c and python compute
    it, features and network included, from two bitboards. Every
    format keeps every digit but markdown, which rounds its cells for reading
    (4 significant digits of the largest weight).

    A published n-tuple network (a .player file of the Othello League) is
    imported with its colour convention, which the file does not hold:
    export FILE.player --colours invert|negate --format json -o OUT.json; OUT.json
    then plays wherever an evaluation is taken (wpc:1@OUT.json). --format player
    writes the published format back (a pattern network, its square weights as
    1-tuples; no features).
    """
    if Path(source).suffix.lower() == PLAYER_SUFFIX:
        if colours is None:
            raise ValueError(f"'{source}' is a published n-tuple network: say its colour convention with --colours "
                             "invert (white plays the colour-swapped board as black) or --colours negate (white "
                             "minimises black's value); the network's README or paper says which")
        if which != "best":
            raise ValueError(f"--which selects a table of a run directory; '{source}' is a single network (leave "
                             "--which out)")
        description = f"{source}, colours {colours}"
        weights = Evaluation((0.0,) * 64, patterns=read_player(source, colours), source=description)
    elif colours is not None:
        raise ValueError(f"--colours is the colour convention of a .player network; '{source}' is not one "
                         "(leave --colours out)")
    else:
        weights, description = resolve_weights(source, which)
    # The source is named in what is written (a comment, a field), which is UTF-8 text: a name's bytes that are
    # not UTF-8, and control characters, are written escaped (\xff for the byte 0xff).
    description = printable(description)
    run_dir = Path(source) if os.path.isdir(source) else None
    note_if_live(run_dir)
    evaluation = weights if isinstance(weights, Evaluation) else None
    if fmt == "player" and evaluation is None:
        evaluation = Evaluation(tuple(float(w) for w in weights), source=description)
    # An evaluation carries its switch move in every format; a table's comes from its run.
    phase_move = run_phase_move(run_dir) if run_dir is not None and evaluation is None else None
    if fmt == "npy" and output is None:
        raise ValueError("npy is binary; write it to a file with -o FILE (or to standard output with -o -)")
    with warnings.catch_warnings(record=True) as caught:  # said once the output is known to be writable
        warnings.simplefilter("always")
        if evaluation is not None:
            if evaluation.source and printable(evaluation.source) != description:
                description = f"{description} ({printable(evaluation.source)})"
            payload: str | bytes = (
                evaluation_npy_bytes(evaluation, scale=scale, round_=round_) if fmt == "npy" else
                format_evaluation(evaluation, fmt, scale=scale, round_=round_, name=EVALUATION_NAME if name is None else name,
                                  source=description))
        elif fmt == "npy":
            if scale is not None or round_:
                # Scale and round exactly as the text formats do (repr round-trips).
                weights = parse_weights(format_weights(weights, "csv", scale=scale, round_=round_), "csv")
            payload = npy_bytes(weights)
        else:
            payload = format_weights(weights, fmt, scale=scale, round_=round_, name="weights" if name is None else name,
                                     source=description, phase_move=phase_move)
    to_stdout = output is None or str(output) == STDOUT
    implied = None if to_stdout else FORMAT_BY_SUFFIX.get(output.suffix.lower())
    if implied is not None and implied != fmt:
        raise ValueError(
            f"'{output}' has suffix {output.suffix}, which reads as {implied}; "
            f"name it with a {fmt} suffix or pass --format {implied}"
        )
    with Output(STDOUT if to_stdout else output, force=force) as target:
        emit_warnings(caught)
        if phase_move is not None:
            # The user's engine must switch tables at the same move: said on every output, whatever the format.
            warn(f"a two-phase table: its first 64 weights apply before move {phase_move} (phase_move: discs on "
                 "the board minus 4), the last 64 from it on")
        target.write(payload)
    if fmt == "player":
        # The file cannot say which side its "black" is for white: the user must say it again when importing.
        colours = evaluation.patterns.colours if evaluation.patterns is not None else "invert"
        warn(f"the published format does not hold the colour convention: this network plays by {colours}; import it "
             f"with --colours {colours}")
    if to_stdout:
        return  # standard output carries the table alone
    if implied is None and fmt != "player":
        loader = "load_weights" if evaluation is None else "load_evaluation"
        warn(f"'{output}' has no weights suffix; read it back with {loader}(path, fmt={fmt!r})")
    with saved(f"'{output}' is written"):
        click.echo(f"wrote {output} ({fmt}, from {description})")
