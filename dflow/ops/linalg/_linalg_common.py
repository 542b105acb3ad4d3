"""Checks and helpers shared by ``linalg_ops`` and ``linalg_factorizations``.

Static checks raise TF1's ValueError/TypeError texts at graph construction
(the registry appends the op's name and input shapes); kernels raise
``InvalidArgumentError`` with TF1's runtime texts.
"""

from __future__ import annotations

import numpy as np

from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Operation, Tensor, name_scope
from dflow.framework.op_registry import apply_op
from dflow.framework.tensor_shape import TensorShape, unknown_shape

FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
COMPLEX = (dtypes.complex64, dtypes.complex128)
INEXACT = FLOATS + COMPLEX
MATMUL_TYPES = FLOATS + (dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16, dtypes.uint32,
                         dtypes.uint64) + COMPLEX
BATCH_MATMUL_TYPES = MATMUL_TYPES + (dtypes.int16,)
REAL_NUMBER_TYPES = FLOATS + (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8,
                              dtypes.uint16, dtypes.uint32, dtypes.uint64)
NUMBER_TYPES = REAL_NUMBER_TYPES + COMPLEX

CHOLESKY_FAILED = "Cholesky decomposition was not successful. The input might not be valid."


# -- graph construction ----------------------------------------------------------------


def op_scope(name, default: str, values):
    """TF1's ``name_scope(name, default, values)``; an op named with the yielded
    scope string takes the scope's exact name (``MatMul``, ``MatMul_1``)."""
    return name_scope(name, default, [v for v in values if isinstance(v, Tensor)])


def check_dtype(t: Tensor, allowed, param: str) -> None:
    """TF1's TypeError for an input dtype outside the op's allowed list."""
    if t.dtype not in allowed:
        raise TypeError(f"Value passed to parameter '{param}' has DataType {t.dtype.name} not in list of "
                        f"allowed values: {', '.join(d.name for d in allowed)}")


def convert_same_type(op_type: str, *args, allowed=None) -> list:
    """Converts ``(param, value)`` pairs that share one dtype, as TF1's type attr ``T``.

    Python values take the dtype of the first Tensor among them. A dtype
    outside ``allowed`` or two tensors of different dtypes are TypeErrors
    naming the op and its parameters. Call inside the op's name scope:
    constants are named after their parameter.
    """
    hint = next((v.dtype for _, v in args if isinstance(v, Tensor)), None)
    tensors = [convert_to_tensor(v, preferred_dtype=hint, name=param) for param, v in args]
    if allowed is not None:
        for (param, _), t in zip(args, tensors):
            check_dtype(t, allowed, param)
    first_param = args[0][0]
    for (param, _), t in zip(args[1:], tensors[1:]):
        if t.dtype is not tensors[0].dtype:
            raise TypeError(f"Input '{param}' of '{op_type}' Op has type {t.dtype.name} that does not match type "
                            f"{tensors[0].dtype.name} of argument '{first_param}'.")
    return tensors


def conj(x: Tensor) -> Tensor:
    """The complex conjugate of ``x`` (a ``Conj`` op); ``x`` itself for real dtypes."""
    return apply_op("Conj", [x]).outputs[0] if x.dtype.is_complex else x


def unary_matrix_op(op_type: str, x, name, param: str = "input", attrs: dict | None = None) -> Operation:
    """Creates ``op_type`` on one float/complex batch of matrices; returns the Operation."""
    with op_scope(name, op_type, [x]) as scope:
        x = convert_to_tensor(x, name=param)
        check_dtype(x, INEXACT, "input")
        return apply_op(op_type, [x], attrs, name=scope)


# -- static shapes ---------------------------------------------------------------------


def static_dims(t: Tensor, min_rank: int = 2, rank: int | None = None):
    """The static dims of ``t`` as a list (ints and None), or None for unknown rank.

    Raises TF1's ValueError when the rank is known and too small (or not ``rank``).
    """
    if t.shape.ndims is None:
        return None
    dims = t.shape.as_list()
    if rank is not None and len(dims) != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {len(dims)}")
    if len(dims) < min_rank:
        raise ValueError(f"Shape must be at least rank {min_rank} but is rank {len(dims)}")
    return dims


def square_dims(t: Tensor):
    """Static dims of a batch of square matrices (the two inner dims merged), or None."""
    dims = static_dims(t)
    if dims is None:
        return None
    n = merge_dim(dims[-2], dims[-1])
    return dims[:-2] + [n, n]


def square_infer(op):
    """Shape rule: a batch of square matrices in, one of the same shape out."""
    x = op._inputs[0]
    dims = square_dims(x)
    return [(x.dtype, unknown_shape() if dims is None else TensorShape(dims))]


def batch_shape(t: Tensor) -> TensorShape:
    """The static batch shape of a batch of square matrices."""
    dims = square_dims(t)
    return unknown_shape() if dims is None else TensorShape(dims[:-2])


def merge_dim(a, b):
    """Two static dimensions that must agree; None is unknown."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    raise ValueError(f"Dimensions must be equal, but are {a} and {b}")


def merge_batch(a: list, b: list) -> list:
    """Dimensions that must be equal (no broadcasting), with TF1's message."""
    if len(a) != len(b):
        raise ValueError(f"Shapes must be equal rank, but are {len(a)} and {len(b)}")
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x is not None and y is not None and x != y:
            raise ValueError(f"Dimension {i} in both shapes must be equal, but are {x} and {y}. "
                             f"Shapes are {dims_str(a)} and {dims_str(b)}.")
        out.append(x if x is not None else y)
    return out


def dims_str(dims) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


# -- kernels ---------------------------------------------------------------------------


def invalid(message: str) -> errors.InvalidArgumentError:
    """The runtime error a kernel raises (the session adds the op's name)."""
    return errors.InvalidArgumentError(None, None, message)


def adjoint_value(x, conjugate: bool = True):
    """The (conjugate) transpose of the innermost two dimensions; a view for real dtypes."""
    y = x.swapaxes(-1, -2)
    return y.conj() if conjugate and x.dtype.kind == "c" else y


def lapack_ready(x):
    """numpy.linalg has no float16: such inputs are computed in float32."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def cast(x, dtype):
    """``x`` as ``dtype`` (no copy when it already is): numpy may upcast, TF does not."""
    return x if x.dtype == dtype else x.astype(dtype)


def check_square(x, index: int = 0) -> None:
    if x.ndim < 2:
        raise invalid(f"Input tensor {index} must have rank >= 2, got {x.ndim}")
    if x.shape[-1] != x.shape[-2]:
        raise invalid("Input matrix must be square.")
