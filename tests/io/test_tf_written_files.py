"""Files TensorFlow 2.15 wrote (tests/io/data, made by tools/make_tf_test_files.py; see tests/io/data/README.txt)
read back by dflow: TFRecord bytes, parsed Examples and decoded pixels as TF gives them, and dflow's writers
giving TF's bytes (/tmp/ref/tfdata/ref_pipeline.py, ref_corrupt.py)."""

import hashlib
import importlib.util
import os
import struct
import zlib

import numpy as np
import pytest

import dflow as tf

DATA = os.path.join(os.path.dirname(__file__), "data")
COMPRESSIONS = {"examples.tfrecord": "", "examples.tfrecord.gz": "GZIP", "examples.tfrecord.zz": "ZLIB"}
# sha256 of the three records tf.io.tf_record_iterator gives for each of the files above
RECORD_SHA = ["f9c19c310f563abb546e67dc7b9e00401ab65e093fa45ebfc0b1d10fb65d80c6",
              "e20d414a2332bc8ac5ec1bc708f4058334370cdba3efb457485a8bf5ca34ff9a",
              "cae95d7fb5b3ae15af7f3cdf018c09cebe4929dc28459d679187f0d108665fda"]
FILE_SHA = {"examples.tfrecord": "a752a3cd2886fcbdcbbb3992a1036e6165ff3aa70b1686822316604b0be3fc34",
            "examples.tfrecord.gz": "097aedf2502f29eab188d52600e86ab26067571d255ecc2fc23c4916aaabe46f",
            "examples.tfrecord.zz": "461198e3966a621c235ce903db6b290472b8df839f19183670096bc7183e8b01"}
SEQUENCE_SHA = "f19038f43a2e76539ac654d05b939f3a4f23212b8a157bdd334bbf73e5266178"


def path(name: str) -> str:
    return os.path.join(DATA, name)


def read(name: str) -> bytes:
    with open(path(name), "rb") as f:
        return f.read()


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def records(name: str = "examples.tfrecord") -> list:
    return list(tf.io.tf_record_iterator(path(name), options=COMPRESSIONS[name]))


def run(fetch):
    with tf.Session() as sess:
        return sess.run(fetch)


# -- TFRecords ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(COMPRESSIONS))
def test_tf_record_iterator_gives_tfs_records(name):
    assert sha(read(name)) == FILE_SHA[name]  # the checked-in file is the one TF wrote
    assert [sha(r) for r in records(name)] == RECORD_SHA
    opts = tf.python_io.TFRecordOptions(COMPRESSIONS[name] or None)
    assert [sha(r) for r in tf.python_io.tf_record_iterator(path(name), options=opts)] == RECORD_SHA


@pytest.mark.parametrize("name", list(COMPRESSIONS))
def test_dataset_and_reader_agree_with_the_iterator(name):
    comp = COMPRESSIONS[name]
    it = tf.data.TFRecordDataset(path(name), compression_type=comp).make_one_shot_iterator().get_next()
    q = tf.FIFOQueue(3, tf.string, shapes=[[]])
    key, value = tf.TFRecordReader(options=tf.io.TFRecordOptions(comp or None)).read(q)
    with tf.Session() as sess:
        sess.run([q.enqueue([path(name)]), q.close()])
        from_dataset = [sess.run(it) for _ in range(3)]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(it)
        from_reader = [sess.run([key, value]) for _ in range(3)]
    assert from_dataset == records(name)
    # TF's keys: the offset of each record in the uncompressed stream
    assert [k for k, _ in from_reader] == [f"{path(name)}:{o}".encode() for o in (0, 133, 276)]
    assert [v for _, v in from_reader] == from_dataset


@pytest.mark.parametrize("name", list(COMPRESSIONS))
def test_rewriting_tfs_records_gives_tfs_file(tmp_path, name):
    out = str(tmp_path / name)
    with tf.io.TFRecordWriter(out, options=COMPRESSIONS[name]) as w:
        for r in records(name):
            w.write(r)
    mine, theirs = open(out, "rb").read(), read(name)
    if name.endswith(".gz"):  # the same deflate stream; TF writes mtime 0, as dflow does, so the headers agree too
        assert zlib.decompress(mine, 31) == zlib.decompress(theirs, 31)
    assert mine == theirs


def test_corrupted_tf_file_is_a_data_loss_error_at_tfs_offset(tmp_path):
    data = read("examples.tfrecord")
    cases = {"bad_data": (145, "corrupted record at 145", 1), "bad_length": (136, "corrupted record at 133", 1),
             "truncated": (None, "truncated record at 276", 2)}
    for case, (flip, message, good) in cases.items():
        p = str(tmp_path / case)
        b = bytearray(data[:400] if flip is None else data)
        if flip is not None:
            b[flip] ^= 1
        open(p, "wb").write(bytes(b))
        got = []
        with pytest.raises(tf.errors.DataLossError, match=message):
            for r in tf.io.tf_record_iterator(p):
                got.append(r)
        assert got == records()[:good]
        tf.reset_default_graph()
        it = tf.data.TFRecordDataset(p).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            assert [sess.run(it) for _ in range(good)] == records()[:good]
            with pytest.raises(tf.errors.DataLossError, match=message):
                sess.run(it)


# -- Examples ------------------------------------------------------------------------------------------------


def _load_maker():
    """tools/make_tf_test_files.py, whose message builders take the ``tf`` module to build with (it imports TF
    only in main, which the suite never runs)."""
    maker = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tools",
                         "make_tf_test_files.py")
    spec = importlib.util.spec_from_file_location("make_tf_test_files", maker)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAKER = _load_maker()


def test_examples_are_tfs_messages_byte_for_byte():
    for i, rec in enumerate(records()):
        built = MAKER.example(tf, i)  # the script's code, with dflow's messages
        assert built.SerializeToString(deterministic=True) == rec
        ex = tf.train.Example.FromString(rec)
        assert ex == built
        assert ex.SerializeToString(deterministic=True) == rec
    assert list(tf.train.Example.FromString(records()[2]).features.feature["vals"].int64_list.value) == \
        [20, -(2 ** 40)]


SPEC = {"id": tf.FixedLenFeature([], tf.int64), "label": tf.FixedLenFeature([], tf.string),
        "score": tf.FixedLenFeature([2], tf.float32), "tags": tf.VarLenFeature(tf.string),
        "vals": tf.VarLenFeature(tf.int64), "weights": tf.VarLenFeature(tf.float32)}


def test_parse_example_gives_tfs_values():
    got = run(tf.io.parse_example(tf.constant(records()), SPEC))
    assert got["id"].tolist() == [0, 1, 2] and got["id"].dtype == np.int64
    assert got["label"].tolist() == [b"label-0", b"label-1", b"label-2"]
    assert got["score"].tolist() == [[0.0, -1.25], [0.5, -0.25], [1.0, 0.75]] and got["score"].dtype == np.float32
    tags, vals, weights = got["tags"], got["vals"], got["weights"]
    assert tags.indices.tolist() == [[1, 0], [2, 0], [2, 1]] and tags.values.tolist() == [b"t0", b"t0", b"t1"]
    assert tags.dense_shape.tolist() == [3, 2]
    assert vals.indices.tolist() == [[0, 0], [1, 0], [1, 1], [1, 2], [2, 0], [2, 1]]
    assert vals.values.tolist() == [-(2 ** 40), 10, 11, -(2 ** 40), 20, -(2 ** 40)]
    assert vals.dense_shape.tolist() == [3, 3]
    assert weights.indices.tolist() == [[0, 0], [1, 0], [1, 1], [2, 0], [2, 1], [2, 2]]
    np.testing.assert_array_equal(weights.values, np.float32([0.0, 0.0, 0.1, 0.0, 0.1, 0.2]))
    one = run(tf.io.parse_single_example(records()[1], SPEC))
    assert one["id"] == 1 and one["tags"].values.tolist() == [b"t0"] and one["vals"].indices.tolist() == [[0], [1], [2]]


def test_sequence_example_gives_tfs_values():
    rec, = list(tf.io.tf_record_iterator(path("sequence.tfrecord")))
    assert sha(rec) == SEQUENCE_SHA
    se = tf.train.SequenceExample.FromString(rec)
    assert se.SerializeToString(deterministic=True) == rec
    assert MAKER.sequence_example(tf) == se and MAKER.sequence_example(tf).SerializeToString(deterministic=True) == rec
    tokens = se.feature_lists.feature_list["tokens"].feature
    assert [list(f.int64_list.value) for f in tokens] == [[0, 1], [1, 2], [2, 3]]
    ctx, seq = run(tf.io.parse_single_sequence_example(
        rec, context_features={"length": tf.FixedLenFeature([], tf.int64), "name": tf.FixedLenFeature([], tf.string)},
        sequence_features={"tokens": tf.FixedLenSequenceFeature([2], tf.int64), "words": tf.VarLenFeature(tf.string)}))
    assert ctx == {"length": 3, "name": b"seq"}
    assert seq["tokens"].tolist() == [[0, 1], [1, 2], [2, 3]]
    assert seq["words"].indices.tolist() == [[1, 0], [2, 0], [2, 1]]
    assert seq["words"].values.tolist() == [b"w0", b"w0", b"w1"] and seq["words"].dense_shape.tolist() == [3, 2]


# -- PNG and JPEG --------------------------------------------------------------------------------------------


def rgb8():
    """The 6x5 RGB image tools/make_tf_test_files.py encoded as rgb8.png."""
    return ((np.arange(6)[:, None, None] * 40 + np.arange(5)[None, :, None] * 23
             + np.arange(3)[None, None, :] * 71) % 256).astype(np.uint8)


def gray16():
    return (np.arange(12).reshape(3, 4, 1) * 5461).astype(np.uint16)


def test_decode_png_of_tfs_files():
    got8, got16, got_any = run([tf.image.decode_png(read("rgb8.png")),
                                tf.image.decode_png(read("gray16.png"), dtype=tf.uint16),
                                tf.image.decode_image(read("rgb8.png"))])
    assert got8.dtype == np.uint8 and (got8 == rgb8()).all() and (got_any == rgb8()).all()
    assert got16.dtype == np.uint16 and (got16 == gray16()).all() and got16.max() == 60071


def png_chunks(data: bytes) -> dict:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    out, pos = {}, 8
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        out[kind] = out.get(kind, b"") + data[pos + 8:pos + 8 + n]
        assert struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0] == zlib.crc32(data[pos + 4:pos + 8 + n])
        pos += 12 + n
    return out


# sha256 of the inflated IDAT (filtered scanlines) of dflow's PNGs, whose bytes TF 2.15 decoded to rgb8()/gray16()
DFLOW_PNG_SCANLINES = {"rgb8": "284ed61e89faa9cfffbfda75b0a1a08f3df56c263c60eb8697ded56021354227",
                       "gray16": "dd08430f07cc220d74267af64a8e49fb984b5914e568b84478cbdaf9f175f89c"}


@pytest.mark.parametrize("name,image", [("rgb8", rgb8()), ("gray16", gray16())])
def test_encode_png_gives_what_tf_decodes_to_the_same_pixels(name, image):
    mine = run(tf.image.encode_png(image))
    chunks, theirs = png_chunks(mine), png_chunks(read(name + ".png"))
    assert list(chunks) == [b"IHDR", b"IDAT", b"IEND"]
    assert chunks[b"IHDR"] == theirs[b"IHDR"]  # size, bit depth, colour type, no interlace: TF's header
    # the scanlines TF decoded (the deflate stream itself depends on the zlib build)
    assert sha(zlib.decompress(chunks[b"IDAT"])) == DFLOW_PNG_SCANLINES[name]
    dtype = tf.uint16 if image.dtype == np.uint16 else tf.uint8
    assert (run(tf.image.decode_png(mine, dtype=dtype)) == image).all()


@pytest.mark.parametrize("name", ["photo", "gray"])
def test_decode_jpeg_of_tfs_files(name):
    pytest.importorskip("PIL")
    data = read(name + ".jpg")
    accurate, default = run([tf.image.decode_jpeg(data, dct_method="INTEGER_ACCURATE"), tf.image.decode_jpeg(data)])
    want_accurate, want_default = np.load(path(name + "_accurate.npy")), np.load(path(name + "_default.npy"))
    assert accurate.shape == want_accurate.shape == (16, 16, 3 if name == "photo" else 1)
    # TF's accurate integer IDCT (libjpeg-turbo's islow, with fancy upsampling): the same pixels
    np.testing.assert_array_equal(accurate, want_accurate)
    # TF's default is the fast IDCT, which dflow (Pillow) does not have: within 3 levels for these files
    # (up to 3 for photo.jpg, 1 for gray.jpg; docs/porting.md says so)
    assert np.abs(default.astype(int) - want_default).max() <= 3
    assert run(tf.image.extract_jpeg_shape(data)).tolist() == list(want_accurate.shape)
    assert (run(tf.image.decode_image(data)) == accurate).all()


# sha256 of TF's INTEGER_ACCURATE decodes of the files at ratio=2, and with the other channel count
TF_JPEG_SHA = {("photo", "ratio2"): "ffac758a375521de28f9266b6f6d943dec9ec23df076f670aac3031256335dfb",
               ("gray", "ratio2"): "6186928c4a6afd60a8f5656d307282d9b814e01e3bdb006ab1083dae40bda271",
               ("photo", "channels"): "c09fd4233c17aa7297882cc717f5a3e0849da0ed1ffa61ee117f1cef46dd095f",
               ("gray", "channels"): "bda7b878c27be46e587ee8d373ae5a4d63f7f216841f7d547a6056f838959b69"}
# the last column of TF's decode_and_crop_jpeg(photo.jpg, [2, 3, 8, 9], dct_method="INTEGER_ACCURATE")
TF_PHOTO_CROP_LAST_COLUMN = [[172, 35, 103], [173, 51, 110], [170, 68, 116], [169, 84, 123], [170, 101, 132],
                             [170, 116, 140], [170, 131, 149], [170, 147, 157]]


@pytest.mark.parametrize("name", ["photo", "gray"])
def test_scaled_cropped_and_converted_jpeg_decodes(name):
    pytest.importorskip("PIL")
    data, acc = read(name + ".jpg"), "INTEGER_ACCURATE"
    ratio2, other, crop = run([tf.image.decode_jpeg(data, ratio=2, dct_method=acc),
                               tf.image.decode_jpeg(data, channels=1 if name == "photo" else 3, dct_method=acc),
                               tf.image.decode_and_crop_jpeg(data, [2, 3, 8, 9], dct_method=acc)])
    assert ratio2.shape[:2] == (8, 8) and sha(ratio2.tobytes()) == TF_JPEG_SHA[name, "ratio2"]
    assert sha(other.tobytes()) == TF_JPEG_SHA[name, "channels"]
    full = np.load(path(name + "_accurate.npy"))
    assert crop.shape == (8, 9, full.shape[2])
    if name == "gray":  # TF's crop is the full decode's window
        np.testing.assert_array_equal(crop, full[2:10, 3:12])
        return
    # With 4:2:0 chroma, TF (libjpeg-turbo's jpeg_crop_scanline) upsamples the chroma of the window's last
    # column as if it were the image's edge; dflow crops the full decode, so that column differs (by <= 6 here).
    np.testing.assert_array_equal(crop[:, :8], full[2:10, 3:11])
    assert 0 < np.abs(crop[:, 8].astype(int) - TF_PHOTO_CROP_LAST_COLUMN).max() <= 6
