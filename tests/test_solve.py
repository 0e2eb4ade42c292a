"""othello-ga solve: positions from arguments, files and standard input; rows, totals, CSV; bad positions."""
from __future__ import annotations

import csv
import doctest
import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import engine.endgame
from engine import Board
from engine.endgame import EndgameSolver, check_solvable
from ga.cli import cli

import reference as ref

FFO = Path(__file__).resolve().parents[2] / "shared" / "ffo" / "ffo-1-79.csv"
ROOT = Path(__file__).resolve().parent.parent
FIRST = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X"  # FFO #1: +18 by g8
FOURTH = "-XXXXXX-X-XXXOO-XOXXXOOXXXOXOOOX-OXOOXXX--OOOXXX--OOXX----XOXXO- X"  # FFO #4: 0 by a5 or h8


@pytest.fixture(autouse=True)
def no_debug(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTHELLO_GA_DEBUG", raising=False)


def run(*args: str, stdin: str = "") -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["solve", *args], input=stdin)
    return result.exit_code, result.stdout, result.stderr


def rows(stdout: str) -> list[list[str]]:
    return [line.split() for line in stdout.splitlines()[1:]]


def test_one_position_quoted_or_as_two_arguments() -> None:
    for args in ([FIRST], FIRST.split()):
        code, out, err = run(*args)
        assert code == 0, err
        (row,) = rows(out)
        assert row[:5] == FIRST.split() + ["14", "+18", "g8"]


@pytest.mark.shows("solve --moves")
def test_every_best_move_and_every_moves_value() -> None:
    code, out, _ = run(FOURTH)
    assert rows(out)[0][4] == "a5|h8"
    position = next(p for p in ref.random_game(3) if 64 - ref.count(p.black | p.white) == 9)
    code, out, _ = run(ref.to_text(position), "--moves", "all")
    values = dict(item.split(":") for item in rows(out)[0][7:])
    assert {ref.square_name(m): f"{v:+d}" for m, v in ref.exact_move_values(position).items()} == values
    assert list(values.values()) == sorted(values.values(), key=int, reverse=True)  # best first


@pytest.mark.shows("solve --csv")
def test_a_file_with_comments_and_a_total(tmp_path: Path) -> None:
    positions = tmp_path / "two.obf"
    positions.write_text(f"; a header\n{FIRST}; G8:+18\n\n{FOURTH}\n")
    code, out, err = run(str(positions), "--csv", str(tmp_path / "out.csv"))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[-2].startswith("total: 2 positions") and lines[-1] == f"wrote {tmp_path / 'out.csv'}"
    with (tmp_path / "out.csv").open() as handle:
        table = list(csv.DictReader(handle))
    assert [(r["position"], r["score"], r["best_moves"]) for r in table] == [(FIRST, "18", "g8"), (FOURTH, "0", "a5|h8")]
    assert all(int(r["nodes"]) > 0 and float(r["seconds"]) >= 0 for r in table)


def test_standard_input_and_csv_to_standard_output() -> None:
    code, out, err = run("-", "--csv", "-", stdin=f"{FIRST}\n")
    assert code == 0
    table = list(csv.DictReader(io.StringIO(out)))  # the data alone on standard output
    assert [(r["score"], r["best_moves"]) for r in table] == [("18", "g8")]
    assert "position" in err.splitlines()[0]  # the table went to standard error


def test_a_finished_game_and_a_pass() -> None:
    finished = "X" * 62 + "-O" + " O"  # nobody can play g8: black wins 62 to 1, the empty square his
    code, out, _ = run(finished)
    assert rows(out)[0][3:5] == ["-62", "-"]
    passing = next(p for seed in range(200) for p in ref.random_game(seed)
                   if ref.must_pass(p) and 64 - ref.count(p.black | p.white) <= 10)
    code, out, _ = run(ref.to_text(passing))
    assert rows(out)[0][3:5] == [f"{ref.exact_value(passing, -65, 65):+d}", "pass"]


def test_the_doctest_of_the_solver() -> None:
    assert doctest.testmod(engine.endgame).failed == 0


@pytest.mark.parametrize(("args", "fragment"), [
    (["XX X"], "neither a position"),
    (["X" + "-" * 64 + " X"], "64 squares, got 65"),
    (["-" * 63 + "Q X"], "invalid character 'Q'"),
    (["-" * 64 + " Z"], "invalid side"),
    (["X" + "-" * 63 + " X"], "white has no discs"),
    (["XO" + "-" * 62 + " X"], "62 empty squares"),
    (["XXOO" + "-" * 60 + " X"], "60 empty squares, more than the 30 allowed"),
    ([FIRST, "--max-empties", "10"], "14 empty squares, more than the 10 allowed"),
    (["--moves", "some", FIRST], "'some' is not one of"),
])
def test_bad_positions_get_one_line(args: list[str], fragment: str) -> None:
    code, out, err = run(*args)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("othello-ga: error: ") and fragment in lines[0], err
    assert out == ""


def test_bad_files_get_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    bad = tmp_path / "bad.obf"
    bad.write_text(f"{FIRST}\n{'X' * 10} O\n")
    empty = tmp_path / "empty.obf"
    empty.write_text("; nothing\n\n")
    binary = tmp_path / "binary.obf"
    binary.write_bytes(b"\xff\xfe" + b"\0" * 10)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    csv_path = tmp_path / "out.csv"
    for args, fragment in (([str(bad)], "bad.obf, line 2"), ([str(empty)], "holds no position"),
                           ([str(binary)], "not a text file"), ([str(fifo)], "not a regular file"),
                           ([str(tmp_path)], "is a directory"), ([str(tmp_path / "none.obf")], "nor an existing file")):
        code, out, err = run(*args, "--csv", str(csv_path))
        assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1, (args, err)
        assert not csv_path.exists()


@pytest.mark.shows("solve --force")
def test_an_existing_csv_is_kept_without_force(tmp_path: Path) -> None:
    csv_path = tmp_path / "out.csv"
    csv_path.write_text("keep")
    code, out, err = run(FIRST, "--csv", str(csv_path))
    assert code == 2 and "--force" in err and csv_path.read_text() == "keep" and out == ""
    code, _, _ = run(FIRST, "--csv", str(csv_path), "--force")
    assert code == 0 and csv_path.read_text().startswith("position,")


@pytest.mark.shows("solve --max-empties")
def test_max_empties_is_the_largest_position_taken() -> None:
    assert run(FIRST, "--max-empties", "14")[0] == 0
    code, _, err = run(FIRST, "--max-empties", "13")
    assert code == 2 and "14 empty squares, more than the 13 allowed" in err


def test_solvable_checks_by_value() -> None:
    check_solvable(Board.from_text(FIRST), 14)
    with pytest.raises(ValueError, match="more than the 13 allowed"):
        check_solvable(Board.from_text(FIRST), 13)


@pytest.mark.skipif(sys.platform == "win32", reason="signals")
def test_ctrl_c_during_a_long_search_ends_at_once_with_130(tmp_path: Path) -> None:
    if not FFO.exists():
        pytest.skip("needs the FFO positions")
    with FFO.open() as handle:
        row = next(r for r in csv.DictReader(handle) if r["number"] == "45")  # 24 empty squares: many seconds
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from ga.launch import main; sys.exit(main())", "solve",
         f"{row['board']} {row['to_move']}", "--csv", str(tmp_path / "out.csv")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )
    time.sleep(3)
    process.send_signal(2)
    out, err = process.communicate(timeout=20)
    assert process.returncode == 130, err
    assert "interrupted after 0 of 1 positions; --csv was not written" in err
    assert "Traceback" not in err and not (tmp_path / "out.csv").exists()


@pytest.mark.shows("bench --only", "bench --ffo")
def test_bench_endgame_rows_alone_and_a_given_ffo_file(tmp_path: Path) -> None:
    if not FFO.exists():
        pytest.skip("needs the FFO positions")
    doctored = tmp_path / "ffo.csv"
    doctored.write_text(FFO.read_text().replace(",G8,+18,", ",G8,+16,", 1))
    result = CliRunner().invoke(cli, ["bench", "--quick", "--repeat", "1", "--only", "endgame", "--ffo", str(doctored)])
    assert result.exit_code == 0, result.output
    rows = result.output.splitlines()[2:-1]  # between the header's load and column lines and the closing load
    assert [line.split("  ")[0] for line in rows] == ["endgame, 24 positions at 12 empty", "endgame FFO #1-#19"]
    assert rows[-1].endswith("WRONG: #1")


def test_bench_names_ffo_positions_not_solved_as_published(tmp_path: Path) -> None:
    from ga.analysis.bench import ffo_time, read_ffo

    if not FFO.exists():
        pytest.skip("needs the FFO positions")
    positions = read_ffo([FFO])
    good = ffo_time(positions, 1, 3, None)
    assert "WRONG" not in good.detail and good.median > 0
    doctored = tmp_path / "ffo.csv"
    text = FFO.read_text().replace(",G8,+18,", ",G8,+16,", 1)  # #1's published score, altered
    doctored.write_text(text)
    assert ffo_time(read_ffo([doctored]), 1, 3, None).detail.endswith("WRONG: #1")


# Edax's fforum-1-19.obf begins so: each position, then every move's published score, best first.
OBF = (f"{FIRST}; G8:+18; H1:+12; H7:+6; A2:+0; A3:-4; B1:-4; A1:-6; H2:-6;\n"
       "--XXXXX--XXXXX--XXXXXXXX-XXXXXXXX-XOOOOO--XOXOO---OXXO--O-XOOO-- O; A3:+0; B8:-2;\n"  # (made up)
       f"{FOURTH}; A5:+0; H8:+0; B1:-4; G7:-12;\n")


def test_ffo_positions_are_read_from_edax_s_obf_files_numbered_by_their_names(tmp_path: Path) -> None:
    from ga.analysis.bench import ffo_sets, read_ffo

    (tmp_path / "fforum-1-3.obf").write_text(OBF)
    (tmp_path / "more.obf").write_text(f"{FIRST}\n\n")  # no published scores: nothing to check it against
    (tmp_path / "fforum-40-40.obf").write_text(f"{FOURTH}; A5:+0; H8:+0;\n")
    positions = read_ffo([tmp_path / "fforum-1-3.obf", tmp_path / "more.obf", tmp_path / "fforum-40-40.obf"])
    assert [p.number for p in positions] == [1, 2, 3, 4, 40]
    assert positions[0].board.to_text() == FIRST and positions[0].best_moves == {"g8"} and positions[0].score == 18
    assert positions[2].best_moves == {"a5", "h8"} and positions[2].score == 0
    assert positions[3].score is None and positions[3].best_moves == frozenset()
    assert ffo_sets(positions) == [(1, 40, None)]  # no whole set: one row of what was given, no target
    assert ffo_sets(positions, quick=True) == []
    (tmp_path / "fforum-1-39.obf").write_text(f"{FIRST}; G8:+18;\n" * 39)
    whole = read_ffo([tmp_path / "fforum-1-39.obf"])
    assert ffo_sets(whole) == [(1, 39, 90.0)] and ffo_sets(whole, quick=True) == [(1, 19, None)]
    with pytest.raises(ValueError, match=r"fforum-1-3.obf', line 2: not a position"):
        (tmp_path / "fforum-1-3.obf").write_text(OBF.replace("O; A3", "Q; A3"))
        read_ffo([tmp_path / "fforum-1-3.obf"])


@pytest.mark.shows("bench --ffo")
def test_bench_solves_the_obf_positions_it_is_given_and_names_those_not_solved_as_published(tmp_path: Path) -> None:
    # The FFO rows needed a CSV at a path of the developers' machines, which bench --quick printed.
    runner = CliRunner()
    bare = runner.invoke(cli, ["bench", "--quick", "--repeat", "1", "--only", "endgame"])
    assert bare.exit_code == 0, bare.output
    assert "(the FFO endgame rows need the positions: --ffo fforum-1-19.obf --ffo fforum-20-39.obf, from Edax's " \
           "repository, folder problem/)" in bare.output
    assert "shared" not in bare.output and "../" not in bare.output
    given = tmp_path / "ffo.obf"
    given.write_text(f"{FIRST}; G8:+18; H1:+12;\n{FOURTH}; A5:+0; H8:+0; B1:-4;\n")
    result = runner.invoke(cli, ["bench", "--repeat", "1", "--only", "endgame", "--ffo", str(given)])
    assert result.exit_code == 0, result.output
    (line,) = [line for line in result.output.splitlines() if line.startswith("endgame FFO")]
    assert line.startswith("endgame FFO #1-#2 ") and "WRONG" not in line
    given.write_text(f"{FIRST}; G8:+18; H1:+12;\n{FOURTH}; A5:+0; B1:-4;\n")  # #2's published moves, altered
    result = runner.invoke(cli, ["bench", "--repeat", "1", "--only", "endgame", "--ffo", str(given)])
    assert [line for line in result.output.splitlines() if line.startswith("endgame FFO")][0].endswith("WRONG: #2")
    given.write_text("not a position\n")
    result = runner.invoke(cli, ["bench", "--only", "endgame", "--ffo", str(given)])
    assert result.exit_code == 2 and "not a position" in result.output and "benchmark" not in result.output
