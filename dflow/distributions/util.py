"""Helpers the distributions share: logits/probs conversion, embedded argument checks,
``log_combinations``, seed salting and the normal/Laplace CDFs of TF's ``special_math``."""

from __future__ import annotations

import hashlib

import numpy as np

from dflow.framework import dtypes
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.tensor_shape import dimension_value
from dflow.ops.array.select_ops import where_v2
from dflow.ops.array.shape_ops import shape
from dflow.ops.control_flow.control_flow_ops import no_op, with_dependencies
from dflow.ops.debugging import check_ops
from dflow.ops.math import math_ops, special_math_ops, unary_math_ops
from dflow.ops.math.reduction_ops import reduce_sum
from dflow.ops.nn.nn_activations import softmax


def _largest_integer_by_dtype(dt):
    dt = dtypes.as_dtype(dt)
    if dt.is_floating:
        return int(2 ** (np.finfo(dt.as_numpy_dtype).nmant + 1))
    if dt.is_integer:
        return int(np.iinfo(dt.as_numpy_dtype).max)
    if dt.base_dtype == dtypes.bool:
        return 1
    raise TypeError(f"Unrecognized dtype: {dt.name}")


def _smallest_integer_by_dtype(dt):
    dt = dtypes.as_dtype(dt)
    if dt.is_unsigned:
        return 0
    return -1 * _largest_integer_by_dtype(dt)


def _is_integer_like_by_dtype(dt):
    dt = dtypes.as_dtype(dt)
    return dt.is_integer or dt.base_dtype == dtypes.bool


def assert_integer_form(x, data=None, summarize=None, message=None, int_dtype=None, name="assert_integer_form"):
    """An op asserting that ``x`` holds whole numbers."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_integer:
            return no_op()
        message = message or f"{x} has non-integer components"
        if int_dtype is None:
            int_dtype = {dtypes.float16: dtypes.int16, dtypes.float32: dtypes.int32,
                         dtypes.float64: dtypes.int64}.get(x.dtype.base_dtype)
            if int_dtype is None:
                raise TypeError(f"Unrecognized type {x.dtype.name}")
        return check_ops.assert_equal(x, math_ops.cast(math_ops.cast(x, int_dtype), x.dtype), data=data,
                                      summarize=summarize, message=message, name=name)


def embed_check_nonnegative_integer_form(x, name="embed_check_nonnegative_integer_form"):
    """``x``, checked at run time to be non-negative whole numbers."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        assertions = [check_ops.assert_non_negative(x, message=f"'{x}' must be non-negative.")]
        if not x.dtype.is_integer:
            assertions.append(assert_integer_form(x, message=f"'{x}' cannot contain fractional components."))
        return with_dependencies(assertions, x)


def embed_check_integer_casting_closed(x, target_dtype, assert_nonnegative=True, name="embed_check_casting_closed"):
    """``x``, checked at run time to survive a cast to ``target_dtype``."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        target_dtype = dtypes.as_dtype(target_dtype)
        if not _is_integer_like_by_dtype(x.dtype) and not x.dtype.is_floating:
            raise TypeError(f"{x.dtype.name}.dtype must be floating- or integer-type.")
        if not _is_integer_like_by_dtype(target_dtype) and not target_dtype.is_floating:
            raise TypeError(f"target_dtype ({target_dtype.name}) must be floating- or integer-type.")
        if not _is_integer_like_by_dtype(x.dtype) and not _is_integer_like_by_dtype(target_dtype):
            raise TypeError(f"At least one of {x}.dtype ({x.dtype.name}) and target_dtype ({target_dtype.name}) "
                            f"must be integer-type.")
        assertions = []
        if assert_nonnegative:
            assertions.append(check_ops.assert_non_negative(x, message="Elements must be non-negative."))
        if x.dtype.is_floating:
            assertions.append(assert_integer_form(x, int_dtype=target_dtype,
                                                  message=f"Elements must be {target_dtype.name}-equivalent."))
        else:
            largest = _largest_integer_by_dtype(target_dtype)
            if _largest_integer_by_dtype(x.dtype) > largest:
                assertions.append(check_ops.assert_less_equal(x, math_ops.cast(largest, x.dtype),
                                                              message=f"Elements cannot exceed {largest}."))
            smallest = _smallest_integer_by_dtype(target_dtype)
            if not assert_nonnegative and _smallest_integer_by_dtype(x.dtype) < smallest:
                assertions.append(check_ops.assert_greater_equal(
                    x, math_ops.cast(smallest, x.dtype), message=f"Elements cannot be smaller than {smallest}."))
        if not assertions:
            return x
        return with_dependencies(assertions, x)


def embed_check_categorical_event_shape(categorical_param, name="embed_check_categorical_event_shape"):
    """``categorical_param``, checked to have at least 2 classes and no more than its dtype counts."""
    with name_scope(name, values=[categorical_param]):
        x = convert_to_tensor(categorical_param, name="categorical_param")
        x_dtype = x.dtype.base_dtype
        max_event_size = _largest_integer_by_dtype(x_dtype) if x_dtype.is_floating else 0
        if max_event_size == 0:
            raise TypeError(f"Unable to validate size of unrecognized dtype ({x_dtype.name}).")
        try:
            x_shape_static = x.shape.with_rank_at_least(1)
        except ValueError:
            raise ValueError("A categorical-distribution parameter must have at least 1 dimension.") from None
        if x_shape_static.ndims is not None and dimension_value(x_shape_static[-1]) is not None:
            event_size = dimension_value(x_shape_static[-1])
            if event_size < 2:
                raise ValueError("A categorical-distribution parameter must have at least 2 events.")
            if event_size > max_event_size:
                raise ValueError(f"Number of classes exceeds `dtype` precision, i.e., {x_dtype.name} implies shape "
                                 f"({event_size}) cannot exceed {max_event_size}.")
            return x
        event_size = shape(x, name="x_shape")[-1]
        return with_dependencies([
            check_ops.assert_rank_at_least(x, 1, message="A categorical-distribution parameter must have at least "
                                                         "1 dimension."),
            check_ops.assert_greater_equal(shape(x)[-1], 2, message="A categorical-distribution parameter must "
                                                                    "have at least 2 events."),
            check_ops.assert_less_equal(event_size, max_event_size,
                                        message=f"Number of classes exceeds `dtype` precision, i.e., {x_dtype.name} "
                                                f"dtype cannot exceed {max_event_size} shape.")], x)


def get_logits_and_probs(logits=None, probs=None, multidimensional=False, validate_args=False,
                         name="get_logits_and_probs", dtype=None):
    """``(logits, probs)`` from one of them: sigmoid/softmax one way, log-odds/log the other."""
    with name_scope(name, values=[probs, logits]):
        if (probs is None) == (logits is None):
            raise ValueError("Must pass probs or logits, but not both.")
        if probs is None:
            logits = convert_to_tensor(logits, name="logits", dtype=dtype)
            if not logits.dtype.is_floating:
                raise TypeError("logits must having floating type.")
            if multidimensional:
                if validate_args:
                    logits = embed_check_categorical_event_shape(logits)
                return logits, softmax(logits, name="probs")
            return logits, unary_math_ops.sigmoid(logits, name="probs")
        probs = convert_to_tensor(probs, name="probs", dtype=dtype)
        if not probs.dtype.is_floating:
            raise TypeError("probs must having floating type.")
        if validate_args:
            with name_scope("validate_probs"):
                one = constant(1.0, probs.dtype)
                dependencies = [check_ops.assert_non_negative(probs)]
                if multidimensional:
                    probs = embed_check_categorical_event_shape(probs)
                    dependencies.append(check_ops.assert_near(reduce_sum(probs, -1), one,
                                                              message="probs does not sum to 1."))
                else:
                    dependencies.append(check_ops.assert_less_equal(probs, one,
                                                                    message="probs has components greater than 1."))
                probs = with_dependencies(dependencies, probs)
        with name_scope("logits"):
            if multidimensional:
                return unary_math_ops.log(probs), probs
            return unary_math_ops.log(probs) - unary_math_ops.log1p(-1.0 * probs), probs


def log_combinations(n, counts, name="log_combinations"):
    """The log multinomial coefficient ``log(n! / prod(counts!))`` over the last axis."""
    with name_scope(name, values=[n, counts]):
        n = convert_to_tensor(n, name="n")
        counts = convert_to_tensor(counts, name="counts")
        total_permutations = special_math_ops.lgamma(n + 1)
        counts_factorial = special_math_ops.lgamma(counts + 1)
        return total_permutations - reduce_sum(counts_factorial, axis=[-1])


def gen_new_seed(seed, salt):
    """A new seed from ``seed`` and ``salt`` (None stays None), as TF derives it."""
    if seed is None:
        return None
    string = (str(seed) + salt).encode("utf-8")
    return int(hashlib.md5(string).hexdigest()[:8], 16) & 0x7FFFFFFF


# -- special_math -------------------------------------------------------------------------------

_LOGNDTR_SEGMENTS = {dtypes.float64: (-20.0, 8.0), dtypes.float32: (-10.0, 5.0)}


def _ndtr(x):
    half_sqrt_2 = constant(0.5 * np.sqrt(2.0), dtype=x.dtype, name="half_sqrt_2")
    w = x * half_sqrt_2
    z = unary_math_ops.abs(w)
    y = where_v2(math_ops.less(z, half_sqrt_2), 1.0 + unary_math_ops.erf(w),
                 where_v2(math_ops.greater(w, 0.0), 2.0 - special_math_ops.erfc(z), special_math_ops.erfc(z)))
    return 0.5 * y


def ndtr(x, name="ndtr"):
    """The standard normal CDF."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype not in (dtypes.float32, dtypes.float64):
            raise TypeError(f"x.dtype={x.dtype} is not handled, see docstring for supported types.")
        return _ndtr(x)


def _log_ndtr_asymptotic_series(x, series_order):
    dtype = x.dtype.as_numpy_dtype
    if series_order <= 0:
        return np.array(1, dtype)
    x_2 = unary_math_ops.square(x)
    even_sum = 0.0
    odd_sum = 0.0
    x_2n = x_2
    for n in range(1, series_order + 1):
        y = np.array(np.prod(np.arange(2 * n - 1, 1, -2)), dtype) / x_2n
        if n % 2:
            odd_sum = odd_sum + y
        else:
            even_sum = even_sum + y
        x_2n = x_2n * x_2
    return 1.0 + even_sum - odd_sum


def log_ndtr(x, series_order=3, name="log_ndtr"):
    """``log(ndtr(x))``, with an asymptotic series far in the lower tail."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        segments = _LOGNDTR_SEGMENTS.get(x.dtype.base_dtype)
        if segments is None:
            raise TypeError(f"x.dtype={x.dtype} is not supported.")
        lower = np.array(segments[0], x.dtype.as_numpy_dtype)
        upper = np.array(segments[1], x.dtype.as_numpy_dtype)
        lower_x = math_ops.minimum(x, lower)
        log_lower = (-0.5 * unary_math_ops.square(lower_x) - unary_math_ops.log(-lower_x) - 0.5 * np.log(2.0 * np.pi)
                     + unary_math_ops.log(_log_ndtr_asymptotic_series(lower_x, series_order)))
        return where_v2(math_ops.greater(x, upper), -_ndtr(-x),
                        where_v2(math_ops.greater(x, lower), unary_math_ops.log(_ndtr(math_ops.maximum(x, lower))),
                                 log_lower))


def log_cdf_laplace(x, name="log_cdf_laplace"):
    """``log`` of the standard Laplace CDF."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        lower_solution = -np.log(2.0) + x
        upper_solution = unary_math_ops.log1p(-0.5 * unary_math_ops.exp(-unary_math_ops.abs(x)))
        return where_v2(x < 0.0, lower_solution, upper_solution)
