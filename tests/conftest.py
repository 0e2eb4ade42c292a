"""Shared test settings: hypothesis runs derandomized so that every run is the same."""
from __future__ import annotations

from hypothesis import HealthCheck, settings

# Derandomized: the examples are a pure function of the test, so a failure
# reproduces on every machine and the suite's run time does not wander.
settings.register_profile(
    "othello",
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("othello")
