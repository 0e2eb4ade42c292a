"""Every bad-input and fault case that ``test_bad_input.py`` tries, and the tally of what ran.

The fixed cases are listed here by category; the property-based tests draw
the rest from the building blocks below (values, tokens, fragments). Each
test records what it tried in :data:`TRIED`, and the test module prints the
counts per category at the end of its run ("bad input cases tried: ...").
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Any

#: Category -> number of cases run in this session (configs, weights, positions, specs, cli, faults).
TRIED: Counter[str] = Counter()

CATEGORIES = ("configs", "weights", "positions", "specs", "squares", "cli", "run-dir faults")


def tried(category: str, count: int = 1) -> None:
    """Counts ``count`` cases of ``category`` as tried."""
    assert category in CATEGORIES, category
    TRIED[category] += count


def report() -> str:
    """Returns the one-line tally printed at the end of the module."""
    parts = [f"{category} {TRIED[category]}" for category in CATEGORIES]
    return f"bad input cases tried: {sum(TRIED.values())} ({', '.join(parts)})"


# ---------------------------------------------------------------- configs

#: Valid TOML experiments that the mutation tests start from (all tiny).
#: The smallest experiment the CLI tests run (two generations of 8 individuals against random).
TINY_TOML = """\
[experiment]
name = "tiny"
generations = 2

[population]
size = 8
parents = 4

[fitness]
opponents = ["random"]

[compute]
workers = 1
"""

VALID_TOMLS: tuple[str, ...] = (
    TINY_TOML,
    """\
[experiment]
seed = 3
generations = 1
held_out_claim = true

[population]
size = 6
parents = 2
genome = "sym8"
init_low = -0.5
init_high = 0.5

[selection]
method = "adjacent-pairs"
tournament_size = 2

[crossover]
method = "uniform"
gene_probability = 0.25

[mutation]
method = "gaussian"
sigma = 0.2

[fitness]
player = "wpc:1"
opponents = [{spec = "nhand:1", weight = 2.0}, "nleast:1", "wpc:1@classic,eps=0.1"]
colours = "both"
draw = "all"

[output]
games_csv = false
""",
)

#: Values of the wrong type or out of range, tried for every config key.
WRONG_VALUES: tuple[Any, ...] = (
    None, True, False, 0, -1, 1, 2**63, -(2**63) - 1, 10**40, 1.5, -0.0, math.nan, math.inf, -math.inf,
    "", " ", "x", "random", "nhand:2", "tcp://h:1", "\x00", "é", [], [1], ["random"], {}, {"spec": "random"},
    [{"spec": "random", "weight": math.nan}], [{"weight": 1}], [{"spec": 1}], [{"spec": "random", "extra": 1}],
    [{"spec": "wpc:1"}], [{"spec": "human"}], ["wpc:1@/no/such/file.csv"], b"bytes", (1, 2),
)

#: Whole-document shapes that are not a table of sections.
BAD_DOCUMENTS: tuple[Any, ...] = (None, [], "text", 1, {"experiment": []}, {"": {}}, {"Experiment": {}}, {1: {}})

#: TOML texts that load_config must reject, with a fragment of the message.
BAD_TOML_FILES: tuple[tuple[bytes, str], ...] = (
    (b"", ""),  # empty is valid TOML: all defaults (it then passes or fails on nothing)
    (b"\xff\xfe\x00[", "not UTF-8"),
    (b"[experiment\nname = 1", "not valid TOML"),
    (b"[experiment]\nname = \"a\"\nname = \"b\"\n", "not valid TOML"),
    (b"[experiment]\ngenerations = 0\n", "experiment.generations"),
    (b"[experimnt]\n", "did you mean 'experiment'"),
    (b"[population]\nsize = 4\nparents = 8\n", "population.parents"),
    (b"[mutation]\nlow = 1.0\nhigh = -1.0\n", "mutation.low"),
    (b"[fitness]\nopponents = []\n", "at least one opponent"),
    (b"[fitness]\nplayer = \"random\"\n", "fitness.player"),
    (b"[fitness]\nopponents = [\"wpc:1@missing.csv\"]\n", "does not exist"),
    (b"[compute]\nbackend = \"dask\"\n", "compute.address"),
    (b"[selection]\nmethod = \"roulette\"\n[fitness]\nscore = \"disc_diff\"\n", "non-negative"),
    (b"experiment = 3\n", "must be a table"),
    (b"[experiment]\nname = \"../x\"\n", "path separators"),
    (b"[experiment]\nseed = 1979-05-27\n", "experiment.seed"),
    (b"[population]\nsize = " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested too deeply to be an experiment"),
    (b"[population]\nsize = " + b"{a = " * 3000 + b"1" + b"}" * 3000 + b"\n", "nested too deeply to be an experiment"),
    (b"[experiment]\nseed = " + b"9" * 5000 + b"\n", "an integer of more than 4,300 digits"),
)


# ---------------------------------------------------------------- weights

WEIGHT_FORMATS: dict[str, str] = {
    "csv": ".csv", "json": ".json", "npy": ".npy", "markdown": ".md", "c": ".c", "python": ".py",
}

#: Cells that are never a finite weight in any text format.
BAD_CELLS: tuple[str, ...] = (
    "nan", "NaN", "inf", "-inf", "Infinity", "1e400", "-1e999", "x", "1.2.3", "0x", "--1", "None", "null",
    "true", "'1'", "\"1\"", "1j", "[]", "{}", "é",
)

#: Tokens inserted by the text mutations (they break numbers, brackets, rows and strings).
MUTATION_TOKENS: tuple[str, ...] = BAD_CELLS + (
    ",", ",,", "\n", "\r\n", "|", "||", "[", "]", "{", "}", "(", ")", "\"", "'", "/*", "*/", "//", "#",
    "\x00", "\ufeff", "\\", ";", "=", "1", "-", "1if", "0x1for", "[" * 50, "{\"weights\": ", "-" * 3,
)

#: Whole files that must fail, per suffix, with a fragment of the message.
BAD_WEIGHT_FILES: tuple[tuple[str, bytes, str], ...] = (
    (".csv", b"", "expected 64 numbers, found 0"),
    (".csv", b"1,2,3\n", "found 3"),
    (".csv", (b"1," * 63) + b"nan\n", "not a finite number"),
    (".csv", b"\xff" * 10, "not UTF-8"),
    (".json", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (".json", b'{"weights": 1}', "expected a list"),
    (".json", b'{"layout": "h8..a1", "weights": []}', "unsupported layout"),
    (".json", b"[" + b",".join([b"NaN"] * 64) + b"]", "not a finite number"),
    (".json", b"[" + b",".join([b"1" * 400] * 64) + b"]", "too large"),
    (".md", b"| 1 | 2 |\n", "expected a rank label"),
    (".md", b"no table\n", "no markdown table"),
    (".c", b"double w[64];\n", "no C array"),
    (".c", b"{" + b",".join([b"1e999"] * 64) + b"}", "not a finite number"),
    (".py", b"w = [" + b",".join([b"1if 1 else 2"] * 64) + b"]\n", "something other than number literals"),
    (".py", b"w = [1]\nv = [2]\n", "expected one list literal"),
    (".py", b"w = [" + b"(" * 300 + b")" * 300 + b"]\n", "Python"),
    (".py", b"w = [1, 2\n", "invalid Python"),
    (".npy", b"", "not a valid .npy file"),
    (".npy", b"\x93NUMPY\x01\x00", "not a valid .npy file"),
    (".npy", b"PK\x03\x04", "not a valid .npy file"),
    (".toml", b"1,2,3", "unknown suffix"),
)


# ---------------------------------------------------------------- positions, squares and specs

#: Characters the position strategy draws from: the valid ones and their near misses.
POSITION_ALPHABET = "XxOo*-.-0?Z é\t"
#: Sides to move tried after the squares.
POSITION_SIDES: tuple[str, ...] = (" X", " O", " x", " o", "", " ", " ?", " XO", " X extra", "\tX", "\nO", " -")
#: Non-text positions.
BAD_POSITION_OBJECTS: tuple[Any, ...] = (None, 1, b"-" * 64 + b" X", ["-"] * 64, 1.5)
#: Non-text squares.
BAD_SQUARE_OBJECTS: tuple[Any, ...] = (None, 19, b"d3", ["d3"], 1.5)

#: Pieces the spec strategy glues together.
SPEC_FRAGMENTS: tuple[str, ...] = (
    "random", "nhand", "nhand_custom", "wpc", "nleast", "nmost", "alphabeta", "human", "Nhand", "minimax",
    ":", ":0", ":1", ":2", ":6", ":7", ":12", ":13", ":-1", ": 2", ":²", ":١", ":1.5", ":99999999999999999999",
    "@", "@heuristic", "@classic", "@disc", "@lr06", "@sjk11", "@Heuristic", "@nosuch", "@ ", "@missing.csv",
    "@/no/such/dir/w.json", "@w.npy",
    ",eps=0.1", ",eps=0", ",eps=1", ",eps=1.5", ",eps=-0.1", ",eps=nan", ",eps=inf", ",eps=", ",eps=1e400",
    ",eps=0x1", ",phase=30", ",phase=0", ",phase=60", ",phase=²", ",phase= 5", ",phase=x", ",seed=1", ",",
    ",,", " ", "\t", "\n", "\x00", "é",
)
#: Fixed bad specs, with a fragment of the message.
BAD_SPECS: tuple[tuple[str, str], ...] = (
    ("", "empty player spec"),
    ("   ", "empty player spec"),
    ("nhand:0", "must be in 1..6"),
    ("nhand:²", "must be a positive integer"),
    ("nhand:١", "must be a positive integer"),
    ("random:2", "takes no depth"),
    ("nhand@heuristic", "takes no weights table"),
    ("wpc:1@", "empty table"),
    ("wpc:1@nosuch", "unknown weights table"),
    ("wpc:1@heuristic,eps=2", "eps"),
    ("wpc:1@heuristic,phase=²", "phase"),
    ("wpc:1@heuristic,foo=1", "unknown option"),
    ("NHAND:2", "malformed player spec"),
    ("chess:2", "unknown player kind"),
)


# ---------------------------------------------------------------- the command line

#: Usage errors (click) that must also be one line, exit 2. {tmp} is a scratch directory.
USAGE_ERRORS: tuple[list[str], ...] = (
    ["evaluate", "random", "--vs", "random", "--games", "0"],
    ["evaluate", "random", "--games", "2", "--vs"],
    ["play", "--black", "--white"],
    ["export", "heuristic", "--format", "yaml"],
    ["export", "heuristic"],
    ["plot", "{tmp}", "--format", "gif"],
    ["evolve", "{tmp}/x.toml", "--generations", "0"],
    ["evolve"],
    ["resume", "{tmp}", "--workers", "-1"],
    ["play", "--seed", "-1"],
    ["no-such-command"],
    ["evaluate", "heuristic", "--vs", "random", "--games", "99999999999999999999"],
    ["nboard", "--depth", "13"],
    ["nboard", "engine", "--end", "61"],
)

#: Bad values of export's own options (SOURCE is a good built-in table), with a message fragment.
BAD_EXPORT_OPTIONS: tuple[tuple[list[str], str], ...] = (
    (["--format", "c", "--name", "1x"], "identifier"),
    (["--format", "python", "--name", "a b"], "identifier"),
    (["--format", "csv", "--scale", "nan"], "scale"),
    (["--format", "csv", "--scale", "inf"], "scale"),
    (["--format", "csv", "--scale", "-1"], "scale"),
    (["--format", "csv", "--scale", "0"], "scale"),
    (["--format", "c", "--scale", "1e300", "--round"], "scale 1e+300 is beyond 10000"),
    (["--format", "csv", "--scale", "1e5"], "scale 100000 is beyond 10000, the largest weight a table can be played"),
    (["--format", "csv", "--scale", "1e-310"], "underflow"),
    (["--format", "npy"], "npy is binary"),
    (["--format", "csv", "--which", "median"], "--which"),
)

#: Sources that are none of a run directory, weights file or built-in table.
BAD_SOURCES: tuple[str, ...] = ("", "nosuch", "HEURISTIC", "{tmp}/missing.csv", "{tmp}/missing", "{tmp}/dir.csv")

#: Damage done to a finished run before ``resume``: (file, new content or None to delete). (A finished run
#: without its checkpoint.json is no fault: the shipped runs are kept so; tests/test_resume.py.)
RUN_DIR_FAULTS: tuple[tuple[str, bytes | None], ...] = (
    ("checkpoint.json", b""),
    ("checkpoint.json", b"{"),
    ("checkpoint.json", b"\xff\xfe"),
    ("checkpoint.json", b"{}"),
    ("checkpoint.json", b'{"format": 2}'),
    ("checkpoint.json", b"[]"),
    ("checkpoint.json", b"1"),
    ("checkpoint.json", b"null"),
    ("config.toml", None),
    ("config.toml", b"[experiment\n"),
    ("config.toml", b"\xff\xfe"),
    ("config.toml", b"[population]\nsize = 1\n"),
    ("manifest.json", None),
    ("manifest.json", b"{"),
    ("manifest.json", b"[]"),
    ("manifest.json", b"null"),
    ("generations.csv", b""),
)

#: Values out of range, or of the wrong kind, in one row or field of a finished run's files:
#: (file, column or field, value, commands that read it, fragment of the one-line error).
RUN_VALUE_FAULTS: tuple[tuple[str, str, Any, tuple[str, ...], str], ...] = (
    ("generations.csv", "generation", "1e400", ("show", "plot"), "column 'generation', line 2: inf is not an integer"),
    ("generations.csv", "generation", "x", ("show", "plot"), "column 'generation', line 2: 'x' is not an integer"),
    ("generations.csv", "generation", "1.5", ("show", "plot"), "column 'generation', line 2: 1.5 is not an integer"),
    ("generations.csv", "games", "", ("show", "plot"), "column 'games', line 2: nothing is not an integer"),
    ("generations.csv", "win_rate", "inf", ("show", "plot"), "column 'win_rate', line 2: inf is not a number in [0, 1]"),
    ("generations.csv", "win_rate", "5.0", ("show", "plot"), "column 'win_rate', line 2: 5.0 is not a number"),
    ("generations.csv", "win_rate", "abc", ("show", "plot"), "column 'win_rate', line 2: 'abc'"),
    ("generations.csv", "best_fitness", "-1e9", ("show", "plot"), "column 'best_fitness'"),
    ("generations.csv", "win_rate", "nan", ("show", "plot"), "column 'win_rate', line 2: 'nan' is not a number"),
    ("generations.csv", "win_rate", "", ("show", "plot"), "column 'win_rate', line 2: nothing is not a number"),
    ("generations.csv", "win_rate_vs_random", "NaN", ("show", "plot"), "column 'win_rate_vs_random', line 2: 'NaN'"),
    ("generations.csv", "fitness_mean", "-nan", ("show", "plot"), "column 'fitness_mean', line 2: '-nan'"),
    ("games.csv", "disc_diff", "zz", ("plot",), "column 'disc_diff', line 2: 'zz'"),
    ("games.csv", "disc_diff", "65", ("plot",), "column 'disc_diff', line 2: 65 is not an integer in [-64, 64]"),
    ("games.csv", "colour", "green", ("plot",), "column 'colour', line 2: 'green' is not black or white"),
    ("manifest.json", "refine_games", [1], ("show", "resume"), "field 'refine_games' must be an integer"),
    ("manifest.json", "games_played", 10**40, ("show", "resume"), "field 'games_played'"),
    ("manifest.json", "wall_s", float("inf"), ("show", "resume"), "field 'wall_s' must be a number"),
    ("manifest.json", "status", "bogus", ("show", "resume"), "field 'status' must be one of running"),
    ("manifest.json", "experiment", {"a": 1}, ("show", "resume"), "field 'experiment' must be text"),
    ("manifest.json", "versions", ["numpy"], ("show", "resume"), "field 'versions'"),
)

#: Rows of a run's CSV file cut short or given a field too many: (file, line, how, commands, fragment).
RUN_ROW_FAULTS: tuple[tuple[str, int, str, tuple[str, ...], str], ...] = (
    ("generations.csv", 2, "a field too many", ("show", "plot"), "a row has more fields than the header"),
    ("generations.csv", 3, "cut short", ("show", "plot"), "line 3 has fewer fields than the header"),
    ("games.csv", 2, "a field too many", ("plot",), "a row has more fields than the header"),
    ("games.csv", 3, "cut short", ("plot",), "line 3 has fewer fields than the header"),
)

#: Whole-file damage that a reader of the run meets: (file, bytes, commands, fragment).
RUN_FILE_FAULTS: tuple[tuple[str, bytes, tuple[str, ...], str], ...] = (
    ("games.csv", b"", ("plot",), "games.csv' is empty"),
    ("games.csv", b"\xff\xfe\x00garbage\n", ("plot",), "games.csv' is not text (UTF-8)"),
    ("generations.csv", b"\x89PNG\r\n\x1a\n", ("show", "plot"), "generations.csv' is not text (UTF-8)"),
    ("manifest.json", b"[" * 100_000, ("show", "resume"), "nested too deeply to be a manifest"),
    ("checkpoint.json", b"[" * 100_000, ("resume",), "nested too deeply to be a checkpoint"),
)


#: checkpoint.json fields set to a value of the wrong type: (field, JSON value).
CHECKPOINT_FIELD_FAULTS: tuple[tuple[str, Any], ...] = (
    ("format", "1"),
    ("population", {"dtype": "<f4", "shape": [1], "base64": ""}),
    ("population", {"dtype": "<f8", "shape": [4, 64], "base64": "!!"}),
    ("population", {"dtype": "<f8", "shape": [9, 9], "base64": ""}),
    ("unknown_field", 1),
    ("generation", "x"),
    ("generation", 1.5),
    ("population", 1),
    ("fitness", None),
    ("born", []),
    ("games_played", "x"),
    ("csv_bytes", []),
)

def npy_file(header: bytes, payload: bytes = bytes(8 * 64)) -> bytes:
    """Returns ``.npy`` version 1.0 bytes with this header text (padded as numpy pads it)."""
    text = header + b" " * (-(10 + len(header) + 1) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + payload


#: End-to-end runs of ``python -m ga.cli`` (a real process: warnings and tracebacks reach stderr).
#: (name, files to write into the scratch directory, argv with {tmp}, message fragment)
END_TO_END: tuple[tuple[str, dict[str, bytes], list[str], str], ...] = (
    ("python literal that makes the parser warn", {"w.py": b"w = [" + b",".join([b"1if"] * 64) + b"]\n"},
     ["export", "{tmp}/w.py", "--format", "csv", "-o", "{tmp}/out.csv"], "w.py"),
    ("npy whose header does not tokenize",
     {"w.npy": npy_file(b"{'descr': '<f8', 'fortran_order': False, 'shape': (64,)[, }")},
     ["evaluate", "{tmp}/w.npy", "--vs", "random", "--games", "2"], "not a valid .npy file"),
    ("npy whose header has a bytes key",
     {"w.npy": npy_file(b"{'descr': '<f8', b'fortran_order': False, 'shape': (64,), }")},
     ["export", "{tmp}/w.npy", "--format", "json", "-o", "{tmp}/out.json"], "not a valid .npy file"),
    ("json nested 100,000 deep", {"w.json": b"[" * 100_000 + b"]" * 100_000},
     ["evaluate", "{tmp}/w.json", "--vs", "random", "--games", "2", "--csv", "{tmp}/out.csv"], "nested too deeply"),
    ("config whose opponent table is malformed",
     {"bad.toml": b'[population]\nsize = 4\nparents = 2\n[fitness]\nopponents = ["wpc:1@w.csv"]\n',
      "w.csv": b"1,2,3\n"},
     ["evolve", "{tmp}/bad.toml", "--out", "{tmp}/run", "--quiet", "--no-plots"], "fitness.opponents[0].spec"),
    ("play against a bad spec", {}, ["play", "alphabeta:13@heuristic"], "1..12"),
    ("an engine of a malformed table", {"w.csv": b"1,2,3\n"}, ["nboard", "{tmp}/w.csv"], "expected 64 numbers, found 3"),
    ("an engine of a player without an evaluation", {}, ["nboard", "nleast:2"], "nleast has no evaluation"),
    ("resume of a directory that is not a run", {}, ["resume", "{tmp}"], "not a run directory"),
    ("plan whose generation cannot fit in memory",
     {"big.toml": b"[population]\nsize = 32\nparents = 16\n[fitness]\nopponents = [\"random\"]\n"
                  b"games_per_opponent = 1000000000000\n"},
     ["evolve", "{tmp}/big.toml", "--out", "{tmp}/run", "--quiet", "--no-plots"],
     "config key 'fitness.games_per_opponent' = 1000000000000 makes a generation need about 7.3 PiB"),
    ("plan of coevolution games that cannot fit in memory",
     {"big.toml": b"[population]\nsize = 32\nparents = 16\n[fitness]\nopponents = [\"random\"]\n"
                  b"coevolution = 1000000000000\n"},
     ["evolve", "{tmp}/big.toml", "--out", "{tmp}/run", "--quiet", "--no-plots"], "'fitness.coevolution'"),
    ("plan of random-table games that cannot fit in memory",
     {"big.toml": b"[population]\nsize = 32\nparents = 16\n[fitness]\nopponents = [\"random\"]\n"
                  b"random_table_games = 1000000000000\n"},
     ["evolve", "{tmp}/big.toml", "--out", "{tmp}/run", "--quiet", "--no-plots"], "'fitness.random_table_games'"),
    ("plan of more games than a run counts",
     {"long.toml": b"[experiment]\ngenerations = 100000000000000\n[population]\nsize = 32\nparents = 16\n"
                   b"[fitness]\nopponents = [\"random\"]\n"},
     ["evolve", "{tmp}/long.toml", "--out", "{tmp}/run", "--quiet", "--no-plots"],
     "'experiment.generations' = 100000000000000 plans 3.2e+15 games in all"),
    ("table whose weighted sums would overflow", {"huge.csv": (b"1e308," * 7 + b"1e308\n") * 8},
     ["evaluate", "{tmp}/huge.csv", "--vs", "random", "--games", "10"], "beyond +-10000"),
)


# ---------------------------------------------------------------- what a run directory holds instead of its files

#: The commands that read a run directory back, as argv ({run}: the run directory, {tmp}: a scratch directory).
READERS: dict[str, list[str]] = {
    "show": ["show", "{run}"],
    "plot": ["plot", "{run}"],
    "compare": ["compare", "{run}", "-o", "{tmp}/compare.png"],
    "resume": ["resume", "{run}", "--generations", "3", "--quiet", "--no-plots"],
    "evaluate": ["evaluate", "{run}", "--vs", "random", "--games", "2"],
    "export": ["export", "{run}", "--format", "csv", "-o", "{tmp}/table.csv"],
    "play": ["play", "{run}", "--seed", "1"],
}

#: Every file a command reads back from a finished run, with the commands that read it.
READ_BACK: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("generations.csv", ("show", "plot", "compare", "resume")),
    ("config.toml", ("show", "plot", "compare", "resume", "evaluate", "export", "play")),
    ("manifest.json", ("show", "resume")),
    ("checkpoint.json", ("resume",)),
    ("games.csv", ("plot", "resume")),
    ("best_weights.csv", ("plot", "evaluate", "export", "play")),
    ("mean_weights.csv", ("plot",)),
)

#: The same for what only a refined run holds (its restarts are run directories of their own).
REFINED_READ_BACK: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("restarts/1/manifest.json", ("resume",)),
    ("restarts/1/checkpoint.json", ("resume",)),
    ("restarts/1/config.toml", ("resume",)),
    ("refine_state.json", ("resume",)),
    ("refine.csv", ("plot",)),
    ("ga_best_weights.csv", ("plot",)),
)

#: A tiny refined experiment: two generations, one restart, one CMA-ES generation.
REFINED_TOML = TINY_TOML.replace("size = 8\nparents = 4\n", "size = 6\nparents = 4\n[selection]\ntournament_size = 2\n") + """
[refine]
generations = 1
restarts = 1
candidates = 2
games = 2
weight_opponents = 0.0
"""

#: Every file the tool writes into a run directory, and so may never be a link to a file elsewhere.
WRITTEN_FILES: tuple[str, ...] = (
    "config.toml", "manifest.json", "generations.csv", "games.csv", "population.csv", "best_weights.csv",
    "mean_weights.csv", "hall_of_fame.csv", "checkpoint.json", ".lock",
)

#: Plans too large for the machine or for a run's counts, by the stage that plays them: (config, message fragment).
BIG_PLANS: tuple[tuple[str, str], ...] = (
    ("[final]\ngames = 1000000000\n", "config key 'final.games' = 1000000000 makes the final tournament need about"),
    ("[refine]\ngenerations = 2\nrestarts = 1\ngames = 1000000000000\nweight_opponents = 0.0\n",
     "config key 'refine.games' = 1000000000000 makes a refinement generation need about"),
    ("[refine]\ngenerations = 1000000000000000\nrestarts = 1\ngames = 100\nweight_opponents = 0.0\n",
     "config key 'refine.generations' = 1000000000000000 plans"),
    ("[experiment]\ngenerations = 10000000000000\n[refine]\ngenerations = 1\nrestarts = 100\nweight_opponents = 0.0\n",
     "config key 'refine.restarts' = 100 plans"),
)

#: Rows whose generation is out of order: (file, line, generation written there, commands, fragment).
RUN_ORDER_FAULTS: tuple[tuple[str, int, int, tuple[str, ...], str], ...] = (
    ("generations.csv", 3, 0, ("show", "plot", "resume"), "line 3: generation 0 where generation 1 belongs"),
    ("generations.csv", 2, 1, ("show", "plot", "resume"), "line 2: generation 1 where generation 0 belongs"),
    ("games.csv", -1, 0, ("plot",), "after a later generation's games"),
    ("refine.csv", 2, 1, ("plot",), "line 2: generation 1 where generation 0 belongs"),
)
