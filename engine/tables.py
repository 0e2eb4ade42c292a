"""Built-in 64-weight tables (index = square, a1 = 0, rows = ranks 1..8)."""

from __future__ import annotations

#: The largest weight magnitude a table may hold. A table's score is at most
#: 64 times its largest weight, so within this range a finished game (worth its
#: disc difference times 1e6 in a search) always outweighs any table score,
#: and no sum comes near overflow. Tables are scale-free: only ratios matter.
WEIGHT_LIMIT = 1e4

from pathlib import Path

# WPC-H, the standard heuristic table of the Othello League literature.
HEURISTIC = (
    1.00, -0.25, 0.10, 0.05, 0.05, 0.10, -0.25, 1.00,
    -0.25, -0.25, 0.01, 0.01, 0.01, 0.01, -0.25, -0.25,
    0.10, 0.01, 0.05, 0.02, 0.02, 0.05, 0.01, 0.10,
    0.05, 0.01, 0.02, 0.01, 0.01, 0.02, 0.01, 0.05,
    0.05, 0.01, 0.02, 0.01, 0.01, 0.02, 0.01, 0.05,
    0.10, 0.01, 0.05, 0.02, 0.02, 0.05, 0.01, 0.10,
    -0.25, -0.25, 0.01, 0.01, 0.01, 0.01, -0.25, -0.25,
    1.00, -0.25, 0.10, 0.05, 0.05, 0.10, -0.25, 1.00,
)

# The classic square table of the blog series (article 003).
CLASSIC = (
    45, -11, 4, -1, -1, 4, -11, 45,
    -11, -16, -1, -3, -3, -1, -16, -11,
    4, -1, 2, -1, -1, 2, -1, 4,
    -1, -3, -1, 0, 0, -1, -3, -1,
    -1, -3, -1, 0, 0, -1, -3, -1,
    4, -1, 2, -1, -1, 2, -1, 4,
    -11, -16, -1, -3, -3, -1, -16, -11,
    45, -11, 4, -1, -1, 4, -11, 45,
)

# Lucas & Runarsson 2006, coevolved (not symmetric: do not mirror).
LR06 = (
    4.622507, -1.477853, 1.409644, -0.066975, -0.305214, 1.633019, -1.050899, 4.365550,
    -1.329145, -2.245663, -1.060633, -0.541089, -0.332716, -0.475830, -2.274535, -0.032595,
    2.681550, -0.906628, 0.229372, 0.059260, -0.150415, 0.321982, -1.145060, 2.986767,
    -0.746066, -0.317389, 0.140040, -0.045266, 0.236595, 0.158543, -0.720833, -0.131124,
    -0.305566, -0.328398, 0.073872, -0.131472, -0.172101, 0.016603, -0.511448, -0.264125,
    2.777411, -0.769551, 0.676483, 0.282190, 0.007184, 0.269876, -1.408169, 2.396238,
    -1.566175, -3.049899, -0.637408, -0.077690, -0.648382, -0.911066, -3.329772, -0.870962,
    5.046583, -1.468806, 1.545046, -0.031175, 0.263998, 2.063148, -0.148002, 5.781035,
)

# Szubert, Jaskowski & Krawiec 2011, coevolutionary TD learning.
SJK11 = (
    1.01, -0.43, 0.38, 0.07, 0.00, 0.42, -0.20, 1.02,
    -0.27, -0.74, -0.16, -0.14, -0.13, -0.25, -0.65, -0.39,
    0.56, -0.30, 0.12, 0.05, -0.04, 0.07, -0.15, 0.48,
    0.01, -0.08, 0.01, -0.01, -0.04, -0.02, -0.12, 0.03,
    -0.10, -0.08, 0.01, -0.01, -0.03, 0.02, -0.04, -0.20,
    0.59, -0.23, 0.06, 0.01, 0.04, 0.06, -0.19, 0.35,
    -0.06, -0.55, -0.18, -0.08, -0.15, -0.31, -0.82, -0.58,
    0.96, -0.42, 0.67, -0.02, -0.03, 0.81, -0.51, 1.01,
)

DISC = (1.0,) * 64



def _shipped(name: str) -> tuple[float, ...]:
    """Returns a table shipped as package data (engine/data/NAME.csv, 8 rows of 8, rank 1 first).

    These are the best tables of the shipped runs (results/reference/), copied
    there by ``othello-ga export RUN --format csv -o engine/data/NAME.csv``
    when the runs are rebuilt; a test checks that they are the runs' tables.
    """
    text = (Path(__file__).parent / "data" / f"{name}.csv").read_text(encoding="utf-8")
    return tuple(float(cell) for line in text.splitlines() if line.strip() for cell in line.split(","))


TABLES: dict[str, tuple[float, ...]] = {
    "heuristic": HEURISTIC,
    "classic": tuple(float(w) for w in CLASSIC),
    "disc": DISC,
    "lr06": LR06,
    "sjk11": SJK11,
    # Ours: the best table of experiments/strong.toml, and of seed2021.toml (the blog's GA).
    "reference": _shipped("reference"),
    "reference-seed2021": _shipped("reference-seed2021"),
    # Ours for engines that search: the best table of experiments/deep.toml (trained at depths 1-4).
    "deep": _shipped("deep"),
}
