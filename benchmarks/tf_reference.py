"""Runs a benchmark's ``figures(tf)`` under TensorFlow's compat.v1 graph mode.

Started by ``_harness.main`` as ``PYTHON tf_reference.py <benchmark module>``
with the python of a TensorFlow virtualenv; prints one JSON line. With
``--serve`` (``bench_models.py --interleave``) it builds the module's
``steppers(tf)`` and runs bursts of steps on request instead. Never
imported by dflow or its tests.
"""

from __future__ import annotations

import importlib
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import tensorflow.compat.v1 as tf

    tf.disable_eager_execution()
    module = importlib.import_module(sys.argv[1])
    if "--serve" in sys.argv[2:]:  # lines "LABEL COUNT" in; the seconds COUNT steps took, out
        import time

        steps = module.steppers(tf)
        print("ready", flush=True)
        for line in sys.stdin:
            label, count = line.split()
            start = time.perf_counter()
            for _ in range(int(count)):
                steps[label]()
            print(time.perf_counter() - start, flush=True)
    else:
        print(json.dumps(module.figures(tf)))
