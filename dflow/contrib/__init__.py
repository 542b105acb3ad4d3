"""``tf.contrib``: the parts of TF1's contrib modules that ported programs reach for, built from ops and layers.

Importing the package registers ``tf.contrib.framework`` (``arg_scope``, variable helpers) and
``tf.contrib.layers`` (``fully_connected``, ``conv2d``, ``batch_norm``, ``optimize_loss``, ...).
"""

from dflow.contrib import aliases as aliases  # noqa: F401 - regularizers, initializers, tf.contrib.rnn
from dflow.contrib import batch_norm as _batch_norm  # noqa: F401 - tf.contrib.layers.batch_norm
from dflow.contrib import crf as crf  # noqa: F401 - tf.contrib.crf.*
from dflow.contrib import framework as framework  # noqa: F401 - tf.contrib.framework.*
from dflow.contrib import layers as layers  # noqa: F401 - tf.contrib.layers.*
from dflow.contrib import learn as learn  # noqa: F401 - tf.contrib.learn.ModeKeys, datasets.mnist
from dflow.contrib import opt as opt  # noqa: F401 - tf.contrib.opt.*
from dflow.contrib import optimizers as _optimizers  # noqa: F401 - tf.contrib.layers.optimize_loss
from dflow.contrib import rnn_extra as _rnn_extra  # noqa: F401 - tf.contrib.rnn's own cells
from dflow.contrib import seq2seq as seq2seq  # noqa: F401 - tf.contrib.seq2seq.*
from dflow.contrib import summaries as _summaries  # noqa: F401 - tf.contrib.layers.summarize_*
from dflow.contrib import training as training  # noqa: F401 - tf.contrib.training.HParams
