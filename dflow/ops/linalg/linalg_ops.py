"""Linear algebra on (batches of) matrices: ``matmul`` and friends.

Each op is one block: a shape rule that checks ranks and inner dimensions at
graph construction (``ValueError`` as TF1), a numpy kernel that also runs on
CuPy arrays, the gradient rule, and the ``@tf_export``-ed API function.
Kernels return exactly the static dtype: numpy's linear algebra has no
float16, so those kernels compute in float32 and cast back.

TF1 builds some of these functions (``norm``, ``tensordot``, ``trace``,
``matvec``, ``matrix_transpose``) from several generic ops; here each is one
op of its own type, named so that the returned tensor has TF1's name
(``norm/Squeeze:0``, ``Tensordot:0``, ``matrix_transpose/transpose:0``).
Inverses, determinants and solves live in ``linalg_solvers``, decompositions
in ``linalg_factorizations``, ``norm`` in ``linalg_norms``, ``einsum`` and
``tensordot`` in ``einsum_ops``.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape, broadcast_shapes, unknown_shape
from dflow.kernels import array_module
from dflow.kernels.blas import matmul as blas_matmul
from dflow.ops.array import array_ops, tiling_ops  # noqa: F401 - register ops
from dflow.ops.linalg import (  # noqa: F401 - register ops
    einsum_ops,
    linalg_factorizations,
    linalg_norms,
    linalg_solvers,
)
from dflow.ops.linalg._linalg_common import (
    BATCH_MATMUL_TYPES,
    MATMUL_TYPES,
    NUMBER_TYPES,
    REAL_NUMBER_TYPES,
    adjoint_value,
    check_dtype,
    conj,
    convert_same_type,
    dims_str,
    invalid,
    merge_batch,
    merge_dim,
    op_scope,
    static_dims,
)

# -- MatMul and BatchMatMulV2 ------------------------------------------------------------------


def _matmul_infer(op):
    a, b = op._inputs
    da = static_dims(a, rank=2) or [None, None]
    db = static_dims(b, rank=2) or [None, None]
    if op._attrs["transpose_a"]:
        da = da[::-1]
    if op._attrs["transpose_b"]:
        db = db[::-1]
    merge_dim(da[1], db[0])
    return [(a.dtype, TensorShape([da[0], db[1]]))]


def _size_incompatible(a_shape, b_shape) -> errors.InvalidArgumentError:
    return invalid(f"Matrix size-incompatible: In[0]: {dims_str(a_shape)}, In[1]: {dims_str(b_shape)}")


def _matmul_nn(a, b, bias=None, finish=None):
    # The hot path of every dense layer: one BLAS call and nothing else. A fused op
    # (dflow.sessions.fusion) passes the bias and activation that finish the product.
    try:
        return blas_matmul(a, b, bias, finish)
    except ValueError:
        raise _size_incompatible(a.shape, b.shape) from None


def _make_matmul_kernel(op, resources):
    transpose_a, transpose_b = op._attrs["transpose_a"], op._attrs["transpose_b"]
    if not transpose_a and not transpose_b:
        return _matmul_nn

    def matmul_kernel(a, b, bias=None, finish=None):
        try:
            return blas_matmul(a.T if transpose_a else a, b.T if transpose_b else b, bias, finish)
        except ValueError:
            raise _size_incompatible(a.shape, b.shape) from None

    return matmul_kernel


def _batch_matmul_infer(op):
    x, y = op._inputs
    dx, dy = static_dims(x), static_dims(y)
    if dx is None or dy is None:
        return [(x.dtype, unknown_shape())]
    mx = dx[-2:][::-1] if op._attrs["adj_x"] else dx[-2:]
    my = dy[-2:][::-1] if op._attrs["adj_y"] else dy[-2:]
    merge_dim(mx[1], my[0])
    batch = broadcast_shapes(TensorShape(dx[:-2]), TensorShape(dy[:-2]))
    return [(x.dtype, batch.concatenate([mx[0], my[1]]))]


def _make_batch_matmul_kernel(op, resources):
    adj_x, adj_y = op._attrs["adj_x"], op._attrs["adj_y"]

    def batch_matmul_kernel(x, y):
        for i, v in enumerate((x, y)):
            if v.ndim < 2:
                raise invalid(f"In[{i}] ndims must be >= 2: {v.ndim}")
        xa = adjoint_value(x) if adj_x else x
        ya = adjoint_value(y) if adj_y else y
        try:
            return xa @ ya
        except ValueError:
            if xa.shape[-1] != ya.shape[-2]:
                raise _size_incompatible(x.shape, y.shape) from None
            raise invalid(f"In[0] and In[1] must have compatible batch dimensions: {dims_str(x.shape)} vs. "
                          f"{dims_str(y.shape)}") from None

    return batch_matmul_kernel


# Attribute-specialised kernels (make_kernel) keep functools.partial off the
# MatMul hot path; they are pure, so constant folding may still run them.
register("MatMul", infer=_matmul_infer, make_kernel=_make_matmul_kernel, foldable=True)
register("BatchMatMulV2", infer=_batch_matmul_infer, make_kernel=_make_batch_matmul_kernel, foldable=True)


@gradient("MatMul")
def _matmul_grad(op, grad):
    # MatMul's attrs are plain transposes, so complex operands are conjugated first (as TF1).
    t_a, t_b = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    a, b = conj(op.inputs[0]), conj(op.inputs[1])
    if not t_a and not t_b:
        return [matmul(grad, b, transpose_b=True), matmul(a, grad, transpose_a=True)]
    if not t_a:
        return [matmul(grad, b), matmul(grad, a, transpose_a=True)]
    if not t_b:
        return [matmul(b, grad, transpose_b=True), matmul(a, grad)]
    return [matmul(b, grad, transpose_a=True, transpose_b=True), matmul(grad, a, transpose_a=True, transpose_b=True)]


@gradient("BatchMatMulV2")
def _batch_matmul_grad(op, grad):
    x, y = op.inputs
    adj_x, adj_y = op.get_attr("adj_x"), op.get_attr("adj_y")
    if not adj_x and not adj_y:
        gx, gy = matmul(grad, y, adjoint_b=True), matmul(x, grad, adjoint_a=True)
    elif not adj_x:
        gx, gy = matmul(grad, y), matmul(grad, x, adjoint_a=True)
    elif not adj_y:
        gx, gy = matmul(y, grad, adjoint_b=True), matmul(x, grad)
    else:
        gx, gy = matmul(y, grad, adjoint_a=True, adjoint_b=True), matmul(grad, x, adjoint_a=True, adjoint_b=True)
    # Batch dimensions broadcast: sum each gradient over those its input was broadcast along.
    return [tiling_ops.unbroadcast(gx, x, (y,)), tiling_ops.unbroadcast(gy, y, (x,))]


@tf_export("matmul", "linalg.matmul")
def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, name=None) -> Tensor:
    """``a @ b`` on the innermost two dimensions, batch dimensions broadcast.

    Rank-2 operands make a ``MatMul`` op, anything else ``BatchMatMulV2``
    (as TF1.15). The sparsity hints are accepted and ignored.

    >>> import dflow as tf
    >>> x = tf.placeholder(tf.float32, [None, 2, 3])
    >>> tf.matmul(x, tf.placeholder(tf.float32, [3, 4])).shape
    TensorShape([None, 2, 4])
    """
    if transpose_a and adjoint_a:
        raise ValueError("Only one of `transpose_a` and `adjoint_a` can be True.")
    if transpose_b and adjoint_b:
        raise ValueError("Only one of `transpose_b` and `adjoint_b` can be True.")
    with op_scope(name, "MatMul", [a, b]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, preferred_dtype=a.dtype, name="b")
        # As TF1.15: MatMul unless a rank is unknown or above 2 (so rank 1 is
        # MatMul's "must be rank 2" error, not a batched product).
        batched = any(t.shape.ndims is None or t.shape.ndims > 2 for t in (a, b))
        op_type, pa, pb = ("BatchMatMulV2", "x", "y") if batched else ("MatMul", "a", "b")
        check_dtype(a, BATCH_MATMUL_TYPES if batched else MATMUL_TYPES, pa)
        if b.dtype is not a.dtype:
            raise TypeError(f"Input '{pb}' of '{op_type}' Op has type {b.dtype.name} that does not match type "
                            f"{a.dtype.name} of argument '{pa}'.")
        # Real matrices: transpose and adjoint are the same. Complex ones get an
        # explicit (conjugate) transpose where the op's attrs cannot say it.
        complex_ = a.dtype.is_complex
        if batched:
            if complex_ and transpose_a:
                a, transpose_a = _matrix_transpose_op(a, False, "transpose_a"), False
            if complex_ and transpose_b:
                b, transpose_b = _matrix_transpose_op(b, False, "transpose_b"), False
            attrs = {"adj_x": bool(transpose_a or adjoint_a), "adj_y": bool(transpose_b or adjoint_b)}
        else:
            if complex_ and adjoint_a:
                a, adjoint_a = _matrix_transpose_op(a, True, "adjoint_a"), False
            if complex_ and adjoint_b:
                b, adjoint_b = _matrix_transpose_op(b, True, "adjoint_b"), False
            attrs = {"transpose_a": bool(transpose_a or adjoint_a), "transpose_b": bool(transpose_b or adjoint_b)}
        return apply_op(op_type, [a, b], attrs, name=scope).outputs[0]


# -- MatVec ----------------------------------------------------------------------------


def _matvec_infer(op):
    a, b = op._inputs
    da, db = static_dims(a), static_dims(b, min_rank=1)
    if da is None or db is None:
        return [(a.dtype, unknown_shape())]
    rows, cols = da[-2:][::-1] if op._attrs["transpose_a"] or op._attrs["adjoint_a"] else da[-2:]
    merge_dim(cols, db[-1])
    batch = broadcast_shapes(TensorShape(da[:-2]), TensorShape(db[:-1]))
    return [(a.dtype, batch.concatenate([rows]))]


def _matvec_kernel(a, b, transpose_a, adjoint_a):
    if a.ndim < 2:
        raise invalid(f"In[0] ndims must be >= 2: {a.ndim}")
    if transpose_a or adjoint_a:
        a = adjoint_value(a, conjugate=adjoint_a)
    try:
        return (a @ b[..., None])[..., 0]
    except ValueError:
        raise _size_incompatible(a.shape, b.shape) from None


register("MatVec", infer=_matvec_infer, kernel=_matvec_kernel)


@gradient("MatVec")
def _matvec_grad(op, grad):
    # y = op(a) @ b with op one of identity, transpose, adjoint: grad_op(a) = g bᴴ, grad_b = op(a)ᴴ g.
    a, b = op.inputs
    transpose, adjoint_ = op.get_attr("transpose_a"), op.get_attr("adjoint_a")
    g_col, b_col = array_ops.expand_dims(grad, -1), array_ops.expand_dims(b, -1)
    if adjoint_:
        grad_a, grad_b = matmul(b_col, g_col, adjoint_b=True), matvec(a, grad)
    elif transpose:
        grad_a = matrix_transpose(matmul(g_col, b_col, adjoint_b=True))
        grad_b = matvec(conj(a), grad)
    else:
        grad_a, grad_b = matmul(g_col, b_col, adjoint_b=True), matvec(a, grad, adjoint_a=True)
    # Each operand was broadcast only where the output (of grad's shape) differs from it.
    return [tiling_ops.unbroadcast(grad_a, a, (grad_a,)), tiling_ops.unbroadcast(grad_b, b, (grad,))]


@tf_export("linalg.matvec")
def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None) -> Tensor:
    """The matrix-vector product ``a @ b`` over the innermost dimensions.

    >>> import dflow as tf
    >>> a = tf.placeholder(tf.float32, [5, 2, 3])
    >>> tf.linalg.matvec(a, tf.placeholder(tf.float32, [3])).shape
    TensorShape([5, 2])
    """
    if transpose_a and adjoint_a:
        raise ValueError("Only one of `transpose_a` and `adjoint_a` can be True.")
    with op_scope(name, "MatVec", [a, b]):
        a, b = convert_same_type("MatMul", ("a", a), ("b", b), allowed=BATCH_MATMUL_TYPES)
        attrs = {"transpose_a": bool(transpose_a), "adjoint_a": bool(adjoint_a)}
        return apply_op("MatVec", [a, b], attrs, name="Squeeze").outputs[0]


# -- matrix_transpose and adjoint ------------------------------------------------------


def _matrix_transpose_infer(op):
    x = op._inputs[0]
    dims = static_dims(x)
    if dims is None:
        return [(x.dtype, unknown_shape())]
    return [(x.dtype, TensorShape(dims[:-2] + dims[-2:][::-1]))]


def _matrix_transpose_kernel(a, conjugate):
    if a.ndim < 2:
        raise invalid(f"Input must be at least 2-dim, received shape: {dims_str(a.shape)}")
    return adjoint_value(a, conjugate)


register("MatrixTranspose", infer=_matrix_transpose_infer, kernel=_matrix_transpose_kernel)


@gradient("MatrixTranspose")
def _matrix_transpose_grad(op, grad):
    return [_matrix_transpose_op(grad, op.get_attr("conjugate"), "MatrixTranspose")]


def _matrix_transpose_op(a: Tensor, conjugate: bool, name: str) -> Tensor:
    return apply_op("MatrixTranspose", [a], {"conjugate": bool(conjugate)}, name=name).outputs[0]


@tf_export("matrix_transpose", "linalg.transpose", "linalg.matrix_transpose")
def matrix_transpose(a, name="matrix_transpose", conjugate=False) -> Tensor:
    """Swaps the innermost two dimensions (and conjugates if ``conjugate``).

    >>> import dflow as tf
    >>> tf.linalg.transpose(tf.placeholder(tf.float32, [5, 2, 3])).shape
    TensorShape([5, 3, 2])
    """
    with op_scope(name, "matrix_transpose", [a]):
        a = convert_to_tensor(a, name="a")
        if a.shape.ndims is not None and a.shape.ndims < 2:
            raise ValueError(f"Argument 'a' should be a (batch) matrix, with rank >= 2.  Found: {a.shape}")
        return _matrix_transpose_op(a, conjugate, "transpose")


@tf_export("linalg.adjoint")
def adjoint(matrix, name=None) -> Tensor:
    """The conjugate transpose of the innermost two dimensions."""
    with op_scope(name, "adjoint", [matrix]):
        matrix = convert_to_tensor(matrix, name="matrix")
        return matrix_transpose(matrix, conjugate=True)


# -- MatrixBandPart --------------------------------------------------------------------


def _band_part_infer(op):
    x, lower, upper = op._inputs
    static_dims(lower, min_rank=0, rank=0)
    static_dims(upper, min_rank=0, rank=0)
    return [(x.dtype, x.shape)]


def _band_part_kernel(x, num_lower, num_upper):
    if x.ndim < 2:
        raise invalid(f"input must be at least 2-dim, received shape: {dims_str(x.shape)}")
    xp = array_module(x)
    rows, cols = x.shape[-2:]
    lower, upper = int(num_lower), int(num_upper)
    if lower > rows:
        raise invalid(f"num_lower must be negative or less or equal to number of rows ({rows}) got: {lower}")
    if upper > cols:
        raise invalid(f"num_upper must be negative or less or equal to number of columns ({cols}) got: {upper}")
    offset = xp.arange(cols)[None, :] - xp.arange(rows)[:, None]  # column minus row
    keep = ((lower < 0) | (offset >= -lower)) & ((upper < 0) | (offset <= upper))
    return xp.where(keep, x, xp.zeros((), dtype=x.dtype))


register("MatrixBandPart", infer=_band_part_infer, kernel=_band_part_kernel)


@gradient("MatrixBandPart")
def _band_part_grad(op, grad):
    _, lower, upper = op.inputs
    return [apply_op("MatrixBandPart", [grad, lower, upper]).outputs[0], None, None]


@tf_export("matrix_band_part", "linalg.band_part")
def matrix_band_part(input, num_lower, num_upper, name=None) -> Tensor:  # noqa: A002 - TF1 argument name
    """Keeps the band of ``num_lower`` sub- and ``num_upper`` super-diagonals (negative: all).

    >>> import dflow as tf
    >>> upper_triangle = tf.linalg.band_part(tf.placeholder(tf.float32, [3, 3]), 0, -1)
    """
    with op_scope(name, "MatrixBandPart", [input, num_lower, num_upper]) as scope:
        x = convert_to_tensor(input, name="input")
        lower, upper = convert_same_type("MatrixBandPart", ("num_lower", num_lower), ("num_upper", num_upper),
                                         allowed=(dtypes.int32, dtypes.int64))
        return apply_op("MatrixBandPart", [x, lower, upper], name=scope).outputs[0]


# -- Trace -----------------------------------------------------------------------------


def _trace_infer(op):
    x = op._inputs[0]
    dims = static_dims(x)
    return [(x.dtype, unknown_shape() if dims is None else TensorShape(dims[:-2]))]


def _trace_kernel(x):
    if x.ndim < 2:
        raise invalid(f"Input must be at least rank 2, got {x.ndim}")
    return array_module(x).trace(x, axis1=-2, axis2=-1, dtype=x.dtype)


register("Trace", infer=_trace_infer, kernel=_trace_kernel)


@gradient("Trace")
def _trace_grad(op, grad):
    # The gradient of each matrix's trace is its (possibly rectangular) identity.
    x = op.inputs[0]
    shape = array_ops.shape(x)
    eye = array_ops.eye(shape[-2], shape[-1], dtype=x.dtype)
    return [array_ops.expand_dims(array_ops.expand_dims(grad, -1), -1) * eye]


@tf_export("trace", "linalg.trace")
def trace(x, name=None) -> Tensor:
    """The sum of the main diagonal of each innermost matrix (which may be non-square).

    >>> import dflow as tf
    >>> tf.trace(tf.placeholder(tf.float32, [5, 3, 3])).shape
    TensorShape([5])
    """
    with op_scope(name, "Trace", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        check_dtype(x, NUMBER_TYPES, "input")
        return apply_op("Trace", [x], name=scope).outputs[0]


# -- Cross -----------------------------------------------------------------------------


def _cross_infer(op):
    a, b = op._inputs
    da, db = static_dims(a, min_rank=1), static_dims(b, min_rank=1)
    if da is None or db is None:
        dims = da if db is None else db
    else:
        dims = merge_batch(da, db)
    if dims is None:
        return [(a.dtype, unknown_shape())]
    if dims[-1] is not None and dims[-1] != 3:
        raise ValueError(f"Dimension must be 3 but is {dims[-1]}")
    return [(a.dtype, TensorShape(dims))]


def _cross_kernel(a, b):
    if a.shape != b.shape:
        raise invalid(f"Both inputs must be of same shape: {dims_str(a.shape)} vs. {dims_str(b.shape)}")
    if a.ndim < 1 or a.shape[-1] != 3:
        raise errors.FailedPreconditionError(None, None, "Cross-products are only defined for 3-element vectors.")
    return array_module(a).cross(a, b)


register("Cross", infer=_cross_infer, kernel=_cross_kernel)


@gradient("Cross")
def _cross_grad(op, grad):
    a, b = op.inputs
    return [apply_op("Cross", [b, grad]).outputs[0], apply_op("Cross", [grad, a]).outputs[0]]


@tf_export("cross", "linalg.cross")
def cross(a, b, name=None) -> Tensor:
    """The cross product of 3-element vectors along the last dimension."""
    with op_scope(name, "Cross", [a, b]) as scope:
        a, b = convert_same_type("Cross", ("a", a), ("b", b), allowed=REAL_NUMBER_TYPES)
        return apply_op("Cross", [a, b], name=scope).outputs[0]
