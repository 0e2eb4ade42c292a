"""``python -m ga.cli``: the command line, as the ``othello-ga`` script runs it."""

import sys

from ga.cli import main

sys.exit(main())
