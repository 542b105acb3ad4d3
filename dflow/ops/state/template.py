"""``tf.make_template``: a function whose variables are created on the first call and shared after.

>>> import dflow as tf
>>> def scale(x):
...     w = tf.get_variable("w", [], initializer=tf.ones_initializer())
...     return x * w
>>> t = tf.make_template("scale", scale)
>>> _ = t(1.0), t(2.0)
>>> [v.name for v in t.trainable_variables]
['scale/w:0']
"""

from __future__ import annotations

import functools

from dflow._api import tf_export
from dflow.framework.graph import GraphKeys, get_collection
from dflow.ops.state.variable_scope import variable_scope


@tf_export("make_template")
def make_template(name_, func_, create_scope_now_=False, unique_name_=None, custom_getter_=None,
                  **kwargs) -> Template:
    """Wraps ``func_`` so every call shares the variables that its first call made with ``tf.get_variable``.

    ``kwargs`` are bound to ``func_``. A call after the first that creates a new trainable variable
    (a ``tf.Variable`` instead of ``tf.get_variable``) is a ``ValueError``, as in TF1.
    """
    if kwargs:
        func_ = functools.partial(func_, **kwargs)
    return Template(name_, func_, create_scope_now=create_scope_now_, unique_name=unique_name_,
                    custom_getter=custom_getter_)


class Template:
    """What ``tf.make_template`` returns: call it like the function it wraps."""

    def __init__(self, name, func, create_scope_now=False, unique_name=None, custom_getter=None):
        if not name:
            raise ValueError("name cannot be None.")
        self._name, self._func = name, func
        self._unique_name, self._custom_getter = unique_name, custom_getter
        self._variable_scope = None
        self._variables_created = False
        if create_scope_now:
            with variable_scope(self._unique_name, self._name, custom_getter=self._custom_getter) as vs:
                self._variable_scope = vs

    def _call_func(self, args, kwargs):
        trainable_at_start = len(get_collection(GraphKeys.TRAINABLE_VARIABLES))
        result = self._func(*args, **kwargs)
        if self._variables_created:
            trainable = get_collection(GraphKeys.TRAINABLE_VARIABLES)
            if len(trainable) != trainable_at_start:
                raise ValueError(f"Trainable variable created when calling a template after the first time, perhaps "
                                 f"you used tf.Variable when you meant tf.get_variable: "
                                 f"{trainable[trainable_at_start:]}")
        self._variables_created = True
        return result

    def __call__(self, *args, **kwargs):
        if self._variable_scope is not None:
            with variable_scope(self._variable_scope, reuse=True if self._variables_created else None):
                return self._call_func(args, kwargs)
        with variable_scope(self._unique_name, self._name, custom_getter=self._custom_getter) as vs:
            self._variable_scope = vs
            return self._call_func(args, kwargs)

    @property
    def name(self) -> str:
        return self._name

    @property
    def func(self):
        return self._func

    @property
    def variable_scope(self):
        return self._variable_scope

    @property
    def variable_scope_name(self) -> str:
        return self._variable_scope.name if self._variable_scope is not None else ""

    def _collection(self, key) -> list:
        if self._variable_scope is None:
            return []
        prefix = self.variable_scope_name + "/"
        return [v for v in get_collection(key) if v.name.startswith(prefix)]

    @property
    def variables(self) -> list:
        return self.global_variables + self.local_variables

    @property
    def trainable_variables(self) -> list:
        return self._collection(GraphKeys.TRAINABLE_VARIABLES)

    @property
    def non_trainable_variables(self) -> list:
        trainable = set(self.trainable_variables)
        return [v for v in self.global_variables if v not in trainable]

    @property
    def global_variables(self) -> list:
        return self._collection(GraphKeys.GLOBAL_VARIABLES)

    @property
    def local_variables(self) -> list:
        return self._collection(GraphKeys.LOCAL_VARIABLES)
