"""Studies: the study file, running (local processes, resumed, stopped), the tables, the figures, show and compare."""
from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ga.analysis.comparison import compare, holm
from ga.analysis.evaluation import evaluate_player
from ga.analysis.stats import mean_interval
from ga.cli import main
from ga.evolution.run import StopRequest
from ga.study.figures import config_curves, curve_band, curves_figure, grid_figure, measures_figure
from ga.study.runner import run_study
from ga.study.schema import StudyError, load_study, parse_seeds
from ga.study.summary import comparisons, means, run_table, summary_frame
from ga.weights import load_weights
from runs import reproducible_state

ROOT = Path(__file__).resolve().parent.parent

TINY = """\
[experiment]
generations = {generations}

[population]
size = 8
parents = 4

[selection]
elitism = 1

[fitness]
opponents = ["random", "nhand:1"]
draw = "all"
colours = "both"

[compute]
workers = 1

[output]
checkpoint_seconds = 0.0
"""

STUDY = """\
[study]
seeds = "1-2"
{study}

[grid]
base = "tiny.toml"
values = {{ selection.tournament_size = [2, 4] }}

[[measures]]
name = "league"
games = 20
seed = 3

[[measures]]
name = "random"
protocol = "plain"
opponents = ["random"]
games = 10
seed = 5
table = "mean"
"""


def write_study(folder: Path, generations: int = 3, study: str = "", text: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tiny.toml").write_text(TINY.format(generations=generations), encoding="utf-8")
    path = folder / "study.toml"
    path.write_text(text if text is not None else STUDY.format(study=study), encoding="utf-8")
    return path


def study_state(study_dir: Path) -> dict[str, Any]:
    """What two runs of one study must share: its tables (timings aside), its scores and every run's results."""
    table = pd.read_csv(study_dir / "study.csv").drop(columns=["wall_s"])
    state: dict[str, Any] = {"study.csv": table.to_csv(index=False),
                             "summary.csv": (study_dir / "summary.csv").read_bytes(),
                             "summary.md": (study_dir / "summary.md").read_bytes()}
    for path in sorted((study_dir / "scores").iterdir()):
        state[path.name] = path.read_bytes()
    for path in sorted((study_dir / "runs").iterdir()):
        state[path.name] = reproducible_state(path)
    return state


@pytest.fixture(scope="module")
def long_study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A study of runs long enough to be stopped or lose a worker mid-way (a second each), and its whole run."""
    folder = tmp_path_factory.mktemp("long")
    path = write_study(folder / "a", generations=800)
    assert run_study(load_study(path), folder / "reference", jobs=2).finished
    return path, folder / "reference"


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole tiny study, run in this process's order (one job): what every other way of running it must give."""
    folder = tmp_path_factory.mktemp("reference")
    study = load_study(write_study(folder))
    result = run_study(study, folder / "out", jobs=1)
    assert result.finished and (result.done, result.total) == (4, 4)
    return folder / "out"


# --- the study file ---------------------------------------------------------------------------


def test_seeds_are_ranges_or_lists() -> None:
    assert parse_seeds("1-3,7, 9-10") == (1, 2, 3, 7, 9, 10)
    assert parse_seeds([4, 2]) == (4, 2)
    for bad in ("3-1", "1,1", "a", "", [1, True], 5):
        with pytest.raises(ValueError):
            parse_seeds(bad)


def test_a_grid_makes_a_config_per_value_and_a_study_file_sets_each_key(tmp_path: Path) -> None:
    study = load_study(write_study(tmp_path, study='budget = 480\nmax_runs = 4'))
    assert [c.label for c in study.configs] == ["tournament_size=2", "tournament_size=4"]
    assert [c.config.selection.tournament_size for c in study.configs] == [2, 4]
    # The budget: 480 games a run, 16 a generation (8 individuals, a game against each of 2 opponents) = 30.
    assert [c.config.experiment.generations for c in study.configs] == [30, 30]
    assert study.differing_keys() == ["selection.tournament_size"]
    assert [m.columns() for m in study.measures] == [["league"], ["random"]]
    assert study.run_config(study.configs[1], 2).experiment.seed == 2
    overridden = load_study(tmp_path / "study.toml", seeds="5", generations=2)
    assert overridden.seeds == (5,) and overridden.configs[0].config.experiment.generations == 2


def test_configs_extend_one_another(tmp_path: Path) -> None:
    text = """[study]\nseeds = [1]\n[[configs]]\nfile = "tiny.toml"\nset = { selection.elitism = 2 }\n
[[configs]]\nlabel = "more"\nextends = "tiny"\ndescription = "more parents"\n[configs.set]\npopulation.parents = 6\n"""
    study = load_study(write_study(tmp_path, text=text))
    first, second = (c.config for c in study.configs)
    assert (first.selection.elitism, second.selection.elitism) == (2, 2)  # the extended config's overrides too
    assert (first.population.parents, second.population.parents) == (4, 6)
    assert second.experiment.description == "more parents"


BAD_STUDIES = [
    ("measures", 'name = "league"\nprotocl = "league"', "'measures[0].protocl' is not known; did you mean 'measures[0].protocol'"),
    ("study", 'seeds = "3-1"', "'study.seeds' has a range that runs backwards"),
    ("study", 'seeds = "1-2"\nmax_runs = 3', "study key 'study.max_runs': the study expands to 2 configs x 2 seeds"),
    ("grid", 'base = "tiny.toml"\nvalues = { selecton.tournament_size = [2] }',
     "config key 'selecton' is not known; did you mean 'selection'"),
    ("grid", 'base = "tiny.toml"\nvalues = { selection.tournament_size = [2, 99] }',
     "study key 'grid.values.selection.tournament_size[1]': config key 'selection.tournament_size' must be at most"),
    ("grid", 'base = "missing.toml"\nvalues = { selection.elitism = [1] }', "study key 'grid.base': config file"),
    ("measures", 'name = "x"\nprotocol = "leage"', "study key 'measures[0].protocol': unknown value 'leage'"),
    ("measures", 'name = "x"\nopponents = ["nhand:2"]', "'measures[0].opponents[0]' the league protocol plays 1-ply"),
    ("measures", 'name = "x"\ngames = "many"', "'measures[0].games' must be an integer, got string 'many'"),
    ("measures", 'name = "9x"', "'measures[0].name' must be a letter"),
    ("configs", 'extends = "nothing"', "study key 'configs[0].extends': no config 'nothing' before it"),
    ("configs", 'file = "tiny.toml"\nlabel = "a/b"', "study key 'configs[0].label' must be 1-100 letters"),
]


@pytest.mark.parametrize(("section", "body", "message"), BAD_STUDIES, ids=[case[2][:40] for case in BAD_STUDIES])
def test_a_bad_study_file_is_one_line_exit_2_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], section: str, body: str, message: str
) -> None:
    parts = {"study": 'seeds = "1-2"', "grid": 'base = "tiny.toml"\nvalues = { selection.elitism = [1, 2] }',
             "measures": 'name = "league"'} | ({section: body} if section != "configs" else {})
    text = "".join(f"[{name}]\n{value}\n" if name != "measures" else f"[[measures]]\n{value}\n"
                   for name, value in parts.items())
    if section == "configs":
        text += f"[[configs]]\n{body}\n"
    path = write_study(tmp_path, text=text)
    assert main(["study", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("othello-ga: error: ") and message in err, err
    assert not (tmp_path / "out").exists()


def test_a_misplaced_section_is_named_with_its_nearest_name(tmp_path: Path) -> None:
    with pytest.raises(StudyError, match="study key 'measure' is not known; did you mean 'measures'"):
        load_study(write_study(tmp_path, text='[study]\nseeds = [1]\n[measure]\nname = "x"\n'))


def test_the_command_line_refuses_what_it_cannot_run_before_writing(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = write_study(tmp_path)
    assert main(["study", str(path), "--out", str(tmp_path / "a"), "--seeds", "2-1"]) == 2
    assert "--seeds has a range that runs backwards" in capsys.readouterr().err
    assert main(["study", str(path), "--out", str(tmp_path / "a"), "--dask", "local:0"]) == 2
    assert "compute.address" in capsys.readouterr().err
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "notes.txt").write_text("mine")
    assert main(["study", str(path), "--out", str(tmp_path / "b")]) == 2
    assert "already exists and is not a study directory" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and os.listdir(tmp_path / "b") == ["notes.txt"]


# --- running --------------------------------------------------------------------------------------


def test_a_study_runs_every_config_and_seed_and_scores_each_table_held_out(reference: Path) -> None:
    table = pd.read_csv(reference / "study.csv")
    assert list(zip(table["config"], table["seed"])) == [("tournament_size=2", 1), ("tournament_size=2", 2),
                                                         ("tournament_size=4", 1), ("tournament_size=4", 2)]
    assert list(table.columns) == ["config", "seed", "selection.tournament_size", "status", "generations", "games",
                                   "wall_s", "league", "random"]
    assert (table["status"] == "done").all() and (table["generations"] == 3).all() and (table["games"] == 48).all()
    for row in table.itertuples():
        run = reference / "runs" / f"{row.config}-seed{row.seed}"
        # The score is the evaluation's own: the same table, games and seed give the same number.
        league = evaluate_player(load_weights(run / "best_weights.csv"), [], 20, seed=3, protocol="league")[0]
        random = evaluate_player(load_weights(run / "mean_weights.csv"), ["random"], 10, seed=5)[0]
        assert (row.league, row.random) == (league.score, random.score)
    for name in ("summary.md", "summary.csv", "plots/curves.png", "plots/measures.png", "plots/grid.png",
                 "configs/tournament_size=2.toml"):
        assert (reference / name).is_file(), name


def test_the_same_study_gives_the_same_files_whatever_the_jobs(reference: Path, tmp_path: Path) -> None:
    study = load_study(write_study(tmp_path))
    assert run_study(study, tmp_path / "out", jobs=2).finished
    assert study_state(tmp_path / "out") == study_state(reference)


def test_a_finished_study_runs_nothing_again(reference: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(p for p in (reference / "runs").rglob("*") if p.is_file()) + sorted((reference / "scores").iterdir())
    before = {path: path.stat().st_mtime_ns for path in files}
    assert main(["study", str(reference), "--quiet"]) == 0  # a study directory continues: here nothing is left
    assert {path: path.stat().st_mtime_ns for path in files} == before
    assert "4 runs done" in capsys.readouterr().out


def test_a_stopped_study_continues_to_the_same_files(reference: Path, tmp_path: Path) -> None:
    path = write_study(tmp_path)
    study = load_study(path)
    stop = StopRequest()

    def stop_after_the_first(outcome: Any, done: int, total: int) -> None:
        stop.signal = signal.SIGTERM

    first = run_study(study, tmp_path / "out", jobs=1, on_run=stop_after_the_first, stop=stop)
    assert first.stopped and first.done == 1
    assert (pd.read_csv(tmp_path / "out" / "study.csv")["status"] == "done").sum() == 1
    # A run that began and died before its first checkpoint (a killed worker) holds nothing to resume.
    begun = tmp_path / "out" / "runs" / "tournament_size=4-seed2"
    begun.mkdir()
    (begun / "config.toml").write_text("[experiment]\n", encoding="utf-8")
    again = run_study(load_study(path), tmp_path / "out", jobs=2)
    assert again.finished
    assert study_state(tmp_path / "out") == study_state(reference)


def test_another_study_in_a_study_directory_is_refused(reference: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = write_study(tmp_path)
    assert main(["study", str(path), "--out", str(reference), "--generations", "4"]) == 2
    err = capsys.readouterr().err
    assert "holds another study (config 'tournament_size=2': experiment.generations = 3 there, 4 here)" in err


def test_ctrl_c_leaves_a_study_that_continues_to_the_same_files(long_study: tuple[Path, Path],
                                                                tmp_path: Path) -> None:
    path, reference = long_study
    out = tmp_path / "out"
    process = subprocess.Popen([sys.executable, "-m", "ga.cli", "study", str(path), "--out", str(out), "--quiet",
                                "--jobs", "2"], stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    deadline = time.monotonic() + 60
    while not list((out / "runs").glob("*/checkpoint.json")) and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert f"continue with: othello-ga study {out}" in err
    assert (pd.read_csv(out / "study.csv")["status"] != "done").any()  # it really stopped part-way
    assert main(["study", str(out), "--quiet"]) == 0
    assert study_state(out) == study_state(reference)


# --- the tables and the figures -----------------------------------------------------------------


def made_table(study: Any, scores: dict[tuple[str, int], tuple[float, float]]) -> pd.DataFrame:
    rows = [{"config": label, "seed": seed, "status": "done", "generations": 3, "league": a, "random": b}
            for (label, seed), (a, b) in scores.items()]
    return pd.DataFrame(rows)


def test_the_summary_is_the_statistics_of_the_runs(tmp_path: Path) -> None:
    study = load_study(write_study(tmp_path, study='seeds = "1-3"'.replace('seeds = "1-3"', "")))
    study = type(study)(**{**study.__dict__, "seeds": (1, 2, 3)})
    a, b = "tournament_size=2", "tournament_size=4"
    scores = {(a, 1): (0.50, 0.9), (a, 2): (0.52, 0.8), (a, 3): (0.54, 0.7),
              (b, 1): (0.55, 0.6), (b, 2): (0.58, 0.7), (b, 3): (0.60, 0.8)}
    table = made_table(study, scores)
    rows = {(r["measure"], r["config"]): r for r in means(study, table)}
    # 0.50, 0.52, 0.54: mean 0.52, sd 0.02, half-width t(2) * 0.02 / sqrt(3) = 0.049683
    assert rows["league", a]["mean"] == pytest.approx(0.52)
    assert rows["league", a]["half_width"] == pytest.approx(4.302652729749462 * 0.02 / 3 ** 0.5)
    assert rows["league", a]["values"] == "0.5 0.52 0.54"
    (league,) = [r for r in comparisons(study, table) if r["measure"] == "league"]
    # Paired by seed: differences 0.05, 0.06, 0.06; all positive, so Wilcoxon's exact p = 2 / 2^3.
    assert (league["config"], league["versus"], league["paired"]) == (b, a, True)
    assert league["mean"] == pytest.approx(0.17 / 3) and league["p"] == pytest.approx(0.25)
    expected = compare(a, [0.50, 0.52, 0.54], b, [0.55, 0.58, 0.60], paired=True)
    assert (league["low"], league["high"]) == pytest.approx((expected.low, expected.high))
    # Runs of other seeds are not paired: Mann-Whitney U, and Welch's interval.
    unpaired = table[~((table["config"] == b) & (table["seed"] == 3))]
    (league,) = [r for r in comparisons(study, unpaired) if r["measure"] == "league"]
    assert not league["paired"] and league["test"] == "Mann-Whitney U" and league["p"] == pytest.approx(0.2)


def test_holm_corrects_each_measures_comparisons_together(tmp_path: Path) -> None:
    text = STUDY.format(study='compare = "first"').replace("[2, 4]", "[2, 3, 4]")
    study = load_study(write_study(tmp_path, text=text))
    study = type(study)(**{**study.__dict__, "seeds": tuple(range(1, 7))})
    labels = [c.label for c in study.configs]
    scores = {(labels[0], s): (0.4 + 0.01 * s, 0.5) for s in range(1, 7)}
    scores |= {(labels[1], s): (0.5 + 0.01 * s, 0.5 + 0.01 * (s % 2)) for s in range(1, 7)}
    scores |= {(labels[2], s): (0.4 + 0.01 * s + 0.001 * (-1) ** s, 0.5) for s in range(1, 7)}
    rows = [r for r in comparisons(study, made_table(study, scores)) if r["measure"] == "league"]
    assert [(r["config"], r["versus"]) for r in rows] == [(labels[1], labels[0]), (labels[2], labels[0])]
    assert [r["p_holm"] for r in rows] == holm([r["p"] for r in rows])
    assert rows[0]["p"] == pytest.approx(2 / 64) and rows[0]["p_holm"] == pytest.approx(min(1, 2 * 2 / 64))


def test_the_figures_draw_the_summarys_numbers(reference: Path) -> None:
    study = load_study(reference / "study.toml")
    table = run_table(study, reference)
    summary = summary_frame(study, table)
    figure = measures_figure(study, table, summary)
    for column in ("league", "random"):
        (container,) = [c for ax in figure.axes for c in ax.containers if c.get_label() == f"means:{column}"]
        rows = summary[(summary["kind"] == "mean") & (summary["measure"] == column)]
        assert list(container.lines[0].get_ydata()) == pytest.approx(list(rows["mean"]))
        (bars,) = container.lines[2]
        drawn = [bound for s in bars.get_segments() for bound in (min(s[:, 1]), max(s[:, 1]))]
        assert drawn == pytest.approx([bound for pair in zip(rows["low"], rows["high"]) for bound in pair])
    curves = config_curves(study, reference)
    figure = curves_figure(study, curves)
    for label, curve in curves.items():
        (band,) = [c for c in figure.axes[0].collections if c.get_gid() == f"band:{label}"]
        vertices = band.get_paths()[0].vertices
        assert max(vertices[:, 1]) == pytest.approx(np.nanmax(curve["high"]))
        # Each generation's band is the t interval over the seeds' rolling win rates, as mean_interval gives it.
        rolling = [pd.read_csv(reference / "runs" / f"{label}-seed{s}" / "generations.csv")["win_rate"]
                   .rolling(1, min_periods=1).mean() for s in study.seeds]
        for generation in range(3):
            mean, half = mean_interval([r[generation] for r in rolling])
            assert (curve["mean"][generation], curve["high"][generation]) == pytest.approx((mean, min(1, mean + half)))
    (line,) = [c for c in grid_figure(study, table, summary, "selection.tournament_size").axes[0].containers]
    assert list(line.lines[0].get_xdata()) == [2.0, 4.0]


def test_the_study_figures_fit_their_titles_keep_bands_and_legends_off_the_data_and_a_rate_grid_is_logarithmic(
        reference: Path, tmp_path: Path) -> None:
    # measures.png's and grid.png's titles were clipped, t bands ran below 0 and above 1, and grid.png put
    # 0.01, 0.03 and 0.1 on a linear axis.
    from test_plots import assert_legends_outside_the_data, assert_texts_fit

    study = load_study(reference / "study.toml")
    table = run_table(study, reference)
    summary = summary_frame(study, table)
    curves = config_curves(study, reference)
    for curve in curves.values():
        assert curve["low"].min() >= 0 and curve["high"].max() <= 1
    figure = curves_figure(study, curves)
    assert figure.axes[0].get_ylim() == (-0.02, 1.02)
    assert_legends_outside_the_data(figure, "curves")
    for name, drawn in (("curves", figure), ("measures", measures_figure(study, table, summary)),
                        ("grid", grid_figure(study, table, summary, "selection.tournament_size"))):
        assert_texts_fit(drawn, name)
    grid = grid_figure(study, table, summary, "selection.tournament_size")
    assert grid.axes[0].get_xscale() == "linear" and list(grid.axes[0].get_xticks()) == [2, 4]
    text = STUDY.format(study="").replace("selection.tournament_size = [2, 4]",
                                          "mutation.gene_probability = [0.01, 0.03, 0.1]")
    rates = load_study(write_study(tmp_path, text=text))
    labels = [config.label for config in rates.configs]
    made = pd.DataFrame([{"kind": "mean", "measure": measure, "config": label, "mean": 0.5, "low": 0.4, "high": 0.6}
                         for measure in ("league", "random") for label in labels])
    grid = grid_figure(rates, pd.DataFrame(), made, "mutation.gene_probability")
    assert_texts_fit(grid, "grid")
    assert grid.axes[0].get_xscale() == "log"
    assert [label.get_text() for label in grid.axes[0].get_xticklabels()] == ["0.01", "0.03", "0.1"]


def test_curve_band_by_hand() -> None:
    values = np.array([[0.5, 0.4, np.nan], [0.7, 0.4, np.nan], [0.6, 0.4, 0.3]])
    count, mean, low, high = curve_band(values)
    assert list(count) == [3, 3, 1]
    assert mean == pytest.approx([0.6, 0.4, 0.3])
    # sd 0.1 over 3 runs: half-width t(2) * 0.1 / sqrt(3); no spread: a point; one run: no band.
    assert high[0] - mean[0] == pytest.approx(4.302652729749462 * 0.1 / 3 ** 0.5)
    assert (low[1], high[1]) == pytest.approx((0.4, 0.4)) and math.isnan(low[2]) and math.isnan(high[2])


# --- show and compare ------------------------------------------------------------------------------


def test_show_and_compare_take_a_study_directory(reference: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(reference)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Study {reference}") and "4 done (of 4)" in out
    assert "| tournament_size=2 | 2 | 3 |" in out and "Wilcoxon signed-rank" in out
    assert main(["show", str(reference / "runs" / "tournament_size=2-seed1")]) == 0  # each run is a run directory
    assert "generations   3 of 3" in capsys.readouterr().out
    image = tmp_path / "compare.png"
    assert main(["compare", str(reference), str(reference / "runs" / "tournament_size=4-seed2"), "-o",
                 str(image)]) == 0
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# --- stopped, broken or orphaned: the study's processes ---------------------------------------------


def study_process(argv: list[str], tmp_path: Path, hook: str = "") -> subprocess.Popen[bytes]:
    """Starts ``othello-ga argv`` in a process of its own session (its process group is its own: a signal to it
    reaches its task processes as a terminal's Ctrl-C would), ``hook`` run first; its output goes to files, which
    task processes that outlive it may hold."""
    script = ("import signal, sys\n"
              "signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal (a background job "
              "starts it ignored)\n" + textwrap.dedent(hook) +
              f"\nfrom ga.cli import main\nsys.exit(main({argv!r}))\n")
    environment = {key: value for key, value in os.environ.items() if key != "OTHELLO_GA_DEBUG"}
    return subprocess.Popen([sys.executable, "-c", script], cwd=tmp_path, env=environment, start_new_session=True,
                            stdin=subprocess.DEVNULL, stdout=open(tmp_path / "stdout", "wb"),
                            stderr=open(tmp_path / "stderr", "wb"))


def ended(process: subprocess.Popen[bytes], tmp_path: Path, timeout: float = 60) -> tuple[int, str]:
    """Returns the exit code of ``process`` and what it wrote on standard error."""
    try:
        code = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        pytest.fail(f"the study did not end within {timeout} s")
    return code, (tmp_path / "stderr").read_text()


def test_the_summary_scans_the_run_table_a_fixed_number_of_times(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # A grid of 2,000 configs spent 9+ minutes in the summary, silent: each config filtered the whole run table
    # (time quadratic in the configs). Counted here as the operations on the whole table (of every run, or every
    # scored run): the same number for 20 configs as for 60, so the work grows with the runs alone (the old
    # summary's grew with the configs: 927 and 3,717 for 30 and 120).
    from ga.study.summary import summary_frame, summary_markdown

    scans: list[int] = []
    index_of, equals = pd.DataFrame.__getitem__, pd.Series.__eq__
    for count in (20, 60):
        folder = tmp_path / str(count)
        sigmas = ", ".join(f"{0.01 * (i + 1):.2f}" for i in range(count))
        text = STUDY.format(study='compare = "first"').replace("selection.tournament_size = [2, 4]",
                                                                f"mutation.sigma = [{sigmas}]")
        study = load_study(write_study(folder, text=text))
        assert len(study.configs) == count
        table = made_table(study, {(config.label, seed): (0.3 + 0.01 * seed + 0.001 * index, 0.5)
                                   for index, config in enumerate(study.configs) for seed in study.seeds})
        whole = len(table)
        seen = [0]

        def counted(method: Any) -> Any:
            def call(self: Any, *args: Any) -> Any:
                seen[0] += len(self) == whole
                return method(self, *args)
            return call

        monkeypatch.setattr(pd.DataFrame, "__getitem__", counted(index_of))
        monkeypatch.setattr(pd.Series, "__eq__", counted(equals))
        summary = summary_frame(study, table)
        text = summary_markdown(study, table, summary)
        monkeypatch.undo()
        assert text.count("\n| sigma=") == count  # every config has its row
        scans.append(seen[0])
    assert scans[0] == scans[1] and scans[0] < 30, scans


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["Ctrl-C", "SIGTERM"])
def test_a_stop_during_the_summary_ends_the_study(reference: Path, tmp_path: Path, signum: int) -> None:
    # The summary was written under the stop's handlers: Ctrl-C and SIGTERM there were ignored, exit code 0.
    # The signal is made to land as the summary starts (all runs done: there is nothing else to do).
    study_dir = tmp_path / "out"
    shutil.copytree(reference, study_dir)
    for name in ("study.csv", "summary.csv", "summary.md"):
        (study_dir / name).unlink()
    hook = f"""
        import os
        import ga.study.summary as summary
        write_summary = summary.write_summary
        def signalled(*args):
            os.kill(os.getpid(), {int(signum)})
            return write_summary(*args)
        summary.write_summary = signalled
    """
    code, err = ended(study_process(["study", str(study_dir), "--quiet"], tmp_path, hook), tmp_path)
    if signum == signal.SIGINT:
        assert code == 130 and err == ("interrupted; the runs' checkpoints are intact; continue with: othello-ga "
                                       f"study {study_dir}\n"), err
    else:
        assert code == -signal.SIGTERM and err == "", err  # SIGTERM's own ending: at once, nothing more
    assert not any((study_dir / name).exists() for name in ("study.csv", "summary.csv", "summary.md"))
    assert main(["study", str(study_dir), "--quiet"]) == 0  # the next run of the study writes it
    assert (study_dir / "summary.md").read_bytes() == (reference / "summary.md").read_bytes()


def test_ctrl_c_as_the_task_processes_start_breaks_nothing(tmp_path: Path) -> None:
    # A Ctrl-C in a study's first second killed the task processes half-started (they were still in the
    # terminal's process group): a KeyboardInterrupt traceback from each, and a BrokenProcessPool. They start
    # with SIGINT blocked until they stand in a group of their own. The Ctrl-C is made to reach the whole group
    # while the first task process loads.
    path = write_study(tmp_path / "files")
    hook = """
        import concurrent.futures, os, time
        submit = concurrent.futures.ProcessPoolExecutor.submit
        def signalled(self, *args, **kwargs):
            future = submit(self, *args, **kwargs)  # the task process is started, and loads its modules
            time.sleep(0.2)
            os.killpg(os.getpgrp(), signal.SIGINT)  # Ctrl-C: the terminal signals the whole process group
            time.sleep(1.0)  # as a busy study would: the task process is not stopped by the study before it can fail
            return future
        concurrent.futures.ProcessPoolExecutor.submit = signalled
    """
    out = tmp_path / "out"
    code, err = ended(study_process(["study", str(path), "--out", str(out), "--jobs", "1", "--quiet"], tmp_path,
                                    hook), tmp_path)
    assert code == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err and "BrokenProcessPool" not in err, err
    assert err.splitlines()[-1].startswith("stopped with 0 of 4 runs done"), err


def task_pids(study_dir: Path, count: int, timeout: float = 60) -> dict[Path, int]:
    """Waits until ``count`` runs of a study have a checkpoint and a live writer; returns their writers' pids."""
    from ga.rundir.lock import holder

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        writers = {run: holder(run) for run in (study_dir / "runs").glob("*") if (run / "checkpoint.json").exists()}
        writers = {run: pid for run, pid in writers.items() if pid}
        if len(writers) >= count:
            return writers
        time.sleep(0.05)
    pytest.fail(f"{count} runs of the study did not start within {timeout} s")


def test_a_task_process_that_dies_ends_the_study_in_one_line(long_study: tuple[Path, Path], tmp_path: Path) -> None:
    # A pool broken without a stop (a task process killed, out of memory): one line, exit code 1, no traceback.
    path, _ = long_study
    out = tmp_path / "out"
    process = study_process(["study", str(path), "--out", str(out), "--jobs", "1", "--quiet"], tmp_path)
    ((run, pid),) = task_pids(out, 1).items()
    os.kill(pid, signal.SIGKILL)
    code, err = ended(process, tmp_path)
    assert code == 1 and len(err.splitlines()) == 1, err
    assert err.startswith("othello-ga: error: a task process of the study died") and err.rstrip().endswith(
        "the runs' checkpoints are intact: run the study again to go on"), err


def test_kill_9_of_the_study_ends_its_task_processes_which_save_and_release_their_runs(
        long_study: tuple[Path, Path], tmp_path: Path) -> None:
    # After kill -9 of a study's main process its task processes played on for 10+ minutes, deaf to SIGTERM,
    # holding the runs' locks (and the terminal's pipes). Each watches the study's process: it stops its run as on
    # SIGTERM (the checkpoint saved, the manifest "interrupted") and exits, and its run's lock is free.
    from ga.rundir.lock import holder

    path, _ = long_study
    out = tmp_path / "out"
    process = study_process(["study", str(path), "--out", str(out), "--jobs", "2", "--quiet"], tmp_path)
    writers = task_pids(out, 2)
    try:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        deadline = time.monotonic() + 20
        while any(holder(run) for run in writers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(holder(run) for run in writers), "a task process still holds its run"
        for run in writers:
            assert json.loads((run / "manifest.json").read_text())["status"] == "interrupted", run
    finally:
        for pid in writers.values():  # on failure: they would play on
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


# --- a Dask cluster ------------------------------------------------------------------------------


def test_a_study_on_a_cluster_of_processes_gives_the_same_files_after_losing_a_worker(
    long_study: tuple[Path, Path], tmp_path: Path
) -> None:
    distributed = pytest.importorskip("distributed")
    path, reference = long_study
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None, silence_logs=50,
                                       scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
    client = distributed.Client(cluster, set_as_default=False)
    try:
        victim = sorted(client.run(os.getpid).values())[0]
        out = tmp_path / "out"

        def kill_mid_run() -> None:
            deadline = time.monotonic() + 60
            while not list((out / "runs").glob("*/checkpoint.json")) and time.monotonic() < deadline:
                time.sleep(0.02)
            os.kill(victim, signal.SIGKILL)  # a worker dies while both play a run

        import threading

        killer = threading.Thread(target=kill_mid_run)
        killer.start()
        assert run_study(load_study(path), out, dask=cluster.scheduler_address).finished
        killer.join()
        client.wait_for_workers(2, timeout=30)
        assert victim not in client.run(os.getpid).values()  # the worker really died and was replaced
        assert study_state(out) == study_state(reference)
    finally:
        client.close()
        cluster.close()


@pytest.mark.shows("study --out", "study --jobs", "study --seeds", "study --generations", "study --quiet",
                   "study --dask")
def test_the_command_lines_options_take_effect(reference: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = write_study(tmp_path)
    out = tmp_path / "look"
    assert main(["study", str(path), "--out", str(out), "--seeds", "2", "--generations", "300", "--jobs", "2",
                 "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # --quiet: no progress bar
    assert "4 runs done" not in captured.out and "2 runs done" in captured.out
    table = pd.read_csv(out / "study.csv")
    assert list(table["seed"]) == [2, 2] and list(table["generations"]) == [300, 300]
    # Each run directory's lock file keeps the id of the process that wrote it: two processes, neither this one.
    writers = {int((run / ".lock").read_text()) for run in (out / "runs").iterdir()}
    assert len(writers) == 2 and os.getpid() not in writers
    assert main(["study", str(path), "--out", str(tmp_path / "one"), "--jobs", "1", "--quiet"]) == 0
    assert len({(run / ".lock").read_text() for run in (tmp_path / "one" / "runs").iterdir()}) == 1
    # On an in-process Dask cluster: the runs play in this process's threads, and the files are the same.
    assert main(["study", str(path), "--out", str(tmp_path / "dask"), "--dask", "local:2", "--quiet"]) == 0
    assert study_state(tmp_path / "dask") == study_state(reference)
    assert {int((run / ".lock").read_text()) for run in (tmp_path / "dask" / "runs").iterdir()} == {os.getpid()}


def test_a_rank_test_that_cannot_reach_significance_with_so_few_runs_says_so(reference: Path) -> None:
    # Two or three seeds gave Wilcoxon p = 1.000 with no word that no difference could give less than 0.25.
    from scipy import stats

    from ga.analysis.comparison import smallest_p
    from ga.study.summary import summary_markdown

    for n in range(1, 9):  # all differences of one sign: the most extreme outcome, as scipy computes it exactly
        assert smallest_p(True, n, n) == pytest.approx(stats.wilcoxon(np.arange(1.0, n + 1)).pvalue)
    for m, n in ((2, 3), (3, 3), (4, 4)):
        far = stats.mannwhitneyu(np.arange(m), np.arange(m, m + n) + 10, alternative="two-sided", method="exact")
        assert smallest_p(False, m, n) == pytest.approx(far.pvalue)
    study = load_study(reference / "study.toml")
    table = run_table(study, reference)
    text = summary_markdown(study, table, summary_frame(study, table))
    assert ("Too few runs to test: with 2 pairs the Wilcoxon signed-rank test's smallest p is 0.500. It cannot reach "
            "0.05 however large the difference") in text
    six = pd.concat([table.assign(seed=table["seed"] + 10 * k) for k in range(3)], ignore_index=True)
    assert "Too few runs" not in summary_markdown(study, six, summary_frame(study, six))
