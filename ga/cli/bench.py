"""The bench command: the engine's speed, measured."""

from __future__ import annotations

import click

from ga.cli.errors import Command

__all__ = ["bench"]


@click.command(cls=Command)
@click.option("--quick", is_flag=True, help="Small sizes (seconds, for a smoke test).")
@click.option("--repeat", type=click.IntRange(min=1), default=5, show_default=True, help="Runs per measurement.")
def bench(quick: bool, repeat: int) -> None:
    """Measure the engine: perft, games per second and the alpha-beta search against the plain one (medians)."""
    from ga.analysis.bench import HEADER, measure, ratios, row

    click.echo(HEADER)
    results = []
    for measurement in measure(quick=quick, repeat=repeat):  # each row as soon as it is measured
        click.echo(row(measurement))
        results.append(measurement)
    for line in ratios(results):
        click.echo(line)
