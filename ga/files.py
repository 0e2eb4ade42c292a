"""Files: the one atomic write of the project, the one policy for files users name, and the one checked read.

Every regular file the tool writes (run files, exported tables, figures,
CSVs) is written to a temporary file in the same directory, then renamed
into place, so that a reader sees the old file or the new one, never half of
one, and a crash leaves no torn file. :class:`Output` adds the rules for
paths a user names on the command line (``-``, devices, FIFOs, links), checked
before a command does its work.

Every file the tool reads (configs, weights files, the files of a run
directory) is opened by :func:`open_regular`: it must be a regular file of a
bounded size, checked before it is opened, so that a FIFO, a device or a
huge file put where a file was expected is named in one line rather than
waited on or read without end.
"""

from __future__ import annotations

import errno
import io
import os
import select
import stat
import sys
import tempfile
from pathlib import Path
from typing import BinaryIO

__all__ = ["STDOUT", "FileRefused", "Output", "StandardOutputError", "atomic_write", "check_stdout", "duration_text",
           "file_kind", "open_regular", "read_regular", "size_text", "write_output"]


class StandardOutputError(OSError):
    """Standard output cannot take what a command writes there (a full device, a file size limit); the message
    names the stream (and, said by the command line, what the command saved before)."""


class FileRefused(OSError):
    """A file that is not a regular file of the size expected, refused before it was read.

    ``problem`` completes a sentence that starts with the file's name ("is not a regular file (a FIFO)").
    """

    def __init__(self, path: str | os.PathLike[str], problem: str) -> None:
        super().__init__(f"'{os.fspath(path)}' {problem}")
        self.path = os.fspath(path)
        self.problem = problem


def file_kind(mode: int) -> str:
    """Returns what a file of ``mode`` (``st_mode``) is, for messages: "a FIFO", "a directory", ..."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "a regular file" if stat.S_ISREG(mode) else "a special file"


def size_text(count: float) -> str:
    """Returns a size in bytes as people read it: 512 bytes, 3.0 KiB, 1.5 GiB."""
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if count < 1024 or unit == "PiB":
            return f"{count:,.0f} {unit}" if unit == "bytes" else f"{count:,.1f} {unit}"
        count /= 1024
    raise AssertionError("unreachable")


def duration_text(seconds: float) -> str:
    """Returns a duration as people read it: 0.04 s, 8.2 s, 3m 05s, 1h 02m 10s (a short one keeps two digits, not
    "0.0 s").

    >>> duration_text(0.0412), duration_text(8.24), duration_text(185), duration_text(3730)
    ('0.041 s', '8.2 s', '3m 05s', '1h 02m 10s')
    """
    if seconds < 1:
        return f"{seconds:.2g} s"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m {secs:02d}s" if hours else f"{minutes}m {secs:02d}s"


def _checked(info: os.stat_result, path: str | os.PathLike[str], max_bytes: int) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused(path, f"is not a regular file ({file_kind(info.st_mode)})")
    if info.st_size > max_bytes:
        raise FileRefused(path, f"is {size_text(info.st_size)}, more than such a file holds ({size_text(max_bytes)})")


def open_regular(path: str | os.PathLike[str], max_bytes: int) -> BinaryIO:
    """Opens a regular file of at most ``max_bytes`` for reading (binary); links are followed.

    The file is checked before it is opened, and again once open (without
    blocking: a FIFO put there meanwhile is refused too, never waited on).

    :raises FileRefused: it is not a regular file (a FIFO, a device, a socket, a directory), or it is larger.
    :raises OSError: it does not exist or cannot be read (``FileNotFoundError``, ``PermissionError``, ...).
    """
    _checked(os.stat(path), path, max_bytes)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        _checked(os.fstat(fd), path, max_bytes)
        os.set_blocking(fd, True)
        return io.open(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """Returns the bytes of a regular file of at most ``max_bytes`` (see :func:`open_regular`)."""
    with open_regular(path, max_bytes) as handle:
        data = handle.read()  # as much as the file holds (its size was checked; a buffer of max_bytes would not be)
    if len(data) > max_bytes:  # it grew since it was checked
        raise FileRefused(path, f"is more than such a file holds ({size_text(max_bytes)})")
    return data


def atomic_write(path: str | os.PathLike[str], data: str | bytes, *, overwrite: bool = True,
                 fsync: bool = False) -> None:
    """Replaces ``path`` with ``data`` (text is written as UTF-8) so that readers see the old or the new file.

    The new file has the usual permissions (0666 less the umask): run
    directories are shared. With ``overwrite`` false an existing file is
    never replaced, even one created while this was writing. ``fsync``
    flushes the data to the disk before the rename (for files written once,
    such as an export; the run's per-generation files rely on their
    checkpoint instead).

    :raises FileExistsError: if ``path`` exists and ``overwrite`` is false.
    """
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    tmp: Path | None = None
    try:
        tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
        try:
            # Named by process, not by mkstemp: it runs every generation, and
            # random names cost more than the write of a small checkpoint.
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:  # left by a process that died with this number
            fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            os.chmod(name, 0o666 & ~_umask())
            tmp = Path(name)
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            if fsync:
                handle.flush()
                os.fsync(handle.fileno())
        if overwrite:
            os.replace(tmp, path)
        else:
            _link_new(tmp, path)
    except FileExistsError as error:
        if error.errno:  # the temporary's name, taken twice: the write's own failure
            raise OSError(error.errno, error.strerror, os.fspath(path)) from None
        raise
    except OSError as error:
        if not error.errno:
            raise
        # Named by the file being written, never by the temporary (a full disk, a file size limit, a directory
        # that cannot be written): the user knows only the one.
        raise OSError(error.errno, error.strerror, os.fspath(path)) from None
    finally:
        if tmp is not None:
            tmp.unlink(missing_ok=True)


def _link_new(tmp: Path, path: Path) -> None:
    # link() fails if the target exists, so a file created meanwhile is never clobbered.
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise FileExistsError(f"'{path}' already exists") from None
    except OSError:
        # The file system has no hard links: check, then rename.
        if path.exists():
            raise FileExistsError(f"'{path}' already exists") from None
        os.replace(tmp, path)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


STDOUT = "-"  # the path that names standard output, as everywhere on the command line


def check_stdout(use: str) -> None:
    """Raises OSError unless standard output is open; ``use`` says what the command prints there, and what to do."""
    if sys.stdout is None or sys.stdout.closed:
        raise OSError(f"standard output is closed; {use}")


class Output:
    """A path a user named for a command's output, checked before the command does its work.

    The one output policy of every command:

    - ``-`` is standard output;
    - a regular file is replaced atomically, and only with ``force``, when the
      command ends (:meth:`close`): a command that fails leaves the old file;
    - an existing path that is not a regular file (a device, a FIFO) is opened
      now and written into, never replaced or removed; a FIFO with no reader
      is refused rather than waited on, and so is a socket;
    - a symbolic link is never replaced: the file it points to is written (by
      the rules above: an existing file only with ``force``); a link that points
      nowhere is written through only with ``force`` (its target is created),
      and a link into a missing directory is refused;
    - a path that ends with ``/`` names a directory, and is refused.

    Text written to standard output, a FIFO or a device goes out at once, so
    a command that writes a header first learns of a full device or a closed
    pipe before its work.

    :raises FileExistsError: an existing regular file without ``force``.
    :raises OSError: the path cannot be written (named in the message).
    """

    def __init__(self, path: str | os.PathLike[str], *, force: bool,
                 stdout_use: str = "write to a file instead (-o FILE)") -> None:
        self.is_stdout = os.fspath(path) == STDOUT
        self.shown = "standard output" if self.is_stdout else os.fspath(path)
        self._target: Path | None = None  # the regular file to replace at the end
        self._fd: int | None = None  # a FIFO's or device's, open from now on
        self._pending: list[bytes] = []
        self._force = force
        if self.is_stdout:
            check_stdout(stdout_use)
            return
        if os.fspath(path).endswith(os.sep):  # Path() drops the slash: 'new.csv/' would write new.csv
            raise IsADirectoryError(f"cannot write '{os.fspath(path)}': it names a directory (it ends with "
                                    f"{os.sep}); name a file")
        target = Path(path)
        link = ""
        if target.is_symlink():
            target = target.resolve(strict=False)  # written through: the link itself stays
            link = f" (the link '{path}' points there)"
            if not os.path.lexists(target) and not force:
                raise FileExistsError(f"'{path}' is a symbolic link to '{target}', which does not exist; pass --force "
                                      "to create it there, or name another file")
        if not target.parent.is_dir():
            raise FileNotFoundError(f"cannot write '{target}': directory '{target.parent}' does not exist{link}")
        try:
            mode = os.stat(target).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and stat.S_ISDIR(mode):
            raise IsADirectoryError(f"cannot write '{path}': it is a directory")
        if mode is not None and not stat.S_ISREG(mode):
            self._fd = _open_into(target, mode, self.shown)
            return
        if mode is not None and not force:
            raise FileExistsError(f"'{path}' already exists; pass --force to replace it")
        if not os.access(target.parent, os.W_OK):
            raise PermissionError(f"cannot write '{path}': directory '{target.parent}' is not writable")
        self._target = target

    def write(self, data: str | bytes) -> None:
        """Writes ``data``: at once to standard output, a FIFO or a device; to a regular file at :meth:`close`."""
        payload = data.encode("utf-8") if isinstance(data, str) else data
        if self._target is not None:
            self._pending.append(payload)
        elif self._fd is not None:
            try:
                view = memoryview(payload)
                while view:
                    view = view[os.write(self._fd, view):]
            except OSError as error:
                raise OSError(f"cannot write '{self.shown}': {error.strerror}") from None
        else:
            _write_stdout(payload)

    def close(self) -> str:
        """Finishes the output (a regular file appears whole now, or not at all); returns what was written to."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)
        if self._target is not None:
            target, self._target = self._target, None
            try:
                atomic_write(target, b"".join(self._pending), overwrite=self._force, fsync=True)
            except FileExistsError:
                raise FileExistsError(f"'{self.shown}' already exists; pass --force to replace it") from None
        return self.shown

    def __enter__(self) -> Output:
        return self

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        if error is not None:  # nothing is left half written: a regular file is not replaced
            self._target = None
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
            return
        self.close()


def write_output(path: str | os.PathLike[str], data: str | bytes, *, force: bool) -> str:
    """Writes a whole output a user named, by the one output policy (:class:`Output`); returns what was written to."""
    with Output(path, force=force) as output:
        output.write(data)
    return output.shown


def _write_stdout(payload: bytes) -> None:
    stream = sys.stdout
    if stream is None or stream.closed:
        raise OSError("standard output is closed")
    buffer = getattr(stream, "buffer", None)
    try:
        if buffer is None:  # a text-only stream (a test's, or a wrapper's)
            stream.write(payload.decode("utf-8", "replace"))
        else:
            stream.flush()
            view = memoryview(payload)
            while view:
                # Unbuffered (python -u, PYTHONUNBUFFERED) the buffer is the raw file, whose write may take part
                # of the data: a reader that left mid-way ended such a write short, and the rest was dropped in
                # silence (exit 0, the output cut). Each part is written until all is, or the pipe is found closed.
                written = buffer.write(view)
                if written is None:  # a non-blocking standard output that is full for now: wait until it takes more
                    select.select([], [buffer.fileno()], [])
                    written = 0
                view = view[written:]
        stream.flush()
    except (BrokenPipeError, StandardOutputError):
        raise  # the reader has gone (`| head`): the command line's policy ends quietly; or it is named already
    except OSError as error:  # a full device, a file size limit: name the stream, which names no file
        raise StandardOutputError(f"cannot write to standard output: {error.strerror or error}") from None


def _open_into(target: Path, mode: int, shown: str) -> int:
    """Opens a FIFO or device to write into (never waiting: a FIFO must have its reader already)."""
    if stat.S_ISSOCK(mode):
        raise OSError(f"cannot write '{shown}': it is a socket; name a file, a FIFO, a device or - (standard output)")
    try:
        fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        if error.errno == errno.ENXIO and stat.S_ISFIFO(mode):
            raise OSError(f"'{shown}' is a FIFO that nobody reads; start its reader first") from None
        raise OSError(f"cannot write '{shown}': {error.strerror}") from None
    os.set_blocking(fd, True)
    return fd
