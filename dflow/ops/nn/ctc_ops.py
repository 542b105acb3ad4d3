"""Connectionist temporal classification loss: ``tf.nn.ctc_loss`` (TF1's,
labels as a SparseTensor) and ``tf.nn.ctc_loss_v2`` (dense labels with
``label_length``, or a SparseTensor).

One op, ``_CTCLoss``, runs TF's forward-backward recursion in log space
(float64) per batch entry, on dense labels: it returns the loss ``-log
p(labels | logits)`` and, like TF's ``CTCLoss`` op, the gradient of the loss
with respect to the logits (``softmax - posterior`` on each valid frame,
zero past ``sequence_length``), which its gradient rule scales by the
incoming gradient. The recursion follows TF's ``CTCLossCalculator``: with
``ctc_merge_repeated=False`` a label state has no self-loop, so each frame
that emits a label emits a new one. Sparse labels are turned into dense ones
by ``_SparseLabelsToDense`` first.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument
from dflow.ops.array import array_ops
from dflow.ops.array.index_args import host
from dflow.ops.nn._nn_util import FLOATS, INTS, as_tensor

_NEG_INF = -np.inf


def _logsumexp(*terms):
    stacked = np.stack(np.broadcast_arrays(*terms))
    m = stacked.max(axis=0)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(stacked - safe).sum(axis=0)) + safe


def _expanded(label, blank):
    """``[blank, l1, blank, l2, ..., lL, blank]``."""
    out = np.full(2 * len(label) + 1, blank, np.int64)
    out[1::2] = label
    return out


def _forward_backward(log_probs, label, blank, merge_repeated):
    """``(log p, posterior)``: the sequence log-likelihood and, per frame and class, the
    probability that the frame emitted that class on a path of ``label`` (TF's recursion)."""
    steps, classes = log_probs.shape
    lp = _expanded(label, blank)
    states = len(lp)
    emit = log_probs[:, lp]  # [T, S]
    is_blank = lp == blank
    # Transitions into state u: from u (self), u-1, u-2 (skip a blank between different labels).
    self_ok = is_blank | merge_repeated
    skip_ok = np.zeros(states, bool)
    skip_ok[2:] = ~is_blank[2:] & ~(merge_repeated & (lp[2:] == lp[:-2]))
    alpha = np.full((steps, states), _NEG_INF)
    alpha[0, 0] = emit[0, 0]
    if states > 1:
        alpha[0, 1] = emit[0, 1]
    for t in range(1, steps):
        prev = alpha[t - 1]
        stay = np.where(self_ok, prev, _NEG_INF)
        step = np.concatenate([[_NEG_INF], prev[:-1]])
        skip = np.where(skip_ok, np.concatenate([[_NEG_INF, _NEG_INF], prev[:-2]]), _NEG_INF)
        alpha[t] = emit[t] + _logsumexp(stay, step, skip)
    beta = np.full((steps, states), _NEG_INF)
    beta[-1, -1] = emit[-1, -1]
    if states > 1:
        beta[-1, -2] = emit[-1, -2]
    skip_from = np.concatenate([skip_ok[2:], [False, False]])  # may u jump to u+2
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1]
        stay = np.where(self_ok, nxt, _NEG_INF)
        step = np.concatenate([nxt[1:], [_NEG_INF]])
        skip = np.where(skip_from, np.concatenate([nxt[2:], [_NEG_INF, _NEG_INF]]), _NEG_INF)
        beta[t] = emit[t] + _logsumexp(stay, step, skip)
    log_p = _logsumexp(alpha[-1, -1], alpha[-1, -2] if states > 1 else _NEG_INF)
    posterior = np.zeros((steps, classes))
    if np.isfinite(log_p):
        occupancy = np.exp(alpha + beta - emit - log_p)  # [T, S]
        np.add.at(posterior.T, lp, occupancy.T)
    return float(log_p), posterior


def _ctc_loss_infer(op):
    logits, labels, label_length, sequence_length = op._inputs
    if logits.shape.ndims is not None and logits.shape.ndims != 3:
        raise ValueError(f"Shape must be rank 3 but is rank {logits.shape.ndims}")
    if labels.shape.ndims is not None and labels.shape.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {labels.shape.ndims}")
    for t in (label_length, sequence_length):
        if t.shape.ndims is not None and t.shape.ndims != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {t.shape.ndims}")
    shape = logits.shape if logits.shape.ndims is not None else TensorShape([None] * 3)
    batch = shape[1]
    for t in (labels, label_length, sequence_length):
        if t.shape.ndims is not None:
            batch = batch.merge_with(t.shape[0])
    return [(logits.dtype, TensorShape([batch])), (logits.dtype, shape)]


def _ctc_loss(logits, labels, label_length, sequence_length, blank, preprocess_collapse_repeated,
              ctc_merge_repeated, ignore_longer_outputs_than_inputs, check_labels):
    xp = array_module(logits)
    x = np.asarray(host(logits), np.float64)
    labels, label_length = np.asarray(host(labels)), np.asarray(host(label_length))
    sequence_length = np.asarray(host(sequence_length))
    steps, batch, classes = x.shape
    if not labels.shape[0] == label_length.shape[0] == sequence_length.shape[0] == batch:
        raise invalid_argument(f"len(sequence_length) != batch_size.  len(sequence_length):  "
                               f"{sequence_length.shape[0]} batch_size: {batch}")
    blank = blank % classes
    shifted = x - x.max(axis=2, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=2, keepdims=True))
    loss = np.zeros(batch)
    grad = np.zeros_like(x)
    for b in range(batch):
        seq = int(sequence_length[b])
        if not 0 <= seq <= steps:
            raise invalid_argument(f"sequence_length({b}) <= {steps}")
        label = labels[b, :int(label_length[b])].astype(np.int64)
        if check_labels and ((label < 0) | (label >= classes - 1)).any():
            shown = ",".join(str(v) for v in label.tolist())
            raise invalid_argument(f"Saw a non-null label (index >= num_classes - 1) following a null label, "
                                   f"batch: {b} num_classes: {classes} labels: {shown}")
        if not check_labels and ((label < 0) | (label >= classes)).any():
            raise invalid_argument(f"labels must be in [0, {classes}), got {label.tolist()} in batch entry {b}")
        if preprocess_collapse_repeated and len(label):
            label = label[np.concatenate([[True], label[1:] != label[:-1]])]
        if len(label) > seq:
            if ignore_longer_outputs_than_inputs:
                continue
            raise invalid_argument(f"Not enough time for target transition sequence (required: {len(label)}, "
                                   f"available: {seq})0You can turn this error into a warning by using the flag "
                                   f"ignore_longer_outputs_than_inputs")
        if seq == 0:
            loss[b] = 0.0 if len(label) == 0 else np.inf
            continue
        log_p, posterior = _forward_backward(log_probs[:seq, b], label, blank, ctc_merge_repeated)
        loss[b] = -log_p
        grad[:seq, b] = np.exp(log_probs[:seq, b]) - posterior
    return xp.asarray(loss.astype(logits.dtype)), xp.asarray(grad.astype(logits.dtype))


register("_CTCLoss", infer=_ctc_loss_infer, kernel=_ctc_loss, gpu=False)


# TF1 wraps the fused gradient in PreventGradient: a second derivative would silently be wrong.
_NO_SECOND_DERIVATIVE = ("Currently there is no way to take the second  derivative of ctc_loss due to the fused "
                         "implementation's interaction  with tf.gradients()")
register("_CTCPreventGradient", infer=lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)],
         kernel=lambda x: x)


@gradient("_CTCPreventGradient")
def _prevent_gradient(op, grad):
    raise LookupError(f"Gradient explicitly disabled. Reason: {_NO_SECOND_DERIVATIVE}")


@gradient("_CTCLoss")
def _ctc_loss_grad(op, grad_loss, _grad_gradient):
    # TF: the loss's gradient is the op's second output scaled per batch entry.
    fused = apply_op("_CTCPreventGradient", [op.outputs[1]]).outputs[0]
    return [array_ops.expand_dims(array_ops.expand_dims(grad_loss, 0), -1) * fused, None, None, None]


# -- sparse labels ----------------------------------------------------------------------------------


def _sparse_labels_infer(op):
    return [(op._inputs[1].dtype, TensorShape([None, None])), (dtypes.int32, TensorShape([None]))]


def _sparse_labels_to_dense(indices, values, dense_shape):
    """Sparse labels (row-major ``[batch, position]`` indices) as padded dense labels and lengths."""
    xp = array_module(values)
    indices = np.asarray(host(indices), np.int64).reshape(-1, 2)
    values, dense_shape = np.asarray(host(values)), np.asarray(host(dense_shape), np.int64)
    batch = int(dense_shape[0])
    lengths = np.bincount(indices[:, 0], minlength=batch).astype(np.int32) if len(indices) else \
        np.zeros(batch, np.int32)
    dense = np.zeros((batch, int(lengths.max()) if batch else 0), values.dtype)
    position = np.zeros(batch, np.int64)
    for (b, _), v in zip(indices.tolist(), values.tolist()):
        dense[b, position[b]] = v
        position[b] += 1
    return xp.asarray(dense), xp.asarray(lengths)


register("_SparseLabelsToDense", infer=_sparse_labels_infer, kernel=_sparse_labels_to_dense, gpu=False)
not_differentiable("_SparseLabelsToDense")


def _is_sparse(value) -> bool:
    return all(hasattr(value, a) for a in ("indices", "values", "dense_shape"))


def _sparse_to_dense_labels(labels) -> tuple:
    indices = convert_to_tensor(labels.indices, dtype=dtypes.int64, name="indices")
    values = convert_to_tensor(labels.values, name="values")
    shape = convert_to_tensor(labels.dense_shape, dtype=dtypes.int64, name="dense_shape")
    dense, lengths = apply_op("_SparseLabelsToDense", [indices, values, shape]).outputs
    return dense, lengths


def _no_sparse_labels(fn: str, labels):
    raise TypeError(f"Expected argument `labels` to be a SparseTensor. Received labels={labels} of type: "
                    f"{type(labels).__name__}")


def _time_major(logits: Tensor, time_major: bool) -> Tensor:
    if time_major:
        return logits
    return array_ops.transpose(logits, [1, 0, 2], name="transpose")


def _ctc_op(logits, labels, label_length, sequence_length, attrs, name) -> Tensor:
    labels = as_tensor(labels, "labels", INTS)
    label_length = _as_int32(as_tensor(label_length, "label_length", INTS))
    sequence_length = _as_int32(as_tensor(sequence_length, "sequence_length", INTS))
    return apply_op("_CTCLoss", [logits, labels, label_length, sequence_length], attrs, name=name).outputs[0]


def _as_int32(t: Tensor) -> Tensor:
    from dflow.ops.math import math_ops

    return t if t.dtype == dtypes.int32 else math_ops.cast(t, dtypes.int32)


@tf_export("nn.ctc_loss")
def ctc_loss(labels, inputs=None, sequence_length=None, preprocess_collapse_repeated=False, ctc_merge_repeated=True,
             ignore_longer_outputs_than_inputs=False, time_major=True, logits=None) -> Tensor:
    """CTC loss per batch entry (TF1's): ``labels`` a SparseTensor, the blank the last class.

    ``inputs`` (or ``logits``) are unnormalized, ``[max_time, batch, classes]``
    (``[batch, max_time, classes]`` when not ``time_major``).
    """
    if inputs is not None and logits is not None:
        raise ValueError("Cannot specify both 'inputs' and 'logits'")
    inputs = inputs if inputs is not None else logits
    if not _is_sparse(labels):
        _no_sparse_labels("ctc_loss", labels)
    x = _time_major(as_tensor(inputs, "inputs", FLOATS), time_major)
    dense, lengths = _sparse_to_dense_labels(labels)
    attrs = {"blank": -1, "preprocess_collapse_repeated": bool(preprocess_collapse_repeated),
             "ctc_merge_repeated": bool(ctc_merge_repeated),
             "ignore_longer_outputs_than_inputs": bool(ignore_longer_outputs_than_inputs), "check_labels": True}
    return _ctc_op(x, dense, lengths, sequence_length, attrs, "CTCLoss")


@tf_export("nn.ctc_loss_v2")
def ctc_loss_v2(labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=None,
                name=None) -> Tensor:
    """CTC loss per batch entry: dense ``labels`` ``[batch, max_label_length]`` with ``label_length``.

    ``logits`` are unnormalized; the blank is ``blank_index`` (default 0 for
    dense labels; required for SparseTensor labels). ``unique`` is accepted
    and unused (it only speeds up TF's implementation).

    >>> import dflow as tf
    >>> tf.nn.ctc_loss_v2([[1]], tf.zeros([2, 1, 3]), [1], [2]).shape.as_list()
    [1]
    """
    if _is_sparse(labels):
        if blank_index is None:
            raise ValueError("Argument `blank_index` must be provided when `labels` is a SparseTensor.")
        with name_scope(name, "ctc_loss", [logits, labels]) as scope:
            x = _time_major(as_tensor(logits, "logits", FLOATS), logits_time_major)
            dense, lengths = _sparse_to_dense_labels(labels)
            attrs = _v2_attrs(blank_index)
            return _ctc_op(x, dense, lengths, logit_length, attrs, scope)
    if blank_index is None:
        blank_index = 0
    with name_scope(name, "ctc_loss_dense", [logits, labels, label_length, logit_length]) as scope:
        x = _time_major(as_tensor(logits, "logits", FLOATS), logits_time_major)
        return _ctc_op(x, labels, label_length, logit_length, _v2_attrs(blank_index), scope)


def _v2_attrs(blank_index) -> dict:
    return {"blank": int(blank_index), "preprocess_collapse_repeated": False, "ctc_merge_repeated": True,
            "ignore_longer_outputs_than_inputs": False, "check_labels": False}
