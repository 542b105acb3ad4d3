"""``tf.test.compute_gradient``: TF1's Jacobian check, symbolic against finite differences.

For ``y = f(x)`` the theoretical Jacobian has one column per element of
``y``: the column is ``tf.gradients(y, x, grad_ys=e_j)`` for the unit
cotangent ``e_j``. The numeric Jacobian has one row per element of ``x``:
``(f(x + δe_i) - f(x - δe_i)) / 2δ``. Both are ``[x_size, y_size]``; complex
tensors count their real and imaginary parts as separate elements. Runs
happen in the default session, as in TF1 (``with tf.Session():``).
(dflow's own op tests use the cheaper random-direction check in
``tests/ops/gradcheck.py``.)
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import constant
from dflow.framework.graph import get_default_session
from dflow.ops.control_flow.control_flow_ops import identity
from dflow.ops.gradients.gradients_impl import gradients

_ALLOWED = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)


def _session():
    sess = get_default_session()
    if sess is None:
        raise ValueError("compute_gradient needs a default session: call it inside `with tf.Session():` "
                         "(or `with sess.as_default():`)")
    return sess


def _feeds(extra, new):
    out = dict(extra or {})
    out.update(new)
    return out


def _theoretical_jacobian(sess, x, x_shape, x_data, dy, dy_shape, dx, extra_feed_dict):
    if x.dtype.is_complex:
        x_shape = tuple(x_shape) + (2,)
    x_size = int(np.prod(x_shape, dtype=np.int64))
    dy_size = int(np.prod(dy_shape, dtype=np.int64)) * (2 if dy.dtype.is_complex else 1)
    jacobian = np.zeros((x_size, dy_size), dtype=x.dtype.real_dtype.as_numpy_dtype)
    dy_data = np.zeros(dy_shape, dtype=dy.dtype.as_numpy_dtype)
    dy_flat = dy_data.ravel().view(dy.dtype.real_dtype.as_numpy_dtype)
    if dx is None:  # y does not depend on x: the Jacobian is zero
        return jacobian
    for col in range(dy_size):
        dy_flat[col] = 1
        backprop = np.asarray(sess.run(dx, _feeds(extra_feed_dict, {x: x_data, dy: dy_data})))
        jacobian[:, col] = backprop.astype(x.dtype.as_numpy_dtype).ravel().view(jacobian.dtype)
        dy_flat[col] = 0
    if not dy_size:
        backprop = np.asarray(sess.run(dx, _feeds(extra_feed_dict, {x: x_data, dy: dy_data})))
        if backprop.shape != np.shape(x_data):
            raise ValueError(f"Empty gradient has wrong shape: expected {np.shape(x_data)}, got {backprop.shape}")
        if np.any(backprop):
            raise ValueError("Empty tensor with nonzero gradients")
    return jacobian


def _numeric_jacobian(sess, x, x_shape, x_data, y, y_shape, delta, extra_feed_dict):
    x_size = int(np.prod(x_shape, dtype=np.int64)) * (2 if x.dtype.is_complex else 1)
    y_size = int(np.prod(y_shape, dtype=np.int64)) * (2 if y.dtype.is_complex else 1)
    x_dtype = x.dtype.real_dtype.as_numpy_dtype
    y_dtype = y.dtype.real_dtype.as_numpy_dtype
    x_data = np.asarray(x_data, dtype=x.dtype.as_numpy_dtype)
    scale = np.asarray(2 * delta, dtype=y_dtype)[()]
    jacobian = np.zeros((x_size, y_size), dtype=x_dtype)
    for row in range(x_size):
        x_pos, x_neg = x_data.copy(), x_data.copy()
        x_pos.ravel().view(x_dtype)[row] += delta
        x_neg.ravel().view(x_dtype)[row] -= delta
        y_pos = np.asarray(sess.run(y, _feeds(extra_feed_dict, {x: x_pos})))
        y_neg = np.asarray(sess.run(y, _feeds(extra_feed_dict, {x: x_neg})))
        diff = (y_pos - y_neg) / scale
        jacobian[row, :] = np.ascontiguousarray(diff).ravel().view(y_dtype)
    return jacobian


def _dx_and_dy(x, y, y_shape):
    with x.graph.as_default():
        dy_orig = constant(1.0, shape=y_shape, dtype=y.dtype)
        dy = identity(dy_orig)
    (dx,) = gradients(y, x, dy)
    return dx, dy_orig


def _one(sess, x, x_shape, dx, y, y_shape, dy, x_init_value, delta, extra_feed_dict):
    for what, t in (("x", x), ("y", y)):
        if t.dtype.base_dtype not in _ALLOWED:
            raise TypeError(f"compute_gradient: {what} has dtype {t.dtype.name}; it must be a float or complex type")
    if x_init_value is not None:
        if list(x_shape) != list(np.shape(x_init_value)):
            raise ValueError(f"compute_gradient: x_shape = {list(x_shape)}, init_data shape = "
                             f"{list(np.shape(x_init_value))}")
        x_data = x_init_value
    else:
        x_data = np.random.random_sample(x_shape).astype(x.dtype.as_numpy_dtype)
        if x.dtype.is_complex:
            x_data.imag = np.random.random_sample(x_shape)
    return (_theoretical_jacobian(sess, x, x_shape, x_data, dy, y_shape, dx, extra_feed_dict),
            _numeric_jacobian(sess, x, x_shape, x_data, y, y_shape, delta, extra_feed_dict))


@tf_export("test.compute_gradient")
def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None,
                     extra_feed_dict=None):
    """``(theoretical, numeric)`` Jacobians of ``y`` with respect to ``x``, each ``[x_size, y_size]``.

    ``x`` may be a list of tensors (with lists ``x_shape`` and ``x_init_value``);
    then the result is a list of pairs. ``x_init_value`` defaults to uniform
    [0, 1) values; ``init_targets`` are run first (variable initializers);
    ``extra_feed_dict`` feeds other placeholders. Runs in the default session.

    >>> with tf.Session():                                  # doctest: +SKIP
    ...     x = tf.constant([1.0, 2.0]); y = x * x
    ...     jt, jn = tf.test.compute_gradient(x, [2], y, [2])
    """
    sess = _session()
    if init_targets is not None:
        if not isinstance(init_targets, (list, tuple)):
            raise TypeError("compute_gradient: init_targets must be a list or tuple")
        for init in init_targets:
            sess.run(init)
    if isinstance(x, list):
        pairs = [_dx_and_dy(xi, y, y_shape) for xi in x]
        inits = x_init_value if x_init_value is not None else [None] * len(x)
        return [_one(sess, xi, shape_i, dxi, y, y_shape, dyi, init_i, delta, extra_feed_dict)
                for xi, shape_i, (dxi, dyi), init_i in zip(x, x_shape, pairs, inits)]
    dx, dy = _dx_and_dy(x, y, y_shape)
    return _one(sess, x, x_shape, dx, y, y_shape, dy, x_init_value, delta, extra_feed_dict)


@tf_export("test.compute_gradient_error")
def compute_gradient_error(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None,
                           extra_feed_dict=None):
    """The largest absolute difference between the theoretical and numeric Jacobians (``compute_gradient``)."""
    grad = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets, extra_feed_dict)
    if isinstance(grad, tuple):
        grad = [grad]
    error = 0
    for j_t, j_n in grad:
        if j_t.size or j_n.size:
            error = np.maximum(error, np.fabs(j_t - j_n).max())
    return error
