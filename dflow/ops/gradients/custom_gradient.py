"""``tf.custom_gradient`` and ``tf.hessians``: gradients the user writes, and second derivatives.

``custom_gradient`` works as TF1's graph mode does: the function's results and
inputs pass through one ``IdentityN`` op whose gradient is overridden by the
user's ``grad_fn``, so ``tf.gradients`` calls it instead of differentiating the
function's own ops.

>>> import dflow as tf
>>> @tf.custom_gradient
... def log1pexp(x):
...     e = tf.exp(x)
...     return tf.log(1 + e), lambda dy: dy * (1 - 1 / (1 + e))
>>> x = tf.constant(100.0)
>>> with tf.Session() as sess:
...     float(sess.run(tf.gradients(log1pexp(x), x)[0]))
1.0
"""

from __future__ import annotations

import functools
import inspect
import itertools

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import GraphKeys, get_default_graph
from dflow.framework.nest import flatten, pack_sequence_as
from dflow.framework.op_registry import RegisterGradient
from dflow.ops.array.array_ops import concat, identity_n, reshape, shape, size
from dflow.ops.array.creation_ops import one_hot
from dflow.ops.control_flow.control_flow_ops import while_loop
from dflow.ops.gradients.gradients_impl import gradients
from dflow.ops.state.tensor_array_ops import TensorArray

_UIDS = itertools.count()


@tf_export("custom_gradient")
def custom_gradient(f=None):
    """Decorates ``f(*x) -> (y, grad_fn)`` so that ``tf.gradients`` uses ``grad_fn(*dy)`` for ``dy/dx``.

    Variables that ``f`` creates through ``tf.get_variable`` are passed to
    ``grad_fn(*dy, variables=...)``, which then returns ``(input_grads, variable_grads)``.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if kwargs:
            raise ValueError("The custom_gradient function's arguments must be positional tensors; got keyword "
                             f"arguments {sorted(kwargs)}.")
        graph = get_default_graph()
        args = [convert_to_tensor(a) for a in args]
        before = set(graph.get_collection(GraphKeys.TRAINABLE_VARIABLES))
        result, grad_fn = f(*args)
        variables = [v for v in graph.get_collection(GraphKeys.TRAINABLE_VARIABLES) if v not in before]
        takes_variables = "variables" in inspect.signature(grad_fn).parameters
        if variables and not takes_variables:
            raise TypeError(f"@tf.custom_gradient grad_fn must accept keyword argument 'variables', since function "
                            f"uses variables: {[v.name for v in variables]}")
        flat_result = [convert_to_tensor(r) for r in flatten(result)]
        n_result, n_args = len(flat_result), len(args)
        name = f"CustomGradient-{next(_UIDS)}"

        @RegisterGradient(name)
        def _grad(op, *result_grads):
            dys = result_grads[:n_result]
            if variables:
                input_grads, variable_grads = grad_fn(*dys, variables=variables)
            else:
                input_grads, variable_grads = grad_fn(*dys), []
            input_grads = list(input_grads) if isinstance(input_grads, (list, tuple)) else [input_grads]
            if len(input_grads) != n_args:
                raise ValueError(f"custom_gradient function expected to return {n_args} gradients, but returned "
                                 f"{len(input_grads)} instead.")
            return [None] * n_result + input_grads + list(variable_grads)

        reads = [v.value() for v in variables]
        with graph.gradient_override_map({"IdentityN": name}):
            passed = identity_n(flat_result + args + reads)
        return pack_sequence_as(result, passed[:n_result])

    return decorated


@tf_export("hessians")
def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None) -> list:
    """The Hessian of ``sum(ys)`` with respect to each of ``xs``: shape ``x.shape + x.shape``.

    As TF's: the first gradient is flattened and a ``while_loop`` over its
    ``size(x)`` elements writes the gradient of each element with respect to
    ``x`` into a TensorArray, so sizes unknown at graph time work. ``name`` is
    accepted and unused, as in TF. A second derivative that does not exist
    (``ys`` linear in, or independent of, an ``x``) is TF's ValueError.
    """
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    kwargs = {"colocate_gradients_with_ops": colocate_gradients_with_ops, "gate_gradients": gate_gradients,
              "aggregation_method": aggregation_method}
    return [_hessian(grad, convert_to_tensor(x), kwargs) for grad, x in zip(gradients(ys, xs, **kwargs), xs)]


def _hessian(grad, x, kwargs: dict):
    """The Jacobian of the gradient ``grad`` of a scalar with respect to ``x``, one row per loop iteration."""
    if grad is None:
        raise ValueError("None values not supported.")
    flat = reshape(grad, [-1])
    n = size(x)

    def body(j, rows):
        # Row j is the gradient of flat[j]: flat's vector-Jacobian product with the j-th unit vector.
        row = gradients(flat, x, grad_ys=one_hot(j, n, dtype=flat.dtype), **kwargs)[0]
        if row is None:
            raise ValueError("None values not supported.")
        return j + 1, rows.write(j, row)

    _, rows = while_loop(lambda j, _: j < n, body, [constant(0, dtypes.int32), TensorArray(x.dtype, n)])
    x_shape = shape(x)
    out = reshape(rows.stack(), concat((x_shape, x_shape), 0))
    if x.shape.ndims is not None:
        out.set_shape(x.shape.concatenate(x.shape))
    return out
