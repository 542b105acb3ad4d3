"""``tf.version`` and the top-level version constants.

``VERSION`` is ``"1.15.5"``: dflow implements TF1's graph-and-session API, the
API of TensorFlow 1.15 (the last 1.x release), so scripts that branch on the
version (``tf.VERSION.startswith("1.")``) take their TF1 path, which is the
one dflow runs. TF 2.15's ``tf.compat.v1.VERSION`` says ``"2.15.1"``, but its
graph-mode semantics there are the same TF1 ones. ``dflow.__version__`` (TF1
programs' ``tf.__version__``) is ``VERSION`` too, as in TF 1.15, since programs
check it (``StrictVersion(tf.__version__) < StrictVersion("1.3.0")``). dflow's own release is
``DFLOW_VERSION``; ``GIT_VERSION`` names it.

There is no compiled TensorFlow here: ``COMPILER_VERSION`` is the compiler
of the running Python, the C++ flags are 0, and the ``GraphDef`` versions are
those of dflow's JSON graph format (``dflow.framework.graph_io``).
"""

from __future__ import annotations

import platform

from dflow._api import export_value
from dflow.framework import graph_io

VERSION = "1.15.5"
DFLOW_VERSION = "0.1.0"  # dflow's release: `dflow info`, meta graphs, and the package's version in setup.cfg
GIT_VERSION = f"dflow-{DFLOW_VERSION}"
COMPILER_VERSION = platform.python_compiler()
GRAPH_DEF_VERSION = graph_io.VERSION
GRAPH_DEF_VERSION_MIN_CONSUMER = 1  # a reader of format version 1 reads what this dflow writes
GRAPH_DEF_VERSION_MIN_PRODUCER = 1  # the oldest format this dflow reads
CXX11_ABI_FLAG = 0
CXX_VERSION = 0
MONOLITHIC_BUILD = 0

for _name in ("VERSION", "GIT_VERSION", "COMPILER_VERSION", "GRAPH_DEF_VERSION", "GRAPH_DEF_VERSION_MIN_CONSUMER",
              "GRAPH_DEF_VERSION_MIN_PRODUCER"):
    export_value(_name, globals()[_name])
    export_value(f"version.{_name}", globals()[_name])
for _name in ("CXX11_ABI_FLAG", "CXX_VERSION", "MONOLITHIC_BUILD"):
    export_value(_name, globals()[_name])
