"""tf.string_split, tf.strings.split/bytes_split/ngrams and the unicode ops against TF 2.15's
figures (reference scripts: /tmp/ref/strings/ref5.py, ref6.py)."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.harness import run

SRC = ["hello world", "a  b", "", " x "]


def _sparse(st):
    v = run(st)
    return v.indices.tolist(), v.values.tolist(), v.dense_shape.tolist()


def test_string_split_v1_matches_tf():
    with tf.Graph().as_default():
        st = tf.string_split(SRC)
        assert [t.name for t in (st.indices, st.values, st.dense_shape)] == [
            "StringSplit/StringSplit:0", "StringSplit/StringSplit:1", "StringSplit/StringSplit:2"]
        assert _sparse(st) == ([[0, 0], [0, 1], [1, 0], [1, 1], [3, 0]], [b"hello", b"world", b"a", b"b", b"x"],
                               [4, 2])
        assert _sparse(tf.string_split(SRC, skip_empty=False)) == (
            [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [3, 0], [3, 1], [3, 2]],
            [b"hello", b"world", b"a", b"", b"b", b"", b"x", b""], [4, 3])
        assert _sparse(tf.string_split(["a,b;c", "d"], delimiter=",;")) == (
            [[0, 0], [0, 1], [0, 2], [1, 0]], [b"a", b"b", b"c", b"d"], [2, 3])
        assert _sparse(tf.string_split(["abc", "de"], delimiter="")) == (
            [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], [b"a", b"b", b"c", b"d", b"e"], [2, 3])
        assert _sparse(tf.string_split(["a-b"], sep="-")) == ([[0, 0], [0, 1]], [b"a", b"b"], [1, 2])
        assert _sparse(tf.string_split([" "], skip_empty=False)) == ([[0, 0], [0, 1]], [b"", b""], [1, 2])
        assert _sparse(tf.string_split([""], skip_empty=False)) == ([], [], [1, 0])
        with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
            tf.string_split([["a b"]])
        with tf.Graph().as_default():
            rt = tf.string_split(["a|b", "c"], sep="|", skip_empty=False, result_type="RaggedTensor")
            assert rt.row_splits.name == "StringSplit/RaggedFromValueRowIds/RowPartitionFromValueRowIds/concat:0"
            assert run(rt).to_list() == [[b"a", b"b"], [b"c"]]
        with pytest.raises(ValueError, match="result_type must be 'RaggedTensor' or 'SparseTensor'."):
            tf.string_split(["a b"], result_type="Dense")


def test_strings_split_v1_matches_tf():
    with tf.Graph().as_default():
        st = tf.strings.split(SRC)
        assert st.values.name == "StringSplit/StringSplitV2:1"
        assert _sparse(st) == ([[0, 0], [0, 1], [1, 0], [1, 1], [3, 0]], [b"hello", b"world", b"a", b"b", b"x"],
                               [4, 2])
        assert _sparse(tf.strings.split(["a<>b<><>c", "<>"], sep="<>")) == (
            [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1]], [b"a", b"b", b"", b"c", b"", b""], [2, 4])
        assert _sparse(tf.strings.split(["a b c d", "e f"], maxsplit=1)) == (
            [[0, 0], [0, 1], [1, 0], [1, 1]], [b"a", b"b c d", b"e", b"f"], [2, 2])
        assert _sparse(tf.strings.split(["a,b,c"], sep=",", maxsplit=1)) == ([[0, 0], [0, 1]], [b"a", b"b,c"], [1, 2])
        two_d = tf.strings.split([["a b", "c"], ["d e f", ""]])
        assert two_d.shape.ndims == 3
        assert _sparse(two_d) == ([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 0, 2]],
                                  [b"a", b"b", b"c", b"d", b"e", b"f"], [2, 2, 3])
        assert _sparse(tf.strings.split("a b c")) == ([[0, 0], [0, 1], [0, 2]], [b"a", b"b", b"c"], [1, 3])
        assert _sparse(tf.strings.split(["a\tb\nc  d\x0be"]))[2] == [1, 5]
        assert _sparse(tf.strings.split(source=["a b"])) == ([[0, 0], [0, 1]], [b"a", b"b"], [1, 2])
        assert _sparse(tf.strings.split([",,"], sep=",")) == ([[0, 0], [0, 1], [0, 2]], [b"", b"", b""], [1, 3])
        assert _sparse(tf.strings.split(["a b", ""], sep=",")) == ([[0, 0], [1, 0]], [b"a b", b""], [2, 1])
        # result_type="RaggedTensor": TF 2.15's values, shapes and (for a vector) row-splits name
        with tf.Graph().as_default():
            rt = tf.strings.split(["a b c", "d", ""], result_type="RaggedTensor")
            assert rt.row_splits.name == \
                "StringSplit/StringSplit/RaggedFromValueRowIds/RowPartitionFromValueRowIds/concat:0"
            assert rt.shape.as_list() == [3, None] and run(rt).to_list() == [[b"a", b"b", b"c"], [b"d"], []]
        rt2 = tf.strings.split([["a b", "c"], ["d e f", ""]], result_type="RaggedTensor")
        assert rt2.shape.as_list() == [2, 2, None]
        assert run(rt2).to_list() == [[[b"a", b"b"], [b"c"]], [[b"d", b"e", b"f"], []]]
        assert run(tf.strings.split(["a,b,c", "d"], sep=",", maxsplit=1, result_type="RaggedTensor")).to_list() == \
            [[b"a", b"b,c"], [b"d"]]
        scalar = tf.strings.split("a  b", sep=" ", result_type="RaggedTensor")
        assert scalar.shape.as_list() == [None] and run(scalar).tolist() == [b"a", b"", b"b"]


def test_bytes_split_matches_tf():
    with tf.Graph().as_default():
        assert run(tf.strings.bytes_split("abc")).tolist() == [b"a", b"b", b"c"]
        assert run(tf.strings.bytes_split("")).tolist() == []
        rows = tf.strings.bytes_split(["ab", "", "cde"])
        assert rows.shape.as_list() == [3, None]
        assert run(rows).to_list() == [[b"a", b"b"], [], [b"c", b"d", b"e"]]
        grid = tf.strings.bytes_split([["ab", "c"], ["", "de"]])
        assert grid.shape.as_list() == [2, 2, None]
        assert run(grid).to_list() == [[[b"a", b"b"], [b"c"]], [[], [b"d", b"e"]]]


def test_ngrams_match_tf():
    with tf.Graph().as_default():
        ng2d = tf.strings.ngrams([["a", "b", "c"], ["d", "e", "f"]], 2, separator="_")
        assert ng2d.shape.as_list() == [2, None]
        got = run([tf.strings.ngrams(["a", "b", "c", "d"], 2), ng2d,
                   tf.strings.ngrams([["a", "b", "c"], ["d", "e", "f"]], [1, 2]),
                   tf.strings.ngrams(["a", "b", "c"], 3, pad_values=("<s>", "</s>")),
                   tf.strings.ngrams(["a", "b", "c"], 3, pad_values="#", padding_width=1),
                   tf.strings.ngrams(["a", "b"], 3), tf.strings.ngrams(["a", "b"], 3, preserve_short_sequences=True),
                   tf.strings.ngrams([["a", "b"]], 3, preserve_short_sequences=True),
                   tf.strings.ngrams([[["a", "b", "c"]]], 2),
                   tf.strings.ngrams(["a", "b"], 2, pad_values="x", padding_width=3)])
        with pytest.raises(ValueError, match="Data must have rank>0"):
            tf.strings.ngrams("a", 2)
        with pytest.raises(ValueError, match="pad_values must be provided"):
            tf.strings.ngrams(["a"], 2, padding_width=1)
    assert [g.tolist() for g in got] == [
        [b"a b", b"b c", b"c d"], [[b"a_b", b"b_c"], [b"d_e", b"e_f"]],
        [[b"a", b"b", b"c", b"a b", b"b c"], [b"d", b"e", b"f", b"d e", b"e f"]],
        [b"<s> <s> a", b"<s> a b", b"a b c", b"b c </s>", b"c </s> </s>"], [b"# a b", b"a b c", b"b c #"],
        [], [b"a b"], [[b"a b"]], [[[b"a b", b"b c"]]], [b"x a", b"a b", b"b x"]]


# -- unicode ---------------------------------------------------------------------------------------------

BAD_UTF8 = [b"\xff", b"a\xe2\x82b", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf0\x9f\x98\x80x", b"\xf4\x90\x80\x80",
            b"\xe2\x82\xac", b"a\x00\x01\x7f\xc2\x80b", b"\xf0\x9f\x98"]
R = 65533


def test_unicode_decode_matches_tf():
    want_replace = [[R], [97, R, 98], [R, R, R], [R, R], [128512, 120], [R] * 4, [8364], [97, 0, 1, 127, 128, 98],
                    [R]]
    want_ignore = [[], [97, 98], [], [], [128512, 120], [], [8364], [97, 0, 1, 127, 128, 98], []]
    want_control = [[63], [97, 63, 98], [63] * 3, [63] * 2, [128512, 120], [63] * 4, [8364],
                    [97, 63, 63, 127, 128, 98], [63]]
    want_transcode = [b"\xef\xbf\xbd", b"a\xef\xbf\xbdb", b"\xef\xbf\xbd" * 3, b"\xef\xbf\xbd" * 2,
                      b"\xf0\x9f\x98\x80x", b"\xef\xbf\xbd" * 4, b"\xe2\x82\xac", b"a\x00\x01\x7f\xc2\x80b",
                      b"\xef\xbf\xbd"]
    with tf.Graph().as_default():
        d = tf.strings.unicode_decode(BAD_UTF8[0], "UTF-8")
        assert (d.name, d.dtype, d.shape.as_list()) == ("UnicodeDecode/UnicodeDecode:1", tf.int32, [None])
        got = run([[tf.strings.unicode_decode(b, "UTF-8") for b in BAD_UTF8],
                   [tf.strings.unicode_decode(b, "UTF-8", errors="ignore") for b in BAD_UTF8],
                   [tf.strings.unicode_decode(b, "UTF-8", replace_control_characters=True, replacement_char=63)
                    for b in BAD_UTF8],
                   tf.strings.unicode_transcode(BAD_UTF8, "UTF-8", "UTF-8")])
        for i in (0, 1, 2, 3, 5, 8):
            with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid formatting on input string"):
                run(tf.strings.unicode_decode(BAD_UTF8[i], "UTF-8", errors="strict"))
        others = run([tf.strings.unicode_decode("h\u00e9\U0001F600".encode("utf-16-be"), "UTF-16-BE"),
                      tf.strings.unicode_decode(b"\xd8\x00\x00a\x00", "UTF-16-BE"),
                      tf.strings.unicode_decode("h\u00e9\U0001F600".encode("utf-32-be"), "UTF-32-BE"),
                      tf.strings.unicode_decode(b"\x00\x11\x00\x00\x00\x00\x00a\x00", "UTF-32-BE"),
                      tf.strings.unicode_decode(b"\xe9", "ISO-8859-1"),
                      tf.strings.unicode_decode_with_offsets("aé€😀", "UTF-8")])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Could not create converter for input encoding: FOO"):
            run(tf.strings.unicode_decode(b"\xe9", "FOO"))
    assert [g.tolist() for g in got[0]] == want_replace
    assert [g.tolist() for g in got[1]] == want_ignore
    assert [g.tolist() for g in got[2]] == want_control
    assert got[3].tolist() == want_transcode
    assert [o.tolist() for o in others[:5]] == [[104, 233, 128512], [R, 97, R], [104, 233, 128512], [R, 97, R],
                                                [233]]
    assert others[5][0].tolist() == [97, 233, 8364, 128512] and others[5][1].tolist() == [0, 1, 3, 6]
    assert others[5][1].dtype == np.int64


def test_unicode_split_matches_tf():
    with tf.Graph().as_default():
        got = run([tf.strings.unicode_split("aé€\xff", "UTF-8"), tf.strings.unicode_split(b"a\xffb", "UTF-8"),
                   tf.strings.unicode_split_with_offsets(b"a\xc3\xa9\xffb", "UTF-8"),
                   tf.strings.unicode_split("h\u00e9".encode("utf-16-be"), "UTF-16-BE")])
    assert got[0].tolist() == [b"a", b"\xc3\xa9", b"\xe2\x82\xac", b"\xc3\xbf"]
    assert got[1].tolist() == [b"a", b"\xef\xbf\xbd", b"b"]
    assert got[2][0].tolist() == [b"a", b"\xc3\xa9", b"\xef\xbf\xbd", b"b"] and got[2][1].tolist() == [0, 1, 3, 4]
    assert got[3].tolist() == [b"\x00h", b"\x00\xe9"]


def test_unicode_encode_and_transcode_match_tf():
    with tf.Graph().as_default():
        e = tf.strings.unicode_encode([104, 233, 0x1F600], "UTF-8")
        e2 = tf.strings.unicode_encode([[104, 105], [233, 0x1F600]], "UTF-8")
        assert (e.shape.as_list(), e2.shape.as_list()) == ([], [2])
        got = run([e, e2, tf.strings.unicode_encode([104, 233, 0x1F600], "UTF-16-BE"),
                   tf.strings.unicode_encode([104, 233, 0x1F600], "UTF-32-BE"),
                   tf.strings.unicode_encode([104, 0xD800, 0x110000, -1], "UTF-8"),
                   tf.strings.unicode_encode([104, 0xD800, 0x110000, -1], "UTF-8", errors="ignore"),
                   tf.strings.unicode_encode([104, 0xD800], "UTF-8", replacement_char=63),
                   tf.strings.unicode_transcode(["hé😀"], "UTF-8", "UTF-16-BE"),
                   tf.strings.unicode_transcode(["a\x01b"], "UTF-8", "UTF-8", replace_control_characters=True),
                   tf.strings.unicode_transcode([[b"a\xff"], [b"b"]], "UTF-8", "UTF-32-BE", errors="ignore")])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Code point is out of range for Unicode"):
            run(tf.strings.unicode_encode([104, 0xD800], "UTF-8", errors="strict"))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid formatting on input string"):
            run(tf.strings.unicode_transcode([b"a\xff"], "UTF-8", "UTF-8", errors="strict"))
        with pytest.raises(ValueError, match="Attr 'output_encoding' of 'UnicodeEncode' Op passed string "
                                             "'ISO-8859-1'"):
            tf.strings.unicode_encode([104], "ISO-8859-1")
        with pytest.raises(ValueError, match="rank must be at least 1"):
            tf.strings.unicode_encode(104, "UTF-8")
        with pytest.raises(NotImplementedError, match="ICU"):
            tf.strings.unicode_script([65])
    assert got[0] == b"h\xc3\xa9\xf0\x9f\x98\x80"
    assert got[1].tolist() == [b"hi", b"\xc3\xa9\xf0\x9f\x98\x80"]
    assert got[2] == b"\x00h\x00\xe9\xd8=\xde\x00"
    assert got[3] == b"\x00\x00\x00h\x00\x00\x00\xe9\x00\x01\xf6\x00"
    assert got[4] == b"h\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
    assert got[5] == b"h\xef\xbf\xbd"
    assert got[6] == b"h?"
    assert got[7].tolist() == [b"\x00h\x00\xe9\xd8=\xde\x00"]
    assert got[8].tolist() == [b"a\xef\xbf\xbdb"]
    assert got[9].tolist() == [[b"\x00\x00\x00a"], [b"\x00\x00\x00b"]]


def test_string_constants_keep_trailing_nuls_and_mixed_lists():
    with tf.Graph().as_default():
        got = run([tf.constant(b"a\x00"), tf.constant([b"a\x00", "\u00e9", b"\xff"])])
    assert got[0] == b"a\x00"
    assert got[1].tolist() == [b"a\x00", b"\xc3\xa9", b"\xff"]


def test_unicode_ops_of_rank_one_and_more_are_ragged_as_tf():
    with tf.Graph().as_default():
        dec1 = tf.strings.unicode_decode(["a\u00e9", "", "\u20ac\U0001F600"], "UTF-8")
        dec2 = tf.strings.unicode_decode([["a\u00e9", "b"], ["", "\u20ac"]], "UTF-8")
        points, offsets = tf.strings.unicode_decode_with_offsets(["a\u00e9", "\u20ac"], "UTF-8")
        split1 = tf.strings.unicode_split(["a\u00e9", "\u20ac\U0001F600"], "UTF-8")
        split2 = tf.strings.unicode_split([["a\u00e9"], ["b"]], "UTF-8")
        chars, char_offsets = tf.strings.unicode_split_with_offsets(["a\u00e9", "b"], "UTF-8")
        replaced = tf.strings.unicode_decode([b"a\xffb"], "UTF-8", errors="replace", replacement_char=63)
        encoded = tf.strings.unicode_encode(dec2, "UTF-8")
        assert [t.shape.as_list() for t in (dec1, dec2, points, offsets, split1, split2, chars)] == \
            [[3, None], [2, 2, None], [2, None], [2, None], [2, None], [2, 1, None], [2, None]]
        assert (dec1.dtype, offsets.dtype, split1.dtype) == (tf.int32, tf.int64, tf.string)
        got = run([dec1, dec2, points, offsets, split1, split2, chars, char_offsets, replaced, encoded])
    assert [g.to_list() for g in got] == [  # TF 2.15's
        [[97, 233], [], [8364, 128512]], [[[97, 233], [98]], [[], [8364]]], [[97, 233], [8364]], [[0, 1], [0]],
        [[b"a", b"\xc3\xa9"], [b"\xe2\x82\xac", b"\xf0\x9f\x98\x80"]], [[[b"a", b"\xc3\xa9"]], [[b"b"]]],
        [[b"a", b"\xc3\xa9"], [b"b"]], [[0, 1], [0]], [[97, 63, 98]], [[b"a\xc3\xa9", b"b"], [b"", b"\xe2\x82\xac"]]]
