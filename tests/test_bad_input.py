"""Bad input, systematically: random and mutated configs, weights files, positions and specs.

The contract (docs/runs.md, "Stopping and bad input"): a loader raises only its documented error
(ConfigError, WeightsError, ValueError), never KeyError, TypeError,
UnicodeDecodeError, ...; the command line never shows a traceback, exits with
code 2, prints exactly one line ``othello-ga: error: ...`` on stderr (a warning
printed by a library counts as a line) and writes nothing. The cases are
listed in ``bad_input_cases.py``; the counts are printed at the end.
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Iterator
import attrs
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tomli_w
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import bad_input_cases as cases
from bad_input_cases import tried
from engine import Board, Player, PlayerSpec, build_player, parse_spec, parse_square, square_name
from ga.config import SECTIONS as CONFIG_SECTIONS
from ga.cli import main
from ga.cli.errors import EXIT_BAD_INPUT
from ga.config import Config, ConfigError, config_from_dict, load_config
from ga.weights import WEIGHT_LIMIT, WeightsError, format_weights, load_evaluation, load_weights, npy_bytes, parse_weights

ROOT = Path(__file__).resolve().parent.parent
SECTIONS = {name: [f.name for f in attrs.fields(cls)] for name, cls in CONFIG_SECTIONS.items()}
KEYS = [(section, key) for section, keys in SECTIONS.items() for key in keys]
ERROR_LINE = re.compile(r"othello-ga: error: \S.*")


@pytest.fixture(scope="module", autouse=True)
def report_counts(request: pytest.FixtureRequest) -> Iterator[None]:
    """Runs without OTHELLO_GA_DEBUG and prints the tally of cases tried at the end."""
    saved = os.environ.pop("OTHELLO_GA_DEBUG", None)
    yield
    if saved is not None:
        os.environ["OTHELLO_GA_DEBUG"] = saved
    reporter = request.config.pluginmanager.getplugin("terminalreporter")
    capture = request.config.pluginmanager.getplugin("capturemanager")
    if reporter is not None:
        with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
            reporter.write_line("")
            reporter.write_line(cases.report())


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory shared by the examples of a module (hypothesis refuses function-scoped fixtures)."""
    return tmp_path_factory.mktemp("bad-input")


# ---------------------------------------------------------------- helpers


def expect_only(error_type: type[Exception], function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Returns ``function(*args)`` or the ``error_type`` it raised; any other exception fails the test."""
    try:
        return function(*args, **kwargs)
    except error_type as error:
        message = str(error)
        assert message and "\n" not in message, f"{error_type.__name__} message is not one line: {message!r}"
        return error
    except Exception:  # noqa: BLE001 - this is what the test is about
        pytest.fail(f"{function.__name__}{args!r:.300} raised other than {error_type.__name__}:\n"
                    f"{traceback.format_exc()}")


def run_cli(argv: list[str]) -> tuple[int, str, list[str]]:
    """Runs ``main(argv)`` in-process; returns the exit code, stdout and the lines of stderr.

    Warnings are recorded and counted as stderr lines: a real process would print them.
    """
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(record=True) as caught, \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        warnings.simplefilter("always")
        sys.stdin, stdin = io.StringIO(""), sys.stdin  # play: stdin is closed
        try:
            code = main(argv)
        except BaseException:  # noqa: BLE001 - a traceback is the failure
            pytest.fail(f"othello-ga {argv} raised:\n{traceback.format_exc()}")
        finally:
            sys.stdin = stdin
    lines = err.getvalue().splitlines() + [f"{w.category.__name__}: {w.message}" for w in caught]
    return code, out.getvalue(), lines


def assert_bad_input(argv: list[str], *fragments: str, unwritten: tuple[Path, ...] = ()) -> str:
    """Runs the command line and checks the contract: exit 2, one error line, nothing written."""
    tried("cli")
    code, _, lines = run_cli(argv)
    assert code == EXIT_BAD_INPUT, (argv, code, lines)
    assert len(lines) == 1 and ERROR_LINE.fullmatch(lines[0]), (argv, lines)
    assert "Traceback" not in lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    for path in unwritten:
        assert not path.exists(), f"{argv} wrote {path}"
    return lines[0]


def snapshot(root: Path) -> dict[str, bytes]:
    """Returns every file under ``root`` with its bytes (directories as empty entries)."""
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else b"") for p in sorted(root.rglob("*"))}


def leftovers(directory: Path, before: set[str]) -> set[str]:
    """Returns the names that appeared in ``directory`` (temporary files included)."""
    return {path.name for path in directory.iterdir()} - before


# ---------------------------------------------------------------- strategies

toml_scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.sampled_from([0, 1, 2, 3, 59, 60, 2**63 - 1, -(2**63)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["random", "nhand:2", "wpc:1", "wpc:1@heuristic", "human", "full", "dask", "one-point",
                     "tournament", "both", "win_rate", "local", "../x", ""]),
    st.dates(),
)
toml_values = st.recursive(
    toml_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
python_values = st.one_of(
    toml_values,
    st.sampled_from(cases.WRONG_VALUES),
    st.integers(),
    st.none(),
    st.binary(max_size=4),
    st.tuples(st.integers()),
)


@st.composite
def mutated_bytes(draw: st.DrawFn, original: bytes, tokens: tuple[str, ...] = cases.MUTATION_TOKENS) -> bytes:
    """Returns ``original`` after one to four random edits: cut, delete, insert, flip, repeat."""
    data = bytearray(original)
    for _ in range(draw(st.integers(1, 4))):
        operation = draw(st.sampled_from(("truncate", "delete", "insert", "flip", "repeat")))
        at = draw(st.integers(0, len(data)))
        if operation == "truncate":
            del data[at:]
        elif operation == "delete":
            del data[at : at + draw(st.integers(1, 16))]
        elif operation == "insert":
            token = draw(st.sampled_from(tokens) | st.text(max_size=4))
            data[at:at] = token.encode("utf-8")
        elif operation == "flip" and data:
            data[min(at, len(data) - 1)] = draw(st.integers(0, 255))
        elif operation == "repeat":
            data[at:at] = data[at : at + draw(st.integers(1, 32))]
    return bytes(data)


# ---------------------------------------------------------------- configs


@settings(max_examples=150)
@given(key=st.sampled_from(KEYS), value=python_values)
def test_config_key_of_any_value_is_accepted_or_named(key: tuple[str, str], value: Any) -> None:
    tried("configs")
    section, name = key
    result = expect_only(ConfigError, config_from_dict, {section: {name: value}})
    if isinstance(result, ConfigError):
        assert re.match(r"config key '[^']+'", str(result)), result


@pytest.mark.parametrize("key", KEYS, ids=".".join)
def test_config_key_of_every_wrong_value(key: tuple[str, str]) -> None:
    section, name = key
    for value in cases.WRONG_VALUES:
        tried("configs")
        result = expect_only(ConfigError, config_from_dict, {section: {name: value}, "experiment": {"generations": 1}})
        assert isinstance(result, (Config, ConfigError))


@settings(max_examples=40)
@given(section=st.sampled_from(["", *SECTIONS]), key=st.text(min_size=1, max_size=10))
def test_unknown_config_key_is_named(section: str, key: str) -> None:
    tried("configs")
    known = SECTIONS.get(section, list(SECTIONS))
    assume(key not in known)
    data = {key: {}} if not section else {section: {key: 1}}
    error = expect_only(ConfigError, config_from_dict, data)
    assert isinstance(error, ConfigError)
    assert "is not known" in str(error)


@pytest.mark.parametrize("document", cases.BAD_DOCUMENTS, ids=repr)
def test_config_document_that_is_not_a_table_of_sections(document: Any) -> None:
    tried("configs")
    assert isinstance(expect_only(ConfigError, config_from_dict, document), ConfigError)


@settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_toml_file_loads_or_fails_with_config_error(scratch: Path, data: st.DataObject) -> None:
    tried("configs")
    original = data.draw(st.sampled_from(cases.VALID_TOMLS)).encode("utf-8")
    path = scratch / "mutated.toml"
    path.write_bytes(data.draw(mutated_bytes(original)))
    result = expect_only(ConfigError, load_config, path)
    assert isinstance(result, (Config, ConfigError))


@settings(max_examples=60)
@given(section=st.sampled_from(list(SECTIONS)), data=st.data())
def test_toml_file_with_a_random_value_loads_or_fails_with_config_error(
    scratch: Path, section: str, data: st.DataObject
) -> None:
    tried("configs")
    key = data.draw(st.sampled_from(SECTIONS[section]) | st.text(max_size=6))
    path = scratch / "value.toml"
    path.write_text(tomli_w.dumps({section: {key: data.draw(toml_values)}}), encoding="utf-8")
    expect_only(ConfigError, load_config, path)


@settings(max_examples=40)
@given(content=st.binary(max_size=200))
def test_config_file_of_random_bytes(scratch: Path, content: bytes) -> None:
    tried("configs")
    path = scratch / "random.toml"
    path.write_bytes(content)
    expect_only(ConfigError, load_config, path)


@pytest.mark.parametrize(("content", "fragment"), cases.BAD_TOML_FILES, ids=lambda v: repr(v)[:30])
def test_bad_toml_file(tmp_path: Path, content: bytes, fragment: str) -> None:
    tried("configs")
    path = tmp_path / "exp.toml"
    path.write_bytes(content)
    result = expect_only(ConfigError, load_config, path)
    if fragment:
        assert isinstance(result, ConfigError) and fragment in str(result)


def test_config_file_paths_that_are_not_files(tmp_path: Path) -> None:
    for path in (tmp_path / "missing.toml", tmp_path, tmp_path / "a\x00b.toml"):
        tried("configs")
        assert isinstance(expect_only(ConfigError, load_config, path), ConfigError)


def test_config_with_a_malformed_opponent_table_fails_when_loaded(tmp_path: Path) -> None:
    # Found by this module: the table used to be read by the first game, after the run directory was made.
    (tmp_path / "w.csv").write_text("1,2,3\n")
    path = tmp_path / "exp.toml"
    path.write_text('[fitness]\nopponents = ["random", "wpc:1@w.csv"]\n')
    tried("configs")
    with pytest.raises(ConfigError, match=r"^config key 'fitness\.opponents\[1\]\.spec': weights file .*found 3"):
        load_config(path)


# ---------------------------------------------------------------- weights


def render(cells: list[str], fmt: str) -> str:
    """Writes text cells as a weights file of ``fmt`` (8 per row where the format has rows)."""
    rows = [cells[start : start + 8] for start in range(0, len(cells), 8)]
    if fmt == "csv":
        return "\n".join(",".join(row) for row in rows) + "\n"
    if fmt == "json":
        return "[" + ", ".join(cells) + "]"
    if fmt == "markdown":
        lines = ["| | a | b | c | d | e | f | g | h |", "|---" * 9 + "|"]
        lines += [f"| {index % 8 + 1} | " + " | ".join(row) + " |" for index, row in enumerate(rows)]
        return "\n".join(lines) + "\n"
    if fmt == "c":
        return "static const double weights[] = {\n" + ",\n".join(", ".join(row) for row in rows) + "\n};\n"
    return "weights = [\n" + ",\n".join(", ".join(row) for row in rows) + "\n]\n"


cell_counts = st.sampled_from([0, 1, 8, 63, 64, 65, 72, 127, 128, 129, 192]) | st.integers(0, 140)


def table_cells(count: int, scale: float) -> list[str]:
    """Returns ``count`` distinct finite weights as text (repr, so they read back exactly)."""
    return [repr(float(value)) for value in np.linspace(-scale, scale, count)]


@settings(max_examples=100)
@given(fmt=st.sampled_from(["csv", "json", "markdown", "c", "python"]), count=cell_counts,
       scale=st.floats(min_value=0.0, max_value=1e300), bad=st.lists(st.sampled_from(cases.BAD_CELLS), max_size=2),
       where=st.integers(0, 191))
def test_weights_text_with_bad_cells_or_counts(fmt: str, count: int, scale: float, bad: list[str], where: int) -> None:
    tried("weights")
    cells = table_cells(count, scale)
    for offset, cell in enumerate(bad if cells else []):
        cells[(where + offset) % len(cells)] = cell
    result = expect_only(WeightsError, parse_weights, render(cells, fmt), fmt)
    if bad and cells or count not in (64, 128) or scale > WEIGHT_LIMIT:
        assert isinstance(result, WeightsError), (fmt, count, cells)
    else:
        assert isinstance(result, np.ndarray)
        np.testing.assert_array_equal(result, [float(cell) for cell in cells])


@settings(max_examples=60)
@given(count=cell_counts, special=st.sampled_from([0.0, math.nan, math.inf, -math.inf, 1e300, 65504.0, 70000.0]),
       where=st.integers(0, 191),
       dtype=st.sampled_from(["<f8", "<f4", "<f2", ">f8", "<i8", "<u1", "<c16", "|b1", "<U2", "<M8[s]"]),
       shape=st.sampled_from(["flat", "row", "column"]))
def test_npy_of_any_count_dtype_or_value(count: int, special: float, where: int, dtype: str, shape: str) -> None:
    tried("weights")
    values = np.linspace(-1.0, 1.0, count)
    if count:
        values[where % count] = special
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            array = values.astype(dtype)
        except (ValueError, OverflowError, TypeError):
            array = np.zeros(count, dtype=dtype)
    array = array.reshape({"flat": (count,), "row": (1, count), "column": (count, 1)}[shape])
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    result = expect_only(WeightsError, parse_weights, buffer.getvalue(), "npy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        finite = array.dtype.kind in "iuf" and bool(np.isfinite(array.astype(np.float64)).all())
        in_range = finite and bool((np.abs(array.astype(np.float64)) <= WEIGHT_LIMIT).all())
    if not in_range or count not in (64, 128):
        assert isinstance(result, WeightsError)
    else:
        np.testing.assert_array_equal(result, array.ravel().astype(np.float64))


def valid_weights_file(fmt: str, phases: int) -> bytes:
    weights = np.linspace(-1.0, 1.0, 64 * phases)
    if fmt == "npy":
        return npy_bytes(weights)
    return format_weights(weights, fmt, source="a run").encode("utf-8")


@settings(max_examples=150)
@given(fmt=st.sampled_from(list(cases.WEIGHT_FORMATS)), phases=st.sampled_from([1, 2]), data=st.data())
def test_mutated_weights_file_loads_or_fails_with_weights_error(
    scratch: Path, fmt: str, phases: int, data: st.DataObject
) -> None:
    tried("weights")
    path = scratch / f"mutated{cases.WEIGHT_FORMATS[fmt]}"
    path.write_bytes(data.draw(mutated_bytes(valid_weights_file(fmt, phases))))
    result = expect_only(WeightsError, load_weights, path)
    if isinstance(result, np.ndarray):
        assert result.dtype == np.float64 and result.shape in ((64,), (128,)) and np.isfinite(result).all()


@settings(max_examples=40)
@given(suffix=st.sampled_from([*cases.WEIGHT_FORMATS.values(), ".txt", ".h", ".weights", ""]),
       content=st.binary(max_size=300))
def test_weights_file_of_random_bytes(scratch: Path, suffix: str, content: bytes) -> None:
    tried("weights")
    path = scratch / f"random{suffix}"
    path.write_bytes(content)
    expect_only(WeightsError, load_weights, path)


@pytest.mark.parametrize(("suffix", "content", "fragment"), cases.BAD_WEIGHT_FILES, ids=lambda v: repr(v)[:30])
def test_bad_weights_file(tmp_path: Path, suffix: str, content: bytes, fragment: str) -> None:
    tried("weights")
    path = tmp_path / f"w{suffix}"
    path.write_bytes(content)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would be a second line on stderr
        error = expect_only(WeightsError, load_weights, path)
    assert isinstance(error, WeightsError) and fragment in str(error), error


@pytest.mark.parametrize("header", [
    b"{'descr': '<f8', 'fortran_order': False, 'shape': (64,)[, }",  # tokenize.TokenError
    b"{'descr': '<f8', b'fortran_order': False, 'shape': (64,), }",  # TypeError sorting the keys
    b"{'descr': '<f8', 'fortran_order': 'yes', 'shape': (64,), }",
    b"{'descr': '<f8', 'fortran_order': False, 'shape': (64,), 'extra': 1}",
    b"{'descr': '<f8', 'fortran_order': False, 'shape': (2**6,), }",
    b"{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }",
    b"{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }",
    b"{'descr': 'zz', 'fortran_order': False, 'shape': (64,), }",
    b"{'descr': '|O', 'fortran_order': False, 'shape': (64,), }",
])
def test_npy_with_a_damaged_header(header: bytes) -> None:
    # Found by this module: numpy raised TokenError and TypeError, which escaped as tracebacks.
    tried("weights")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        error = expect_only(WeightsError, parse_weights, cases.npy_file(header), "npy")
    assert isinstance(error, WeightsError) and "not a valid .npy file" in str(error)


def test_python_weights_that_make_the_parser_warn_fail_quietly() -> None:
    # Found by this module: "1if" made ast.parse print a SyntaxWarning, a second line on stderr.
    tried("weights")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(WeightsError, match="something other than number literals"):
            parse_weights("w = [" + ", ".join(["1if 1 else 2"] * 64) + "]", "python")


def test_parse_weights_of_the_wrong_kind_of_input() -> None:
    for text, fmt in (("1", "yaml"), ("x", "npy"), (b"\xff\xfe", "csv"), (b"\xff", "python")):
        tried("weights")
        assert isinstance(expect_only(WeightsError, parse_weights, text, fmt), WeightsError)


# ---------------------------------------------------------------- positions and squares

positions = st.builds(
    lambda squares, side: squares + side,
    st.text(alphabet=cases.POSITION_ALPHABET, max_size=70) | st.text(alphabet="XO-", min_size=64, max_size=64),
    st.sampled_from(cases.POSITION_SIDES),
)


@settings(max_examples=200)
@given(text=positions | st.text(max_size=80))
def test_position_text_is_a_board_or_value_error(text: str) -> None:
    tried("positions")
    result = expect_only(ValueError, Board.from_text, text)
    parts = text.strip().split()
    if isinstance(result, Board):
        assert len(parts) == 2 and len(parts[0]) == 64 and parts[1].upper() in ("X", "O")
        assert Board.from_text(result.to_text()) == result
    elif len(parts) == 2 and len(parts[0]) != 64:
        assert "64 squares" in str(result)


@pytest.mark.parametrize("value", cases.BAD_POSITION_OBJECTS, ids=repr)
def test_position_that_is_not_text(value: Any) -> None:
    tried("positions")
    assert isinstance(expect_only(ValueError, Board.from_text, value), ValueError)


@settings(max_examples=100)
@given(text=st.text(max_size=5) | st.builds(lambda f, r, pad: pad + f + r + pad, st.sampled_from("abhiABH1z²"),
                                               st.sampled_from("0189a²١"), st.sampled_from(["", " ", "\t"])))
def test_square_name_is_a_square_or_value_error(text: str) -> None:
    tried("squares")
    result = expect_only(ValueError, parse_square, text)
    if isinstance(result, int):
        assert square_name(result) == text.strip().lower()


@pytest.mark.parametrize("value", cases.BAD_SQUARE_OBJECTS, ids=repr)
def test_square_that_is_not_text(value: Any) -> None:
    tried("squares")
    assert isinstance(expect_only(ValueError, parse_square, value), ValueError)


# ---------------------------------------------------------------- player specs

specs = st.lists(st.sampled_from(cases.SPEC_FRAGMENTS), min_size=0, max_size=5).map("".join)


@settings(max_examples=250)
@given(text=specs | st.text(max_size=20))
def test_spec_text_parses_or_raises_value_error(text: str) -> None:
    tried("specs")
    result = expect_only(ValueError, parse_spec, text)
    if isinstance(result, PlayerSpec):
        assert parse_spec(str(result)) == result  # what is accepted prints back to the same player
        player = expect_only(ValueError, build_player, result, load_weights=load_weights)
        assert isinstance(player, (Player, ValueError))
        if result.kind == "human" or result.table is not None and not result.table_is_builtin:
            assert isinstance(player, ValueError)  # no human engine player; the test files do not exist


@settings(max_examples=100)
@given(text=specs, role=st.sampled_from(["player", "opponent", "weighted opponent"]))
def test_spec_in_a_config_is_accepted_or_named(text: str, role: str) -> None:
    tried("specs")
    fitness: dict[str, Any] = {
        "player": {"player": text},
        "opponent": {"opponents": [text]},
        "weighted opponent": {"opponents": ["random", {"spec": text, "weight": 0.5}]},
    }[role]
    result = expect_only(ConfigError, config_from_dict, {"fitness": fitness})
    if isinstance(result, ConfigError):
        assert str(result).startswith("config key 'fitness."), result


@pytest.mark.parametrize(("text", "fragment"), cases.BAD_SPECS, ids=repr)
def test_bad_spec_is_named(text: str, fragment: str) -> None:
    tried("specs")
    error = expect_only(ValueError, parse_spec, text)
    assert isinstance(error, ValueError) and fragment in str(error), error
    if text.strip():
        assert repr(text) in str(error) or repr(text.strip()) in str(error), error


@pytest.mark.parametrize("value", [None, 1, b"random", ["random"]], ids=repr)
def test_spec_that_is_not_text(value: Any) -> None:
    tried("specs")
    assert isinstance(expect_only(ValueError, parse_spec, value), ValueError)


# ---------------------------------------------------------------- the command line: evolve


@st.composite
def bad_config_texts(draw: st.DrawFn) -> bytes:
    """Returns a TOML experiment that load_config rejects: a mutated file, a wrong value or an unknown key."""
    base = draw(st.sampled_from(cases.VALID_TOMLS))
    how = draw(st.sampled_from(("mutate", "value", "unknown")))
    if how == "mutate":
        return draw(mutated_bytes(base.encode("utf-8")))
    import tomllib

    data = tomllib.loads(base)
    section, key = draw(st.sampled_from(KEYS))
    if how == "unknown":
        key = draw(st.sampled_from(["sise", "seeds", "Method", "workers ", "x"]))
    data.setdefault(section, {})[key] = draw(toml_values)
    return tomli_w.dumps(data).encode("utf-8")


@settings(max_examples=30, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(content=bad_config_texts())
def test_evolve_with_a_bad_config_writes_nothing(scratch: Path, content: bytes) -> None:
    path = scratch / "bad.toml"
    path.write_bytes(content)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assume(isinstance(expect_only(ConfigError, load_config, path), ConfigError))
    out = scratch / "evolve-out"
    assert_bad_input(["evolve", str(path), "--out", str(out), "--quiet", "--no-plots"], "config",
                     unwritten=(out,))


def test_evolve_with_a_malformed_opponent_table_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "w.npy").write_bytes(cases.npy_file(b"{'descr': '<f8', 'fortran_order': False, 'shape': (63,), }"))
    path = tmp_path / "exp.toml"
    path.write_text('[population]\nsize = 4\nparents = 2\n[fitness]\nopponents = ["wpc:1@w.npy"]\n')
    out = tmp_path / "run"
    assert_bad_input(["evolve", str(path), "--out", str(out), "--quiet", "--no-plots"],
                     "fitness.opponents[0].spec", "w.npy", unwritten=(out,))


def test_evolve_into_an_existing_directory_or_file_writes_nothing(tmp_path: Path) -> None:
    config = tmp_path / "exp.toml"
    config.write_text(cases.VALID_TOMLS[0])
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    (tmp_path / "file").write_text("mine")
    for out in (tmp_path / "full", tmp_path / "file"):
        before = snapshot(tmp_path)
        assert_bad_input(["evolve", str(config), "--out", str(out), "--quiet", "--no-plots"], "already exists")
        assert snapshot(tmp_path) == before


# ---------------------------------------------------------------- the command line: weights and specs

bad_weight_files = st.one_of(
    st.sampled_from(cases.BAD_WEIGHT_FILES).map(lambda case: (case[0], case[1])),
    st.sampled_from(list(cases.WEIGHT_FORMATS.items())).flatmap(
        lambda item: st.tuples(st.just(item[1]), mutated_bytes(valid_weights_file(item[0], 1)))
    ),
)


def write_bad_weights(scratch: Path, suffix: str, content: bytes) -> Path | None:
    """Writes the file and returns it if load_weights rejects it (None if the mutation left it valid)."""
    path = scratch / f"w{suffix}"
    path.write_bytes(content)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return path if isinstance(expect_only(WeightsError, load_weights, path), WeightsError) else None


@settings(max_examples=25, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(case=bad_weight_files, as_opponent=st.booleans())
def test_evaluate_with_a_bad_weights_file_writes_nothing(
    scratch: Path, case: tuple[str, bytes], as_opponent: bool
) -> None:
    path = write_bad_weights(scratch, *case)
    assume(path is not None)
    assert path is not None
    out = scratch / "evaluate.csv"
    before = {p.name for p in scratch.iterdir()}
    player, opponent = ("random", f"wpc:1@{path}") if as_opponent else (str(path), "random")
    assert_bad_input(["evaluate", player, "--vs", opponent, "--games", "2", "--csv", str(out)], path.name,
                     unwritten=(out,))
    assert not leftovers(scratch, before)


@settings(max_examples=25, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(case=bad_weight_files, fmt=st.sampled_from(["csv", "json", "npy", "markdown", "c", "python"]))
def test_export_of_a_bad_weights_file_writes_nothing(scratch: Path, case: tuple[str, bytes], fmt: str) -> None:
    path = write_bad_weights(scratch, *case)
    assume(path is not None)
    assert path is not None
    out = scratch / f"exported.{ {'markdown': 'md', 'python': 'py'}.get(fmt, fmt) }"
    before = {p.name for p in scratch.iterdir()}
    assert_bad_input(["export", str(path), "--format", fmt, "-o", str(out)], path.name, unwritten=(out,))
    assert not leftovers(scratch, before)


@settings(max_examples=40)
@given(text=specs)
def test_evaluate_and_play_with_a_bad_spec(scratch: Path, text: str) -> None:
    error = expect_only(ValueError, build_player, text, load_weights=load_weights)
    assume(isinstance(error, ValueError))
    out = scratch / "spec.csv"
    assert_bad_input(["evaluate", "wpc:1@heuristic", "--vs", text, "--games", "2", "--csv", str(out)],
                     unwritten=(out,))
    assert_bad_input(["play", text])
    assert_bad_input(["evaluate", text, "--vs", "random", "--games", "2", "--csv", str(out)], unwritten=(out,))


@pytest.mark.parametrize(("options", "fragment"), cases.BAD_EXPORT_OPTIONS, ids=lambda v: repr(v)[:40])
def test_export_with_a_bad_option(tmp_path: Path, options: list[str], fragment: str) -> None:
    out = tmp_path / "out.txt"
    arguments = ["export", "heuristic", *options] + (["-o", str(out)] if "npy" not in options else [])
    assert_bad_input(arguments, fragment, unwritten=(out,))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("source", cases.BAD_SOURCES, ids=repr)
def test_export_and_evaluate_of_a_bad_source(tmp_path: Path, source: str) -> None:
    (tmp_path / "dir.csv").mkdir()
    source = source.format(tmp=tmp_path)
    before = snapshot(tmp_path)
    assert_bad_input(["export", source, "--format", "csv", "-o", str(tmp_path / "out.csv")])
    assert_bad_input(["evaluate", source, "--vs", "random", "--games", "2", "--csv", str(tmp_path / "e.csv")])
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    "argv", [pytest.param(argv, id=" ".join(argv)) for argv in cases.USAGE_ERRORS],
)
def test_usage_error_is_one_line(tmp_path: Path, argv: list[str]) -> None:
    assert_bad_input([part.format(tmp=tmp_path) for part in argv])
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- the command line: run directories


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real two-generation run (under a second) that the fault tests damage copies of."""
    root = tmp_path_factory.mktemp("run")
    config = root / "tiny.toml"
    config.write_text(cases.VALID_TOMLS[0])
    code, _, lines = run_cli(["evolve", str(config), "--out", str(root / "run"), "--quiet", "--no-plots"])
    assert code == 0, lines
    return root / "run"


def damaged_copy(finished_run: Path, tmp_path: Path, name: str, content: bytes | None) -> Path:
    run_dir = tmp_path / "run"
    shutil.copytree(finished_run, run_dir)
    if content is None:
        (run_dir / name).unlink()
    else:
        (run_dir / name).write_bytes(content)
    return run_dir


@pytest.mark.parametrize(
    ("name", "content"),
    [pytest.param(*case, id=f"{case[0]}={case[1]!r}") for case in cases.RUN_DIR_FAULTS],
)
@pytest.mark.parametrize("extend", [False, True], ids=["resume", "resume-extend"])
def test_resume_of_a_damaged_run_writes_nothing(
    finished_run: Path, tmp_path: Path, name: str, content: bytes | None, extend: bool
) -> None:
    tried("run-dir faults")
    run_dir = damaged_copy(finished_run, tmp_path, name, content)
    before = snapshot(run_dir)
    extra = ["--generations", "3"] if extend else []
    assert_bad_input(["resume", str(run_dir), "--quiet", "--no-plots", *extra])
    assert snapshot(run_dir) == before


@pytest.mark.parametrize(
    ("field", "value"),
    [pytest.param(*case, id=f"{case[0]}={case[1]!r:.30}")
     for case in cases.CHECKPOINT_FIELD_FAULTS],
)
def test_resume_with_a_damaged_checkpoint_field_writes_nothing(
    finished_run: Path, tmp_path: Path, field: str, value: Any
) -> None:
    tried("run-dir faults")
    checkpoint = json.loads((finished_run / "checkpoint.json").read_text())
    checkpoint[field] = value
    run_dir = damaged_copy(finished_run, tmp_path, "checkpoint.json", json.dumps(checkpoint).encode())
    before = snapshot(run_dir)
    assert_bad_input(["resume", str(run_dir), "--quiet", "--no-plots", "--generations", "3"])
    assert snapshot(run_dir) == before


@pytest.mark.parametrize(("field", "change", "fragment"), [
    ("population", lambda a: np.full_like(a, 1e308), "'population' holds a weight beyond +-10000"),
    ("population", lambda a: np.where(np.arange(a.size).reshape(a.shape) == 5, np.nan, a), "'population' must hold finite"),
    ("hall_of_fame", lambda a: np.full_like(a, np.inf), "'hall_of_fame' must hold finite"),
    ("champions", lambda a: np.ones((2, 3)), "champions"),
    ("fitness", lambda v: [float("nan")] * len(v), "'fitness' must list one value per individual"),
    # Values a resume would write on into the manifest and generations.csv, which show and plot then refuse:
    ("games_played", lambda v: 2**63 - 1000, "'games_played' must be an integer in 0..1e+15"),
    ("elapsed_s", lambda v: 1e300, "'elapsed_s' must be a number of seconds in 0..1e+09"),
    ("fitness", lambda v: [1e308] * len(v), "'fitness' must list one value per individual (8), each a fitness in"),
    ("hall_of_fame_fitness", lambda v: [-65.0] * len(v), "'hall_of_fame_fitness' must list"),
    ("born", lambda v: [5] * len(v), "'born' must list one value per individual (8), each a generation in 0..1"),
    ("champions", lambda a: np.zeros((11, 64)), "'champions' holds 11 tables, but this run keeps 10"),
    ("generation", lambda v: 10**16, "'generation' must be an integer in 0..1e+15"),
    ("csv_bytes", lambda v: v | {"generations.csv": 2**40}, "'csv_bytes' must map the run's CSV files"),
    ("settings", lambda v: {}, "'settings' must record the config keys"),
    ("tables", lambda v: {"w.csv": "not a digest"}, "'tables' must map weights files"),
], ids=["population 1e308", "population NaN", "hall of fame inf", "champions 2x3", "fitness NaN", "games 2**63",
        "elapsed 1e300", "fitness 1e308", "hall of fame fitness -65", "born later", "11 champions",
        "generation 1e16", "csv 1 TiB", "no settings", "tables not digests"])
def test_a_checkpoint_with_a_valid_checksum_and_bad_values_is_named(
    finished_run: Path, tmp_path: Path, field: str, change: Callable[[Any], Any], fragment: str
) -> None:
    # Signed again after the change, as a program writing checkpoints by mistake would: the values are checked too.
    tried("run-dir faults")
    from ga.rundir.checkpoint import _checksum, _decode_array, _encode_array

    data = json.loads((finished_run / "checkpoint.json").read_text())
    data.pop("sha256")
    data[field] = _encode_array(change(_decode_array(data[field]))) if field in ("population", "hall_of_fame",
                                                                                 "champions") else change(data[field])
    data["sha256"] = _checksum(data)
    run_dir = damaged_copy(finished_run, tmp_path, "checkpoint.json", json.dumps(data, separators=(",", ":")).encode())
    before = snapshot(run_dir)
    line = assert_bad_input(["resume", str(run_dir), "--quiet", "--no-plots", "--generations", "3"], fragment)
    assert "checkpoint.json" in line
    assert snapshot(run_dir) == before


@settings(max_examples=20, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["manifest.json", "generations.csv", "best_weights.csv", "config.toml"]),
       content=st.binary(max_size=64))
def test_show_and_plot_of_a_damaged_run_do_not_crash(
    finished_run: Path, scratch: Path, name: str, content: bytes
) -> None:
    tried("run-dir faults")
    run_dir = scratch / "damaged-run"
    shutil.rmtree(run_dir, ignore_errors=True)
    shutil.copytree(finished_run, run_dir)
    (run_dir / name).write_bytes(content)
    code, _, lines = run_cli(["show", str(run_dir)])
    tried("cli")
    assert code in (0, EXIT_BAD_INPUT), lines
    assert code == 0 or len(lines) == 1 and ERROR_LINE.fullmatch(lines[0]), lines


def edited_cell(text: str, column: str, value: Any) -> str:
    """Returns CSV text with the first data row's ``column`` set to ``value``."""
    lines = text.splitlines()
    header = lines[0].split(",")
    row = lines[1].split(",")
    row[header.index(column)] = str(value)
    lines[1] = ",".join(row)
    return "\n".join(lines) + "\n"


def edited_row(text: str, line: int, how: str) -> str:
    """Returns CSV text with one line (1 is the header) given a field too many or cut to half its fields."""
    lines = text.splitlines()
    fields = lines[line - 1].split(",")
    lines[line - 1] = ",".join(fields + ["7"] if how == "a field too many" else fields[: len(fields) // 2])
    return "\n".join(lines) + "\n"


def assert_each_command_names(run_dir: Path, commands: tuple[str, ...], fragment: str, file_name: str) -> None:
    before = snapshot(run_dir)
    for command in commands:
        extra = ["--generations", "3", "--quiet", "--no-plots"] if command == "resume" else []
        line = assert_bad_input([command, str(run_dir), *extra], fragment)
        assert file_name in line, line
        assert snapshot(run_dir) == before, f"{command} wrote into the damaged run"


def with_value(path: Path, field: str, value: Any) -> bytes:
    """Returns a run file's bytes with one JSON field, or the first row's CSV cell, set to ``value``."""
    if path.suffix == ".json":
        return json.dumps(json.loads(path.read_text()) | {field: value}).encode()
    return edited_cell(path.read_text(), field, value).encode()


# Each case: (file, how to damage its bytes, commands that read it, fragment of the error line).
EDITED_RUN_FILES = [
    pytest.param(name, lambda path, f=field, v=value: with_value(path, f, v), commands, fragment,
                 id=f"{name}:{field}={value!r:.20}")
    for name, field, value, commands, fragment in cases.RUN_VALUE_FAULTS
] + [
    pytest.param(name, lambda path, n=line, h=how: edited_row(path.read_text(), n, h).encode(), commands, fragment,
                 id=f"{name}:{line} {how}")
    for name, line, how, commands, fragment in cases.RUN_ROW_FAULTS
]


@pytest.mark.parametrize(("name", "damage", "commands", "fragment"), EDITED_RUN_FILES)
def test_a_value_out_of_range_or_a_row_of_the_wrong_length_in_a_run_file_is_named(
    finished_run: Path, tmp_path: Path, name: str, damage: Callable[[Path], bytes], commands: tuple[str, ...],
    fragment: str,
) -> None:
    tried("run-dir faults")
    run_dir = damaged_copy(finished_run, tmp_path, name, damage(finished_run / name))
    assert_each_command_names(run_dir, commands, fragment, name)


@pytest.mark.parametrize(("name", "content", "commands", "fragment"), cases.RUN_FILE_FAULTS,
                         ids=[f"{c[0]}={c[1][:8]!r}" for c in cases.RUN_FILE_FAULTS])
def test_a_damaged_run_file_is_named(
    finished_run: Path, tmp_path: Path, name: str, content: bytes, commands: tuple[str, ...], fragment: str
) -> None:
    tried("run-dir faults")
    run_dir = damaged_copy(finished_run, tmp_path, name, content)
    assert_each_command_names(run_dir, commands, fragment, name)


RUN_FILES = ("config.toml", "manifest.json", "checkpoint.json", "generations.csv", "games.csv",
             "best_weights.csv", "mean_weights.csv", ".lock")


@st.composite
def damage(draw: st.DrawFn, original: bytes) -> bytes | str:
    """Random damage to a file's bytes, or "link", "hard link" or "fifo" for such a file in its place."""
    kind = draw(st.sampled_from(["link", "hard link", "fifo", "truncated", "flipped", "replaced", "spliced"]))
    if kind in ("link", "hard link", "fifo"):
        return kind
    if kind == "truncated":
        return original[: draw(st.integers(0, max(0, len(original) - 1)))]
    if kind == "flipped" and original:
        at = draw(st.integers(0, len(original) - 1))
        return original[:at] + bytes([original[at] ^ draw(st.integers(1, 255))]) + original[at + 1:]
    if kind == "spliced" and original:
        at = draw(st.integers(0, len(original)))
        return original[:at] + draw(st.sampled_from(cases.MUTATION_TOKENS)).encode() + original[at:]
    return draw(st.binary(max_size=64))


@pytest.mark.timeout(300)
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), name=st.sampled_from(RUN_FILES), command=st.sampled_from(["show", "plot", "resume"]))
def test_any_damage_to_one_run_file_gives_a_result_or_one_line_and_nothing_written_outside(
    finished_run: Path, scratch: Path, data: st.DataObject, name: str, command: str
) -> None:
    tried("run-dir faults")
    root = scratch / "damage"
    shutil.rmtree(root, ignore_errors=True)
    run_dir = root / "run"
    shutil.copytree(finished_run, run_dir)
    outside = root / "outside"
    outside.write_bytes(b"a file outside the run\n")
    change = data.draw(damage((run_dir / name).read_bytes()))
    (run_dir / name).unlink()
    if change == "link":
        (run_dir / name).symlink_to(outside)
    elif change == "hard link":
        os.link(outside, run_dir / name)
    elif change == "fifo":
        os.mkfifo(run_dir / name)  # no writer ever comes: a reader that opened it would wait for ever
    else:
        (run_dir / name).write_bytes(change)
    extra = ["--generations", "3", "--quiet", "--no-plots"] if command == "resume" else []
    code, _, lines = run_cli([command, str(run_dir), *extra])
    assert code in (0, EXIT_BAD_INPUT), lines
    assert code == 0 or (len(lines) == 1 and ERROR_LINE.fullmatch(lines[0])), lines
    assert outside.read_bytes() == b"a file outside the run\n" and not outside.is_symlink()
    assert sorted(path.name for path in root.iterdir()) == ["outside", "run"]
    if change in ("link", "hard link", "fifo") and command == "resume":
        assert code == EXIT_BAD_INPUT and name in lines[0], lines  # never writes where a link is


@pytest.mark.parametrize("command", ["show", "plot", "resume"])
@pytest.mark.parametrize("what", ["missing", "empty directory", "a file", "not a run"])
def test_run_commands_on_something_that_is_not_a_run(tmp_path: Path, command: str, what: str) -> None:
    target = tmp_path / "target"
    if what == "empty directory":
        target.mkdir()
    elif what == "a file":
        target.write_text("1,2,3\n")
    elif what == "not a run":
        target.mkdir()
        (target / "notes.txt").write_text("hello")
    before = snapshot(tmp_path)
    assert_bad_input([command, str(target)])
    assert snapshot(tmp_path) == before


# ---------------------------------------------------------------- end to end, in a real process


@pytest.mark.parametrize(("name", "files", "argv", "fragment"), cases.END_TO_END, ids=[c[0] for c in cases.END_TO_END])
def test_end_to_end_bad_input(tmp_path: Path, name: str, files: dict[str, bytes], argv: list[str],
                              fragment: str) -> None:
    tried("cli")
    for file_name, content in files.items():
        (tmp_path / file_name).write_bytes(content)
    before = snapshot(tmp_path)
    environment = {key: value for key, value in os.environ.items() if key != "OTHELLO_GA_DEBUG"}
    completed = subprocess.run(
        [sys.executable, "-m", "ga.cli", *[part.format(tmp=tmp_path) for part in argv]],
        cwd=ROOT, env=environment, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )
    lines = completed.stderr.splitlines()
    assert completed.returncode == EXIT_BAD_INPUT, completed.stderr
    assert "Traceback" not in completed.stderr
    assert len(lines) == 1 and ERROR_LINE.fullmatch(lines[0]), completed.stderr
    assert fragment in lines[0]
    assert snapshot(tmp_path) == before


def test_the_registry_has_every_category() -> None:
    assert set(cases.CATEGORIES) >= {"configs", "weights", "positions", "specs", "cli"}


@pytest.mark.parametrize("link", [False, True])
def test_a_config_that_is_a_fifo_is_named_as_not_a_regular_file(tmp_path: Path, link: bool,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    tried("cli")
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    target = fifo
    if link:
        target = tmp_path / "link.toml"
        target.symlink_to(fifo)
    assert main(["evolve", str(target), "--out", str(tmp_path / "run"), "--quiet", "--no-plots"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a regular file" in err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("redirect", "fragment"), [
    ("<&-", "standard input is closed"),
    (">&-", "standard output is closed"),
])
def test_play_with_a_closed_terminal_stream_says_which(tmp_path: Path, redirect: str, fragment: str) -> None:
    tried("cli")
    environment = {key: value for key, value in os.environ.items() if key != "OTHELLO_GA_DEBUG"}
    completed = subprocess.run(
        ["bash", "-c", f'echo d3 | "{sys.executable}" -m ga.cli play --seed 1 {redirect}'],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60,
    )
    assert completed.returncode == EXIT_BAD_INPUT, completed.stderr
    lines = completed.stderr.splitlines()
    assert len(lines) == 1 and ERROR_LINE.fullmatch(lines[0]) and fragment in lines[0], completed.stderr


@pytest.mark.parametrize(("argv", "named"), [
    (["export", "heuristic", "--format", "csv", "-o", "{tmp}/table.csv"], "'{tmp}/table.csv': File too large"),
    (["evaluate", "heuristic", "--vs", "random", "--games", "4", "--csv", "{tmp}/games.csv"],
     "'{tmp}/games.csv': File too large"),
    (["evolve", str(ROOT / "experiments" / "quick.toml"), "--out", "{tmp}/run", "--quiet"],
     "'{tmp}/run/.lock': File too large"),
])
def test_a_file_size_limit_names_the_file(tmp_path: Path, argv: list[str], named: str) -> None:
    tried("cli")
    command = " ".join(f"'{part.format(tmp=tmp_path)}'" for part in argv)
    environment = {key: value for key, value in os.environ.items() if key != "OTHELLO_GA_DEBUG"}
    completed = subprocess.run(["bash", "-c", f'ulimit -f 0; exec "{sys.executable}" -m ga.cli {command}'],
                               cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60)
    assert completed.returncode == EXIT_BAD_INPUT, completed.stderr
    lines = completed.stderr.splitlines()
    assert len(lines) == 1 and ERROR_LINE.fullmatch(lines[0]), completed.stderr
    assert named.format(tmp=tmp_path) in lines[0]
    assert not [path for path in tmp_path.rglob("*") if path.is_file() and path.stat().st_size]


def test_a_config_with_a_utf8_byte_order_mark_is_read_as_without(tmp_path: Path) -> None:
    tried("configs")
    plain, marked = tmp_path / "plain.toml", tmp_path / "marked.toml"
    plain.write_text(cases.TINY_TOML, encoding="utf-8")
    marked.write_bytes(b"\xef\xbb\xbf" + cases.TINY_TOML.encode("utf-8"))  # as Windows editors save it
    assert load_config(marked) == load_config(plain)


# ---------------------------------------------------------------- what stands in a run file's place


@pytest.fixture(scope="module")
def refined_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real refined run (two generations, one restart, one CMA-ES generation) to damage copies of."""
    root = tmp_path_factory.mktemp("refined")
    config = root / "refined.toml"
    config.write_text(cases.REFINED_TOML)
    code, _, lines = run_cli(["evolve", str(config), "--out", str(root / "run"), "--quiet", "--no-plots"])
    assert code == 0, lines
    return root / "run"


def reader_argv(command: str, run_dir: Path, tmp_path: Path) -> list[str]:
    return [part.format(run=run_dir, tmp=tmp_path) for part in cases.READERS[command]]


def special_file_cases(read_back: tuple[tuple[str, tuple[str, ...]], ...]) -> list[Any]:
    return [pytest.param(name, command, id=f"{name} {command}") for name, commands in read_back for command in commands]


def assert_fifo_is_refused(source: Path, tmp_path: Path, name: str, command: str) -> None:
    """A FIFO in place of ``name`` in a copy of ``source``: ``command`` gives one line naming it, without opening it
    for reading (no writer ever comes: a reader that opened it would wait for ever) and without writing."""
    tried("run-dir faults")
    run_dir = tmp_path / "run"
    shutil.copytree(source, run_dir)
    (run_dir / name).unlink()
    os.mkfifo(run_dir / name)
    scratch_dir = tmp_path / "scratch"
    scratch_dir.mkdir()
    before = snapshot(tmp_path)
    line = assert_bad_input(reader_argv(command, run_dir, scratch_dir), "is not a regular file (a FIFO)")
    assert str(run_dir / name) in line, line
    assert snapshot(tmp_path) == before


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("name", "command"), special_file_cases(cases.READ_BACK))
def test_a_fifo_in_place_of_a_run_file_is_named_not_waited_on(finished_run: Path, tmp_path: Path, name: str,
                                                               command: str) -> None:
    assert_fifo_is_refused(finished_run, tmp_path, name, command)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("name", "command"), special_file_cases(cases.REFINED_READ_BACK))
def test_a_fifo_in_place_of_a_refined_run_file_is_named_before_anything_is_written(
    refined_run: Path, tmp_path: Path, name: str, command: str
) -> None:
    # resume --generations extends the GA, then runs the restart and the refinement again: every file they read
    # back is read and checked first (a FIFO for restarts/1/manifest.json used to hang after the GA's table was
    # written and the status set to refining).
    assert_fifo_is_refused(refined_run, tmp_path, name, command)


@pytest.mark.parametrize(("name", "command"), [("config.toml", "show"), ("manifest.json", "show"),
                                               ("manifest.json", "resume"), ("best_weights.csv", "export")])
def test_a_run_file_larger_than_such_a_file_holds_is_refused_unread(finished_run: Path, tmp_path: Path, name: str,
                                                                    command: str) -> None:
    tried("run-dir faults")
    run_dir = tmp_path / "run"
    shutil.copytree(finished_run, run_dir)
    os.truncate(run_dir / name, 16 * 2**20 + 1)  # sparse: its size is all that is looked at
    line = assert_bad_input(reader_argv(command, run_dir, tmp_path), "is 16.0 MiB, more than such a file holds")
    assert name in line


# ---------------------------------------------------------------- links out of a run directory


@pytest.mark.parametrize("name", cases.WRITTEN_FILES)
def test_resume_refuses_a_hard_link_where_it_writes(finished_run: Path, tmp_path: Path, name: str) -> None:
    # A hard link is a second name of a file elsewhere: an append, a truncation or the lock's PID would land there.
    tried("run-dir faults")
    run_dir = tmp_path / "run"
    shutil.copytree(finished_run, run_dir)
    outside = tmp_path / "outside.txt"
    outside.write_bytes((run_dir / name).read_bytes() + b"and more, which a truncation would cut\n")
    (run_dir / name).unlink()
    os.link(outside, run_dir / name)
    before = snapshot(tmp_path)
    assert_bad_input(["resume", str(run_dir), "--generations", "3", "--quiet", "--no-plots"], f"'{run_dir / name}'",
                     "is a hard link")
    assert snapshot(tmp_path) == before


def test_evolve_refuses_a_lock_file_that_is_a_hard_link(tmp_path: Path) -> None:
    tried("run-dir faults")
    config = tmp_path / "tiny.toml"
    config.write_text(cases.TINY_TOML)
    outside = tmp_path / "v.txt"
    outside.write_text("a file of the user's\n")
    (tmp_path / "run").mkdir()
    os.link(outside, tmp_path / "run" / ".lock")
    before = snapshot(tmp_path)
    assert_bad_input(["evolve", str(config), "--out", str(tmp_path / "run"), "--quiet", "--no-plots"],
                     ".lock' is a hard link")
    assert snapshot(tmp_path) == before


def test_plot_refuses_a_figure_that_is_a_hard_link(finished_run: Path, tmp_path: Path) -> None:
    tried("run-dir faults")
    run_dir = tmp_path / "run"
    shutil.copytree(finished_run, run_dir)
    (run_dir / "plots").mkdir()
    outside = tmp_path / "mine.png"
    outside.write_bytes(b"a picture of the user's")
    os.link(outside, run_dir / "plots" / "win_rate.png")
    before = snapshot(tmp_path)
    assert_bad_input(["plot", str(run_dir)], "win_rate.png' is a hard link")
    assert snapshot(tmp_path) == before


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", ["evolve", "resume", "show"])
def test_a_lock_file_that_is_a_fifo_is_named(finished_run: Path, tmp_path: Path, command: str) -> None:
    tried("run-dir faults")
    config = tmp_path / "tiny.toml"
    config.write_text(cases.TINY_TOML)
    run_dir = tmp_path / "run"
    if command == "evolve":
        run_dir.mkdir()
    else:
        shutil.copytree(finished_run, run_dir)
        (run_dir / ".lock").unlink()
    os.mkfifo(run_dir / ".lock")
    before = snapshot(tmp_path)
    if command == "show":  # a reader asks the lock who writes the run: nobody, as it is no lock file
        code, out, lines = run_cli(["show", str(run_dir)])
        assert code == 0 and "live" not in out, lines
    else:
        argv = ["evolve", str(config), "--out", str(run_dir)] if command == "evolve" else ["resume", str(run_dir)]
        assert_bad_input([*argv, "--quiet", "--no-plots"], ".lock' is not a regular file (a FIFO)")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(("extra", "fragment"), cases.BIG_PLANS, ids=[f[1][12:40] for f in cases.BIG_PLANS])
def test_every_stage_of_a_plan_is_checked_before_anything_is_written(tmp_path: Path, extra: str,
                                                                     fragment: str) -> None:
    # The final tournament, the restarts and the refinement plan their games as the GA does: one that cannot fit
    # (in memory, or in what a run counts) is refused before the run directory is made.
    base = "[population]\nsize = 32\nparents = 16\n[fitness]\nopponents = [\"random\"]\n"
    config = tmp_path / "big.toml"
    config.write_text(base + extra)
    out = tmp_path / "run"
    assert_bad_input(["evolve", str(config), "--out", str(out), "--quiet", "--no-plots"], fragment, unwritten=(out,))


# ---------------------------------------------------------------- outputs: exactly what was asked, checked first


def run_process(argv: list[str], cwd: Path, **options: Any) -> subprocess.CompletedProcess[bytes]:
    """Runs ``python -m ga.cli`` in a real process (a closed or full standard output is only real there)."""
    environment = {key: value for key, value in os.environ.items() if key != "OTHELLO_GA_DEBUG"}
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE} | options
    return subprocess.run([sys.executable, "-m", "ga.cli", *argv], cwd=cwd, env=environment, timeout=120, **streams)


def no_room_to_write() -> None:
    """In a child process before it runs: every write that would grow a file fails (EFBIG, "File too large"), as
    on a full disk, without a device node or a real full disk."""
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails instead of the signal ending the process
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))


@contextlib.contextmanager
def full_fifo(path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Makes ``path`` a FIFO with a reader whose every write fails with "No space left on device", as a full
    device would (the output policy opens non-regular files and writes into them at once)."""
    import errno

    import ga.files

    os.mkfifo(path)
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    opened: list[int] = []
    real_open_into, real_write = ga.files._open_into, os.write

    def open_into(*args: Any) -> int:
        opened.append(real_open_into(*args))
        return opened[-1]

    def write(fd: int, data: Any) -> int:
        if fd in opened:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(ga.files, "_open_into", open_into)
    monkeypatch.setattr(os, "write", write)
    try:
        yield
    finally:
        os.close(reader)


@pytest.mark.parametrize("fmt", ["json", "csv", "c"])
def test_export_to_dash_writes_the_table_alone_to_standard_output(fmt: str) -> None:
    tried("cli")
    code, out, lines = run_cli(["export", "lr06", "--format", fmt, "-o", "-"])
    assert code == 0 and lines == [], lines  # no "wrote" line, no warning about a suffix
    text = out if fmt != "json" else json.dumps(json.loads(out)["weights"])  # one JSON document, nothing after
    assert np.array_equal(parse_weights(text, "json" if fmt == "json" else fmt), load_weights_named("lr06"))


def load_weights_named(name: str) -> np.ndarray:
    from engine import TABLES

    return np.array(TABLES[name], dtype=np.float64)


@pytest.mark.parametrize(("argv", "written", "magic"), [
    (["-o", "x.PNG"], "x.PNG", b"\x89PNG"),
    (["-o", "x.txt", "--format", "svg"], "x.txt", b"<?xml"),
    (["-o", "plain"], "plain", b"\x89PNG"),
    (["-o", "x.pdf"], "x.pdf", b"%PDF"),
], ids=["upper-case suffix", "a suffix of no image, with --format", "no suffix", "pdf"])
def test_compare_writes_exactly_the_path_given(finished_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               argv: list[str], written: str, magic: bytes) -> None:
    tried("cli")
    monkeypatch.chdir(tmp_path)
    code, out, lines = run_cli(["compare", str(finished_run), *argv])
    assert code == 0, lines
    assert sorted(path.name for path in tmp_path.iterdir()) == [written]
    assert (tmp_path / written).read_bytes().startswith(magic)
    assert out.strip() == written


def test_compare_refuses_a_suffix_that_names_another_format(finished_run: Path, tmp_path: Path) -> None:
    assert_bad_input(["compare", str(finished_run), "-o", str(tmp_path / "x.png"), "--format", "svg"],
                     "x.png' has suffix .png", unwritten=(tmp_path / "x.png", tmp_path / "x.svg"))


def test_compare_to_dash_writes_the_image_to_standard_output(finished_run: Path, tmp_path: Path) -> None:
    tried("cli")
    completed = run_process(["compare", str(finished_run), "-o", "-"], tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith(b"\x89PNG") and completed.stderr == b""
    assert list(tmp_path.iterdir()) == []  # no ./-.png


@pytest.mark.timeout(60)
def test_compare_writes_into_a_fifo_not_beside_it(finished_run: Path, tmp_path: Path) -> None:
    tried("cli")
    fifo = tmp_path / "node"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the reader is there first
    received = bytearray()
    try:
        code, _, lines = run_cli(["compare", str(finished_run), "-o", str(fifo)])
        while chunk := os.read(reader, 1 << 16):
            received += chunk
    finally:
        os.close(reader)
    assert code == 0, lines
    assert bytes(received).startswith(b"\x89PNG") and fifo.is_fifo()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["node"]  # no node.png


def test_an_output_that_is_a_socket_is_named_as_one(tmp_path: Path) -> None:
    import socket

    where = tmp_path / "s"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(where))
        assert_bad_input(["export", "lr06", "--format", "csv", "-o", str(where)], "is a socket")
    finally:
        server.close()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("target", ["fifo", "full device"])
def test_evaluate_checks_its_csv_output_before_playing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       target: str) -> None:
    path = tmp_path / "out.csv"

    def never(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the games were played before the output was checked")

    monkeypatch.setattr(sys.modules["ga.cli.evaluate"], "evaluate_player", never)
    argv = ["evaluate", "lr06", "--vs", "random", "--games", "1000", "--csv", str(path)]
    if target == "fifo":
        os.mkfifo(path)  # nobody reads it
        assert_bad_input(argv, "is a FIFO that nobody reads", f"'{path}'")
    else:
        with full_fifo(path, monkeypatch):
            assert_bad_input(argv, "No space left on device", f"'{path}'")


def test_a_full_standard_output_is_named(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    tried("cli")

    class Full(io.BytesIO):
        def write(self, data: Any) -> int:
            raise OSError(28, "No space left on device")

    stream = io.TextIOWrapper(Full())
    monkeypatch.setattr("sys.stdout", stream)
    assert main(["export", "lr06", "--format", "csv"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err == "othello-ga: error: cannot write to standard output: No space left on device\n", err


def test_export_to_a_full_disk_as_standard_output_is_named(tmp_path: Path) -> None:
    tried("cli")
    with open(tmp_path / "full", "wb") as full:
        completed = run_process(["export", "lr06", "--format", "csv"], tmp_path, stdout=full,
                                preexec_fn=no_room_to_write)
    lines = completed.stderr.decode().splitlines()
    assert completed.returncode == EXIT_BAD_INPUT and len(lines) == 1, lines
    assert "cannot write to standard output: File too large" in lines[0]
    assert (tmp_path / "full").stat().st_size == 0


@pytest.mark.parametrize(("command", "use"), [
    (["evaluate", "lr06", "--vs", "random", "--games", "200000"], "evaluate prints its results there"),
    (["show", "{run}"], "show prints the summary there"),
    (["export", "lr06", "--format", "csv"], "(-o FILE)"),
], ids=["evaluate", "show", "export"])
def test_a_closed_standard_output_is_named_before_any_work(finished_run: Path, tmp_path: Path, command: list[str],
                                                           use: str) -> None:
    tried("cli")
    argv = " ".join(f"'{part.format(run=finished_run)}'" for part in command)
    environment = {key: value for key, value in os.environ.items() if key != "OTHELLO_GA_DEBUG"}
    completed = subprocess.run(["bash", "-c", f'"{sys.executable}" -m ga.cli {argv} >&-'], cwd=ROOT,
                               env=environment, capture_output=True, text=True, timeout=60)
    lines = completed.stderr.splitlines()
    assert completed.returncode == EXIT_BAD_INPUT and len(lines) == 1, completed.stderr
    assert "standard output is closed" in lines[0] and use in lines[0], lines
    assert command[0] != "show" or "-o FILE" not in lines[0]  # show has no -o


@pytest.mark.parametrize("command", [
    ["evaluate", "lr06", "--vs", "random", "--games", "10"], ["play", "--seed", "1"],
    ["export", "lr06", "--format", "csv"], ["show", "{run}"],
], ids=lambda argv: argv[0])
def test_a_reader_that_goes_away_ends_the_command_quietly(finished_run: Path, tmp_path: Path,
                                                          command: list[str]) -> None:
    # As `yes | head` does: no "Broken pipe" message, and the status of a tool its reader left (128 + SIGPIPE).
    tried("cli")
    environment = {key: value for key, value in os.environ.items() if key != "OTHELLO_GA_DEBUG"}
    process = subprocess.Popen([sys.executable, "-m", "ga.cli", *[p.format(run=finished_run) for p in command]],
                               cwd=ROOT, env=environment, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    process.stdout.close()  # the reader is gone before the command writes
    _, err = process.communicate(b"d3\nf4\n", timeout=120)
    assert process.returncode == 141 and err == b"", err


def with_generation(text: str, line: int, generation: int) -> str:
    """Returns CSV text whose ``line`` (1 is the header; -1 the last) says ``generation`` in its first column."""
    lines = text.splitlines()
    fields = lines[line if line < 0 else line - 1].split(",")
    lines[line if line < 0 else line - 1] = ",".join([str(generation), *fields[1:]])
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("name", "line", "generation", "commands", "fragment"), cases.RUN_ORDER_FAULTS,
                         ids=[f"{c[0]}:{c[1]}={c[2]}" for c in cases.RUN_ORDER_FAULTS])
def test_rows_out_of_generation_order_are_named(finished_run: Path, refined_run: Path, tmp_path: Path, name: str,
                                                line: int, generation: int, commands: tuple[str, ...],
                                                fragment: str) -> None:
    # A row edited to repeat a generation (0 1 0 ...) made resume continue and show report the wrong best.
    tried("run-dir faults")
    source = refined_run if name == "refine.csv" else finished_run
    run_dir = damaged_copy(source, tmp_path, name, with_generation((source / name).read_text(), line,
                                                                   generation).encode())
    assert_each_command_names(run_dir, commands, fragment, name)


def test_a_checkpoint_made_to_look_older_is_refused(finished_run: Path, tmp_path: Path) -> None:
    # Format 1 (of earlier versions) had no checksum and no settings: one that says so skipped both checks, and
    # an edited config.toml resumed with mixed settings. A run that wrote format 2 records it in its manifest.
    tried("run-dir faults")
    data = json.loads((finished_run / "checkpoint.json").read_text())
    for field in ("sha256", "settings", "tables"):
        data.pop(field)
    data["format"] = 1
    run_dir = damaged_copy(finished_run, tmp_path, "checkpoint.json", json.dumps(data).encode())
    config = run_dir / "config.toml"
    config.write_text(config.read_text().replace("sigma = 0.1", "sigma = 0.3"))
    before = snapshot(run_dir)
    assert_bad_input(["resume", str(run_dir), "--generations", "3", "--quiet", "--no-plots"],
                     "is in the format of earlier versions (1", "but this run writes format 2")
    assert snapshot(run_dir) == before


@pytest.mark.parametrize("table_of", ["fitness", "refine"])
def test_resume_refuses_a_weights_file_that_changed_since_the_run_played_it(tmp_path: Path, table_of: str) -> None:
    # An opponent's (or the refinement panel's) table replaced between the stop and the resume: the resumed run
    # would differ from an uninterrupted one from its next generation on.
    from engine import TABLES

    tried("run-dir faults")
    table = tmp_path / "opp.csv"
    table.write_text(format_weights(TABLES["classic"], "csv"))
    text = cases.REFINED_TOML if table_of == "refine" else cases.TINY_TOML
    if table_of == "refine":
        text = text.replace("weight_opponents = 0.0", 'opponents = ["wpc:1@opp.csv"]')
    else:
        text = text.replace('opponents = ["random"]', 'opponents = ["random", "wpc:1@opp.csv"]')
    config = tmp_path / "exp.toml"
    config.write_text(text)
    run_dir = tmp_path / "run"
    assert run_cli(["evolve", str(config), "--out", str(run_dir), "--quiet", "--no-plots"])[0] == 0
    table.write_text(format_weights(TABLES["lr06"], "csv"))
    before = snapshot(tmp_path)
    assert_bad_input(["resume", str(run_dir), "--generations", "3", "--quiet", "--no-plots"],
                     f"weights file '{table}' has changed since the run played it")
    assert snapshot(tmp_path) == before
    table.write_text(format_weights(TABLES["classic"], "csv"))  # the same table again: the run goes on
    assert run_cli(["resume", str(run_dir), "--generations", "3", "--quiet", "--no-plots"])[0] == 0


@pytest.mark.parametrize("scale", ["1e-10", "10000"])
def test_an_exported_table_at_any_scale_evaluates_as_the_table(tmp_path: Path, scale: str) -> None:
    # export lr06 --scale 1e-10 then evaluate scored 0.501 against the random mover (lr06: 0.897).
    tried("cli")
    table = tmp_path / "small.csv"
    assert run_cli(["export", "lr06", "--format", "csv", "--scale", scale, "-o", str(table)])[0] == 0
    outcomes = [run_cli(["evaluate", source, "--vs", "random", "--games", "300"])
                for source in (str(table), "lr06")]
    assert [code for code, _, _ in outcomes] == [0, 0]
    assert outcomes[0][1].splitlines()[-1] == outcomes[1][1].splitlines()[-1]  # the same games, won the same


# ---------------------------------------------------------------- what show says


ESCAPES = "\u001b]0;PWNED\u0007\u001b[2J"


def test_show_prints_what_a_run_holds_with_its_control_characters_escaped(finished_run: Path, tmp_path: Path) -> None:
    # A run directory is untrusted: a name, a description or a command holding escape sequences retitled and
    # cleared the terminal that showed it.
    tried("run-dir faults")
    run_dir = tmp_path / "run"
    shutil.copytree(finished_run, run_dir)
    config = run_dir / "config.toml"
    config.write_text(config.read_text().replace('name = "tiny"', f"name = {json.dumps('tiny' + ESCAPES)}")
                      .replace('description = ""', f"description = {json.dumps(ESCAPES)}"))  # TOML's escapes
    manifest = json.loads((run_dir / "manifest.json").read_text())
    manifest.update(command=f"othello-ga evolve {ESCAPES}\nsecond line", experiment=f"tiny{ESCAPES}",
                    status="failed", error=f"boom{ESCAPES}")
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    code, out, lines = run_cli(["show", str(run_dir)])
    assert code == 0, lines
    assert not [char for char in out if not char.isprintable() and char not in " \n"], out
    assert out.count("\\x1b]0;PWNED\\x07\\x1b[2J") == 4  # name, description, command, error
    assert "\\nsecond line" in out


@pytest.mark.parametrize("where", ["a missing run", "a damaged run"])
def test_an_error_line_escapes_what_it_quotes(finished_run: Path, tmp_path: Path, where: str) -> None:
    tried("run-dir faults")
    run_dir = tmp_path / f"run{ESCAPES}"  # a path, as a shell lets anyone type or a download name it
    if where == "a damaged run":
        shutil.copytree(finished_run, run_dir)
        (run_dir / "generations.csv").write_text("generation\nx\n")
    line = assert_bad_input(["show", str(run_dir)], "\\x1b]0;PWNED\\x07\\x1b[2J")
    assert "\x1b" not in line and "\x07" not in line


def show_rows(run_dir: Path) -> dict[str, str]:
    code, out, lines = run_cli(["show", str(run_dir)])
    assert code == 0, lines
    return {line.split()[0]: " ".join(line.split()[1:]) for line in out.splitlines()[1:]
            if line.startswith("  ") and len(line.split()) > 1}


def test_show_reports_the_progress_the_csv_records_when_the_manifest_lags(finished_run: Path, tmp_path: Path) -> None:
    # A live run, one killed with kill -9 or stopped by a full disk has the manifest its start wrote: show said
    # "generations 0 of N, games played 0, wall time 0.0 s" beside a win-rate line naming a later generation.
    tried("run-dir faults")
    run_dir = tmp_path / "run"
    shutil.copytree(finished_run, run_dir)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    manifest.update(generations_done=0, games_played=0, wall_s=0.0, status="running", finished=None)
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    import pandas as pd

    rows = pd.read_csv(run_dir / "generations.csv")
    shown = show_rows(run_dir)
    assert shown["generations"] == f"{len(rows)} of 2 done"
    assert shown["games"] == f"played {int(rows['games'].sum()):,} (the GA's generations)"
    from ga.files import duration_text

    assert shown["wall"] == f"time {duration_text(rows['generation_s'].sum())}"


def test_a_resumed_runs_wall_time_leaves_out_the_time_it_stood_still(tmp_path: Path) -> None:
    tried("run-dir faults")
    config = tmp_path / "tiny.toml"
    config.write_text(cases.TINY_TOML)
    run_dir = tmp_path / "run"
    assert run_cli(["evolve", str(config), "--out", str(run_dir), "--quiet", "--no-plots"])[0] == 0
    assert run_cli(["resume", str(run_dir), "--generations", "4", "--quiet", "--no-plots"])[0] == 0
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["resumes"] == 1
    manifest["started"] = "2020-01-01T00:00:00Z"  # as if it had stood still for years before its resume
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    wall = show_rows(run_dir)["wall"]  # the stages' seconds, not the years since its start
    assert "the rest" not in wall and wall.endswith(" s") and float(wall.split()[1]) < 60, wall


# ---------------------------------------------------------------- messages a user can act on


def test_a_full_disk_during_a_run_names_the_file_and_how_to_continue(tmp_path: Path) -> None:
    # ulimit -f stands for a full disk: games.csv outgrows it in generation 2. The line said "[Errno 27] File too
    # large", naming no file and no way on.
    tried("cli")
    config = tmp_path / "fill.toml"
    config.write_text(cases.TINY_TOML.replace("generations = 2", "generations = 8")
                      .replace('opponents = ["random"]', 'opponents = ["random"]\ngames_per_opponent = 100'))
    run_dir = tmp_path / "run"
    environment = {key: value for key, value in os.environ.items() if key != "OTHELLO_GA_DEBUG"}
    completed = subprocess.run(["bash", "-c", f'ulimit -f 64; exec "{sys.executable}" -m ga.cli evolve "{config}" '
                                              f'--out "{run_dir}" --quiet --no-plots'],
                               cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120)
    lines = completed.stderr.splitlines()
    assert completed.returncode == EXIT_BAD_INPUT and len(lines) == 1, completed.stderr
    assert f"'{run_dir / 'games.csv'}': File too large" in lines[0]
    assert f"the last checkpoint is intact; make room (or raise the file size limit), then continue with: " \
           f"othello-ga resume {run_dir}" in lines[0]
    assert run_cli(["resume", str(run_dir), "--quiet", "--no-plots"])[0] == 0  # as the line says


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["fifo", "socket"])
def test_a_table_that_is_not_a_regular_file_is_named_for_what_it_is(tmp_path: Path, kind: str) -> None:
    # A device or a FIFO as a table said "does not exist".
    import socket

    table = tmp_path / "table.csv"
    server = socket.socket(socket.AF_UNIX)
    if kind == "fifo":
        os.mkfifo(table)
        what = "is not a regular file (a FIFO)"
    else:
        server.bind(str(table))
        what = "is not a regular file (a socket)"
    config = tmp_path / "exp.toml"
    config.write_text(cases.TINY_TOML.replace('opponents = ["random"]', f'opponents = ["wpc:1@{table}"]'))
    out = tmp_path / "run"
    assert_bad_input(["evolve", str(config), "--out", str(out), "--quiet", "--no-plots"], what, unwritten=(out,))
    assert_bad_input(["evaluate", f"wpc:1@{table}", "--vs", "random", "--games", "2"], what)
    assert_bad_input(["evaluate", str(table), "--vs", "random", "--games", "2"], what)
    assert_bad_input(["export", str(table), "--format", "csv"], what)
    server.close()


def test_a_run_directory_with_a_comma_in_its_path_is_played_as_itself(finished_run: Path, tmp_path: Path) -> None:
    # evaluate and play used to read the rest of the path after the comma as a spec's option.
    tried("cli")
    run_dir = tmp_path / "a,b" / "run"
    shutil.copytree(finished_run, run_dir)
    code, out, lines = run_cli(["evaluate", str(run_dir), "--vs", "random", "--games", "20"])
    assert code == 0 and f"@{run_dir / 'best_weights.csv'}" in out, lines
    code, out, lines = run_cli(["play", str(run_dir), "--seed", "1"])
    assert code == 0 and f"@{run_dir / 'best_weights.csv'}" in out, lines
    # A config beside its table in such a directory names it relative to itself.
    config = tmp_path / "a,b" / "exp.toml"
    shutil.copy(finished_run / "best_weights.csv", tmp_path / "a,b" / "opp.csv")
    config.write_text(cases.TINY_TOML.replace('opponents = ["random"]', 'opponents = ["wpc:1@opp.csv,eps=0.1"]'))
    code, _, lines = run_cli(["evolve", str(config), "--out", str(tmp_path / "new"), "--quiet", "--no-plots"])
    assert code == 0, lines


def test_play_takes_a_weights_file_as_evaluate_does(finished_run: Path) -> None:
    # play FILE.csv said "malformed player spec".
    tried("cli")
    code, out, lines = run_cli(["play", str(finished_run / "best_weights.csv"), "--seed", "1"])
    assert code == 0, lines
    assert f"against wpc:1 with {finished_run / 'best_weights.csv'}" in out


def test_a_failed_write_names_the_file_not_its_temporary(finished_run: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # plot said it could not write '.win_rate.png.31227.tmp', a name the user never gave nor sees.
    import errno

    run_dir = tmp_path / "run"
    shutil.copytree(finished_run, run_dir)

    def refused(source: Any, target: Any) -> None:
        raise OSError(errno.EROFS, "Read-only file system", os.fspath(source), os.fspath(target))

    monkeypatch.setattr(os, "replace", refused)
    line = assert_bad_input(["plot", str(run_dir)], f"'{run_dir / 'plots' / 'win_rate.png'}': Read-only file system")
    assert ".tmp" not in line


def test_evolve_into_a_file_and_resume_without_a_checkpoint_say_what_to_do(finished_run: Path, tmp_path: Path) -> None:
    # --out at a regular file said "not empty"; a run without a checkpoint said "start it again", which evolve
    # then refused (the directory is not empty); then it said to remove the directory: advice that destroys data.
    config = tmp_path / "tiny.toml"
    config.write_text(cases.TINY_TOML)
    (tmp_path / "file").write_text("mine")
    assert_bad_input(["evolve", str(config), "--out", str(tmp_path / "file"), "--quiet", "--no-plots"],
                     "already exists and is not a directory (a regular file)")
    run_dir = damaged_copy(finished_run, tmp_path, "checkpoint.json", None)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    (run_dir / "manifest.json").write_text(json.dumps(manifest | {"status": "interrupted", "generations_done": 0}))
    line = assert_bad_input(["resume", str(run_dir), "--quiet", "--no-plots"],
                            "the run stopped before its first generation ended, so there is nothing to resume; run it "
                            f"again into a new directory: othello-ga evolve {run_dir / 'config.toml'} --out NEW_DIR")
    assert "remove" not in line and "delete" not in line


# ---------------------------------------------------------------- evaluations that overflow, Ctrl-C in the engine


def overflowing_evaluation(path: Path, **weights: float) -> Path:
    """Writes an evaluation file of the heuristic squares and these feature weights."""
    from engine import TABLES

    features = weights or {"mobility": 1.7e308, "frontier": -1.7e308}  # a value of inf - inf = NaN
    path.write_text(json.dumps({"format": "othello-ga evaluation", "version": 1, "squares": [list(TABLES["heuristic"])],
                                "features": {name: [value] for name, value in features.items()}}))
    return path


@pytest.mark.parametrize("where", ["evaluate FILE", "--vs wpc:1@FILE", "config opponent"])
def test_feature_weights_are_bounded_as_squares_are(tmp_path: Path, where: str) -> None:
    # mobility 1.7e308 and frontier -1.7e308 made a position's value NaN: the player passed with legal moves and
    # the game never ended (evaluate hung, evolve's generation 0 never ended), deaf to SIGINT and SIGTERM.
    tried("weights")
    table = overflowing_evaluation(tmp_path / "nan.json")
    config = tmp_path / "exp.toml"
    config.write_text(cases.TINY_TOML.replace('opponents = ["random"]', f'opponents = ["wpc:1@{table}"]'))
    argv = {"evaluate FILE": ["evaluate", str(table), "--vs", "random", "--games", "2"],
            "--vs wpc:1@FILE": ["evaluate", "random", "--vs", f"wpc:1@{table}", "--games", "2"],
            "config opponent": ["evolve", str(config), "--out", str(tmp_path / "run"), "--quiet", "--no-plots"]}[where]
    completed = run_process(argv, ROOT, stdin=subprocess.DEVNULL, text=True)
    lines = completed.stderr.splitlines()
    assert completed.returncode == EXIT_BAD_INPUT and len(lines) == 1, completed.stderr
    assert "weight 1.7e+308 of feature 'mobility' is beyond +-10000" in lines[0]
    assert not (tmp_path / "run").exists()


def test_the_engine_never_passes_with_a_legal_move_whatever_the_values() -> None:
    # The player itself takes any finite numbers: with scores all NaN it must still move (in a process of its
    # own: on failure the game loop never ends).
    script = """
import numpy as np
from engine import Board, Player, TABLES, record_game
weights = list(TABLES["heuristic"]) + [1.7e308, -1.7e308]
for kind, depth in (("wpc", 1), ("wpc", 2), ("alphabeta", 2)):
    player = Player(kind, depth, weights, features=("mobility", "frontier"))
    for seed in range(20):
        board = Board()
        for move in record_game(player, Player("random"), seed):
            assert (move == 64) == (not board.legal_moves()), (kind, seed, move)
            board.push(move)
        assert board.is_game_over()
print("ok")
"""
    completed = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert completed.stdout.strip() == "ok", completed.stderr


def interrupted(argv: list[str], tmp_path: Path, *, after: Callable[[], bool], signum: int = signal.SIGINT
                ) -> tuple[int, str]:
    """Starts ``othello-ga argv``, sends ``signum`` once ``after()`` holds, and returns its exit code and stderr
    (it must end within 20 s of the signal: the engine heeds signals between moves and within a solve)."""
    environment = {key: value for key, value in os.environ.items() if key != "OTHELLO_GA_DEBUG"}
    process = subprocess.Popen([sys.executable, "-m", "ga.cli", *argv], cwd=tmp_path, env=environment,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not after() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        time.sleep(1.5)  # past the imports: the engine is playing
        process.send_signal(signum)
        _, err = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"othello-ga {' '.join(argv)} did not end within 20 s of the signal")
    return process.returncode, err


@pytest.mark.parametrize("argv", [
    ["evaluate", "alphabeta:1@heuristic,end=40", "--vs", "random", "--games", "2"],
    ["evaluate", "heuristic", "--vs", "random", "--games", "20000000", "--workers", "2"],
    ["evaluate", "heuristic", "--vs", "random", "--games", "20000000", "--workers", "1"],
    ["evaluate", "heuristic", "--games", "2", "--protocol", "ladder", "--end", "60"],
], ids=["a solve of 40 empty squares", "20 million games on 2 threads", "--workers 1", "ladder --end 60"])
def test_ctrl_c_while_the_engine_plays_exits_130(tmp_path: Path, argv: list[str]) -> None:
    # Each ignored Ctrl-C: the engine played in C, where Python ran no handler (--workers 1 said "Aborted.", 1).
    tried("cli")
    code, err = interrupted(argv, tmp_path, after=lambda: True)
    assert code == 130, err
    assert "Traceback" not in err and "Aborted" not in err and err.strip().endswith("othello-ga: interrupted"), err


@pytest.mark.parametrize("signals", [1, 2])
def test_ctrl_c_during_a_generation_of_long_games_stops_the_run_at_once(tmp_path: Path, signals: int) -> None:
    # fitness.player = "alphabeta:1,end=26": a generation's games take minutes; one or two Ctrl-Cs were ignored.
    tried("cli")
    config = tmp_path / "long.toml"
    config.write_text(cases.TINY_TOML.replace('[fitness]\n', '[fitness]\nplayer = "alphabeta:1,end=26"\n'))
    run_dir = tmp_path / "run"
    environment = {key: value for key, value in os.environ.items() if key != "OTHELLO_GA_DEBUG"}
    process = subprocess.Popen([sys.executable, "-m", "ga.cli", "evolve", str(config), "--out", str(run_dir),
                                "--no-plots"], cwd=ROOT, env=environment, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (run_dir / "manifest.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)
        for _ in range(signals):
            process.send_signal(signal.SIGINT)
            time.sleep(0.3)
        _, err = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail("the run did not stop within 20 s of Ctrl-C")
    assert process.returncode == 130, err
    assert "Traceback" not in err and "Aborted" not in err, err
    assert json.loads((run_dir / "manifest.json").read_text())["status"] == "interrupted"
    assert f"'{run_dir}' holds nothing to resume: remove it and run evolve again" in err, err


def test_ctrl_c_while_python_loads_the_command_line_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    # In the first 0.3 s of any command Ctrl-C gave a KeyboardInterrupt traceback from the imports.
    import importlib.abc

    from ga import launch

    class CtrlC(importlib.abc.MetaPathFinder):
        def find_spec(self, name: str, *args: Any) -> None:
            if name == "ga.cli":
                raise KeyboardInterrupt

    monkeypatch.delitem(sys.modules, "ga.cli")
    monkeypatch.setattr(sys, "meta_path", [CtrlC(), *sys.meta_path])
    monkeypatch.setattr(sys, "argv", ["othello-ga", "show", "x"])
    assert launch.main() == 130
    assert capsys.readouterr().err == "othello-ga: interrupted\n"


# ---------------------------------------------------------------- silent wrong results, tracebacks, messages


def two_phase_evaluation(path: Path, phase_move: int = 30, scale: float = 1.0) -> Path:
    from engine import TABLES

    squares = [[w * scale for w in TABLES["heuristic"]], list(TABLES["lr06"])]
    path.write_text(json.dumps({"format": "othello-ga evaluation", "version": 1, "squares": squares,
                                "features": {"mobility": [0.1, 0.2]}, "phase_move": phase_move}))
    return path


def test_phase_40_is_given_not_the_default(tmp_path: Path) -> None:
    # wpc:1@two_tables.json,phase=40 played the file's own switch move (40 was taken as "not given").
    tried("specs")
    table = two_phase_evaluation(tmp_path / "two.json")
    for phase in (39, 40, 41):
        assert build_player(f"wpc:1@{table},phase={phase}", load_weights=load_evaluation).phase_move == phase
    assert build_player(f"wpc:1@{table}", load_weights=load_evaluation).phase_move == 30
    assert str(parse_spec("wpc:1@heuristic,phase=40")) == "wpc:1@heuristic,phase=40"


@pytest.mark.parametrize("version", [1.0, True, "1"])
def test_an_evaluation_version_must_be_the_integer_1(tmp_path: Path, version: Any) -> None:
    tried("weights")
    path = two_phase_evaluation(tmp_path / "e.json")
    path.write_text(path.read_text().replace('"version": 1', f'"version": {json.dumps(version)}'))
    with pytest.raises(WeightsError, match="'version' .* is not one this tool reads"):
        load_evaluation(path)


def test_an_evaluation_named_by_a_spec_gets_the_range_check(tmp_path: Path) -> None:
    # Through @FILE a square of 1e5 was played; a CSV table or evaluate's own FILE argument refused it.
    tried("specs")
    table = two_phase_evaluation(tmp_path / "big.json", scale=1e5)
    assert_bad_input(["evaluate", "random", "--vs", f"wpc:1@{table}", "--games", "2"], "weight 100000 at a1 is "
                     "beyond +-10000")


def test_an_evaluation_with_a_byte_order_mark_reads_as_without(tmp_path: Path) -> None:
    # It said "no 'weights' key".
    tried("weights")
    plain = overflowing_evaluation(tmp_path / "plain.json", mobility=2.0)
    marked = tmp_path / "marked.json"
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    assert load_evaluation(marked) == load_evaluation(plain)


def test_a_json_integer_of_4301_digits_is_named(tmp_path: Path) -> None:
    tried("weights")
    path = overflowing_evaluation(tmp_path / "e.json", mobility=2.0)
    path.write_text(path.read_text().replace("2.0", "9" * 4301))
    with pytest.raises(WeightsError, match="an integer of more than 4,300 digits") as error:
        load_evaluation(path)
    assert "sys.set_int_max_str_digits" not in str(error.value)


@pytest.mark.parametrize("redirect", ["<&-", "< {tmp}/big.txt"], ids=["closed", "17 MiB"])
def test_solve_from_a_standard_input_that_is_no_positions_file(tmp_path: Path, redirect: str) -> None:
    # solve - <&- gave an AttributeError; an endless stream was read until memory ran out. (A directory as standard
    # input is refused by Python itself, before any code of the tool runs.)
    tried("positions")
    with open(tmp_path / "big.txt", "wb") as big:
        big.truncate(17 * 2**20)
    environment = {key: value for key, value in os.environ.items() if key != "OTHELLO_GA_DEBUG"}
    completed = subprocess.run(["bash", "-c", f'"{sys.executable}" -m ga.cli solve - {redirect.format(tmp=tmp_path)}'],
                               cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60)
    lines = completed.stderr.splitlines()
    assert completed.returncode == EXIT_BAD_INPUT and len(lines) == 1 and ERROR_LINE.fullmatch(lines[0]), lines
    assert "standard input" in lines[0]


@pytest.mark.parametrize("argv", [["solve", "X" * 62 + "O- X"], ["bench", "--quick", "--only", "engine"]],
                         ids=["solve", "bench"])
def test_a_closed_standard_output_is_named_by_solve_and_bench(argv: list[str]) -> None:
    # Both exited 0 with their output lost.
    tried("cli")
    command = " ".join(f"'{part}'" for part in argv)
    environment = {key: value for key, value in os.environ.items() if key != "OTHELLO_GA_DEBUG"}
    completed = subprocess.run(["bash", "-c", f'"{sys.executable}" -m ga.cli {command} >&-'], cwd=ROOT,
                               env=environment, capture_output=True, text=True, timeout=60)
    lines = completed.stderr.splitlines()
    assert completed.returncode == EXIT_BAD_INPUT and len(lines) == 1, completed.stderr
    assert "standard output is closed" in lines[0]


def test_a_file_named_like_a_position_is_read_as_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A file whose name is 64 characters long was taken for a position ("a bad character").
    tried("positions")
    monkeypatch.chdir(tmp_path)
    name = "positions-of-the-endgame-test-set-kept-for-the-solver-012345.obf"
    assert len(name) == 64
    position = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXO- X"
    (tmp_path / name).write_bytes(b"\xef\xbb\xbf" + position.encode() + b"\n")  # with a byte-order mark
    code, out, lines = run_cli(["solve", name])
    assert code == 0, lines
    assert "+64" in out and "h8" in out


@pytest.mark.parametrize("command", [["solve", "X" * 62 + "O- X", "--csv"],
                                     ["evaluate", "heuristic", "--vs", "random", "--games", "2", "--csv"],
                                     ["export", "heuristic", "--format", "csv", "-o"]], ids=lambda c: c[0])
def test_an_output_path_ending_in_a_slash_names_a_directory(tmp_path: Path, command: list[str]) -> None:
    # --csv 'new.csv/' wrote new.csv.
    assert_bad_input([*command, f"{tmp_path}/new.csv/"], "it names a directory")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [["export", "heuristic", "--format", "csv", "-o"],
                                     ["evaluate", "heuristic", "--vs", "random", "--games", "2", "--csv"]],
                         ids=lambda c: c[0])
def test_a_dangling_link_as_output_is_written_through_only_with_force(tmp_path: Path, command: list[str]) -> None:
    # The target of a dangling link was created without --force (an existing one needed it).
    link, target = tmp_path / "out.csv", tmp_path / "elsewhere.csv"
    link.symlink_to(target)
    assert_bad_input([*command, str(link)], "is a symbolic link to", "which does not exist; pass --force")
    assert not target.exists()
    code, _, lines = run_cli([*command, str(link), "--force"])
    assert code == 0, lines
    assert link.is_symlink() and target.is_file()


def test_exported_c_from_a_path_holding_a_comment_opener_compiles(tmp_path: Path) -> None:
    # gcc -Wall -Werror refused the code: "/*" within comment.
    tried("cli")
    folder = tmp_path / "a" / "*b"
    folder.mkdir(parents=True)
    source = overflowing_evaluation(folder / "e.json", mobility=2.0)
    for spec, fmt in ((str(source), "c"), (str(two_phase_evaluation(folder / "t.csv.json")), "c")):
        out = tmp_path / "e.c"
        code, _, lines = run_cli(["export", spec, "--format", fmt, "-o", str(out), "--force"])
        assert code == 0, lines
        assert "/*" in out.read_text()  # the comments are there, the path in them defused
        compiled = subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", "-Wno-unused-function", "-c", str(out), "-o", str(tmp_path / "e.o")],
                                  capture_output=True, text=True)
        assert compiled.returncode == 0, compiled.stderr
    table = folder / "w.csv"
    table.write_text("1,2,3,4,5,6,7,8\n" * 8)
    code, _, lines = run_cli(["export", str(table), "--format", "c", "-o", str(tmp_path / "w.c")])
    assert code == 0, lines
    assert "/*b" not in (tmp_path / "w.c").read_text().replace("/* ", "")


# ---------------------------------------------------------------- studies that delete, escape, crash or hang


STUDY_TOML = """\
[study]
seeds = "1-2"
{study}
[[configs]]
label = "tiny"
file = "tiny.toml"

[[measures]]
name = "{measure}"
protocol = "plain"
opponents = ["random"]
games = 4
"""


def tiny_study(folder: Path, study: str = "", measure: str = "league") -> Path:
    """Writes a study of the tiny experiment (two seeds, one measure) in ``folder``; returns its file."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tiny.toml").write_text(cases.TINY_TOML)
    path = folder / "study.toml"
    path.write_text(STUDY_TOML.format(study=study, measure=measure))
    return path


@pytest.mark.parametrize(("study", "measure", "fragment"), [
    ('name = "../../x"', "league", "study key 'study.name' must be 1-100 printable characters without /"),
    ('name = "/tmp/x"', "league", "study key 'study.name' must be"),
    ('name = "a\\nb"', "league", "study key 'study.name' must be"),
    ("", "seed", "its score 'seed' would be study.csv's own column 'seed'"),
    ("", "wall_s", "would be study.csv's own column 'wall_s'"),
    ('seeds = "' + ",".join(f"{k * 10**7}-{k * 10**7 + 999_998}" for k in range(60)) + '"', "league",
     "names 59,999,940 seeds, more than a study runs (100,000)"),
    ("max_runs = 1000000000", "league", "study key 'study.max_runs' must be at most 100,000"),
], ids=["traversal", "absolute", "newline", "seed", "wall_s", "60 huge ranges", "max_runs 1e9"])
def test_a_study_that_would_escape_crash_or_hang_is_refused_as_it_is_read(tmp_path: Path, study: str, measure: str,
                                                                          fragment: str) -> None:
    # A name of ../../x wrote outside results/; a measure named seed played every run, then crashed in the summary;
    # 60 ranges of a million seeds took 3.4 GB and 8 s before naming no reason.
    from ga.study.schema import StudyError, load_study

    tried("configs")
    text = study.replace('seeds = "', 'seeds = "', 1)
    path = tiny_study(tmp_path, text.replace('seeds = "1-2"', "") if "seeds" in text else text, measure)
    if "seeds" in text:
        path.write_text(path.read_text().replace('seeds = "1-2"\n', ""))
    with pytest.raises(StudyError, match=re.escape(fragment)):
        load_study(path)


def test_a_grid_too_large_or_all_pairs_of_too_many_configs_are_refused_before_they_are_built(tmp_path: Path) -> None:
    # A grid of a million configs validated for minutes; all pairs of 2,000 configs took minutes to summarize.
    from ga.study.schema import StudyError, load_study

    tried("configs")
    path = tiny_study(tmp_path, "max_runs = 100000")
    grid = '\n[grid]\nbase = "tiny.toml"\nvalues = { "mutation.sigma" = [%s], "mutation.gene_probability" = [%s] }\n'
    path.write_text(path.read_text().replace('[[configs]]\nlabel = "tiny"\nfile = "tiny.toml"\n', "") + grid % (
        ", ".join(str(0.001 * k) for k in range(1, 1001)), ", ".join(str(0.0001 * k) for k in range(1, 1001))))
    with pytest.raises(StudyError, match="makes 1,000,000 configs, more than a study holds"):
        load_study(path)
    path.write_text(path.read_text().replace("range", "").split("[grid]")[0] + grid % (
        ", ".join(str(0.001 * k) for k in range(1, 201)), "0.05"))
    with pytest.raises(StudyError, match="compares every pair of the 200 configs, 19,900 pairs"):
        load_study(path)


def test_dask_local_with_more_workers_than_the_machine_runs_is_refused(tmp_path: Path) -> None:
    # --dask local:100000 was accepted and sat silent.
    pytest.importorskip("distributed")
    path = tiny_study(tmp_path)
    out = tmp_path / "out"
    assert_bad_input(["study", str(path), "--out", str(out), "--quiet", "--dask", "local:100000"],
                     "asks for 100,000 local Dask workers", unwritten=(out,))


@pytest.mark.parametrize("what", ["a file of the user's", "a FIFO checkpoint", "a directory checkpoint",
                                  "a dangling link checkpoint", "finished without checkpoint"])
def test_a_study_never_deletes_what_it_did_not_write(tmp_path: Path, what: str) -> None:
    # A run directory without a regular checkpoint.json was removed with rmtree and played again, the user's files
    # and finished, scored runs included.
    from ga.study.runner import run_state
    from ga.study.schema import StudyError, load_study

    tried("run-dir faults")
    study = load_study(tiny_study(tmp_path / "files"))
    config = study.run_config(study.configs[0], 1)
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.toml").write_text("[experiment]\n")
    (run / "manifest.json").write_text(json.dumps({"status": "finished"}))
    if what == "a file of the user's":
        (run / "notes.txt").write_text("mine")
    elif what == "a FIFO checkpoint":
        os.mkfifo(run / "checkpoint.json")
    elif what == "a directory checkpoint":
        (run / "checkpoint.json").mkdir()
    elif what == "a dangling link checkpoint":
        (run / "checkpoint.json").symlink_to(tmp_path / "nowhere")
    before = snapshot(tmp_path)
    with pytest.raises(StudyError, match="move (it|the run directory|the directory) away"):
        run_state(run, config)
    assert snapshot(tmp_path) == before
    (run / "manifest.json").write_text(json.dumps({"status": "running"}))
    if what == "finished without checkpoint":  # a run begun and killed before its first checkpoint: restarted
        assert run_state(run, config) == "restart"


@pytest.mark.parametrize("where", ["plots", "runs/tiny-seed1", "summary.md", "scores/tiny-seed1.json"])
def test_a_study_directory_refuses_links_and_fifos_where_it_writes(tmp_path: Path, where: str) -> None:
    # plots/ or runs/X as links sent the study's writes outside; a FIFO summary.md or scores file was replaced.
    from ga.study.runner import open_study
    from ga.study.schema import StudyError, load_study

    tried("run-dir faults")
    study = load_study(tiny_study(tmp_path / "files"))
    study_dir = tmp_path / "study"
    open_study(study, study_dir)
    outside = tmp_path / "outside"
    outside.mkdir()
    path = study_dir / where
    if where.endswith((".md", ".json")):
        os.mkfifo(path)
    else:
        path.symlink_to(outside, target_is_directory=True)
    before = snapshot(tmp_path)
    with pytest.raises(StudyError, match=re.escape(f"'{path}' is ")):
        open_study(study, study_dir)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("edit", ["swapped", "1e30 games", "study.toml", "config"])
def test_edited_scores_and_study_files_are_refused(tmp_path: Path, edit: str) -> None:
    # Scores with games 1e30 or wins and losses swapped were summarized; an edited study.toml made summary.md state
    # the wrong game count.
    from ga.study.runner import RunOutcome, _write_scores, open_study, read_scores
    from ga.study.schema import StudyError, load_saved_study, load_study

    tried("run-dir faults")
    study = load_study(tiny_study(tmp_path / "files"))
    study_dir = tmp_path / "study"
    open_study(study, study_dir)
    _write_scores(study_dir, RunOutcome("tiny", 1, True, {"league": {"games": 4, "wins": 3, "draws": 0, "losses": 1}}))
    assert read_scores(study_dir, "tiny", 1)["league"].wins == 3
    assert load_saved_study(study_dir) == study
    scores = study_dir / "scores" / "tiny-seed1.json"
    if edit == "swapped":
        scores.write_text(scores.read_text().replace('"wins": 3', '"wins": 1').replace('"losses": 1', '"losses": 3'))
    elif edit == "1e30 games":
        scores.write_text(scores.read_text().replace('"games": 4', '"games": ' + "1" + "0" * 30))
    elif edit == "study.toml":
        (study_dir / "study.toml").write_text((study_dir / "study.toml").read_text().replace("games = 4", "games = 40"))
    else:
        config = study_dir / "configs" / "tiny.toml"
        config.write_text(config.read_text().replace("size = 8", "size = 10"))
    with pytest.raises(StudyError, match="checksum|were edited since the study wrote them"):
        read_scores(study_dir, "tiny", 1) if edit in ("swapped", "1e30 games") else load_saved_study(study_dir)


# ---------------------------------------------------------------- readers that leave, long and foreign names, full
# ---------------------------------------------------------------- outputs, studies shown as they stand


def positions_file(path: Path, count: int) -> Path:
    """Writes ``count`` copies of a two-empty position (solved at once): a CSV larger than a pipe holds."""
    path.write_text(("X" * 60 + "OO-- X\n") * count)
    return path


@pytest.mark.timeout(120)
@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["python -u", "buffered"])
def test_a_reader_of_csv_dash_that_leaves_mid_way_ends_the_command_141(tmp_path: Path, unbuffered: str) -> None:
    # solve ... --csv - | head -1 exited 0 with the output cut: unbuffered (python -u, PYTHONUNBUFFERED) the CSV
    # went out in one raw write, which the reader's leaving cut short, and the rest was dropped in silence.
    tried("cli")
    positions = positions_file(tmp_path / "many.txt", 3000)
    environment = {key: value for key, value in os.environ.items() if key not in ("OTHELLO_GA_DEBUG",
                                                                                 "PYTHONUNBUFFERED")}
    if unbuffered:
        environment["PYTHONUNBUFFERED"] = unbuffered
    with open(tmp_path / "err", "wb") as err:  # solve's table goes there: a pipe would fill and stall it
        process = subprocess.Popen([sys.executable, "-m", "ga.cli", "solve", str(positions), "--csv", "-"],
                                   cwd=tmp_path, env=environment, stdout=subprocess.PIPE, stderr=err,
                                   stdin=subprocess.DEVNULL)
        first = process.stdout.readline()  # as head -1: one line, then the reader is gone
        process.stdout.close()
        code = process.wait(timeout=120)
    assert first.decode().strip() == "position,empties,score,best_moves,move_values,nodes,seconds"
    table = (tmp_path / "err").read_text()
    assert code == 141, table[-500:]
    assert "error" not in table and "Traceback" not in table and "Broken pipe" not in table


def test_evaluate_csv_dash_puts_the_csv_alone_on_standard_output(tmp_path: Path) -> None:
    # The report and the CSV shared standard output: `evaluate ... --csv - | head -1` took the report's first line.
    from ga.cli.evaluate import CSV_COLUMNS

    tried("cli")
    completed = run_process(["evaluate", "lr06", "--vs", "random", "--vs", "nhand:1", "--games", "10", "--csv", "-"],
                            tmp_path)
    assert completed.returncode == 0, completed.stderr
    rows = list(csv.DictReader(io.StringIO(completed.stdout.decode())))
    assert list(rows[0]) == list(CSV_COLUMNS) and [row["opponent"] for row in rows] == ["random", "nhand:1"]
    report = completed.stderr.decode()
    assert report.startswith("player    wpc:1 with built-in table lr06") and "random " in report
    assert list(tmp_path.iterdir()) == []


LONG = "a" * 5000


@pytest.mark.parametrize(("argv", "fragment"), [
    (["evaluate", LONG], "unknown player kind 'aaaa"),
    (["evaluate", f"wpc:1@{LONG}"], "unknown weights table 'aaaa"),
    (["evaluate", "lr06", "--vs", f"wpc:1@{LONG}.csv"], "weights file 'aaaa"),
    (["play", LONG], "unknown player kind 'aaaa"),
    (["nboard", LONG], "unknown player kind 'aaaa"),
    (["export", LONG, "--format", "csv"], "is not a run directory, a weights file or a built-in table"),
    (["solve", LONG], "is neither a position"),
    (["evolve", LONG], "is too long to be a file or directory name (5,000 characters"),
    (["study", LONG], "is too long to be a file or directory name"),
    (["show", LONG], "is too long to be a file or directory name"),
    (["plot", LONG], "is too long to be a file or directory name"),
    (["resume", LONG], "is too long to be a file or directory name"),
    (["compare", LONG], "is too long to be a file or directory name"),
    (["export", "lr06", "--format", "csv", "-o", LONG], "is too long to be a file or directory name"),
    (["evaluate", "lr06", "--vs", "random", "--games", "2", "--csv", LONG], "is too long"),
], ids=lambda value: value[0] if isinstance(value, list) else None)
def test_a_5000_character_argument_is_named_in_one_short_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             argv: list[str], fragment: str) -> None:
    # Each said "cannot write or read '<5,000 characters>': File name too long": of a player spec, a position or
    # a table name, a reason about files; and a line of 5,000 characters.
    monkeypatch.chdir(tmp_path)
    line = assert_bad_input(argv, fragment)
    assert "File name too long" not in line and "cannot write or read" not in line
    assert len(line) < 900 and "...[4,9" in line, line  # the name by its ends and its length
    assert list(tmp_path.iterdir()) == []


def test_a_long_word_in_a_message_is_shown_by_its_ends_and_length() -> None:
    from ga.cli.errors import LONGEST_WORD, one_line

    tried("cli")
    assert one_line("x" * LONGEST_WORD) == "x" * LONGEST_WORD  # a long path is shown whole
    word = "ab" * 1000
    assert one_line(f"'{word}' is wrong") == f"'{word[:59]}...[1,922 more characters]...{word[-19:]}' is wrong"


def opened_study(folder: Path, opponents: str = '["random"]') -> tuple[Path, Path]:
    """Makes a study directory of the tiny study (no run begun); returns it and its study file's folder."""
    from ga.study.runner import open_study
    from ga.study.schema import load_study

    files = folder / "files"
    path = tiny_study(files)
    (files / "tiny.toml").write_text(cases.TINY_TOML.replace('opponents = ["random"]', f"opponents = {opponents}"))
    study_dir = folder / "study"
    open_study(load_study(path), study_dir)
    return study_dir, files


def test_compare_of_a_study_without_a_generation_is_one_line(tmp_path: Path) -> None:
    # It said "plot_compare needs at least one run directory", naming a function and not the study.
    study_dir, _ = opened_study(tmp_path)
    out = tmp_path / "c.png"
    assert_bad_input(["compare", str(study_dir), "-o", str(out)],
                     f"study '{study_dir}' has no run with a generation done yet", "othello-ga study",
                     unwritten=(out,))


def test_show_of_a_study_whose_opponent_file_is_gone_shows_it_and_names_the_file(tmp_path: Path) -> None:
    # One config's opponent file missing made show refuse the whole study.
    from engine import TABLES

    tried("run-dir faults")
    (tmp_path / "files").mkdir()
    table = tmp_path / "files" / "opp.csv"
    table.write_text(format_weights(TABLES["lr06"], "csv"))
    study_dir, _ = opened_study(tmp_path, '["random", "wpc:1@opp.csv"]')
    table.unlink()
    code, out, lines = run_cli(["show", str(study_dir)])
    assert code == 0 and lines == [], lines
    assert "runs          2 not started (of 2)" in out
    assert f"missing       weights file '{table}' does not exist; check the path (played by tiny)\n" in out
    assert "| tiny | 0 | 2 | - | - |" in out  # the summary table, as it stands
    # compare reads it too (its curves need no opponent): here it has no generation to draw, and says that.
    assert_bad_input(["compare", str(study_dir), "-o", str(tmp_path / "c.png")], "has no run with a generation")
    assert_bad_input(["study", str(study_dir), "--quiet"], f"weights file '{table}' does not exist")


BAD_BYTES = os.fsdecode(b"bad\xffname")  # a name in another encoding than UTF-8, as Python holds it


def test_a_config_whose_name_or_paths_are_not_utf8_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    # A config file named in Latin-1 gave the run its stem as name, and a weights file in such a folder was
    # recorded as it is: both ended in "'utf-8' codec can't encode character '\udcff'", after the run directory
    # was made.
    from engine import TABLES

    config = tmp_path / f"{BAD_BYTES}.toml"
    config.write_text(cases.TINY_TOML.replace('name = "tiny"\n', ""))
    assert_bad_input(["evolve", str(config), "--out", str(tmp_path / "run1")],
                     "config key 'experiment.name' must be a non-empty name of printable characters",
                     "'bad\\xffname'", "by default the config file's name", unwritten=(tmp_path / "run1",))
    folder = tmp_path / BAD_BYTES
    folder.mkdir()
    (folder / "opp.csv").write_text(format_weights(TABLES["lr06"], "csv"))
    (folder / "exp.toml").write_text(cases.TINY_TOML.replace('opponents = ["random"]', 'opponents = ["wpc:1@opp.csv"]'))
    assert_bad_input(["evolve", str(folder / "exp.toml"), "--out", str(tmp_path / "run2")],
                     "config key 'fitness.opponents[0].spec' holds", "bad\\xffname/opp.csv",
                     "whose bytes are not UTF-8 text", unwritten=(tmp_path / "run2",))


def test_a_control_character_in_an_experiment_name_is_refused(tmp_path: Path) -> None:
    # name = "a\nb" made a run directory results/a<newline>b-...; the study's names were refused, not the run's.
    config = tmp_path / "exp.toml"
    config.write_text(cases.TINY_TOML.replace('name = "tiny"', 'name = "a\\nb"'))
    assert_bad_input(["evolve", str(config), "--out", str(tmp_path / "run")],
                     "config key 'experiment.name' must be a non-empty name of printable characters",
                     unwritten=(tmp_path / "run",))


def test_names_that_are_not_utf8_are_shown_with_their_bytes_escaped(finished_run: Path, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # Each ended in a codec's error (export to c, python and markdown; evaluate --csv and --save-games; show of a
    # study), or a traceback from the fonts (plot, compare: the run's directory names the figures' titles).
    from engine import TABLES

    tried("cli")
    monkeypatch.chdir(tmp_path)
    table = tmp_path / f"{BAD_BYTES}.csv"
    table.write_text(format_weights(TABLES["lr06"], "csv"))
    named = f"Source: {tmp_path}/bad\\xffname.csv"
    for fmt, suffix, comment in (("c", "c", f"{named}. */"), ("python", "py", f"# {named}"),
                                 ("markdown", "md", named)):
        code, out, lines = run_cli(["export", str(table), "--format", fmt, "-o", f"out.{suffix}"])
        assert code == 0 and lines == [], lines
        assert comment in (tmp_path / f"out.{suffix}").read_text(encoding="utf-8")
    code, out, lines = run_cli(["evaluate", "lr06", "--vs", f"wpc:1@{table}", "--games", "2", "--csv", "e.csv",
                                "--save-games", "g.ggf"])
    assert code == 0 and lines == [], lines
    assert f"wpc:1@{tmp_path}/bad\\xffname.csv" in (tmp_path / "e.csv").read_text(encoding="utf-8")
    assert f"PW[wpc:1@{tmp_path}/bad\\xffname.csv]" in (tmp_path / "g.ggf").read_text(encoding="utf-8")
    run_dir = tmp_path / BAD_BYTES
    shutil.copytree(finished_run, run_dir)
    for argv in (["plot", str(run_dir)], ["compare", str(run_dir), "-o", "c.png"]):
        code, out, lines = run_cli(argv)
        assert code == 0 and lines == [], (argv, lines)
    assert (run_dir / "plots" / "win_rate.png").is_file() and (tmp_path / "c.png").is_file()
    study_dir, _ = opened_study(tmp_path / "s")
    shown = tmp_path / f"s{BAD_BYTES}"
    study_dir.rename(shown)
    code, out, lines = run_cli(["show", str(shown)])
    assert code == 0 and lines == [] and out.startswith(f"Study {tmp_path}/sbad\\xffname\n"), lines


def test_an_unencodable_name_that_reaches_a_write_is_named_in_one_line() -> None:
    # Whatever write meets a name's bytes that are not UTF-8, the message names the name, not a codec's position.
    from ga.cli.errors import one_line

    tried("cli")
    with pytest.raises(UnicodeEncodeError) as caught:
        f"title: /data/{BAD_BYTES}/run (x)".encode("utf-8")
    assert one_line(caught.value) == ("'/data/bad\\xffname/run' holds bytes that are not UTF-8 text (a name in "
                                      "another encoding), and the text this writes is UTF-8; rename it")


def output_already_full(limit: int, path: Path) -> Callable[[], None]:
    """Returns what a child process runs first so that its standard output (``path``, opened to append, already
    ``limit`` bytes long) takes nothing more, as a full device would, while the files it writes elsewhere (a run
    directory, a CSV, all smaller than ``limit``) are written as usual: no device node, no full disk."""
    path.write_bytes(b"." * limit)

    def child() -> None:
        import resource

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails instead of the signal ending the process
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    return child


@pytest.mark.parametrize("command", ["evolve", "evaluate --csv", "evaluate", "export -o", "solve"])
def test_a_full_standard_output_names_the_stream_and_what_is_saved(tmp_path: Path, command: str) -> None:
    # It said "[Errno 27] File too large" ("[Errno 28] No space left on device" on a full device), naming neither
    # the stream nor that the run, or the CSV, was saved.
    tried("cli")
    config = tmp_path / "tiny.toml"
    config.write_text(cases.TINY_TOML)
    argv, saved, written = {
        "evolve": (["evolve", str(config), "--out", "run", "--quiet", "--no-plots"],
                   "; the run is finished and saved in run", "run/best_weights.csv"),
        "evaluate --csv": (["evaluate", "lr06", "--vs", "random", "--games", "10", "--csv", "e.csv"],
                           "; the results are saved in e.csv", "e.csv"),
        "evaluate": (["evaluate", "lr06", "--vs", "random", "--games", "10"],
                     "; nothing was saved (--csv FILE keeps the results)", None),
        "export -o": (["export", "lr06", "--format", "json", "-o", "w.json"], "; 'w.json' is written", "w.json"),
        "solve": (["solve", "X" * 60 + "OO-- X"], "", None),
    }[command]
    out = tmp_path / "stdout"
    child = output_already_full(1 << 20, out)
    with open(out, "ab") as stdout:
        completed = run_process(argv, tmp_path, stdout=stdout, preexec_fn=child, stdin=subprocess.DEVNULL)
    lines = completed.stderr.decode().splitlines()
    assert completed.returncode == EXIT_BAD_INPUT and len(lines) == 1, lines
    assert lines[0] == f"othello-ga: error: cannot write to standard output: File too large{saved}", lines
    if written is not None:
        assert (tmp_path / written).stat().st_size > 0
    if command == "evolve":
        assert json.loads((tmp_path / "run" / "manifest.json").read_text())["status"] == "finished"


def test_a_full_device_on_standard_output_is_named_with_what_is_saved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    # errno 28 itself, through the commands' own printing (click.echo), not only through an output (-o -).
    tried("cli")

    class Full(io.BytesIO):
        def write(self, data: Any) -> int:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr("sys.stdout", io.TextIOWrapper(Full()))
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", "lr06", "--vs", "random", "--games", "4", "--csv", "e.csv"]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == ("othello-ga: error: cannot write to standard output: No space left on device; "
                                       "the results are saved in e.csv\n")
    assert (tmp_path / "e.csv").read_text().startswith("player,protocol,opponent")


def test_ctrl_c_while_python_m_loads_the_package_is_one_line(tmp_path: Path) -> None:
    # `python -m ga.cli` loads ga/cli/__init__.py (click and the error policy) before __main__.py's guard runs:
    # a Ctrl-C then gave a KeyboardInterrupt traceback. The Ctrl-C is made to land there, as a finder run first.
    tried("cli")
    (tmp_path / "sitecustomize.py").write_text(
        "import importlib.abc, sys\n"
        "class CtrlC(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, *args):\n"
        "        if name == 'ga.cli.errors':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, CtrlC())\n")
    environment = {key: value for key, value in os.environ.items() if key != "OTHELLO_GA_DEBUG"}
    environment["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT), environment.get("PYTHONPATH", "")])
    completed = subprocess.run([sys.executable, "-m", "ga.cli", "--version"], cwd=tmp_path, env=environment,
                               capture_output=True, text=True, timeout=60)
    assert (completed.returncode, completed.stderr, completed.stdout) == (130, "othello-ga: interrupted\n", "")


def test_ctrl_c_during_bench_exits_130_in_one_line(tmp_path: Path) -> None:
    # bench ended a Ctrl-C with "Aborted." and exit code 1.
    tried("cli")
    code, err = interrupted(["bench"], tmp_path, after=lambda: True)
    assert code == 130 and err.strip() == "othello-ga: interrupted", err  # (after the line click ends ^C with)



def test_the_documented_counts_are_this_suites() -> None:
    # Runs last in this module: when the whole module ran, docs/runs.md must state the counts it printed
    # (within 2%: which other test modules were imported beforehand shifts a few generated examples).
    counts = {category: cases.TRIED[category] for category in cases.CATEGORIES}
    if not all(counts.values()):
        pytest.skip("only part of the bad-input suite ran")
    docs = " ".join((ROOT / "docs" / "runs.md").read_text(encoding="utf-8").split())
    found = re.search(r"([\d,]+) cases per run \(([^)]*)\)", docs)
    assert found, "docs/runs.md must state the bad-input counts"
    stated = {name: int(number.replace(",", "")) for name, number in
              (part.rsplit(" ", 1) for part in found.group(2).split(", "))}
    actual = f"{sum(counts.values()):,} cases per run (" + ", ".join(f"{c} {n:,}" for c, n in counts.items()) + ")"
    assert set(stated) == set(counts), f"update docs/runs.md: '{actual}'"
    for category, count in counts.items():
        assert abs(stated[category] - count) <= max(2, count // 50), f"update docs/runs.md: '{actual}'"
    assert abs(int(found.group(1).replace(",", "")) - sum(counts.values())) <= sum(counts.values()) // 50
