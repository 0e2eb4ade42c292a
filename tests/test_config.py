"""Tests for ga.config: the experiment files, defaults, round trips and every kind of bad value."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import attrs

from ga.config import (
    SECTIONS,
    Config,
    ConfigError,
    OpponentConfig,
    config_from_dict,
    config_to_dict,
    config_to_toml,
    load_config,
    replace,
    spec_weights_path,
    with_overrides,
)
from engine.tables import TABLES
from ga.evolution.genome import genome_length

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "experiments"


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_for(data: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as caught:
        config_from_dict(data)
    message = str(caught.value)
    assert "\n" not in message
    return message


# --- the experiment files -------------------------------------------------------


def test_seed2021_is_the_blog_experiment() -> None:
    config = load_config(EXPERIMENTS / "seed2021.toml")
    assert config.experiment.name == "seed2021"
    assert config.experiment.seed == 2021
    assert config.experiment.generations == 1000
    assert (config.population.size, config.population.parents) == (32, 16)
    assert (config.population.init_low, config.population.init_high) == (-1.0, 1.0)
    assert config.population.genome == "full"
    assert config.selection.method == "adjacent-pairs"
    assert config.selection.elitism == 0
    assert (config.crossover.method, config.crossover.probability) == ("one-point", 1.0)
    assert config.mutation.method == "reset"
    assert config.mutation.gene_probability == 0.03
    assert (config.mutation.low, config.mutation.high) == (-1.0, 1.0)
    fitness = config.fitness
    assert fitness.player == "nhand_custom:1"
    assert fitness.eps == 0.0
    assert fitness.opponents == tuple(
        OpponentConfig(spec, 1.0) for spec in ("random", "nhand:1", "nhand:2", "nleast:1", "nmost:1")
    )
    assert (fitness.draw, fitness.games_per_opponent, fitness.colours) == ("one", 1, "black")
    assert fitness.common_random_numbers is False
    assert fitness.score == "disc_diff"


def test_quick_is_tiny() -> None:
    config = load_config(EXPERIMENTS / "quick.toml")
    assert config.experiment.name == "quick"
    assert config.experiment.generations == 10
    assert (config.population.size, config.population.parents) == (16, 8)
    assert (config.selection.method, config.selection.tournament_size, config.selection.elitism) == ("tournament", 3, 1)
    assert config.fitness.colours == "both"
    assert config.fitness.games_per_opponent == 2
    assert config.fitness.draw == "all"
    assert config.fitness.opponents == (OpponentConfig("random"), OpponentConfig("nhand:1"))


@pytest.mark.parametrize("name", ["seed2021.toml", "quick.toml"])
def test_experiment_files_round_trip(name: str) -> None:
    config = load_config(EXPERIMENTS / name)
    assert config_from_dict(config_to_dict(config)) == config
    assert config_from_dict(tomllib.loads(config_to_toml(config))) == config


# --- defaults and round trips ------------------------------------------------------


def test_empty_dict_gives_the_defaults() -> None:
    config = config_from_dict({})
    assert config == Config()
    assert config.experiment.name == "experiment"
    assert (config.experiment.seed, config.experiment.generations) == (0, 100)
    assert (config.population.size, config.population.parents, config.population.phase_move) == (32, 16, 40)
    assert config.selection.method == "tournament"
    assert config.selection.reevaluate_elites is True
    assert config.crossover.method == "one-point"
    assert config.mutation.gene_probability == 0.03
    assert [o.spec for o in config.fitness.opponents] == ["random", "nhand:1", "nhand:2", "nleast:1", "nmost:1"]
    assert config.fitness.score == "win_rate"
    assert config.fitness.hall_of_fame_size == 10
    assert (config.compute.workers, config.compute.backend) == (0, "local")
    assert (config.output.games_csv, config.output.checkpoint_every) == (True, 1)


def test_empty_file_takes_its_name_from_the_file(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "", "my-run.toml"))
    assert config == replace(Config(), experiment=replace(Config().experiment, name="my-run"))


def test_explicit_name_beats_the_file_stem(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[experiment]\nname = "other"\nseed = 5\n', "my-run.toml"))
    assert config.experiment.name == "other"
    assert config.experiment.seed == 5


def test_to_dict_lists_every_key_of_every_section() -> None:
    data = config_to_dict(Config())
    for section, cls in SECTIONS.items():
        assert set(data[section]) == {f.name for f in attrs.fields(cls)}
    assert data["fitness"]["opponents"][0] == {"spec": "random", "weight": 1.0}


def test_toml_text_loads_back_equal(tmp_path: Path) -> None:
    config = load_config(EXPERIMENTS / "seed2021.toml")
    assert load_config(write(tmp_path, config_to_toml(config), "copy.toml")) == config


def test_plain_string_opponents_mean_weight_one() -> None:
    config = config_from_dict({"fitness": {"opponents": ["random", {"spec": "nhand:2", "weight": 3}]}})
    assert config.fitness.opponents == (OpponentConfig("random", 1.0), OpponentConfig("nhand:2", 3.0))


def test_ints_are_accepted_where_floats_are_expected() -> None:
    config = config_from_dict({"population": {"init_low": -2, "init_high": 2}, "crossover": {"probability": 1}})
    assert config.population.init_low == -2.0 and isinstance(config.population.init_low, float)
    assert isinstance(config.crossover.probability, float)


@pytest.mark.parametrize(("genome", "length"), [("full", 64), ("sym8", 10), ("sym4", 20), ("phase", 128)])
def test_genome_length(genome: str, length: int) -> None:
    assert genome_length(config_from_dict({"population": {"genome": genome}}).population.genome) == length


def test_sym4_length_counts_the_orbits() -> None:
    def orbit(square: int) -> frozenset[int]:
        row, col = divmod(square, 8)
        images = [(row, col), (col, row), (7 - col, 7 - row), (7 - row, 7 - col)]
        return frozenset(r * 8 + c for r, c in images)

    def orbit8(square: int) -> frozenset[int]:
        row, col = divmod(square, 8)
        images = set()
        for r, c in [(row, col), (col, row)]:
            images |= {(r, c), (7 - r, c), (r, 7 - c), (7 - r, 7 - c)}
        return frozenset(r * 8 + c for r, c in images)

    assert len({orbit(square) for square in range(64)}) == genome_length("sym4")
    assert len({orbit8(square) for square in range(64)}) == genome_length("sym8")


# --- overrides ------------------------------------------------------------------------


def test_overrides_replace_only_what_is_given() -> None:
    config = load_config(EXPERIMENTS / "quick.toml")
    changed = with_overrides(config, seed=7, generations=3, workers=2)
    assert (changed.experiment.seed, changed.experiment.generations, changed.compute.workers) == (7, 3, 2)
    assert replace(
        changed,
        experiment=config.experiment,
        compute=config.compute,
    ) == config
    assert with_overrides(config) == config


@pytest.mark.parametrize(
    ("overrides", "key"),
    [
        ({"seed": -1}, "experiment.seed"),
        ({"generations": 0}, "experiment.generations"),
        ({"workers": -2}, "compute.workers"),
        ({"seed": True}, "experiment.seed"),
        ({"generations": "5"}, "experiment.generations"),
    ],
)
def test_bad_overrides_name_the_key(overrides: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError, match=f"config key '{key}'"):
        with_overrides(Config(), **overrides)


# --- bad values: each names its key ------------------------------------------------------


def test_unknown_key_suggests_the_right_one() -> None:
    assert error_for({"population": {"sise": 4}}) == (
        "config key 'population.sise' is not known; did you mean 'population.size'?"
    )


def test_unknown_section_suggests_the_right_one() -> None:
    assert error_for({"populaton": {}}) == "config key 'populaton' is not known; did you mean 'population'?"


def test_unknown_key_without_a_close_match_lists_the_known_keys() -> None:
    message = error_for({"output": {"zzzz": 1}})
    assert message.startswith("config key 'output.zzzz' is not known;")
    assert "games_csv" in message and "checkpoint_every" in message


def test_wrong_type_message() -> None:
    assert error_for({"population": {"size": "32"}}) == (
        "config key 'population.size' must be an integer, got string '32'"
    )


def test_bad_enum_message() -> None:
    assert error_for({"selection": {"method": "tourney"}}) == (
        "config key 'selection.method': unknown value 'tourney'; "
        "expected one of adjacent-pairs, tournament, best, roulette, stochastic-universal"
    )


def test_booleans_are_not_integers() -> None:
    assert "must be an integer, got boolean true" in error_for({"population": {"size": True}})


BAD_VALUES: list[tuple[dict[str, Any], str]] = [
    # wrong types
    ({"experiment": {"seed": 1.0}}, "experiment.seed"),
    ({"experiment": {"seed": False}}, "experiment.seed"),
    ({"experiment": {"name": 3}}, "experiment.name"),
    ({"experiment": {"held_out_claim": 1}}, "experiment.held_out_claim"),
    ({"experiment": {"description": ["a"]}}, "experiment.description"),
    ({"population": {"init_low": True}}, "population.init_low"),
    ({"population": {"init_low": "0"}}, "population.init_low"),
    ({"population": {"genome": 64}}, "population.genome"),
    ({"selection": {"reevaluate_elites": "yes"}}, "selection.reevaluate_elites"),
    ({"crossover": {"alpha": None}}, "crossover.alpha"),
    ({"fitness": {"player": 1}}, "fitness.player"),
    ({"fitness": {"common_random_numbers": 0}}, "fitness.common_random_numbers"),
    ({"compute": {"address": 8786}}, "compute.address"),
    ({"output": {"games_csv": "true"}}, "output.games_csv"),
    ({"population": 3}, "population"),
    ({"fitness": []}, "fitness"),
    # out of range
    ({"experiment": {"seed": -1}}, "experiment.seed"),
    ({"experiment": {"seed": 2**64}}, "experiment.seed"),
    ({"experiment": {"generations": 0}}, "experiment.generations"),
    ({"experiment": {"name": ""}}, "experiment.name"),
    ({"experiment": {"name": "../escape"}}, "experiment.name"),
    ({"population": {"size": 1, "parents": 1}}, "population.size"),
    ({"population": {"parents": 1}}, "population.parents"),
    ({"population": {"phase_move": 0}}, "population.phase_move"),
    ({"population": {"phase_move": 60}}, "population.phase_move"),
    ({"population": {"init_high": float("inf")}}, "population.init_high"),
    ({"population": {"init_low": float("nan")}}, "population.init_low"),
    ({"population": {"init_low": 10**400}}, "population.init_low"),
    ({"selection": {"tournament_size": 1}}, "selection.tournament_size"),
    ({"selection": {"elitism": -1}}, "selection.elitism"),
    ({"crossover": {"probability": 1.5}}, "crossover.probability"),
    ({"crossover": {"probability": -0.1}}, "crossover.probability"),
    ({"crossover": {"gene_probability": 2}}, "crossover.gene_probability"),
    ({"crossover": {"alpha": -0.5}}, "crossover.alpha"),
    ({"mutation": {"gene_probability": 1.01}}, "mutation.gene_probability"),
    ({"mutation": {"sigma": 0}}, "mutation.sigma"),
    ({"mutation": {"sigma": -1.0}}, "mutation.sigma"),
    ({"fitness": {"eps": 1.5}}, "fitness.eps"),
    ({"fitness": {"games_per_opponent": 0}}, "fitness.games_per_opponent"),
    ({"fitness": {"coevolution": -1}}, "fitness.coevolution"),
    ({"fitness": {"hall_of_fame_games": -1}}, "fitness.hall_of_fame_games"),
    ({"fitness": {"hall_of_fame_size": 0}}, "fitness.hall_of_fame_size"),
    ({"compute": {"workers": -1}}, "compute.workers"),
    ({"output": {"checkpoint_every": 0}}, "output.checkpoint_every"),
    # bad enums
    ({"population": {"genome": "sym16"}}, "population.genome"),
    ({"crossover": {"method": "three-point"}}, "crossover.method"),
    ({"mutation": {"method": "flip"}}, "mutation.method"),
    ({"fitness": {"draw": "some"}}, "fitness.draw"),
    ({"fitness": {"colours": "red"}}, "fitness.colours"),
    ({"fitness": {"score": "elo"}}, "fitness.score"),
    ({"compute": {"backend": "ray"}}, "compute.backend"),
    # opponents
    ({"fitness": {"opponents": []}}, "fitness.opponents"),
    ({"fitness": {"opponents": "random"}}, "fitness.opponents"),
    ({"fitness": {"opponents": ["random", 3]}}, "fitness.opponents[1]"),
    ({"fitness": {"opponents": [{"weight": 1.0}]}}, "fitness.opponents[0].spec"),
    ({"fitness": {"opponents": [{"spec": 5}]}}, "fitness.opponents[0].spec"),
    ({"fitness": {"opponents": [{"spec": "random", "wieght": 2}]}}, "fitness.opponents[0].wieght"),
    ({"fitness": {"opponents": [{"spec": "random", "weight": 0}]}}, "fitness.opponents[0].weight"),
    ({"fitness": {"opponents": [{"spec": "random", "weight": "1"}]}}, "fitness.opponents[0].weight"),
    ({"fitness": {"opponents": ["random", "nhand:1", "human"]}}, "fitness.opponents[2].spec"),
    # cross-field checks
    ({"population": {"size": 8, "parents": 9}}, "population.parents"),
    ({"population": {"size": 4, "parents": 2}, "selection": {"tournament_size": 5}}, "selection.tournament_size"),
    ({"population": {"size": 8, "parents": 4}, "selection": {"elitism": 8}}, "selection.elitism"),
    ({"population": {"init_low": 1.0, "init_high": 1.0}}, "population.init_low"),
    ({"population": {"init_low": 2, "init_high": -2}}, "population.init_low"),
    ({"mutation": {"low": 0.5, "high": -0.5}}, "mutation.low"),
    ({"compute": {"backend": "dask"}}, "compute.address"),
    ({"compute": {"backend": "dask", "address": "  "}}, "compute.address"),
    ({"population": {"size": 31, "parents": 15}, "selection": {"method": "adjacent-pairs"}}, "population.size"),
    ({"population": {"size": 32, "parents": 10}, "selection": {"method": "adjacent-pairs"}}, "population.parents"),
    # held-out opponents
    ({"experiment": {"held_out_claim": True}}, "fitness.opponents[0].spec"),
    (
        {"experiment": {"held_out_claim": True}, "fitness": {"opponents": ["nhand:1", "wpc:2@lr06"]}},
        "fitness.opponents[1].spec",
    ),
    (
        {"experiment": {"held_out_claim": True}, "fitness": {"opponents": ["nhand:1", "alphabeta:3@sjk11"]}},
        "fitness.opponents[1].spec",
    ),
    (
        {"experiment": {"held_out_claim": True}, "fitness": {"opponents": [{"spec": "wpc:1@heuristic"}]}},
        "fitness.opponents[0].spec",
    ),
    # player specs
    ({"fitness": {"player": "nhand_custom:x"}}, "fitness.player"),
    ({"fitness": {"player": ""}}, "fitness.player"),
    ({"fitness": {"player": "random"}}, "fitness.player"),
    ({"fitness": {"player": "nhand:1"}}, "fitness.player"),
    ({"fitness": {"player": "wpc:1@heuristic"}}, "fitness.player"),
    ({"fitness": {"player": "nhand_custom:1,eps=0.1"}}, "fitness.player"),
    ({"fitness": {"opponents": ["random", "nhand:1", "chess:2"]}}, "fitness.opponents[2].spec"),
    ({"fitness": {"opponents": ["nhand:one"]}}, "fitness.opponents[0].spec"),
    ({"fitness": {"opponents": ["nhand:1,eps=2"]}}, "fitness.opponents[0].spec"),
    ({"fitness": {"opponents": ["nhand:1,phase=0"]}}, "fitness.opponents[0].spec"),
    ({"fitness": {"opponents": ["random", "wpc:1"]}}, "fitness.opponents[1].spec"),
    ({"fitness": {"opponents": ["alphabeta:2,eps=0.1"]}}, "fitness.opponents[0].spec"),
    ({"fitness": {"player": "wpc:1,phase=30"}}, "fitness.player"),
]


@pytest.mark.parametrize(("data", "key"), BAD_VALUES, ids=[key for _, key in BAD_VALUES])
def test_bad_value_names_its_key(data: dict[str, Any], key: str) -> None:
    assert error_for(data).startswith(f"config key '{key}'")


def test_config_error_is_a_value_error() -> None:
    assert issubclass(ConfigError, ValueError)


def test_cross_field_messages_say_the_limit() -> None:
    assert error_for({"population": {"size": 8, "parents": 9}}) == (
        "config key 'population.parents' must be at most population.size (8), got 9"
    )
    message = error_for({"population": {"size": 32, "parents": 10}, "selection": {"method": "adjacent-pairs"}})
    assert "population.size // 2 (16)" in message


def test_held_out_claim_allows_other_opponents() -> None:
    config = config_from_dict(
        {"experiment": {"held_out_claim": True}, "fitness": {"opponents": ["nhand:1", "nleast:2", "nmost:1"]}}
    )
    assert config.experiment.held_out_claim is True


def held_out_load(tmp_path: Path, opponents: list[str]) -> str:
    """The message of a held-out-claim config file training against ``opponents`` (tables beside it)."""
    listed = ", ".join(f'"{spec}"' for spec in opponents)
    path = write(tmp_path, f"[experiment]\nheld_out_claim = true\n[fitness]\nopponents = [{listed}]\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    return str(caught.value)


@pytest.mark.shows("experiment.held_out_claim")
def test_held_out_claim_compares_tables_by_content_up_to_scale_and_symmetry(tmp_path: Path) -> None:
    heuristic = np.array(TABLES["heuristic"]).reshape(8, 8)
    np.savetxt(tmp_path / "mine.csv", heuristic, delimiter=",")  # what `othello-ga export heuristic` gives
    np.savetxt(tmp_path / "scaled.csv", 250.0 * np.rot90(heuristic.T), delimiter=",")  # a reflection, x250
    np.savetxt(tmp_path / "lr.csv", np.array(TABLES["lr06"]).reshape(8, 8)[::-1] * 0.5, delimiter=",")
    for table, twin in (("mine.csv", "heuristic"), ("scaled.csv", "heuristic"), ("lr.csv", "lr06")):
        message = held_out_load(tmp_path, ["nhand:1", f"wpc:1@{table}"])
        assert f"opponent 'wpc:1@{tmp_path / table}' plays as held-out '{twin}'" in message, message
        assert "up to a positive scale and a symmetry of the board" in message
        assert message.startswith("config key 'fitness.opponents[1].spec'")
    # A negated table, or one changed in a single square, plays otherwise: allowed.
    np.savetxt(tmp_path / "negated.csv", -heuristic, delimiter=",")
    changed = heuristic.copy()
    changed[3, 3] += 0.5
    np.savetxt(tmp_path / "changed.csv", changed, delimiter=",")
    for table in ("negated.csv", "changed.csv"):
        path = write(tmp_path, f'[experiment]\nheld_out_claim = true\n[fitness]\nopponents = ["wpc:1@{table}"]\n')
        assert load_config(path).fitness.opponents[0].spec == f"wpc:1@{tmp_path / table}"


@pytest.mark.shows("experiment.held_out_claim")
def test_held_out_claim_compares_players_by_behaviour(tmp_path: Path) -> None:
    message = held_out_load(tmp_path, ["nhand:1,eps=1"])
    assert "opponent 'nhand:1,eps=1' plays as held-out 'random' (eps = 1 makes every move random)" in message
    assert "plays as held-out 'random'" in held_out_load(tmp_path, ["nmost:2,eps=1.0"])
    assert "plays as held-out 'random'" in held_out_load(tmp_path, ["random,eps=0.1"])
    # Below 1, the player is still itself (mostly).
    config = config_from_dict({"experiment": {"held_out_claim": True}, "fitness": {"opponents": ["nhand:1,eps=0.99"]}})
    assert config.fitness.opponents[0].spec == "nhand:1,eps=0.99"


def test_held_out_claim_checks_the_refinement_panel_by_content(tmp_path: Path) -> None:
    np.savetxt(tmp_path / "mine.csv", np.array(TABLES["sjk11"]).reshape(8, 8) * 3, delimiter=",")
    path = write(tmp_path, "[experiment]\nheld_out_claim = true\n[fitness]\nopponents = [\"nhand:1\"]\n"
                           "[refine]\ngenerations = 2\nweight_restarts = 0\nopponents = [\"alphabeta:2@mine.csv\"]\n")
    with pytest.raises(ConfigError, match=r"config key 'refine.opponents\[0\]': .* plays as held-out 'sjk11'"):
        load_config(path)


def test_opponent_without_a_table_is_told_where_to_put_one() -> None:
    message = error_for({"fitness": {"opponents": ["alphabeta:2,eps=0.1"]}})
    assert "'alphabeta:2@heuristic,eps=0.1'" in message


def test_held_out_message_says_the_fix() -> None:
    message = error_for({"experiment": {"held_out_claim": True}})
    assert "'random'" in message and "held_out_claim" in message


def test_values_with_newlines_stay_on_one_line() -> None:
    error_for({"selection": {"method": "tour\nnament"}})
    error_for({"fitness": {"opponents": ["ran\ndom"]}})
    error_for({"experiment": {"nam\ne": "x"}})


# --- files -------------------------------------------------------------------------------


def test_bad_toml_message(tmp_path: Path) -> None:
    path = write(tmp_path, "[population]\nsize = \n", "x.toml")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert message.startswith(f"config file '{path}' is not valid TOML: Invalid value")
    assert "\n" not in message


def test_duplicate_key_is_bad_toml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is not valid TOML"):
        load_config(write(tmp_path, "[population]\nsize = 4\nsize = 8\n"))


def test_non_utf8_file_is_bad_toml(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes('[experiment]\ndescription = "caf\xe9"\n'.encode("latin-1"))
    with pytest.raises(ConfigError, match="is not valid TOML"):
        load_config(path)


def test_missing_file_message(tmp_path: Path) -> None:
    path = tmp_path / "nope.toml"
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value) == f"config file '{path}' does not exist"


def test_directory_is_not_a_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path)


def test_bad_value_in_a_file_names_its_key(tmp_path: Path) -> None:
    path = write(tmp_path, '[selection]\nmethod = "tourney"\n')
    with pytest.raises(ConfigError, match=r"^config key 'selection\.method': unknown value 'tourney'"):
        load_config(path)


def test_missing_weights_file_names_its_key(tmp_path: Path) -> None:
    path = write(tmp_path, '[fitness]\nopponents = ["random", "nhand:1", "wpc:1@weights/best.csv"]\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert message.startswith("config key 'fitness.opponents[2].spec'")
    assert str(tmp_path / "weights" / "best.csv") in message


def test_weights_file_is_resolved_against_the_config_directory(tmp_path: Path) -> None:
    (tmp_path / "weights").mkdir()
    (tmp_path / "weights" / "best.csv").write_text("0\n" * 64)
    path = write(tmp_path, '[fitness]\nopponents = ["wpc:1@weights/best.csv,eps=0.1"]\n')
    config = load_config(path)
    resolved = tmp_path.absolute() / "weights" / "best.csv"
    assert config.fitness.opponents == (OpponentConfig(f"wpc:1@{resolved},eps=0.1"),)
    assert spec_weights_path(config.fitness.opponents[0].spec) == resolved
    assert config_from_dict(config_to_dict(config)) == config


def test_named_tables_are_not_paths() -> None:
    assert spec_weights_path("wpc:1@lr06") is None
    assert spec_weights_path("nhand:2") is None
    assert spec_weights_path("wpc:1@best.csv") == Path("best.csv")


def test_config_from_dict_resolves_paths_without_touching_files() -> None:
    config = config_from_dict(
        {"fitness": {"opponents": ["wpc:1@../w.csv", "wpc:1@ runs/w.csv ,eps=0.1", "wpc:1@/abs/w.csv", "wpc:1@lr06"]}},
        base_dir=Path("/nowhere/exp"),
    )
    specs = [opponent.spec for opponent in config.fitness.opponents]
    assert specs == ["wpc:1@/nowhere/w.csv", "wpc:1@/nowhere/exp/runs/w.csv,eps=0.1", "wpc:1@/abs/w.csv", "wpc:1@lr06"]


# --- docs -------------------------------------------------------------------------------


def test_docs_describe_every_key() -> None:
    docs = (ROOT / "docs" / "config.md").read_text(encoding="utf-8")
    for section, keys in config_to_dict(Config()).items():
        assert f"[{section}]" in docs
        for key in keys:
            assert f"`{key}`" in docs, f"{section}.{key} is not documented"


# --- fuzzing -----------------------------------------------------------------------------

ENUM_VALUES = ["full", "sym8", "sym4", "phase", "adjacent-pairs", "tournament", "best", "roulette",
               "stochastic-universal", "one-point", "two-point", "uniform", "blend", "none", "reset",
               "gaussian", "one", "all", "black", "white", "both", "win_rate", "disc_diff", "local", "dask"]
SPECS = ["random", "nhand:1", "nhand_custom:2", "wpc:1", "wpc:1@lr06", "alphabeta:3@heuristic,eps=0.2",
         "wpc:1@w.csv", "human", "nleast:0", "sjk11", "nhand:1,eps=", "@", ":"]

scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-3, max_value=70),
    st.integers(),
    st.floats(),
    st.floats(min_value=-2, max_value=2),
    st.text(max_size=12),
    st.sampled_from(ENUM_VALUES + SPECS),
    st.none(),
)
values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=8,
)
plausible = st.one_of(
    st.booleans(),
    st.integers(min_value=-1, max_value=40),
    st.floats(min_value=-1.5, max_value=1.5),
    st.sampled_from(ENUM_VALUES + SPECS),
)
opponent_lists = st.lists(
    st.one_of(
        st.sampled_from(SPECS),
        st.text(max_size=12),
        st.fixed_dictionaries({"spec": st.sampled_from(SPECS)}, optional={"weight": scalars, "wieght": scalars}),
        values,
    ),
    max_size=4,
)
BASES = [config_to_dict(Config()), config_to_dict(load_config(EXPERIMENTS / "quick.toml")),
         config_to_dict(load_config(EXPERIMENTS / "seed2021.toml"))]


def check_loads_or_config_error(data: Any) -> None:
    try:
        config = config_from_dict(data)
    except ConfigError as error:
        message = str(error)
        assert "\n" not in message
        assert message.startswith(("config key '", "config must be"))
    else:
        assert config_from_dict(config_to_dict(config)) == config
        assert config_from_dict(tomllib.loads(config_to_toml(config))) == config


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_configs_load_or_raise_config_error(data: st.DataObject) -> None:
    config = copy.deepcopy(data.draw(st.sampled_from(BASES)))
    for _ in range(data.draw(st.integers(min_value=1, max_value=4))):
        section = data.draw(st.sampled_from([*config, "bogus"]))
        actions = ["tweak", "tweak", "tweak", "set", "delete", "replace_section", "opponents"]
        action = data.draw(st.sampled_from(actions))
        if action == "replace_section":
            config[section] = data.draw(values)
        elif action == "opponents":
            config.setdefault("fitness", {})
            if isinstance(config["fitness"], dict):
                config["fitness"]["opponents"] = data.draw(opponent_lists)
        elif action == "delete":
            config.pop(section, None)
        elif action == "tweak" and isinstance(config.get(section), dict) and config[section]:
            config[section][data.draw(st.sampled_from(list(config[section])))] = data.draw(plausible)
        elif isinstance(config.get(section), dict):
            key = data.draw(st.sampled_from([*config[section], "sise"]) | st.text(max_size=8))
            config[section][key] = data.draw(values)
    check_loads_or_config_error(config)


@given(values)
def test_arbitrary_values_load_or_raise_config_error(data: Any) -> None:
    check_loads_or_config_error(data if isinstance(data, dict) else {"fitness": data})


@given(st.text(max_size=20), st.text(max_size=20))
def test_arbitrary_specs_load_or_raise_config_error(player: str, opponent: str) -> None:
    check_loads_or_config_error({"fitness": {"player": player, "opponents": [opponent]}})


# --- messages that point to the fix ----------------------------------------------------------


def test_a_conflict_caused_by_a_default_says_so() -> None:
    message = error_for({"population": {"size": 8}})
    assert message == ("config key 'population.parents' is not set and its default 16 must be at most "
                       "population.size (8); set population.parents")


def test_a_conflict_with_a_default_names_the_default() -> None:
    assert error_for({"selection": {"tournament_size": 40}}) == (
        "config key 'selection.tournament_size' must be at most population.size (32), got 40 "
        "(population.size is its default; set it)"
    )
    # Both written: no mention of defaults.
    assert "default" not in error_for({"population": {"size": 8, "parents": 4}, "selection": {"tournament_size": 9}})


def test_a_section_key_at_the_top_level_points_to_its_section() -> None:
    assert error_for({"generations": 20}) == (
        "config key 'generations' is not known at the top level; did you mean 'experiment.generations' "
        "(key generations of section [experiment])?"
    )
    assert "did you mean 'population.size'" in error_for({"size": 8})


def test_a_nul_character_is_refused_with_its_key() -> None:
    assert error_for({"experiment": {"name": "a\x00b"}}) == "config key 'experiment.name' must not contain a NUL character"


@pytest.mark.parametrize(("data", "key"), [
    ({"crossover": {"alpha": 1e308}}, "crossover.alpha"),
    ({"population": {"init_low": -1e308}}, "population.init_low"),
    ({"mutation": {"high": 1e308}}, "mutation.high"),
    ({"refine": {"sigma": 1e308}}, "refine.sigma"),
    ({"refine": {"weight_opponents": 1e308}}, "refine.weight_opponents"),
    ({"fitness": {"opponents": [{"spec": "random", "weight": 1e308}]}}, "fitness.opponents[0].weight"),
])
def test_huge_values_are_refused_before_the_run(data: dict[str, Any], key: str) -> None:
    message = error_for(data)
    assert message.startswith(f"config key '{key}' must be")
    assert "at most" in message or "between" in message


def test_a_run_of_an_earlier_version_still_reads_but_an_experiment_may_not_use_its_obsolete_key(tmp_path: Path) -> None:
    text = config_to_toml(Config()).replace("[compute]\n", "[compute]\nbatch = 0\n")
    path = write(tmp_path, text, "config.toml")
    assert load_config(path, run_file=True) == replace(Config(), experiment=replace(Config().experiment,
                                                                                    name="experiment"))
    with pytest.raises(ConfigError, match="config key 'compute.batch' is not known"):
        load_config(path)
