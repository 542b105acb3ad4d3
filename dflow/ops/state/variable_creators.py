"""Variable creators (``tf.variable_creator_scope``): every ``tf.Variable(...)`` call
(``tf.get_variable``, layers, optimizers and metrics all end in one) passes through
``VariableMeta.__call__``, the single place where variables are created. When the graph has
creators, the call becomes ``creator(next_creator, **kwargs)`` chained innermost first, ending in the
plain constructor, as TF's ``VariableMetaclass``. As TF keeps ``Graph._variable_creator_stack``, the
stack is per graph (the outermost one, which holds the variables of loop bodies and cond branches)
and per thread.
"""

from __future__ import annotations

import contextlib
import threading

from dflow.framework.graph import get_default_graph


def _creator_graph(graph):
    while getattr(graph, "outer_graph", None) is not None:
        graph = graph.outer_graph
    return graph


_creators = threading.local()  # .stacks: {id(outermost graph): [(priority, creator)]} while scopes are open


def _stacks() -> dict:
    stacks = getattr(_creators, "stacks", None)
    if stacks is None:
        stacks = _creators.stacks = {}
    return stacks


def _variable_creator_stack(graph=None) -> list:
    """``graph``'s ``[(priority, creator)]`` in this thread, innermost last (TF's ``Graph._variable_creator_stack``)."""
    stacks = _stacks()
    if not stacks:
        return []
    return stacks.get(id(_creator_graph(graph if graph is not None else get_default_graph())), [])


@contextlib.contextmanager
def _variable_creator_scope(creator, priority: int = 100, graph=None):
    """Pushes ``creator`` on ``graph``'s stack, stably sorted by priority (TF's ``Graph._variable_creator_scope``).

    The stacks live in one module-level thread-local, keyed by graph while a scope is open (the
    scope holds the graph, so its id stays its own): a ``threading.local`` per graph would be
    freed by the garbage collector, which in CPython 3.11 can deadlock a thread that collects
    inside ``sys._current_frames()`` (the critical-section watchdog calls it)."""
    target = _creator_graph(graph if graph is not None else get_default_graph())
    stacks, key = _stacks(), id(target)
    old = stacks.get(key, [])
    new = sorted([*old, (priority, creator)], key=lambda item: item[0])
    stacks[key] = new
    try:
        yield
    finally:
        if stacks.get(key) is not new:
            raise RuntimeError("Exiting variable_creator_scope without proper nesting.")
        if old:
            stacks[key] = old
        else:
            del stacks[key]


def _creator_kwargs(initial_value=None, trainable=None, collections=None, validate_shape=True, caching_device=None,
                    name=None, variable_def=None, dtype=None, expected_shape=None, import_scope=None, constraint=None,
                    use_resource=None, synchronization=None, aggregation=None, shape=None, container="",
                    shared_name=None) -> dict:
    """``Variable(...)``'s arguments as the keywords TF 2.15 hands a creator, in its order. TF's
    ``experimental_enable_variable_lifting`` is left out (dflow always lifts variables out of loop
    bodies); dflow's own ``container``/``shared_name`` follow when given."""
    from dflow.ops.state.variable_utils import VariableAggregation, VariableSynchronization

    kwargs = dict(initial_value=initial_value, trainable=trainable, validate_shape=validate_shape,
                  caching_device=caching_device, name=name, variable_def=variable_def, dtype=dtype,
                  import_scope=import_scope, constraint=constraint,
                  synchronization=VariableSynchronization.AUTO if synchronization is None else synchronization,
                  aggregation=VariableAggregation.NONE if aggregation is None else aggregation,
                  shape=shape, expected_shape=expected_shape, collections=collections, use_resource=use_resource)
    if container:
        kwargs["container"] = container
    if shared_name is not None:
        kwargs["shared_name"] = shared_name
    return kwargs


def _make_getter(creator, next_creator):
    return lambda **kwargs: creator(next_creator, **kwargs)


class VariableMeta(type):
    """Routes ``tf.Variable(...)`` through the default graph's variable creators (TF's ``VariableMetaclass``).

    Only ``root`` (``tf.Variable``, set by ``dflow/ops/state/variables.py``) goes through them: subclasses,
    ``Variable.from_proto`` and ``Variable.__new__`` (imported graphs) bypass them, as in TF.
    """

    root = None

    def __call__(cls, *args, **kwargs):
        stack = _variable_creator_stack() if cls is VariableMeta.root else None
        if not stack:
            return super().__call__(*args, **kwargs)
        getter = _default_creator
        for _, creator in stack:
            getter = _make_getter(creator, getter)
        return getter(**_creator_kwargs(*args, **kwargs))


def _default_creator(**kwargs):
    """The end of every creator chain: the plain ``Variable`` constructor."""
    return type.__call__(VariableMeta.root, **kwargs)
