"""Iterators over datasets: ``tf.data.Iterator`` and the ops behind it.

An iterator is a per-session resource (``IteratorResource``, kept in the
session's ``SessionResources``), as in TF1: two sessions iterate
independently. The graph holds, as TF1's does:

* ``IteratorV2`` (or ``OneShotIterator``): no inputs; outputs the handle of
  the session's iterator resource (``SessionResources.resource``, keyed by
  container and shared name, or by the op), creating it on first use;
* ``MakeIterator`` (the initializer): inputs ``[handle, *graph inputs of
  the dataset]``; builds a fresh pipeline (``pipeline.py``) from their
  values and installs it, closing the previous one;
* ``IteratorGetNext``: input ``handle``; outputs one element, one tensor per
  component, with the element's static shapes; ``OutOfRangeError`` ("End of
  sequence") at the end, ``FailedPreconditionError`` before initialization.
* ``IteratorToStringHandle`` / ``IteratorFromStringHandleV2`` turn a handle
  into a string and back, so one ``get_next`` can read from an iterator
  chosen by a fed string.

A one-shot iterator has no initializer: its ``OneShotIterator`` kernel
evaluates the dataset's graph inputs itself, once per session, the first
time it runs. Those inputs therefore cannot be placeholders (TF1 refuses
them too).
"""

from __future__ import annotations

import threading

import numpy as np

from dflow._api import tf_export
from dflow.data import structure
from dflow.data.dataset_ops import DatasetV1
from dflow.data.pipeline import BuildContext, FunctionCache
from dflow.data.prefetch import thread_state as pipeline_thread_state
from dflow.framework import dtypes, errors
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.control_flow.if_while_ops import variant

# The dtype of an iterator handle (whose value is the session's IteratorResource
# object): TF1's is ``resource``; dflow's opaque ``variant`` is the dtype that graph
# files already know.
resource = variant

_NOT_INITIALIZED = ("GetNext() failed because the iterator has not been initialized. Ensure that you have run the "
                    "initializer operation for this iterator before getting the next element.")


class IteratorResource:
    """One iterator's state in one session: the pipeline it reads, if initialized."""

    def __init__(self, handle: str, name: str, types: tuple):
        self.handle = handle
        self.name = name
        self.types = types
        self.pipeline = None
        self.lock = threading.Lock()

    def initialize(self, pipeline) -> None:
        old, self.pipeline = self.pipeline, pipeline
        if old is not None:
            old.close()

    def get_next(self, ctx):
        with self.lock:
            p = self.pipeline
            if p is None:
                raise errors.FailedPreconditionError(None, None, _NOT_INITIALIZED)
            local = pipeline_thread_state
            prev, local.ctx = getattr(local, "ctx", None), ctx  # for waits below (prefetch)
            try:
                return next(p)
            except StopIteration:
                raise errors.OutOfRangeError(None, None, "End of sequence") from None
            finally:
                local.ctx = prev


def _key(op) -> tuple:
    """The resource key of an iterator op: ("iterator", container, shared name or the op's own)."""
    return ("iterator", op._attrs.get("container", ""), op._attrs.get("shared_name") or f"op:{op.name}")


def _handle_string(key: tuple) -> str:
    return "\x00".join(key)


def _factory(op):
    """A maker of ``op``'s iterator resource, for ``SessionResources.resource``."""
    key, types, name = _key(op), tuple(op._attrs["output_types"]), op.name
    return key, lambda: IteratorResource(_handle_string(key), name, types)


def _where(op) -> str:
    return f"the input pipeline of {op.name}"


# The dataset each MakeIterator/OneShotIterator op builds. It is a Python object
# (functions, generators), so it is kept by the graph beside the op rather than in
# the op's attrs: graph and meta-graph files (a Saver writes one) then hold every
# op, and an imported graph's initializers say what is missing when run.
_DATASETS_ATTR = "_dflow_datasets"


def _set_dataset(op, dataset: DatasetV1) -> None:
    op._graph.__dict__.setdefault(_DATASETS_ATTR, {})[op] = dataset


def dataset_of(op) -> DatasetV1:
    """The dataset an iterator-initializing op builds."""
    ds = op._graph.__dict__.get(_DATASETS_ATTR, {}).get(op)
    if ds is None:
        raise errors.UnimplementedError(
            None, None, f"{op.name} has no dataset here: dflow keeps tf.data pipelines as Python objects, which "
                        f"graph and meta-graph files do not hold, nor the graphs a cluster session ships to "
                        f"workers in other processes. On a cluster, place the iterator on the task this process "
                        f"serves (start it as a tf.train.Server and open the session on server.target, as TF1's "
                        f"between-graph scripts do), or feed the data. After importing a graph, build the dataset "
                        f"again in Python and initialize an iterator over it (Iterator.make_initializer).")
    return ds


# -- IteratorV2 and OneShotIterator --------------------------------------------------------


def _handle_infer(op):
    return [(resource, TensorShape([]))]


def _make_iterator_v2(op, resources):
    # Kernels look the resource up on each call rather than keep it: a closed
    # (or reset) session's resources then free the iterators, whose prefetch threads stop.
    key, factory = _factory(op)
    return lambda: resources.resource(key, factory)


register("IteratorV2", infer=_handle_infer, make_kernel=_make_iterator_v2, stateful=True, gpu=False)


def _functions(op, resources, iterator_op) -> FunctionCache:
    """``op``'s compiled dataset functions in this session, shared by every plan that runs ``op``."""
    return resources.op_state(op, lambda: FunctionCache(resources, _where(iterator_op)))


def _evaluate(tensors: list, resources, where: str) -> dict:
    """The values of ``tensors`` of the user's graph, computed once, privately."""
    if not tensors:
        return {}
    from dflow.sessions.plan import Partition, prune_to_fetches
    from dflow.sessions.program import PartitionProgram

    ops = prune_to_fetches(tensors, [], set())
    program = PartitionProgram(Partition(where, ops, [], list(tensors)), [], resources)
    return dict(zip(tensors, program(None, ())))


def _make_one_shot(op, resources):
    key, factory = _factory(op)
    functions = _functions(op, resources, op)
    lock = threading.Lock()

    def kernel():
        res = resources.resource(key, factory)
        if res.pipeline is None:
            with lock:
                if res.pipeline is None:
                    dataset = dataset_of(op)
                    values = _evaluate(dataset._graph_inputs(), resources, _where(op))
                    res.initialize(dataset._build(BuildContext(values, functions))())
        return res

    return kernel


register("OneShotIterator", infer=_handle_infer, make_kernel=_make_one_shot, stateful=True, gpu=False)


# -- MakeIterator ---------------------------------------------------------------------------


def _make_make_iterator(op, resources):
    tensors = _dataset_inputs(op)
    functions = _functions(op, resources, op._inputs[0]._op)

    def kernel(res, *values):
        dataset = dataset_of(op)
        res.initialize(dataset._build(BuildContext(dict(zip(tensors, values)), functions))())

    return kernel


register("MakeIterator", infer=lambda op: [], make_kernel=_make_make_iterator, stateful=True, gpu=False)


# -- IteratorGetNext ------------------------------------------------------------------------


def _get_next_infer(op):
    return list(zip(op._attrs["output_types"], op._attrs["output_shapes"]))


def _make_get_next(op, resources):
    if len(op._outputs) == 1:
        return lambda ctx, res: res.get_next(ctx)[0]
    return lambda ctx, res: res.get_next(ctx)


register("IteratorGetNext", infer=_get_next_infer, make_kernel=_make_get_next, stateful=True, gpu=False,
         uses_context=True)


# -- string handles -------------------------------------------------------------------------


def _string_scalar(s: str) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = s.encode()
    return out


register("IteratorToStringHandle", infer=lambda op: [(dtypes.string, TensorShape([]))],
         make_kernel=lambda op, resources: lambda res: _string_scalar(res.handle), stateful=True, gpu=False)


def _make_from_string_handle(op, resources):
    types = tuple(op._attrs["output_types"])

    def kernel(handle):
        h = np.asarray(handle, dtype=object)
        h = h.item() if h.ndim == 0 else None
        h = h.decode(errors="replace") if isinstance(h, bytes) else h
        key = tuple(h.split("\x00")) if isinstance(h, str) else ()
        try:
            res = resources.resource(key) if len(key) == 3 and key[0] == "iterator" else None
        except errors.NotFoundError:
            res = None
        if res is None:
            raise errors.InvalidArgumentError(None, None, f"{handle!r} is not the string handle of an iterator of "
                                                          f"this session (see Iterator.string_handle()).")
        if res.types != types:
            raise errors.InvalidArgumentError(
                None, None, f"The iterator {res.name} produces elements of types "
                            f"{[t.name for t in res.types]}, but this handle was declared with output types "
                            f"{[t.name for t in types]}.")
        return res

    return kernel


register("IteratorFromStringHandleV2", infer=_handle_infer, make_kernel=_make_from_string_handle, stateful=True,
         gpu=False)

for _t in ("IteratorV2", "OneShotIterator", "MakeIterator", "IteratorGetNext", "IteratorToStringHandle",
           "IteratorFromStringHandleV2"):
    not_differentiable(_t)


# -- the Python API -------------------------------------------------------------------------


def _flat_attrs(spec) -> dict:
    flat = structure.flatten(spec)
    return {"output_types": [s.dtype for s in flat], "output_shapes": [s.shape for s in flat]}


@tf_export("data.Iterator")
class Iterator(structure.HasElementSpec):
    """Reads the elements of a dataset, one ``get_next()`` run at a time (TF1's ``tf.data.Iterator``).

    >>> import dflow as tf
    >>> x = tf.placeholder(tf.int64, [None])
    >>> it = tf.data.make_initializable_iterator(tf.data.Dataset.from_tensor_slices(x))
    >>> nxt = it.get_next()
    >>> with tf.Session() as sess:
    ...     _ = sess.run(it.initializer, {x: [4, 5]})
    ...     [int(sess.run(nxt)), int(sess.run(nxt))]
    [4, 5]
    """

    def __init__(self, iterator_resource: Tensor, initializer, output_types, output_shapes, output_classes=None):
        self._iterator_resource = iterator_resource
        self._initializer = initializer
        self._spec = structure.specs_from(output_types, output_shapes, output_classes)

    @staticmethod
    def _of(iterator_resource: Tensor, initializer, spec) -> Iterator:
        return Iterator(iterator_resource, initializer, structure.types_of(spec), structure.shapes_of(spec),
                        structure.classes_of(spec))

    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None, output_classes=None) -> Iterator:
        """An uninitialized iterator for elements of this structure; ``make_initializer(ds)`` points it at a
        dataset (switch datasets by running another initializer)."""
        spec = structure.specs_from(output_types, output_shapes, output_classes)
        op = apply_op("IteratorV2", [], {"container": "", "shared_name": shared_name or "", **_flat_attrs(spec)},
                      name="IteratorV2")
        return Iterator._of(op.outputs[0], None, spec)

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None, output_classes=None) -> Iterator:
        """An iterator that reads whichever iterator ``string_handle`` (a string tensor, usually fed) names."""
        from dflow.framework.constant_op import convert_to_tensor

        spec = structure.specs_from(output_types, output_shapes, output_classes)
        string_handle = convert_to_tensor(string_handle, dtype=dtypes.string)
        op = apply_op("IteratorFromStringHandleV2", [string_handle], _flat_attrs(spec),
                      name="IteratorFromStringHandleV2")
        return Iterator._of(op.outputs[0], None, spec)

    @property
    def initializer(self):
        if self._initializer is None:
            raise ValueError("The iterator does not have an initializer. This means it was likely created using "
                             "`tf.data.Dataset.make_one_shot_iterator()`. For an initializable iterator, use "
                             "`tf.data.Dataset.make_initializable_iterator()` instead.")
        return self._initializer

    def make_initializer(self, dataset, name=None):
        """An op that (re)initializes this iterator over ``dataset``, whose structure must match."""
        if not isinstance(dataset, DatasetV1):
            raise TypeError(f"Expected a Dataset, got {dataset!r}")
        want, got = self._spec, dataset._spec
        if not structure.same_structure(want, got):
            raise TypeError(f"Expected output types {structure.describe_types(want)} but got dataset with output "
                            f"types {structure.describe_types(got)}.")
        if structure.types_of(want) != structure.types_of(got) or \
                structure.classes_of(want) != structure.classes_of(got):
            raise TypeError(f"Expected output types {structure.describe_types(want)} but got dataset with output "
                            f"types {structure.describe_types(got)}.")
        for w, g in zip(structure.flatten(want), structure.flatten(got)):
            if not w.shape.is_compatible_with(g.shape):
                raise TypeError(f"Expected output shapes compatible with {structure.describe_shapes(want)} but got "
                                f"dataset with output shapes {structure.describe_shapes(got)}.")
        return _make_iterator_op(self._iterator_resource, dataset, name or "make_initializer")

    def get_next(self, name=None):
        """The next element: the dataset's structure of tensors, with its static shapes."""
        op = apply_op("IteratorGetNext", [self._iterator_resource], _flat_attrs(self._spec),
                      name=name or "IteratorGetNext")
        return structure.pack(self._spec, list(op.outputs))

    def get_next_as_optional(self):
        """An ``Optional`` of the next element, empty at the end of the data."""
        from dflow.data.optional_ops import get_next_as_optional

        return get_next_as_optional(self)

    def string_handle(self, name=None) -> Tensor:
        """A string scalar naming this iterator in its session (for ``from_string_handle``)."""
        return apply_op("IteratorToStringHandle", [self._iterator_resource],
                        name=name or "IteratorToStringHandle").outputs[0]


def _make_iterator_op(handle: Tensor, dataset: DatasetV1, name: str):
    inputs = dataset._graph_inputs()
    op_inputs = [t if t.graph is handle.graph else _captured_by_value(t, handle) for t in inputs]
    op = apply_op("MakeIterator", [handle, *op_inputs], name=name)
    _set_dataset(op, dataset)
    return op


def _captured_by_value(t: Tensor, handle: Tensor) -> Tensor:
    """A constant input of a dataset built in another graph, copied into the iterator's graph: TF1
    captured such datasets by value (an Estimator's ``input_fn`` may return a dataset built before
    the Estimator made its graph)."""
    from dflow.framework.constant_op import constant
    from dflow.framework.op_registry import constant_value

    value = constant_value(t)
    if value is None:
        raise ValueError(f"{t} must be from the same graph as {handle}.")
    with handle.graph.as_default():
        return constant(value, dtype=t.dtype)


def _dataset_inputs(op) -> list:
    """The dataset's graph inputs whose values a ``MakeIterator`` op's inputs carry, in order (those of
    its own graph when it was built in another)."""
    dataset = op._graph.__dict__.get(_DATASETS_ATTR, {}).get(op)
    return list(dataset._graph_inputs()) if dataset is not None else list(op._inputs[1:])


def _check_capturable(dataset: DatasetV1) -> None:
    """TF1's rule for one-shot iterators: the dataset cannot depend on placeholders."""
    seen: set = set()
    stack = [t._op for t in dataset._graph_inputs()]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op._type in ("Placeholder", "PlaceholderWithDefault"):
            raise ValueError(f"Cannot capture a placeholder (name:{op.name}, type:{op.type}) by value.")
        stack.extend(t._op for t in op._inputs)
        stack.extend(op._control_inputs)


@tf_export("data.make_one_shot_iterator")
def make_one_shot_iterator(dataset) -> Iterator:
    """An iterator over ``dataset`` that needs no initializer: each session starts it on first use."""
    if not isinstance(dataset, DatasetV1):
        raise TypeError(f"Expected a Dataset, got {dataset!r}")
    _check_capturable(dataset)
    attrs = {"container": "", "shared_name": "", **_flat_attrs(dataset._spec)}
    op = apply_op("OneShotIterator", [], attrs, name="OneShotIterator")
    _set_dataset(op, dataset)
    return Iterator._of(op.outputs[0], None, dataset._spec)


@tf_export("data.make_initializable_iterator")
def make_initializable_iterator(dataset, shared_name=None) -> Iterator:
    """An iterator over ``dataset`` to start (and restart) with ``sess.run(iterator.initializer)``."""
    if not isinstance(dataset, DatasetV1):
        raise TypeError(f"Expected a Dataset, got {dataset!r}")
    op = apply_op("IteratorV2", [], {"container": "", "shared_name": shared_name or "",
                                     **_flat_attrs(dataset._spec)}, name="IteratorV2")
    handle = op.outputs[0]
    return Iterator._of(handle, _make_iterator_op(handle, dataset, "MakeIterator"), dataset._spec)


def _structure_of(dataset_or_iterator, what: str):
    if isinstance(dataset_or_iterator, (DatasetV1, Iterator)):
        return getattr(dataset_or_iterator, what)
    raise TypeError(f"Expected a Dataset or an Iterator, got {dataset_or_iterator!r}")


@tf_export("data.get_output_types")
def get_output_types(dataset_or_iterator):
    """The element dtypes of a dataset or iterator, in its structure."""
    return _structure_of(dataset_or_iterator, "output_types")


@tf_export("data.get_output_shapes")
def get_output_shapes(dataset_or_iterator):
    """The element static shapes of a dataset or iterator, in its structure."""
    return _structure_of(dataset_or_iterator, "output_shapes")


@tf_export("data.get_output_classes")
def get_output_classes(dataset_or_iterator):
    """The element classes (``tf.Tensor``) of a dataset or iterator, in its structure."""
    return _structure_of(dataset_or_iterator, "output_classes")
