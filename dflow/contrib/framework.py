"""``tf.contrib.framework``: ``arg_scope`` and the variable helpers that ``contrib.layers`` (and slim-style
programs) build on, with TF 1.15's semantics.

* ``arg_scope([f, g], k=v)`` sets default keyword arguments for functions decorated with
  ``add_arg_scope``; scopes nest (inner values win, a call's own keywords win over both) and a scope
  dict yielded by one ``arg_scope`` can be re-entered with ``arg_scope(sc)``;
* ``model_variable`` / ``variable``: ``tf.get_variable`` with contrib's collections (a model variable
  is in ``GLOBAL_VARIABLES`` and ``MODEL_VARIABLES``);
* ``get_variables``, ``get_model_variables``, ``get_variables_to_restore``, ... : collection filters by
  scope regex and name suffix;
* ``get_global_step``, ``get_or_create_global_step``, ``create_global_step``, ``assert_global_step``:
  the same objects as ``tf.train``'s.
"""

from __future__ import annotations

import contextlib
import functools

from dflow._api import tf_export
from dflow.framework.graph import GraphKeys, device, get_default_graph
from dflow.ops.state.variable_scope import VariableScope, get_variable, get_variable_scope
from dflow.train import training_util

# -- arg_scope -------------------------------------------------------------------------------------

_ARGSTACK: list = [{}]
_DECORATED_OPS: dict = {}


def _arg_stack() -> list:
    if not _ARGSTACK:
        _ARGSTACK.append({})
    return _ARGSTACK


def _current_arg_scope() -> dict:
    return _arg_stack()[-1]


def _key_op(op) -> str:
    return getattr(op, "_key_op", str(op))


def _name_op(op) -> tuple:
    return (op.__module__, op.__name__)


def _kwarg_names(func) -> tuple:
    """The names of ``func``'s positional arguments that have defaults. (TF 1.15 slices ``co_varnames``
    from its end, which counts a function's local variables too; dflow slices from ``co_argcount``.)"""
    n_defaults = len(func.__defaults__) if func.__defaults__ else 0
    argcount = func.__code__.co_argcount
    return func.__code__.co_varnames[argcount - n_defaults:argcount]


@tf_export("contrib.framework.arg_scope")
@contextlib.contextmanager
def arg_scope(list_ops_or_scope, **kwargs):
    """Sets default keyword arguments for each ``add_arg_scope`` function in ``list_ops_or_scope``
    (or re-enters a scope dict yielded earlier). Yields the scope dict ``{key_op: {arg: value}}``.

    Raises ``TypeError`` when ``list_ops_or_scope`` is neither a list/tuple nor a dict, and
    ``ValueError`` for a function not decorated with ``add_arg_scope`` or kwargs given with a dict.
    """
    if isinstance(list_ops_or_scope, dict):
        if kwargs:
            raise ValueError("When attempting to re-use a scope by suppling a dictionary, kwargs must be empty.")
        current_scope = list_ops_or_scope.copy()
        _arg_stack().append(current_scope)
        try:
            yield current_scope
        finally:
            _arg_stack().pop()
        return
    if not isinstance(list_ops_or_scope, (list, tuple)):
        raise TypeError("list_ops_or_scope must either be a list/tuple or reused scope (i.e. dict)")
    current_scope = _current_arg_scope().copy()
    for op in list_ops_or_scope:
        if not has_arg_scope(op):
            raise ValueError(f"{_name_op(op)} is not decorated with @add_arg_scope")
        key = _key_op(op)
        merged = dict(current_scope.get(key, {}))
        merged.update(kwargs)
        current_scope[key] = merged
    _arg_stack().append(current_scope)
    try:
        yield current_scope
    finally:
        _arg_stack().pop()


@tf_export("contrib.framework.add_arg_scope")
def add_arg_scope(func):
    """Decorates ``func`` so that ``arg_scope`` can set its keyword arguments' defaults."""

    @functools.wraps(func)
    def func_with_args(*args, **kwargs):
        key = _key_op(func)
        current_scope = _current_arg_scope()
        if key in current_scope:
            scoped = dict(current_scope[key])
            scoped.update(kwargs)
            kwargs = scoped
        return func(*args, **kwargs)

    key = _key_op(func)
    if key not in _DECORATED_OPS:
        _DECORATED_OPS[key] = _kwarg_names(func)
    func_with_args._key_op = key
    return func_with_args


@tf_export("contrib.framework.has_arg_scope")
def has_arg_scope(func) -> bool:
    """Whether ``func`` was decorated with ``add_arg_scope``."""
    return _key_op(func) in _DECORATED_OPS


@tf_export("contrib.framework.arg_scoped_arguments")
def arg_scoped_arguments(func):
    """The keyword arguments (those with defaults) that ``arg_scope`` can set for ``func``."""
    assert has_arg_scope(func)
    return _DECORATED_OPS[_key_op(func)]


@tf_export("contrib.framework.current_arg_scope")
def current_arg_scope() -> dict:
    """The innermost scope dict (TF 1.15 exported it from ``contrib.framework``)."""
    return _current_arg_scope()


# -- global step -----------------------------------------------------------------------------------

tf_export("contrib.framework.get_global_step")(training_util.get_global_step)
tf_export("contrib.framework.create_global_step")(training_util.create_global_step)
tf_export("contrib.framework.get_or_create_global_step")(training_util.get_or_create_global_step)
tf_export("contrib.framework.assert_global_step")(training_util.assert_global_step)


@tf_export("contrib.framework.assert_or_get_global_step")
def assert_or_get_global_step(graph=None, global_step_tensor=None):
    """``global_step_tensor`` checked to be a global step, or the graph's global step when it is None."""
    if global_step_tensor is None:
        global_step_tensor = training_util.get_global_step(graph)
    else:
        training_util.assert_global_step(global_step_tensor)
    return global_step_tensor


# -- variables -------------------------------------------------------------------------------------


@tf_export("contrib.framework.variable")
@add_arg_scope
def variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=True, collections=None,
             caching_device=None, device=None, partitioner=None, custom_getter=None, use_resource=None,  # noqa: A002
             synchronization=None, aggregation=None):
    """``tf.get_variable`` in ``collections`` (default ``GLOBAL_VARIABLES``), on ``device`` when given;
    ``custom_getter(getter, name, ...)`` wraps the creation (called with the current scope's ``reuse``)."""
    collections = list(collections if collections is not None else [GraphKeys.GLOBAL_VARIABLES])
    collections = list(dict.fromkeys(collections))  # TF: list(set(...)); keep the order stable here
    getter = get_variable
    if custom_getter is not None:
        getter = functools.partial(custom_getter, reuse=get_variable_scope().reuse)
    with _device_ctx(device):
        return getter(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                      trainable=trainable, collections=collections, caching_device=caching_device,
                      partitioner=partitioner, use_resource=use_resource)


def _device_ctx(dev):
    return device(dev) if dev else contextlib.nullcontext()


@tf_export("contrib.framework.model_variable")
@add_arg_scope
def model_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=True,
                   collections=None, caching_device=None, device=None, partitioner=None,  # noqa: A002
                   custom_getter=None, use_resource=None, synchronization=None, aggregation=None):
    """``variable`` also in ``MODEL_VARIABLES`` (and ``GLOBAL_VARIABLES``); ``dtype`` defaults to float32."""
    from dflow.framework import dtypes

    collections = list(collections or []) + [GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES]
    return variable(name, shape=shape, dtype=dtype if dtype is not None else dtypes.float32,
                    initializer=initializer, regularizer=regularizer, trainable=trainable, collections=collections,
                    caching_device=caching_device, device=device, partitioner=partitioner,
                    custom_getter=custom_getter, use_resource=use_resource)


@tf_export("contrib.framework.local_variable")
def local_variable(initial_value, validate_shape=True, name=None, use_resource=None):
    """A non-trainable ``tf.Variable`` in ``LOCAL_VARIABLES``."""
    from dflow.ops.state.variables import Variable

    return Variable(initial_value, trainable=False, collections=[GraphKeys.LOCAL_VARIABLES],
                    validate_shape=validate_shape, name=name, use_resource=use_resource)


@tf_export("contrib.framework.add_model_variable")
def add_model_variable(var) -> None:
    """Adds ``var`` to ``MODEL_VARIABLES`` (once)."""
    graph = get_default_graph()
    if var not in graph.get_collection(GraphKeys.MODEL_VARIABLES):
        graph.add_to_collection(GraphKeys.MODEL_VARIABLES, var)


@tf_export("contrib.framework.get_variables")
def get_variables(scope=None, suffix=None, collection=GraphKeys.GLOBAL_VARIABLES) -> list:
    """The variables of ``collection`` whose names match ``scope`` (a regex from the start, or a
    ``VariableScope``) followed somewhere by ``suffix``."""
    if isinstance(scope, VariableScope):
        scope = scope.name
    if suffix is not None:
        if ":" not in suffix:
            suffix += ":"
        scope = (scope or "") + ".*" + suffix
    return get_default_graph().get_collection(collection, scope)


@tf_export("contrib.framework.get_model_variables")
def get_model_variables(scope=None, suffix=None) -> list:
    return get_variables(scope, suffix, GraphKeys.MODEL_VARIABLES)


@tf_export("contrib.framework.get_local_variables")
def get_local_variables(scope=None, suffix=None) -> list:
    return get_variables(scope, suffix, GraphKeys.LOCAL_VARIABLES)


@tf_export("contrib.framework.get_trainable_variables")
def get_trainable_variables(scope=None, suffix=None) -> list:
    return get_variables(scope, suffix, GraphKeys.TRAINABLE_VARIABLES)


@tf_export("contrib.framework.get_variables_to_restore")
def get_variables_to_restore(include=None, exclude=None) -> list:
    """The global variables under the scopes in ``include`` (all when None), less those under ``exclude``."""
    if include is None:
        vars_to_include = get_variables()
    else:
        if not isinstance(include, (list, tuple)):
            raise TypeError("include is provided but is not a list or a tuple.")
        vars_to_include = []
        for scope in include:
            vars_to_include += get_variables(scope)
    vars_to_exclude = set()
    if exclude is not None:
        if not isinstance(exclude, (list, tuple)):
            raise TypeError("exclude is provided but is not a list or a tuple.")
        for scope in exclude:
            vars_to_exclude |= set(get_variables(scope))
    return [v for v in vars_to_include if v not in vars_to_exclude]


@tf_export("contrib.framework.get_variables_by_suffix")
def get_variables_by_suffix(suffix, scope=None) -> list:
    return get_variables(scope=scope, suffix=suffix)


@tf_export("contrib.framework.get_variables_by_name")
def get_variables_by_name(given_name, scope=None) -> list:
    """The variables whose last name component is ``given_name``."""
    suffix = "/" + given_name + ":|^" + given_name + ":"
    return get_variables(scope=scope, suffix=suffix)


@tf_export("contrib.framework.get_unique_variable")
def get_unique_variable(var_op_name):
    """The one global variable whose op name is ``var_op_name``."""
    candidates = get_variables(scope=var_op_name)
    if not candidates:
        raise ValueError(f"Couldn't find variable {var_op_name}")
    for candidate in candidates:
        if candidate.op.name == var_op_name:
            return candidate
    raise ValueError(f"Variable {var_op_name} does not uniquely identify a variable")
