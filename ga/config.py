"""Experiment configuration: one TOML file per experiment, validated in full.

The schema lives in the dataclasses below: each field's default is the
default setting and its ``rule`` metadata says what values are allowed.
:func:`config_from_dict` is pure; :func:`load_config` is the only function
that touches the file system. Every problem is reported as one
:class:`ConfigError` line that names the dotted key, e.g.
``config key 'selection.method': unknown value 'tourney'; expected one of …``.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, Protocol, get_args

import tomli_w

from ga.weights import WeightsError, load_weights

__all__ = [
    "ConfigError",
    "Config",
    "ExperimentConfig",
    "PopulationConfig",
    "SelectionConfig",
    "CrossoverConfig",
    "MutationConfig",
    "OpponentConfig",
    "FitnessConfig",
    "ComputeConfig",
    "OutputConfig",
    "GENOME_LENGTHS",
    "HELD_OUT_OPPONENTS",
    "EVOLVABLE_KINDS",
    "load_config",
    "config_from_dict",
    "config_to_dict",
    "config_to_toml",
    "with_overrides",
    "spec_weights_path",
]

Genome = Literal["full", "sym8", "sym4", "phase"]
SelectionMethod = Literal["adjacent-pairs", "tournament", "best", "roulette", "stochastic-universal"]
CrossoverMethod = Literal["one-point", "two-point", "uniform", "blend", "none"]
MutationMethod = Literal["reset", "gaussian"]
Draw = Literal["one", "all"]
Colours = Literal["black", "white", "both"]
Score = Literal["win_rate", "disc_diff"]
Backend = Literal["local", "dask"]

#: Genes per individual for each genome layout. sym8 ties the 64 squares into
#: the 10 orbits of the board's 8 symmetries; sym4 into the 20 orbits of the
#: 4 symmetries that keep the start position (Burnside: (64 + 8 + 8 + 0) / 4).
GENOME_LENGTHS: dict[str, int] = {"full": 64, "sym8": 10, "sym4": 20, "phase": 128}

#: Opponents kept out of training when ``experiment.held_out_claim`` is set;
#: matched against a spec's kind and its table name.
HELD_OUT_OPPONENTS: frozenset[str] = frozenset({"heuristic", "lr06", "sjk11", "random"})

#: Player kinds that play by a weights table: the evolved individual, or ``@TABLE`` for an opponent.
EVOLVABLE_KINDS: frozenset[str] = frozenset({"nhand_custom", "wpc", "alphabeta"})

# Used only when the engine cannot be imported (it is not built): the grammar of engine.players.
_FALLBACK_KINDS = ("random", "nhand", "nhand_custom", "wpc", "nleast", "nmost", "alphabeta", "human")
_FALLBACK_SYNTAX = re.compile(
    r"(?P<kind>[a-z_]+)(?::(?P<depth>[0-9]+))?(?:@(?P<table>[^,\s][^,]*))?(?P<options>(?:,[^,]*)*)"
)
# Splits any text into spec parts; never fails, so it is safe after parse_spec accepted the text.
_SPEC_PARTS = re.compile(
    r"(?P<kind>[^:@,]*)(?::(?P<depth>[^@,]*))?(?:@(?P<table>[^,]*))?(?:,(?P<options>.*))?", re.S
)
_INT64_MAX = 2**63 - 1  # TOML integers are 64-bit


class ConfigError(ValueError):
    """A config file or value is unusable; the message is one line naming the key."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.splitlines()))


# --- value rules -------------------------------------------------------------


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
        return f"string {text!r}"
    if isinstance(value, Mapping):
        return "table"
    if isinstance(value, (list, tuple)):
        return f"array of {len(value)} items"
    if value is None:
        return "no value (None)"
    return type(value).__name__


def _format_bound(bound: float) -> str:
    return repr(bound) if isinstance(bound, float) else str(bound)


class _Rule(Protocol):
    def parse(self, key: str, value: object) -> Any:
        """Returns ``value`` checked (and for numbers, converted) for config key ``key``."""
        ...


@dataclass(frozen=True)
class _Integer:
    minimum: int | None = None
    maximum: int | None = None

    def parse(self, key: str, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"config key '{key}' must be an integer, got {_describe(value)}")
        _check_range(key, value, self.minimum, self.maximum if self.maximum is not None else _INT64_MAX)
        return value


@dataclass(frozen=True)
class _Number:
    minimum: float | None = None
    maximum: float | None = None
    positive: bool = False  # strictly greater than 0

    def parse(self, key: str, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"config key '{key}' must be a number, got {_describe(value)}")
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number):
            raise ConfigError(f"config key '{key}' must be a finite number, got {_describe(value)}")
        if self.positive and number <= 0:
            raise ConfigError(f"config key '{key}' must be greater than 0, got {number!r}")
        _check_range(key, number, self.minimum, self.maximum)
        return number


def _check_range(key: str, value: float, minimum: float | None, maximum: float | None) -> None:
    shown = repr(value) if isinstance(value, float) else str(value)
    if minimum is not None and maximum is not None and not minimum <= value <= maximum:
        raise ConfigError(
            f"config key '{key}' must be between {_format_bound(minimum)} and {_format_bound(maximum)}, got {shown}"
        )
    if minimum is not None and value < minimum:
        raise ConfigError(f"config key '{key}' must be at least {_format_bound(minimum)}, got {shown}")
    if maximum is not None and value > maximum:
        raise ConfigError(f"config key '{key}' must be at most {_format_bound(maximum)}, got {shown}")


@dataclass(frozen=True)
class _Boolean:
    def parse(self, key: str, value: object) -> bool:
        if not isinstance(value, bool):
            raise ConfigError(f"config key '{key}' must be a boolean (true or false), got {_describe(value)}")
        return value


@dataclass(frozen=True)
class _Text:
    def parse(self, key: str, value: object) -> str:
        if not isinstance(value, str):
            raise ConfigError(f"config key '{key}' must be a string, got {_describe(value)}")
        return value


@dataclass(frozen=True)
class _Name:
    """A run name: it becomes a directory under results/."""

    def parse(self, key: str, value: object) -> str:
        name = _Text().parse(key, value)
        if not name.strip() or name in (".", "..") or "/" in name or "\\" in name:
            raise ConfigError(
                f"config key '{key}' must be a non-empty name without path separators, got {_describe(value)}"
            )
        return name


@dataclass(frozen=True)
class _Choice:
    values: tuple[str, ...]

    def parse(self, key: str, value: object) -> str:
        expected = ", ".join(self.values)
        if not isinstance(value, str):
            raise ConfigError(f"config key '{key}' must be one of {expected}, got {_describe(value)}")
        if value not in self.values:
            raise ConfigError(f"config key '{key}': unknown value {value!r}; expected one of {expected}")
        return value


@dataclass(frozen=True)
class _Opponents:
    """A non-empty array of ``{spec, weight}`` tables or plain spec strings."""

    def parse(self, key: str, value: object) -> tuple[OpponentConfig, ...]:
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"config key '{key}' must be an array of opponents, got {_describe(value)}")
        if not value:
            raise ConfigError(f"config key '{key}' must list at least one opponent, e.g. [\"random\"]")
        return tuple(_parse_opponent(f"{key}[{index}]", entry) for index, entry in enumerate(value))


@dataclass(frozen=True)
class _Specs:
    """An array (possibly empty) of player spec strings."""

    def parse(self, key: str, value: object) -> tuple[str, ...]:
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"config key '{key}' must be an array of player specs, got {_describe(value)}")
        return tuple(_Text().parse(f"{key}[{index}]", entry) for index, entry in enumerate(value))


def _parse_opponent(key: str, entry: object) -> OpponentConfig:
    if isinstance(entry, str):
        return OpponentConfig(spec=entry)
    if not isinstance(entry, Mapping):
        raise ConfigError(
            f"config key '{key}' must be a spec string or a table {{spec, weight}}, got {_describe(entry)}"
        )
    _reject_unknown_keys(key, entry, ("spec", "weight"))
    if "spec" not in entry:
        raise ConfigError(f"config key '{key}.spec' is required; add e.g. spec = \"random\"")
    spec = _Text().parse(f"{key}.spec", entry["spec"])
    weight = _Number(positive=True).parse(f"{key}.weight", entry["weight"]) if "weight" in entry else 1.0
    return OpponentConfig(spec=spec, weight=weight)


def _setting(default: Any, rule: _Rule) -> Any:
    """Declares a config key: its default and the rule its values must pass."""
    return field(default=default, metadata={"rule": rule})


# --- the schema ----------------------------------------------------------------


@dataclass(frozen=True)
class ExperimentConfig:
    """[experiment]: what the run is called and how long it lasts."""

    name: str = _setting("experiment", _Name())  # results/<name>/; load_config defaults it to the file stem
    seed: int = _setting(0, _Integer(minimum=0))  # seeds every random generator of the run
    generations: int = _setting(100, _Integer(minimum=1))
    description: str = _setting("", _Text())
    held_out_claim: bool = _setting(False, _Boolean())  # keeps HELD_OUT_OPPONENTS out of training


@dataclass(frozen=True)
class PopulationConfig:
    """[population]: how many individuals and how their genes map to the board."""

    size: int = _setting(32, _Integer(minimum=2))
    parents: int = _setting(16, _Integer(minimum=2))  # <= size
    genome: Genome = _setting("full", _Choice(get_args(Genome)))
    phase_move: int = _setting(40, _Integer(minimum=1, maximum=59))  # "phase": table 0 before this move
    init_low: float = _setting(-1.0, _Number())  # initial genes uniform in [init_low, init_high]
    init_high: float = _setting(1.0, _Number())

    @property
    def genome_length(self) -> int:
        """Returns the number of genes per individual."""
        return GENOME_LENGTHS[self.genome]


@dataclass(frozen=True)
class SelectionConfig:
    """[selection]: how parents are chosen."""

    method: SelectionMethod = _setting("tournament", _Choice(get_args(SelectionMethod)))
    tournament_size: int = _setting(3, _Integer(minimum=2))  # <= population.size
    elitism: int = _setting(0, _Integer(minimum=0))  # best individuals copied unchanged; < population.size
    reevaluate_elites: bool = _setting(True, _Boolean())  # fitness is noisy: re-play elites each generation


@dataclass(frozen=True)
class CrossoverConfig:
    """[crossover]: how two parents make children."""

    method: CrossoverMethod = _setting("one-point", _Choice(get_args(CrossoverMethod)))
    probability: float = _setting(1.0, _Number(minimum=0, maximum=1))  # per pair
    gene_probability: float = _setting(0.5, _Number(minimum=0, maximum=1))  # uniform: per-gene swap
    alpha: float = _setting(0.5, _Number(minimum=0))  # blend: BLX-alpha extent


@dataclass(frozen=True)
class MutationConfig:
    """[mutation]: how children's genes change."""

    method: MutationMethod = _setting("reset", _Choice(get_args(MutationMethod)))
    gene_probability: float = _setting(0.03, _Number(minimum=0, maximum=1))
    sigma: float = _setting(0.1, _Number(positive=True))  # gaussian step
    low: float = _setting(-1.0, _Number())  # reset range and gaussian clip range
    high: float = _setting(1.0, _Number())


@dataclass(frozen=True)
class OpponentConfig:
    """One training opponent: a player spec and its weight when drawing."""

    spec: str
    weight: float = 1.0


_DEFAULT_OPPONENTS = tuple(OpponentConfig(spec) for spec in ("random", "nhand:1", "nhand:2", "nleast:1", "nmost:1"))


@dataclass(frozen=True)
class FitnessConfig:
    """[fitness]: the games that score an individual."""

    player: str = _setting("nhand_custom:1", _Text())  # the individual's player; no @table
    eps: float = _setting(0.0, _Number(minimum=0, maximum=1))  # chance the individual plays a random move
    opponents: tuple[OpponentConfig, ...] = _setting(_DEFAULT_OPPONENTS, _Opponents())
    draw: Draw = _setting("one", _Choice(get_args(Draw)))  # one opponent by weight, or all of them
    games_per_opponent: int = _setting(1, _Integer(minimum=1))
    colours: Colours = _setting("black", _Choice(get_args(Colours)))  # the individual's colour
    common_random_numbers: bool = _setting(False, _Boolean())  # same opponents and game seeds for all individuals
    score: Score = _setting("win_rate", _Choice(get_args(Score)))
    coevolution: int = _setting(0, _Integer(minimum=0))  # games against population members
    hall_of_fame_games: int = _setting(0, _Integer(minimum=0))
    hall_of_fame_size: int = _setting(10, _Integer(minimum=1))
    random_table_games: int = _setting(0, _Integer(minimum=0))  # games against fresh U(-1, 1) tables each generation


@dataclass(frozen=True)
class ComputeConfig:
    """[compute]: where the games run."""

    workers: int = _setting(0, _Integer(minimum=0))  # 0 = all cores
    backend: Backend = _setting("local", _Choice(get_args(Backend)))
    address: str = _setting("", _Text())  # dask scheduler, e.g. "tcp://host:8786"
    batch: int = _setting(0, _Integer(minimum=0))  # individuals per task; 0 = automatic


@dataclass(frozen=True)
class OutputConfig:
    """[output]: what the run writes besides the logbook."""

    games_csv: bool = _setting(True, _Boolean())
    checkpoint_every: int = _setting(1, _Integer(minimum=1))  # generations


@dataclass(frozen=True)
class FinalConfig:
    """[final]: how the run's best table is chosen once the generations are done."""

    games: int = _setting(0, _Integer(minimum=0))  # per pairing of the final tournament; 0 = fittest of the last generation


@dataclass(frozen=True)
class RefineConfig:
    """[refine]: CMA-ES from the run's best table on a held-in panel, after the generations."""

    generations: int = _setting(0, _Integer(minimum=0))  # 0 = no refinement
    restarts: int = _setting(0, _Integer(minimum=0))  # more runs (derived seeds) whose best tables join the panel
    candidates: int = _setting(12, _Integer(minimum=2, maximum=1000))  # CMA-ES lambda
    sigma: float = _setting(0.05, _Number(positive=True))  # first step, on a table scaled to a largest weight of 1
    games: int = _setting(4000, _Integer(minimum=2))  # per panel group and candidate
    eps: float = _setting(0.1, _Number(minimum=0, maximum=1))  # both players', against opponents and restarts
    opponents: tuple[str, ...] = _setting((), _Specs())  # fixed panel opponents (player specs)
    weight_opponents: float = _setting(1.0, _Number(minimum=0))
    weight_restarts: float = _setting(1.0, _Number(minimum=0))
    weight_random_tables: float = _setting(2.0, _Number(minimum=0))  # random U(-1, 1) tables at eps 0


@dataclass(frozen=True)
class Config:
    """A whole experiment; ``Config()`` is the all-defaults experiment."""

    experiment: ExperimentConfig = field(default_factory=ExperimentConfig)
    population: PopulationConfig = field(default_factory=PopulationConfig)
    selection: SelectionConfig = field(default_factory=SelectionConfig)
    crossover: CrossoverConfig = field(default_factory=CrossoverConfig)
    mutation: MutationConfig = field(default_factory=MutationConfig)
    fitness: FitnessConfig = field(default_factory=FitnessConfig)
    compute: ComputeConfig = field(default_factory=ComputeConfig)
    output: OutputConfig = field(default_factory=OutputConfig)
    final: FinalConfig = field(default_factory=FinalConfig)
    refine: RefineConfig = field(default_factory=RefineConfig)


_SECTIONS: dict[str, type] = {f.name: f.default_factory for f in fields(Config)}  # type: ignore[misc]


# --- parsing -------------------------------------------------------------------


def _reject_unknown_keys(prefix: str, table: Mapping[Any, object], known: Sequence[str]) -> None:
    for raw_key in table:
        if isinstance(raw_key, str) and raw_key in known:
            continue
        key = str(raw_key) if str(raw_key).isprintable() else repr(str(raw_key))[1:-1]
        dotted = f"{prefix}.{key}" if prefix else key
        close = difflib.get_close_matches(key, known, n=1)
        if close:
            suggestion = f"{prefix}.{close[0]}" if prefix else close[0]
            raise ConfigError(f"config key '{dotted}' is not known; did you mean '{suggestion}'?")
        where = f"[{prefix}] takes" if prefix else "the sections are"
        raise ConfigError(f"config key '{dotted}' is not known; {where} {', '.join(known)}")


def _rule(setting: dataclasses.Field[Any]) -> _Rule:
    rule: _Rule = setting.metadata["rule"]
    return rule


def _parse_section(name: str, table: object) -> Any:
    cls = _SECTIONS[name]
    if not isinstance(table, Mapping):
        raise ConfigError(f"config key '{name}' must be a table [{name}], got {_describe(table)}")
    keys = [f.name for f in fields(cls)]
    _reject_unknown_keys(name, table, keys)
    values = {
        f.name: _rule(f).parse(f"{name}.{f.name}", table[f.name]) for f in fields(cls) if f.name in table
    }
    return cls(**values)


def config_from_dict(data: Mapping[str, Any], base_dir: Path | None = None) -> Config:
    """Returns the validated config for ``data`` (as read from TOML), defaults filled in.

    Relative weights-file paths in player specs are resolved against ``base_dir``
    when given; no file is opened.

    :raises ConfigError: on the first unknown key, wrong type, bad value or inconsistency.
    """
    if not isinstance(data, Mapping):
        raise ConfigError(f"config must be a table of sections ({', '.join(_SECTIONS)}), got {_describe(data)}")
    _reject_unknown_keys("", data, list(_SECTIONS))
    sections = {name: _parse_section(name, data[name]) for name in _SECTIONS if name in data}
    config = Config(**sections)
    _check_population(config)
    _check_selection(config)
    _check_bounds(config)
    _check_compute(config)
    fitness = _check_fitness(config.fitness, config.experiment.held_out_claim, base_dir)
    refine = _check_refine(config, base_dir)
    return dataclasses.replace(config, fitness=fitness, refine=refine)


def _check_population(config: Config) -> None:
    population = config.population
    if population.parents > population.size:
        raise ConfigError(
            f"config key 'population.parents' must be at most population.size ({population.size}), "
            f"got {population.parents}"
        )


def _check_selection(config: Config) -> None:
    size = config.population.size
    selection = config.selection
    if selection.tournament_size > size:
        raise ConfigError(
            f"config key 'selection.tournament_size' must be at most population.size ({size}), "
            f"got {selection.tournament_size}"
        )
    if selection.elitism >= size:
        raise ConfigError(
            f"config key 'selection.elitism' must be less than population.size ({size}), got {selection.elitism}"
        )
    if selection.method in ("roulette", "stochastic-universal") and config.fitness.score == "disc_diff":
        raise ConfigError(
            f"config key 'selection.method': {selection.method} needs non-negative fitness; "
            "use fitness.score = \"win_rate\" or another selection method"
        )
    if selection.method == "adjacent-pairs":
        if size % 2:
            raise ConfigError(
                f"config key 'population.size' must be even when selection.method is 'adjacent-pairs', got {size}"
            )
        if config.population.parents != size // 2:
            raise ConfigError(
                f"config key 'population.parents' must be population.size // 2 ({size // 2}) "
                f"when selection.method is 'adjacent-pairs', got {config.population.parents}"
            )


def _check_bounds(config: Config) -> None:
    for key, low, high in (
        ("population.init_low", config.population.init_low, config.population.init_high),
        ("mutation.low", config.mutation.low, config.mutation.high),
    ):
        if not low < high:
            high_key = key.replace("low", "high")
            raise ConfigError(f"config key '{key}' must be less than {high_key} ({high!r}), got {low!r}")


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


def _fallback_parse_spec(text: str) -> None:
    """Checks ``KIND[:DEPTH][@TABLE][,eps=E][,phase=N]`` while the engine is not built.

    :raises ValueError: naming what is wrong with ``text``.
    """
    syntax = "KIND[:DEPTH][@TABLE][,eps=E][,phase=N]"
    match = _FALLBACK_SYNTAX.fullmatch(text)
    if match is None:
        raise ValueError(f"bad player spec {text!r}: expected {syntax}, e.g. 'nhand:2' or 'wpc:1@heuristic'")
    if match["kind"] not in _FALLBACK_KINDS:
        kinds = ", ".join(_FALLBACK_KINDS)
        raise ValueError(f"bad player spec {text!r}: unknown kind {match['kind']!r}; expected one of {kinds}")
    if match["depth"] is not None and int(match["depth"]) < 1:
        raise ValueError(f"bad player spec {text!r}: depth must be at least 1")
    for option in match["options"].split(",")[1:]:
        name, _, value = option.partition("=")
        if name == "eps":
            try:
                eps = float(value)
            except ValueError:
                eps = math.nan
            if not 0 <= eps <= 1:
                raise ValueError(f"bad player spec {text!r}: eps must be a number between 0 and 1")
        elif name == "phase":
            if not (value.isascii() and value.isdigit() and 1 <= int(value) <= 59):
                raise ValueError(f"bad player spec {text!r}: phase must be a move number in 1..59")
        else:
            raise ValueError(f"bad player spec {text!r}: unknown option {option!r}; options are eps=E and phase=N")


def _spec_parser() -> Callable[[str], object]:
    try:
        from engine.players import parse_spec
    except ImportError:
        return _fallback_parse_spec
    return parse_spec  # type: ignore[no-any-return]


def _is_path(table: str) -> bool:
    """Tells a weights-file table (``@runs/best.csv``) from a named one (``@lr06``)."""
    return "/" in table or "\\" in table or "." in table


def _spec_parts(spec: str) -> re.Match[str]:
    match = _SPEC_PARTS.fullmatch(spec)
    assert match is not None  # every string matches
    return match


def spec_weights_path(spec: str) -> Path | None:
    """Returns the weights file a spec's ``@TABLE`` names, or None for a built-in table or none."""
    table = _spec_parts(spec)["table"]
    return Path(table.strip()) if table is not None and _is_path(table) else None


def _resolve_table(spec: str, base_dir: Path | None) -> str:
    """Returns ``spec`` with a relative weights-file path made relative to ``base_dir``."""
    match = _spec_parts(spec)
    table = match["table"]
    if base_dir is None or table is None or not _is_path(table) or Path(table.strip()).is_absolute():
        return spec
    resolved = os.path.normpath(base_dir / table.strip())
    return spec[: match.start("table")] + resolved + spec[match.end("table") :]


def _check_spec(key: str, spec: str, parse_spec: Callable[[str], object]) -> None:
    try:
        parse_spec(spec)
    except ValueError as error:
        raise ConfigError(f"config key '{key}': {error}") from error


def _check_fitness(fitness: FitnessConfig, held_out_claim: bool, base_dir: Path | None) -> FitnessConfig:
    parse_spec = _spec_parser()
    _check_spec("fitness.player", fitness.player, parse_spec)
    player = _spec_parts(fitness.player)
    kind = player["kind"].strip()
    if kind not in EVOLVABLE_KINDS:
        raise ConfigError(
            f"config key 'fitness.player': kind {kind!r} has no table to evolve; "
            f"use one of {', '.join(sorted(EVOLVABLE_KINDS))}, e.g. 'nhand_custom:1'"
        )
    if player["table"] is not None:
        raise ConfigError(
            f"config key 'fitness.player' must not name a table (@{player['table']}): the individual is the table; "
            f"remove '@{player['table']}'"
        )
    if player["options"] is not None:
        raise ConfigError(
            f"config key 'fitness.player' must not set options (,{player['options']}); "
            f"set fitness.eps and population.phase_move instead"
        )

    opponents = [
        dataclasses.replace(opponent, spec=_check_opponent(f"fitness.opponents[{index}].spec", opponent.spec,
                                                           held_out_claim, base_dir, parse_spec))
        for index, opponent in enumerate(fitness.opponents)
    ]
    return dataclasses.replace(fitness, opponents=tuple(opponents))


def _check_opponent(
    key: str, spec: str, held_out_claim: bool, base_dir: Path | None, parse_spec: Callable[[str], object]
) -> str:
    """Returns a training opponent's spec with its weights path resolved, or raises naming ``key``."""
    spec = _resolve_table(spec, base_dir)
    _check_spec(key, spec, parse_spec)
    parts = _spec_parts(spec)
    opponent_kind = parts["kind"].strip()
    if opponent_kind == "human":
        raise ConfigError(f"config key '{key}': a human cannot be a training opponent; remove it")
    table = parts["table"].strip() if parts["table"] is not None else None
    if opponent_kind in EVOLVABLE_KINDS and table is None:
        at = parts.start("options") - 1 if parts["options"] is not None else len(spec)
        raise ConfigError(
            f"config key '{key}': opponent {spec!r} needs a weights table, "
            f"e.g. '{spec[:at]}@heuristic{spec[at:]}'"
        )
    held_out = {opponent_kind, table} & HELD_OUT_OPPONENTS
    if held_out_claim and held_out:
        raise ConfigError(
            f"config key '{key}': opponent {spec!r} uses held-out {sorted(held_out)[0]!r} "
            f"while experiment.held_out_claim is true; remove it or set held_out_claim = false"
        )
    return spec


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
        if refine.weight_restarts and not refine.restarts:
            raise ConfigError(
                "config key 'refine.restarts' must be at least 1 when refine.weight_restarts is above 0; "
                "set restarts or weight_restarts = 0"
            )
    parse_spec = _spec_parser()
    specs = tuple(_check_opponent(f"refine.opponents[{index}]", spec, config.experiment.held_out_claim, base_dir,
                                  parse_spec) for index, spec in enumerate(refine.opponents))
    return dataclasses.replace(refine, opponents=specs)


# --- I/O and conversions -----------------------------------------------------------


def load_config(path: str | os.PathLike[str]) -> Config:
    """Reads, validates and returns the experiment in the TOML file at ``path``.

    ``experiment.name`` defaults to the file's stem; weights files named in
    player specs are resolved against the file's directory and must exist.

    :raises ConfigError: if the file is missing, is not TOML or holds a bad config.
    """
    config_path = Path(path)
    if not _is_file(config_path):
        problem = "is a directory, not a TOML file" if config_path.is_dir() else "does not exist"
        raise ConfigError(f"config file '{path}' {problem}")
    try:
        text = config_path.read_bytes().decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError as error:
        raise ConfigError(f"config file '{path}' is not valid TOML: not UTF-8 ({error.reason})") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"config file '{path}' is not valid TOML: {error}") from error
    except OSError as error:
        raise ConfigError(f"config file '{path}' cannot be read: {error.strerror or error}") from error

    experiment = data.get("experiment", {})
    if isinstance(experiment, dict) and "name" not in experiment:
        data["experiment"] = {"name": config_path.stem, **experiment}
    config = config_from_dict(data, base_dir=config_path.parent.absolute())

    for index, opponent in enumerate(config.fitness.opponents):
        weights = spec_weights_path(opponent.spec)
        if weights is None:
            continue
        key = f"fitness.opponents[{index}].spec"
        if not _is_file(weights):
            raise ConfigError(
                f"config key '{key}': weights file '{weights}' does not exist; "
                f"fix the path (relative paths start at the config file's directory)"
            )
        # Read it now: a malformed table found by the first game would leave a half-made run directory.
        try:
            load_weights(weights)
        except WeightsError as error:
            raise ConfigError(f"config key '{key}': {error}") from error
    return config


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # ValueError: an embedded NUL byte
        return False


def config_to_dict(config: Config) -> dict[str, dict[str, Any]]:
    """Returns every key of ``config`` with its value, as plain TOML types."""
    return {
        name: {
            f.name: _plain(getattr(getattr(config, name), f.name)) for f in fields(getattr(config, name))
        }
        for name in _SECTIONS
    }


def _plain(value: object) -> Any:
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    if isinstance(value, OpponentConfig):
        return {"spec": value.spec, "weight": value.weight}
    return value


def config_to_toml(config: Config) -> str:
    """Returns ``config`` as TOML text that :func:`load_config` reads back unchanged."""
    return tomli_w.dumps(config_to_dict(config))


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
