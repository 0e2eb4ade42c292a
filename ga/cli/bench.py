"""The bench command: the engine's speed, measured."""

from __future__ import annotations

import click

from ga.cli.errors import Command

__all__ = ["bench"]


@click.command(cls=Command)
@click.option("--quick", is_flag=True, help="Small sizes (seconds, for a smoke test).")
@click.option("--repeat", type=click.IntRange(min=1), default=5, show_default=True, help="Runs per measurement.")
def bench(quick: bool, repeat: int) -> None:
    """Measure the engine: perft and games per second (single core, medians)."""
    from ga.analysis.bench import report, run_benchmarks

    click.echo(report(run_benchmarks(quick=quick, repeat=repeat)))
