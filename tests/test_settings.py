"""Every documented setting is shown to take effect, by value.

A run that finishes, or two runs that agree, shows nothing about a setting. So
each config key (``section.key``) and each command option (``command --option``)
must be named by a test marked ``@pytest.mark.shows(...)`` that checks what the
setting does: a count, a distribution within its confidence bounds, an exact
hand-computed value, a changed game. This test lists the config schema and the
options of every command and fails on any that no such test names, and on a
marker that names something that does not exist.
"""

from __future__ import annotations

import ast
from pathlib import Path

import attrs
import click

from ga.cli import cli
from ga.config import SECTIONS

TESTS = Path(__file__).resolve().parent


def config_keys() -> set[str]:
    return {f"{section}.{field.name}" for section, schema in SECTIONS.items() for field in attrs.fields(schema)}


def command_options() -> set[str]:
    return {f"{name} {max(param.opts, key=len)}" for name, command in cli.commands.items()
            for param in command.params if isinstance(param, click.Option)}


def _is_shows(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return isinstance(target, ast.Attribute) and target.attr == "shows" and ast.unparse(target).endswith("mark.shows")


def shown() -> dict[str, list[str]]:
    """Returns each setting named by a ``shows`` marker, with the tests that name it."""
    found: dict[str, list[str]] = {}
    for path in sorted(TESTS.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for decorator in node.decorator_list:
                if isinstance(decorator, ast.Call) and _is_shows(decorator):
                    for argument in decorator.args:
                        found.setdefault(ast.literal_eval(argument), []).append(f"{path.name}::{node.name}")
    return found


def test_every_config_key_and_command_option_has_a_by_value_test() -> None:
    missing = sorted((config_keys() | command_options()) - shown().keys())
    assert not missing, f"{len(missing)} settings have no test marked @pytest.mark.shows(...): {missing}"


def test_every_marker_names_a_real_setting() -> None:
    unknown = {name: tests for name, tests in shown().items() if name not in config_keys() | command_options()}
    assert not unknown, f"markers name settings that do not exist: {unknown}"


def test_the_inventory_is_complete() -> None:
    """The lists this test checks against are the real ones (a check that could fail if they were empty)."""
    keys, options = config_keys(), command_options()
    assert {"fitness.colours", "population.size", "refine.weight_random_tables", "output.checkpoint_seconds"} <= keys
    assert {"evolve --seed", "export --round", "evaluate --protocol", "play --black"} <= options
    assert len(keys) >= 50 and len(options) >= 40
