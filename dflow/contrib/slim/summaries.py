"""``slim.summaries``: scalar, histogram, image and zero-fraction summaries with slim's naming
(``prefix/name``, default name the tensor's op name)."""

from __future__ import annotations


def _name(tensor, name, prefix):
    name = name or tensor.op.name
    return f"{prefix}/{name}" if prefix else name


def add_histogram_summary(tensor, name=None, prefix=None):
    from dflow.summary.summary_ops import histogram

    return histogram(_name(tensor, name, prefix), tensor)


def add_image_summary(tensor, name=None, prefix=None, print_summary=False):
    from dflow.summary.summary_ops import image

    return _maybe_print(image(_name(tensor, name, prefix), tensor), tensor, print_summary)


def add_scalar_summary(tensor, name=None, prefix=None, print_summary=False):
    from dflow.summary.summary_ops import scalar

    name = _name(tensor, name, prefix)
    return _maybe_print(scalar(name, tensor), tensor, print_summary, name)


def add_zero_fraction_summary(tensor, name=None, prefix=None, print_summary=False):
    from dflow.ops.nn.nn_losses_extra import zero_fraction

    name = _name(tensor, name, prefix)
    return add_scalar_summary(zero_fraction(tensor), name, print_summary=print_summary)


def _maybe_print(op, tensor, print_summary, message=None):
    if not print_summary:
        return op
    from dflow.ops.debugging.logging_ops import Print

    return Print(op, [tensor], message)


def add_histogram_summaries(tensors, prefix=None):
    return [add_histogram_summary(t, prefix=prefix) for t in tensors]


def add_image_summaries(tensors, prefix=None):
    return [add_image_summary(t, prefix=prefix) for t in tensors]


def add_scalar_summaries(tensors, prefix=None, print_summary=False):
    return [add_scalar_summary(t, prefix=prefix, print_summary=print_summary) for t in tensors]


def add_zero_fraction_summaries(tensors, prefix=None):
    return [add_zero_fraction_summary(t, prefix=prefix) for t in tensors]
