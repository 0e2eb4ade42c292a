"""Tests for ga.analysis.plothelper: a helper process draws the figures plot_run draws."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ga.analysis.plothelper
from ga.cli import main
from ga.analysis.plothelper import PlotHelper
from ga.analysis.plots import RUN_FIGURES, plot_run
from ga.rundir.layout import RunDirError
from tests.test_plots import write_run

QUICK = Path(__file__).resolve().parents[1] / "experiments" / "quick.toml"


def test_the_helper_draws_the_same_files_as_plot_run(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run")
    with PlotHelper() as helper:
        written = helper.draw(run_dir)
    assert [path.stem for path in written] == list(RUN_FIGURES)
    here = plot_run(run_dir, out_dir=tmp_path / "here")
    for by_helper, by_us in zip(written, here, strict=True):
        assert by_helper.parent == run_dir / "plots"
        assert by_helper.read_bytes() == by_us.read_bytes(), by_helper.name


def test_the_helper_is_out_of_reach_of_the_run_s_ctrl_c() -> None:
    with PlotHelper() as helper:
        process = helper.process
        assert process is not None
        assert os.getsid(process.pid) != os.getsid(0)  # a session of its own
    assert process.returncode is not None


def test_a_helper_never_asked_to_draw_is_ended_and_draws_nothing(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run")
    with PlotHelper() as helper:
        process = helper.process
    assert process is not None and process.poll() is not None
    assert not (run_dir / "plots").exists()


def test_a_helper_that_cannot_start_leaves_the_figures_to_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_process(*args: object, **kwargs: object) -> None:
        raise OSError("no more processes")

    monkeypatch.setattr(ga.analysis.plothelper.subprocess, "Popen", no_process)
    run_dir = write_run(tmp_path / "run")
    with PlotHelper() as helper:
        assert helper.process is None
        written = helper.draw(run_dir)
    assert [path.stem for path in written] == list(RUN_FIGURES)
    assert all(path.is_file() for path in written)


def test_a_helper_that_died_leaves_the_figures_to_this_process(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run")
    with PlotHelper() as helper:
        assert helper.process is not None
        helper.process.kill()
        helper.process.wait()
        written = helper.draw(run_dir)
    assert [path.stem for path in written] == list(RUN_FIGURES)
    assert all(path.is_file() for path in written)


def test_the_helper_s_error_is_raised_here(tmp_path: Path) -> None:
    with PlotHelper() as helper, pytest.raises(RunDirError, match="generations.csv"):
        helper.draw(tmp_path / "no-run")


def test_the_helper_draws_from_another_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_dir = write_run(tmp_path / "run")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    with PlotHelper() as helper:
        assert helper.process is not None
        reply = helper.ask(run_dir)  # drawn by the helper, not by the fallback
    assert reply is not None and "written" in reply
    assert (run_dir / "plots" / "win_rate.png").is_file()


def test_the_helper_and_its_fork_each_draw_a_share_and_reply_with_all(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run")
    with PlotHelper() as helper:
        reply = helper.ask(run_dir)
    assert reply is not None
    assert [Path(path).stem for path in reply["written"]] == list(RUN_FIGURES)  # type: ignore[union-attr]
    assert set(ga.analysis.plothelper.FORK_SHARE) < set(RUN_FIGURES)


def test_a_failure_in_the_fork_s_share_is_reported_and_raised_here(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run")
    (run_dir / "best_weights.csv").write_text("not,a,table\n")  # best_weights is the fork's to draw
    assert "best_weights" in ga.analysis.plothelper.FORK_SHARE
    with PlotHelper() as helper:
        reply = helper.ask(run_dir)
    assert reply is not None and "best_weights.csv" in str(reply["error"])
    with PlotHelper() as helper, pytest.raises(ValueError, match="best_weights.csv"):
        helper.draw(run_dir)  # the fallback in this process meets the same file


def test_a_helper_exits_at_end_of_file_without_drawing(tmp_path: Path) -> None:
    helper = subprocess.run(
        [sys.executable, "-c", "from ga.analysis.plothelper import serve; serve()"],
        input="", capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )
    assert helper.returncode == 0
    assert helper.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_evolve_and_resume_draw_every_figure_through_the_helper(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["evolve", str(QUICK), "--out", str(out), "--quiet", "--generations", "2"]) == 0
    drawn = {name: (out / "plots" / f"{name}.png").read_bytes() for name in RUN_FIGURES}
    assert all(data.startswith(b"\x89PNG") for data in drawn.values())
    assert main(["resume", str(out), "--quiet", "--generations", "3"]) == 0
    redrawn = {name: (out / "plots" / f"{name}.png").read_bytes() for name in RUN_FIGURES}
    assert redrawn["win_rate"] != drawn["win_rate"]  # a third generation on the curve


def test_the_helper_s_warnings_are_warned_here_one_each(tmp_path: Path) -> None:
    # A run whose games.csv has gone: the opponent bars are skipped with a warning, given in the helper's fork.
    run_dir = write_run(tmp_path / "run")
    (run_dir / "games.csv").unlink()
    with PlotHelper() as helper, pytest.warns(UserWarning) as caught:
        written = helper.draw(run_dir)
    assert [str(w.message) for w in caught] == [f"{run_dir / 'games.csv'} does not exist; skipping opponent_bars"]
    assert "opponent_bars" not in [path.stem for path in written]


def test_a_figure_the_run_s_config_rules_out_is_said_once_on_its_own_line(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    # Without games.csv by the config, the opponent bars do not apply: no warning, one note after the closing line.
    config = tmp_path / "no-games.toml"
    config.write_text(QUICK.read_text() + "\n[output]\ngames_csv = false\n")
    assert main(["evolve", str(config), "--out", str(tmp_path / "run"), "--quiet", "--generations", "2"]) == 0
    captured = capfd.readouterr()
    note = ("opponent_bars is not drawn for this run: its config turns games.csv off (output.games_csv = false); "
            "win_rate_by_opponent shows the same opponents")
    assert captured.err == ""
    assert captured.out.splitlines()[-1] == note and captured.out.count("opponent_bars") == 1
    assert not (tmp_path / "run" / "plots" / "opponent_bars.png").exists()
    assert main(["plot", str(tmp_path / "run")]) == 0
    captured = capfd.readouterr()
    assert captured.err == "" and captured.out.splitlines()[-1] == note


def test_a_run_that_fails_leaves_no_helper_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "file").write_text("mine")
    started: list[subprocess.Popen[str] | None] = []
    real = PlotHelper.__init__

    def record(self: PlotHelper) -> None:
        real(self)
        started.append(self.process)

    monkeypatch.setattr(PlotHelper, "__init__", record)
    assert main(["evolve", str(QUICK), "--out", str(tmp_path / "taken"), "--quiet"]) == 2
    assert len(started) == 1 and started[0] is not None
    assert started[0].poll() is not None  # ended with the run
    assert (tmp_path / "taken" / "file").read_text() == "mine"
    assert not (tmp_path / "taken" / "plots").exists()


def test_the_helper_ends_with_a_run_killed_while_it_draws_and_says_nothing(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run")
    script = (
        "import os, signal, sys\n"
        "from ga.analysis.plothelper import PlotHelper, _ask\n"
        "helper = PlotHelper()\n"
        "assert _ask(helper.process, {'run_dir': sys.argv[1]})\n"
        "os.kill(os.getpid(), signal.SIGTERM)  # as a scheduler ends a job while its figures are drawn\n"
    )
    root = Path(__file__).resolve().parents[1]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    # The helper and its fork inherit the run's stderr: it reads to its end only once they have all ended.
    completed = subprocess.run([sys.executable, "-c", script, str(run_dir)], capture_output=True, text=True,
                               env=environment, timeout=120)
    assert completed.returncode == -signal.SIGTERM
    assert completed.stderr == ""  # no BrokenPipeError from a helper left talking to a dead run
    assert not list((run_dir / "plots").glob("*.png")) if (run_dir / "plots").exists() else True


@pytest.mark.parametrize(("arguments", "expected"), [
    (["evolve", "x.toml"], True),
    (["resume", "runs/a", "--quiet"], True),
    (["evolve", "x.toml", "--no-plots"], False),
    (["evolve", "--help"], False),
    (["resume", "-h"], False),
    (["plot", "runs/a"], False),
    (["evaluate", "evolve"], False),
    ([], False),
])
def test_the_script_starts_the_helper_early_only_for_runs_that_draw(arguments: list[str], expected: bool) -> None:
    from ga.launch import draws_figures

    assert draws_figures(arguments) is expected


def test_a_run_takes_the_helper_started_early_and_one_without_figures_ends_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[PlotHelper] = []
    real = PlotHelper.__init__

    def record(self: PlotHelper) -> None:
        real(self)
        started.append(self)

    monkeypatch.setattr(PlotHelper, "__init__", record)
    ga.analysis.plothelper.start_early()
    ga.analysis.plothelper.start_early()  # one at most
    assert len(started) == 1
    out = tmp_path / "run"
    assert main(["evolve", str(QUICK), "--out", str(out), "--quiet", "--generations", "2"]) == 0
    assert len(started) == 1  # the run drew through the early helper, and started none of its own
    assert started[0].asked and started[0].process is None  # asked, and ended with the run
    assert sorted(path.stem for path in (out / "plots").iterdir()) == sorted(RUN_FIGURES)
    assert ga.analysis.plothelper.take_early() is None

    ga.analysis.plothelper.start_early()
    early = started[1].process
    assert main(["resume", str(out), "--quiet", "--generations", "3", "--no-plots"]) == 0
    assert len(started) == 2 and early is not None and early.poll() is not None  # ended, never asked
    ga.analysis.plothelper.start_early()
    ga.analysis.plothelper._end_early()  # what the script does at exit with a helper no run took
    assert started[2].process is None and ga.analysis.plothelper.take_early() is None


def test_the_helper_s_group_gives_way_while_the_run_plays_and_not_once_asked_to_draw(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import json

    set_to: list[int] = []
    monkeypatch.setattr(ga.analysis.plothelper, "_set_group_priority",
                        lambda nice, pid=None, patience=None: set_to.append(nice))
    monkeypatch.setattr(ga.analysis.plothelper, "_end_with", lambda parent: None)
    monkeypatch.setattr(ga.analysis.plothelper, "_draw", lambda run_dir: ([], []))

    def leave(code: int) -> None:
        raise SystemExit(code)

    monkeypatch.setattr(ga.analysis.plothelper.os, "_exit", leave)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps({"run_dir": str(tmp_path)}) + "\n"))
    with pytest.raises(SystemExit):
        ga.analysis.plothelper.serve(1)
    assert set_to == [ga.analysis.plothelper.AUTOGROUP_NICE_WHILE_THE_RUN_PLAYS, 0]
    set_to.clear()
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # the run ended without asking
    ga.analysis.plothelper.serve(1)
    assert set_to == [ga.analysis.plothelper.AUTOGROUP_NICE_WHILE_THE_RUN_PLAYS]


def test_only_a_session_leader_sets_its_group_s_priority(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    group = tmp_path / "autogroup"  # stands in for /proc/self/autogroup
    monkeypatch.setattr(ga.analysis.plothelper, "AUTOGROUP", str(group))
    monkeypatch.setattr(ga.analysis.plothelper.os, "getsid", lambda pid: 4321)
    monkeypatch.setattr(ga.analysis.plothelper.os, "getpid", lambda: 1234)
    assert ga.analysis.plothelper._set_group_priority(19) is False  # the group holds other processes
    assert not group.exists()
    monkeypatch.setattr(ga.analysis.plothelper.os, "getpid", lambda: 4321)
    assert ga.analysis.plothelper._set_group_priority(19) is True
    assert group.read_text() == "19\n"
    monkeypatch.setattr(ga.analysis.plothelper, "AUTOGROUP", str(tmp_path / "none" / "autogroup"))
    assert ga.analysis.plothelper._set_group_priority(0) is False  # no autogroup here: nothing changes



def test_the_run_gives_the_helper_s_group_its_priority_back_as_soon_as_it_asks_for_the_figures(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Autogroup files stand in for /proc/PID/autogroup, one per process id; the helper is a real one.
    monkeypatch.setattr(ga.analysis.plothelper, "AUTOGROUP", str(tmp_path / "autogroup-{pid}"))
    run_dir = write_run(tmp_path / "run")
    seen: list[str] = []
    real_reply = ga.analysis.plothelper._reply

    def reply(process: subprocess.Popen[str]) -> dict[str, object] | None:
        seen.append((tmp_path / f"autogroup-{process.pid}").read_text())  # set before the run waits
        return real_reply(process)

    monkeypatch.setattr(ga.analysis.plothelper, "_reply", reply)
    with PlotHelper() as helper:
        assert helper.process is not None
        (tmp_path / f"autogroup-{helper.process.pid}").write_text("/autogroup-7 nice 19\n")
        written = helper.draw(run_dir)
    assert seen == ["0\n"]
    assert [path.stem for path in written] == list(RUN_FIGURES)


class Refusals:
    """Opens files as ``open`` does, but refuses the first ``count`` writes as the kernel refuses an autogroup
    change within 100 ms of another (EAGAIN)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.writes = 0

    def __call__(self, path: str, mode: str = "r") -> object:
        if "w" in mode:
            self.writes += 1
            if self.writes <= self.count:
                raise BlockingIOError(11, "Resource temporarily unavailable")
        return open(path, mode)


def test_a_group_priority_refused_for_now_is_tried_again_within_its_patience(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    group = tmp_path / "autogroup"
    group.write_text("/autogroup-7 nice 19\n")
    monkeypatch.setattr(ga.analysis.plothelper, "AUTOGROUP", str(group))
    monkeypatch.setattr(ga.analysis.plothelper.os, "getsid", lambda pid: os.getpid())
    refusals = Refusals(3)
    monkeypatch.setattr(ga.analysis.plothelper, "open", refusals, raising=False)
    assert ga.analysis.plothelper._set_group_priority(0) is True
    assert refusals.writes == 4 and group.read_text() == "0\n"

    assert ga.analysis.plothelper._set_group_priority(0) is True  # the group has it: nothing written, nothing spent
    assert refusals.writes == 4

    refusals = Refusals(1_000_000)
    monkeypatch.setattr(ga.analysis.plothelper, "open", refusals, raising=False)
    assert ga.analysis.plothelper._set_group_priority(19, patience=0.05) is False  # refused to the end: given up
    assert 1 < refusals.writes < 100 and group.read_text() == "0\n"

    class SetMeanwhile(Refusals):  # refused because the group's own process has just set the same value
        def __call__(self, path: str, mode: str = "r") -> object:
            if "w" in mode:
                group.write_text("/autogroup-7 nice 19\n")
            return super().__call__(path, mode)

    refusals = SetMeanwhile(1_000_000)
    monkeypatch.setattr(ga.analysis.plothelper, "open", refusals, raising=False)
    assert ga.analysis.plothelper._set_group_priority(19) is True
    assert refusals.writes == 1  # not tried again: the group has the value


# A run started as the othello-ga script starts it, in which Ctrl-C comes while the figures are drawn: the run's wait
# for them (the helper's reply, or its own drawing when there is no helper) announces itself in a file with the
# helper's process id, then lasts until the signal, so that the signal cannot miss it.
_CTRL_C_WHILE_DRAWING = """
import os, signal, sys, time
from pathlib import Path
import ga.analysis.plothelper as plothelper
import ga.analysis.plots as plots

signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal (a background job starts it ignored)
announce = Path(sys.argv[1])
where = sys.argv[2]
real = plothelper._reply if where == "helper" else plots.plot_run

def drawing(*args, **kwargs):
    announce.write_text(str(os.getpid() if where == "here" else args[0].pid))
    time.sleep(120)
    return real(*args, **kwargs)

if where == "helper":
    plothelper._reply = drawing
else:
    def no_process(*args, **kwargs):
        raise OSError("no more processes")
    plothelper.subprocess.Popen = no_process
    plots.plot_run = drawing
sys.argv = ["othello-ga", *sys.argv[3:]]
from ga.launch import main
sys.exit(main())
"""


@pytest.mark.parametrize("where", ["helper", "here"])
def test_ctrl_c_while_the_figures_are_drawn_exits_130_and_says_where_the_run_stands(tmp_path: Path,
                                                                                    where: str) -> None:
    out = tmp_path / "run"
    announce = tmp_path / "drawing"
    root = Path(__file__).resolve().parents[1]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    process = subprocess.Popen(
        [sys.executable, "-c", _CTRL_C_WHILE_DRAWING, str(announce), where, "evolve", str(QUICK), "--out", str(out),
         "--generations", "2", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not (announce.is_file() and announce.read_text()) and process.poll() is None:
            assert time.monotonic() < deadline, "the run never came to its figures"
            time.sleep(0.02)
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the run's whole process group
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, stderr
    assert stderr.splitlines()[-1] == (
        f"stopped while drawing the figures; the run is finished and saved in {out}; "
        f"draw its figures with: othello-ga plot {out}")
    assert "Aborted" not in stderr and "Traceback" not in stderr
    assert json.loads((out / "manifest.json").read_text())["status"] == "finished"
    assert stdout == ""  # no "finished ..." line: the command did not finish
    if where == "helper":
        with pytest.raises(ProcessLookupError):  # stopped, not left drawing for a command that has ended
            os.kill(int(announce.read_text()), 0)
