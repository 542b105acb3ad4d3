"""Graph inputs: ``Const``, ``Placeholder``, ``PlaceholderWithDefault``, and
``convert_to_tensor`` with TF1's dtype rules for Python and numpy values."""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape, as_shape

# -- value conversion ------------------------------------------------------------


def _to_bytes_array(arr: np.ndarray) -> np.ndarray:
    flat = [x.encode() if isinstance(x, str) else bytes(x) if isinstance(x, (bytes, np.bytes_)) else x
            for x in arr.ravel().tolist()]
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(arr.shape)


def _first_leaf_is_string(value) -> bool:
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    return isinstance(value, (str, bytes))


def _contains_tensor(value) -> bool:
    if isinstance(value, Tensor):
        return True
    if isinstance(value, (list, tuple)):
        return any(_contains_tensor(v) for v in value)
    return False


def to_numpy(value, dtype=None, what: str = "value") -> np.ndarray:
    """Converts a Python/numpy value to an array of ``dtype`` (TF1's rules).

    Python floats become float32 and ints int32 unless ``dtype`` says
    otherwise; a float with a fractional part is not silently truncated to an
    int dtype (TypeError, as TF1).
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        raise TypeError(f"Expected a Python or numpy {what}, got the Tensor {value.name}")
    try:
        # Python strings go straight to objects: numpy's fixed-width bytes would drop trailing NULs,
        # and a list mixing str with non-ASCII bytes would not convert at all.
        arr = np.asarray(value, dtype=object) if _first_leaf_is_string(value) else np.asarray(value)
    except ValueError as e:
        raise ValueError(f"Cannot convert {value!r} to a tensor: {e}") from None
    if arr.dtype == object and not all(isinstance(x, (str, bytes)) for x in arr.ravel().tolist()):
        raise TypeError(f"Failed to convert object of type {type(value).__name__} to Tensor. "
                        f"Contents: {value!r}. Consider casting elements to a supported type.")
    target = dtypes.dtype_of_value(arr if isinstance(value, (np.ndarray, np.generic)) or arr.dtype == object
                                   else value) if dtype is None else dtype
    if target.is_quantized:  # as TF: only numpy values convert; quantized tensors hold plain integer arrays
        return _quantized_array(value, arr, target)
    if target is dtypes.string:
        if arr.dtype.kind not in "SUO" and arr.size:
            raise TypeError(f"Expected string, got {value!r} of type '{type(value).__name__}' instead.")
        return _to_bytes_array(arr)
    if arr.dtype.kind in "SUO":
        raise TypeError(f"Expected {target.name}, got {value!r} of type '{type(value).__name__}' instead.")
    if dtype is not None and not isinstance(value, (np.ndarray, np.generic)) and arr.size:
        # TF1 refuses Python values that do not fit the requested dtype.
        if (target.is_integer or target.is_bool) and arr.dtype.kind in "fc":
            raise TypeError(f"Expected {target.name}, got {value!r} of type '{type(value).__name__}' instead.")
        if target.is_bool and arr.dtype.kind in "iu":
            raise TypeError(f"Expected bool, got {value!r} of type '{type(value).__name__}' instead.")
        if target.is_integer and arr.size and arr.dtype.kind in "iu":
            info = np.iinfo(target.as_numpy_dtype)
            if arr.min() < info.min or arr.max() > info.max:
                raise TypeError(f"Value {value!r} is out of range for {target.name}.")
    return np.asarray(arr, dtype=target.as_numpy_dtype)


def _quantized_array(value, arr: np.ndarray, target) -> np.ndarray:
    if not isinstance(value, (np.ndarray, np.generic)) and arr.size:
        first = arr.ravel()[0].item()
        raise TypeError(f"Expected {target.name}, but got {first!r} of type '{type(first).__name__}'.")
    return arr.astype(target.array_dtype)


# -- Const -----------------------------------------------------------------------


def _const_infer(op):
    return [(op._attrs["dtype"], TensorShape(op._attrs["value"].shape))]


def _const_kernel(value, dtype):
    return value


register("Const", infer=_const_infer, kernel=_const_kernel)


@tf_export("constant")
def constant(value, dtype=None, shape=None, name="Const", verify_shape=False) -> Tensor:
    """A tensor holding ``value`` (broadcast to ``shape`` if it is a scalar).

    >>> import dflow as tf
    >>> tf.constant([1, 2]).dtype
    tf.int32
    """
    if _contains_tensor(value):
        raise TypeError(f"tf.constant expects a Python or numpy value, got tensors in {value!r}; "
                        f"use tf.stack or tf.convert_to_tensor.")
    arr = to_numpy(value, dtype)
    if shape is not None:
        shape = as_shape(shape)
        if not shape.is_fully_defined():
            raise ValueError(f"tf.constant needs a fully defined shape, got {shape}")
        dims = tuple(shape.as_list())
        n = int(np.prod(dims, dtype=np.int64))
        if verify_shape and arr.shape != dims:
            raise TypeError(f"Expected Tensor's shape: {dims}, got {arr.shape}.")
        if arr.size == 1:
            arr = np.full(dims, arr.reshape(()), dtype=arr.dtype)
        elif arr.size == n:
            arr = arr.reshape(dims)
        elif arr.size > n:
            raise ValueError(f"Too many elements provided. Takes at most {n}, but got {arr.size}.")
        else:
            # TF1 pads with the last element.
            flat = np.concatenate([arr.ravel(), np.repeat(arr.ravel()[-1:], n - arr.size)])
            arr = flat.reshape(dims)
    arr = np.array(arr, copy=True)
    arr.flags.writeable = False  # constants are shared by every run
    const_dtype = _quantized_dtype(value, dtype) or dtypes.as_dtype(arr.dtype)
    return apply_op("Const", [], {"value": arr, "dtype": const_dtype}, name=name).outputs[0]


def _quantized_dtype(value, dtype):
    """The quantized type of a constant (requested, or a numpy value's), else None: its array holds plain integers."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        return dtype if dtype.is_quantized else None
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype.names:
        return dtypes.as_dtype(value.dtype)
    return None


# -- conversion ------------------------------------------------------------------

_CONVERSION_FUNCTIONS: list = []  # (base_type, fn, priority)


@tf_export("register_tensor_conversion_function")
def register_tensor_conversion_function(base_type, conversion_func, priority=100) -> None:
    """Teaches ``convert_to_tensor`` a new type (``fn(value, dtype, name, as_ref)``)."""
    _CONVERSION_FUNCTIONS.append((base_type, conversion_func, priority))
    _CONVERSION_FUNCTIONS.sort(key=lambda e: e[2])


@tf_export("convert_to_tensor")
def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, dtype_hint=None) -> Tensor:
    """Converts a Tensor, Python value, numpy array or registered type to a Tensor."""
    if isinstance(value, Tensor):
        if dtype is not None and dtypes.as_dtype(dtype) is not value.dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for Tensor with "
                             f"dtype {value.dtype.name}: {value!r}")
        return value
    for base_type, fn, _ in _CONVERSION_FUNCTIONS:
        if isinstance(value, base_type):
            out = fn(value, dtype=dtype, name=name, as_ref=False)
            if out is not NotImplemented:
                return out
    preferred = dtype_hint if preferred_dtype is None else preferred_dtype
    if dtype is None and preferred is not None:
        try:
            return constant(value, dtype=preferred, name=name or "Const")
        except (TypeError, ValueError):
            pass
    return constant(value, dtype=dtype, name=name or "Const")


def convert_n_to_tensor(values, dtype=None, name=None) -> list:
    return [convert_to_tensor(v, dtype=dtype) for v in values]


def binary_inputs(x, y, op_type: str):
    """Converts two operands to tensors of one dtype, as TF1's type attr ``T``.

    A Python operand takes the other operand's dtype; two tensors of different
    dtypes are a TypeError naming the op.
    """
    if isinstance(x, Tensor) or not isinstance(y, Tensor):
        x = convert_to_tensor(x)
        y = _convert_operand(y, x.dtype, op_type, "y", "x")
    else:
        x = _convert_operand(x, y.dtype, op_type, "x", "y")
    if x.dtype is not y.dtype:
        raise TypeError(f"Input 'y' of '{op_type}' Op has type {y.dtype.name} that does not match type "
                        f"{x.dtype.name} of argument 'x'.")
    return x, y


def _convert_operand(v, dtype, op_type, which, other):
    if isinstance(v, Tensor):
        if v.dtype is not dtype:
            raise TypeError(f"Input '{which}' of '{op_type}' Op has type {v.dtype.name} that does not match "
                            f"type {dtype.name} of argument '{other}'.")
        return v
    return convert_to_tensor(v, dtype=dtype)


# -- Placeholder -----------------------------------------------------------------


def _placeholder_infer(op):
    return [(op._attrs["dtype"], op._attrs["shape"])]


def _placeholder_kernel(dtype, shape, name):
    raise errors.InvalidArgumentError(
        None, None, f"You must feed a value for placeholder tensor '{name}' with dtype {dtype.name}"
                    f"{'' if shape.ndims is None else ' and shape ' + _dims_str(shape)}")


def _dims_str(shape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


register("Placeholder", infer=_placeholder_infer, kernel=_placeholder_kernel, foldable=False)


@tf_export("placeholder")
def placeholder(dtype, shape=None, name=None) -> Tensor:
    """A tensor that must be fed: ``sess.run(y, {x: value})``."""
    dtype = dtypes.as_dtype(dtype)
    shape = TensorShape(None) if shape is None else as_shape(shape)
    op = apply_op("Placeholder", [], {"dtype": dtype, "shape": shape}, name=name or "Placeholder")
    op._attrs["name"] = op.name
    return op.outputs[0]


def _pwd_infer(op):
    x = op._inputs[0]
    shape = op._attrs["shape"]
    if not shape.is_compatible_with(x.shape):
        raise ValueError(f"Default value of shape {x.shape} is not compatible with shape {shape}")
    return [(x.dtype, shape)]


register("PlaceholderWithDefault", infer=_pwd_infer, kernel=lambda x, shape: x, foldable=False)


@gradient("PlaceholderWithDefault")
def _placeholder_with_default_grad(op, grad):
    return [grad]


@tf_export("placeholder_with_default")
def placeholder_with_default(input, shape, name=None) -> Tensor:  # noqa: A002 - TF1 argument name
    """Passes ``input`` through unless the output is fed."""
    x = convert_to_tensor(input)
    return apply_op("PlaceholderWithDefault", [x], {"shape": as_shape(shape)},
                    name=name or "PlaceholderWithDefault").outputs[0]
