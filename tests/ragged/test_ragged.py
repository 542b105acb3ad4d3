"""tf.RaggedTensor and tf.ragged, checked against TF 2.15 (tf.compat.v1, graph mode).

``tf_figures.json`` holds what TF printed for each case of ``_build_cases``
(the values as ``to_list()`` / ``tolist()``, their dtypes, the nested row
splits, and the static shape and dtype): the same builder was run under
``tensorflow.compat.v1`` with eager execution disabled.
"""

import json
import pathlib

import numpy as np
import pytest

import dflow
import dflow.ops.ragged
from dflow.framework import errors

tf = dflow

FIGURES = json.loads((pathlib.Path(__file__).parent / "tf_figures.json").read_text())
APPROX = {"tf_exp"}  # TF's float32 exp differs from numpy's in the last ulp
# TF's C++ shape inference evaluates the constant segment count of this two-axis reduction ((3,) int32);
# dflow's constant folding does not reach it, so the length stays unknown.
STATIC_DIFFERS = {"reduce_sum_tuple": "(?,) int32"}


def _build_cases(tf):
    """Every case of EXPECTED, built in the current default graph."""
    C = {}
    v = tf.constant([1., 2, 3, 4, 5])
    RT = tf.RaggedTensor
    C["from_row_splits"] = RT.from_row_splits(v, [0, 2, 2, 5])
    C["from_row_splits_int32"] = RT.from_row_splits(v, tf.constant([0, 2, 2, 5], tf.int32))
    C["from_row_lengths"] = RT.from_row_lengths(v, [2, 0, 3])
    C["from_value_rowids"] = RT.from_value_rowids(v, [0, 0, 2, 2, 2])
    C["from_value_rowids_nrows"] = RT.from_value_rowids(v, [0, 0, 2, 2, 2], nrows=5)
    C["from_row_starts"] = RT.from_row_starts(v, [0, 2, 2])
    C["from_row_limits"] = RT.from_row_limits(v, [2, 2, 5])
    C["from_uniform"] = RT.from_uniform_row_length(tf.constant([1, 2, 3, 4, 5, 6]), 2)
    seven = tf.constant([1, 2, 3, 4, 5, 6, 7])
    C["from_nested_row_splits"] = RT.from_nested_row_splits(seven, ([0, 2, 3], [0, 3, 5, 7]))
    C["from_nested_row_lengths"] = RT.from_nested_row_lengths(seven, ([2, 1], [3, 0, 4]))
    C["from_nested_value_rowids"] = RT.from_nested_value_rowids(seven, ([0, 0, 1], [0, 0, 0, 2, 2, 2, 2]),
                                                                nested_nrows=[3, 3])
    C["from_tensor"] = RT.from_tensor(tf.constant([[1, 2, 3], [4, 5, 6]]))
    C["from_tensor_lengths"] = RT.from_tensor(tf.constant([[1, 2, 3], [4, 5, 6]]), lengths=[1, 3])
    C["from_tensor_padding"] = RT.from_tensor(tf.constant([[1, 0, 0], [4, 5, 0], [0, 0, 0]]), padding=0)
    C["from_tensor_padding_vec"] = RT.from_tensor(tf.constant([[[1, 1], [0, 0]], [[2, 0], [0, 0]]]), padding=[0, 0])
    C["from_tensor_rr2"] = RT.from_tensor(tf.constant([[[1, 0], [2, 3]], [[0, 0], [4, 0]]]), padding=0, ragged_rank=2)
    C["from_tensor_int32"] = RT.from_tensor(tf.constant([[1, 2], [3, 4]]), lengths=[2, 1], row_splits_dtype=tf.int32)
    rt = RT.from_row_splits(v, [0, 2, 2, 5])
    C["values"] = rt.values
    C["row_lengths"] = rt.row_lengths()
    C["value_rowids"] = rt.value_rowids()
    C["nrows"] = rt.nrows()
    C["nrows_int32"] = rt.nrows(out_type=tf.int32)
    C["row_starts"] = rt.row_starts()
    C["row_limits"] = rt.row_limits()
    C["bounding_shape"] = rt.bounding_shape()
    C["bounding_shape_axis1"] = rt.bounding_shape(axis=1)
    C["to_tensor"] = rt.to_tensor()
    C["to_tensor_default"] = rt.to_tensor(default_value=-1.)
    C["to_tensor_shape"] = rt.to_tensor(shape=[2, 2])
    C["to_tensor_shape_pad"] = rt.to_tensor(shape=[4, None])
    C["to_sparse"] = rt.to_sparse()
    C["with_values"] = rt.with_values(tf.constant([5, 4, 3, 2, 1]))
    C["with_flat_values"] = rt.with_flat_values(v * 10.)
    C["with_row_splits_dtype"] = rt.with_row_splits_dtype(tf.int32)
    rt3 = tf.ragged.constant([[[1, 2, 3], [4]], [[5], [], [6]], [[7]], [[8, 9], [10]]])
    C["rt3"] = rt3
    C["rt3_nested_row_lengths"] = list(rt3.nested_row_lengths())
    C["rt3_to_tensor"] = rt3.to_tensor()
    C["rt3_to_tensor_default"] = rt3.to_tensor(default_value=9, shape=[3, 2, 4])
    C["rt3_to_sparse"] = rt3.to_sparse()
    C["rt3_bounding"] = rt3.bounding_shape()
    C["rt3_row_lengths_axis2"] = rt3.row_lengths(axis=2)
    C["rt3_merge_01"] = rt3.merge_dims(0, 1)
    C["rt3_merge_12"] = rt3.merge_dims(1, 2)
    C["rt3_merge_02"] = rt3.merge_dims(0, -1)
    inner = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    C["inner_dense"] = inner
    C["inner_dense_to_tensor"] = inner.to_tensor()
    C["inner_dense_to_sparse"] = inner.to_sparse()
    C["inner_merge_12"] = inner.merge_dims(1, 2)
    # __getitem__
    C["gi_row"] = rt[2]
    C["gi_row_neg"] = rt[-1]
    C["gi_elem"] = rt[2, 1]
    C["gi_slice"] = rt[1:]
    C["gi_slice_step"] = rt[::2]
    C["gi_col_slice"] = rt[:, 1:]
    C["gi_col_slice_neg"] = rt[:, -2:]
    C["gi_col_slice_step"] = rt[:, ::-1]
    C["gi_rt3_row"] = rt3[1]
    C["gi_rt3_elem"] = rt3[3, 0]
    C["gi_rt3_cols"] = rt3[:, 1:3]
    C["gi_rt3_last"] = rt3[:, -1:]
    C["gi_rt3_inner"] = rt3[:, :, :1]
    C["gi_uniform_col"] = RT.from_tensor(tf.constant([[1, 2, 3], [4, 5, 6]]))[:, 1]
    C["gi_inner_dense"] = inner[:, :, 1]
    C["gi_ellipsis"] = rt3[..., :1]
    C["gi_newaxis"] = rt[tf.newaxis]
    # tf.ragged
    C["constant_float"] = tf.ragged.constant([[1.5, 2], []])
    C["constant_str"] = tf.ragged.constant([[b"a", b"b"], [b"c"]])
    C["constant_inner"] = tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], inner_shape=(2,))
    C["constant_rr2"] = tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=2)
    C["constant_dtype"] = tf.ragged.constant([[1, 2], [3]], dtype=tf.float64, row_splits_dtype=tf.int32)
    C["constant_empty_rows"] = tf.ragged.constant([[], [[]]])
    C["range"] = tf.ragged.range([3, 0, 5])
    C["range2"] = tf.ragged.range([0, 5, 8], [3, 3, 12])
    C["range3"] = tf.ragged.range(0, 5, [1, 2, -1])
    C["range_float"] = tf.ragged.range([0., 1.], 2., 0.5)
    C["range_int32"] = tf.ragged.range([2, 3], row_splits_dtype=tf.int32)
    C["splits_to_ids"] = tf.ragged.row_splits_to_segment_ids([0, 2, 2, 5])
    C["ids_to_splits"] = tf.ragged.segment_ids_to_row_splits([0, 0, 2, 2, 2])
    C["ids_to_splits_n"] = tf.ragged.segment_ids_to_row_splits([0, 0, 2], num_segments=4)
    C["map_flat_values"] = tf.ragged.map_flat_values(tf.ones_like, rt)
    C["map_flat_values2"] = tf.ragged.map_flat_values(tf.multiply, rt, rt)
    C["map_flat_values3"] = tf.ragged.map_flat_values(tf.add, rt3, 10)
    C["bm_dense_dense"] = tf.ragged.boolean_mask(tf.constant([[1, 2, 3], [4, 5, 6]]),
                                                 tf.constant([[True, False, True], [False, False, True]]))
    C["bm_dense_rows"] = tf.ragged.boolean_mask(tf.constant([[1, 2, 3], [4, 5, 6]]), tf.constant([True, False]))
    C["bm_ragged_ragged"] = tf.ragged.boolean_mask(tf.ragged.constant([[1, 2, 3], [4], [5, 6]]),
                                                   tf.ragged.constant([[False, False, True], [False], [True, True]]))
    C["bm_ragged_rows"] = tf.ragged.boolean_mask(tf.ragged.constant([[1, 2, 3], [4], [5, 6]]),
                                                 tf.constant([True, False, True]))
    C["bm_ragged_dense_mask"] = tf.ragged.boolean_mask(tf.ragged.constant([[1, 2], [4, 5], [5, 6]]),
                                                       tf.constant([[True, False], [False, True], [True, True]]))
    C["sdp"] = tf.ragged.stack_dynamic_partitions(tf.constant(["a", "b", "c", "d", "e"]),
                                                  tf.constant([3, 0, 3, 2, 0]), 4)
    C["sdp_ragged"] = tf.ragged.stack_dynamic_partitions(tf.ragged.constant([[1], [2, 3], [], [4]]), [1, 0, 1, 1], 2)
    C["stack"] = tf.ragged.stack([tf.ragged.constant([[1, 2], [3]]), tf.ragged.constant([[4], [5, 6], []])])
    C["stack_dense"] = tf.ragged.stack([tf.constant([[1, 2], [3, 4]]), tf.ragged.constant([[5]])])
    abc, de = tf.ragged.constant([["a"], ["b", "c"]]), tf.ragged.constant([["d"], ["e"]])
    C["cross"] = tf.ragged.cross([abc, de, tf.constant([["f"], ["g"]])])
    C["cross_hashed"] = tf.ragged.cross_hashed([abc, de], num_buckets=100)
    # element-wise
    rt2 = tf.ragged.constant([[1., 2.], [], [3., 4., 5.]])
    C["add_rr"] = rt + rt2
    C["add_scalar"] = rt + 1.
    C["radd_scalar"] = 1. + rt
    C["sub_rr"] = rt - rt2 * 2.
    C["rsub"] = 10. - rt
    C["mul"] = rt * 3.
    C["div"] = rt / 2.
    C["rdiv"] = 2. / rt
    C["floordiv"] = tf.ragged.constant([[5, 7], [9]]) // 2
    C["mod"] = tf.ragged.constant([[5, 7], [9]]) % 4
    C["pow"] = rt ** 2.
    C["neg"] = -rt
    C["abs"] = abs(-rt)
    C["lt"] = rt < 3.
    C["ge"] = rt >= 2.
    C["and"] = (rt > 1.) & (rt < 5.)
    C["invert"] = ~(rt > 2.)
    C["add_dense_col"] = rt + tf.constant([[1.], [2.], [3.]])
    C["add_inner"] = inner + tf.constant([10, 20])
    C["tf_add"] = tf.add(rt, rt2)
    C["tf_multiply_dense"] = tf.multiply(rt, 2.)
    C["tf_abs"] = tf.abs(-rt)
    C["tf_exp"] = tf.exp(tf.ragged.constant([[0., 1.], [2.]]))
    C["tf_math_sqrt"] = tf.math.sqrt(rt)
    C["tf_cast"] = tf.cast(rt, tf.int32)
    C["tf_equal"] = tf.equal(rt, rt2)
    C["tf_maximum"] = tf.maximum(rt, 3.)
    C["tf_logical_not"] = tf.logical_not(rt > 2.)
    # reductions
    C["reduce_sum_none"] = tf.reduce_sum(rt)
    C["reduce_sum_0"] = tf.reduce_sum(rt, axis=0)
    C["reduce_sum_1"] = tf.reduce_sum(rt, axis=1)
    C["reduce_sum_neg1"] = tf.reduce_sum(rt, axis=-1)
    C["reduce_mean_1"] = tf.reduce_mean(rt, axis=1)
    C["reduce_mean_0"] = tf.reduce_mean(rt, axis=0)
    C["reduce_max_1"] = tf.reduce_max(rt, axis=1)
    C["reduce_min_1"] = tf.reduce_min(rt, axis=1)
    C["reduce_max_0"] = tf.reduce_max(rt, axis=0)
    C["reduce_prod_1"] = tf.reduce_prod(rt, axis=1)
    C["reduce_any_1"] = tf.reduce_any(rt > 4., axis=1)
    C["reduce_all_1"] = tf.reduce_all(rt > 1., axis=1)
    C["rt3_sum_0"] = tf.reduce_sum(rt3, axis=0)
    C["rt3_sum_1"] = tf.reduce_sum(rt3, axis=1)
    C["rt3_sum_2"] = tf.reduce_sum(rt3, axis=2)
    C["rt3_sum_12"] = tf.reduce_sum(rt3, axis=[1, 2])
    C["rt3_max_0"] = tf.reduce_max(rt3, axis=0)
    C["inner_sum_2"] = tf.reduce_sum(inner, axis=2)
    C["inner_sum_1"] = tf.reduce_sum(inner, axis=1)
    C["inner_mean_0"] = tf.reduce_mean(tf.cast(inner, tf.float32), axis=0)
    C["int_sum_1"] = tf.reduce_sum(tf.ragged.constant([[1, 2], [], [3]]), axis=1)
    C["int_max_1"] = tf.reduce_max(tf.ragged.constant([[1, 2], [], [3]]), axis=1)
    C["keepdims_1"] = tf.reduce_sum(rt, axis=1, keepdims=True)
    C["keepdims_0"] = tf.reduce_sum(rt, axis=0, keepdims=True)
    C["keepdims_none"] = tf.reduce_sum(rt, keepdims=True)
    C["keepdims_rt3_1"] = tf.reduce_sum(rt3, axis=1, keepdims=True)
    C["from_sparse_ok"] = RT.from_sparse(tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [1., 2., 3.], [4, 3]))
    C["reduce_sum_tuple"] = tf.reduce_sum(rt3, axis=(0, 1))
    C["math_reduce_mean"] = tf.math.reduce_mean(rt, axis=1)
    C["add_rt3_dense"] = rt3 + tf.constant([[[100]], [[200]], [[300]], [[400]]])
    C["mul_bcast_row1"] = rt * tf.constant([[2.]])
    C["truediv_int"] = tf.ragged.constant([[1, 2], [3]]) / 2
    C["row_lengths_int32"] = RT.from_row_splits(v, tf.constant([0, 2, 5], tf.int32)).row_lengths()
    C["value_rowids_int32"] = RT.from_row_splits(v, tf.constant([0, 2, 5], tf.int32)).value_rowids()
    return C


def _to_py(x):
    if hasattr(x, "to_list"):
        return {"ragged": x.to_list(), "dtype": str(x.flat_values.dtype), "splits": [str(s.dtype) for s in
                                                                                      x.nested_row_splits],
                "nested_row_splits": [s.tolist() for s in x.nested_row_splits]}
    if hasattr(x, "indices") and hasattr(x, "dense_shape"):
        return {"sparse": [np.asarray(x.indices).tolist(), np.asarray(x.values).tolist(),
                           np.asarray(x.dense_shape).tolist()], "dtype": str(np.asarray(x.values).dtype)}
    if isinstance(x, list):
        return [_to_py(y) for y in x]
    a = np.asarray(x)
    value = [v.decode() if isinstance(v, bytes) else v for v in a.ravel().tolist()]
    return {"value": np.array(value, dtype=object).reshape(a.shape).tolist() if a.dtype == object else a.tolist(),
            "dtype": str(a.dtype), "shape": list(a.shape)}


def _static(t):
    if isinstance(t, list):
        return [str(x.shape) for x in t]
    return f"{t.shape} {t.dtype.name}"


def _decode(v):
    if isinstance(v, list):
        return [_decode(x) for x in v]
    if isinstance(v, dict):
        return {k: _decode(x) for k, x in v.items()}
    return v.decode() if isinstance(v, bytes) else v


@pytest.fixture(scope="module")
def built():
    graph = tf.Graph()
    with graph.as_default():
        cases = _build_cases(tf)
    return graph, cases


def test_every_case_has_a_figure(built):
    assert sorted(built[1]) == sorted(FIGURES)


@pytest.mark.parametrize("case", sorted(FIGURES))
def test_case_matches_tf(built, case):
    graph, cases = built
    with tf.Session(graph=graph) as sess:
        got = _decode(_to_py(sess.run(cases[case])))
    want = FIGURES[case]["value"]
    if case in APPROX:
        assert got["nested_row_splits"] == want["nested_row_splits"] and got["dtype"] == want["dtype"]
        np.testing.assert_allclose(np.concatenate([np.ravel(r) for r in got["ragged"]]),
                                   np.concatenate([np.ravel(r) for r in want["ragged"]]), rtol=1e-6)
    else:
        assert json.dumps(got) == json.dumps(want)  # as text, so that NaN equals NaN
    assert _static(cases[case]) == STATIC_DIFFERS.get(case, FIGURES[case]["static"])


# -- op names (TF's name scopes) -----------------------------------------------------------


def test_op_names_match_tf():
    v = tf.constant([1., 2, 3, 4, 5])
    assert tf.RaggedTensor.from_row_splits(v, [0, 2, 2, 5]).row_splits.name == \
        "RaggedFromRowSplits/control_dependency:0"
    assert tf.RaggedTensor.from_row_splits(v, [0, 2, 2, 5], validate=False).row_splits.name == \
        "RaggedFromRowSplits_1/RowPartitionFromRowSplits/row_splits:0"
    assert tf.RaggedTensor.from_row_lengths(v, [2, 0, 3], name="rl").row_splits.name == "rl/control_dependency:0"
    assert tf.RaggedTensor.from_row_lengths(v, [2, 0, 3], validate=False).row_splits.name == \
        "RaggedFromRowLengths/RowPartitionFromRowLengths/concat:0"
    assert tf.RaggedTensor.from_value_rowids(v, [0, 0, 2, 2, 2], validate=False).row_splits.name == \
        "RaggedFromValueRowIds/RowPartitionFromValueRowIds/concat:0"
    c = tf.ragged.constant([[1, 2], [3]])
    assert [c.row_splits.name, c.values.name] == ["RaggedConstant/Const:0", "RaggedConstant/values:0"]
    c = tf.ragged.constant([[[1, 2], [3]], [[4]]], name="c")
    assert [c.row_splits.name, c.values.row_splits.name, c.flat_values.name] == \
        ["c/Const_1:0", "c/Const:0", "c/values:0"]
    p = tf.ragged.placeholder(tf.float32, 2, [3])
    assert [t.name for t in p.nested_row_splits] + [p.flat_values.name] == \
        ["RaggedPlaceholder/row_splits_0:0", "RaggedPlaceholder/row_splits_1:0", "RaggedPlaceholder/flat_values:0"]
    assert p.shape.as_list() == [None, None, None, 3]
    r = tf.ragged.range([2, 3])
    assert [r.row_splits.name, r.values.name] == ["RaggedRange:0", "RaggedRange:1"]
    rt = tf.RaggedTensor.from_row_splits(v, [0, 2, 2, 5], validate=False)
    assert rt.to_tensor().name == "RaggedToTensor/RaggedTensorToTensor:0"
    assert rt.to_tensor(name="dense").name == "dense/RaggedTensorToTensor:0"


# -- fetching and feeding ------------------------------------------------------------------


def test_feed_ragged_placeholder(sess):
    p = tf.ragged.placeholder(tf.float32, 1, [])
    got = sess.run(p * 2., {p: tf.ragged.constant_value([[1., 2.], [], [3.]])})
    assert isinstance(got, tf.ragged.RaggedTensorValue)
    assert got.to_list() == [[2.0, 4.0], [], [6.0]]
    assert (str(got.dtype), str(got.row_splits.dtype), got.shape) == ("float32", "int64", (3, None))
    q = tf.ragged.placeholder(tf.int32, 2)
    value = tf.ragged.constant_value([[[1], [2, 3]], [[4]]])
    assert sess.run(tf.reduce_sum(q, axis=2), {q: value}).to_list() == [[1, 5], [4]]
    assert sess.run(q.to_tensor(), {q: value}).tolist() == [[[1, 0], [2, 3]], [[4, 0], [0, 0]]]


def test_feed_needs_a_ragged_value(sess):
    p = tf.ragged.placeholder(tf.float32, 1, [])
    with pytest.raises(TypeError, match="RaggedTensorValue"):
        sess.run(p.flat_values, {p: [[1.0]]})


def test_fetched_value_attributes(sess):
    got = sess.run(tf.ragged.constant([[[1, 2], [3]], [[4]]]))
    assert got.ragged_rank == 2
    assert [s.tolist() for s in got.nested_row_splits] == [[0, 2, 3], [0, 2, 3, 4]]
    assert got.flat_values.tolist() == [1, 2, 3, 4]
    assert got.values.to_list() == [[1, 2], [3], [4]]
    assert got.row_splits.tolist() == [0, 2, 3]


def test_constant_value():
    cv = tf.ragged.constant_value([[1, 2], [3]])
    assert [cv.to_list(), str(cv.dtype), str(cv.row_splits.dtype), cv.shape, cv.ragged_rank] == \
        [[[1, 2], [3]], "int64", "int64", (2, None), 1]
    assert repr(cv) == "tf.RaggedTensorValue(values=array([1, 2, 3]), row_splits=array([0, 2, 3]))"
    assert str(cv) == "<tf.RaggedTensorValue [[1, 2], [3]]>"
    cv = tf.ragged.constant_value([[[1., 2.]], [[3., 4.], [5., 6.]]], ragged_rank=1, row_splits_dtype="int32")
    assert [cv.to_list(), str(cv.dtype), str(cv.row_splits.dtype), cv.shape, cv.ragged_rank, cv.flat_values.shape] \
        == [[[[1.0, 2.0]], [[3.0, 4.0], [5.0, 6.0]]], "float64", "int32", (2, None, 2), 1, (3, 2)]


def test_ragged_tensor_spec():
    rt = tf.ragged.constant([[1., 2.], [3.]])
    spec = tf.RaggedTensorSpec([2, None], tf.float32, 1)
    assert repr(spec) == "RaggedTensorSpec(TensorShape([2, None]), tf.float32, 1, tf.int64)"
    assert (spec.shape.as_list(), spec.dtype, spec.ragged_rank, spec.row_splits_dtype) == \
        ([2, None], tf.float32, 1, tf.int64)
    assert spec.is_compatible_with(rt)
    assert not tf.RaggedTensorSpec([3, None], tf.float32).is_compatible_with(rt)
    assert not tf.RaggedTensorSpec([None, None], tf.int32).is_compatible_with(rt)
    assert not tf.RaggedTensorSpec([None, None], tf.float32, row_splits_dtype=tf.int32).is_compatible_with(rt)
    assert spec == tf.RaggedTensorSpec([2, None], tf.float32, 1)
    assert repr(tf.RaggedTensorSpec(shape=[None, None, 4], dtype=tf.int64)) == \
        "RaggedTensorSpec(TensorShape([None, None, 4]), tf.int64, 2, tf.int64)"
    assert rt._type_spec == spec


# -- gradients (TF's figures) ----------------------------------------------------------------


def test_gradients_reach_flat_values(sess):
    fv = tf.constant([1., 2., 3., 4., 5.])
    rt = tf.RaggedTensor.from_row_splits(fv, [0, 2, 2, 5])
    w = tf.constant([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]])
    dv = tf.constant(0.5)
    fv2 = tf.constant([[1., 2.], [3., 4.], [5., 6.]])
    dense = tf.constant([[1., 2., 3.], [4., 5., 6.]])
    grads = [
        tf.gradients(tf.reduce_sum(rt.to_tensor(default_value=0.5) * w), fv)[0],
        *tf.gradients(tf.reduce_sum(rt.to_tensor(default_value=dv) * w), [fv, dv]),
        tf.gradients(tf.reduce_sum(rt.to_tensor(shape=[3, 2]) * w[:, :2]), fv)[0],
        tf.gradients(tf.reduce_sum(tf.square(tf.RaggedTensor.from_row_lengths(fv2, [1, 2]).to_tensor())), fv2)[0],
        tf.gradients(tf.reduce_sum(rt.to_sparse().values * tf.constant([1., 2., 3., 4., 5.])), fv)[0],
        tf.gradients(tf.reduce_sum(tf.RaggedTensor.from_tensor(dense, lengths=[1, 2]).flat_values * 3.), dense)[0],
        tf.gradients(tf.reduce_sum((rt * rt).flat_values)
                     + tf.reduce_sum(tf.reduce_sum(rt, axis=1) * tf.constant([1., 2., 3.])), fv)[0],
        tf.gradients(tf.reduce_sum(rt[2]) + tf.reduce_sum(rt[:, 1:].flat_values * 10.), fv)[0],
    ]
    got = [np.asarray(g).tolist() for g in sess.run([tf.convert_to_tensor(g) for g in grads])]
    assert got == [[1.0, 2.0, 7.0, 8.0, 9.0], [1.0, 2.0, 7.0, 8.0, 9.0], 18.0, [1.0, 2.0, 7.0, 8.0, 0.0],
                   [[2.0, 4.0], [6.0, 8.0], [10.0, 12.0]], [1.0, 2.0, 3.0, 4.0, 5.0],
                   [[3.0, 0.0, 0.0], [3.0, 3.0, 0.0]],
                   [3.0, 5.0, 9.0, 11.0, 13.0], [0.0, 10.0, 1.0, 11.0, 11.0]]


# -- run-time errors (InvalidArgumentError, TF's messages) ----------------------------------------


def _run_factory(sess, factory, partition, nvals=5, **kwargs):
    p = tf.placeholder(tf.int64, [None])
    v = tf.placeholder(tf.float32, [None])
    rt = factory(v, p, **kwargs)
    return sess.run(rt, {p: partition, v: np.arange(nvals, dtype=np.float32)})


@pytest.mark.parametrize("factory, partition, kwargs, message", [
    ("from_row_splits", [1, 2, 5], {}, "Arguments to from_row_splits do not form a valid RaggedTensor:zero"),
    ("from_row_splits", [0, 3, 2, 5], {}, "Arguments to from_row_splits do not form a valid RaggedTensor:monotonic"),
    ("from_row_splits", [0, 2, 4], {}, "Arguments to _from_row_partition do not form a valid RaggedTensor"),
    ("from_row_lengths", [3, -1, 3], {}, "Arguments to from_row_lengths do not form a valid RowPartition"),
    ("from_row_lengths", [3, 1], {}, "Arguments to _from_row_partition do not form a valid RaggedTensor"),
    ("from_value_rowids", [0, 1, 0, 2, 2], {}, "Arguments to from_value_rowids do not form a valid RowPartition"),
    ("from_value_rowids", [0, 1, 1, 2, 2], {"nrows": 2},
     r"Arguments to from_value_rowids do not form a valid RowPartition\] \[Condition x < y"),
    ("from_row_starts", [1, 2], {}, "Arguments to from_row_starts do not form a valid RaggedTensor"),
    ("from_row_limits", [2, 1, 5], {}, "Arguments to from_row_limits do not form a valid RaggedTensor"),
])
def test_invalid_partitions_fail_at_run_time(sess, factory, partition, kwargs, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        _run_factory(sess, getattr(tf.RaggedTensor, factory), partition, **kwargs)


def test_uniform_row_length_mismatch(sess):
    p = tf.placeholder(tf.int64, [])
    v = tf.placeholder(tf.float32, [None])
    rt = tf.RaggedTensor.from_uniform_row_length(v, p)
    msg = r"\[uniform_row_length\] \[2\] \[times nrows\] \[2\] \[must equal nvals\] \[5\]"
    with pytest.raises(errors.InvalidArgumentError, match=msg):
        sess.run(rt, {p: 2, v: np.arange(5, dtype=np.float32)})


def test_elementwise_splits_mismatch(sess):
    a = tf.ragged.placeholder(tf.float32, 1, [])
    b = tf.ragged.placeholder(tf.float32, 1, [])
    with pytest.raises(errors.InvalidArgumentError, match="Condition x == y did not hold"):
        sess.run(a + b, {a: tf.ragged.constant_value([[1., 2.], [3.]]), b: tf.ragged.constant_value([[1.], [2., 3.]])})


def test_range_zero_delta(sess):
    d = tf.placeholder(tf.int32, [])
    with pytest.raises(errors.InvalidArgumentError, match="Requires delta != 0"):
        sess.run(tf.ragged.range([1, 2], 5, d), {d: 0})


def test_from_sparse_needs_right_ragged(sess):
    st = tf.SparseTensor([[0, 0], [0, 2], [2, 1]], [1., 2., 3.], [4, 3])
    with pytest.raises(errors.InvalidArgumentError, match="SparseTensor is not right-ragged"):
        sess.run(tf.RaggedTensor.from_sparse(st))


# -- graph-construction errors (TF's classes and messages) ----------------------------------------


def _v5():
    return tf.constant([1., 2, 3, 4, 5])


STATIC_ERRORS = [
    (lambda: tf.RaggedTensor.from_row_splits(_v5(), [[0, 5]]), ValueError, "Shape (1, 2) must have rank 1"),
    (lambda: tf.RaggedTensor.from_row_splits(_v5(), [0., 5.]), ValueError, "row_splits must have dtype int32 or int64"),
    (lambda: tf.RaggedTensor.from_row_lengths(_v5(), [2.5, 2.5]), ValueError,
     "row_lengths must have dtype int32 or int64"),
    (lambda: tf.RaggedTensor.from_value_rowids(_v5(), [0, 1, 1, 2, 2], nrows=2), ValueError,
     "Expected nrows >= value_rowids[-1] + 1; got nrows=2, value_rowids[-1]=2"),
    (lambda: tf.RaggedTensor.from_value_rowids(_v5(), [0, 1, 1, 2]), ValueError,
     "Shapes (5,) and (4,) are incompatible"),
    (lambda: tf.RaggedTensor.from_row_splits(_v5(), [0, 5], validate=1), TypeError,
     "Argument `validate` must have type bool. Received 1."),
    (lambda: tf.RaggedTensor(_v5(), tf.constant([0, 5], tf.int64)), ValueError,
     "RaggedTensor constructor is private; please use one of the factory methods instead "
     "(e.g., RaggedTensor.from_row_lengths())"),
    (lambda: tf.RaggedTensor.from_tensor([[1]], lengths=[1], padding=0), ValueError,
     "Specify argument `lengths` or `padding`, but not both."),
    (lambda: tf.RaggedTensor.from_tensor([[1]], ragged_rank=0), ValueError,
     "Argument `ragged_rank` must be greater than 0. Received 0."),
    (lambda: tf.ragged.constant([[1]]).merge_dims(1, 0), ValueError,
     "Expected outer_axis (1) to be less than or equal to inner_axis (0)."),
    (lambda: tf.ragged.constant([[1, 2], [3]])[:, 0], ValueError, "Cannot index into an inner ragged dimension."),
    (lambda: tf.ragged.constant([[1, [2]], [3]]), ValueError, "all scalar values must have the same nesting depth"),
    (lambda: tf.ragged.constant([[1]], ragged_rank=-1), ValueError, "Invalid ragged_rank=-1: must be nonnegative"),
    (lambda: tf.ragged.constant([[[1, 2]], [[3]]], ragged_rank=1), ValueError, "inner values have inconsistent shape"),
    (lambda: tf.ragged.boolean_mask(tf.constant([1, 2]), True), ValueError, "mask cannot be scalar."),
    (lambda: tf.RaggedTensor.from_row_splits(
        tf.RaggedTensor.from_row_splits(_v5(), tf.constant([0, 5], tf.int32)), tf.constant([0, 1], tf.int64)),
     ValueError, "Argument `row_partition` of RaggedTensor with name: partition must have same dtype as Argument "
                 "`values`. (<dtype: 'int64'> vs. <dtype: 'int32'>)."),
    (lambda: tf.convert_to_tensor(tf.ragged.constant([[1]])), TypeError, "Failed to convert elements of"),
    (lambda: bool(tf.ragged.constant([[1]])), TypeError, "RaggedTensor may not be used as a boolean."),
    (lambda: tf.ragged.map_flat_values(tf.add, tf.ragged.constant([[1, 2]]), tf.ragged.constant([[1, 2, 3]])),
     ValueError, "Input RaggedTensors' flat_values must all have the same outer-dimension size.  Got sizes: {2, 3}"),
    (lambda: tf.RaggedTensor.from_sparse(tf.SparseTensor([[0, 0, 0]], [1], [1, 1, 1])), ValueError,
     "rank(st_input) must be 2."),
    (lambda: tf.ragged.RaggedTensorValue(np.array([1]), [0, 1]), TypeError,
     "row_splits must be a 1D int32 or int64 numpy array"),
    (lambda: tf.RaggedTensorSpec(None, tf.float32), ValueError,
     "Must specify ragged_rank or a shape with a known rank."),
]


@pytest.mark.parametrize("build, error, message", STATIC_ERRORS)
def test_graph_construction_errors(build, error, message):
    with pytest.raises(error) as info:
        build()
    assert str(info.value).startswith(message)


# -- dispatch ----------------------------------------------------------------------------------


def test_dispatch_leaves_dense_calls_alone(sess):
    assert sess.run(tf.add(tf.constant([1, 2]), 3)).tolist() == [4, 5]
    assert sess.run(tf.reduce_sum(tf.constant([[1, 2], [3, 4]]), axis=1)).tolist() == [3, 7]
    assert tf.add.__doc__ == dflow.ops.math.math_ops.add.__doc__


def test_install_dispatch_undo():
    import types

    root = types.ModuleType("dflow")
    root.math = types.ModuleType("dflow.math")
    root.abs = root.math.abs = dflow.ops.math.math_ops.abs
    undo = dflow.ops.ragged.install_dispatch(root)
    assert root.abs is root.math.abs and root.abs is not dflow.ops.math.math_ops.abs
    undo()
    assert root.abs is dflow.ops.math.math_ops.abs and root.math.abs is dflow.ops.math.math_ops.abs


def test_incompatible_broadcast_fails_at_run_time(sess):
    # TF 2.15: "assertion failed: [Condition x == y did not hold element-wise:] ... [0 2 4] ... [0 2 3]"
    rt = tf.ragged.constant([[1., 2.], [3.]])
    with pytest.raises(errors.InvalidArgumentError, match="Condition x == y did not hold element-wise:"):
        sess.run(rt + tf.constant([[1., 2.], [3., 4.]]))


def test_components_round_trip(sess):
    rt = tf.ragged.constant([[[1, 2], [3]], [[4]]])
    parts = tf.nest.flatten(rt, expand_composites=True)
    assert [p.dtype for p in parts] == [tf.int64, tf.int64, tf.int32]
    again = tf.RaggedTensor._from_components(parts)
    got = sess.run({"rt": again, "rows": [again.row_lengths()]})
    assert got["rt"].to_list() == [[[1, 2], [3]], [[4]]] and got["rows"][0].tolist() == [2, 1]
