"""What can go wrong while games are played elsewhere: below the executor, which plays them, and the
cluster, which sends them out."""

from __future__ import annotations

__all__ = ["WorkersLost"]


class WorkersLost(Exception):
    """The workers playing a batch failed (a thread here, or a Dask cluster); the last checkpoint is intact."""
