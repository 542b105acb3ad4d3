"""Session.run: fetch structures, feeds, pruning, errors, tracing, callables."""

import collections
import threading

import numpy as np
import pytest

import dflow as tf
from dflow.framework.op_registry import apply_op, register

# A kernel that counts its runs lets tests see exactly which ops ran.
RUNS = collections.Counter()


def _count_kernel(x, tag):
    RUNS[tag] += 1
    return x


register("TestCount", infer=lambda op: [(op.inputs[0].dtype, op.inputs[0].shape)], kernel=_count_kernel,
         stateful=True)


def counted(x, tag):
    return apply_op("TestCount", [x], {"tag": tag}, name=tag).outputs[0]


def _boom(x):
    raise ValueError("kaboom")


register("TestBoom", infer=lambda op: [(op.inputs[0].dtype, op.inputs[0].shape)], kernel=_boom, stateful=True)


@pytest.fixture(autouse=True)
def _reset_counts():
    RUNS.clear()


def test_four_op_constant_graph(sess):
    a, b = tf.constant(2), tf.constant(3)
    assert sess.run(tf.pow(tf.add(a, b), tf.multiply(a, b))) == 15625


def test_fetch_structures_round_trip(sess):
    a = tf.constant(1.0, name="a")
    b = tf.constant([2, 3], name="b")
    Pair = collections.namedtuple("Pair", "x y")
    out = sess.run({"a": a, "nested": [b, (a, Pair(a, b))], "od": collections.OrderedDict(z=a)})
    assert out["a"] == 1.0 and isinstance(out["a"], np.float32)
    assert out["nested"][0].tolist() == [2, 3]
    assert isinstance(out["nested"][1], tuple)
    assert isinstance(out["nested"][1][1], Pair) and out["nested"][1][1].x == 1.0
    assert isinstance(out["od"], collections.OrderedDict)


def test_fetch_by_name_and_operation_gives_none(sess):
    a = tf.constant(4.0, name="a")
    noop = tf.no_op(name="nothing")
    assert sess.run("a:0") == 4.0
    assert sess.run([noop, "nothing", a]) == [None, None, 4.0]


def test_duplicate_fetches_run_once(sess):
    c = counted(tf.constant(1.0), "dup")
    assert sess.run([c, c, {"k": c}]) == [1.0, 1.0, {"k": 1.0}]
    assert RUNS["dup"] == 1


def test_only_needed_ops_run(sess):
    x = tf.constant(1.0)
    used = counted(x, "used")
    counted(x, "unused")
    sess.run(used)
    assert RUNS == {"used": 1}


def test_control_dependencies_run_first(sess):
    x = tf.constant(1.0)
    dep = counted(x, "dep")
    with tf.control_dependencies([dep]):
        y = tf.identity(x)
    sess.run(y)
    assert RUNS == {"dep": 1}


def test_feeding_an_intermediate_cuts_the_graph(sess):
    x = tf.constant(1.0)
    mid = counted(x, "mid") * 10.0
    out = mid + 1.0
    assert sess.run(out, {mid: 5.0}) == 6.0
    assert RUNS["mid"] == 0
    assert sess.run(out) == 11.0 and RUNS["mid"] == 1


def test_feeds_by_tensor_and_name_with_conversion(sess):
    p = tf.placeholder(tf.float32, [None, 2], name="p")
    q = tf.placeholder(tf.int32, name="q")
    assert sess.run(p * 2.0, {"p:0": [[1, 2]]}).tolist() == [[2.0, 4.0]]
    out = sess.run(q, {q: 7})
    assert out == 7 and isinstance(out, np.int32)
    fed = sess.run(p, {p: np.ones((3, 2), np.float64)})
    assert fed.dtype == np.float32 and fed.shape == (3, 2)


def test_fetching_a_fed_tensor_returns_the_feed(sess):
    a = tf.constant(1.0)
    b = tf.identity(a)
    assert sess.run(b, {b: 9.0}) == 9.0


def test_placeholder_with_default(sess):
    d = tf.placeholder_with_default(tf.constant([1.0, 2.0]), shape=[None])
    assert sess.run(d).tolist() == [1.0, 2.0]
    assert sess.run(d, {d: [5.0, 6.0, 7.0]}).tolist() == [5.0, 6.0, 7.0]


def test_missing_feed_is_invalid_argument_naming_placeholder(sess):
    p = tf.placeholder(tf.float32, [None, 3], name="inputs")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"You must feed a value for placeholder tensor 'inputs' with dtype float32 and "
                             r"shape \[\?,3\]") as info:
        sess.run(p * 2.0)
    assert info.value.op is p.op
    assert sess.run(tf.constant(1.0)) == 1.0  # still usable


def test_wrong_feed_shape_and_uncastable_value(sess):
    p = tf.placeholder(tf.float32, [2], name="p")
    with pytest.raises(ValueError, match=r"Cannot feed value of shape \(3,\) for Tensor 'p:0', which has shape "
                                         r"'\(2,\)'"):
        sess.run(p, {p: [1, 2, 3]})
    with pytest.raises(ValueError, match="could not convert string to float"):
        sess.run(p, {p: "abc"})
    with pytest.raises(TypeError, match="cannot be a tf.Tensor"):
        sess.run(p, {p: tf.constant([1.0, 2.0])})


def test_bad_fetches(sess):
    with pytest.raises(ValueError, match="cannot be interpreted as a Tensor"):
        sess.run("nope:0")
    with pytest.raises(TypeError, match="invalid type"):
        sess.run(None)
    with pytest.raises(TypeError, match="invalid type"):
        sess.run([1.5])
    g2 = tf.Graph()
    with g2.as_default():
        q = tf.constant(2.0)
    with pytest.raises(ValueError, match="is not an element of this graph"):
        sess.run(q)


def test_bad_feed_keys(sess):
    a = tf.constant(1.0)
    with pytest.raises(TypeError, match="Cannot interpret feed_dict key as Tensor"):
        sess.run(a, {"zz:0": 1.0})
    tf.get_default_graph().prevent_feeding(a)
    with pytest.raises(ValueError, match="may not be fed"):
        sess.run(a, {a: 1.0})


def test_cycle_through_control_dependencies_is_an_error_and_session_survives(sess):
    a = tf.identity(tf.constant(1.0), name="ca")
    b = tf.identity(a, name="cb")
    a.op._add_control_input(b.op)
    with pytest.raises(tf.errors.InvalidArgumentError, match="cycle"):
        sess.run(b)
    assert sess.run(tf.constant(2.0)) == 2.0


def test_kernel_failure_names_op_type_device_and_creation_site(sess):
    x = tf.constant(1.0)
    bad = apply_op("TestBoom", [x], name="exploder").outputs[0]
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(bad)
    msg = str(info.value)
    assert "ValueError: kaboom" in msg and "exploder" in msg and "TestBoom" in msg
    assert "device:CPU:0" in msg and __file__ in msg
    assert info.value.op is bad.op
    assert isinstance(info.value.__cause__, ValueError)


def test_closed_session_raises_runtime_error():
    s = tf.Session()
    s.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        s.run(tf.constant(1.0))


def test_sessions_as_context_managers_and_defaults():
    c = tf.constant(3.0)
    assert tf.get_default_session() is None
    with tf.Session() as s:
        assert tf.get_default_session() is s
        assert c.eval() == 3.0
        tf.no_op().run()
    assert tf.get_default_session() is None
    s2 = tf.Session()
    with s2.as_default():
        assert c.eval() == 3.0
    assert c.eval(session=s2) == 3.0
    s2.close()
    with pytest.raises(ValueError, match="No default session"):
        c.eval()


def test_session_on_explicit_graph():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(5)
    with tf.Session(graph=g) as s:
        assert s.graph is g
        assert s.run(c) == 5
        assert tf.get_default_graph() is g


def test_interactive_session_installs_itself():
    s = tf.InteractiveSession()
    try:
        assert tf.get_default_session() is s
        assert tf.constant(2.0).eval() == 2.0
    finally:
        s.close()
    assert tf.get_default_session() is None


def test_make_callable(sess):
    p = tf.placeholder(tf.float32, [None])
    q = tf.placeholder(tf.float32, [None])
    f = sess.make_callable([p + q, p * q], feed_list=[p, q])
    s, m = f([1.0, 2.0], [3.0, 4.0])
    assert s.tolist() == [4.0, 6.0] and m.tolist() == [3.0, 8.0]
    with pytest.raises(TypeError, match="Expected 2 feed values"):
        f([1.0])
    single = sess.make_callable(p * 2.0, [p])
    assert single([1.0]).tolist() == [2.0]


def test_returned_constants_are_copies(sess):
    c = tf.constant([1.0, 2.0])
    v = sess.run(c)
    v[0] = 100.0
    assert sess.run(c).tolist() == [1.0, 2.0]


def test_full_trace_lists_exactly_the_ops_that_ran(sess):
    x = tf.placeholder(tf.float32, name="x")
    y = tf.add(x, 1.0, name="y")
    z = tf.multiply(y, 2.0, name="z")
    tf.negative(x, name="unused")
    opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    md = tf.RunMetadata()
    assert sess.run(z, {x: 1.0}, options=opts, run_metadata=md) == 4.0
    (dev,) = md.step_stats.dev_stats
    assert dev.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    names = sorted(n.node_name for n in dev.node_stats)
    ran = sorted(op.name for op in tf.get_default_graph().get_operations() if op.name not in ("x", "unused"))
    assert names == ran and {"y", "z"} <= set(names)
    for n in dev.node_stats:
        assert n.all_start_micros > 0 and n.op_end_rel_micros >= 0


def test_log_device_placement_prints(capsys):
    c = tf.constant(1.0, name="logged")
    with tf.Session(config=tf.ConfigProto(log_device_placement=True)) as s:
        s.run(c)
    assert "logged: (Const): /job:localhost/replica:0/task:0/device:CPU:0" in capsys.readouterr().err


def test_unplaceable_device_errors_unless_soft_placement():
    with tf.device("/job:ps/task:0"):
        c = tf.constant(1.0, name="on_ps")
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError,
                                          match="Cannot assign a device for operation on_ps"):
        s.run(c)
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as s:
        assert s.run(c) == 1.0


def test_config_and_run_options_reject_unknown_fields():
    with pytest.raises(ValueError, match='has no "bogus" field'):
        tf.ConfigProto(bogus=1)
    cfg = tf.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=2,
                         operation_timeout_in_ms=1000, gpu_options=tf.GPUOptions(allow_growth=True))
    assert cfg.gpu_options.allow_growth
    assert tf.RunOptions(timeout_in_ms=5).timeout_in_ms == 5


def test_plans_are_cached_per_signature(sess):
    p = tf.placeholder(tf.float32)
    y = p + 1.0
    for v in range(3):
        assert sess.run(y, {p: v}) == v + 1
    assert len(sess._plans) == 1
    sess.run(y, {y: 3.0})
    assert len(sess._plans) == 2


def test_op_level_lowering_matches_partition_lowering():
    import dask

    x = tf.placeholder(tf.float32, [3])
    y = tf.reduce_sum(x * 2.0 + 1.0)
    with tf.Session() as s:
        want = s.run(y, {x: [1.0, 2.0, 3.0]})
    with dask.config.set({"dflow.task-granularity": "op"}), tf.Session() as s:
        assert s.run(y, {x: [1.0, 2.0, 3.0]}) == want == 15.0


def test_two_sessions_on_one_graph_are_independent_and_thread_safe():
    p = tf.placeholder(tf.float32)
    y = p * 2.0
    results = []
    with tf.Session() as s:
        def worker(v):
            results.append((v, s.run(y, {p: v})))

        threads = [threading.Thread(target=worker, args=(float(i),)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert sorted(results) == [(float(i), 2.0 * i) for i in range(8)]
