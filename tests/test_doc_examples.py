"""The examples the docs show are what the commands print: each one marked for checking is run and compared.

A page marks an example by an HTML comment on the line before its fenced
block (invisible on GitHub and in a rendered site)::

    <!-- checked -->
    ```
    $ othello-ga show results/reference/seed2021
    Run results/reference/seed2021
    ...
    ```

Each ``$ `` line is a command run from the repository's root (``othello-ga``
is this checkout's command line; ``python`` this interpreter), its standard
output and error together, in the order printed; the lines up to the next
``$ `` line are what it must print. In the expected text a line ``...``
stands for any lines (none included), and ``...`` within a line for any text
on that line, as doctest's ELLIPSIS. A command must end with exit code 0
unless the comment says ``<!-- checked: exit N -->``. So an example cannot
drift from the command: change what a command prints, and the page that
shows it fails here until it shows the new text.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "results" / "reference" / "README.md"]
#: The mark: an HTML comment alone on the line before a fenced block, with options after a colon.
MARK = re.compile(r"^<!-- checked(?::\s*(?P<options>[^>]*?))?\s*-->\n```[^\n]*\n(?P<body>.*?)^```", re.M | re.S)


@dataclass(frozen=True)
class Example:
    """One command of a marked block and what it must print."""

    page: str
    line: int
    command: str
    expected: str
    exit_code: int = 0

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def examples(page: Path) -> list[Example]:
    """Returns the commands of a page's marked blocks, each with the output it shows."""
    text = page.read_text(encoding="utf-8")
    name = str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else page.name
    found = []
    for block in MARK.finditer(text):
        options = dict(re.findall(r"(\w+)\s+(\S+)", block.group("options") or ""))
        start = text.count("\n", 0, block.start("body")) + 1
        lines = block.group("body").splitlines()
        commands = [index for index, line in enumerate(lines) if line.startswith("$ ")]
        if not commands or commands[0] != 0:
            raise ValueError(f"{name}:{start}: a checked block starts with a '$ ' command line")
        for index, end in zip(commands, commands[1:] + [len(lines)]):
            found.append(Example(name, start + index, lines[index][2:], "\n".join(lines[index + 1:end]),
                                 int(options.get("exit", 0))))
    return found


def pattern(expected: str) -> re.Pattern[str]:
    """Returns the regular expression of an expected output: ``...`` alone on a line matches any lines, within a
    line any text on it."""
    parts = []
    for line in expected.splitlines():
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(piece) for piece in line.split("...")) + r"\n")
    return re.compile("".join(parts))


def matches(expected: str, printed: str) -> bool:
    """Says whether a command printed what an example shows (trailing spaces aside)."""
    printed = "\n".join(line.rstrip() for line in printed.splitlines()) + "\n"
    expected = "\n".join(line.rstrip() for line in expected.splitlines())
    return pattern(expected).fullmatch(printed) is not None


def run(example: Example) -> subprocess.CompletedProcess[str]:
    """Runs an example's command from the repository's root, standard error into standard output."""
    words = shlex.split(example.command)
    program = {"othello-ga": [sys.executable, "-m", "ga.cli"], "python": [sys.executable]}[words[0]]
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"}
    return subprocess.run([*program, *words[1:]], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, env=environment, timeout=300)


ALL = [example for page in PAGES for example in examples(page)]


def test_the_docs_mark_examples_to_check() -> None:
    assert len({example.page for example in ALL}) >= 2 and len(ALL) >= 4, [str(e) for e in ALL]


@pytest.mark.parametrize("example", ALL, ids=str)
def test_a_documented_example_is_what_its_command_prints(example: Example) -> None:
    done = run(example)
    assert done.returncode == example.exit_code, done.stdout
    assert matches(example.expected, done.stdout), (
        f"{example}: `{example.command}` prints\n{done.stdout}\nwhere the page shows\n{example.expected}")


def test_the_check_can_fail(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("Text.\n\n<!-- checked: exit 2 -->\n```\n$ othello-ga show nowhere\nothello-ga: error: ...\n"
                    "$ python -c \"print('a'); print('b'); print('c')\"\na\n...\n```\n\n```\n$ not checked\n```\n")
    first, second = examples(page)
    assert (first.command, first.exit_code, first.line) == ("othello-ga show nowhere", 2, 5)
    assert matches(first.expected, "othello-ga: error: 'nowhere' does not exist\n")
    assert not matches(first.expected, "othello-ga: error: one\ntwo\n")  # an inline ... stays on its line
    assert matches(second.expected, "a\nb\nc\n") and matches(second.expected, "a\n")
    assert not matches(second.expected, "b\nc\n")
    assert not matches("a\nb", "a\nb\nc\n")  # every line printed is shown, or stood for by ...
    assert run(second).stdout == "a\nb\nc\n"
