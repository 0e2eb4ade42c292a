"""A study's tables: one row per run (study.csv), and per config each measure's mean, interval and comparisons.

:func:`run_table` gathers what the runs and their scores hold; the
summaries (:func:`means`, :func:`comparisons`) are pure functions of it;
:func:`write_summary` writes study.csv, summary.csv, summary.md and the
figures, and :func:`summarize_study` is ``othello-ga show STUDY_DIR``.
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any

import pandas as pd

from ga.analysis.comparison import CORRECTION, compare, holm, smallest_p
from ga.analysis.stats import mean_interval
from ga.evolution.run import job_seconds
from ga.files import atomic_write
from ga.rundir.lock import holder
from ga.rundir.manifest import read_manifest
from ga.rundir.reader import printable
from ga.study.layout import RUN_COLUMNS, STUDY_CSV, STUDY_FILES, SUMMARY_CSV, SUMMARY_MD, run_dir
from ga.study.measures import columns
from ga.study.schema import Study, load_saved_study, missing_weights
from ga.study.scores import read_scores

__all__ = ["SUMMARY_COLUMNS", "comparisons", "means", "pairs", "run_table", "summarize_study", "summary_frame",
           "summary_markdown", "write_summary"]

#: The columns of summary.csv: a row per config and measure (kind "mean"), then per pair compared ("comparison").
SUMMARY_COLUMNS = ["kind", "measure", "config", "versus", "n", "mean", "half_width", "low", "high", "values",
                   "paired", "test", "statistic", "p", "p_holm"]


def _setting_text(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_setting_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_setting_text(v)}" for k, v in value.items()) + "}"
    return str(value).lower() if isinstance(value, bool) else str(value)


def run_table(study: Study, study_dir: Path) -> pd.DataFrame:
    """Returns study.csv: one row per run (config, seed, the keys the configs differ in, status, generations,
    training games, wall seconds, each score); a run not finished and scored has empty scores."""

    keys = study.differing_keys()
    score_columns = columns(study.measures)
    rows = []
    for config, seed in study.runs:
        settings = {key: _setting_text(value) for key, value in _settings(config.config).items() if key in keys}
        path = run_dir(study_dir, config.label, seed)
        manifest = read_manifest(path, missing_ok=True) if path.is_dir() else {}
        scores = read_scores(study_dir, config.label, seed)
        finished = manifest.get("status") == "finished"
        scored = finished and all(column in scores for column in score_columns)
        row: dict[str, Any] = {"config": config.label, "seed": seed, **settings,
                               "status": "done" if scored else manifest.get("status", "not started"),
                               "generations": manifest.get("generations_done", 0),
                               "games": manifest.get("games_played", 0), "wall_s": round(job_seconds(manifest), 3)}
        for column in score_columns:
            row[column] = scores[column].score if scored else math.nan
        rows.append(row)
    first, rest = RUN_COLUMNS[:2], RUN_COLUMNS[2:]
    return pd.DataFrame(rows, columns=[*first, *keys, *rest, *score_columns])


def _settings(config: Any) -> dict[str, Any]:
    from ga.config import result_settings

    return result_settings(config) | {"experiment.generations": config.experiment.generations}


def _done(table: pd.DataFrame) -> pd.DataFrame:
    return table[table["status"] == "done"]


def _by_config(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Returns each config's rows, sorted by seed: grouped once, so that a study of many configs is summarized in
    time linear in its runs (a filter per config made 2,000 configs take minutes)."""
    if frame.empty:
        return {}
    return {str(label): rows.sort_values("seed") for label, rows in frame.groupby("config", sort=False)}


def means(study: Study, table: pd.DataFrame) -> list[dict[str, Any]]:
    """Returns, per measure and config, the mean over its scored runs with a 95% t interval."""
    rows = []
    groups = _by_config(_done(table))
    empty = pd.DataFrame(columns=table.columns)
    for column in columns(study.measures):
        for config in study.configs:
            values = groups.get(config.label, empty)[column].to_numpy(dtype=float)
            mean, half = mean_interval(values) if values.size else (math.nan, math.nan)
            rows.append({"kind": "mean", "measure": column, "config": config.label, "n": int(values.size),
                         "mean": mean, "half_width": half, "low": mean - half, "high": mean + half,
                         "values": " ".join(f"{v:.6g}" for v in values)})
    return rows


def pairs(study: Study) -> list[tuple[str, str]]:
    """Returns the pairs of configs compared, (first, second): all, each with the first, or each with the one before."""
    labels = [config.label for config in study.configs]
    if study.compare == "first":
        return [(labels[0], label) for label in labels[1:]]
    if study.compare == "consecutive":
        return list(zip(labels, labels[1:]))
    return [(a, b) for i, a in enumerate(labels) for b in labels[i + 1:]]


def comparisons(study: Study, table: pd.DataFrame) -> list[dict[str, Any]]:
    """Returns, per measure, each pair of configs compared: the second minus the first, its interval, the test,
    and the p-values corrected by Holm's method over that measure's pairs.

    Runs are paired by seed when both configs have scored runs of the same seeds.
    """
    rows = []
    groups = _by_config(_done(table))
    for column in columns(study.measures):
        found = []
        for first, second in pairs(study):
            a, b = groups.get(first), groups.get(second)
            if a is None or b is None:
                continue
            paired = list(a["seed"]) == list(b["seed"])
            found.append(compare(first, a[column].to_numpy(dtype=float), second, b[column].to_numpy(dtype=float),
                                 paired=paired))
        for result, adjusted in zip(found, holm([result.p for result in found])):
            rows.append({"kind": "comparison", "measure": column, "config": result.second, "versus": result.first,
                         "n": result.n, "mean": result.difference, "half_width": (result.high - result.low) / 2,
                         "low": result.low, "high": result.high, "paired": result.paired, "test": result.test,
                         "statistic": result.statistic, "p": result.p, "p_holm": adjusted})
    return rows


def summary_frame(study: Study, table: pd.DataFrame) -> pd.DataFrame:
    """Returns summary.csv: the means (kind "mean"), then the comparisons (kind "comparison")."""
    return pd.DataFrame(means(study, table) + comparisons(study, table), columns=SUMMARY_COLUMNS)


def _number(value: float, digits: int = 3) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def _interval(mean: float, half: float) -> str:
    if math.isnan(mean):
        return "-"
    return f"{mean:.3f}" if math.isnan(half) else f"{mean:.3f} ± {half:.3f}"


def _p(value: float) -> str:
    return "-" if math.isnan(value) else (f"{value:.3f}" if value >= 0.001 else f"{value:.1e}")


def summary_markdown(study: Study, table: pd.DataFrame, summary: pd.DataFrame) -> str:
    """Returns summary.md: the study, its progress, the means table and the comparisons table."""
    done = _done(table)
    score_columns = columns(study.measures)
    lines = [f"# Study {study.name}", ""]
    if study.description:
        lines += [study.description, ""]
    lines += [f"{len(done)} of {len(table)} runs finished and scored: {len(study.configs)} configs x "
              f"{len(study.seeds)} seeds ({_seeds_text(study.seeds)}).", ""]
    for measure in study.measures:
        what = f"{measure.protocol}" + (f" vs {', '.join(measure.opponents)}" if measure.opponents else "")
        lines.append(f"- `{measure.name}`: the run's {measure.table} table, {what}, {measure.games:,} games "
                     f"{'(random tables) ' if measure.protocol == 'eu' else ''}per opponent, seed {measure.seed}")
    if study.measures:
        lines.append("")
    described = len({config.config.experiment.description for config in study.configs}) > 1
    lines += ["Each score: mean over the seeds ± the half-width of its 95% t interval, then each seed's score.", "",
              "| config | " + ("description | " if described else "") + "runs | generations | "
              + " | ".join(f"{c} | {c}, each seed" for c in score_columns) + " |",
              "|---" * (3 + described + 2 * len(score_columns)) + "|"]
    mean_rows = summary[summary["kind"] == "mean"]
    mean_of = {(row.config, row.measure): row for row in mean_rows.itertuples()}
    groups = _by_config(done)
    empty = pd.DataFrame(columns=table.columns)
    for config in study.configs:
        runs = groups.get(config.label, empty)
        generations = sorted(set(int(g) for g in runs["generations"])) or [config.config.experiment.generations]
        cells = []
        for column in score_columns:
            row = mean_of[(config.label, column)]
            cells += [_interval(row.mean, row.half_width), ", ".join(f"{v:.3f}" for v in runs[column]) or "-"]
        what = f"{config.config.experiment.description} | " if described else ""
        lines.append(f"| {config.label} | {what}{len(runs)} | {', '.join(map(str, generations))} | "
                     + " | ".join(cells) + " |")
    compared = summary[summary["kind"] == "comparison"]
    if len(compared):
        lines += ["", "## Comparisons", "",
                  "Difference: the config's mean minus the other's, with its 95% t interval (paired by seed when "
                  "both ran the same seeds, Welch's otherwise). Test: two-sided Wilcoxon signed-rank (paired) or "
                  f"Mann-Whitney U. p (Holm): {CORRECTION}.", "",
                  "| measure | config | vs | difference [95% interval] | test | statistic | p | p (Holm) |",
                  "|---|---|---|---|---|---|---|---|"]
        for row in compared.itertuples():
            interval = f"{row.mean:+.3f}" + ("" if math.isnan(row.low) else f" [{row.low:+.3f}, {row.high:+.3f}]")
            lines.append(f"| {row.measure} | {row.config} | {row.versus} | {interval} | {row.test}"
                         f"{' (paired)' if row.paired else ''} | {_number(row.statistic, 1)} | {_p(row.p)} | "
                         f"{_p(row.p_holm)} |")
        lines += _too_few_runs(compared, done)
    return "\n".join(lines) + "\n"


def _too_few_runs(compared: pd.DataFrame, done: pd.DataFrame) -> list[str]:
    """Returns a note for each comparison whose rank test cannot reach p < 0.05 with the runs it has, however large
    the difference (3 seeds: Wilcoxon's smallest p is 0.25), so that its p is not read as a finding."""
    runs = done["config"].value_counts()
    notes = {}
    for row in compared.itertuples():
        first, second = (row.n, row.n) if row.paired else (int(runs.get(row.config, 0)), int(runs.get(row.versus, 0)))
        floor = smallest_p(bool(row.paired), first, second)
        if not floor <= 0.05:
            sizes = f"{first} pairs" if row.paired else f"{first} and {second} runs"
            notes[(row.test, sizes)] = floor
    if not notes:
        return []
    lines = ["", "Too few runs to test: " + "; ".join(
        f"with {sizes} the {test} test's smallest p is {_p(floor)}" for (test, sizes), floor in notes.items())
        + ". It cannot reach 0.05 however large the difference, so its p says nothing here (paired, 6 seeds can); "
          "the intervals still say how large a difference is."]
    return lines


def _seeds_text(seeds: tuple[int, ...]) -> str:
    """Returns seeds as ranges: 1-3, 7."""
    parts, start = [], None
    ordered = list(seeds)
    for index, seed in enumerate(ordered):
        if start is None:
            start = seed
        if index + 1 == len(ordered) or ordered[index + 1] != seed + 1:
            parts.append(str(start) if start == seed else f"{start}-{seed}")
            start = None
    return ", ".join(parts)


def _csv(frame: pd.DataFrame) -> str:
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False, float_format="%.10g")
    return buffer.getvalue()


def write_summary(study: Study, study_dir: Path) -> list[Path]:
    """Writes study.csv, summary.csv, summary.md and the figures; returns the paths written."""
    from ga.study.figures import plot_study

    table = run_table(study, study_dir)
    summary = summary_frame(study, table)
    atomic_write(study_dir / STUDY_CSV, _csv(table))
    atomic_write(study_dir / SUMMARY_CSV, _csv(summary))
    atomic_write(study_dir / SUMMARY_MD, summary_markdown(study, table, summary))
    return [study_dir / STUDY_CSV, study_dir / SUMMARY_CSV, study_dir / SUMMARY_MD,
            *plot_study(study, study_dir, table, summary)]


def summarize_study(study_dir: Path) -> str:
    """Returns a terminal summary of a study directory: progress, where its files are, and its summary table.

    :raises StudyError: if it is not a study directory or its files are damaged.
    """
    # What the runs hold is shown even when a weights file the configs' opponents play is gone: it is said
    # beside the rest, as what stops the study from going on.
    study = load_saved_study(study_dir, check_weights=False)
    table = run_table(study, study_dir)
    summary = summary_frame(study, table)
    writer = holder(study_dir)
    counts = table["status"].value_counts()
    progress = ", ".join(f"{count} {status}" for status, count in counts.items())
    lines = [f"Study {study_dir}", f"  name          {study.name}",
             f"  status        {'live, being run by process ' + str(writer) if writer else 'not running'}",
             f"  runs          {progress} (of {len(table)})"]
    problems = missing_weights(study)
    lines += [f"  missing       {problem}" for problem in problems]
    if problems:
        lines.append("                (shown as it stands; `othello-ga study` takes it up again once they are back)")
    lines += ["", "Files"]
    for name, description in STUDY_FILES.items():
        if (study_dir / name).exists():
            lines.append(f"  {str(study_dir / name):<{len(str(study_dir)) + 14}}  {description}")
    body = summary_markdown(study, table, summary)
    text = "\n".join(lines) + "\n\n" + body.split("\n", 2)[2]
    return "\n".join(printable(line) for line in text.split("\n"))  # a path or a description is shown, not obeyed

