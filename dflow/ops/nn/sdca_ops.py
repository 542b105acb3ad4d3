"""TF's raw SDCA helper ops: ``tf.train.sdca_fprint`` (op ``SdcaFprint``) and ``tf.train.sdca_shrink_l1``
(op ``SdcaShrinkL1``).

``SdcaFprint`` hashes each string with FarmHash's ``Fingerprint128`` (the ``farmhashcc`` variant, which is
CityHash128 v1.1.1), as TF's ``Fingerprint128`` does, into an int64 pair ``(low64, high64)``; a ``low64`` of 0
or 1 is moved to ``2**64 - 2`` or ``2**64 - 1`` (-2, -1), which TF keeps free as sentinel values. The hash is
written here in Python from FarmHash's published algorithm, on unsigned 64-bit integers.

``SdcaShrinkL1`` applies the proximal L1 step ``sign(w) * max(|w| - l1 / l2, 0)`` to each variable in place,
in float32 (the shrinkage ``l1 / l2`` is computed in double from the float attrs, then rounded to float).

TF's ``SdcaOptimizer`` is not here: its kernel visits the examples in an order drawn from
``std::random_device`` (a shuffle, or the acceptance test of its adaptive sampler), so TF's own results are not
reproducible run to run.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.graph import Operation, Tensor, colocate_with, name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument
from dflow.ops.array.index_args import host
from dflow.ops.math._math_common import convert_input
from dflow.ops.state.variables import Variable, _state

# -- FarmHash Fingerprint128 (farmhashcc, = CityHash128) ----------------------------------------------

_M64 = (1 << 64) - 1
_K0, _K1, _K2 = 0xC3A5C85C97CB3127, 0xB492B66FBE98F273, 0x9AE16A3B2F90404F
_KMUL = 0x9DDFEA08EB382D69  # Hash128to64's multiplier


def _fetch64(s: bytes, i: int) -> int:
    return int.from_bytes(s[i:i + 8], "little")


def _fetch32(s: bytes, i: int) -> int:
    return int.from_bytes(s[i:i + 4], "little")


def _rotate(v: int, shift: int) -> int:
    return v if shift == 0 else ((v >> shift) | (v << (64 - shift))) & _M64


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _hash_len16(u: int, v: int, mul: int = _KMUL) -> int:
    """Murmur-inspired mix of two words (with the default ``mul``, FarmHash's ``Hash128to64``)."""
    a = ((u ^ v) * mul) & _M64
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M64
    b ^= b >> 47
    return (b * mul) & _M64


def _hash_len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = (_K2 + n * 2) & _M64
        a = (_fetch64(s, 0) + _K2) & _M64
        b = _fetch64(s, n - 8)
        c = (_rotate(b, 37) * mul + a) & _M64
        d = ((_rotate(a, 25) + b) * mul) & _M64
        return _hash_len16(c, d, mul)
    if n >= 4:
        mul = (_K2 + n * 2) & _M64
        return _hash_len16((n + (_fetch32(s, 0) << 3)) & _M64, _fetch32(s, n - 4), mul)
    if n > 0:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _M64) * _K2) & _M64
    return _K2


def _weak_hash_len32(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    """A 16-byte hash of ``s[i:i + 32]`` and seeds ``a``, ``b``."""
    w, x, y, z = (_fetch64(s, i + 8 * k) for k in range(4))
    a = (a + w) & _M64
    b = _rotate((b + a + z) & _M64, 21)
    c = a
    a = (a + x + y) & _M64
    b = (b + _rotate(a, 44)) & _M64
    return (a + z) & _M64, (b + c) & _M64


def _city_murmur(s: bytes, o: int, n: int, a: int, b: int) -> tuple[int, int]:
    """CityHash128's hash of ``s[o:o + n]`` for ``n < 128``."""
    if n <= 16:
        a = (_shift_mix((a * _K1) & _M64) * _K1) & _M64
        c = (b * _K1 + _hash_len0to16(s[o:o + n])) & _M64
        d = _shift_mix((a + (_fetch64(s, o) if n >= 8 else c)) & _M64)
    else:
        c = _hash_len16((_fetch64(s, o + n - 8) + _K1) & _M64, a)
        d = _hash_len16((b + n) & _M64, (c + _fetch64(s, o + n - 16)) & _M64)
        a = (a + d) & _M64
        left = n - 16
        while True:
            a ^= (_shift_mix((_fetch64(s, o) * _K1) & _M64) * _K1) & _M64
            a = (a * _K1) & _M64
            b ^= a
            c ^= (_shift_mix((_fetch64(s, o + 8) * _K1) & _M64) * _K1) & _M64
            c = (c * _K1) & _M64
            d ^= c
            o += 16
            left -= 16
            if left <= 0:
                break
    a = _hash_len16(a, c)
    b = _hash_len16(d, b)
    return a ^ b, _hash_len16(b, a)


def _city_hash128_with_seed(s: bytes, o: int, n: int, x: int, y: int) -> tuple[int, int]:
    """CityHash128WithSeed of ``s[o:o + n]``, seed ``(low=x, high=y)``: ``(low64, high64)``."""
    if n < 128:
        return _city_murmur(s, o, n, x, y)
    z = (n * _K1) & _M64
    v0 = (_rotate(y ^ _K1, 49) * _K1 + _fetch64(s, o)) & _M64
    v1 = (_rotate(v0, 42) * _K1 + _fetch64(s, o + 8)) & _M64
    w0 = (_rotate((y + z) & _M64, 35) * _K1 + x) & _M64
    w1 = (_rotate((x + _fetch64(s, o + 88)) & _M64, 53) * _K1) & _M64
    while True:  # 128 bytes a turn, as two rounds of CityHash64's loop
        for _ in range(2):
            x = (_rotate((x + y + v0 + _fetch64(s, o + 8)) & _M64, 37) * _K1) & _M64
            y = (_rotate((y + v1 + _fetch64(s, o + 48)) & _M64, 42) * _K1) & _M64
            x ^= w1
            y = (y + v0 + _fetch64(s, o + 40)) & _M64
            z = (_rotate((z + w0) & _M64, 33) * _K1) & _M64
            v0, v1 = _weak_hash_len32(s, o, (v1 * _K1) & _M64, (x + w0) & _M64)
            w0, w1 = _weak_hash_len32(s, o + 32, (z + w1) & _M64, (y + _fetch64(s, o + 16)) & _M64)
            z, x = x, z
            o += 64
        n -= 128
        if n < 128:
            break
    x = (x + _rotate((v0 + z) & _M64, 49) * _K0) & _M64
    y = (y * _K0 + _rotate(w1, 37)) & _M64
    z = (z * _K0 + _rotate(w0, 27)) & _M64
    w0 = (w0 * 9) & _M64
    v0 = (v0 * _K0) & _M64
    done = 0
    while done < n:  # up to 4 chunks of 32 bytes from the end
        done += 32
        y = (_rotate((x + y) & _M64, 42) * _K0 + v1) & _M64
        w0 = (w0 + _fetch64(s, o + n - done + 16)) & _M64
        x = (x * _K0 + w0) & _M64
        z = (z + w1 + _fetch64(s, o + n - done)) & _M64
        w1 = (w1 + v0) & _M64
        v0, v1 = _weak_hash_len32(s, o + n - done, (v0 + z) & _M64, v1)
        v0 = (v0 * _K0) & _M64
    x = _hash_len16(x, v0)
    y = _hash_len16((y + z) & _M64, w0)
    return (_hash_len16((x + v1) & _M64, w1) + y) & _M64, _hash_len16((x + w1) & _M64, (y + v1) & _M64)


def fingerprint128(s: bytes) -> tuple[int, int]:
    """FarmHash's ``Fingerprint128(s)`` (farmhashcc): ``(low64, high64)`` as unsigned integers."""
    n = len(s)
    if n >= 16:
        return _city_hash128_with_seed(s, 16, n - 16, _fetch64(s, 0), (_fetch64(s, 8) + _K0) & _M64)
    return _city_hash128_with_seed(s, 0, n, _K0, _K1)


def _signed(v: int) -> int:
    return v - (1 << 64) if v >> 63 else v


# -- SdcaFprint ------------------------------------------------------------------------------------------


def _fprint_infer(op):
    (x,) = op._inputs
    if x.shape.ndims is not None and x.shape.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {x.shape.ndims}")
    n = x.shape[0] if x.shape.ndims == 1 else None
    return [(dtypes.int64, TensorShape([n, 2]))]


def _fprint(values):
    values = np.asarray(host(values), dtype=object)
    if values.ndim != 1:
        raise invalid_argument(f"Input must be a vector, got shape [{','.join(str(d) for d in values.shape)}]")
    out = np.empty((values.shape[0], 2), np.int64)
    for i, v in enumerate(values):
        low, high = fingerprint128(v.encode() if isinstance(v, str) else bytes(v))
        if low < 2:  # 0 and 1 are left free as sentinels
            low = (low + _M64 - 1) & _M64
        out[i] = _signed(low), _signed(high)
    return out


register("SdcaFprint", infer=_fprint_infer, kernel=_fprint, gpu=False)
not_differentiable("SdcaFprint")


@tf_export("train.sdca_fprint")
def sdca_fprint(input, name=None) -> Tensor:  # noqa: A002 - TF's argument name
    """Computes fingerprints of the input strings: an int64 ``[n, 2]`` matrix of FarmHash Fingerprint128s."""
    with name_scope(name, "SdcaFprint") as scope:
        input = convert_input(input, "input", dtypes.string, "SdcaFprint")  # noqa: A001
        return apply_op("SdcaFprint", [input], name=scope).outputs[0]


# -- SdcaShrinkL1 ----------------------------------------------------------------------------------------


def _shrink(w: np.ndarray, shrinkage: np.float32) -> np.ndarray:
    """Eigen's ``w.sign() * (w.abs() - shrinkage).cwiseMax(0)`` in float32 (the sign of -0.0 is 0)."""
    sign = (w > 0).astype(np.float32) - (w < 0).astype(np.float32)
    return sign * np.maximum(np.abs(w) - shrinkage, np.float32(0))


def _make_shrink_kernel(op, resources):
    states = [_state(op, v, resources) for v in op._attrs["vars"]]
    shrinkage = np.float32(np.float64(np.float32(op._attrs["l1"])) / np.float64(np.float32(op._attrs["l2"])))

    def kernel():
        for state in states:
            state.update(lambda value: _shrink(np.asarray(value), shrinkage))

    return kernel


register("SdcaShrinkL1", infer=lambda op: [], make_kernel=_make_shrink_kernel, stateful=True, gpu=False)
not_differentiable("SdcaShrinkL1")


def _weight_var_op(w) -> Operation:
    if isinstance(w, Variable):
        var_op = w.op
    elif isinstance(w, Tensor) and w.op.type == "VariableV2":
        var_op = w.op
    else:
        raise TypeError("'SdcaShrinkL1' Op requires that input 'weights' be a mutable tensor (e.g.: a tf.Variable)")
    if var_op._attrs["dtype"] is not dtypes.float32:
        raise TypeError(f"Input 'weights' of 'SdcaShrinkL1' Op has type {var_op._attrs['dtype'].name}_ref that does "
                        f"not match expected type of float32_ref.")
    return var_op


@tf_export("train.sdca_shrink_l1")
def sdca_shrink_l1(weights, l1, l2, name=None) -> Operation:
    """Applies L1 regularization shrink step on the parameters: ``w = sign(w) * max(|w| - l1 / l2, 0)``.

    ``weights`` is a list of float32 variables, updated in place; returns the Operation.
    """
    if not isinstance(weights, (list, tuple)):
        raise TypeError(f"Expected list for 'weights' argument to 'sdca_shrink_l1' Op, not {weights!r}.")
    var_ops = tuple(_weight_var_op(w) for w in weights)
    attrs = {"vars": var_ops, "l1": float(l1), "l2": float(l2)}
    if not var_ops:
        return apply_op("SdcaShrinkL1", [], attrs, name=name)
    with colocate_with(var_ops[0]):
        return apply_op("SdcaShrinkL1", [], attrs, name=name)
