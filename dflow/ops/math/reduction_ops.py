"""Reductions (``reduce_sum`` ...), ``argmax``/``argmin``, ``cumsum``/``cumprod``.

As in TF1, the reduction axes are an input tensor (``Sum/reduction_indices``),
not an attribute: they may be computed at run time. When they are constant
the shape rule gives the exact output shape. ``axis=None`` reduces every
dimension; for an input of unknown rank dflow then creates the op with the
input alone (TF1 would add ``Rank`` and ``Range`` ops).
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, constant_value, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape, unknown_shape
from dflow.kernels import array_module
from dflow.ops.array import array_ops, creation_ops, tiling_ops
from dflow.ops.array.index_args import host, kernel_ints, split_index_args
from dflow.ops.array.select_ops import where_v2
from dflow.ops.math.math_ops import (
    BOOL_DTYPES,
    FLOAT_DTYPES,
    NUMERIC_DTYPES,
    REAL_DTYPES,
    _conj,
    cast,
    check_dtype,
    convert_input,
    div_no_nan,
    equal,
    exp,
    floormod,
    is_finite,
    log,
    logical_not,
    maximum,
    not_equal,
    sqrt,
    square,
    subtract,
)
from dflow.ops.math.math_ops import add as _add

_INDEX = frozenset({dtypes.int32, dtypes.int64})


def _v1_arg(new_name, new, old_name, old):
    """TF1's deprecated-argument lookup: ``axis`` or ``reduction_indices``, not both."""
    if old is not None:
        if new is not None:
            raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
        return old
    return new


# -- shape rule ------------------------------------------------------------------------


def _reduced_shape(shape: TensorShape, axes, keep: bool) -> TensorShape:
    """The static shape of reducing ``shape`` over constant ``axes`` (None: unknown axes)."""
    rank = shape.ndims
    if rank is None:
        return unknown_shape()
    if axes is None:
        return unknown_shape(rank) if keep else unknown_shape()
    reduced = set()
    for a in np.asarray(axes).ravel().tolist():
        if not -rank <= a < rank:
            raise ValueError(f"Invalid reduction dimension {a} for input with {rank} dimensions")
        reduced.add(a % rank)
    dims = shape.as_list()
    if keep:
        return TensorShape([1 if i in reduced else d for i, d in enumerate(dims)])
    return TensorShape([d for i, d in enumerate(dims) if i not in reduced])


def _reduce_infer(allowed):
    def infer(op):
        x = op._inputs[0]
        check_dtype(op, "input", x._dtype, allowed)
        keep = op._attrs["keep_dims"]
        if len(op._inputs) == 1:  # every axis of an input of unknown rank
            return [(x._dtype, unknown_shape() if keep else TensorShape([]))]
        axis = op._inputs[1]
        check_dtype(op, "reduction_indices", axis._dtype, _INDEX)
        if axis._shape.ndims is not None and axis._shape.ndims > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {axis._shape.ndims}")
        return [(x._dtype, _reduced_shape(x._shape, constant_value(axis), keep))]

    return infer


# -- kernels ---------------------------------------------------------------------------


def _axes(axis):
    if axis is None:
        return None
    a = axis.tolist()  # also brings a CuPy index vector back to the host
    return tuple(a) if type(a) is list else a


def _sum(x, axis=None, keep_dims=False):
    # dtype= keeps int32 sums int32 (numpy would widen them to int64).
    return x.sum(axis=_axes(axis), dtype=x.dtype, keepdims=keep_dims)


def _prod(x, axis=None, keep_dims=False):
    return x.prod(axis=_axes(axis), dtype=x.dtype, keepdims=keep_dims)


def _mean(x, axis=None, keep_dims=False):
    axes = _axes(axis)
    if x.dtype.kind not in "iu":
        return x.mean(axis=axes, keepdims=keep_dims)  # float32 stays float32
    # TF's integer mean truncates toward zero: mean([-1, -2]) == -1.
    total = x.sum(axis=axes, dtype=np.int64 if x.dtype.kind == "i" else np.uint64, keepdims=keep_dims)
    n = x.size // total.size if total.size else 1
    if n == 0:
        return (total * 0).astype(x.dtype)
    return (np.floor_divide(np.abs(total), n) * np.sign(total)).astype(x.dtype)


def _extreme(method, identity):
    def kernel(x, axis=None, keep_dims=False):
        axes = _axes(axis)
        if x.size == 0:  # TF gives the identity (-inf for max) where numpy raises
            shape = x.sum(axis=axes, keepdims=keep_dims).shape
            return array_module(x).full(shape, identity(x.dtype), dtype=x.dtype)
        return getattr(x, method)(axis=axes, keepdims=keep_dims)

    return kernel


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _highest(dtype):
    return np.inf if dtype.kind == "f" else np.iinfo(dtype).max


def _any(x, axis=None, keep_dims=False):
    return x.any(axis=_axes(axis), keepdims=keep_dims)


def _all(x, axis=None, keep_dims=False):
    return x.all(axis=_axes(axis), keepdims=keep_dims)


register("Sum", infer=_reduce_infer(NUMERIC_DTYPES), kernel=_sum)
register("Prod", infer=_reduce_infer(NUMERIC_DTYPES), kernel=_prod)
register("Mean", infer=_reduce_infer(NUMERIC_DTYPES), kernel=_mean)
register("Max", infer=_reduce_infer(REAL_DTYPES), kernel=_extreme("max", _lowest))
register("Min", infer=_reduce_infer(REAL_DTYPES), kernel=_extreme("min", _highest))
register("Any", infer=_reduce_infer(BOOL_DTYPES), kernel=_any)
register("All", infer=_reduce_infer(BOOL_DTYPES), kernel=_all)
not_differentiable("Any")
not_differentiable("All")


# -- gradients ---------------------------------------------------------------------------
#
# Each rule first gives the output gradient back the reduced dimensions (as size 1, so it
# broadcasts against the input); when the reduced axes lead, broadcasting alone does that.


def _reduced_axes(op):
    """The reduced axes, sorted and non-negative, or None when not known at graph time."""
    r = op._inputs[0].shape.ndims
    axes = None if r is None or len(op._inputs) == 1 else constant_value(op._inputs[1])
    if axes is None:
        return None
    return tuple(sorted({int(a) % r for a in np.ravel(axes)})) if r else ()


def _reduced_shape_infer(op):
    s = op._inputs[0]
    return [(s.dtype, s.shape)]


def _reduced_shape_kernel(input_shape, axes):
    """``input_shape`` with each of ``axes`` set to 1 (TF1's ``math_ops.reduced_shape``)."""
    dims = list(kernel_ints(input_shape))
    r = len(dims)
    for a in kernel_ints(axes):
        if not -r <= a < r:
            raise errors.InvalidArgumentError(None, None, f"Invalid reduction dimension {a} for input with {r} "
                                                          f"dimensions")
        dims[a] = 1
    return np.array(dims, dtype=np.asarray(host(input_shape)).dtype)


register("ReducedShape", infer=_reduced_shape_infer, kernel=_reduced_shape_kernel)
not_differentiable("ReducedShape")


def _kept_dims_shape(input_shape: Tensor, axes) -> Tensor:
    inputs, attrs = split_index_args({"axes": axes})
    return apply_op("ReducedShape", [input_shape, *inputs], attrs).outputs[0]


def _with_reduced_dims(op, t: Tensor) -> Tensor:
    """``t``, shaped as ``op``'s output, with the reduced dimensions back as size 1."""
    if op._attrs["keep_dims"] or len(op._inputs) == 1:  # len 1: every axis, so t is a scalar
        return t
    x = op._inputs[0]
    axes = _reduced_axes(op)
    if axes is None:
        return array_ops.reshape(t, _kept_dims_shape(array_ops.shape(x), op._inputs[1]))
    if axes == tuple(range(len(axes))):
        return t  # leading axes: broadcasting against x restores them
    dims = [1 if i in axes else d for i, d in enumerate(x.shape.as_list())]
    if None not in dims or (dims.count(None) == 1 and 0 not in dims):
        return array_ops.reshape(t, [-1 if d is None else d for d in dims])
    out = array_ops.reshape(t, _kept_dims_shape(array_ops.shape(x), axes))
    out.set_shape(dims)
    return out


def _no_index_grads(op) -> list:
    return [None] * (len(op._inputs) - 1)


@gradient("Sum")
def _sum_grad(op, grad):
    return [tiling_ops.broadcast_like(_with_reduced_dims(op, grad), op._inputs[0]), *_no_index_grads(op)]


@gradient("Mean")
def _mean_grad(op, grad):
    """Sum's gradient over the number of elements averaged (divided before it is broadcast)."""
    x, y = op._inputs[0], op._outputs[0]
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        factor = x.shape.num_elements() // max(y.shape.num_elements(), 1)
        grad = grad / factor if factor != 1 else grad
    elif y.shape.is_fully_defined():
        # Only x's size is dynamic (a full reduction over a batch of unknown size):
        # one Size and one Cast instead of TF1's Size/Size/Maximum/FloorDiv/Cast.
        y_n = max(y.shape.num_elements(), 1)
        count = cast(array_ops.size(x), grad.dtype)
        grad = grad / (count / y_n if y_n != 1 else count)
    else:
        x_size, y_size = array_ops.size(x), array_ops.size(y)
        grad = grad / cast(x_size // maximum(y_size, 1), grad.dtype)
    return [tiling_ops.broadcast_like(_with_reduced_dims(op, grad), x), *_no_index_grads(op)]


@gradient("Max")
@gradient("Min")
def _min_or_max_grad(op, grad):
    """The gradient goes to the elements equal to the result, split equally among ties (TF1)."""
    x, y = op._inputs[0], op._outputs[0]
    indicators = cast(equal(_with_reduced_dims(op, y), x), grad.dtype)
    axes = op._inputs[1] if len(op._inputs) > 1 else None
    num_selected = reduce_sum(indicators, axes, keepdims=op._attrs["keep_dims"])
    out = indicators * _with_reduced_dims(op, grad / num_selected)
    out.set_shape(x.shape)
    return [out, *_no_index_grads(op)]


@gradient("Prod")
def _prod_grad(op, grad):
    """The product of all other elements, from two exclusive cumprods (so zeros in x are fine), as TF1.

    The reduced axes are transposed to the front and flattened into one, the
    kept axes into another, so one cumprod in each direction does it.
    """
    x = op._inputs[0]
    g = tiling_ops.broadcast_like(_with_reduced_dims(op, grad), x)
    axes = _reduced_axes(op)
    if axes is not None:
        r = x.shape.ndims
        perm = list(axes) + [i for i in range(r) if i not in axes]
        inverse = np.argsort(perm).tolist()
        dims = x.shape.as_list()

        def count(idx):
            known = [dims[i] for i in idx]
            if None not in known:
                return int(np.prod(known, dtype=np.int64))
            return reduce_prod(array_ops.gather(array_ops.shape(x), idx))

        reduced_num, other_num = count(perm[:len(axes)]), count(perm[len(axes):])
        if perm == list(range(r)):
            perm = inverse = None  # no transposes needed
    else:
        shape_x, rank_x = array_ops.shape(x), array_ops.rank(x)
        idx = creation_ops.range(rank_x)
        axes_t = array_ops.reshape(op._inputs[1], [-1]) if len(op._inputs) > 1 else idx
        axes_t = floormod(cast(axes_t, dtypes.int32), rank_x)
        reduced_mask = reduce_any(equal(array_ops.expand_dims(idx, 1), array_ops.expand_dims(axes_t, 0)), 1)
        reduced = array_ops.boolean_mask(idx, reduced_mask)
        other = array_ops.boolean_mask(idx, logical_not(reduced_mask))
        perm = array_ops.concat([reduced, other], 0)
        inverse = apply_op("InvertPermutation", [perm]).outputs[0]
        reduced_num = reduce_prod(array_ops.gather(shape_x, reduced))
        other_num = reduce_prod(array_ops.gather(shape_x, other))
    permuted = x if perm is None else array_ops.transpose(x, perm)
    reshaped = array_ops.reshape(permuted, [reduced_num, other_num])
    left = cumprod(reshaped, 0, exclusive=True)
    right = cumprod(reshaped, 0, exclusive=True, reverse=True)
    others = array_ops.reshape(_conj(left) * _conj(right), array_ops.shape(permuted))
    out = g * (others if inverse is None else array_ops.transpose(others, inverse))
    out.set_shape(x.shape)
    return [out, *_no_index_grads(op)]


# -- API -------------------------------------------------------------------------------


def _reduce(op_type, input_tensor, axis, keepdims, name, reduction_indices, keep_dims) -> Tensor:
    axis = _v1_arg("axis", axis, "reduction_indices", reduction_indices)
    keep = bool(_v1_arg("keepdims", keepdims, "keep_dims", keep_dims))
    attrs = {"keep_dims": keep}
    if isinstance(input_tensor, Tensor) and (axis is None or isinstance(axis, Tensor)):
        x = input_tensor
        inputs = [x] if axis is None and x.shape.ndims is None else [x, _all_axes(x) if axis is None else axis]
        return apply_op(op_type, inputs, attrs, name=name or op_type).outputs[0]
    with name_scope(name or op_type, None, [input_tensor]) as scope:
        x = convert_input(input_tensor, "input", None, op_type)
        if axis is None:
            inputs = [x] if x.shape.ndims is None else [x, _all_axes(x)]
        else:
            inputs = [x, _index_input(axis, "reduction_indices")]
        return apply_op(op_type, inputs, attrs, name=scope).outputs[0]


def _index_input(value, arg: str) -> Tensor:
    """An axis argument as a Tensor named ``arg``; Python values default to int32 (even ``[]``)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (list, tuple)) and not value:
        value = np.zeros([0], np.int32)  # to_numpy refuses [] as int32 (it reads as float64)
    return convert_to_tensor(value, preferred_dtype=dtypes.int32, name=arg)


def _all_axes(x: Tensor) -> Tensor:
    return constant(np.arange(x.shape.ndims, dtype=np.int32))


def _reduction_api(py_name, op_type, doc):
    def fn(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None) -> Tensor:
        return _reduce(op_type, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)

    fn.__name__ = fn.__qualname__ = py_name
    fn.__doc__ = doc
    return tf_export(py_name, f"math.{py_name}")(fn)


reduce_sum = _reduction_api("reduce_sum", "Sum", """Sum over ``axis`` (int, list or tensor; None: all).

    TF1 spellings ``reduction_indices`` and ``keep_dims`` are accepted.

    >>> # tf.reduce_sum([[1, 2], [3, 4]], axis=1, keepdims=True) -> [[3], [7]]
    """)
reduce_mean = _reduction_api("reduce_mean", "Mean", """Mean over ``axis``; integer means truncate toward zero.""")
reduce_max = _reduction_api("reduce_max", "Max", """Maximum over ``axis`` (-inf / the lowest int if empty).""")
reduce_min = _reduction_api("reduce_min", "Min", """Minimum over ``axis`` (+inf / the highest int if empty).""")
reduce_prod = _reduction_api("reduce_prod", "Prod", """Product over ``axis``.""")
reduce_any = _reduction_api("reduce_any", "Any", """Logical OR over ``axis`` of a bool tensor.""")
reduce_all = _reduction_api("reduce_all", "All", """Logical AND over ``axis`` of a bool tensor.""")


@tf_export("reduce_logsumexp", "math.reduce_logsumexp")
def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                     keep_dims=None) -> Tensor:
    """``log(sum(exp(x)))`` over ``axis``, computed stably (shifted by the finite max)."""
    axis = _v1_arg("axis", axis, "reduction_indices", reduction_indices)
    keep = bool(_v1_arg("keepdims", keepdims, "keep_dims", keep_dims))
    with name_scope(name or "ReduceLogSumExp", None, [input_tensor]) as scope:
        x = convert_input(input_tensor, "input_tensor", None, "ReduceLogSumExp")
        if x.dtype not in FLOAT_DTYPES:
            raise TypeError(f"reduce_logsumexp: input must be a float tensor, got {x.dtype.name}")
        raw_max = reduce_max(x, axis, keepdims=True)
        # An all -inf (or inf) slice would give inf - inf; shift those by 0 instead. The shift
        # cancels out of the result, so (as in TF1) no gradient flows through it.
        my_max = array_ops.stop_gradient(
            where_v2(is_finite(raw_max), raw_max, constant(0, dtype=x.dtype, name="zeros")))
        result = log(reduce_sum(exp(subtract(x, my_max)), axis, keepdims=keep))
        if not keep:
            my_max = reduce_max(my_max, axis)  # drops the reduced size-1 dims
        return _add(result, my_max, name=scope)


@tf_export("math.reduce_variance")
def reduce_variance(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """Variance over ``axis`` (population variance: divides by N)."""
    with name_scope(name or "reduce_variance"):
        x = convert_to_tensor(input_tensor, name="input_tensor")
        if x.dtype not in FLOAT_DTYPES:
            raise TypeError(f"reduce_variance: input must be a float tensor, got {x.dtype.name}")
        means = reduce_mean(x, axis=axis, keepdims=True)
        squared_deviations = square(subtract(x, means, name="sub"))
        return reduce_mean(squared_deviations, axis=axis, keepdims=keepdims)


@tf_export("math.reduce_std")
def reduce_std(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """Standard deviation over ``axis`` (``sqrt(reduce_variance)``)."""
    with name_scope(name or "reduce_std"):
        return sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


@tf_export("count_nonzero", "math.count_nonzero")
def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype=dtypes.int64, name=None,
                  reduction_indices=None, keep_dims=None, input=None) -> Tensor:  # noqa: A002 - TF1 name
    """How many elements are nonzero (non-empty for strings) over ``axis``; int64 by default."""
    input_tensor = _v1_arg("input_tensor", input_tensor, "input", input)
    axis = _v1_arg("axis", axis, "reduction_indices", reduction_indices)
    keep = bool(_v1_arg("keepdims", keepdims, "keep_dims", keep_dims))
    with name_scope(name or "count_nonzero", None, [input_tensor]):
        x = convert_to_tensor(input_tensor, name="input")
        zero = constant(b"" if x.dtype is dtypes.string else np.zeros((), x.dtype.as_numpy_dtype), name="zeros")
        counts = reduce_sum(cast(not_equal(x, zero), dtypes.int64), axis=axis, keepdims=keep)
        return cast(counts, dtype)


# -- ArgMax / ArgMin -----------------------------------------------------------------


def _arg_infer(op):
    x, dim = op._inputs
    check_dtype(op, "input", x._dtype, NUMERIC_DTYPES | BOOL_DTYPES)
    check_dtype(op, "dimension", dim._dtype, _INDEX)
    out = op._attrs["output_type"]
    check_dtype(op, "output_type", out, _INDEX)
    rank = x._shape.ndims
    if rank is None:
        return [(out, unknown_shape())]
    d = constant_value(dim)
    if d is None:
        return [(out, unknown_shape(max(rank - 1, 0)))]
    d = int(d)
    if not -rank <= d < rank:
        raise ValueError(f"Expected dimension in the range [{-rank}, {rank}), but got {d}")
    dims = x._shape.as_list()
    del dims[d % rank]
    return [(out, TensorShape(dims))]


def _argmax(x, dimension, output_type):
    return x.argmax(axis=int(dimension)).astype(output_type.as_numpy_dtype, copy=False)


def _argmin(x, dimension, output_type):
    return x.argmin(axis=int(dimension)).astype(output_type.as_numpy_dtype, copy=False)


register("ArgMax", infer=_arg_infer, kernel=_argmax)
register("ArgMin", infer=_arg_infer, kernel=_argmin)
not_differentiable("ArgMax")
not_differentiable("ArgMin")


def _arg(op_type, input, axis, name, dimension, output_type) -> Tensor:  # noqa: A002
    axis = _v1_arg("axis", axis, "dimension", dimension)
    if axis is None:
        axis = 0
    attrs = {"output_type": dtypes.as_dtype(output_type)}
    if isinstance(input, Tensor) and isinstance(axis, Tensor):
        return apply_op(op_type, [input, axis], attrs, name=name or op_type).outputs[0]
    with name_scope(name or op_type, None, [input, axis]) as scope:
        x = convert_input(input, "input", None, op_type)
        d = _index_input(axis, "dimension")
        return apply_op(op_type, [x, d], attrs, name=scope).outputs[0]


@tf_export("argmax", "math.argmax")
def argmax(input, axis=None, name=None, dimension=None, output_type=dtypes.int64) -> Tensor:  # noqa: A002
    """Index of the largest value along ``axis`` (default 0), as ``output_type`` (int64).

    >>> # tf.argmax([[1, 5], [7, 0]], 1) -> [1, 0]
    """
    return _arg("ArgMax", input, axis, name, dimension, output_type)


@tf_export("argmin", "math.argmin")
def argmin(input, axis=None, name=None, dimension=None, output_type=dtypes.int64) -> Tensor:  # noqa: A002
    """Index of the smallest value along ``axis`` (default 0), as ``output_type`` (int64)."""
    return _arg("ArgMin", input, axis, name, dimension, output_type)


# -- Cumsum / Cumprod ------------------------------------------------------------------


def _cumulative_infer(op):
    x, axis = op._inputs
    check_dtype(op, "x", x._dtype, NUMERIC_DTYPES)
    check_dtype(op, "axis", axis._dtype, _INDEX)
    rank = x._shape.ndims
    a = constant_value(axis)
    if rank is not None and a is not None and np.ndim(a) == 0 and not -rank <= int(a) < rank:
        raise ValueError(f"axis {int(a)} is out of range for a tensor of rank {rank}")
    return [(x._dtype, x._shape)]


def _cumulative(method, identity):
    def kernel(x, axis, exclusive, reverse):
        axis = int(axis)
        xp = array_module(x)
        if reverse:
            x = xp.flip(x, axis)
        out = getattr(x, method)(axis=axis, dtype=x.dtype)
        if exclusive:
            out = xp.roll(out, 1, axis)  # a copy, so the first slot may be overwritten
            first = [slice(None)] * out.ndim
            first[axis] = slice(0, 1)  # (an empty axis has no element 0)
            out[tuple(first)] = identity
        if reverse:
            out = xp.flip(out, axis)
        return out

    return kernel


register("Cumsum", infer=_cumulative_infer, kernel=_cumulative("cumsum", 0))
register("Cumprod", infer=_cumulative_infer, kernel=_cumulative("cumprod", 1))


@gradient("Cumsum")
def _cumsum_grad(op, grad):
    a = op._attrs
    return [cumsum(grad, op._inputs[1], exclusive=a["exclusive"], reverse=not a["reverse"]), None]


@gradient("Cumprod")
def _cumprod_grad(op, grad):
    """TF's rule: a reverse cumsum of ``output * grad``, over x (0 where x is 0)."""
    x, axis = op._inputs
    a = op._attrs
    out = cumsum(op._outputs[0] * grad, axis, exclusive=a["exclusive"], reverse=not a["reverse"])
    return [div_no_nan(out, x), None]


def _cum(op_type, x, axis, exclusive, reverse, name) -> Tensor:
    attrs = {"exclusive": bool(exclusive), "reverse": bool(reverse)}
    with name_scope(name or op_type, None, [x]) as scope:
        x = convert_input(x, "x", None, op_type)
        a = _index_input(axis, "axis")
        return apply_op(op_type, [x, a], attrs, name=scope).outputs[0]


@tf_export("cumsum", "math.cumsum")
def cumsum(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
    """Running sum along ``axis``; ``exclusive`` leaves out each element itself.

    >>> # tf.cumsum([1, 2, 3], exclusive=True, reverse=True) -> [5, 3, 0]
    """
    return _cum("Cumsum", x, axis, exclusive, reverse, name)


@tf_export("cumprod", "math.cumprod")
def cumprod(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
    """Running product along ``axis``; ``exclusive`` starts from 1."""
    return _cum("Cumprod", x, axis, exclusive, reverse, name)
