"""The generation loop's bookkeeping: what it records, reports and decides, by value.

These tests were written against the survivors of a mutation-testing run
(docs/testing.md): each checks a number or a decision that no result file
alone would show wrong.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import ga.games.executor
import ga.games.scoring
from ga.config import config_from_dict
import ga.evolution.fitness
from ga.evolution.loop import Stage, StopRequest
from ga.evolution.toolbox import HallOfFame
from ga.evolution.run import evolve, resume
from runs import with_changes


def small(**sections: dict[str, Any]) -> dict[str, Any]:
    return with_changes({
        "experiment": {"name": "loop", "seed": 2, "generations": 6},
        "population": {"size": 8, "parents": 4},
        "selection": {"method": "tournament", "tournament_size": 2, "elitism": 2},
        "fitness": {"opponents": ["random", "nhand:1"], "draw": "all", "games_per_opponent": 2, "colours": "both"},
        "compute": {"workers": 1},
        "output": {"checkpoint_seconds": 0.0},
    }, **sections)


class Recorder:
    """A progress factory that keeps every stage and every update."""

    def __init__(self, on_update: Any = None) -> None:
        self.stages: list[Stage] = []
        self.updates: list[tuple[str, dict[str, Any]]] = []
        self.on_update = on_update

    def __call__(self, stage: Stage) -> Any:
        self.stages.append(stage)
        recorder = self

        class Bar:
            def update(self, record: dict[str, Any]) -> None:
                recorder.updates.append((stage.label, dict(record)))
                if recorder.on_update is not None:
                    recorder.on_update(len(recorder.updates))

            def close(self) -> None:
                pass

        return Bar()


def test_the_manifest_and_the_rows_agree_on_games_and_time(tmp_path: Path) -> None:
    started = time.perf_counter()
    evolve(config_from_dict(small()), out=tmp_path / "run")
    wall = time.perf_counter() - started
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    generations = pd.read_csv(tmp_path / "run" / "generations.csv")
    games = pd.read_csv(tmp_path / "run" / "games.csv")
    assert manifest["games_played"] == int(generations["games"].sum()) == len(games)
    # The recorded times are spans of this run: non-negative, nested, and summing to the manifest's.
    assert (generations["variation_s"] >= 0).all() and (generations["evaluation_s"] >= 0).all()
    assert (generations["variation_s"] + generations["evaluation_s"] <= generations["generation_s"] + 1e-9).all()
    assert isinstance(manifest["wall_s"], float) and manifest["wall_s"] == round(manifest["wall_s"], 3)
    assert abs(manifest["wall_s"] - generations["generation_s"].sum()) < 2e-3
    assert 0 < manifest["wall_s"] <= wall
    assert manifest["status"] == "finished" and manifest["finished"] >= manifest["started"]


def test_best_fitness_is_the_best_fitness_seen_so_far(tmp_path: Path) -> None:
    # Elites keep their fitness here: a table is scored once, so the best seen is the running maximum.
    # (Re-evaluated elites keep their first score in the hall of fame, DEAP's rule for a table seen before.)
    evolve(config_from_dict(small(fitness={"hall_of_fame_size": 4}, selection={"reevaluate_elites": False})),
           out=tmp_path / "run")
    generations = pd.read_csv(tmp_path / "run" / "generations.csv")
    assert generations["best_fitness"].tolist() == generations["fitness_max"].cummax().tolist()


def test_the_hall_of_fame_holds_no_table_twice(tmp_path: Path) -> None:
    # Elites carry the same genes from generation to generation: the hall of fame keeps one copy.
    evolve(config_from_dict(small(fitness={"hall_of_fame_size": 10})), out=tmp_path / "run")
    hall = pd.read_csv(tmp_path / "run" / "hall_of_fame.csv").filter(regex="^[a-h][1-8]$")
    assert len(hall) == 10 and not hall.duplicated().any()


def test_the_first_population_depends_on_the_seed(tmp_path: Path) -> None:
    tables = []
    for seed in (1, 2):
        evolve(config_from_dict(small(experiment={"seed": seed, "generations": 1})), out=tmp_path / str(seed))
        tables.append((tmp_path / str(seed) / "population.csv").read_bytes())
    assert tables[0] != tables[1]


@pytest.mark.parametrize("workers", [1, 2])
def test_the_work_between_generations_is_done_while_the_next_one_plays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    # A generation's record (its win rates), hall of fame, statistics, rows and checkpoint, and the plan
    # of the generation after the next, are made inside the next generation's play_batch (where the pool
    # thread plays meanwhile), each once; only the first plan and the last generation's bookkeeping are not.
    playing: list[int] = []
    events: list[tuple[str, int | None]] = []
    real_play = ga.games.executor.play_batch

    def play_batch(*args: Any, **kwargs: Any) -> Any:
        playing.append(len(playing))
        try:
            return real_play(*args, **kwargs)
        finally:
            playing.pop()

    real_plan = ga.evolution.fitness.plan_generation

    def plan_generation(config: Any, generation: int, size: int, champions: int = 0) -> Any:
        events.append((f"plan {generation} with {champions} champions", len(playing) or None))
        return real_plan(config, generation, size, champions)

    real_update = HallOfFame.update

    def update(self: Any, population: Any) -> None:
        events.append(("hall of fame", len(playing) or None))
        real_update(self, population)

    real_score = ga.games.scoring.score

    def score(*args: Any, **kwargs: Any) -> Any:  # only the record's win rate: the fitness is scored apart
        events.append(("record", len(playing) or None))
        return real_score(*args, **kwargs)

    monkeypatch.setattr(ga.games.executor, "play_batch", play_batch)
    monkeypatch.setattr(ga.evolution.fitness, "plan_generation", plan_generation)
    monkeypatch.setattr(HallOfFame, "update", update)
    monkeypatch.setattr(ga.games.scoring, "score", score)
    config = small(fitness={"hall_of_fame_games": 2, "hall_of_fame_size": 3}, compute={"workers": workers})
    result = evolve(config_from_dict(config), out=tmp_path / "run")
    champions = [0, 1, 2, 3, 3, 3]  # one more each generation, up to hall_of_fame_size
    assert events == [("plan 0 with 0 champions", None)] + [
        event for generation in range(1, 6)
        for event in ((f"plan {generation} with {champions[generation]} champions", 1), ("hall of fame", 1),
                      ("record", 1))
    ] + [("hall of fame", None), ("record", None)]
    assert result.finished and len(result.logbook) == 6


def test_an_interrupt_stops_after_the_generation_and_says_where(tmp_path: Path) -> None:
    def interrupt(updates: int) -> None:
        if updates == 3:
            os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C: the loop finishes this generation, saves, stops

    recorder = Recorder(interrupt)
    result = evolve(config_from_dict(small(experiment={"generations": 10})), out=tmp_path / "run",
                    progress=recorder)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert not result.finished and result.generations_done == manifest["generations_done"]
    done = result.generations_done
    assert done in (3, 4)  # the signal lands during generation 3's bookkeeping or just after
    assert manifest["status"] == "interrupted"
    assert len(pd.read_csv(tmp_path / "run" / "generations.csv")) == done
    assert json.loads((tmp_path / "run" / "checkpoint.json").read_text())["generation"] == done - 1
    assert result.stopped_in == f"GA, {done} of 10 generations done"  # the count every report gives
    assert manifest["games_played"] == int(pd.read_csv(tmp_path / "run" / "generations.csv")["games"].sum())


def test_a_run_stopped_at_once_is_marked_interrupted_and_one_that_fails_failed(tmp_path: Path) -> None:
    def second_ctrl_c(updates: int) -> None:
        if updates == 3:
            raise KeyboardInterrupt  # what a second Ctrl-C raises in the middle of the loop

    with pytest.raises(KeyboardInterrupt):
        evolve(config_from_dict(small(experiment={"generations": 10})), out=tmp_path / "run",
               progress=Recorder(second_ctrl_c))
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "interrupted" and "error" not in manifest  # never left "running"
    assert resume(tmp_path / "run").finished

    def bug(updates: int) -> None:
        if updates == 2:
            raise RuntimeError("a bug in the middle of a run")

    with pytest.raises(RuntimeError):
        evolve(config_from_dict(small(experiment={"generations": 10})), out=tmp_path / "other",
               progress=Recorder(bug))
    manifest = json.loads((tmp_path / "other" / "manifest.json").read_text())
    assert manifest["status"] == "failed" and manifest["error"] == "RuntimeError: a bug in the middle of a run"


def test_a_second_ctrl_c_stops_at_once_and_sigterm_never_does() -> None:
    stop = StopRequest()
    stop(signal.SIGTERM, None)
    stop(signal.SIGTERM, None)  # a second SIGTERM: still a request
    assert stop.signal == signal.SIGTERM
    first = StopRequest()
    first(signal.SIGINT, None)
    assert first.signal == signal.SIGINT
    with pytest.raises(KeyboardInterrupt):
        first(signal.SIGINT, None)


def test_the_final_tournament_is_a_stage_of_its_own_with_its_games(tmp_path: Path) -> None:
    recorder = Recorder()
    evolve(config_from_dict(small(final={"games": 2})), out=tmp_path / "run", progress=recorder)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert [(s.label, s.start, s.total, s.unit) for s in recorder.stages] == [
        ("GA", 0, 6, "generation"), ("final tournament", 0, 1, "tournament")]
    assert recorder.updates[-1] == ("final tournament", {"games": manifest["final_games"]})
    assert len(pd.read_csv(tmp_path / "run" / "final.csv")) > 0
    assert isinstance(manifest["final_s"], float) and manifest["final_s"] == round(manifest["final_s"], 3)
    assert 0 <= manifest["final_s"] <= manifest["wall_s"] + 60


def test_a_restarts_tournament_is_labelled_with_its_restart_and_the_run_says_refining(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ga.evolution.refine

    recorder = Recorder()
    data = small(experiment={"generations": 2, "held_out_claim": True}, population={"genome": "sym8"},
                 fitness={"opponents": ["nhand:1"]}, final={"games": 2})
    data["refine"] = {"generations": 1, "restarts": 1, "candidates": 4, "games": 8, "opponents": ["wpc:1@classic"]}
    status: list[str] = []
    refine = ga.evolution.refine.refine

    def recording(*args: Any, **kwargs: Any) -> Any:
        status.append(json.loads((tmp_path / "run" / "manifest.json").read_text())["status"])
        return refine(*args, **kwargs)

    monkeypatch.setattr(ga.evolution.refine, "refine", recording)
    evolve(config_from_dict(data), out=tmp_path / "run", progress=recorder)
    labels = [s.label for s in recorder.stages]
    assert "restart 1/1, final tournament" in labels and "final tournament" in labels
    assert status == ["refining"]  # between the GA's tables and the refined one
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["status"] == "finished"


@pytest.mark.parametrize(("workers", "games_per_opponent", "timed"), [
    (1, 2, False),  # one worker: nothing to balance, nothing timed
    (2, 2, True),  # a small generation: the costs decide whether to share it
    (2, 512, False),  # 8,192 games: shared whatever they cost, so not timed
])
def test_opponents_are_timed_only_when_the_timing_can_change_the_decision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int, games_per_opponent: int, timed: bool
) -> None:
    calls: list[int] = []
    costs = ga.games.executor.opponent_costs

    def recording(player: Any, labels: Any, width: int, *args: Any, **kwargs: Any) -> Any:
        calls.append(width)
        return costs(player, labels, width, *args, **kwargs)

    monkeypatch.setattr(ga.games.executor, "opponent_costs", recording)
    config = small(experiment={"generations": 2}, fitness={"games_per_opponent": games_per_opponent},
                   compute={"workers": workers})
    evolve(config_from_dict(config), out=tmp_path / "run")
    assert calls == ([64] if timed else [])
    if timed:
        calls.clear()
        phase = small(experiment={"generations": 1}, population={"genome": "phase"}, compute={"workers": 2})
        evolve(config_from_dict(phase), out=tmp_path / "phase")
        assert calls == [128]  # a phase genome's tables have two halves
