"""``tf.data.Dataset``: a description of an input pipeline, built in Python.

A ``Dataset`` is a node of a tree: a source (``from_tensor_slices``,
``range``, ``from_generator``, ``TextLineDataset``, ...) or a transformation
of other datasets (``map``, ``batch``, ``shuffle``, ...). No dataset op
enters the graph: a dataset's *graph inputs* (the tensors it was built
from, and the outer tensors its functions capture) become inputs of the op
that initializes an iterator over it, so they are read when the iterator is
initialized, and may be placeholders fed then. ``map``/``filter``/
``flat_map`` functions are traced once into ``FuncGraph``s
(``functions.py``).

Each node knows its element ``ComponentSpec`` structure (TF1's
``output_types``/``output_shapes``/``output_classes``) and how to build its
run-time source from the values of its graph inputs (``pipeline.py``).

>>> import dflow as tf
>>> ds = tf.data.Dataset.from_tensor_slices({"x": [[1.0, 2.0], [3.0, 4.0]], "y": [0, 1]}).batch(2)
>>> ds.output_shapes
{'x': TensorShape([None, 2]), 'y': TensorShape([None])}
"""

from __future__ import annotations

import numpy as np

from dflow._api import export_value, tf_export
from dflow.data import structure
from dflow.data.pipeline import (
    ConcatenateIterator,
    ListIterator,
    RangeIterator,
    SliceSource,
    ZipIterator,
)
from dflow.framework import dtypes, errors, nest
from dflow.framework.constant_op import convert_to_tensor, to_numpy
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import constant_value
from dflow.framework.tensor_shape import TensorShape

AUTOTUNE = -1
export_value("data.experimental.AUTOTUNE", AUTOTUNE)
export_value("data.AUTOTUNE", AUTOTUNE)


def scalar_arg(value, name: str):
    """An integer argument: a Python int, or a scalar integer tensor read at initialization."""
    if isinstance(value, Tensor):
        if not value.dtype.is_integer:
            raise TypeError(f"`{name}` must be an integer tensor, got {value.dtype.name}")
        if value.shape.ndims not in (None, 0):
            raise ValueError(f"`{name}` must be a scalar, got shape {value.shape}")
        return value
    try:
        return int(value)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be an integer, got {value!r}") from None


def static_int(arg):
    """The value of a ``scalar_arg`` if known at graph construction, else None."""
    if isinstance(arg, Tensor):
        v = constant_value(arg)
        return None if v is None else int(v)
    return arg


def resolve_int(ctx, arg) -> int:
    return int(ctx.value(arg)) if isinstance(arg, Tensor) else arg


def _tensor_args(*args) -> list:
    return [a for a in args if isinstance(a, Tensor)]


@tf_export("data.Dataset", "contrib.data.Dataset")  # contrib.data.Dataset: TF 1.2-1.3's name
class DatasetV1(structure.HasElementSpec):
    """A sequence of elements, each a nested structure of tensors (TF1's ``tf.data.Dataset``).

    Build one with a source (``from_tensor_slices``, ``range``, ...), chain
    transformations, and read it through an iterator:

    >>> import dflow as tf
    >>> ds = tf.data.Dataset.range(10).map(lambda x: x * 2).batch(4)
    >>> nxt = tf.data.make_one_shot_iterator(ds).get_next()
    >>> with tf.Session() as sess:
    ...     sess.run(nxt).tolist()
    [0, 2, 4, 6]
    """

    def __init__(self, spec):
        self._spec = spec

    # -- the node protocol -------------------------------------------------------------
    def _children(self) -> list:
        """Upstream datasets built in the same context."""
        return []

    def _tensors(self) -> list:
        """This node's own graph inputs."""
        return []

    def _functions(self) -> list:
        """This node's traced functions (their captures are graph inputs)."""
        return []

    def _build(self, ctx):
        """The run-time source: a callable that makes a fresh iterator."""
        raise NotImplementedError

    def _graph_inputs(self) -> list:
        """Every tensor whose value building this dataset needs, once each."""
        out: list = []
        seen: set = set()

        def visit(ds):
            for t in ds._tensors():
                if t not in seen:
                    seen.add(t)
                    out.append(t)
            for f in ds._functions():
                for t in f.captured_inputs():
                    if t not in seen:
                        seen.add(t)
                        out.append(t)
            for c in ds._children():
                visit(c)

        visit(self)
        return out

    def _flat_np_dtypes(self) -> list:
        return [s.dtype.as_numpy_dtype for s in structure.flatten(self._spec)]

    # -- element structure -------------------------------------------------------------
    def __iter__(self):
        raise RuntimeError("__iter__() is only supported inside of tf.function or when eager execution is enabled. "
                           "In TF1 graph mode, use tf.data.make_one_shot_iterator(dataset).get_next().")

    def __repr__(self):
        return (f"<{type(self).__name__} shapes: {structure.describe_shapes(self._spec)}, "
                f"types: {structure.describe_types(self._spec)}>")

    # -- options and numpy iteration (dflow.data.options) ----------------------------------
    def options(self):
        """The ``tf.data.Options`` of this pipeline (its inputs' merged, then its own)."""
        from dflow.data.options import dataset_options

        return dataset_options(self)

    def with_options(self, options):
        """This dataset with ``options`` merged into its options."""
        from dflow.data.options import with_options

        return with_options(self, options)

    def as_numpy_iterator(self):
        """An iterator over the elements as numpy values, run in a private session (TF: eager only)."""
        from dflow.data.options import NumpyIterator

        return NumpyIterator(self)

    # -- sources -----------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors) -> DatasetV1:
        """Elements are the slices of ``tensors`` along their first dimension."""
        return TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors) -> DatasetV1:
        """A dataset of one element: ``tensors``."""
        return TensorDataset(tensors)

    @staticmethod
    def range(*args, output_type=dtypes.int64) -> DatasetV1:
        """``range(stop)``, ``range(start, stop)`` or ``range(start, stop, step)``, as int64 scalars."""
        return RangeDataset(*args, output_type=output_type)

    @staticmethod
    def zip(datasets) -> DatasetV1:
        """Elements of ``datasets`` (a nested tuple or dict of datasets) side by side."""
        return ZipDataset(datasets)

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None) -> DatasetV1:
        """Elements yielded by ``generator(*args)``, called anew for each iteration."""
        return GeneratorDataset(generator, output_types, output_shapes, args)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None) -> DatasetV1:
        """The files matching ``file_pattern`` (a glob or a list of globs) when the iterator is
        initialized, as scalar strings: sorted, then shuffled each epoch unless ``shuffle=False``."""
        from dflow.ops.array.shape_ops import shape as shape_of
        from dflow.ops.io.io_ops import matching_files
        from dflow.ops.math.math_ops import maximum

        names = matching_files(file_pattern)
        dataset = DatasetV1.from_tensor_slices(names)
        if shuffle is None or shuffle:
            dataset = dataset.shuffle(maximum(shape_of(names, out_type=dtypes.int64)[0], 1), seed=seed)
        return dataset

    # -- transformations -------------------------------------------------------------
    def concatenate(self, dataset) -> DatasetV1:
        """This dataset's elements, then ``dataset``'s."""
        return ConcatenateDataset(self, dataset)

    def map(self, map_func, num_parallel_calls=None) -> DatasetV1:
        """``map_func`` applied to each element (traced once into a function graph)."""
        return transformations.MapDataset(self, map_func, num_parallel_calls)

    def filter(self, predicate) -> DatasetV1:
        """The elements for which ``predicate`` (a scalar bool tensor function) is True."""
        return transformations.FilterDataset(self, predicate)

    def flat_map(self, map_func) -> DatasetV1:
        """The elements of the datasets ``map_func`` returns for each element, in order."""
        return transformations.FlatMapDataset(self, map_func)

    def interleave(self, map_func, cycle_length=AUTOTUNE, block_length=1, num_parallel_calls=None) -> DatasetV1:
        """Like ``flat_map``, cycling through ``cycle_length`` inner datasets ``block_length`` elements at a time."""
        return transformations.InterleaveDataset(self, map_func, cycle_length, block_length, num_parallel_calls)

    def batch(self, batch_size, drop_remainder=False) -> DatasetV1:
        """Consecutive elements stacked into batches of ``batch_size``."""
        return transformations.BatchDataset(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False) -> DatasetV1:
        """Batches whose components are padded to ``padded_shapes`` (None dims: the batch's largest)."""
        return transformations.PaddedBatchDataset(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def unbatch(self) -> DatasetV1:
        """Each element split along its first dimension into separate elements."""
        return transformations.UnbatchDataset(self)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None) -> DatasetV1:
        """Elements picked at random from a buffer of ``buffer_size``; a new order each epoch by default."""
        return transformations.ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None) -> DatasetV1:
        """This dataset ``count`` times (forever if None or -1)."""
        return transformations.RepeatDataset(self, count)

    def take(self, count) -> DatasetV1:
        """The first ``count`` elements (all if -1)."""
        return transformations.TakeDataset(self, count)

    def skip(self, count) -> DatasetV1:
        """All but the first ``count`` elements (none if -1)."""
        return transformations.SkipDataset(self, count)

    def shard(self, num_shards, index) -> DatasetV1:
        """Every ``num_shards``-th element, starting at ``index``."""
        return transformations.ShardDataset(self, num_shards, index)

    def prefetch(self, buffer_size) -> DatasetV1:
        """Elements produced ahead, up to ``buffer_size``, by a background thread."""
        return transformations.PrefetchDataset(self, buffer_size)

    def cache(self, filename="") -> DatasetV1:
        """Elements kept after the first full pass: in memory, or in ``filename`` (+ ``.cache.npz``)."""
        return transformations.CacheDataset(self, filename)

    def enumerate(self, start=0) -> DatasetV1:
        """``(index, element)`` pairs, the index an int64 counting from ``start``."""
        return transformations.EnumerateDataset(self, start)

    def apply(self, transformation_func) -> DatasetV1:
        """``transformation_func(self)``, which must return a Dataset."""
        out = transformation_func(self)
        if not isinstance(out, DatasetV1):
            raise TypeError(f"`transformation_func` must return a Dataset. Got {out!r}.")
        return out

    # -- iterators -----------------------------------------------------------------------
    def make_one_shot_iterator(self):
        """An iterator that initializes itself on first use in each session."""
        from dflow.data.iterator_ops import make_one_shot_iterator

        return make_one_shot_iterator(self)

    def make_initializable_iterator(self, shared_name=None):
        """An iterator to initialize with ``sess.run(iterator.initializer, feed_dict)``."""
        from dflow.data.iterator_ops import make_initializable_iterator

        return make_initializable_iterator(self, shared_name)


# -- sources --------------------------------------------------------------------------------


class TensorSliceDataset(DatasetV1):
    def __init__(self, tensors):
        self._components = structure.normalize_element(tensors, "argument of from_tensor_slices")
        flat = structure.flatten(self._components)
        if not flat:
            raise ValueError("from_tensor_slices needs at least one component.")
        first = TensorShape(None)
        for t in structure.flatten_specs(self._components):
            if t.shape.ndims == 0:
                raise ValueError(f"Unbatching a tensor is only supported for rank >= 1: {getattr(t, 'name', t)} is a "
                                 f"scalar.")
            if t.shape.ndims is not None:
                first = first.merge_with(t.shape[:1]) if first.ndims is not None else t.shape[:1]
        super().__init__(structure.map_components(
            lambda t: structure.with_shape(structure.spec_of(t), t.shape[1:] if t.shape.ndims is not None else None),
            self._components))

    def _tensors(self):
        return structure.flatten(self._components)

    def _build(self, ctx):
        from dflow.data.batching import split_sparse

        values = [ctx.value(t) for t in structure.flatten(self._components)]
        for c in structure.sparse_slots(self._spec):  # a SparseTensor's rows are its elements
            values[c:c + 3] = split_sparse(*values[c:c + 3])
        return SliceSource(values)


class TensorDataset(DatasetV1):
    def __init__(self, tensors):
        self._components = structure.normalize_element(tensors, "argument of from_tensors")
        super().__init__(structure.spec_of(self._components))

    def _tensors(self):
        return structure.flatten(self._components)

    def _build(self, ctx):
        element = tuple(ctx.value(t) for t in structure.flatten(self._components))
        return lambda: ListIterator([element])


class RangeDataset(DatasetV1):
    def __init__(self, *args, output_type=dtypes.int64):
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Invalid arguments to range: {args!r}; expected (stop), (start, stop) or "
                             f"(start, stop, step).")
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
        self._args = [scalar_arg(a, n) for a, n in zip((start, stop, step), ("start", "stop", "step"))]
        self._dtype = dtypes.as_dtype(output_type)
        super().__init__(structure.ComponentSpec(self._dtype, []))

    def _tensors(self):
        return _tensor_args(*self._args)

    def _build(self, ctx):
        start, stop, step = (resolve_int(ctx, a) for a in self._args)
        np_dtype = self._dtype.as_numpy_dtype
        return lambda: RangeIterator(start, stop, step, np_dtype)


class ZipDataset(DatasetV1):
    def __init__(self, datasets):
        if isinstance(datasets, DatasetV1) or not structure.is_structure(datasets):
            raise TypeError(f"The argument to `Dataset.zip()` must be a (nested) structure of `Dataset` objects, "
                            f"got {datasets!r}.")
        self._datasets = nest.flatten(datasets)
        for d in self._datasets + _lists_in(datasets):
            if not isinstance(d, DatasetV1):
                raise TypeError(f"The argument to `Dataset.zip()` must be a (nested) structure of `Dataset` "
                                f"objects, got {d!r}.")
        super().__init__(nest.pack_sequence_as(datasets, [d._spec for d in self._datasets]))

    def _children(self):
        return self._datasets

    def _build(self, ctx):
        sources = [d._build(ctx) for d in self._datasets]
        return lambda: ZipIterator([s() for s in sources])


def _lists_in(x) -> list:
    """The lists nested in ``x``: tf.data structures are tuples and dicts only."""
    if isinstance(x, list):
        return [x]
    if isinstance(x, dict):
        return [v for c in x.values() for v in _lists_in(c)]
    if isinstance(x, tuple):
        return [v for c in x for v in _lists_in(c)]
    return []


class ConcatenateDataset(DatasetV1):
    def __init__(self, first, second):
        if not isinstance(second, DatasetV1):
            raise TypeError(f"`dataset` must be a Dataset, got {second!r}.")
        a, b = first._spec, second._spec
        if not structure.same_structure(a, b) or structure.types_of(a) != structure.types_of(b) or \
                structure.classes_of(a) != structure.classes_of(b):
            raise TypeError(f"Two datasets to concatenate have different types {structure.describe_types(a)} and "
                            f"{structure.describe_types(b)}")
        self._first, self._second = first, second
        super().__init__(structure.most_specific_compatible(a, b))

    def _children(self):
        return [self._first, self._second]

    def _build(self, ctx):
        first, second = self._first._build(ctx), self._second._build(ctx)
        return lambda: ConcatenateIterator(first(), second)


class GeneratorDataset(DatasetV1):
    def __init__(self, generator, output_types, output_shapes=None, args=None):
        if not callable(generator):
            raise TypeError("`generator` must be callable.")
        self._generator = generator
        super().__init__(structure.specs_from(output_types, output_shapes))
        self._args = [convert_to_tensor(a) for a in (args or ())]

    def _tensors(self):
        return list(self._args)

    def _build(self, ctx):
        args = [_python_arg(ctx.value(t)) for t in self._args]
        convert = _ElementConverter(self._spec)
        return lambda: _GeneratorIterator(self._generator(*args), convert)


def _python_arg(value):
    """A generator argument as TF1 passes it: a numpy scalar (bytes for a string), or an array."""
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


class _ElementConverter:
    """Checks a generated element against the spec and converts it to flat arrays."""

    def __init__(self, spec):
        self.spec = spec
        self.flat = structure.flatten(spec)

    def _flatten(self, spec, value, out):
        if isinstance(spec, dict):
            if not isinstance(value, dict) or set(value) != set(spec):
                raise TypeError
            for k in sorted(spec):
                self._flatten(spec[k], value[k], out)
        elif isinstance(spec, tuple):
            if not isinstance(value, (tuple, list)) or len(value) != len(spec):
                raise TypeError
            for s, v in zip(spec, value):
                self._flatten(s, v, out)
        else:
            out.append(value)

    def __call__(self, value) -> tuple:
        flat: list = []
        try:
            self._flatten(self.spec, value, flat)
        except TypeError:
            raise errors.InvalidArgumentError(
                None, None, f"TypeError: `generator` yielded an element that did not match the expected structure. "
                            f"The expected structure was {structure.describe_types(self.spec)}, but the yielded "
                            f"element was {value!r}.") from None
        out = []
        for s, v in zip(self.flat, flat):
            try:
                arr = to_numpy(v, s.dtype) if s.dtype is dtypes.string else _as_array(v, s.dtype.as_numpy_dtype)
            except (TypeError, ValueError, OverflowError):
                raise errors.InvalidArgumentError(
                    None, None, f"TypeError: `generator` yielded an element that could not be converted to the "
                                f"expected type. The expected type was {s.dtype.name}, but the yielded element was "
                                f"{v!r}.") from None
            if not s.shape.is_compatible_with(arr.shape):
                raise errors.InvalidArgumentError(
                    None, None, f"TypeError: `generator` yielded an element of shape {tuple(arr.shape)} where an "
                                f"element of shape {s.shape} was expected.")
            out.append(arr if arr.ndim or s.dtype is dtypes.string else arr[()])
        return tuple(out)


def _as_array(value, np_dtype):
    arr = np.asarray(value)
    if arr.dtype.kind in "SUO":
        raise TypeError("not numeric")
    return arr.astype(np_dtype, copy=False)


class _GeneratorIterator:
    batchable = False

    def __init__(self, it, convert):
        self.it = iter(it)
        self.convert = convert

    def __iter__(self):
        return self

    def __next__(self):
        return self.convert(next(self.it))

    def close(self) -> None:
        close = getattr(self.it, "close", None)
        if close is not None:
            close()


# Transformations subclass DatasetV1; they import this module.
from dflow.data import transformations  # noqa: E402
