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
from dflow.framework.graph import GraphKeys, get_default_graph, name_scope
from dflow.framework.nest import flatten, pack_sequence_as
from dflow.ops.array_ops import identity_n, reshape, stack
from dflow.ops.constant_op import convert_to_tensor
from dflow.ops.gradients_impl import gradients
from dflow.ops.registry import RegisterGradient

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

    Each x needs a static size: its rows are built one gradient each.
    """
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    kwargs = {"colocate_gradients_with_ops": colocate_gradients_with_ops, "gate_gradients": gate_gradients,
              "aggregation_method": aggregation_method}
    out = []
    with name_scope(name):
        for grad, x in zip(gradients(ys, xs, **kwargs), xs):
            x = convert_to_tensor(x)
            size = x.shape.num_elements()
            if size is None:
                raise NotImplementedError(f"tf.hessians needs the static size of {x.name} (shape {x.shape}); "
                                          f"dflow builds one gradient per element, with no TensorArray loop.")
            if grad is None:
                out.append(None)
                continue
            flat = reshape(grad, [-1])
            rows = []
            for j in range(size):
                row = gradients(flat[j], x, **kwargs)[0]
                rows.append(reshape(row, [-1]) if row is not None else reshape(x * 0, [-1]))
            out.append(reshape(stack(rows), x.shape.as_list() * 2))
    return out
