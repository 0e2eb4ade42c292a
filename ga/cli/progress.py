"""Progress bars of the long commands."""

from __future__ import annotations

import sys
import time
from typing import Any

__all__ = ["Progress"]


class Progress:
    """A tqdm bar over generations: games/s, current and best fitness, ETA."""

    def __init__(self, start: int, total: int, quiet: bool) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=total, initial=start, unit="gen", disable=quiet, dynamic_ncols=True, file=sys.stderr)
        self.games = 0
        self.started = time.perf_counter()

    def update(self, record: dict[str, Any]) -> None:
        """Advances the bar by one generation."""
        self.games += record["games"]
        rate = self.games / max(time.perf_counter() - self.started, 1e-9)
        self.bar.set_postfix_str(
            f"{rate:,.0f} games/s, win rate {record['win_rate']:.3f}, best fitness {record['best_fitness']:.3f}",
            refresh=False,
        )
        self.bar.update(1)

    def close(self) -> None:
        """Closes the bar."""
        self.bar.close()
