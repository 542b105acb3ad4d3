"""Small TF1 top-level ops: ``repeat``, ``parallel_stack``, ``batch_gather``, ``guarantee_const``,
``timestamp``, ``switch_case`` and ``bitcast``.

Each is one dflow op (or a composite of existing ones) whose result carries
the name TF1 gives it (``Repeat/boolean_mask/GatherV2:0``), with TF1's static
shape.
"""

from __future__ import annotations

import time

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, constant_value, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument
from dflow.ops.array.index_args import convert_same_dtype, host

# -- Repeat --------------------------------------------------------------------------------------


def _repeat_infer(op):
    x, repeats = op._inputs
    axis = op._attrs["axis"]
    if not repeats.dtype.is_integer:
        raise ValueError(f"repeats must be an integer tensor, got {repeats.dtype.name}")
    if axis is None:
        n = x.shape.num_elements()
        dims = [n]
    elif x.shape.ndims is None:
        return [(x.dtype, TensorShape(None))]
    else:
        dims = x.shape.as_list()
        n = dims[axis]
    reps = constant_value(repeats)
    scalar = repeats.shape.num_elements() == 1
    pos = 0 if axis is None else axis
    dims[pos] = n * int(np.asarray(reps).reshape(-1)[0]) if scalar and reps is not None and n is not None else None
    return [(x.dtype, TensorShape(dims))]


def _repeat_kernel(x, repeats, axis):
    xp = array_module(x)
    reps = np.asarray(host(repeats)).reshape(-1)
    n = x.size if axis is None else x.shape[axis]
    if reps.size not in (1, n):
        raise invalid_argument(f"repeats must have 1 element or as many as the dimension being repeated ({n}), "
                               f"got {reps.size}")
    if (reps < 0).any():
        raise invalid_argument(f"repeats must be non-negative, got {reps.tolist()}")
    return xp.repeat(x, reps if reps.size != 1 else int(reps[0]), axis=axis)


register("Repeat", infer=_repeat_infer, kernel=_repeat_kernel)


@gradient("Repeat")
def _repeat_grad(op, grad):
    x, repeats = op._inputs
    return [apply_op("RepeatGrad", [x, repeats, grad], {"axis": op._attrs["axis"]}).outputs[0], None]


def _repeat_grad_kernel(x, repeats, grad, axis):
    """Sums each input element's copies back: ``np.add.reduceat`` over the repeated axis."""
    xp = array_module(grad)
    n = x.size if axis is None else x.shape[axis]
    reps = np.broadcast_to(np.asarray(host(repeats)).reshape(-1), (n,))
    moved = xp.moveaxis(grad, 0 if axis is None else axis, 0)
    out = xp.zeros((n,) + moved.shape[1:], dtype=grad.dtype)
    kept = np.flatnonzero(reps > 0)
    if kept.size:
        starts = (np.cumsum(reps) - reps)[kept]
        out[xp.asarray(kept)] = xp.add.reduceat(moved, xp.asarray(starts), axis=0)
    return xp.moveaxis(out, 0, 0 if axis is None else axis).reshape(x.shape)


register("RepeatGrad", infer=lambda op: [(op._inputs[2].dtype, op._inputs[0].shape)], kernel=_repeat_grad_kernel)
not_differentiable("RepeatGrad")


@tf_export("repeat", "repeat_with_axis")
def repeat(input, repeats, axis=None, name=None):  # noqa: A002 - TF1 argument name
    """Repeats each element of ``input`` ``repeats`` times along ``axis`` (flattened when None), as np.repeat.

    >>> tf.repeat(tf.constant([[1, 2], [3, 4]]), 2).shape
    TensorShape([8])
    """
    with name_scope(name, "Repeat", [input, repeats]) as scope:
        x = convert_to_tensor(input, name="input")
        reps = convert_to_tensor(repeats, name="repeats", preferred_dtype=dtypes.int32)
        if axis is not None:
            if x.shape.ndims is None:
                raise ValueError("repeat: the rank of input must be known when axis is given")
            if not -x.shape.ndims <= axis < x.shape.ndims:
                raise ValueError(f"axis = {axis} not in [{-x.shape.ndims}, {x.shape.ndims})")
            axis %= x.shape.ndims
        if reps.shape.ndims is not None and reps.shape.ndims > 1:
            raise ValueError(f"repeats must be a scalar or a vector, got shape {reps.shape}")
        # TF1's last op: a Reshape for scalar repeats, boolean_mask's gather or a Reshape for a vector
        if reps.shape.num_elements() == 1:
            last = "Reshape_1"
        elif axis in (None, 0):
            last = "boolean_mask/GatherV2"
        else:
            last = "Reshape"
        return apply_op("Repeat", [x, reps], {"axis": axis}, name=f"{scope}{last}/").outputs[0]


# -- ParallelConcat (parallel_stack) ------------------------------------------------------------


def _parallel_concat_infer(op):
    s = op._attrs["shape"][1:]
    for t in op._inputs:
        s = s.merge_with(t.shape)
    return [(op._inputs[0].dtype, TensorShape([len(op._inputs)]).concatenate(s))]


register("ParallelConcat", infer=_parallel_concat_infer,
         kernel=lambda *xs, shape: array_module(*xs).stack(xs))


@gradient("ParallelConcat")
def _parallel_concat_grad(op, grad):
    return [apply_op("Unpack", [grad], {"num": len(op._inputs), "axis": 0}).outputs[i] for i in
            range(len(op._inputs))]


@tf_export("parallel_stack")
def parallel_stack(values, name="parallel_stack"):
    """``stack(values)`` for values whose shapes are fully known (TF's ``ParallelConcat``)."""
    with name_scope(name) as scope:
        xs = convert_same_dtype(list(values), "ParallelConcat")
        shape = xs[0].shape
        for t in xs[1:]:
            shape = shape.merge_with(t.shape)
        if not shape.is_fully_defined():
            raise ValueError(f"shape attr must be fully defined: parallel_stack needs static shapes, got {shape}")
        return apply_op("ParallelConcat", xs, {"shape": TensorShape([len(xs)]).concatenate(shape)},
                        name=f"{scope}ParallelConcat/").outputs[0]


# -- batch_gather -----------------------------------------------------------------------------------


@tf_export("batch_gather")
def batch_gather(params, indices, name=None):
    """``gather`` with one batch of indices per batch of ``params`` (``batch_dims = rank(indices) - 1``)."""
    from dflow.ops.array.gather_ops import gather

    with name_scope(name, "BatchGather", [params, indices]) as scope:
        indices = convert_to_tensor(indices, name="indices")
        params = convert_to_tensor(params, name="params")
        if indices.shape.ndims is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        b = indices.shape.ndims - 1
        return gather(params, indices, axis=b, batch_dims=b, name=f"{scope}Reshape_3/")


# -- GuaranteeConst, Timestamp ---------------------------------------------------------------------

register("GuaranteeConst", infer=lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)], kernel=lambda x: x)


@tf_export("guarantee_const")
def guarantee_const(input, name=None):  # noqa: A002 - TF1 argument name
    """``input``, promised constant for the session (TF may fold it; dflow passes it through).

    Like TF, it has no gradient: differentiating through it is a ``LookupError``.
    """
    x = convert_to_tensor(input, name="input")
    return apply_op("GuaranteeConst", [x], name=name or "GuaranteeConst").outputs[0]


register("Timestamp", infer=lambda op: [(dtypes.float64, TensorShape([]))],
         make_kernel=lambda op, resources: lambda: np.float64(time.time()), stateful=True, gpu=False)
not_differentiable("Timestamp")


@tf_export("timestamp")
def timestamp(name=None):
    """The time (float64 seconds since the epoch) when the op runs."""
    return apply_op("Timestamp", [], name=name or "Timestamp").outputs[0]


# -- switch_case -------------------------------------------------------------------------------------


def _branches(branch_fns) -> list:
    if isinstance(branch_fns, (list, tuple)) and branch_fns and isinstance(branch_fns[0], (list, tuple)):
        branch_fns = dict(branch_fns)
    if isinstance(branch_fns, dict):
        keys = sorted(branch_fns)
        if keys != list(range(len(keys))):
            raise ValueError(f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but found "
                             "{" + ",".join(map(str, keys)) + "}")
        branch_fns = [branch_fns[k] for k in keys]
    branch_fns = list(branch_fns)
    if not branch_fns:
        raise ValueError("Must provide at least one item in branch_fns")
    for fn in branch_fns:
        if not callable(fn):
            raise TypeError(f"fn for branch must be callable, got {fn!r}")
    return branch_fns


@tf_export("switch_case")
def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """Runs ``branch_fns[branch_index]()``; an index out of range runs ``default`` (else the last branch).

    ``branch_fns`` is a list of callables, a dict ``{0: fn0, 1: fn1, ...}`` or
    ``(index, fn)`` pairs. Only the taken branch runs (nested functional ``If`` ops).
    """
    from dflow.ops.control_flow.control_flow_ops import cond, identity
    from dflow.ops.math.math_ops import equal

    fns = _branches(branch_fns)
    if default is None:
        fns, default = fns[:-1], fns[-1]
    with name_scope(name, "switch_case", [branch_index]) as scope:
        index = convert_to_tensor(branch_index, name="branch_index")
        if index.dtype is not dtypes.int32:
            raise TypeError(f"branch_index must be an int32 scalar, got {index.dtype.name}")
        with name_scope("indexed_case"):

            def chain(i):
                if i == len(fns):
                    return default()
                return cond(equal(index, i), fns[i], lambda: chain(i + 1), name=f"branch_{i}")

            out = chain(0)
            return _map_identity(out, identity, f"{scope}indexed_case/Identity/")


def _map_identity(out, identity, name):
    from dflow.framework import nest

    flat = nest.flatten(out)
    named = [identity(t, name=name) if isinstance(t, Tensor) and i == 0 else
             (identity(t) if isinstance(t, Tensor) else t) for i, t in enumerate(flat)]
    return nest.pack_sequence_as(out, named)


# -- Bitcast -------------------------------------------------------------------------------------

_BITCAST_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int64, dtypes.int32, dtypes.uint8,
                  dtypes.uint16, dtypes.uint32, dtypes.uint64, dtypes.int8, dtypes.int16, dtypes.complex64,
                  dtypes.complex128, *sorted(dtypes.QUANTIZED_DTYPES, key=lambda d: d.name))


def _bitcast_infer(op):
    x, out = op._inputs[0], op._attrs["type"]
    src, dst = x.dtype.size, out.size
    if src == dst or x.shape.ndims is None:
        return [(out, x.shape if src == dst else TensorShape(None))]
    dims = x.shape.as_list()
    if src > dst:
        return [(out, TensorShape(dims + [src // dst]))]
    if not dims or (dims[-1] is not None and dims[-1] != dst // src):
        last = dims[-1] if dims else "scalar"
        raise ValueError(f"Cannot bitcast from {x.dtype.as_datatype_enum} to {out.as_datatype_enum} due to shape. "
                         f"{last} does not match {dst // src}")
    return [(out, TensorShape(dims[:-1]))]


def _bitcast_kernel(input, T, type):  # noqa: A002 - TF's names
    xp = array_module(input)
    want = np.dtype(type.array_dtype)  # quantized: plain ints
    src, dst = input.dtype.itemsize, want.itemsize
    if src < dst and (input.ndim == 0 or input.shape[-1] * src != dst):
        raise invalid_argument(f"Cannot bitcast from {T.as_datatype_enum} to {type.as_datatype_enum}")
    x = xp.ascontiguousarray(input)  # (1-d for a 0-d input: shapes are taken from the input)
    if src > dst:
        return x.reshape(input.shape + (1,)).view(want)
    return x.view(want).reshape(input.shape[:-1] if src < dst else input.shape)


register("Bitcast", infer=_bitcast_infer, kernel=_bitcast_kernel)
not_differentiable("Bitcast")


@tf_export("bitcast")
def bitcast(input, type, name=None):  # noqa: A002 - TF's argument names
    """Bitcasts a tensor from one type to another without copying data.

    The bytes of each element are read as ``type``: to a smaller type the shape gains a last
    axis of the size ratio; to a larger one the last axis (of that size) goes away.

    >>> import dflow as tf
    >>> tf.Session().run(tf.bitcast(tf.constant([1.0], tf.float32), tf.int32)).tolist()
    [1065353216]
    """
    with name_scope(name, "Bitcast", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        out = dtypes.as_dtype(type)
        for arg, dtype in (("input", x.dtype), ("type", out)):
            if dtype not in _BITCAST_TYPES:
                allowed = "bfloat16, float16, float32, float64, int64, int32, uint8, uint16, uint32, uint64, int8, " \
                          "int16, complex64, complex128, qint8, quint8, qint16, quint16, qint32"
                what = "Value passed to parameter 'input' has" if arg == "input" else "Attr 'type' of 'Bitcast' Op " \
                                                                                     "passed"
                raise TypeError(f"{what} DataType {dtype.name} not in list of allowed values: {allowed}")
        return apply_op("Bitcast", [x], {"T": x.dtype, "type": out}, name=scope).outputs[0]
