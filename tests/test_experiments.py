"""The experiments: the ablation study, the held-out table and the feasibility probe."""
from __future__ import annotations


import dataclasses
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ga.config import load_config, replace, result_settings
from ga.evolution.genome import expand
from ga.evolution.run import evolve
from ga.study.runner import run_study
from ga.study.schema import load_study
from ga.study.summary import means
from ga.weights import load_weights

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "experiments"


def load_script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"experiments_{name}", EXPERIMENTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


ABLATION = ROOT / "results" / "reference" / "ablation"


def test_the_ablation_is_a_study_whose_configs_each_add_a_lever_to_the_blogs_experiment() -> None:
    study = load_study(EXPERIMENTS / "ablation.toml")
    blog = load_config(EXPERIMENTS / "seed2021.toml")
    first = study.configs[0].config
    for section in ("population", "selection", "crossover", "mutation", "fitness", "final", "refine"):
        assert getattr(first, section) == getattr(blog, section), section  # the blog's experiment, unchanged
    assert not first.output.games_csv
    settings = [result_settings(config.config) for config in study.configs]
    for before, after in zip(settings, settings[1:]):
        assert before != after  # each config changes something
    # The same budget of games for every run: generations = 2,000,000 // games a generation.
    assert [c.config.experiment.generations for c in study.configs] == [62500, 1562, 1562, 1041, 1041, 1041, 1041,
                                                                         473, 473]
    assert study.seeds == (1, 2, 3) and study.compare == "consecutive"


def test_the_last_config_of_the_ablation_is_strong_toml() -> None:
    last = load_study(EXPERIMENTS / "ablation.toml").configs[-1].config
    strong = load_config(EXPERIMENTS / "strong.toml")
    for section in ("population", "selection", "crossover", "mutation", "fitness", "final"):
        assert getattr(last, section) == getattr(strong, section), section
    assert last.experiment.held_out_claim


def test_the_study_summary_gives_the_shipped_ablation_figures_from_its_runs() -> None:
    # The shipped rows (made by the script the study file replaced), summarised by the study's own code,
    # give every figure of the shipped table: each mean, each seed's score and each 95% t interval, this
    # last to its third decimal but one: the script took t(2) as 4.303 from a table, the study takes scipy's
    # 4.30265, and config 4's best-table half-width, 0.118500 with 4.303, is 0.118491: 0.118, not 0.119.
    study = load_study(EXPERIMENTS / "ablation.toml")
    runs = pd.read_csv(ABLATION / "runs.csv")
    labels = [config.label for config in study.configs]
    table = runs.assign(config=[labels[rung] for rung in runs["rung"]], status="done")
    rows = {(row["measure"], row["config"]): row for row in means(study, table)}
    shipped = (ABLATION / "ablation.md").read_text(encoding="utf-8")
    for rung, label in enumerate(labels):
        best, mean = rows["best_vs_heuristic", label], rows["mean_vs_heuristic", label]
        seeds = ", ".join(f"{v:.3f}" for v in runs[runs["rung"] == rung].sort_values("seed")["best_vs_heuristic"])
        line = next(line for line in shipped.splitlines() if line.startswith(f"| {rung} |"))
        cells = [cell.strip() for cell in line.split("|")[1:-1]]
        assert cells[3].split(" ± ")[0] == f"{best['mean']:.3f}" and cells[4] == seeds, line
        assert cells[5].split(" ± ")[0] == f"{mean['mean']:.3f}", line
        for cell, row in ((cells[3], best), (cells[5], mean)):
            half = float(cell.split(" ± ")[1])
            assert abs(half - row["half_width"] * 4.303 / 4.302652729749462) < 0.0005 + 1e-12, line
            assert abs(half - row["half_width"]) <= (0.001 if (rung, row is best) == (4, True) else 0.0005), line


@pytest.mark.slow
def test_the_ablation_study_gives_a_shipped_run_again(tmp_path: Path) -> None:
    # One run of the ablation as the study plays it (about 80 s): config 7, seed 1, its full budget.
    study = load_study(EXPERIMENTS / "ablation.toml")
    one = dataclasses.replace(study, configs=(study.configs[7],), seeds=(1,))
    run_study(one, tmp_path / "study", jobs=1)
    row = pd.read_csv(tmp_path / "study" / "study.csv").iloc[0]
    shipped = pd.read_csv(ABLATION / "runs.csv").set_index(["rung", "seed"]).loc[(7, 1)]
    assert row["generations"] == shipped["generations"] == 473
    assert row["best_vs_heuristic"] == shipped["best_vs_heuristic"]
    assert row["mean_vs_heuristic"] == shipped["mean_vs_heuristic"]


def test_heldout_table_and_figure(tmp_path: Path) -> None:
    heldout = load_script("heldout")
    assert heldout.main(["--out", str(tmp_path), "--games", "40", "--workers", "1"]) == 0
    frame = pd.read_csv(tmp_path / "heldout.csv")
    assert list(frame["table"]) == [label for label, _, _ in heldout.TABLES]
    for column, _, _ in heldout.MEASURES:
        assert frame[column].between(0, 1).all()
        assert (frame[f"{column}_low"] <= frame[column]).all() and (frame[column] <= frame[f"{column}_high"]).all()
    assert (tmp_path / "heldout.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| target for strong.toml |" in (tmp_path / "heldout.md").read_text(encoding="utf-8")
    ladder = pd.read_csv(tmp_path / "ladder.csv")
    assert len(ladder) == len(heldout.LADDER) * 4 * 4  # the tables, four opponents, depths 1-4
    assert set(ladder["depth"]) == {1, 2, 3, 4} and (ladder["games"] == 40).all()
    assert (ladder["low"] <= ladder["score"]).all() and (ladder["score"] <= ladder["high"]).all()
    assert (tmp_path / "ladder.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| lr06 |" in (tmp_path / "ladder.md").read_text(encoding="utf-8")
    engine = pd.read_csv(tmp_path / "engine_ladder.csv")
    assert list(dict.fromkeys(engine["opponent"])) == list(heldout.ENGINE_OPPONENTS)
    assert len(engine) == len(heldout.ENGINE_OPPONENTS) * 4 and (engine["games"] == 40).all()
    text = (tmp_path / "engine_ladder.md").read_text(encoding="utf-8")
    assert "end=8" in text and "| paip |" in text and "target 0.6 in every cell" in text


def test_the_feasibility_probe_scores_every_target_and_repeats_itself(tmp_path: Path) -> None:
    feasible = load_script("feasible")
    args = ["--start", "reference", "--generations", "2", "--candidates", "4", "--games", "6", "--check-games", "8",
            "--average-last", "2", "--workers", "1"]
    assert feasible.main(args + ["--out", str(tmp_path / "a")]) == 0
    search = pd.read_csv(tmp_path / "a" / "search.csv")
    assert list(search["generation"]) == [0, 1]
    assert search[feasible.MEASURES].stack().between(0, 1).all()
    assert len(feasible.MEASURES) == len(feasible.TARGETS) == 3 + 3 * 4
    for _, row in search.iterrows():  # the scores shown are the leader's own
        assert abs(feasible.margin(row[feasible.MEASURES].to_numpy(dtype=float)) - row["leader_margin"]) < 1e-12
    check = pd.read_csv(tmp_path / "a" / "check.csv")
    assert list(check["table"]) == ["final centroid", "mean of the last centroids"]
    genes = search[[f"centroid_{i}" for i in range(10)]].to_numpy()
    assert check["genes"][0] == " ".join(f"{g:.4f}" for g in genes[-1])
    assert check["genes"][1] == " ".join(f"{g:.4f}" for g in genes.mean(axis=0))
    centroid = load_weights(tmp_path / "a" / "centroid.csv")  # a table that --start (or evaluate) reads back
    assert np.array_equal(centroid.ravel(), expand(list(genes[-1]), "sym8"))
    assert feasible.main(args + ["--out", str(tmp_path / "b")]) == 0  # seeded: the same search again
    assert (tmp_path / "b" / "search.csv").read_bytes() == (tmp_path / "a" / "search.csv").read_bytes()


@pytest.mark.parametrize("change", [["--start", "missing.csv"], ["--start", "bad.csv"], ["--games", "0"],
                                    ["--average-last", "-1"]])
def test_the_feasibility_probe_answers_bad_input_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str], change: list[str]) -> None:
    feasible = load_script("feasible")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.csv").write_text("a,b\n", encoding="utf-8")
    args = ["--start", "reference", "--out", "out"]
    with pytest.raises(SystemExit) as stopped:
        feasible.main(args + change)
    assert stopped.value.code == 2
    message = capsys.readouterr().err
    assert message.count("\n") == 1 and change[0] in message
    assert not (tmp_path / "out").exists()


def test_the_feasibility_margin_is_the_worst_gap_plus_a_tenth_of_the_mean() -> None:
    feasible = load_script("feasible")
    scores = feasible.TARGETS + 0.01
    scores[2] -= 0.03  # the random mover 0.02 short
    expected = -0.02 + 0.1 * (0.01 * (len(scores) - 1) - 0.02) / len(scores)
    assert abs(feasible.margin(scores) - expected) < 1e-12


def test_the_shipped_heldout_figures_fit_their_titles_at_their_sizes() -> None:
    # The README's engine_ladder.png had its title cut at both edges (one panel is narrower than the title).
    from test_plots import assert_texts_fit

    heldout = load_script("heldout")
    shipped = ROOT / "results" / "reference"
    for name, draw in (("heldout", heldout.figure), ("ladder", heldout.ladder_figure),
                       ("engine_ladder", heldout.engine_figure)):
        assert_texts_fit(draw(pd.read_csv(shipped / f"{name}.csv")), name)


def test_shipped_heldout_table_matches_its_csv() -> None:
    frame = pd.read_csv(ROOT / "results" / "reference" / "heldout.csv")
    text = (ROOT / "results" / "reference" / "heldout.md").read_text(encoding="utf-8")
    for _, row in frame.iterrows():
        assert f"| {row['table']} | {row['league_heuristic']:.3f}" in text


def test_random_tables_toml_is_strong_toml_with_two_changes() -> None:
    strong = load_config(EXPERIMENTS / "strong.toml")
    variant = load_config(EXPERIMENTS / "random-tables.toml")
    for section in ("population", "selection", "crossover", "mutation", "final", "output"):
        assert getattr(variant, section) == getattr(strong, section), section
    assert variant.fitness == replace(strong.fitness, eps=0.0, random_table_games=64)
    assert (variant.experiment.seed, variant.experiment.generations) == (strong.experiment.seed, 500)
    assert variant.experiment.held_out_claim




def test_every_experiment_file_is_a_valid_config_or_study() -> None:
    for path in sorted((ROOT / "experiments").glob("*.toml")):
        if "[study]" in path.read_text(encoding="utf-8"):
            load_study(path)
        else:
            load_config(path)


def test_deep_toml_trains_a_searching_player_at_depths_1_to_4_without_held_out_opponents() -> None:
    config = load_config(ROOT / "experiments" / "deep.toml")
    assert config.fitness.player.startswith("alphabeta") and config.fitness.depths == (1, 1, 1, 2, 3, 4)
    assert config.experiment.held_out_claim
    from ga.evolution.refine import refine_depths

    assert refine_depths(config) == (1,)  # refined at 1 ply: at the run's depths it traded the 1-ply play away


def test_the_study_benchmark_times_both_sides_and_prints_their_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_script("study_bench")
    assert bench.main(["--repeat", "2", "--seeds", "1", "--generations", "2", "--games", "4", "--workers", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "5 configs x 1 seeds of seed2021.toml (2 generations), 1 worker threads"
    repetitions = [line for line in lines if line.startswith("repetition ")]
    assert len(repetitions) == 2 and all("5 runs back to back" in line for line in repetitions)
    ratios = sorted(float(line.rsplit("ratio ", 1)[1]) for line in repetitions)
    median = float(lines[-1].split("median ratio ", 1)[1].split()[0])
    assert lines[-1].startswith("study / back to back: median ratio ")
    assert abs(median - sum(ratios) / 2) <= 0.001  # the median of two, from the printed (rounded) ratios


@pytest.mark.slow
def test_the_figures_benchmark_times_each_variant_beside_its_busy_processes_and_prints_the_ratios(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    bench = load_script("figures_bench")
    other = tmp_path / "other"  # a second checkout: a copy of this one's ga/ (its engine is the installed one)
    shutil.copytree(ROOT / "ga", other / "ga", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(ROOT)  # started here, a tool that imported its working folder's code would time this checkout
    loops: list[subprocess.Popen[bytes]] = []
    real_popen, real_timed = bench.subprocess.Popen, bench.timed

    def popen(command: list[str], *args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        process = real_popen(command, *args, **kwargs)
        if command[-1] == bench.BUSY_LOOP:
            loops.append(process)
        return process

    beside: list[tuple[str, int, str]] = []

    def timed(command: list[str], environment: dict[str, str], where: Path) -> float:
        running = [loop for loop in loops if loop.poll() is None]
        assert all(os.getsid(loop.pid) == loop.pid for loop in running)  # each in a session of its own
        imported = subprocess.run([command[0], "-c", "import ga; print(ga.__file__)"], env=environment, cwd=where,
                                  capture_output=True, text=True, check=True).stdout.strip()
        # What it runs, beside how many busy loops, with whose code.
        beside.append((command[3], len(running), str(Path(imported).parents[1])))
        return real_timed(command, environment, where)

    monkeypatch.setattr(bench.subprocess, "Popen", popen)
    monkeypatch.setattr(bench, "timed", timed)
    assert bench.main(["--repeat", "1", "--busy", "1", "--generations", "2", "--checkout", str(ROOT),
                       "--checkout", str(other)]) == 0
    assert len(loops) == 1 and loops[0].poll() is not None  # started for the round, stopped after it
    assert sorted(beside) == sorted([(variant, 1, str(checkout)) for checkout in (ROOT, other)
                                     for variant in ("evolve", "evolve", "plot")])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("seed2021.toml, 2 generations; 1 rounds; CPU-bound processes beside the run: 1; ")
    times = re.findall(r"(\S+): no figures (\S+) s, plot (\S+) s, figures (\S+) s, ratio ([\d.]+)", lines[1])
    assert lines[1].startswith("round 1, busy 1: ") and [found[0] for found in times] == [ROOT.name, "other"]
    for _, bare, plot, figures, ratio in times:
        assert abs(float(figures) / (float(bare) + float(plot)) - float(ratio)) < 0.01
    summary = [line for line in lines if line.startswith(f"busy 1, {ROOT.name}:")]
    assert len(summary) == 1 and f"figures / (no figures + plot) {times[0][4]} (range" in summary[0]
    assert summary[0].endswith(("meets 1.2", "misses 1.2"))
    against = float(next(line for line in lines if line.startswith(f"busy 1, figures, other / {ROOT.name}: "))
                    .split(": ", 1)[1].split()[0])
    assert abs(against - float(times[1][3]) / float(times[0][3])) < 0.01
