"""Writing files whole or not at all: the one atomic write of the project.

Every file the tool writes (run files, exported tables, figures, CSVs) is
written to a temporary file in the same directory, then renamed into place,
so that a reader sees the old file or the new one, never half of one, and a
crash leaves no torn file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write"]


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
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    try:
        # Named by process, not by mkstemp: it runs every generation, and
        # random names cost more than the write of a small checkpoint.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:  # left by a process that died with this number
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.chmod(name, 0o666 & ~_umask())
        tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            if fsync:
                handle.flush()
                os.fsync(handle.fileno())
        if overwrite:
            os.replace(tmp, path)
        else:
            _link_new(tmp, path)
    finally:
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
