"""Tests for the commands that use runs (plot, compare, export, evaluate, show) on synthetic run directories."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import click
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner, Result

from engine import TABLES
from ga.analysis.summary import summarize_run
from ga.cli import main
from ga.cli.evaluate import CSV_COLUMNS, evaluate
from ga.cli.export import export
from ga.cli.inspect import compare, plot, show
from ga.config import config_from_dict, config_to_toml
from ga.rundir.layout import RunDirError, check_run_dir
from ga.rundir.resolve import builtin_table, resolve_player, resolve_weights
from ga.weights import FORMAT_BY_SUFFIX, FORMATS, format_weights, load_weights

ROOT = Path(__file__).resolve().parent.parent

OPPONENTS = ("random", "nhand:1")
SUFFIX = {fmt: suffix for suffix, fmt in reversed(FORMAT_BY_SUFFIX.items())}


def write_run(run_dir: Path, *, generations: int = 12, planned: int = 20, finished: bool = True) -> Path:
    """Writes a run directory shaped like the one ``othello-ga evolve`` produces.

    An unfinished run stops before the population and the weight tables are written.
    """
    rng = np.random.default_rng(len(run_dir.name))
    run_dir.mkdir(parents=True)
    config = config_from_dict(
        {
            "experiment": {"name": "synthetic", "seed": 7, "generations": planned},
            "population": {"size": 4, "parents": 2},
            "fitness": {"opponents": list(OPPONENTS), "draw": "all"},
        }
    )
    (run_dir / "config.toml").write_text(config_to_toml(config))
    games, rows = [], []
    for generation in range(generations):
        outcomes = []
        for individual in range(4):
            for opponent in OPPONENTS:
                for colour in ("black", "white"):
                    disc_diff = int(rng.integers(-30, 40))
                    games.append((generation, individual, opponent, colour, int(rng.integers(1 << 40)), disc_diff))
                    outcomes.append((opponent, disc_diff))
        wins = sum(diff > 0 for _, diff in outcomes)
        draws = sum(diff == 0 for _, diff in outcomes)
        fitness = rng.random(4)
        rows.append(
            {
                "generation": generation, "games": len(outcomes), "wins": wins, "draws": draws,
                "losses": len(outcomes) - wins - draws, "win_rate": (wins + draws / 2) / len(outcomes),
                **{
                    f"win_rate_vs_{opponent}": np.mean(
                        [1.0 if d > 0 else 0.5 if d == 0 else 0.0 for o, d in outcomes if o == opponent]
                    )
                    for opponent in OPPONENTS
                },
                "fitness_min": fitness.min(), "fitness_mean": fitness.mean(), "fitness_max": fitness.max(),
                "fitness_std": fitness.std(), "best_fitness": fitness.max(), "diversity": 0.5,
                "evaluate_s": 0.01, "generation_s": 0.02,
            }
        )
    pd.DataFrame(rows).to_csv(run_dir / "generations.csv", index=False)
    pd.DataFrame(
        games, columns=["generation", "individual", "opponent", "colour", "seed", "disc_diff"]
    ).to_csv(run_dir / "games.csv", index=False)
    manifest = {
        "experiment": "synthetic", "seed": 7, "generations_planned": planned,
        "generations_done": generations, "games_played": len(games), "started": "2024-05-01T10:00:00",
        "finished": "2024-05-01T10:01:40" if finished else None, "wall_s": 100.5,
        "status": "finished" if finished else "interrupted",
        "command": ["othello-ga", "evolve", "experiments/synthetic.toml"], "versions": {"python": "3.11"},
    }
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    (run_dir / "checkpoint.json").write_text("{}")
    if finished:
        population = rng.uniform(-1, 1, size=(4, 64))
        pd.DataFrame(population, columns=[f"w{i}" for i in range(64)]).to_csv(run_dir / "population.csv", index=False)
        (run_dir / "best_weights.csv").write_text(format_weights(population[0], "csv"))
        (run_dir / "mean_weights.csv").write_text(format_weights(population.mean(axis=0), "csv"))
        pd.DataFrame(population[:2], columns=[f"w{i}" for i in range(64)]).to_csv(
            run_dir / "hall_of_fame.csv", index=False
        )
    return run_dir


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return write_run(tmp_path / "run-a")


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def invoke(runner: CliRunner, command: click.Command, args: Sequence[object]) -> Result:
    return runner.invoke(command, [str(arg) for arg in args], catch_exceptions=False)


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Returns {relative path: (size, mtime_ns)} of everything under ``root``."""
    return {
        str(path.relative_to(root)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in sorted(root.rglob("*"))
    }


# ---------------------------------------------------------------- show


def test_show_summarizes_a_finished_run(runner: CliRunner, run_dir: Path) -> None:
    result = invoke(runner, show, [run_dir])
    assert result.exit_code == 0, result.output
    text = result.stdout
    for expected in ("synthetic", "seed          7", "12 of 20", "finished", "1m 40s",
                     "othello-ga evolve experiments/synthetic.toml", "generations.csv",
                     "population.csv", "best_weights.csv", "Best table"):
        assert expected in text, expected
    assert "first" in text and "last" in text and "best" in text
    grid = text.split("Best table")[1].splitlines()
    assert grid[1].split() == list("abcdefgh")
    assert [line.split()[0] for line in grid[2:10]] == [str(rank) for rank in range(1, 9)]
    best = load_weights(run_dir / "best_weights.csv")
    assert float(grid[2].split()[1]) == pytest.approx(best[0], abs=0.006)  # a1
    assert float(grid[9].split()[8]) == pytest.approx(best[63], abs=0.006)  # h8


def test_show_summarizes_what_an_interrupted_run_has(runner: CliRunner, tmp_path: Path) -> None:
    run = write_run(tmp_path / "stopped", generations=3, planned=50, finished=False)
    result = invoke(runner, show, [run])
    assert result.exit_code == 0, result.output
    assert "interrupted" in result.stdout
    assert "3 of 50" in result.stdout
    assert "not written" in result.stdout
    assert "missing:" not in result.stdout  # an interrupted run has no results yet: nothing is missing


def test_summarize_run_without_a_manifest(tmp_path: Path, run_dir: Path) -> None:
    (run_dir / "manifest.json").unlink()
    text = summarize_run(run_dir)
    assert "unknown (no manifest.json)" in text
    assert "synthetic" in text  # from config.toml
    assert "12" in text


def test_check_run_dir(tmp_path: Path, run_dir: Path) -> None:
    assert check_run_dir(run_dir) == run_dir
    with pytest.raises(RunDirError, match="does not exist"):
        check_run_dir(tmp_path / "nope")
    with pytest.raises(RunDirError, match="is not a run directory"):
        check_run_dir(tmp_path)
    with pytest.raises(RunDirError, match="is not a run directory"):
        check_run_dir(run_dir / "games.csv")


# ---------------------------------------------------------------- plot and compare


@pytest.mark.shows("plot --format")
def test_plot_writes_the_figures_and_lists_them(runner: CliRunner, run_dir: Path) -> None:
    result = invoke(runner, plot, [run_dir, "--format", "svg"])
    assert result.exit_code == 0, result.output
    listed = [Path(line) for line in result.stdout.splitlines()]
    assert {path.name for path in listed} == {
        "win_rate.svg", "win_rate_by_opponent.svg", "opponent_bars.svg", "fitness.svg",
        "best_weights.svg", "mean_weights.svg",
    }
    assert all(path.parent == run_dir / "plots" and path.is_file() for path in listed)
    assert not [path for path in run_dir.iterdir() if path.name.startswith(".")]  # no scratch left


def test_plot_of_an_interrupted_run_warns_about_missing_tables(runner: CliRunner, tmp_path: Path) -> None:
    run = write_run(tmp_path / "stopped", generations=3, finished=False)
    result = invoke(runner, plot, [run])
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 4
    warnings = result.stderr.splitlines()
    assert len(warnings) == 2
    assert all(line.startswith("othello-ga: warning:") and "weights.csv" in line for line in warnings)


def test_compare_writes_one_figure(runner: CliRunner, tmp_path: Path, run_dir: Path) -> None:
    other = write_run(tmp_path / "run-b", generations=20)
    result = invoke(runner, compare, [run_dir, other, "-o", tmp_path / "both.pdf"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "both.pdf").read_bytes().startswith(b"%PDF-")
    assert result.stdout.strip() == str(tmp_path / "both.pdf")
    # Runs in two folders: the figure goes to the folder holding both.
    (tmp_path / "a").mkdir()
    moved = write_run(tmp_path / "a" / "run-c", generations=20)
    result = invoke(runner, compare, [moved, other])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(tmp_path / "compare.png") and (tmp_path / "compare.png").is_file()


def test_compare_says_each_curve_s_window_and_what_it_is_against(tmp_path: Path) -> None:
    from matplotlib.figure import Figure

    import ga.analysis.plots as plots

    fixed = write_run(tmp_path / "fixed", generations=12)
    coevolving = write_run(tmp_path / "coevolving", generations=20)
    settings = (coevolving / "config.toml").read_text().replace("coevolution = 0\n", "coevolution = 4\n")
    assert "coevolution = 4" in settings
    (coevolving / "config.toml").write_text(settings)
    drawn: list[Figure] = []
    image = plots._image

    def keep(figure: Figure, fmt: str, **options: object) -> bytes:
        drawn.append(figure)
        return image(figure, fmt, release=False)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(plots, "_image", keep)
        plots.compare_figure([fixed, coevolving], "png")
    (axes,) = drawn[0].axes
    assert axes.get_title() == ("Rolling win rate with pooled 95% Wilson bands:\neach curve a rolling mean over a "
                                "twentieth of its run, as its label says")
    labels = [text.get_text() for text in axes.get_legend().get_texts()]
    assert labels == ["synthetic (fixed), vs fixed opponents, mean of 1 gen",
                      "synthetic (coevolving), vs fixed opponents and the population, mean of 1 gen"]
    assert any("not one yardstick" in text.get_text() and "0.5 is expected" in text.get_text()
               for text in axes.texts)


@pytest.mark.shows("compare --force")
def test_compare_defaults_to_the_runs_folder_and_never_replaces_without_force(
    runner: CliRunner, tmp_path: Path, run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # not where the runs are: nothing is made here
    result = invoke(runner, compare, [run_dir, run_dir, "--format", "svg"])
    assert result.exit_code == 0, result.output
    figure = run_dir.parent / "compare.svg"
    assert figure.is_file() and result.stdout.strip() == str(figure)
    assert list(elsewhere.iterdir()) == []
    assert [path.name for path in run_dir.parent.iterdir() if path.name.startswith(".")] == []
    before = figure.read_bytes()
    again = invoke(runner, compare, [run_dir, "--format", "svg"])
    assert again.exit_code == 2 and "pass --force" in again.output and figure.read_bytes() == before
    assert invoke(runner, compare, [run_dir, "--format", "svg", "--force"]).exit_code == 0
    assert figure.read_bytes() != before


# ---------------------------------------------------------------- export


@pytest.mark.parametrize("fmt", [fmt for fmt in FORMATS if fmt != "npy"])
def test_export_to_stdout_round_trips(runner: CliRunner, run_dir: Path, tmp_path: Path, fmt: str) -> None:
    result = invoke(runner, export, [run_dir, "--format", fmt])
    assert result.exit_code == 0, result.output
    path = tmp_path / f"exported{SUFFIX[fmt]}"
    path.write_text(result.stdout)
    assert_read_back(load_weights(path), load_weights(run_dir / "best_weights.csv"), fmt)


def assert_read_back(read: np.ndarray, table: np.ndarray, fmt: str) -> None:
    """Every format reads back as the table: exactly, or for markdown to the digits it shows."""
    if fmt == "markdown":  # four significant digits of the largest weight: half a unit of the last one
        largest = np.abs(table).max()
        np.testing.assert_allclose(read, table, atol=0.5 * 10.0 ** (np.floor(np.log10(largest)) - 3))
        assert not np.array_equal(read, table)  # rounded, not every digit
    else:
        assert np.array_equal(read, table)


@pytest.mark.shows("export --output", "export --which", "export --format")
@pytest.mark.parametrize("fmt", FORMATS)
def test_export_to_a_file_round_trips(runner: CliRunner, run_dir: Path, tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"mean{SUFFIX[fmt]}"
    result = invoke(runner, export, [run_dir, "--which", "mean", "--format", fmt, "-o", path])
    assert result.exit_code == 0, result.output
    assert_read_back(load_weights(path), load_weights(run_dir / "mean_weights.csv"), fmt)


@pytest.mark.shows("export --scale", "export --round")
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.filterwarnings("ignore:rounding to integers merges distinct weights")
def test_export_scaled_and_rounded_built_in_table(runner: CliRunner, tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"lr06{SUFFIX[fmt]}"
    result = invoke(runner, export, ["lr06", "--format", fmt, "--scale", 100, "--round", "-o", path])
    assert result.exit_code == 0, result.output
    weights = load_weights(path)
    assert np.abs(weights).max() == 100
    assert np.array_equal(weights, np.rint(weights))
    assert np.array_equal(weights, np.rint(np.array(TABLES["lr06"]) / max(map(abs, TABLES["lr06"])) * 100))


def test_export_a_weights_file(runner: CliRunner, tmp_path: Path) -> None:
    source = tmp_path / "in.json"
    source.write_text(json.dumps({"weights": list(range(64))}))
    result = invoke(runner, export, [source, "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "0.0,1.0,2.0,3.0,4.0,5.0,6.0,7.0"


def test_exported_csv_is_plain_rows_any_csv_reader_takes(runner: CliRunner, tmp_path: Path) -> None:
    result = invoke(runner, export, ["lr06", "--format", "csv", "-o", tmp_path / "lr06.csv"])
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(tmp_path / "lr06.csv", header=None)
    assert frame.shape == (8, 8)
    assert np.array_equal(frame.to_numpy().ravel(), np.array(TABLES["lr06"]))


def test_rounding_that_merges_weights_is_refused_without_a_scale_and_told_with_one(runner: CliRunner) -> None:
    refused = invoke(runner, export, ["heuristic", "--format", "c", "--round"])
    assert refused.exit_code == 2 and refused.stdout == ""
    assert "merges distinct weights" in refused.output and "--scale" in refused.output
    warned = invoke(runner, export, ["heuristic", "--format", "c", "--round", "--scale", "10"])
    assert warned.exit_code == 0 and "warning: rounding to integers merges distinct weights" in warned.output
    clean = invoke(runner, export, ["heuristic", "--format", "c", "--round", "--scale", "100"])
    assert clean.exit_code == 0 and "warning" not in clean.output and "100, -25, 10, 5, 5, 10, -25, 100" in clean.stdout


@pytest.mark.parametrize("which", ["mean", "ga_best"])
def test_which_is_refused_for_a_single_table(runner: CliRunner, which: str) -> None:
    result = invoke(runner, export, ["heuristic", "--format", "csv", "--which", which])
    assert result.exit_code == 2 and "selects a table of a run directory" in result.output


@pytest.mark.shows("export --force")
def test_export_force_replaces_an_existing_file(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    path.write_text("old")
    result = invoke(runner, export, ["classic", "--format", "csv", "-o", path, "--force"])
    assert result.exit_code == 0, result.output
    assert np.array_equal(load_weights(path), np.array(TABLES["classic"]))


def test_builtin_table_reads_the_engine_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    assert np.array_equal(builtin_table("sjk11"), np.array(TABLES["sjk11"]))
    assert builtin_table("nope") is None
    monkeypatch.setitem(TABLES, "reference", tuple(float(i) for i in range(64)))
    weights, description = resolve_weights("reference")
    assert weights[5] == 5.0 and description == "built-in table reference"


def test_resolve_player() -> None:
    weights, label, run = resolve_player("heuristic")
    assert np.array_equal(weights, np.array(TABLES["heuristic"])) and run is None
    assert resolve_player("nhand:2")[:2] == ("nhand:2", "nhand:2")


# ---------------------------------------------------------------- evaluate


def test_evaluate_a_run_warns_about_training_opponents(runner: CliRunner, run_dir: Path, tmp_path: Path) -> None:
    csv_path = tmp_path / "scores.csv"
    args = [run_dir, "--vs", "random", "--vs", "nmost:1", "--vs", "nhand:1", "--games", 40, "--csv", csv_path]
    result = invoke(runner, evaluate, [*args, "--workers", 1])
    assert result.exit_code == 0, result.output
    warnings = result.stderr.splitlines()
    assert len(warnings) == 2
    assert "'random' was a training opponent" in warnings[0]
    assert "'nhand:1' was a training opponent" in warnings[1]
    rows = pd.read_csv(csv_path)
    assert tuple(rows.columns) == CSV_COLUMNS
    assert list(rows["opponent"]) == ["random", "nmost:1", "nhand:1"]
    assert (rows["games"] == 40).all()
    assert (rows["wins"] + rows["draws"] + rows["losses"] == 40).all()
    assert ((rows["score_low"] <= rows["score"]) & (rows["score"] <= rows["score_high"])).all()
    for opponent in ("random", "nmost:1", "nhand:1"):
        assert any(line.startswith(opponent) for line in result.stdout.splitlines())
    # The same games with two workers.
    again = invoke(runner, evaluate, [*args[:-2], "--workers", 2])
    assert again.stdout == result.stdout.replace(f"wrote {csv_path}\n", "")


def test_evaluate_a_spec_and_a_table(runner: CliRunner) -> None:
    result = invoke(runner, evaluate, ["nhand:2", "--vs", "random", "--games", 10, "--seed", 3])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert "player    nhand:2" in result.stdout
    result = invoke(runner, evaluate, ["lr06", "--vs", "wpc:1@lr06", "--games", 10, "--eps", 0.5])
    assert result.exit_code == 0, result.output
    assert "wpc:1@lr06,eps=0.5" in result.stdout


@pytest.mark.shows("evaluate --protocol")
def test_evaluate_protocols(runner: CliRunner) -> None:
    league = invoke(runner, evaluate, ["lr06", "--games", 20, "--protocol", "league"])
    assert league.exit_code == 0, league.output
    assert "wpc:1@heuristic,eps=0.1" in league.stdout
    eu = invoke(runner, evaluate, ["lr06", "--games", 10, "--protocol", "eu"])
    assert eu.exit_code == 0, eu.output
    assert "eu(random U(-1,1) tables)" in eu.stdout
    (row,) = [line for line in eu.stdout.splitlines() if line.startswith("eu(")]
    assert row[len("eu(random U(-1,1) tables)") :].split()[0] == "20"  # each table played twice


def test_the_ladder_header_names_the_player_both_sides_play(runner: CliRunner, run_dir: Path) -> None:
    # Both sides play alphabeta:d at each depth: the header says so, for a run, a table and a spec alike.
    best = run_dir / "best_weights.csv"
    for source, player in ((run_dir, f"alphabeta:d@{best}"), ("lr06", "alphabeta:d with built-in table lr06"),
                           ("wpc:1@sjk11", "alphabeta:d@sjk11")):
        result = invoke(runner, evaluate, [source, "--protocol", "ladder", "--depths", "1,2", "--games", 2,
                                           "--csv", "-"])
        assert result.exit_code == 0, result.output
        header = result.stderr.splitlines()[:2]  # with --csv -, the report is on standard error, the CSV alone out
        assert header[0].startswith(f"player    {player}") and "wpc:1" not in header[0], header
        assert header[1] == "protocol  ladder, seed 0, depths 1, 2"
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        assert len(rows) == 8 and all(row["player"] == header[0].removeprefix("player    ") for row in rows)  # the CSV's too


# ---------------------------------------------------------------- bad input


def bad_weights(tmp_path: Path) -> dict[str, Path]:
    files = {
        "short": ("short.csv", ",".join(["1"] * 63)),
        "nan": ("nan.csv", ",".join(["1"] * 63 + ["nan"])),
        "text": ("text.csv", "hello world\n"),
        "json": ("bad.json", "{not json"),
    }
    paths = {}
    for key, (name, text) in files.items():
        paths[key] = tmp_path / name
        paths[key].write_text(text)
    return paths


BAD_INPUTS = [
    ("show", ["{tmp}/missing"], "does not exist"),
    ("show", ["{tmp}"], "is not a run directory"),
    ("show", [], "Missing argument"),
    ("plot", ["{tmp}/missing"], "does not exist"),
    ("plot", ["{tmp}"], "is not a run directory"),
    ("plot", ["{run}", "--format", "bmp"], "'bmp' is not one of"),
    ("compare", ["{run}", "{tmp}/missing", "-o", "{tmp}/c.png"], "does not exist"),
    ("compare", ["{run}", "-o", "{tmp}/c.bmp"], "image format"),
    ("compare", ["{run}", "-o", "{tmp}/no/dir/c.png"], "does not exist"),
    ("export", ["{tmp}/missing", "--format", "csv"], "does not exist"),
    ("export", ["{tmp}/missing.csv", "--format", "csv"], "does not exist"),
    ("export", ["{tmp}", "--format", "csv"], "is not a run directory"),
    ("export", ["nosuchtable", "--format", "csv"], "built-in table"),
    ("export", ["lr06", "--format", "xml"], "'xml' is not one of"),
    ("export", ["lr06"], "Missing option '--format'"),
    ("export", ["{short}", "--format", "csv"], "expected 64 numbers, found 63"),
    ("export", ["{nan}", "--format", "csv"], "not a finite number"),
    ("export", ["{text}", "--format", "csv"], "is not a number"),
    ("export", ["{json}", "--format", "csv"], "invalid JSON"),
    ("export", ["lr06", "--format", "npy"], "npy is binary"),
    ("export", ["lr06", "--format", "csv", "--scale", "-1"], "scale"),
    ("export", ["lr06", "--format", "c", "--name", "not a name"], "identifier"),
    ("export", ["lr06", "--format", "csv", "-o", "{existing}"], "already exists; pass --force"),
    ("export", ["lr06", "--format", "csv", "-o", "{tmp}/no/dir/w.csv"], "does not exist"),
    ("export", ["lr06", "--format", "csv", "-o", "{existing}/w.csv"], "does not exist"),
    ("export", ["lr06", "--format", "csv", "-o", "{tmp}/w.json"], "reads as json"),
    ("export", ["lr06", "--format", "csv", "-o", "{tmp}"], "is a directory"),
    ("export", ["{stopped}", "--format", "csv"], "has no best_weights.csv"),
    ("evaluate", ["lr06", "--vs", "chess:2", "--games", "4"], "unknown player kind 'chess'"),
    ("evaluate", ["lr06", "--vs", "LR06", "--games", "4"], "malformed player spec 'LR06'; did you mean 'lr06'?"),
    ("evaluate", ["lr06", "--vs", "lr6,eps=0.1", "--games", "4"], "did you mean 'lr06'?"),
    ("evaluate", ["lr06", "--vs", "wpc:1@sjk1", "--games", "4"], "unknown weights table 'sjk1' in spec "
                                                                  "'wpc:1@sjk1'; did you mean 'sjk11'?"),
    ("evaluate", ["lr06", "--vs", "nhnd:2", "--games", "4"], "unknown player kind 'nhnd' in spec 'nhnd:2'; "
                                                              "did you mean 'nhand'?"),
    ("evaluate", ["lr06", "--vs", "wpc:1@{tmp}/missing.csv", "--games", "4"], "does not exist"),
    ("evaluate", ["lr06", "--vs", "wpc:1@{short}", "--games", "4"], "expected 64 numbers"),
    ("evaluate", ["lr06", "--vs", "human", "--games", "4"], "human"),
    ("evaluate", ["{short}", "--vs", "random", "--games", "4"], "expected 64 numbers"),
    ("evaluate", ["{nan}", "--vs", "random", "--games", "4"], "not a finite number"),
    ("evaluate", ["{text}", "--vs", "random", "--games", "4"], "is not a number"),
    ("evaluate", ["{tmp}/missing.csv", "--vs", "random", "--games", "4"], "does not exist"),
    ("evaluate", ["chess", "--vs", "random", "--games", "4"], "unknown player kind"),
    ("evaluate", ["{tmp}", "--vs", "random", "--games", "4"], "is not a run directory"),
    ("evaluate", ["{stopped}", "--vs", "random", "--games", "4"], "has no best_weights.csv"),
    ("evaluate", ["lr06", "--games", "4"], "at least one opponent"),
    ("evaluate", ["lr06", "--vs", "random", "--games", "0"], "--games"),
    ("evaluate", ["lr06", "--vs", "random", "--games", "4", "--eps", "2"], "--eps"),
    ("evaluate", ["lr06", "--vs", "random", "--games", "4", "--protocol", "swiss"], "'swiss' is not one of"),
    ("evaluate", ["lr06", "--games", "4", "--protocol", "league", "--eps", "0.2"], "eps = 0.1"),
    ("evaluate", ["lr06", "--vs", "random", "--games", "4", "--protocol", "eu"], "eu protocol"),
    ("evaluate", ["alphabeta:2@lr06", "--games", "4", "--protocol", "league"], "1-ply"),
    ("evaluate", ["lr06", "--vs", "random", "--games", "4", "--csv", "{existing}"], "already exists"),
    ("evaluate", ["lr06", "--vs", "random", "--games", "4", "--csv", "{tmp}/no/s.csv"], "does not exist"),
]


@pytest.mark.parametrize("command_name, template, message", BAD_INPUTS)
def test_bad_input_fails_with_one_line_and_writes_nothing(
    runner: CliRunner, tmp_path: Path, command_name: str, template: list[str], message: str
) -> None:
    command = {"show": show, "plot": plot, "compare": compare, "export": export, "evaluate": evaluate}[command_name]
    run = write_run(tmp_path / "run")
    stopped = write_run(tmp_path / "stopped", generations=2, finished=False)
    existing = tmp_path / "existing.csv"
    existing.write_text("keep me\n")
    names = {"tmp": tmp_path, "run": run, "stopped": stopped, "existing": existing, **bad_weights(tmp_path)}
    before = snapshot(tmp_path)
    result = invoke(runner, command, [part.format(**names) for part in template])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("othello-ga: error: ")
    assert message in lines[0]
    assert "Traceback" not in result.output
    assert snapshot(tmp_path) == before
    assert existing.read_text() == "keep me\n"


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root may write anywhere")
def test_unwritable_output_directory(runner: CliRunner, tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        result = invoke(runner, export, ["lr06", "--format", "csv", "-o", locked / "w.csv"])
        assert result.exit_code == 2
        assert result.stderr.count("\n") == 1 and "not writable" in result.stderr
        assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o700)


def test_evaluate_eu_warns_when_the_run_trained_on_random_tables(runner: CliRunner, run_dir: Path,
                                                                  tmp_path: Path) -> None:
    # run_dir trained without random tables: no warning about them.
    quiet = invoke(runner, evaluate, [run_dir, "--protocol", "eu", "--games", 10, "--workers", 1])
    assert quiet.exit_code == 0, quiet.output
    assert "random U(-1, 1) tables" not in quiet.stderr
    trained = tmp_path / "trained"
    shutil.copytree(run_dir, trained)
    config = (trained / "config.toml").read_text()
    assert "random_table_games = 0\n" in config  # a run's config.toml lists every key
    (trained / "config.toml").write_text(config.replace("random_table_games = 0\n", "random_table_games = 2\n"))
    result = invoke(runner, evaluate, [trained, "--protocol", "eu", "--games", 10, "--workers", 1])
    assert result.exit_code == 0, result.output
    warnings = result.stderr.splitlines()
    assert len(warnings) == 1 and "trained against random U(-1, 1) tables" in warnings[0]
    assert result.stdout == quiet.stdout.replace(str(run_dir), str(trained))
    # Other protocols do not play random tables: no warning.
    league = invoke(runner, evaluate, [trained, "--protocol", "league", "--games", 10, "--workers", 1])
    assert league.exit_code == 0 and "random U(-1, 1)" not in league.stderr


# --- a run's own player ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def phase_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from ga.evolution.run import evolve

    run_dir = tmp_path_factory.mktemp("phase") / "run"
    evolve(config_from_dict({
        "experiment": {"seed": 1, "generations": 2}, "population": {"size": 6, "parents": 4, "genome": "phase",
                                                                    "phase_move": 59},
        "selection": {"tournament_size": 2}, "fitness": {"opponents": ["random"], "games_per_opponent": 2},
        "compute": {"workers": 1}}), out=run_dir)
    return run_dir


@pytest.mark.shows("population.phase_move")
def test_evaluate_a_run_plays_the_runs_own_player_with_its_phase_move(runner: CliRunner, phase_run: Path) -> None:
    def counts(source: str) -> str:
        result = invoke(runner, evaluate, [source, "--vs", "nhand:1", "--games", "300", "--seed", "5"])
        assert result.exit_code == 0, result.output
        return result.stdout.splitlines()[-1]

    best = phase_run / "best_weights.csv"
    assert counts(str(phase_run)) == counts(f"wpc:1@{best},phase=59")
    assert counts(str(phase_run)) != counts(f"wpc:1@{best}")  # the default phase (40) plays other games


def test_export_of_a_phase_run_carries_its_phase_move(runner: CliRunner, phase_run: Path, tmp_path: Path) -> None:
    result = invoke(runner, export, [phase_run, "--format", "json", "-o", tmp_path / "t.json"])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "t.json").read_text())["phase_move"] == 59
    assert "move 59" in result.output  # said on the command's output too (for CSV, the only place)
    c_text = invoke(runner, export, [phase_run, "--format", "c"]).stdout
    assert "apply before move 59" in c_text
    assert load_weights(tmp_path / "t.json").size == 128


def test_show_lists_as_missing_only_what_the_run_should_have(runner: CliRunner, tmp_path: Path) -> None:
    from ga.evolution.run import evolve

    run_dir = tmp_path / "quiet"
    evolve(config_from_dict({"experiment": {"seed": 1, "generations": 2}, "population": {"size": 6, "parents": 4},
                             "selection": {"tournament_size": 2}, "fitness": {"opponents": ["random"]},
                             "output": {"games_csv": False}, "compute": {"workers": 1}}), out=run_dir)
    assert "missing:" not in invoke(runner, show, [run_dir]).stdout  # games.csv was turned off
    (run_dir / "mean_weights.csv").unlink()
    assert "missing: mean_weights.csv" in invoke(runner, show, [run_dir]).stdout


def test_show_gives_the_whole_jobs_time_with_each_stages_share(runner: CliRunner, tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    manifest.update(wall_s=30.0, final_s=10.0, restarts_s=120.0, refine_s=40.0,
                    started="2026-01-01T00:00:00Z", finished="2026-01-01T00:03:20Z")
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    line = next(l for l in invoke(runner, show, [run_dir]).stdout.splitlines() if "wall time" in l)
    assert line.split(None, 2)[2] == ("3m 20s (GA 30.0 s, 15%, final tournament 10.0 s, 5%, restarts 2m 00s, 60%, "
                                      "refinement 40.0 s, 20%)")


@pytest.mark.parametrize("spec", ["nhand:1,eps=0.1,eps=0.2", "wpc:1@heuristic,eps=0.1,eps=0.2"])
def test_a_spec_with_an_option_given_twice_is_named_as_a_spec_not_a_missing_file(
    spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # "0.1" holds a dot, as a file name does; the leading player kind says it is a spec.
    assert main(["evaluate", spec, "--vs", "random", "--games", "4"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"option eps is given twice in spec '{spec}'" in err, err


# ---------------------------------------------------------------- small things a new user trips over


def test_show_never_prints_a_negative_zero(runner: CliRunner) -> None:
    # The shipped strong table showed "-0.00" in show's grid, though the docs promise none.
    from ga.analysis.summary import format_grid

    assert "-0.00" not in format_grid([-0.001] * 32 + [0.004] * 32) and "-0.01" in format_grid([-0.006] * 64)
    result = invoke(runner, show, [ROOT / "results" / "reference" / "strong"])
    assert result.exit_code == 0 and "-0.00" not in result.stdout and " 0.00" in result.stdout


def test_a_short_run_s_summary_gives_its_stages_in_digits_that_say_something_and_the_rest() -> None:
    # "finished 10 generations in 1.0 s (GA 0.0 s)": where did the second go?
    from ga.cli.progress import Progress
    from ga.evolution.loop import Stage
    from ga.files import duration_text

    assert [duration_text(s) for s in (0.0412, 0.5, 8.24, 185, 3730)] == ["0.041 s", "0.5 s", "8.2 s", "3m 05s",
                                                                          "1h 02m 10s"]
    times = iter([0.0, 0.1, 0.1, 0.14, 0.14, 1.0])
    with Progress(quiet=True, clock=lambda: next(times)) as progress:
        bar = progress(Stage("GA", 0, 10))
        bar.update({"games": 640})
        bar.close()
        assert progress.finish() == "1.0 s (GA 0.04 s, the rest 0.96 s: start, files and figures), 640 games"


def test_play_names_its_own_argument_and_the_built_in_tables_are_listed_once() -> None:
    from ga.cli import cli

    played = CliRunner().invoke(cli, ["play", "nosuch"], input="quit\n")
    assert played.exit_code == 2 and "OPPONENT may also be" in played.output and "WEIGHTS_OR_SPEC" not in played.output
    unknown = CliRunner().invoke(cli, ["evaluate", "wpc:1@nosuch", "--games", "2"])
    assert unknown.exit_code == 2 and unknown.output.count("reference-seed2021") == 1, unknown.output
