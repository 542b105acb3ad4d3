"""The ``tf.assert_*`` family (``tf.debugging``): checks that fail a run with TF1's messages.

Each builds an ``Assert`` op to use as a control dependency. As in TF1, a
check whose inputs are constants is decided when the graph is built: a failing
one raises there (``InvalidArgumentError`` for value checks, ``ValueError`` for
ranks, ``TypeError`` for dtypes), a passing rank or dtype check is a ``NoOp``.

>>> import dflow as tf
>>> x = tf.placeholder(tf.float32, [None])
>>> with tf.control_dependencies([tf.assert_positive(x)]):
...     y = tf.sqrt(x)
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.composite import SparseTensor
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, control_dependencies, name_scope
from dflow.framework.op_registry import constant_value
from dflow.ops.array.array_ops import rank as rank_of
from dflow.ops.array.array_ops import shape as shape_of
from dflow.ops.control_flow.control_flow_ops import no_op, with_dependencies
from dflow.ops.debugging.logging_ops import Assert
from dflow.ops.math import math_ops
from dflow.ops.math.reduction_ops import reduce_all


def _message_prefix(message) -> str:
    return f"{message}.  " if message else ""


def _static_string(t) -> str:
    if not isinstance(t, Tensor):
        return str(t)
    value = constant_value(t)
    return str(value) if value is not None else str(t)


def _assert_static(condition, data) -> None:
    if not condition:
        raise errors.InvalidArgumentError(None, None, "\n".join(_static_string(d) for d in data))


def _binary_assert(sym: str, opname: str, op_func, static_func, x, y, data, summarize, message, name):
    with name_scope(name, opname, [x, y, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y")
        if data is None:
            data = [f"Condition x {sym} y did not hold element-wise:", f"x ({x.name}) = ", x,
                    f"y ({y.name}) = ", y]
        if message is not None:
            data = [message] + list(data)
        condition = reduce_all(op_func(x, y))
        x_static, y_static = constant_value(x), constant_value(y)
        if x_static is not None and y_static is not None:
            _assert_static(np.all(static_func(x_static, y_static)), data)
        return Assert(condition, data, summarize=summarize)


def _binary(sym, opname, op_func, static_func, doc):
    def check(x, y, data=None, summarize=None, message=None, name=None):
        return _binary_assert(sym, opname, op_func, static_func, x, y, data, summarize, message, name)

    check.__name__ = check.__qualname__ = opname
    check.__doc__ = doc
    return tf_export(opname, f"debugging.{opname}")(check)


assert_equal = _binary("==", "assert_equal", math_ops.equal, np.equal,
                       "An op asserting ``x == y`` element-wise (broadcasting); fails with TF1's message.")
assert_none_equal = _binary("!=", "assert_none_equal", math_ops.not_equal, np.not_equal,
                            "An op asserting ``x != y`` for every element.")
assert_less = _binary("<", "assert_less", math_ops.less, np.less, "An op asserting ``x < y`` element-wise.")
assert_less_equal = _binary("<=", "assert_less_equal", math_ops.less_equal, np.less_equal,
                            "An op asserting ``x <= y`` element-wise.")
assert_greater = _binary(">", "assert_greater", math_ops.greater, np.greater,
                         "An op asserting ``x > y`` element-wise.")
assert_greater_equal = _binary(">=", "assert_greater_equal", math_ops.greater_equal, np.greater_equal,
                               "An op asserting ``x >= y`` element-wise.")


def _sign(opname, condition, zero_first, check):
    def assert_sign(x, data=None, summarize=None, message=None, name=None):
        message = message or ""
        with name_scope(name, opname, [x, data]):
            x = convert_to_tensor(x, name="x")
            if data is None:
                data = [message, f"Condition {condition} did not hold element-wise:", f"x ({x.name}) = ", x]
            zero = convert_to_tensor(0, dtype=x.dtype)
            args = (zero, x) if zero_first else (x, zero)
            return check(*args, data=data, summarize=summarize)

    assert_sign.__name__ = assert_sign.__qualname__ = opname
    assert_sign.__doc__ = f"An op asserting ``{condition}`` element-wise."
    return tf_export(opname, f"debugging.{opname}")(assert_sign)


assert_positive = _sign("assert_positive", "x > 0", True, assert_less)
assert_negative = _sign("assert_negative", "x < 0", False, assert_less)
assert_non_negative = _sign("assert_non_negative", "x >= 0", True, assert_less_equal)
assert_non_positive = _sign("assert_non_positive", "x <= 0", False, assert_less_equal)


@tf_export("assert_near", "debugging.assert_near")
def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None, name=None):
    """An op asserting ``|x - y| < atol + rtol * |y|`` element-wise (default tolerances 10 eps)."""
    message = message or ""
    with name_scope(name, "assert_near", [x, y, rtol, atol, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype)
        dtype = x.dtype.real_dtype if x.dtype.is_complex else x.dtype
        eps = np.finfo(dtype.as_numpy_dtype).eps
        rtol = convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=dtype)
        atol = convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=dtype)
        if data is None:
            data = [message, f"x and y not equal to tolerance rtol = {rtol}, atol = {atol}",
                    f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        tol = atol + rtol * math_ops.abs(y)
        diff = math_ops.abs(x - y)
        return Assert(reduce_all(math_ops.less(diff, tol)), data, summarize=summarize)


def _rank_check(opname, words, static_ok, dynamic_ok):
    def check(x, rank, data=None, summarize=None, message=None, name=None):
        with name_scope(name, opname, [x, rank] + list(data or [])):
            x = convert_to_tensor(x, name="x")
            rank = convert_to_tensor(rank, name="rank")
            prefix = _message_prefix(message)
            if data is None:
                data = [prefix, f"Tensor {x.name} must have {words}", rank, "Received shape: ", shape_of(x)]
            if rank.dtype != dtypes.int32:
                raise TypeError(f"{rank.name} must be of type tf.int32; got {rank.dtype!r}")
            rank_static = constant_value(rank)
            if rank_static is not None:
                if np.ndim(rank_static) != 0:
                    raise ValueError("Rank must be a scalar.")
                if x.shape.ndims is not None:
                    if not static_ok(x.shape.ndims, int(rank_static)):
                        raise ValueError(f"{prefix}Tensor {x.name} must have {words} {int(rank_static)}.  Received "
                                         f"rank {x.shape.ndims}, shape {x.shape}")
                    return no_op(name="static_checks_determined_all_ok")
            condition = dynamic_ok(rank_of(x), rank)
            if rank_static is None:
                rank_check = assert_rank(rank, 0, data=["Rank must be a scalar. Received rank: ", rank])
                condition = with_dependencies([rank_check], condition)
            return Assert(condition, data, summarize=summarize)

    check.__name__ = check.__qualname__ = opname
    check.__doc__ = f"An op asserting that ``x`` has {words} ``rank``; decided at graph time when both are known."
    return tf_export(opname, f"debugging.{opname}")(check)


assert_rank = _rank_check("assert_rank", "rank", lambda a, r: a == r, math_ops.equal)
assert_rank_at_least = _rank_check("assert_rank_at_least", "rank at least", lambda a, r: a >= r,
                                   math_ops.greater_equal)


@tf_export("assert_rank_in", "debugging.assert_rank_in")
def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None):
    """An op asserting that the rank of ``x`` is one of ``ranks``."""
    with name_scope(name, "assert_rank_in", [x, *ranks] + list(data or [])):
        x = convert_to_tensor(x, name="x")
        ranks = [convert_to_tensor(r, name="rank") for r in ranks]
        prefix = _message_prefix(message)
        if data is None:
            data = [prefix, f"Tensor {x.name} must have rank in", *ranks, "Received shape: ", shape_of(x)]
        statics = [constant_value(r) for r in ranks]
        if all(s is not None for s in statics) and x.shape.ndims is not None:
            wanted = tuple(int(s) for s in statics)
            if x.shape.ndims not in wanted:
                raise ValueError(f"{prefix}Tensor {x.name} must have rank in {wanted}.  Received rank "
                                 f"{x.shape.ndims}, shape {x.shape}")
            return no_op(name="static_checks_determined_all_ok")
        actual = rank_of(x)
        condition = _any_equal(actual, ranks)
        return Assert(condition, data, summarize=summarize)


def _any_equal(actual, ranks):
    out = math_ops.equal(actual, ranks[0])
    for r in ranks[1:]:
        out = math_ops.logical_or(out, math_ops.equal(actual, r))
    return out


@tf_export("assert_integer", "debugging.assert_integer")
def assert_integer(x, message=None, name=None):
    """A NoOp if ``x`` has an integer dtype, else ``TypeError`` (decided at graph time)."""
    with name_scope(name, "assert_integer", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            raise TypeError(f'{_message_prefix(message)}Expected "x" to be integer type.  Found: {x.name} of dtype '
                            f"{x.dtype!r}")
        return no_op("statically_determined_was_integer")


@tf_export("assert_type", "debugging.assert_type")
def assert_type(tensor, tf_type, message=None, name=None):
    """A NoOp if ``tensor`` has dtype ``tf_type``, else ``TypeError`` (decided at graph time)."""
    tf_type = dtypes.as_dtype(tf_type)
    with name_scope(name, "assert_type", [tensor]):
        if not isinstance(tensor, SparseTensor):
            tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != tf_type:
            what = getattr(tensor, "name", "tensor")
            raise TypeError(f"{_message_prefix(message)}{what} must be of type {tf_type!r}; got {tensor.dtype!r}")
        return no_op("statically_determined_correct_type")


@tf_export("assert_scalar", "debugging.assert_scalar")
def assert_scalar(tensor, name=None, message=None):
    """``tensor`` itself if its static shape is a scalar, else ``ValueError``."""
    with name_scope(name, "assert_scalar", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name=scope.rstrip("/"))
        if tensor.shape.ndims != 0:
            raise ValueError(f"{_message_prefix(message)}Expected scalar shape for {tensor.name}, saw shape: "
                             f"{tensor.shape}.")
        return tensor


@tf_export("assert_same_float_dtype", "debugging.assert_same_float_dtype")
def assert_same_float_dtype(tensors=None, dtype=None):
    """The common floating dtype of ``tensors`` (and ``dtype``), float32 if none; ``ValueError`` otherwise."""
    if tensors:
        expected, first = dtype, None
        for item in tensors:
            if item is None:
                continue
            item_type = item.dtype.base_dtype
            if not expected:
                expected, first = item_type, getattr(item, "name", str(item))
            elif expected != item_type:
                where = f" as {first}" if first else ""
                raise ValueError(f"{getattr(item, 'name', str(item))}, type={item_type}, must be of the same type "
                                 f"({expected}){where}.")
        dtype = expected
    if not dtype:
        return dtypes.float32
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


@tf_export("assert_proper_iterable", "debugging.assert_proper_iterable")
def assert_proper_iterable(values) -> None:
    """``TypeError`` unless ``values`` is an iterable other than a tensor, array or string."""
    if isinstance(values, (Tensor, SparseTensor, np.ndarray, str, bytes)):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}')
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


@tf_export("is_numeric_tensor", "debugging.is_numeric_tensor")
def is_numeric_tensor(tensor) -> bool:
    """Whether ``tensor`` is a Tensor of a numeric (not bool or string) dtype."""
    if not isinstance(tensor, Tensor):
        return False
    dt = tensor.dtype
    return dt.is_floating or dt.is_complex or dt.is_integer


@tf_export("debugging.assert_shapes")
def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """An op asserting each ``(tensor, dims)`` pair: ints fix a dim, equal strings must agree across tensors.

    Statically known dims are checked at graph time (``ValueError``); the rest at run time.
    """
    items = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    prefix = _message_prefix(message)
    with name_scope(name, "assert_shapes", [t for t, _ in items]):
        symbols: dict = {}
        checks = []
        for x, spec in items:
            x = convert_to_tensor(x)
            spec = [spec] if isinstance(spec, (str, int)) else list(spec)
            if x.shape.ndims is not None and x.shape.ndims != len(spec):
                raise ValueError(f"{prefix}Specified by tensor {x.name} dimension {x.shape.ndims}.  Tensor "
                                 f"{x.name} must have rank {len(spec)}.  Received rank {x.shape.ndims}, shape "
                                 f"{x.shape}")
            dynamic = shape_of(x)
            for i, want in enumerate(spec):
                known = x.shape.as_list()[i] if x.shape.ndims is not None else None
                if isinstance(want, str) and want not in symbols:
                    symbols[want] = known if known is not None else dynamic[i]
                    continue
                target = symbols[want] if isinstance(want, str) else int(want)
                if known is not None and isinstance(target, int):
                    if known != target:
                        raise ValueError(f"{prefix}Specified by tensor {x.name} dimension {i}.  Tensor {x.name} "
                                         f"must have size {target}.  Received size {known}, shape {x.shape}")
                    continue
                checks.append(assert_equal(dynamic[i], target, data=data or [
                    prefix, f"Specified by tensor {x.name} dimension {i}.", "Tensor", x.name, "must have size",
                    target, "Received shape:", dynamic], summarize=summarize))
        if not checks:
            return no_op(name="static_checks_determined_all_ok")
        with control_dependencies(checks):
            return no_op(name="assert_shapes")


# -- is_non_decreasing / is_strictly_increasing -------------------------------------------------------


def _is_ordered(x, name, default_name: str, compare) -> Tensor:
    from dflow.ops.array.shape_ops import reshape

    with name_scope(name, default_name, [x]):
        flat = reshape(convert_to_tensor(x, name="tensor"), [-1])
        if not (flat.dtype.is_integer or flat.dtype.is_floating):
            raise TypeError(f"Expected x to be numeric, instead found: {flat}")
        # Pairs of neighbours in row-major order; fewer than two elements is ordered (all of nothing).
        return reduce_all(compare(flat[:-1], flat[1:]), name="All")


@tf_export("debugging.is_non_decreasing", "math.is_non_decreasing", "is_non_decreasing")
def is_non_decreasing(x, name=None) -> Tensor:
    """Whether ``x`` read in row-major order never decreases (True for fewer than two elements).

    >>> import dflow as tf
    >>> with tf.Session() as s:
    ...     bool(s.run(tf.debugging.is_non_decreasing([1, 2, 2, 3])))
    True
    """
    return _is_ordered(x, name, "is_non_decreasing", math_ops.less_equal)


@tf_export("debugging.is_strictly_increasing", "math.is_strictly_increasing", "is_strictly_increasing")
def is_strictly_increasing(x, name=None) -> Tensor:
    """Whether ``x`` read in row-major order always increases (True for fewer than two elements)."""
    return _is_ordered(x, name, "is_strictly_increasing", math_ops.less)
