"""tf.summary ops: bytes identical to TF1's kernels, TF1 tags and names, collections, errors."""

import hashlib

import numpy as np
import pytest

import dflow as tf
from dflow.summary.summary_ops import DEFAULT_BUCKET_LIMITS, clean_tag, histogram_proto
from tests.summary import tf1_reference as ref


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


def test_scalar_bytes_name_and_collection_match_tf1():
    s = tf.summary.scalar("loss", 1.5)
    assert s.dtype is tf.string and s.shape.as_list() == []
    assert s.op.name == "loss" and s.op.type == "ScalarSummary"
    assert [op.name for op in tf.get_default_graph().get_operations()] == ["loss/values", "loss"]
    assert tf.get_collection(tf.GraphKeys.SUMMARIES) == [s]
    assert _run(s) == ref.SCALAR_LOSS


def test_scalar_tags_follow_tf1_scopes_families_and_cleaning():
    a = tf.summary.scalar("loss", 1.5)
    b = tf.summary.scalar("loss", tf.constant(2, tf.int32))
    with tf.name_scope("outer"):
        c = tf.summary.scalar("a b:c", 0.0, family="fam ily")
        d = tf.summary.scalar("/lead", -3.25)
    e = tf.summary.scalar("bscal", tf.constant(7, tf.uint8))
    assert (b.op.name, c.op.name, d.op.name) == ("loss_1", "outer/fam_ily/a_b_c", "outer/lead")
    with tf.Session() as sess:
        got = sess.run([a, b, c, d, e])
    assert got == [ref.SCALAR_LOSS, ref.SCALAR_LOSS_1, ref.SCALAR_FAMILY, ref.SCALAR_LEAD, ref.SCALAR_UINT8]


def test_clean_tag():
    assert clean_tag("a b:c") == "a_b_c"
    assert clean_tag("//x/y.z-w") == "x/y.z-w"
    assert clean_tag(None) is None


def test_collections_argument():
    s = tf.summary.scalar("x", 1.0, collections=["mine"])
    assert tf.get_collection(tf.GraphKeys.SUMMARIES) == []
    assert tf.get_collection("mine") == [s]
    assert tf.summary.merge_all() is None
    assert tf.summary.merge_all("mine") is not None


def test_scalar_of_a_fed_value():
    x = tf.placeholder(tf.float32, [])
    s = tf.summary.scalar("loss", x)
    with tf.Session() as sess:
        assert sess.run(s, {x: 1.5}) == ref.SCALAR_LOSS


def test_non_scalar_to_scalar_is_invalid_argument_naming_the_op():
    s = tf.summary.scalar("bad", tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(s)
    msg = str(info.value)
    assert "tags and values are not the same shape: [] != [2] (tag 'bad')" in msg
    assert "bad" in msg and "ScalarSummary" in msg


def test_bad_dtypes_at_graph_construction():
    with pytest.raises(TypeError, match="bool"):
        tf.summary.scalar("q", tf.constant(True))
    with pytest.raises(TypeError, match="string"):
        tf.summary.histogram("q", tf.constant(["a"]))
    with pytest.raises(ValueError, match="to have dtype string"):
        tf.summary.text("q", tf.constant(1.0))


def test_histogram_bytes_match_tf1():
    h = tf.summary.histogram("h", tf.constant([-1.0, 0.0, 0.5, 2.0, 2.0, 100.0, 1e-13], tf.float64))
    h32 = tf.summary.histogram("h32", tf.constant([[0.1, 0.2], [0.3, -7.5]], tf.float32))
    empty = tf.summary.histogram("hempty", tf.zeros([0]))
    with tf.Session() as sess:
        assert sess.run([h, h32, empty]) == [ref.HISTOGRAM_H, ref.HISTOGRAM_H32, ref.HISTOGRAM_EMPTY]


def test_histogram_default_buckets_match_tf1_everywhere():
    logs = np.array([float(f"{v:.8e}") for v in np.logspace(-13, 21, 3001)])  # libm-independent floats
    x = np.concatenate([-logs, [0.0], logs, [5e-324, -1.0, 1.0]])
    data = _run(tf.summary.histogram("wide", tf.constant(x, tf.float64)))
    assert len(data) == ref.HISTOGRAM_WIDE_LEN
    assert hashlib.sha256(data).hexdigest() == ref.HISTOGRAM_WIDE_SHA256
    histo = tf.Summary.FromString(data).value[0].histo
    assert len(histo.bucket) == ref.HISTOGRAM_WIDE_BUCKETS == len(DEFAULT_BUCKET_LIMITS)
    assert list(histo.bucket_limit) == DEFAULT_BUCKET_LIMITS.tolist()


def test_default_bucket_limits_shape():
    lim = DEFAULT_BUCKET_LIMITS
    assert len(lim) == 1551 and lim[775] == 0.0 and lim[776] == 1e-12
    assert lim[-1] == np.finfo(np.float64).max and lim[0] == -lim[-1]
    assert np.all(np.diff(lim) > 0)
    np.testing.assert_array_equal(lim[:775], -lim[776:][::-1])


def test_histogram_proto_counts():
    h = histogram_proto([1.0, 1.0, 3.0])
    assert (h.min, h.max, h.num, h.sum, h.sum_squares) == (1.0, 3.0, 3.0, 5.0, 11.0)
    assert sum(h.bucket) == 3.0


@pytest.mark.parametrize("value, what", [(float("nan"), "Nan"), (float("inf"), "Infinity")])
def test_histogram_of_non_finite_values_fails(value, what):
    h = tf.summary.histogram("nanh", tf.constant([1.0, value]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"{what} in summary histogram for: nanh"):
        _run(h)


def test_text_and_tensor_summary_bytes_match_tf1():
    t = tf.summary.text("txt", tf.constant("hello"))
    t2 = tf.summary.text("txt2", tf.constant([["a", "bc"], ["d", "e"]]))
    ts = tf.summary.tensor_summary("ts", tf.constant([[1.0, 2.0]], tf.float32))
    ti = tf.summary.tensor_summary("ti", tf.constant(3, tf.int64), summary_description="desc")
    with tf.Session() as sess:
        assert sess.run([t, t2, ts, ti]) == [ref.TEXT_SCALAR, ref.TEXT_MATRIX, ref.TENSOR_FLOAT, ref.TENSOR_INT]


def test_merge_and_merge_all():
    s = tf.summary.scalar("loss", 1.5)
    h = tf.summary.histogram("h", tf.constant([-1.0, 0.0, 0.5, 2.0, 2.0, 100.0, 1e-13], tf.float64))
    m = tf.summary.merge([s, h])
    assert m.op.name == "Merge/MergeSummary" and m.op.type == "MergeSummary"
    assert m not in tf.get_collection(tf.GraphKeys.SUMMARIES)
    everything = tf.summary.merge_all()
    assert everything.op.name == "Merge_1/MergeSummary"
    assert [t.name for t in everything.op.inputs] == ["loss:0", "h:0"]
    with tf.Session() as sess:
        merged, all_ = sess.run([m, everything])
    assert merged == ref.SCALAR_LOSS + ref.HISTOGRAM_H == all_
    nested = tf.summary.merge([tf.summary.merge([tf.summary.tensor_summary("ts", tf.constant([[1.0, 2.0]]))]),
                               tf.summary.tensor_summary("ti", tf.constant(3, tf.int64), summary_description="desc")])
    assert _run(nested) == ref.TENSOR_FLOAT + ref.TENSOR_INT


def test_merge_all_scope_filter_and_empty_graph():
    assert tf.summary.merge_all() is None
    with tf.name_scope("a"):
        tf.summary.scalar("x", 1.0)
    tf.summary.scalar("y", 2.0)
    m = tf.summary.merge_all(scope="a")
    assert [v.tag for v in tf.Summary.FromString(_run(m)).value] == ["a/x"]


def test_merge_duplicate_tags_fail():
    s = tf.summary.scalar("loss", 1.5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Duplicate tag loss found in summary inputs"):
        _run(tf.summary.merge([s, s]))


# -- image and audio summaries: TF 2.15's tags, fields, decoded pixels and WAV bytes (/tmp/ref/imgsum.py) --------

def _images(summary):
    with tf.Session() as sess:
        return [(v.tag, v.image.height, v.image.width, v.image.colorspace,
                 sess.run(tf.image.decode_png(v.image.encoded_image_string)).tolist())
                for v in tf.Summary.FromString(summary).value]


def test_image_summaries_as_tf():
    rng = np.random.RandomState(0)
    u8 = rng.randint(0, 256, (2, 3, 4, 3)).astype(np.uint8)
    fpos = (rng.rand(2, 2, 3, 1) * 5).astype(np.float32)
    fneg = rng.randn(1, 2, 2, 4).astype(np.float32)
    fnan = np.array([[[[0.5], [np.nan]], [[np.inf], [1.0]]]], np.float32)
    s = tf.summary.image("u8", tf.constant(u8))
    assert s.op.type == "ImageSummary" and s in tf.get_collection(tf.GraphKeys.SUMMARIES)
    assert _images(_run(s)) == [("u8/image/0", 3, 4, 3, u8[0].tolist()), ("u8/image/1", 3, 4, 3, u8[1].tolist())]
    assert _images(_run(tf.summary.image("one", tf.constant(u8), max_outputs=1))) == [
        ("one/image", 3, 4, 3, u8[0].tolist())]
    # floats: scaled so the largest is 255 (all >= 0), or 0 at 128 over the largest magnitude; red if not finite
    assert _images(_run(tf.summary.image("fpos", tf.constant(fpos), max_outputs=1))) == [
        ("fpos/image", 2, 3, 1, [[[165], [166], [255]], [[184], [97], [118]]])]
    assert _images(_run(tf.summary.image("fneg", tf.constant(fneg)))) == [
        ("fneg/image/0", 2, 2, 4, [[[59, 35, 16, 255], [94, 99, 46, 178]], [[22, 114, 69, 153], [94, 51, 126, 155]]])]
    assert _images(_run(tf.summary.image("fnan", tf.constant(fnan)))) == [
        ("fnan/image/0", 2, 2, 1, [[[127], [255]], [[255], [255]]])]
    with pytest.raises(TypeError, match="DataType int32 not in list of allowed values"):
        tf.summary.image("i", tf.zeros([1, 2, 2, 3], tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"4-D with last dim 1, 3, or 4, not \[2,3,4,2\]"):
        _run(tf.summary.image("y", tf.zeros([2, 3, 4, 2])))


_WAV_HEADER_8K_MONO = [82, 73, 70, 70, 48, 0, 0, 0, 87, 65, 86, 69, 102, 109, 116, 32, 16, 0, 0, 0, 1, 0, 1, 0, 64,
                       31, 0, 0, 128, 62, 0, 0, 2, 0, 16, 0, 100, 97, 116, 97, 12, 0, 0, 0]


def test_audio_summaries_as_tf():
    clips = (np.sin(np.arange(12) / 2.0).reshape(2, 6, 1) * 1.2).astype(np.float32)
    s = tf.summary.audio("snd", tf.constant(clips), 8000, max_outputs=2)
    values = tf.Summary.FromString(_run(s)).value
    assert [(v.tag, v.audio.sample_rate, v.audio.num_channels, v.audio.length_frames, v.audio.content_type)
            for v in values] == [("snd/audio/0", 8000.0, 1, 6, "audio/wav"), ("snd/audio/1", 8000.0, 1, 6, "audio/wav")]
    assert list(values[0].audio.encoded_audio_string) == _WAV_HEADER_8K_MONO + [
        0, 0, 164, 73, 255, 127, 255, 127, 255, 127, 237, 91]  # clamped to [-1, 1], as TF's bytes
    assert list(values[1].audio.encoded_audio_string) == _WAV_HEADER_8K_MONO + [
        173, 21, 31, 202, 193, 139, 0, 128, 0, 128, 161, 147]
    flat = tf.Summary.FromString(_run(tf.summary.audio("flat", tf.zeros([2, 4]), 100, max_outputs=1))).value
    assert [(v.tag, v.audio.num_channels, v.audio.length_frames) for v in flat] == [("flat/audio", 1, 4)]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Tensor must be 3-D or 2-D, got: \[3,4,1,1\]"):
        _run(tf.summary.audio("a", tf.zeros([3, 4, 1, 1]), 100))



def test_complex_tensor_summaries_are_tfs_bytes():
    # TF 2.15's bytes: the values as raw little-endian (real, imaginary) pairs in tensor_content
    c64 = tf.summary.tensor_summary("c", tf.constant(np.array([1 + 2j, 3 - 1j], np.complex64)))
    c128 = tf.summary.tensor_summary("d", tf.constant(np.array([[1 + 2j], [0.5 - 1j]], np.complex128)))
    assert list(_run(c64)) == [10, 33, 10, 1, 99, 66, 26, 8, 8, 18, 4, 18, 2, 8, 2, 34, 16, 0, 0, 128, 63, 0, 0, 0, 64,
                               0, 0, 64, 64, 0, 0, 128, 191, 74, 0]
    assert list(_run(c128)) == [10, 53, 10, 1, 100, 66, 46, 8, 18, 18, 8, 18, 2, 8, 2, 18, 2, 8, 1, 34, 32, 0, 0, 0, 0,
                                0, 0, 240, 63, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 224, 63, 0, 0, 0, 0, 0, 0,
                                240, 191, 74, 0]
