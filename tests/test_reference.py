"""The shipped results (results/reference/): its tables, their export and their player spec."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from engine import TABLES, build_player, parse_spec
from ga.cli.export import export
from ga.rundir.resolve import resolve_weights
from ga.config import load_config
from ga.weights import load_weights, parse_weights

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "results" / "reference"


@pytest.mark.parametrize(("name", "run"), [("reference", "strong"), ("reference-seed2021", "seed2021"),
                                           ("deep", "deep")])
def test_built_in_reference_tables_are_the_shipped_best_tables(name: str, run: str) -> None:
    shipped = load_weights(REFERENCE / run / "best_weights.csv")
    assert np.array_equal(np.array(TABLES[name]), shipped)


def test_the_built_in_engine_evaluation_is_the_shipped_best_evaluation() -> None:
    from engine.evaluation import EVALUATIONS
    from ga.weights import load_evaluation

    assert EVALUATIONS["engine"] == load_evaluation(REFERENCE / "engine" / "best_evaluation.json")
    assert EVALUATIONS["engine"].features and EVALUATIONS["engine"].end == 8
    assert load_config(ROOT / "experiments" / "engine.toml").experiment.held_out_claim


def test_the_built_in_patterns_evaluation_is_the_shipped_best_evaluation() -> None:
    from engine.evaluation import EVALUATIONS
    from ga.weights import load_evaluation

    shipped = REFERENCE / "patterns" / "best_evaluation.json"
    built_in = Path(__file__).resolve().parent.parent / "engine" / "data" / "patterns.json"
    assert built_in.read_bytes() == shipped.read_bytes()  # a copy, byte for byte
    patterns = EVALUATIONS["patterns"]
    assert patterns == load_evaluation(shipped)
    config = load_config(ROOT / "experiments" / "patterns.toml")
    assert config.experiment.held_out_claim
    assert patterns.patterns is not None and patterns.patterns.phases == tuple(config.patterns.phases)


@pytest.mark.parametrize("run", ["strong", "seed2021", "deep", "engine", "patterns"])
def test_shipped_runs_are_complete_and_made_by_their_experiment(run: str) -> None:
    directory = REFERENCE / run
    best = "best_evaluation.json" if run in ("engine", "patterns") else "best_weights.csv"
    for name in (best, "generations.csv", "config.toml", "manifest.json"):
        assert (directory / name).is_file(), name
    assert sorted(p.name for p in (directory / "plots").glob("*.png"))
    shipped = load_config(directory / "config.toml")
    experiment = load_config(ROOT / "experiments" / f"{run}.toml")
    # The same experiment (the run's config.toml resolves paths and may set the workers).
    assert shipped.population == experiment.population
    assert shipped.fitness.opponents == experiment.fitness.opponents
    assert shipped.experiment.seed == experiment.experiment.seed
    assert shipped.experiment.generations == experiment.experiment.generations
    assert shipped.final == experiment.final
    assert shipped.refine == experiment.refine


def test_strong_experiment_is_a_held_out_claim() -> None:
    config = load_config(ROOT / "experiments" / "strong.toml")
    assert config.experiment.held_out_claim
    specs = " ".join([opponent.spec for opponent in config.fitness.opponents] + list(config.refine.opponents))
    for held_out in ("heuristic", "lr06", "sjk11", "random"):
        assert held_out not in specs


def test_export_reference_and_its_seed2021_table() -> None:
    runner = CliRunner()
    strong = runner.invoke(export, ["reference", "--format", "csv"])
    assert strong.exit_code == 0, strong.output
    assert np.array_equal(parse_weights(strong.stdout, "csv"), np.array(TABLES["reference"]))
    also = runner.invoke(export, ["reference", "--format", "csv", "--which", "strong"])
    assert also.stdout == strong.stdout
    blog = runner.invoke(export, ["reference", "--format", "csv", "--which", "seed2021"])
    assert blog.exit_code == 0, blog.output
    assert np.array_equal(parse_weights(blog.stdout, "csv"), np.array(TABLES["reference-seed2021"]))
    assert blog.stdout != strong.stdout


@pytest.mark.parametrize(("source", "which", "message"), [
    ("reference", "mean", "use --which strong or --which seed2021"),
    ("lr06", "seed2021", "use it with SOURCE 'reference'"),
    ("lr06", "strong", "use it with SOURCE 'reference'"),
])
def test_export_refuses_a_table_the_source_does_not_have(source: str, which: str, message: str) -> None:
    result = CliRunner().invoke(export, [source, "--format", "csv", "--which", which])
    assert result.exit_code == 2
    assert message in result.output
    assert result.output.count("\n") == 1
    with pytest.raises(ValueError, match=message.replace("'", ".")):
        resolve_weights(source, which)


def test_the_reference_plays_as_a_player_spec() -> None:
    spec = parse_spec("wpc:1@reference,eps=0.1")
    player = build_player(spec)
    assert player.weights == tuple(TABLES["reference"])
    assert player.eps == 0.1


def test_seed2021_re_runs_to_the_shipped_files_byte_for_byte(tmp_path: Path) -> None:
    """The blog's experiment, 1,000 generations (about 3 s), run by the command its manifest records: the shipped
    tables, every untimed column and the manifest's untimed fields, the command included."""
    import csv
    import json
    import shlex
    import subprocess
    import sys

    shipped = ROOT / "results" / "reference" / "seed2021"
    recorded = json.loads((shipped / "manifest.json").read_text())
    command = shlex.split(recorded["command"])
    assert command[0] == "othello-ga"
    subprocess.run([sys.executable, "-m", "ga.cli", *command[1:], "--out", str(tmp_path / "run"), "--workers", "1"],
                   cwd=ROOT, check=True, capture_output=True)
    for name in ("best_weights.csv", "mean_weights.csv"):
        assert (tmp_path / "run" / name).read_bytes() == (shipped / name).read_bytes(), name
    again = json.loads((tmp_path / "run" / "manifest.json").read_text())
    untimed = ("experiment", "seed", "generations_planned", "generations_done", "games_played", "status")
    assert {key: again[key] for key in untimed} == {key: recorded[key] for key in untimed}
    # Where the re-run went (--out) and how many threads played it are not what it is: neither is recorded.
    assert again["command"] == recorded["command"] + " --workers 1"

    def untimed(path: Path) -> list[list[str]]:
        rows = list(csv.reader(path.open(newline="")))
        keep = [i for i, column in enumerate(rows[0]) if not column.endswith("_s")]
        return [[row[i] for i in keep] for row in rows]

    assert untimed(tmp_path / "run" / "generations.csv") == untimed(shipped / "generations.csv")


# The refinement's first generations from the shipped GA and restart tables, in a fresh interpreter
# (OpenBLAS picks its kernels once, when numpy loads): its rows, timings aside, are the shipped ones.
REFINE_FIRST_GENERATIONS = """
import csv, json, os, sys, tempfile
from pathlib import Path
from ga.config import load_config, replace
from ga.evolution import refine
from ga.weights import load_weights
shipped = Path(sys.argv[1])
config = load_config(shipped / "config.toml")
config = replace(config, refine=replace(config.refine, generations=6))
tables = [load_weights(shipped / "restarts" / str(k) / "best_weights.csv") for k in range(1, 8)]
with tempfile.TemporaryDirectory() as run:
    _, rows = refine.refine(config, Path(run), load_weights(shipped / "ga_best_weights.csv"), tables, 2)
from numpy._core._multiarray_umath import __cpu_features__ as cpu
print(json.dumps({"core": os.environ.get("OPENBLAS_CORETYPE"), "avx2": cpu["AVX2"] and cpu["FMA3"],
                  "rows": [{k: repr(v) for k, v in row.items() if not k.endswith("_s")} for row in rows]}))
"""


def _refine_first_generations(env: dict[str, str]) -> dict:
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", REFINE_FIRST_GENERATIONS, str(REFERENCE / "strong")],
                          capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    return json.loads(done.stdout)


def test_the_refinement_re_runs_the_shipped_strong_generations_byte_for_byte() -> None:
    """Pinned BLAS kernels and libm's exp make the refinement the same on every AVX2 machine (about 8 s)."""
    import csv
    import os

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    result = _refine_first_generations(env)
    if not result["avx2"]:
        pytest.skip("this CPU has no AVX2: OpenBLAS chooses its own kernels here")
    assert result["core"] == "Haswell"
    shipped = list(csv.DictReader((REFERENCE / "strong" / "refine.csv").open(newline="")))[:6]
    assert result["rows"] == [{k: v for k, v in row.items() if not k.endswith("_s")} for row in shipped]


def test_the_users_own_blas_kernels_are_kept() -> None:
    import os

    import subprocess
    import sys

    shown = subprocess.run([sys.executable, "-c", "import os, ga; print(os.environ['OPENBLAS_CORETYPE'])"],
                           capture_output=True, text=True, env={**os.environ, "OPENBLAS_CORETYPE": "Prescott"},
                           cwd=ROOT, check=True)
    assert shown.stdout.strip() == "Prescott"


# How many threads the OpenBLAS that numpy loaded runs, asked of the library itself (-1: not found).
BLAS_THREADS = """
import ctypes, glob, os, sys
if sys.argv[1] == "ga":
    import ga
import numpy
found = -1
for path in glob.glob(os.path.join(os.path.dirname(numpy.__file__) + ".libs", "*openblas*")):
    for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_", "openblas_get_num_threads"):
        if hasattr(ctypes.CDLL(path), name):
            found = getattr(ctypes.CDLL(path), name)()
            break
print(found)
"""


def _blas_threads(first: str, **env: str) -> int:
    import os
    import subprocess
    import sys

    # OpenBLAS also obeys OMP_NUM_THREADS and GOTO_NUM_THREADS (which Dask's workers set in this process).
    base = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    shown = subprocess.run([sys.executable, "-c", BLAS_THREADS, first], capture_output=True, text=True,
                           env={**base, **env}, cwd=ROOT, check=True)
    return int(shown.stdout)


def test_openblas_runs_one_thread_under_ga_and_the_users_own_count_is_kept() -> None:
    """OpenBLAS's own threads spin on the cores the engine plays on; a user's own thread count wins."""
    if _blas_threads("numpy") in (-1, 1):
        pytest.skip("this numpy's OpenBLAS does not say its threads, or runs one anyway")
    assert _blas_threads("ga") == 1
    assert _blas_threads("ga", OPENBLAS_NUM_THREADS="2") == 2
    assert _blas_threads("ga", OMP_NUM_THREADS="2") == 2


@pytest.mark.parametrize(("cpuinfo", "core"), [
    ("processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma bmi2\n", "Haswell"),
    ("processor\t: 0\nflags\t\t: fpu sse2 avx avx2 avx512f fma\nflags\t: x\n", "Haswell"),
    ("processor\t: 0\nflags\t\t: fpu sse2 avx fma\n", None),  # no AVX2: OpenBLAS chooses
    ("processor\t: 0\nflags\t\t: fpu sse2 avx2\n", None),  # Haswell's kernels use FMA
    ("processor\t: 0\nFeatures\t: fp asimd\n", None),  # not x86
    ("", None),
])
def test_the_blas_core_is_pinned_only_where_its_kernels_run(cpuinfo: str, core: str | None) -> None:
    import ga

    assert ga.blas_core(cpuinfo) == core


def test_a_run_records_its_command_without_the_places_of_the_machine_that_ran_it() -> None:
    from ga.rundir.manifest import command_line

    assert command_line(["evolve", "experiments/strong.toml", "--out", "/home/me/runs/strong", "--quiet"]) == \
        "othello-ga evolve experiments/strong.toml --quiet"
    assert command_line(["study", "s.toml", "--out=/tmp/s", "--jobs", "2"]) == "othello-ga study s.toml --jobs 2"
    assert command_line(["resume", "r", "--dask", "tls://h:8786", "--dask-tls-ca", "/etc/ca.pem", "--dask-tls-cert",
                         "/etc/me.pem", "--dask-tls-key=/etc/key.pem"]) == "othello-ga resume r --dask tls://h:8786"
    assert command_line(["evolve", "x.toml", "--outline"]) == "othello-ga evolve x.toml --outline"  # not --out


def test_nothing_shipped_names_a_path_of_the_machine_that_made_it() -> None:
    import json
    import re

    # An absolute path of a Unix machine, as a command line or a page would quote it.
    absolute = re.compile(r"(?:^|[\s='\"(])/(?:tmp|work|home|root|Users|var|opt|mnt|srv|scratch)\b")
    found = []
    for path in sorted(REFERENCE.rglob("*")):
        if path.suffix in (".json", ".md", ".csv", ".toml") and absolute.search(path.read_text(encoding="utf-8")):
            found.append(str(path.relative_to(ROOT)))
    assert found == []
    for manifest in REFERENCE.rglob("manifest.json"):
        assert "--out" not in json.loads(manifest.read_text())["command"], manifest
