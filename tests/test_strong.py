"""A short run shaped like experiments/strong.toml learns something that carries over to held-out opponents."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from ga.config import config_from_dict
from ga.analysis.evaluation import evaluate_player
from ga.evolution.run import evolve
from ga.weights import load_weights

ROOT = Path(__file__).resolve().parent.parent


def short_strong(generations: int) -> dict:
    """Returns strong.toml with fewer generations, another seed, a shorter final tournament and no refinement."""
    data = tomllib.loads((ROOT / "experiments" / "strong.toml").read_text(encoding="utf-8"))
    del data["refine"]  # seven restarts and CMA-ES: minutes; tests/test_refine.py covers the stage
    data["experiment"] |= {"generations": generations, "seed": 11}
    data["final"] = {"games": 8}
    data["compute"] = {"workers": 2}
    return data


@pytest.mark.slow  # about a minute on 2 cores
def test_a_short_strong_run_beats_its_first_generation_on_held_out_opponents(tmp_path: Path) -> None:
    config = config_from_dict(short_strong(300), base_dir=ROOT / "experiments")
    assert config.experiment.held_out_claim  # heuristic is not a training opponent
    evolve(config, out=tmp_path / "start", generations=1)
    evolve(config, out=tmp_path / "end")
    start = evaluate_player(load_weights(tmp_path / "start" / "best_weights.csv"), [], 4000, seed=5,
                            protocol="league", workers=2)[0]
    end = evaluate_player(load_weights(tmp_path / "end" / "best_weights.csv"), [], 4000, seed=5,
                          protocol="league", workers=2)[0]
    # The intervals do not overlap: the gain is larger than either's uncertainty.
    assert end.interval[0] > start.interval[1], (start, end)
