"""The ``othello-ga`` command line: the only package that parses arguments.

Every command follows one error policy (:mod:`ga.cli.errors`): bad input
ends with one line on stderr and exit code 2.

A command's module (and what it imports: numpy, the engine, pandas) is
loaded only when that command runs or shows its own help: ``othello-ga
--help`` lists the commands from :data:`COMMANDS` alone.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

try:
    import click
    from click.utils import make_default_short_help

    from ga.cli import errors
except KeyboardInterrupt:
    # `python -m ga.cli` loads this package before its __main__, whose own guard cannot cover it; Python names
    # the module "-m" meanwhile. Loaded by a program (or by the othello-ga script), the Ctrl-C is the caller's.
    if sys.argv[:1] != ["-m"]:
        raise
    sys.stderr.write("othello-ga: interrupted\n")
    raise SystemExit(130) from None

__all__ = ["COMMANDS", "cli", "main"]

#: Each command: the module that defines it (a function of the same name) and the first paragraph of its help,
#: from which the list of ``othello-ga --help`` is made as click makes it (tests/test_cli.py checks both against
#: the commands themselves).
COMMANDS: dict[str, tuple[str, str]] = {
    "bench": ("ga.cli.bench", "Measure the engine (perft, games per second, the alpha-beta search against the plain "
              "one, a pattern network against a table, the exact endgame on generated and FFO positions) and the "
              "loop's cost (a whole seed2021.toml run against its games played in one batch plus start-up; a whole "
              "patterns-quick.toml run's CPU time against its engine work); medians."),
    "compare": ("ga.cli.inspect", "Overlay the rolling win rates of several runs in one figure (a study: each "
                "config's mean over seeds)."),
    "evaluate": ("ga.cli.evaluate", "Play WEIGHTS_OR_SPEC against each --vs opponent; print score, Wilson interval "
                 "and Elo."),
    "evolve": ("ga.cli.run", "Run the experiment described by the TOML file CONFIG."),
    "export": ("ga.cli.export", "Write a weight table or an evaluation as csv, json, npy, markdown, c, python or "
               "player."),
    "nboard": ("ga.cli.nboard", "Be an Othello engine for NBoard or any GUI that speaks the NBoard protocol, on "
               "standard input and output."),
    "play": ("ga.cli.play", "Play against OPPONENT (a player spec, a run directory, a weights file or a built-in "
             "table; default wpc:1@heuristic) in the terminal."),
    "plot": ("ga.cli.inspect", "Draw the figures of RUN_DIR into RUN_DIR/plots and lists them."),
    "resume": ("ga.cli.run", "Continue an interrupted run in RUN_DIR from its last checkpoint."),
    "show": ("ga.cli.inspect", "Summarize RUN_DIR: progress, win rates, files and the best table (a study "
             "directory: its runs and summary)."),
    "solve": ("ga.cli.solve", "Solve positions exactly: the final disc difference for the side to move with "
              "perfect play, and the best moves."),
    "study": ("ga.cli.study", "Run the study STUDY (a study file, or a study directory to continue it)."),
}


def load_command(name: str) -> click.Command:
    """Returns the command ``name`` of :data:`COMMANDS`, importing its module."""
    module, _ = COMMANDS[name]
    command = getattr(importlib.import_module(module), name)
    assert isinstance(command, click.Command)
    return command


class LazyGroup(click.Group):
    """A group whose commands are imported when one is run or its help is asked for, not to list them."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return load_command(cmd_name) if cmd_name in COMMANDS else None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # click.Group.format_commands, with each command's short help made from COMMANDS instead of the command.
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, make_default_short_help(text, limit)) for name, (_, text) in sorted(COMMANDS.items())]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    @property  # type: ignore[override]
    def commands(self) -> dict[str, click.Command]:  # every command, loaded (for tests that walk them all)
        return {name: load_command(name) for name in sorted(COMMANDS)}

    @commands.setter
    def commands(self, value: Any) -> None:  # click.Group.__init__ sets it; the commands are COMMANDS
        pass


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="othello-ga")
def cli() -> None:
    """Evolve the weights of an Othello evaluation function (its squares and its features) with a genetic algorithm;
    a Cython bitboard engine plays the games."""


def main(argv: list[str] | None = None) -> int:
    """Runs the command line and returns the exit code."""
    if not (sys.argv[1:] if argv is None else argv):
        click.echo(cli.get_help(click.Context(cli, info_name=errors.PROG)))  # no command: the help, as --help
        return 0
    try:
        with errors.named_stdout():
            code = cli.main(args=argv, prog_name=errors.PROG, standalone_mode=False)
    except click.exceptions.Abort as abort:
        if isinstance(abort.__cause__, KeyboardInterrupt):  # click turns Ctrl-C into Abort: it is still Ctrl-C
            click.echo(f"{errors.PROG}: interrupted", err=True)
            return errors.EXIT_INTERRUPTED
        click.echo("Aborted.", err=True)
        return 1
    except click.exceptions.Exit as exit_:
        return exit_.exit_code
    except click.UsageError as error:
        command = error.ctx.command_path if error.ctx is not None else errors.PROG
        click.echo(f"{errors.PROG}: error: {errors.one_line(error.format_message())} (see '{command} --help')",
                   err=True)
        return errors.EXIT_BAD_INPUT
    except click.ClickException as error:
        error.show()
        return error.exit_code
    except KeyboardInterrupt:
        click.echo(f"{errors.PROG}: interrupted", err=True)
        return errors.EXIT_INTERRUPTED
    except BrokenPipeError:
        return errors.quiet_broken_pipe()
    except Exception as error:
        code = errors.exit_code(error)
        if code is None or errors.debugging():
            raise
        click.echo(f"{errors.PROG}: error: {errors.one_line(error)}", err=True)
        return code
    return code if isinstance(code, int) else 0
