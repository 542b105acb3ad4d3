"""The global step: the int64 counter of training steps, ``tf.train.*global_step``."""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.graph import GraphKeys, get_default_graph


@tf_export("train.get_global_step")
def get_global_step(graph=None):
    """The global step variable of ``graph`` (or the default graph), or None."""
    graph = graph or get_default_graph()
    steps = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(steps) == 1:
        return steps[0]
    if len(steps) > 1:
        raise TypeError("Multiple tensors in global_step collection.")
    try:
        return graph.get_tensor_by_name("global_step:0")
    except KeyError:
        return None


@tf_export("train.create_global_step")
def create_global_step(graph=None):
    """Creates the global step (int64 scalar, 0, not trainable); ValueError if it exists."""
    from dflow.ops.state import init_ops
    from dflow.ops.state.variable_scope import get_variable

    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), graph.name_scope(None):
        return get_variable(GraphKeys.GLOBAL_STEP, shape=[], dtype=dtypes.int64,
                            initializer=init_ops.zeros_initializer(), trainable=False,
                            collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])


@tf_export("train.get_or_create_global_step")
def get_or_create_global_step(graph=None):
    """The global step of ``graph``, created on first use."""
    graph = graph or get_default_graph()
    step = get_global_step(graph)
    return step if step is not None else create_global_step(graph)


GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"  # TF's collection of the read below


def _get_or_create_global_step_read(graph=None):
    """A copy of the global step's value (``global_step/add:0``, its value plus zero), cached in the
    graph, as TF 1.15's hooks read it; None without a global step.

    A fetched ref variable is its value after the run's updates (TF1's aliasing buffers); this copy is
    the value the step's read took, so a hook fetching it beside ``train_op`` sees the step the run
    started from, as TF's hooks do (they add one, or read the step again).
    """
    graph = graph or get_default_graph()
    cached = graph.get_collection(GLOBAL_STEP_READ_KEY)
    if cached:
        return cached[0]
    step = get_global_step(graph)
    if step is None:
        return None
    from dflow.ops.math.math_ops import add

    with graph.as_default(), graph.name_scope(None), graph.name_scope(step.op.name + "/"):
        read = add(step.value() if hasattr(step, "value") else step, 0)
    graph.add_to_collection(GLOBAL_STEP_READ_KEY, read)
    return read


@tf_export("train.global_step")
def global_step(sess, global_step_tensor) -> int:
    """The value of the global step, as a Python int."""
    return int(sess.run(global_step_tensor))


@tf_export("train.assert_global_step")
def assert_global_step(global_step_tensor) -> None:
    """Raises TypeError unless ``global_step_tensor`` is an integer scalar."""
    dtype = global_step_tensor.dtype
    if not dtype.base_dtype.is_integer:
        raise TypeError(f"Existing \"global_step\" does not have integer type: {dtype}")
    if global_step_tensor.get_shape().ndims not in (0, None):
        raise TypeError(f"Existing \"global_step\" is not scalar: {global_step_tensor.get_shape()}")
