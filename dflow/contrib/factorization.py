"""``tf.contrib.factorization.KMeans``: TF 1.15's graph of k-means clustering, from ops and variables.

>>> import dflow as tf
>>> x = tf.placeholder(tf.float32, [None, 2])
>>> kmeans = tf.contrib.factorization.KMeans(inputs=x, num_clusters=2, use_mini_batch=True)
>>> all_scores, cluster_idx, scores, initialized, init_op, train_op = kmeans.training_graph()
>>> len(cluster_idx), initialized.dtype.name
(1, 'bool')

``training_graph`` gives, per input tensor, the distances to every centre (``all_scores``), the
nearest centre (``cluster_idx``) and the distance to it (``scores``); ``init_op`` picks the first
centres once (``cluster_centers_initialized`` says whether it has), ``training_op`` moves them:
Lloyd's step over the whole input, or with ``use_mini_batch`` TF's running-mean update
``c += (sum(x) - n * c) / (count + n)`` with per-centre counts starting at 1. Under
``distance_metric='cosine'`` inputs and centres are l2-normalised and a distance is
``1 - cosine similarity``. The first centres are ``num_clusters`` inputs drawn at random (with
replacement, TF's ``RANDOM_INIT``) or given (a tensor, an array or a callable
``f(inputs, num_clusters)``); the k-means++ and k-MC2 seedings are not built.
"""

from __future__ import annotations

import numpy as np

from dflow._api import export_value, tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import control_dependencies
from dflow.ops.array import array_ops, creation_ops, gather_ops, shape_ops
from dflow.ops.control_flow import control_flow_ops
from dflow.ops.linalg import linalg_ops
from dflow.ops.math import math_ops, reduction_ops, segment_ops, sort_ops, unary_math_ops
from dflow.ops.nn import nn_norm_ops
from dflow.ops.random import random_ops
from dflow.ops.state import variables

RANDOM_INIT = "random"
KMEANS_PLUS_PLUS_INIT = "kmeans_plus_plus"
KMC2_INIT = "kmc2"
SQUARED_EUCLIDEAN_DISTANCE = "squared_euclidean"
COSINE_DISTANCE = "cosine"
_EPSILON = 1e-7

for _name in ("RANDOM_INIT", "KMEANS_PLUS_PLUS_INIT", "KMC2_INIT", "SQUARED_EUCLIDEAN_DISTANCE", "COSINE_DISTANCE"):
    export_value(f"contrib.factorization.{_name}", globals()[_name])


@tf_export("contrib.factorization.KMeans")
class KMeans:
    """The graph of k-means clustering (TF 1.15's ``tf.contrib.factorization.KMeans``)."""

    RANDOM_INIT = RANDOM_INIT
    KMEANS_PLUS_PLUS_INIT = KMEANS_PLUS_PLUS_INIT
    KMC2_INIT = KMC2_INIT
    SQUARED_EUCLIDEAN_DISTANCE = SQUARED_EUCLIDEAN_DISTANCE
    COSINE_DISTANCE = COSINE_DISTANCE

    def __init__(self, inputs, num_clusters, initial_clusters=RANDOM_INIT,
                 distance_metric=SQUARED_EUCLIDEAN_DISTANCE, use_mini_batch=False,
                 mini_batch_steps_per_iteration=1, random_seed=0, kmeans_plus_plus_num_retries=2,
                 kmc2_chain_length=200):
        if distance_metric not in (SQUARED_EUCLIDEAN_DISTANCE, COSINE_DISTANCE):
            raise ValueError(f"Unsupported distance metric {distance_metric!r}")
        if isinstance(initial_clusters, str) and initial_clusters in (KMEANS_PLUS_PLUS_INIT, KMC2_INIT):
            raise NotImplementedError(
                f"tf.contrib.factorization.KMeans(initial_clusters={initial_clusters!r}) is not built in dflow; "
                f"use {RANDOM_INIT!r} or give the initial centres")
        if isinstance(initial_clusters, str) and initial_clusters != RANDOM_INIT:
            raise ValueError(f"Unsupported initialization {initial_clusters!r}")
        if use_mini_batch and mini_batch_steps_per_iteration != 1:
            raise NotImplementedError(
                "tf.contrib.factorization.KMeans(mini_batch_steps_per_iteration > 1) is not built in dflow")
        self._inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        self._inputs = [convert_to_tensor(i) for i in self._inputs]
        self._num_clusters = num_clusters
        self._initial_clusters = initial_clusters
        self._distance_metric = distance_metric
        self._use_mini_batch = use_mini_batch
        self._random_seed = random_seed

    def _normalized(self, tensors):
        if self._distance_metric != COSINE_DISTANCE:
            return tensors
        return [nn_norm_ops.l2_normalize(t, axis=1) for t in tensors]

    def _distances(self, inputs, clusters):
        """Per input: the ``[n, k]`` distances to every centre."""
        out = []
        for inp in inputs:
            products = linalg_ops.matmul(inp, clusters, transpose_b=True)
            if self._distance_metric == COSINE_DISTANCE:
                out.append(1.0 - products)
            else:
                out.append(reduction_ops.reduce_sum(unary_math_ops.square(inp), 1, keepdims=True) - 2.0 * products
                           + shape_ops.reshape(reduction_ops.reduce_sum(unary_math_ops.square(clusters), 1), [1, -1]))
        return out

    def _initial_value(self, inputs):
        k = self._num_clusters
        init = self._initial_clusters
        if callable(init):
            return convert_to_tensor(init(inputs, k), dtype=inputs[0].dtype)
        if not isinstance(init, str):
            return convert_to_tensor(np.asarray(init) if not hasattr(init, "op") else init, dtype=inputs[0].dtype)
        data = inputs[0] if len(inputs) == 1 else array_ops.concat(inputs, 0)
        num_data = shape_ops.shape(data, out_type=dtypes.int64)[0]
        indices = random_ops.random_uniform([k], minval=0, maxval=num_data, dtype=dtypes.int64,
                                            seed=self._random_seed)
        return gather_ops.gather(data, indices)

    def training_graph(self):
        """``(all_scores, cluster_idx, scores, cluster_centers_initialized, init_op, training_op)``."""
        inputs = self._normalized(self._inputs)
        dim = inputs[0].shape.as_list()[1] if inputs[0].shape.ndims == 2 else None
        if dim is None:
            raise ValueError("KMeans needs inputs of a known rank-2 shape [batch, features]")
        dtype = inputs[0].dtype.base_dtype
        k = self._num_clusters
        centers = variables.Variable(creation_ops.zeros([k, dim], dtype=dtype), name="clusters", trainable=False)
        initialized = variables.Variable(False, name="initialized", trainable=False)
        counts = (variables.Variable(creation_ops.ones([k], dtype=dtypes.int64), name="clusters_count",
                                     trainable=False) if self._use_mini_batch else None)

        first = self._initial_value(inputs)
        if self._distance_metric == COSINE_DISTANCE:
            first = nn_norm_ops.l2_normalize(first, axis=1)
        chosen = control_flow_ops.cond(initialized, lambda: centers.read_value(), lambda: first)
        with control_dependencies([variables.assign(centers, chosen)]):
            init_op = variables.assign(initialized, True).op

        clusters = centers.read_value()
        if self._distance_metric == COSINE_DISTANCE and self._use_mini_batch:
            clusters = nn_norm_ops.l2_normalize(clusters, axis=1)
        all_scores = self._distances(inputs, clusters)
        cluster_idx = [reduction_ops.argmin(d, 1) for d in all_scores]
        scores = [reduction_ops.reduce_min(d, 1) for d in all_scores]
        if self._distance_metric == SQUARED_EUCLIDEAN_DISTANCE:
            scores = [math_ops.maximum(s, 0.0) for s in scores]

        if self._use_mini_batch:
            training_op = self._mini_batch_training_op(inputs, cluster_idx, centers, counts)
        else:
            training_op = self._full_batch_training_op(inputs, cluster_idx, centers)
        return all_scores, cluster_idx, scores, initialized, init_op, training_op

    def _full_batch_training_op(self, inputs, cluster_idx, centers):
        k = self._num_clusters
        sums, counts = [], []
        for inp, idx in zip(inputs, cluster_idx):
            sums.append(segment_ops.unsorted_segment_sum(inp, idx, k))
            counts.append(segment_ops.unsorted_segment_sum(
                creation_ops.ones_like(idx, dtype=inp.dtype.base_dtype), idx, k))
        total = math_ops.add_n(sums) if len(sums) > 1 else sums[0]
        count = math_ops.add_n(counts) if len(counts) > 1 else counts[0]
        new_centers = total / (shape_ops.expand_dims(count, 1) + _EPSILON)
        if self._distance_metric == COSINE_DISTANCE:
            new_centers = nn_norm_ops.l2_normalize(new_centers, axis=1)
        return variables.assign(centers, new_centers).op

    def _mini_batch_training_op(self, inputs, cluster_idx, centers, counts):
        updates = []
        for inp, idx in zip(inputs, cluster_idx):
            unique_ids, unique_idx = sort_ops.unique(idx)
            num_unique = shape_ops.size(unique_ids)
            old_counts = gather_ops.gather(counts, unique_ids)
            old_centers = gather_ops.gather(centers, unique_ids)
            count_updates = segment_ops.unsorted_segment_sum(
                creation_ops.ones_like(unique_idx, dtype=dtypes.int64), unique_idx, num_unique)
            center_updates = segment_ops.unsorted_segment_sum(inp, unique_idx, num_unique)
            dtype = inp.dtype.base_dtype
            center_updates -= shape_ops.expand_dims(math_ops.cast(count_updates, dtype), 1) * old_centers
            rate = unary_math_ops.reciprocal(math_ops.cast(old_counts + count_updates, dtype))
            center_updates *= shape_ops.expand_dims(rate, 1)
            with control_dependencies([center_updates]):  # both reads before either write
                updates.append(variables.scatter_add(counts, unique_ids, count_updates))
                updates.append(variables.scatter_add(centers, unique_ids, center_updates))
        return control_flow_ops.group(*updates)
