"""The dataset transformations: each a node over its input dataset(s).

Every class here computes its element spec at graph construction (the
static shapes TF1 gives: ``batch`` adds a leading ``None`` dimension unless
``drop_remainder`` and a known batch size) and builds its run-time stage
from ``pipeline``, ``batching``, ``prefetch`` or ``cache``.
"""

from __future__ import annotations

import os

import numpy as np

from dflow.data import structure
from dflow.data.batching import BatchIterator, PaddedBatchIterator, UnbatchIterator
from dflow.data.cache import CacheSource
from dflow.data.dataset_ops import AUTOTUNE, DatasetV1, resolve_int, scalar_arg, static_int
from dflow.data.functions import trace_dataset_fn, trace_map, trace_predicate
from dflow.data.nesting import FlatMapIterator, InterleaveIterator
from dflow.data.pipeline import (
    EnumerateIterator,
    FilterIterator,
    MapSource,
    RepeatIterator,
    ShardIterator,
    ShuffleSource,
    SkipIterator,
    TakeIterator,
)
from dflow.data.prefetch import PrefetchIterator
from dflow.data.vectorize import elementwise
from dflow.framework import dtypes
from dflow.framework.constant_op import to_numpy
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import constant_value
from dflow.framework.tensor_shape import TensorShape, as_shape


def _static_bool(value, name: str) -> bool:
    if isinstance(value, Tensor):
        v = constant_value(value)
        if v is None:
            raise ValueError(f"`{name}` must be a Python bool or a constant tensor.")
        return bool(v)
    return bool(value)


def _parallelism(num_parallel_calls) -> int:
    if num_parallel_calls is None:
        return 1
    n = static_int(scalar_arg(num_parallel_calls, "num_parallel_calls"))
    if n is None:
        return 1
    if n == AUTOTUNE:
        return max(os.cpu_count() or 1, 1)
    if n < 1:
        raise ValueError(f"num_parallel_calls must be positive or tf.data.experimental.AUTOTUNE, got {n}.")
    return n


class UnaryDataset(DatasetV1):
    """A transformation of one input dataset."""

    def __init__(self, input_dataset, spec):
        if not isinstance(input_dataset, DatasetV1):
            raise TypeError(f"Expected a Dataset, got {input_dataset!r}")
        self._input = input_dataset
        super().__init__(spec)

    def _children(self):
        return [self._input]


class _IntArgDataset(UnaryDataset):
    """A transformation with integer arguments (Python ints or tensors)."""

    _int_args: tuple = ()

    def _tensors(self):
        return [a for a in self._int_args if isinstance(a, Tensor)]


# -- functions ---------------------------------------------------------------------------


class MapDataset(UnaryDataset):
    def __init__(self, input_dataset, map_func, num_parallel_calls=None):
        self._fn, out = trace_map(map_func, input_dataset._spec, "map")
        self._parallel = _parallelism(num_parallel_calls)
        # A batch right after may run an element-wise map once per batch (not one of SparseTensors:
        # their batch is no stack of their components).
        self._elementwise = elementwise(self._fn) and not structure.has_sparse(input_dataset._spec) and \
            not structure.has_sparse(out)
        super().__init__(input_dataset, structure.spec_of(out))

    def _functions(self):
        return [self._fn]

    def _build(self, ctx):
        return MapSource(self._input._build(ctx), ctx.function(self._fn), self._parallel)


class FilterDataset(UnaryDataset):
    def __init__(self, input_dataset, predicate):
        self._fn = trace_predicate(predicate, input_dataset._spec)
        super().__init__(input_dataset, input_dataset._spec)

    def _functions(self):
        return [self._fn]

    def _build(self, ctx):
        up, predicate = self._input._build(ctx), ctx.function(self._fn)
        return lambda: FilterIterator(up(), predicate)


class FlatMapDataset(UnaryDataset):
    def __init__(self, input_dataset, map_func, what: str = "flat_map"):
        self._fn, self._inner = trace_dataset_fn(map_func, input_dataset._spec, what)
        self._inner_inputs = self._inner._graph_inputs()
        super().__init__(input_dataset, self._inner._spec)

    def _functions(self):
        return [self._fn]

    def _inner_maker(self, ctx):
        fn, inner, names = ctx.function(self._fn), self._inner, self._inner_inputs

        def make_inner(element):
            values = fn(element)
            return inner._build(ctx.child(dict(zip(names, values))))()

        return make_inner

    def _build(self, ctx):
        up, make_inner = self._input._build(ctx), self._inner_maker(ctx)
        return lambda: FlatMapIterator(up(), make_inner)


class InterleaveDataset(FlatMapDataset):
    def __init__(self, input_dataset, map_func, cycle_length=AUTOTUNE, block_length=1, num_parallel_calls=None):
        super().__init__(input_dataset, map_func, "interleave")
        cycle = static_int(scalar_arg(AUTOTUNE if cycle_length is None else cycle_length, "cycle_length"))
        if cycle is None or cycle == AUTOTUNE:
            cycle = max(os.cpu_count() or 1, 1)
        block = static_int(scalar_arg(block_length, "block_length"))
        if cycle < 1 or block is None or block < 1:
            raise ValueError(f"cycle_length ({cycle_length}) and block_length ({block_length}) must be positive.")
        self._cycle, self._block = cycle, block
        _parallelism(num_parallel_calls)  # validated; inner datasets are read in turn, deterministically

    def _build(self, ctx):
        up, make_inner = self._input._build(ctx), self._inner_maker(ctx)
        return lambda: InterleaveIterator(up(), make_inner, self._cycle, self._block)


# -- batching ----------------------------------------------------------------------------


def _batched(spec, size):
    dim = TensorShape([size])
    return structure.map_components(lambda s: structure.with_shape(s, dim.concatenate(s.shape)), spec)


class BatchDataset(_IntArgDataset):
    def __init__(self, input_dataset, batch_size, drop_remainder=False):
        self._size = scalar_arg(batch_size, "batch_size")
        self._int_args = (self._size,)
        self._drop = _static_bool(drop_remainder, "drop_remainder")
        super().__init__(input_dataset, _batched(input_dataset._spec, static_int(self._size) if self._drop else None))

    def _build(self, ctx):
        size = resolve_int(ctx, self._size)
        # Element-wise maps just before the batch run once per batch (see vectorize.py);
        # a map before those is fused into the batch: called per element as it is gathered.
        vectorized, base = [], self._input
        while isinstance(base, MapDataset) and base._elementwise:
            vectorized.append(base)
            base = base._input
        batch_fns = [ctx.function(m._fn) for m in reversed(vectorized)]
        per_element, dts, sparse = None, base._flat_np_dtypes(), structure.sparse_slots(base._spec)
        if isinstance(base, MapDataset) and base._parallel <= 1:
            per_element, base = ctx.function(base._fn), base._input
        up = base._build(ctx)
        return lambda: BatchIterator(up(), size, self._drop, dts, per_element, batch_fns, sparse)


def _padded_shape_spec(padded, component: structure.ComponentSpec):
    """(static TensorShape, tensor or None) for one component's padded shape."""
    if isinstance(padded, Tensor):
        v = constant_value(padded)
        if v is not None:
            shape = TensorShape([None if d < 0 else int(d) for d in np.asarray(v).tolist()])
        else:
            n = padded.shape[0].value if padded.shape.ndims == 1 else None
            shape = TensorShape(None if n is None else [None] * n)
        return shape, padded
    shape = as_shape(padded) if padded is not None else TensorShape(None)
    if shape.ndims is None:
        shape = TensorShape([None] * component.shape.ndims) if component.shape.ndims is not None else shape
    return shape, None


def _padding_compatible(padded: TensorShape, shape: TensorShape) -> bool:
    if padded.ndims is None or shape.ndims is None:
        return True
    if padded.ndims != shape.ndims:
        return False
    return all(p.value is None or s.value is None or p.value >= s.value for p, s in zip(padded.dims, shape.dims))


class PaddedBatchDataset(_IntArgDataset):
    def __init__(self, input_dataset, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False):
        spec = input_dataset._spec
        for s in structure.flatten_specs(spec):
            if not isinstance(s, structure.ComponentSpec):
                raise TypeError(f"`padded_batch` is only supported for datasets that produce tensor elements but type "
                                f"spec of elements in the input dataset is not a subclass of TensorSpec: `{s!r}`.")
        flat = structure.flatten(spec)
        self._size = scalar_arg(batch_size, "batch_size")
        self._drop = _static_bool(drop_remainder, "drop_remainder")
        shapes_in = _up_to(spec, padded_shapes, "padded_shapes")
        values_in = _up_to(spec, padding_values, "padding_values")
        self._shapes, self._shape_tensors, self._values = [], [], []
        for s, p, v in zip(flat, shapes_in, values_in):
            shape, tensor = _padded_shape_spec(p, s)
            if shape.ndims is None:
                raise ValueError(f"padded_batch needs a known rank for each component (padded_shapes), got "
                                 f"{s.shape}.")
            if not _padding_compatible(shape, s.shape):
                raise ValueError(f"The padded shape {shape} is not compatible with the corresponding input "
                                 f"component shape {s.shape}.")
            self._shapes.append(shape)
            self._shape_tensors.append(tensor)
            self._values.append(_padding_value(v, s.dtype))
        self._int_args = (self._size,)
        padded_spec = structure.pack(spec, [structure.ComponentSpec(s.dtype, shape)
                                            for s, shape in zip(flat, self._shapes)])
        super().__init__(input_dataset, _batched(padded_spec, static_int(self._size) if self._drop else None))

    def _tensors(self):
        return super()._tensors() + [t for t in self._shape_tensors + self._values if isinstance(t, Tensor)]

    def _build(self, ctx):
        shapes = []
        for shape, tensor in zip(self._shapes, self._shape_tensors):
            if tensor is None:
                shapes.append([d.value for d in shape.dims])
            else:
                shapes.append([None if d < 0 else int(d) for d in np.asarray(ctx.value(tensor)).tolist()])
        values = [ctx.value(v) if isinstance(v, Tensor) else v for v in self._values]
        up, size, dts = self._input._build(ctx), resolve_int(ctx, self._size), self._input._flat_np_dtypes()
        return lambda: PaddedBatchIterator(up(), size, self._drop, dts, shapes, values)


def _up_to(spec, value, what: str) -> list:
    """One entry of ``value`` per component of ``spec`` (None: one None each)."""
    if value is None:
        return [None] * len(structure.flatten(spec))
    out: list = []

    def walk(s, v):
        if not structure.is_structure(s):
            out.append(v)
            return
        if isinstance(s, dict):
            if not isinstance(v, dict) or set(v) != set(s):
                raise ValueError(f"`{what}` {value!r} does not match the structure of the dataset's elements.")
            for k in sorted(s):
                walk(s[k], v[k])
            return
        if not isinstance(v, (tuple, list)) or len(v) != len(s):
            raise ValueError(f"`{what}` {value!r} does not match the structure of the dataset's elements.")
        for cs, cv in zip(s, v):
            walk(cs, cv)

    walk(spec, value)
    return out


def _padding_value(value, dtype):
    if value is None:
        return b"" if dtype is dtypes.string else dtype.as_numpy_dtype(0)
    if isinstance(value, Tensor):
        if value.dtype is not dtype:
            raise TypeError(f"Padding value should have the same dtype as the input component: expected "
                            f"{dtype.name}, got {value.dtype.name}.")
        if value.shape.ndims not in (None, 0):
            raise ValueError(f"Padding value should be a scalar, got shape {value.shape}.")
        return value
    arr = to_numpy(value, dtype, "padding value")
    if arr.ndim != 0:
        raise ValueError(f"Padding value should be a scalar, got shape {arr.shape}.")
    return arr[()]


class UnbatchDataset(UnaryDataset):
    def __init__(self, input_dataset):
        def unbatched(s):
            if s.shape.ndims == 0:
                raise ValueError("Cannot unbatch an input with scalar components.")
            return structure.with_shape(s, s.shape[1:] if s.shape.ndims is not None else None)

        super().__init__(input_dataset, structure.map_components(unbatched, input_dataset._spec))

    def _build(self, ctx):
        up, sparse = self._input._build(ctx), structure.sparse_slots(self._input._spec)
        return lambda: UnbatchIterator(up(), sparse)


# -- order and count -----------------------------------------------------------------------


class ShuffleDataset(_IntArgDataset):
    def __init__(self, input_dataset, buffer_size, seed=None, reshuffle_each_iteration=None):
        from dflow.ops.random.random_ops import get_seed

        self._size = scalar_arg(buffer_size, "buffer_size")
        self._int_args = (self._size,)
        if isinstance(seed, Tensor):
            seed = static_int(seed)
        seed1, seed2 = get_seed(seed)
        self._seeds = (seed1 or 0, seed2 or 0)
        self._reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
        super().__init__(input_dataset, input_dataset._spec)

    def _build(self, ctx):
        size = resolve_int(ctx, self._size)
        if size <= 0:
            from dflow.framework import errors

            raise errors.InvalidArgumentError(None, None, f"buffer_size must be greater than zero, got {size}.")
        return ShuffleSource(self._input._build(ctx), size, *self._seeds, self._reshuffle)


class RepeatDataset(_IntArgDataset):
    def __init__(self, input_dataset, count=None):
        self._count = scalar_arg(-1 if count is None else count, "count")
        self._int_args = (self._count,)
        super().__init__(input_dataset, input_dataset._spec)

    def _build(self, ctx):
        up, count = self._input._build(ctx), resolve_int(ctx, self._count)
        return lambda: RepeatIterator(up, count)


class TakeDataset(_IntArgDataset):
    def __init__(self, input_dataset, count):
        self._count = scalar_arg(count, "count")
        self._int_args = (self._count,)
        super().__init__(input_dataset, input_dataset._spec)

    def _build(self, ctx):
        up, count = self._input._build(ctx), resolve_int(ctx, self._count)
        return lambda: TakeIterator(up(), count)


class SkipDataset(_IntArgDataset):
    def __init__(self, input_dataset, count):
        self._count = scalar_arg(count, "count")
        self._int_args = (self._count,)
        super().__init__(input_dataset, input_dataset._spec)

    def _build(self, ctx):
        up, count = self._input._build(ctx), resolve_int(ctx, self._count)
        return lambda: SkipIterator(up(), count)


class ShardDataset(_IntArgDataset):
    def __init__(self, input_dataset, num_shards, index):
        self._n = scalar_arg(num_shards, "num_shards")
        self._index = scalar_arg(index, "index")
        n, i = static_int(self._n), static_int(self._index)
        if n is not None and n < 1:
            raise ValueError("num_shards must be >= 1")
        if n is not None and i is not None and not 0 <= i < n:
            raise ValueError("index must be between 0 and num_shards - 1")
        self._int_args = (self._n, self._index)
        super().__init__(input_dataset, input_dataset._spec)

    def _build(self, ctx):
        up, n, i = self._input._build(ctx), resolve_int(ctx, self._n), resolve_int(ctx, self._index)
        return lambda: ShardIterator(up(), n, i)


class EnumerateDataset(_IntArgDataset):
    def __init__(self, input_dataset, start=0):
        self._start = scalar_arg(start, "start")
        self._int_args = (self._start,)
        super().__init__(input_dataset, (structure.ComponentSpec(dtypes.int64, []), input_dataset._spec))

    def _build(self, ctx):
        up, start = self._input._build(ctx), resolve_int(ctx, self._start)
        return lambda: EnumerateIterator(up(), start)


# -- performance -----------------------------------------------------------------------------

# What prefetch(AUTOTUNE) buffers: enough to hide a producer as fast as its consumer.
_AUTOTUNE_BUFFER = 2


class PrefetchDataset(UnaryDataset):
    def __init__(self, input_dataset, buffer_size):
        size = static_int(scalar_arg(buffer_size, "buffer_size"))
        if size is None or size == AUTOTUNE:
            size = _AUTOTUNE_BUFFER
        if size < 0:
            raise ValueError(f"buffer_size must be >= 0 or tf.data.experimental.AUTOTUNE, got {buffer_size}.")
        self._size = size
        super().__init__(input_dataset, input_dataset._spec)

    def _build(self, ctx):
        up = self._input._build(ctx)
        if self._size == 0:
            return up
        return lambda: PrefetchIterator(up(), self._size)


class CacheDataset(UnaryDataset):
    def __init__(self, input_dataset, filename=""):
        self._filename = filename if isinstance(filename, Tensor) else str(filename or "")
        super().__init__(input_dataset, input_dataset._spec)

    def _tensors(self):
        return [self._filename] if isinstance(self._filename, Tensor) else []

    def _build(self, ctx):
        name = self._filename
        if isinstance(name, Tensor):
            name = np.asarray(ctx.value(name), dtype=object).item()
            name = name.decode() if isinstance(name, bytes) else str(name)
        return CacheSource(self._input._build(ctx), name, self._input._flat_np_dtypes())
