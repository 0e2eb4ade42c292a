"""A study file: its configs, its seeds and its held-out measures, validated in full before anything runs.

A study file is TOML::

    [study]
    name = "tournament-size"        # default: the file's stem
    seeds = "1-10"                  # "1-20", "1,3,5-7" or [1, 2, 3]
    max_runs = 100                  # a study of more runs is refused before it starts
    compare = "all"                 # the pairs of configs compared: all, first (each with the first), consecutive

    [grid]                          # one base config and a grid of overrides: one config per combination
    base = "seed2021.toml"
    values = { selection.tournament_size = [2, 3, 5] }

    [[configs]]                     # and/or configs one by one: a file, or another config of the study, and overrides
    label = "elites"
    file = "seed2021.toml"
    set = { selection.elitism = 2 }

    [[measures]]                    # the held-out scores of each run's table
    name = "league"
    protocol = "league"
    games = 2000
    seed = 3

The schema is the attrs classes below, structured by cattrs strictly (no
unknown key, no wrong type); every problem is one :class:`StudyError` line
naming the dotted key (``study key 'measures[1].protocl' is not known; did
you mean 'protocol'?``). Each config is a whole experiment checked by
:mod:`ga.config`, its errors prefixed with the study key that made it.
:func:`load_study` is the only function here that reads files.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import math
import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

import attrs
import cattrs
import tomli_w
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError
from cattrs.gen import make_dict_structure_fn

from ga.config import (
    Config, ConfigError, config_from_dict, config_to_dict, config_to_toml, load_config, read_toml, result_settings,
)
from ga.evolution.fitness import games_per_generation
from ga.study.layout import CONFIGS, RUN_COLUMNS, STUDY, check_label, check_name, config_file
from ga.study.measures import Measure, measure_problem

__all__ = ["COMPARE", "Study", "StudyConfig", "StudyError", "load_saved_study", "load_study", "parse_seeds", "study_toml"]

Compare = Literal["all", "first", "consecutive"]
COMPARE: tuple[str, ...] = get_args(Compare)
_MAX_SEED = 2**63 - 1
#: The most seeds a study names, runs a study holds and configs it compares every pair of: beyond them a study
#: is refused as it is read (60 ranges of a million seeds took 3.4 GB before naming no reason; a grid of a
#: million configs took minutes to check; all pairs of 2,000 configs minutes to summarize).
MAX_SEEDS = 100_000
MAX_RUNS = 100_000
MAX_CONFIGS = 10_000
MAX_PAIRS = 10_000
#: The largest study.toml or config file of a study directory read back.
MAX_STUDY_BYTES = 16 * 2**20


class StudyError(ValueError):
    """A study file or value is unusable; the message is one line naming the key."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))


class _Wrong(ValueError):
    """A value a field refuses; the message says why, the caller adds the key."""


class Seeds(tuple[int, ...]):
    """The seeds of a study, from ``"1-20"``, ``"1,3,5-7"`` or an array of integers."""


def parse_seeds(value: object) -> Seeds:
    """Returns the seeds that ``value`` names, in order: ``"1-3,7"`` is 1, 2, 3, 7.

    >>> parse_seeds("1-3,7"), parse_seeds([5, 2])
    ((1, 2, 3, 7), (5, 2))

    :raises ValueError: for anything else, a seed out of range or one named twice.
    """
    if isinstance(value, str):
        seeds: list[int] = []
        ranges = []
        for part in value.split(","):
            match = re.fullmatch(r"\s*(\d{1,19})\s*(?:-\s*(\d{1,19})\s*)?", part)
            if match is None:
                raise _Wrong(f"must be seeds like \"1-20\" or \"1,3,5-7\", got {value[:100]!r}")
            first, last = int(match.group(1)), int(match.group(2) or match.group(1))
            if last < first:
                raise _Wrong(f"has a range that runs backwards ({part.strip()!r}); write it low-high")
            ranges.append((first, last))
        count = sum(last - first + 1 for first, last in ranges)  # counted before any list is made
        if count > MAX_SEEDS:
            raise _Wrong(f"names {count:,} seeds, more than a study runs ({MAX_SEEDS:,}); a study runs a few dozen")
        for first, last in ranges:
            seeds += range(first, last + 1)
    elif isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        if len(value) > MAX_SEEDS:
            raise _Wrong(f"names {len(value):,} seeds, more than a study runs ({MAX_SEEDS:,})")
        seeds = list(value)
    else:
        raise _Wrong(f"must be a string like \"1-20\" or an array of integers, got {_describe(value)}")
    if not seeds:
        raise _Wrong("must name at least one seed, e.g. \"1-10\"")
    for seed in seeds:
        if not 0 <= seed <= _MAX_SEED:
            raise _Wrong(f"must be seeds between 0 and 2**63 - 1, got {seed}")
    repeated = next((seed for seed, count in _counts(seeds) if count > 1), None)
    if repeated is not None:
        raise _Wrong(f"names seed {repeated} twice")
    return Seeds(seeds)


def _counts(values: Sequence[int]) -> list[tuple[int, int]]:
    seen: dict[int, int] = {}
    for value in values:
        seen[value] = seen.get(value, 0) + 1
    return list(seen.items())


# --- the schema ---------------------------------------------------------------------------------


@attrs.frozen
class StudySection:
    """[study]: the study's name, seeds and size."""

    name: str = ""
    description: str = ""
    seeds: Seeds = Seeds()
    max_runs: int = 1000
    budget: int = 0  # games per run: each config's generations = budget // its games per generation (0: its own)
    generations: int = 0  # every run's generations (0: its config's, or budget's)
    compare: Compare = "all"


@attrs.frozen
class ConfigEntry:
    """[[configs]]: a config of the study, a file or another config of the study, with overrides."""

    label: str = ""
    file: str = ""
    extends: str = ""
    description: str = ""  # what the config is (its experiment.description); shown in the summary
    set: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen
class GridSection:
    """[grid]: a base config and the values of some of its keys; a config per combination."""

    base: str = ""
    set: dict[str, Any] = attrs.Factory(dict)
    values: dict[str, Any] = attrs.Factory(dict)


@attrs.frozen
class StudyFile:
    """A whole study file, as written."""

    study: StudySection = attrs.Factory(StudySection)
    configs: tuple[ConfigEntry, ...] = ()
    grid: GridSection | None = None
    measures: tuple[Measure, ...] = ()


def _describe(value: object) -> str:
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"{type(value).__name__} {value!r}"
    if isinstance(value, str):
        return f"string {value[:40]!r}"
    if isinstance(value, Mapping):
        return "table"
    if isinstance(value, (list, tuple)):
        return f"array of {len(value)} items"
    return type(value).__name__


def _scalar(kind: type, what: str) -> Callable[[object, type], Any]:
    def structure(value: object, _: type) -> Any:
        if isinstance(value, bool) != (kind is bool) or not isinstance(value, kind):
            raise _Wrong(f"must be {what}, got {_describe(value)}")
        if isinstance(value, str) and "\x00" in value:
            raise _Wrong("must not contain a NUL character")
        return value
    return structure


def _array(item: Callable[[object, type], Any], what: str) -> Callable[[object, type], tuple[Any, ...]]:
    def structure(value: object, _: type) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise _Wrong(f"must be an array of {what}, got {_describe(value)}")
        items = []
        for index, entry in enumerate(value):
            try:
                items.append(item(entry, object))
            except _Wrong as error:
                raise _Wrong(f"[{index}] {error}") from None
        return tuple(items)
    return structure


def _table(value: object, _: type) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise _Wrong(f"must be a table of config keys, e.g. {{ selection.elitism = 2 }}, got {_describe(value)}")
    return dict(value)


def _choice(choices: Sequence[str]) -> Callable[[object, type], str]:
    def structure(value: object, _: type) -> str:
        if not isinstance(value, str) or value not in choices:
            shown = repr(value) if isinstance(value, str) else _describe(value)
            raise _Wrong(f"unknown value {shown}; expected one of {', '.join(choices)}")
        return value
    return structure


def _converter() -> cattrs.Converter:
    converter = cattrs.Converter(forbid_extra_keys=True, detailed_validation=True)
    integer, text = _scalar(int, "an integer"), _scalar(str, "a string")
    converter.register_structure_hook(int, integer)
    converter.register_structure_hook(str, text)
    converter.register_structure_hook_func(lambda t: t is Seeds, lambda value, _: parse_seeds(value))
    converter.register_structure_hook_func(lambda t: t == dict[str, Any], _table)
    converter.register_structure_hook_func(lambda t: t == Compare, _choice(COMPARE))
    converter.register_structure_hook_func(lambda t: t == tuple[str, ...], _array(text, "strings"))
    converter.register_structure_hook_func(lambda t: t == tuple[int, ...], _array(integer, "integers"))
    for cls in (StudySection, ConfigEntry, GridSection, Measure):
        generated = make_dict_structure_fn(cls, converter, _cattrs_forbid_extra_keys=True)
        converter.register_structure_hook(cls, _section(generated, cls))
    converter.register_structure_hook_func(
        lambda t: t == tuple[ConfigEntry, ...] or t == tuple[Measure, ...], _entries(converter))
    converter.register_structure_hook_func(lambda t: t == GridSection | None,
                                           lambda value, _: converter.structure(value, GridSection))
    return converter


def _section(generated: Callable[[Any, type], Any], cls: type) -> Callable[[object, type], Any]:
    def structure(value: object, _: type) -> Any:
        if not isinstance(value, Mapping):
            raise _Wrong(f"must be a table, got {_describe(value)}")
        return generated(value, cls)
    return structure


def _entries(converter: cattrs.Converter) -> Callable[[object, Any], tuple[Any, ...]]:
    def structure(value: object, kind: Any) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise _Wrong(f"must be an array of tables ([[...]]), got {_describe(value)}")
        item = kind.__args__[0]
        found = []
        for index, entry in enumerate(value):
            try:
                found.append(converter.structure(entry, item))
            except (ClassValidationError, _Wrong) as error:
                raise _At(f"[{index}]", error) from None
        return tuple(found)
    return structure


class _At(ValueError):
    """A problem below the current key (``[2]``), carried up to be named whole."""

    def __init__(self, where: str, error: BaseException) -> None:
        super().__init__(str(error))
        self.where, self.error = where, error


_CONVERTER = _converter()


def _message(error: BaseException, key: str) -> str:
    """Returns the one-line message of the first problem inside a (nested) cattrs error, naming its key."""
    if isinstance(error, ClassValidationError):
        inner = error.exceptions[0]
        note = next((n for n in getattr(inner, "__notes__", []) if hasattr(n, "name")), None)
        return _message(inner, f"{key}.{note.name}" if note is not None else key)
    if isinstance(error, IterableValidationError):
        return _message(error.exceptions[0], key)
    if isinstance(error, _At):
        return _message(error.error, key + error.where)
    if isinstance(error, ForbiddenExtraKeysError):
        known = [field.name for field in attrs.fields(error.cl)]
        return _unknown(key, sorted(map(str, error.extra_fields))[0], known)
    text = str(error)
    if text.startswith("["):  # an item of an array: the index belongs to the key
        index, _, text = text.partition(" ")
        key += index
    return f"study key '{key}': {text}" if text.startswith("unknown value") else f"study key '{key}' {text}"


def _unknown(prefix: str, key: str, known: Sequence[str]) -> str:
    dotted = f"{prefix}.{key}" if prefix else key
    close = difflib.get_close_matches(key, known, n=1)
    if close:
        return f"study key '{dotted}' is not known; did you mean '{f'{prefix}.{close[0]}' if prefix else close[0]}'?"
    return f"study key '{dotted}' is not known; {f'[{prefix}] takes' if prefix else 'the sections are'} {', '.join(known)}"


def study_file_from_dict(data: Mapping[str, Any]) -> StudyFile:
    """Returns the study file ``data`` (as read from TOML) in the schema, defaults filled in.

    :raises StudyError: naming the first unknown key, wrong type or bad value.
    """
    known = [field.name for field in attrs.fields(StudyFile)]
    for key in data:
        if key not in known:
            raise StudyError(_unknown("", str(key), known))
    parts: dict[str, Any] = {}
    for field in attrs.fields(attrs.resolve_types(StudyFile)):
        if field.name in data:
            try:
                parts[field.name] = _CONVERTER.structure(data[field.name], field.type)
            except (ClassValidationError, _Wrong, _At) as error:
                raise StudyError(_message(error, field.name)) from None
    return StudyFile(**parts)


# --- the study as it runs -----------------------------------------------------------------------


@dataclass(frozen=True)
class StudyConfig:
    """A config of a study: its label and the whole experiment its runs share (their seeds aside)."""

    label: str
    config: Config


@dataclass(frozen=True)
class Study:
    """A study resolved: its configs in full, its seeds and measures. Its runs are every config with every seed."""

    name: str
    description: str
    seeds: tuple[int, ...]
    configs: tuple[StudyConfig, ...]
    measures: tuple[Measure, ...]
    compare: str = "all"
    max_runs: int = 1000

    @property
    def runs(self) -> list[tuple[StudyConfig, int]]:
        """Returns every run: each config with each seed, config by config."""
        return [(config, seed) for config in self.configs for seed in self.seeds]

    def run_config(self, config: StudyConfig, seed: int) -> Config:
        """Returns the experiment of one run: its config with its seed."""
        data = config_to_dict(config.config)
        data["experiment"]["seed"] = seed
        return config_from_dict(data)

    def difference(self, other: Study) -> str | None:
        """Returns the first thing in which ``other`` would run differently from this study, or None."""
        if self.seeds != other.seeds:
            return f"seeds {list(self.seeds)} there, {list(other.seeds)} here"
        if [c.label for c in self.configs] != [c.label for c in other.configs]:
            return f"configs {[c.label for c in self.configs]} there, {[c.label for c in other.configs]} here"
        for mine, theirs in zip(self.configs, other.configs):
            there, here = _run_settings(mine.config), _run_settings(theirs.config)
            key = next((k for k in sorted(set(there) | set(here)) if there.get(k) != here.get(k)), None)
            if key is not None:
                return f"config {mine.label!r}: {key} = {there.get(key)!r} there, {here.get(key)!r} here"
        if self.measures != other.measures:
            return "its measures differ"
        return None

    def differing_keys(self) -> list[str]:
        """Returns the config keys whose values differ between the study's configs (the columns of study.csv)."""
        settings = [_run_settings(config.config) for config in self.configs]
        keys = sorted(set().union(*settings)) if settings else []
        return [key for key in keys if key != "experiment.seed" and len({repr(s.get(key)) for s in settings}) > 1]


def _run_settings(config: Config) -> dict[str, Any]:
    """Returns what decides a study's run of a config: its result settings and its length."""
    return result_settings(config) | {"experiment.generations": config.experiment.generations}


def _flatten(table: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Returns overrides as ``{"section.key": value}``, from nested tables or quoted dotted keys."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        if "." in key:
            section, _, name = key.partition(".")
            flat[f"{section}.{name}"] = value
        elif isinstance(value, Mapping):
            for name, inner in value.items():
                flat[f"{key}.{name}"] = inner
        else:
            raise StudyError(f"study key '{where}.{key}' must be a config key section.key, e.g. "
                             f"selection.elitism = 2, got {_describe(value)}")
    return flat


def _overridden(config: Config, overrides: Mapping[str, Any], where: str, base_dir: Path) -> Config:
    """Returns ``config`` with ``overrides`` applied, checked as a whole experiment."""
    data: dict[str, Any] = config_to_dict(config)
    for key, value in overrides.items():
        section, _, name = key.partition(".")
        data.setdefault(section, {})
        if isinstance(data[section], dict):
            data[section][name] = value
    try:
        return config_from_dict(data, base_dir=base_dir)
    except ConfigError as error:
        raise StudyError(f"study key '{where}': {error}") from None


def _load_config(file: str, where: str, base_dir: Path) -> Config:
    path = Path(file) if Path(file).is_absolute() else base_dir / file
    try:
        return load_config(path)
    except ConfigError as error:
        raise StudyError(f"study key '{where}': {error}") from None


def _label_value(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def resolve(written: StudyFile, *, name: str, base_dir: Path, seeds: Sequence[int] | None = None,
            generations: int | None = None) -> Study:
    """Returns the study a study file describes: every config in full, checked; seeds and generations overridden.

    :raises StudyError: naming the study key behind the first problem.
    """
    section = written.study
    for key in ("max_runs", "budget", "generations"):
        value = getattr(section, key)
        if value < (1 if key == "max_runs" else 0):
            raise StudyError(f"study key 'study.{key}' must be at least {1 if key == 'max_runs' else 0}, got {value}")
    if section.max_runs > MAX_RUNS:
        raise StudyError(f"study key 'study.max_runs' must be at most {MAX_RUNS:,} (a study of more runs is refused "
                         f"before it starts), got {section.max_runs:,}")
    problem = check_name(section.name or name)
    if problem is not None:
        where = "study.name" if section.name else "study.name (default: the study file's name)"
        raise StudyError(f"study key '{where}' {problem}")
    if generations is not None and generations < 1:
        raise StudyError(f"--generations must be at least 1, got {generations}")
    chosen_seeds = tuple(seeds) if seeds is not None else tuple(section.seeds)
    if not chosen_seeds:
        raise StudyError("study key 'study.seeds' must name the runs' seeds, e.g. seeds = \"1-10\"")
    if not written.configs and written.grid is None:
        raise StudyError("study key 'configs' must list at least one config (or give a [grid]), "
                         "e.g. [[configs]] file = \"seed2021.toml\"")
    configs: list[tuple[str, Config]] = []
    for index, entry in enumerate(written.configs):
        where = f"configs[{index}]"
        if bool(entry.file) == bool(entry.extends):
            raise StudyError(f"study key '{where}' needs file (a config file) or extends (the label of a config "
                             f"before it), one of the two")
        if entry.extends:
            earlier = dict(configs)
            if entry.extends not in earlier:
                close = difflib.get_close_matches(entry.extends, list(earlier), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else f"; the configs before it are {', '.join(earlier) or 'none'}"
                raise StudyError(f"study key '{where}.extends': no config {entry.extends!r} before it{hint}")
            base = earlier[entry.extends]
        else:
            base = _load_config(entry.file, f"{where}.file", base_dir)
        label = entry.label or (Path(entry.file).stem if entry.file else "")
        overrides = _flatten(entry.set, f"{where}.set")
        if entry.description:
            overrides["experiment.description"] = entry.description
        configs.append((label, _overridden(base, overrides, f"{where}.set", base_dir)))
        _check_new_label(label, f"{where}.label", [name for name, _ in configs[:-1]])
    if written.grid is not None:
        grid = written.grid
        if not grid.base:
            raise StudyError("study key 'grid.base' must name the grid's base config file, e.g. base = \"seed2021.toml\"")
        base = _overridden(_load_config(grid.base, "grid.base", base_dir), _flatten(grid.set, "grid.set"), "grid.set",
                           base_dir)
        values = _flatten(grid.values, "grid.values")
        if not values:
            raise StudyError("study key 'grid.values' must give at least one key's values, "
                             "e.g. values = { selection.tournament_size = [2, 3, 5] }")
        for key, options in values.items():
            if not isinstance(options, list) or not options:
                raise StudyError(f"study key 'grid.values.{key}' must be a non-empty array of the key's values, "
                                 f"got {_describe(options)}")
        count = math.prod(len(options) for options in values.values())  # before any config is made
        if len(configs) + count > MAX_CONFIGS:
            raise StudyError(f"study key 'grid.values' makes {len(configs) + count:,} configs, more than a study "
                             f"holds ({MAX_CONFIGS:,}); give fewer values")
        if (len(configs) + count) * len(chosen_seeds) > section.max_runs:
            raise _too_many(len(configs) + count, len(chosen_seeds), section.max_runs)
        short = {key: key.partition(".")[2] for key in values}
        if len(set(short.values())) < len(short):
            short = {key: key for key in values}
        for combination in itertools.product(*values.values()):
            chosen = dict(zip(values, combination))
            label = ",".join(f"{short[key]}={_label_value(value)}" for key, value in chosen.items())
            where = "grid.values." + ",".join(f"{key}[{values[key].index(value)}]" for key, value in chosen.items())
            configs.append((label, _overridden(base, chosen, where, base_dir)))
            _check_new_label(label, "grid.values", [name for name, _ in configs[:-1]])
    if len(configs) * len(chosen_seeds) > section.max_runs:
        raise _too_many(len(configs), len(chosen_seeds), section.max_runs)
    if section.compare == "all" and len(configs) * (len(configs) - 1) // 2 > MAX_PAIRS:
        raise StudyError(f"study key 'study.compare': \"all\" compares every pair of the {len(configs):,} configs, "
                         f"{len(configs) * (len(configs) - 1) // 2:,} pairs, more than {MAX_PAIRS:,}; compare "
                         f"\"first\" (each with the first) or \"consecutive\"")
    finished = []
    for label, config in configs:
        data = config_to_dict(config)
        data["experiment"]["name"] = label
        if generations is not None or section.generations:
            data["experiment"]["generations"] = generations or section.generations
        elif section.budget:
            data["experiment"]["generations"] = max(1, section.budget // games_per_generation(config))
        finished.append(StudyConfig(label, config_from_dict(data)))
    measures = written.measures
    seen: dict[str, int] = {}
    for index, measure in enumerate(measures):
        problem = measure_problem(measure)
        if problem is not None:
            key, text = problem
            raise StudyError(f"study key 'measures[{index}].{key}': {text}" if text.startswith("unknown value")
                             else f"study key 'measures[{index}].{key}' {text}")
        for column in measure.columns():
            if column in RUN_COLUMNS:
                raise StudyError(f"study key 'measures[{index}].name': its score {column!r} would be study.csv's own "
                                 f"column {column!r}; give the measure another name")
            if column in seen:
                raise StudyError(f"study key 'measures[{index}].name': its score {column!r} is also measures"
                                 f"[{seen[column]}]'s; give the measures other names")
            seen[column] = index
    return Study(section.name or name, section.description, chosen_seeds, tuple(finished), measures,
                 section.compare, section.max_runs)


def _check_new_label(label: str, key: str, before: Sequence[str]) -> None:
    problem = check_label(label)
    if problem is not None:
        raise StudyError(f"study key '{key}' {problem}")
    if label in before:
        raise StudyError(f"study key '{key}': two configs are labelled {label!r}; give each its own label")


def _too_many(configs: int, seeds: int, most: int) -> StudyError:
    return StudyError(f"study key 'study.max_runs': the study expands to {configs} configs x {seeds} seeds = "
                      f"{configs * seeds:,} runs, more than max_runs = {most:,}; raise max_runs or run fewer")


def load_study(path: str | os.PathLike[str], *, seeds: str | None = None, generations: int | None = None) -> Study:
    """Reads, validates and resolves the study file at ``path`` (config files relative to its folder).

    ``seeds`` (as the study file writes them) and ``generations`` override the file's.

    :raises StudyError: if the file is missing, is not TOML or holds a bad study.
    """
    file = Path(path)
    try:
        data = read_toml(file, "study file", "a study")
    except ConfigError as error:
        raise StudyError(str(error)) from None
    chosen = None
    if seeds is not None:
        try:
            chosen = parse_seeds(seeds)
        except _Wrong as error:
            raise StudyError(f"--seeds {error}") from None
    try:
        written = study_file_from_dict(data)
    except StudyError as error:
        raise StudyError(f"study file '{path}': {error}") from None
    return resolve(written, name=file.stem, base_dir=file.parent.absolute(), seeds=chosen, generations=generations)


def study_toml(study: Study) -> tuple[str, dict[str, str]]:
    """Returns a study as it runs, for its study directory: study.toml's text and each config file's, by path.

    The configs are written in full, so that the study directory runs the
    same study whatever becomes of the files it was made from; reading
    study.toml back with :func:`load_study` gives the same study.
    """
    data: dict[str, Any] = {
        "study": {"name": study.name, "description": study.description, "seeds": list(study.seeds),
                  "max_runs": study.max_runs, "compare": study.compare},
        "configs": [{"label": c.label, "file": f"{CONFIGS}/{c.label}.toml"} for c in study.configs],
        "measures": [{**attrs.asdict(m), "opponents": list(m.opponents), "depths": list(m.depths)}
                     for m in study.measures],
    }
    files = {str(config_file(Path("."), c.label)): config_to_toml(c.config) for c in study.configs}
    text = tomli_w.dumps(data)
    digest = _study_digest(text, [files[entry["file"]].encode("utf-8") for entry in data["configs"]])
    return f"{_DIGEST_LINE}{digest}\n{text}", files


# study.toml's first line: the checksum of the rest and of its configs' files, so that a study directory whose
# study was edited by hand (a measure's games, a config's key) is refused rather than summarized wrongly.
_DIGEST_LINE = "# othello-ga study, sha256 of the rest and of its configs: "


def _study_digest(text: str, configs: Sequence[bytes]) -> str:
    digest = hashlib.sha256(text.encode("utf-8"))
    for config in configs:
        digest.update(hashlib.sha256(config).digest())
    return digest.hexdigest()


def load_saved_study(study_dir: str | os.PathLike[str], *, seeds: str | None = None,
                     generations: int | None = None) -> Study:
    """Reads the study a study directory runs (its study.toml and configs), checked against their checksum.

    :raises StudyError: they were edited since the study wrote them, or the study is unusable.
    """
    from ga.files import FileRefused, read_regular

    path = Path(study_dir) / STUDY
    edited = (f"'{path}' or its configs were edited since the study wrote them; a study directory runs the "
              "study it was made with: restore them, or run the edited study into a new directory (--out)")
    try:
        raw = read_regular(path, MAX_STUDY_BYTES).decode("utf-8")
        first, _, text = raw.partition("\n")
        entries = tomllib.loads(text).get("configs", [])
        configs = [read_regular(Path(study_dir) / str(entry.get("file", "")), MAX_STUDY_BYTES)
                   for entry in entries if isinstance(entry, dict)]
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        raise StudyError(edited) from None
    if not first.startswith(_DIGEST_LINE) or first[len(_DIGEST_LINE):] != _study_digest(text, configs):
        raise StudyError(edited)
    return load_study(path, seeds=seeds, generations=generations)
