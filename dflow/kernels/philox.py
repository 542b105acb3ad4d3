"""TensorFlow's counter-based random numbers in numpy: Philox4x32-10 and the samplers of TF's
stateless kernels, bit for bit where TF's arithmetic allows.

A stateless op turns its seed ``(s0, s1)`` into a Philox key and a 128-bit
counter (``key_and_counter``, TF's ``GenerateKey``). Block ``i`` of the stream
is Philox applied to ``counter + i``: four uint32 words. TF's samplers read
those words in fixed patterns that this module reproduces:

* fixed-size distributions (uniform, normal, integers) fill the output in
  groups: float32/half use one block per four values, float64 and int64 one
  block per two;
* ``truncated_normal`` gives each group of outputs its own region of the
  stream (256 blocks for four floats, 128 for two doubles) and reads words one
  at a time until enough normals fall inside two standard deviations;
* Poisson, gamma and binomial samples each own a region of 256 blocks (42 for
  binomial inversion) and draw from it through TF's sample buffers, which hand
  out a block's values last first;
* multinomial rows read one sequential stream, two words per sample.

Float arithmetic follows TF's types (Box-Muller in float32 for float32), so
values agree with TF to the last ulp or two; where a rejection test falls
within that rounding, a sample can differ.
"""

from __future__ import annotations

import math

import numpy as np

_M32 = np.uint64(0xFFFFFFFF)
_MUL_A, _MUL_B = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_KEY_A, _KEY_B = 0x9E3779B9, 0xBB67AE85
_SEED_KEY = (0x3EC8F720, 0x02461E29)


def philox(key, counter_lo, counter_hi):
    """Philox4x32-10 of 128-bit counters (``counter_lo``, ``counter_hi``: uint64 arrays): uint32 ``[n, 4]``."""
    lo = np.asarray(counter_lo, np.uint64)
    hi = np.asarray(counter_hi, np.uint64)
    c0, c1 = lo & _M32, lo >> np.uint64(32)
    c2, c3 = hi & _M32, hi >> np.uint64(32)
    k0, k1 = key
    for _ in range(10):
        p0 = _MUL_A * c0
        p1 = _MUL_B * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0), p1 & _M32,
                          (p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1), p0 & _M32)
        k0, k1 = (k0 + _KEY_A) & 0xFFFFFFFF, (k1 + _KEY_B) & 0xFFFFFFFF
    return np.stack([c0, c1, c2, c3], axis=-1).astype(np.uint32)


def advance_state(state, delta: int):
    """A Generator state with its 128-bit counter moved by ``delta`` blocks (may be negative)."""
    s = [int(v) & 0xFFFFFFFFFFFFFFFF for v in np.ravel(state)]
    counter = ((s[1] << 64) | s[0]) + delta
    counter &= (1 << 128) - 1
    s[0], s[1] = counter & 0xFFFFFFFFFFFFFFFF, counter >> 64
    return np.array([v - (1 << 64) if v >= 1 << 63 else v for v in s], np.int64)


def key_and_counter(seed) -> tuple:
    """TF's ``GenerateKey``: the Philox key and 128-bit counter (lo, hi) of a stateless op's seed."""
    s0, s1 = (int(v) & 0xFFFFFFFFFFFFFFFF for v in np.ravel(seed)[:2])
    mix = philox(_SEED_KEY, np.uint64(s0), np.uint64(s1))
    key = (int(mix[0]), int(mix[1]))
    return key, (0, int(mix[2]) | (int(mix[3]) << 32))


class Stream:
    """Blocks of one Philox stream, addressed by block offset from its start."""

    def __init__(self, seed=None, *, key=None, counter=None):
        if seed is not None:
            key, counter = key_and_counter(seed)
        self.key, (self.lo, self.hi) = key, counter

    @classmethod
    def from_state(cls, state):
        """The stream of a ``tf.random.Generator`` state ``[counter_lo, counter_hi, key]`` (int64)."""
        lo, hi, key = (int(v) & 0xFFFFFFFFFFFFFFFF for v in np.ravel(state)[:3])
        return cls(key=(key & 0xFFFFFFFF, key >> 32), counter=(lo, hi))

    def blocks(self, offsets):
        """uint32 ``[..., 4]``: the blocks at ``offsets`` (non-negative integers) past the start."""
        off = np.asarray(offsets, np.uint64)
        with np.errstate(over="ignore"):
            lo = np.uint64(self.lo) + off
        hi = np.uint64(self.hi) + (lo < np.uint64(self.lo)).astype(np.uint64)
        return philox(self.key, lo, hi)


# -- bits to numbers (TF's random_distributions.h) ------------------------------------------------


def uint32_to_float(x):
    """[0, 1) from the low 23 bits."""
    return ((np.asarray(x, np.uint32) & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1)


def uint16_to_half(x):
    """[0, 1) in float16 from the low 10 bits."""
    bits = ((np.asarray(x, np.uint32) & np.uint32(0x3FF)) | np.uint32(15 << 10)).astype(np.uint16)
    return bits.view(np.float16) - np.float16(1)


def uint64_to_double(x0, x1):
    """[0, 1) from 20 bits of ``x0`` and all of ``x1``."""
    man = ((np.asarray(x0, np.uint64) & np.uint64(0xFFFFF)) << np.uint64(32)) | np.asarray(x1, np.uint64)
    return (man | (np.uint64(1023) << np.uint64(52))).view(np.float64) - 1.0


def box_muller_float(x0, x1):
    """TF's ``BoxMullerFloat``: two float32 normals from two words."""
    u1 = np.maximum(uint32_to_float(x0), np.float32(1e-7))
    v1 = np.float32(2 * np.pi) * uint32_to_float(x1)
    u2 = np.sqrt(np.float32(-2.0) * np.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


def box_muller_double(x0, x1, x2, x3):
    """TF's ``BoxMullerDouble``: two float64 normals from four words."""
    u1 = np.maximum(uint64_to_double(x0, x1), 1e-15)
    v1 = 2 * np.pi * uint64_to_double(x2, x3)
    u2 = np.sqrt(-2.0 * np.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


# -- fixed-size distributions ----------------------------------------------------------------------


def _words(stream: Stream, n_blocks: int):
    return stream.blocks(np.arange(n_blocks))


def uniform(stream: Stream, n: int, dtype):
    """``n`` values in [0, 1) of float ``dtype``, as TF's ``StatelessRandomUniform``."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        w = _words(stream, -(-n // 2))
        return np.stack([uint64_to_double(w[:, 0], w[:, 1]), uint64_to_double(w[:, 2], w[:, 3])], 1).ravel()[:n]
    w = _words(stream, -(-n // 4)).ravel()[:n]
    return uint16_to_half(w) if dtype == np.float16 else uint32_to_float(w).astype(dtype)


def normal(stream: Stream, n: int, dtype):
    """``n`` standard normals of float ``dtype``, as TF's ``StatelessRandomNormal``."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        w = _words(stream, -(-n // 2))
        d0, d1 = box_muller_double(w[:, 0], w[:, 1], w[:, 2], w[:, 3])
        return np.stack([d0, d1], 1).ravel()[:n]
    w = _words(stream, -(-n // 4))
    a0, a1 = box_muller_float(w[:, 0], w[:, 1])
    b0, b1 = box_muller_float(w[:, 2], w[:, 3])
    return np.stack([a0, a1, b0, b1], 1).ravel()[:n].astype(dtype)


def _bits64(stream: Stream, n: int):
    """``n`` uint64 words, two uint32 words each (low word first)."""
    w = _words(stream, -(-n // 2)).astype(np.uint64)
    return np.stack([w[:, 0] | (w[:, 1] << np.uint64(32)), w[:, 2] | (w[:, 3] << np.uint64(32))], 1).ravel()[:n]


def uniform_int(stream: Stream, n: int, lo: int, hi: int, dtype):
    """``n`` integers in [lo, hi) (``lo + bits % (hi - lo)``), as TF's ``StatelessRandomUniformInt``."""
    dtype = np.dtype(dtype)
    if dtype == np.int64:
        bits = _bits64(stream, n)
        span = np.uint64((hi - lo) & 0xFFFFFFFFFFFFFFFF)
        return (np.int64(lo) + (bits % span).astype(np.int64)).astype(np.int64)
    bits = _words(stream, -(-n // 4)).ravel()[:n]
    span = np.uint32((hi - lo) & 0xFFFFFFFF)
    with np.errstate(over="ignore"):
        return (np.int32(lo) + (bits % span).astype(np.int32)).astype(np.int32)


def full_int(stream: Stream, n: int, dtype):
    """``n`` integers over the whole range of ``dtype``, as TF's ``StatelessRandomUniformFullInt``."""
    dtype = np.dtype(dtype)
    bits = _bits64(stream, n) if dtype.itemsize == 8 else _words(stream, -(-n // 4)).ravel()[:n]
    return bits.view(dtype)


def truncated_normal(stream: Stream, n: int, dtype):
    """``n`` normals within two standard deviations, as TF's ``StatelessTruncatedNormal``."""
    dtype = np.dtype(dtype)
    double = dtype == np.float64
    group = 2 if double else 4
    groups = -(-n // group)
    region = 128 if double else 256
    out = np.empty((groups, group), np.float64 if double else np.float32)
    todo = np.arange(groups)
    tried = 0
    while todo.size:
        tried += 8
        w = stream.blocks(todo[:, None] * region + np.arange(tried)[None, :])  # [g, tried, 4]
        if double:
            d0, d1 = box_muller_double(w[..., 0], w[..., 1], w[..., 2], w[..., 3])
            cand = np.stack([d0, d1], -1).reshape(len(todo), -1)
        else:
            words = w.reshape(len(todo), -1)
            f0, f1 = box_muller_float(words[:, 0::2], words[:, 1::2])
            cand = np.stack([f0, f1], -1).reshape(len(todo), -1)
        ok = np.abs(cand) < 2.0
        enough = ok.sum(axis=1) >= group
        for row in np.nonzero(enough)[0]:
            out[todo[row]] = cand[row][ok[row]][:group]
        todo = todo[~enough]
        if tried >= region:
            raise RuntimeError("truncated_normal: no accepted samples in a group's region of the stream")
    return out.ravel()[:n].astype(dtype)


# -- multinomial ---------------------------------------------------------------------------------------


def multinomial(stream: Stream, logits, num_samples: int):
    """Class indices ``[batch, num_samples]``: each row's samples invert its CDF at sequential uniforms."""
    logits = np.asarray(logits)
    batch, classes = logits.shape
    n_words = batch * num_samples * 2
    w = _words(stream, -(-n_words // 4)).ravel()[:n_words]
    u = uint64_to_double(w[0::2], w[1::2]).reshape(batch, num_samples)
    finite = np.isfinite(logits)
    top = np.where(finite, logits, -np.inf).max(axis=1, initial=np.finfo(logits.dtype).min)
    with np.errstate(all="ignore"):
        p = np.where(finite, np.exp(logits.astype(np.float64) - top.astype(np.float64)[:, None]), 0.0)
    cdf = np.cumsum(p, axis=1)
    target = u * cdf[:, -1:]
    return np.stack([np.searchsorted(cdf[b], target[b], side="right") for b in range(batch)]) if batch else \
        np.zeros((0, num_samples), np.int64)


# -- per-sample streams: Poisson, gamma, binomial --------------------------------------------------------


class _Buffers:
    """Per-sample generators (each ``region`` blocks apart) with TF's ``SampleBuffer`` semantics."""

    def __init__(self, stream: Stream, count: int, region: int):
        self.stream = stream
        self.base = np.arange(count, dtype=np.uint64) * np.uint64(region)
        self.next_block = np.zeros(count, np.uint64)

    def fresh_blocks(self, rows):
        w = self.stream.blocks(self.base[rows] + self.next_block[rows])
        self.next_block[rows] += np.uint64(1)
        return w


class _Buffer:
    """One distribution's buffer over ``_Buffers``: refills from a new block, hands out values last first."""

    def __init__(self, gens: _Buffers, to_values, size: int, dtype=np.float64):
        self.gens, self.to_values, self.size = gens, to_values, size
        n = gens.base.size
        self.values = np.zeros((n, size), dtype)
        self.left = np.zeros(n, np.int64)

    def clear(self, rows):
        self.left[rows] = 0

    def draw(self, rows):
        empty = rows[self.left[rows] == 0]
        if empty.size:
            self.values[empty] = self.to_values(self.gens.fresh_blocks(empty))
            self.left[empty] = self.size
        self.left[rows] -= 1
        return self.values[rows, self.left[rows]]


def _uniform_doubles(w):
    return np.stack([uint64_to_double(w[:, 0], w[:, 1]), uint64_to_double(w[:, 2], w[:, 3])], 1)


def _uniform_floats(w):
    return uint32_to_float(w)


def _normal_doubles(w):
    return np.stack(box_muller_double(w[:, 0], w[:, 1], w[:, 2], w[:, 3]), 1)


def _lgamma(x):
    return np.vectorize(math.lgamma, otypes=[np.float64])(x) if np.size(x) else np.zeros(np.shape(x))


def poisson(stream: Stream, rates, samples_per_rate: int, compute_dtype):
    """Samples ``[samples_per_rate, num_rates]`` (flattened rates), as TF's ``StatelessRandomPoisson``."""
    rates = np.asarray(rates).ravel()
    num_rates = rates.size
    ct = np.dtype(compute_dtype)
    single = ct == np.float32
    total = num_rates * samples_per_rate
    rate = np.repeat(rates.astype(ct), samples_per_rate)  # output_idx = rate_idx * samples + sample_idx
    gens = _Buffers(stream, total, 256)
    buf = _Buffer(gens, _uniform_floats if single else _uniform_doubles, 4 if single else 2, ct)
    out = np.zeros(total, ct)
    t = ct.type
    knuth = rate < t(10)
    rows = np.nonzero(knuth)[0]
    prod = np.ones(total, ct)
    exp_neg = np.exp(-rate)
    count = np.zeros(total, ct)
    while rows.size:
        u = buf.draw(rows)
        prod[rows] = prod[rows] * u
        done = prod[rows] <= exp_neg[rows]
        out[rows[done]] = count[rows[done]]
        count[rows[~done]] += t(1)
        rows = rows[~done]
    rows = np.nonzero(~knuth & ~np.isnan(rate))[0]
    log_rate = np.log(rate)
    b = t(0.931) + t(2.53) * np.sqrt(rate)
    a = t(-0.059) + t(0.02483) * b
    inv_alpha = t(1.1239) + t(1.1328) / (b - t(3.4))
    while rows.size:
        u = buf.draw(rows) - t(0.5)
        v = buf.draw(rows)
        ra, rb, rr = a[rows], b[rows], rate[rows]
        us = t(0.5) - np.abs(u)
        k = np.floor((t(2) * ra / us + rb) * u + rr + t(0.43))
        accept = (us >= t(0.07)) & (v <= t(0.9277) - t(3.6224) / (rb - t(2)))
        reject = ~accept & ((k < 0) | ((us < t(0.013)) & (v > us)))
        rest = ~accept & ~reject
        with np.errstate(all="ignore"):
            s = np.log(v * inv_alpha[rows] / (ra / (us * us) + rb))
            tt = -rr + k * log_rate[rows] - _lgamma(k + 1).astype(ct)
        accept |= rest & (s <= tt)
        out[rows[accept]] = k[accept]
        rows = rows[~accept]
    out[np.isnan(rate)] = np.nan
    return out.reshape(num_rates, samples_per_rate).T


def gamma(stream: Stream, alphas, samples_per_alpha: int):
    """Samples ``[samples_per_alpha, num_alphas]`` (float64), as TF's ``StatelessRandomGammaV2``."""
    alphas = np.asarray(alphas, np.float64).ravel()
    total = alphas.size * samples_per_alpha
    alpha = np.repeat(alphas, samples_per_alpha)
    gens = _Buffers(stream, total, 256)
    normal_buf = _Buffer(gens, _normal_doubles, 2)
    uniform_buf = _Buffer(gens, _uniform_doubles, 2)
    out = np.zeros(total)
    ones = np.nonzero(alpha == 1.0)[0]
    if ones.size:
        u = _uniform_doubles(gens.fresh_blocks(ones))[:, 1]
        out[ones] = -np.log1p(-u)
    less = alpha < 1
    d = alpha + np.where(less, 2.0 / 3, -1.0 / 3)
    c = 1.0 / 3 / np.sqrt(d)
    rows = np.nonzero(alpha != 1.0)[0]
    while rows.size:
        x = normal_buf.draw(rows)
        v = 1 + c[rows] * x
        positive = v > 0
        rows_p, x, v = rows[positive], x[positive], v[positive] ** 3
        u = uniform_buf.draw(rows_p)
        with np.errstate(all="ignore"):
            accept = (u < 1 - 0.0331 * (x * x) * (x * x)) | (np.log(u) < 0.5 * x * x + d[rows_p] * (1 - v + np.log(v)))
        done = rows_p[accept]
        res = d[done] * v[accept]
        small = less[done]
        if small.any():
            boost = uniform_buf.draw(done[small])
            res[small] *= boost ** (1 / alpha[done[small]])
        out[done] = res
        finished = np.zeros(total, bool)
        finished[done] = True
        rows = rows[~finished[rows]]
    return out.reshape(alphas.size, samples_per_alpha).T


_TAIL = np.array([0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287])


def _stirling_tail(k):
    kp1sq = (k + 1) * (k + 1)
    far = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    return np.where(k <= 9, _TAIL[np.clip(k, 0, 9).astype(np.int64)], far)


def binomial(stream: Stream, counts, probs):
    """One sample per (count, prob) pair (flattened, in output-index order), as TF's ``StatelessRandomBinomial``."""
    counts = np.asarray(counts, np.float64).ravel()
    probs = np.asarray(probs, np.float64).ravel()
    total = counts.size
    out = np.full(total, np.nan)
    out[(counts <= 0) | (probs <= 0)] = 0.0
    full = (probs >= 1) & ~(counts <= 0)
    out[full] = counts[full]
    live = (counts > 0) & (probs > 0) & (probs < 1)
    flip = probs > 0.5
    p = np.where(flip, 1 - probs, probs)
    big = live & (counts * p >= 10)
    small = live & ~big
    draws = np.zeros(total)
    # Inversion: count geometric gaps until they pass count (42 blocks per sample).
    gens = _Buffers(stream, total, 42)
    buf = _Buffer(gens, _uniform_doubles, 2)
    rows = np.nonzero(small)[0]
    geom_sum = np.zeros(total)
    num = np.zeros(total)
    while rows.size:
        u = buf.draw(rows)
        geom_sum[rows] += np.ceil(np.log(u) / np.log1p(-p[rows]))
        done = geom_sum[rows] > counts[rows]
        num[rows[~done]] += 1
        rows = rows[~done]
    draws[small] = num[small]
    # BTRS (256 blocks per sample).
    gens = _Buffers(stream, total, 256)
    buf = _Buffer(gens, _uniform_doubles, 2)
    n, q = counts, p
    stddev = np.sqrt(n * q * (1 - q))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * q
    c = n * q + 0.5
    v_r = 0.92 - 4.2 / b
    r = q / (1 - q)
    alpha = (2.83 + 5.1 / b) * stddev
    m = np.floor((n + 1) * q)
    rows = np.nonzero(big)[0]
    while rows.size:
        u = buf.draw(rows) - 0.5
        v = buf.draw(rows)
        us = 0.5 - np.abs(u)
        k = np.floor((2 * a[rows] / us + b[rows]) * u + c[rows])
        accept = (us >= 0.07) & (v <= v_r[rows])
        reject = ~accept & ((k < 0) | (k > n[rows]))
        nn, mm, rr = n[rows], m[rows], r[rows]
        with np.errstate(all="ignore"):
            lv = np.log(v * alpha[rows] / (a[rows] / (us * us) + b[rows]))
            bound = ((mm + 0.5) * np.log((mm + 1) / (rr * (nn - mm + 1)))
                     + (nn + 1) * np.log((nn - mm + 1) / (nn - k + 1))
                     + (k + 0.5) * np.log(rr * (nn - k + 1) / (k + 1))
                     + _stirling_tail(mm) + _stirling_tail(nn - mm) - _stirling_tail(k) - _stirling_tail(nn - k))
        accept |= ~reject & (lv <= bound)
        draws[rows[accept]] = k[accept]
        rows = rows[~accept]
    out[live] = np.where(flip[live], counts[live] - draws[live], draws[live])
    return out


# -- parameterized truncated normal --------------------------------------------------------------------


def _ptn_batch(stream: Stream, start: int, n: int, mean, stddev, lo, hi, dtype):
    """``n`` samples of one batch from block ``start``; returns (samples, blocks used)."""
    t = dtype.type
    double = dtype == np.float64
    per_block = 2 if double else 4
    if (np.isinf(lo) and lo < 0) or hi < mean:
        lo, hi, stddev = hi, lo, -stddev
    norm_min = (lo - mean) / stddev
    norm_max = (hi - mean) / stddev
    sqrt_factor = np.sqrt(norm_min * norm_min + t(4))
    cutoff = t(2) * np.exp(t(0.5) + (norm_min * (norm_min - sqrt_factor)) / t(4)) / (norm_min + sqrt_factor)
    diff = norm_max - norm_min
    randn = (norm_min < t(-1.3) and norm_max >= 0) or (norm_max > t(1.3) and norm_min <= 0)
    uniform_proposal = not randn and diff < cutoff
    blocks_per_round = 2 if uniform_proposal else 1
    taken: list = []
    used = 0
    chunk = max(4, 2 * n // per_block + 2)
    while True:
        w = stream.blocks(start + used + np.arange(chunk * blocks_per_round))
        if randn:
            vals = (_normal_doubles(w) if double else np.stack(
                [*box_muller_float(w[:, 0], w[:, 1]), *box_muller_float(w[:, 2], w[:, 3])], 1)).astype(dtype)
            ok = (vals >= norm_min) & (vals <= norm_max)
            cand = vals
        else:
            u = (_uniform_doubles(w) if double else uint32_to_float(w)).astype(dtype)
            if uniform_proposal:
                rand, uu = u[0::2], u[1::2]
                z = rand * diff + norm_min
                plus = t(0) if norm_min < 0 else norm_min * norm_min
                g = (plus - z * z) / t(2.0)
                ok = uu <= np.exp(g)
                cand = z
            else:
                alpha = (norm_min + np.sqrt(norm_min * norm_min + t(4))) / t(2)
                with np.errstate(divide="ignore"):
                    z = -np.log(u[:, 0::2]) / alpha + norm_min
                x = alpha - z if norm_min < alpha else np.full_like(z, norm_min - alpha)
                g = np.exp(-x * x / t(2.0))
                ok = (u[:, 1::2] <= g) & (z < norm_max)
                cand = z
        ok_flat = ok.ravel()
        hits = np.nonzero(ok_flat)[0]
        need = n - len(taken)
        if hits.size >= need:
            last = hits[need - 1]
            taken.extend(cand.ravel()[hits[:need]])
            rounds = last // ok.shape[1] + 1
            return np.asarray(taken, dtype) * stddev + mean, used + rounds * blocks_per_round
        taken.extend(cand.ravel()[hits])
        used += chunk * blocks_per_round


def parameterized_truncated_normal(stream: Stream, means, stddevs, minvals, maxvals, samples_per_batch: int, dtype):
    """Samples ``[samples_per_batch, num_batches]``, as TF's ``StatelessParameterizedTruncatedNormal``.

    The batches read one stream in turn (TF's single-shard order), each from a
    fresh block.
    """
    dtype = np.dtype(dtype)
    compute = np.dtype(np.float32) if dtype == np.float16 else dtype
    params = [np.asarray(p, compute).ravel() for p in (means, stddevs, minvals, maxvals)]
    num_batches = params[0].size
    out = np.zeros((samples_per_batch, num_batches), compute)
    start = 0
    for b in range(num_batches):
        mean, stddev, lo, hi = (p[b] for p in params)
        if not (stddev > 0 and lo < hi and (np.isfinite(lo) or np.isfinite(hi))):
            raise ValueError("Invalid parameters")
        if samples_per_batch:
            out[:, b], used = _ptn_batch(stream, start, samples_per_batch, mean, stddev, lo, hi, compute)
            start += used
    return out.astype(dtype)
