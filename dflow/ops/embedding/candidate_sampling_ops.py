"""Candidate samplers (``tf.nn.*_candidate_sampler``) and ``compute_accidental_hits``.

Each sampler op draws ``num_sampled`` class ids from a distribution over
``[0, range_max)`` and returns them with the expected count of each sampled
id and of each true class, as TF1's ``RangeSampler`` computes it: with
``unique=False`` the count is ``p * num_sampled``; with ``unique=True`` the
ids are drawn until ``num_sampled`` distinct ones appear, and the count is
``1 - (1 - p)^num_tries`` (``-expm1(num_tries * log1p(-p))`` in float32),
``num_tries`` being the number of draws that took. The distributions:

* uniform: ``p = 1 / range_max``;
* log-uniform (Zipfian): ``p(k) = (log(k + 2) - log(k + 1)) / log(range_max + 1)``;
* fixed unigram: ``p`` proportional to ``unigram ** distortion``, from the
  ``unigrams`` list or the last column of each line of ``vocab_file``, after
  ``num_reserved_ids`` ids of weight 0, keeping only ids ``i`` with
  ``i % num_shards == shard``;
* learned unigram: every id starts with count 1, and each run adds 1 to the
  count of each true class after it has sampled;
* all: the ids ``0 .. num_sampled - 1``, expected counts 1.

The draws come from the session's generator for the op, seeded as the
other random ops (``seed``/``seed2``); they are not TF's draws, but the
expected counts of given samples are TF's figures.
"""

from __future__ import annotations

import collections

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.files import file_io
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.random.random_ops import new_generator, seed_attrs

_RESULTS: dict = {}  # op type -> the namedtuple TF1 returns (named after the op type)
_AccidentalHits = collections.namedtuple("ComputeAccidentalHits", ["indices", "ids", "weights"])


def expected_count(p, batch_size: int, num_tries: int):
    """TF1's ``ExpectedCountHelper`` in float32."""
    p = np.asarray(p, np.float32)
    if num_tries == batch_size:
        return (p * np.float32(batch_size)).astype(np.float32)
    return (-np.expm1(np.float32(num_tries) * np.log1p(-p))).astype(np.float32)


class _Distribution:
    """A sampler's state: how it draws one id and the probability of an id."""

    def __init__(self, rng, range_max: int):
        self.rng = rng
        self.range_max = range_max

    def draw(self, n: int):
        return self.rng.integers(0, self.range_max, size=n)

    def probability(self, ids):
        return np.full(np.shape(ids), np.float32(1.0) / np.float32(self.range_max), np.float32)

    def update(self, true_classes) -> None:
        pass


class _LogUniform(_Distribution):
    def __init__(self, rng, range_max: int):
        super().__init__(rng, range_max)
        self.log_range = np.log1p(float(range_max))

    def draw(self, n: int):
        return (np.exp(self.rng.random(n) * self.log_range).astype(np.int64) - 1) % self.range_max

    def probability(self, ids):
        ids = np.asarray(ids, np.float64)
        return (np.log((ids + 2.0) / (ids + 1.0)) / self.log_range).astype(np.float32)


class _Weighted(_Distribution):
    def __init__(self, rng, weights):
        super().__init__(rng, len(weights))
        self.weights = np.asarray(weights)

    def total(self):
        # TF1 adds the float weights up one by one, in float32 (cumsum is sequential).
        return np.cumsum(self.weights.astype(np.float32))[-1] if self.weights.dtype.kind == "f" else \
            np.float32(self.weights.sum())

    def draw(self, n: int):
        p = self.weights.astype(np.float64)
        return self.rng.choice(self.range_max, size=n, p=p / p.sum())

    def probability(self, ids):
        ids = np.asarray(ids, np.int64)
        inside = (ids >= 0) & (ids < self.range_max)
        w = np.where(inside, self.weights[np.clip(ids, 0, self.range_max - 1)], 0)
        return (w.astype(np.float32) / self.total()).astype(np.float32)


class _Learned(_Weighted):
    def __init__(self, rng, range_max: int):
        super().__init__(rng, np.ones(range_max, np.int64))

    def update(self, true_classes) -> None:
        np.add.at(self.weights, np.asarray(true_classes, np.int64).reshape(-1), 1)


def _fixed_weights(range_max, vocab_file, distortion, num_reserved_ids, num_shards, shard, unigrams):
    weights = [np.float32(0) for word in range(num_reserved_ids) if word % num_shards == shard]
    if vocab_file:
        try:
            with file_io.open_file(vocab_file, "rb") as f:
                raw = [float(line.decode("utf-8").rstrip("\n").split(",")[-1]) for line in f if line.strip()]
        except (OSError, errors.OpError, ValueError) as e:
            raise errors.InvalidArgumentError(None, None, f"Cannot read vocab_file {vocab_file!r}: {e}") from None
    else:
        raw = list(unigrams)
    word = len(weights)
    for w in raw:
        if word % num_shards == shard:
            weights.append(np.power(np.float32(w), np.float32(distortion)))
        word += 1
    if len(weights) != range_max:
        raise _invalid(f"FixedUnigramCandidateSampler: range_max ({range_max}) must equal the number of ids of "
                       f"this shard, {len(weights)} (num_reserved_ids plus the vocabulary)")
    return np.array(weights, np.float32)


def _sample(dist: _Distribution, true_classes, num_true, num_sampled, unique):
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise _invalid(f"true_classes must be a matrix with num_true = {num_true} columns, got shape "
                       f"{list(true_classes.shape)}")
    if unique:
        if num_sampled > dist.range_max:
            raise _invalid(f"Sampler's range is too small: range_max = {dist.range_max} < num_sampled = "
                           f"{num_sampled} with unique=True")
        used: set = set()
        out, tries = [], 0
        while len(out) < num_sampled:
            for v in dist.draw(max(2 * (num_sampled - len(out)), 8)).tolist():
                tries += 1
                if v not in used:
                    used.add(v)
                    out.append(v)
                    if len(out) == num_sampled:
                        break
        sampled = np.array(out, np.int64)
    else:
        sampled = np.asarray(dist.draw(num_sampled), np.int64)
        tries = num_sampled
    true_count = expected_count(dist.probability(true_classes), num_sampled, tries)
    sampled_count = expected_count(dist.probability(sampled), num_sampled, tries)
    dist.update(true_classes)
    return sampled, true_count.reshape(true_classes.shape), sampled_count


def _sampler_infer(op):
    t = op._inputs[0]
    if t.dtype is not dtypes.int64:
        raise TypeError(f"Input 'true_classes' of '{op.type}' Op has type {t.dtype.name} that does not match "
                        f"expected type of int64.")
    shape = t.shape.with_rank(2) if t.shape.ndims is not None else TensorShape([None, None])
    n = op._attrs["num_sampled"]
    return [(dtypes.int64, TensorShape([n])), (dtypes.float32, TensorShape([shape[0], op._attrs["num_true"]])),
            (dtypes.float32, TensorShape([n]))]


def _sampler_kernel(make_distribution):
    def make_kernel(op, resources):
        a = op._attrs

        def factory():
            return make_distribution(new_generator(a["seed"], a["seed2"]), a)

        state = {}

        def kernel(true_classes):
            # Built on first use: a bad vocabulary is reported when the op runs, as in TF1.
            if "dist" not in state:
                state["dist"] = factory() if resources is None else resources.op_state(op, factory)
            return _sample(state["dist"], true_classes, a["num_true"], a["num_sampled"], a["unique"])

        return kernel

    return make_kernel


def _register_sampler(op_type: str, make_distribution) -> None:
    register(op_type, infer=_sampler_infer, make_kernel=_sampler_kernel(make_distribution), stateful=True,
             gpu=False)
    not_differentiable(op_type)


_register_sampler("UniformCandidateSampler", lambda rng, a: _Distribution(rng, a["range_max"]))
_register_sampler("LogUniformCandidateSampler", lambda rng, a: _LogUniform(rng, a["range_max"]))
_register_sampler("LearnedUnigramCandidateSampler", lambda rng, a: _Learned(rng, a["range_max"]))
_register_sampler("FixedUnigramCandidateSampler", lambda rng, a: _Weighted(rng, _fixed_weights(
    a["range_max"], a["vocab_file"], a["distortion"], a["num_reserved_ids"], a["num_shards"], a["shard"],
    a["unigrams"])))


def _all_kernel(true_classes, num_true, num_sampled, unique, range_max, seed, seed2):
    del unique, range_max, seed, seed2
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise _invalid(f"true_classes must be a matrix with num_true = {num_true} columns, got shape "
                       f"{list(true_classes.shape)}")
    return (np.arange(num_sampled, dtype=np.int64), np.ones(true_classes.shape, np.float32),
            np.ones(num_sampled, np.float32))


register("AllCandidateSampler", infer=_sampler_infer, kernel=_all_kernel, stateful=True, gpu=False)
not_differentiable("AllCandidateSampler")


def _call_sampler(op_type, name, true_classes, num_true, num_sampled, unique, range_max, seed, **extra):
    for arg, v in (("num_true", num_true), ("num_sampled", num_sampled), ("range_max", range_max)):
        if int(v) < 1:
            raise ValueError(f"{arg} must be at least 1, got {v}")
    with name_scope(name, op_type, [true_classes]) as scope:
        t = convert_to_tensor(true_classes, dtype=dtypes.int64, name="true_classes")
        attrs = {"num_true": int(num_true), "num_sampled": int(num_sampled), "unique": bool(unique),
                 "range_max": int(range_max), **seed_attrs(seed), **extra}
        result = _RESULTS.setdefault(op_type, collections.namedtuple(
            op_type, ["sampled_candidates", "true_expected_count", "sampled_expected_count"]))
        return result(*apply_op(op_type, [t], attrs, name=scope).outputs)


@tf_export("nn.uniform_candidate_sampler", "random.uniform_candidate_sampler")
def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """``num_sampled`` ids drawn uniformly from ``[0, range_max)``, with their expected counts.

    >>> import dflow as tf
    >>> s = tf.nn.uniform_candidate_sampler([[1]], 1, 4, False, 10)
    >>> tf.Session().run(s.true_expected_count).tolist()
    [[0.4000000059604645]]
    """
    return _call_sampler("UniformCandidateSampler", name, true_classes, num_true, num_sampled, unique, range_max,
                         seed)


@tf_export("nn.log_uniform_candidate_sampler", "random.log_uniform_candidate_sampler")
def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """``num_sampled`` ids drawn from the log-uniform (Zipfian) distribution over ``[0, range_max)``,
    with their expected counts (ids should be sorted by decreasing frequency).

    >>> import dflow as tf
    >>> s = tf.nn.log_uniform_candidate_sampler([[0]], 1, 2, False, 3)
    >>> tf.Session().run(s.true_expected_count).tolist()
    [[1.0]]
    """
    return _call_sampler("LogUniformCandidateSampler", name, true_classes, num_true, num_sampled, unique,
                         range_max, seed)


@tf_export("nn.learned_unigram_candidate_sampler", "random.learned_unigram_candidate_sampler")
def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None,
                                      name=None):
    """``num_sampled`` ids drawn by how often each id has been a true class so far (every id
    starts at one; each run counts its ``true_classes`` after sampling).

    >>> import dflow as tf
    >>> s = tf.nn.learned_unigram_candidate_sampler([[1]], 1, 2, False, 4)
    >>> tf.Session().run(s.true_expected_count).tolist()
    [[0.5]]
    """
    return _call_sampler("LearnedUnigramCandidateSampler", name, true_classes, num_true, num_sampled, unique,
                         range_max, seed)


@tf_export("nn.fixed_unigram_candidate_sampler", "random.fixed_unigram_candidate_sampler")
def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, vocab_file="",
                                    distortion=1.0, num_reserved_ids=0, num_shards=1, shard=0, unigrams=(),
                                    seed=None, name=None):
    """``num_sampled`` ids drawn in proportion to ``unigram ** distortion`` (from ``unigrams`` or the
    last column of ``vocab_file``'s lines), after ``num_reserved_ids`` ids that are never drawn.

    >>> import dflow as tf
    >>> s = tf.nn.fixed_unigram_candidate_sampler([[1]], 1, 2, False, 2, unigrams=[1., 3.])
    >>> tf.Session().run(s.true_expected_count).tolist()
    [[1.5]]
    """
    if not 0 <= int(shard) < int(num_shards):
        raise ValueError(f"shard must be in [0, num_shards), got shard={shard}, num_shards={num_shards}")
    if vocab_file and len(unigrams):
        raise ValueError("Give either vocab_file or unigrams, not both")
    return _call_sampler("FixedUnigramCandidateSampler", name, true_classes, num_true, num_sampled, unique,
                         range_max, seed, vocab_file=str(vocab_file), distortion=float(distortion),
                         num_reserved_ids=int(num_reserved_ids), num_shards=int(num_shards), shard=int(shard),
                         unigrams=tuple(float(u) for u in unigrams))


@tf_export("nn.all_candidate_sampler", "random.all_candidate_sampler")
def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """All the ids ``0 .. num_sampled - 1`` (for testing a sampled loss against the full one),
    expected counts 1.

    >>> import dflow as tf
    >>> tf.Session().run(tf.nn.all_candidate_sampler([[1]], 1, 3, True).sampled_candidates).tolist()
    [0, 1, 2]
    """
    return _call_sampler("AllCandidateSampler", name, true_classes, num_true, num_sampled, unique, num_sampled,
                         seed)


def _hits_kernel(true_classes, sampled_candidates, num_true):
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise _invalid(f"true_classes must be a matrix with num_true = {num_true} columns, got shape "
                       f"{list(true_classes.shape)}")
    position = {int(c): i for i, c in enumerate(np.asarray(sampled_candidates).tolist())}
    indices, ids = [], []
    for i, row in enumerate(true_classes.tolist()):
        for c in row:
            j = position.get(int(c))
            if j is not None:
                indices.append(i)
                ids.append(j)
    n = len(indices)
    return (np.array(indices, np.int32), np.array(ids, np.int64),
            np.full(n, -np.finfo(np.float32).max, np.float32))


def _hits_infer(op):
    return [(dtypes.int32, TensorShape([None])), (dtypes.int64, TensorShape([None])),
            (dtypes.float32, TensorShape([None]))]


register("ComputeAccidentalHits", infer=_hits_infer, kernel=_hits_kernel, gpu=False)
not_differentiable("ComputeAccidentalHits")


@tf_export("nn.compute_accidental_hits")
def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """Where a sampled candidate is one of a row's true classes: ``(indices, ids, weights)`` with the
    row, the candidate's position in ``sampled_candidates``, and ``-FLT_MAX`` to add to its logit.

    >>> import dflow as tf
    >>> hits = tf.nn.compute_accidental_hits([[2]], tf.constant([0, 2], tf.int64), 1)
    >>> tf.Session().run(hits.ids).tolist()
    [1]
    """
    with name_scope(name, "ComputeAccidentalHits", [true_classes, sampled_candidates]) as scope:
        t = convert_to_tensor(true_classes, dtype=dtypes.int64, name="true_classes")
        s = convert_to_tensor(sampled_candidates, dtype=dtypes.int64, name="sampled_candidates")
        attrs = {"num_true": int(num_true)}
        del seed  # TF1's op takes seeds it does not use
        return _AccidentalHits(*apply_op("ComputeAccidentalHits", [t, s], attrs, name=scope).outputs)
