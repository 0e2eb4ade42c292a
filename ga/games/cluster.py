"""Fitness on a Dask cluster: connecting, the cluster's ``map``, and the faults that end a run.

Dask is optional (``pip install "othello-ga[dask]"``): this module imports it
only inside its functions, so ``import ga.games.cluster`` is cheap and always works,
and the exceptions below can be caught by code that never touches Dask.

The workers receive :class:`ga.games.executor.Batch` objects (numpy arrays, strings
and integers) and run :func:`ga.games.executor.play`; every game's seed is in the
batch, so a game gives the same result on any worker, and a task that Dask
reruns after losing a worker gives the same result again.
"""

from __future__ import annotations

import concurrent.futures
import gc
import logging
import os
import re
import socket
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn

import numpy as np

from ga.games.failures import WorkersLost

# Connecting to a scheduler, its handshake included, gives up after this long
# (--dask-timeout): a wrong address should fail at once, not after Dask's default 30 s.
CONNECT_TIMEOUT_S = 10.0
# A scheduler's handshake is one small framed message; anything larger is not a scheduler.
_HANDSHAKE_MAX_BYTES = 1 << 20
_connect_timeout_s = CONNECT_TIMEOUT_S
# A generation waits this long for a worker when the cluster has none (all
# died, none started yet) before the run stops.
NO_WORKERS_TIMEOUT_S = 60.0
# ``local[:N]`` runs its workers as threads of this process (the engine releases
# the GIL) talking in memory, which is faster than worker processes (docs/cluster.md).
LOCAL_PROCESSES = False
_POLL_S = 1.0
# How long a map waits after submitting before returning to its caller (see cluster_map).
DISPATCH_S = 0.003
_LOCAL = re.compile(r"local(?::(\d+))?")
#: The most workers a ``local:N`` cluster may start, per core: each is a thread (or a process) playing games,
#: and many more than the cores only wait (``local:100000`` sat silent while it started them).
MAX_LOCAL_WORKERS_PER_CORE = 4

INSTALL_HINT = 'the dask backend needs dask.distributed: pip install "othello-ga[dask]"'


class ClusterError(Exception):
    """A problem with the Dask cluster, stated in one line."""


class ClusterUnavailable(ClusterError):
    """The cluster cannot be used: Dask is not installed, or the scheduler cannot be reached (bad input)."""


class ClusterLost(ClusterError, WorkersLost):
    """The cluster failed during a run; the last checkpoint is intact."""


def local_workers(address: str) -> int | None:
    """Returns the worker count of a ``local`` or ``local:N`` address (0 = default), or None for a scheduler address.

    >>> local_workers("local:3"), local_workers("local"), local_workers("tcp://10.0.0.5:8786")
    (3, 0, None)
    """
    match = _LOCAL.fullmatch(address.strip())
    if match is None:
        return None
    return int(match.group(1) or 0)


def set_connect_timeout(seconds: float) -> None:
    """Bounds every later connection of this process to a scheduler, handshake included, to ``seconds``."""
    global _connect_timeout_s
    if not 0 < seconds <= 3600:
        raise ValueError(f"--dask-timeout must be between 0 and 3600 seconds, got {seconds:g}")
    _connect_timeout_s = float(seconds)


def check_scheduler(address: str, timeout: float) -> None:
    """Raises ClusterUnavailable unless a Dask scheduler greets a connection to ``address`` within ``timeout`` s.

    Dask's client waits without bound on a host that accepts a connection and
    never answers, and reads any other server's bytes as a frame size (a web
    server's reply made it ask numpy for 3 EiB). A scheduler sends its
    handshake, one small framed message, as soon as it accepts; this waits for
    it, bounded, and checks its framing. Over TLS the TLS handshake comes
    first, with the certificates set by :func:`use_tls`.
    """
    from distributed.comm import parse_address
    from distributed.comm.addressing import parse_host_port

    scheme, location = parse_address(address.strip())
    if scheme not in ("tcp", "tls"):
        return  # in-process and other transports: Dask's own checks
    host, port = parse_host_port(location)
    deadline = time.monotonic() + timeout
    silent = (f"the Dask scheduler at '{address}' did not answer within {timeout:g} s (--dask-timeout); "
              "check the address and that the scheduler runs")
    try:
        with socket.create_connection((host, port), timeout=timeout) as raw:
            stream = raw
            if scheme == "tls":
                from distributed.security import Security

                context = Security().get_connection_args("client")["ssl_context"]
                stream = context.wrap_socket(raw, server_hostname=None)  # the handshake, bounded by the timeout
            header = _receive(stream, 8, deadline)
            size = int.from_bytes(header, "little")
            body = _receive(stream, size, deadline) if 16 <= size <= _HANDSHAKE_MAX_BYTES else b""
    except TimeoutError:
        raise ClusterUnavailable(silent) from None
    except OSError as error:
        raise ClusterUnavailable(f"cannot reach the Dask scheduler at '{address}': "
                                 f"{error.strerror or _one_line(error)}") from None
    if not _is_handshake(body):
        raise ClusterUnavailable(f"'{address}' answered, but not as a Dask scheduler does; check the address "
                                 "and its port (a scheduler listens on 8786 by default)")


def _receive(stream: socket.socket, count: int, deadline: float) -> bytes:
    """Returns ``count`` bytes of ``stream``; raises TimeoutError at ``deadline``, ConnectionError at its end."""
    data = bytearray()
    while len(data) < count:
        stream.settimeout(max(0.001, deadline - time.monotonic()))
        chunk = stream.recv(count - len(data))
        if not chunk:
            raise ConnectionResetError(0, "the connection was closed before the scheduler's handshake")
        data += chunk
    return bytes(data)


def _is_handshake(message: bytes) -> bool:
    """Whether ``message`` is a Dask handshake: framed as Dask frames (a count of frames, their lengths, then
    exactly that many bytes), and decoding to the table of a scheduler's settings (compression, Python, pickle)."""
    if len(message) < 16:
        return False
    count = int.from_bytes(message[:8], "little")
    if not 1 <= count <= 64 or len(message) < 8 * (count + 1):
        return False
    lengths = [int.from_bytes(message[8 * i:8 * i + 8], "little") for i in range(1, count + 1)]
    if 8 * (count + 1) + sum(lengths) != len(message):
        return False
    from distributed.protocol import loads

    frames, start = [], 8 * (count + 1)
    for length in lengths:
        frames.append(message[start:start + length])
        start += length
    try:
        with _quiet_dask():  # Dask logs a CRITICAL traceback for frames it cannot decode
            greeting = loads(frames, deserialize=False)
    except Exception:  # any decoding error: not a scheduler's greeting
        return False
    return isinstance(greeting, dict) and {"compression", "python"} <= set(greeting)


@contextmanager
def _quiet_dask() -> Iterator[None]:
    """Silences Dask's own logging (its tracebacks and warnings) for the block: this module says what went wrong."""
    logger = logging.getLogger("distributed")
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(level)


def use_tls(ca_file: str, cert_file: str, key_file: str | None = None) -> None:
    """Makes every later Dask connection of this process use TLS with these files.

    Sets Dask's own configuration (``distributed.comm.tls.*``, encryption
    required), which is what ``distributed.security.Security()`` reads: a
    ``tls://`` scheduler then accepts only clients holding a certificate signed
    by the same authority.
    """
    try:
        import dask
    except ImportError as error:
        raise ClusterUnavailable(INSTALL_HINT) from error
    dask.config.set({
        "distributed.comm.require-encryption": True,
        "distributed.comm.tls.ca-file": ca_file,
        "distributed.comm.tls.client.cert": cert_file,
        "distributed.comm.tls.client.key": key_file,
    })


@contextmanager
def connect(address: str, workers: int, *, timeout: float | None = None) -> Iterator[Any]:
    """Yields a ``distributed.Client`` on the scheduler at ``address``, closed at the end.

    ``local`` or ``local:N`` starts an in-process ``LocalCluster`` of N (or
    ``workers``) single-threaded workers on 127.0.0.1 instead.

    :raises ClusterUnavailable: Dask is missing or the scheduler does not answer within ``timeout`` seconds.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError as error:
        raise ClusterUnavailable(INSTALL_HINT) from error
    timeout = _connect_timeout_s if timeout is None else timeout
    local = local_workers(address)
    most = MAX_LOCAL_WORKERS_PER_CORE * (os.cpu_count() or 1)
    if local is not None and local > most:
        raise ClusterUnavailable(f"'{address.strip()}' asks for {local:,} local Dask workers, more than this machine "
                                 f"runs ({most:,}: {MAX_LOCAL_WORKERS_PER_CORE} a core); give at most local:{most}")
    if local is None and address.strip().startswith("tls://") and not _tls_configured():
        raise ClusterUnavailable(f"the Dask scheduler at '{address}' speaks TLS: give --dask-tls-ca and "
                                 "--dask-tls-cert (and --dask-tls-key if the key is separate)")
    cluster = None
    failure = None
    try:
        if local is not None:
            # Processes listen on 127.0.0.1 only; threads talk in memory (inproc).
            where = {"host": "127.0.0.1"} if LOCAL_PROCESSES else {}
            cluster = LocalCluster(n_workers=local or workers, threads_per_worker=1, processes=LOCAL_PROCESSES,
                                   **where, dashboard_address=None, silence_logs=logging.ERROR,
                                   # no dashboard, and the scheduler's HTTP routes on a free port, not 8787
                                   scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
            client = Client(cluster, set_as_default=False)
        else:
            _check_transport(address)  # a bad address fails here, not inside a half-made Client
            check_scheduler(address, timeout)
            with _quiet_dask():
                client = Client(address.strip(), timeout=timeout, set_as_default=False)
    except (OSError, ValueError, TypeError, RuntimeError) as error:
        where = "start a local Dask cluster" if local is not None else f"reach the Dask scheduler at '{address}'"
        # A scheduler that greets and then says nothing more ends in a timeout without a message.
        failure = f"cannot {where}: {_one_line(error) or f'it did not answer within {timeout:g} s (--dask-timeout)'}"
    if failure is not None:
        if cluster is not None:
            cluster.close()
        # A Client that failed to start keeps its event-loop thread and is
        # freed only by the cycle collector; its __del__ then waits up to 20 s
        # on that loop. Left to a later collection, this ran on another
        # client's loop thread and stalled it (seen as a hung test). Collect
        # now, here, with no reference left (the exception is not chained),
        # and quietly (Dask warns about the streams it closes then).
        with _quiet_dask():
            gc.collect()
        raise ClusterUnavailable(failure)
    # A run ends with one line of its own: Dask's warnings about a lost
    # connection would only repeat it.
    quiet = [logging.getLogger(name) for name in ("distributed.client", "distributed.batched", "distributed.core")]
    levels = [logger.level for logger in quiet]
    for logger in quiet:
        logger.setLevel(logging.CRITICAL)
    try:
        yield client
    finally:
        try:
            client.close(timeout=timeout)
            if cluster is not None:
                cluster.close(timeout=timeout)
        except Exception:  # closing a dead cluster may fail; the run's own outcome is what matters
            pass
        for logger, level in zip(quiet, levels):
            logger.setLevel(level)


def _check_transport(address: str) -> None:
    """Raises ClusterUnavailable if this installation of Dask cannot use the transport ``address`` names.

    Dask knows ucx:// by name but ships without it (it raises a multi-line
    FutureWarning, and warns the same on the way).
    """
    from distributed.comm import get_address_host

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            get_address_host(address.strip())
        except (ImportError, Warning) as error:
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise ClusterUnavailable(f"cannot reach the Dask scheduler at '{address}': this installation of Dask "
                                     f"cannot use its transport ({reason}); use tcp:// or tls://") from None


def _tls_configured() -> bool:
    import dask

    return bool(dask.config.get("distributed.comm.tls.ca-file", None))


def worker_threads(client: Any) -> int:
    """Returns how many tasks the cluster runs at once (at least 1)."""
    return max(sum(client.nthreads().values()), 1)


def cluster_map(client: Any) -> Callable[[Callable[..., Any], Sequence[Any]], Iterator[np.ndarray]]:
    """Returns a ``map`` that runs one task per item on the cluster and yields the results in order.

    Like an executor's ``map``, it submits the tasks at once and waits only
    when its results are read, so the caller can work while they run. Tasks
    are submitted with ``pure=False``: two generations may send equal
    batches (elites replayed with the same seeds under common random numbers),
    and Dask must not answer the second from the first's cached result.

    :raises ClusterLost: the scheduler went away, tasks kept killing their
        workers, or no worker was there for ``NO_WORKERS_TIMEOUT_S``.
    """
    address = client.scheduler.address
    # The last map's futures, released only once the next map is submitted:
    # the client batches its messages to the scheduler, and a release sent
    # at the end of a generation held the next generation's tasks back
    # (docs/cluster.md).
    previous: list[Any] = []

    def fail(error: Exception, futures: list[Any]) -> NoReturn:
        _cancel(client, futures)  # a failed generation leaves no tasks behind
        if isinstance(error, ClusterLost) or _is_task_error(error):
            raise error  # the games themselves failed (e.g. a weights file missing on a worker)
        details = "" if isinstance(error, concurrent.futures.CancelledError) else f": {_one_line(error)[:200]}"
        raise ClusterLost(f"lost the Dask cluster at '{address}' during a generation "
                          f"({type(error).__name__}{details})") from error

    def results(futures: list[Any]) -> Iterator[np.ndarray]:
        try:
            _wait(client, futures)
            gathered = client.gather(futures)
        except Exception as error:
            fail(error, futures)
        yield from gathered

    def map_on_cluster(function: Callable[..., Any], items: Sequence[Any]) -> Iterator[np.ndarray]:
        try:
            futures = client.map(function, list(items), pure=False)
        except Exception as error:
            fail(error, [])
        previous[:] = futures
        # The client's event loop (and an in-process cluster's) needs the GIL to
        # send the tasks on; the caller's next Python work (writing the last
        # generation's files) held them back (docs/cluster.md).
        time.sleep(DISPATCH_S)
        return results(futures)

    return map_on_cluster


def _cancel(client: Any, futures: list[Any]) -> None:
    try:
        client.cancel(futures)
    except Exception:  # the scheduler is gone: nothing left to cancel
        pass


def _wait(client: Any, futures: list[Any]) -> None:
    from distributed import wait

    alone_since = None
    while True:
        try:
            with client.as_current():
                wait(futures, timeout=_POLL_S)
            return
        except TimeoutError:
            pass
        if client.status != "running" or client.nthreads():
            alone_since = None
            continue
        alone_since = alone_since or time.monotonic()
        if time.monotonic() - alone_since > NO_WORKERS_TIMEOUT_S:
            raise ClusterLost(f"the Dask cluster at '{client.scheduler.address}' has had no workers "
                              f"for {NO_WORKERS_TIMEOUT_S:g} s")


def _is_task_error(error: Exception) -> bool:
    # Errors raised by ga.games.executor.play on a worker come back as themselves;
    # the cluster's own failures are Dask's types, cancellations and OSErrors.
    import asyncio  # here, not at the top: a local run need not pay for its import

    from distributed import KilledWorker

    return not isinstance(error, (asyncio.CancelledError, concurrent.futures.CancelledError, KilledWorker, OSError))


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())
