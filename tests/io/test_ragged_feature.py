"""tf.io.RaggedFeature in parse_example, parse_single_example, parse_sequence_example and
parse_single_sequence_example: values, op output names, static shapes and errors as TF 2.15's
(/tmp/ref/ragged_feature/ref1.py, ref_err.py, ref_seq.py, ref_idx.py, ref_shapes.py).

The serialized protos are built here with dflow's tf.train protos, from the same values as the
reference scripts' TF protos."""

import pytest

import dflow as tf

R = tf.io.RaggedFeature
P = "ParseExample/ParseExampleV2"
SP = "ParseSingleExample/ParseExample/ParseExampleV2"
QP = "ParseSequenceExample/ParseSequenceExample/ParseSequenceExampleV2"
SQP = "ParseSingleSequenceExample/ParseSequenceExample/ParseSequenceExampleV2"


def i64(v):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=v))


def f32(v):
    return tf.train.Feature(float_list=tf.train.FloatList(value=v))


def byt(v):
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=v))


def example(features: dict) -> bytes:
    return tf.train.Example(features=tf.train.Features(feature=features)).SerializeToString()


E1 = example({"v": i64([3, 1, 4, 1, 5, 9]), "s1": i64([0, 2, 3, 3, 6]), "lens": i64([2, 1, 0, 3]),
              "starts": i64([0, 2, 3, 3]), "limits": i64([2, 3, 3, 6]), "ids": i64([0, 0, 1, 3, 3, 3]),
              "s2": i64([0, 2, 3, 4]), "l2": i64([2, 1, 1]), "f": f32([1.5, 2.5]), "b": byt([b"a", b"bc", b""])})
E2 = example({"v": i64([2, 7, 1, 8]), "s1": i64([0, 1, 4]), "lens": i64([1, 3]), "starts": i64([0, 1]),
              "limits": i64([1, 4]), "ids": i64([0, 1, 1, 1]), "s2": i64([0, 0, 2]), "l2": i64([0, 2]),
              "f": f32([]), "b": byt([b"z"])})
E3 = example({})
E = [E1, E2, E3]


def feature_list(features):
    return tf.train.FeatureList(feature=features)


S1 = tf.train.SequenceExample(
    context=tf.train.Features(feature={"cv": i64([1, 2, 3]), "cs": i64([0, 1, 3])}),
    feature_lists=tf.train.FeatureLists(feature_list={
        "q": feature_list([i64([1, 2]), i64([]), i64([3])]),
        "qs": feature_list([i64([0, 1, 2]), i64([0]), i64([0, 1])]),
        "qf": feature_list([f32([0.5]), f32([1.5, 2.5])])})).SerializeToString()
S2 = tf.train.SequenceExample(
    context=tf.train.Features(feature={"cv": i64([4]), "cs": i64([0, 0, 1])}),
    feature_lists=tf.train.FeatureLists(feature_list={
        "q": feature_list([i64([4, 5, 6])]), "qs": feature_list([i64([0, 3])])})).SerializeToString()
S3 = tf.train.SequenceExample().SerializeToString()
S = [S1, S2, S3]


def features():
    return {
        "v": R(tf.int64),
        "f": R(tf.float32),
        "b": R(tf.string),
        "splits": R(tf.int64, value_key="v", partitions=[R.RowSplits("s1")]),
        "lengths": R(tf.int64, value_key="v", partitions=[R.RowLengths("lens")]),
        "starts": R(tf.int64, value_key="v", partitions=[R.RowStarts("starts")]),
        "limits": R(tf.int64, value_key="v", partitions=[R.RowLimits("limits")]),
        "rowids": R(tf.int64, value_key="v", partitions=[R.ValueRowIds("ids")]),
        "uniform": R(tf.int64, value_key="v", partitions=[R.UniformRowLength(2)]),
        "nested": R(tf.int64, value_key="v", partitions=[R.RowSplits("s2"), R.RowSplits("s1")]),
    }


def features64():
    return {
        "nested2": R(tf.int64, value_key="v", partitions=[R.RowLengths("l2"), R.UniformRowLength(2)],
                     row_splits_dtype=tf.int64),
        "v64": R(tf.int64, value_key="v", row_splits_dtype=tf.int64),
        "rowids64": R(tf.int64, value_key="v", partitions=[R.ValueRowIds("ids")], row_splits_dtype=tf.int64),
        "f": R(tf.float32, row_splits_dtype=tf.int64),
    }


ROWS = [[3, 1], [4], [], [1, 5, 9]]
ROWS2 = [[2], [7, 1, 8]]
# TF 2.15: feature -> (dtype, rank, flat values name, nested row splits names, batch of E)
BATCH = {
    "b": ("string", 2, f"{P}:0", [f"{P}:9"], [[b"a", b"bc", b""], [b"z"], []]),
    "f": ("float32", 2, f"{P}:1", [f"{P}:10"], [[1.5, 2.5], [], []]),
    "lengths": ("int64", 3, f"{P}:2", [f"{P}:12", "RaggedFromRowLengths/RowPartitionFromRowLengths/concat:0"],
                [ROWS, ROWS2, []]),
    "limits": ("int64", 3, f"{P}:2", [f"{P}:13", "RaggedFromRowLimits/RowPartitionFromRowLimits/concat:0"],
               [ROWS, ROWS2, []]),
    "nested": ("int64", 4, f"{P}:2", ["RaggedGetItem_1/RaggedRange:0",
                                      "RaggedFromRowLimits_2/RowPartitionFromRowLimits/concat:0",
                                      "RaggedFromRowLimits_1/RowPartitionFromRowLimits/concat:0"],
               [[[[3, 1], [4]], [[]], [[1, 5, 9]]], [[], [[2], [7, 1, 8]]], []]),
    "rowids": ("int64", 3, f"{P}:2", ["RaggedFromRowLengths_1/RowPartitionFromRowLengths/concat:0",
                                      "RaggedFromValueRowIds/RowPartitionFromValueRowIds/concat_1:0"],
               [ROWS, ROWS2, []]),
    "splits": ("int64", 3, f"{P}:2", ["RaggedGetItem_2/RaggedRange:0",
                                      "RaggedFromRowLimits_3/RowPartitionFromRowLimits/concat:0"], [ROWS, ROWS2, []]),
    "starts": ("int64", 3, f"{P}:2", [f"{P}:17", "RaggedFromRowStarts/RowPartitionFromRowStarts/concat:0"],
               [ROWS, ROWS2, []]),
    "uniform": ("int64", 3, None, ["floordiv:0"], [[[3, 1], [4, 1], [5, 9]], [[2, 7], [1, 8]], []]),
    "v": ("int64", 2, f"{P}:2", [f"{P}:11"], [[3, 1, 4, 1, 5, 9], [2, 7, 1, 8], []]),
}


def to_list(value):
    return value.to_list() if hasattr(value, "to_list") else value.tolist()


def run(out, feed=None):
    with tf.Session() as sess:
        return {k: to_list(v) for k, v in sess.run(out, feed).items()}


@pytest.mark.parametrize("fed", [False, True])
def test_parse_example_batch(fed):
    tf.reset_default_graph()
    ser = tf.placeholder(tf.string, [None]) if fed else E
    out = tf.io.parse_example(ser, features())
    got = run(out, {ser: E} if fed else None)
    for key, (dtype, rank, values_name, splits_names, value) in BATCH.items():
        rt = out[key]
        assert isinstance(rt, tf.RaggedTensor) and rt.dtype.name == dtype and rt.row_splits.dtype == tf.int32
        assert rt.shape.as_list() == [None if fed else 3] + [None] * (rank - 2) + [2 if key == "uniform" else None]
        if values_name is not None:
            assert rt.flat_values.name == values_name
        assert [s.name for s in rt.nested_row_splits] == splits_names
        assert got[key] == value, key


def test_parse_example_int64_splits():
    tf.reset_default_graph()
    out = tf.io.parse_example(E, features64())
    assert out["v64"].flat_values.name == f"{P}:1" and out["v64"].row_splits.name == f"{P}:5"
    assert out["nested2"].shape.as_list() == [3, None, None, 2]
    assert [s.name for s in out["nested2"].nested_row_splits] == \
        [f"{P}:6", "RaggedFromRowLengths/RowPartitionFromRowLengths/concat:0"]
    assert all(out[k].row_splits.dtype == tf.int64 for k in out)
    assert run(out) == {"f": [[1.5, 2.5], [], []],
                        "nested2": [[[[3, 1], [4, 1]], [[5, 9]], [[2, 7]]], [[], [[1, 8]]], []],
                        "rowids64": [ROWS, ROWS2, []],
                        "v64": [[3, 1, 4, 1, 5, 9], [2, 7, 1, 8], []]}


@pytest.mark.parametrize("key", sorted(BATCH))
def test_parse_example_no_examples(key):
    tf.reset_default_graph()
    ser = tf.placeholder(tf.string, [None])
    out = tf.io.parse_example(ser, {key: features()[key]})
    assert run(out, {ser: []}) == {key: []}


SINGLE = {  # TF 2.15: feature -> (kind, flat values / row splits names, E1, E3)
    "b": ("T", f"{SP}:0", [b"a", b"bc", b""], []),
    "f": ("T", f"{SP}:1", [1.5, 2.5], []),
    "lengths": ("RT", ["ParseSingleExample/RaggedFromRowLengths/RowPartitionFromRowLengths/concat:0"], ROWS, []),
    "limits": ("RT", ["ParseSingleExample/RaggedFromRowLimits/RowPartitionFromRowLimits/concat:0"], ROWS, []),
    "nested": ("RT", ["ParseSingleExample/Cast_3:0", "ParseSingleExample/Cast_2:0"],
               [[[3, 1], [4]], [[]], [[1, 5, 9]]], []),
    "rowids": ("RT", ["ParseSingleExample/RaggedFromValueRowIds/RowPartitionFromValueRowIds/concat_1:0"], ROWS, []),
    "splits": ("RT", ["ParseSingleExample/Cast_5:0"], ROWS, []),
    "starts": ("RT", ["ParseSingleExample/RaggedFromRowStarts/RowPartitionFromRowStarts/concat:0"], ROWS, []),
    "uniform": ("T", "ParseSingleExample/Reshape:0", [[3, 1], [4, 1], [5, 9]], []),
    "v": ("T", f"{SP}:2", [3, 1, 4, 1, 5, 9], []),
}


@pytest.mark.parametrize("index", [0, 2])
def test_parse_single_example(index):
    tf.reset_default_graph()
    ser = tf.placeholder(tf.string, [])
    out = tf.io.parse_single_example(ser, features())
    got = run(out, {ser: E[index]})
    for key, (kind, names, first, empty) in SINGLE.items():
        t = out[key]
        if kind == "T":
            assert isinstance(t, tf.Tensor) and t.name == names
            assert t.shape.as_list() == ([None, 2] if key == "uniform" else [None])
        else:
            assert isinstance(t, tf.RaggedTensor) and t.flat_values.name == f"{SP}:2"
            assert [s.name for s in t.nested_row_splits] == names and t.row_splits.dtype == tf.int32
            assert t.shape.as_list() == [None] * (len(names) + 1)
        assert got[key] == (first if index == 0 else empty), key


def test_parse_single_example_int64_splits_and_unknown_rank():
    tf.reset_default_graph()
    ser = tf.placeholder(tf.string)  # unknown rank: TF checks it is a scalar at run time
    out = tf.io.parse_single_example(ser, features64())
    assert out["nested2"].shape.as_list() == [None, None, 2] and out["rowids64"].row_splits.dtype == tf.int64
    assert run(out, {ser: E1}) == {"f": [1.5, 2.5], "nested2": [[[3, 1], [4, 1]], [[5, 9]], []],
                                   "rowids64": ROWS, "v64": [3, 1, 4, 1, 5, 9]}
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="Input serialized must be a "
                                                                                   "scalar"):
        sess.run(out["v64"], {ser: [E1]})


@pytest.mark.parametrize("partitions, batch, single", [  # TF 2.15
    ([R.UniformRowLength(2), R.RowLengths("lens")], [[[[3, 1], [4]], [[], [1, 5, 9]]], [[[2], [7, 1, 8]]], []],
     [[[3, 1], [4]], [[], [1, 5, 9]]]),
    ([R.UniformRowLength(1), R.UniformRowLength(2)], [[[[3, 1]], [[4, 1]], [[5, 9]]], [[[2, 7]], [[1, 8]]], []],
     [[[3, 1]], [[4, 1]], [[5, 9]]]),
    ([R.RowSplits("s2"), R.RowSplits("s1")], [[[[3, 1], [4]], [[]], [[1, 5, 9]]], [[], [[2], [7, 1, 8]]], []],
     [[[3, 1], [4]], [[]], [[1, 5, 9]]]),
])
@pytest.mark.parametrize("validate", [False, True])
def test_nested_partitions(partitions, batch, single, validate):
    tf.reset_default_graph()
    feature = {"r": R(tf.int64, value_key="v", partitions=partitions, validate=validate)}
    assert run(tf.io.parse_example(E, feature)) == {"r": batch}
    assert run(tf.io.parse_single_example(E1, feature)) == {"r": single}


BAD = {  # TF 2.15, validate=False: partitions that do not fit the values are taken as they are
    "RowSplits": ("lens", [[[3], [], [3, 1, 4]], [[1, 5, 9, 2, 7, 1]], []], [[], [], [3, 1, 4]]),
    "RowLengths": ("s1", [[[], [3, 1], [4, 1, 5], [9, 2, 7], [1, 8]], [[], [], []], []],
                   [[], [3, 1], [4, 1, 5], [9], []]),
    "RowStarts": ("s1", [[[3, 1], [4], [], [1, 5, 9], []], [[2], [7, 1, 8], []], []], [[3, 1], [4], [], [1, 5, 9], []]),
    "RowLimits": ("lens", [[[3, 1], [], [], [3, 1, 4]], [[1, 5, 9, 2], [7, 1]], []], [[3, 1], [], [], [3, 1, 4]]),
    "ValueRowIds": ("lens", [[[3], [1], [4], [1]], [[], [5], [], [9]], []], [[3], [1], [4], [1]]),
}
# TF 2.15, validate=True: the first words of the failed assertion (batch, one example)
BAD_VALIDATE = {
    "RowSplits": ("Arguments to from_row_limits do not form a valid RaggedTensor",
                  "Arguments to from_row_splits do not form a valid RaggedTensor:"),
    "RowLengths": ("Arguments to _from_row_partition do not form a valid RaggedTensor",) * 2,
    "RowStarts": (None, None),  # TF's row-starts checks pass for these: same values as validate=False
    "RowLimits": ("Arguments to from_row_limits do not form a valid RaggedTensor",) * 2,
    "ValueRowIds": ("Arguments to from_value_rowids do not form a valid RowPartition",) * 2,
}


@pytest.mark.parametrize("kind", sorted(BAD))
@pytest.mark.parametrize("validate", [False, True])
def test_bad_partitions(kind, validate):
    key, batch, single = BAD[kind]
    feature = {"r": R(tf.int64, value_key="v", partitions=[getattr(R, kind)(key)], validate=validate)}
    for ser, expected, message in ((E, batch, BAD_VALIDATE[kind][0]), (E1, single, BAD_VALIDATE[kind][1])):
        tf.reset_default_graph()
        out = (tf.io.parse_example if ser is E else tf.io.parse_single_example)(ser, feature)
        if validate and message is not None:
            with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(out)
            assert info.value.message.startswith("assertion failed: [" + message)
        else:
            assert run(out) == {"r": expected}


@pytest.mark.parametrize("build, error, message", [  # TF 2.15
    (lambda: R(tf.int64, partitions=[("x",)]), TypeError,
     "Argument `partitions` must be a list of partition objects (<class 'dflow.ops.io.example_parsing.RowSplits'>, "
     "<class 'dflow.ops.io.example_parsing.RowLengths'>, <class 'dflow.ops.io.example_parsing.RowStarts'>, "
     "<class 'dflow.ops.io.example_parsing.RowLimits'>, <class 'dflow.ops.io.example_parsing.ValueRowIds'>, "
     "<class 'dflow.ops.io.example_parsing.UniformRowLength'>); got: ('x',)"),
    (lambda: R(tf.int64, partitions=[tf.io.VarLenFeature(tf.int64)]), TypeError,
     "Argument `partitions` must be a list of partition objects (<class 'dflow.ops.io.example_parsing.RowSplits'>, "
     "<class 'dflow.ops.io.example_parsing.RowLengths'>, <class 'dflow.ops.io.example_parsing.RowStarts'>, "
     "<class 'dflow.ops.io.example_parsing.RowLimits'>, <class 'dflow.ops.io.example_parsing.ValueRowIds'>, "
     "<class 'dflow.ops.io.example_parsing.UniformRowLength'>); got: VarLenFeature(dtype=tf.int64)"),
    (lambda: R(tf.int64, partitions="x"), TypeError,
     "Argument `partitions` must be a list or tuple. Received partitions=x of type str."),
    (lambda: R(tf.int32), ValueError, "Argument `dtype` must be int64, float32, or bytes; got tf.int32"),
    (lambda: R(tf.int64, row_splits_dtype=tf.float32), ValueError,
     "Argument `row_splits_dtype` must be int32 or int64; gottf.float32"),
    (lambda: R(tf.int64, value_key=3), ValueError, "Argument `value_key` must be a string; got 3"),
    (lambda: R(tf.int64, value_key=""), ValueError, "Argument `value_key` must not be empty"),
    (lambda: R(tf.int64, validate=1), TypeError, "Argument `validate` must be a bool; got 1"),
    (lambda: tf.io.parse_example(E, {"a": R(tf.float32, value_key="v"), "b": R(tf.int64, value_key="v")}),
     ValueError, "Conflicting type <dtype: 'float32'> vs <dtype: 'int64'> for feature v."),
    (lambda: tf.io.parse_example(E, {"a": R(tf.float32, value_key="s1"),
                                     "b": R(tf.int64, value_key="v", partitions=[R.RowSplits("s1")])}),
     ValueError, "Conflicting type <dtype: 'float32'> vs <dtype: 'int64'> for feature s1."),
    (lambda: tf.io.parse_example(E, {"v": R(tf.int64), "w": R(tf.int64, value_key="v", row_splits_dtype=tf.int64)}),
     ValueError, "Conflicting partition type <dtype: 'int32'> vs <dtype: 'int64'> for feature v."),
    (lambda: tf.io.parse_example(E, {"v": tf.io.VarLenFeature(tf.int64), "r": R(tf.int64, value_key="v")}),
     ValueError, "Ragged and sparse keys must not intersect; ragged_keys: ['v'], sparse_keys: ['v'], "
                 "intersection: {'v'}"),
    (lambda: tf.io.parse_example(E, {"v": tf.io.FixedLenFeature([], tf.int64), "r": R(tf.int64, value_key="v")}),
     ValueError, "('Dense and ragged keys must not intersect; dense_keys: ', \"['v'], ragged_keys: ['v'], "
                 "intersection: {'v'}\")"),
    (lambda: tf.io.parse_example(tf.placeholder(tf.string), {"r": R(tf.int64)}), ValueError,
     "serialized must have statically-known rank to parse ragged features."),
    (lambda: tf.io.parse_sequence_example(tf.placeholder(tf.string), {"r": R(tf.int64)}), ValueError,
     "serialized must have statically-known rank to parse ragged features."),
    (lambda: tf.io.parse_sequence_example(S, None, {"x": R(tf.int64, value_key="q"),
                                                    "q": tf.io.FixedLenSequenceFeature([], tf.int64,
                                                                                       allow_missing=True)}),
     ValueError, "('Dense and ragged keys must not intersect; dense_keys: ', \"['q'], ragged_keys: ['q'], "
                 "intersection: {'q'}\")"),
])
def test_config_errors(build, error, message):
    tf.reset_default_graph()
    with pytest.raises(error) as info:
        build()
    assert str(info.value) == message


def test_configs_and_shared_keys():
    assert repr(R(tf.int64)) == ("RaggedFeature(dtype=tf.int64, value_key=None, partitions=(), "
                                 "row_splits_dtype=tf.int32, validate=False)")
    assert (repr(R.RowSplits("a")), repr(R.UniformRowLength(2))) == ("RowSplits(key='a')", "UniformRowLength(length=2)")
    tf.reset_default_graph()  # a feature key that is another feature's value or partition key: TF 2.15 parses both
    out = tf.io.parse_example(E, {"v": R(tf.int64), "lens": R(tf.int64),
                                  "r": R(tf.int64, value_key="v", partitions=[R.RowLengths("lens")])})
    assert run(out) == {"v": [[3, 1, 4, 1, 5, 9], [2, 7, 1, 8], []], "lens": [[2, 1, 0, 3], [1, 3], []],
                        "r": [ROWS, ROWS2, []]}


@pytest.mark.parametrize("build, message", [  # TF 2.15
    (lambda: tf.io.parse_example(E, {"r": R(tf.float32, value_key="v")}),
     "Name: <unknown>, Key: v, Index: 0.  Data types don't match. Expected type: float, Actual type: int64"),
    (lambda: tf.io.parse_example(E, {"r": R(tf.float32, value_key="v")}, example_names=["a", "b", "c"]),
     "Name: a, Key: v, Index: 0.  Data types don't match. Expected type: float, Actual type: int64"),
    (lambda: tf.io.parse_example([E2, E1], {"r": R(tf.int64, value_key="v", partitions=[R.RowLengths("f")])}),
     "Name: <unknown>, Key: f, Index: 0.  Data types don't match. Expected type: int64, Actual type: float"),
    (lambda: tf.io.parse_example([E3, E1], {"r": R(tf.int64, value_key="v", partitions=[R.RowLengths("f")])}),
     "Name: <unknown>, Key: f, Index: 1.  Data types don't match. Expected type: int64, Actual type: float"),
    (lambda: tf.io.parse_example(E, {"r": R(tf.string, value_key="f")}),
     "Name: <unknown>, Key: f, Index: 0.  Data types don't match. Expected type: string, Actual type: float"),
    (lambda: tf.io.parse_single_example(E1, {"r": R(tf.float32, value_key="v")}),
     "Key: v.  Data types don't match. Expected type: float, Actual type: int64"),
    (lambda: tf.io.parse_example(E, {"r": R(tf.int64, value_key="v", partitions=[R.UniformRowLength(4)])}),
     "Input to reshape is a tensor with 10 values, but the requested shape requires a multiple of 4"),
    (lambda: tf.io.parse_single_example(E1, {"r": R(tf.int64, value_key="v", partitions=[R.UniformRowLength(4)])}),
     "Input to reshape is a tensor with 6 values, but the requested shape requires a multiple of 4"),
    (lambda: tf.io.parse_sequence_example(S, None, {"x": R(tf.float32, value_key="q")}),
     "Name: <unknown>, Feature list: q, Index: 0.  Data types don't match. Expected type: float"),
    (lambda: tf.io.parse_sequence_example(S, None, {"x": R(tf.float32, value_key="q")}, example_names=["a", "b", "c"]),
     "Name: a, Feature list: q, Index: 0.  Data types don't match. Expected type: float"),
    (lambda: tf.io.parse_single_sequence_example(S1, None, {"x": R(tf.float32, value_key="q")}),
     "Name: <unknown>, Feature list: q, Index: 0.  Data types don't match. Expected type: float"),
    (lambda: tf.io.parse_sequence_example(S, {"x": R(tf.float32, value_key="cv")}, None),
     "Name: <unknown>, Context feature: cv.  Data types don't match. Expected type: float"),
    (lambda: tf.io.parse_single_sequence_example(S1, {"x": R(tf.float32, value_key="cv")}, None),
     "Name: <unknown>, Context feature: cv.  Data types don't match. Expected type: float"),
])
def test_run_time_errors(build, message):
    tf.reset_default_graph()
    out = build()
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(out)
    assert info.value.message.split("\n")[0] == message


def test_feature_list_type_error_names_the_step():
    tf.reset_default_graph()
    ok = tf.train.SequenceExample(feature_lists=tf.train.FeatureLists(feature_list={
        "q": feature_list([i64([1])])})).SerializeToString()
    bad = tf.train.SequenceExample(feature_lists=tf.train.FeatureLists(feature_list={
        "q": feature_list([i64([1]), i64([2]), f32([1.0])])})).SerializeToString()
    for config in (R(tf.int64), tf.io.VarLenFeature(tf.int64)):  # TF 2.15: Index is the step
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(tf.io.parse_sequence_example([ok, bad], None, {"q": config}))
        assert info.value.message.split("\n")[0] == \
            "Name: <unknown>, Feature list: q, Index: 2.  Data types don't match. Expected type: int64"


CTX = {"cv": R(tf.int64), "csplit": R(tf.int64, value_key="cv", partitions=[R.RowSplits("cs")])}
SEQ = {"q": R(tf.int64), "qf": R(tf.float32), "qsplit": R(tf.int64, value_key="q", partitions=[R.RowSplits("qs")]),
       "quni": R(tf.int64, value_key="q", partitions=[R.UniformRowLength(1)])}


def test_parse_sequence_example():
    tf.reset_default_graph()
    c, q, lengths = tf.io.parse_sequence_example(S, CTX, SEQ)
    assert lengths == {}
    assert c["cv"].flat_values.name == f"{QP}:0" and c["cv"].row_splits.name == f"{QP}:2"
    assert [s.name for s in c["csplit"].nested_row_splits] == [
        "ParseSequenceExample/RaggedGetItem/RaggedRange:0",
        "ParseSequenceExample/RaggedFromRowLimits/RowPartitionFromRowLimits/concat:0"]
    assert q["q"].flat_values.name == f"{QP}:4" and [s.name for s in q["q"].nested_row_splits] == \
        [f"{QP}:7", f"{QP}:10"]
    assert q["qf"].flat_values.name == f"{QP}:5" and [s.name for s in q["qf"].nested_row_splits] == \
        [f"{QP}:8", f"{QP}:11"]
    assert [s.name for s in q["qsplit"].nested_row_splits] == [
        f"{QP}:7", "ParseSequenceExample/RaggedGetItem_1/RaggedRange:0",
        "ParseSequenceExample/RaggedFromRowLimits_1/RowPartitionFromRowLimits/concat:0"]
    assert [s.name for s in q["quni"].nested_row_splits] == [f"{QP}:7", "ParseSequenceExample/floordiv:0"]
    shapes = {k: t.shape.as_list() for k, t in {**c, **q}.items()}
    assert shapes == {"cv": [3, None], "csplit": [3, None, None], "q": [3, None, None], "qf": [3, None, None],
                      "qsplit": [3, None, None, None], "quni": [3, None, None, 1]}
    assert run(c) == {"cv": [[1, 2, 3], [4], []], "csplit": [[[1], [2, 3]], [[], [4]], []]}
    assert run(q) == {"q": [[[1, 2], [], [3]], [[4, 5, 6]], []], "qf": [[[0.5], [1.5, 2.5]], [], []],
                      "qsplit": [[[[1], [2]], [], [[3]]], [[[4, 5, 6]]], []],
                      "quni": [[[[1], [2]], [], [[3]]], [[[4], [5], [6]]], []]}


@pytest.mark.parametrize("index, context, lists", [  # TF 2.15
    (0, {"cv": [1, 2, 3], "csplit": [[1], [2, 3]]},
     {"q": [[1, 2], [], [3]], "qf": [[0.5], [1.5, 2.5]], "qsplit": [[[1], [2]], [], [[3]]],
      "quni": [[[1], [2]], [], [[3]]]}),
    (1, {"cv": [4], "csplit": [[], [4]]},
     {"q": [[4, 5, 6]], "qf": [], "qsplit": [[[4, 5, 6]]], "quni": [[[4], [5], [6]]]}),
])
def test_parse_single_sequence_example(index, context, lists):
    tf.reset_default_graph()
    c, q = tf.io.parse_single_sequence_example(S[index], CTX, SEQ)
    assert isinstance(c["cv"], tf.Tensor) and c["cv"].name == f"{SQP}:0" and c["cv"].shape.as_list() == [None]
    assert [s.name for s in c["csplit"].nested_row_splits] == ["ParseSingleSequenceExample/Cast:0"]
    assert q["q"].flat_values.name == f"{SQP}:4" and q["q"].row_splits.name == f"{SQP}:10"
    assert [s.name for s in q["qsplit"].nested_row_splits] == [
        "ParseSingleSequenceExample/RaggedGetItem/RaggedRange:0",
        "ParseSingleSequenceExample/RaggedFromRowLimits/RowPartitionFromRowLimits/concat:0"]
    assert q["quni"].shape.as_list() == [None, None, 1]
    assert (run(c), run(q)) == (context, lists)


@pytest.mark.parametrize("key", ["cv", "csplit", "q", "qf", "qsplit", "quni"])
def test_parse_single_sequence_example_empty(key):
    tf.reset_default_graph()
    c, q = tf.io.parse_single_sequence_example(S3, {key: CTX[key]} if key in CTX else None,
                                               {key: SEQ[key]} if key in SEQ else None)
    assert {**run(c), **run(q)} == {key: []}


def test_sequence_output_layout():
    tf.reset_default_graph()  # TF's output order: context sparse, dense, ragged; lists sparse, dense, lengths, ragged
    ser = tf.placeholder(tf.string, [None])
    c, q, _ = tf.io.parse_sequence_example(ser, {"cv": R(tf.int64), "cs": tf.io.VarLenFeature(tf.int64)},
                                           {"q": R(tf.int64, row_splits_dtype=tf.int64),
                                            "qs": tf.io.VarLenFeature(tf.int64)})
    assert c["cs"].indices.name == f"{QP}:0" and q["qs"].indices.name == f"{QP}:5"
    assert (c["cv"].flat_values.name, c["cv"].row_splits.name) == (f"{QP}:3", f"{QP}:4")
    assert [t.name for t in (q["q"].flat_values, *q["q"].nested_row_splits)] == [f"{QP}:8", f"{QP}:9", f"{QP}:10"]
    assert q["q"].row_splits.dtype == tf.int64 and c["cv"].row_splits.dtype == tf.int32
    got = run({"c": c["cv"], "q": q["q"]}, {ser: S})
    assert got == {"c": [[1, 2, 3], [4], []], "q": [[[1, 2], [], [3]], [[4, 5, 6]], []]}


@pytest.mark.parametrize("features, expected", [  # TF 2.15
    ({"x": R(tf.int64, value_key="q", partitions=[R.RowLengths("qs")])},
     {"x": [[[[], [1], [2, 3]], [[]], [[], [4]]], [[[], [5, 6]]], []]}),
    ({"x": R(tf.int64, value_key="q", partitions=[R.RowSplits("qs")], validate=True)},
     {"x": [[[[1], [2]], [], [[3]]], [[[4, 5, 6]]], []]}),
    ({"x": R(tf.int64, value_key="qs", partitions=[R.ValueRowIds("qs")])},
     {"x": [[[[0], [1], [2]], [[0]], [[0], [1]]], [[[0], [], [], [3]]], []]}),
    ({"x": R(tf.int64, value_key="q", partitions=[R.RowStarts("q")]),
      "y": R(tf.int64, value_key="qs", partitions=[R.RowLimits("q")])},
     {"x": [[[[2], [3, 4, 5]], [], [[6]]], [[[], [], []]], []], "y": [[[[0], [1]], [], [[2, 0, 0, 1, 0]]],
                                                                       [[[3], [], []]], []]}),
    ({"x": R(tf.int64, value_key="qs", partitions=[R.UniformRowLength(2)])},
     {"x": [[[[0, 1]], [[2, 0]], [[0, 1]]], [[[0, 3]]], []]}),
])
def test_sequence_partitions(features, expected):
    tf.reset_default_graph()
    _, q, _ = tf.io.parse_sequence_example(S, None, features)
    assert run(q) == expected


def test_sequence_partition_errors():
    tf.reset_default_graph()
    _, q, _ = tf.io.parse_sequence_example(S, None, {"x": R(tf.int64, value_key="qs", partitions=[R.RowSplits("qsx")],
                                                            validate=True)})
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="Feature x: values and partitions are not aligned"):
        sess.run(q)
    _, q, _ = tf.io.parse_sequence_example(S, None, {"x": R(tf.int64, value_key="qs", partitions=[R.RowLengths("q")],
                                                            validate=True)})
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(q)
    assert info.value.message.startswith("assertion failed: [Arguments to _from_row_partition do not form a valid "
                                         "RaggedTensor]")
    with pytest.raises(ValueError, match="^Both `context_features` and `sequence_features` argument are None, but "
                                         "at least one should have values.$"):
        tf.io.parse_sequence_example(S, None, None)
