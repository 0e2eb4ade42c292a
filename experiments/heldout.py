"""Held-out tables: score the shipped and the published tables on opponents none of them trained on.

Four 1-ply measures, each with its Wilson 95% interval (the targets of
strong.toml): league vs ``heuristic`` and vs ``lr06`` (1-ply, eps 0.1 for
both, both colours), vs a uniform random mover (1-ply, eps 0, both colours)
and the expected utility vs random U(-1, 1) tables. Writes ``heldout.csv``,
``heldout.md`` and the headline figure ``heldout.png`` under ``--out``.

Then the depth ladder of the shipped tables: ``alphabeta:d@TABLE`` against
``alphabeta:d@T`` for the published tables T at depths 1-4 (eps 0.1 for both,
both colours). Writes ``ladder.csv``, ``ladder.md`` and ``ladder.png`` (score
against depth, one line per opponent).

Then the engine ladder: the shipped evaluation ``engine`` (squares and
features) against ``paip``, the published tables and ``deep`` the same way,
both sides solving the last 8 empty squares exactly (``end=8``). Writes
``engine_ladder.csv``, ``engine_ladder.md`` and ``engine_ladder.png``.

    python experiments/heldout.py --out results/reference --games 20000
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import attrs  # noqa: E402

from ga.analysis.plots import fit_title  # noqa: E402
from ga.rundir.resolve import resolve_weights  # noqa: E402
from ga.analysis.evaluation import LADDER_DEPTHS, LADDER_TABLES, ladder  # noqa: E402
from ga.analysis.stats import MatchSummary  # noqa: E402
from ga.study.measures import Measure, score  # noqa: E402

STRONG = Path(__file__).resolve().parent.parent / "results" / "reference" / "strong"
# (label, SOURCE for resolve_weights, --which)
TABLES = [
    ("strong.toml (ours)", "reference", "strong"),
    ("strong.toml before refinement (its GA)", str(STRONG / "ga_best_weights.csv"), "best"),
    ("seed2021.toml (the blog's GA)", "reference", "seed2021"),
    ("deep.toml (ours, for engines that search)", "deep", "best"),
    ("engine.toml (ours: squares and features)", "engine", "best"),
    ("patterns.toml (ours: a pattern network)", "patterns", "best"),
    ("lr06 (Lucas & Runarsson 2006)", "lr06", "best"),
    ("sjk11 (Szubert et al. 2011)", "sjk11", "best"),
    ("heuristic (WPC-H)", "heuristic", "best"),
    ("classic (blog, article 003)", "classic", "best"),
]
# (column, title, the measure as a study scores it; its games and seed are the command line's)
MEASURES = [
    ("league_heuristic", "league vs heuristic", Measure("league_heuristic", "league")),
    ("league_lr06", "league vs lr06", Measure("league_lr06", "league", ("wpc:1@lr06",))),
    ("vs_random", "vs random mover", Measure("vs_random", "plain", ("random",))),
    ("expected_utility", "expected utility", Measure("expected_utility", "eu")),
]
TARGETS = {"league_heuristic": 0.56, "league_lr06": 0.50, "vs_random": 0.91, "expected_utility": 0.90}
#: Where the figure's bars start: the score of an even match, in every measure.
BASELINE = 0.5
#: (table, measure) scores that are not held out: strong.toml's and deep.toml's refinements played random
#: tables, the opponents of expected utility.
IN_DISTRIBUTION = {("strong.toml (ours)", "expected_utility"),
                   ("deep.toml (ours, for engines that search)", "expected_utility")}
# The shipped tables the ladder scores at depth, and the score they aim at against every published table.
LADDER = [("strong.toml (ours)", "reference", "strong"), ("deep.toml (ours, for engines that search)", "deep", "best"),
          ("seed2021.toml (the blog's GA)", "reference", "seed2021")]
LADDER_TARGET = 0.52
# The engine ladder: the shipped evaluation against a hand evaluation with mobility, the published tables and
# deep, both sides solving the last ENGINE_END empty squares; the score it aims at in every cell.
ENGINE = ("engine.toml (ours: squares and features)", "engine", "best")
ENGINE_OPPONENTS = ("paip", "heuristic", "lr06", "sjk11", "deep")
ENGINE_END = 8
ENGINE_TARGET = 0.60


def measure(weights: np.ndarray, games: int, seed: int, workers: int) -> list[MatchSummary]:
    """Returns a table's summary in each of the four measures (``games`` each; eu: games / 2 tables).

    Scored by the code that scores a study's runs (:func:`ga.study.measures.score`).
    """
    summaries = []
    for _, _, held_out in MEASURES:
        count = games // 2 if held_out.protocol == "eu" else games
        summaries += score(weights, attrs.evolve(held_out, games=count, seed=seed), workers).values()
    return summaries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results/reference"))
    parser.add_argument("--games", type=int, default=20_000, help="games per measure (eu: tables x 2 colours)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", choices=("heldout", "ladder", "engine"), default=None,
                        help="rebuild one of the three")
    parser.add_argument("--redraw", action="store_true",
                        help="redraw the figures from the CSVs in --out, playing no game")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.redraw:
        if args.only in (None, "heldout"):
            figure(pd.read_csv(args.out / "heldout.csv")).savefig(args.out / "heldout.png", dpi=110)
        if args.only in (None, "ladder"):
            ladder_figure(pd.read_csv(args.out / "ladder.csv")).savefig(args.out / "ladder.png", dpi=110)
        if args.only in (None, "engine"):
            engine_figure(pd.read_csv(args.out / "engine_ladder.csv")).savefig(args.out / "engine_ladder.png", dpi=110)
        return 0
    if args.only in (None, "heldout"):
        heldout(args)
    if args.only in (None, "ladder"):
        depth_ladder(args)
    if args.only in (None, "engine"):
        engine_ladder(args)
    return 0


def ladder_rows(tables: list[tuple[str, str, str]], opponents: tuple[str, ...], args: argparse.Namespace,
                end: int = 0) -> pd.DataFrame:
    """Returns a ladder's cells: each shipped table against each opponent at each depth."""
    rows = []
    for label, source, which in tables:
        weights, _ = resolve_weights(source, which)
        summaries = ladder(weights, opponents, args.games, depths=LADDER_DEPTHS, seed=args.seed,
                           workers=args.workers, end=end)
        pairs = [(name, depth) for name in opponents for depth in LADDER_DEPTHS]
        for (name, depth), summary in zip(pairs, summaries):
            low, high = summary.interval
            rows.append({"table": label, "opponent": name, "depth": depth, "score": summary.score,
                         "low": low, "high": high, "games": summary.games})
        print(label, " ".join(f"{row['score']:.3f}" for row in rows[-len(pairs):]), flush=True)
    return pd.DataFrame(rows)


def depth_ladder(args: argparse.Namespace) -> None:
    """Writes ladder.csv, ladder.md and ladder.png: the shipped tables against the published ones at each depth."""
    frame = ladder_rows(LADDER, LADDER_TABLES, args)
    frame.to_csv(args.out / "ladder.csv", index=False)
    (args.out / "ladder.md").write_text(ladder_markdown(frame, args), encoding="utf-8")
    ladder_figure(frame).savefig(args.out / "ladder.png", dpi=110)
    print(ladder_markdown(frame, args))


def engine_ladder(args: argparse.Namespace) -> None:
    """Writes engine_ladder.csv, .md and .png: the shipped evaluation against paip, the published tables and deep,
    both sides solving the last ENGINE_END empty squares."""
    frame = ladder_rows([ENGINE], ENGINE_OPPONENTS, args, end=ENGINE_END)
    frame.to_csv(args.out / "engine_ladder.csv", index=False)
    text = ladder_markdown(frame, args, ENGINE_TARGET, ENGINE_END)
    (args.out / "engine_ladder.md").write_text(text, encoding="utf-8")
    engine_figure(frame).savefig(args.out / "engine_ladder.png", dpi=110)
    print(text)


def ladder_markdown(frame: pd.DataFrame, args: argparse.Namespace, target: float = LADDER_TARGET,
                    end: int = 0) -> str:
    """Returns the ladder as one table per shipped table: a row per opponent, a column per depth."""
    solving = f", both solving the last {end} empty squares exactly (end={end})" if end else ""
    lines = [f"Both players alphabeta:d, eps 0.1, both colours{solving}; {args.games:,} games a cell, "
             f"seed {args.seed}; score [95% Wilson interval]; target {target} in every cell.", ""]
    for table, rows in frame.groupby("table", sort=False):
        lines += [f"**{table}**", "", "| vs | " + " | ".join(f"d = {d}" for d in LADDER_DEPTHS) + " |",
                  "|---" * (len(LADDER_DEPTHS) + 1) + "|"]
        for opponent, cells in rows.groupby("opponent", sort=False):
            lines.append(f"| {opponent} | " + " | ".join(
                f"{c.score:.3f} [{c.low:.3f}, {c.high:.3f}]" for c in cells.itertuples()) + " |")
        lines.append("")
    return "\n".join(lines)


def engine_figure(frame: pd.DataFrame) -> plt.Figure:
    """Returns the engine ladder's figure: the ladder's, with its own target and title."""
    return ladder_figure(frame, ENGINE_TARGET, f"The engine ladder: both sides searching, the last {ENGINE_END} empty "
                                               "squares solved exactly")


def ladder_figure(frame: pd.DataFrame, target: float = LADDER_TARGET,
                  title: str = "The depth ladder: the shipped tables against the published ones, both sides searching",
                  ) -> plt.Figure:
    """Returns score against depth, one line per published opponent, one panel per shipped table."""
    tables = list(dict.fromkeys(frame["table"]))
    fig, axes = plt.subplots(1, len(tables), figsize=(6.5 * len(tables), 4.2), sharey=True, layout="constrained")
    for ax, table in zip(np.atleast_1d(axes), tables):
        rows = frame[frame["table"] == table]
        for opponent, cells in rows.groupby("opponent", sort=False):
            ax.errorbar(cells["depth"], cells["score"], yerr=[cells["score"] - cells["low"], cells["high"] - cells["score"]],
                        marker="o", capsize=3, label=f"vs {opponent}")
        ax.axhline(0.5, color="grey", lw=0.8)
        ax.axhline(target, color="black", ls="--", lw=1, label=f"target {target}")
        ax.set_xticks(list(LADDER_DEPTHS))
        ax.set_xlabel("search depth of both players (alphabeta:d, eps 0.1)")
        ax.set_title(table)
        ax.grid(alpha=0.3)
    np.atleast_1d(axes)[0].set_ylabel("score (draw = 1/2), 95% Wilson interval")
    np.atleast_1d(axes)[-1].legend(loc="best", fontsize=8)
    suptitle(fig, title)
    return fig


def suptitle(fig: plt.Figure, title: str) -> None:
    """Titles a figure, broken onto lines that fit its width (one panel is narrower than a long title)."""
    text, size, _ = fit_title(title, fig.get_figwidth() - 0.2, 12.0)
    fig.suptitle(text, fontsize=size)


def heldout(args: argparse.Namespace) -> None:
    """Writes heldout.csv, heldout.md and heldout.png: the four 1-ply measures of every table."""
    rows = []
    for label, source, which in TABLES:
        weights, _ = resolve_weights(source, which)
        row: dict[str, object] = {"table": label}
        for (column, _, _), summary in zip(MEASURES, measure(weights, args.games, args.seed, args.workers)):
            row[column] = summary.score
            row[f"{column}_low"], row[f"{column}_high"] = summary.interval
            row[f"{column}_games"] = summary.games
        rows.append(row)
        print(label, " ".join(f"{row[c]:.3f}" for c, _, _ in MEASURES), flush=True)
    frame = pd.DataFrame(rows)
    frame.to_csv(args.out / "heldout.csv", index=False)
    (args.out / "heldout.md").write_text(markdown(frame, args), encoding="utf-8")
    figure(frame).savefig(args.out / "heldout.png", dpi=110)
    print(markdown(frame, args))


def markdown(frame: pd.DataFrame, args: argparse.Namespace) -> str:
    """Returns the held-out table: score [95% Wilson interval] per measure, and the targets."""
    head = "| table | " + " | ".join(title for _, title, _ in MEASURES) + " |"
    lines = [
        f"Scores (draw = 1/2) with 95% Wilson intervals; {args.games:,} games per measure, seed {args.seed}.",
        "",
        head,
        "|---" * (len(MEASURES) + 1) + "|",
    ]
    for _, row in frame.iterrows():
        cells = [f"{row[c]:.3f} [{row[c + '_low']:.3f}, {row[c + '_high']:.3f}]" for c, _, _ in MEASURES]
        lines.append(f"| {row['table']} | " + " | ".join(cells) + " |")
    lines.append("| target for strong.toml | " + " | ".join(f">= {TARGETS[c]:.2f}" for c, _, _ in MEASURES) + " |")
    return "\n".join(lines) + "\n"


def figure(frame: pd.DataFrame) -> plt.Figure:
    """Returns the headline figure: each table's four held-out scores with intervals and the targets.

    Every bar starts at 0.5, an even match (for each measure the score of a
    player equal to its opponents: the random mover against itself, a random
    table against random tables), on one scale shared by the four panels, so
    that a bar's length is the margin it stands for. A score that is not held
    out (expected utility for a table whose refinement played random tables)
    is hatched and named as in-distribution.
    """
    fig, axes = plt.subplots(1, len(MEASURES), figsize=(14, 4.6), sharex=True, layout="constrained")
    colours = plt.get_cmap("tab10")(np.arange(len(frame)))
    low = min(BASELINE, float(frame[[c for c, _, _ in MEASURES]].min().min())) - 0.05
    for ax, (column, title, _) in zip(axes, MEASURES):
        scores = frame[column].to_numpy()
        errors = np.vstack([scores - frame[f"{column}_low"], frame[f"{column}_high"] - scores])
        positions = np.arange(len(frame))
        inside = [(table, column) in IN_DISTRIBUTION for table in frame["table"]]
        ax.barh(positions, scores - BASELINE, left=BASELINE, xerr=errors, color=colours, edgecolor="black",
                linewidth=0.5, capsize=3, hatch=["//" if flag else "" for flag in inside])
        ax.axvline(BASELINE, color="black", lw=1)
        ax.axvline(TARGETS[column], color="black", ls="--", lw=1)
        ax.set_yticks(positions, labels=frame["table"] if column == MEASURES[0][0] else [""] * len(frame))
        ax.invert_yaxis()
        ax.set_xlim(low, 1.0)
        ax.set_title(title + ("\n(hatched: in-distribution)" if any(inside) else ""))
        ax.grid(axis="x", alpha=0.3)
    fig.supxlabel(f"score (draw = 1/2), one scale for the four panels; bars start at {BASELINE}, an even match; "
                  "dashed: the target")
    suptitle(fig, "Held-out scores (95% Wilson intervals): opponents no table trained against, but where hatched")
    return fig


if __name__ == "__main__":
    sys.exit(main())
