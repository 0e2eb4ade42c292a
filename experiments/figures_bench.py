"""What a run's figures cost, on an idle machine and beside CPU-bound processes.

Times three things, each as a user starts them (``othello-ga`` from a fresh
process, as its script starts it): ``evolve seed2021.toml --no-plots``,
``plot`` of that run, and ``evolve seed2021.toml`` with its figures. The
figure of merit is the run with figures over (the run without + ``plot``):
at most 1.2 beside CPU-bound processes, the figures drawn by the run should
never cost more than drawing them afterwards.

Each round takes every number of CPU-bound processes in turn (``--busy``,
default 0, 1 and 2): this script starts them (Python busy loops, each in a
session of its own, as another terminal's job or another run would be),
times every variant of every checkout, then stops them. Within a round the
order of the variants alternates, so that a machine that slows down slows
them all. Each round gives a ratio; the figures are medians over rounds.

``--checkout DIR`` (repeatable) times other checkouts too, each built in
place (``pip install -e DIR``), in the same rounds: the code before a change
beside the change (the first checkout is the one compared against the
others). Without it, this script's own checkout.

    python experiments/figures_bench.py --repeat 5
    python experiments/figures_bench.py --busy 0 --checkout ../before --checkout .
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ga.cli.bench import tool_command
from ga.config import load_config

HERE = Path(__file__).resolve().parent
EXPERIMENT = HERE / "seed2021.toml"
#: The most a run with figures may take over the run without them plus ``plot``, beside CPU-bound processes.
BUSY_TARGET = 1.2
#: The most a run with figures may take, idle, over the same run by the first checkout (the code before).
IDLE_TARGET = 1.1
VARIANTS = ("no figures", "plot", "figures")
BUSY_LOOP = "while True: pass"


@contextmanager
def cpu_bound(count: int) -> Iterator[None]:
    """Keeps ``count`` CPU-bound processes running, each in a session of its own, until the block ends."""
    loops = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP], start_new_session=True,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL) for _ in range(count)]
    try:
        if loops:
            time.sleep(0.3)  # each has started and spins
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def timed(command: Sequence[str], environment: dict[str, str], where: Path) -> float:
    """Runs a command in the folder ``where`` to its end; returns its seconds (it must succeed)."""
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=environment, cwd=where)
    return time.perf_counter() - started


def one_round(checkout: Path, scratch: Path, generations: int, flip: bool) -> dict[str, float]:
    """Times the three variants with one checkout's code; ``flip`` runs the one with figures first.

    They run in ``scratch``: ``python -c`` imports from its working folder
    first, so one started in a checkout would import that checkout's code
    whatever it was given.
    """
    command, environment = tool_command(checkout)
    scratch.mkdir(parents=True)
    evolve = [*command, "evolve", str(EXPERIMENT), "--quiet", "--generations", str(generations), "--out"]
    bare = scratch / "no-figures"
    steps = {
        "no figures": [*evolve, str(bare), "--no-plots"],
        "plot": [*command, "plot", str(bare)],
        "figures": [*evolve, str(scratch / "figures")],
    }
    order = ["figures", "no figures", "plot"] if flip else list(VARIANTS)
    return {name: timed(steps[name], environment, scratch) for name in order}


def ratio(times: dict[str, float]) -> float:
    """Returns a round's run with figures over its run without them plus ``plot``."""
    return times["figures"] / (times["no figures"] + times["plot"])


def spread(values: Sequence[float], digits: int = 2) -> str:
    """Returns "median (range low-high)"."""
    return f"{statistics.median(values):.{digits}f} (range {min(values):.{digits}f}-{max(values):.{digits}f})"


def load() -> str:
    """Returns the load averages over 1, 5 and 15 minutes, as ``uptime`` shows them."""
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds (every variant and busy count in each)")
    parser.add_argument("--busy", default="0,1,2", help="numbers of CPU-bound processes beside the run, comma-separated")
    parser.add_argument("--generations", type=int, default=None, help="the run's generations (default: the file's)")
    parser.add_argument("--checkout", type=Path, action="append", default=None,
                        help="a checkout whose code to time (repeatable; default: this script's)")
    args = parser.parse_args(argv)
    busy = [int(count) for count in args.busy.split(",")]
    checkouts = [path.resolve() for path in args.checkout] if args.checkout else [HERE.parent]
    names = [path.name for path in checkouts]
    if len(set(names)) < len(names):  # told apart by their place on the command line
        names = [f"{index}:{name}" for index, name in enumerate(names, 1)]
    generations = args.generations or load_config(EXPERIMENT).experiment.generations
    times: dict[tuple[str, int], list[dict[str, float]]] = {(name, count): [] for name in names for count in busy}
    print(f"{EXPERIMENT.name}, {generations} generations; {args.repeat} rounds; CPU-bound processes beside the run: "
          f"{', '.join(map(str, busy))}; load average {load()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="othello-ga-figures-bench-") as scratch:
        for repetition in range(1, args.repeat + 1):
            for count in busy:
                said = []
                with cpu_bound(count):
                    for index, (name, checkout) in enumerate(zip(names, checkouts, strict=True)):
                        where = Path(scratch) / f"{repetition}-{count}-{index}"
                        measured = one_round(checkout, where, generations, flip=(repetition + index) % 2 == 0)
                        times[name, count].append(measured)
                        said.append(f"{name}: " + ", ".join(f"{variant} {measured[variant]:.2f} s"
                                                              for variant in VARIANTS)
                                    + f", ratio {ratio(measured):.3f}")
                print(f"round {repetition}, busy {count}: " + "; ".join(said) + f" (load average {load()})", flush=True)
    for count in busy:
        for name in names:
            rounds = times[name, count]
            medians = {variant: statistics.median(measured[variant] for measured in rounds) for variant in VARIANTS}
            ratios = [ratio(measured) for measured in rounds]
            verdict = ""
            if count:
                verdict = f"; {'meets' if statistics.median(ratios) <= BUSY_TARGET else 'misses'} {BUSY_TARGET}"
            print(f"busy {count}, {name}: medians: no figures {medians['no figures']:.2f} s, plot "
                  f"{medians['plot']:.2f} s, figures {medians['figures']:.2f} s; "
                  f"figures / (no figures + plot) {spread(ratios, 3)}{verdict}")
        for name in names[1:]:
            against = [ours["figures"] / theirs["figures"]
                       for ours, theirs in zip(times[name, count], times[names[0], count], strict=True)]
            verdict = f"; {'meets' if statistics.median(against) <= IDLE_TARGET else 'misses'} {IDLE_TARGET}"
            print(f"busy {count}, figures, {name} / {names[0]}: {spread(against, 3)}{verdict if not count else ''}")
    print(f"load average at the end {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
