"""``tf.Module`` and ``tf.variable_creator_scope``.

A ``tf.Module`` is a named container of variables and other modules. Its
``variables``, ``trainable_variables`` and ``submodules`` are found by walking
its attributes, as TF's ``python/module/module.py`` does: the module's own
attributes in sorted name order (lists, tuples, namedtuples and dicts flattened
as ``tf.nest`` does, each leaf once), then each submodule found, in that order,
recursively. ``with self.name_scope:`` (or a method decorated with
``@tf.Module.with_name_scope``) re-enters the name scope the module opened when
it was made, so variables made there are named ``module_name/...``::

    class Dense(tf.Module):
        def __init__(self, n_in, n_out, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.w = tf.Variable(tf.ones([n_in, n_out]), name="w")   # dense/w:0

        @tf.Module.with_name_scope
        def __call__(self, x):
            return tf.matmul(x, self.w)                                    # dense/MatMul:0

``tf.variable_creator_scope(creator)`` makes every variable created inside it
(``tf.Variable``, ``tf.get_variable``, layers' and optimizers' variables) a call
``creator(next_creator, **kwargs)``; the hook is in ``dflow/ops/state/variables.py``.
A module is also a checkpointable object: ``tf.train.Checkpoint(model=module)``
saves its variables under their attribute paths (``model/dense/w/...``).
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Mapping

from dflow._api import tf_export
from dflow.framework.composite import CompositeTensor
from dflow.framework.graph import get_default_graph, name_scope
from dflow.ops.state import variable_creators
from dflow.ops.state import variables as _variables

_CAMEL_TO_SNAKE_R = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def camel_to_snake(value: str) -> str:
    """A class name as a module name: ``HTTPServerABC`` -> ``http_server_abc`` (TF's rule)."""
    return _CAMEL_TO_SNAKE_R.sub(r"_\1", value).lower()


def valid_identifier(name: str) -> bool:
    """Whether ``name`` is a valid module name (a Python identifier, ASCII only)."""
    return bool(_VALID_IDENTIFIER.match(name))


class _ModuleNameScope:
    """A name scope that re-enters one full scope name (``"outer/dense/"``) each time it is entered.

    It may be entered again while it is open (a decorated method calling another), as TF's
    ``name_scope_v2``; ``with scope as s`` gives the scope name.
    """

    def __init__(self, scope_name: str):
        self._name = scope_name
        self._open: list = []

    @property
    def name(self) -> str:
        return self._name

    def __enter__(self) -> str:
        ctx = name_scope(self._name)
        scope = ctx.__enter__()
        self._open.append(ctx)
        return scope

    def __exit__(self, *exc_info):
        return self._open.pop().__exit__(*exc_info)

    def __repr__(self):
        return f"<name_scope {self._name!r}>"


@tf_export("Module")
class Module:
    """Base class of named containers of variables, other modules and the functions that use them.

    >>> import dflow as tf
    >>> class Scale(tf.Module):
    ...     def __init__(self, name=None):
    ...         super().__init__(name=name)
    ...         with self.name_scope:
    ...             self.k = tf.Variable(2.0, name="k")
    >>> [v.name for v in Scale().variables]
    ['scale/k:0']
    """

    # Attributes that ``_flatten`` skips (TF's, kept for subclasses that extend the set).
    _TF_MODULE_IGNORED_PROPERTIES = frozenset(("_self_unconditional_checkpoint_dependencies",
                                               "_self_unconditional_dependency_names"))

    def __init__(self, name=None):
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not valid_identifier(name):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be valid Python identifiers "
                             f"(e.g. a valid class name).")
        self._name = name
        # Opens (and so uniquifies) the name scope once; ``name_scope`` re-enters it.
        with name_scope(name) as scope_name:
            self._name_scope = _ModuleNameScope(scope_name)

    @property
    def name(self) -> str:
        """The name given to the constructor (or made from the class name); not the full scope name."""
        return self._name

    @property
    def name_scope(self) -> _ModuleNameScope:
        """The module's name scope (``name_scope.name`` is the full scope, e.g. ``"outer/dense_1/"``)."""
        return self._name_scope

    @property
    def variables(self) -> tuple:
        """The variables of this module (by attribute name), then those of its submodules."""
        return tuple(self._flatten(predicate=_is_variable, expand_composites=True))

    @property
    def trainable_variables(self) -> tuple:
        """The trainable variables of this module and its submodules, in ``variables``' order."""
        return tuple(self._flatten(predicate=_is_trainable_variable, expand_composites=True))

    @property
    def non_trainable_variables(self) -> tuple:
        """The non-trainable variables of this module and its submodules, in ``variables``' order."""
        return tuple(self._flatten(predicate=_is_non_trainable_variable, expand_composites=True))

    @property
    def submodules(self) -> tuple:
        """All modules reachable from this one's attributes (itself excluded)."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive=True, predicate=None, attribute_traversal_key=None, with_path=False,
                 expand_composites=False):
        """A generator of the leaves of this module's attributes (and, if ``recursive``, its submodules').

        Attributes are visited sorted by name (or by ``attribute_traversal_key``), each value
        flattened as ``tf.nest`` does; leaves that pass ``predicate`` are yielded, each once
        unless ``with_path`` (then as ``(path, leaf)``, ``path`` a tuple of attribute names,
        indices and keys). ``expand_composites`` flattens a ``SparseTensor`` into its components.
        """
        if predicate is None:
            predicate = _always
        return _flatten_module(self, recursive=recursive, predicate=predicate,
                               attributes_to_ignore=self._TF_MODULE_IGNORED_PROPERTIES,
                               attribute_traversal_key=attribute_traversal_key, with_path=with_path,
                               expand_composites=expand_composites)

    @classmethod
    def with_name_scope(cls, method):
        """Decorates a method so that it runs inside the module's name scope."""

        @functools.wraps(method)
        def method_with_name_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return method_with_name_scope

    def _trackable_children(self) -> dict:
        """``{attribute: value}`` for ``tf.train.Checkpoint``: the attributes holding variables or modules."""
        from dflow.train.checkpoints import tracking

        children = {}
        for key, value in vars(self).items():
            if key in self._TF_MODULE_IGNORED_PROPERTIES:
                continue
            value = _as_checkpoint_value(value)
            if tracking._trackable(value):
                children[key] = value
        return children


def _always(_) -> bool:
    return True


def _is_variable(obj) -> bool:
    return isinstance(obj, _variables.Variable)


def _is_trainable_variable(obj) -> bool:
    return _is_variable(obj) and getattr(obj, "trainable", False)


def _is_non_trainable_variable(obj) -> bool:
    return _is_variable(obj) and not getattr(obj, "trainable", False)


def _is_module(obj) -> bool:
    return isinstance(obj, Module)


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _as_checkpoint_value(value):
    """``value`` with each namedtuple as a dict by field name: TF keys a namedtuple's children by field."""
    if _is_namedtuple(value):
        return {field: _as_checkpoint_value(v) for field, v in zip(value._fields, value)}
    if type(value) in (list, tuple):
        return type(value)(_as_checkpoint_value(v) for v in value)
    if type(value) is dict:
        return {k: _as_checkpoint_value(v) for k, v in value.items()}
    return value


def _leaves_with_paths(structure, expand_composites: bool, prefix: tuple = ()):
    """``(path, leaf)`` of a nested structure, as TF's ``nest.flatten_with_tuple_paths``: dicts by sorted
    key, lists and tuples by index, namedtuples by field name in field order; with ``expand_composites``
    a composite (not a variable) becomes ``prefix + (TypeName, i)`` paths of its components."""
    if expand_composites and isinstance(structure, CompositeTensor):
        components = structure._fetch_components()
        yield from _leaves_with_paths(list(components), expand_composites, prefix + (type(structure).__name__,))
    elif isinstance(structure, Mapping):
        for key in sorted(structure):
            yield from _leaves_with_paths(structure[key], expand_composites, prefix + (key,))
    elif _is_namedtuple(structure):
        for field, value in zip(structure._fields, structure):
            yield from _leaves_with_paths(value, expand_composites, prefix + (field,))
    elif isinstance(structure, (list, tuple)):
        for i, value in enumerate(structure):
            yield from _leaves_with_paths(value, expand_composites, prefix + (i,))
    else:
        yield prefix, structure


def _flatten_module(module, recursive, predicate, attribute_traversal_key, attributes_to_ignore, with_path,
                    expand_composites, module_path=(), seen=None, recursion_stack=None):
    """TF's ``_flatten_module``: this module's leaves first, then each submodule's, depth first.

    ``seen`` (leaf ids, the root module's included) drops repeated leaves unless ``with_path``;
    ``recursion_stack`` stops a cycle of modules from recursing again.
    """
    module_id = id(module)
    if seen is None:
        seen = {module_id}
    if recursion_stack is None:
        recursion_stack = []
    if module_id in recursion_stack:
        recursive = False
    module_dict = vars(module)
    submodules = []
    for key in sorted(module_dict, key=attribute_traversal_key):
        if key in attributes_to_ignore:
            continue
        prop = module_dict[key]
        try:
            leaves = list(_leaves_with_paths(prop, expand_composites))
        except Exception as cause:
            raise ValueError(f"Error processing property {key!r} of {prop!r}") from cause
        for leaf_path, leaf in leaves:
            leaf_path = (key,) + leaf_path
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (module_path + leaf_path, leaf) if with_path else leaf
            if recursive and _is_module(leaf):
                submodules.append((module_path + leaf_path, leaf))
    recursion_stack.append(module_id)
    for submodule_path, submodule in submodules:
        yield from _flatten_module(submodule, recursive=recursive, predicate=predicate,
                                   attribute_traversal_key=attribute_traversal_key,
                                   attributes_to_ignore=submodule._TF_MODULE_IGNORED_PROPERTIES,
                                   with_path=with_path, expand_composites=expand_composites,
                                   module_path=submodule_path, seen=seen, recursion_stack=recursion_stack)
    recursion_stack.pop()


@tf_export("variable_creator_scope")
@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """Scope in which every new variable is made by ``variable_creator(next_creator, **kwargs)``.

    Inside it, ``tf.Variable(...)``, ``tf.get_variable`` and the variables of layers and
    optimizers call ``variable_creator`` with ``next_creator`` and the keywords of TF 2.15:
    ``initial_value, trainable, validate_shape, caching_device, name, variable_def, dtype,
    import_scope, constraint, synchronization, aggregation, shape, expected_shape,
    collections, use_resource``. ``next_creator(**kwargs)`` goes on to the next creator
    out (scopes nest, innermost first) and finally creates the variable; what the creator
    returns is the result of ``tf.Variable(...)`` (and what ``get_variable`` keeps). The
    creators belong to the default graph, in this thread.

    >>> import dflow as tf
    >>> def frozen(next_creator, **kwargs):
    ...     kwargs["trainable"] = False
    ...     return next_creator(**kwargs)
    >>> with tf.variable_creator_scope(frozen):
    ...     v = tf.Variable(1.0, name="v")
    >>> v.trainable
    False
    """
    with variable_creators._variable_creator_scope(variable_creator, graph=get_default_graph()):
        yield
