"""A run's figures drawn by a helper process that starts with the run.

Importing matplotlib and pandas and drawing the figures is a large part of
a short run such as seed2021.toml. The helper starts when the run starts and
imports them while the run plays; when the run has finished it forks, and
the two processes, sharing the imports, draw half the figures each
(docs/performance.md has the measurements). Nothing here imports
matplotlib, so the run itself never pays for it.

The helper sits in a session of its own, so a Ctrl-C meant for the run does
not reach it; it waits for one request on its stdin and exits at end of
file, which is also what it sees if the run dies. A run stopped by Ctrl-C
while it waits for the figures stops the helper too.

While the run plays, the helper's scheduling group gives way (nice 19), so
that its imports take only what the run leaves of the cores; the moment the
run asks for the figures, the run itself sets the group back to 0, since it
now waits for them: on a busy machine a helper still at nice 19 would wait
for every other process before it could finish its imports and draw.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any

__all__ = ["AUTOGROUP", "AUTOGROUP_NICE_WHILE_THE_RUN_PLAYS", "FORK_SHARE", "PlotHelper", "checkout_environment", "serve",
           "start_early", "take_early"]

#: Where Linux shows a process's autogroup ("self": this process's), and the nice value the helper's group has
#: while the run plays.
AUTOGROUP = "/proc/{pid}/autogroup"
AUTOGROUP_NICE_WHILE_THE_RUN_PLAYS = 19

#: How long to keep trying to set a group's nice value that the kernel refuses for now: without privileges it
#: allows one change every 100 ms on the whole machine (several runs' helpers, or a helper of a short run whose
#: start and end fall within 100 ms), and the refusal would leave the figures at nice 19 while the run waits.
AUTOGROUP_PATIENCE_SECONDS = 1.0

#: The figures the helper's fork draws while the helper draws the others
#: (about half of the drawing time each).
FORK_SHARE = ("opponent_bars", "best_weights", "mean_weights")


def checkout_environment(checkout: Path | None = None) -> dict[str, str]:
    """Returns this process's environment with a checkout first on PYTHONPATH: by default the one this package
    was loaded from.

    A child Python process given it imports the same code as this one: a
    source checkout run without installing, or a worktree beside an
    editable install of another checkout. Given another checkout (built in
    place, as ``pip install -e`` builds it), it imports that one's code.
    """
    root = os.fspath(Path(__file__).resolve().parents[2] if checkout is None else checkout)
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}


class PlotHelper:
    """A helper process, ready to draw a run's figures (see :func:`ga.analysis.plots.plot_run`).

    Use as a context manager around the run, and :meth:`draw` once it has
    finished. If the helper cannot start, or fails, this process draws the
    figures itself, so they never depend on the helper.
    """

    def __init__(self) -> None:
        self.asked = False
        try:
            self.process: subprocess.Popen[str] | None = subprocess.Popen(
                [sys.executable, "-c", f"from ga.analysis.plothelper import serve; serve({os.getpid()})"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True,
                env=checkout_environment(),
            )
        except OSError:
            self.process = None

    def __enter__(self) -> PlotHelper:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def draw(self, run_dir: Path) -> list[Path]:
        """Draws the figures of ``run_dir`` and returns their paths; the helper's warnings are warned here."""
        reply = self.ask(run_dir)
        if reply is not None and "written" in reply:
            for message in reply.get("warnings", []):
                warnings.warn(str(message), UserWarning, stacklevel=2)
            return [Path(path) for path in reply["written"]]
        # The helper could not draw: this process does, raising what plot_run raises.
        from ga.analysis.plots import plot_run  # not before: importing matplotlib here is what the helper saves

        return plot_run(run_dir)

    def ask(self, run_dir: Path) -> dict[str, Any] | None:
        """Asks the helper to draw the figures of ``run_dir`` and returns its reply (see :func:`serve`), or None if
        it could not be asked or did not answer.

        A KeyboardInterrupt (Ctrl-C) while the helper draws stops the helper and is raised again.
        """
        self.asked = True
        if self.process is None or not _ask(self.process, {"run_dir": os.fspath(run_dir)}):
            return None
        # The run waits from now on: the helper's group no longer gives way (set from here, at once,
        # rather than by a helper that may not get a core for a while on a busy machine).
        _set_group_priority(0, self.process.pid)
        try:
            return _reply(self.process)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Ends the helper at once, drawing or not (its fork ends with it: it watches the helper)."""
        self.asked = False  # close() then kills it rather than waits for its figures
        self.close()

    def close(self) -> None:
        """Ends the helper: it exits after its reply or at end of file; one never asked to draw is killed."""
        process, self.process = self.process, None
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.close()
            if not self.asked:
                process.kill()  # no need to wait for its imports
            process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
        finally:
            if process.stdout is not None:
                process.stdout.close()


_early: PlotHelper | None = None


def start_early() -> None:
    """Starts a helper now, for the run this process is about to set up (:func:`take_early` hands it over).

    The command line's own imports take a tenth of a second or more on one
    core; a helper started before them imports matplotlib on the other. One
    that no run takes is ended when this process exits.
    """
    global _early
    if _early is None:
        _early = PlotHelper()
        atexit.register(_end_early)


def take_early() -> PlotHelper | None:
    """Returns the helper :func:`start_early` started (once; None if there is none)."""
    global _early
    helper, _early = _early, None
    return helper


def _end_early() -> None:
    helper = take_early()
    if helper is not None:
        helper.close()


def _ask(process: subprocess.Popen[str] | None, request: dict[str, Any]) -> bool:
    if process is None or process.stdin is None:
        return False
    try:
        process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()
    except OSError:
        return False
    return True


def _reply(process: subprocess.Popen[str] | None) -> dict[str, Any] | None:
    if process is None or process.stdout is None:
        return None
    try:
        line = process.stdout.readline()
        reply = json.loads(line) if line else None
    except (OSError, ValueError):
        return None
    return reply if isinstance(reply, dict) else None


def serve(parent: int | None = None) -> None:
    """The helper's main: imports the plotting code, then draws the run named by one request on stdin.

    ``parent`` is the run's process id: the helper ends as soon as it has ended (default: this process's parent).

    The request is one JSON line ``{"run_dir": ...}``; the reply one JSON line
    ``{"written": [paths], "warnings": [messages]}`` or ``{"error": message}``.
    At end of file (the run stopped or died) it exits without drawing.
    """
    _end_with(os.getppid() if parent is None else parent)  # the run's id, in case it died before this started
    # Tried briefly, as its imports wait meanwhile: refused, they run at nice 0, a little slower for the run.
    _set_group_priority(AUTOGROUP_NICE_WHILE_THE_RUN_PLAYS, patience=0.1)
    import ga.analysis.plots  # noqa: F401  (the point of starting early)

    line = sys.stdin.readline()
    if not line:
        return
    # The run now waits for the figures: it sets this too (and tries longer), so one try is enough here.
    _set_group_priority(0, patience=0)
    try:
        paths, said = _draw(json.loads(line)["run_dir"])
        reply: dict[str, Any] = {"written": [os.fspath(path) for path in paths], "warnings": said}
    except Exception as error:  # reported to the run, which then draws the figures itself
        reply = {"error": f"{type(error).__name__}: {error}"}
    try:
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # the run is gone (killed while this drew): nobody to tell
        pass
    # Done: skip the interpreter's teardown of matplotlib and pandas, which the run waits for.
    os._exit(0)


def _set_group_priority(nice: int, pid: int | None = None, patience: float = AUTOGROUP_PATIENCE_SECONDS) -> bool:
    """Sets the nice value of the scheduling group (Linux's autogroup) of process ``pid`` (default: this
    process); says whether it could (or the group had it already).

    The helper has a session of its own, so under autogroup scheduling (most
    Linux desktops and servers) it is a group of its own, which the kernel
    shares the cores with as evenly as with the run's whole group: its
    imports took about a core from the run's two threads, whatever its own
    nice value. An autogroup's nice value can be raised, and set back to 0,
    by its owner without privileges, though only once every 100 ms on the
    whole machine: a refusal is tried again for up to ``patience`` seconds.
    Elsewhere (no autogroup, not Linux) nothing changes, and neither does it
    for a process that does not lead its session (whose group would hold
    other processes).
    """
    leader = os.getpid() if pid is None else pid
    path = AUTOGROUP.format(pid="self" if pid is None else pid)
    try:
        if not hasattr(os, "getsid") or os.getsid(leader) != leader:
            return False
    except OSError:  # no such process (any more)
        return False
    deadline = time.monotonic() + patience
    while _group_nice(path) != nice:  # a group that has it already is left alone: no change spent
        try:
            with open(path, "w") as handle:
                handle.write(f"{nice}\n")
            return True
        except BlockingIOError:  # another group's change in the last 100 ms (perhaps this one's, by its process)
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
        except OSError:
            return False
    return True


def _group_nice(path: str) -> int | None:
    """Returns the nice value an autogroup file shows ("/autogroup-42 nice 19"), or None if unknown."""
    try:
        with open(path) as handle:
            return int(handle.read().split()[-1])
    except (OSError, ValueError, IndexError):
        return None


def _end_with(parent: int) -> None:
    """Ends this process, silently, as soon as ``parent`` has ended.

    The helper sits in a session of its own, so a signal that ends the run
    (SIGTERM from a scheduler, a closed terminal) does not reach it; without
    this it would go on drawing for a run that is gone, and complain when it
    could not reply.
    """
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.05)
        os._exit(0)

    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


def _plot_noting_warnings(run_dir: str, figures: Any = None) -> tuple[list[Path], list[str]]:
    """Returns :func:`ga.analysis.plots.plot_run`'s paths and the user warnings it gave, for the run to print."""
    from ga.analysis.plots import plot_run

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # release=False: the process exits once it has drawn, so freeing each figure would be wasted.
        written = plot_run(run_dir, figures=figures, release=False)
    return written, [str(warning.message) for warning in caught if issubclass(warning.category, UserWarning)]


def _draw(run_dir: str) -> tuple[list[Path], list[str]]:
    """Draws the figures of ``run_dir``, half in a fork of this process, which shares its imports; also the warnings.

    Two helpers importing matplotlib each slowed the run more than their
    drawing in parallel saved; one import and a fork at the end gets both.
    Without ``fork`` (not POSIX) this process draws them all.
    """
    from ga.analysis.plots import FIGURE_ORDER, REFINE_FIGURE, RUN_FIGURES

    if not hasattr(os, "fork"):
        return _plot_noting_warnings(run_dir)
    read_end, write_end = os.pipe()
    helper = os.getpid()
    child = os.fork()
    if child == 0:  # the fork: draw its share, report through the pipe, leave without teardown
        _end_with(helper)  # threads do not survive a fork: a watcher of its own, of the helper
        os.close(read_end)
        try:
            paths, said = _plot_noting_warnings(run_dir, FORK_SHARE)
            message = {"written": [os.fspath(path) for path in paths], "warnings": said}
        except Exception as error:
            message = {"error": f"{type(error).__name__}: {error}"}
        try:
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(json.dumps(message).encode())
        except OSError:  # the helper is gone
            pass
        os._exit(0)
    os.close(write_end)
    try:
        mine = [name for name in RUN_FIGURES if name not in FORK_SHARE]
        if (Path(run_dir) / "refine.csv").is_file():  # a refined run
            mine.append(REFINE_FIGURE)
        written, said = _plot_noting_warnings(run_dir, mine)
    finally:
        with os.fdopen(read_end, "rb") as pipe:
            data = pipe.read()
        os.waitpid(child, 0)
    theirs = json.loads(data) if data else {"error": "the fork drawing its figures died"}
    if "written" not in theirs:
        raise RuntimeError(theirs["error"])
    written += [Path(path) for path in theirs["written"]]
    return sorted(written, key=lambda path: FIGURE_ORDER.index(path.stem)), said + theirs.get("warnings", [])
