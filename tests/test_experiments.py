"""The experiment scripts: the ablation ladder and the held-out table."""
from __future__ import annotations


import importlib.util
import sys
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ga.config import config_from_dict, load_config, replace
from ga.evolution.genome import expand
from ga.evolution.run import evolve
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


def test_every_rung_of_the_ablation_is_a_valid_config() -> None:
    ablation = load_script("ablation")
    base = tomllib.loads((EXPERIMENTS / "seed2021.toml").read_text(encoding="utf-8"))
    configs = [config_from_dict(data, base_dir=EXPERIMENTS) for data in ablation.rung_configs(base)]
    assert len(configs) == len(ablation.RUNGS)
    assert configs[0] == config_from_dict(base, base_dir=EXPERIMENTS)  # rung 0 is the blog's experiment
    for before, after in zip(configs, configs[1:]):
        assert before != after  # each rung changes something


def test_the_last_rung_of_the_ablation_is_strong_toml() -> None:
    ablation = load_script("ablation")
    base = tomllib.loads((EXPERIMENTS / "seed2021.toml").read_text(encoding="utf-8"))
    last = config_from_dict(ablation.rung_configs(base)[-1], base_dir=EXPERIMENTS)
    strong = load_config(EXPERIMENTS / "strong.toml")
    for section in ("population", "selection", "crossover", "mutation", "fitness", "final"):
        assert getattr(last, section) == getattr(strong, section), section
    assert last.experiment.held_out_claim


def test_ablation_runs_scores_and_resumes(tmp_path: Path) -> None:
    ablation = load_script("ablation")
    args = ["--out", str(tmp_path), "--seeds", "2", "--budget", "200", "--eval-games", "40", "--rungs", "0,8",
            "--jobs", "1"]
    assert ablation.main(args) == 0
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert sorted(zip(runs["rung"], runs["seed"])) == [(0, 1), (0, 2), (8, 1), (8, 2)]
    assert runs["best_vs_heuristic"].between(0, 1).all()
    table = (tmp_path / "ablation.md").read_text(encoding="utf-8")
    assert "| 0 | blog" in table and "| 8 |" in table
    before = (tmp_path / "runs.csv").read_bytes()
    assert ablation.main(args) == 0  # everything done already: nothing is run again
    assert (tmp_path / "runs.csv").read_bytes() == before
    # Run directories left without a row (an interrupted ablation) are continued, not refused.
    (tmp_path / "runs.csv").unlink()
    assert ablation.main(args) == 0
    again = pd.read_csv(tmp_path / "runs.csv")
    assert again["best_vs_heuristic"].tolist() == runs["best_vs_heuristic"].tolist()


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
    assert len(ladder) == len(heldout.LADDER) * 4 * 4  # two tables, four opponents, depths 1-4
    assert set(ladder["depth"]) == {1, 2, 3, 4} and (ladder["games"] == 40).all()
    assert (ladder["low"] <= ladder["score"]).all() and (ladder["score"] <= ladder["high"]).all()
    assert (tmp_path / "ladder.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| lr06 |" in (tmp_path / "ladder.md").read_text(encoding="utf-8")


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




def test_every_experiment_file_is_a_valid_config() -> None:
    for path in sorted((ROOT / "experiments").glob("*.toml")):
        load_config(path)


def test_deep_toml_trains_a_searching_player_at_depths_1_to_4_without_held_out_opponents() -> None:
    config = load_config(ROOT / "experiments" / "deep.toml")
    assert config.fitness.player.startswith("alphabeta") and config.fitness.depths == (1, 1, 1, 2, 3, 4)
    assert config.experiment.held_out_claim
    from ga.evolution.refine import refine_depths

    assert refine_depths(config) == (1,)  # refined at 1 ply: at the run's depths it traded the 1-ply play away
