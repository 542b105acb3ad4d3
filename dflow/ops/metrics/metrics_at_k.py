"""``tf.metrics`` at ``k``: the top ``k`` predicted class ids against label sets.

``precision_at_k``, ``recall_at_k`` and ``average_precision_at_k`` (and their
``*_at_top_k`` and deprecated ``sparse_*`` forms) build TF1's graphs: ``top_k``
ranks ``predictions`` (``[D1, ... DN, num_classes]``), and each row's top
``k`` ids are compared with its ``labels`` (int64 ``[D1, ... DN]``,
``[D1, ... DN, num_labels]`` or a SparseTensor) as sets (``tf.sets``), as TF1
does: a label value is one member of the row's set (a ``-1`` padding counts
as a label nobody predicts). Counts are float64 local variables
(``precision_at_5/true_positive_at_5``); ``class_id`` keeps only that class.
Precision and recall divide without a guard, so they are NaN until a row
has been seen, as TF1's.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import SparseTensor, convert_to_tensor_or_sparse_tensor
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.ops.array import array_ops
from dflow.ops.array.select_ops import where_v2
from dflow.ops.control_flow.control_flow_ops import cond
from dflow.ops.math import math_ops, reduction_ops
from dflow.ops.metrics.metrics_extra import _check_both
from dflow.ops.metrics.metrics_ops import _add_to, broadcast_weights, metric_variable
from dflow.ops.state.variables import assign_add


def _at_k_name(name: str, k=None, class_id=None) -> str:
    name = f"{name}_at_{k}" if k is not None else f"{name}_at_k"
    return f"{name}_class{class_id}" if class_id is not None else name


def _maybe_expand_labels(labels, predictions: Tensor):
    """``labels`` of rank ``rank(predictions) - 1`` gain a last dimension of 1."""
    with name_scope(None, "expand_labels", [labels, predictions]) as scope:
        labels = convert_to_tensor_or_sparse_tensor(labels)
        if isinstance(labels, SparseTensor):
            from dflow.ops.sparse.sparse_ops import sparse_reshape

            dense_shape = labels.dense_shape
            labels_rank = dense_shape.shape[0] if dense_shape.shape.ndims == 1 else None
            if labels_rank is not None and predictions.shape.ndims is not None:
                if predictions.shape.ndims == labels_rank + 1:
                    return sparse_reshape(labels, array_ops.concat([dense_shape, [1]], 0), name=scope)
                return labels
            # TF1 conds on the SparseTensor; dflow's cond carries dense tensors, so it picks the shape.
            shape = cond(math_ops.equal(array_ops.rank(predictions), array_ops.size(dense_shape) + 1),
                         lambda: array_ops.concat([dense_shape, convert_to_tensor([1], dtypes.int64)], 0),
                         lambda: dense_shape)
            return sparse_reshape(labels, shape, name=scope)
        labels_rank, predictions_rank = labels.shape.ndims, predictions.shape.ndims
        if labels_rank is not None and predictions_rank is not None:
            if predictions_rank == labels_rank:
                return labels
            if predictions_rank == labels_rank + 1:
                return array_ops.expand_dims(labels, -1, name=scope)
            raise ValueError(f"Unexpected labels shape {labels.shape} for predictions shape {predictions.shape}. "
                             f"Predictions rank should be the same rank as labels rank or labels rank plus one .")
        return cond(math_ops.equal(array_ops.rank(predictions), array_ops.rank(labels) + 1),
                    lambda: array_ops.expand_dims(labels, -1, name=scope), lambda: labels)


def _select_class_id(ids, selected_id):
    """The entries of ``ids`` equal to ``selected_id``, as a SparseTensor of the shape of ``ids``."""
    from dflow.ops.math.set_ops import set_intersection
    from dflow.ops.sparse.sparse_array_ops import sparse_retain

    if isinstance(ids, SparseTensor):
        return sparse_retain(ids, math_ops.equal(ids.values, selected_id))
    ids = convert_to_tensor(ids)
    ids_shape = array_ops.shape(ids, out_type=dtypes.int64)
    filled_shape = array_ops.concat([ids_shape[:-1], [1]], 0)
    filled = array_ops.fill(filled_shape, math_ops.cast(selected_id, dtypes.int64))
    result = set_intersection(filled, ids)
    return SparseTensor(indices=result.indices, values=result.values, dense_shape=ids_shape)


def _weighted_set_size(kind: str, labels, predictions_idx, class_id, weights) -> Tensor:
    """Per row, the float64 size of ``predictions ∩ labels`` (tp), ``predictions - labels`` (fp)
    or ``labels - predictions`` (fn), times ``weights``."""
    from dflow.ops.math.set_ops import set_difference, set_intersection, set_size

    op_names = {"tp": "true_positives", "fp": "false_positives", "fn": "false_negatives"}
    with name_scope(None, op_names[kind], [predictions_idx, labels, weights]):
        if class_id is not None:
            labels, predictions_idx = _select_class_id(labels, class_id), _select_class_id(predictions_idx, class_id)
        if kind == "tp":
            found = set_intersection(predictions_idx, labels)
        else:
            found = set_difference(predictions_idx, labels, aminusb=kind == "fp")
        count = math_ops.cast(set_size(found), dtypes.float64)
        if weights is not None:
            count = math_ops.multiply(count, broadcast_weights(math_ops.cast(weights, dtypes.float64), count))
        return count


def _streaming_count_at_k(kind: str, labels, predictions_idx, k, class_id, weights):
    """A float64 metric variable ``<kind>_at_<k>[_class<id>]`` and the op adding one batch's count."""
    stem = {"tp": "true_positive", "fp": "false_positive", "fn": "false_negative"}[kind]
    with name_scope(None, _at_k_name(stem, k, class_id), [predictions_idx, labels, weights]) as scope:
        count = _weighted_set_size(kind, labels, predictions_idx, class_id, weights)
        batch_total = math_ops.cast(reduction_ops.reduce_sum(count), dtypes.float64)
        var = metric_variable([], dtypes.float64, name=scope)
        return var, assign_add(var, batch_total, name="update")


def _ratio_at_top_k(stem: str, other: str, labels, predictions_idx, k, class_id, weights, metrics_collections,
                    updates_collections, name):
    _check_both(metrics_collections, updates_collections)
    with name_scope(name, _at_k_name(stem, k, class_id), [predictions_idx, labels, weights]) as scope:
        predictions_idx = convert_to_tensor(predictions_idx)
        labels = _maybe_expand_labels(labels, predictions_idx)
        top_k_idx = math_ops.cast(predictions_idx, dtypes.int64)
        tp, tp_update = _streaming_count_at_k("tp", labels, top_k_idx, k, class_id, weights)
        o, o_update = _streaming_count_at_k(other, labels, top_k_idx, k, class_id, weights)
        metric = math_ops.divide(tp, math_ops.add(tp, o), name=scope)
        _add_to(metrics_collections, metric)
        update = math_ops.divide(tp_update, math_ops.add(tp_update, o_update), name="update")
        _add_to(updates_collections, update)
        return metric, update


@tf_export("metrics.precision_at_top_k")
def precision_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """Precision of the predicted class ids ``predictions_idx`` (``[D1, ... DN, k]``) against
    ``labels``: ``(precision, update_op)``, float64 scalars.

    Counts live in ``precision_at_<k>/true_positive_at_<k>`` and
    ``/false_positive_at_<k>`` (``_class<id>`` appended with ``class_id``);
    weights broadcast to ``[D1, ... DN]``.
    """
    return _ratio_at_top_k("precision", "fp", labels, predictions_idx, k, class_id, weights, metrics_collections,
                           updates_collections, name)


@tf_export("metrics.recall_at_top_k")
def recall_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None, metrics_collections=None,
                    updates_collections=None, name=None):
    """Recall of the predicted class ids ``predictions_idx`` (``[D1, ... DN, k]``) against
    ``labels``: ``(recall, update_op)``, float64 scalars (``recall_at_<k>/true_positive_at_<k>``,
    ``/false_negative_at_<k>``)."""
    return _ratio_at_top_k("recall", "fn", labels, predictions_idx, k, class_id, weights, metrics_collections,
                           updates_collections, name)


@tf_export("metrics.precision_at_k")
def precision_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                   updates_collections=None, name=None):
    """How many of the ``k`` highest-scored classes of each row are labels: ``(precision, update_op)``.

    ``predictions`` are scores ``[D1, ... DN, num_classes]``; ``labels`` int64
    class ids ``[D1, ... DN]`` or ``[D1, ... DN, num_labels]``. With
    ``class_id``, only that class counts. float64, NaN before the first row.

    >>> import dflow as tf
    >>> p, update = tf.metrics.precision_at_k(tf.constant([[1], [2]], tf.int64), [[.1, .8, .1], [.5, .2, .3]], 2)
    >>> with tf.Session() as s:
    ...     s.run(tf.local_variables_initializer())
    ...     print(s.run(update))
    0.5
    """
    with name_scope(name, _at_k_name("precision", k, class_id), [predictions, labels, weights]) as scope:
        top_k_idx = array_ops.top_k(predictions, k).indices
        return precision_at_top_k(labels, top_k_idx, k, class_id, weights, metrics_collections,
                                  updates_collections, scope)


@tf_export("metrics.sparse_precision_at_k")
def sparse_precision_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                          updates_collections=None, name=None):
    """Deprecated alias of ``precision_at_k``."""
    return precision_at_k(labels, predictions, k, class_id, weights, metrics_collections, updates_collections, name)


@tf_export("metrics.recall_at_k")
def recall_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                updates_collections=None, name=None):
    """How many labels of each row are among its ``k`` highest-scored classes: ``(recall, update_op)``.

    Arguments as ``precision_at_k``; counts ``recall_at_<k>/true_positive_at_<k>``
    and ``/false_negative_at_<k>``.
    """
    with name_scope(name, _at_k_name("recall", k, class_id), [predictions, labels, weights]) as scope:
        top_k_idx = array_ops.top_k(predictions, k).indices
        return recall_at_top_k(labels, top_k_idx, k, class_id, weights, metrics_collections, updates_collections,
                               scope)


def _expand_and_tile(tensor, multiple: int, dim: int = 0, name=None):
    """``tensor`` with a new dimension before ``dim`` (counted as TF1 counts it), repeated ``multiple`` times."""
    from dflow.ops.sparse.sparse_ops import sparse_concat, sparse_reshape

    if multiple < 1:
        raise ValueError(f"Invalid argument multiple={multiple} for expand_and_tile  call. `multiple` must be an "
                         f"integer > 0")
    with name_scope(name, "expand_and_tile", [tensor]) as scope:
        if isinstance(tensor, SparseTensor):
            if dim < 0:
                expand_at = array_ops.reshape(array_ops.size(tensor.dense_shape) + dim, [1])
            else:
                expand_at = [dim]
            expanded_shape = array_ops.concat(
                [array_ops.slice(tensor.dense_shape, [0], expand_at), convert_to_tensor([1], dtypes.int64),
                 array_ops.slice(tensor.dense_shape, expand_at, [-1])], 0, name="expanded_shape")
            expanded = sparse_reshape(tensor, expanded_shape, name="expand")
            if multiple == 1:
                return expanded
            return sparse_concat(dim - 1 if dim < 0 else dim, [expanded] * multiple, name=scope)
        expanded = array_ops.expand_dims(tensor, dim if dim >= 0 else dim - 1, name="expand")
        if multiple == 1:
            return expanded
        ones = array_ops.ones_like(array_ops.shape(tensor))
        multiples = array_ops.concat([ones[:dim], [multiple], ones[dim:]], 0, name="multiples")
        return array_ops.tile(expanded, multiples, name=scope)


def _num_relevant(labels: Tensor, k: int) -> Tensor:
    """Per row, ``min(k, number of labels >= 0)`` (of a SparseTensor, of the labels present)."""
    from dflow.ops.math.set_ops import set_size

    with name_scope(None, "num_relevant", [labels]) as scope:
        if isinstance(labels, SparseTensor):
            return math_ops.minimum(set_size(labels), k, name=scope)
        num_labels = reduction_ops.reduce_sum(
            where_v2(math_ops.greater_equal(labels, 0), array_ops.ones_like(labels), array_ops.zeros_like(labels)),
            axis=-1)
        return math_ops.minimum(num_labels, k, name=scope)


def _average_precision_per_row(labels, predictions_idx: Tensor) -> Tensor:
    """TF1's AveP per row: the precision at each rank ``i <= k`` whose prediction is a label,
    summed and divided by ``min(k, number of labels)``."""
    from dflow.ops.math.set_ops import set_intersection, set_size

    with name_scope(None, "average_precision", [predictions_idx, labels]) as scope:
        predictions_idx = math_ops.cast(predictions_idx, dtypes.int64, name="predictions_idx")
        if predictions_idx.shape.ndims == 0:
            raise ValueError("The rank of `predictions_idx` must be at least 1.")
        k = predictions_idx.shape.as_list()[-1]
        if k is None:
            raise ValueError("The last dimension of predictions_idx must be set. Currently, it is None.")
        labels = _maybe_expand_labels(labels, predictions_idx)
        predictions_idx_per_k = array_ops.expand_dims(predictions_idx, -1, name="predictions_idx_per_k")
        labels_per_k = _expand_and_tile(labels, multiple=k, dim=-1, name="labels_per_k")
        with name_scope(None, "relevant_per_k"):
            relevant_per_k = math_ops.cast(set_size(set_intersection(predictions_idx_per_k, labels_per_k)),
                                           dtypes.float64)
        tp_per_k = reduction_ops.cumsum(relevant_per_k, axis=-1, name="tp_per_k")
        retrieved_per_k = reduction_ops.cumsum(array_ops.ones_like(relevant_per_k), axis=-1, name="retrieved_per_k")
        precision_per_k = math_ops.divide(tp_per_k, retrieved_per_k, name="precision_per_k")
        relevant_precision_per_k = math_ops.multiply(precision_per_k, relevant_per_k,
                                                     name="relevant_precision_per_k")
        precision_sum = reduction_ops.reduce_sum(relevant_precision_per_k, axis=(-1,), name="precision_sum")
        num_relevant_items = math_ops.cast(_num_relevant(labels, k), dtypes.float64)
        return math_ops.divide(precision_sum, num_relevant_items, name=scope)


def _clean_out_of_range_indices(labels, num_classes: Tensor):
    """Labels ``>= num_classes`` become -1 (not relevant), as TF1 does before ranking."""

    def clean(values):
        return where_v2(math_ops.greater_equal(values, num_classes), -1 * array_ops.ones_like(values), values)

    labels = convert_to_tensor_or_sparse_tensor(labels)
    values = labels.values if isinstance(labels, SparseTensor) else labels
    max_labels = reduction_ops.reduce_max(values)
    # TF1 conds on the SparseTensor; dflow's cond carries dense tensors, so it conds on the values.
    values = cond(math_ops.greater_equal(max_labels, num_classes), lambda: clean(values), lambda: values)
    if isinstance(labels, SparseTensor):
        return SparseTensor(labels.indices, values, labels.dense_shape)
    return values


@tf_export("metrics.average_precision_at_k")
def average_precision_at_k(labels, predictions, k, weights=None, metrics_collections=None, updates_collections=None,
                           name=None):
    """The mean over rows of each row's average precision at ``k``: ``(map, update_op)``, float64.

    ``predictions`` are scores ``[D1, ... DN, num_classes]``; ``labels`` int64
    ids ``[D1, ... DN]`` or ``[D1, ... DN, num_labels]`` (ids outside
    ``[0, num_classes)`` are not relevant; a row without relevant labels is
    NaN, as TF1's). Variables ``average_precision_at_<k>/max_1`` (rows or
    their weight) and ``/total``; the value is 0 before any update.
    """
    if k < 1:
        raise ValueError(f"Invalid k={k}. `k` should be >= 1.")
    _check_both(metrics_collections, updates_collections)
    with name_scope(name, _at_k_name("average_precision", k), [predictions, labels, weights]) as scope:
        predictions = convert_to_tensor(predictions)
        predictions_idx = array_ops.top_k(predictions, k).indices
        labels = _clean_out_of_range_indices(
            labels, math_ops.cast(array_ops.shape(predictions)[-1], dtypes.int64))
        with name_scope(scope, "average_precision_at_top_k", [predictions_idx, labels, weights]) as scope:
            average_precision = _average_precision_per_row(labels, predictions_idx)
            if weights is not None:
                weights = broadcast_weights(math_ops.cast(weights, dtypes.float64), average_precision)
                average_precision = math_ops.multiply(average_precision, weights)
            with name_scope(None, "max", [average_precision]) as max_scope:
                max_var = metric_variable([], dtypes.float64, name=max_scope)
                if weights is None:
                    batch_max = math_ops.cast(array_ops.size(average_precision, name="batch_max"), dtypes.float64)
                else:
                    batch_max = reduction_ops.reduce_sum(weights, name="batch_max")
                max_update = assign_add(max_var, batch_max, name="update")
            with name_scope(None, "total", [average_precision]) as total_scope:
                total_var = metric_variable([], dtypes.float64, name=total_scope)
                batch_total = reduction_ops.reduce_sum(average_precision, name="batch_total")
                total_update = assign_add(total_var, batch_total, name="update")
            value = math_ops.div_no_nan(total_var, max_var, name="mean")
            _add_to(metrics_collections, value)
            update = math_ops.div_no_nan(total_update, max_update, name=scope)
            _add_to(updates_collections, update)
            return value, update


@tf_export("metrics.sparse_average_precision_at_k")
def sparse_average_precision_at_k(labels, predictions, k, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    """Deprecated alias of ``average_precision_at_k``."""
    return average_precision_at_k(labels, predictions, k, weights, metrics_collections, updates_collections, name)
