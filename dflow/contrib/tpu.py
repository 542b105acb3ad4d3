"""``tf.tpu`` / ``tf.contrib.tpu`` pieces that TPU-ready TF1 programs (BERT) touch when they run on CPU.

dflow has no TPU. As TF 1.15 does outside a TPU shard context, ``CrossShardOptimizer`` then
assumes one shard: the loss is scaled by ``1 / 1`` and the gradients are those of the wrapped
optimizer (no cross-replica sum), so it behaves as the optimizer it wraps.
``TPUClusterResolver`` (``tf.distribute.cluster_resolver`` / ``tf.contrib.cluster_resolver``)
raises ``NotImplementedError``: a program asks for it only when it runs on a TPU.

``TPUEstimator`` and its ``RunConfig``/``TPUConfig``/``TPUEstimatorSpec`` live in
``dflow.estimator.tpu_estimator`` (they build on ``tf.estimator``).
"""

from __future__ import annotations

import logging

from dflow._api import tf_export
from dflow.ops.nn.losses_ops import Reduction
from dflow.train.optimizers.optimizer import Optimizer

_log = logging.getLogger("dflow")

__all__ = ["CrossShardOptimizer", "TPUClusterResolver"]


@tf_export("tpu.CrossShardOptimizer", "contrib.tpu.CrossShardOptimizer")
class CrossShardOptimizer(Optimizer):
    """Wraps ``opt`` to average gradients across TPU shards; on CPU (no shard context) one shard.

    ``reduction`` is ``tf.losses.Reduction.MEAN`` (the loss is divided by the number of shards)
    or ``SUM``; ``group_assignment`` names the replica groups (only checked here).
    """

    def __init__(self, opt, reduction=Reduction.MEAN, name="CrossShardOptimizer", group_assignment=None):
        if reduction not in (Reduction.SUM, Reduction.MEAN):
            raise ValueError(f"Unsupported reduction: {reduction}.")
        super().__init__(False, name)
        self._opt = opt
        self._reduction = reduction
        self._group_assignment = group_assignment

    @staticmethod
    def _num_shards() -> int:
        _log.warning("CrossShardOptimizer should be used within a tpu_shard_context, but got unset "
                     "number_of_shards. Assuming 1.")
        return 1

    def compute_gradients(self, loss, var_list=None, **kwargs):
        num_shards = self._num_shards()
        if self._reduction == Reduction.MEAN and num_shards != 1:
            loss = loss * (1.0 / num_shards)
        return self._opt.compute_gradients(loss, var_list=var_list, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        # One shard: the cross-replica sum of a gradient is the gradient itself.
        return self._opt.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def get_slot(self, *args, **kwargs):
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self):
        return self._opt.variables()


@tf_export("distribute.cluster_resolver.TPUClusterResolver", "contrib.cluster_resolver.TPUClusterResolver")
class TPUClusterResolver:
    """Finds a Cloud TPU by name: dflow runs on CPUs and Dask clusters, never on a TPU."""

    def __init__(self, tpu=None, zone=None, project=None, job_name="worker", coordinator_name=None,
                 coordinator_address=None, credentials="default", service=None, discovery_url=None):
        raise NotImplementedError("tf.distribute.cluster_resolver.TPUClusterResolver: dflow has no TPU support; "
                                  "run the program with use_tpu=False")
