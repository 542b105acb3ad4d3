"""``python -m dflow``: the ``dflow`` command (see ``dflow/cli.py``)."""

import sys

from dflow.cli import main

if __name__ == "__main__":  # spawned worker processes of `--replicas`/`cluster` import this module again
    sys.exit(main())
