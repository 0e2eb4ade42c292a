"""Resuming runs: from checkpoints, after crashes, torn writes and signals, always to identical files."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import tomli_w

from ga.config import config_from_dict, load_config
from ga.evolution.run import evolve, resume
from ga.rundir.layout import RunDirError
from runs import REPRODUCIBLE, assert_same_run, generations_without_timings, with_changes

ROOT = Path(__file__).resolve().parent.parent


def tiny(**sections: dict[str, Any]) -> dict[str, Any]:
    """Returns a tiny experiment with coevolution, hall-of-fame and random-table games (its state is all in the checkpoint)."""
    return with_changes({
        "experiment": {"name": "tiny", "seed": 4, "generations": 6},
        "population": {"size": 8, "parents": 4},
        "selection": {"method": "tournament", "tournament_size": 2, "elitism": 1, "reevaluate_elites": False},
        "fitness": {"opponents": ["random", "nhand:1"], "draw": "one", "games_per_opponent": 3, "colours": "both",
                    "coevolution": 1, "hall_of_fame_games": 1, "hall_of_fame_size": 3, "random_table_games": 2},
        "compute": {"workers": 1},
        # A checkpoint every generation, however short: these tests kill and stop runs between generations.
        "output": {"checkpoint_seconds": 0.0},
    }, **sections)






def manifest(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "manifest.json").read_text())


class Crash(Exception):
    """Stands for the process dying after a generation was written."""


class CrashAfter:
    """A progress bar that raises after ``generation`` has been written (a crash between checkpoints)."""

    def __init__(self, generation: int) -> None:
        self.generation = generation

    def __call__(self, stage: Any) -> CrashAfter:
        return self

    def update(self, record: dict[str, Any]) -> None:
        if record.get("generation") == self.generation:
            raise Crash

    def close(self) -> None:
        pass


class SignalAfter(CrashAfter):
    """A progress bar that sends the process ``signum`` after ``generation`` (like Ctrl-C during the next one)."""

    def __init__(self, generation: int, signum: int) -> None:
        super().__init__(generation)
        self.signum = signum

    def update(self, record: dict[str, Any]) -> None:
        if record.get("generation") == self.generation:
            os.kill(os.getpid(), self.signum)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("reference") / "run"
    evolve(config_from_dict(tiny()), out=run_dir)
    return run_dir


# --- in process ---------------------------------------------------------------------------------


def test_extending_a_finished_run_equals_running_longer(tmp_path: Path, uninterrupted: Path) -> None:
    run_dir = tmp_path / "run"
    first = evolve(config_from_dict(tiny()), out=run_dir, generations=2)
    assert first.finished and manifest(run_dir)["status"] == "finished"
    result = resume(run_dir, generations=6)
    assert result.finished and result.generations_done == 6
    assert_same_run(run_dir, uninterrupted)
    assert (run_dir / "config.toml").read_bytes() == (uninterrupted / "config.toml").read_bytes()
    assert load_config(run_dir / "config.toml").experiment.generations == 6
    saved = manifest(run_dir)
    assert saved["status"] == "finished"
    assert saved["generations_done"] == saved["generations_planned"] == 6
    assert saved["games_played"] == manifest(uninterrupted)["games_played"]
    assert len(result.logbook_frame()) == 6


@pytest.mark.parametrize("k", [1, 3, 5])
def test_resume_after_k_generations_equals_the_uninterrupted_run(tmp_path: Path, uninterrupted: Path, k: int) -> None:
    run_dir = tmp_path / "run"
    evolve(config_from_dict(tiny()), out=run_dir, generations=k)
    resume(run_dir, generations=6)
    assert_same_run(run_dir, uninterrupted)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_after_the_generation_and_resume_completes(
    tmp_path: Path, uninterrupted: Path, signum: int
) -> None:
    run_dir = tmp_path / "run"
    handler_before = signal.getsignal(signal.SIGINT)  # SIG_IGN when started in the background
    result = evolve(config_from_dict(tiny()), out=run_dir, progress=SignalAfter(1, signum))
    # Generation 1's progress is reported while generation 2 plays, so the signal arrives during
    # generation 2: it is finished and saved, and generation 3 is never started.
    assert not result.finished
    assert result.generations_done == 3
    assert manifest(run_dir)["status"] == "interrupted"
    assert manifest(run_dir)["generations_done"] == 3
    assert json.loads((run_dir / "checkpoint.json").read_text())["generation"] == 2
    assert not (run_dir / "population.csv").exists()
    assert len(generations_without_timings(run_dir)) == 1 + 3
    # The handlers are restored after the run.
    assert signal.getsignal(signal.SIGINT) == handler_before
    resumed = resume(run_dir)
    assert resumed.finished and manifest(run_dir)["status"] == "finished"
    assert_same_run(run_dir, uninterrupted)


def test_a_second_sigint_stops_at_once_and_the_checkpoint_is_intact(tmp_path: Path, uninterrupted: Path) -> None:
    class TwoInterrupts(CrashAfter):
        def update(self, record: dict[str, Any]) -> None:
            if record.get("generation") == self.generation:
                os.kill(os.getpid(), signal.SIGINT)
                os.kill(os.getpid(), signal.SIGINT)

    run_dir = tmp_path / "run"
    handler_before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        evolve(config_from_dict(tiny()), out=run_dir, progress=TwoInterrupts(2))
    assert json.loads((run_dir / "checkpoint.json").read_text())["generation"] == 2
    assert signal.getsignal(signal.SIGINT) == handler_before
    assert resume(run_dir).finished
    assert_same_run(run_dir, uninterrupted)


def test_resumed_logbook_equals_the_uninterrupted_one(tmp_path: Path) -> None:
    data = tiny()
    reference = evolve(config_from_dict(data), out=tmp_path / "reference")
    evolve(config_from_dict(data), out=tmp_path / "run", generations=3)
    resumed = resume(tmp_path / "run", generations=6)
    untimed = [c for c in reference.logbook_frame().columns if not c.endswith("_s")]
    assert len(resumed.logbook_frame()) == 6
    pd.testing.assert_frame_equal(resumed.logbook_frame()[untimed], reference.logbook_frame()[untimed],
                                  check_dtype=False)
    assert [list(ind) for ind in resumed.hall_of_fame] == [list(ind) for ind in reference.hall_of_fame]
    assert [list(ind) for ind in resumed.population] == [list(ind) for ind in reference.population]


def test_hall_of_fame_with_tied_fitness_survives_resume(tmp_path: Path) -> None:
    # One game per individual: fitness is 0, 1/2 or 1, so the hall of fame is full of ties
    # and its order depends on how it is rebuilt from the checkpoint.
    data = tiny(
        experiment={"generations": 8},
        fitness={"games_per_opponent": 1, "colours": "black", "coevolution": 0, "hall_of_fame_games": 1,
                 "hall_of_fame_size": 6},
        selection={"reevaluate_elites": True},
    )
    evolve(config_from_dict(data), out=tmp_path / "reference")
    fitness = [row.split(",")[2] for row in (tmp_path / "reference" / "hall_of_fame.csv").read_text().splitlines()[1:]]
    assert len(fitness) == 6 and len(set(fitness)) < 6  # there are ties
    for k in (1, 2, 4, 7):
        run_dir = tmp_path / f"resumed-{k}"
        evolve(config_from_dict(data), out=run_dir, generations=k)
        resume(run_dir, generations=8)
        assert_same_run(run_dir, tmp_path / "reference")


def test_a_crash_between_checkpoints_is_rolled_back(tmp_path: Path, uninterrupted: Path) -> None:
    # checkpoint_every = 2: generations 0-1 and 2-3 are checkpointed; the crash comes after generation 4 was written.
    data = tiny(output={"checkpoint_every": 2})
    run_dir = tmp_path / "run"
    with pytest.raises(Crash):
        evolve(config_from_dict(data), out=run_dir, progress=CrashAfter(4))
    assert len(generations_without_timings(run_dir)) == 1 + 5
    assert json.loads((run_dir / "checkpoint.json").read_text())["generation"] == 3
    result = resume(run_dir)
    assert result.finished
    assert_same_run(run_dir, uninterrupted)
    assert manifest(run_dir)["games_played"] == manifest(uninterrupted)["games_played"]


def test_torn_rows_after_the_checkpoint_are_dropped(tmp_path: Path, uninterrupted: Path) -> None:
    run_dir = tmp_path / "run"
    evolve(config_from_dict(tiny()), out=run_dir, progress=SignalAfter(2, signal.SIGTERM))
    with open(run_dir / "generations.csv", "a", encoding="utf-8") as handle:
        handle.write("4,24,1")
    with open(run_dir / "games.csv", "a", encoding="utf-8") as handle:
        handle.write("4,0,random,bla")
    resume(run_dir)
    assert_same_run(run_dir, uninterrupted)


def test_resuming_a_finished_run_writes_nothing(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    evolve(config_from_dict(tiny(experiment={"generations": 4})), out=run_dir)
    before = {path: (path.read_bytes(), path.stat().st_mtime_ns) for path in run_dir.rglob("*") if path.is_file()}
    for generations in (None, 4):
        result = resume(run_dir, generations=generations)
        assert result.finished and result.already_finished and result.generations_done == 4
        assert result.stopped_in == ""  # it stopped nowhere
    after = {path: (path.read_bytes(), path.stat().st_mtime_ns) for path in run_dir.rglob("*") if path.is_file()}
    assert after == before  # not a byte, not even the manifest or the lock file
    extended = resume(run_dir, generations=5)  # asking for more is not "finished"
    assert extended.finished and not extended.already_finished and extended.generations_done == 5


def snapshot(directory: Path) -> dict[Path, tuple[bytes, int]]:
    return {path: (path.read_bytes(), path.stat().st_mtime_ns) for path in directory.rglob("*") if path.is_file()}


@pytest.mark.parametrize("shipped", ["strong", "seed2021", "deep", "engine"])
def test_resume_of_a_shipped_run_says_it_is_finished_and_never_to_remove_it(shipped: str) -> None:
    # It said the run "stopped before its first generation ended" and to remove 'results/reference/strong'.
    from ga.cli import main

    run_dir = Path("results") / "reference" / shipped
    before = snapshot(ROOT / run_dir)
    done = manifest(ROOT / run_dir)["generations_done"]
    result = subprocess.run([sys.executable, "-m", "ga.cli", "resume", str(run_dir)], cwd=ROOT, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        f"'{run_dir}' is finished ({done:,} of {done:,} generations done, and every stage after them): nothing to "
        "resume, nothing written. It was kept without its checkpoint.json, so it cannot be extended in place; to run "
        f"it again, longer, into a new directory: othello-ga evolve {run_dir / 'config.toml'} --generations N "
        f"--out NEW_DIR, with N more than {done:,}\n")
    assert snapshot(ROOT / run_dir) == before
    assert main(["resume", str(ROOT / run_dir), "--generations", str(done + 1)]) == 2
    assert snapshot(ROOT / run_dir) == before


def test_a_finished_run_kept_without_its_checkpoint_is_made_again_as_the_message_says(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ga.cli import main

    run_dir = tmp_path / "run"
    evolve(config_from_dict(tiny(experiment={"generations": 3})), out=run_dir)
    (run_dir / "checkpoint.json").unlink()
    before = snapshot(run_dir)
    for generations in (None, 3):
        result = resume(run_dir, generations=generations)
        assert result.finished and result.already_finished and not result.checkpoint_kept
    with pytest.raises(RunDirError) as refused:
        resume(run_dir, generations=5)
    message = str(refused.value)
    assert message == (f"'{run_dir}' is finished (3 of 3 generations done) and was kept without its checkpoint.json, "
                       "so it cannot be extended in place; run it again, longer, into a new directory: othello-ga "
                       f"evolve {run_dir / 'config.toml'} --generations 5 --out NEW_DIR")
    assert snapshot(run_dir) == before
    # What it says to run makes the run again: its first generations are this run's.
    command = message.rsplit(": othello-ga ", 1)[1].replace("NEW_DIR", str(tmp_path / "again")).split()
    assert main([*command, "--quiet", "--no-plots"]) == 0
    capsys.readouterr()
    assert generations_without_timings(tmp_path / "again")[:4] == generations_without_timings(run_dir)


def test_a_copied_run_without_its_checkpoint_is_not_said_to_have_stopped_before_its_first_generation(
        tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    evolve(config_from_dict(tiny(experiment={"generations": 3})), out=run_dir)
    (run_dir / "checkpoint.json").unlink()
    data = manifest(run_dir) | {"status": "interrupted"}
    (run_dir / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(RunDirError, match=r"has 3 generations done but no checkpoint.json \(it was copied without it\)"
                                          r", so it cannot be continued; run it again into a new directory: othello-ga "
                                          r"evolve .*config.toml --out NEW_DIR$"):
        resume(run_dir)


def test_an_extension_s_wall_time_is_the_time_spent_running_not_the_gap(tmp_path: Path) -> None:
    from ga.analysis.summary import summarize_run
    from ga.evolution.run import job_seconds

    run_dir = tmp_path / "run"
    evolve(config_from_dict(tiny(experiment={"generations": 2})), out=run_dir)
    first = manifest(run_dir)
    first["started"] = "2026-01-01T00:00:00Z"  # the run stood finished for months before it was extended
    (run_dir / "manifest.json").write_text(json.dumps(first))
    resume(run_dir, generations=3)
    extended = manifest(run_dir)
    assert extended["resumes"] == 1 and extended["status"] == "finished"
    (line,) = [line for line in summarize_run(run_dir).splitlines() if line.startswith("  wall time")]
    assert "the rest" not in line and "h" not in line.split("wall time")[1]
    assert extended["wall_s"] == pytest.approx(job_seconds(extended)) and extended["wall_s"] < 60


def test_resume_refuses_what_is_not_a_resumable_run(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match="does not exist"):
        resume(tmp_path / "missing")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "notes.txt").write_text("hello\n")
    with pytest.raises(RunDirError, match="not a run directory"):
        resume(tmp_path / "plain")
    run_dir = tmp_path / "run"
    evolve(config_from_dict(tiny(experiment={"generations": 2})), out=run_dir)
    (run_dir / "checkpoint.json").unlink()
    with pytest.raises(RunDirError, match="kept without its checkpoint.json"):
        resume(run_dir, generations=3)  # (a finished one without it is finished: resume(run_dir) does nothing)


def test_resume_refuses_a_run_whose_csv_lost_rows(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    evolve(config_from_dict(tiny(experiment={"generations": 2})), out=run_dir)
    path = run_dir / "generations.csv"
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(RunDirError, match="damaged"):
        resume(run_dir, generations=3)


def test_resume_refuses_a_corrupt_checkpoint(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    evolve(config_from_dict(tiny(experiment={"generations": 2})), out=run_dir)
    (run_dir / "checkpoint.json").write_text('{"format": 1, "generation": ')
    with pytest.raises(RunDirError, match="checkpoint"):
        resume(run_dir, generations=3)


def test_a_refused_resume_leaves_the_run_directory_unchanged(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    evolve(config_from_dict(tiny(experiment={"generations": 2})), out=run_dir)
    (run_dir / "checkpoint.json").unlink()
    before = {p.name: p.read_bytes() for p in run_dir.iterdir()}
    with pytest.raises(RunDirError, match="checkpoint"):
        resume(run_dir, generations=5)
    assert {p.name: p.read_bytes() for p in run_dir.iterdir()} == before


def test_resume_refuses_to_shrink_a_run(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    evolve(config_from_dict(tiny(experiment={"generations": 4})), out=run_dir)
    before = {p.name: p.read_bytes() for p in run_dir.iterdir()}
    with pytest.raises(ValueError, match="4"):  # RunDirError and ConfigError are ValueErrors: the CLI exits 2
        resume(run_dir, generations=2)
    assert {p.name: p.read_bytes() for p in run_dir.iterdir()} == before


# --- a real process, killed and signalled ------------------------------------------------------------

# Big enough to take a few seconds (about 0.1 s a generation, 640 games: a pool with 2 workers), with
# every kind of state.
SUBPROCESS_EXPERIMENT = {
    "experiment": {"name": "interrupted", "seed": 7, "generations": 20},
    "population": {"size": 32, "parents": 16},
    "selection": {"method": "tournament", "elitism": 2},
    "fitness": {"opponents": ["random", "nhand:1"], "draw": "all", "games_per_opponent": 8, "colours": "both",
                "coevolution": 2, "hall_of_fame_games": 2},
    "compute": {"workers": 1},
}


@pytest.fixture(scope="module")
def subprocess_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("config") / "interrupted.toml"
    path.write_text(tomli_w.dumps(SUBPROCESS_EXPERIMENT))
    return path


@pytest.fixture(scope="module")
def subprocess_reference(subprocess_config: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("subprocess-reference") / "run"
    evolve(subprocess_config, out=run_dir)
    return run_dir


def start_cli(*args: str, new_session: bool = False) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ga.cli", *args], cwd=ROOT, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=new_session,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def wait_for_generations(process: subprocess.Popen[str], run_dir: Path, rows: int, timeout: float = 60.0) -> None:
    """Waits until the run has a checkpoint and at least ``rows`` generations in generations.csv."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the run ended early with exit code {process.returncode}"
        csv_path = run_dir / "generations.csv"
        if (run_dir / "checkpoint.json").exists() and csv_path.exists():
            if csv_path.read_text().count("\n") - 1 >= rows:
                return
        time.sleep(0.01)
    pytest.fail("the run did not reach its generations in time")


def test_sigkill_and_a_torn_row_then_cli_resume(
    tmp_path: Path, subprocess_config: Path, subprocess_reference: Path
) -> None:
    run_dir = tmp_path / "run"
    process = start_cli("evolve", str(subprocess_config), "--out", str(run_dir), "--quiet", "--no-plots")
    try:
        wait_for_generations(process, run_dir, 2)
    finally:
        process.kill()  # SIGKILL: no handler, no cleanup
        process.communicate()
    assert process.returncode == -signal.SIGKILL
    assert manifest(run_dir)["status"] == "running"
    with open(run_dir / "generations.csv", "a", encoding="utf-8") as handle:
        handle.write("99,640,3")  # half a row, as a write cut short by the kill
    resumed = subprocess.run(
        [sys.executable, "-m", "ga.cli", "resume", str(run_dir), "--quiet", "--no-plots"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "Traceback" not in resumed.stderr
    assert "finished 20 generations" in resumed.stdout
    assert manifest(run_dir)["status"] == "finished"
    assert_same_run(run_dir, subprocess_reference)


def kill_all(process: subprocess.Popen[str], whole_group: bool) -> None:
    """Kills a run started by this test (and its pool's workers when it has its own process group)."""
    if process.poll() is None:
        if whole_group:
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    process.communicate()


@pytest.mark.parametrize(("signum", "workers", "whole_group"), [
    (signal.SIGINT, 1, False),
    (signal.SIGTERM, 1, False),
    (signal.SIGINT, 2, True),  # Ctrl-C in a terminal: the pool's workers get it too
    (signal.SIGTERM, 2, True),  # systemd or Slurm stopping the whole group
], ids=["SIGINT", "SIGTERM", "SIGINT-to-group-with-pool", "SIGTERM-to-group-with-pool"])
def test_signal_saves_exits_130_and_resume_completes(
    tmp_path: Path, subprocess_config: Path, subprocess_reference: Path, signum: int, workers: int, whole_group: bool
) -> None:
    run_dir = tmp_path / "run"
    process = start_cli("evolve", str(subprocess_config), "--out", str(run_dir), "--quiet", "--no-plots",
                        "--workers", str(workers), new_session=whole_group)
    try:
        wait_for_generations(process, run_dir, 2)
        if whole_group:
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)
        # The run stops after the current generation (about 0.1 s): 6 s means it hangs.
        _, stderr = process.communicate(timeout=6)
    except subprocess.TimeoutExpired:
        pytest.fail("the run did not stop within 6 s of the signal")
    finally:
        kill_all(process, whole_group)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert f"othello-ga resume {run_dir}" in stderr
    saved = manifest(run_dir)
    assert saved["status"] == "interrupted"
    done = saved["generations_done"]
    assert 2 <= done < 20
    assert json.loads((run_dir / "checkpoint.json").read_text())["generation"] == done - 1
    assert len(generations_without_timings(run_dir)) == 1 + done  # nothing after the checkpoint
    result = resume(run_dir, workers=1)
    assert result.finished
    assert_same_run(run_dir, subprocess_reference)


def test_ctrl_c_leaves_the_bar_where_the_run_stopped(tmp_path: Path, subprocess_config: Path) -> None:
    # The bar jumped to 100% "done" before the run said it had stopped.
    import re

    run_dir = tmp_path / "run"
    process = start_cli("evolve", str(subprocess_config), "--out", str(run_dir), "--no-plots", "--workers", "1")
    try:
        wait_for_generations(process, run_dir, 2)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=6)
    finally:
        kill_all(process, False)
    assert process.returncode == 130, stderr
    screens = [screen.strip() for screen in re.split(r"[\r\n]", stderr) if screen.strip()]
    bars = [screen for screen in screens if screen.startswith("GA ")]
    done = manifest(run_dir)["generations_done"]
    assert bars and bars[-1].startswith(f"GA {done}/20 "), bars[-1:]
    assert not any(" 100%|" in bar or bar.endswith("done") for bar in bars), bars[-1]
    assert screens[-1].startswith(f"stopped during GA, {done} of 20 generations done (checkpoint saved)")


# --- a checkpoint is checked before it is trusted ------------------------------------------------


def snapshot(run_dir: Path) -> dict[str, bytes]:
    return {str(p.relative_to(run_dir)): p.read_bytes() for p in sorted(run_dir.rglob("*")) if p.is_file()}


def test_a_hand_edited_checkpoint_fails_its_checksum(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    evolve(config_from_dict(tiny(experiment={"generations": 4})), out=run_dir)
    data = json.loads((run_dir / "checkpoint.json").read_text())
    data["generation"] = 1  # what a hand edit or a half-copied file would say
    (run_dir / "checkpoint.json").write_text(json.dumps(data, separators=(",", ":")))
    before = snapshot(run_dir)
    with pytest.raises(RunDirError, match="does not match its checksum"):
        resume(run_dir, generations=6)
    assert snapshot(run_dir) == before


def test_a_checkpoint_whose_generation_disagrees_with_its_rows_is_refused(tmp_path: Path) -> None:
    # A checkpoint with a valid checksum that says generation 1 while the CSV sizes it records cover
    # generations 0-3 (as a checkpoint put together from two states would): refused before anything changes.
    from ga.rundir.checkpoint import checkpoint_text, read_checkpoint

    run_dir = tmp_path / "run"
    evolve(config_from_dict(tiny(experiment={"generations": 4})), out=run_dir)
    checkpoint = read_checkpoint(run_dir)
    checkpoint.generation = 1
    checkpoint.born = [min(born, 1) for born in checkpoint.born]  # no individual born after its checkpoint
    checkpoint.hall_of_fame_born = [min(born, 1) for born in checkpoint.hall_of_fame_born]
    (run_dir / "checkpoint.json").write_text(checkpoint_text(checkpoint))
    before = snapshot(run_dir)
    with pytest.raises(RunDirError, match="generation 1 is the last one saved, but the rows of 'generations.csv' "
                                          "it covers end with generation 3"):
        resume(run_dir, generations=6)
    assert snapshot(run_dir) == before


def test_a_checkpoint_of_another_seed_is_refused_by_its_settings(tmp_path: Path) -> None:
    other, run_dir = tmp_path / "other", tmp_path / "run"
    evolve(config_from_dict(tiny(experiment={"generations": 3, "seed": 9})), out=other)
    evolve(config_from_dict(tiny(experiment={"generations": 3})), out=run_dir)
    (run_dir / "checkpoint.json").write_bytes((other / "checkpoint.json").read_bytes())
    before = snapshot(run_dir)
    with pytest.raises(RunDirError, match=r"\(experiment.seed = 9 there, 4 in config.toml\)"):
        resume(run_dir, generations=5)
    assert snapshot(run_dir) == before


def test_a_checkpoint_from_another_config_is_refused(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    evolve(config_from_dict(tiny(experiment={"generations": 3})), out=run_dir)
    text = (run_dir / "config.toml").read_text().replace("sigma = 0.1", "sigma = 0.2")
    (run_dir / "config.toml").write_text(text)
    before = snapshot(run_dir)
    with pytest.raises(RunDirError, match=r"another run than config.toml describes \(mutation.sigma = 0.1 there, "
                                          r"0.2 in config.toml\)"):
        resume(run_dir, generations=5)
    assert snapshot(run_dir) == before


@pytest.mark.parametrize(("seconds", "every", "saved"), [
    (0.0, 1, [0, 1, 2, 3, 4, 5]),  # every generation
    (0.0, 2, [1, 3, 5]),  # every second generation, and the last
    (0.0, 4, [3, 5]),  # every fourth, and the last
    (3600.0, 1, [0, 5]),  # the first, then no more than one an hour: the last
])
@pytest.mark.shows("output.checkpoint_every", "output.checkpoint_seconds")
def test_checkpoints_follow_their_generation_count_and_their_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seconds: float, every: int, saved: list[int]
) -> None:
    import ga.rundir.writer

    written: list[int] = []
    write = ga.rundir.writer.RunWriter.write_checkpoint

    def record(self: Any, checkpoint: Any) -> None:
        written.append(checkpoint.generation)
        write(self, checkpoint)

    monkeypatch.setattr(ga.rundir.writer.RunWriter, "write_checkpoint", record)
    evolve(config_from_dict(tiny(output={"checkpoint_seconds": seconds, "checkpoint_every": every})),
           out=tmp_path / "run")
    assert written == saved


def test_a_run_of_an_earlier_version_resumes_from_its_format_1_checkpoint(tmp_path: Path) -> None:
    # Earlier versions wrote checkpoints without checksum, settings or tables, and a manifest that records no
    # format: such a run still resumes (with the checks its checkpoint allows), and writes format 2 from then on.
    full, run_dir = tmp_path / "full", tmp_path / "run"
    evolve(config_from_dict(tiny(experiment={"generations": 4})), out=full)
    evolve(config_from_dict(tiny(experiment={"generations": 2})), out=run_dir)
    data = json.loads((run_dir / "checkpoint.json").read_text())
    for field in ("sha256", "settings", "tables"):
        data.pop(field)
    (run_dir / "checkpoint.json").write_text(json.dumps(data | {"format": 1}))
    manifest = json.loads((run_dir / "manifest.json").read_text())
    del manifest["checkpoint_format"]
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    resume(run_dir, generations=4)
    assert_same_run(full, run_dir)
    assert json.loads((run_dir / "checkpoint.json").read_text())["format"] == 2
    assert json.loads((run_dir / "manifest.json").read_text())["checkpoint_format"] == 2
