"""Experiment configuration: one TOML file per experiment, validated in full.

The schema is the attrs classes below: each field's default is the default
setting, its validator the values allowed, and its ``doc`` metadata what it
means (docs/config.md lists the same, and a test keeps the two equal).
cattrs turns the TOML tables into these classes, strictly typed, refusing
unknown keys. :func:`config_from_dict` is pure; :func:`load_config` is the
only function that touches the file system. Every problem is reported as one
:class:`ConfigError` line that names the dotted key, e.g.
``config key 'selection.method': unknown value 'tourney'; expected one of …``,
and, when a default is part of a conflict, says so.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import math
import os
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, NewType, get_args

import attrs
import cattrs
import tomli_w
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError
from cattrs.gen import make_dict_structure_fn

from engine.evaluation import FEATURES
from engine.kinds import KINDS, TABLE_KINDS
from engine.patterns import TUPLE_SETS, VALUE_LIMIT, PatternNetwork, tuple_set
from engine.players import is_path, parse_spec, split_table
from engine.tables import TABLES
from ga.files import FileRefused, read_regular
from ga.weights import MAX_FILE_BYTES, WEIGHT_LIMIT, WeightsError, load_evaluation, load_weights, same_table

__all__ = [
    "CMA_METHODS", "HELD_OUT_OPPONENTS", "TABLE_CROSSOVERS", "ComputeConfig", "Config", "ConfigError",
    "CrossoverConfig", "ExperimentConfig", "FinalConfig", "FitnessConfig", "MutationConfig", "OpponentConfig",
    "OutputConfig", "PatternsConfig", "PopulationConfig", "RefineConfig", "SelectionConfig", "TDConfig",
    "cma_minimum_sample", "config_from_dict", "config_to_dict", "config_to_toml", "load_config", "network_of",
    "read_toml", "replace", "result_settings", "settings_difference", "spec_weights_path", "table_digests",
    "with_overrides",
]

Genome = Literal["full", "sym8", "sym4", "phase"]
FeatureName = NewType("FeatureName", str)  # one of engine.evaluation.FEATURES (checked by _features)
SelectionMethod = Literal["adjacent-pairs", "tournament", "best", "roulette", "stochastic-universal"]
CrossoverMethod = Literal["one-point", "two-point", "uniform", "blend", "tuples", "none"]
MutationMethod = Literal["reset", "gaussian"]
Draw = Literal["one", "all"]
Colours = Literal["black", "white", "both"]
Score = Literal["win_rate", "disc_diff"]
Backend = Literal["local", "dask"]
TupleSetName = NewType("TupleSetName", str)  # one of engine.patterns.TUPLE_SETS (checked by _tuple_sets)
PhaseStart = NewType("PhaseStart", int)  # the empty squares at which a network's phase starts
PatternsMethod = Literal["ga", "cma-es", "sep-cma-es"]
NetworkColours = Literal["invert", "negate"]

#: The methods of [patterns] that are CMA-ES (the others: the GA).
CMA_METHODS = ("cma-es", "sep-cma-es")
#: The crossovers that cut a genome anywhere: a network's tables are cut through by them.
TABLE_CROSSOVERS = ("one-point", "two-point", "uniform", "blend")

#: Opponents kept out of training when ``experiment.held_out_claim`` is set;
#: matched against a spec's kind and its table name.
HELD_OUT_OPPONENTS: frozenset[str] = frozenset({"heuristic", "lr06", "sjk11", "paip", "random"})

_INT64_MAX = 2**63 - 1  # TOML integers are 64-bit
# Bounds of the settings that scale weights or weighted sums: generous for any
# real use, and far from where the engine's sums would lose their meaning.
_WEIGHT = WEIGHT_LIMIT
_PANEL_WEIGHT = 1e6


class ConfigError(ValueError):
    """A config file or value is unusable; the message is one line naming the key."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.splitlines()))


class _Bad(ValueError):
    """A value a field refuses; the message says why, the caller adds the key."""


class _Located(ValueError):
    """A problem at a place below the current key (``.size``, ``[2]``), carried up to be named whole."""

    def __init__(self, where: str, error: BaseException) -> None:
        super().__init__(str(error))
        self.where, self.error = where, error


# --- value rules (attrs validators) -------------------------------------------------------


def _describe(value: object) -> str:
    """Returns the TOML type and a short rendering of ``value`` for messages."""
    if isinstance(value, bool):
        return f"boolean {'true' if value else 'false'}"
    if isinstance(value, int):
        return f"integer {value}" if abs(value) < 10**30 else "integer (too large)"
    if isinstance(value, float):
        return f"float {value!r}"
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        # A name's bytes that are not UTF-8 (lone surrogates from a file name) are shown as the bytes: \xff.
        return "string " + re.sub(r"(?<!\\)((?:\\\\)*)\\udc([89a-f][0-9a-f])", r"\1\\x\2", repr(text))
    if isinstance(value, Mapping):
        return "table"
    if isinstance(value, (list, tuple)):
        return f"array of {len(value)} items"
    if value is None:
        return "no value (None)"
    return type(value).__name__


def _shown(value: float) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def _between(minimum: float | None = None, maximum: float | None = None) -> Callable[[Any, Any, Any], None]:
    """Returns a validator of ``minimum <= value <= maximum`` (either bound may be open)."""
    def check(_: Any, attribute: Any, value: float) -> None:
        if minimum is not None and maximum is not None and not minimum <= value <= maximum:
            problem = f"must be between {_shown(minimum)} and {_shown(maximum)}, got {_shown(value)}"
        elif minimum is not None and value < minimum:
            problem = f"must be at least {_shown(minimum)}, got {_shown(value)}"
        elif maximum is not None and value > maximum:
            problem = f"must be at most {_shown(maximum)}, got {_shown(value)}"
        else:
            return
        raise _Located(f".{attribute.name}", _Bad(problem))
    return check


def _positive(maximum: float) -> Callable[[Any, Any, Any], None]:
    def check(_: Any, attribute: Any, value: float) -> None:
        if value <= 0:
            raise _Located(f".{attribute.name}", _Bad(f"must be greater than 0, got {value!r}"))
        if value > maximum:
            raise _Located(f".{attribute.name}", _Bad(f"must be at most {_shown(maximum)}, got {_shown(value)}"))
    return check


def _name(_: Any, attribute: Any, value: str) -> None:
    # It names the run's directory in results/: a newline or a control character there made a directory that
    # listings show broken, and a name's bytes that are not UTF-8 (a file's stem) cannot be written in config.toml.
    if (not value.strip() or value in (".", "..") or "/" in value or "\\" in value
            or not all(char.isprintable() or char == " " for char in value)):
        raise _Located(f".{attribute.name}",
                       _Bad(f"must be a non-empty name of printable characters without path separators (it names "
                            f"the run's directory), got {_describe(value)}"))


def _features(_: Any, attribute: Any, value: tuple[str, ...]) -> None:
    for index, name in enumerate(value):
        if name not in FEATURES:
            close = difflib.get_close_matches(name, FEATURES, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; the features are {', '.join(FEATURES)}"
            raise _Located(f".{attribute.name}[{index}]", _Bad(f"unknown feature {name!r}{hint}"))
        if name in value[:index]:
            raise _Located(f".{attribute.name}[{index}]", _Bad(f"feature {name!r} is given twice; give it once"))


def _tuple_sets(_: Any, attribute: Any, value: tuple[str, ...]) -> None:
    for index, name in enumerate(value):
        if name not in TUPLE_SETS:
            close = difflib.get_close_matches(name, list(TUPLE_SETS), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise _Located(f".{attribute.name}[{index}]",
                           _Bad(f"names an unknown tuple set {name!r}{hint}; the sets are {', '.join(TUPLE_SETS)}"))
        if name in value[:index]:
            raise _Located(f".{attribute.name}[{index}]", _Bad(f"repeats tuple set {name!r}; give each set once"))


def _phase_starts(_: Any, attribute: Any, value: tuple[int, ...]) -> None:
    if not value or value[0] != 60 or any(b >= a for a, b in zip(value, value[1:])) or value[-1] < 0:
        raise _Located(f".{attribute.name}", _Bad(
            f"lists the empty squares at which each phase starts: 60 first, then decreasing, none below 0 "
            f"(e.g. [60, 30]), got {list(value)}"))


def _setting(default: Any, *rules: Callable[[Any, Any, Any], None], doc: str = "") -> Any:
    """Declares a config key: its default, the rules its values must pass, and what it means."""
    return attrs.field(default=default, validator=list(rules), metadata={"doc": doc})


def _choice(default: str, choices: Any, doc: str = "") -> Any:
    return attrs.field(default=default, metadata={"doc": doc, "choices": get_args(choices)})


# --- the schema -----------------------------------------------------------------------------


@attrs.frozen
class ExperimentConfig:
    """[experiment]: what the run is called and how long it lasts."""

    name: str = _setting("experiment", _name, doc="run name; load_config defaults it to the file stem")
    seed: int = _setting(0, _between(0, _INT64_MAX), doc="seeds every random generator of the run")
    generations: int = _setting(100, _between(1, None), doc="generations to evolve")
    description: str = _setting("", doc="free text")
    held_out_claim: bool = _setting(False, doc="keeps HELD_OUT_OPPONENTS out of training")


@attrs.frozen
class PopulationConfig:
    """[population]: how many individuals and how their genes map to the board."""

    size: int = _setting(32, _between(2, 1_000_000))
    parents: int = _setting(16, _between(2, None))  # <= size
    genome: Genome = _choice("full", Genome)
    phase_move: int = _setting(40, _between(1, 59))  # "phase": table 0 before this move
    init_low: float = _setting(-1.0, _between(-_WEIGHT, _WEIGHT))  # initial genes uniform in [init_low, init_high]
    init_high: float = _setting(1.0, _between(-_WEIGHT, _WEIGHT))
    # Evaluation features evolved beside the squares, one gene each (one per phase with the phase genome).
    features: tuple[FeatureName, ...] = _setting((), _features)


@attrs.frozen
class SelectionConfig:
    """[selection]: how parents are chosen."""

    method: SelectionMethod = _choice("tournament", SelectionMethod)
    tournament_size: int = _setting(3, _between(2, None))  # <= population.size
    elitism: int = _setting(0, _between(0, None))  # best individuals copied unchanged; < population.size
    reevaluate_elites: bool = _setting(True)  # fitness is noisy: re-play elites each generation


@attrs.frozen
class CrossoverConfig:
    """[crossover]: how two parents make children."""

    method: CrossoverMethod = _choice("one-point", CrossoverMethod)
    probability: float = _setting(1.0, _between(0, 1))  # per pair
    gene_probability: float = _setting(0.5, _between(0, 1))  # uniform: per-gene swap
    alpha: float = _setting(0.5, _between(0, 100))  # blend: BLX-alpha extent


@attrs.frozen
class MutationConfig:
    """[mutation]: how children's genes change."""

    method: MutationMethod = _choice("reset", MutationMethod)
    gene_probability: float = _setting(0.03, _between(0, 1))
    sigma: float = _setting(0.1, _positive(_WEIGHT))  # gaussian step
    low: float = _setting(-1.0, _between(-_WEIGHT, _WEIGHT))  # reset range and gaussian clip range
    high: float = _setting(1.0, _between(-_WEIGHT, _WEIGHT))


@attrs.frozen
class OpponentConfig:
    """One training opponent: a player spec and its weight when drawing."""

    spec: str
    weight: float = attrs.field(default=1.0, validator=_positive(_PANEL_WEIGHT))


_DEFAULT_OPPONENTS = tuple(OpponentConfig(spec) for spec in ("random", "nhand:1", "nhand:2", "nleast:1", "nmost:1"))


@attrs.frozen
class FitnessConfig:
    """[fitness]: the games that score an individual."""

    player: str = _setting("nhand_custom:1")  # the individual's player; no @table
    eps: float = _setting(0.0, _between(0, 1))  # chance the individual plays a random move
    opponents: tuple[OpponentConfig, ...] = _setting(_DEFAULT_OPPONENTS)
    draw: Draw = _choice("one", Draw)  # one opponent by weight, or all of them
    games_per_opponent: int = _setting(1, _between(1, None))
    colours: Colours = _choice("black", Colours)  # the individual's colour
    common_random_numbers: bool = _setting(False)  # same opponents and game seeds for all individuals
    score: Score = _choice("win_rate", Score)
    coevolution: int = _setting(0, _between(0, None))  # games against population members
    hall_of_fame_games: int = _setting(0, _between(0, None))
    hall_of_fame_size: int = _setting(10, _between(1, None))
    random_table_games: int = _setting(0, _between(0, None))  # games against fresh U(-1, 1) tables each generation
    depths: tuple[int, ...] = _setting(())  # searching players: the depths the games are spread over


@attrs.frozen
class ComputeConfig:
    """[compute]: where the games run."""

    workers: int = _setting(0, _between(0, 4096))  # 0 = all cores
    backend: Backend = _choice("local", Backend)
    address: str = _setting("")  # dask scheduler, e.g. "tcp://host:8786"


@attrs.frozen
class OutputConfig:
    """[output]: what the run writes besides the logbook."""

    games_csv: bool = _setting(True)
    checkpoint_every: int = _setting(1, _between(1, None))  # generations
    checkpoint_seconds: float = _setting(1.0, _between(0, 3600))  # at least this long between checkpoints


@attrs.frozen
class FinalConfig:
    """[final]: how the run's best table is chosen once the generations are done."""

    games: int = _setting(0, _between(0, None))  # per pairing of the final tournament; 0 = fittest of the last generation


@attrs.frozen
class RefineConfig:
    """[refine]: CMA-ES from the run's best table on a held-in panel, after the generations."""

    generations: int = _setting(0, _between(0, None))  # 0 = no refinement
    restarts: int = _setting(0, _between(0, 1000))  # more runs (derived seeds) whose best tables join the panel
    candidates: int = _setting(12, _between(2, 1000))  # CMA-ES lambda
    sigma: float = _setting(0.05, _positive(100.0))  # first step, on a table scaled to a largest weight of 1
    games: int = _setting(4000, _between(2, None))  # per panel group and candidate
    eps: float = _setting(0.1, _between(0, 1))  # both players', against opponents and restarts
    opponents: tuple[str, ...] = _setting(())  # fixed panel opponents (player specs)
    weight_opponents: float = _setting(1.0, _between(0, _PANEL_WEIGHT))
    weight_restarts: float = _setting(1.0, _between(0, _PANEL_WEIGHT))
    weight_random_tables: float = _setting(2.0, _between(0, _PANEL_WEIGHT))  # random U(-1, 1) tables at eps 0
    depths: tuple[int, ...] = _setting(())  # a searching run's refinement depths; empty: the run's own
    average_last: int = _setting(1, _between(1, None))  # the result: the mean centroid of the last N generations


@attrs.frozen
class PatternsConfig:
    """[patterns]: a pattern network (n-tuple network) evolved, beside the squares or instead of them."""

    sets: tuple[TupleSetName, ...] = _setting((), _tuple_sets)  # engine.patterns.TUPLE_SETS; () = no network
    phases: tuple[PhaseStart, ...] = _setting((60,), _phase_starts)  # empty squares at which each phase starts
    colours: NetworkColours = _choice("invert", NetworkColours)  # the network's colour convention
    squares: bool = _setting(False)  # the 64 square weights evolved beside the network (else they are 0)
    init: float = _setting(0.01, _between(0, _WEIGHT))  # initial network weights uniform in [-init, init]
    bound: float = _setting(1.0, _positive(_WEIGHT))  # network weights are clipped to [-bound, bound]
    sigma: float = _setting(0.01, _positive(_WEIGHT))  # Gaussian mutation step (GA), first step size (CMA-ES)
    method: PatternsMethod = _choice("ga", PatternsMethod)  # how the genome evolves


@attrs.frozen
class TDConfig:
    """[td]: a TD(0) self-play step on each individual's network before it is played (coevolution with TD)."""

    games: int = _setting(0, _between(0, 1_000_000))  # self-play games per individual and generation; 0 = off
    alpha: float = _setting(0.001, _positive(1.0))  # the learning rate
    eps: float = _setting(0.1, _between(0, 1))  # the chance of a random move in the self-play games


@attrs.frozen
class Config:
    """A whole experiment; ``Config()`` is the all-defaults experiment."""

    experiment: ExperimentConfig = attrs.field(factory=ExperimentConfig)
    population: PopulationConfig = attrs.field(factory=PopulationConfig)
    selection: SelectionConfig = attrs.field(factory=SelectionConfig)
    crossover: CrossoverConfig = attrs.field(factory=CrossoverConfig)
    mutation: MutationConfig = attrs.field(factory=MutationConfig)
    fitness: FitnessConfig = attrs.field(factory=FitnessConfig)
    compute: ComputeConfig = attrs.field(factory=ComputeConfig)
    output: OutputConfig = attrs.field(factory=OutputConfig)
    final: FinalConfig = attrs.field(factory=FinalConfig)
    refine: RefineConfig = attrs.field(factory=RefineConfig)
    patterns: PatternsConfig = attrs.field(factory=PatternsConfig)
    td: TDConfig = attrs.field(factory=TDConfig)


#: The sections of an experiment, by name.
SECTIONS: dict[str, type] = {f.name: f.default.factory for f in attrs.fields(Config)}  # type: ignore[union-attr]


def replace(instance: Any, **changes: Any) -> Any:
    """Returns a copy of a config (or of one of its sections) with ``changes``."""
    return attrs.evolve(instance, **changes)


# --- structuring: TOML tables into the schema, strictly ------------------------------------------


def _strict_int(value: object, _: type) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Bad(f"must be an integer, got {_describe(value)}")
    if not -_INT64_MAX - 1 <= value <= _INT64_MAX:
        raise _Bad(f"must be a 64-bit integer, got {_describe(value)}")
    return value


def _strict_float(value: object, _: type) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Bad(f"must be a number, got {_describe(value)}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise _Bad(f"must be a finite number, got {_describe(value)}")
    return number


def _strict_bool(value: object, _: type) -> bool:
    if not isinstance(value, bool):
        raise _Bad(f"must be a boolean (true or false), got {_describe(value)}")
    return value


def _strict_str(value: object, _: type) -> str:
    if not isinstance(value, str):
        raise _Bad(f"must be a string, got {_describe(value)}")
    if "\x00" in value:
        raise _Bad("must not contain a NUL character")
    return value


def _choice_hook(choices: tuple[str, ...]) -> Callable[[object, type], str]:
    def structure(value: object, _: type) -> str:
        expected = ", ".join(choices)
        if not isinstance(value, str):
            raise _Bad(f"must be one of {expected}, got {_describe(value)}")
        if value not in choices:
            raise _Bad(f"unknown value {value!r}; expected one of {expected}")
        return value
    return structure


def _opponent(value: object, _: type) -> OpponentConfig:
    if isinstance(value, str):
        return OpponentConfig(_strict_str(value, str))
    if not isinstance(value, Mapping):
        raise _Bad(f"must be a spec string or a table {{spec, weight}}, got {_describe(value)}")
    return _OPPONENT_TABLE(value, OpponentConfig)


def _opponents(value: object, _: type) -> tuple[OpponentConfig, ...]:
    if not isinstance(value, (list, tuple)):
        raise _Bad(f"must be an array of opponents, got {_describe(value)}")
    if not value:
        raise _Bad('must list at least one opponent, e.g. ["random"]')
    return tuple(_at(f"[{index}]", _opponent, entry) for index, entry in enumerate(value))


def _depths(value: object, _: type) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)):
        raise _Bad(f"must be an array of search depths, e.g. [1, 2, 3], got {_describe(value)}")
    return tuple(_at(f"[{index}]", _strict_int, entry) for index, entry in enumerate(value))


def _specs(value: object, _: type) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        raise _Bad(f"must be an array of player specs, got {_describe(value)}")
    return tuple(_at(f"[{index}]", _strict_str, entry) for index, entry in enumerate(value))


def _feature_names(value: object, _: type) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        raise _Bad(f"must be an array of feature names ({', '.join(FEATURES)}), got {_describe(value)}")
    return tuple(_at(f"[{index}]", _strict_str, entry) for index, entry in enumerate(value))


def _set_names(value: object, _: type) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        raise _Bad(f"must be an array of tuple set names (e.g. [\"all-3\"]; the sets are {', '.join(TUPLE_SETS)}), "
                   f"got {_describe(value)}")
    return tuple(_at(f"[{index}]", _strict_str, entry) for index, entry in enumerate(value))


def _phase_list(value: object, _: type) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)):
        raise _Bad(f"must be an array of the empty squares at which each phase starts, e.g. [60, 30], "
                   f"got {_describe(value)}")
    return tuple(_at(f"[{index}]", _strict_int, entry) for index, entry in enumerate(value))


def _at(where: str, structure: Callable[[Any, type], Any], value: Any) -> Any:
    try:
        return structure(value, object)
    except _Located as inner:
        raise _Located(where + inner.where, inner.error) from None
    except (ValueError, TypeError, ClassValidationError) as error:
        raise _Located(where, error) from None


def _section_hook(cls: type, converter: cattrs.Converter) -> Callable[[Any, type], Any]:
    generated = make_dict_structure_fn(cls, converter, _cattrs_forbid_extra_keys=True)
    section = _section_name(cls)

    def structure(value: object, _: type) -> Any:
        if not isinstance(value, Mapping):
            raise _Bad(f"must be a table [{section}], got {_describe(value)}")
        return generated(value, cls)
    return structure


def _section_name(cls: type) -> str:
    return {section: name for name, section in SECTIONS.items()}.get(cls, "")


def _converter() -> cattrs.Converter:
    converter = cattrs.Converter(forbid_extra_keys=True, detailed_validation=True)
    converter.register_structure_hook(int, _strict_int)
    converter.register_structure_hook(float, _strict_float)
    converter.register_structure_hook(bool, _strict_bool)
    converter.register_structure_hook(str, _strict_str)
    for literal in (Genome, SelectionMethod, CrossoverMethod, MutationMethod, Draw, Colours, Score, Backend,
                    PatternsMethod, NetworkColours):
        converter.register_structure_hook_func(lambda t, literal=literal: t == literal,
                                               _choice_hook(get_args(literal)))
    converter.register_structure_hook_func(lambda t: t == tuple[OpponentConfig, ...], _opponents)
    converter.register_structure_hook_func(lambda t: t == tuple[str, ...], _specs)
    converter.register_structure_hook_func(lambda t: t == tuple[FeatureName, ...], _feature_names)
    converter.register_structure_hook_func(lambda t: t == tuple[int, ...], _depths)
    converter.register_structure_hook_func(lambda t: t == tuple[TupleSetName, ...], _set_names)
    converter.register_structure_hook_func(lambda t: t == tuple[PhaseStart, ...], _phase_list)
    for cls in SECTIONS.values():
        converter.register_structure_hook(cls, _section_hook(cls, converter))
    converter.register_unstructure_hook(OpponentConfig, lambda o: {"spec": o.spec, "weight": o.weight})
    return converter


_CONVERTER = _converter()
_OPPONENT_TABLE = make_dict_structure_fn(OpponentConfig, _CONVERTER, _cattrs_forbid_extra_keys=True)


# --- errors: the first problem, as one line naming its key -------------------------------------


def _known_keys() -> dict[str, list[str]]:
    return {name: [f.name for f in attrs.fields(cls)] for name, cls in SECTIONS.items()}


def _unknown_key_message(prefix: str, key: str, known: Sequence[str]) -> str:
    shown = key if key.isprintable() else repr(key)[1:-1]
    dotted = f"{prefix}.{shown}" if prefix else shown
    if not prefix:
        # A section's key written at the top level: say which section it belongs in.
        homes = [f"{section}.{key}" for section, keys in _known_keys().items() if key in keys]
        if homes:
            return (f"config key '{dotted}' is not known at the top level; did you mean '{homes[0]}' "
                    f"(key {key} of section [{homes[0].split('.')[0]}])?")
    close = difflib.get_close_matches(key, known, n=1)
    if close:
        suggestion = f"{prefix}.{close[0]}" if prefix else close[0]
        return f"config key '{dotted}' is not known; did you mean '{suggestion}'?"
    where = f"[{prefix}] takes" if prefix else "the sections are"
    return f"config key '{dotted}' is not known; {where} {', '.join(known)}"


def _first_problem(error: BaseException, path: str = "") -> str:
    """Returns the one-line message of the first problem inside a (nested) cattrs error."""
    if isinstance(error, ClassValidationError):
        inner = error.exceptions[0]
        note = next((n for n in getattr(inner, "__notes__", []) if hasattr(n, "name")), None)
        key = f"{path}.{note.name}" if note is not None and path else (note.name if note is not None else path)
        return _first_problem(inner, key)
    if isinstance(error, IterableValidationError):
        inner = error.exceptions[0]
        note = next((n for n in getattr(inner, "__notes__", []) if hasattr(n, "index")), None)
        return _first_problem(inner, f"{path}[{note.index}]" if note is not None else path)
    if isinstance(error, ForbiddenExtraKeysError):
        known = [f.name for f in attrs.fields(error.cl)]
        return _unknown_key_message(path, sorted(map(str, error.extra_fields))[0], known)
    if isinstance(error, _Located):
        return _first_problem(error.error, path + error.where)
    text = " ".join(str(error).split())
    if isinstance(error, _Bad):
        return f"config key '{path}': {text}" if text.startswith("unknown value") else f"config key '{path}' {text}"
    if isinstance(error, KeyError):  # a required key missing (an opponent's spec)
        return f"config key '{path}' is required; add e.g. spec = \"random\""
    return f"config key '{path}': {text}"


def _structure(data: Mapping[str, Any]) -> Config:
    try:
        return _CONVERTER.structure(data, Config)
    except (ClassValidationError, _Bad, _Located) as error:
        raise ConfigError(_first_problem(error)) from None


# --- parsing -------------------------------------------------------------------------------------


def config_from_dict(data: Mapping[str, Any], base_dir: Path | None = None) -> Config:
    """Returns the validated config for ``data`` (as read from TOML), defaults filled in.

    Relative weights-file paths in player specs are resolved against ``base_dir``
    when given; no file is opened.

    :raises ConfigError: on the first unknown key, wrong type, bad value or inconsistency.
    """
    if not isinstance(data, Mapping):
        raise ConfigError(f"config must be a table of sections ({', '.join(SECTIONS)}), got {_describe(data)}")
    for key in data:
        if not isinstance(key, str) or key not in SECTIONS:
            raise ConfigError(_unknown_key_message("", str(key), list(SECTIONS)))
    config = _structure(data)
    given = _given_keys(data)
    _check_population(config, given)
    _check_selection(config, given)
    _check_bounds(config, given)
    _check_compute(config)
    _check_patterns(config, given)
    fitness = _check_fitness(config.fitness, config.experiment.held_out_claim, base_dir)
    refine = _check_refine(config, base_dir)
    checked = replace(config, fitness=fitness, refine=refine)
    _check_text(checked)
    return checked


def _check_text(config: Config) -> None:
    """Raises unless every text of ``config`` can be written in its run's config.toml (UTF-8): a path holding
    bytes that are not UTF-8 (a weights file in a folder named in another encoding) would be found only when the
    run writes its directory, by a codec's error."""

    def check(value: Any, where: str) -> None:
        if isinstance(value, Mapping):
            for key, inner in value.items():
                check(inner, f"{where}.{key}" if where else str(key))
        elif isinstance(value, list):
            for index, inner in enumerate(value):
                check(inner, f"{where}[{index}]")
        elif isinstance(value, str) and any("\udc80" <= char <= "\udcff" for char in value):
            shown = value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            raise ConfigError(f"config key '{where}' holds '{shown}', whose bytes are not UTF-8 text (a name in "
                              "another encoding), which the run's config.toml cannot hold; rename the file or "
                              "folder")

    check(config_to_dict(config), "")


def _given_keys(data: Mapping[str, Any]) -> set[str]:
    """Returns the dotted keys the user wrote (the others take their defaults)."""
    return {f"{section}.{key}" for section, table in data.items() if isinstance(table, Mapping) for key in table}


def _default(key: str, given: set[str]) -> str:
    """Returns ' (the default N)' when ``key`` was not written, so that a conflict is not blamed on the user."""
    if key in given:
        return ""
    section, name = key.split(".")
    return f" (the default, {getattr(SECTIONS[section](), name)!r})"


def _conflict(key: str, value: Any, limit: str, other: str, given: set[str]) -> ConfigError:
    """Returns the error of ``key`` against another key's value; names the defaults involved and the fix."""
    if key not in given:
        return ConfigError(f"config key '{key}' is not set and its default {value!r} {limit}; set {key}")
    return ConfigError(f"config key '{key}' {limit}, got {value!r}" + (
        f" ({other} is its default; set it)" if other and other not in given else ""))


def _check_population(config: Config, given: set[str]) -> None:
    population = config.population
    if population.parents > population.size:
        raise _conflict("population.parents", population.parents,
                        f"must be at most population.size ({population.size})", "population.size", given)


def _check_selection(config: Config, given: set[str]) -> None:
    size = config.population.size
    selection = config.selection
    if selection.tournament_size > size:
        raise _conflict("selection.tournament_size", selection.tournament_size,
                        f"must be at most population.size ({size})", "population.size", given)
    if selection.elitism >= size:
        raise _conflict("selection.elitism", selection.elitism,
                        f"must be less than population.size ({size})", "population.size", given)
    if selection.method in ("roulette", "stochastic-universal") and config.fitness.score == "disc_diff":
        raise ConfigError(
            f"config key 'selection.method': {selection.method} needs non-negative fitness; "
            "use fitness.score = \"win_rate\" or another selection method"
        )
    if selection.method == "adjacent-pairs":
        if size % 2:
            raise _conflict("population.size", size, "must be even when selection.method is 'adjacent-pairs'",
                            "", given)
        if config.population.parents != size // 2:
            raise _conflict("population.parents", config.population.parents,
                            f"must be population.size // 2 ({size // 2}) when selection.method is 'adjacent-pairs'",
                            "population.size", given)


def _check_bounds(config: Config, given: set[str]) -> None:
    for key, low, high in (
        ("population.init_low", config.population.init_low, config.population.init_high),
        ("mutation.low", config.mutation.low, config.mutation.high),
    ):
        if not low < high:
            high_key = key.replace("low", "high")
            raise _conflict(key, low, f"must be less than {high_key} ({high!r})", high_key, given)


@functools.lru_cache(maxsize=32)
def _network(sets: tuple[str, ...], phases: tuple[int, ...], colours: str) -> PatternNetwork:
    return tuple_set(list(sets), phases, colours)


def network_of(patterns: PatternsConfig) -> PatternNetwork | None:
    """Returns the network a [patterns] section evolves, every weight 0 (its shape), or None without tuple sets."""
    if not patterns.sets:
        return None
    return _network(tuple(patterns.sets), tuple(patterns.phases), patterns.colours)


def cma_minimum_sample(weights: int) -> int:
    """Returns the smallest population CMA-ES samples for a network of ``weights`` weights: Hansen's default
    sample size, 4 + floor(3 ln n), which DEAP's cma.Strategy takes too; fewer samples make its covariance
    estimate unreliable."""
    return 4 + int(3 * math.log(max(weights, 1)))


def _check_patterns(config: Config, given: set[str]) -> None:
    """Raises unless [patterns] and [td] fit the rest of the experiment (one line naming the key and the fix)."""
    patterns, td = config.patterns, config.td
    network = network_of(patterns)
    if network is None:
        default = PatternsConfig()
        changed = next((f.name for f in attrs.fields(PatternsConfig)
                        if getattr(patterns, f.name) != getattr(default, f.name)), None)
        if changed is not None:
            raise ConfigError(f"config key 'patterns.{changed}' describes a pattern network, but patterns.sets is "
                              "empty; name its tuple sets (e.g. sets = [\"all-3\"]) or remove the key")
        if td.games:
            raise ConfigError("config key 'td.games' learns a pattern network's weights, but patterns.sets is empty; "
                              "name the tuple sets (e.g. patterns.sets = [\"all-3\"]) or set td.games = 0")
        if config.crossover.method == "tuples":
            raise ConfigError("config key 'crossover.method': 'tuples' crosses a pattern network's tables, but "
                              "patterns.sets is empty; name the tuple sets or choose another crossover")
        return
    if not patterns.squares and config.population.genome != "full":
        raise ConfigError(f"config key 'population.genome' = {config.population.genome!r} ties square weights, but "
                          "patterns.squares is false (the network's run evolves no squares); set patterns.squares "
                          "= true or remove population.genome")
    if patterns.init > patterns.bound:
        raise _conflict("patterns.init", patterns.init, f"must be at most patterns.bound ({patterns.bound!r})",
                        "patterns.bound", given)
    if patterns.bound * network.n_copies > VALUE_LIMIT:
        raise ConfigError(
            f"config key 'patterns.bound' = {patterns.bound!r} lets the network's {network.n_copies} copies reach "
            f"{patterns.bound * network.n_copies:.4g}, beyond +-{VALUE_LIMIT:g}, where a finished game no longer "
            f"outweighs every value; set bound at most {VALUE_LIMIT / network.n_copies:.4g}")
    if config.refine.generations:
        raise ConfigError("config key 'refine.generations': the refinement tunes tables of squares and features, "
                          "not a pattern network; set refine.generations = 0")
    if td.games and patterns.colours == "negate":
        raise ConfigError("config key 'td.games': TD learning takes an invert network (each side's own discs as "
                          "mine); set patterns.colours = \"invert\" or td.games = 0")
    if patterns.method in CMA_METHODS:
        if td.games:
            raise ConfigError(f"config key 'td.games': the TD step trains the GA's individuals, and "
                              f"patterns.method is {patterns.method!r}; set td.games = 0 or patterns.method = \"ga\"")
        if config.selection.elitism:
            raise ConfigError(f"config key 'selection.elitism': {patterns.method} samples every candidate anew "
                              "(it keeps no elites); set selection.elitism = 0")
        smallest = cma_minimum_sample(network.n_weights)
        if config.population.size < smallest:
            raise _conflict("population.size", config.population.size,
                            f"must be at least {smallest} for {patterns.method} (its sample for "
                            f"{network.n_weights:,} weights, 4 + 3 ln n)", "", given)
        return
    if config.crossover.method in TABLE_CROSSOVERS:
        what = "is not set, and its default" if "crossover.method" not in given else "="
        raise ConfigError(
            f"config key 'crossover.method' {what} {config.crossover.method!r} cuts a pattern network's "
            "tables apart; set crossover.method = \"tuples\" (each tuple's table whole from either parent) or \"none\"")


_DASK_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")


def _check_compute(config: Config) -> None:
    address = config.compute.address.strip()
    if config.compute.backend == "dask" and not address:
        raise ConfigError(
            "config key 'compute.address' must be set when compute.backend is 'dask', "
            "e.g. address = \"tcp://host:8786\" or \"local:2\""
        )
    scheme = address.partition("://")[0] if "://" in address else None
    if scheme is not None and scheme not in _DASK_SCHEMES:
        raise ConfigError(
            f"config key 'compute.address' has an unknown scheme {scheme!r} (Dask knows {', '.join(_DASK_SCHEMES)}), "
            f"got {address!r}"
        )
    if (address == "local" or address.startswith("local:")) and not re.fullmatch(r"local(:[1-9][0-9]*)?", address):
        raise ConfigError(
            f"config key 'compute.address' must be \"local\", \"local:N\" with N >= 1, or a scheduler address "
            f"such as \"tcp://host:8786\", got {address!r}"
        )


# --- player specs ----------------------------------------------------------------


def spec_weights_path(spec: str) -> Path | None:
    """Returns the weights file a spec's ``@TABLE`` names, or None for a built-in table or none."""
    try:
        table = parse_spec(spec).table
    except ValueError:
        return None
    return Path(table) if table is not None and is_path(table) else None


def table_digests(config: Config) -> dict[str, str]:
    """Returns the SHA-256 of every weights file a run plays (its opponents', its refinement panel's), by path.

    A run records them, so that a resume can tell that a file was replaced by another table since.

    :raises ConfigError: if one cannot be read.
    """
    specs = [opponent.spec for opponent in config.fitness.opponents] + list(config.refine.opponents)
    digests = {}
    for path in filter(None, map(spec_weights_path, specs)):
        try:
            digests[str(path)] = hashlib.sha256(read_regular(path, MAX_FILE_BYTES)).hexdigest()
        except OSError as error:
            raise ConfigError(f"weights file '{path}' cannot be read: {error.strerror or error}") from None
    return digests


def _resolve_table(spec: str, base_dir: Path | None) -> str:
    """Returns ``spec`` with a relative weights-file path made relative to ``base_dir``."""
    if base_dir is None or "@" not in spec:
        return spec
    head, _, rest = spec.partition("@")
    table, options = split_table(rest)
    if not is_path(table.strip()) or Path(table.strip()).is_absolute():
        return spec
    return f"{head}@{os.path.normpath(base_dir / table.strip())}{options}"


def _parsed(key: str, spec: str) -> Any:
    try:
        return parse_spec(spec)
    except ValueError as error:
        raise ConfigError(f"config key '{key}': {error}") from error


def _check_fitness(fitness: FitnessConfig, held_out_claim: bool, base_dir: Path | None) -> FitnessConfig:
    player = _parsed("fitness.player", fitness.player)
    if player.kind not in TABLE_KINDS:
        raise ConfigError(
            f"config key 'fitness.player': kind {player.kind!r} has no table to evolve; "
            f"use one of {', '.join(sorted(TABLE_KINDS))}, e.g. 'nhand_custom:1'"
        )
    if player.table is not None:
        raise ConfigError(
            f"config key 'fitness.player' must not name a table (@{player.table}): the individual is the table; "
            f"remove '@{player.table}'"
        )
    # The evolved player's eps and phase are keys of their own; only the endgame is an option of its spec.
    options = [option for option in fitness.player.partition(",")[2].split(",")
               if option and option.partition("=")[0].strip() != "end"]
    if options:
        raise ConfigError(
            f"config key 'fitness.player' must not set options (,{','.join(options)}); "
            f"set fitness.eps and population.phase_move instead (end=N is the one option it takes)"
        )
    _check_depths("fitness.depths", fitness.depths, fitness.player,
                  "spreads the games of a searching player over depths", "(e.g. player = \"alphabeta:2\") or remove depths")
    opponents = [
        replace(opponent, spec=_check_opponent(f"fitness.opponents[{index}].spec", opponent.spec, held_out_claim,
                                               base_dir))
        for index, opponent in enumerate(fitness.opponents)
    ]
    return replace(fitness, opponents=tuple(opponents))


def _check_opponent(key: str, spec: str, held_out_claim: bool, base_dir: Path | None) -> str:
    """Returns a training opponent's spec with its weights path resolved, or raises naming ``key``."""
    spec = _resolve_table(spec, base_dir)
    parsed = _parsed(key, spec)
    if parsed.kind == "human":
        raise ConfigError(f"config key '{key}': a human cannot be a training opponent; remove it")
    if parsed.kind in TABLE_KINDS and parsed.table is None:
        at = spec.find(",") if "," in spec else len(spec)
        raise ConfigError(
            f"config key '{key}': opponent {spec!r} needs a weights table, "
            f"e.g. '{spec[:at]}@heuristic{spec[at:]}'"
        )
    if held_out_claim:
        held_out = _held_out_twin(parsed)
        if held_out is not None:
            name, why = held_out
            raise ConfigError(
                f"config key '{key}': opponent {spec!r} plays as held-out {name!r} ({why}) "
                f"while experiment.held_out_claim is true; remove it or set held_out_claim = false"
            )
    return spec


def _held_out_twin(parsed: Any) -> tuple[str, str] | None:
    """Returns the held-out player an opponent plays as, and why, or None.

    Players are compared by what they play, not by name: every move random is
    the random mover, and a table plays as a held-out table when it equals it up
    to a positive scale and a symmetry of the board (:func:`ga.weights.same_table`).
    A table that cannot be read is left to the run's start, which names the problem.
    """
    if parsed.kind == "random":
        return "random", "the random mover"
    if parsed.eps >= 1.0:
        return "random", "eps = 1 makes every move random"
    if parsed.table is None:
        return None
    if parsed.table in HELD_OUT_OPPONENTS:
        return parsed.table, "by name"
    try:
        weights = TABLES[parsed.table] if parsed.table in TABLES else load_weights(parsed.table)
    except (WeightsError, OSError):
        return None
    for name in sorted(HELD_OUT_OPPONENTS & TABLES.keys()):
        if same_table(weights, TABLES[name]):
            return name, f"its table is {name}'s up to a positive scale and a symmetry of the board"
    return None


def _check_depths(key: str, depths: Sequence[int], player: str, what: str, fix: str) -> None:
    """Raises unless ``depths`` (config key ``key``) are search depths, and ``player`` (fitness.player) searches."""
    if depths and parse_spec(player).kind != "alphabeta":
        raise ConfigError(
            f"config key '{key}' {what}, but fitness.player is {player!r}; use an alphabeta player {fix}"
        )
    cap = KINDS["alphabeta"].max_depth
    for index, depth in enumerate(depths):
        if not 1 <= depth <= cap:
            raise ConfigError(f"config key '{key}[{index}]' must be between 1 and {cap}, got {depth}")


def _check_refine(config: Config, base_dir: Path | None) -> RefineConfig:
    refine = config.refine
    if refine.generations:
        if config.population.genome == "phase":
            raise ConfigError(
                "config key 'refine.generations': refinement plays 64-weight tables, not the phase genome's two; "
                "set refine.generations = 0 or population.genome to full, sym8 or sym4"
            )
        if not refine.weight_opponents + refine.weight_restarts + refine.weight_random_tables:
            raise ConfigError(
                "config key 'refine.weight_random_tables': the panel weights must not all be 0; set one above 0"
            )
        if refine.weight_opponents and not refine.opponents:
            raise ConfigError(
                "config key 'refine.opponents' must list at least one player spec when refine.weight_opponents "
                "is above 0, e.g. [\"wpc:1@classic,eps=0.1\"]"
            )
        if refine.average_last > refine.generations:
            raise ConfigError(
                f"config key 'refine.average_last' must be at most refine.generations ({refine.generations}), "
                f"got {refine.average_last}; lower it or refine longer"
            )
        if refine.weight_restarts and not refine.restarts:
            raise ConfigError(
                "config key 'refine.restarts' must be at least 1 when refine.weight_restarts is above 0; "
                "set restarts or weight_restarts = 0"
            )
    _check_depths("refine.depths", refine.depths, config.fitness.player,
                  "sets the depths a searching player is refined at", "or remove refine.depths")
    specs = tuple(_check_opponent(f"refine.opponents[{index}]", spec, config.experiment.held_out_claim, base_dir)
                  for index, spec in enumerate(refine.opponents))
    return replace(refine, opponents=specs)


# --- I/O and conversions -----------------------------------------------------------


#: The most bytes a config file may hold (an experiment is a few hundred).
MAX_CONFIG_BYTES = 16 * 2**20

#: Keys that runs of earlier versions wrote into their config.toml and that no longer exist (they did
#: nothing); dropped when such a run's config.toml is read, refused in an experiment file.
OBSOLETE_RUN_KEYS = (("compute", "batch"),)


def read_toml(path: str | os.PathLike[str], what: str = "config file", noun: str = "an experiment") -> dict[str, Any]:
    """Returns the tables of the TOML file at ``path`` (a config file, or ``what`` another file of the tool is).

    :raises ConfigError: one line naming the file: missing, not a regular file, not UTF-8, not TOML, unreadable.
    """
    config_path = Path(path)
    if "\0" in os.fspath(config_path):
        raise ConfigError(f"{what} {os.fspath(path)!r} does not exist (its name holds a NUL character)")
    if config_path.is_dir():
        raise ConfigError(f"{what} '{path}' is a directory, not a TOML file")
    try:
        # Checked before it is opened: a FIFO or a device is named, never waited on or read without end.
        text = read_regular(config_path, MAX_CONFIG_BYTES).decode("utf-8").removeprefix("\ufeff")  # a BOM from some editors
        data = tomllib.loads(text)
    except FileRefused as error:
        raise ConfigError(f"{what} '{path}' {error.problem}; give the path of a TOML file") from None
    except FileNotFoundError:
        raise ConfigError(f"{what} '{path}' does not exist{_nearby_toml(config_path)}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{what} '{path}' is not valid TOML: not UTF-8 ({error.reason})") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{what} '{path}' is not valid TOML: {error}") from error
    except OSError as error:
        raise ConfigError(f"{what} '{path}' cannot be read: {error.strerror or error}") from error
    except RecursionError:
        raise ConfigError(f"{what} '{path}' is nested too deeply to be {noun}") from None
    except ValueError as error:  # tomllib's integers of more than 4,300 digits
        raise ConfigError(f"{what} '{path}' is not valid TOML: it holds an integer of more than 4,300 digits "
                          f"({' '.join(str(error).split(':')[:1])}); {noun}'s numbers have a few") from None
    return data


def _nearby_toml(path: Path) -> str:
    """Returns "; did you mean 'experiments/quick.toml'?" when a missing file's name, as a TOML file or in
    experiments/ (of the working directory), exists; else ""."""
    names = [path.with_name(path.name + ".toml")] if path.suffix != ".toml" else []
    if not path.is_absolute() and len(path.parts) == 1:
        names += [Path("experiments") / name.name for name in [path, *names]]
    found = next((name for name in names if name.is_file()), None)
    return f"; did you mean '{found}'?" if found is not None else ""


def load_config(path: str | os.PathLike[str], *, run_file: bool = False, check_weights: bool = True) -> Config:
    """Reads, validates and returns the experiment in the TOML file at ``path``.

    ``experiment.name`` defaults to the file's stem; weights files named in
    player specs are resolved against the file's directory and must exist
    (unless ``check_weights`` is false: a config read to be shown, not run).
    ``run_file``: the file is a run directory's config.toml, which may hold
    :data:`OBSOLETE_RUN_KEYS`.

    :raises ConfigError: if the file is missing, is not TOML or holds a bad config.
    """
    config_path = Path(path)
    data = read_toml(path)

    if run_file:
        for section, key in OBSOLETE_RUN_KEYS:
            if isinstance(data.get(section), dict):
                data[section].pop(key, None)
    experiment = data.get("experiment", {})
    named = isinstance(experiment, dict) and "name" in experiment
    if isinstance(experiment, dict) and not named:
        data["experiment"] = {"name": config_path.stem, **experiment}
    try:
        config = config_from_dict(data, base_dir=config_path.parent.absolute())
    except ConfigError as error:
        if named or not str(error).startswith("config key 'experiment.name'"):
            raise
        raise ConfigError(f"{error} (by default the config file's name; set experiment.name in it)") from None
    if not check_weights:
        return config
    for index, opponent in enumerate(config.fitness.opponents):
        weights = spec_weights_path(opponent.spec)
        if weights is None:
            continue
        key = f"fitness.opponents[{index}].spec"
        if not os.path.lexists(weights):
            raise ConfigError(
                f"config key '{key}': weights file '{weights}' does not exist; "
                f"fix the path (relative paths start at the config file's directory)"
            )
        # Read it now: a malformed table found by the first game would leave a half-made run directory.
        try:
            load_evaluation(weights)
        except WeightsError as error:
            raise ConfigError(f"config key '{key}': {error}") from error
    return config


def config_to_dict(config: Config) -> dict[str, dict[str, Any]]:
    """Returns every key of ``config`` with its value, as plain TOML types."""
    data: dict[str, dict[str, Any]] = _CONVERTER.unstructure(config)
    for section in data.values():
        for key, value in section.items():
            if isinstance(value, tuple):
                section[key] = list(value)
    return data


def config_to_toml(config: Config) -> str:
    """Returns ``config`` as TOML text that :func:`load_config` reads back unchanged."""
    data = config_to_dict(config)
    if not config.population.features:
        del data["population"]["features"]  # a table-only run's config.toml as it was before features
    for section in _OPTIONAL_SECTIONS:
        if getattr(config, section) == SECTIONS[section]():
            del data[section]  # a run without a network (or a TD step) writes its config.toml as before them
    return tomli_w.dumps(data)


def with_overrides(
    config: Config, *, seed: int | None = None, generations: int | None = None, workers: int | None = None,
    backend: str | None = None, address: str | None = None,
) -> Config:
    """Returns ``config`` with command-line overrides applied and validated.

    :raises ConfigError: naming the overridden key if a value is bad.
    """
    data = config_to_dict(config)
    for section, key, value in (
        ("experiment", "seed", seed),
        ("experiment", "generations", generations),
        ("compute", "workers", workers),
        ("compute", "backend", backend),
        ("compute", "address", address),
    ):
        if value is not None:
            data[section][key] = value
    return config_from_dict(data)


#: Sections a config.toml (and a checkpoint's settings) leaves out when they hold their defaults: the runs made
#: before them keep their files, and resume.
_OPTIONAL_SECTIONS = ("patterns", "td")

#: Keys that change no result: how long a run is, where and how fast it runs, names and notes.
_NOT_RESULTS = {"experiment": ("name", "description", "generations"), "compute": ("workers", "backend", "address"),
                "output": ("checkpoint_every", "checkpoint_seconds")}


def result_settings(config: Config) -> dict[str, Any]:
    """Returns the settings that decide a run's results, as dotted keys (a checkpoint records them)."""
    settings = {f"{section}.{key}": value for section, table in config_to_dict(config).items()
                for key, value in table.items() if key not in _NOT_RESULTS.get(section, ())}
    if not config.population.features:  # a table-only run's settings as before features: its checkpoints resume
        del settings["population.features"]
    for section in _OPTIONAL_SECTIONS:  # and as before networks and the TD step
        if getattr(config, section) == SECTIONS[section]():
            settings = {key: value for key, value in settings.items() if not key.startswith(f"{section}.")}
    return settings


def settings_difference(recorded: Mapping[str, Any], config: Config) -> str | None:
    """Returns the first setting where ``recorded`` and ``config`` differ, as text, or None if they agree."""
    current = result_settings(config)
    for key in sorted(set(recorded) | set(current)):
        if recorded.get(key) != current.get(key):
            return f"{key} = {recorded.get(key)!r} there, {current.get(key)!r} in config.toml"
    return None


def documented_keys() -> Iterable[tuple[str, str, Any, str]]:
    """Yields (section, key, default, doc) of every config key, in schema order."""
    for section, cls in SECTIONS.items():
        for field in attrs.fields(cls):
            default = field.default.factory() if isinstance(field.default, attrs.Factory) else field.default
            yield section, field.name, default, field.metadata.get("doc", "")
