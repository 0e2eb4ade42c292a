"""The study command: many runs of one or more configs over many seeds, scored held out, with the statistics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ga.cli.errors import EXIT_INTERRUPTED, Command, saved
from ga.files import STDOUT, duration_text, write_output

__all__ = ["study"]


@click.command(cls=Command)
@click.argument("study_path", type=click.Path(path_type=Path), metavar="STUDY")
@click.option("--out", type=click.Path(path_type=Path),
              help="Study directory (default results/<study>-<timestamp>); an existing one of the same study continues.")
@click.option("--jobs", type=click.IntRange(min=0), default=0, show_default=True,
              help="Runs at a time on local processes (0 = one per core); each run's games share the cores left.")
@click.option("--dask", metavar="ADDRESS",
              help="Run on the Dask scheduler at ADDRESS (tcp://HOST:PORT), one run a task, or 'local:N'.")
@click.option("--seeds", metavar="SEEDS", help="Override the study's seeds, e.g. 1-3 (for a quick look).")
@click.option("--generations", type=click.IntRange(min=1), help="Override every run's generations (for a quick look).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def study(study_path: Path, out: Path | None, jobs: int, dask: str | None, seeds: str | None,
          generations: int | None, quiet: bool) -> None:
    """Run the study STUDY (a study file, or a study directory to continue it).

    Every config with every seed is an ordinary run directory under
    STUDY_DIR/runs/; each run's table is scored on the study's held-out
    measures; study.csv, summary.md, summary.csv and plots/ follow. Finished
    runs are skipped, interrupted ones resumed, and scores already played
    kept, so the same command continues a stopped study.
    """
    from ga.config import config_to_dict, config_from_dict
    from ga.evolution.run import timestamped_dir
    from ga.study.layout import is_study_dir
    from ga.study.runner import run_study
    from ga.study.schema import StudyError, load_saved_study, load_study

    if is_study_dir(study_path):
        if out is not None and out.resolve() != study_path.resolve():
            raise StudyError(f"'{study_path}' is a study directory, which continues where it is; drop --out {out}")
        loaded = load_saved_study(study_path, seeds=seeds, generations=generations)
        study_dir = study_path
    else:
        loaded = load_study(study_path, seeds=seeds, generations=generations)
        study_dir = out if out is not None else timestamped_dir(loaded.name)
    if dask is not None:  # a bad address is named as the config names it, before anything is written
        data = config_to_dict(loaded.configs[0].config)
        data["compute"] |= {"backend": "dask", "address": dask}
        config_from_dict(data)
    bar = _Bar(quiet, len(loaded.runs))
    try:
        result = run_study(loaded, study_dir, jobs=jobs, dask=dask, on_run=bar.update)
    except KeyboardInterrupt:
        bar.close()
        click.echo(f"interrupted; the runs' checkpoints are intact; continue with: othello-ga study {study_dir}",
                   err=True)
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
    elapsed = bar.close()
    if result.stopped or not result.finished:
        click.echo(f"stopped with {result.done} of {result.total} runs done (checkpoints saved); "
                   f"continue with: othello-ga study {study_dir}", err=True)
        raise click.exceptions.Exit(EXIT_INTERRUPTED)
    from ga.study.layout import SUMMARY_MD

    text = (study_dir / SUMMARY_MD).read_text(encoding="utf-8")
    with saved(f"the study is finished and saved in {study_dir} (summary.md, study.csv, plots/)"):
        # Written as show writes: a reader that goes away (| head) ends it quietly (141), whatever its length.
        summary = text.split("\n", 2)[2].strip()
        write_output(STDOUT, f"{summary}\n\n{result.total} runs done in {elapsed}; the study in {study_dir} "
                             "(summary.md, study.csv, plots/)\n", force=True)


class _Bar:
    """A tqdm bar over a study's runs, each step a run finished and scored."""

    def __init__(self, quiet: bool, total: int) -> None:
        import time

        from tqdm import tqdm

        self.started = time.perf_counter()
        self.bar: Any = tqdm(total=total, unit="run", disable=quiet, dynamic_ncols=True, desc="study")

    def update(self, outcome: Any, done: int, total: int) -> None:
        self.bar.n = done
        if outcome.scores:
            first = next(iter(outcome.scores.items()))
            counts = first[1]
            score = (counts["wins"] + counts["draws"] / 2) / counts["games"]
            self.bar.set_postfix_str(f"{outcome.label} seed {outcome.seed}: {first[0]} {score:.3f}", refresh=False)
        self.bar.refresh()

    def close(self) -> str:
        import time

        self.bar.close()
        return duration_text(time.perf_counter() - self.started)
