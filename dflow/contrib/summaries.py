"""``tf.contrib.layers.summarize_*``: scalar summaries for scalars, histograms for the rest.

As TF 1.15: a summary's tag defaults to ``<op name>_summary``; ``summarize_activation`` adds
``<op>/activation`` (a histogram) and, after ``Relu``, ``Relu6`` or ``Softplus``, the fraction of
zeros ``<op>/zeros`` (and, after ``Relu6``, the fraction over six ``<op>/sixes``).
"""

from __future__ import annotations

import functools
import re

from dflow._api import tf_export
from dflow.framework.graph import GraphKeys, get_default_graph


def _add_scalar_summary(tensor, tag=None):
    from dflow.summary import summary_ops

    tensor.shape.with_rank(0)
    return summary_ops.scalar(tag or f"{tensor.op.name}_summary", tensor)


def _add_histogram_summary(tensor, tag=None):
    from dflow.summary import summary_ops

    return summary_ops.histogram(tag or f"{tensor.op.name}_summary", tensor)


@tf_export("contrib.layers.summarize_tensor")
def summarize_tensor(tensor, tag=None):
    """A scalar summary for a scalar ``tensor``, a histogram otherwise."""
    if tensor.shape.ndims == 0:
        return _add_scalar_summary(tensor, tag)
    return _add_histogram_summary(tensor, tag)


@tf_export("contrib.layers.summarize_activation")
def summarize_activation(op):
    """The histogram ``<op>/activation`` (and zero or six fractions after ReLU-like ops)."""
    from dflow.framework import dtypes
    from dflow.ops.math import math_ops, reduction_ops
    from dflow.ops.nn.nn_losses_extra import zero_fraction

    if op.op.type in ("Relu", "Softplus", "Relu6"):
        _add_scalar_summary(zero_fraction(op), f"{op.op.name}/zeros")
    if op.op.type == "Relu6":
        _add_scalar_summary(reduction_ops.reduce_mean(math_ops.cast(math_ops.greater(op, 6.0), dtypes.float32)),
                            f"{op.op.name}/sixes")
    return _add_histogram_summary(op, f"{op.op.name}/activation")


@tf_export("contrib.layers.summarize_tensors")
def summarize_tensors(tensors, summarizer=summarize_tensor):
    return [summarizer(tensor) for tensor in tensors]


@tf_export("contrib.layers.summarize_collection")
def summarize_collection(collection, name_filter=None, summarizer=summarize_tensor):
    """Summarizes the tensors of ``collection`` whose op names match ``name_filter`` (a regex)."""
    tensors = [t for t in get_default_graph().get_collection(collection)
               if name_filter is None or re.match(name_filter, t.op.name)]
    return summarize_tensors(tensors, summarizer)


summarize_variables = tf_export("contrib.layers.summarize_variables")(
    functools.partial(summarize_collection, GraphKeys.GLOBAL_VARIABLES))
summarize_weights = tf_export("contrib.layers.summarize_weights")(
    functools.partial(summarize_collection, GraphKeys.WEIGHTS))
summarize_biases = tf_export("contrib.layers.summarize_biases")(
    functools.partial(summarize_collection, GraphKeys.BIASES))


@tf_export("contrib.layers.summarize_activations")
def summarize_activations(name_filter=None, summarizer=summarize_activation):
    """``summarize_collection(ACTIVATIONS, name_filter, summarizer)``."""
    return summarize_collection(GraphKeys.ACTIVATIONS, name_filter, summarizer)
