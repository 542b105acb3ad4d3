"""The run-time checks of TF1's canned heads (its assert ops): label and weight shapes against the logits,
label ranges, the logits' last dimension."""

from __future__ import annotations

import collections

import numpy as np

from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.ops.array import shape_ops
from dflow.ops.math import math_ops

LossSpec = collections.namedtuple("LossSpec", ["training_loss", "unreduced_loss", "weights", "processed_labels"])


# -- run-time checks: TF1's assert ops on labels and weights ------------------------------------


def _check_shape_infer(op):
    x = op._inputs[0]
    return [(x.dtype, x.shape)]


def _check_shape_kernel(x, logits, last_dims, message):
    x_shape, l_shape = np.shape(x), np.shape(logits)
    if len(x_shape) < 2 or x_shape[:-1] != l_shape[:-1] or x_shape[-1] not in last_dims:
        raise errors.InvalidArgumentError(
            None, None, f"assertion failed: [{message}] [logits_shape: ] {list(l_shape)} [shape: ] {list(x_shape)}")
    return x


register("_HeadCheckShape", infer=_check_shape_infer, kernel=_check_shape_kernel, gpu=False, foldable=False)
not_differentiable("_HeadCheckShape")


def _assert_range_kernel(labels, n_classes, message):
    values = np.asarray(labels)
    if values.size:
        if (values > n_classes - 1).any():
            raise errors.InvalidArgumentError(
                None, None, f"assertion failed: [{message or 'Labels must <= n_classes - 1'}] [Condition x <= y "
                            f"did not hold element-wise:] [x (labels) = ] {values.ravel()[:10].tolist()} "
                            f"[y = ] {n_classes - 1}")
        if (values < 0).any():
            raise errors.InvalidArgumentError(
                None, None, f"assertion failed: [{message or 'Labels must >= 0'}] [Condition x >= 0 did not hold "
                            f"element-wise:] [x (labels) = ] {values.ravel()[:10].tolist()}")
    return labels


register("_HeadAssertRange", infer=_check_shape_infer, kernel=_assert_range_kernel, gpu=False, foldable=False)
not_differentiable("_HeadAssertRange")


def _check_shape(x: Tensor, logits: Tensor, last_dims, message: str, name: str) -> Tensor:
    return apply_op("_HeadCheckShape", [x, logits], {"last_dims": tuple(int(d) for d in last_dims),
                                                     "message": message}, name=name).outputs[0]


def _assert_range(labels: Tensor, n_classes: int, message=None) -> Tensor:
    """``labels`` unchanged, or InvalidArgumentError at run time if one is outside ``[0, n_classes)``."""
    with name_scope(None, "assert_range", [labels]):
        return apply_op("_HeadAssertRange", [labels], {"n_classes": int(n_classes), "message": message or ""},
                        name="Identity").outputs[0]


def _check_dense_labels_match_logits_and_reshape(labels, logits: Tensor, expected_labels_dimension: int) -> Tensor:
    """``labels`` as ``[D0, ..., DN, expected_labels_dimension]`` (a ``[D0, ..., DN]`` input is
    expanded); ValueError when the static shapes disagree, InvalidArgumentError at run time."""
    if labels is None:
        raise ValueError("You must provide a labels Tensor. Given: None. Suggested troubleshooting steps: Check that "
                         "your data contain your label feature. Check that your input_fn properly parses and returns "
                         "labels.")
    if isinstance(labels, dict):
        raise ValueError(f"labels must be a Tensor, not a dict, for a single head. Given: {labels}")
    if all(hasattr(labels, a) for a in ("indices", "values", "dense_shape")):
        raise ValueError(f"SparseTensor labels are not supported. labels must be a Tensor of shape [D0, D1, ..., DN, "
                         f"{expected_labels_dimension}], e.g. [batch_size, {expected_labels_dimension}].")
    with name_scope(None, "labels", [labels, logits]) as scope:
        labels = convert_to_tensor(labels)
        if (labels.shape.ndims is not None and logits.shape.ndims is not None
                and labels.shape.ndims == logits.shape.ndims - 1):
            labels = shape_ops.expand_dims(labels, -1)
        static = labels.shape
        if static.ndims is not None and static.ndims >= 1:
            dim1 = static.as_list()[-1]
            if dim1 is not None and dim1 != expected_labels_dimension:
                raise ValueError(f"Mismatched label shape. Expected labels dimension={expected_labels_dimension}.  "
                                 f"Received {dim1}. Suggested Fix:If your classifier expects one-hot encoding label,"
                                 f"check your n_classes argument to the estimator and/or the shape of your label. "
                                 f"Otherwise, check the shape of your label.")
        message = (f"labels shape must be [D0, D1, ... DN, {expected_labels_dimension}]. Suggested Fix: check your "
                   f"n_classes argument to the estimator and/or the shape of your label.")
        return _check_shape(labels, logits, (expected_labels_dimension,), message, scope)


def _get_weights_and_check_match_logits(features, weight_column, logits: Tensor, allow_per_logit_weights=False):
    """The float32 example weights of ``weight_column`` as ``[D0, ..., DN, 1]`` (or per logit),
    or ``1.0`` without a weight column."""
    from dflow.feature_column.feature_column import _DenseColumn, _LazyBuilder, numeric_column

    if weight_column is None:
        return 1.0
    if allow_per_logit_weights:
        err_msg = "weights shape must be [D0, D1, ... DN], [D0, D1, ... DN, 1] or [D0, D1, ... DN, logits_dimension]"
    else:
        err_msg = "weights shape must be [D0, D1, ... DN] or [D0, D1, ... DN, 1]"
    values = [v for v in features.values() if isinstance(v, Tensor)] + [logits]
    with name_scope(None, "weights", values) as scope:
        if isinstance(weight_column, str):
            weight_column = numeric_column(key=weight_column, shape=(1,))
        if not isinstance(weight_column, _DenseColumn):
            raise TypeError(f"Weight column must be either a string or _DenseColumn. Given type: "
                            f"{type(weight_column)}.")
        weights = weight_column._get_dense_tensor(_LazyBuilder(features))
        if not (weights.dtype.is_floating or weights.dtype.is_integer):
            raise ValueError(f"Weight column should be castable to float. Given dtype: {weights.dtype}")
        weights = math_ops.cast(weights, dtypes.float32, name="weights")
        if (weights.shape.ndims is not None and logits.shape.ndims is not None
                and weights.shape.ndims == logits.shape.ndims - 1):
            weights = shape_ops.expand_dims(weights, -1)
        last_dims = (1,)
        if allow_per_logit_weights:
            units = logits.shape.as_list()[-1] if logits.shape.ndims else None
            if units is not None:
                last_dims = tuple(sorted({1, units}))
        return _check_shape(weights, logits, last_dims, err_msg, scope)


def _check_logits_final_dim(logits, expected_logits_dimension: int) -> Tensor:
    """``logits`` as float32, checked to be ``[D0, ..., DN, expected_logits_dimension]``."""
    with name_scope(None, "logits", [logits]) as scope:
        logits = math_ops.cast(convert_to_tensor(logits), dtypes.float32)
        static = logits.shape
        if static.ndims is not None:
            if static.ndims < 2:
                raise ValueError(f"logits shape must be [D0, D1, ... DN, logits_dimension], got {static}.")
            last = static.as_list()[-1]
            if last is not None:
                if last != expected_logits_dimension:
                    raise ValueError(f"logits shape must be [D0, D1, ... DN, logits_dimension="
                                     f"{expected_logits_dimension}], got {static}.")
                return logits
        message = f"logits shape must be [D0, D1, ... DN, logits_dimension={expected_logits_dimension}]"
        return _check_shape(logits, logits, (expected_logits_dimension,), message, scope)
