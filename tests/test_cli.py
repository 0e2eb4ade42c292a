"""The othello-ga command line: evolve, resume, bench, play and how bad input ends."""
from __future__ import annotations

import errno
import inspect
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import click
import pandas as pd
import pytest
from click.testing import CliRunner

from engine import BLACK, WHITE, Board, Player, build_player
import ga.cli
import ga.cli.inspect
import ga.launch
from ga.cli import cli, main
from ga.cli.errors import EXIT_BAD_INPUT
from ga.cli.play import play_human
from ga.launch import memory_problem
from bad_input_cases import TINY_TOML

ROOT = Path(__file__).resolve().parent.parent
QUICK = ROOT / "experiments" / "quick.toml"


@pytest.fixture(autouse=True)
def no_debug(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTHELLO_GA_DEBUG", raising=False)


def tree(path: Path) -> dict[str, bytes]:
    """Returns every file under ``path`` with its bytes (directories as empty entries)."""
    return {str(p.relative_to(path)): (p.read_bytes() if p.is_file() else b"") for p in sorted(path.rglob("*"))}


def assert_one_error_line(stderr: str, *fragments: str) -> None:
    lines = stderr.strip("\n").splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("othello-ga: error: "), stderr
    assert "Traceback" not in stderr
    for fragment in fragments:
        assert fragment in lines[0]


# --- evolve -------------------------------------------------------------------------------------


@pytest.mark.shows("experiment.generations")
def test_evolve_quick_toml(tmp_path: Path) -> None:
    out = tmp_path / "quick"
    result = CliRunner().invoke(cli, ["evolve", str(QUICK), "--out", str(out), "--quiet", "--no-plots"])
    assert result.exit_code == 0, result.output
    assert result.exception is None
    assert re.search(rf"finished 10 generations in [0-9.]+ s \(GA [0-9.]+ s(, the rest [0-9.]+ s: start, files and figures)?\), 640 games; "
                     rf"results in {re.escape(str(out))}", result.output)
    generations = pd.read_csv(out / "generations.csv")
    assert len(generations) == 10
    assert (out / "best_weights.csv").is_file() and (out / "population.csv").is_file()
    assert not list(out.glob("*.png"))  # --no-plots


@pytest.mark.shows("evolve --generations", "evolve --seed", "evolve --out")
def test_main_evolve_with_overrides_returns_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    code = main(["evolve", str(QUICK), "--out", str(out), "--quiet", "--no-plots", "--generations", "3", "--seed", "9"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "finished 3 generations" in captured.out
    assert "seed = 9" in (out / "config.toml").read_text()
    assert len(pd.read_csv(out / "generations.csv")) == 3


@pytest.mark.parametrize(("name", "text", "fragments"), [
    ("missing", None, ["does not exist"]),
    ("unknown-key", TINY_TOML.replace("size = 8", "size = 8\nsizes = 9"), ["population.sizes"]),
    ("bad-value", TINY_TOML.replace("size = 8", "size = -8"), ["population.size", "-8"]),
    ("bad-type", TINY_TOML.replace("size = 8", 'size = "eight"'), ["population.size"]),
    ("bad-opponent", TINY_TOML.replace('["random"]', '["grandmaster:3"]'), ["fitness.opponents[0].spec"]),
    ("not-toml", "[experiment\n", ["not valid TOML"]),
])
def test_bad_config_exits_2_with_one_line_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    name: str, text: str | None, fragments: list[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    config = tmp_path / f"{name}.toml"
    if text is not None:
        config.write_text(text)
    before = tree(tmp_path)
    code = main(["evolve", str(config), "--out", str(tmp_path / "run"), "--quiet", "--no-plots"])
    captured = capsys.readouterr()
    assert code == EXIT_BAD_INPUT == 2
    assert_one_error_line(captured.err, *fragments)
    assert tree(tmp_path) == before  # no run directory, nothing under results/
    # Without --out nothing is written either.
    assert main(["evolve", str(config), "--quiet", "--no-plots"]) == 2
    assert tree(tmp_path) == before


def test_bad_option_value_exits_2_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["evolve", str(QUICK), "--out", str(tmp_path / "run"), "--generations", "0"])
    captured = capsys.readouterr()
    assert code == 2
    assert "--generations" in captured.err and "Traceback" not in captured.err
    assert not (tmp_path / "run").exists()


def test_existing_out_exits_2_and_leaves_the_first_run_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "tiny.toml"
    config.write_text(TINY_TOML)
    out = tmp_path / "run"
    assert main(["evolve", str(config), "--out", str(out), "--quiet", "--no-plots"]) == 0
    capsys.readouterr()
    before = tree(tmp_path)
    code = main(["evolve", str(config), "--out", str(out), "--quiet", "--no-plots", "--seed", "3"])
    captured = capsys.readouterr()
    assert code == 2
    assert_one_error_line(captured.err, "already exists", str(out))
    assert tree(tmp_path) == before


# --- resume -------------------------------------------------------------------------------------


def test_resume_missing_directory_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["resume", str(tmp_path / "nowhere"), "--quiet", "--no-plots"])
    captured = capsys.readouterr()
    assert code == 2
    assert_one_error_line(captured.err, "does not exist")
    assert not (tmp_path / "nowhere").exists()


def test_resume_non_run_directory_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("not a run\n")
    before = tree(tmp_path)
    code = main(["resume", str(tmp_path), "--quiet", "--no-plots"])
    captured = capsys.readouterr()
    assert code == 2
    assert_one_error_line(captured.err, "not a run directory")
    assert tree(tmp_path) == before


@pytest.mark.shows("resume --generations")
def test_resume_extends_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "tiny.toml"
    config.write_text(TINY_TOML)
    out = tmp_path / "run"
    assert main(["evolve", str(config), "--out", str(out), "--quiet", "--no-plots"]) == 0
    assert main(["resume", str(out), "--generations", "4", "--quiet", "--no-plots"]) == 0
    captured = capsys.readouterr()
    assert "finished 4 generations" in captured.out
    assert pd.read_csv(out / "generations.csv")["generation"].tolist() == [0, 1, 2, 3]


# --- bench ----------------------------------------------------------------------------------------


def test_bench_times_the_checkout_it_runs_from(tmp_path: Path) -> None:
    """Its whole-run rows start the tool from the checkout bench itself was loaded from (a copy here), not the
    installed script, which an editable install points at the checkout it was installed from."""
    import shutil

    root = Path(__file__).resolve().parent.parent
    shutil.copytree(root / "ga", tmp_path / "checkout" / "ga", ignore=shutil.ignore_patterns("__pycache__"))
    code = ("import subprocess, sys; sys.path.insert(0, sys.argv[1]); from ga.cli.bench import tool_command; "
            "command, env = tool_command(); "
            "print(subprocess.run([*command[:2], 'import ga; print(ga.__file__)'], env=env, capture_output=True, "
            "text=True, check=True).stdout)")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "checkout")], capture_output=True, text=True,
                          cwd=tmp_path, check=True)
    assert done.stdout.strip() == str(tmp_path / "checkout" / "ga" / "__init__.py")


def test_bench_quick_prints_the_table_with_ratios() -> None:
    result = CliRunner().invoke(cli, ["bench", "--quick", "--repeat", "1"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert re.fullmatch(r"load average \d+\.\d\d on \d+ cores before the first row: (quiet|BUSY, .+)", lines[0])
    assert lines[1].split() == ["benchmark", "median", "unit", "target", "ok", "spread", "also"]
    assert re.fullmatch(r"load average \d+\.\d\d after the last row \(bench itself keeps a core busy\)", lines[-1])
    for name in ("perft 8", "perft 9", "random vs random", "nhand_custom:1 vs random", "nhand_custom:1 vs nhand:2",
                 "naive Python: random vs random"):
        assert any(line.startswith(name + " ") for line in lines), name
    ratios = [line for line in lines if line.startswith("ratio engine / naive Python")]
    assert len(ratios) == 2
    assert all(re.fullmatch(r"ratio engine / naive Python, .+: [\d,]+x", line) for line in ratios)
    assert any(line.startswith("generation, 1 thread ") for line in lines)
    for depth in (2, 3, 4):
        assert any(re.match(rf"alphabeta:{depth} +[\d,]+ games/s .*M nodes/s$", line) for line in lines), depth
        assert any(re.match(rf"alphabeta:{depth} plain +[\d,]+ games/s .*M nodes/s$", line) for line in lines), depth
        assert any(re.fullmatch(rf"ratio alphabeta:{depth} / plain search, same games: \d+\.\d\dx.*", line)
                   for line in lines), depth
    assert any(line.endswith("(target 4x: not judged at --quick's sizes)") for line in lines)
    assert not any(" met)" in line or "NOT met" in line for line in lines)  # --quick judges nothing
    widths = {len(line.split(" games/s")[0]) for line in lines if " games/s" in line}
    assert len(widths) == 1  # every row aligned, the long names included
    assert any(re.fullmatch(r"ratio generation, (\d+) threads / generation, 1 thread: \d+\.\d\dx \(the same games; "
                            r"\1x if every thread had a core of its own\)", line) for line in lines)
    assert any(re.match(r"alphabeta:4, \+ mobility \+ frontier +[\d,]+ games/s", line) for line in lines)
    assert any(re.fullmatch(r"ratio squares \+ mobility \+ frontier / squares alone, alphabeta:4 self-play: "
                            r"\d\.\d\dx.* \(target 0.5x: not judged at --quick's sizes\)", line) for line in lines)
    assert any(re.match(r"endgame, 24 positions at 12 empty +[\d,]+ nodes/s .*\d+\.\d M nodes, \d+\.\d\d s$", line)
               for line in lines)
    # The loop's cost: a whole seed2021 run (20 generations when quick) against its games and the start-up.
    assert any(re.match(r"seed2021: whole run +\d+\.\d{3} s ", line) for line in lines)
    assert any(re.match(r"seed2021: 640 games, one batch +\d+\.\d{3} s ", line) for line in lines)
    assert any(re.match(r"start-up: othello-ga --version +\d+\.\d{3} s ", line) for line in lines)
    # The fixed cost a user pays on the commands typed most: the help and show of a run (not judged when quick).
    assert any(re.match(r"start-up: othello-ga --help +\d+\.\d{3} s +- *$", line) for line in lines)
    assert any(re.match(r"show of a run +\d+\.\d{3} s +- *$", line) for line in lines)
    assert any(re.fullmatch(r"ratio whole run / \(its games \+ start-up\): \d+\.\d\dx \(not judged: a run this short "
                            r"is mostly its start and its figures\)", line) for line in lines)


def test_the_loop_rows_judge_the_run_against_its_games_and_start_up(monkeypatch: pytest.MonkeyPatch) -> None:
    from ga.analysis import bench as bench_module
    from ga.analysis.bench import LOOP_TARGET, loop_overhead, loop_ratio

    ticks = iter([0.0, 0.3, 1.0, 2.2, 3.0, 4.9])  # start-up 0.3 s, games 1.2 s, run 1.9 s
    monkeypatch.setattr(bench_module.time, "perf_counter", lambda: next(ticks))
    rows = loop_overhead("x", run=lambda: None, games=lambda: 32000, startup=lambda: None, repeat=1)
    monkeypatch.undo()
    by_name = {m.name: m for m in rows}
    assert by_name["x: whole run"].median == pytest.approx(1.9)
    assert by_name["x: 32,000 games, one batch"].median == pytest.approx(1.2)
    assert by_name["x: whole run"].target == pytest.approx(LOOP_TARGET * 1.5)
    assert by_name["x: whole run"].meets_target is True  # 1.9 s <= 2.25 s
    assert loop_ratio(rows) == "ratio whole run / (its games + start-up): 1.27x (target 1.5x: met)"
    run = by_name["x: whole run"]
    slow = [type(run)(run.name, "s", 3.0, [3.0], run.target, True), *(m for m in rows if m is not run)]
    assert loop_ratio(slow) == "ratio whole run / (its games + start-up): 2.00x (target 1.5x: NOT met)"
    unjudged = [type(run)(run.name, "s", 3.0, [3.0], None, True), *(m for m in rows if m is not run)]
    assert loop_ratio(unjudged) == ("ratio whole run / (its games + start-up): 2.00x (not judged: a run this short "
                                    "is mostly its start and its figures)")


def test_bench_says_whether_the_machine_was_busy_and_how_far_repeated_runs_stray() -> None:
    from ga.analysis.bench import Measurement, machine_load, row, spread_percent

    assert machine_load(0.5, 2) == "load average 0.50 on 2 cores before the first row: quiet"
    busy = machine_load(0.51, 2)
    assert busy.startswith("load average 0.51 on 2 cores before the first row: BUSY, ") and "no verdict" in busy
    assert machine_load(3.9, 16).endswith(": quiet")  # a quarter of a core each
    assert spread_percent([95.0, 100.0, 105.0, 102.0]) == pytest.approx(100 * 5 / 101)
    rows = [row(Measurement("x", "games/s", 100.0, [95.0, 100.0, 105.0], 90.0)),
            row(Measurement("y", "games/s", 100.0, [100.0], 90.0))]
    assert rows[0].split()[-2:] == ["yes", "±5%"] and rows[1].split()[-1] == "yes"  # one run: no spread


def test_the_search_ratio_is_the_median_of_the_pairs_measured_back_to_back() -> None:
    from ga.analysis.bench import Measurement, ratios

    # The machine's speed drifts between pairs (the second pair ran on a faster machine, the third on a
    # slower one): the pairs' ratios are 4.0x, 4.5x and 6.0x, whose median is 4.5x; the ratio of the
    # two medians (40 / 10) would mix runs from different pairs.
    fast = Measurement("alphabeta:4", "games/s", 40.0, [40.0, 90.0, 30.0])
    plain = Measurement("alphabeta:4 plain", "games/s", 10.0, [10.0, 20.0, 5.0])
    assert ratios([fast, plain]) == ["ratio alphabeta:4 / plain search, same games: 4.50x, 3 pairs 4.00-6.00x "
                                     "(target 4x: met)"]
    assert ratios([fast, plain], judge=False) == ["ratio alphabeta:4 / plain search, same games: 4.50x, 3 pairs "
                                                  "4.00-6.00x (target 4x: not judged at --quick's sizes)"]
    slow = Measurement("alphabeta:6", "games/s", 95.0, [95.0, 190.0, 40.0])
    plain6 = Measurement("alphabeta:6 plain", "games/s", 10.0, [10.0, 20.0, 5.0])
    assert ratios([slow, plain6]) == ["ratio alphabeta:6 / plain search, same games: 9.50x, 3 pairs 8.00-9.50x "
                                      "(target 10x: NOT met)"]
    single = [Measurement("alphabeta:2", "games/s", 3.0, [3.0]), Measurement("alphabeta:2 plain", "games/s", 2.0, [2.0])]
    assert ratios(single) == ["ratio alphabeta:2 / plain search, same games: 1.50x"]


# --- play ----------------------------------------------------------------------------------------------


START_BOARD = "4 . . . O X . . ."


def test_play_shows_the_board_accepts_a_move_and_ends_cleanly_on_eof() -> None:
    result = CliRunner().invoke(cli, ["play", "random", "--seed", "1"], input="d3\n")
    assert result.exit_code == 0, result.output
    assert result.exception is None
    output = result.output
    assert "You play black against random (seed 1)" in output
    assert START_BOARD in output and "Legal moves: d3 c4 f5 e6" in output
    assert "3 . . . X . . . ." in output  # d3 was played
    assert "The computer plays" in output
    assert output.count("Your move: ") == 2  # asked again after the computer's reply, then EOF
    assert output.rstrip().endswith("Bye.")
    assert "Traceback" not in output


def test_play_rejects_bad_and_illegal_squares_with_a_reason() -> None:
    result = CliRunner().invoke(cli, ["play", "random", "--seed", "1"], input="z9\n\n  \na1\nd3\n")
    assert result.exit_code == 0, result.output
    output = result.output
    assert "invalid square name 'z9'" in output
    assert "invalid square name ''" not in output  # an empty line is asked again, without a complaint
    assert output.count("Your move: ") == 6  # z9, two empty lines, a1, d3; then after the computer's reply
    assert "a1 is not a legal move here; legal moves: d3 c4 f5 e6" in output
    assert "3 . . . X . . . ." in output
    assert output.rstrip().endswith("Bye.")


@pytest.mark.shows("play --white")
def test_play_as_white_lets_the_computer_move_first() -> None:
    result = CliRunner().invoke(cli, ["play", "nhand:1", "--white", "--seed", "2"], input="")
    assert result.exit_code == 0, result.output
    output = result.output
    assert "You play white against nhand:1" in output
    assert output.index("The computer plays") < output.index("Your move: ")
    assert output.rstrip().endswith("Bye.")


def test_play_with_a_bad_opponent_spec_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["play", "grandmaster:9"])
    captured = capsys.readouterr()
    assert code == 2
    assert_one_error_line(captured.err, "grandmaster")
    assert main(["play", "lr6"]) == 2
    assert_one_error_line(capsys.readouterr().err, "'lr6'", "did you mean 'lr06'?")


def test_evolve_of_a_missing_config_points_at_the_experiments_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "tiny.toml").write_text(TINY_TOML)
    for given in ("tiny", "tiny.toml", "experiments/tiny"):
        assert main(["evolve", given, "--quiet", "--no-plots"]) == 2
        assert_one_error_line(capsys.readouterr().err, f"config file '{given}' does not exist; "
                                                       "did you mean 'experiments/tiny.toml'?")
    assert main(["evolve", "nothing", "--quiet", "--no-plots"]) == 2
    assert_one_error_line(capsys.readouterr().err, "config file 'nothing' does not exist")
    assert not (tmp_path / "results").exists()


def scripted_human(said: list[str]) -> Callable[[str], str]:
    """Returns an ``ask`` that answers the first legal move of the last "Legal moves:" line said."""
    def ask(prompt: str) -> str:
        assert prompt == "Your move: "
        legal = next(line for line in reversed(said) if line.startswith("Legal moves: "))
        return legal.split()[2]

    return ask


@pytest.mark.parametrize("human", [BLACK, WHITE])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_play_human_plays_a_whole_game(human: int, seed: int) -> None:
    said: list[str] = []
    board = play_human(Player("random"), human, seed, ask=scripted_human(said), say=said.append)
    assert isinstance(board, Board) and board.is_game_over()
    assert not any("is not a legal move" in line or "invalid square" in line for line in said)
    black, white = board.disc_count(BLACK), board.disc_count(WHITE)
    mine, theirs = (black, white) if human == BLACK else (white, black)
    verdict = "You win" if mine > theirs else "You lose" if mine < theirs else "Draw"
    assert said[-1] == f"Game over: black {black}, white {white}. {verdict}."
    assert said[-2] == str(board)
    assert "to move" not in said[-2] and said[-2].splitlines()[-1].startswith("8 ")  # the grid alone, no side to move
    assert sum(line.startswith("The computer plays") for line in said) >= 20


def test_play_human_is_reproducible_for_a_seed() -> None:
    games = []
    for _ in range(2):
        said: list[str] = []
        play_human(build_player("random"), BLACK, 5, ask=scripted_human(said), say=said.append)
        games.append(said)
    assert games[0] == games[1]
    other: list[str] = []
    play_human(build_player("random"), BLACK, 6, ask=scripted_human(other), say=other.append)
    assert other != games[0]


def test_play_human_propagates_eof() -> None:
    def ask(prompt: str) -> str:
        raise EOFError

    with pytest.raises(EOFError):
        play_human(Player("random"), BLACK, 0, ask=ask, say=lambda line: None)


def test_play_help_lists_the_moves_and_quit_ends_the_game() -> None:
    result = CliRunner().invoke(cli, ["play", "random", "--seed", "1"], input="help\nquit\n")
    assert result.exit_code == 0, result.output
    assert "legal moves: d3 c4 f5 e6" in result.output and "You quit." in result.output
    assert "Game over" not in result.output


@pytest.mark.shows("play --black")
def test_play_refuses_both_colours() -> None:
    assert main(["play", "--black", "--white"]) == EXIT_BAD_INPUT


def test_no_arguments_print_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("Usage: othello-ga") and "Commands:" in out and err == ""


def test_evaluate_has_a_default_number_of_games() -> None:
    result = CliRunner().invoke(cli, ["evaluate", "heuristic", "--vs", "random", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "   2000 " in result.output


@pytest.mark.parametrize("error", [
    MemoryError(),
    ImportError("/lib/x.so: failed to map segment from shared object"),
    OSError(errno.ENOMEM, "Cannot allocate memory"),
], ids=["MemoryError", "a library that could not be mapped", "ENOMEM"])
def test_running_out_of_memory_is_one_line_and_exit_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], error: BaseException
) -> None:
    def out_of_memory(*_: object, **__: object) -> None:
        raise error

    monkeypatch.setattr(ga.cli.inspect, "summarize_run", out_of_memory)
    assert main(["show", str(Path(__file__).parents[1] / "results" / "reference" / "seed2021")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("othello-ga: error: out of memory"), err


def test_only_errors_that_mean_out_of_memory_are_reported_as_such() -> None:
    assert memory_problem(ImportError("No module named 'pandas'")) is None
    assert memory_problem(OSError(errno.ENOENT, "No such file")) is None
    assert memory_problem(ValueError("x")) is None
    message = memory_problem(MemoryError())
    assert message is not None and message.startswith("out of memory") and "\n" not in message


def test_the_script_reports_a_failed_start_in_one_line(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    import builtins

    real_import = builtins.__import__

    def failing_import(name: str, *args: object, **kwargs: object) -> object:
        if name == "ga.cli":
            raise ImportError("/site-packages/numpy/_core/_multiarray_umath.so: failed to map segment from shared object")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", failing_import)
    assert ga.launch.main() == 1
    assert capsys.readouterr().err.startswith("othello-ga: error: out of memory")


def test_an_address_space_too_small_for_numpy_s_blas_is_refused_before_it_loads(tmp_path: Path) -> None:
    # A real process under ulimit -v: OpenBLAS, loaded with numpy, would print its own message and exit.
    limit_kib = 200 * 1024
    assert limit_kib * 1024 < ga.launch.MIN_ADDRESS_SPACE
    completed = subprocess.run(
        ["bash", "-c", f'ulimit -v {limit_kib}; exec "{sys.executable}" -c '
                       '"import sys; from ga.launch import main; sys.exit(main())" show "{tmp_path}"'],
        cwd=Path(__file__).parents[1], capture_output=True, text=True, timeout=60,
    )
    assert completed.returncode == 1, completed.stderr
    assert completed.stderr == ("othello-ga: error: out of memory: othello-ga needs at least 384 MiB of address space "
                                "(its numerical libraries reserve much of it), and ulimit -v allows 200 MiB; raise it\n")
    assert "numpy" not in completed.stdout


def test_no_address_space_limit_starts_the_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import resource

    assert ga.launch.address_space_problem() is None or resource.getrlimit(resource.RLIMIT_AS)[0] < 384 * 2**20
    monkeypatch.setattr(resource, "getrlimit", lambda _: (ga.launch.MIN_ADDRESS_SPACE, resource.RLIM_INFINITY))
    assert ga.launch.address_space_problem() is None
    monkeypatch.setattr(resource, "getrlimit", lambda _: (ga.launch.MIN_ADDRESS_SPACE - 1, resource.RLIM_INFINITY))
    assert "ulimit -v allows 383 MiB" in str(ga.launch.address_space_problem())


def test_play_a_run_directory_searches_as_deep_as_the_run_trained() -> None:
    # play RUN_DIR played the engine evaluation 1 ply deep, where the run trained at depths 1-4.
    from engine.board import square_name
    from ga.games.seeds import derive_seed
    from ga.weights import load_evaluation

    run = ROOT / "results" / "reference" / "engine"
    result = CliRunner().invoke(cli, ["play", str(run), "--white", "--seed", "5"], input="quit\n")
    assert result.exit_code == 0, result.output
    spec = f"alphabeta:4@{run / 'best_evaluation.json'},end=8"
    assert result.output.startswith(f"You play white against {spec} (seed 5).")
    first = build_player(spec, load_weights=load_evaluation).choose(Board(), derive_seed(5, 0))
    assert f"The computer plays {square_name(first)}." in result.output
    table = CliRunner().invoke(cli, ["play", str(ROOT / "results" / "reference" / "strong")], input="quit\n")
    assert f"against wpc:1@{ROOT / 'results' / 'reference' / 'strong' / 'best_weights.csv'} " in table.output


# --- the command list, loaded lazily ---------------------------------------------------------------


def test_help_lists_the_commands_without_loading_them() -> None:
    # Each command's module (numpy, the engine, pandas behind it) loads only when it runs: --help needs none.
    code = ("import sys; from ga.cli import main; main(['--help']); "
            "print(sorted(m for m in sys.modules if m in ('numpy', 'pandas', 'engine') or m.startswith('ga.cli.')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    *help_lines, loaded = result.stdout.strip().splitlines()
    assert loaded == "['ga.cli.errors']"
    listed = help_lines[help_lines.index("Commands:") + 1:]
    assert [line.split()[0] for line in listed] == sorted(ga.cli.COMMANDS)


def test_the_command_table_is_the_commands_own_module_and_help() -> None:
    for name, (module, text) in ga.cli.COMMANDS.items():
        command = ga.cli.load_command(name)
        assert command.name == name and command.callback.__module__ == module
        # The first paragraph of the command's help: edit COMMANDS when a command's first paragraph changes.
        assert inspect.cleandoc(command.help or "").split("\n\n")[0].replace("\n", " ") == text, name


@pytest.mark.parametrize("width", [60, 80, 120])
def test_the_lazy_command_list_is_the_list_click_makes_from_the_commands(width: int) -> None:
    eager = click.Group("othello-ga", commands=[ga.cli.load_command(name) for name in ga.cli.COMMANDS])

    def command_list(group: click.Group) -> str:
        formatter = click.HelpFormatter(width=width)
        group.format_commands(click.Context(group), formatter)  # the lazy group's own, the eager one click's
        return formatter.getvalue()

    assert command_list(ga.cli.cli) == command_list(eager)
    assert command_list(ga.cli.cli).startswith("Commands:\n  bench ")


def test_every_command_runs_through_the_lazy_group() -> None:
    assert sorted(ga.cli.cli.commands) == sorted(ga.cli.COMMANDS)
    result = CliRunner().invoke(cli, ["solve", "--help"])
    assert result.exit_code == 0 and "POSITION_OR_FILE" in result.output
    assert CliRunner().invoke(cli, ["no-such-command"]).exit_code == 2


def test_the_ffo_rows_compare_with_the_figures_before_and_the_blog_line_with_its_program(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from ga.analysis import bench as bench_module
    from ga.analysis.bench import BLOG_SECONDS, FFO_BEFORE, Measurement, blog_ratio, ffo_time, read_ffo

    ffo = ROOT.parent / "shared" / "ffo" / "ffo-1-79.csv"
    if not ffo.is_file():
        pytest.skip(f"the FFO positions are not at {ffo}")
    monkeypatch.setitem(FFO_BEFORE, (1, 5), 1_000_000)  # a made-up "before" for a set quick to solve
    measurement = ffo_time(read_ffo([ffo]), 1, 5, None)
    assert re.fullmatch(r"[\d,]+ M nodes, \d+\.\d M nodes/s; before 1 M nodes \(\d+\.\d\dx the nodes\)",
                        measurement.detail), measurement.detail
    run = Measurement("seed2021: whole run", "s", BLOG_SECONDS / 8, [BLOG_SECONDS / 8], target=3.0,
                      lower_is_better=True)
    assert blog_ratio([run]) == (f"ratio the blog's C++ program ({BLOG_SECONDS:g} s, measured on another day) / "
                                 "whole run: 8.0x (target 10x in the same minutes: NOT met by this estimate)")
    assert blog_ratio([Measurement(run.name, "s", 1.0, [1.0], target=None, lower_is_better=True)]) is None
    assert bench_module.SHOW_TARGET == 0.5 and bench_module.HELP_TARGET == 0.3


def test_export_help_names_every_built_in() -> None:
    # export --help listed the tables up to reference-seed2021, without deep, and no evaluation after engine.
    from engine.players import BUILTIN_NAMES

    text = " ".join(CliRunner().invoke(cli, ["export", "--help"]).output.split()).replace("- ", "-")  # unwrapped
    for name in BUILTIN_NAMES:
        assert re.search(rf"[ (]{re.escape(name)}[,)]", text), name
