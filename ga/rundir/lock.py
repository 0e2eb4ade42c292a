"""One writer per run directory: an advisory lock held for the whole run.

Every process that writes a run directory (``evolve``, ``resume``, the
refinement and its restarts) holds an exclusive ``flock`` on the directory's
lock file for as long as it writes. The operating system releases it when the
process ends, however it ends, so a run killed with SIGKILL leaves no stale
lock. A second writer is refused at once, before it writes anything, with the
holder's process id. Readers never take the lock; :func:`holder` tells them
whether a run is live.

The lock belongs to the directory it was taken in. If that directory is
removed (or moved away) while its run writes, and another run starts at the
same path, both hold a lock, each on its own lock file: so before every file
it replaces, the writer checks that the path's lock file is still the one it
holds (:func:`check_held`), and stops rather than write into another run.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time
from pathlib import Path
from types import TracebackType

from ga.rundir.layout import LOCK, RunDirError, file_problem

__all__ = ["RunLock", "RunLocked", "RunReplaced", "check_held", "holder"]

# A reader probing the lock holds it for microseconds; a writer that finds it
# taken tries again for this long before it concludes another writer has it.
_RETRY_S = 0.25


class RunLocked(RunDirError):
    """Another process is writing the run directory."""


class RunReplaced(RunDirError):
    """The run directory this process locked was removed or replaced while it wrote."""


#: The locks this process holds, by the absolute path of their run directory.
_HELD: dict[Path, RunLock] = {}


class RunLock:
    """The exclusive lock of a run directory, held from :meth:`acquire` to :meth:`release` (or the process's end)."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self._fd: int | None = None

    def acquire(self) -> RunLock:
        """Takes the lock, or raises :class:`RunLocked` naming the holder; writes this process's id into it.

        :raises RunLocked: another process holds it.
        :raises RunDirError: the lock file cannot be made (the directory is not writable, or the name is taken
            by something that is not a regular file).
        """
        path = self.run_dir / LOCK
        problem = file_problem(path)  # a link or a FIFO would be written through or waited on
        if problem:
            raise RunDirError(f"cannot lock the run directory '{self.run_dir}': '{path}' {problem}")
        try:
            # Not blocking: a FIFO put there since it was checked is refused below, not waited on.
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o666)
        except OSError as error:
            raise RunDirError(f"cannot lock the run directory '{self.run_dir}': {error.strerror or error} "
                              f"('{path}')") from error
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode) or opened.st_nlink != 1:
            os.close(fd)
            raise RunDirError(f"cannot lock the run directory '{self.run_dir}': '{path}' "
                              f"{file_problem(path) or 'changed while it was opened'}")
        deadline = time.monotonic() + _RETRY_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as error:
                if error.errno not in (errno.EAGAIN, errno.EACCES) or time.monotonic() > deadline:
                    pid = _read_pid(fd)
                    os.close(fd)
                    who = f"process {pid}" if pid else "another process"
                    raise RunLocked(f"run directory '{self.run_dir}' is being written by {who}; wait for it "
                                    "to finish or stop it (a killed writer releases the lock)") from None
                time.sleep(0.01)
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        except OSError as error:  # a full disk, a file size limit
            os.close(fd)
            raise RunDirError(f"cannot write the lock file '{path}': {error.strerror or error}") from None
        self._fd = fd
        _HELD[self.run_dir.absolute()] = self
        return self

    @property
    def held(self) -> bool:
        """True while this process holds the lock."""
        return self._fd is not None

    def release(self) -> None:
        """Releases the lock (the lock file stays: removing it would race with the next writer)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)
            if _HELD.get(self.run_dir.absolute()) is self:
                del _HELD[self.run_dir.absolute()]

    def intact(self) -> bool:
        """True while the run directory's lock file is the very file this process locked."""
        if self._fd is None:
            return False
        try:
            there = os.stat(self.run_dir / LOCK, follow_symlinks=False)
        except OSError:  # removed with its directory, or the directory is unreadable now
            return False
        mine = os.fstat(self._fd)
        return (there.st_dev, there.st_ino) == (mine.st_dev, mine.st_ino)

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.release()


def check_held(run_dir: Path) -> None:
    """Raises :class:`RunReplaced` if this process locked ``run_dir`` and its lock file is no longer the one held.

    A directory this process never locked passes (a reader, or a test writing files directly).
    """
    lock = _HELD.get(Path(run_dir).absolute())
    if lock is not None and not lock.intact():
        raise RunReplaced(f"run directory '{run_dir}' was removed or replaced while this run wrote it (its lock "
                          "file is not the one this run holds); this run stops without writing there")


def holder(run_dir: Path) -> int | None:
    """Returns the process id of the live writer of a run directory, or None if no process writes it."""
    path = Path(run_dir) / LOCK
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # not a lock file the tool made: nobody holds it
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return _read_pid(fd) or -1
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
