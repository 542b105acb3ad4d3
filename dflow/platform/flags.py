"""``tf.flags`` and ``tf.app.flags``: absl's flags, as TF1 re-exports them.

TF1's ``tf.flags`` *is* ``absl.flags`` (``from absl.flags import *``) with two
changes kept here: the ``DEFINE_string/boolean/bool/float/integer`` functions
still accept TF's old keyword names (``flag_name``, ``default_value``,
``docstring``), and reading a flag from ``FLAGS`` before anything parsed
the command line parses ``sys.argv`` first instead of raising
``UnparsedFlagAccessError``::

    tf.flags.DEFINE_integer("steps", 100, "training steps")
    FLAGS = tf.flags.FLAGS
    print(FLAGS.steps)          # parses sys.argv on first read

Flags defined through ``tf.flags`` and through ``absl.flags`` share one
registry (``absl.flags.FLAGS``), so libraries using either see the same values.
"""

from __future__ import annotations

import logging
import sys

import absl.flags as _absl_flags

from dflow._api import tf_export
from dflow.framework import tf_decorator

_RENAMED_ARGUMENTS = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _accepting_old_names(define):
    """``define`` that also takes TF's old keyword names, warning as TF does."""

    def wrapper(*args, **kwargs):
        old = [k for k in _RENAMED_ARGUMENTS if k in kwargs]
        for k in old:
            kwargs[_RENAMED_ARGUMENTS[k]] = kwargs.pop(k)
        if old:
            logging.warning("Use of the keyword argument names (flag_name, default_value, docstring) is "
                            "deprecated, please use (name, default, help) instead.")
        return define(*args, **kwargs)

    return tf_decorator.make_decorator(define, wrapper)


class _FlagValuesWrapper:
    """absl's ``FLAGS`` that parses ``sys.argv`` on the first read of a flag instead of raising."""

    def __init__(self, flag_values):
        self.__dict__["__wrapped"] = flag_values

    def __getattribute__(self, name):
        if name == "__dict__":
            return super().__getattribute__(name)
        return self.__dict__["__wrapped"].__getattribute__(name)

    def __getattr__(self, name):
        wrapped = self.__dict__["__wrapped"]
        if not wrapped.is_parsed():
            wrapped(sys.argv)
        return wrapped.__getattr__(name)

    def __setattr__(self, name, value):
        return self.__dict__["__wrapped"].__setattr__(name, value)

    def __delattr__(self, name):
        return self.__dict__["__wrapped"].__delattr__(name)

    def __dir__(self):
        return self.__dict__["__wrapped"].__dir__()

    def __getitem__(self, name):
        return self.__dict__["__wrapped"].__getitem__(name)

    def __setitem__(self, name, flag):
        return self.__dict__["__wrapped"].__setitem__(name, flag)

    def __contains__(self, name):
        return self.__dict__["__wrapped"].__contains__(name)

    def __len__(self):
        return self.__dict__["__wrapped"].__len__()

    def __iter__(self):
        return self.__dict__["__wrapped"].__iter__()

    def __str__(self):
        return self.__dict__["__wrapped"].__str__()

    def __call__(self, *args, **kwargs):
        return self.__dict__["__wrapped"].__call__(*args, **kwargs)


DEFINE_string = _accepting_old_names(_absl_flags.DEFINE_string)
DEFINE_boolean = _accepting_old_names(_absl_flags.DEFINE_boolean)
DEFINE_bool = DEFINE_boolean
DEFINE_float = _accepting_old_names(_absl_flags.DEFINE_float)
DEFINE_integer = _accepting_old_names(_absl_flags.DEFINE_integer)
FLAGS = _FlagValuesWrapper(_absl_flags.FLAGS)

_OURS = {"DEFINE_string": DEFINE_string, "DEFINE_boolean": DEFINE_boolean, "DEFINE_bool": DEFINE_bool,
         "DEFINE_float": DEFINE_float, "DEFINE_integer": DEFINE_integer, "FLAGS": FLAGS}

for _name in _absl_flags.__all__:
    tf_export(f"flags.{_name}", f"app.flags.{_name}")(_OURS.get(_name, getattr(_absl_flags, _name)))
