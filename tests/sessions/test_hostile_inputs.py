"""Issue 15, hostile inputs (property-based, with hypothesis): whatever arrays reach the ops, and however
a checkpoint or meta graph file is damaged, the answer is a TF error class (or, for bad feeds, TF1's own
``ValueError``/``TypeError`` naming the tensor), never a stray Python exception, and the session stays
usable.

hypothesis is used as a library; its pytest plugin is switched off in setup.cfg (on this Python it
breaks pytest's summary when warnings are reported).
"""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dflow as tf
from dflow.framework import errors

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)

SHAPES = st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple)
FILL = st.sampled_from(["normal", "nan", "inf", "huge", "zero", "negative"])


def _floats(shape, fill, seed):
    rng = np.random.default_rng(seed)
    values = {"normal": lambda: rng.standard_normal(shape), "nan": lambda: np.full(shape, np.nan),
              "inf": lambda: np.full(shape, -np.inf), "huge": lambda: np.full(shape, 3e38),
              "zero": lambda: np.zeros(shape), "negative": lambda: -np.abs(rng.standard_normal(shape)) - 1}[fill]()
    return values.astype(np.float32)


def _ints(shape, seed):
    return np.random.default_rng(seed).integers(-6, 12, shape).astype(np.int32)


def _graph():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, None, name="x")
        i = tf.placeholder(tf.int32, None, name="i")
        ops = [tf.reshape(x, [3, -1]), tf.matmul(x, x), tf.gather(x, i), tf.concat([x, x], 1), tf.transpose(x),
               tf.reduce_sum(x, 1), x[1:3, 0], tf.nn.softmax(x), tf.split(x, 2, axis=0)[0], tf.tile(x, i),
               tf.one_hot(i, 3), tf.argmax(x, 1), tf.squeeze(x, [0]), tf.pad(x, [[1, 1], [2, 2]]), tf.cumsum(x, 1),
               tf.nn.conv2d(x, tf.ones([2, 2, 1, 1]), [1, 1, 1, 1], "VALID"),
               tf.nn.max_pool(x, [1, 2, 2, 1], [1, 1, 1, 1], "VALID"),
               tf.nn.sparse_softmax_cross_entropy_with_logits(labels=i, logits=x), tf.nn.top_k(x, 2)[0],
               tf.math.segment_sum(x, i), tf.scatter_nd(tf.reshape(i, [-1, 1]), x, [4]), tf.cholesky(x),
               tf.matrix_inverse(x), tf.range(i), tf.fill(i, 1.0), tf.broadcast_to(x, [2, 3]), tf.where(x > 0),
               tf.unique(x)[0], tf.image.resize_bilinear(x, [4, 4]), tf.nn.bias_add(x, [1.0, 2.0]),
               tf.nn.embedding_lookup(x, i), tf.gather_nd(x, i), tf.matrix_diag_part(x), tf.linalg.expm(x),
               tf.sparse.to_dense(tf.SparseTensor(tf.cast(tf.reshape(i, [-1, 1]), tf.int64), x, [5])),
               tf.strings.as_string(x), tf.signal.rfft(x), tf.nn.lrn(x)]
        check = tf.constant(2.0) * 3.0
    return g, x, i, ops, check


GRAPH = _graph()


@SETTINGS
@given(op=st.integers(0, len(GRAPH[3]) - 1), xshape=SHAPES, ishape=SHAPES, fill=FILL, seed=st.integers(0, 2**16))
def test_ops_answer_any_array_with_a_tf_error(op, xshape, ishape, fill, seed):
    g, x, i, ops, check = GRAPH
    with tf.Session(graph=g) as sess:
        try:
            sess.run(ops[op], {x: _floats(xshape, fill, seed), i: _ints(ishape, seed)})
        except errors.OpError as e:
            assert e.op is not None or e.message  # names the op (or says what was wrong)
        assert sess.run(check) == 6.0  # the session stays usable


NOT_ARRAYS = st.one_of(st.text(max_size=5), st.none(), st.dictionaries(st.text(max_size=2), st.integers()),
                       st.lists(st.lists(st.floats(allow_nan=True), max_size=3), max_size=3), st.binary(max_size=4),
                       st.integers(), st.floats(allow_nan=True))


@SETTINGS
@given(value=NOT_ARRAYS)
def test_feeds_of_anything_are_refused_as_tf1_does_or_accepted(value):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.reduce_sum(x)
    with tf.Session(graph=g) as sess:
        try:
            sess.run(y, {x: value})
        except (ValueError, TypeError) as e:  # TF1's session raises these for feeds it cannot take
            assert "x:0" in str(e)
        assert sess.run(y, {x: [[1.0, 2.0, 3.0]]}) == 6.0


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    directory = tmp_path_factory.mktemp("hostile_ckpt")
    with tf.Graph().as_default():
        tf.Variable(np.arange(20, dtype=np.float32).reshape(4, 5), name="v")
        tf.get_variable("w", [3], initializer=tf.ones_initializer())
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, str(directory / "ck"))
    files = {kind: prefix + suffix for kind, suffix in
             (("index", ".index"), ("data", ".data-00000-of-00001"), ("meta", ".meta"))}
    return prefix, files, {kind: open(path, "rb").read() for kind, path in files.items()}


@SETTINGS
@given(kind=st.sampled_from(["index", "data", "meta"]), truncate=st.booleans(), where=st.floats(0, 1),
       bits=st.lists(st.tuples(st.floats(0, 0.9999), st.integers(0, 7)), min_size=1, max_size=3))
def test_damaged_checkpoints_and_meta_graphs_are_clear_errors(checkpoint, kind, truncate, where, bits):
    prefix, files, original = checkpoint
    data = bytearray(original[kind])
    if truncate:
        data = data[:int(where * len(data))]
    else:
        for position, bit in bits:
            data[int(position * len(data))] ^= 1 << bit
    with open(files[kind], "wb") as f:
        f.write(bytes(data))
    try:
        with tf.Graph().as_default():
            if kind == "meta":
                saver = tf.train.import_meta_graph(files["meta"])
            else:
                tf.Variable(np.zeros((4, 5), np.float32), name="v")
                tf.get_variable("w", [3])
                saver = tf.train.Saver()
            with tf.Session() as sess:
                saver.restore(sess, prefix)
    except errors.OpError:  # DataLossError, NotFoundError, InvalidArgumentError, ... naming the file or op
        pass
    except OSError as e:  # TF's import_meta_graph: "Cannot parse file ..."
        assert kind == "meta" and "Cannot parse file" in str(e) and os.path.basename(files["meta"]) in str(e)
    except ValueError as e:  # a damaged name inside a readable meta graph (TF's import raises ValueError too)
        assert kind == "meta" and ("does not match" in str(e) or "refers to" in str(e)), e
    finally:
        with open(files[kind], "wb") as f:
            f.write(original[kind])
