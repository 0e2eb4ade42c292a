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
    entry = times.load_times()["strong"]
    (tmp_path / "README.md").write_text(
        f"The main job, `experiments/strong.toml` ({times.claim(entry)} on 2 cores, {times.cpu_text(entry)}).\n"
        "`deep.toml` trains at depths 1-4 (about 1 min), then refines.\n"
        "Unrelated: about 3 min for something else.\n")
    config = tmp_path / "experiments" / "quick.toml"
    config.write_text(config.read_text().replace("generations = 10", "generations = 11"))
    (tmp_path / "experiments" / "new.toml").write_text("[experiment]\nname = 'new'\n")
    found = times.problems(tmp_path)
    assert len(found) == 3, found
    assert found[0].startswith("experiments/new.toml has no entry in experiments/times.csv")
    assert found[1].startswith("experiments/times.csv [quick]: what it plays changed since it was measured")
    deep = times.claim(times.load_times()["deep"])
    assert found[2] == f"README.md:2 says 'about 1 min' for deep; experiments/times.csv says {deep!r}"
