"""TF1's persistent session tensors: tf.get_session_handle, tf.get_session_tensor, tf.delete_session_tensor.

Expected values, handle strings, op names and error classes are those TF 2.15's tf.compat.v1 gives
(graph mode) for the same code.
"""

import gc
import weakref

import numpy as np
import pytest

import dflow as tf
from dflow.ops.state.session_ops import STORE_KEY, TensorHandle

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def _stored(sess) -> int:
    """How many tensors ``sess`` keeps."""
    return len(sess._runtime.resources.resource(STORE_KEY))


def test_the_docs_example_keeps_a_value_and_feeds_it_back():
    a, b = tf.constant(10.0), tf.constant(5.0)
    c = tf.multiply(a, b)
    hop = tf.get_session_handle(c)
    assert hop.op.type == "GetSessionHandle" and hop.op.name == "GetSessionHandle"
    assert hop.dtype == tf.string and hop.shape.as_list() == []
    with tf.Session() as sess:
        h = sess.run(hop)
        assert isinstance(h, TensorHandle)
        assert h.handle == f"GetSessionHandle;0;{CPU}" and str(h) == h.handle
        p, x = tf.get_session_tensor(h.handle, tf.float32)
        assert p.op.type == "Placeholder" and p.dtype == tf.string and p.shape.ndims is None
        assert x.op.type == "GetSessionTensor" and x.op.name == "GetSessionTensor" and x.dtype == tf.float32
        assert x.shape.ndims is None and p.device == CPU and x.device == CPU
        y = tf.multiply(x, 10)
        assert sess.run(y, feed_dict={p: h.handle}) == 500.0
        assert sess.run(y, feed_dict={p: h.handle.encode()}) == 500.0  # bytes are handles too
        assert sess.run(y, feed_dict={p: h.handle}) == 500.0  # still there in a later run


def test_an_int_chain_stores_a_result_of_a_stored_value():
    c = tf.constant(10) * tf.constant(5)
    with tf.Session() as sess:
        h = sess.run(tf.get_session_handle(c))
        f, x = tf.get_session_tensor(h.handle, tf.int32)
        y = x * 10
        assert sess.run(y, {f: h.handle}) == 500
        h2 = sess.run(tf.get_session_handle(y), {f: h.handle})
        assert h2.handle == f"GetSessionHandle_1;1;{CPU}"
        f3, x3 = tf.get_session_tensor(h2, tf.int32)  # a TensorHandle names the device as well as its string
        assert sess.run(x3 * 2, {f3: h2.handle}) == 1000


def test_dtypes_names_and_ids_count_per_session():
    xi = tf.constant([1, 2, 3], tf.int32)
    xs = tf.constant(["ab", "c"])
    xf = tf.placeholder(tf.float32, [None])
    hi = tf.get_session_handle(xi, name="hi")
    hs = tf.get_session_handle(xs)
    hf = tf.get_session_handle(xf * 2.0)
    assert (hi.op.name, hs.op.name, hf.op.name) == ("hi", "GetSessionHandle", "GetSessionHandle_1")
    assert hi.op.get_attr("T") == tf.int32 and hs.op.get_attr("T") == tf.string
    with tf.name_scope("sc"):
        assert tf.get_session_handle(xi).op.name == "sc/GetSessionHandle"
    with tf.Session() as sess:
        handles = sess.run([hi, hs, hf], {xf: [1.5, 2.5]})
        assert [h._dtype for h in handles] == [tf.int32, tf.string, tf.float32]
        assert sorted(int(h.handle.split(";")[1]) for h in handles) == [0, 1, 2]  # run order decides which is which
        assert [h.handle.split(";")[::2] for h in handles] == [[n, CPU] for n in ("hi", "GetSessionHandle",
                                                                                  "GetSessionHandle_1")]
        p, t = tf.get_session_tensor(handles[0].handle, tf.int32, name="gst")
        ps, ts = tf.get_session_tensor(handles[1], tf.string)
        pf, tf_ = tf.get_session_tensor(handles[2].handle, "float32")
        assert t.op.name == "gst"
        vi, vs, vf = sess.run([t, ts, tf_], {p: handles[0].handle, ps: handles[1].handle, pf: handles[2].handle})
        assert vi.dtype == np.int32 and vi.tolist() == [1, 2, 3]
        assert vs.dtype == object and vs.tolist() == [b"ab", b"c"]
        assert vf.dtype == np.float32 and vf.tolist() == [3.0, 5.0]
        np.testing.assert_array_equal(handles[2].eval(), np.array([3.0, 5.0], np.float32))
        assert handles[1].eval().tolist() == [b"ab", b"c"]
        assert handles[0].eval().dtype == np.int32


def test_two_handles_of_one_tensor_and_a_fetch_twice():
    c = tf.constant(10) * tf.constant(5)
    h_op = tf.get_session_handle(c)
    with tf.Session() as sess:
        h1, h2 = sess.run([h_op, h_op])
        assert h1 is h2 and h1.handle == f"GetSessionHandle;0;{CPU}"
        k = sess.run([tf.get_session_handle(c, name="k1"), tf.get_session_handle(c, name="k2")])
        assert [h.handle.split(";")[::2] for h in k] == [["k1", CPU], ["k2", CPU]]
        assert sorted(h.handle.split(";")[1] for h in k) == ["1", "2"]  # run order decides which is which
        assert [h.eval() for h in k] == [50, 50]


def test_the_stored_value_is_a_copy_that_no_caller_can_change():
    x = tf.placeholder(tf.float32, [None])
    h_op = tf.get_session_handle(x)
    with tf.Session() as sess:
        arr = np.array([1.0, 2.0], np.float32)
        h = sess.run(h_op, {x: arr})
        arr[0] = 99.0  # the fed array changes after the run
        r = h.eval()
        assert r.tolist() == [1.0, 2.0]
        r[0] = 7.0  # TF returns a writable array; writing into it leaves the stored tensor as it was
        assert h.eval().tolist() == [1.0, 2.0]


def test_make_callable_fetches_a_tensor_handle():
    x = tf.placeholder(tf.float32, [None])
    h_op = tf.get_session_handle(x)
    with tf.Session() as sess:
        h = sess.make_callable(h_op, [x])([3.0])
        assert isinstance(h, TensorHandle) and h.eval().tolist() == [3.0]


def test_a_tensor_handle_fed_directly_feeds_its_value():
    a, b = tf.constant(10.0), tf.constant(5.0)
    c = tf.multiply(a, b)
    d = tf.identity(c)
    xi = tf.placeholder(tf.int32, [3])
    with tf.Session() as sess:
        h = sess.run(tf.get_session_handle(c))
        p, x = tf.get_session_tensor(h.handle, tf.float32)
        assert sess.run([c, x * 10], feed_dict={c: h, p: h.handle}) == [50.0, 500.0]
        assert sess.run(d + 1, feed_dict={c: h}) == 51.0
        c_val, d_val = sess.run([c, d], feed_dict={c: h, d: 60.0})
        assert (c_val, d_val) == (50.0, 60.0)
        # TF does not check the shape of a directly fed handle
        h2 = sess.run(tf.get_session_handle(tf.constant([1, 2])))
        assert sess.run(xi + 1, {xi: h2}).tolist() == [2, 3]
        with pytest.raises(tf.errors.InvalidArgumentError, match="expects float32 but int32 is provided"):
            sess.run(c + 1, {c: h2})
        # A float handle fed for the string placeholder: TF's "Expects arg[0] to be string but float is provided"
        with pytest.raises(tf.errors.InvalidArgumentError, match="expects string but float32"):
            sess.run(x, {p: h})


def test_deleting_frees_the_tensor_and_a_deleted_handle_is_an_error():
    c = tf.constant([1, 2, 3])
    h_op = tf.get_session_handle(c)
    with tf.Session() as sess:
        h = sess.run(h_op)
        p, x = tf.get_session_tensor(h.handle, tf.int32, name="gst")
        holder, deleter = tf.delete_session_tensor(h.handle, name="dd")
        assert deleter.type == "DeleteSessionTensor" and deleter.name == "dd" and deleter.outputs == []
        assert holder.dtype == tf.string and holder.device == CPU and deleter.device == CPU
        assert _stored(sess) == 1
        assert sess.run(deleter, {holder: h.handle}) is None
        assert _stored(sess) == 0
        msg = f"The tensor with handle '{h.handle}' is not in the session store"
        with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
            sess.run(x, {p: h.handle})
        with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
            h.eval()
        with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
            sess.run(c + 1, {c: h})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=f"Failed to delete a tensor with handle '{h.handle}' in the session store"):
            sess.run(deleter, {holder: h.handle})
        with pytest.raises(tf.errors.InvalidArgumentError, match="not in the session store"):
            sess.run(x, {p: "garbage"})


def test_tensor_handle_delete_and_raw_handles():
    c = tf.constant(2.0)
    h_op = tf.get_session_handle(c)
    with tf.Session() as sess:
        h = sess.run(h_op)
        h.delete()
        assert _stored(sess) == 0
        for method in (h.delete, h.eval):
            with pytest.raises(TypeError, match=f"Persistent tensor {h.handle} may have already been deleted."):
                method()
        r = sess.run(h_op)
        raw = r.get_raw_handle()
        assert raw == r.handle and not r._auto_gc_enabled
        del r
        gc.collect()
        p, x = tf.get_session_tensor(raw, tf.float32)
        assert sess.run(x, {p: raw}) == 2.0  # the caller manages a raw handle's tensor


def test_dead_handles_are_deleted_ten_at_a_time():
    one = tf.constant(1.0)
    with tf.Session() as sess:
        one_h = sess.run(tf.get_session_handle(one))
        x_h = sess.run(tf.get_session_handle(one))
        a1, t1 = tf.get_session_tensor(one_h.handle, tf.float32)
        a2, t2 = tf.get_session_tensor(x_h.handle, tf.float32)
        out = tf.get_session_handle(t1 + t2)
        for _ in range(20):
            x_h = sess.run(out, {a1: one_h.handle, a2: x_h.handle})
        assert x_h.handle == f"GetSessionHandle_2;21;{CPU}" and x_h.eval() == 21.0
        assert _stored(sess) == 2  # 20 dead handles: two batches of deletions
        for _ in range(9):
            x_h = sess.run(out, {a1: one_h.handle, a2: x_h.handle})
        assert _stored(sess) == 11 and x_h.eval() == 30.0


def test_bad_arguments_raise_tf_errors():
    with pytest.raises(TypeError, match="`data` must be of type Tensor."):
        tf.get_session_handle(3.0)
    with pytest.raises(TypeError, match="`data` must be of type Tensor."):
        tf.get_session_handle(tf.Variable(1.0))
    with pytest.raises(ValueError, match="abc"):
        tf.get_session_tensor("abc", tf.float32)
    with pytest.raises(ValueError, match="abc"):
        tf.delete_session_tensor("abc")
    p, x = tf.get_session_tensor("", tf.float32)  # TF accepts a handle that names no device
    assert p.device == "" and x.dtype == tf.float32


def test_reading_a_handle_with_another_dtype_is_an_internal_error():
    xs = tf.constant(["ab"])
    with tf.Session() as sess:
        h = sess.run(tf.get_session_handle(xs))
        p, t = tf.get_session_tensor(h.handle, tf.int32, name="gst")
        with pytest.raises(tf.errors.InternalError,
                           match=r"Output 0 of type string does not match declared output type int32 for node "
                                 r"\{\{node gst\}\}"):
            sess.run(t, {p: h.handle})


def test_handles_are_per_session_and_closing_frees_them():
    xf = tf.placeholder(tf.float32, [None])
    hi = tf.get_session_handle(tf.constant(7), name="hi")
    hf = tf.get_session_handle(xf * 2.0)
    s1, s2 = tf.Session(), tf.Session()
    try:
        h1f = s1.run(hf, {xf: [1.5, 2.5]})
        h1i = s1.run(hi)
        assert (h1f.handle, h1i.handle) == (f"GetSessionHandle;0;{CPU}", f"hi;1;{CPU}")
        p, t = tf.get_session_tensor(h1i.handle, tf.int32)
        pf, tf_ = tf.get_session_tensor(h1f.handle, tf.float32)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=f"The tensor with handle '{h1i.handle}' is not in the session store"):
            s2.run(t, {p: h1i.handle})
        with pytest.raises(tf.errors.InvalidArgumentError, match="not in the session store"):
            s2.run(xf * 1.0, {xf: h1f})
        # As TF: a handle string names a tensor of the session it is fed to, which may hold its own under it
        h2f = s2.run(hf, {xf: [7.0]})
        assert h2f.handle == h1f.handle
        assert s2.run(tf_, {pf: h1f.handle}).tolist() == [14.0]
        assert s2.run(xf * 1.0, {xf: h1f}).tolist() == [14.0]
        assert s1.run(tf_, {pf: h1f.handle}).tolist() == [3.0, 5.0]
        assert _stored(s1) == 2 and _stored(s2) == 1
        store = weakref.ref(s1._runtime.resources.resource(STORE_KEY))
        s1.close()
        gc.collect()
        assert store() is None  # the session's tensors went with it
        with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
            h1f.eval()
        assert s2.run(tf_, {pf: h2f.handle}).tolist() == [14.0]
        del h1i, h1f  # dead handles of a closed session are let go quietly
        gc.collect()
    finally:
        s1.close()
        s2.close()


def test_gradients_do_not_flow_through_session_handles():
    x = tf.constant(2.0)
    h = tf.get_session_handle(x * x)
    p, t = tf.get_session_tensor("", tf.float32)
    assert tf.gradients(t * 3.0, p) == [None]
    assert h.op.type == "GetSessionHandle"


@pytest.fixture(scope="module")
def cluster():
    import dflow.cluster  # noqa: F401 - registers tf.LocalCluster

    with tf.LocalCluster(ps=1, workers=2, dashboard_address=None) as c:
        yield c
        tf.Session.reset(c.target)


@pytest.mark.slow
@pytest.mark.cluster
def test_on_a_cluster_the_worker_of_the_handles_device_keeps_the_tensor(cluster):
    worker1 = "/job:worker/replica:0/task:1/device:CPU:0"
    with tf.device("/job:worker/task:1"):
        hop = tf.get_session_handle(tf.constant([1.0, 2.0]) * 3.0)
    x = tf.placeholder(tf.float32, [None])
    with tf.Session(cluster.target) as sess:
        h = sess.run(hop)
        assert isinstance(h, TensorHandle) and h.handle.split(";")[::2] == ["GetSessionHandle", worker1]
        p, t = tf.get_session_tensor(h.handle, tf.float32)
        assert p.device == t.device == worker1
        assert sess.run(t * 2.0, {p: h.handle}).tolist() == [6.0, 12.0]  # a later run of the session reads it
        assert h.eval().tolist() == [3.0, 6.0]
        assert sess.run(x + 1.0, {x: h}).tolist() == [4.0, 7.0]  # a directly fed handle
        handles = [sess.run(hop) for _ in range(11)]
        names = [q.handle for q in handles]
        while handles:  # 11 handles die in order: the first 10 are deleted by a run of deleters on the worker
            handles.pop(0)
        with pytest.raises(tf.errors.InvalidArgumentError, match=f"'{names[0]}' is not in the session store"):
            sess.run(t, {p: names[0]})
        assert sess.run(t, {p: names[10]}).tolist() == [3.0, 6.0]
        holder, deleter = tf.delete_session_tensor(h.handle)
        sess.run(deleter, {holder: h.handle})
        with pytest.raises(tf.errors.InvalidArgumentError, match="not in the session store"):
            sess.run(t, {p: h.handle})
