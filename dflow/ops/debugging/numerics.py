"""``tf.check_numerics`` and the checks built on it: fail a run when a float tensor holds NaN or Inf.

>>> import dflow as tf
>>> y = tf.check_numerics(tf.constant([1.0, float("inf")]), "y")
>>> with tf.Session() as sess:
...     sess.run(y)
Traceback (most recent call last):
...
dflow.framework.errors.InvalidArgumentError: y : Tensor had Inf values ...
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, control_dependencies, get_default_graph, name_scope
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.kernels import array_module
from dflow.ops._common import same_as_input
from dflow.ops.control_flow.control_flow_ops import group, with_dependencies


def _check_numerics_kernel(x, *, message):
    xp = array_module(x)
    nan, inf = bool(xp.isnan(x).any()), bool(xp.isinf(x).any())
    if nan or inf:
        what = "Inf and NaN" if nan and inf else ("NaN" if nan else "Inf")
        raise errors.InvalidArgumentError(None, None, f"{message} : Tensor had {what} values")
    return x


register("CheckNumerics", infer=same_as_input, kernel=_check_numerics_kernel, foldable=False)


@gradient("CheckNumerics")
def _check_numerics_grad(op, grad):
    message = op.get_attr("message")
    return [check_numerics(grad, "Not a number (NaN) or infinity (Inf) values detected in gradient. " + message)]


@tf_export("check_numerics", "debugging.check_numerics")
def check_numerics(tensor, message, name=None) -> Tensor:
    """``tensor``, unchanged; the run fails (``InvalidArgumentError``) if it holds a NaN or an Inf."""
    tensor = convert_to_tensor(tensor)
    if not tensor.dtype.is_floating:
        raise TypeError(f"Value passed to parameter 'tensor' has DataType {tensor.dtype.name} not in list of "
                        f"allowed values: bfloat16, float16, float32, float64")
    return apply_op("CheckNumerics", [tensor], {"message": str(message)}, name=name or "CheckNumerics").outputs[0]


@tf_export("verify_tensor_all_finite", "debugging.assert_all_finite")
def verify_tensor_all_finite(t=None, msg=None, name=None, x=None, message=None) -> Tensor:
    """``t`` after a ``CheckNumerics`` of it (``VerifyFinite/control_dependency:0``), as TF1."""
    t = t if t is not None else x
    msg = msg if msg is not None else message
    with name_scope(name, "VerifyFinite", [t]):
        t = convert_to_tensor(t, name="t")
        with get_default_graph().colocate_with(t.op):
            verify = check_numerics(t, message=msg)
            return with_dependencies([verify], t)


@tf_export("add_check_numerics_ops")
def add_check_numerics_ops():
    """A group of ``CheckNumerics`` ops, one for every float output in the default graph, run in a chain."""
    check = []
    graph = get_default_graph()
    for op in graph.get_operations():
        if op.type in ("VariableV2", "While", "If"):  # TF1 skips ref outputs and rejects control flow
            if op.type != "VariableV2":
                raise ValueError("`tf.add_check_numerics_ops() is not compatible with TensorFlow control flow "
                                 "operations such as `tf.cond()` or `tf.while_loop()`.")
            continue
        for output in op.outputs:
            if output.dtype.name in ("float16", "float32", "float64", "bfloat16"):
                with control_dependencies(check):
                    check = [check_numerics(output, message=f"{op.name}:{output.value_index}")]
    return group(*check)
