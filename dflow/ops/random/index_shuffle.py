"""``tf.random_index_shuffle``: the position of an index in a seeded permutation of
``[0, ..., max_index]``, TF's cycle-walking Simon block cipher bit for bit.

The cipher works on blocks of ``B`` bits, ``B`` the even number of bits ``ceil(log2(max_index))``
rounded up (at least 16); its key schedule starts from the seed's three words cut to ``B / 2``
bits. An index is encrypted again and again until the result is at most ``max_index``; since
the cipher permutes ``[0, 2**B)``, that ends for every index in the range. As in TF, a
``max_index`` that is a power of two has one bit too few (``ceil(log2(2**k)) = k``): the index
``max_index`` itself then lands where index 0 does.

Where TF misbehaves dflow refuses: an odd ``rounds``, or fewer than 4, reads past TF's key
schedule (it hangs or returns garbage), and an index above ``max_index`` whose cycle holds no
value in the range would loop forever; dflow raises instead.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument

_INDEX_DTYPES = frozenset({dtypes.int32, dtypes.uint32, dtypes.int64, dtypes.uint64})
_MIN_BLOCK = 16
_Z = 0x7369F885192C0EF5
_C = 0xFFFFFFFC


def _rotl(x, r: int, w: int, mask):
    return ((x << np.uint64(r)) | (x >> np.uint64(w - r))) & mask


def _rotr(x, r: int, w: int, mask):
    return ((x >> np.uint64(r)) | (x << np.uint64(w - r))) & mask


def _simon_f(x, w: int, mask):
    return (_rotl(x, 1, w, mask) & _rotl(x, 8, w, mask)) ^ _rotl(x, 2, w, mask)


def _round_keys(keys, w: int, rounds: int) -> list:
    """The Simon key schedule for words of ``w`` bits: one uint64 array of keys per round."""
    mask = np.uint64((1 << w) - 1)
    rk = [keys[:, i] & mask for i in range(3)]
    c, z = np.uint64(_C & ((1 << w) - 1)), _Z & ((1 << w) - 1)
    for i in range(3, rounds):
        rk.append(c ^ np.uint64(z & 1) ^ rk[i - 3] ^ _rotr(rk[i - 1], 3, w, mask) ^ _rotr(rk[i - 1], 4, w, mask))
        z >>= 1
    return rk


def _encrypt(value, rk: list, w: int):
    mask = np.uint64((1 << w) - 1)
    left, right = (value >> np.uint64(w)) & mask, value & mask
    for i in range(0, len(rk), 2):
        left = left ^ _simon_f(right, w, mask) ^ rk[i]
        right = right ^ _simon_f(left, w, mask) ^ rk[i + 1]
    return (left << np.uint64(w)) | right


def _block_words(max_index) -> np.ndarray:
    """Half the cipher's block size for each ``max_index`` (> 0), from ``std::log2`` of its double."""
    bits = np.ceil(np.log2(max_index.astype(np.float64))).astype(np.int64)
    return np.minimum(np.maximum(bits + bits % 2, _MIN_BLOCK), 64) // 2


TABLE_WORDS = 10  # blocks of up to 2 x 10 bits walk a table of the whole permutation
_TABLE_KEYS = 8  # ... when the rows use at most this many keys


def shuffle_indices(index, keys, max_index, rounds: int):
    """``index_shuffle`` over uint64 arrays of one length: ``keys`` is ``[n, 3]`` (uint32 words).

    A small ``max_index`` still ciphers 16-bit blocks, so a walk takes ~65536 / max_index steps:
    for blocks of ``2 * TABLE_WORDS`` bits or fewer the steps follow a table of the cipher over
    the whole block (one vectorized cipher pass) instead of ciphering again at each step."""
    out = np.zeros(index.shape, np.uint64)
    words = _block_words(np.maximum(max_index, 1))
    for w in np.unique(words):
        w = int(w)
        rows = np.nonzero((words == w) & (max_index > 0))[0]
        if rows.size == 0:
            continue
        distinct = np.unique(keys[rows], axis=0)
        if w <= TABLE_WORDS and len(distinct) <= _TABLE_KEYS:
            for key in distinct:
                part = rows[(keys[rows] == key).all(axis=1)]
                table = _encrypt(np.arange(1 << (2 * w), dtype=np.uint64), _round_keys(key[None, :], w, rounds), w)
                mask = np.uint64((1 << (2 * w)) - 1)
                out[part] = _walk(index[part], max_index[part], lambda v, _at, table=table, mask=mask: table[v & mask])
        else:
            rk = _round_keys(keys[rows], w, rounds)
            out[rows] = _walk(index[rows], max_index[rows],
                              lambda v, at, rk=rk, w=w: _encrypt(v, [k[at] for k in rk], w))
    return out


def _walk(start, top, step):
    """Cycle walking: ``step(values, positions)`` (the cipher of values at those positions) until
    each value is at most ``top``. An index above ``top`` whose cycle never enters the range
    raises (TF loops forever)."""
    positions = np.arange(start.size)
    value = step(start, positions)
    pending = np.nonzero(value > top)[0]
    while pending.size:
        value[pending] = step(value[pending], pending)
        lost = (value[pending] == start[pending]) & (start[pending] > top[pending])  # back where it began
        if np.any(lost):
            bad = pending[lost][0]
            raise invalid_argument(f"random_index_shuffle: index {int(start[bad])} is above max_index "
                                   f"{int(top[bad])} and its permutation cycle never enters [0, max_index]")
        pending = pending[value[pending] > top[pending]]
    return value


def _shape_of(t):
    return t.shape.as_list() if t.shape.ndims is not None else None


def _dims(shape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def _infer(op):
    index, seed, max_index = op._inputs
    rounds = op._attrs["rounds"]
    if rounds < 4 or rounds % 2:
        raise ValueError(f"rounds must be an even integer >= 4, got {rounds}")
    i_shape, s_shape, m_shape = _shape_of(index), _shape_of(seed), _shape_of(max_index)
    if i_shape is not None and len(i_shape) > 1:
        raise ValueError(f"Index must be a scalar or vector but got {_dims(i_shape)}.")
    if s_shape is not None and not (len(s_shape) in (1, 2) and s_shape[-1] in (None, 3)):
        raise ValueError(f"Seed must have shape [3] or [n, 3] but got {_dims(s_shape)}.")
    if m_shape is not None and len(m_shape) > 1:
        raise ValueError(f"Maxval must be a scalar or vector but got {_dims(m_shape)}.")
    if i_shape == [] and s_shape is not None and len(s_shape) == 1 and m_shape == []:
        return [(index.dtype, TensorShape([]))]
    sizes = [s[0] for s in (i_shape, m_shape) if s] + ([s_shape[0]] if s_shape and len(s_shape) == 2 else [])
    known = {d for d in sizes if d is not None}
    if len(known) > 1:
        raise ValueError(f"Index, seed and max_index disagree on the number of outputs: {sorted(known)}")
    if None in (i_shape, s_shape, m_shape):
        return [(index.dtype, TensorShape(None))]
    return [(index.dtype, TensorShape([known.pop() if known else None]))]


def _kernel(index, seed, max_index, rounds, dtype, Tseed):  # noqa: N803 - TF's attr name
    all_scalar = index.ndim == 0 and seed.ndim == 1 and max_index.ndim == 0
    n = max(index.size, max_index.size, seed.size // 3)
    if not (index.ndim == 0 or (index.ndim == 1 and index.shape[0] == n)):
        raise invalid_argument("Index bust be a scalar or vector.")
    if not ((seed.ndim == 1 and seed.shape[0] == 3) or (seed.ndim == 2 and seed.shape == (n, 3))):
        raise invalid_argument(f"Seed must be a vector of size [3] or a matrix of size [{n}, 3] but got "
                               f"[{','.join(str(d) for d in seed.shape)}].")
    if not (max_index.ndim == 0 or (max_index.ndim == 1 and max_index.shape[0] == n)):
        raise invalid_argument(f"Maxval must be a scalar or a vector of the same size as index but got "
                               f"[{','.join(str(d) for d in max_index.shape)}]")
    words = np.broadcast_to(seed.reshape(-1, 3).astype(np.uint32).astype(np.uint64), (n, 3))
    out = shuffle_indices(np.broadcast_to(index.astype(np.uint64), (n,)).copy(), words,
                          np.broadcast_to(max_index.astype(np.uint64), (n,)).copy(), rounds)
    out = out.astype(index.dtype)
    return out.reshape(()) if all_scalar else out


register("RandomIndexShuffle", infer=_infer, kernel=_kernel)
not_differentiable("RandomIndexShuffle")


@tf_export("random_index_shuffle")
def random_index_shuffle(index, seed, max_index, rounds=4, name=None):
    """Outputs the position of ``index`` in a permutation of ``[0, ..., max_index]``.

    The permutation is fixed by ``seed`` (three integers, or one row of three per output) and
    ``max_index`` (a bijection of the indices in range, but for a ``max_index`` that is a power
    of two, as in TF: see the module's notes). Outputs have
    ``index``'s dtype (int32, uint32, int64 or uint64).

    >>> import dflow as tf
    >>> tf.Session().run(tf.random_index_shuffle(tf.range(10), [1, 2, 3], 9)).tolist()
    [2, 0, 6, 4, 8, 1, 7, 9, 5, 3]
    """
    with name_scope(name, "RandomIndexShuffle", [index, seed, max_index]) as scope:
        index = convert_to_tensor(index, name="index")
        _check_integer("index", index.dtype)
        max_index = convert_to_tensor(max_index, dtype=index.dtype, name="max_index")
        seed = convert_to_tensor(seed, name="seed")
        _check_integer("seed", seed.dtype)
        attrs = {"dtype": index.dtype, "Tseed": seed.dtype, "rounds": int(rounds)}
        return apply_op("RandomIndexShuffle", [index, seed, max_index], attrs, name=scope).outputs[0]


def _check_integer(arg: str, dtype) -> None:
    if dtype not in _INDEX_DTYPES:
        raise TypeError(f"Value passed to parameter '{arg}' has DataType {dtype.name} not in list of allowed values: "
                        f"int32, uint32, int64, uint64")
