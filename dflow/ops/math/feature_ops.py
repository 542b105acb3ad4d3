"""Ops behind ``tf.feature_column``: ``Bucketize`` and the hashed feature cross.

``Bucketize`` is TF1's op of that name (``math_ops._bucketize``): the index of
the bucket each value falls in, ``boundaries`` being float32 as in TF1.
``_HashedCross`` is TF1's ``sparse_cross_hashed`` on dflow's dense id
representation: each input is a ``[batch, n_i]`` tensor of values (int64 or
string) with a bool ``[batch, n_i]`` mask of the entries that are present;
every row yields the ``prod(n_i)`` combinations of its entries, hashed as TF1
does (``FingerprintCat64`` chained from ``hash_key`` over each entry's hash:
the value itself for integers, ``Fingerprint64`` for strings) modulo
``num_buckets``, and -1 where an entry of the combination is absent.
"""

from __future__ import annotations

import itertools

import numpy as np

from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels.strings import as_bytes, fingerprint64, fingerprint_cat64

# -- Bucketize ----------------------------------------------------------------------------------


def _bucketize_infer(op):
    x = op._inputs[0]
    if not (x.dtype.is_integer or x.dtype.is_floating) or x.dtype.size > 8:
        raise TypeError(f"Value passed to parameter 'input' has DataType {x.dtype.name} not in list of allowed "
                        f"values: int32, int64, float32, float64")
    return [(dtypes.int32, x.shape)]


def _bucketize_kernel(x, boundaries):
    b = np.asarray(boundaries, np.float32)
    # TF1 compares each value with the float32 boundaries in the value's type (C++
    # promotion: integers are compared as floats, doubles as doubles).
    xv = x.astype(np.float64) if x.dtype == np.float64 else x.astype(np.float32)
    return np.searchsorted(b.astype(xv.dtype), xv, side="right").astype(np.int32)


register("Bucketize", infer=_bucketize_infer, kernel=_bucketize_kernel, gpu=False)
not_differentiable("Bucketize")


def bucketize(input, boundaries, name=None):  # noqa: A002 - TF1 argument name
    """The bucket index of each value (int32): the number of ``boundaries`` ``<=`` it, as TF1's
    ``math_ops._bucketize``. ``boundaries`` must be a sorted list of numbers."""
    boundaries = [float(b) for b in boundaries]
    if any(a >= b for a, b in zip(boundaries, boundaries[1:])):
        raise ValueError("Expected sorted 'boundaries'")
    with name_scope(name, "Bucketize", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        return apply_op("Bucketize", [x], {"boundaries": tuple(boundaries)}, name=scope).outputs[0]


# -- _HashedCross -------------------------------------------------------------------------------


def _hashed_cross_infer(op):
    k = len(op._inputs) // 2
    values, masks = op._inputs[:k], op._inputs[k:]
    batch = None
    width = 1
    for v, m in zip(values, masks):
        if v.dtype not in (dtypes.int64, dtypes.string):
            raise TypeError(f"crossed inputs must be int64 or string, got {v.dtype.name}")
        if m.dtype is not dtypes.bool:
            raise TypeError(f"crossed input masks must be bool, got {m.dtype.name}")
        shape = v.shape.with_rank(2) if v.shape.ndims is not None else TensorShape([None, None])
        if shape.ndims is not None:
            d0, d1 = shape.as_list()
            batch = batch if d0 is None else d0
            width = None if width is None or d1 is None else width * d1
    return [(dtypes.int64, TensorShape([batch, width]))]


def _entry_hash(v) -> int:
    if isinstance(v, (bytes, str, np.bytes_)):
        return fingerprint64(as_bytes(v))
    return int(v) & 0xFFFFFFFFFFFFFFFF


def _hashed_cross_kernel(*arrays, num_buckets, hash_key):
    k = len(arrays) // 2
    values, masks = arrays[:k], arrays[k:]
    batch = {np.shape(v)[0] for v in values}
    if len(batch) != 1:
        raise errors.InvalidArgumentError(None, None, f"Expected batch size of all crossed inputs to be equal, got "
                                                      f"{[np.shape(v)[0] for v in values]}")
    b = batch.pop()
    width = int(np.prod([np.shape(v)[1] for v in values]))
    out = np.full((b, width), -1, dtype=np.int64)
    for row in range(b):
        columns = [[(_entry_hash(v[row, j]) if m[row, j] else None) for j in range(np.shape(v)[1])]
                   for v, m in zip(values, masks)]
        for c, combo in enumerate(itertools.product(*columns)):
            if any(h is None for h in combo):
                continue
            h = hash_key
            for part in combo:
                h = fingerprint_cat64(h, part)
            out[row, c] = h % num_buckets
    return out


register("_HashedCross", infer=_hashed_cross_infer, kernel=_hashed_cross_kernel, gpu=False)
not_differentiable("_HashedCross")

DEFAULT_HASH_KEY = 0xDECAFCAFFE  # TF1's sparse_cross_hashed default


def hashed_cross(values, masks, num_buckets: int, hash_key=None, name=None):
    """Hashed cross of ``[batch, n_i]`` inputs (see the module docstring): int64 ``[batch, prod(n_i)]``."""
    with name_scope(name, "hashed_cross", list(values) + list(masks)) as scope:
        return apply_op("_HashedCross", list(values) + list(masks),
                        {"num_buckets": int(num_buckets),
                         "hash_key": int(DEFAULT_HASH_KEY if hash_key is None else hash_key)},
                        name=scope).outputs[0]
