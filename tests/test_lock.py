"""One writer per run directory: real concurrent processes, a holder killed with SIGKILL, live readers."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ga.cli import main
from ga.config import config_from_dict, config_to_toml
from ga.evolution.run import evolve
from ga.rundir.layout import RunDirError
from ga.rundir.lock import RunLock, RunLocked, holder

from runs import assert_same_run, generations_without_timings

ROOT = Path(__file__).resolve().parent.parent

# Long enough (a few seconds) that a second process starts while the first still writes.
LONG = {
    "experiment": {"name": "long", "seed": 3, "generations": 400},
    "population": {"size": 16, "parents": 8},
    "selection": {"tournament_size": 2},
    "fitness": {"opponents": ["nhand:1", "nmost:1"], "draw": "all", "games_per_opponent": 2, "colours": "both"},
    "compute": {"workers": 1},
}


def cli(*args: str) -> subprocess.Popen[str]:
    """Starts ``othello-ga ARGS`` as a process of its own."""
    return subprocess.Popen([sys.executable, "-m", "ga.cli", *args, "--quiet", "--no-plots"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(path: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def long_config(tmp_path: Path, generations: int = 400) -> Path:
    path = tmp_path / "long.toml"
    data = LONG | {"experiment": LONG["experiment"] | {"generations": generations}}
    path.write_text(config_to_toml(config_from_dict(data)), encoding="utf-8")
    return path


def generation_numbers(run_dir: Path) -> list[int]:
    return [int(row[0]) for row in generations_without_timings(run_dir)[1:]]


def test_resume_while_evolve_writes_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    run_dir = tmp_path / "live"
    first = cli("evolve", str(long_config(tmp_path)), "--out", str(run_dir))
    wait_for(run_dir / "checkpoint.json")
    second = subprocess.run([sys.executable, "-m", "ga.cli", "resume", str(run_dir), "--generations", "500",
                             "--quiet", "--no-plots"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert second.returncode == 2, second.stderr
    assert second.stderr.count("\n") == 1 and "Traceback" not in second.stderr
    assert f"'{run_dir}' is being written by process {first.pid}" in second.stderr
    assert first.wait(timeout=120) == 0, first.stderr.read() if first.stderr else ""
    assert generation_numbers(run_dir) == list(range(400))  # one row per generation, none twice


def test_two_resumes_at_once_make_one_run(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    evolve(long_config(tmp_path, 4), out=run_dir)
    extend = ["resume", str(run_dir), "--generations", "200"]
    first, second = cli(*extend), cli(*extend)
    codes = sorted([first.wait(timeout=120), second.wait(timeout=120)])
    assert codes in ([0, 0], [0, 2])  # the second either waited its turn (then had nothing to do) or was refused
    assert generation_numbers(run_dir) == list(range(200))
    reference = tmp_path / "reference"
    evolve(long_config(tmp_path, 200), out=reference)
    assert_same_run(run_dir, reference)


def test_a_held_lock_refuses_every_writer_and_names_the_holder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = tmp_path / "run"
    evolve(long_config(tmp_path, 3), out=run_dir)
    before = {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()}
    with RunLock(run_dir):
        assert holder(run_dir) == os.getpid()
        with pytest.raises(RunLocked, match=f"process {os.getpid()}"):
            RunLock(run_dir).acquire()
        assert main(["resume", str(run_dir), "--generations", "6", "--quiet", "--no-plots"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"being written by process {os.getpid()}" in err
        # Readers keep working, and say the run is live.
        assert main(["show", str(run_dir)]) == 0
        out = capsys.readouterr().out
        assert f"live, being written by process {os.getpid()}" in out
        assert main(["export", str(run_dir), "--format", "csv"]) == 0
        assert "is live" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()} == before
    assert holder(run_dir) is None


def test_evolve_into_a_directory_another_writer_holds_is_refused(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    with RunLock(run_dir):
        with pytest.raises(RunDirError, match="is being written by process"):
            evolve(long_config(tmp_path, 2), out=run_dir)
    assert [p.name for p in run_dir.iterdir()] == [".lock"]


def test_a_holder_killed_with_sigkill_leaves_no_stale_lock(tmp_path: Path) -> None:
    run_dir = tmp_path / "killed"
    first = cli("evolve", str(long_config(tmp_path, 300)), "--out", str(run_dir))
    wait_for(run_dir / "checkpoint.json")
    time.sleep(0.2)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=60)
    assert holder(run_dir) is None
    resumed = subprocess.run([sys.executable, "-m", "ga.cli", "resume", str(run_dir), "--quiet", "--no-plots"],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    reference = tmp_path / "reference"
    evolve(long_config(tmp_path, 300), out=reference)
    assert_same_run(run_dir, reference)


def test_a_run_whose_directory_is_replaced_stops_without_writing_into_the_new_one(tmp_path: Path) -> None:
    """Removing a live run's directory and starting another run at its path must not mix the two runs."""
    run_dir = tmp_path / "live"
    first = cli("evolve", str(long_config(tmp_path, generations=4000)), "--out", str(run_dir))
    wait_for(run_dir / "checkpoint.json")
    os.rename(run_dir, tmp_path / "moved")  # as rm -rf would, but keeping the first run's files to look at
    run_dir.mkdir()
    with RunLock(run_dir):  # the second run's lock
        _, err = first.communicate(timeout=120)
        assert sorted(path.name for path in run_dir.iterdir()) == [".lock"]  # nothing of the first run
    assert first.returncode != 0
    assert err.count("\n") == 1 and "was removed or replaced while this run wrote it" in err, err
    assert "Traceback" not in err
    generation_numbers(tmp_path / "moved")  # the first run's own files are whole rows


def test_check_held_passes_while_the_lock_file_is_the_one_held(tmp_path: Path) -> None:
    from ga.rundir.lock import RunReplaced, check_held

    run_dir = tmp_path / "run"
    run_dir.mkdir()
    check_held(run_dir)  # never locked here: a reader, nothing to check
    with RunLock(run_dir) as lock:
        check_held(run_dir)
        assert lock.intact()
        (run_dir / ".lock").rename(run_dir / "old-lock")
        (run_dir / ".lock").write_text("", encoding="utf-8")  # another file at the lock's name
        assert not lock.intact()
        with pytest.raises(RunReplaced, match="removed or replaced"):
            check_held(run_dir)
        (run_dir / ".lock").unlink()
        with pytest.raises(RunReplaced):
            check_held(run_dir)
    check_held(run_dir)  # released: no longer this process's to check
