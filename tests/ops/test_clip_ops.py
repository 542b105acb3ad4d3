"""Clipping by norm, against TF1 figures (TF 2.15 in TF1 graph mode)."""

import numpy as np
import pytest

import dflow as tf

A = [[3.0, -4.0, 1.0], [0.5, 2.0, -2.0]]
B = [1.5, -0.5]

# name: (expression, TF1's name of the result, TF1's value)
SINGLE = {
    "by_norm_clipped": ("tf.clip_by_norm(tf.constant(A), 2.0)", "clip_by_norm:0",
                        [[1.0252292, -1.3669723, 0.34174308], [0.17087154, 0.68348616, -0.68348616]]),
    "by_norm_unclipped": ("tf.clip_by_norm(tf.constant(A), 100.0)", "clip_by_norm:0", A),
    "by_norm_axes1": ("tf.clip_by_norm(tf.constant(A), 3.0, axes=[1])", "clip_by_norm:0",
                      [[1.7650452, -2.3533936, 0.5883484], [0.5, 2.0, -2.0]]),
    "by_norm_axes0": ("tf.clip_by_norm(tf.constant(A), 1.0, axes=0)", "clip_by_norm:0",
                      [[0.98639387, -0.8944272, 0.4472136], [0.16439898, 0.4472136, -0.8944272]]),
    "by_norm_zero": ("tf.clip_by_norm(tf.zeros([2, 2]), 1.0)", "clip_by_norm:0", [[0.0, 0.0], [0.0, 0.0]]),
    "global_norm": ("tf.global_norm([tf.constant(A), None, tf.constant(B)])", "global_norm/global_norm:0",
                    6.0621777),
    "by_average_norm": ("tf.clip_by_average_norm(tf.constant(A), 0.5)", "clip_by_average_norm:0",
                        [[1.5378438, -2.0504584, 0.5126146], [0.2563073, 1.0252292, -1.0252292]]),
    "by_average_norm_unclipped": ("tf.clip_by_average_norm(tf.constant(A), 5.0)", "clip_by_average_norm:0", A),
}


@pytest.mark.parametrize("key", sorted(SINGLE))
def test_clip_matches_tf1(key):
    spec, name, want = SINGLE[key]
    out = eval(spec, {"tf": tf, "A": A, "B": B})
    assert out.name == name
    with tf.Session() as s:
        got = s.run(out)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.array(want, np.float32), rtol=1e-6)


_CLIPPED = [[1.2371792, -1.6495723, 0.41239306], [0.20619653, 0.8247861, -0.8247861]]
GLOBAL = {  # name: (expression, TF1's names of the clipped tensors, TF1's values, TF1's norm)
    "clipped": ("tf.clip_by_global_norm([tf.constant(A), None, tf.constant(B)], 2.5)",
                ["clip_by_global_norm/clip_by_global_norm/_0:0", None,
                 "clip_by_global_norm/clip_by_global_norm/_2:0"],
                [_CLIPPED, None, [0.6185896, -0.20619653]], 6.0621777),
    "unclipped": ("tf.clip_by_global_norm([tf.constant(A), tf.constant(B)], 50.0)",
                  ["clip_by_global_norm/clip_by_global_norm/_0:0", "clip_by_global_norm/clip_by_global_norm/_1:0"],
                  [A, B], 6.0621777),
    "use_norm": ("tf.clip_by_global_norm([tf.constant(A), tf.constant(B)], 1.0, use_norm=tf.constant(4.0))",
                 ["clip_by_global_norm/clip_by_global_norm/_0:0", "clip_by_global_norm/clip_by_global_norm/_1:0"],
                 [[[0.75, -1.0, 0.25], [0.125, 0.5, -0.5]], [0.375, -0.125]], 4.0),
    "infinite": ("tf.clip_by_global_norm([tf.constant(A), tf.constant([np.inf])], 1.0)",
                 ["clip_by_global_norm/clip_by_global_norm/_0:0", "clip_by_global_norm/clip_by_global_norm/_1:0"],
                 [np.full((2, 3), np.nan), [np.nan]], np.inf),
}


@pytest.mark.parametrize("key", sorted(GLOBAL))
def test_clip_by_global_norm_matches_tf1(key):
    spec, names, want, want_norm = GLOBAL[key]
    clipped, norm = eval(spec, {"tf": tf, "A": A, "B": B, "np": np})
    assert [None if t is None else t.name for t in clipped] == names
    with tf.Session() as s:
        got, got_norm = s.run(([t for t in clipped if t is not None], norm))
    for g, w in zip(got, [w for w in want if w is not None]):
        np.testing.assert_allclose(g, np.array(w, np.float32), rtol=1e-6)
    np.testing.assert_allclose(got_norm, np.float32(want_norm), rtol=1e-6)


def test_global_norm_of_a_variable_list_and_errors():
    v = tf.Variable([3.0, 4.0], name="v")
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(tf.global_norm([v])) == 5.0
    with pytest.raises(TypeError, match="should be a sequence of tensors"):
        tf.global_norm(tf.constant([1.0]))
    with pytest.raises(TypeError, match="should be a sequence of tensors"):
        tf.clip_by_global_norm(tf.constant([1.0]), 1.0)


def test_clip_by_norm_keeps_float64_and_shape():
    t = tf.placeholder(tf.float64, [None, 2])
    out = tf.clip_by_norm(t, 1.0, axes=1)
    assert out.dtype == tf.float64 and out.shape.as_list() == [None, 2]
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(out, {t: [[3.0, 4.0], [0.3, 0.4]]}), [[0.6, 0.8], [0.3, 0.4]])


def test_indexed_slices_stay_sliced_and_repeated_rows_count_once_each_as_in_tf1():
    """An embedding's gradient (rows 1, 3, 1, 1) through TF1's clipping functions: each keeps
    the IndexedSlices and reads its values as they are, repeated rows not summed first; the
    optimizer then applies them sparsely. Figures from TF 2.15 compat.v1."""
    emb = tf.Variable(np.arange(12, dtype=np.float32).reshape(6, 2) / 10)
    w = tf.Variable(np.array([[1.0, -2.0]], np.float32))
    e = tf.nn.embedding_lookup(emb, tf.constant([1, 3, 1, 1]))
    loss = tf.reduce_sum(tf.matmul(e, tf.transpose(w)) ** 2)
    g_emb, g_w = tf.gradients(loss, [emb, w])
    norm = tf.global_norm([g_emb, g_w])
    clipped, _ = tf.clip_by_global_norm([g_emb, g_w], 1.5)
    by_norm = tf.clip_by_norm(g_emb, 0.5)
    by_value = tf.clip_by_value(g_emb, -0.5, 0.5)
    for t in (clipped[0], by_norm, by_value):
        assert isinstance(t, tf.IndexedSlices) and t.indices is g_emb.indices
    train = tf.train.GradientDescentOptimizer(0.1).apply_gradients(zip(clipped, [emb, w]))
    row = np.array([-1.0, 2.0], np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_norm, got_clipped, got_by_norm, got_by_value = sess.run(
            [norm, clipped[0].values, by_norm.values, by_value.values])
        np.testing.assert_allclose(got_norm, 5.2781816, rtol=1e-6)  # summing repeated rows first: 6.86
        np.testing.assert_allclose(got_clipped, [0.22735104 * row, 0.45470202 * row, 0.22735104 * row,
                                                 0.22735104 * row], rtol=1e-6)
        np.testing.assert_allclose(got_by_norm, [0.08451543 * row, 0.16903085 * row, 0.08451543 * row,
                                                 0.08451543 * row], rtol=1e-6)
        np.testing.assert_array_equal(got_by_value, [[-0.5, 0.5]] * 4)
        sess.run(train)
        np.testing.assert_allclose(sess.run(emb), [[0.0, 0.1], [0.2682053, 0.16358939], [0.4, 0.5],
                                                   [0.6454702, 0.6090596], [0.8, 0.9], [1.0, 1.1]], rtol=1e-6)
        np.testing.assert_allclose(sess.run(w), [[1.0409232, -1.9477093]], rtol=1e-6)
