"""Faults of the file system: a full disk mid-run, an output path that cannot be created."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

import pytest

import ga.games.executor
import ga.rundir.writer
from ga.cli import main
from ga.config import config_from_dict
from ga.evolution.run import evolve, resume
from ga.rundir.layout import RunDirError

from runs import assert_same_run
from test_resume import tiny


@pytest.fixture
def uninterrupted(tmp_path: Path) -> Path:
    run_dir = tmp_path / "uninterrupted"
    evolve(config_from_dict(tiny()), out=run_dir)
    return run_dir


def _fill_disk_at(monkeypatch: pytest.MonkeyPatch, generation: int) -> None:
    """Makes the CSV append of ``generation`` fail half-written, as a full disk would."""
    real_append = ga.rundir.writer.RunWriter._append

    def append(self: ga.rundir.writer.RunWriter, name: str, text: str) -> None:
        if text.split(",", 1)[0] == str(generation):  # the rows of that generation
            with open(self.run_dir / name, "a", encoding="utf-8") as handle:
                handle.write("3,64,1")  # a torn row, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device", str(self.run_dir / name))
        real_append(self, name, text)

    monkeypatch.setattr(ga.rundir.writer.RunWriter, "_append", append)


def test_a_full_disk_mid_run_keeps_the_checkpoint_and_resume_completes(
    tmp_path: Path, uninterrupted: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = tmp_path / "run"
    _fill_disk_at(monkeypatch, 3)
    with pytest.raises(OSError) as raised:
        evolve(config_from_dict(tiny()), out=run_dir)
    assert raised.value.errno == errno.ENOSPC
    checkpoint = json.loads((run_dir / "checkpoint.json").read_text())
    assert checkpoint["generation"] == 2  # the last whole generation is saved
    monkeypatch.undo()  # space was freed
    assert resume(run_dir).finished
    assert_same_run(run_dir, uninterrupted)


def test_games_that_fail_before_the_last_generation_is_written_leave_it_saved(
    tmp_path: Path, uninterrupted: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A generation's files are written while the next one plays; a cluster
    # lost before its games start (the map raises at once) must not take the
    # finished generation's rows and checkpoint with it.
    real_play = ga.games.executor.play_batch
    calls = []

    def play(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 4:
            raise ConnectionError("the scheduler went away")
        return real_play(*args, **kwargs)

    monkeypatch.setattr(ga.games.executor, "play_batch", play)
    run_dir = tmp_path / "run"
    with pytest.raises(ConnectionError):
        evolve(config_from_dict(tiny()), out=run_dir)
    assert json.loads((run_dir / "checkpoint.json").read_text())["generation"] == 2
    assert len((run_dir / "generations.csv").read_text().splitlines()) == 1 + 3
    monkeypatch.undo()
    assert resume(run_dir).finished
    assert_same_run(run_dir, uninterrupted)


def test_the_cli_reports_a_full_disk_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "tiny.toml"
    import tomli_w

    config.write_text(tomli_w.dumps(tiny()))
    _fill_disk_at(monkeypatch, 1)
    code = main(["evolve", str(config), "--out", str(tmp_path / "run"), "--quiet", "--no-plots"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "No space left on device" in err and "Traceback" not in err
    assert json.loads((tmp_path / "run" / "checkpoint.json").read_text())["generation"] == 0


def test_an_output_directory_that_cannot_be_created_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(self: Path, *args: Any, **kwargs: Any) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    with pytest.raises(RunDirError, match="cannot write the run directory"):
        evolve(config_from_dict(tiny()), out=tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_a_file_in_the_way_of_the_output_directory_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "run"
    blocker.write_text("precious")
    with pytest.raises(RunDirError, match="already exists"):
        evolve(config_from_dict(tiny()), out=blocker)
    assert blocker.read_text() == "precious"


def test_resume_refuses_a_config_that_does_not_fit_the_checkpoint(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    evolve(config_from_dict(tiny()), out=run_dir, generations=2)
    before = {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()}
    (run_dir / "config.toml").write_text("")  # valid TOML: the all-defaults experiment (32 individuals)
    before["config.toml"] = b""
    with pytest.raises(RunDirError, match="checkpoint holds 8 individuals"):
        resume(run_dir, generations=4)
    assert {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()} == before


def test_a_bad_opponent_weights_file_stops_the_api_before_anything_is_written(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("1,2,3\n")
    data = tiny()
    data["fitness"] = data["fitness"] | {"opponents": [f"wpc:1@{bad}"]}
    with pytest.raises(ValueError, match="expected 64 numbers"):
        evolve(config_from_dict(data), out=tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_a_failing_local_worker_thread_is_one_line_exit_1_and_the_run_resumes(
    tmp_path: Path, uninterrupted: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The local pool's workers are threads of this process: there is no worker
    # process to kill, but a worker can fail (here on generation 3's games).
    import tomli_w

    monkeypatch.setattr(ga.games.executor, "SHARE_MIN_SECONDS", 0.0)  # tiny batches too go to the pool thread
    config = tmp_path / "tiny.toml"
    config.write_text(tomli_w.dumps(tiny()))
    calls = []

    def failing(games: Any) -> int:
        calls.append(1)
        if len(calls) == 4:
            raise MemoryError("no memory left for the games")
        return games.play()

    monkeypatch.setattr(ga.games.executor, "play_share", failing)
    run_dir = tmp_path / "run"
    code = main(["evolve", str(config), "--out", str(run_dir), "--workers", "2", "--quiet", "--no-plots"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "worker thread failed" in err and "MemoryError" in err and f"othello-ga resume {run_dir}" in err
    assert json.loads((run_dir / "checkpoint.json").read_text())["generation"] == 2
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "MemoryError" in manifest["error"]  # never left "running"
    assert main(["show", str(run_dir)]) == 0
    assert "failed (WorkersLost" in capsys.readouterr().out
    monkeypatch.undo()
    assert main(["resume", str(run_dir), "--quiet", "--no-plots"]) == 0
    assert_same_run(run_dir, uninterrupted)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "finished" and "error" not in manifest
