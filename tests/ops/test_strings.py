"""tf.strings hashing and element-wise ops against TF 2.15's figures
(reference scripts: /tmp/ref/strings/ref1.py .. ref4.py)."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.harness import run

WORDS = [b"", b"a", b"hello", b"abcdefgh", b"0123456789abcdef!", b"x" * 40, b"y" * 100,
         b"The quick brown fox jumps over the lazy dog" * 3]


def _fails(t, match, feed_dict=None):
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        run(t, feed_dict)


# -- hashing -------------------------------------------------------------------------------------


def test_hash_buckets_match_tf():
    with tf.Graph().as_default():
        fast = tf.strings.to_hash_bucket_fast(WORDS, 2 ** 62)
        old = tf.strings.to_hash_bucket(WORDS, 2 ** 62)
        strong = tf.strings.to_hash_bucket_strong(WORDS, 2 ** 62, [1, 2])
        strong2 = tf.string_to_hash_bucket_strong(WORDS, 1000, [0xDECAFCAFFE, 12345678901234])
        assert (old.name, old.op.type, strong.op.type) == ("StringToHashBucket:0", "StringToHashBucket",
                                                            "StringToHashBucketStrong")
        assert tf.string_to_hash_bucket is tf.strings.to_hash_bucket
        got = run([fast, old, strong, strong2])
    assert got[0].tolist() == [1936946117179621455, 3694432073954588131, 3786372426573024488, 4533385575889643785,
                               659173917853723716, 3168538174772821140, 3286434551874864643, 3331362670556783903]
    assert got[1].tolist() == [105434511174508091, 2996632905371535868, 1331861223480393034, 3429851175771700306,
                               2830541139085307604, 573866885909517461, 1367365306250348836, 3836503620694045352]
    assert got[2].tolist() == [443797209252341627, 546566331822570742, 2957200328589801622, 2649018002260510108,
                               4152670757500164988, 620143099891017215, 2092965213266160569, 3418930334886147516]
    assert got[3].tolist() == [431, 752, 212, 699, 613, 429, 245, 218]
    assert all(g.dtype == np.int64 for g in got)


def test_hash_bucket_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="less than minimum 1"):
            tf.strings.to_hash_bucket(WORDS, 0)
        with pytest.raises(TypeError, match="string"):
            tf.strings.to_hash_bucket_strong([1, 2], 10, [1, 2])
        _fails(tf.strings.to_hash_bucket_strong(WORDS, 10, [1]), "Key must have 2 elements")


def test_fingerprint_matches_tf():
    with tf.Graph().as_default():
        fp = tf.fingerprint(tf.constant(WORDS))
        assert fp.name == "Fingerprint:0" and fp.shape.as_list() == [8, 8] and fp.dtype is tf.uint8
        got = run([fp, tf.fingerprint([["a", "b"], ["", "cd"]]),
                   tf.fingerprint(tf.constant([[1, 2], [3, 4]], tf.int32)),
                   tf.fingerprint(tf.constant([1.5, 2.0], tf.float64))])
        with pytest.raises(ValueError, match="at least rank 1"):
            tf.fingerprint(tf.constant(3))
    assert got[0].tolist() == [[79, 64, 144, 47, 59, 106, 225, 154], [227, 117, 223, 182, 101, 66, 69, 179],
                               [232, 12, 56, 49, 169, 229, 139, 180], [9, 41, 200, 144, 41, 210, 233, 254],
                               [68, 172, 223, 146, 47, 219, 37, 201], [148, 60, 153, 172, 174, 232, 248, 235],
                               [3, 70, 18, 10, 208, 194, 155, 237], [31, 165, 136, 212, 178, 96, 59, 110]]
    assert got[1].tolist() == [[122, 64, 59, 169, 136, 60, 55, 83], [81, 111, 162, 135, 228, 134, 220, 143]]
    assert got[2].tolist() == [[76, 18, 253, 133, 168, 204, 240, 10], [254, 162, 60, 240, 103, 244, 53, 255]]
    assert got[3].tolist() == [[179, 164, 179, 195, 72, 236, 82, 76], [228, 228, 223, 153, 66, 240, 18, 20]]


# -- joins ---------------------------------------------------------------------------------------

M = [["a", "b", "c"], ["d", "e", "f"]]


def test_string_join_matches_tf():
    with tf.Graph().as_default():
        j = tf.strings.join([["a", "b"], "x", ["c", "d"]], separator="-")
        s = tf.string_join(["a", "b"])
        assert (j.name, j.shape.as_list(), s.shape.as_list()) == ("StringJoin:0", [2], [])
        assert run(j).tolist() == [b"a-x-c", b"b-x-d"]
        assert run(s) == b"ab"
        with pytest.raises(ValueError, match="not compatible"):
            tf.strings.join([["a", "b"], ["c", "d", "e"]])
        p = tf.placeholder(tf.string, [None])
        _fails(tf.strings.join([p, ["a", "b"]]), "Input shapes do not match", {p: ["a", "b", "c"]})


def test_reduce_join_matches_tf():
    with tf.Graph().as_default():
        r_all = tf.strings.reduce_join(M)
        r0 = tf.strings.reduce_join(M, 0, separator=",")
        r1k = tf.strings.reduce_join(M, 1, keep_dims=True)
        assert (r_all.name, r0.name, r_all.shape.as_list(), r0.shape.as_list(), r1k.shape.as_list()) == \
            ("ReduceJoin/ReduceJoin:0", "ReduceJoin_1/ReduceJoin:0", [], [3], [2, 1])
        got = run([r_all, r0, r1k, tf.strings.reduce_join(M, -1), tf.strings.reduce_join(M, [0, 1], separator="."),
                   tf.strings.reduce_join(M, [1, 0], separator="."), tf.reduce_join(M, axis=0)])
        with pytest.raises(ValueError, match="Invalid reduction dimension 2 for input with 2 dimensions"):
            tf.strings.reduce_join(M, 2)
        p = tf.placeholder(tf.string, [None, 3])
        assert tf.strings.reduce_join(p, 1).shape.as_list() == [None]
        anyrank = tf.placeholder(tf.string)
        assert run(tf.strings.reduce_join(anyrank), {anyrank: M}) == b"abcdef"
    assert got[0] == b"abcdef"
    assert got[1].tolist() == [b"a,d", b"b,e", b"c,f"]
    assert got[2].tolist() == [[b"abc"], [b"def"]]
    assert got[3].tolist() == [b"abc", b"def"]
    assert (got[4], got[5]) == (b"a.d.b.e.c.f", b"a.b.c.d.e.f")
    assert got[6].tolist() == [b"ad", b"be", b"cf"]


def test_unsorted_segment_join_matches_tf():
    with tf.Graph().as_default():
        j = tf.strings.unsorted_segment_join(["a", "b", "c", "d"], [1, 0, 1, 2], 4, separator=":")
        j2 = tf.strings.unsorted_segment_join([["a", "b"], ["c", "d"], ["e", "f"]], [0, 1, 0], 2)
        assert (j.name, j.shape.as_list(), j2.shape.as_list()) == ("UnsortedSegmentJoin:0", [4], [2, 2])
        got = run([j, j2])
        _fails(tf.strings.unsorted_segment_join(["a", "b"], [0, -1], 3), "not allowed to exceed num_segments")
        _fails(tf.strings.unsorted_segment_join(["a", "b"], [0, 5], 3), "not allowed to exceed num_segments")
        ph = tf.strings.unsorted_segment_join(["a", "b"], tf.placeholder(tf.int32, [2]), tf.placeholder(tf.int32))
        assert ph.shape.as_list() == [None]
    assert got[0].tolist() == [b"b", b"a:c", b"d", b""]
    assert got[1].tolist() == [[b"ae", b"bf"], [b"c", b"d"]]


# -- strip, case, length, substr ---------------------------------------------------------------------


def test_strip_lower_upper_length_match_tf():
    with tf.Graph().as_default():
        st = tf.strings.strip(["  a b \t\n", "\x0bx\x0c", ""])
        lo = tf.strings.lower([b"HeLLo", "ÀÉ".encode(), b"\xff"])
        lo8 = tf.strings.lower(["HeLLo", "ÀÉ"], encoding="utf-8")
        up8 = tf.strings.upper(["heLLo", "àé ß"], encoding="utf-8")
        n = tf.strings.length(["", "abc", "àé"])
        n8 = tf.strings.length([b"", b"abc", "àé".encode(), b"\xff\xfe"], unit="UTF8_CHAR")
        assert [t.name for t in (st, lo, up8, n)] == ["StringStrip:0", "StringLower:0", "StringUpper:0",
                                                       "StringLength:0"]
        assert tf.string_strip is tf.strings.strip
        got = run([st, lo, lo8, up8, n, n8])
        with pytest.raises(ValueError, match="Attr 'unit' of 'StringLength' Op passed string 'X'"):
            tf.strings.length(["a"], unit="X")
    assert got[0].tolist() == [b"a b", b"x", b""]
    assert got[1].tolist() == [b"hello", b"\xc3\x80\xc3\x89", b"\xff"]
    assert got[2].tolist() == [b"hello", b"\xc3\xa0\xc3\xa9"]
    assert got[3].tolist() == [b"HELLO", b"\xc3\x80\xc3\x89 SS"]
    assert got[4].tolist() == [0, 3, 4] and got[4].dtype == np.int32
    assert got[5].tolist() == [0, 3, 2, 2]


def test_substr_matches_tf():
    with tf.Graph().as_default():
        s = tf.strings.substr(["hello", "world"], 1, 3)
        assert (s.name, s.shape.as_list()) == ("Substr:0", [2])
        got = run([s, tf.substr(["hello", "world"], [0, 2], [2, 10]), tf.strings.substr(["hello", "world"], -3, 2),
                   tf.strings.substr([["hello", "world"], ["abc", "defg"]], [1, 2], [1, 2]),
                   tf.strings.substr(["àéîõü", "abc"], 1, 2, unit="UTF8_CHAR"),
                   tf.strings.substr(["àéîõü"], -2, 5, unit="UTF8_CHAR"),
                   tf.strings.substr(["hello", "hi"], 0, -1), tf.strings.substr("hello", [0, 1, 2], [1, 2, 3])])
        _fails(tf.strings.substr(["hello", "hi"], 3, 1), r"pos 3 out of range for string b'hi' at index 1")
        _fails(tf.strings.substr(["àé"], 3, 1, unit="UTF8_CHAR"), "pos 3 out of range for string at index 0")
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            tf.strings.substr(["hello", "hi"], [1, -3], 1)
    assert got[0].tolist() == [b"ell", b"orl"]
    assert got[1].tolist() == [b"he", b"rld"]
    assert got[2].tolist() == [b"ll", b"rl"]
    assert got[3].tolist() == [[b"e", b"rl"], [b"b", b"fg"]]
    assert got[4].tolist() == [b"\xc3\xa9\xc3\xae", b"bc"]
    assert got[5].tolist() == [b"\xc3\xb5\xc3\xbc"]
    assert got[6].tolist() == [b"hello", b"hi"]
    assert got[7].tolist() == [b"h", b"el", b"llo"]


# -- to_number -----------------------------------------------------------------------------------------

_NUMBER_TEXTS = ["0x10", "1e40", "-1e-50", "  2  ", "1e400", "INF", "-inf", "NaN", ".5", "5.", "+1.5", "+7", "-0",
                 "007", "3000000000", "-2147483648", "\t3\n"]
_BAD_FLOAT = ["1_0", "Infinity", "-Infinity", "infinity", "1 2", "1.5f", "1,5", "e5", "0b1", ""]
_BAD_INT = ["0x10", "1e40", "+7", ".5", "5.", "INF", "NaN", "1 2", "+1.5", ""]


def test_to_number_matches_tf():
    with tf.Graph().as_default():
        f32 = tf.strings.to_number(_NUMBER_TEXTS)
        f64 = tf.string_to_number(_NUMBER_TEXTS, out_type=tf.float64)
        i32 = tf.strings.to_number(["  2  ", "-0", "007", "-2147483648", "\t3\n"], tf.int32)
        i64 = tf.strings.to_number(["3000000000", "-9223372036854775808"], tf.int64)
        assert (f32.name, f32.dtype, i32.dtype) == ("StringToNumber:0", tf.float32, tf.int32)
        got = run([f32, f64, i32, i64])
        for bad in _BAD_FLOAT:
            _fails(tf.strings.to_number([bad]), "StringToNumberOp could not correctly convert string")
        for bad in _BAD_INT + ["3000000000"]:
            _fails(tf.strings.to_number([bad], tf.int32), "could not correctly convert string")
        with pytest.raises(TypeError, match="out_type"):
            tf.strings.to_number(["1"], tf.int8)
    want = [16.0, np.inf, -0.0, 2.0, np.inf, np.inf, -np.inf, np.nan, 0.5, 5.0, 1.5, 7.0, -0.0, 7.0, 3e9,
            -2147483648.0, 3.0]
    np.testing.assert_array_equal(got[0], np.array(want, np.float32))
    assert got[0][2] == 0 and np.signbit(got[0][2])
    want[1], want[2] = 1e40, -1e-50
    np.testing.assert_array_equal(got[1], np.array(want, np.float64))
    assert got[2].tolist() == [2, 0, 7, -2147483648, 3]
    assert got[3].tolist() == [3000000000, -9223372036854775808]


# -- regular expressions ---------------------------------------------------------------------------------


def test_regex_replace_matches_tf():
    with tf.Graph().as_default():
        rr = tf.strings.regex_replace(["hello world", "aaa"], "o|a", "0")
        dyn = tf.strings.regex_replace(["ab"], tf.constant("b"), tf.constant("c"))
        assert (rr.name, dyn.name, dyn.op.type) == ("StaticRegexReplace:0", "RegexReplace:0", "RegexReplace")
        got = run([rr, tf.regex_replace(["hello world", "aaa"], "o|a", "0", replace_global=False),
                   tf.strings.regex_replace(["john smith"], r"(\w+) (\w+)", r"\2 \1 \0 \\"), dyn,
                   tf.strings.regex_replace(["abc"], "x*", "-"),
                   tf.strings.regex_replace(["abc"], "(a)", r"\2"),
                   tf.strings.regex_replace(["ab1 2c"], r"[[:digit:]]", "#"),
                   tf.strings.regex_replace(["àb_1"], r"\w", "#"),
                   tf.strings.regex_replace(["àb"], r".", "#"),
                   tf.strings.regex_replace(["ÀàAa"], r"(?i)a", "#"),
                   tf.strings.regex_replace([b"a\xffb"], r"b", "#"),
                   tf.strings.regex_replace(["a\nb\n"], r"$", "#"),
                   tf.strings.regex_replace(["a\nb\n"], r"(?m)^", "#")])
        _fails(tf.strings.regex_replace(["abc"], "(a", "x"), r"Invalid pattern: \(a")
    assert [g.tolist() for g in got] == [
        [b"hell0 w0rld", b"000"], [b"hell0 world", b"0aa"], [b"smith john john smith \\"], [b"ac"], [b"-a-b-c-"],
        [b"abc"], [b"ab# #c"], [b"\xc3\xa0###"], [b"##"], [b"\xc3\x80\xc3\xa0##"], [b"a\xff#"], [b"a\nb\n#"],
        [b"#a\n#b\n#"]]


def test_regex_full_match_matches_tf():
    with tf.Graph().as_default():
        m = tf.strings.regex_full_match(["abc", "abcd", "ab"], "a.c")
        d = tf.strings.regex_full_match(["abc", "xbc"], tf.constant("[a-z]+c"))
        assert (m.name, d.name, m.dtype) == ("StaticRegexFullMatch:0", "RegexFullMatch:0", tf.bool)
        got = run([m, d, tf.strings.regex_full_match(["ab\n"], r"ab$")])
        _fails(tf.strings.regex_full_match(["abc"], "(a"), r"Invalid pattern: \(a")
        _fails(tf.strings.regex_full_match(["aa"], r"(a)\1"), r"invalid escape sequence: \\1")
        _fails(tf.strings.regex_full_match(["aa"], r"a(?=a)a"), r"invalid perl operator: \(\?=")
    assert [g.tolist() for g in got] == [[True, False, False], [True, True], [False]]


# -- format ------------------------------------------------------------------------------------------------


def test_string_format_matches_tf():
    with tf.Graph().as_default():
        f = tf.strings.format("x={} y={}", [tf.constant([1, 2, 3]), tf.constant(2.5)])
        assert (f.name, f.shape.as_list(), f.dtype) == ("StringFormat:0", [], tf.string)
        got = run([f, tf.strings.format("t: {}", tf.range(10), summarize=2),
                   tf.strings.format("t: %", tf.constant([["a", "b"]]), placeholder="%"),
                   tf.strings.format("{}", tf.constant([[1.5, 2.0], [0.1, 3]])),
                   tf.strings.format("{}", tf.constant("abc")),
                   tf.strings.format("{} {}", [tf.constant([True, False]), tf.constant(1 / 3)]),
                   tf.strings.format("no placeholders", []),
                   tf.strings.format("{}", tf.reshape(tf.range(8), [2, 2, 2])),
                   tf.strings.format("{}", tf.reshape(tf.range(64), [8, 8]), summarize=1),
                   tf.strings.format("{}", tf.range(10), summarize=-1)])
        with pytest.raises(ValueError, match="The template expects 2 tensors, but the inputs only has 1"):
            tf.strings.format("{} {}", tf.constant(1))
    assert got == [b"x=[1 2 3] y=2.5", b"t: [0 1 ... 8 9]", b't: [["a" "b"]]', b"[[1.5 2]\n [0.1 3]]", b'"abc"',
                   b"[1 0] 0.333333343", b"no placeholders", b"[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]",
                   b"[[0 ... 7]\n ...\n [56 ... 63]]", b"[0 1 2 3 4 5 6 7 8 9]"]


# -- as_string ---------------------------------------------------------------------------------------------


def test_as_string_matches_tf():
    with tf.Graph().as_default():
        f = tf.constant([1.5, -0.000123, 123456789.0, float("nan"), float("inf"), 0.1], tf.float32)
        d = tf.constant([1.5, 1e-300, 2.0 / 3], tf.float64)
        i = tf.constant([1, -22, 333], tf.int32)
        got = run([tf.strings.as_string(f), tf.strings.as_string(d), tf.strings.as_string(f, precision=2),
                   tf.strings.as_string(f, scientific=True), tf.strings.as_string(f, shortest=True),
                   tf.strings.as_string(d, shortest=True), tf.strings.as_string(f, width=12, precision=3),
                   tf.strings.as_string(f, width=12, fill="0"),
                   tf.strings.as_string(f, width=12, fill="-", precision=1),
                   tf.strings.as_string(f, fill="+", precision=1), tf.strings.as_string(f, fill="#", precision=0),
                   tf.strings.as_string(i, width=5), tf.strings.as_string(i, width=5, fill="0"),
                   tf.strings.as_string(tf.constant([2 ** 40], tf.int64), width=15),
                   tf.strings.as_string(tf.constant([2 ** 64 - 1], tf.uint64)),
                   tf.strings.as_string(tf.constant([True, False]), width=7),
                   tf.strings.as_string(tf.constant([1 + 2j, -0.5j], tf.complex64)),
                   tf.strings.as_string(tf.constant([1 + 2j], tf.complex128), precision=1, shortest=True),
                   tf.strings.as_string(tf.constant([1.5], tf.float16)), tf.strings.as_string(tf.constant(["a"])),
                   tf.strings.as_string(tf.constant([-5], tf.int8), width=4, fill="-")])
        for kw, match in ((dict(precision=2), "precision not supported for datatype int32"),
                          (dict(scientific=True), "scientific and shortest format not supported for datatype int32")):
            _fails(tf.strings.as_string(i, **kw), match)
        _fails(tf.strings.as_string(f, scientific=True, shortest=True), "Cannot select both scientific and shortest")
        _fails(tf.strings.as_string(f, fill="x"), 'Fill argument not supported: "x"')
        _fails(tf.strings.as_string(f, fill="00"), "Fill string must be one or fewer characters")
    assert [g.tolist() for g in got] == [
        [b"1.500000", b"-0.000123", b"123456792.000000", b"nan", b"inf", b"0.100000"],
        [b"1.500000", b"0.000000", b"0.666667"], [b"1.50", b"-0.00", b"123456792.00", b"nan", b"inf", b"0.10"],
        [b"1.500000e+00", b"-1.230000e-04", b"1.234568e+08", b"nan", b"inf", b"1.000000e-01"],
        [b"1.5", b"-0.000123", b"1.23457e+08", b"nan", b"inf", b"0.1"], [b"1.5", b"1e-300", b"0.666667"],
        [b"       1.500", b"      -0.000", b"123456792.000", b"         nan", b"         inf", b"       0.100"],
        [b"00001.500000", b"-0000.000123", b"123456792.000000", b"         nan", b"         inf", b"00000.100000"],
        [b"1.5         ", b"-0.0        ", b"123456792.0 ", b"nan         ", b"inf         ", b"0.1         "],
        [b"+1.5", b"-0.0", b"+123456792.0", b"+nan", b"+inf", b"+0.1"],
        [b"2.", b"-0.", b"123456792.", b"nan", b"inf", b"0."], [b"    1", b"  -22", b"  333"],
        [b"00001", b"-0022", b"00333"], [b"  1099511627776"], [b"18446744073709551615"], [b"true", b"false"],
        [b"(1.000000,2.000000)", b"(-0.000000,-0.500000)"], [b"(1,2)"], [b"1.500000"], [b"a"], [b"-5  "]]
