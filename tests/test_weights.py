"""Tests for ga.weights: parsing, formatting, round trips and file handling."""

from __future__ import annotations

import json
import pickle
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ga.weights import (
    FORMAT_BY_SUFFIX,
    WEIGHT_LIMIT,
    WeightsError,
    format_weights,
    load_weights,
    npy_bytes,
    parse_weights,
    reading_decimals,
    save_weights,
    weight_text,
)

TEXT_FORMATS = ["csv", "json", "markdown", "c", "python"]
#: The text formats that keep every digit (markdown rounds its cells for reading).
EXACT_FORMATS = ["csv", "json", "c", "python"]
SUFFIXES = sorted(FORMAT_BY_SUFFIX)

# A classic hand-made table: corners good, X- and C-squares bad.
CLASSIC = np.array(
    [
        [100, -20, 10, 5, 5, 10, -20, 100],
        [-20, -50, -2, -2, -2, -2, -50, -20],
        [10, -2, -1, -1, -1, -1, -2, 10],
        [5, -2, -1, -1, -1, -1, -2, 5],
        [5, -2, -1, -1, -1, -1, -2, 5],
        [10, -2, -1, -1, -1, -1, -2, 10],
        [-20, -50, -2, -2, -2, -2, -50, -20],
        [100, -20, 10, 5, 5, 10, -20, 100],
    ],
    dtype=np.float64,
).ravel()

# Floats whose shortest repr is awkward: subnormals, the range's edge, many digits, negative zero.
AWKWARD = np.array(
    [5e-324, -2.2250738585072014e-308, WEIGHT_LIMIT, -0.0, 0.1, 1 / 3, -1e-05, 1234.56789123]
    * 8
)

finite_floats = st.floats(-WEIGHT_LIMIT, WEIGHT_LIMIT, allow_nan=False, allow_infinity=False, width=64)
weight_vectors = arrays(np.float64, 64, elements=finite_floats)
phase_vectors = arrays(np.float64, 128, elements=finite_floats)


def squares(values: npt.NDArray[np.float64]) -> list[float]:
    """Returns the weights as a plain list (for readable assertion diffs)."""
    return values.tolist()


# ---------------------------------------------------------------- layout


def test_csv_layout_is_rank_one_first() -> None:
    weights = np.arange(64, dtype=np.float64)
    lines = format_weights(weights, "csv").splitlines()
    assert len(lines) == 8
    assert lines[0] == "0.0,1.0,2.0,3.0,4.0,5.0,6.0,7.0"  # a1..h1
    assert lines[7].split(",")[0] == "56.0"  # a8
    assert lines[7].split(",")[7] == "63.0"  # h8


def test_markdown_layout() -> None:
    lines = format_weights(np.arange(64), "markdown", round_=True).splitlines()
    assert lines[0] == "| | a | b | c | d | e | f | g | h |"
    assert lines[2] == "| 1 | 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 |"
    assert lines[9] == "| 8 | 56 | 57 | 58 | 59 | 60 | 61 | 62 | 63 |"


def test_markdown_cells_are_rounded_for_reading() -> None:
    # A refined table (largest weight 1.18): four significant digits of the largest, the same decimals in
    # every cell, no negative zero; its csv keeps every digit.
    weights = np.linspace(-0.2540003, 1.1819958607306147, 64)
    weights[5] = -0.00004  # rounds to zero: written without its sign
    text = format_weights(weights, "markdown")
    cells = [cell.strip() for line in text.splitlines()[2:] for cell in line.split("|")[2:-1]]
    assert cells[0] == "-0.254" and cells[-1] == "1.182" and cells[5] == "0.000"
    assert all(re.fullmatch(r"-?\d\.\d{3}", cell) for cell in cells) and "-0.000" not in cells
    np.testing.assert_allclose(parse_weights(text, "markdown"), weights, atol=0.0005)
    assert squares(parse_weights(format_weights(weights, "csv"), "csv")) == squares(weights)
    # Whole numbers stay whole; a table of large weights keeps fewer decimals, a table of small ones more.
    assert "| 1 | 100 | -20 | 10 | 5 | 5 | 10 | -20 | 100 |" in format_weights(CLASSIC, "markdown")
    assert "| 1 | 100.0 | -20.0 |" in format_weights(CLASSIC + 0.04, "markdown")
    assert "| 1 | 0.01000 |" in format_weights(CLASSIC / 10_000 + 1e-9, "markdown")


def test_weight_text_never_prints_a_negative_zero() -> None:
    assert [weight_text(v, 2) for v in (-0.0, -0.004, -0.005001, 0.004, 1.0)] == ["0.00", "0.00", "-0.01", "0.00",
                                                                                   "1.00"]
    assert weight_text(-0.4, 0) == "0" and reading_decimals([0.0, -0.0], 3) == 0


def test_c_layout() -> None:
    text = format_weights(CLASSIC, "c", scale=100, round_=True, name="wpc")
    lines = text.splitlines()
    assert lines[0].startswith("/* index = square, a1 = 0")
    assert lines[1] == "static const int wpc[64] = {"
    assert lines[2] == "    100, -20, 10, 5, 5, 10, -20, 100,  /* rank 1 */"
    assert lines[-1] == "};"
    assert format_weights(CLASSIC, "c").splitlines()[1] == "static const double weights[64] = {"


def test_python_layout() -> None:
    text = format_weights(np.arange(64), "python", round_=True)
    assert "weights = [" in text
    assert "    0, 1, 2, 3, 4, 5, 6, 7,  # rank 1" in text


def test_json_document() -> None:
    document = json.loads(format_weights(CLASSIC, "json", source="gen 12"))
    assert document == {"layout": "a1..h8 row-major", "weights": squares(CLASSIC), "source": "gen 12"}


def test_phase_tables_are_marked() -> None:
    weights = np.arange(128, dtype=np.float64)
    assert len(format_weights(weights, "csv").splitlines()) == 16
    c_text = format_weights(weights, "c")
    assert "weights[128]" in c_text and "first 64 weights apply before the switch move" in c_text
    python_text = format_weights(weights, "python")
    assert "first 64 weights apply before the switch move" in python_text
    markdown = format_weights(weights, "markdown")
    assert markdown.count("| | a | b |") == 2 and "**after the switch move**" in markdown


@pytest.mark.filterwarnings("ignore:rounding to integers merges distinct weights")
def test_scale_sets_the_largest_magnitude() -> None:
    weights = CLASSIC / 7.0
    scaled = parse_weights(format_weights(weights, "csv", scale=64), "csv")
    assert np.abs(scaled).max() == pytest.approx(64)
    rounded = parse_weights(format_weights(weights, "csv", scale=64, round_=True), "csv")
    assert squares(rounded) == squares(np.rint(CLASSIC * 0.64))
    zeros = np.zeros(64)
    assert squares(parse_weights(format_weights(zeros, "csv", scale=10), "csv")) == squares(zeros)


def test_source_comment_survives_parsing() -> None:
    for fmt in TEXT_FORMATS:
        text = format_weights(CLASSIC, fmt, source="odd */ source\n# with newline")
        assert squares(parse_weights(text, fmt)) == squares(CLASSIC), fmt


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("fmt", EXACT_FORMATS)
@settings(max_examples=25, deadline=None)
@given(weights=weight_vectors)
def test_text_formats_round_trip_exactly(fmt: str, weights: npt.NDArray[np.float64]) -> None:
    parsed = parse_weights(format_weights(weights, fmt), fmt)
    assert parsed.dtype == np.float64
    assert parsed.tobytes() == weights.tobytes()  # bit-exact, including -0.0


@pytest.mark.parametrize("fmt", EXACT_FORMATS)
@settings(max_examples=10, deadline=None)
@given(weights=phase_vectors)
def test_phase_tables_round_trip_exactly(fmt: str, weights: npt.NDArray[np.float64]) -> None:
    assert squares(parse_weights(format_weights(weights, fmt), fmt)) == squares(weights)


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
@pytest.mark.filterwarnings("ignore:rounding to integers merges distinct weights")
@settings(max_examples=20, deadline=None)
@given(
    weights=st.one_of(arrays(np.float64, 64, elements=st.floats(-1e6, 1e6)), weight_vectors),
    scale=st.sampled_from([1.0, 64.0, 100.0, 1000.0]),
)
def test_integer_output_round_trips_up_to_the_scale(
    fmt: str, weights: npt.NDArray[np.float64], scale: float
) -> None:
    largest = np.abs(weights).max()
    expected = np.rint(weights / largest * scale) if largest > 0 else weights
    text = format_weights(weights, fmt, scale=scale, round_=True)
    assert not re.search(r"\d\.\d|\d[eE][+-]?\d", text)  # integers only
    assert squares(parse_weights(text, fmt)) == squares(expected + 0.0)


@settings(max_examples=20, deadline=None)
@given(weights=st.one_of(weight_vectors, phase_vectors))
def test_npy_round_trips_exactly(weights: npt.NDArray[np.float64]) -> None:
    assert squares(parse_weights(npy_bytes(weights), "npy")) == squares(weights)


@pytest.mark.parametrize("fmt", EXACT_FORMATS)
def test_awkward_floats_round_trip(fmt: str) -> None:
    parsed = parse_weights(format_weights(AWKWARD, fmt), fmt)
    assert parsed.tobytes() == AWKWARD.tobytes()  # bit-exact, including -0.0


# ---------------------------------------------------------------- lenient inputs


def test_csv_accepts_one_row_or_column_comments_and_blank_lines() -> None:
    row = ",".join(str(value) for value in CLASSIC)
    column = "\n".join(str(value) for value in CLASSIC)
    commented = "# best of generation 40\n\n" + format_weights(CLASSIC, "csv") + "\n\n"
    spaced = format_weights(CLASSIC, "csv").replace(",", " , ")
    for text in (row, column, commented, spaced):
        assert squares(parse_weights(text, "csv")) == squares(CLASSIC)


def test_json_accepts_bare_and_nested_lists() -> None:
    assert squares(parse_weights(json.dumps(squares(CLASSIC)), "json")) == squares(CLASSIC)
    nested = json.dumps(CLASSIC.reshape(8, 8).tolist())
    assert squares(parse_weights(nested, "json")) == squares(CLASSIC)
    ints = json.dumps({"weights": [int(value) for value in CLASSIC]})
    assert squares(parse_weights(ints, "json")) == squares(CLASSIC)


def test_python_accepts_bare_list_tuple_and_annotation() -> None:
    literal = repr(squares(CLASSIC))
    for text in (literal, f"W: list[float] = {literal}", f"w = {tuple(squares(CLASSIC))!r}"):
        assert squares(parse_weights(text, "python")) == squares(CLASSIC)


def test_c_accepts_literal_suffixes_and_line_comments() -> None:
    body = ", ".join(f"{value}f" for value in CLASSIC)
    text = f"// weights\nconst float w[] = {{ {body} }}; // end"
    assert squares(parse_weights(text, "c")) == squares(CLASSIC)


def test_parse_accepts_utf8_bytes_and_a_byte_order_mark() -> None:
    text = format_weights(CLASSIC, "csv")
    assert squares(parse_weights(text.encode(), "csv")) == squares(CLASSIC)
    assert squares(parse_weights(text.encode("utf-8-sig"), "csv")) == squares(CLASSIC)
    assert squares(parse_weights("\ufeff" + text, "csv")) == squares(CLASSIC)


def test_weights_error_survives_pickling() -> None:
    error = WeightsError("best.csv", "expected 64 numbers, found 63", "add the missing weight")
    copy = pickle.loads(pickle.dumps(error))
    assert isinstance(copy, WeightsError)
    assert str(copy) == str(error) == (
        "weights file 'best.csv': expected 64 numbers, found 63; add the missing weight"
    )
    assert (copy.source, copy.problem, copy.fix) == (error.source, error.problem, error.fix)


# ---------------------------------------------------------------- bad inputs


def short_csv() -> str:
    """Returns a CSV table missing its last weight (h8)."""
    return format_weights(CLASSIC, "csv").rsplit(",", 1)[0] + "\n"


BAD_INPUTS = [
    ("csv", short_csv(), "expected 64 numbers, found 63"),
    ("csv", format_weights(CLASSIC, "csv") + "1.0\n", "expected 64 numbers, found 65"),
    ("csv", "", "expected 64 numbers, found 0"),
    ("csv", format_weights(CLASSIC, "csv").replace("100.0", "abc", 1), "line 1, column 1: 'abc' is not a number"),
    ("csv", format_weights(CLASSIC, "csv").replace("100.0", "nan", 1), "not a finite number"),
    ("csv", format_weights(CLASSIC, "csv").replace("100.0", "-inf", 1), "not a finite number"),
    ("csv", format_weights(CLASSIC, "csv").replace("\n", ",", 1) + "0\n" * 0, "found 7 rows"),
    ("csv", "\n".join([",".join(["1"] * 16)] * 4), "found 4 rows of 16"),
    ("csv", format_weights(CLASSIC, "csv").replace(",100.0\n", ",100.0,\n", 1), "'' is not a number"),
    ("json", "[1, 2,", "invalid JSON"),
    ("json", json.dumps(squares(CLASSIC)[:63]), "expected 64 numbers, found 63"),
    ("json", json.dumps({"values": squares(CLASSIC)}), "no 'weights' key"),
    ("json", json.dumps({"layout": "h8..a1", "weights": squares(CLASSIC)}), "unsupported layout"),
    ("json", json.dumps(["1"] * 64), "'1' is not a number"),
    ("json", json.dumps([True] * 64), "True is not a number"),
    ("json", "[" + ", ".join(["NaN"] * 64) + "]", "not a finite number"),
    ("json", json.dumps([[1.0] * 7] * 8), "nested rows must hold 8"),
    ("json", '"weights"', "expected a list of numbers"),
    ("markdown", "no table here", "no markdown table rows"),
    ("markdown", format_weights(CLASSIC, "markdown").replace("| 3 |", "| 4 |"), "expected rank 3, found '4'"),
    ("markdown", format_weights(CLASSIC, "markdown").replace("| 1 | 100 |", "| 1 |"), "expected a rank label and 8 numbers"),
    ("markdown", "\n".join(format_weights(CLASSIC, "markdown").splitlines()[:-1]), "expected 64 numbers, found 56"),
    ("markdown", format_weights(CLASSIC, "markdown").replace("-50", "x", 1), "file b: 'x' is not a number"),
    ("c", "double w[64];", "no C array initializer"),
    ("c", format_weights(CLASSIC, "c").replace("100.0, ", "", 1), "expected 64 numbers, found 63"),
    ("c", format_weights(CLASSIC, "c").replace("-50.0", "W", 1), "'W' is not a number"),
    ("python", "weights = [1, 2", "invalid Python"),
    ("python", "a = [1]\nb = [2]", "expected one list literal, found 2"),
    ("python", "weights = [__import__('os').getcwd()] * 64", "expected one list literal, found 0"),
    ("python", "weights = [x] + [1.0] * 63", "expected one list literal"),
    ("python", "weights = [" + "x, " * 64 + "]", "something other than number literals"),
    ("python", "weights = [" + "'1', " * 64 + "]", "'1' is not a number"),
    ("python", "weights = [" + "1e999, " * 64 + "]", "not a finite number"),
    ("python", "weights = [" + "10**400, " * 64 + "]", "number literals"),
    ("python", "weights = [" + "1.0, " * 65 + "]", "expected 64 numbers, found 65"),
    ("npy", "text", "npy weights are binary"),
    ("npy", b"not an npy file", "not a valid .npy file"),
    ("yaml", "[]", "unknown format 'yaml'"),
]


@pytest.mark.parametrize(("fmt", "text", "message"), BAD_INPUTS)
def test_bad_input_raises_one_line_error_naming_the_source(
    fmt: str, text: str, message: str
) -> None:
    with pytest.raises(WeightsError) as caught:
        parse_weights(text, fmt, source="best.txt")
    assert message in str(caught.value)
    assert str(caught.value).startswith("weights file 'best.txt'")
    assert "\n" not in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_bad_npy_arrays() -> None:
    with pytest.raises(WeightsError, match="expected 64 numbers, found 63"):
        parse_weights(_npy(np.zeros(63)), "npy")
    with pytest.raises(WeightsError, match="numeric array"):
        parse_weights(_npy(np.array(["a"] * 64)), "npy")
    with pytest.raises(WeightsError, match="not a valid .npy"):
        parse_weights(_npy(np.array([{}] * 64, dtype=object), allow_pickle=True), "npy")
    with pytest.raises(WeightsError, match="not a finite number"):
        parse_weights(_npy(np.full(64, np.inf)), "npy")
    # Integer and 8x8 arrays are fine.
    assert squares(parse_weights(_npy(CLASSIC.astype(int).reshape(8, 8)), "npy")) == squares(CLASSIC)


def _npy(array: npt.NDArray, allow_pickle: bool = False) -> bytes:
    """Returns arbitrary array bytes as written by numpy.save."""
    import io

    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def test_parse_rejects_non_utf8_text() -> None:
    with pytest.raises(WeightsError, match="not UTF-8"):
        parse_weights(b"\xff\xfe", "csv", source="x.csv")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"weights": np.zeros(63), "fmt": "csv"}, "expected 64 or 128 weights"),
        ({"weights": np.full(64, np.nan), "fmt": "csv"}, "finite"),
        ({"weights": CLASSIC, "fmt": "yaml"}, "unknown format"),
        ({"weights": CLASSIC, "fmt": "c", "name": "my weights"}, "identifier"),
        ({"weights": CLASSIC, "fmt": "csv", "scale": 0.0}, "scale"),
        ({"weights": CLASSIC, "fmt": "csv", "scale": float("inf")}, "scale"),
        ({"weights": CLASSIC * 1e8, "fmt": "c", "round_": True}, "overflow a C int"),
    ],
)
def test_format_rejects_bad_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        format_weights(**kwargs)


# ---------------------------------------------------------------- C compiler


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
@pytest.mark.parametrize(
    ("weights", "options"),
    [
        (AWKWARD, {}),
        (CLASSIC / 3, {"scale": 100.0, "round_": True}),
        (np.concatenate([CLASSIC, -CLASSIC]) / 7, {}),
    ],
    ids=["double", "int", "phases"],
)
def test_c_output_compiles_and_holds_the_same_values(
    tmp_path: Path, weights: npt.NDArray[np.float64], options: dict
) -> None:
    header = tmp_path / "weights.h"
    header.write_text(format_weights(weights, "c", **options))
    count = weights.size
    c_type = "int" if options.get("round_") else "double"
    conversion = '"%d\\n"' if c_type == "int" else '"%.17g\\n"'
    program = tmp_path / "main.c"
    program.write_text(
        '#include <stdio.h>\n#include "weights.h"\n'
        f"int main(void) {{ for (int i = 0; i < {count}; i++) printf({conversion}, weights[i]); return 0; }}\n"
    )
    compile_only = subprocess.run(
        ["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-c", str(header.with_suffix(".h")),
         "-o", str(tmp_path / "weights.gch")],
        capture_output=True, text=True,
    )
    assert compile_only.returncode == 0, compile_only.stderr
    binary = tmp_path / "main"
    build = subprocess.run(
        ["gcc", "-std=c99", "-Wall", "-Werror", str(program), "-o", str(binary)],
        capture_output=True, text=True,
    )
    assert build.returncode == 0, build.stderr
    printed = subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout
    expected = parse_weights(format_weights(weights, "c", **options), "c")
    assert [float(line) for line in printed.split()] == squares(expected)


# ---------------------------------------------------------------- files


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_save_then_load_round_trips_for_every_suffix(tmp_path: Path, suffix: str) -> None:
    weights = AWKWARD if suffix != ".npy" else CLASSIC / 3
    path = save_weights(tmp_path / f"best{suffix}", weights)
    assert path == tmp_path / f"best{suffix}"
    if FORMAT_BY_SUFFIX[suffix] == "markdown":  # a table to read: four significant digits of the largest weight
        np.testing.assert_allclose(load_weights(path), weights, atol=0.5)
        assert "| 1235 |" in path.read_text() and "-0 " not in path.read_text()
    else:
        assert load_weights(path).tobytes() == weights.tobytes()
    assert [entry.name for entry in tmp_path.iterdir()] == [path.name]  # no temp files left


def test_save_refuses_to_overwrite(tmp_path: Path) -> None:
    path = save_weights(tmp_path / "best.csv", CLASSIC)
    with pytest.raises(FileExistsError, match="overwrite=True"):
        save_weights(path, -CLASSIC)
    assert squares(load_weights(path)) == squares(CLASSIC)
    save_weights(path, -CLASSIC, overwrite=True)
    assert squares(load_weights(path)) == squares(-CLASSIC)
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["best.csv"]


def test_save_passes_format_options(tmp_path: Path) -> None:
    path = save_weights(tmp_path / "wpc.h", CLASSIC / 3, scale=100, round_=True, name="wpc")
    assert "static const int wpc[64]" in path.read_text()
    assert squares(load_weights(path)) == squares(CLASSIC)
    explicit = save_weights(tmp_path / "weights.dat", CLASSIC, fmt="json")
    assert squares(load_weights(explicit, fmt="json")) == squares(CLASSIC)


def test_load_errors_name_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "x.csv"
    with pytest.raises(WeightsError, match=f"^weights file '{missing}' does not exist"):
        load_weights(missing)
    with pytest.raises(WeightsError, match="is a directory; name a weights file in it"):
        load_weights(tmp_path)
    odd = tmp_path / "weights.yaml"
    odd.write_text("[]")
    with pytest.raises(WeightsError, match=r"has unknown suffix '\.yaml'; use one of \.csv"):
        load_weights(odd)
    with pytest.raises(WeightsError, match="unknown suffix"):
        save_weights(tmp_path / "weights.yaml2", CLASSIC)
    short = tmp_path / "short.csv"
    short.write_text(short_csv())
    with pytest.raises(WeightsError, match=f"^weights file '{short}': expected 64 numbers, found 63"):
        load_weights(short)


@pytest.mark.parametrize(("value", "square"), [(1e308, "a1"), (-1e5, "a1"), (10000.000001, "a1")])
def test_tables_beyond_the_playable_range_are_refused_naming_the_square(value: float, square: str) -> None:
    table = np.zeros(64)
    table[0] = value
    with pytest.raises(WeightsError, match=f"weight .* at {square} is beyond \\+-10000"):
        parse_weights(format_weights(table, "csv"), "csv")
    table[0] = WEIGHT_LIMIT  # the edge of the range is in it
    assert parse_weights(format_weights(table, "csv"), "csv")[0] == WEIGHT_LIMIT
