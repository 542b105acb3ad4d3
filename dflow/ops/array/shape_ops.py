"""Shapes and views: ``shape``, ``size``, ``rank``, ``reshape``, ``expand_dims``,
``squeeze``, ``transpose``.

As in TF1's Python wrappers, ``tf.shape``, ``tf.size`` and ``tf.rank`` return
a ``Const`` op (named as the op would be) when the answer is known at graph
time; otherwise the ``Shape``/``Size``/``Rank`` op folds as soon as a later
``set_shape`` makes it known, so shape rules downstream see constants.
Reshape-like kernels return numpy views, never copies.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, gradient, not_differentiable, register, register_folder
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.array.index_args import (
    INDEX_DTYPES,
    check_shape_values,
    convert_same_dtype,
    dims_str,
    host,
    index_arg,
    kernel_int,
    kernel_ints,
    shape_from_tensor,
    split_index_args,
    with_rank,
)


def _out_type(out_type):
    dt = dtypes.as_dtype(out_type)
    if dt not in INDEX_DTYPES:
        raise TypeError(f"Value for attr 'out_type' of {dt.name} is not in the list of allowed values: int32, int64")
    return dt


# -- Shape, ShapeN, Size, Rank -------------------------------------------------------------


def _shape_infer(op):
    return [(op._attrs["out_type"], TensorShape([op._inputs[0].shape.ndims]))]


def _shape_kernel(input, out_type):  # noqa: A002 - TF1 argument name
    return np.array(input.shape, dtype=out_type.as_numpy_dtype)


register("Shape", infer=_shape_infer, kernel=_shape_kernel)
not_differentiable("Shape")


@register_folder("Shape")
def _fold_shape(t):
    s = t.op.inputs[0].shape
    return np.array(s.as_list(), dtype=t.dtype.as_numpy_dtype) if s.is_fully_defined() else None


@tf_export("shape")
def shape(input, name=None, out_type=dtypes.int32):  # noqa: A002 - TF1 argument name
    """The shape of ``input`` as a 1-D int tensor; a Const when it is known statically.

    >>> import dflow as tf
    >>> tf.shape(tf.zeros([2, 3])).op.type
    'Const'
    """
    out_type = _out_type(out_type)
    with name_scope(name, "Shape", [input]) as scope:
        x = convert_to_tensor(input)
        if x.shape.is_fully_defined():
            return constant(x.shape.as_list(), dtype=out_type, name=scope)
        return apply_op("Shape", [x], {"out_type": out_type}, name=scope).outputs[0]


def _shape_n_infer(op):
    return [(op._attrs["out_type"], TensorShape([x.shape.ndims])) for x in op._inputs]


def _shape_n_kernel(*inputs, out_type):
    out = tuple(np.array(x.shape, dtype=out_type.as_numpy_dtype) for x in inputs)
    return out[0] if len(out) == 1 else out


register("ShapeN", infer=_shape_n_infer, kernel=_shape_n_kernel)
not_differentiable("ShapeN")


@register_folder("ShapeN")
def _fold_shape_n(t):
    s = t.op.inputs[t.value_index].shape
    return np.array(s.as_list(), dtype=t.dtype.as_numpy_dtype) if s.is_fully_defined() else None


@tf_export("shape_n")
def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002 - TF1 argument name
    """The shapes of a list of tensors of one dtype, as one ``ShapeN`` op."""
    out_type = _out_type(out_type)
    with name_scope(name, "ShapeN", list(input)) as scope:
        xs = convert_same_dtype(list(input), "ShapeN", "input")
        return list(apply_op("ShapeN", xs, {"out_type": out_type}, name=scope).outputs)


def _size_infer(op):
    return [(op._attrs["out_type"], TensorShape([]))]


def _size_kernel(input, out_type):  # noqa: A002 - TF1 argument name
    return np.asarray(input.size, dtype=out_type.as_numpy_dtype)


register("Size", infer=_size_infer, kernel=_size_kernel)
not_differentiable("Size")


def _static_size(s: TensorShape):
    if s.is_fully_defined():
        return s.num_elements()
    if s.ndims is not None and 0 in s.as_list():
        return 0
    return None


@register_folder("Size")
def _fold_size(t):
    n = _static_size(t.op.inputs[0].shape)
    return None if n is None else np.asarray(n, dtype=t.dtype.as_numpy_dtype)


@tf_export("size")
def size(input, name=None, out_type=dtypes.int32):  # noqa: A002 - TF1 argument name
    """The number of elements of ``input``, as a scalar of ``out_type``."""
    out_type = _out_type(out_type)
    with name_scope(name, "Size", [input]) as scope:
        x = convert_to_tensor(input)
        n = _static_size(x.shape)
        if n is not None:
            return constant(n, dtype=out_type, name=scope)
        return apply_op("Size", [x], {"out_type": out_type}, name=scope).outputs[0]


def _rank_infer(op):
    return [(dtypes.int32, TensorShape([]))]


register("Rank", infer=_rank_infer, kernel=lambda input: np.asarray(input.ndim, dtype=np.int32))
not_differentiable("Rank")


@register_folder("Rank")
def _fold_rank(t):
    n = t.op.inputs[0].shape.ndims
    return None if n is None else np.asarray(n, dtype=np.int32)


@tf_export("rank")
def rank(input, name=None):  # noqa: A002 - TF1 argument name
    """The number of dimensions of ``input`` (an int32 scalar)."""
    with name_scope(name, "Rank", [input]) as scope:
        x = convert_to_tensor(input)
        if x.shape.ndims is not None:
            return constant(x.shape.ndims, dtype=dtypes.int32, name=scope)
        return apply_op("Rank", [x], name=scope).outputs[0]


# -- Reshape ---------------------------------------------------------------------------


def requested_shape(op, name: str, position: int) -> TensorShape:
    """The partial shape an index argument asks for; -1 entries are unknown."""
    value, t = index_arg(op, name, position)
    if value is None:
        if t.shape.ndims is not None and t.shape.ndims != 0:
            with_rank(t.shape, 1)
        return shape_from_tensor(t)
    if value.ndim == 0:
        if value == -1:
            return TensorShape(None)
        raise ValueError("Input tensor must be rank 1, or if its rank 0 it must have value -1")
    if value.ndim != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {value.ndim}")
    check_shape_values(value)
    return TensorShape([None if d == -1 else int(d) for d in value.tolist()])


def _reshape_static(in_shape: TensorShape, out: TensorShape) -> TensorShape:
    """TF1's Reshape shape function: fills in the one unknown dimension it can."""
    if out.ndims is None or in_shape.ndims is None:
        return out
    out_dims, in_dims = out.as_list(), in_shape.as_list()

    def unknown_and_product(dims):
        idx, prod = -1, 1
        for i, d in enumerate(dims):
            if d is None:
                if idx >= 0:
                    return None, None
                idx = i
            else:
                prod *= d
        return idx, prod

    out_unknown, known_out = unknown_and_product(out_dims)
    in_unknown, known_in = unknown_and_product(in_dims)
    if out_unknown is None or in_unknown is None:
        return out
    if in_unknown < 0 and out_unknown < 0:
        if known_in != known_out:
            raise ValueError(f"Cannot reshape a tensor with {known_in} elements to shape {dims_str(out_dims)} "
                             f"({known_out} elements)")
    elif in_unknown < 0 and out_unknown >= 0 and known_out > 0:
        if known_in % known_out:
            raise ValueError(f"Dimension size must be evenly divisible by {known_out} but is {known_in}")
        out_dims[out_unknown] = known_in // known_out
    elif in_unknown >= 0 and out_unknown < 0 and known_in != 0:
        if known_out % known_in:
            raise ValueError(f"Dimension size must be evenly divisible by {known_in} but is {known_out}")
    elif in_unknown >= 0 and out_unknown >= 0 and known_in == known_out:
        out_dims[out_unknown] = in_dims[in_unknown]
    return TensorShape(out_dims)


def _reshape_infer(op):
    x = op._inputs[0]
    return [(x.dtype, _reshape_static(x.shape, requested_shape(op, "shape", 1)))]


def _reshape_error(n: int, shape: tuple) -> errors.InvalidArgumentError:
    wild = [i for i, d in enumerate(shape) if d == -1]
    if len(wild) > 1:
        return _invalid(f"Only one input size may be -1, not both {wild[0]} and {wild[1]}")
    for i, d in enumerate(shape):
        if d < -1:
            return _invalid(f"Size {i} must be non-negative, not {d}")
    product = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
    if wild:
        return _invalid(f"Input to reshape is a tensor with {n} values, but the requested shape requires a "
                        f"multiple of {product}")
    return _invalid(f"Input to reshape is a tensor with {n} values, but the requested shape has {product}")


def _reshape_kernel(tensor, shape):
    if type(shape) is not tuple:
        shape = kernel_ints(shape)
    try:
        return tensor.reshape(shape)
    except ValueError:
        raise _reshape_error(tensor.size, shape) from None


register("Reshape", infer=_reshape_infer, kernel=_reshape_kernel)


def reshape_like(t, x):
    """``t`` reshaped to ``x``'s shape: a static shape when at most one dimension is unknown."""
    s = x.shape
    if s.ndims is not None:
        dims = s.as_list()
        if t.shape.is_fully_defined() and t.shape.as_list() == dims:
            return t
        if None not in dims or (dims.count(None) == 1 and 0 not in dims):
            return reshape(t, [-1 if d is None else d for d in dims])
    return reshape(t, shape(x))


@gradient("Reshape")
def _reshape_grad(op, grad):
    return [reshape_like(grad, op._inputs[0])] + [None] * (len(op._inputs) - 1)


@tf_export("reshape", "manip.reshape")
def reshape(tensor, shape, name=None):
    """``tensor``'s values in a new shape; one dimension may be -1.

    >>> import dflow as tf
    >>> tf.reshape(tf.zeros([2, 3]), [-1]).shape
    TensorShape([6])
    """
    with name_scope(name, "Reshape", [tensor, shape]) as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        inputs, attrs = split_index_args({"shape": shape})
        return apply_op("Reshape", [tensor, *inputs], attrs, name=scope).outputs[0]


# -- ExpandDims, Squeeze ------------------------------------------------------------------


def _expand_dims_infer(op):
    x = op._inputs[0]
    value, _ = index_arg(op, "dim", 1)
    r = x.shape.ndims
    if r is None or value is None:
        return [(x.dtype, TensorShape(None))]
    if value.size != 1:
        raise ValueError("'dim' input must be a tensor with a single value")
    d = int(value.reshape(-1)[0])
    if d < -r - 1 or d > r:
        raise ValueError(f"dim {d} not in the interval [{-r - 1}, {r}].")
    if d < 0:
        d += r + 1
    dims = x.shape.as_list()
    dims.insert(d, 1)
    return [(x.dtype, TensorShape(dims))]


def _expand_dims_kernel(input, dim):  # noqa: A002 - TF1 argument name
    d = dim if type(dim) is int else kernel_int(dim)
    r = input.ndim
    if d < -r - 1 or d > r:
        raise _invalid(f"Tried to expand dim index {d} for tensor with {r} dimensions.")
    if d < 0:
        d += r + 1
    s = input.shape
    return input.reshape(s[:d] + (1,) + s[d:])


register("ExpandDims", infer=_expand_dims_infer, kernel=_expand_dims_kernel)


@gradient("ExpandDims")
def _expand_dims_grad(op, grad):
    return [reshape_like(grad, op._inputs[0])] + [None] * (len(op._inputs) - 1)


@tf_export("expand_dims")
def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002 - TF1 argument name
    """Inserts a dimension of size 1 at ``axis`` (TF1 also accepts ``dim``)."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    with name_scope(name, "ExpandDims", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        inputs, attrs = split_index_args({"dim": axis})
        if attrs and isinstance(attrs["dim"], tuple):
            if len(attrs["dim"]) != 1:
                raise ValueError("'dim' input must be a tensor with a single value")
            attrs["dim"] = attrs["dim"][0]
        return apply_op("ExpandDims", [x, *inputs], attrs, name=scope).outputs[0]


def _squeeze_infer(op):
    x = op._inputs[0]
    s = x.shape
    if s.ndims is None:
        return [(x.dtype, TensorShape(None))]
    r = s.ndims
    wanted = set()
    for i, d in enumerate(op._attrs["squeeze_dims"]):
        if d < -r or d >= r:
            raise ValueError(f"squeeze_dims[{i}] not in [{-r},{r}).")
        wanted.add(d + r if d < 0 else d)
    out = []
    for i, d in enumerate(s.as_list()):
        if wanted:
            if i in wanted:
                if d is not None and d != 1:
                    raise ValueError(f"Can not squeeze dim[{i}], expected a dimension of 1, got {d}")
                continue
        elif d is None:
            return [(x.dtype, TensorShape(None))]  # may or may not be squeezed at run time
        elif d == 1:
            continue
        out.append(d)
    return [(x.dtype, TensorShape(out))]


def _squeeze_kernel(input, squeeze_dims):  # noqa: A002 - TF1 argument name
    s = input.shape
    if not squeeze_dims:
        return input.reshape(tuple(d for d in s if d != 1))
    r = len(s)
    wanted = set()
    for d in squeeze_dims:
        if d < -r or d >= r:
            raise _invalid(f"Tried to squeeze dim index {d} for tensor with {r} dimensions.")
        d = d + r if d < 0 else d
        if s[d] != 1:
            raise _invalid(f"Can not squeeze dim[{d}], expected a dimension of 1, got {s[d]}")
        wanted.add(d)
    return input.reshape(tuple(d for i, d in enumerate(s) if i not in wanted))


register("Squeeze", infer=_squeeze_infer, kernel=_squeeze_kernel)


@gradient("Squeeze")
def _squeeze_grad(op, grad):
    return [reshape_like(grad, op._inputs[0])]


@tf_export("squeeze")
def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002 - TF1 argument name
    """Removes dimensions of size 1 (all of them, or those in ``axis``)."""
    if squeeze_dims is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'squeeze_dims'")
        axis = squeeze_dims
    if np.isscalar(axis):
        axis = [axis]
    dims = () if axis is None else tuple(int(a) for a in axis)  # an attr in TF1, not a tensor
    with name_scope(name, "Squeeze", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        return apply_op("Squeeze", [x], {"squeeze_dims": dims}, name=scope).outputs[0]


# -- Transpose ---------------------------------------------------------------------------


def _transpose_infer(op):
    x = op._inputs[0]
    s = x.shape
    if op._attrs.get("perm", 0) is None:  # reversed, rank known only at run time
        return [(x.dtype, TensorShape(None) if s.ndims is None else TensorShape(s.as_list()[::-1]))]
    value, t = index_arg(op, "perm", 1)
    if value is None:
        if t.shape.ndims is not None:
            with_rank(t.shape, 1)
        n = t.shape[0].value if t.shape.ndims == 1 else None
        if s.ndims is not None and n is not None and n != s.ndims:
            raise ValueError(f"Dimension must be {s.ndims} but is {n}")
        r = s.ndims if s.ndims is not None else n
        return [(x.dtype, TensorShape(None) if r is None else TensorShape([None] * r))]
    if value.ndim != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {value.ndim}")
    perm = [int(p) for p in value]
    if s.ndims is not None and s.ndims != len(perm):
        raise ValueError(f"Dimension must be {s.ndims} but is {len(perm)}")
    for p in perm:
        if p >= len(perm) or p < -len(perm):
            raise ValueError(f"perm dim {p} is out of range of input rank {len(perm)}")
    if s.ndims is None:
        return [(x.dtype, TensorShape([None] * len(perm)))]
    dims = s.as_list()
    return [(x.dtype, TensorShape([dims[p] for p in perm]))]


def _perm_error(ndim: int, perm: tuple) -> errors.InvalidArgumentError:
    if len(perm) != ndim:
        return _invalid(f"transpose expects a vector of size {ndim}. But input(1) is a vector of size {len(perm)}")
    for p in perm:
        if not 0 <= p < ndim:
            return _invalid(f"{p} is out of range [0 .. {ndim})")
    missing = next(i for i in range(ndim) if i not in perm)
    return _invalid(f"{missing} is missing from {{{','.join(map(str, perm))}}}.")


def _transpose_kernel(x, perm):
    if perm is not None and type(perm) is not tuple:
        perm = kernel_ints(perm)
    try:
        return x.transpose(perm)
    except ValueError:  # numpy: "axes don't match array", "repeated axis in transpose"
        raise _perm_error(x.ndim, perm) from None


def _conjugate_transpose_kernel(x, perm):
    return array_module(x).conj(_transpose_kernel(x, perm))


register("Transpose", infer=_transpose_infer, kernel=_transpose_kernel)
register("ConjugateTranspose", infer=_transpose_infer, kernel=_conjugate_transpose_kernel)


@gradient("Transpose")
@gradient("ConjugateTranspose")
def _transpose_grad(op, grad):
    """``grad`` transposed back by the inverse permutation (conjugated again for ConjugateTranspose)."""
    conjugate = op.type == "ConjugateTranspose"
    if "perm" in op._attrs and op._attrs["perm"] is None:
        return [transpose(grad, None, conjugate=conjugate)]  # reversing is its own inverse
    perm, t = index_arg(op, "perm", 1)
    if perm is not None:
        inverse = np.argsort(perm % max(perm.size, 1)).tolist()
    else:
        inverse = apply_op("InvertPermutation", [t]).outputs[0]
    out = transpose(grad, inverse, conjugate=conjugate)
    out.set_shape(op._inputs[0].shape)
    return [out] + [None] * (len(op._inputs) - 1)


def _invert_permutation_infer(op):
    p = op._inputs[0]
    return [(p.dtype, with_rank(p.shape, 1) if p.shape.ndims is not None else TensorShape([None]))]


def _invert_permutation_kernel(x):
    p = np.asarray(host(x))
    n = p.size
    if p.ndim != 1 or sorted(p.tolist()) != list(range(n)):
        raise _invalid(f"{p.tolist()} is not a permutation of 0..{n - 1}")
    out = np.empty_like(p)
    out[p] = np.arange(n, dtype=p.dtype)
    return out


register("InvertPermutation", infer=_invert_permutation_infer, kernel=_invert_permutation_kernel)
not_differentiable("InvertPermutation")


@tf_export("transpose")
def transpose(a, perm=None, name="transpose", conjugate=False):
    """Permutes the dimensions of ``a`` (reverses them when ``perm`` is None).

    >>> import dflow as tf
    >>> tf.transpose(tf.zeros([2, 3, 4]), [1, 0, 2]).shape
    TensorShape([3, 2, 4])
    """
    with name_scope(name, "transpose", [a]) as scope:
        a = convert_to_tensor(a, name="a")
        op_type = "ConjugateTranspose" if conjugate and a.dtype.is_complex else "Transpose"
        if perm is None:
            # TF1 builds perm = (rank - 1) - range(rank); a known rank makes it a constant.
            r = a.shape.ndims
            inputs, attrs = [], {"perm": None if r is None else tuple(range(r - 1, -1, -1))}
        else:
            inputs, attrs = split_index_args({"perm": perm})
        return apply_op(op_type, [a, *inputs], attrs, name=scope).outputs[0]
