"""Losses: softmax, sparse softmax and sigmoid cross-entropy, and ``l2_loss``.

Kernels compute in log space (``log_softmax`` with the row maximum taken
out; ``max(x, 0) - x * z + log1p(exp(-|x|))`` for the sigmoid), so large
logits neither overflow nor lose the loss to rounding. half-precision inputs
are computed in float32 and the result cast back, as TF does.
``SoftmaxCrossEntropyWithLogits`` here takes inputs of any rank with the
classes on ``axis`` (TF reshapes to 2-D around it); its second output is the
backprop ``softmax - labels``, as TF's.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape, broadcast_shapes
from dflow.kernels import array_module
from dflow.kernels.blas import over_elements
from dflow.ops.array import array_ops, tiling_ops
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.nn._nn_util import FLOATS, INTS, REALS, as_tensor, check_dtype, is_zero, resolve_axis


def _compute_dtype(x):
    return x.astype(np.float32) if x.dtype == np.float16 else x


# -- softmax cross-entropy ------------------------------------------------------------------


def _xent_infer(op):
    logits, labels = op._inputs
    shape = broadcast_shapes(logits.shape, labels.shape)
    if shape.ndims is None:
        return [(logits.dtype, shape), (logits.dtype, shape)]
    if shape.ndims == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    axis = op._attrs["axis"] % shape.ndims
    dims = shape.as_list()
    return [(logits.dtype, TensorShape(dims[:axis] + dims[axis + 1:])), (logits.dtype, shape)]


def _softmax_xent(logits, labels, axis):
    xp = array_module(logits, labels)
    x = _compute_dtype(logits)
    z = labels.astype(x.dtype, copy=False)
    shifted = x - x.max(axis=axis, keepdims=True)
    log_p = shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))
    loss = -(z * log_p).sum(axis=axis)
    backprop = xp.exp(log_p) - z
    return loss.astype(logits.dtype, copy=False), backprop.astype(logits.dtype, copy=False)


register("SoftmaxCrossEntropyWithLogits", infer=_xent_infer, kernel=_softmax_xent)


def _softmax_backprop_grad(logits: Tensor, grad_backprop: Tensor, axis: int):
    """The logits' gradient through the ``backprop`` output (softmax - labels), if it has one."""
    if is_zero(grad_backprop):  # the usual case: only the loss was differentiated
        return None
    softmax = apply_op("Softmax", [logits], {"axis": axis}).outputs[0]
    return (grad_backprop - reduction_ops.reduce_sum(grad_backprop * softmax, axis, keepdims=True)) * softmax


@gradient("SoftmaxCrossEntropyWithLogits")
def _softmax_xent_grad(op, grad_loss, grad_backprop):
    logits, labels = op.inputs
    axis = op.get_attr("axis")
    grad_loss = array_ops.expand_dims(grad_loss, axis)
    grad_logits = grad_loss * op.outputs[1]
    second = _softmax_backprop_grad(logits, grad_backprop, axis)
    if second is not None:
        grad_logits += second
    grad_labels = None
    if labels.dtype.is_floating:
        log_softmax = apply_op("LogSoftmax", [logits], {"axis": axis}).outputs[0]
        grad_labels = grad_loss * -log_softmax
        if second is not None:
            grad_labels -= grad_backprop  # backprop = softmax - labels (TF1 leaves this term out)
        if labels.dtype != logits.dtype:
            grad_labels = math_ops.cast(grad_labels, labels.dtype)
        grad_labels = tiling_ops.unbroadcast(grad_labels, labels, (logits,))
    return [tiling_ops.unbroadcast(grad_logits, logits, (labels,)), grad_labels]


def _ensure_xent_args(name, sentinel, labels, logits):
    if sentinel is not None:
        raise ValueError(f"Only call `{name}` with named arguments (labels=..., logits=..., ...)")
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")


def _softmax_xent_op(labels, logits, axis, name, scope_name):
    with name_scope(name, scope_name, [logits, labels]) as scope:
        logits = as_tensor(logits, "logits", FLOATS)
        if isinstance(labels, Tensor):
            check_dtype(labels, REALS, "labels")
        else:
            # TF casts labels to the logits' dtype; the kernel does it for tensors.
            labels = convert_to_tensor(labels, dtype=logits.dtype, name="labels")
        ndims = broadcast_shapes(logits.shape, labels.shape).ndims
        if ndims is not None and ndims > 0 and not -ndims <= axis < ndims:
            raise ValueError(f"axis {axis} is out of range for inputs of rank {ndims}")
        return apply_op("SoftmaxCrossEntropyWithLogits", [logits, labels], {"axis": axis},
                        name=scope).outputs[0]


@tf_export("nn.softmax_cross_entropy_with_logits_v2")
def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None) -> Tensor:
    """``-sum(labels * log_softmax(logits), axis)``; gradients reach the labels too.

    >>> import dflow as tf
    >>> tf.nn.softmax_cross_entropy_with_logits_v2(labels=[[0.0, 1.0]], logits=[[1.0, 2.0]]).shape.as_list()
    [1]
    """
    return _softmax_xent_op(labels, logits, resolve_axis(axis, dim), name, "softmax_cross_entropy_with_logits")


@tf_export("nn.softmax_cross_entropy_with_logits")
def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1, name=None,
                                      axis=None) -> Tensor:
    """``-sum(labels * log_softmax(logits), dim)``; the labels are not differentiated (TF1's v1)."""
    _ensure_xent_args("softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    axis = resolve_axis(axis, None if axis is not None and dim == -1 else dim)
    with name_scope(name, "softmax_cross_entropy_with_logits_sg", [logits, labels]) as scope:
        labels = _stop_gradient(convert_to_tensor(labels, name="labels"))
    return _softmax_xent_op(labels, logits, axis, scope, "softmax_cross_entropy_with_logits")


def _stop_gradient(t: Tensor) -> Tensor:
    """TF1's ``stop_gradient(labels, name="labels_stop_gradient")``, once array_ops provides it."""
    from dflow.ops.array import array_ops

    fn = getattr(array_ops, "stop_gradient", None)
    return t if fn is None else fn(t, name="labels_stop_gradient")


# -- sparse softmax cross-entropy ----------------------------------------------------------------


def _sparse_xent_infer(op):
    logits, labels = op._inputs
    loss = labels.shape if logits.shape.ndims is None else labels.shape.merge_with(logits.shape[:-1])
    return [(logits.dtype, loss), (logits.dtype, logits.shape)]


def _sparse_softmax_xent(logits, labels):
    xp = array_module(logits, labels)
    classes = logits.shape[-1]
    if labels.size:
        lo, hi = int(labels.min()), int(labels.max())
        if lo < 0 or hi >= classes:
            shown = " ".join(str(v) for v in labels.ravel()[:100].tolist())
            raise errors.InvalidArgumentError(
                None, None, f"Received a label value of {lo if lo < 0 else hi} which is outside the valid range of "
                            f"[0, {classes}).  Label values: {shown}")
    # TF1's kernel: loss = log(sum(exp(shifted))) - shifted[label], backprop = exp(shifted) / sum
    # - onehot; in place on one array the size of the logits (a PTB language model's 700 × 10 000),
    # a block of rows at a time so that each step works in cache (rows are independent).
    x = _compute_dtype(logits).reshape(-1, classes)
    n = x.shape[0]
    picks = labels.reshape(-1).astype(np.intp)
    backprop = xp.empty(x.shape, dtype=x.dtype)
    picked = xp.empty(n, dtype=x.dtype)
    total = xp.empty(n, dtype=x.dtype)

    def block(rows):
        xb, bp, at = x[rows], backprop[rows], (xp.arange(min(rows.stop, n) - rows.start), picks[rows])
        xp.subtract(xb, xb.max(axis=-1, keepdims=True), out=bp)
        picked[rows] = bp[at]
        xp.exp(bp, out=bp)
        total[rows] = bp.sum(axis=-1)
        bp /= total[rows, None]
        bp[at] -= 1

    if xp is np and classes:
        over_elements(n, block, max(1, _XENT_BLOCK // classes), unit=classes)
    else:
        block(slice(0, n))
    loss = xp.log(total) - picked
    return (loss.reshape(labels.shape).astype(logits.dtype, copy=False),
            backprop.reshape(logits.shape).astype(logits.dtype, copy=False))


_XENT_BLOCK = 1 << 16  # logits per block of rows


register("SparseSoftmaxCrossEntropyWithLogits", infer=_sparse_xent_infer, kernel=_sparse_softmax_xent)


@gradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_xent_grad(op, grad_loss, grad_backprop):
    grad_logits = array_ops.expand_dims(grad_loss, -1) * op.outputs[1]
    second = _softmax_backprop_grad(op.inputs[0], grad_backprop, -1)
    return [grad_logits if second is None else grad_logits + second, None]


@tf_export("nn.sparse_softmax_cross_entropy_with_logits")
def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None) -> Tensor:
    """``-log_softmax(logits)[label]`` for integer class labels (one rank below the logits).

    A label outside ``[0, classes)`` is an ``InvalidArgumentError`` when the op runs.
    """
    _ensure_xent_args("sparse_softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels = as_tensor(labels, "labels")
        logits = as_tensor(logits, "logits", FLOATS)
        ls, gs = labels.shape, logits.shape
        if gs.ndims == 0:
            raise ValueError(f"Logits cannot be scalars - received shape {gs}.")
        if ls.ndims is not None and gs.ndims is not None:
            if ls.ndims != gs.ndims - 1:
                raise ValueError(f"Rank mismatch: Rank of labels (received {ls.ndims}) should equal rank of logits "
                                 f"minus 1 (received {gs.ndims}).")
            if not ls.is_compatible_with(gs[:-1]):
                raise ValueError(f"Shape mismatch: The shape of labels (received {ls}) should equal the shape of "
                                 f"logits except for the last dimension (received {gs}).")
        check_dtype(labels, INTS, "labels")
        return apply_op("SparseSoftmaxCrossEntropyWithLogits", [logits, labels]).outputs[0]


# -- sigmoid cross-entropy ---------------------------------------------------------------------------


def _sigmoid_xent(logits, labels):
    xp = array_module(logits, labels)
    x = _compute_dtype(logits)
    z = labels.astype(x.dtype, copy=False)
    zero = x.dtype.type(0)
    loss = xp.maximum(x, zero) - x * z + xp.log1p(xp.exp(-xp.abs(x)))
    return loss.astype(logits.dtype, copy=False)


def _sigmoid_xent_infer(op):
    logits, labels = op._inputs
    return [(logits.dtype, logits.shape.merge_with(labels.shape))]


register("_SigmoidCrossEntropyWithLogits", infer=_sigmoid_xent_infer, kernel=_sigmoid_xent)


@gradient("_SigmoidCrossEntropyWithLogits")
def _sigmoid_xent_grad(op, grad):
    # TF1's composite max(x, 0) - x * z + log1p(exp(-|x|)) differentiates to sigmoid(x) - z.
    logits, labels = op.inputs
    return [grad * (math_ops.sigmoid(logits) - labels), -grad * logits]


@tf_export("nn.sigmoid_cross_entropy_with_logits")
def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None) -> Tensor:
    """Elementwise ``-z*log(sigmoid(x)) - (1-z)*log(1-sigmoid(x))``, computed stably.

    One fused op named ``logistic_loss``, as TF names the result.
    """
    _ensure_xent_args("sigmoid_cross_entropy_with_logits", _sentinel, labels, logits)
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = as_tensor(logits, "logits", FLOATS)
        labels = convert_to_tensor(labels, name="labels", preferred_dtype=logits.dtype)
        try:
            labels.shape.merge_with(logits.shape)
        except ValueError:
            raise ValueError(f"`logits` and `labels` must have the same shape, received ({logits.shape} vs "
                             f"{labels.shape}).") from None
        if labels.dtype is not logits.dtype:
            raise TypeError(f"labels has type {labels.dtype.name} that does not match type {logits.dtype.name} of "
                            f"logits.")
        return apply_op("_SigmoidCrossEntropyWithLogits", [logits, labels], name=scope).outputs[0]


# -- L2Loss -------------------------------------------------------------------------------------------


_L2_ROW = 4096  # elements per partial sum of a large L2Loss


def _l2_loss(t):
    x = _compute_dtype(t)
    if type(x) is np.ndarray and x.dtype in _L2_BY_ROWS and x.size >= 8 * _L2_ROW and x.flags.c_contiguous:
        # Sums of squares of rows of 4096 (numpy's SIMD dot, no temporary) added up in float64:
        # 0.28 against 1.2 ms for a 128 x 10 000 gradient (clip_by_global_norm of a language
        # model's softmax weights), and closer to the exact sum than the product's pairwise sum.
        flat = x.reshape(-1)
        whole = flat.size - flat.size % _L2_ROW
        rows, rest = flat[:whole].reshape(-1, _L2_ROW), flat[whole:]
        total = np.einsum("ij,ij->i", rows, rows).sum(dtype=np.float64) + float(np.dot(rest, rest))
        return t.dtype.type(total / 2)
    return ((x * x).sum() / 2).astype(t.dtype)


_L2_BY_ROWS = (np.dtype(np.float32), np.dtype(np.float64))


register("L2Loss", infer=lambda op: [(op._inputs[0].dtype, TensorShape([]))], kernel=_l2_loss)


@gradient("L2Loss")
def _l2_loss_grad(op, grad):
    return [op.inputs[0] * grad]


@tf_export("nn.l2_loss")
def l2_loss(t, name=None) -> Tensor:
    """``sum(t ** 2) / 2``, a scalar."""
    with name_scope(name, "L2Loss", [t]) as scope:
        x = as_tensor(t, "t", FLOATS)
        return apply_op("L2Loss", [x], name=scope).outputs[0]

