"""Run TF1 programs unchanged under TensorFlow 2.15: ``import tensorflow`` gives ``compat.v1`` with v2
behaviour off, and ``tensorflow.examples.tutorials.mnist.input_data`` (gone from TF 2) is TF 1.15's
reader (``tf1_mnist``). Used only by ``tools/run_programs.py --tf``, which puts this folder first
on ``PYTHONPATH`` and sets ``DFLOW_PROGRAMS_TF_SHIM=1``."""

import os
import sys
import types

if os.environ.get("DFLOW_PROGRAMS_TF_SHIM") == "1":
    import tensorflow.compat.v1 as _tf1
    import tf1_mnist

    _tf1.disable_v2_behavior()
    sys.modules["tensorflow"] = _tf1
    _parent = _tf1
    for _name in ("examples", "tutorials", "mnist"):
        _module = types.ModuleType(_parent.__name__ + "." + _name)
        _module.__path__ = []
        _full = ("tensorflow." + _module.__name__.split(".", 1)[1]) if _parent is not _tf1 else "tensorflow." + _name
        _module.__name__ = _full
        sys.modules[_full] = _module
        setattr(_parent, _name, _module)
        _parent = _module
    _parent.input_data = tf1_mnist
    sys.modules["tensorflow.examples.tutorials.mnist.input_data"] = tf1_mnist
