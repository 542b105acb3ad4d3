"""``tf.contrib``: the parts of TF1's contrib modules that ported programs reach for, built from ops and layers.

Importing the package registers ``tf.contrib.framework`` (``arg_scope``, variable helpers) and
``tf.contrib.layers`` (``fully_connected``, ``conv2d``, ``batch_norm``, ``optimize_loss``, ...), and
``tf.contrib.slim``, ``metrics``, ``losses``, ``distributions`` and ``legacy_seq2seq``; once every module is
imported, ``slim.register_slim_names()`` re-exports the framework and layers names under ``tf.contrib.slim``.
"""

from dflow.contrib import aliases as aliases  # noqa: F401 - regularizers, initializers, tf.contrib.rnn
from dflow.contrib import assign_fns as _assign_fns  # noqa: F401 - tf.contrib.framework.assign_from_*
from dflow.contrib import batch_norm as _batch_norm  # noqa: F401 - tf.contrib.layers.batch_norm
from dflow.contrib import crf as crf  # noqa: F401 - tf.contrib.crf.*
from dflow.contrib import distributions as distributions  # noqa: F401 - tf.contrib.distributions.*
from dflow.contrib import factorization as factorization  # noqa: F401 - tf.contrib.factorization.KMeans
from dflow.contrib import framework as framework  # noqa: F401 - tf.contrib.framework.*
from dflow.contrib import layers as layers  # noqa: F401 - tf.contrib.layers.*
from dflow.contrib import layers_extra as _layers_extra  # noqa: F401 - tf.contrib.layers.separable_conv2d
from dflow.contrib import learn as learn  # noqa: F401 - tf.contrib.learn.ModeKeys, datasets.mnist
from dflow.contrib import legacy_seq2seq as legacy_seq2seq  # noqa: F401 - tf.contrib.legacy_seq2seq.*
from dflow.contrib import losses as losses  # noqa: F401 - tf.contrib.losses.* (slim.losses)
from dflow.contrib import metrics as metrics  # noqa: F401 - tf.contrib.metrics.* (slim.metrics)
from dflow.contrib import opt as opt  # noqa: F401 - tf.contrib.opt.*
from dflow.contrib import optimizers as _optimizers  # noqa: F401 - tf.contrib.layers.optimize_loss
from dflow.contrib import rnn_extra as _rnn_extra  # noqa: F401 - tf.contrib.rnn's own cells
from dflow.contrib import seq2seq as seq2seq  # noqa: F401 - tf.contrib.seq2seq.*
from dflow.contrib import slim as slim  # noqa: F401 - tf.contrib.slim (register_slim_names below re-exports the rest)
from dflow.contrib import summaries as _summaries  # noqa: F401 - tf.contrib.layers.summarize_*
from dflow.contrib import tensorboard as tensorboard  # noqa: F401 - tf.contrib.tensorboard.plugins.projector
from dflow.contrib import tpu as tpu  # noqa: F401 - tf.tpu.CrossShardOptimizer, TPUClusterResolver
from dflow.contrib import training as training  # noqa: F401 - tf.contrib.training.HParams

slim.register_slim_names()
