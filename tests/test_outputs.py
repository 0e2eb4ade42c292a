"""The one output policy: regular files replaced atomically, '-' for standard output, special files written
into, links written through (never replaced), and run directories with links refused. Every link, FIFO and
file here is made in a temporary folder; no test touches a system path."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import tomli_w

from engine import TABLES
from ga.cli import main
from ga.config import config_from_dict
from ga.evolution.run import evolve, resume
from ga.files import write_output
from ga.rundir.layout import RunDirError
from ga.weights import load_weights


def test_a_fifo_is_written_into_never_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    # The reader's end is open before the command runs (a thread opening it could come too late); the pipe
    # holds the table (far below its 64 KiB) until it is read.
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        assert main(["export", "heuristic", "--format", "csv", "-o", str(fifo), "--force"]) == 0
        received = os.read(reader, 1 << 16)
    finally:
        os.close(reader)
    assert fifo.is_fifo()  # still the FIFO
    assert np.array_equal(np.array([float(x) for x in received.decode().replace("\n", ",").strip(",").split(",")]),
                          np.array(TABLES["heuristic"]))


def test_a_fifo_that_nobody_reads_is_refused_not_waited_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert main(["export", "heuristic", "--format", "csv", "-o", str(fifo), "--force"]) == 2
    assert "nobody reads" in capsys.readouterr().err
    assert fifo.is_fifo()


@pytest.mark.parametrize("command", [["export", "lr06", "--format", "csv", "-o", "{out}", "--force"],
                                     ["evaluate", "lr06", "--vs", "random", "--games", "4", "--csv", "{out}",
                                      "--force"]])
def test_a_link_is_written_through_and_stays_a_link(tmp_path: Path, command: list[str]) -> None:
    target = tmp_path / "target.csv"
    target.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    assert main([part.replace("{out}", str(link)) for part in command]) == 0
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert target.read_text() != "old\n"


def test_a_dangling_link_is_written_through_to_its_target_with_force(tmp_path: Path) -> None:
    link = tmp_path / "dangling.csv"
    link.symlink_to(tmp_path / "new.csv")
    assert main(["export", "lr06", "--format", "csv", "-o", str(link)]) == 2  # never created without --force
    assert not (tmp_path / "new.csv").exists()
    assert main(["export", "lr06", "--format", "csv", "-o", str(link), "--force"]) == 0
    assert link.is_symlink() and np.array_equal(load_weights(tmp_path / "new.csv"), np.array(TABLES["lr06"]))


def test_a_link_into_a_missing_directory_is_refused_in_one_line(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    link = tmp_path / "loose.csv"
    link.symlink_to(tmp_path / "nowhere" / "t.csv")
    assert main(["export", "lr06", "--format", "csv", "-o", str(link)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err and "overwrite=True" not in err


def test_dash_is_standard_output_and_a_closed_one_is_an_error(capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["export", "lr06", "--format", "csv"]) == 0
    assert capsys.readouterr().out.count("\n") == 8
    monkeypatch.setattr("sys.stdout", None)
    assert main(["export", "lr06", "--format", "csv"]) == 2
    assert "standard output is closed" in capsys.readouterr().err


def test_a_regular_file_is_replaced_only_with_force(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    path.write_text("old\n")
    with pytest.raises(FileExistsError, match="--force"):
        write_output(path, "new\n", force=False)
    assert path.read_text() == "old\n"
    write_output(path, "new\n", force=True)
    assert path.read_text() == "new\n"


# --- run directories hold plain files only -----------------------------------------------------------


def tiny() -> dict:
    return {"experiment": {"seed": 2, "generations": 2}, "population": {"size": 6, "parents": 4},
            "selection": {"tournament_size": 2}, "fitness": {"opponents": ["random"], "games_per_opponent": 2},
            "compute": {"workers": 1}}


@pytest.mark.parametrize("name", ["generations.csv", "games.csv", "checkpoint.json", "manifest.json"])
def test_resume_refuses_a_run_with_a_link_where_it_would_write(tmp_path: Path, name: str) -> None:
    run_dir = tmp_path / "run"
    evolve(config_from_dict(tiny()), out=run_dir)
    outside = tmp_path / "outside"
    outside.write_bytes((run_dir / name).read_bytes())
    (run_dir / name).unlink()
    (run_dir / name).symlink_to(outside)
    before = outside.read_bytes()
    with pytest.raises(RunDirError, match=f"'{run_dir / name}' is a symbolic link"):
        resume(run_dir, generations=4)
    assert outside.read_bytes() == before


def test_plot_refuses_a_plots_folder_that_is_a_link(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = tmp_path / "run"
    evolve(config_from_dict(tiny()), out=run_dir)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "win_rate.png").write_bytes(b"mine")
    (run_dir / "plots").symlink_to(elsewhere)
    assert main(["plot", str(run_dir)]) == 2
    assert "is a symbolic link" in capsys.readouterr().err
    assert (elsewhere / "win_rate.png").read_bytes() == b"mine"


@pytest.mark.parametrize("kind", ["to nowhere", "loop"])
def test_an_output_directory_that_is_a_broken_link_is_named_for_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    config = tmp_path / "tiny.toml"
    config.write_text(tomli_w.dumps(tiny()))
    link = tmp_path / "out"
    link.symlink_to(tmp_path / "missing" / "run" if kind == "to nowhere" else link)
    assert main(["evolve", str(config), "--out", str(link), "--quiet", "--no-plots"]) == 2
    err = capsys.readouterr().err
    expected = f"is a link to '{tmp_path / 'missing' / 'run'}', which does not exist" if kind == "to nowhere" \
        else "is a link that loops back on itself"
    assert err.count("\n") == 1 and expected in err, err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out", "tiny.toml"] and link.is_symlink()


def test_an_output_directory_that_links_to_an_empty_directory_is_written_through(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    (tmp_path / "out").symlink_to(target)
    evolve(config_from_dict(tiny()), out=tmp_path / "out")
    assert (tmp_path / "out").is_symlink() and (target / "generations.csv").is_file()
