"""TF1's protocol-buffer classes of graphs: ``tf.AttrValue``, ``tf.NameAttrList``, ``tf.NodeDef``,
``tf.LogMessage``, and ``tf.GraphDef``'s nodes, edited and imported.

Expected bytes and text are TensorFlow 2.15's (``tf.compat.v1``), printed by
``SerializeToString()`` and ``str()`` of the same messages.
"""

import copy
import pickle

import numpy as np
import pytest

import dflow as tf

F32 = tf.float32.as_datatype_enum


def _shape(dims):
    attr = tf.AttrValue()
    attr.shape.dim.extend(attr.shape.Dim(size=-1 if d is None else d) for d in dims)
    return attr


ATTR_CASES = [  # (AttrValue, TF's bytes, TF's text)
    (tf.AttrValue(type=F32), b"0\x01", "type: DT_FLOAT\n"),
    (tf.AttrValue(s=b"SAME"), b"\x12\x04SAME", 's: "SAME"\n'),
    (tf.AttrValue(i=-1), b"\x18" + b"\xff" * 9 + b"\x01", "i: -1\n"),
    (tf.AttrValue(f=0.5), b"%\x00\x00\x00?", "f: 0.5\n"),
    (tf.AttrValue(b=True), b"(\x01", "b: true\n"),
    (_shape([None, 3]), b":\x11\x12\x0b\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x12\x02\x08\x03",
     "shape {\n  dim {\n    size: -1\n  }\n  dim {\n    size: 3\n  }\n}\n"),
    (tf.AttrValue(list=tf.AttrValue.ListValue(i=[1, 2, 3])), b"\n\x05\x1a\x03\x01\x02\x03",
     "list {\n  i: 1\n  i: 2\n  i: 3\n}\n"),
    (tf.AttrValue(list=tf.AttrValue.ListValue(type=[1, 3])), b"\n\x042\x02\x01\x03",
     "list {\n  type: DT_FLOAT\n  type: DT_INT32\n}\n"),
    (tf.AttrValue(list=tf.AttrValue.ListValue(s=[b"loc:@v"])), b"\n\x08\x12\x06loc:@v", 'list {\n  s: "loc:@v"\n}\n'),
    (tf.AttrValue(list=tf.AttrValue.ListValue()), b"\n\x00", "list {\n}\n"),
    (tf.AttrValue(tensor=tf.make_tensor_proto(np.array([1.0, 2.0], np.float32))),
     b'B\x12\x08\x01\x12\x04\x12\x02\x08\x02"\x08\x00\x00\x80?\x00\x00\x00@',
     'tensor {\n  dtype: DT_FLOAT\n  tensor_shape {\n    dim {\n      size: 2\n    }\n  }\n'
     '  tensor_content: "\\000\\000\\200?\\000\\000\\000@"\n}\n'),
    (tf.AttrValue(func=tf.NameAttrList(name="f", attr={"T": tf.AttrValue(type=1)})),
     b"R\x0c\n\x01f\x12\x07\n\x01T\x12\x020\x01",
     'func {\n  name: "f"\n  attr {\n    key: "T"\n    value {\n      type: DT_FLOAT\n    }\n  }\n}\n'),
]


@pytest.mark.parametrize("value, data, text", ATTR_CASES)
def test_attr_value_bytes_and_text_as_tf(value, data, text):
    assert value.SerializeToString() == data
    assert str(value) == text
    assert tf.AttrValue.FromString(data) == value
    parsed = tf.AttrValue()
    assert parsed.ParseFromString(data) == len(data) and parsed == value


def test_name_attr_list_and_node_def_bytes_as_tf():
    nal = tf.NameAttrList(name="f", attr={"T": tf.AttrValue(type=1), "N": tf.AttrValue(i=2)})
    assert nal.SerializeToString() == b"\n\x01f\x12\x07\n\x01T\x12\x020\x01\x12\x07\n\x01N\x12\x02\x18\x02"
    assert nal.attr["N"].i == 2 and sorted(nal.attr) == ["N", "T"]
    nd = tf.NodeDef(name="add", op="Add", input=["a", "b:1", "^c"], device="/cpu:0", attr={"T": tf.AttrValue(type=1)})
    assert nd.SerializeToString() == (b'\n\x03add\x12\x03Add\x1a\x01a\x1a\x03b:1\x1a\x02^c"\x06/cpu:0'
                                      b'*\x07\n\x01T\x12\x020\x01')
    assert str(nd) == ('name: "add"\nop: "Add"\ninput: "a"\ninput: "b:1"\ninput: "^c"\ndevice: "/cpu:0"\n'
                       'attr {\n  key: "T"\n  value {\n    type: DT_FLOAT\n  }\n}\n')
    assert [f.name for f, _ in nd.ListFields()] == ["name", "op", "input", "device", "attr"]  # TF: the first four
    assert tf.NodeDef.FromString(nd.SerializeToString()) == nd


def test_log_message_session_log_and_event_as_tf():
    assert [tf.LogMessage.UNKNOWN, tf.LogMessage.DEBUGGING, tf.LogMessage.INFO, tf.LogMessage.WARN,
            tf.LogMessage.ERROR, tf.LogMessage.FATAL] == [0, 10, 20, 30, 40, 50]
    log = tf.LogMessage(level=tf.LogMessage.WARN, message="hi")
    assert log.SerializeToString() == b"\x08\x1e\x12\x02hi" and str(log) == 'level: WARN\nmessage: "hi"\n'
    slog = tf.SessionLog(status=tf.SessionLog.START, msg="go")
    assert slog.SerializeToString() == b"\x08\x01\x1a\x02go" and str(slog) == 'status: START\nmsg: "go"\n'
    event = tf.Event(step=3, log_message=tf.LogMessage(level=tf.LogMessage.ERROR, message="x"))
    assert event.SerializeToString() == b"\x10\x032\x05\x08(\x12\x01x"
    assert str(event) == 'step: 3\nlog_message {\n  level: ERROR\n  message: "x"\n}\n'


def test_message_api_as_tf():
    a = tf.AttrValue()
    assert (a.HasField("type"), a.WhichOneof("value")) == (False, None)
    a.type = 1
    assert (a.HasField("type"), a.WhichOneof("value"), [f.name for f, _ in a.ListFields()]) == (True, "type", ["type"])
    a.i = 0  # a oneof member is set (and written) even at its default; it replaces the other
    assert (a.WhichOneof("value"), a.SerializeToString()) == ("i", b"\x18\x00")
    assert tf.AttrValue(i=0) != tf.AttrValue()
    b = tf.AttrValue()
    b.CopyFrom(tf.AttrValue(s=b"x"))
    b.MergeFrom(tf.AttrValue(i=4))
    assert b.WhichOneof("value") == "i" and b.i == 4
    with pytest.raises(ValueError, match='no "bogus" field'):
        tf.NodeDef(bogus=1)
    with pytest.raises(TypeError):
        tf.NodeDef().CopyFrom(tf.AttrValue())
    nd = tf.NodeDef(name="n")
    nd.attr["T"].CopyFrom(tf.AttrValue(type=F32))  # reading a missing map key creates it
    nd.input.extend(["a", "b"])
    assert list(nd.attr) == ["T"] and nd.attr["T"].type == F32 and nd.input == ["a", "b"]


def _graph():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        c = tf.constant([1.0, 2.0], name="c")
        tf.add(x, c, name="y")
    return g


def test_as_graph_def_nodes_are_node_defs_with_tf_bytes():
    gd = _graph().as_graph_def()
    x, c, y = gd.node
    assert all(isinstance(n, tf.NodeDef) for n in gd.node)
    # TF 2.15's bytes of the same Placeholder and Const nodes (Const's attrs in key order)
    assert x.SerializeToString() == (b"\n\x01x\x12\x0bPlaceholder*\x0b\n\x05dtype\x12\x020\x01*\x1c\n\x05shape"
                                     b"\x12\x13:\x11\x12\x0b\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x12\x02\x08\x02")
    assert c.SerializeToString(deterministic=True) == (
        b'\n\x01c\x12\x05Const*\x0b\n\x05dtype\x12\x020\x01*\x1d\n\x05value\x12\x14B\x12\x08\x01\x12\x04\x12\x02'
        b'\x08\x02"\x08\x00\x00\x80?\x00\x00\x00@')
    assert c.attr["dtype"].type == F32
    np.testing.assert_array_equal(tf.make_ndarray(c.attr["value"].tensor), [1.0, 2.0])
    assert (y.name, y.op, list(y.input)) == ("y", "Add", ["x", "c"])
    assert {n.name: n.op for n in gd.node} == {"x": "Placeholder", "c": "Const", "y": "Add"}
    op_node = _graph().get_operation_by_name("c").node_def
    assert isinstance(op_node, tf.NodeDef) and op_node == c


def test_hand_built_node_defs_import_in_any_order():
    gd = tf.GraphDef()
    p = tf.NodeDef(name="p", op="Placeholder", attr={"dtype": tf.AttrValue(type=F32), "shape": _shape([2])})
    k = tf.NodeDef(name="k", op="Const", attr={
        "dtype": tf.AttrValue(type=F32),
        "value": tf.AttrValue(tensor=tf.make_tensor_proto(np.array([10.0, 20.0], np.float32)))})
    s = tf.NodeDef(name="s", op="Mul", input=["p", "k"])
    s.attr["T"].CopyFrom(tf.AttrValue(type=tf.float32.as_datatype_enum))  # TF's attr, which dflow's Mul ignores
    gd.node.extend([s, p, k])
    with tf.Graph().as_default():
        out, = tf.import_graph_def(gd, return_elements=["s:0"], name="")
        assert out.shape.as_list() == [2] and out.dtype == tf.float32
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(out, {"p:0": [1.0, 2.0]}), [10.0, 40.0])  # TF: [10. 40.]
    again = tf.GraphDef.FromString(gd.SerializeToString())  # the hand-built nodes survive dflow's bytes
    assert [n.name for n in again.node] == ["s", "p", "k"] and again.node[2] == k


def test_editing_an_as_graph_def_then_importing():
    gd = _graph().as_graph_def()
    gd.node[1].attr["value"].tensor.CopyFrom(tf.make_tensor_proto(np.array([5.0, 6.0], np.float32)))
    gd.node[2].device = "/cpu:0"
    mul = gd.node.add(name="z", op="Mul", input=["y", "y"])
    mul.attr["T"].type = F32
    with tf.Graph().as_default():
        y, z = tf.import_graph_def(gd, return_elements=["y:0", "z:0"])
        assert y.op.device == "/device:CPU:0"  # as TF
        assert z.shape.as_list() == [None, 2]
        with tf.Session() as sess:
            yv, zv = sess.run([y, z], {"import/x:0": [[1.0, 2.0]]})
    np.testing.assert_array_equal(yv, [[6.0, 8.0]])
    np.testing.assert_array_equal(zv, [[36.0, 64.0]])


def test_rewiring_and_removing_nodes():
    gd = _graph().as_graph_def()
    k = tf.NodeDef(name="k", op="Const", attr={"dtype": tf.AttrValue(type=F32),
                                               "value": tf.AttrValue(tensor=tf.make_tensor_proto([3.0, 4.0]))})
    out = tf.GraphDef()
    out.node.extend([copy.deepcopy(n) for n in gd.node if n.name != "c"] + [k])
    out.node[1].input[1] = "k"
    with tf.Graph().as_default():
        y, = tf.import_graph_def(out, return_elements=["y:0"], name="")
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {"x:0": [[1.0, 1.0]]}), [[4.0, 5.0]])
    with tf.Graph().as_default(), pytest.raises(ValueError, match="'c'"):
        tf.import_graph_def(tf.GraphDef(node=[n for n in gd.node if n.name != "c"]))


def test_unedited_copies_keep_dflow_attrs_without_attr_values():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(3.0, name="v")
        tf.identity(v * 2.0, name="out")
    gd = g.as_graph_def()
    copied = tf.GraphDef()
    copied.node.extend([copy.deepcopy(n) for n in gd.node])
    first = tf.NodeDef()
    first.CopyFrom(copied.node[0])
    del copied.node[0]
    copied.node.insert(0, pickle.loads(pickle.dumps(first)))
    assert copied == gd
    with tf.Graph().as_default():
        out, init = tf.import_graph_def(copied, return_elements=["out:0", "v/Assign"], name="")
        with tf.Session() as sess:
            sess.run(init)
            assert sess.run(out) == 6.0


def test_graph_def_message_methods():
    gd = _graph().as_graph_def()
    other = tf.GraphDef()
    other.CopyFrom(gd)
    assert other == gd and other is not gd
    other.MergeFrom(tf.GraphDef(node=[tf.NodeDef(name="n", op="NoOp")]))
    assert [n.name for n in other.node] == ["x", "c", "y", "n"]
    assert [f.name for f, _ in other.ListFields()] == ["node"]
    other.Clear()
    assert other.ListFields() == [] and len(other.node) == 0
    with pytest.raises(TypeError, match="GraphDef"):
        other.CopyFrom(tf.NodeDef())


def test_function_attrs_are_not_importable():
    node = tf.NodeDef(name="fn", op="Identity", input=["x"], attr={"f": tf.AttrValue(func=tf.NameAttrList(name="g"))})
    gd = _graph().as_graph_def()
    gd.node.append(node)
    with tf.Graph().as_default(), pytest.raises(NotImplementedError, match="'f' of node 'fn'"):
        tf.import_graph_def(gd)
