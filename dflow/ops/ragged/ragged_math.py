"""Element-wise math and reductions on RaggedTensors, and the dispatch that routes TF1's functions to them.

* Element-wise ops work on ``flat_values`` and keep the row partitions:
  a unary op through ``map_flat_values``; a binary op broadcasts both shapes
  as TF 2.15's ``DynamicRaggedShape`` does (``ragged_broadcast``): ragged and
  dense dimensions meet where the rows fit (checked at run time), uniform
  size-1 dimensions broadcast, and a dense operand of higher rank adds outer
  dimensions to the result.
* ``tf.concat`` and ``tf.stack`` of a list holding a RaggedTensor go to
  ``ragged_concat_ops`` (any axis).
* ``reduce_sum``/``prod``/``min``/``max``/``mean``/``all``/``any`` follow TF's
  ``ragged_math_ops``: reducing a ragged dimension uses unsorted segment ops.
* ``RaggedTensor``'s Python operators (``+ - * / // % ** & | ^ < <= > >=``,
  unary ``- abs ~``) use these.
* ``RAGGED_DISPATCH`` maps TF1 names (``"math.abs"``, ``"reduce_sum"``, ...)
  to the ragged versions; ``install_dispatch(root)`` makes those public
  functions of ``root`` (the ``dflow`` module) take RaggedTensors, and
  returns a function that undoes it.
"""

from __future__ import annotations

import functools

from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.ops.array import array_ops, gather_ops
from dflow.ops.math import math_ops, reduction_ops, segment_ops
from dflow.ops.ragged import ragged_concat_ops
from dflow.ops.ragged.ragged_broadcast import broadcast_binary_op
from dflow.ops.ragged.ragged_ops import (
    convert_to_tensor_or_ragged_tensor,
    map_flat_values,
    ragged_range,
    row_splits_to_segment_ids,
)
from dflow.ops.ragged.ragged_tensor import RaggedTensor, is_ragged

# -- element-wise ----------------------------------------------------------------------


def _broadcasts_as_shapes(x, y, x_ragged: bool, y_ragged: bool) -> bool:
    """TF's test for broadcasting the shapes (else the dense operand broadcasts against the flat values)."""
    ragged, dense = (x, y) if x_ragged else (y, x)
    return ragged.flat_values.shape.ndims <= dense.shape.ndims  # TypeError for an unknown rank, as TF


def ragged_binary_elementwise_op(op, x, y, name=None):
    """``op(x, y)`` where either is ragged, as TF 2.15's ``ragged_binary_elementwise_op_impl``.

    Two RaggedTensors with the same row partitions, or a dense operand of
    lower rank than the ragged one's flat values, work on the flat values
    directly; otherwise both shapes broadcast to one ragged shape
    (``ragged_broadcast``), which checks at run time that they fit.
    """
    x_ragged, y_ragged = is_ragged(x), is_ragged(y)
    x = convert_to_tensor_or_ragged_tensor(x, preferred_dtype=y.dtype if y_ragged else None)
    y = convert_to_tensor_or_ragged_tensor(y, preferred_dtype=x.dtype)
    if x_ragged and y_ragged:
        if x.row_splits.dtype is not y.row_splits.dtype:
            raise ValueError("Input RaggedTensors have mismatched row_splits dtypes; use "
                             "RaggedTensor.with_row_splits_dtype() to convert them to compatible dtypes.")
        if _partitions_identical(x, y):
            return x.with_flat_values(op(x.flat_values, y.flat_values, name=name))
    if (x_ragged and y_ragged) or _broadcasts_as_shapes(x, y, x_ragged, y_ragged):
        splits_dtype = (x if x_ragged else y).row_splits.dtype
        return broadcast_binary_op(op, x, y, splits_dtype, name=name)
    if x_ragged:
        return x.with_flat_values(op(x.flat_values, y, name=name))
    return y.with_flat_values(op(x, y.flat_values, name=name))


def _partitions_identical(x: RaggedTensor, y: RaggedTensor) -> bool:
    """Whether ``x`` and ``y`` share their row partitions (the same row-splits tensors, uniform or not alike)."""
    if x.ragged_rank != y.ragged_rank:
        return False
    while isinstance(x, RaggedTensor):
        if x.row_splits is not y.row_splits or (x.uniform_row_length is None) != (y.uniform_row_length is None):
            return False
        x, y = x.values, y.values
    return True


def ragged_unary_elementwise_op(op, x, *args, **kwargs):
    """``op`` applied to ``x.flat_values`` (TF dispatches unary element-wise ops this way)."""
    return map_flat_values(op, x, *args, **kwargs)


# -- reductions ------------------------------------------------------------------------


def _segment_aggregate(segment_op, data, segment_ids, num_segments):
    """TF's ``_ragged_segment_aggregate``: unsorted segment op over (possibly ragged) ``data`` rows."""
    if not isinstance(data, RaggedTensor):
        return segment_op(data, segment_ids, num_segments)
    segment_ids = math_ops.cast(segment_ids, data.row_splits.dtype)
    num_segments = math_ops.cast(num_segments, data.row_splits.dtype)
    data_row_lengths = data.row_splits[1:] - data.row_splits[:-1]
    output_row_lengths = math_ops.maximum(
        segment_ops.unsorted_segment_max(data_row_lengths, segment_ids, num_segments),
        convert_to_tensor(0, data.row_splits.dtype))
    output_splits = array_ops.concat([array_ops.zeros([1], output_row_lengths.dtype),
                                      reduction_ops.cumsum(output_row_lengths)], axis=0)
    starts = gather_ops.gather(output_splits, segment_ids)
    limits = starts + data_row_lengths
    value_index = ragged_range(starts, limits, row_splits_dtype=data.row_splits.dtype).values
    output_values = _segment_aggregate(segment_op, data.values, value_index, output_splits[-1])
    return RaggedTensor.from_row_splits(output_values, output_splits, validate=False)


def _positive_axis(axis, rank) -> int:
    if not isinstance(axis, int):
        raise TypeError(f"axis must be an int; got {type(axis).__name__}")
    if rank is None:
        if axis < 0:
            raise ValueError("axis may only be negative if rank(input_tensor) is statically known.")
        return axis
    if not -rank <= axis < rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
    return axis % rank


def _expand(result, axis: int):
    """``result`` with a new size-1 dimension at ``axis`` (0 or 1), ragged or not."""
    if not isinstance(result, RaggedTensor):
        return array_ops.expand_dims(result, axis)
    if axis == 0:
        return RaggedTensor.from_uniform_row_length(result, result.nrows(), nrows=1, validate=False)
    return RaggedTensor.from_uniform_row_length(result, 1, validate=False)


def _reduce_aggregate(reduce_op, segment_op, rt_input, axis, keepdims, name=None):
    """TF's ``ragged_reduce_aggregate``: one axis at a time, ragged axes by unsorted segment ops."""
    if not is_ragged(rt_input):
        return reduce_op(rt_input, axis, keepdims=keepdims, name=name)
    if isinstance(axis, Tensor):
        from dflow.framework.op_registry import constant_value

        known = constant_value(axis)
        if known is None:
            raise ValueError("axis must be known at graph construction time.")
        axis = known.tolist()
    if axis is None:
        result = reduce_op(rt_input.flat_values, None, keepdims=keepdims, name=name)
        if keepdims:
            for _ in rt_input.shape[1:]:
                result = array_ops.expand_dims(result, axis=0)
        return result
    with name_scope(name, "RaggedReduce", [rt_input, axis]):
        if isinstance(axis, (tuple, list)):
            if not axis:
                return rt_input
            if len(axis) > 1:
                axes = sorted(_positive_axis(a, rt_input.shape.ndims) for a in axis)
                inner = _reduce_aggregate(reduce_op, segment_op, rt_input, axes[-1], keepdims)
                return _reduce_aggregate(reduce_op, segment_op, inner, axes[:-1], keepdims)
            axis = axis[0]
        rt_input = convert_to_tensor_or_ragged_tensor(rt_input, name="rt_input")
        axis = _positive_axis(int(axis), rt_input.shape.ndims)
        if axis == 0:
            row_lengths = rt_input.row_splits[1:] - rt_input.row_splits[:-1]
            num_segments = math_ops.maximum(reduction_ops.reduce_max(row_lengths),
                                            convert_to_tensor(0, row_lengths.dtype))
            segment_ids = ragged_range(row_lengths, row_splits_dtype=rt_input.row_splits.dtype).values
            result = _segment_aggregate(segment_op, rt_input.values, segment_ids, num_segments)
            return _expand(result, 0) if keepdims else result
        if axis == 1:
            num_segments = array_ops.shape(rt_input.row_splits)[0] - 1
            segment_ids = row_splits_to_segment_ids(rt_input.row_splits)
            result = _segment_aggregate(segment_op, rt_input.values, segment_ids, num_segments)
            return _expand(result, 1) if keepdims else result
        return rt_input.with_values(_reduce_aggregate(reduce_op, segment_op, rt_input.values, axis - 1, keepdims))


def _reduction(scope: str, reduce_op, segment_op):
    def reduce(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
        axis = reduction_indices if axis is None else axis
        keepdims = keep_dims if keepdims is None else keepdims
        return _reduce_aggregate(reduce_op, segment_op, input_tensor, axis, bool(keepdims), name=name or scope)

    return reduce


reduce_sum = _reduction("RaggedReduceSum", reduction_ops.reduce_sum, segment_ops.unsorted_segment_sum)
reduce_prod = _reduction("RaggedReduceProd", reduction_ops.reduce_prod, segment_ops.unsorted_segment_prod)
reduce_min = _reduction("RaggedReduceMin", reduction_ops.reduce_min, segment_ops.unsorted_segment_min)
reduce_max = _reduction("RaggedReduceMax", reduction_ops.reduce_max, segment_ops.unsorted_segment_max)
reduce_sum.__doc__ = "The sum of a RaggedTensor's values along ``axis`` (TF's ragged ``reduce_sum``)."
reduce_prod.__doc__ = "The product of a RaggedTensor's values along ``axis``."
reduce_min.__doc__ = "The minimum of a RaggedTensor's values along ``axis`` (the dtype's largest value if empty)."
reduce_max.__doc__ = "The maximum of a RaggedTensor's values along ``axis`` (the dtype's lowest value if empty)."


def reduce_mean(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """The mean of a RaggedTensor's values along ``axis`` (NaN for an empty row)."""
    axis = reduction_indices if axis is None else axis
    keepdims = keep_dims if keepdims is None else keepdims
    with name_scope(name, "RaggedReduceMean", [input_tensor, axis]):
        total = reduce_sum(input_tensor, axis, keepdims)
        if is_ragged(input_tensor):
            ones = input_tensor.with_flat_values(array_ops.ones_like(input_tensor.flat_values))
        else:
            ones = array_ops.ones_like(input_tensor)
        count = reduce_sum(ones, axis, keepdims)
        if is_ragged(total):
            return total.with_flat_values(total.flat_values / count.flat_values)
        return total / count


def _bool_reduction(scope: str, int_reduce):
    def reduce(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
        axis = reduction_indices if axis is None else axis
        keepdims = keep_dims if keepdims is None else keepdims
        with name_scope(name, scope, [input_tensor, axis]):
            as_int = map_flat_values(math_ops.cast, input_tensor, dtypes.int32)
            return _cast(int_reduce(as_int, axis, keepdims), dtypes.bool)

    return reduce


def _cast(value, dtype):
    if isinstance(value, RaggedTensor):
        return value.with_flat_values(math_ops.cast(value.flat_values, dtype))
    return math_ops.cast(value, dtype)


reduce_all = _bool_reduction("RaggedReduceAll", reduce_prod)
reduce_any = _bool_reduction("RaggedReduceAny", reduce_sum)
reduce_all.__doc__ = "Whether all of a RaggedTensor's values along ``axis`` are true."
reduce_any.__doc__ = "Whether any of a RaggedTensor's values along ``axis`` is true."


# -- operators ---------------------------------------------------------------------------


def _math(fn_name: str):
    import dflow.ops.math.math_ops as m

    fn = getattr(m, fn_name, None)
    if fn is None:
        from dflow.ops.math import unary_math_ops

        fn = getattr(unary_math_ops, fn_name)
    return fn


def _binary_operator(fn_name: str, reflected: bool = False):
    def operator(self, other):
        op = _math(fn_name)
        if reflected:
            return ragged_binary_elementwise_op(op, other, self)
        return ragged_binary_elementwise_op(op, self, other)

    return operator


_OPERATORS = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "truediv", "div": "div",
              "floordiv": "floordiv", "mod": "floormod", "pow": "pow", "and": "logical_and", "or": "logical_or",
              "xor": "logical_xor"}
for _name, _fn in _OPERATORS.items():
    setattr(RaggedTensor, f"__{_name}__", _binary_operator(_fn))
    setattr(RaggedTensor, f"__r{_name}__", _binary_operator(_fn, reflected=True))
for _name, _fn in {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal"}.items():
    setattr(RaggedTensor, f"__{_name}__", _binary_operator(_fn))
RaggedTensor.__neg__ = lambda self: map_flat_values(_math("negative"), self)
RaggedTensor.__abs__ = lambda self: map_flat_values(_math("abs"), self)
RaggedTensor.__invert__ = lambda self: map_flat_values(_math("logical_not"), self)


# -- dispatch of TF1's public functions ---------------------------------------------------

_BINARY_NAMES = ["add", "math.add", "subtract", "math.subtract", "multiply", "math.multiply", "divide",
                 "math.divide", "truediv", "math.truediv", "div", "floordiv", "math.floordiv", "floormod",
                 "math.floormod", "mod", "pow", "math.pow", "maximum", "math.maximum", "minimum", "math.minimum",
                 "equal", "math.equal", "not_equal", "math.not_equal", "less", "math.less", "less_equal",
                 "math.less_equal", "greater", "math.greater", "greater_equal", "math.greater_equal",
                 "logical_and", "math.logical_and", "logical_or", "math.logical_or", "logical_xor",
                 "math.logical_xor", "squared_difference", "math.squared_difference", "math.divide_no_nan",
                 "div_no_nan", "realdiv", "truncatediv", "truncatemod", "atan2", "math.atan2"]
_UNARY_NAMES = ["abs", "math.abs", "negative", "math.negative", "exp", "math.exp", "log", "math.log", "sqrt",
                "math.sqrt", "rsqrt", "math.rsqrt", "square", "math.square", "sin", "math.sin", "cos", "math.cos",
                "tan", "math.tan", "tanh", "math.tanh", "sigmoid", "math.sigmoid", "floor", "math.floor", "ceil",
                "math.ceil", "round", "math.round", "rint", "math.rint", "sign", "math.sign", "reciprocal",
                "math.reciprocal", "log1p", "math.log1p", "expm1", "math.expm1", "logical_not",
                "math.logical_not", "is_nan", "math.is_nan", "is_inf", "math.is_inf", "is_finite",
                "math.is_finite", "erf", "math.erf", "softplus", "math.softplus", "nn.softplus", "nn.relu",
                "nn.relu6", "nn.elu", "nn.selu", "nn.sigmoid", "nn.tanh", "cast", "dtypes.cast", "saturate_cast",
                "dtypes.saturate_cast", "identity", "zeros_like", "ones_like", "clip_by_value", "math.asin",
                "asin", "math.acos", "acos", "math.atan", "atan", "math.sinh", "math.cosh", "math.asinh",
                "math.acosh", "math.atanh", "math.lgamma", "lgamma", "math.digamma", "digamma", "strings.length",
                "string_to_number", "strings.to_number", "bitwise.invert"]
_REDUCTION_NAMES = {"reduce_sum": reduce_sum, "math.reduce_sum": reduce_sum, "reduce_prod": reduce_prod,
                    "math.reduce_prod": reduce_prod, "reduce_min": reduce_min, "math.reduce_min": reduce_min,
                    "reduce_max": reduce_max, "math.reduce_max": reduce_max, "reduce_mean": reduce_mean,
                    "math.reduce_mean": reduce_mean, "reduce_all": reduce_all, "math.reduce_all": reduce_all,
                    "reduce_any": reduce_any, "math.reduce_any": reduce_any}


def _binary_handler(original):
    def handler(x, y, name=None):
        return ragged_binary_elementwise_op(original, x, y, name=name)

    return handler


def _unary_handler(original):
    def handler(x, *args, **kwargs):
        return map_flat_values(original, x, *args, **kwargs)

    return handler


def _concat_handler(values, axis, name=None):
    return ragged_concat_ops.concat(values, axis, name=name)


def _stack_handler(values, axis=0, name=None):
    return ragged_concat_ops.stack(values, axis, name=name)


_LIST_NAMES = {"concat": _concat_handler, "stack": _stack_handler}


def ragged_handler(tf_name: str, original):
    """The ragged version of public function ``tf_name`` (``original`` is its dense one), or None."""
    if tf_name in _LIST_NAMES:
        return _LIST_NAMES[tf_name]
    if tf_name in _REDUCTION_NAMES:
        return _REDUCTION_NAMES[tf_name]
    if tf_name in _BINARY_NAMES:
        return _binary_handler(original)
    if tf_name in _UNARY_NAMES:
        return _unary_handler(original)
    return None


RAGGED_DISPATCH = tuple(_BINARY_NAMES + _UNARY_NAMES + list(_REDUCTION_NAMES) + list(_LIST_NAMES))


def _is_or_holds_ragged(value) -> bool:
    """A RaggedTensor, or a list or tuple holding one (``tf.concat``'s ``values``)."""
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, RaggedTensor) for v in value)
    return isinstance(value, RaggedTensor)


def _has_ragged(args, kwargs) -> bool:
    return any(_is_or_holds_ragged(a) for a in args) or any(_is_or_holds_ragged(v) for v in kwargs.values())


def dispatching(tf_name: str, original):
    """``original`` made to send calls with a RaggedTensor argument to its ragged version."""
    handler = ragged_handler(tf_name, original)
    if handler is None:
        return original

    @functools.wraps(original)
    def call(*args, **kwargs):
        if _has_ragged(args, kwargs):
            return handler(*args, **kwargs)
        return original(*args, **kwargs)

    call._ragged_original = original
    return call


def install_dispatch(root) -> callable:
    """Makes ``root``'s public functions in ``RAGGED_DISPATCH`` accept RaggedTensors; returns an undo function.

    Every public alias of a wrapped function gets the same wrapper (``tf.debugging.is_nan`` stays
    ``tf.math.is_nan``), as TF's dispatch decorates the function itself."""
    from dflow._api import exported_names

    exports = exported_names()
    wrapped: dict = {}
    undo = []
    for tf_name in RAGGED_DISPATCH:
        original = exports.get(tf_name)
        if original is not None and callable(original) and id(original) not in wrapped:
            wrapped[id(original)] = dispatching(tf_name, original)
    for tf_name, original in exports.items():
        if id(original) not in wrapped or wrapped[id(original)] is original:
            continue
        *path, leaf = tf_name.split(".")
        ns = root
        for part in path:
            ns = getattr(ns, part, None)
            if ns is None:
                break
        if ns is None or getattr(ns, leaf, None) is not original:
            continue
        setattr(ns, leaf, wrapped[id(original)])
        undo.append((ns, leaf, original))

    def restore():
        for ns, leaf, original in undo:
            setattr(ns, leaf, original)

    return restore
