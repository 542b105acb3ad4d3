"""Sampled losses: ``tf.nn.nce_loss`` and ``tf.nn.sampled_softmax_loss``.

Both are TF1's ``_compute_sampled_logits`` followed by a loss: the logits of
each example's true classes and of ``num_sampled`` classes drawn by a
candidate sampler (log-uniform unless ``sampled_values`` are given), each
less the log of its expected count; sampled classes that are also true
classes of a row can be pushed to ``-FLT_MAX`` there
(``remove_accidental_hits``). NCE scores each logit with a sigmoid
cross-entropy (true classes label ``1 / num_true``, sampled ones 0) and sums
them per row; sampled softmax takes a softmax cross-entropy over them. With
the same ``sampled_values`` the losses are TF1's figures.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.ops.array import array_ops, creation_ops, shape_ops, slicing_ops
from dflow.ops.embedding.candidate_sampling_ops import compute_accidental_hits, log_uniform_candidate_sampler
from dflow.ops.embedding.embedding_ops import embedding_lookup
from dflow.ops.linalg import linalg_ops
from dflow.ops.math import math_ops, unary_math_ops
from dflow.ops.nn import nn_losses
from dflow.ops.sparse.sparse_ops import sparse_to_dense


def _sum_rows(x):
    """Row sums as TF1 takes them (a matmul with a ones column), so gradients and rounding match."""
    ones = creation_ops.ones(array_ops.stack([shape_ops.shape(x)[1], 1]), x.dtype)
    return shape_ops.reshape(linalg_ops.matmul(x, ones), [-1])


def compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                           sampled_values=None, subtract_log_q=True, remove_accidental_hits=False,
                           partition_strategy="mod", name=None, seed=None):
    """``(logits, labels)`` ``[batch, num_true + num_sampled]``: TF1's ``_compute_sampled_logits``."""
    if isinstance(weights, tuple):
        weights = list(weights)
    if not isinstance(weights, list):
        weights = [weights]
    with name_scope(name, "compute_sampled_logits", weights + [biases, inputs, labels]):
        labels = convert_to_tensor(labels, name="labels")
        inputs = convert_to_tensor(inputs, name="inputs")
        if labels.dtype is not dtypes.int64:
            labels = math_ops.cast(labels, dtypes.int64)
        labels_flat = shape_ops.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(true_classes=labels, num_true=num_true,
                                                           num_sampled=num_sampled, unique=True,
                                                           range_max=num_classes, seed=seed)
        sampled, true_expected_count, sampled_expected_count = (array_ops.stop_gradient(s) for s in sampled_values)
        sampled = math_ops.cast(sampled, dtypes.int64)
        all_ids = array_ops.concat([labels_flat, sampled], 0)
        all_w = embedding_lookup(weights, all_ids, partition_strategy=partition_strategy)
        if all_w.dtype is not inputs.dtype:
            all_w = math_ops.cast(all_w, inputs.dtype)
        n_true = shape_ops.shape(labels_flat)[0]
        true_w = slicing_ops.slice(all_w, [0, 0], array_ops.stack([n_true, -1]))
        sampled_w = slicing_ops.slice(all_w, array_ops.stack([n_true, 0]), [-1, -1])
        sampled_logits = linalg_ops.matmul(inputs, sampled_w, transpose_b=True)
        all_b = embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
        if all_b.dtype is not inputs.dtype:
            all_b = math_ops.cast(all_b, inputs.dtype)
        true_b = slicing_ops.slice(all_b, [0], shape_ops.shape(labels_flat))
        sampled_b = slicing_ops.slice(all_b, shape_ops.shape(labels_flat), [-1])
        dim = shape_ops.shape(true_w)[1:2]
        row_wise_dots = math_ops.multiply(shape_ops.expand_dims(inputs, 1),
                                          shape_ops.reshape(true_w, array_ops.concat([[-1, num_true], dim], 0)))
        dots_as_matrix = shape_ops.reshape(row_wise_dots, array_ops.concat([[-1], dim], 0))
        true_logits = shape_ops.reshape(_sum_rows(dots_as_matrix), [-1, num_true])
        true_logits += shape_ops.reshape(true_b, [-1, num_true])
        sampled_logits += sampled_b
        if remove_accidental_hits:
            acc_indices, acc_ids, acc_weights = compute_accidental_hits(labels, sampled, num_true=num_true)
            sparse_indices = array_ops.concat([shape_ops.reshape(acc_indices, [-1, 1]),
                                               shape_ops.reshape(math_ops.cast(acc_ids, dtypes.int32), [-1, 1])],
                                              1, "sparse_indices")
            logits_shape = array_ops.concat([shape_ops.shape(labels)[:1], shape_ops.expand_dims(num_sampled, 0)], 0)
            if sampled_logits.dtype is not acc_weights.dtype:
                acc_weights = math_ops.cast(acc_weights, sampled_logits.dtype)
            sampled_logits += sparse_to_dense(sparse_indices, logits_shape, acc_weights, default_value=0.0,
                                              validate_indices=False)
        if subtract_log_q:
            true_logits -= unary_math_ops.log(true_expected_count)
            sampled_logits -= unary_math_ops.log(sampled_expected_count)
        out_logits = array_ops.concat([true_logits, sampled_logits], 1)
        out_labels = array_ops.concat(
            [creation_ops.ones_like(true_logits) / num_true, creation_ops.zeros_like(sampled_logits)], 1)
        return out_logits, out_labels


@tf_export("nn.nce_loss")
def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
             remove_accidental_hits=False, partition_strategy="mod", name="nce_loss"):
    """Noise-contrastive estimation loss per example (``[batch]``): the sigmoid cross-entropy of the
    true classes' and ``num_sampled`` sampled classes' logits, less their log expected counts.

    ``weights`` (``[num_classes, dim]``, or a list of shards) and ``biases``
    (``[num_classes]``) are the output layer; ``labels`` ``[batch, num_true]``.

    >>> import dflow as tf
    >>> sv = (tf.constant([0, 2], tf.int64), tf.constant([[0.5]]), tf.constant([0.5, 0.5]))
    >>> loss = tf.nn.nce_loss(tf.ones([3, 2]), tf.zeros([3]), [[1]], tf.ones([1, 2]), 2, 3, sampled_values=sv)
    >>> loss.shape
    TensorShape([1])
    """
    logits, labels = compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                                            num_true=num_true, sampled_values=sampled_values, subtract_log_q=True,
                                            remove_accidental_hits=remove_accidental_hits,
                                            partition_strategy=partition_strategy, name=name)
    losses = nn_losses.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="sampled_losses")
    return _sum_rows(losses)


@tf_export("nn.sampled_softmax_loss")
def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                         sampled_values=None, remove_accidental_hits=True, partition_strategy="mod",
                         name="sampled_softmax_loss", seed=None):
    """Softmax cross-entropy per example (``[batch]``) over the true classes and ``num_sampled``
    sampled classes only, each logit less its log expected count; a cheap estimate of the full
    softmax loss for training with many classes.

    >>> import dflow as tf
    >>> sv = (tf.constant([0, 2], tf.int64), tf.constant([[0.5]]), tf.constant([0.5, 0.5]))
    >>> loss = tf.nn.sampled_softmax_loss(tf.ones([3, 2]), tf.zeros([3]), [[1]], tf.ones([1, 2]), 2, 3,
    ...                                   sampled_values=sv)
    >>> loss.shape
    TensorShape([1])
    """
    logits, labels = compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                                            num_true=num_true, sampled_values=sampled_values, subtract_log_q=True,
                                            remove_accidental_hits=remove_accidental_hits,
                                            partition_strategy=partition_strategy, name=name, seed=seed)
    labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return nn_losses.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
