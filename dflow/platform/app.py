"""``tf.app.run``: absl's ``app.run`` with TF1's lenient flag parsing.

``tf.app.run()`` calls ``main(argv)`` of ``__main__`` (or the ``main``
given) after parsing the flags defined so far from ``argv`` (default
``sys.argv``). As in TF1, flags nobody defined do not stop the program:
they stay in the ``argv`` that ``main`` receives. ``main``'s return value is
the exit status (``sys.exit``), and ``--help`` prints the flags and exits.
"""

from __future__ import annotations

import sys

from dflow._api import tf_export
from dflow.platform import flags


def _parse_flags_tolerate_undef(argv):
    """Parses the known flags; returns ``argv`` less them (unknown flags included)."""
    return flags.FLAGS(sys.argv if argv is None else argv, known_only=True)


@tf_export("app.run")
def run(main=None, argv=None):
    """Runs ``main(argv)`` (``__main__.main`` by default) with flags parsed, then exits with its result."""
    from absl import app as absl_app  # defines absl's own flags (--helpfull, ...) when first needed

    main = main or sys.modules["__main__"].main
    absl_app.run(main=main, argv=argv, flags_parser=_parse_flags_tolerate_undef)
