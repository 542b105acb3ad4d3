"""``tf.random.stateless_*``: random numbers that are a pure function of ``(shape, seed)``, bit for bit
TensorFlow's (its Philox4x32-10 streams and samplers, reproduced in ``_philox``).

Each op takes the output shape and a ``[2]`` int32/int64 seed as tensors, like
TF's kernels, and the API functions add the scale and shift TF adds
(``rnd * (maxval - minval) + minval``). The ops are not stateful: the same
seed gives the same values in every run, session and process, and constant
folding may evaluate them. Gamma samples are differentiable in ``alpha``
(implicit reparameterisation, as TF); the other ops have no gradient.

TF splits some samplers' work across its CPU threads; dflow reproduces the
single-thread order, which is what TF uses for all but very large
``stateless_categorical`` and ``stateless_parameterized_truncated_normal``
calls.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape, broadcast_shapes
from dflow.kernels import philox as _philox
from dflow.ops._common import invalid_argument
from dflow.ops.random.random_ops import _float_dtype, dims_of, implicit_gamma_grad, shape_from_tensor, shape_tensor

_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
_INTS = (dtypes.int32, dtypes.int64)


def _stream(seed) -> _philox.Stream:
    seed = np.asarray(seed)
    if seed.shape != (2,):
        raise invalid_argument(f"seed must have shape [2], not {list(seed.shape)}")
    return _philox.Stream(seed)


def _seed_tensor(seed) -> Tensor:
    t = convert_to_tensor(seed, name="seed")
    if t.dtype not in _INTS:
        raise TypeError(f"seed must be an int32 or int64 tensor, got {t.dtype.name}")
    if t.shape.ndims is not None and t.shape.as_list() not in ([2], [None]):
        raise ValueError(f"Shape must be [2] for seed, got {t.shape}")
    return t


def _output_shape_infer(op):
    return [(op._attrs["dtype"], shape_from_tensor(op._inputs[0]))]


def _register(op_type: str, kernel, infer=_output_shape_infer) -> None:
    register(op_type, infer=infer, kernel=kernel, gpu=False)


# -- uniform, normal, truncated normal, integers ---------------------------------------------------


def _fixed_kernel(sampler):
    def kernel(shape, seed, dtype):
        dims = dims_of(shape)
        n = int(np.prod(dims, dtype=np.int64))
        return sampler(_stream(seed), n, dtype.as_numpy_dtype).reshape(dims)

    return kernel


_register("StatelessRandomUniform", _fixed_kernel(_philox.uniform))
_register("StatelessRandomNormal", _fixed_kernel(_philox.normal))
_register("StatelessTruncatedNormal", _fixed_kernel(_philox.truncated_normal))
_register("StatelessRandomUniformFullInt", _fixed_kernel(_philox.full_int))


def _uniform_int_kernel(shape, seed, minval, maxval, dtype):
    lo, hi = int(minval), int(maxval)
    if np.ndim(minval) or np.ndim(maxval):
        raise invalid_argument("minval and maxval must be scalars")
    if lo >= hi:
        raise invalid_argument(f"Need minval < maxval: {lo} >= {hi}")
    dims = dims_of(shape)
    n = int(np.prod(dims, dtype=np.int64))
    return _philox.uniform_int(_stream(seed), n, lo, hi, dtype.as_numpy_dtype).reshape(dims)


_register("StatelessRandomUniformInt", _uniform_int_kernel)

for _t in ("StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal",
           "StatelessRandomUniformFullInt", "StatelessRandomUniformInt"):
    not_differentiable(_t)


def _build(op_type: str, shape, seed, extra=(), attrs=None, name=None) -> Tensor:
    shape = shape_tensor(shape)
    seed = _seed_tensor(seed)
    return apply_op(op_type, [shape, seed, *extra], attrs or {}, name=name).outputs[0]


@tf_export("random.stateless_uniform")
def stateless_random_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None,
                             alg="auto_select") -> Tensor:
    """Uniform values in ``[minval, maxval)`` determined by ``seed`` (a ``[2]`` integer tensor), as TF's.

    Integer dtypes need both bounds, or neither for the full range of the dtype.
    """
    _check_alg(alg)
    dtype = dtypes.as_dtype(dtype)
    accepted = (*_FLOATS, dtypes.int32, dtypes.int64, dtypes.uint32, dtypes.uint64)
    if dtype not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are "
                         f"{', '.join(d.name for d in accepted)}.")
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dtype}, argument `minval` and `maxval` must be both "
                             f"None or not None. Got `minval`={minval} and `maxval`={maxval}.")
        if minval is not None and dtype in (dtypes.uint32, dtypes.uint64):
            raise ValueError(f"Argument `dtype` got invalid value {dtype} when argument `minval` is not None. "
                             f"Please don't use unsigned integers in this case.")
    elif maxval is None:
        maxval = 1
    with name_scope(name, "stateless_random_uniform", [shape, seed, minval, maxval]) as scope:
        if dtype.is_integer and minval is None:
            return _build("StatelessRandomUniformFullInt", shape, seed, attrs={"dtype": dtype}, name=scope)
        lo = convert_to_tensor(minval, dtype=dtype, name="min")
        hi = convert_to_tensor(maxval, dtype=dtype, name="max")
        if dtype.is_integer:
            return _build("StatelessRandomUniformInt", shape, seed, [lo, hi], {"dtype": dtype}, name=scope)
        rnd = _build("StatelessRandomUniform", shape, seed, attrs={"dtype": dtype})
        return math_ops.add(rnd * (hi - lo), lo, name=scope)


def _normal_like(op_type: str, default_name: str, shape, seed, mean, stddev, dtype, name, alg) -> Tensor:
    _check_alg(alg)
    dtype = _float_dtype(dtype, default_name)
    with name_scope(name, default_name, [shape, seed, mean, stddev]) as scope:
        mean = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = _build(op_type, shape, seed, attrs={"dtype": dtype})
        return math_ops.add(rnd * stddev, mean, name=scope)


@tf_export("random.stateless_normal")
def stateless_random_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None,
                            alg="auto_select") -> Tensor:
    """Normal values determined by ``seed``, TF's Box-Muller on its Philox stream."""
    return _normal_like("StatelessRandomNormal", "stateless_random_normal", shape, seed, mean, stddev, dtype,
                        name, alg)


@tf_export("random.stateless_truncated_normal")
def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None,
                               alg="auto_select") -> Tensor:
    """Normal values within two standard deviations of ``mean``, determined by ``seed``."""
    return _normal_like("StatelessTruncatedNormal", "stateless_truncated_normal", shape, seed, mean, stddev,
                        dtype, name, alg)


def _check_alg(alg) -> None:
    value = getattr(alg, "value", alg)
    if value not in ("auto_select", "philox", None, 1, 3, Algorithm.PHILOX, Algorithm.AUTO_SELECT):
        raise NotImplementedError(f"stateless random ops: only the Philox algorithm is implemented, got {alg!r}")


# -- categorical -----------------------------------------------------------------------------------------


def _multinomial_infer(op):
    logits = op._inputs[0]
    if logits.dtype not in (*_FLOATS, dtypes.int32, dtypes.int64):
        raise TypeError(f"logits must be a real tensor, got {logits.dtype.name}")
    if logits.shape.ndims is not None and logits.shape.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {logits.shape.ndims} for logits")
    batch = logits.shape.as_list()[0] if logits.shape.ndims == 2 else None
    n = op._attrs.get("num_samples")
    return [(op._attrs["output_dtype"], TensorShape([batch, n]))]


def _multinomial_kernel(logits, seed, *num, output_dtype, num_samples=None):
    n = int(num[0]) if num else num_samples
    if n < 0:
        raise invalid_argument(f"num_samples should be nonnegative, got {n}")
    if logits.shape[1] == 0 and logits.shape[0] > 0:
        raise invalid_argument("num_classes should be positive, got 0")
    return _philox.multinomial(_stream(seed), logits, n).astype(output_dtype.as_numpy_dtype)


register("StatelessMultinomial", infer=_multinomial_infer, kernel=_multinomial_kernel, gpu=False)
not_differentiable("StatelessMultinomial")


def _categorical(logits, num_samples, seed, dtype, name, default_name) -> Tensor:
    dtype = dtypes.as_dtype(dtype) if dtype else dtypes.int64
    if dtype not in _INTS:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are int32, int64.")
    with name_scope(name, default_name, [logits, seed]):
        logits = convert_to_tensor(logits, name="logits")
        seed = _seed_tensor(seed)
        attrs = {"output_dtype": dtype}
        inputs = [logits, seed]
        if isinstance(num_samples, Tensor):
            inputs.append(num_samples)
        else:
            attrs["num_samples"] = int(num_samples)
        return apply_op("StatelessMultinomial", inputs, attrs).outputs[0]


@tf_export("random.stateless_categorical")
def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None) -> Tensor:
    """``num_samples`` class indices per row of ``logits`` ``[batch, classes]``, determined by ``seed``."""
    return _categorical(logits, num_samples, seed, dtype, name, "stateless_categorical")


@tf_export("random.stateless_multinomial")
def stateless_multinomial(logits, num_samples, seed, output_dtype=dtypes.int64, name=None) -> Tensor:
    """Deprecated spelling of ``stateless_categorical``."""
    return _categorical(logits, num_samples, seed, output_dtype, name, "stateless_multinomial")


# -- Poisson, gamma, binomial: per-sample rejection samplers ------------------------------------------------


def _batched_infer(n_params: int):
    def infer(op):
        shape = shape_from_tensor(op._inputs[0])
        params = [p.shape for p in op._inputs[2:2 + n_params]]
        batch = params[0]
        for p in params[1:]:
            batch = broadcast_shapes(batch, p)
        if shape.ndims is not None and batch.ndims is not None and batch.ndims > shape.ndims:
            raise ValueError(f"Shape passed in must end with broadcasted shape: {shape} vs {batch}")
        return [(op._attrs["dtype"], shape)]

    return infer


def _split_shape(dims, params):
    """(samples per batch, params broadcast and flattened to the batch shape that ends ``dims``)."""
    batch = np.broadcast_shapes(*(np.shape(p) for p in params))
    if tuple(dims[len(dims) - len(batch):]) != tuple(batch) or len(batch) > len(dims):
        raise invalid_argument(f"Shape passed in must end with broadcasted shape: {list(dims)} vs {list(batch)}")
    samples = int(np.prod(dims[:len(dims) - len(batch)], dtype=np.int64))
    return samples, [np.broadcast_to(p, batch).ravel() for p in params]


def _poisson_kernel(shape, seed, lam, dtype):
    dims = dims_of(shape)
    if not dims or 0 in dims:
        return np.zeros(dims, dtype.as_numpy_dtype)
    samples, (rate,) = _split_shape(dims, [lam])
    out = _philox.poisson(_stream(seed), rate, samples, np.float64)
    return out.astype(dtype.as_numpy_dtype).reshape(dims)


def _gamma_kernel(shape, seed, alpha, dtype):
    dims = dims_of(shape)
    if 0 in dims:
        return np.zeros(dims, dtype.as_numpy_dtype)
    samples, (a,) = _split_shape(dims, [alpha])
    return _philox.gamma(_stream(seed), a, samples).astype(dtype.as_numpy_dtype).reshape(dims)


def _binomial_kernel(shape, seed, counts, probs, dtype):
    dims = dims_of(shape)
    if 0 in dims:
        return np.zeros(dims, dtype.as_numpy_dtype)
    samples, (n, p) = _split_shape(dims, [counts, probs])
    out = _philox.binomial(_stream(seed), np.repeat(n, samples), np.repeat(p, samples))
    return out.reshape(n.size, samples).T.astype(dtype.as_numpy_dtype).reshape(dims)


def _ptn_kernel(shape, seed, means, stddevs, minvals, maxvals, dtype):
    dims = dims_of(shape)
    if 0 in dims:
        return np.zeros(dims, dtype.as_numpy_dtype)
    samples, params = _split_shape(dims, [means, stddevs, minvals, maxvals])
    try:
        out = _philox.parameterized_truncated_normal(_stream(seed), *params, samples, dtype.as_numpy_dtype)
    except ValueError as e:
        raise invalid_argument(f"stateless_parameterized_truncated_normal: {e}: stddevs must be positive, "
                               f"minvals < maxvals, and one bound finite") from None
    return out.reshape(dims)


register("StatelessRandomPoisson", infer=_batched_infer(1), kernel=_poisson_kernel, gpu=False)
register("StatelessRandomGammaV2", infer=_batched_infer(1), kernel=_gamma_kernel, gpu=False)
register("StatelessRandomBinomial", infer=_batched_infer(2), kernel=_binomial_kernel, gpu=False)
register("StatelessParameterizedTruncatedNormal", infer=_batched_infer(4), kernel=_ptn_kernel, gpu=False)
for _t in ("StatelessRandomPoisson", "StatelessRandomBinomial", "StatelessParameterizedTruncatedNormal"):
    not_differentiable(_t)


@tf_export("random.stateless_poisson")
def stateless_random_poisson(shape, seed, lam, dtype=dtypes.int32, name=None) -> Tensor:
    """Poisson samples of rates ``lam`` (``shape`` must end with ``lam``'s shape), determined by ``seed``."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "stateless_random_poisson", [shape, seed, lam]) as scope:
        lam = convert_to_tensor(lam, name="lam")
        if lam.dtype not in (*_FLOATS, *_INTS):
            raise TypeError(f"lam must be a float or integer tensor, got {lam.dtype.name}")
        return _build("StatelessRandomPoisson", shape, seed, [lam], {"dtype": dtype}, name=scope)


@tf_export("random.stateless_gamma")
def stateless_random_gamma(shape, seed, alpha, beta=None, dtype=dtypes.float32, name=None) -> Tensor:
    """Gamma(alpha, rate=beta) samples determined by ``seed``; differentiable in ``alpha``."""
    dtype = _float_dtype(dtype, "stateless_gamma")
    with name_scope(name, "stateless_random_gamma", [shape, seed, alpha, beta]) as scope:
        alpha = convert_to_tensor(alpha, dtype=dtype, name="alpha")
        beta = convert_to_tensor(beta if beta is not None else 1, dtype=dtype, name="beta")
        if alpha.shape.is_fully_defined() and beta.shape.is_fully_defined():
            target = broadcast_shapes(alpha.shape, beta.shape).as_list()
            if target != alpha.shape.as_list():
                alpha = tiling_ops.broadcast_to(alpha, target)
        else:
            alpha = alpha + creation_ops.zeros_like(beta)
        rnd = _build("StatelessRandomGammaV2", shape, seed, [alpha], {"dtype": dtype})
        return math_ops.maximum(np.finfo(dtype.as_numpy_dtype).tiny, rnd / beta, name=scope)


@tf_export("random.stateless_binomial")
def stateless_random_binomial(shape, seed, counts, probs, output_dtype=dtypes.int32, name=None) -> Tensor:
    """Binomial(counts, probs) samples determined by ``seed`` (``shape`` ends with their broadcast shape)."""
    with name_scope(name, "stateless_random_binomial", [shape, seed, counts, probs]) as scope:
        probs = convert_to_tensor(probs, preferred_dtype=dtypes.float32, name="probs")
        counts = convert_to_tensor(counts, preferred_dtype=probs.dtype, name="counts")
        return _build("StatelessRandomBinomial", shape, seed, [counts, probs],
                      {"dtype": dtypes.as_dtype(output_dtype)}, name=scope)


@tf_export("random.stateless_parameterized_truncated_normal")
def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0, minvals=-2.0, maxvals=2.0,
                                             name=None) -> Tensor:
    """Normal(means, stddevs) samples truncated to ``[minvals, maxvals]``, determined by ``seed``."""
    with name_scope(name, "stateless_parameterized_truncated_normal",
                    [shape, means, stddevs, minvals, maxvals]) as scope:
        params = [convert_to_tensor(v, name=n) for v, n in ((means, "means"), (stddevs, "stddevs"),
                                                            (minvals, "minvals"), (maxvals, "maxvals"))]
        dtype = params[0].dtype
        if dtype not in _FLOATS or any(p.dtype is not dtype for p in params):
            raise TypeError("means, stddevs, minvals and maxvals must share one float dtype")
        return _build("StatelessParameterizedTruncatedNormal", shape, seed, params, {"dtype": dtype}, name=scope)


@gradient("StatelessRandomGammaV2")
def _stateless_gamma_grad(op, grad):
    return [None, None, implicit_gamma_grad(op._inputs[2], op._outputs[0], grad, "stateless_gamma")]


# -- seeds: fold_in, split, create_rng_state, Algorithm ------------------------------------------------------


class Algorithm:
    """TF's RNG algorithm ids (``tf.random.Algorithm``); dflow implements Philox."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


tf_export("random.Algorithm")(Algorithm)


@tf_export("random.split")
def split(seed, num=2, alg="auto_select") -> Tensor:
    """``num`` new seeds ``[num, 2]`` from ``seed``, as TF derives them."""
    seed = convert_to_tensor(seed)
    return stateless_random_uniform([num, 2], seed, dtype=seed.dtype, minval=None, maxval=None, alg=alg)


@tf_export("random.fold_in")
def fold_in(seed, data, alg="auto_select") -> Tensor:
    """A new seed from ``seed`` and the integer ``data`` (e.g. a step), as TF derives it."""
    data = convert_to_tensor(data)
    seed1 = stateless_random_uniform([], seed, dtype=data.dtype, minval=None, maxval=None, alg=alg)
    return array_ops.stack([seed1, data])


from dflow.ops.array import array_ops, creation_ops, tiling_ops  # noqa: E402 - composite helpers
from dflow.ops.math import math_ops  # noqa: E402 - composite helpers

