"""Writes this folder's files with TensorFlow 2.15 (tensorflow-cpu 2.15.1).

dflow's suite never runs this script (it never imports TensorFlow): the files
it wrote are checked in, and tests/io/test_tf_written_files.py reads them back
and compares with the values TensorFlow gave (printed by this script and
written into the tests as literals; the decoded JPEG pixels as .npy files).

    TF_CPP_MIN_LOG_LEVEL=3 python tools/make_tf_test_files.py tests/io/data
"""

import hashlib
import os
import sys

import numpy as np

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def example(tf, i):
    """Example i of three: int64, bytes, float and varying-length features, as a message of ``tf``
    (TensorFlow's here; tests/io/test_tf_written_files.py builds it with dflow's)."""
    f = tf.train.Feature
    feats = {
        "id": f(int64_list=tf.train.Int64List(value=[i])),
        "label": f(bytes_list=tf.train.BytesList(value=[b"label-%d" % i])),
        "score": f(float_list=tf.train.FloatList(value=[0.5 * i, -1.25 + i])),
        "tags": f(bytes_list=tf.train.BytesList(value=[b"t%d" % k for k in range(i)])),
        "vals": f(int64_list=tf.train.Int64List(value=[10 * i + k for k in range(2 * i % 3)] + [-(2 ** 40)])),
        "weights": f(float_list=tf.train.FloatList(value=[0.1 * k for k in range(i + 1)])),
    }
    return tf.train.Example(features=tf.train.Features(feature=feats))


def sequence_example(tf):
    f = tf.train.Feature
    se = tf.train.SequenceExample()
    se.context.feature["length"].CopyFrom(f(int64_list=tf.train.Int64List(value=[3])))
    se.context.feature["name"].CopyFrom(f(bytes_list=tf.train.BytesList(value=[b"seq"])))
    for t in range(3):
        se.feature_lists.feature_list["tokens"].feature.add().int64_list.value.extend([t, t + 1])
        se.feature_lists.feature_list["words"].feature.add().bytes_list.value.extend([b"w%d" % k for k in range(t)])
    return se


def sha(b):
    return hashlib.sha256(b).hexdigest()


def main():
    import tensorflow.compat.v1 as tf

    tf.disable_eager_execution()
    records = [example(tf, i).SerializeToString(deterministic=True) for i in range(3)]
    seq_record = sequence_example(tf).SerializeToString(deterministic=True)
    for fname, comp in [("examples.tfrecord", ""), ("examples.tfrecord.gz", "GZIP"),
                        ("examples.tfrecord.zz", "ZLIB")]:
        path = os.path.join(OUT, fname)
        with tf.io.TFRecordWriter(path, options=comp) as w:
            for r in records:
                w.write(r)
        got = list(tf.io.tf_record_iterator(path, options=comp))
        assert got == records
        print(fname, os.path.getsize(path), sha(open(path, "rb").read()), [sha(r) for r in got])
    seq_path = os.path.join(OUT, "sequence.tfrecord")
    with tf.io.TFRecordWriter(seq_path) as w:
        w.write(seq_record)
    print("sequence.tfrecord", sha(open(seq_path, "rb").read()), sha(seq_record))

    # parsed values
    spec = {"id": tf.FixedLenFeature([], tf.int64), "label": tf.FixedLenFeature([], tf.string),
            "score": tf.FixedLenFeature([2], tf.float32), "tags": tf.VarLenFeature(tf.string),
            "vals": tf.VarLenFeature(tf.int64), "weights": tf.VarLenFeature(tf.float32)}
    parsed = tf.io.parse_example(tf.constant(records), spec)
    ctx, seq = tf.io.parse_single_sequence_example(
        tf.constant(seq_record),
        context_features={"length": tf.FixedLenFeature([], tf.int64), "name": tf.FixedLenFeature([], tf.string)},
        sequence_features={"tokens": tf.FixedLenSequenceFeature([2], tf.int64),
                           "words": tf.VarLenFeature(tf.string)})

    # images
    rgb = ((np.arange(6)[:, None, None] * 40 + np.arange(5)[None, :, None] * 23
            + np.arange(3)[None, None, :] * 71) % 256).astype(np.uint8)
    gray16 = (np.arange(12).reshape(3, 4, 1) * 5461).astype(np.uint16)
    yy, xx = np.mgrid[0:16, 0:16]
    photo = np.stack([xx * 16, yy * 16, (xx + yy) * 8], -1).clip(0, 255).astype(np.uint8)
    encoded = {
        "rgb8.png": tf.image.encode_png(rgb),
        "gray16.png": tf.image.encode_png(gray16),
        "photo.jpg": tf.image.encode_jpeg(photo, quality=90),
        "gray.jpg": tf.image.encode_jpeg(photo[:, :, :1], quality=75),
    }
    with tf.Session() as sess:
        enc = sess.run(encoded)
        for name, data in enc.items():
            open(os.path.join(OUT, name), "wb").write(data)
            print(name, len(data), sha(data))
        p, c, s = sess.run([parsed, ctx, seq])
        print("parsed", {k: v for k, v in p.items()})
        print("context", c, "sequence", s)
        c = tf.constant
        png8 = sess.run(tf.image.decode_png(c(enc["rgb8.png"])))
        png16 = sess.run(tf.image.decode_png(c(enc["gray16.png"]), dtype=tf.uint16))
        assert (png8 == rgb).all() and (png16 == gray16).all()
        for name in ("photo.jpg", "gray.jpg"):
            for method in ("", "INTEGER_ACCURATE"):
                px = sess.run(tf.image.decode_jpeg(c(enc[name]), dct_method=method))
                stem = name.split(".")[0] + ("_accurate" if method else "_default")
                np.save(os.path.join(OUT, f"{stem}.npy"), px)
                print(stem, px.shape, sha(px.tobytes()))
        # PNGs dflow encoded (written by /tmp/ref/tfdata/dflow_png.py), decoded by TF
        for name, want in (("dflow_rgb8.png", rgb), ("dflow_gray16.png", gray16)):
            path = os.path.join("/tmp/ref/tfdata", name)
            if os.path.exists(path):
                data = open(path, "rb").read()
                dt = tf.uint16 if want.dtype == np.uint16 else tf.uint8
                px = sess.run(tf.image.decode_png(c(data), dtype=dt))
                print(name, sha(data), "decodes in TF to the same pixels:", bool((px == want).all()))


if __name__ == "__main__":
    main()
