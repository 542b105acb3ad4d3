"""Fractional pooling: ``tf.nn.fractional_max_pool`` and ``tf.nn.fractional_avg_pool``
(ops ``FractionalMaxPool``/``FractionalAvgPool``, gradient ops
``FractionalMaxPoolGrad``/``FractionalAvgPoolGrad``).

Each op draws its row and column pooling sequences as TF's kernel does
(``fractional_pool_common.cc``): when the ratio divides the size the regions
are equal; otherwise region sizes of ``k`` and ``k + 1`` are shuffled
(random) or cut at ``ceil(alpha * (i + u))`` (pseudo-random). The random
numbers come from numpy's Philox generator, not TF's, so random sequences
differ from TF's for the same seeds; the outputs always agree with the
sequences the op returns. With ``deterministic`` the same sequences are
used on every run; otherwise the op's stream continues across runs.
"""

from __future__ import annotations

import collections
import math

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, gradient, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument
from dflow.ops.array.index_args import host
from dflow.ops.nn._nn_util import as_tensor
from dflow.ops.random.random_ops import new_generator

_DTYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)

FractionalMaxPool = collections.namedtuple("FractionalMaxPool", "output row_pooling_sequence col_pooling_sequence")
FractionalAvgPool = collections.namedtuple("FractionalAvgPool", "output row_pooling_sequence col_pooling_sequence")


def _pooling_sequence(rng, input_length: int, output_length: int, pseudo_random: bool) -> np.ndarray:
    """Cumulative region boundaries ``[0, ..., input_length]`` (TF's GeneratePoolingSequence)."""
    k = input_length // output_length
    if input_length % output_length == 0:
        diff = np.full(output_length, k, np.int64)
    elif pseudo_random:
        alpha = input_length / output_length
        u_max1 = (k + 2) / alpha - 1
        u_max2 = (input_length + 1 - k) / alpha - (output_length - 1)
        u = rng.random() * min(u_max1, u_max2)
        cum = np.empty(output_length + 1, np.int64)
        cum[0], cum[-1] = 1, input_length + 1
        for i in range(1, output_length):
            cum[i] = math.ceil(alpha * (i + u))
        diff = np.diff(cum)
    else:
        diff = np.full(output_length, k, np.int64)
        diff[:input_length % output_length] += 1
        rng.shuffle(diff)
    return np.concatenate([[0], np.cumsum(diff)]).astype(np.int64)


def _output_sizes(shape, ratio) -> list:
    return [None if d is None else int(math.floor(d / r)) for d, r in zip(shape, ratio)]


def _check_ratio(op_type: str, ratio) -> tuple:
    ratio = tuple(float(r) for r in ratio)
    if len(ratio) < 4:
        raise ValueError(f"Attr 'pooling_ratio' of '{op_type}' Op passed list of length {len(ratio)} less than "
                         f"minimum 4.")
    if len(ratio) != 4:
        raise ValueError(f"pooling_ratio field must specify 4 dimensions, got {len(ratio)}")
    for r in ratio:
        if r < 1:
            raise ValueError(f"pooling_ratio cannot be smaller than 1, got: {r:g}")
    if ratio[0] != 1 or ratio[3] != 1:
        kind = "max" if op_type == "FractionalMaxPool" else "average"
        raise errors.UnimplementedError(None, None, f"Fractional {kind} pooling is not yet supported on the batch "
                                                    f"nor channel dimension.")
    return ratio


def _pool_infer(op):
    x = op._inputs[0]
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.shape.ndims}")
    dims = x.shape.as_list() if x.shape.ndims is not None else [None] * 4
    out = _output_sizes(dims, op._attrs["pooling_ratio"])
    rows = None if out[1] is None else out[1] + 1
    cols = None if out[2] is None else out[2] + 1
    return [(x.dtype, TensorShape(out)), (dtypes.int64, TensorShape([rows])), (dtypes.int64, TensorShape([cols]))]


def _regions(cum, size, overlapping):
    """``(start, end)`` index pairs (end exclusive) of each pooling region."""
    ends = cum[1:] + (1 if overlapping else 0)
    return [(int(s), int(min(e, size))) for s, e in zip(cum[:-1], ends)]


def _pool(x, rows, cols, overlapping, reduce):
    out = np.empty((x.shape[0], len(rows), len(cols), x.shape[3]), x.dtype)
    for i, (r0, r1) in enumerate(rows):
        for j, (c0, c1) in enumerate(cols):
            out[:, i, j] = reduce(x[:, r0:r1, c0:c1])
    return out


def _average(region):
    mean = region.astype(np.float64).mean(axis=(1, 2))
    return np.trunc(mean) if region.dtype.kind in "iu" else mean


def _fractional_pool(rng, x, pooling_ratio, pseudo_random, overlapping, average):
    xp = array_module(x)
    x = np.asarray(host(x))
    if x.ndim != 4:
        raise invalid_argument(f"input must be 4-dimensional, got shape {list(x.shape)}")
    sizes = []
    for d in (1, 2):
        if pooling_ratio[d] > x.shape[d]:
            raise invalid_argument(f"Pooling ratio is higher than input dimension size for dimension {d}. Input dim "
                                   f"size: {x.shape[d]} pooling ratio: {pooling_ratio[d]:g}")
        sizes.append(int(math.floor(x.shape[d] / pooling_ratio[d])))
    row_seq = _pooling_sequence(rng, x.shape[1], sizes[0], pseudo_random)
    col_seq = _pooling_sequence(rng, x.shape[2], sizes[1], pseudo_random)
    rows, cols = _regions(row_seq, x.shape[1], overlapping), _regions(col_seq, x.shape[2], overlapping)
    out = _pool(x, rows, cols, overlapping, _average if average else lambda r: r.max(axis=(1, 2)))
    return xp.asarray(out), xp.asarray(row_seq), xp.asarray(col_seq)


def _make_kernel(average: bool):
    def make_kernel(op, resources):
        attrs = op._attrs
        seed, seed2, deterministic = attrs["seed"], attrs["seed2"], attrs["deterministic"]
        if deterministic and seed == 0 and seed2 == 0:
            # TF picks random seeds once for the kernel: fixed regions for this session.
            def pick():
                return tuple(int(s) for s in np.random.SeedSequence().generate_state(2))

            seed, seed2 = pick() if resources is None else resources.op_state(op, pick)
        stream = None
        if not deterministic:
            factory = lambda: new_generator(seed, seed2)  # noqa: E731
            stream = factory() if resources is None else resources.op_state(op, factory)

        def kernel(x):
            rng = stream if stream is not None else new_generator(seed, seed2)
            return _fractional_pool(rng, x, attrs["pooling_ratio"], attrs["pseudo_random"], attrs["overlapping"],
                                    average)

        return kernel

    return make_kernel


register("FractionalMaxPool", infer=_pool_infer, make_kernel=_make_kernel(False), stateful=True, gpu=False)
register("FractionalAvgPool", infer=_pool_infer, make_kernel=_make_kernel(True), stateful=True, gpu=False)


# -- gradients ----------------------------------------------------------------------------------------


def _max_pool_grad(orig_input, orig_output, out_backprop, row_seq, col_seq, overlapping):
    xp = array_module(orig_input)
    x, g = np.asarray(host(orig_input)), np.asarray(host(out_backprop))
    rows = _regions(np.asarray(host(row_seq)), x.shape[1], overlapping)
    cols = _regions(np.asarray(host(col_seq)), x.shape[2], overlapping)
    out = np.zeros(x.shape, x.dtype)
    batch, channels = np.indices((x.shape[0], x.shape[3]))
    for i, (r0, r1) in enumerate(rows):
        for j, (c0, c1) in enumerate(cols):
            region = x[:, r0:r1, c0:c1].transpose(0, 3, 1, 2).reshape(x.shape[0], x.shape[3], -1)
            first = region.argmax(axis=2)  # the first maximum in row-major order, as TF
            width = c1 - c0
            np.add.at(out, (batch, r0 + first // width, c0 + first % width, channels), g[:, i, j])
    return xp.asarray(out)


def _avg_pool_grad(orig_input_tensor_shape, out_backprop, row_seq, col_seq, overlapping):
    xp = array_module(out_backprop)
    shape = tuple(int(d) for d in np.asarray(host(orig_input_tensor_shape)).tolist())
    g = np.asarray(host(out_backprop))
    rows = _regions(np.asarray(host(row_seq)), shape[1], overlapping)
    cols = _regions(np.asarray(host(col_seq)), shape[2], overlapping)
    out = np.zeros(shape, np.float64)
    for i, (r0, r1) in enumerate(rows):
        for j, (c0, c1) in enumerate(cols):
            out[:, r0:r1, c0:c1] += (g[:, i, j] / ((r1 - r0) * (c1 - c0)))[:, None, None, :]
    return xp.asarray(out.astype(g.dtype))


def _avg_grad_infer(op):
    from dflow.ops.array.index_args import shape_from_tensor

    return [(op._inputs[1].dtype, shape_from_tensor(op._inputs[0]))]


register("FractionalMaxPoolGrad", infer=lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)],
         kernel=_max_pool_grad, gpu=False)
register("FractionalAvgPoolGrad", infer=_avg_grad_infer, kernel=_avg_pool_grad, gpu=False)


@gradient("FractionalMaxPool")
def _fractional_max_pool_grad(op, grad, _grad_rows, _grad_cols):
    x = op.inputs[0]
    inputs = [x, op.outputs[0], grad, op.outputs[1], op.outputs[2]]
    return [apply_op("FractionalMaxPoolGrad", inputs, {"overlapping": op._attrs["overlapping"]}).outputs[0]]


@gradient("FractionalAvgPool")
def _fractional_avg_pool_grad(op, grad, _grad_rows, _grad_cols):
    from dflow.ops.array import array_ops

    shape = array_ops.shape(op.inputs[0], out_type=dtypes.int64)
    inputs = [shape, grad, op.outputs[1], op.outputs[2]]
    return [apply_op("FractionalAvgPoolGrad", inputs, {"overlapping": op._attrs["overlapping"]}).outputs[0]]


def _fractional_op(op_type, result, value, pooling_ratio, pseudo_random, overlapping, deterministic, seed, seed2,
                   name) -> tuple:
    attrs = {"pooling_ratio": _check_ratio(op_type, pooling_ratio), "pseudo_random": bool(pseudo_random),
             "overlapping": bool(overlapping), "deterministic": bool(deterministic), "seed": int(seed),
             "seed2": int(seed2)}
    with name_scope(name, op_type, [value]) as scope:
        x = as_tensor(value, "value", _DTYPES)
        return result(*apply_op(op_type, [x], attrs, name=scope).outputs)


@tf_export("nn.fractional_max_pool")
def fractional_max_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False, seed=0,
                        seed2=0, name=None) -> tuple:
    """Max pooling over regions of fractional average size ``pooling_ratio`` (rows and cols).

    Returns ``(output, row_pooling_sequence, col_pooling_sequence)``.

    >>> import dflow as tf
    >>> out, rows, cols = tf.nn.fractional_max_pool(tf.zeros([1, 6, 4, 1]), [1.0, 2.0, 2.0, 1.0])
    >>> out.shape.as_list(), rows.shape.as_list()
    ([1, 3, 2, 1], [4])
    """
    return _fractional_op("FractionalMaxPool", FractionalMaxPool, value, pooling_ratio, pseudo_random, overlapping,
                          deterministic, seed, seed2, name)


@tf_export("nn.fractional_avg_pool")
def fractional_avg_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False, seed=0,
                        seed2=0, name=None) -> tuple:
    """Average pooling over regions of fractional average size ``pooling_ratio`` (rows and cols).

    Returns ``(output, row_pooling_sequence, col_pooling_sequence)``.
    """
    return _fractional_op("FractionalAvgPool", FractionalAvgPool, value, pooling_ratio, pseudo_random, overlapping,
                          deterministic, seed, seed2, name)
