"""Random ops: TF1's stateful random number generators, seeded as TF1 seeds them.

``get_seed(op_seed)`` is TF1's rule: the graph-level seed
(``tf.set_random_seed``) and the op seed give the op's ``seed``/``seed2``
attrs; with neither set, both are 0 and the op is nondeterministic. A random
op's kernel draws from a numpy Philox generator keyed by (seed, seed2) that
lives in the session's resources, so, as in TF1::

    tf.set_random_seed(1)
    x = tf.random_normal([2])
    with tf.Session() as s1: a1, a2 = s1.run(x), s1.run(x)   # a1 != a2
    with tf.Session() as s2: b1 = s2.run(x)                   # b1 == a1

and unseeded ops give different values in different sessions.

The values are not TF's bit for bit (TF has its own Philox streams and
samplers); their distributions are. Samples are drawn on the host and moved
to the GPU when the op runs there.

TF builds ``random_normal`` as ``RandomStandardNormal * stddev + mean`` out of
math ops; dflow fuses the scale and shift into one internal op
(``_ScaleShift``, ``_UniformRange``, ``_GammaRate``) that carries the name TF
gives the result (``random_normal:0``), and leaves it out when ``mean`` and
``stddev`` are the Python defaults.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, get_default_graph, name_scope
from dflow.framework.op_registry import apply_op, constant_value, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape, broadcast_shapes, dimension_value, unknown_shape
from dflow.kernels import array_module
from dflow.ops.array import array_ops, select_ops, tiling_ops
from dflow.ops.nn._nn_util import FLOATS, INTS, check_dtype, with_rank

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


# -- seeds ---------------------------------------------------------------------------


@tf_export("get_seed", "random.get_seed")
def get_seed(op_seed) -> tuple:
    """The ``(graph seed, op seed)`` pair for a random op, as TF1 derives it.

    >>> import dflow as tf
    >>> g = tf.Graph()
    >>> with g.as_default():
    ...     tf.get_seed(5)
    (87654321, 5)
    """
    graph = get_default_graph()
    global_seed = graph.seed
    if global_seed is not None:
        if op_seed is None:
            # The op count makes successive unseeded ops differ, reproducibly.
            op_seed = graph._last_id
        seeds = (global_seed % _MAXINT32, op_seed % _MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, op_seed % _MAXINT32)
    else:
        seeds = (None, None)
    # (0, 0) means "nondeterministic" to the kernels; a user who set seeds gets determinism.
    if seeds == (0, 0):
        return (0, _MAXINT32)
    return seeds


def seed_attrs(seed) -> dict:
    """The ``seed``/``seed2`` attrs of a random op created now with op seed ``seed``."""
    seed1, seed2 = get_seed(seed)
    return {"seed": seed1 or 0, "seed2": seed2 or 0}


def new_generator(seed: int, seed2: int) -> np.random.Generator:
    """A generator keyed by the op's seeds; fresh OS entropy when both are 0."""
    if seed == 0 and seed2 == 0:
        return np.random.Generator(np.random.Philox())
    key = ((seed & 0xFFFFFFFFFFFFFFFF) << 64) | (seed2 & 0xFFFFFFFFFFFFFFFF)
    return np.random.Generator(np.random.Philox(key=key))


def stateful_kernel(sample):
    """``make_kernel`` for a random op whose kernel is ``sample(rng, *inputs, **attrs)``.

    The generator is the session's, per op (``resources.op_state``): every
    plan of a session continues one stream, and sessions never share one.
    """

    def make_kernel(op, resources):
        attrs = dict(op._attrs)
        seed, seed2 = attrs.pop("seed"), attrs.pop("seed2")
        factory = lambda: new_generator(seed, seed2)
        rng = factory() if resources is None else resources.op_state(op, factory)

        def kernel(*inputs):
            return sample(rng, *inputs, **attrs)

        return kernel

    return make_kernel


def like(value, *arrays):
    """``value`` (numpy) on the device of ``arrays`` (moved to the GPU for CuPy inputs)."""
    xp = array_module(*arrays)
    return value if xp is np else xp.asarray(value)


# -- shapes ----------------------------------------------------------------------------


def shape_tensor(shape) -> Tensor:
    """``shape`` (list, TensorShape or tensor) as an int32/int64 vector tensor named ``shape``."""
    dtype = None
    if isinstance(shape, TensorShape):
        if not shape.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
        shape = shape.as_list()
    if isinstance(shape, (tuple, list)):
        if not shape:
            # An empty list is float64 to numpy; the shape of a scalar is an empty int32 vector.
            shape, dtype = np.zeros([0], np.int32), dtypes.int32
        else:
            shape = tuple(dimension_value(d) if not isinstance(d, Tensor) else d for d in shape)
    t = convert_to_tensor(shape, dtype=dtype, name="shape")
    check_dtype(t, INTS, "shape")
    return t


def shape_from_tensor(t: Tensor) -> TensorShape:
    """The static shape a shape tensor describes, as far as it is known (TF's
    ``constant_value_as_shape``): constants, ``Shape`` of a tensor, and stacks
    of scalars some of which are constant."""
    if t.shape.ndims is not None and t.shape.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {t.shape.ndims}")
    value = constant_value(t)
    if value is not None:
        dims = [int(d) for d in np.asarray(value).reshape(-1)]
        for d in dims:
            if d < 0:
                raise ValueError(f"Invalid value in tensor used for shape: {d}")
        return TensorShape(dims)
    op = t.op
    if op.type == "Shape":
        return op.inputs[0].shape
    if op.type == "Pack" and op._attrs.get("axis", 0) == 0 and all(i.shape.ndims == 0 for i in op.inputs):
        dims = []
        for i in op.inputs:
            v = constant_value(i)
            dims.append(None if v is None or int(v) < 0 else int(v))
        return TensorShape(dims)
    n = dimension_value(t.shape[0]) if t.shape.ndims == 1 else None
    return unknown_shape(n)


def dims_of(shape) -> tuple:
    """A runtime shape array as a tuple of ints (InvalidArgumentError for negatives)."""
    dims = tuple(int(d) for d in shape.tolist()) if shape.ndim == 1 else None
    if dims is None:
        raise errors.InvalidArgumentError(None, None, f"shape must be a vector, got shape {shape.shape}")
    for d in dims:
        if d < 0:
            raise errors.InvalidArgumentError(None, None, f"Dimension {d} must be >= 0")
    return dims


def _float_dtype(dtype, what: str) -> dtypes.DType:
    dtype = dtypes.as_dtype(dtype)
    if dtype not in FLOATS:
        raise TypeError(f"Value passed to parameter 'dtype' has DataType {dtype.name} not in list of allowed "
                        f"values: float16, float32, float64 (in {what})")
    return dtype


def _is_number(v, target) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == target


# -- samplers ----------------------------------------------------------------------------


def _shape_infer(op):
    return [(op._attrs["dtype"], shape_from_tensor(op._inputs[0]))]


def _standard_normal(rng, shape, dtype):
    np_dtype = dtype.as_numpy_dtype
    out = rng.standard_normal(dims_of(shape), dtype=np.float64 if np_dtype == np.float64 else np.float32)
    return like(out.astype(np_dtype, copy=False), shape)


def _uniform(rng, shape, dtype):
    np_dtype = dtype.as_numpy_dtype
    out = rng.random(dims_of(shape), dtype=np.float64 if np_dtype == np.float64 else np.float32)
    if np_dtype == np.float16:
        # Rounding to half precision must not reach 1.0: the range is [0, 1).
        out = np.minimum(out.astype(np.float16), np.float16(1 - 2**-11))
    return like(out, shape)


def _truncated_normal(rng, shape, dtype):
    np_dtype = dtype.as_numpy_dtype
    gen_dtype = np.float64 if np_dtype == np.float64 else np.float32
    out = rng.standard_normal(dims_of(shape), dtype=gen_dtype)
    # Redraw values beyond two standard deviations, as TF does (~4.6% per round).
    bad = np.flatnonzero(np.abs(out) > 2)
    flat = out.reshape(-1)
    while bad.size:
        flat[bad] = rng.standard_normal(bad.size, dtype=gen_dtype)
        bad = bad[np.abs(flat[bad]) > 2]
    return like(out.astype(np_dtype, copy=False), shape)


register("RandomStandardNormal", infer=_shape_infer, make_kernel=stateful_kernel(_standard_normal), stateful=True)
register("RandomUniform", infer=_shape_infer, make_kernel=stateful_kernel(_uniform), stateful=True)
register("TruncatedNormal", infer=_shape_infer, make_kernel=stateful_kernel(_truncated_normal), stateful=True)
# Samples are not differentiable with respect to their shape; gradients still reach the mean,
# stddev, bounds and rate of the affine parts below, and RandomGamma's alpha (implicitly, below).
for _op_type in ("RandomStandardNormal", "RandomUniform", "TruncatedNormal"):
    not_differentiable(_op_type)


def _uniform_int_infer(op):
    shape, lo, hi = op._inputs
    for t, what in ((lo, "minval"), (hi, "maxval")):
        if t.shape.ndims not in (None, 0):
            raise ValueError(f"{what} must be a scalar; got a tensor of shape {t.shape}")
    return [(op._attrs["Tout"], shape_from_tensor(shape))]


def _uniform_int(rng, shape, lo, hi, Tout):  # noqa: N803 - TF's attr name
    lo_v, hi_v = int(lo), int(hi)
    if lo_v >= hi_v:
        raise errors.InvalidArgumentError(None, None, f"Need minval < maxval, got {lo_v} >= {hi_v}")
    return like(rng.integers(lo_v, hi_v, dims_of(shape), dtype=Tout.as_numpy_dtype), shape)


register("RandomUniformInt", infer=_uniform_int_infer, make_kernel=stateful_kernel(_uniform_int), stateful=True)
not_differentiable("RandomUniformInt")


def _shuffle_infer(op):
    x = op._inputs[0]
    return [(x.dtype, x.shape)]


def _shuffle(rng, value):
    if value.ndim == 0 or value.shape[0] <= 1:
        return value
    perm = rng.permutation(value.shape[0])
    return value[like(perm, value)]


register("RandomShuffle", infer=_shuffle_infer, make_kernel=stateful_kernel(_shuffle), stateful=True)
not_differentiable("RandomShuffle")


def _multinomial_infer(op):
    logits, num_samples = op._inputs
    shape = with_rank(logits.shape, 2)
    if num_samples.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {num_samples.shape.ndims}")
    n = constant_value(num_samples)
    if n is not None and int(n) < 0:
        raise ValueError(f"Dimension size, given by scalar input 1, must be non-negative but is {int(n)}")
    return [(op._attrs["output_dtype"], TensorShape([shape[0], None if n is None else int(n)]))]


def _multinomial(rng, logits, num_samples, output_dtype):
    logits = np.asarray(logits.get() if array_module(logits) is not np else logits, dtype=np.float64)
    n = int(num_samples)
    batch, classes = logits.shape
    if classes == 0:
        raise errors.InvalidArgumentError(None, None, "num_classes should be positive, got 0")
    if n < 0:
        raise errors.InvalidArgumentError(None, None, f"num_samples should be nonnegative, got {n}")
    with np.errstate(invalid="ignore", over="ignore"):
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        cdf = np.cumsum(p, axis=1)
        total = cdf[:, -1:]
        ok = np.isfinite(total[:, 0]) & (total[:, 0] > 0)
        cdf = np.where(ok[:, None], cdf / np.where(ok[:, None], total, 1), 0)
    # One sorted search for all rows: row b's normalized CDF is shifted into [b, b + 1].
    u = rng.random((batch, n)) + np.arange(batch)[:, None]
    idx = np.searchsorted((cdf + np.arange(batch)[:, None]).reshape(-1), u.reshape(-1), side="right")
    idx = idx.reshape(batch, n) - classes * np.arange(batch)[:, None]
    idx = np.clip(idx, 0, classes - 1)
    # TF returns num_classes for a row whose probabilities are all zero (all -inf logits).
    idx[~ok] = classes
    return like(idx.astype(output_dtype.as_numpy_dtype), num_samples)


register("Multinomial", infer=_multinomial_infer, make_kernel=stateful_kernel(_multinomial), stateful=True)
not_differentiable("Multinomial")


def _gamma_infer(op):
    shape, alpha = op._inputs
    return [(alpha.dtype, shape_from_tensor(shape).concatenate(alpha.shape))]


def _gamma(rng, shape, alpha):
    dims = dims_of(shape)
    a = np.asarray(alpha.get() if array_module(alpha) is not np else alpha)
    gen_dtype = np.float64 if a.dtype == np.float64 else np.float32
    valid = a > 0
    safe = np.where(valid, a, 1).astype(gen_dtype)
    out = rng.standard_gamma(np.broadcast_to(safe, dims + a.shape), dtype=gen_dtype)
    # TF gives NaN for a non-positive concentration; numpy would refuse.
    out = np.where(valid, out, np.nan).astype(a.dtype, copy=False)
    return like(out, shape)


register("RandomGamma", infer=_gamma_infer, make_kernel=stateful_kernel(_gamma), stateful=True)


def implicit_gamma_grad(alpha: Tensor, sample: Tensor, grad: Tensor, what: str) -> Tensor:
    """The gradient reaching ``alpha`` from Gamma(alpha, 1) samples ``sample`` (shaped ``[...] +
    alpha.shape``), by TF's implicit reparameterisation: d sample / d alpha = -(dP/d alpha)(alpha, x)
    / density(x; alpha), P the regularized lower incomplete gamma function."""
    from dflow.ops.array import creation_ops
    from dflow.ops.math import math_ops, reduction_ops, special_math_ops

    if sample.shape.ndims is None or alpha.shape.ndims is None:
        raise NotImplementedError(f"{what} gradient: needs the ranks of alpha and the samples")
    lead = sample.shape.ndims - alpha.shape.ndims
    a = alpha + creation_ops.zeros_like(sample)  # alpha's shape ends the samples' shape
    log_density = (a - 1) * math_ops.log(sample) - sample - special_math_ops.lgamma(a)
    partial = -apply_op("IgammaGradA", [a, sample]).outputs[0] / math_ops.exp(log_density)
    return reduction_ops.reduce_sum(grad * partial, axis=list(range(lead))) if lead else grad * partial


@gradient("RandomGamma")
def _random_gamma_grad(op, grad):
    return [None, implicit_gamma_grad(op._inputs[1], op._outputs[0], grad, "random_gamma")]


def _poisson_infer(op):
    shape, rate = op._inputs
    return [(op._attrs["dtype"], shape_from_tensor(shape).concatenate(rate.shape))]


def _poisson(rng, shape, rate, dtype):
    dims = dims_of(shape)
    lam = np.asarray(rate.get() if array_module(rate) is not np else rate, dtype=np.float64)
    # TF draws 0 for a non-positive rate.
    out = rng.poisson(np.broadcast_to(np.maximum(lam, 0), dims + lam.shape))
    return like(out.astype(dtype.as_numpy_dtype), shape)


register("RandomPoissonV2", infer=_poisson_infer, make_kernel=stateful_kernel(_poisson), stateful=True)
not_differentiable("RandomPoissonV2")


# -- fused affine parts (TF builds these from math ops) -----------------------------------


def _broadcast3_infer(op):
    x, a, b = op._inputs
    return [(x.dtype, broadcast_shapes(broadcast_shapes(x.shape, a.shape), b.shape))]


register("_ScaleShift", infer=_broadcast3_infer, kernel=lambda x, scale, shift: x * scale + shift)
register("_UniformRange", infer=_broadcast3_infer, kernel=lambda x, lo, hi: x * (hi - lo) + lo)


def _unbroadcast(grad: Tensor, x: Tensor, op) -> Tensor:
    """``grad`` summed back to the shape of ``x``, one of ``op``'s broadcasting inputs."""
    return tiling_ops.unbroadcast(grad, x, [t for t in op.inputs if t is not x])


@gradient("_ScaleShift")
def _scale_shift_grad(op, grad):
    x, scale, shift = op.inputs
    return [_unbroadcast(grad * scale, x, op), _unbroadcast(grad * x, scale, op), _unbroadcast(grad, shift, op)]


@gradient("_UniformRange")
def _uniform_range_grad(op, grad):
    x, lo, hi = op.inputs
    grad_range = grad * x
    return [_unbroadcast(grad * (hi - lo), x, op), _unbroadcast(grad - grad_range, lo, op),
            _unbroadcast(grad_range, hi, op)]


def _gamma_rate_infer(op):
    g, beta = op._inputs
    return [(g.dtype, broadcast_shapes(g.shape, beta.shape))]


def _gamma_rate(g, beta):
    xp = array_module(g, beta)
    return xp.maximum(g / beta, np.finfo(g.dtype).tiny)


register("_GammaRate", infer=_gamma_rate_infer, kernel=_gamma_rate)


@gradient("_GammaRate")
def _gamma_rate_grad(op, grad):
    # TF1's maximum(tiny, g / beta) passes the gradient where g / beta is above tiny.
    g, beta = op.inputs
    ratio = op.outputs[0]
    grad = select_ops.where_v2(ratio > np.finfo(ratio.dtype.as_numpy_dtype).tiny, grad, array_ops.zeros_like(grad))
    return [_unbroadcast(grad / beta, g, op), _unbroadcast(-grad * ratio / beta, beta, op)]


def _broadcast_like_infer(op):
    a, b = op._inputs
    return [(a.dtype, broadcast_shapes(a.shape, b.shape))]


def _broadcast_like(a, b):
    xp = array_module(a, b)
    return xp.broadcast_to(a, np.broadcast_shapes(a.shape, b.shape)).copy()


register("_BroadcastLike", infer=_broadcast_like_infer, kernel=_broadcast_like)


@gradient("_BroadcastLike")
def _broadcast_like_grad(op, grad):
    # TF1 broadcasts alpha as alpha + zeros_like(beta): beta's part has no gradient.
    return [_unbroadcast(grad, op.inputs[0], op), None]


# -- API ----------------------------------------------------------------------------------


def _normal_like(op_type, scope_name, shape, mean, stddev, dtype, seed, name):
    dtype = _float_dtype(dtype, scope_name)
    with name_scope(name, scope_name, [shape, mean, stddev]) as scope:
        shape_t = shape_tensor(shape)
        if _is_number(mean, 0) and _is_number(stddev, 1):
            return apply_op(op_type, [shape_t], {"dtype": dtype, **seed_attrs(seed)}, name=scope).outputs[0]
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = apply_op(op_type, [shape_t], {"dtype": dtype, **seed_attrs(seed)}).outputs[0]
        return apply_op("_ScaleShift", [rnd, stddev_t, mean_t], name=scope).outputs[0]


@tf_export("random_normal", "random.normal")
def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """Samples from a normal distribution.

    >>> import dflow as tf
    >>> tf.random_normal([2, 3], seed=1).name
    'random_normal:0'
    """
    return _normal_like("RandomStandardNormal", "random_normal", shape, mean, stddev, dtype, seed, name)


@tf_export("truncated_normal", "random.truncated_normal")
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """Samples from a normal distribution, redrawing values beyond two standard deviations."""
    return _normal_like("TruncatedNormal", "truncated_normal", shape, mean, stddev, dtype, seed, name)


@tf_export("random_uniform", "random.uniform")
def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """Samples uniformly from ``[minval, maxval)``; integer dtypes need ``maxval``.

    >>> import dflow as tf
    >>> tf.random_uniform([2], maxval=10, dtype=tf.int32).dtype
    tf.int32
    """
    dtype = dtypes.as_dtype(dtype)
    if dtype not in FLOATS + INTS:
        raise ValueError(f"Invalid dtype {dtype!r} for random_uniform; accepted dtypes are float16, float32, "
                         f"float64, int32, int64.")
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    with name_scope(name, "random_uniform", [shape, minval, maxval]) as scope:
        shape_t = shape_tensor(shape)
        if not dtype.is_integer and _is_number(minval, 0) and _is_number(maxval, 1):
            return apply_op("RandomUniform", [shape_t], {"dtype": dtype, **seed_attrs(seed)}, name=scope).outputs[0]
        lo = convert_to_tensor(minval, dtype=dtype, name="min")
        hi = convert_to_tensor(maxval, dtype=dtype, name="max")
        if dtype.is_integer:
            return apply_op("RandomUniformInt", [shape_t, lo, hi], {"Tout": dtype, **seed_attrs(seed)},
                            name=scope).outputs[0]
        rnd = apply_op("RandomUniform", [shape_t], {"dtype": dtype, **seed_attrs(seed)}).outputs[0]
        return apply_op("_UniformRange", [rnd, lo, hi], name=scope).outputs[0]


@tf_export("random_shuffle", "random.shuffle")
def random_shuffle(value, seed=None, name=None) -> Tensor:
    """Shuffles ``value`` along its first dimension."""
    with name_scope(name, "RandomShuffle", [value]) as scope:
        x = convert_to_tensor(value, name="value")
        return apply_op("RandomShuffle", [x], seed_attrs(seed), name=scope).outputs[0]


def _multinomial_impl(logits, num_samples, dtype, seed):
    dtype = dtypes.as_dtype(dtype) if dtype is not None else dtypes.int64
    if dtype not in INTS:
        raise ValueError(f"Invalid output dtype {dtype!r} for multinomial; accepted dtypes are int32, int64.")
    logits = convert_to_tensor(logits, name="logits")
    if not (logits.dtype.is_floating or logits.dtype.is_integer):
        raise TypeError(f"logits must be a real number tensor, got {logits.dtype.name}")
    with name_scope("Multinomial") as scope:
        n = convert_to_tensor(num_samples, dtype=dtypes.int32, name="num_samples")
        return apply_op("Multinomial", [logits, n], {"output_dtype": dtype, **seed_attrs(seed)},
                        name=scope).outputs[0]


@tf_export("multinomial", "random.multinomial")
def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None) -> Tensor:
    """Draws ``num_samples`` class indices per row of ``[batch, classes]`` logits."""
    with name_scope(name, "multinomial", [logits]):
        return _multinomial_impl(logits, num_samples, output_dtype, seed)


@tf_export("random.categorical")
def categorical(logits, num_samples, dtype=None, seed=None, name=None) -> Tensor:
    """Draws ``num_samples`` class indices per row of ``[batch, classes]`` logits."""
    with name_scope(name, "categorical", [logits]):
        return _multinomial_impl(logits, num_samples, dtype, seed)


@tf_export("random_gamma", "random.gamma")
def random_gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """Samples Gamma(alpha, rate=beta); the output shape is ``shape + broadcast(alpha, beta).shape``."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in FLOATS:
        raise ValueError(f"random_gamma needs a floating dtype, got {dtype!r}")
    with name_scope(name, "random_gamma", [shape, alpha, beta]) as scope:
        shape_t = shape_tensor(shape)
        alpha_t = convert_to_tensor(alpha, dtype=dtype, name="alpha")
        beta_t = None if beta is None else convert_to_tensor(beta, dtype=dtype, name="beta")
        if beta_t is not None and broadcast_shapes(alpha_t.shape, beta_t.shape) != alpha_t.shape:
            # Each element of the broadcast needs its own draws, so alpha is broadcast first.
            alpha_t = apply_op("_BroadcastLike", [alpha_t, beta_t], name="BroadcastTo").outputs[0]
        g = apply_op("RandomGamma", [shape_t, alpha_t], seed_attrs(seed)).outputs[0]
        if beta_t is None:
            beta_t = convert_to_tensor(1, dtype=dtype, name="beta")
        return apply_op("_GammaRate", [g, beta_t], name=scope).outputs[0]


@tf_export("random_poisson", "random.poisson")
def random_poisson(lam, shape, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """Samples Poisson(lam); the output shape is ``shape + lam.shape``."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in FLOATS + INTS:
        raise TypeError(f"Value passed to parameter 'dtype' has DataType {dtype.name} not in list of allowed "
                        f"values: float16, float32, float64, int32, int64")
    with name_scope(name, "random_poisson", [lam, shape]):
        shape_t = shape_tensor(shape)
        with name_scope("RandomPoissonV2") as scope:
            rate = convert_to_tensor(lam, name="rate")
            check_dtype(rate, FLOATS + INTS, "rate")
            return apply_op("RandomPoissonV2", [shape_t, rate], {"dtype": dtype, **seed_attrs(seed)},
                            name=scope).outputs[0]
