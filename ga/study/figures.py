"""A study's figures: each config's training curve over seeds, each measure per run, a one-key grid's measures.

The curves are the runs' rolling win rates (as ``othello-ga plot`` draws one
run's), averaged over seeds at each generation with a 95% t band over seeds
(:func:`config_curves`, also what ``othello-ga compare`` draws for a study).
The measures' means and intervals are summary.csv's own numbers, drawn as
they stand there.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from ga.analysis.plots import fit_title, integer_ticks, rolling_win_rate, rolling_window, save_figure
from ga.evolution.fitness import games_per_generation
from ga.rundir.layout import GENERATIONS
from ga.rundir.reader import read_generations
from ga.study.layout import PLOTS, run_dir
from ga.study.measures import columns
from ga.study.schema import Study

__all__ = ["config_curves", "curve_band", "curves_figure", "grid_figure", "grid_key", "measures_figure", "plot_study", "study_curves"]


def curve_band(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Returns per column of ``values`` (runs by generations, NaN where a run has no such generation): the runs
    counted, their mean, and the 95% t interval's bounds (NaN with fewer than two runs)."""
    from scipy import stats

    count = np.sum(~np.isnan(values), axis=0)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a generation of one run has no spread: NaN, as wanted
        mean = np.nanmean(np.where(count > 0, values, 0.0), axis=0) if values.size else np.zeros(0)
        spread = np.nanstd(values, axis=0, ddof=1) if values.shape[0] > 1 else np.full(values.shape[1], np.nan)
        half = stats.t.ppf(0.975, count - 1) * spread / np.sqrt(count)
    half = np.where(count > 1, half, np.nan)
    return count, mean, mean - half, mean + half


def _x_is_games(study: Study) -> bool:
    return len({games_per_generation(config.config) for config in study.configs}) > 1


def config_curves(study: Study, study_dir: Path, window: int | None = None) -> dict[str, pd.DataFrame]:
    """Returns each config's curve: per generation (column ``x``: the generation, or the training games when the
    configs' generations differ in games), the runs counted (``n``), the mean of their rolling win rates
    (``mean``) and its 95% t band over seeds (``low``, ``high``; kept within [0, 1], where a win rate lies), and
    the rolling window (``window``: ``window`` generations, or a twentieth of the config's run). Configs without a
    run yet are left out."""
    by_games = _x_is_games(study)
    curves = {}
    for config in study.configs:
        own = window or rolling_window(config.config.experiment.generations)
        rows = []
        for seed in study.seeds:
            path = run_dir(study_dir, config.label, seed)
            if (path / GENERATIONS).is_file():
                generations = read_generations(path)
                rows.append(rolling_win_rate(generations, own).set_index("generation")["rolling"])
        if not rows:
            continue
        frame = pd.concat(rows, axis=1).sort_index()
        count, mean, low, high = curve_band(frame.to_numpy(dtype=float).T)
        x = frame.index.to_numpy()
        if by_games:
            x = (x + 1) * games_per_generation(config.config)
        # A t band over a few seeds can reach past what a win rate can be: it is drawn within [0, 1].
        curves[config.label] = pd.DataFrame({"x": x, "n": count, "mean": mean, "low": np.clip(low, 0.0, 1.0),
                                             "high": np.clip(high, 0.0, 1.0), "window": own})
    return curves


def study_curves(study_dir: Path, window: int | None = None) -> list[tuple[str, pd.DataFrame]]:
    """Returns a study directory's config curves (:func:`config_curves`), each labelled
    "study: config (n runs, mean of W gen)"."""
    from ga.study.schema import load_saved_study

    study = load_saved_study(study_dir, check_weights=False)  # the curves need no opponent's weights file
    return [(f"{study.name}: {label} ({int(curve['n'].max())} runs, mean of {int(curve['window'].iloc[0])} gen)",
             curve) for label, curve in config_curves(study, Path(study_dir), window).items()]


def curves_figure(study: Study, curves: dict[str, pd.DataFrame]) -> Figure:
    """Returns the configs' training curves: the mean rolling win rate over seeds with its 95% t band."""
    figure = Figure(figsize=(10.0, 5.5), layout="constrained")
    axes = figure.subplots()
    colours = _colours(len(study.configs))
    for colour, config in zip(colours, study.configs):
        if config.label not in curves:
            continue
        curve = curves[config.label]
        axes.fill_between(curve["x"], curve["low"], curve["high"], color=colour, alpha=0.2, lw=0,
                          gid=f"band:{config.label}")
        axes.plot(curve["x"], curve["mean"], color=colour, lw=1.8, label=f"{config.label} ({int(curve['n'].max())} "
                  "runs)", gid=f"mean:{config.label}")
    axes.axhline(0.5, color="black", lw=0.8, ls="--")
    axes.set_ylim(-0.02, 1.02)  # a win rate, and its band, lie within [0, 1]
    axes.set_xlabel("training games" if _x_is_games(study) else "generation")
    axes.set_ylabel("win rate in training (rolling mean)")
    integer_ticks(axes)
    windows = sorted({int(curve["window"].iloc[0]) for curve in curves.values()})
    smoothing = f", rolling mean of {windows[0]} generation{'s' * (windows[0] > 1)}" if len(windows) == 1 else ""
    _title(figure, f"Study {study.name}: training win rate, mean over seeds with its 95% t band{smoothing}")
    axes.grid(alpha=0.3)
    if curves:  # above the axes (constrained layout makes room), never on the curves
        axes.legend(fontsize=8, ncol=2 if len(curves) > 3 else 1, loc="lower center", bbox_to_anchor=(0.5, 1.0),
                    frameon=False)
    return figure


def _title(figure: Figure, title: str) -> None:
    """Titles a figure of constrained layout, broken onto lines that fit its width."""
    text, size, _ = fit_title(title, figure.get_figwidth() - 0.2, 11.0)
    figure.suptitle(text, fontsize=size)


def measures_figure(study: Study, table: pd.DataFrame, summary: pd.DataFrame) -> Figure:
    """Returns one panel per held-out score: each run's score, and each config's mean with its 95% t interval
    (summary.csv's numbers)."""
    names = columns(study.measures)
    figure = Figure(figsize=(max(6.0, 1.1 * len(study.configs) + 2.5), 3.2 * len(names)), layout="constrained")
    panels = np.atleast_1d(figure.subplots(len(names), 1, squeeze=False)[:, 0])
    labels = [config.label for config in study.configs]
    done = table[table["status"] == "done"]
    offsets = np.linspace(-0.18, 0.18, len(study.seeds)) if len(study.seeds) > 1 else np.zeros(1)
    for axes, column in zip(panels, names):
        for position, label in enumerate(labels):
            runs = done[done["config"] == label]
            seeds = [study.seeds.index(seed) for seed in runs["seed"]]
            axes.scatter(position + offsets[seeds], runs[column], s=14, color="0.55", zorder=2,
                         gid=f"runs:{column}:{label}")
        rows = summary[(summary["kind"] == "mean") & (summary["measure"] == column)].set_index("config").loc[labels]
        positions = np.arange(len(labels))
        errors = np.vstack([rows["mean"] - rows["low"], rows["high"] - rows["mean"]])
        axes.errorbar(positions, rows["mean"], yerr=np.nan_to_num(errors), fmt="o", color="black", capsize=5,
                      zorder=3, label=f"means:{column}")
        axes.set_xticks(positions, labels=labels, rotation=30 if len(labels) > 4 else 0, ha="right"
                        if len(labels) > 4 else "center", fontsize=8)
        axes.set_ylabel(column)
        axes.grid(axis="y", alpha=0.3)
    _title(figure, f"Study {study.name}: held-out scores, each run (grey) and the mean with its 95% t interval")
    return figure


def grid_key(study: Study) -> str | None:
    """Returns the one config key the study's configs differ in (a one-key grid), or None."""
    keys = study.differing_keys()
    return keys[0] if len(keys) == 1 and len(study.configs) > 1 else None


def grid_figure(study: Study, table: pd.DataFrame, summary: pd.DataFrame, key: str) -> Figure:
    """Returns each held-out score against the value of the grid's key: the mean with its 95% t interval."""
    section, _, name = key.partition(".")
    values = [getattr(getattr(config.config, section), name) for config in study.configs]
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    x = np.asarray(values, dtype=float) if numeric else np.arange(len(values), dtype=float)
    # Values spread over a factor of 10 or more (rates, sizes) are read on a logarithmic axis.
    logarithmic = numeric and bool(np.all(x > 0)) and x.max() >= 10 * x.min()
    names = columns(study.measures)
    figure = Figure(figsize=(6.5, 3.2 * len(names)), layout="constrained")
    panels = np.atleast_1d(figure.subplots(len(names), 1, squeeze=False)[:, 0])
    labels = [config.label for config in study.configs]
    for axes, column in zip(panels, names):
        rows = summary[(summary["kind"] == "mean") & (summary["measure"] == column)].set_index("config").loc[labels]
        order = np.argsort(x, kind="stable")
        errors = np.vstack([rows["mean"] - rows["low"], rows["high"] - rows["mean"]])
        axes.errorbar(x[order], rows["mean"].to_numpy()[order], yerr=np.nan_to_num(errors[:, order]), fmt="o-",
                      color="black", capsize=5, label=f"grid:{column}")
        if logarithmic:
            axes.set_xscale("log")  # 0.01, 0.03, 0.1: a factor apart each, evenly spaced
            axes.xaxis.set_minor_locator(NullLocator())
        axes.set_xticks(x, labels=[f"{v:g}" if numeric else str(v) for v in values])  # the values the study ran
        axes.set_xlabel(key + (" (logarithmic)" if logarithmic else ""))
        axes.set_ylabel(column)
        axes.grid(alpha=0.3)
    _title(figure, f"Study {study.name}: held-out scores against {key} (mean, 95% t interval)")
    return figure


def _colours(count: int) -> list[tuple[float, ...]]:
    import matplotlib

    colour_map = matplotlib.colormaps["tab10" if count <= 10 else "tab20"]
    return [colour_map(index % colour_map.N) for index in range(count)]


def plot_study(study: Study, study_dir: Path, table: pd.DataFrame, summary: pd.DataFrame) -> list[Path]:
    """Draws the study's figures into its plots/ folder; returns the paths written."""
    out = study_dir / PLOTS
    out.mkdir(exist_ok=True)
    written = [save_figure(curves_figure(study, config_curves(study, study_dir)), out / "curves.png")]
    if study.measures and (table["status"] == "done").any():
        written.append(save_figure(measures_figure(study, table, summary), out / "measures.png"))
        key = grid_key(study)
        if key is not None:
            written.append(save_figure(grid_figure(study, table, summary, key), out / "grid.png"))
    return written
