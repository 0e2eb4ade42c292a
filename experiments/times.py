"""How long each experiment takes: measures it, and checks experiments/times.csv against the configs and docs.

experiments/times.csv is the one place that says how long an experiment
takes, one row each. Each entry is the README's way of running it (a fresh clone,
``pip install -e .``, then its command) measured on the 2-core development
machine: the wall time, the load average around it, and the CPU time of the
command and every process it started. The CPU time is what holds on any
machine of that speed: 2 cores cannot finish in less than CPU seconds / 2,
however quiet; the wall time on a shared machine is longer. ``work`` records
what the experiment plays (the games it plans, at most: a run plays fewer
when it does not replay its elites or a tournament's equal candidates, so
the count it ends with, which ``evolve`` and ``show`` print, is the one to
quote; and a digest of its settings), so that a config changed since its
time was measured fails the check until it is measured again.

    python experiments/times.py measure strong --clone CLONE --bin VENV/bin   # prints the new row
    python experiments/times.py check                                                 # tests/test_times.py

The pages quote an experiment's time on a line that names its file, as
``about N min`` (or ``about N s``), the rounded wall time, and may add its
CPU time as ``N s of CPU``; ``check`` finds every such figure that disagrees
with this file's, and any time to the second (``5 min 46 s``) quoted beside it.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import hashlib
import io
import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TIMES = ROOT / "experiments" / "times.csv"
#: The pages that say how long an experiment takes, and the experiments' own comments (docs/performance.md
#: records dated measurements of parts of runs, not what a run takes).
PAGES = ("README.md", "docs/experiments.md", "docs/studies.md", "docs/config.md", "docs/runs.md",
         "results/reference/README.md", "experiments/*.toml")
CORES = 2
#: A figure quoted for a time: "about 9 min", "about 45 s", "about a minute".
QUOTED = re.compile(r"\babout (a|an|\d+(?:\.\d+)?) ?(s|seconds?|min|minutes?|h|hours?)\b", re.IGNORECASE)
CPU = re.compile(r"\b([\d,]+) s of CPU\b")
#: A time to the second ("5 min 46 s", "8m 40s"): one measurement of a run, which a page must not quote for an
#: experiment beside times.csv's figure.
EXACT = re.compile(r"\b\d+ ?(?:min|m) \d+ ?s\b")
_UNITS = {"s": "s", "second": "s", "seconds": "s", "min": "min", "minute": "min", "minutes": "min", "h": "h",
          "hour": "h", "hours": "h"}


def load_times(path: Path = TIMES) -> dict[str, dict[str, Any]]:
    """Returns the rows of times.csv by experiment name, their numbers as numbers."""
    with open(path, newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    numbers = ("wall_s", "cpu_s", "load_before", "load_after")
    return {row["name"]: {key: float(value) if key in numbers and value else value for key, value in row.items()}
            for row in rows}


def claim(entry: dict[str, Any]) -> str:
    """Returns the figure the pages quote for an entry: its wall time rounded for reading ("about 9 min")."""
    seconds = entry["wall_s"]
    if seconds < 90:
        return f"about {max(1, round(seconds))} s"
    return f"about {round(seconds / 60)} min"


def cpu_text(entry: dict[str, Any]) -> str:
    """Returns the CPU time as the pages quote it ("577 s of CPU")."""
    return f"{round(entry['cpu_s']):,} s of CPU"


def work(entry: dict[str, Any], root: Path = ROOT) -> str:
    """Returns what an entry's command plays, from the configs it names (under ``root``), as text to compare."""
    from ga.config import load_config, result_settings
    from ga.evolution.run import planned_games

    command = shlex.split(entry["command"])
    files = [argument for argument in command if argument.endswith(".toml")]
    if not files:  # a script: its own code says what it plays
        script = next(argument for argument in command if argument.endswith(".py"))
        return f"script {script}"
    path = root / files[0]
    if command[1] == "study":
        from ga.study.schema import load_study

        study = load_study(path)
        runs = len(study.configs) * len(study.seeds)
        games = sum(sum(planned_games(c.config).values()) for c in study.configs) * len(study.seeds)
        digest = _digest([result_settings(c.config) for c in study.configs] + [list(study.seeds)]
                         + [repr(measure) for measure in study.measures])
        return f"at most {games:,} games in {runs} runs, settings {digest}"
    config = load_config(path)
    return f"at most {sum(planned_games(config).values()):,} games, settings {_digest(result_settings(config))}"


def _digest(settings: Any) -> str:
    return hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()[:12]


def problems(root: Path = ROOT) -> list[str]:
    """Returns what disagrees: an experiment without a measured time, an entry whose experiment changed since it
    was measured, a wall time below the CPU floor, or a page quoting another figure than its entry's."""
    times = load_times(root / "experiments" / "times.csv")
    found = []
    for config in sorted((root / "experiments").glob("*.toml")):
        if config.stem not in times:
            found.append(f"experiments/{config.name} has no entry in experiments/times.csv; measure it: "
                         f"python experiments/times.py measure {config.stem} --clone DIR")
    for name, entry in times.items():
        if not isinstance(entry["wall_s"], float):
            found.append(f"experiments/times.csv [{name}]: not measured; python experiments/times.py measure {name} "
                         "--clone DIR")
            continue
        now = work(entry, root)
        if now != entry["work"]:
            found.append(f"experiments/times.csv [{name}]: what it plays changed since it was measured "
                         f"({entry['work']!r}, now {now!r}); measure it again")
        if entry["wall_s"] < entry["cpu_s"] / CORES:
            found.append(f"experiments/times.csv [{name}]: wall {entry['wall_s']} s is below its CPU floor "
                         f"{entry['cpu_s'] / CORES:.0f} s on {CORES} cores")
    names = "|".join(re.escape(name) for name in sorted(times, key=len, reverse=True))
    subject = re.compile(rf"(?<![\w-])(?:experiments/)?({names})\.(?:toml|py)\b")
    for pattern in PAGES:
        for page in sorted(root.glob(pattern)):
            for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
                named = subject.search(line)
                if named is None:
                    continue
                entry = times[named.group(1)]
                if not isinstance(entry["wall_s"], float):
                    continue
                where = f"{page.relative_to(root)}:{number}"
                for quoted in QUOTED.finditer(line):
                    text = f"about {quoted.group(1).lower()} {_UNITS[quoted.group(2).lower()]}"
                    if text != claim(entry):
                        found.append(f"{where} says {quoted.group(0)!r} for {named.group(1)}; "
                                     f"experiments/times.csv says {claim(entry)!r}")
                for quoted in CPU.finditer(line):
                    if quoted.group(0) != cpu_text(entry):
                        found.append(f"{where} says {quoted.group(0)!r} for {named.group(1)}; "
                                     f"experiments/times.csv says {cpu_text(entry)!r}")
                quotes_time = QUOTED.search(line) or CPU.search(line)  # (a variant's own time is not the experiment's)
                for quoted in EXACT.finditer(line) if quotes_time else ():
                    found.append(f"{where} says {quoted.group(0)!r} for {named.group(1)}; quote experiments/"
                                 f"times.csv's {claim(entry)!r} and {cpu_text(entry)!r} instead")
    return found


def measure(name: str, clone: Path, python_bin: Path) -> str:
    """Runs an entry's command in ``clone`` with ``python_bin`` first on PATH; returns its new row of times.csv."""
    entry = load_times()[name]
    command = shlex.split(entry["command"])
    environment = {**os.environ, "PATH": os.pathsep.join([str(python_bin), os.environ.get("PATH", "")])}
    load = os.getloadavg()[0]
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=clone, env=environment)
    # wait4's usage is the command's and every child it waited for (the plot helper, a study's processes).
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    load_end = os.getloadavg()[0]
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{entry['command']} failed (exit {os.waitstatus_to_exitcode(status)})")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, capture_output=True, text=True,
                            check=True).stdout.strip()
    row = [name, entry["command"], f"{wall:.1f}", f"{usage.ru_utime + usage.ru_stime:.1f}", f"{load:.2f}",
           f"{load_end:.2f}", f"{datetime.date.today().isoformat()}, commit {commit}", work(entry)]
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerow(row)
    return text.getvalue().rstrip("\n")


def main(arguments: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    commands = parser.add_subparsers(dest="what", required=True)
    measuring = commands.add_parser("measure", help="run an entry's command in a fresh clone; print its new row")
    measuring.add_argument("name")
    measuring.add_argument("--clone", type=Path, required=True, help="a fresh clone, installed with pip install -e .")
    measuring.add_argument("--bin", type=Path, default=Path(sys.executable).parent,
                           help="the bin folder of the clone's environment (default: this Python's)")
    commands.add_parser("check", help="compare times.csv with the configs and the pages")
    options = parser.parse_args(arguments)
    if options.what == "measure":
        print(measure(options.name, options.clone, options.bin))
        return 0
    found = problems()
    for problem in found:
        print(problem)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
