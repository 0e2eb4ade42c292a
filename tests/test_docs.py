"""The front page and the docs point at things that exist: every relative link
and anchor resolves, and every `ga.x.y` or `engine.x` name they quote imports."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "results" / "reference" / "README.md"]
FENCED = re.compile(r"```.*?```", re.S)
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.M)
# A dotted name in backticks that starts at a package of this project.
DOTTED = re.compile(r"`((?:ga|engine)(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation but - and _ dropped, spaces to -, repeats numbered."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for match in HEADING.finditer(FENCED.sub("", page.read_text(encoding="utf-8"))):
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", match.group(1)).strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def links(page: Path) -> list[str]:
    text = re.sub(r"`[^`\n]*`", "", FENCED.sub("", page.read_text(encoding="utf-8")))
    return [m.group(1) for m in LINK.finditer(text) if not re.match(r"^[a-z]+:", m.group(1))]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    broken = []
    for target in links(page):
        file_part, _, anchor = target.partition("#")
        dest = (page.parent / file_part).resolve() if file_part else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
            broken.append(f"{target}: no such heading")
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"


def test_the_link_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Top part\n\n[ok](#top-part) [bad](#nowhere) [gone](b.md)\n")
    assert anchors(tmp_path / "a.md") == {"top-part"}
    assert links(tmp_path / "a.md") == ["#top-part", "#nowhere", "b.md"]


def resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_quoted_module_name_exists(page: Path) -> None:
    names = {m.group(1) for m in DOTTED.finditer(page.read_text(encoding="utf-8"))}
    missing = sorted(name for name in names if not resolves(name))
    assert not missing, f"{page.relative_to(ROOT)} names what the code does not have: {missing}"


def test_the_name_check_can_fail() -> None:
    assert resolves("ga.games.seeds.game_seeds") and resolves("engine.tables.TABLES")
    assert not resolves("ga.evaluation.evaluate_player") and not resolves("ga.games.seeds.no_such_name")


# A path in backticks under one of the project's top-level folders.
PATH = re.compile(r"`((?:ga|engine|experiments|tests|results)/[\w./-]+\.(?:py|pyx|pxd|toml|csv|md))`")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_quoted_source_path_exists(page: Path) -> None:
    quoted = {m.group(1) for m in PATH.finditer(page.read_text(encoding="utf-8"))}
    missing = sorted(path for path in quoted if not (ROOT / path).exists())
    assert not missing, f"{page.relative_to(ROOT)} quotes files that do not exist: {missing}"


# --- stale facts: what a page lists is what the code has ----------------------------------------------------------


def test_the_help_and_the_package_say_what_the_tool_does_in_one_sentence() -> None:
    # Both said "64 square weights", long after evaluations with features shipped.
    import tomllib

    from click.testing import CliRunner

    from ga.cli import cli

    description = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["description"]
    shown = CliRunner().invoke(cli, ["--help"]).output
    summary = " ".join(shown.split("\n\n")[1].split())
    assert summary == description
    assert "64 square" not in description and "features" in description


def test_config_md_names_every_built_in_table_and_the_fitness_player_rule_once() -> None:
    # It listed five published tables and the runs' two, not deep, paip or engine; and it said "no options" for
    # fitness.player in one place, "no options but end=N" in another.
    from ga.rundir.resolve import builtin_names

    text = (ROOT / "docs" / "config.md").read_text(encoding="utf-8")
    bullet = text[text.index("- `TABLE`:"):text.index("- `eps=E`")]
    missing = [name for name in builtin_names().split(", ") if f"`{name}`" not in bullet]
    assert missing == []
    assert "no options (" not in text and text.count("no options but `end=N`") == 2


def test_the_experiments_table_names_every_experiment_and_their_comments_name_files_that_exist() -> None:
    # config.md listed two of eight experiments; mutation.toml and ablation.toml named experiments/times.toml.
    text = (ROOT / "docs" / "experiments.md").read_text(encoding="utf-8")
    rows = {match.group(1) for match in re.finditer(r"^\| `(?:experiments/)?([\w-]+)\.toml`", text, re.M)}
    assert rows >= {path.stem for path in (ROOT / "experiments").glob("*.toml")}
    for config in sorted((ROOT / "experiments").glob("*.toml")):
        comments = "\n".join(line for line in config.read_text().splitlines() if line.lstrip().startswith("#"))
        for named in re.findall(r"experiments/[\w.-]+\.(?:toml|csv|py)", comments):
            assert (ROOT / named).exists(), f"{config.name} names {named}"


def test_the_shipped_runs_readme_counts_its_runs() -> None:
    text = (ROOT / "results" / "reference" / "README.md").read_text(encoding="utf-8")
    runs = sorted(path.parent.name for path in (ROOT / "results" / "reference").glob("*/manifest.json"))
    words = {2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six"}
    assert text.count(f"{words[len(runs)]} runs shipped") == 1
    assert all(f"`{run}/`" in text for run in runs)
