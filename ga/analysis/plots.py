"""Figures from a run directory: win rates, fitness and weight heatmaps.

The summaries (:func:`rolling_win_rate`, :func:`opponent_summaries`, ...) are pure
functions of data frames; the ``plot_*`` functions read a run directory, draw and
write image files, and return the paths written.

Figures are built with :class:`matplotlib.figure.Figure` rather than pyplot: they
render headless (Agg for PNG) without touching the process-wide backend, and they
are freed when they go out of scope, so no figure is ever left open.

Every figure has a fixed size (:data:`FIGURE_SIZES`) and fixed margins in inches
(``_MARGINS``; the heatmaps are laid out by ``_heatmap_axes``) rather than
constrained layout, which took a third of the drawing time. A title too wide for
its figure is broken after its first ": " (before the run label), then between
words, and the top margin grows by its lines. A legend sits above its axes,
never on the data, and the figure grows by its height (:func:`legend_above`).
"""

from __future__ import annotations

import io
import os
import textwrap
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import numpy.typing as npt
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextToPath

from ga.config import RefineConfig
from ga.files import atomic_write
from ga.analysis.stats import MatchSummary, wilson_interval
from ga.rundir.layout import BEST, GA_BEST, GAMES, MEAN, REFINE_CSV, table_file
from ga.rundir.reader import experiment_name, printable, read_generations, read_table, run_settings, squares_evolved, writes_games
from engine.players import describe_spec
from ga.weights import FILE_NAMES, PHASE_NAMES, load_evaluation, load_weights, reading_decimals, weight_text

__all__ = [
    "DPI",
    "FIGURE_ORDER",
    "FIGURE_SIZES",
    "OPPONENT_PREFIX",
    "PLOT_FORMATS",
    "REFINE_FIGURE",
    "RUN_FIGURES",
    "draw_weights",
    "experiment_name",
    "fit_title",
    "integer_ticks",
    "legend_above",
    "opponent_columns",
    "opponent_name",
    "opponent_summaries",
    "compare_figure",
    "draw_compare",
    "plot_compare",
    "plot_run",
    "plot_weights",
    "read_generations",
    "rolling_win_rate",
    "rolling_window",
    "run_label",
    "save_figure",
]

PLOT_FORMATS = ("png", "svg", "pdf")
OPPONENT_PREFIX = "win_rate_vs_"
DPI = 100
#: Figure size in inches for each plot, without its legend (:func:`legend_above` adds its height); a PNG is
#: ``size * DPI`` pixels wide.
FIGURE_SIZES: dict[str, tuple[float, float]] = {
    "win_rate": (10.0, 5.0),
    "win_rate_by_opponent": (10.0, 5.0),
    "opponent_bars": (8.0, 5.0),
    "fitness": (10.0, 7.0),
    "weights": (6.5, 5.5),
    "weights_phases": (12.0, 5.5),
    "compare": (10.0, 5.0),
    "refine": (10.0, 7.0),
}
#: The figures :func:`plot_run` draws, by file stem, in the order it draws them.
RUN_FIGURES = (
    "win_rate",
    "win_rate_by_opponent",
    "opponent_bars",
    "fitness",
    "best_weights",
    "mean_weights",
)
#: Drawn after :data:`RUN_FIGURES` for refined runs (those with refine.csv).
REFINE_FIGURE = "refine"
#: Every figure a run may have, in the order they are listed.
FIGURE_ORDER = (*RUN_FIGURES, "ga_best_weights", REFINE_FIGURE)
#: Readable names of the opponents that are not player specs.
OPPONENT_NAMES = {"population": "the population (coevolution: 0.5 is expected)",
                  "hall_of_fame": "earlier champions (hall of fame)", "random_tables": "random U(-1, 1) tables"}
# Margins in inches around the axes of each figure kind: left (y tick labels and
# label), right, bottom (x tick labels and label), top without the title, and the
# gap between stacked axes. Measured for the default 10 pt DejaVu Sans.
_MARGINS: dict[str, dict[str, float]] = {
    "win_rate": {"left": 0.7, "right": 0.2, "bottom": 0.5, "top": 0.1},
    "win_rate_by_opponent": {"left": 0.7, "right": 0.2, "bottom": 0.5, "top": 0.1},
    "opponent_bars": {"left": 0.7, "right": 0.2, "bottom": 0.85, "top": 0.1},  # opponents in words, wrapped
    # Fitness tick labels can be wider ("-0.25", "-100") than the fixed 0..1 of win rates.
    "fitness": {"left": 0.8, "right": 0.2, "bottom": 0.5, "top": 0.1, "gap": 0.15},
    "compare": {"left": 0.7, "right": 0.2, "bottom": 0.5, "top": 0.1},
    "refine": {"left": 0.8, "right": 0.2, "bottom": 0.5, "top": 0.1, "gap": 0.15},
}
# Heatmap layout in inches: the margin left of each board (rank labels), the space
# above the boards for the file labels (plus a phase title for two boards), the
# colour bar and its labels on the right.
_HEATMAP_LEFT = 0.55
_HEATMAP_BOTTOM = 0.15
_HEATMAP_FILE_LABELS = 0.5
_HEATMAP_PHASE_TITLE = 0.3
_COLORBAR_GAP = 0.25
_COLORBAR_WIDTH = 0.22
_COLORBAR_LABELS = 0.85
# Title sizes in points (the rc defaults "large" for axes titles; suptitle as set here).
_AXES_TITLE_SIZE = 12.0
_WEIGHTS_TITLE_SIZE = 13.0
_TITLE_PAD = 0.1  # inches between the figure's top edge and the title
_COLORMAP = "RdBu"
_CELL_DIGITS = 3  # significant digits of a heatmap's largest weight
_TEXT_TO_PATH = TextToPath()
_POINT_COLOUR = "0.65"
_LEGEND_SIZE = 8.0
_LEGEND_ENTRY_EXTRA = 0.75  # inches a legend entry takes besides its text: the line's handle and the padding
_THIN_BAND = 0.006  # half-width of a win-rate band that a 2-point line covers at the figure's scale
# The SVG and PDF backends stamp the current date into the file; drop it so that
# re-plotting an unchanged run gives identical bytes.
_METADATA: dict[str, dict[str, str | None]] = {
    "png": {},
    "svg": {"Date": None},
    "pdf": {"CreationDate": None},
}

# Glyphs drawn unhinted: FreeType's hinting of every glyph of every label took a sixth of the drawing.
_RENDERING = {"text.hinting": "no_hinting"}
# zlib's fastest level: a PNG encodes in half the time (about 15 ms less a figure), a third larger.
_SAVE_OPTIONS: dict[str, dict[str, Any]] = {"png": {"pil_kwargs": {"compress_level": 1}}}


# ---------------------------------------------------------------- summaries


def rolling_window(n_generations: int) -> int:
    """Returns the rolling-mean window: one twentieth of the run, at least 1.

    >>> rolling_window(10), rolling_window(200)
    (1, 10)
    """
    return max(1, n_generations // 20)


def rolling_win_rate(generations: pd.DataFrame, window: int | None = None) -> pd.DataFrame:
    """Returns the rolling win rate per generation with a pooled 95% Wilson band.

    The result has columns ``generation``, ``win_rate`` (per generation),
    ``rolling`` (trailing mean of ``win_rate`` over ``window`` generations) and
    ``low``/``high``: the Wilson interval of wins + draws/2 pooled over the games
    of the same window.
    """
    window = window or rolling_window(len(generations))
    ordered = generations.sort_values("generation")
    pooled = ordered[["games", "wins", "draws"]].rolling(window, min_periods=1).sum()
    bands = [
        wilson_interval(wins + draws / 2, int(games))
        for games, wins, draws in pooled.itertuples(index=False)
    ]
    return pd.DataFrame(
        {
            "generation": ordered["generation"].to_numpy(),
            "win_rate": ordered["win_rate"].to_numpy(dtype=float),
            "rolling": ordered["win_rate"].rolling(window, min_periods=1).mean().to_numpy(),
            "low": [low for low, _ in bands],
            "high": [high for _, high in bands],
        }
    )


def opponent_columns(generations: pd.DataFrame) -> dict[str, str]:
    """Returns ``{opponent spec: column}`` for the ``win_rate_vs_<spec>`` columns."""
    return {
        column[len(OPPONENT_PREFIX) :]: column
        for column in generations.columns
        if column.startswith(OPPONENT_PREFIX)
    }


def opponent_name(label: str) -> str:
    """Returns an opponent's label (a player spec, or population, hall_of_fame, random_tables) in words."""
    if label in OPPONENT_NAMES:
        return OPPONENT_NAMES[label]
    try:
        return describe_spec(label)
    except ValueError:  # a label written by a version that named opponents otherwise
        return label


def opponent_summaries(games: pd.DataFrame) -> list[MatchSummary]:
    """Returns one :class:`MatchSummary` per opponent from a ``games.csv`` frame, sorted by name."""
    return [
        MatchSummary.from_disc_diffs(str(opponent), group["disc_diff"])
        for opponent, group in games.groupby("opponent", sort=True)
    ]


def run_label(run_dir: str | os.PathLike[str]) -> str:
    """Returns "experiment name (dir name)", or the dir name when there is no name."""
    directory = Path(run_dir).resolve().name
    name = experiment_name(run_dir)
    # Shown, not obeyed: a directory named in another encoding than UTF-8 is drawn with its bytes escaped (a
    # title the fonts cannot take ended the figures with a traceback).
    return printable(f"{name} ({directory})" if name and name != directory else directory)


# ---------------------------------------------------------------- drawing


def draw_win_rate(axes: Axes, curve: pd.DataFrame, window: int) -> None:
    """Draws per-generation points, the rolling mean and its Wilson band.

    A band narrower than the line (a run of many games a generation) says its
    width in the legend rather than vanish unexplained.
    """
    axes.scatter(
        curve["generation"], curve["win_rate"], s=10, color=_POINT_COLOUR, label="per generation"
    )
    half = float(np.nanmedian(curve["high"] - curve["low"])) / 2 if len(curve) else 0.0
    band = f"95% Wilson band (pooled over {window} gen)"
    if half < _THIN_BAND:
        band += f": ±{half:.3f}, thinner than the line"
    axes.fill_between(curve["generation"], curve["low"], curve["high"], alpha=0.25, color="tab:blue", label=band)
    axes.plot(curve["generation"], curve["rolling"], color="tab:blue", lw=2,
              label=f"rolling mean ({window} gen)")
    _finish_rate_axes(axes)


def draw_weights(
    figure: Figure, weights: npt.ArrayLike, title: str = "weights", scale: float | None = None
) -> list[Axes]:
    """Draws 8x8 heatmap(s) of 64 (or 128) weights on ``figure``; rank 1 is the top row.

    Colours diverge around 0 on a scale symmetric in the largest magnitude, so
    equal colours mean equal weights across the two phases of a 128-weight table;
    the colour bar reads in shares of that magnitude (-1 to 1), one scale for
    every table's heatmap; ``scale`` widens it to share it with other tables. Each cell prints its
    weight with the decimals that give the table's largest three significant
    digits (two at most), never as "-0.00".
    """
    values = np.asarray(weights, dtype=np.float64).ravel()
    if values.size not in (64, 128):
        raise ValueError(f"expected 64 or 128 weights, got {values.size}")
    boards = values.reshape(-1, 8, 8)
    decimals = min(reading_decimals(values, _CELL_DIGITS), 2)  # a cell holds about four characters
    largest = float(np.abs(values).max()) if np.isfinite(values).any() else 0.0
    if scale is not None:
        largest = max(largest, float(scale))  # a scale shared with other tables
    norm = Normalize(vmin=-(largest or 1.0), vmax=largest or 1.0)
    grid, colorbar_axes = _heatmap_axes(figure, len(boards), title)
    image = None
    for phase, (axes, board) in enumerate(zip(grid, boards)):
        image = axes.imshow(board, cmap=_COLORMAP, norm=norm, origin="upper")
        axes.set_xticks(range(8), labels=list(FILE_NAMES))
        axes.set_yticks(range(8), labels=[str(rank) for rank in range(1, 9)])
        axes.xaxis.tick_top()
        axes.xaxis.set_label_position("top")
        axes.set_xlabel("file")
        axes.set_ylabel("rank")
        axes.tick_params(length=0)
        if len(boards) > 1:
            axes.set_title(PHASE_NAMES[phase], fontsize=11)
        for rank in range(8):
            for file in range(8):
                value = board[rank, file]
                # White text on the dark ends of the colour map, black elsewhere.
                dark = largest > 0 and abs(value) > 0.6 * largest
                axes.text(file, rank, weight_text(value, decimals), ha="center", va="center", fontsize=8,
                          color="white" if dark else "black")
    # The colour bar reads in shares of the largest weight, so that two tables' heatmaps share one scale: a table
    # plays the same at any scale, and a refined table (largest 1) drawn on the GA's absolute scale (3 or more)
    # would be washed out.
    bound = largest or 1.0
    shares = (-1.0, -0.5, 0.0, 0.5, 1.0)
    colorbar = figure.colorbar(image, cax=colorbar_axes, ticks=[share * bound for share in shares])
    colorbar.ax.set_yticklabels([f"{share:g}" for share in shares])
    colorbar.set_label(f"weight / largest weight ({weight_text(bound, decimals)})")
    return grid


def _heatmap_axes(figure: Figure, count: int, title: str) -> tuple[list[Axes], Axes]:
    """Adds ``count`` square heatmap axes side by side and a colour bar axes; titles the figure.

    The boards take the largest square that fits the figure around fixed margins
    (rank labels left of each board, file labels above, the colour bar right),
    and the whole block is centred.
    """
    width, height = figure.get_size_inches()
    text, size, lines = fit_title(title, width - 2 * _TITLE_PAD, _WEIGHTS_TITLE_SIZE)
    top = _TITLE_PAD + lines * _line_height(size) + _HEATMAP_FILE_LABELS
    if count > 1:
        top += _HEATMAP_PHASE_TITLE
    right = _COLORBAR_GAP + _COLORBAR_WIDTH + _COLORBAR_LABELS
    side = min(height - top - _HEATMAP_BOTTOM, (width - right) / count - _HEATMAP_LEFT)
    x = (width - count * (_HEATMAP_LEFT + side) - right) / 2
    y = _HEATMAP_BOTTOM + (height - top - _HEATMAP_BOTTOM - side) / 2
    grid = []
    for _ in range(count):
        x += _HEATMAP_LEFT
        grid.append(figure.add_axes((x / width, y / height, side / width, side / height)))
        x += side
    colorbar_axes = figure.add_axes(((x + _COLORBAR_GAP) / width, y / height,
                                     _COLORBAR_WIDTH / width, side / height))
    figure.suptitle(text, fontsize=size, y=1 - _TITLE_PAD / height, va="top")
    return grid, colorbar_axes


def plot_weights(
    weights: npt.ArrayLike,
    out_path: str | os.PathLike[str],
    title: str = "weights",
    fmt: str | None = None,
    scale: float | None = None,
    *,
    release: bool = True,
) -> list[Path]:
    """Writes a heatmap of 64 (or 128, side by side) weights and returns ``[path]``.

    The format comes from ``fmt`` (the suffix is then replaced) or from the suffix;
    ``release`` as for :func:`plot_run`.
    """
    path = _output_path(out_path, fmt)
    size = "weights" if np.asarray(weights).size == 64 else "weights_phases"
    figure = _new_figure(size)
    draw_weights(figure, weights, title, scale)
    return [_save(figure, path, release=release)]


def plot_run(
    run_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str] | None = None,
    fmt: str = "png",
    figures: Sequence[str] | None = None,
    *,
    release: bool = True,
) -> list[Path]:
    """Writes the figures of one run and returns the paths written, in :data:`RUN_FIGURES` order.

    ``figures`` selects some of :data:`RUN_FIGURES` by stem (a single stem may be
    passed as a string); None draws them all. ``out_dir`` defaults to
    ``run_dir/plots``. A selected figure whose input file is missing
    (``games.csv``, ``best_weights.csv``, ``mean_weights.csv``) is skipped with a
    warning; one the run's config rules out is not drawn: opponent_bars
    without games.csv with no warning, refine without [refine] with one when
    named in ``figures``.
    ``release=False`` leaves each figure's memory to the garbage collector rather
    than freeing it when saved (a few milliseconds each), for a process that
    exits once it has drawn.

    :raises RunDirError: if ``generations.csv`` (or another file a figure reads) is
        missing or damaged.
    :raises ValueError: for an unknown ``fmt`` or figure name.
    """
    _check_format(fmt)
    selected = _select_figures(figures)
    run_dir = Path(run_dir)
    # Every file a selected figure reads is read, and checked, before the first figure is written.
    generations = read_generations(run_dir)
    games_path = run_dir / GAMES
    games = read_table(run_dir, GAMES) if "opponent_bars" in selected and os.path.lexists(games_path) else None
    # A run with features keeps each table as an evaluation file: its squares are drawn, its feature weights named.
    evaluations = {stem: load_evaluation(table_file(run_dir, name))
                   for stem, name in (("best_weights", BEST), ("mean_weights", MEAN), ("ga_best_weights", GA_BEST))
                   if os.path.lexists(table_file(run_dir, name))}
    tables = {stem: np.array(evaluation.squares) for stem, evaluation in evaluations.items()}
    refined = "ga_best_weights" in tables
    settings = run_settings(run_dir)
    fitness = _section(settings, "fitness")
    kept = _kept_centroid(_section(settings, "refine"))
    panel_weights = {group: float(value) for group in ("opponents", "restarts", "random_tables")
                     if isinstance(value := _section(settings, "refine").get(
                         f"weight_{group}", getattr(RefineConfig(), f"weight_{group}")), (int, float))}
    refine_path = run_dir / REFINE_CSV
    refine = read_table(run_dir, REFINE_CSV) if REFINE_FIGURE in selected and os.path.lexists(refine_path) else None

    out_dir = Path(out_dir) if out_dir is not None else run_dir / "plots"
    out_dir.mkdir(parents=True, exist_ok=True)
    label = run_label(run_dir)
    window = rolling_window(len(generations))
    written: list[Path] = []

    if "win_rate" in selected:
        figure, (axes,) = _new_axes("win_rate", f"Win rate per generation: {label}")
        draw_win_rate(axes, rolling_win_rate(generations, window), window)
        if fitness.get("coevolution") or fitness.get("hall_of_fame_games"):
            axes.text(0.01, 0.02, "includes games against the population and earlier champions, "
                      "whose strength rises with it", transform=axes.transAxes, fontsize=8, color="dimgrey")
        written.append(_save(figure, out_dir / f"win_rate.{fmt}", release=release))

    if "win_rate_by_opponent" in selected:
        written.append(_save(_by_opponent_figure(generations, window, label),
                             out_dir / f"win_rate_by_opponent.{fmt}", release=release))

    if "opponent_bars" in selected:
        if games is not None:
            written.append(_save(_opponent_bars_figure(games, label), out_dir / f"opponent_bars.{fmt}",
                                 release=release))
        elif writes_games(run_dir):
            warnings.warn(f"{games_path} does not exist; skipping opponent_bars", stacklevel=2)
        # else the run's own config turned games.csv off: not a figure of this run, and not a warning (the
        # commands say so once, ga.cli.outputs.figures_not_drawn)

    if "fitness" in selected:
        unit = "mean disc difference" if fitness.get("score") == "disc_diff" else "win rate, draw = 1/2"
        written.append(_save(_fitness_figure(generations, label, unit), out_dir / f"fitness.{fmt}",
                             release=release))

    # Each table's colours are shares of its own largest weight (its two phases share it), on the one colour bar
    # of every heatmap (draw_weights).
    titles = {"best_weights": f"The refined table ({kept})" if refined else
              "The best table (the run's pick)",
              "mean_weights": "The population's mean table (the GA's last generation)",
              "ga_best_weights": "The GA's best table, before the refinement"}
    for stem in ("best_weights", "mean_weights", "ga_best_weights"):
        if stem not in selected and not (stem == "ga_best_weights" and "best_weights" in selected and refined):
            continue
        if not squares_evolved(run_dir):
            continue  # a network's run without squares: not a figure of this run (ga.cli.outputs.figures_not_drawn)
        if stem not in tables:
            if stem != "ga_best_weights":
                warnings.warn(f"{run_dir / (stem + '.csv')} does not exist; skipping {stem}", stacklevel=2)
            continue
        features = evaluations[stem].weights_of(0)
        named = "".join(f", {name} {weight:.3g}" for name, weight in features.items())
        written += plot_weights(tables[stem], out_dir / f"{stem}.{fmt}", title=f"{titles[stem]}: {label}{named}",
                                release=release)

    if refine is not None:
        written.append(_save(_refine_figure(refine, label, kept, panel_weights), out_dir / f"{REFINE_FIGURE}.{fmt}",
                             release=release))
    elif figures is not None and REFINE_FIGURE in selected:
        warnings.warn(f"{refine_path} does not exist (the run has no [refine]); skipping {REFINE_FIGURE}",
                      stacklevel=2)
    return written


def plot_compare(
    run_dirs: Sequence[str | os.PathLike[str]],
    out_path: str | os.PathLike[str],
    fmt: str | None = None,
    curves: Sequence[tuple[str, pd.DataFrame]] = (),
    window: int | None = None,
) -> list[Path]:
    """Overlays the rolling win rate (and its Wilson band) of several runs; returns ``[path]``.

    Each curve is labelled "experiment name (dir name)", what its win rate
    is against and its window: ``window`` generations, or a twentieth of its
    own run (:func:`draw_compare`). The format comes from
    ``fmt`` (the suffix is then replaced) or from the suffix of ``out_path``.
    ``curves`` are more, already made: (label, frame of ``x``, ``mean``,
    ``low``, ``high``), e.g. a study's configs over seeds.

    :raises ValueError: if ``run_dirs`` and ``curves`` are both empty.
    :raises RunDirError: if a run's ``generations.csv`` is missing or damaged.
    """
    path = _output_path(out_path, fmt)
    atomic_write(path, compare_figure(run_dirs, path.suffix.lstrip("."), curves, window))
    return [path]


def compare_figure(run_dirs: Sequence[str | os.PathLike[str]], fmt: str,
                   curves: Sequence[tuple[str, pd.DataFrame]] = (), window: int | None = None) -> bytes:
    """Returns the figure of :func:`plot_compare` as the bytes of an image of ``fmt`` (png, svg or pdf)."""
    _check_format(fmt)
    return _image(draw_compare(run_dirs, curves, window), fmt)


def draw_compare(run_dirs: Sequence[str | os.PathLike[str]], curves: Sequence[tuple[str, pd.DataFrame]] = (),
                 window: int | None = None) -> Figure:
    """Returns the figure of :func:`plot_compare`: each run's rolling win rate over ``window`` generations, or
    without it over a twentieth of that run (:func:`rolling_window`), each label saying its window.

    One window for every run would be the shortest run's: beside a run of 10
    generations, one of 1,000 would be drawn generation by generation, as noise.
    """
    if not run_dirs and not curves:
        raise ValueError("plot_compare needs at least one run directory")
    runs = [(run_label(run_dir), read_generations(run_dir), training_opponents(run_dir)) for run_dir in run_dirs]
    if window is not None:
        smoothing = f"each curve a rolling mean of {window} generation{'s' * (window > 1)}"
    else:
        smoothing = "each curve a rolling mean over a twentieth of its run, as its label says"
    title = (f"Rolling win rate with pooled 95% Wilson bands: {smoothing}" if runs else "Win rate") + \
        (" (a study's configs: mean over seeds, 95% t band)" if curves else "")
    figure, (axes,) = _new_axes("compare", title)
    colours = _colours(len(runs) + len(curves))
    for colour, (label, generations, against) in zip(colours, runs):
        own = window or rolling_window(len(generations))
        curve = rolling_win_rate(generations, own)
        axes.fill_between(curve["generation"], curve["low"], curve["high"], color=colour, alpha=0.15)
        axes.plot(curve["generation"], curve["rolling"], color=colour, lw=2,
                  label=f"{label}, vs {against}, mean of {own} gen")
    for colour, (label, made) in zip(colours[len(runs):], curves):
        axes.fill_between(made["x"], made["low"], made["high"], color=colour, alpha=0.15)
        axes.plot(made["x"], made["mean"], color=colour, lw=2, label=label)
    kinds = {against for _, _, against in runs}
    if len(kinds) > 1 or any(COEVOLUTION in kind for kind in kinds):
        coevolving = any(COEVOLUTION in kind for kind in kinds)
        axes.text(0.01, 0.02, "each curve is a win rate against its run's own training opponents: not one yardstick"
                  + ("\n(against the population and earlier champions 0.5 is expected); " if coevolving else "\n")
                  + "othello-ga evaluate scores tables against the same opponents",
                  transform=axes.transAxes, fontsize=8, color="dimgrey")
    _finish_rate_axes(axes)
    return figure


#: What a coevolving run's win rate is partly against (see :func:`training_opponents`).
COEVOLUTION = "the population"


def training_opponents(run_dir: str | os.PathLike[str]) -> str:
    """Returns what a run's win rate is measured against, in a few words, from its config."""
    fit = _section(run_settings(run_dir), "fitness")
    parts = ["fixed opponents"] if fit.get("opponents", True) else []
    if fit.get("coevolution"):
        parts.append(COEVOLUTION)
    if fit.get("hall_of_fame_games"):
        parts.append("earlier champions")
    if fit.get("random_table_games"):
        parts.append("random tables")
    return " and ".join([", ".join(parts[:-1]), parts[-1]]) if len(parts) > 1 else (parts or ["?"])[0]


# ---------------------------------------------------------------- figures


def _section(settings: dict, name: str) -> dict:
    """Returns one [section] of a run's config.toml as read by ``run_settings``, ``{}`` if it is not a table."""
    section = settings.get(name, {})
    return section if isinstance(section, dict) else {}


def _kept_centroid(refine: dict) -> str:
    """Names the CMA-ES centroid a refined run kept as its table (``refine.average_last``)."""
    average_last = refine.get("average_last", 1)
    if isinstance(average_last, int) and not isinstance(average_last, bool) and average_last > 1:
        return f"CMA-ES's mean centroid of its last {average_last} generations"
    return "CMA-ES's final centroid"


def _by_opponent_figure(generations: pd.DataFrame, window: int, label: str) -> Figure:
    """Returns a figure with one rolling win-rate line per opponent style."""
    figure, (axes,) = _new_axes(
        "win_rate_by_opponent", f"Win rate by opponent (rolling mean, {window} gen): {label}")
    ordered = generations.sort_values("generation")
    columns = opponent_columns(ordered)
    drawn = 0
    for colour, (opponent, column) in zip(_colours(len(columns)), sorted(columns.items())):
        rates = ordered[column].astype(float)
        if rates.isna().all():
            continue
        # NaN marks generations where this style was not played; the mean skips them.
        rolling = rates.rolling(window, min_periods=1).mean()
        axes.plot(ordered["generation"], rolling, color=colour, lw=2, label=opponent_name(opponent))
        drawn += 1
    if not drawn:
        axes.text(0.5, 0.5, "no per-opponent win rates in generations.csv",
                  ha="center", va="center", transform=axes.transAxes)
    _finish_rate_axes(axes, legend=drawn > 0)
    return figure


def _select_figures(figures: Sequence[str] | None) -> frozenset[str]:
    """Returns the stems named by ``figures`` (all of :data:`RUN_FIGURES` for None).

    :raises ValueError: naming the first unknown stem.
    """
    known = (*RUN_FIGURES, REFINE_FIGURE)
    if figures is None:
        return frozenset(known)
    if isinstance(figures, str):
        figures = (figures,)  # one stem, not a sequence of one-letter names
    for name in figures:
        if name not in known:
            raise ValueError(f"unknown figure {name!r}; use some of {', '.join(known)}")
    return frozenset(figures)


def _opponent_bars_figure(games: pd.DataFrame, label: str) -> Figure:
    """Returns a bar chart of the whole-run win rate (draw = 1/2) per opponent with Wilson error bars."""
    figure, (axes,) = _new_axes(
        "opponent_bars", f"Win rate per opponent over the whole run (95% Wilson): {label}")
    summaries = opponent_summaries(games)
    positions = np.arange(len(summaries))
    scores = np.array([summary.score for summary in summaries])
    intervals = np.array([summary.interval for summary in summaries]).reshape(-1, 2)
    errors = np.abs(np.vstack([scores - intervals[:, 0], intervals[:, 1] - scores]))
    axes.bar(positions, scores, yerr=errors, capsize=6, color=_colours(len(summaries)),
             edgecolor="black", linewidth=0.6)
    for position, summary in zip(positions, summaries):
        axes.text(position, 0.02, f"n={summary.games}", ha="center", va="bottom", fontsize=9)
    # Words, wrapped to the bar's width (a bar is 8 inches over the opponents, less the gaps).
    wrap = max(8, int(70 / max(1, len(summaries))))
    axes.set_xticks(positions, labels=[textwrap.fill(opponent_name(summary.opponent), wrap)
                                       for summary in summaries], fontsize=8)
    axes.axhline(0.5, color="black", lw=0.8, ls="--")
    axes.set_ylim(0, 1)
    axes.set_xlabel("opponent")
    axes.set_ylabel("win rate (draw = 1/2)")
    axes.grid(axis="y", alpha=0.3)
    return figure


def _fitness_figure(generations: pd.DataFrame, label: str, unit: str = "win rate, draw = 1/2") -> Figure:
    """Returns fitness min/mean/max per generation above a diversity panel; ``unit`` names the fitness."""
    figure, (fitness_axes, diversity_axes) = _new_axes(
        "fitness", f"Fitness and diversity: {label}", height_ratios=(2.0, 1.0))
    ordered = generations.sort_values("generation")
    generation = ordered["generation"]
    if {"fitness_min", "fitness_max"} <= set(ordered.columns):
        fitness_axes.fill_between(generation, ordered["fitness_min"], ordered["fitness_max"],
                                  color="tab:green", alpha=0.2, label="min to max")
    names = {"fitness_mean": "population mean", "fitness_max": "population max", "fitness_min": "population min",
             "best_fitness": "best ever (hall of fame)"}
    for column, style in (("fitness_mean", "-"), ("fitness_max", ":"), ("fitness_min", ":"),
                          ("best_fitness", "--")):
        if column in ordered.columns:
            fitness_axes.plot(generation, ordered[column], ls=style, lw=1.8 if style == "-" else 1.2,
                              label=names[column])
    fitness_axes.set_ylabel(f"fitness ({unit})")
    fitness_axes.grid(alpha=0.3)
    legend_above(fitness_axes, 4)  # never on the curves
    if "diversity" in ordered.columns:
        diversity_axes.plot(generation, ordered["diversity"], color="tab:purple", lw=1.8)
    diversity_axes.set_ylabel("diversity")
    _headroom(diversity_axes, 0.35)
    diversity_axes.text(0.99, 0.95, "mean over genes of their standard deviation across the population",
                        transform=diversity_axes.transAxes, ha="right", va="top", fontsize=8, color="dimgrey")
    diversity_axes.set_xlabel("generation")
    integer_ticks(diversity_axes)
    diversity_axes.grid(alpha=0.3)
    return figure


def _refine_figure(rows: pd.DataFrame, label: str, kept: str, weights: dict[str, float] | None = None) -> Figure:
    """Returns the refinement's panel scores per CMA-ES generation above its step size; ``kept`` names the
    centroid the run kept as its table, ``weights`` the panel groups' weights (``refine.weight_*``).

    A candidate's panel score is the weighted mean of its scores against the
    groups, so the candidates' mean can sit above the best candidate's score
    against a group of small weight: the legend says which line is which. The
    table kept is a centroid, which no generation plays: the figure says so
    rather than draw a line for it.
    """
    figure, (score_axes, sigma_axes) = _new_axes(
        "refine", f"Refinement (CMA-ES on the panel): {label}", height_ratios=(2.0, 1.0))
    generation = rows["generation"]
    weights = weights or {}
    groups = [("opponents", "tab:blue"), ("restarts", "tab:orange"), ("random_tables", "tab:green")]
    shares = ", ".join(f"{group.replace('_', ' ')} {weights.get(group, 1.0):g}" for group, _ in groups
                       if rows[f"best_{group}"].notna().any())
    score_axes.plot(generation, rows["score_mean"], lw=1.8, color="black",
                    label=f"the candidates' mean panel score (weighted: {shares})")
    if "score_best" in rows.columns:
        score_axes.plot(generation, rows["score_best"], lw=1.2, ls="--", color="black",
                        label="the best candidate's panel score")
    for group, colour in groups:
        column = f"best_{group}"
        if rows[column].notna().any():
            score_axes.plot(generation, rows[column], lw=1.0, alpha=0.8, color=colour,
                            label=f"the best candidate's score vs {group.replace('_', ' ')}")
    score_axes.plot([], [], " ", label=f"kept: {kept}, which no generation plays (not scored here)")
    score_axes.set_ylabel("panel score (draw = 1/2)")
    score_axes.grid(alpha=0.3)
    legend_above(score_axes, 2)  # never on the curves
    sigma_axes.plot(generation, rows["sigma"], color="tab:purple", lw=1.8)
    sigma_axes.set_ylabel("sigma")
    sigma_axes.set_xlabel("CMA-ES generation")
    integer_ticks(sigma_axes)
    sigma_axes.grid(alpha=0.3)
    return figure


def _headroom(axes: Axes, share: float) -> None:
    """Raises the top of the axes by ``share`` of the data's range, to make room for a legend above the data."""
    low, high = axes.get_ylim()
    axes.set_ylim(low, high + share * (high - low))


def _legend_columns(axes: Axes, most: int) -> int:
    """Returns as many legend columns as fit the axes' width, ``most`` at most: labels in words can be long."""
    widest = max((_text_width(label, _LEGEND_SIZE) for label in axes.get_legend_handles_labels()[1]), default=0.0)
    width = axes.get_position().width * axes.get_figure().get_figwidth()
    return max(1, min(most, int(width // (widest + _LEGEND_ENTRY_EXTRA))))


def _finish_rate_axes(axes: Axes, legend: bool = True) -> None:
    """Labels a win-rate axes: 0..1 and no further (a win rate lies there), the 50% line (beneath the data: a curve
    at 0.5 must show), whole generations, grid, and the legend above the axes (never on the data)."""
    axes.axhline(0.5, color="black", lw=0.8, ls="--", zorder=1.5)
    entries = len(axes.get_legend_handles_labels()[1]) if legend else 0
    axes.set_ylim(-0.02, 1.02)  # a point at 0 or 1 drawn whole
    axes.set_yticks(np.linspace(0, 1, 6))
    axes.set_xlabel("generation")
    axes.set_ylabel("win rate")
    integer_ticks(axes)
    axes.grid(alpha=0.3)
    if legend and entries:
        legend_above(axes, 3 if entries > 4 else 2)


def integer_ticks(axes: Axes) -> None:
    """Puts the x ticks on whole numbers (generations): a run of 3 has no generation 0.5."""
    from matplotlib.ticker import MaxNLocator

    axes.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 2.5, 5, 10]))


#: A legend row's height and the legend's padding, in points at the legend's font size: the text (1.2 lines)
#: and matplotlib's labelspacing (0.5), and its border's and the axes' padding.
_LEGEND_ROW = 1.7
_LEGEND_PAD = 1.2


def legend_above(axes: Axes, most_columns: int) -> None:
    """Puts the axes' legend above them, between them and their title, in as many columns as fit: the figure
    grows by the height it takes, every axes keeping its size, so that it covers no data and shrinks no plot
    (figures of fixed margins, :func:`_new_axes`)."""
    entries = len(axes.get_legend_handles_labels()[1])
    if not entries:
        return
    columns = _legend_columns(axes, most_columns)
    rows = -(-entries // columns)
    height = (rows * _LEGEND_ROW + _LEGEND_PAD) * _LEGEND_SIZE / 72  # inches
    figure = axes.get_figure()
    before = figure.get_figheight()
    boxes = [(each, each.get_position()) for each in figure.axes]
    figure.set_figheight(before + height)
    for each, box in boxes:  # the same inches from the bottom: the new height is all above them
        each.set_position((box.x0, box.y0 * before / (before + height), box.width,
                           box.height * before / (before + height)))
    axes.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=columns, fontsize=_LEGEND_SIZE, frameon=False,
                borderaxespad=0.2)
    title = axes.title
    axes.set_title(title.get_text(), fontsize=title.get_fontsize(),
                   pad=matplotlib.rcParams["axes.titlepad"] + height * 72)


# ---------------------------------------------------------------- output


def _new_figure(kind: str) -> Figure:
    """Returns an empty figure of the size registered for ``kind``, without a layout engine."""
    return Figure(figsize=FIGURE_SIZES[kind], dpi=DPI)


def _new_axes(
    kind: str, title: str, height_ratios: Sequence[float] = (1.0,)
) -> tuple[Figure, list[Axes]]:
    """Returns a figure of ``kind`` with axes stacked in ``height_ratios`` (sharing x).

    The axes sit inside the fixed margins of ``kind``; the top one carries
    ``title``, broken onto two lines (and the top margin grown) if it is too wide.
    """
    width, height = FIGURE_SIZES[kind]
    margins = _MARGINS[kind]
    centre = margins["left"] + (width - margins["left"] - margins["right"]) / 2
    text, size, lines = fit_title(title, 2 * min(centre, width - centre) - 2 * _TITLE_PAD,
                                   _AXES_TITLE_SIZE)
    top = margins["top"] + _TITLE_PAD + lines * _line_height(size)
    rows = len(height_ratios)
    # hspace is a fraction of the mean axes height, so convert the gap in inches.
    mean_height = (height - margins["bottom"] - top - (rows - 1) * margins.get("gap", 0.0)) / rows
    figure = _new_figure(kind)
    # Not Figure(subplotpars=...): Figure.__init__ clears the figure, which resets them.
    figure.subplots_adjust(
        left=margins["left"] / width,
        right=1 - margins["right"] / width,
        bottom=margins["bottom"] / height,
        top=1 - top / height,
        hspace=margins.get("gap", 0.0) / mean_height,
    )
    grid = figure.subplots(rows, 1, sharex=True, squeeze=False, height_ratios=list(height_ratios))
    axes = list(grid[:, 0])
    axes[0].set_title(text, fontsize=size)
    return figure, axes


def fit_title(title: str, width: float, size: float) -> tuple[str, float, int]:
    """Returns ``title`` fitted to ``width`` inches, its font size and its number of lines.

    A title that does not fit on one line is broken after its first ": ";
    a line still too wide is broken between words, and a word wider than
    ``width`` shrinks the font (to 7 pt at least).
    """
    head, colon, tail = title.partition(": ")
    lines = [title] if _text_width(title, size) <= width or not colon else [head + ":", tail]
    lines = [part for line in lines for part in _wrap(line, width, size)]
    widest = max(_text_width(line, size) for line in lines)
    if widest > width:
        size = max(7.0, size * width / widest)
    return "\n".join(lines), size, len(lines)


def _wrap(text: str, width: float, size: float) -> list[str]:
    """Returns ``text`` broken between words into lines of at most ``width`` inches (a word wider stays whole)."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and _text_width(f"{lines[-1]} {word}", size) <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


def _text_width(text: str, size: float) -> float:
    """Returns the width in inches of one line of ``text`` at ``size`` points (no mathtext)."""
    width, _, _ = _TEXT_TO_PATH.get_text_width_height_descent(
        text, FontProperties(size=size), ismath=False)
    return width / 72


def _line_height(size: float) -> float:
    """Returns the height in inches that one line of text at ``size`` points takes."""
    return 1.2 * size / 72


def _save(figure: Figure, path: Path, *, release: bool = True) -> Path:
    """Writes the figure at its own size, whole or not at all, in the format of the path's suffix."""
    atomic_write(path, _image(figure, path.suffix.lstrip("."), release=release))
    return path


def _image(figure: Figure, fmt: str, *, release: bool = True) -> bytes:
    """Returns the figure as an image of ``fmt`` at its own size (no tight bbox, so pixel sizes are predictable)."""
    image = io.BytesIO()
    with matplotlib.rc_context(_RENDERING):
        figure.savefig(image, format=fmt, dpi=DPI, metadata=_METADATA[fmt], **_SAVE_OPTIONS.get(fmt, {}))
    if release:
        figure.clear()  # frees the artists now rather than at garbage collection
    return image.getvalue()


def save_figure(figure: Figure, path: Path, write: Callable[[Path, bytes], object] = atomic_write) -> Path:
    """Writes a figure as every figure of the project is written: at its own size, no date, whole or not at all."""
    write(path, _image(figure, path.suffix.lstrip(".")))
    return path


def _check_format(fmt: str) -> None:
    """Raises ValueError unless ``fmt`` is a supported image format."""
    if fmt not in PLOT_FORMATS:
        raise ValueError(f"unknown plot format {fmt!r}; use one of {', '.join(PLOT_FORMATS)}")


def _output_path(out_path: str | os.PathLike[str], fmt: str | None) -> Path:
    """Returns ``out_path`` with the suffix of ``fmt`` (or its own, checked), creating its directory."""
    path = Path(out_path)
    if fmt is None:
        fmt = path.suffix.lstrip(".") or "png"
    _check_format(fmt)
    path = path.with_suffix(f".{fmt}")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _colours(count: int) -> list[tuple[float, float, float, float]]:
    """Returns ``count`` distinct colours (tab10, then tab20 for more)."""
    colour_map = matplotlib.colormaps["tab10" if count <= 10 else "tab20"]
    return [colour_map(index % colour_map.N) for index in range(count)]
