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

extensions = [
    Extension(
        f"engine.{name}",
        [f"engine/{name}.pyx"],
        include_dirs=["engine"],
        extra_compile_args=compile_args,
    )
    for name in ("_bitboard", "_stability", "_features", "_endgame", "_players")
]

setup(
    ext_modules=cythonize(
        extensions,
        language_level=3,
        compiler_directives={"boundscheck": False, "wraparound": False, "cdivision": True},
    )
)
