"""``tf.Assert``, ``tf.Print`` and ``tf.print``: ops that check or show values when they run.

They run in the process that runs their partition: on a cluster, a ``Print``
on ``/job:worker/task:1`` writes to that worker's stderr, as in TF1.

>>> import dflow as tf
>>> x = tf.constant([1.0, -2.0])
>>> check = tf.Assert(tf.reduce_all(x > 0), [x])
>>> with tf.Session() as sess:
...     sess.run(check)
Traceback (most recent call last):
...
dflow.framework.errors.InvalidArgumentError: assertion failed: [1 -2] ...
"""

from __future__ import annotations

import logging
import sys

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Operation, Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, not_differentiable, register
from dflow.ops.debugging.summarize import summarize_v1, summarize_v2


def _as_data_tensors(data) -> list:
    if isinstance(data, (Tensor, str, bytes)) or not hasattr(data, "__iter__"):
        data = [data]
    return [d if isinstance(d, Tensor) else convert_to_tensor(d) for d in data]


# -- Assert -------------------------------------------------------------------------------------------


def _assert_kernel(condition, *data, summarize):
    if condition.shape != ():
        raise errors.InvalidArgumentError(None, None, f"In[0] expected to be a scalar, got shape {condition.shape}")
    if not bool(condition):
        shown = " ".join(f"[{summarize_v1(d, summarize)}]" for d in data)
        raise errors.InvalidArgumentError(None, None, f"assertion failed: {shown}")


register("Assert", infer=lambda op: [], kernel=_assert_kernel, foldable=False, stateful=True)
not_differentiable("Assert")


@tf_export("Assert", "debugging.Assert")
def Assert(condition, data, summarize=None, name=None) -> Operation:  # noqa: N802 - TF1's name
    """An op that fails with ``InvalidArgumentError("assertion failed: [data...]")`` when ``condition`` is false.

    ``data`` (tensors or Python values) is printed with ``summarize`` (default 3) elements each.
    Use the op as a control dependency, or run it.
    """
    with name_scope(name, "Assert", [condition, data]):
        condition = convert_to_tensor(condition, dtype=dtypes.bool, name="Condition")
        if condition.shape.ndims not in (None, 0):
            raise ValueError(f"Assert's condition must be a scalar bool, got shape {condition.shape}")
        data = _as_data_tensors(data)
        return apply_op("Assert", [condition, *data], {"summarize": 3 if summarize is None else int(summarize)},
                        name="Assert")


# -- tf.Print (TF1's identity that prints) ----------------------------------------------------------


def _print_make_kernel(op, resources):
    message, first_n, summarize = op._attrs["message"], op._attrs["first_n"], op._attrs["summarize"]
    state = resources.op_state(op, lambda: {"count": 0})

    def kernel(value, *data):
        if first_n < 0 or state["count"] < first_n:
            state["count"] += 1
            line = message + "".join(f"[{summarize_v1(d, summarize)}]" for d in data)
            print(line, file=sys.stderr, flush=True)
        return value

    return kernel


register("Print", infer=lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)], make_kernel=_print_make_kernel,
         stateful=True)


@gradient("Print")
def _print_grad(op, grad):
    return [grad] + [None] * (len(op.inputs) - 1)


@tf_export("Print")
def Print(input_, data, message=None, first_n=None, summarize=None, name=None) -> Tensor:  # noqa: N802
    """``input_``, unchanged; running it prints ``message`` and ``data`` to stderr (TF1's ``tf.Print``).

    ``first_n`` prints only the first n times (per session); ``summarize`` elements of each tensor (default 3).
    """
    input_ = convert_to_tensor(input_)
    data = _as_data_tensors(data)
    attrs = {"message": message or "", "first_n": -1 if first_n is None else int(first_n),
             "summarize": 3 if summarize is None else int(summarize)}
    return apply_op("Print", [input_, *data], attrs, name=name or "Print").outputs[0]


# -- tf.print (PrintV2) -------------------------------------------------------------------------------

_LOG_LEVELS = {"info": logging.INFO, "warning": logging.WARNING, "warn": logging.WARNING, "error": logging.ERROR}


def _stream_name(output_stream) -> str:
    """``tf.print``'s ``output_stream`` as a name the kernel resolves when it runs (stdout may be swapped)."""
    if output_stream is sys.stdout or output_stream is sys.__stdout__:
        return "stdout"
    if output_stream is sys.stderr or output_stream is sys.__stderr__:
        return "stderr"
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        return output_stream
    fn_name = getattr(output_stream, "__name__", None)
    if callable(output_stream) and fn_name in _LOG_LEVELS:
        return f"log({fn_name})"
    raise ValueError(f"Unsupported output stream, logging level, or file.{output_stream}. Supported streams are "
                     f"sys.stdout, sys.stderr, tf.logging.info/warning/error (or logging's), and 'file://' paths.")


def _write(stream: str, text: str) -> None:
    if stream == "stdout":
        sys.stdout.write(text)
        sys.stdout.flush()
    elif stream == "stderr":
        sys.stderr.write(text)
        sys.stderr.flush()
    elif stream.startswith("file://"):
        with open(stream[len("file://"):], "a") as f:
            f.write(text)
    else:
        level = _LOG_LEVELS[stream[len("log("):-1]]
        logging.getLogger("tensorflow").log(level, text.rstrip("\n"))


def _render(template, values: list, summarize: int) -> str:
    if template is None:
        return summarize_v2(values.pop(0), summarize)
    if isinstance(template, tuple) and template and template[0] in ("$list", "$tuple", "$dict"):
        kind, items = template
        if kind == "$dict":
            return "{" + ", ".join(f"{k!r}: {_render(v, values, summarize)}" for k, v in items) + "}"
        inner = ", ".join(_render(v, values, summarize) for v in items)
        return f"[{inner}]" if kind == "$list" else f"({inner}{',' if len(items) == 1 else ''})"
    return str(template)


def _print_v2_kernel(*values, template, sep, end, summarize, stream):
    values = list(values)
    _write(stream, sep.join(_render(t, values, summarize) for t in template) + end)


register("PrintV2", infer=lambda op: [], kernel=_print_v2_kernel, foldable=False, stateful=True)
not_differentiable("PrintV2")


def _template(x, tensors: list):
    """``x`` with each tensor replaced by None (a placeholder) and appended to ``tensors``."""
    if isinstance(x, Tensor):
        tensors.append(x)
        return None
    if hasattr(x, "_as_graph_element") and not isinstance(x, Operation):  # a Variable
        tensors.append(convert_to_tensor(x))
        return None
    if isinstance(x, dict):
        return ("$dict", tuple((k, _template(v, tensors)) for k, v in sorted(x.items(), key=lambda kv: str(kv[0]))))
    if isinstance(x, (list, tuple)):
        return ("$list" if isinstance(x, list) else "$tuple", tuple(_template(v, tensors) for v in x))
    return str(x)


@tf_export("print")
def print_v2(*inputs, **kwargs) -> Operation:
    """An op that prints ``inputs`` (tensors, Python values, nested lists/dicts) when it runs (TF's ``tf.print``).

    Keyword arguments: ``output_stream`` (default ``sys.stderr``; ``sys.stdout``,
    ``tf.logging.info``-style functions, ``"file://path"``), ``summarize`` (3: the first
    and last entries per dimension; -1 for all), ``sep`` (" "), ``end`` ("\\n"), ``name``.
    """
    output_stream = kwargs.pop("output_stream", sys.stderr)
    summarize = kwargs.pop("summarize", 3)
    sep, end, name = kwargs.pop("sep", " "), kwargs.pop("end", "\n"), kwargs.pop("name", None)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {sorted(kwargs)}")
    tensors: list = []
    template = tuple(_template(x, tensors) for x in inputs)
    attrs = {"template": template, "sep": sep, "end": end, "summarize": -1 if summarize is None else int(summarize),
             "stream": _stream_name(output_stream)}
    return apply_op("PrintV2", tensors, attrs, name=name or "PrintV2")
