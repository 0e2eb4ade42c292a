"""experiments/times.csv, the one place that says how long each experiment takes, against the configs and pages."""

from __future__ import annotations

import shutil
from pathlib import Path

from test_experiments import ROOT, load_script

times = load_script("times")


def test_every_experiment_has_a_time_measured_on_its_config_and_every_page_quotes_it() -> None:
    assert times.problems() == []


def test_each_entry_is_quoted_as_its_rounded_wall_time_with_its_cpu_time() -> None:
    entries = times.load_times()
    for name, entry in entries.items():
        assert entry["wall_s"] >= entry["cpu_s"] / times.CORES, name  # 2 cores cannot beat the CPU time
        assert entry["load_before"] >= 0 and entry["load_after"] >= 0 and entry["measured"], name
    assert times.claim({"wall_s": 512.2}) == "about 9 min" and times.claim({"wall_s": 2.96}) == "about 3 s"
    assert times.claim({"wall_s": 89.0}) == "about 89 s" and times.claim({"wall_s": 95.0}) == "about 2 min"
    assert times.cpu_text({"cpu_s": 1576.8}) == "1,577 s of CPU"


def test_the_check_finds_a_page_that_disagrees_a_changed_config_and_an_experiment_without_a_time(
        tmp_path: Path) -> None:
    shutil.copytree(ROOT / "experiments", tmp_path / "experiments", ignore=shutil.ignore_patterns("*.py", "__*"))
    (tmp_path / "docs").mkdir()  # (its pages quote no time)
    (tmp_path / "results" / "reference").mkdir(parents=True)
    entry, quick = times.load_times()["strong"], times.claim(times.load_times()["quick"])
    (tmp_path / "README.md").write_text(
        f"The main job, `experiments/strong.toml` ({times.claim(entry)} on 2 cores, {times.cpu_text(entry)}).\n"
        "`deep.toml` trains at depths 1-4 (about 1 min), then refines.\n"
        "Unrelated: about 3 min for something else.\n"
        f"`quick.toml` takes {quick} (one took 1 min 12 s).\n"
        "A variant of `quick.toml` took 2 min 5 s.\n")
    config = tmp_path / "experiments" / "quick.toml"
    config.write_text(config.read_text().replace("generations = 10", "generations = 11"))
    (tmp_path / "experiments" / "new.toml").write_text("[experiment]\nname = 'new'\n")
    found = times.problems(tmp_path)
    assert len(found) == 4, found
    assert found[0].startswith("experiments/new.toml has no entry in experiments/times.csv")
    assert found[1].startswith("experiments/times.csv [quick]: what it plays changed since it was measured")
    deep = times.claim(times.load_times()["deep"])
    assert found[2] == f"README.md:2 says 'about 1 min' for deep; experiments/times.csv says {deep!r}"
    assert found[3].startswith("README.md:4 says '1 min 12 s' for quick; quote experiments/times.csv's")


# --- one source per fact: the front page quotes the pages that measured it ----------------------------------------

import re  # noqa: E402

import pandas as pd  # noqa: E402


def quoted(page: str, pattern: str) -> list[str]:
    """Returns every figure ``pattern`` (one group) finds on a page of the repository."""
    return re.findall(pattern, (ROOT / page).read_text(encoding="utf-8"))


def test_the_readme_quotes_the_measured_ffo_and_test_suite_times() -> None:
    # The README said 47 s for FFO #1-#39 where docs/search.md measured 50.2 s, and 4 minutes for the tests
    # where docs/testing.md said 3.5.
    (ffo,) = quoted("docs/search.md", r"endgame FFO #1-#39 +([\d.]+) s")
    assert quoted("README.md", r"#1-#39 in about (\d+) s") == [str(round(float(ffo)))]
    (suite,) = quoted("docs/testing.md", r"about ([\d.]+) minutes on the 2-core machine")
    assert quoted("README.md", r"The tests \(about ([\d.]+) minutes") == [suite]


def test_the_readme_tables_are_the_shipped_csvs() -> None:
    # Every cell of the README's headline tables is the shipped CSV's, rounded: one source.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ladder = pd.read_csv(ROOT / "results" / "reference" / "engine_ladder.csv")
    for opponent, rows in ladder.groupby("opponent", sort=False):
        cells = " | ".join(f"{score:.3f}" for score in rows.sort_values("depth")["score"])
        assert re.search(rf"^\| {opponent} [^|]*\| {re.escape(cells)} \|$", readme, re.M), opponent
    patterns = pd.read_csv(ROOT / "results" / "reference" / "patterns_ladder.csv")
    cells = " | ".join(f"{score:.3f}" for score in patterns["score"])  # depths 1-4, in order
    assert re.search(rf"^\| engine [^|]*\| {re.escape(cells)} \|$", readme, re.M)
    league = pd.read_csv(ROOT / "results" / "reference" / "patterns_league.csv")
    assert f"from {league['score'].min():.3f}" in readme and f"to {league['score'].max():.3f}" in readme
    held = pd.read_csv(ROOT / "results" / "reference" / "heldout.csv").set_index("table")
    first_cells = {line.split("|")[1].replace("*", "").strip(): line for line in readme.splitlines()
                   if line.startswith("| ")}
    for label, table in (("patterns.toml (a pattern network)", "patterns.toml (ours: a pattern network)"),
                         ("engine.toml (squares and features)", "engine.toml (ours: squares and features)"),
                         ("strong.toml (table)", "strong.toml (ours)"),
                         ("deep.toml (table)", "deep.toml (ours, for engines that search)"),
                         ("lr06", "lr06 (Lucas & Runarsson 2006)"),
                         ("seed2021.toml (the blog's GA)", "seed2021.toml (the blog's GA)")):
        row = held.loc[table]
        cells = [f"{row[c]:.3f} [{row[c + '_low']:.3f}, {row[c + '_high']:.3f}]"
                 for c in ("league_heuristic", "league_lr06", "vs_random")]
        assert [cell.replace("*", "").strip() for cell in first_cells[label].split("|")[2:5]] == cells, label
