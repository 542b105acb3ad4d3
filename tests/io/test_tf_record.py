"""TFRecord files: bytes, CRCs, compression and errors as TF 2.15 writes and reports them
(/tmp/ref/io/rec_ref.py)."""

import os
import zlib

import pytest

import dflow as tf

RECORDS = [b"", b"a", b"hello world" * 3, bytes(range(256)) * 40, b"x" * 70000]
# (length, zlib.crc32 of the file) of TF's files holding RECORDS
TF_FILES = {None: (80354, 2192900588), "ZLIB": (569, 542318607), "GZIP": (581, 464121946),
            tf.io.TFRecordCompressionType.ZLIB: (569, 542318607)}
TF_LONG = (202435, 3936301892)  # (length, zlib.crc32) of TF's file of test_long_record_crcs's payloads
# abc, def, flush(), ghi
TF_FLUSHED = {
    None: "0300000000000000b099490e6162636e57f1210300000000000000b099490e646566696f974b0300000000000000b099490e"
          "6768696a571fc8",
    "ZLIB": "789c626680800d333df9129392f3c23f2a322309a5a4a665e64ff706083064a1f48cccac70f913005add0db0",
    "GZIP": "1f8b0800000000000003626680800d333df9129392f3c23f2a322309a5a4a665e64ff706083064a1f48cccac70f913002dd58d"
            "8839000000",
}


@pytest.mark.parametrize("comp", list(TF_FILES))
def test_files_are_tfs_bytes(tmp_path, comp):
    p = str(tmp_path / "r")
    with tf.io.TFRecordWriter(p, options=comp) as w:
        for r in RECORDS:
            w.write(r)
    data = open(p, "rb").read()
    assert (len(data), zlib.crc32(data)) == TF_FILES[comp]
    assert list(tf.python_io.tf_record_iterator(p, options=tf.python_io.TFRecordOptions(comp))) == RECORDS


@pytest.mark.parametrize("comp", list(TF_FLUSHED))
def test_flush_and_reading_tfs_file(tmp_path, comp):
    p = str(tmp_path / "f")
    w = tf.io.TFRecordWriter(p, comp)
    w.write(b"abc")
    w.write("def")
    w.flush()
    w.write(b"ghi")
    w.close()
    w.close()
    assert open(p, "rb").read().hex() == TF_FLUSHED[comp]
    with pytest.raises(tf.errors.FailedPreconditionError, match="Writer is closed."):
        w.write(b"x")
    q = str(tmp_path / "tf")
    open(q, "wb").write(bytes.fromhex(TF_FLUSHED[comp]))
    assert list(tf.io.tf_record_iterator(q, comp)) == [b"abc", b"def", b"ghi"]


def test_options():
    opts = tf.io.TFRecordOptions
    assert [opts.get_compression_type_string(x) for x in (None, 0, 1, 2, "GZIP", "")] == \
        ["", "", "ZLIB", "GZIP", "GZIP", ""]
    assert opts.get_compression_type_string(opts(tf.io.TFRecordCompressionType.GZIP)) == "GZIP"
    with pytest.raises(ValueError, match='Not a valid compression_type: "BZ2"'):
        opts("BZ2")
    assert tf.python_io.TFRecordWriter is tf.io.TFRecordWriter


def test_compression_level(tmp_path):
    p = str(tmp_path / "lvl")
    with tf.io.TFRecordWriter(p, tf.io.TFRecordOptions("ZLIB", compression_level=9)) as w:
        for r in RECORDS:
            w.write(r)
    assert zlib.crc32(open(p, "rb").read()) == 3793239574


def test_errors(tmp_path):
    p = str(tmp_path / "r")
    with tf.io.TFRecordWriter(p) as w:
        for r in RECORDS:
            w.write(r)
    b = open(p, "rb").read()

    def fails(cls, message, data, comp=None):
        open(p + "x", "wb").write(data)
        with pytest.raises(cls) as info:
            list(tf.io.tf_record_iterator(p + "x", comp))
        assert str(info.value) == message

    fails(tf.errors.DataLossError, "truncated record at 10338' failed with Read less bytes than requested", b[:-3])
    open(p + "h", "wb").write(b[:5])
    assert list(tf.io.tf_record_iterator(p + "h")) == []
    bad = bytearray(b)
    bad[20] ^= 1
    fails(tf.errors.DataLossError, "corrupted record at 16", bytes(bad))
    bad = bytearray(b)
    bad[2] ^= 1
    fails(tf.errors.DataLossError, "corrupted record at 0 (Is this even a TFRecord file?)", bytes(bad))
    bad = bytearray(b)
    bad[28] ^= 1  # record 1's data: TF names the data's offset
    fails(tf.errors.DataLossError, "corrupted record at 28", bytes(bad))
    bad = bytearray(b)
    bad[40] ^= 1  # record 2's length
    fails(tf.errors.DataLossError, "corrupted record at 33", bytes(bad))
    fails(tf.errors.DataLossError, "corrupted record at 0 (Is this even a TFRecord file?)",
          bytes.fromhex(TF_FLUSHED["ZLIB"]))
    fails(tf.errors.DataLossError, "inflate() failed with error -3: incorrect header check", b, "GZIP")
    with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
        tf.io.tf_record_iterator(p + "zz")
    with pytest.raises(tf.errors.NotFoundError, match=f"{tmp_path}/nope/x; No such file or directory"):
        tf.io.TFRecordWriter(str(tmp_path / "nope" / "x"))
    with pytest.raises(TypeError):
        tf.io.TFRecordWriter(p + "s").write(3)
    assert not os.path.exists(p + "zz")


def test_long_record_crcs(tmp_path):
    # records long enough for the numpy lanes of the CRC; TF's masked CRCs of these payloads
    p = str(tmp_path / "long")
    payloads = [bytes(range(256)) * 400, b"\x00" * 100_003]
    with tf.io.TFRecordWriter(p) as w:
        for r in payloads:
            w.write(r)
    data = open(p, "rb").read()
    assert (len(data), zlib.crc32(data)) == TF_LONG
    assert list(tf.io.tf_record_iterator(p)) == payloads


def _reference_records(data: bytes):
    """TF's record reading, one record at a time (the definition the chunked reader must agree with)."""
    import struct

    from dflow.kernels.crc32c import masked_crc32c

    out, pos = [], 0
    while len(data) - pos >= 12:
        length, length_crc = struct.unpack_from("<QI", data, pos)
        if masked_crc32c(data[pos:pos + 8]) != length_crc:
            return out, f"corrupted record at {pos}" + (" (Is this even a TFRecord file?)" if pos == 0 else "")
        if pos + 16 + length > len(data):
            return out, f"truncated record at {pos}' failed with Read less bytes than requested"
        payload = data[pos + 12:pos + 12 + length]
        if masked_crc32c(payload) != struct.unpack_from("<I", data, pos + 12 + length)[0]:
            return out, f"corrupted record at {pos + 12}"
        out.append(payload)
        pos += 16 + length
    return out, None


@pytest.mark.parametrize("chunk", [7, 64, 1 << 20])
def test_chunked_reading_agrees_with_one_record_at_a_time(tmp_path, monkeypatch, chunk):
    import random

    from dflow.framework.files import tf_record

    monkeypatch.setattr(tf_record, "_CHUNK", chunk)
    rng = random.Random(chunk)
    p = str(tmp_path / "r")
    with tf.io.TFRecordWriter(p) as w:
        for _ in range(40):
            w.write(bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 1, 5, 100, 3000]))))
    good = open(p, "rb").read()
    cases = [good, good[:-1], good[:len(good) // 2], good[:5]]
    for where in (3, 20, len(good) // 3, len(good) - 2):
        bad = bytearray(good)
        bad[where] ^= 0x40
        cases.append(bytes(bad))
    for data in cases:
        open(p, "wb").write(data)
        want, error = _reference_records(data)
        got = []
        try:
            for r in tf.io.tf_record_iterator(p):
                got.append(r)
        except tf.errors.DataLossError as e:
            assert str(e) == error
        else:
            assert error is None
        assert got == want
