"""``python -m ga.cli``: the command line, as the ``othello-ga`` script runs it."""

import sys

try:
    from ga.cli import main
except KeyboardInterrupt:  # Ctrl-C while Python loads the command line: nothing was done yet
    sys.stderr.write("othello-ga: interrupted\n")
    sys.exit(130)

sys.exit(main())
