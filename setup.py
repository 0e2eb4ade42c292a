"""Builds the Cython engine. Everything else lives in pyproject.toml.

Set OTHELLO_GA_NATIVE=1 for a build tuned to this CPU (-march=native); the
default build runs on any x86-64.
"""
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

compile_args = ["-O3"]
if os.environ.get("OTHELLO_GA_NATIVE") == "1":
    compile_args.append("-march=native")

# The players' module holds every player function twice (tables alone, and with a pattern network: fused
# types): with gcc's default cap on the unit's growth by inlining it stopped inlining get_flips into the
# table-only search, 1.3% more instructions there (callgrind). The cap is raised for that module alone.
# The endgame module likewise: with the evaluation order's search in it, gcc stopped inlining get_flips into
# solve_3 and solve_2 and solve_1 into solve_2, 10% more instructions on FFO #33 and #35 (callgrind).
extra_args = {"_players": ["--param", "inline-unit-growth=400"], "_endgame": ["--param", "inline-unit-growth=400"]}

extensions = [
    Extension(
        f"engine.{name}",
        [f"engine/{name}.pyx"],
        include_dirs=["engine"],
        extra_compile_args=compile_args + extra_args.get(name, []),
    )
    for name in ("_bitboard", "_stability", "_features", "_patterns", "_learning", "_endgame", "_players")
]

setup(
    ext_modules=cythonize(
        extensions,
        language_level=3,
        compiler_directives={"boundscheck": False, "wraparound": False, "cdivision": True},
    )
)
