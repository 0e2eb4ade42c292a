"""Exporting evaluations with features: every format reads back to the same evaluation, and the C and Python
exports compute the engine's own value (``Player.value``) of positions.

The C is compiled by the system compiler into one program holding several
exported evaluations (their names keep them apart) that prints each one's
value of random bitboards and of the positions of seeded random games
(passes and full boards among them); the Python is executed likewise. An
evaluation of one feature with weight 1 and zero squares is that feature's
count, so those are compared as exact integers.
"""
from __future__ import annotations

import ast
import contextlib
import io
import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from engine import build_player
from engine.evaluation import EVALUATIONS, FEATURES, Evaluation
from ga.cli import main
from ga.cli.errors import EXIT_BAD_INPUT
from ga.config import config_from_dict
from ga.evolution.run import evolve
from ga.rundir.layout import BEST_EVALUATION, MEAN_EVALUATION
from ga.rundir.resolve import resolve_weights
from ga.weights import (
    EVALUATION_FORMATS,
    WeightsError,
    evaluation_text,
    format_evaluation,
    load_evaluation,
    load_weights,
    parse_evaluation,
    reading_decimals,
)

import reference as ref

SUFFIX = {"json": ".json", "markdown": ".md", "npy": ".npy", "c": ".h", "python": ".py"}


def evaluation_with(features: tuple[str, ...], tables: int, seed: int, end: int = 0) -> Evaluation:
    """Returns an evaluation of random weights (a phase_move of its own when it has two tables)."""
    rng = np.random.default_rng(seed)
    return Evaluation(tuple(rng.uniform(-1, 1, 64 * tables).tolist()), features,
                      tuple(rng.uniform(-3, 3, len(features) * tables).tolist()),
                      phase_move=int(rng.integers(20, 45)) if tables == 2 else 40, end=end)


def one_feature(feature: str) -> Evaluation:
    """Returns the evaluation whose value is ``feature``'s count: zero squares, the feature at weight 1."""
    return Evaluation((0.0,) * 64, (feature,), (1.0,))


CASES = {
    "all features, one table": evaluation_with(FEATURES, 1, 1, end=10),
    "all features, two tables": evaluation_with(FEATURES, 2, 2, end=12),
    "stability and parity, two tables": evaluation_with(("stability", "parity"), 2, 3),
    "corners, frontier, one table": evaluation_with(("corner_c", "frontier", "corner_x"), 1, 4),
    "paip": EVALUATIONS["paip"],
}


def positions() -> list[tuple[int, int]]:
    """Returns (player, opponent) pairs: every position of 30 random games from both sides, and random bitboards
    of every density, full boards included."""
    rng = random.Random(11)
    found = []
    for seed in range(30):
        for position in ref.random_game(seed):
            found += [(position.player, position.opponent), (position.opponent, position.player)]
    found += [ref.random_masks(rng, rng.random()) for _ in range(1500)]
    found += [ref.random_masks(rng, 1.0) for _ in range(20)]
    return found


POSITIONS = positions()


def move_of(player: int, opponent: int) -> int:
    """Returns the move count the engine switches tables by: discs on the board minus 4."""
    return bin(player | opponent).count("1") - 4


def engine_values(evaluation: Evaluation) -> list[float]:
    player = build_player("wpc:1", evaluation)
    return [player.value(p, o) for p, o in POSITIONS]


def test_the_positions_hold_passes_full_boards_and_every_phase() -> None:
    full = [(p, o) for p, o in POSITIONS if p | o == 2**64 - 1]
    passes = [(p, o) for p, o in POSITIONS if p | o != 2**64 - 1 and not ref.moves_of(p, o)]
    moves = {move_of(p, o) for p, o in POSITIONS}
    assert len(full) > 20 and len(passes) > 20 and set(range(0, 61)) <= moves


def run(argv: list[str]) -> tuple[int, str, list[str]]:
    """Runs the command line in-process; returns the exit code, stdout and the lines of stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue().splitlines()


def export(evaluation: Evaluation, folder: Path, fmt: str, *options: str, name: str = "exported") -> Path:
    """Writes the evaluation as an evaluation file, exports it with the command line and returns the output."""
    source = folder / f"{name}-source.json"
    source.write_text(evaluation_text(evaluation))
    output = folder / f"{name}{SUFFIX[fmt]}"
    code, _, lines = run(["export", str(source), "--format", fmt, "-o", str(output), *options])
    assert code == 0, lines
    return output


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("fmt", EVALUATION_FORMATS)
@pytest.mark.parametrize("case", CASES)
def test_every_format_reads_back_as_the_same_evaluation(tmp_path: Path, fmt: str, case: str) -> None:
    evaluation = CASES[case]
    output = export(evaluation, tmp_path, fmt)
    data = output.read_bytes()
    if fmt == "markdown":  # a table to read: 4 significant digits of the largest square and feature weight
        read = load_evaluation(output)
        assert (read.features, read.phase_move, read.end) == (evaluation.features, evaluation.phase_move,
                                                              evaluation.end)
        for got, want in ((read.squares, evaluation.squares), (read.feature_weights, evaluation.feature_weights)):
            largest = max(map(abs, want), default=0.0)
            np.testing.assert_allclose(got, want, rtol=0, atol=largest * 5e-4 + 1e-12)
        assert not re.search(r"\| -0(\.0+)? \|", data.decode())  # never a negative zero
        return
    assert load_evaluation(output) == evaluation
    assert resolve_weights(str(output))[0] == evaluation  # as every command that takes a table reads it
    assert parse_evaluation(data if fmt == "npy" else data.decode(), "exported", fmt) == evaluation


@pytest.mark.parametrize("fmt", EVALUATION_FORMATS)
def test_a_built_in_evaluation_exports_by_name(tmp_path: Path, fmt: str) -> None:
    output = tmp_path / f"paip{SUFFIX[fmt]}"
    code, stdout, lines = run(["export", "paip", "--format", fmt, "-o", str(output)])
    assert code == 0 and lines == [] and "built-in evaluation paip" in stdout
    assert load_evaluation(output) == EVALUATIONS["paip"]


def test_json_is_the_evaluation_file_with_every_field(tmp_path: Path) -> None:
    evaluation = CASES["all features, two tables"]
    document = json.loads(export(evaluation, tmp_path, "json").read_text())
    assert set(document) == {"format", "version", "layout", "squares", "phase_move", "features", "end", "source"}
    assert {key: value for key, value in document.items() if key != "source"} == {
        key: value for key, value in evaluation.to_document().items() if key != "source"}
    assert document["phase_move"] == evaluation.phase_move and document["end"] == 12


def test_npy_is_one_record_per_table_that_numpy_loads_without_pickles(tmp_path: Path) -> None:
    evaluation = CASES["all features, two tables"]
    records = np.load(export(evaluation, tmp_path, "npy"))  # allow_pickle is off by default
    assert records.dtype.names == ("squares", *FEATURES, "from_move", "end")
    assert records.shape == (2,) and records["from_move"].tolist() == [0, evaluation.phase_move]
    assert records["end"].tolist() == [12, 12]
    assert records["squares"].ravel().tolist() == list(evaluation.squares)
    assert records["stability"].tolist() == [evaluation.weights_of(t)["stability"] for t in (0, 1)]


def test_markdown_holds_the_grids_the_feature_weights_and_the_settings(tmp_path: Path) -> None:
    evaluation = CASES["stability and parity, two tables"]
    text = export(evaluation, tmp_path, "markdown").read_text()
    weights = [evaluation.weights_of(t)["parity"] for t in (0, 1)]
    decimals = reading_decimals(evaluation.feature_weights, 4)  # rounded for reading, as a table's markdown
    assert f"| parity | {weights[0]:.{decimals}f} | {weights[1]:.{decimals}f} |" in text
    assert "| feature | before the switch move | after the switch move |" in text
    assert f"| phase_move | {evaluation.phase_move} |" in text and "| end | 0 |" in text
    assert text.count("| 8 |") == 2  # the two grids


def test_markdown_read_back_takes_hand_edits(tmp_path: Path) -> None:
    evaluation = CASES["paip"]
    text = export(evaluation, tmp_path, "markdown").read_text()
    edited = text.replace("| mobility | 10 |", "|  mobility  |  12  |").replace("|---|---|", "|:--|--:|")
    assert parse_evaluation(edited, "edited", "markdown") == Evaluation(
        evaluation.squares, evaluation.features, (12.0, 45.0, 25.0))


@pytest.mark.parametrize("fmt", EVALUATION_FORMATS)
def test_scale_and_round_treat_feature_weights_as_weights(tmp_path: Path, fmt: str) -> None:
    evaluation = CASES["all features, two tables"]
    vector = evaluation.vector()
    rounded = load_evaluation(export(evaluation, tmp_path, fmt, "--scale", "1000", "--round", name="rounded"))
    assert np.array_equal(rounded.vector(), np.rint(vector / np.abs(vector).max() * 1000))
    assert np.abs(rounded.vector()).max() == 1000
    assert (rounded.features, rounded.phase_move, rounded.end) == (evaluation.features, evaluation.phase_move, 12)
    scaled = load_evaluation(export(evaluation, tmp_path, fmt, "--scale", "7", name="scaled"))
    factor = 7 / np.abs(vector).max()
    if fmt == "markdown":  # rounded for reading: 4 significant digits of the largest weight, 7.000
        assert scaled.vector() == pytest.approx(vector * factor, abs=0.0005)
        return
    assert scaled.vector() == pytest.approx(vector * factor, rel=1e-15)
    # One factor for squares and features: every position's value is scaled by it, so every move stays.
    assert engine_values(scaled)[:500] == pytest.approx([v * factor for v in engine_values(evaluation)[:500]],
                                                        rel=1e-9, abs=1e-9)


def test_a_run_that_evolved_features_exports_its_evaluations(tmp_path: Path) -> None:
    config = config_from_dict({
        "experiment": {"seed": 3, "generations": 2},
        "population": {"size": 6, "parents": 4, "genome": "phase", "phase_move": 30, "features": ["parity"]},
        "selection": {"tournament_size": 2},
        "fitness": {"player": "alphabeta:1,end=4", "opponents": ["nhand:1"], "games_per_opponent": 2},
        "output": {"games_csv": False}, "compute": {"workers": 1}})
    run_dir = Path(evolve(config, out=tmp_path / "run").run_dir)
    for which, file_name in (("best", BEST_EVALUATION), ("mean", MEAN_EVALUATION)):
        output = tmp_path / f"{which}.h"
        code, stdout, lines = run(["export", str(run_dir), "--which", which, "--format", "c", "-o", str(output)])
        assert code == 0 and lines == [] and file_name in stdout  # no table's phase warning: the C carries it
        evaluation = load_evaluation(run_dir / file_name)
        assert (evaluation.n_tables, evaluation.phase_move, evaluation.end) == (2, 30, 4)
        assert load_evaluation(output) == evaluation and "#define EVALUATION_PHASE_MOVE 30" in output.read_text()


def test_csv_is_refused_for_an_evaluation_with_features_and_kept_for_a_table(tmp_path: Path) -> None:
    output = tmp_path / "paip.csv"
    code, stdout, lines = run(["export", "paip", "--format", "csv", "-o", str(output)])
    assert code == EXIT_BAD_INPUT and stdout == "" and not output.exists()
    assert lines == ["othello-ga: error: an evaluation with features (mobility, corner_x, corner_c) cannot be "
                     "written as csv, which holds the square weights alone; export it as json, markdown, npy, c "
                     "or python"]
    code, _, _ = run(["export", "heuristic", "--format", "csv", "-o", str(output)])
    assert code == 0 and len(load_weights(output)) == 64


def test_an_output_without_a_suffix_says_how_to_read_it_back(tmp_path: Path) -> None:
    output = tmp_path / "paip-table"
    code, _, lines = run(["export", "paip", "--format", "markdown", "-o", str(output)])
    assert code == 0 and lines == [f"othello-ga: warning: '{output}' has no weights suffix; read it back with "
                                   "load_evaluation(path, fmt='markdown')"]
    assert load_evaluation(output, fmt="markdown") == EVALUATIONS["paip"]


@pytest.mark.parametrize("fmt", ["markdown", "npy", "c", "python"])
def test_a_table_reader_refuses_an_exported_evaluation(tmp_path: Path, fmt: str) -> None:
    output = export(CASES["paip"], tmp_path, fmt)
    with pytest.raises(WeightsError, match="holds an evaluation with features, not a table"):
        load_weights(output)


# ---------------------------------------------------------------- the code computes the engine's values


def c_compiler() -> str:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler (cc or gcc) on this machine")
    return compiler


def code_cases() -> dict[str, tuple[Evaluation, tuple[str, ...]]]:
    """Returns the evaluations the code is checked on, by C and Python name, with their export options."""
    cases = {f"only_{feature}": (one_feature(feature), ()) for feature in FEATURES}
    cases |= {f"case_{index}": (evaluation, ()) for index, evaluation in enumerate(CASES.values())}
    cases["rounded"] = (CASES["all features, two tables"], ("--scale", "1000", "--round"))
    return cases


CODE_CASES = code_cases()


def expected_values(tmp_path: Path, name: str) -> list[float]:
    """Returns the engine's values of the positions for the evaluation the export of ``name`` holds."""
    evaluation, options = CODE_CASES[name]
    if options:  # the scaled and rounded evaluation, as read back from its evaluation file
        evaluation = load_evaluation(export(evaluation, tmp_path, "json", *options, name=f"{name}-read"))
    return engine_values(evaluation)


def check_values(name: str, values: list[float], expected: list[float]) -> None:
    evaluation, options = CODE_CASES[name]
    if name.startswith("only_") or "--round" in options:  # integers: exactly
        assert values == expected, name
        assert len(set(values)) > 2, name  # the feature varies over the positions
    else:  # the engine sums the squares in another order
        assert values == pytest.approx(expected, rel=1e-12, abs=1e-9), name


HARNESS = r"""
#include <inttypes.h>
#include <stdio.h>
%(includes)s

int main(void)
{
    uint64_t player, opponent;
    int move;
    while (scanf("%%" SCNx64 " %%" SCNx64 " %%d", &player, &opponent, &move) == 3) {
%(prints)s
    }
    return 0;
}
"""


def test_the_c_export_compiles_and_computes_the_engines_values(tmp_path: Path) -> None:
    compiler = c_compiler()
    headers = {name: export(evaluation, tmp_path, "c", "--name", name, *options, name=name)
               for name, (evaluation, options) in CODE_CASES.items()}
    program = tmp_path / "values.c"
    program.write_text(HARNESS % {
        "includes": "\n".join(f'#include "{header.name}"' for header in headers.values()),
        "prints": "\n".join(f'        printf("%%.17g\\n", (double){name}_value(player, opponent, move));'
                            for name in headers).replace("%%", "%"),
    })
    # Strict C99: the export must compile clean in any engine's build.
    compiled = subprocess.run([compiler, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O1",
                               str(program), "-o", str(tmp_path / "values")], capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    lines = "".join(f"{p:x} {o:x} {move_of(p, o)}\n" for p, o in POSITIONS)
    result = subprocess.run([str(tmp_path / "values")], input=lines, capture_output=True, text=True, check=True)
    printed = [float(value) for value in result.stdout.split()]
    assert len(printed) == len(POSITIONS) * len(headers)
    for index, name in enumerate(headers):
        check_values(name, printed[index::len(headers)], expected_values(tmp_path, name))


def test_the_python_export_is_plain_and_computes_the_engines_values(tmp_path: Path) -> None:
    namespace: dict[str, object] = {}
    for name, (evaluation, options) in CODE_CASES.items():
        text = export(evaluation, tmp_path, "python", "--name", name, *options, name=name).read_text()
        module = ast.parse(text)
        assert not any(isinstance(node, (ast.Import, ast.ImportFrom)) for node in ast.walk(module)), name
        exec(compile(module, name, "exec"), namespace)  # noqa: S102 - our own output, in a test; all in one module
    for name in CODE_CASES:
        value = namespace[f"{name}_value"]
        check_values(name, [value(p, o, move_of(p, o)) for p, o in POSITIONS], expected_values(tmp_path, name))


def test_the_rounded_c_and_python_compute_in_integers() -> None:
    evaluation = CASES["paip"]
    c_text = format_evaluation(evaluation, "c", scale=100, round_=True, name="paip")
    assert "static int paip_value(uint64_t player, uint64_t opponent, int move)" in c_text
    assert "static const int paip_mobility_weight[1] = { 8 };" in c_text
    namespace: dict[str, object] = {}
    exec(format_evaluation(evaluation, "python", scale=100, round_=True, name="paip"), namespace)  # noqa: S102
    assert namespace["paip_features"] == {"mobility": [8], "corner_x": [38], "corner_c": [21]}
    assert isinstance(namespace["paip_value"](0x0000000810000000, 0x0000001008000000, 0), int)  # type: ignore[operator]


# ---------------------------------------------------------------- bad input


def bad_markdown(tmp_path: Path, old: str, new: str) -> Path:
    text = export(CASES["paip"], tmp_path, "markdown", name="good").read_text()
    assert old in text
    path = tmp_path / "bad.md"
    path.write_text(text.replace(old, new))
    return path


def bad_npy(tmp_path: Path, change: str) -> Path:
    records = np.load(export(CASES["stability and parity, two tables"], tmp_path, "npy", name="good"))
    if change == "unknown field":
        fields = [(name if name != "parity" else "partiy", records.dtype[name]) for name in records.dtype.names]
        records = records.astype(np.dtype(fields))
    elif change == "from_move":
        records["from_move"][0] = 5
    elif change == "three records":
        records = np.concatenate([records, records[:1]])
    path = tmp_path / "bad.npy"
    np.save(path, records)
    return path


def bad_code(tmp_path: Path, fmt: str, old: str, new: str) -> Path:
    text = export(CASES["paip"], tmp_path, fmt, "--name", "paip", name="good").read_text()
    assert old in text
    path = tmp_path / f"bad{SUFFIX[fmt]}"
    path.write_text(text.replace(old, new, 1))
    return path


BAD = [
    (lambda tmp: bad_markdown(tmp, "| mobility |", "| mobilty |"), "unknown feature 'mobilty'"),
    (lambda tmp: bad_markdown(tmp, "| mobility | 10 |", "| mobility | 10 | 3 |"),
     "expected a feature and 1 weight(s)"),
    (lambda tmp: bad_markdown(tmp, "| corner_x |", "| mobility |"), "feature 'mobility' is listed twice"),
    (lambda tmp: bad_markdown(tmp, "| mobility | 10 |", "| mobility | ten |"), "'ten' is not a number"),
    (lambda tmp: bad_markdown(tmp, "| end | 0 |", "| end | 1.5 |"), "'1.5' is not a whole number"),
    (lambda tmp: bad_markdown(tmp, "| end | 0 |", "| end | 99 |"), "end must be in 0..60"),
    (lambda tmp: bad_markdown(tmp, "| end | 0 |", "| ends | 0 |"), "expected one of the settings"),
    (lambda tmp: bad_markdown(tmp, "| 8 | 120 |", "| 8 | x |"), "'x' is not a number"),
    (lambda tmp: bad_npy(tmp, "unknown field"), "unknown field 'partiy'"),
    (lambda tmp: bad_npy(tmp, "from_move"), "'from_move' must be 0 in the first record"),
    (lambda tmp: bad_npy(tmp, "three records"), "one record per table (1 or 2)"),
    (lambda tmp: bad_code(tmp, "c", "120.0, -20.0,", "-20.0,"), "'squares' must be a list of 1 or 2 lists of 64"),
    (lambda tmp: bad_code(tmp, "c", "{ 10.0 }", "{ 10.0, 3.0 }"), "feature 'mobility' needs one weight per table"),
    (lambda tmp: bad_code(tmp, "c", "#define PAIP_END 0", "#define PAIP_END many"), "'many' is not a whole number"),
    (lambda tmp: bad_code(tmp, "python", "paip_end = 0", "paip_end_ = 0"), "paip_end is missing"),
    (lambda tmp: bad_code(tmp, "python", "paip_features = {", "paip_features = None and {"),
     "paip_features holds something other than literals"),
    (lambda tmp: bad_code(tmp, "python", "'corner_c': [25.0]", "'corner_c': ['x']"),
     "'features.corner_c' holds 'x', not a number"),
]


@pytest.mark.parametrize("make, fragment", BAD, ids=[fragment for _, fragment in BAD])
def test_a_bad_evaluation_file_is_named_in_one_line(tmp_path: Path, make, fragment: str) -> None:  # noqa: ANN001
    path = make(tmp_path)
    output = tmp_path / "out.json"
    code, stdout, lines = run(["export", str(path), "--format", "json", "-o", str(output)])
    assert code == EXIT_BAD_INPUT and stdout == "" and not output.exists(), lines
    assert len(lines) == 1 and lines[0].startswith(f"othello-ga: error: weights file '{path}'"), lines
    assert fragment in lines[0], lines


@pytest.mark.parametrize("options, fragment", [
    (["--format", "c", "--name", ""], "name must be an identifier, got ''"),
    (["--format", "python", "--name", "1x"], "name must be an identifier, got '1x'"),
    (["--format", "json", "--scale", "-1"], "scale must be a positive finite number"),
    (["--format", "markdown", "--scale", "20000"], "beyond 10000"),
], ids=["empty name", "bad name", "negative scale", "scale too large"])
def test_a_bad_option_for_an_evaluation_is_named_in_one_line(tmp_path: Path, options: list[str], fragment: str) -> None:
    output = tmp_path / "out"
    code, stdout, lines = run(["export", "paip", *options, "-o", str(output)])
    assert code == EXIT_BAD_INPUT and stdout == "" and not output.exists()
    assert len(lines) == 1 and lines[0].startswith("othello-ga: error: ") and fragment in lines[0], lines
