"""The ``othello-ga`` command line: the only package that parses arguments.

Every command follows one error policy (:mod:`ga.cli.errors`): bad input
ends with one line on stderr and exit code 2.
"""

from __future__ import annotations

import sys

try:
    import click

    from ga.cli import errors
    from ga.cli.bench import bench
    from ga.cli.evaluate import evaluate
    from ga.cli.export import export
    from ga.cli.inspect import compare, plot, show
    from ga.cli.nboard import nboard
    from ga.cli.play import play
    from ga.cli.run import evolve, resume
    from ga.cli.solve import solve
    from ga.cli.study import study
except KeyboardInterrupt:
    # `python -m ga.cli` loads this package before its __main__, whose own guard cannot cover it; Python names
    # the module "-m" meanwhile. Loaded by a program (or by the othello-ga script), the Ctrl-C is the caller's.
    if sys.argv[:1] != ["-m"]:
        raise
    sys.stderr.write("othello-ga: interrupted\n")
    raise SystemExit(130) from None

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="othello-ga")
def cli() -> None:
    """Evolve the weights of an Othello evaluation function (its squares and its features) with a genetic algorithm;
    a Cython bitboard engine plays the games."""


for _command in (evolve, resume, study, play, bench, plot, compare, export, evaluate, show, solve, nboard):
    cli.add_command(_command)


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

