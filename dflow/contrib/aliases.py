"""The parts of TF1's ``tf.contrib`` that ported scripts reach for most, where dflow has the core piece.

* ``tf.contrib.layers``: ``l1_regularizer``, ``l2_regularizer``,
  ``l1_l2_regularizer``, ``sum_regularizer``, ``apply_regularization``,
  ``xavier_initializer`` (and ``_conv2d``), ``variance_scaling_initializer``
  (contrib's own formulas: its truncated normal has standard deviation
  ``sqrt(1.3 * factor / n)``, unlike core's);
* ``tf.contrib.rnn``: the cells and RNN functions that TF 1.15's
  ``tf.contrib.rnn`` re-exported from ``tf.nn`` (the same objects).

``tf.contrib.layers``' layer functions are in ``layers.py`` (``batch_norm.py``, ``optimizers.py``,
``summaries.py``, ``layers_extra.py``: ``separable_conv2d``), ``tf.contrib.framework`` in ``framework.py``
(``assign_fns.py``: ``assign_from_checkpoint_fn``, ``assign_from_values_fn``), and ``seq2seq/``,
``legacy_seq2seq.py``, ``crf.py``, ``opt.py``, ``training.py``, ``learn.py``, ``rnn_extra.py``,
``metrics.py`` (``tf.contrib.metrics``), ``losses.py`` (``tf.contrib.losses``), ``distributions.py``
and ``slim/`` (``tf.contrib.slim``: ``learning``, ``evaluation``, ``summaries``, ``utils``) hold those
namespaces (docs/porting.md says what each lacks).
"""

from __future__ import annotations

import math
import numbers

from dflow._api import exported_names, tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import GraphKeys, get_default_graph, name_scope


def _check_scale(scale) -> bool:
    """TF1's checks; False when the scale switches the regularizer off."""
    if isinstance(scale, numbers.Integral):
        raise ValueError(f"scale cannot be an integer: {scale}")
    if isinstance(scale, numbers.Real):
        if scale < 0.0:
            raise ValueError(f"Setting a scale less than 0 on a regularizer: {scale:g}")
        if scale == 0.0:
            return False
    return True


@tf_export("contrib.layers.l1_regularizer")
def l1_regularizer(scale, scope=None):
    """A function ``weights -> scale * sum(|weights|)`` (None for a scale of 0)."""
    from dflow.ops.math import math_ops, reduction_ops

    if not _check_scale(scale):
        return lambda _: None

    def l1(weights):
        with name_scope(scope, "l1_regularizer", [weights]) as name:
            my_scale = convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return math_ops.multiply(my_scale, reduction_ops.reduce_sum(math_ops.abs(weights)), name=name)

    return l1


@tf_export("contrib.layers.l2_regularizer")
def l2_regularizer(scale, scope=None):
    """A function ``weights -> scale * sum(weights²) / 2`` (``tf.nn.l2_loss``; None for a scale of 0)."""
    from dflow.ops.math import math_ops
    from dflow.ops.nn.nn_losses import l2_loss

    if not _check_scale(scale):
        return lambda _: None

    def l2(weights):
        with name_scope(scope, "l2_regularizer", [weights]) as name:
            my_scale = convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return math_ops.multiply(my_scale, l2_loss(weights), name=name)

    return l2


@tf_export("contrib.layers.sum_regularizer")
def sum_regularizer(regularizer_list, scope=None):
    """The sum of several regularizers' penalties (None when none applies)."""
    from dflow.ops.math import math_ops

    regularizer_list = [r for r in regularizer_list if r]
    if not regularizer_list:
        return None

    def sum_reg(weights):
        with name_scope(scope, "sum_regularizer", [weights]) as name:
            penalties = [p for p in (r(weights) for r in regularizer_list) if p is not None]
            return math_ops.add_n(penalties, name=name)

    return sum_reg


@tf_export("contrib.layers.l1_l2_regularizer")
def l1_l2_regularizer(scale_l1=1.0, scale_l2=1.0, scope=None):
    """``l1_regularizer(scale_l1) + l2_regularizer(scale_l2)``."""
    if isinstance(scale_l1, numbers.Integral) or isinstance(scale_l2, numbers.Integral):
        raise ValueError(f"scale cannot be an integer: {scale_l1}, {scale_l2}")
    scope = scope or "l1_l2_regularizer"
    if scale_l1 == 0.0:
        return l2_regularizer(scale_l2, scope)
    if scale_l2 == 0.0:
        return l1_regularizer(scale_l1, scope)
    return sum_regularizer([l1_regularizer(scale_l1), l2_regularizer(scale_l2)], scope=scope)


@tf_export("contrib.layers.apply_regularization")
def apply_regularization(regularizer, weights_list=None):
    """Sums ``regularizer`` over ``weights_list`` (default: the ``weights`` collection), adds the sum
    to ``REGULARIZATION_LOSSES`` and returns it."""
    from dflow.ops.math import math_ops

    if not weights_list:
        weights_list = get_default_graph().get_collection(GraphKeys.WEIGHTS)
    if not weights_list:
        raise ValueError("No weights to regularize.")
    with name_scope("get_regularization_penalty", values=weights_list) as scope:
        penalties = [p for p in (regularizer(w) for w in weights_list) if p is not None]
        if not penalties:
            return convert_to_tensor(0.0)
        summed = math_ops.add_n(penalties, name=scope)
        get_default_graph().add_to_collection(GraphKeys.REGULARIZATION_LOSSES, summed)
        return summed


@tf_export("contrib.layers.variance_scaling_initializer")
def variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=False, seed=None, dtype=dtypes.float32):
    """contrib's He/Xavier initializer: uniform in ``±sqrt(3·factor/n)``, or a truncated normal of
    standard deviation ``sqrt(1.3·factor/n)``; ``n`` is the fan in, out or their mean (``mode``)."""
    from dflow.ops.random.random_ops import random_uniform, truncated_normal
    from dflow.ops.state.init_ops import _compute_fans

    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError("Cannot create initializer for non-floating point type.")
    if mode not in ("FAN_IN", "FAN_OUT", "FAN_AVG"):
        raise TypeError(f"Unknown mode {mode} [FAN_IN, FAN_OUT, FAN_AVG]")

    def _initializer(shape, dtype=dtype, partition_info=None):
        dtype = dtypes.as_dtype(dtype)
        if not dtype.is_floating:
            raise TypeError("Cannot create initializer for non-floating point type.")
        fan_in, fan_out = _compute_fans(shape if partition_info is None else partition_info.full_shape)
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[mode]
        if uniform:
            limit = math.sqrt(3.0 * factor / n)
            return random_uniform(shape, -limit, limit, dtype, seed=seed)
        return truncated_normal(shape, 0.0, math.sqrt(1.3 * factor / n), dtype, seed=seed)

    return _initializer


@tf_export("contrib.layers.xavier_initializer", "contrib.layers.xavier_initializer_conv2d")
def xavier_initializer(uniform=True, seed=None, dtype=dtypes.float32):
    """Glorot's initializer as contrib spelled it: ``variance_scaling_initializer(1.0, "FAN_AVG", uniform)``."""
    return variance_scaling_initializer(factor=1.0, mode="FAN_AVG", uniform=uniform, seed=seed, dtype=dtype)


# tf.contrib.rnn: what TF 1.15 re-exported there from tf.nn (the same objects).
_CONTRIB_RNN = {
    "BasicLSTMCell": "nn.rnn_cell.BasicLSTMCell", "BasicRNNCell": "nn.rnn_cell.BasicRNNCell",
    "GRUCell": "nn.rnn_cell.GRUCell", "LSTMCell": "nn.rnn_cell.LSTMCell",
    "LSTMStateTuple": "nn.rnn_cell.LSTMStateTuple", "MultiRNNCell": "nn.rnn_cell.MultiRNNCell",
    "RNNCell": "nn.rnn_cell.RNNCell", "DropoutWrapper": "nn.rnn_cell.DropoutWrapper",
    "ResidualWrapper": "nn.rnn_cell.ResidualWrapper", "DeviceWrapper": "nn.rnn_cell.DeviceWrapper",
    "static_rnn": "nn.static_rnn", "static_bidirectional_rnn": "nn.static_bidirectional_rnn",
    "static_state_saving_rnn": "nn.static_state_saving_rnn",
}


def register_contrib_rnn() -> None:
    """Called once every module is imported (the cells live in other modules)."""
    exports = exported_names()
    for name, target in _CONTRIB_RNN.items():
        if target in exports and f"contrib.rnn.{name}" not in exports:
            tf_export(f"contrib.rnn.{name}")(exports[target])
