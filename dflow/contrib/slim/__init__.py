"""``tf.contrib.slim`` (``import dflow.contrib.slim as slim``): TF-slim as TF 1.15 shipped it.

slim re-exports ``tf.contrib.framework`` (``arg_scope``, ``add_arg_scope``, ``model_variable``,
``variable``, ``get_variables*``, ``get_variables_to_restore``, ``assign_from_checkpoint_fn``,
``assign_from_values_fn``, the global-step helpers) and ``tf.contrib.layers`` (``conv2d``,
``conv2d_transpose``, ``separable_conv2d``, ``fully_connected``, ``max_pool2d``, ``avg_pool2d``,
``flatten``, ``dropout``, ``batch_norm``, ``layer_norm``, ``one_hot_encoding``, ``repeat``, ``stack``, the
regularizers and initializers, ...): the same objects, so an ``arg_scope`` on ``slim.conv2d`` reaches
``tf.contrib.layers.conv2d``. Its modules:

* ``slim.learning``: ``create_train_op``, ``train`` (the ``Supervisor`` loop);
* ``slim.evaluation``: ``evaluate_once``, ``evaluation_loop``;
* ``slim.losses`` (``tf.contrib.losses``) and ``slim.metrics`` (``tf.contrib.metrics``);
* ``slim.summaries`` (``add_scalar_summary``, ...), ``slim.utils`` (``convert_collection_to_dict``),
  ``slim.model_analyzer`` (``analyze_vars``, ``analyze_ops``) and ``slim.queues`` (``QueueRunners``);
* ``slim.prefetch_queue`` (``prefetch_queue``: a queue a runner keeps filled with batches);
* ``slim.nets`` (the model zoo) and ``slim.data`` (dataset providers, ``TFExampleDecoder``) are not
  provided: using them raises ``NotImplementedError``.
"""

from dflow._api import exported_names, tf_export
from dflow.contrib import assign_fns as _assign_fns  # noqa: F401 - contrib.framework.assign_from_*
from dflow.contrib import layers_extra as _layers_extra  # noqa: F401 - contrib.layers.separable_conv2d
from dflow.contrib import losses as losses
from dflow.contrib import metrics as metrics
from dflow.contrib.slim import evaluation as evaluation
from dflow.contrib.slim import learning as learning
from dflow.contrib.slim import model_analyzer as model_analyzer
from dflow.contrib.slim import prefetch_queue as prefetch_queue
from dflow.contrib.slim import queues as queues
from dflow.contrib.slim import summaries as summaries
from dflow.contrib.slim import utils as utils

_NOT_PROVIDED = {
    "nets": "tf.contrib.slim.nets (TF-slim's model zoo: resnet_v1, inception, vgg, ...)",
    "data": "tf.contrib.slim.data (dataset providers, TFExampleDecoder)",
}


def __getattr__(name):
    if name in _NOT_PROVIDED:
        raise NotImplementedError(f"{_NOT_PROVIDED[name]} is not implemented in dflow")
    raise AttributeError(f"module 'dflow.contrib.slim' has no attribute {name!r}")


def register_slim_names() -> None:
    """Exports every ``contrib.framework`` and ``contrib.layers`` name under ``contrib.slim`` too (called once
    the modules defining them are imported)."""
    exports = exported_names()
    for dotted, obj in exports.items():
        for prefix in ("contrib.framework.", "contrib.layers."):
            if dotted.startswith(prefix):
                leaf = dotted[len(prefix):]
                if "." not in leaf and f"contrib.slim.{leaf}" not in exports:
                    tf_export(f"contrib.slim.{leaf}")(obj)
                    globals()[leaf] = obj
