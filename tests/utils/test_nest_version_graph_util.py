"""tf.nest, tf.version and tf.graph_util against TF 2.15 (/tmp/ref/utils/nest_ref.py, graph_util_ref.py)."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import dflow as tf

P = collections.namedtuple("P", "a b")


def test_nest_flatten_pack_map_as_tf():
    s = {"b": [1, (2, 3)], "a": P(4, {"y": 5, "x": 6})}
    assert tf.nest.flatten(s) == [4, 6, 5, 1, 2, 3]
    assert tf.nest.pack_sequence_as(s, list(range(10, 16))) == {"b": [13, (14, 15)], "a": P(a=10, b={"y": 12, "x": 11})}
    assert tf.nest.map_structure(lambda x, y: x + y, s, s) == {"b": [2, (4, 6)], "a": P(a=8, b={"y": 10, "x": 12})}
    assert [tf.nest.is_nested(v) for v in ([1], np.array([1]), "ab", {})] == [True, False, False, True]
    assert tf.nest.flatten(None) == [None] and tf.nest.flatten({"a": None}) == [None]
    assert tf.nest.map_structure(lambda x: x * 2, [1, (2,)]) == [2, (4,)]


def test_nest_structure_errors_as_tf():
    with pytest.raises(TypeError, match="don't have the same sequence type"):
        tf.nest.assert_same_structure([1, 2], (1, 2))  # TF: check_types defaults to True
    tf.nest.assert_same_structure([1, 2], (1, 2), check_types=False)
    with pytest.raises(ValueError, match='Substructure "type=list str=\\[2\\]" is a sequence, while substructure '
                                         '"type=int str=2" is not'):
        tf.nest.assert_same_structure([1, [2]], [1, 2], check_types=False)
    with pytest.raises(ValueError, match="don't have the same set of keys"):
        tf.nest.assert_same_structure({"a": 1}, {"b": 1})
    with pytest.raises(ValueError, match="don't have the same number of elements"):
        tf.nest.map_structure(lambda x, y: x, [1], [1, 2])
    with pytest.raises(ValueError, match="Could not pack sequence"):
        tf.nest.pack_sequence_as([1, 2], [1])
    with pytest.raises(ValueError, match="Only valid keyword arguments"):
        tf.nest.map_structure(lambda x: x, [1], bogus=True)


def test_nest_expand_composites():
    with tf.Graph().as_default():
        st = tf.SparseTensor([[0, 1]], [2.0], [2, 3])
        flat = tf.nest.flatten({"s": st}, expand_composites=True)
        assert [t.name for t in flat] == ["SparseTensor/indices:0", "SparseTensor/values:0",
                                          "SparseTensor/dense_shape:0"]
        assert tf.nest.flatten({"s": st}) == [st]
        back = tf.nest.pack_sequence_as({"s": st}, flat, expand_composites=True)
        assert isinstance(back["s"], tf.SparseTensor) and back["s"].values is st.values
        doubled = tf.nest.map_structure(lambda t: t, {"s": st}, expand_composites=True)
        assert isinstance(doubled["s"], tf.SparseTensor)


def test_version_constants():
    import dflow

    assert tf.VERSION == tf.version.VERSION == "1.15.5"
    from dflow.platform.versions import DFLOW_VERSION

    assert tf.GIT_VERSION == tf.version.GIT_VERSION == f"dflow-{DFLOW_VERSION}"
    # tf.__version__ is the TF1 API version, as TF 1.15's is: programs check it ("1.4" <= tf.__version__)
    assert dflow.__version__ == tf.VERSION
    assert tf.version.GRAPH_DEF_VERSION == tf.GRAPH_DEF_VERSION == 1
    assert tf.GRAPH_DEF_VERSION_MIN_CONSUMER <= tf.GRAPH_DEF_VERSION
    assert (tf.CXX11_ABI_FLAG, tf.CXX_VERSION, tf.MONOLITHIC_BUILD) == (0, 0, 0)
    assert isinstance(tf.version.COMPILER_VERSION, str)


@pytest.fixture
def model():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable([2.0, 3.0], name="v")
        w = tf.Variable(5.0, name="w")
        x = tf.placeholder(tf.float32, [2], name="x")
        y = tf.identity(v * x + w, name="y")
        z = tf.check_numerics(y, "bad", name="chk")
        tf.identity(z * 2.0, name="out")
        tf.add(w, 1.0, name="other")
    return g, v, w


def _run_imported(graph_def):
    with tf.Graph().as_default():
        (out,) = tf.import_graph_def(graph_def, return_elements=["out:0"], name="")
        with tf.Session() as sess:
            return sess.run(out, {"x:0": [1.0, 2.0]})


def test_extract_sub_graph(model):
    g, _, _ = model
    sub = tf.graph_util.extract_sub_graph(g.as_graph_def(), ["y"])
    # TF (resource variables): ['v', 'w', 'x', 'ReadVariableOp', 'mul', 'add/ReadVariableOp', 'add', 'y']
    assert [n.name for n in sub.node] == ["v", "v/read", "w", "w/read", "x", "mul", "add", "y"]
    with pytest.raises(TypeError, match="dest_nodes must be an iterable of strings, but got type <class 'str'>"):
        tf.graph_util.extract_sub_graph(g.as_graph_def(), "y")
    with pytest.raises(AssertionError, match="nope is not in graph"):
        tf.graph_util.extract_sub_graph(g.as_graph_def(), ["nope"])
    with pytest.raises(TypeError, match="graph_def must be a tf.GraphDef"):
        tf.graph_util.extract_sub_graph([], ["y"])


def test_convert_variables_to_constants_and_remove_training_nodes(model):
    g, v, w = model
    with tf.Session(graph=g) as sess:
        sess.run(tf.variables_initializer([v, w]))
        frozen = tf.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["out"])
        kept_w = tf.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["out"],
                                                              variable_names_blacklist=["w"])
    assert [(n.name, n.op) for n in frozen.node] == [
        ("v", "Const"), ("v/read", "Identity"), ("w", "Const"), ("w/read", "Identity"), ("x", "Placeholder"),
        ("mul", "Mul"), ("add", "Add"), ("y", "Identity"), ("chk", "CheckNumerics"), ("mul_1/y", "Const"),
        ("mul_1", "Mul"), ("out", "Identity")]
    assert [n.op for n in kept_w.node][:3] == ["Const", "Identity", "VariableV2"]
    np.testing.assert_allclose(_run_imported(frozen), [14.0, 22.0])  # TF: [14. 22.]
    stripped = tf.graph_util.remove_training_nodes(frozen, protected_nodes=["out"])
    # TF also drops y, v/read, w/read; it drops chk's consumer edge too (mul_1 keeps only 'mul_1/y'): dflow rewires it
    assert [(n.name, n.op, n.input) for n in stripped.node] == [
        ("v", "Const", []), ("w", "Const", []), ("x", "Placeholder", []), ("mul", "Mul", ["v", "x"]),
        ("add", "Add", ["mul", "w"]), ("mul_1/y", "Const", []), ("mul_1", "Mul", ["add", "mul_1/y"]),
        ("out", "Identity", ["mul_1"])]
    np.testing.assert_allclose(_run_imported(stripped), [14.0, 22.0])


def test_freezing_a_graph_that_still_assigns_is_an_error():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1.0, name="v")
        with tf.control_dependencies([tf.assign_add(v, 1.0)]):
            tf.identity(v, name="out")
    with tf.Session(graph=g) as sess:
        sess.run(v.initializer)
        with pytest.raises(ValueError, match="op 'AssignAdd' \\(AssignAdd\\) uses variable 'v'"):
            tf.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["out"])


def test_must_run_on_cpu_and_shape_from_name(model):
    g, v, _ = model
    with g.as_default():
        c32 = tf.constant(1, name="c32")
        cf = tf.constant(1.0, name="cf")
        cast = tf.cast(c32, tf.float32, name="cast")
    must = tf.graph_util.must_run_on_cpu
    # TF: True False True, and for a ref variable pinned True / unpinned False
    assert [must(c32.op), must(cf.op), must(cast.op), must(v.op, True), must(v.op)] == [True, False, True, True, False]
    nodes = {n.name: n for n in g.as_graph_def().node}
    assert [must(nodes["c32"]), must(nodes["cf"]), must(c32.op.node_def)] == [True, False, True]
    assert tf.graph_util.tensor_shape_from_node_def_name(g, "y").as_list() == [2]
    assert tf.graph_util.tensor_shape_from_node_def_name(g, "x:0").as_list() == [2]
