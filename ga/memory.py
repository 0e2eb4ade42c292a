"""Running out of memory: the address space the tool needs, and the one-line message for an error that means
it ran out. The standard library only, so that the script can use it before numpy loads, and the command
line's error policy below it.
"""

from __future__ import annotations

import errno

__all__ = ["MIN_ADDRESS_SPACE", "address_space_limit", "address_space_problem", "memory_problem"]


def memory_problem(error: BaseException) -> str | None:
    """Returns the one-line message for an error that means "out of memory", or None for any other error."""
    text = str(error)
    if not (isinstance(error, MemoryError)
            or (isinstance(error, OSError) and error.errno == errno.ENOMEM)
            or (isinstance(error, ImportError) and ("failed to map segment" in text
                                                    or "cannot allocate memory" in text.lower()))):
        return None
    soft = address_space_limit()
    limit = "" if soft is None else f" (ulimit -v allows {soft // 2**20:,} MiB)"
    return f"out of memory{limit}; raise the limit, or lower the run's size (population, games)"


#: The address space below which the tool does not start. numpy's OpenBLAS reserves buffers when it
#: loads and when it first computes, and when it cannot it prints its own message and exits; every
#: command worked at 384 MiB on the 2-core development machine, and OpenBLAS failed at 230-290 MiB.
MIN_ADDRESS_SPACE = 384 * 2**20


def address_space_limit() -> int | None:
    """Returns the bytes of address space ``ulimit -v`` allows this process (None: no limit, or unknown)."""
    try:
        import resource  # here: under a tight limit, loading it may be what fails

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, MemoryError, OSError):
        return None
    return None if soft == resource.RLIM_INFINITY else soft


def address_space_problem() -> str | None:
    """Returns the one-line message when ``ulimit -v`` leaves less than :data:`MIN_ADDRESS_SPACE`, else None."""
    soft = address_space_limit()
    if soft is None or soft >= MIN_ADDRESS_SPACE:
        return None
    return (f"out of memory: othello-ga needs at least {MIN_ADDRESS_SPACE // 2**20} MiB of address space "
            f"(its numerical libraries reserve much of it), and ulimit -v allows {soft // 2**20:,} MiB; raise it")
