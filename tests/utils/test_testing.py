"""tf.test against TF 2.15's compat.v1 (/tmp/ref/utils/test_ref.py): TestCase, the gradient checker, helpers."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dflow as tf


class GradientCheckerTest(tf.test.TestCase):
    def test_default_init_values_follow_the_test_seed(self):
        with self.cached_session():
            x = tf.placeholder(tf.float64, [2, 3])
            w = tf.constant(np.arange(6.0).reshape(3, 2) / 3.0, dtype=tf.float64)
            y = tf.tanh(tf.matmul(x, w))
            jt, jn = tf.test.compute_gradient(x, [2, 3], y, [2, 2])
        # TF: x_data = np.random.random_sample after setUp's np.random.seed(87654321)
        tf_jt = np.array([[0., 0.03323567933787045, 0., 0.], [0.17060414034890825, 0.09970703801361136, 0., 0.],
                          [0.3412082806978165, 0.16617839668935228, 0., 0.], [0., 0., 0., 0.21759939387289143],
                          [0., 0., 0.5446518296735805, 0.6527981816186743],
                          [0., 0., 1.089303659347161, 1.0879969693644573]])
        tf_jn = np.array([[0., 0.03323568143159816, 0., 0.], [0.1706041714943929, 0.09970709454348858, 0., 0.],
                          [0.34120852986196937, 0.16617865840173884, 0., 0.], [0., 0., 0., 0.21759939420823438],
                          [0., 0., 0.5446517932881922, 0.6527981906719882],
                          [0., 0., 1.0893033682637387, 1.0879970112772086]])
        self.assertAllClose(jt, tf_jt, rtol=1e-12, atol=1e-14)
        self.assertAllClose(jn, tf_jn, rtol=1e-9, atol=1e-12)

    def test_error_list_and_complex(self):
        with self.cached_session():
            x = tf.placeholder(tf.float64, [2, 3])
            w = tf.constant(np.arange(6.0).reshape(3, 2) / 3.0, dtype=tf.float64)
            y = tf.tanh(tf.matmul(x, w))
            err = tf.test.compute_gradient_error(x, [2, 3], y, [2, 2], x_init_value=np.ones((2, 3)))
            self.assertNear(err, 9.981395207581123e-08, 1e-11)  # TF
            a = tf.constant([1.0, 2.0], dtype=tf.float64)
            b = tf.constant([3.0], dtype=tf.float64)
            res = tf.test.compute_gradient([a, b], [[2], [1]], a * b, [2],
                                           x_init_value=[np.array([1.0, 2.0]), np.array([3.0])])
            self.assertLen(res, 2)
            self.assertAllClose(res[0][0], [[3., 0.], [0., 3.]])
            self.assertAllClose(res[0][1], [[2.9999999999998916, 0.], [0., 3.0000000000001137]], rtol=1e-12)
            self.assertAllClose(res[1][0], [[1., 2.]])
            self.assertAllClose(res[1][1], [[0.9999999999998899, 1.9999999999997797]], rtol=1e-12)
            c = tf.constant([1 + 2j], dtype=tf.complex128)
            jt, jn = tf.test.compute_gradient(c, [1], c * c, [1], x_init_value=np.array([1 + 2j]))
            self.assertAllClose(jt, [[2., 4.], [-4., 2.]])
            self.assertAllClose(jn, [[2.0000000000000018, 3.9999999999997815], [-3.9999999999995595,
                                                                                 1.9999999999997797]], rtol=1e-10)

    def test_needs_a_default_session_and_float_dtypes(self):
        x = tf.constant([1, 2])
        with self.assertRaisesRegex(ValueError, "default session"):
            tf.test.compute_gradient(x, [2], x * 2, [2])
        with self.session():
            with self.assertRaisesRegex(TypeError, "int32"):
                tf.test.compute_gradient(x, [2], x * 2, [2])


class TestCaseAssertionsTest(tf.test.TestCase):
    def _message(self, fn, *args):
        with self.assertRaises((AssertionError, ValueError)) as cm:
            fn(*args)
        return str(cm.exception)

    def test_failure_messages_match_tf(self):
        m = self._message(self.assertAllClose, [1.0, 2.0], [1.0, 2.1])
        self.assertIn("Mismatched value: a is different from b. \nnot close where = (array([1]),)\n"
                      "not close lhs = [2.]\nnot close rhs = [2.1]\nnot close dif = [0.1", m)  # numpy prints the rest
        self.assertIn("]\nnot close tol = [3.1e-06]\ndtype = float64, shape = (2,)", m)
        m = self._message(self.assertAllEqual, [1, 2], [1, 3])
        self.assertIn("not equal where = (array([1]),)\nnot equal lhs = array([2])\nnot equal rhs = array([3])", m)
        self.assertEqual(self._message(self.assertAllInRange, np.array([1.0, 5.0]), 0, 4),
                         "1 of the 2 element(s) are outside the range [0, 4]. Subscript(s) and value(s) of the "
                         "offending elements:\n  [1] : 5.0")
        self.assertEqual(self._message(self.assertAllInRange, np.array([1.0, 4.0]), 1, 4, True, False),
                         "1 of the 2 element(s) are outside the range (1, 4]. Subscript(s) and value(s) of the "
                         "offending elements:\n  [0] : 1.0")
        self.assertEqual(self._message(self.assertAllInSet, np.array([1, 2, 7]), {1, 2}),
                         "1 unique element(s) are not in the set {1, 2}: [7]")
        self.assertIn("mismatched keys: a has keys dict_keys(['a']), but b has keys dict_keys(['a', 'b']).",
                      self._message(self.assertAllClose, {"a": 1.0}, {"a": 1.0, "b": 2.0}))
        self.assertIn("Shape mismatch: expected (2,), got (3,). Contents: array([1, 2, 3]). \n.",
                      self._message(self.assertAllEqual, [1, 2], [1, 2, 3]))
        self.assertIn("1.000000 != 1.200000 +/- 0.100000", self._message(self.assertNear, 1.0, 1.2, 0.1))
        self.assertIn("1 not greater than 1", self._message(self.assertAllGreater, [1, 2], 1))
        self.assertIn("2 of the 2 element(s) are NaN", self._message(self.assertAllInRange, np.array([np.nan] * 2),
                                                                      0, 1))

    def test_passing_assertions_on_tensors_and_structures(self):
        c = tf.constant([1.0, 2.0])
        self.assertAllClose({"a": c, "b": (c, [3.0])}, {"a": [1.0, 2.0], "b": ([1.0, 2.0], [3.0])})
        self.assertAllEqual(c, c)
        self.assertAllEqual([b"a", b"b"], ["a", "b"])
        self.assertAllEqual([np.nan, 1.0], [np.nan, 1.0])
        self.assertNotAllClose(c, [1.0, 2.5])
        self.assertNotAllEqual(c, [1.0, 3.0])
        self.assertAllCloseAccordingToType(np.float16([1.0]), np.float16([1.0005]))
        self.assertAllGreater(c, 0.5)
        self.assertAllLess(c, 2.5)
        self.assertAllGreaterEqual(c, 1.0)
        self.assertAllLessEqual(c, 2.0)
        self.assertAllInRange(c, 1.0, 2.0)
        self.assertAllInSet(tf.constant([1, 2, 1]), [1, 2])
        self.assertDTypeEqual(c, np.float32)
        self.assertArrayNear([1.0, 2.0], [1.05, 2.0], 0.1)
        self.assertNDArrayNear(np.ones(3), np.ones(3) + 1e-4, 1e-3)
        self.assertShapeEqual(np.zeros((2, 3)), tf.zeros([2, 3]))
        self.assertDeviceEqual("/job:worker/task:0/device:CPU:0", "/job:worker/task:0/cpu:0")
        with self.assertRaises(AssertionError):  # as in TF: replica:0 is not dropped
            self.assertDeviceEqual("/job:worker/replica:0/task:0/device:CPU:0", "/job:worker/task:0/cpu:0")
        self.assertStartsWith("dflow", "df")
        self.assertItemsEqual([1, 2], [2, 1])
        self.assertEmpty([])
        self.assertNotEmpty([1])
        with self.assertRaisesRegexp(ValueError, "bo+m"):  # noqa: UP005 - the TF1 spelling under test
            raise ValueError("boom")
        self.assertRegexpMatches("dflow", "fl")  # noqa: UP005

    def test_raises_op_error_and_predicates(self):
        with self.assertRaisesOpError("must be"):
            with self.cached_session() as s:
                p = tf.placeholder(tf.float32)
                s.run(tf.debugging.assert_positive(p, message="must be positive"), {p: -1.0})
        with self.assertRaisesWithPredicateMatch(ValueError, lambda e: "boom" in str(e)):
            raise ValueError("boom")
        with self.assertRaises(AssertionError):
            with self.assertRaisesOpError("x"):
                pass
        with self.assertRaises(AssertionError):
            with self.assertRaisesOpError("other text"):
                raise tf.errors.InvalidArgumentError(None, None, "something")

    def test_proto_equals_lite(self):
        g = tf.Graph()
        with g.as_default():
            tf.constant(1.0, name="c")
        gd = g.as_graph_def()
        self.assertProtoEquals(gd, g.as_graph_def())
        self.assertProtoEquals(str(gd), gd)
        s = tf.Summary(value=[tf.Summary.Value(tag="loss", simple_value=1.5)])
        self.assertProtoEquals('value { tag: "loss"  simple_value: 1.5 }', s)
        with self.assertRaises(AssertionError):
            self.assertProtoEquals('value { tag: "acc" simple_value: 1.5 }', s)


class TestCaseSessionsTest(tf.test.TestCase):
    def test_session_is_default_on_fresh_graph_with_tf_seed(self):
        self.assertEqual(tf.get_default_graph().seed, 87654321)
        self.assertEqual(tf.get_default_graph().get_operations(), [])
        with self.session() as sess:
            self.assertIs(tf.get_default_session(), sess)
            self.assertIs(sess.graph, tf.get_default_graph())
        self.assertIsNone(tf.get_default_session())
        # TF: np.random.rand() right after setUp
        self.assertEqual(np.random.RandomState(87654321).rand(), np.random.rand())

    def test_evaluate_and_cached_session(self):
        c = tf.constant(3.0)
        self.assertEqual(self.evaluate(c * 2), 6.0)
        self.assertEqual(self.evaluate({"a": c, "b": [c, c + 1]}), {"a": 3.0, "b": [3.0, 4.0]})
        with self.cached_session() as s1, self.cached_session() as s2:
            self.assertIs(s1, s2)
        with self.test_session() as s3:
            self.assertIs(s1, s3)
        with self.assertRaisesRegex(ValueError, "graph used to get the cached session"):
            with self.cached_session(graph=tf.Graph()):
                pass

    def test_use_gpu_false_pins_to_cpu(self):
        with self.session(use_gpu=False):
            c = tf.constant(1.0)
        self.assertEqual(c.device, "/device:CPU:0")

    def test_temp_dir_and_checked_thread(self):
        d = self.get_temp_dir()
        self.assertTrue(os.path.isdir(d) and d.startswith(tf.test.get_temp_dir()))
        self.assertEqual(d, self.get_temp_dir())
        out = []
        t = self.checkedThread(target=out.append, args=(1,))
        t.start()
        t.join()
        self.assertEqual(out, [1])
        bad = self.checkedThread(target=lambda: 1 / 0)
        bad.start()
        with self.assertRaisesRegex(AssertionError, "Error in checkedThread: division by zero"):
            bad.join()


def test_gpu_queries_are_honest():
    assert tf.test.is_built_with_xla() is False
    cupy_missing = subprocess.run([sys.executable, "-c", "import cupy"], capture_output=True).returncode != 0
    if cupy_missing:
        assert not tf.test.is_built_with_cuda() and not tf.test.is_built_with_gpu_support()
        assert tf.test.is_gpu_available() is False and tf.test.gpu_device_name() == ""
    assert tf.test.is_gpu_available() == (tf.test.gpu_device_name() == "/device:GPU:0")


def test_test_src_dir_path_and_stubs():
    assert os.path.isfile(tf.test.test_src_dir_path("testing/testing.py"))
    import math

    stubs = tf.test.StubOutForTesting()
    stubs.Set(math, "pi", 3)
    stubs.SmartSet(math, "e", 2)
    assert (math.pi, math.e) == (3, 2)
    stubs.CleanUp()
    assert math.pi > 3.14 and math.e > 2.7


def test_disable_with_predicate_and_eager_decorator():
    class T(tf.test.TestCase):
        @tf.test.disable_with_predicate(lambda: True, "no")
        def test_a(self):
            raise AssertionError("should be skipped")

    assert tf.test.with_eager_op_as_function(T) is T
    assert tf.test.with_eager_op_as_function()(T) is T
    import unittest

    result = unittest.TestResult()
    T("test_a").run(result)
    T("test_session").run(result)  # unittest collects the helper of that name: TestCase skips it, as TF's does
    assert [r[1] for r in result.skipped] == ["no", "Not a test."]


def test_assert_equal_graph_def():
    def build(v):
        g = tf.Graph()
        with g.as_default():
            tf.constant(v, name="c")
        return g.as_graph_def()

    tf.test.assert_equal_graph_def(build(1.0), build(1.0))
    with pytest.raises(AssertionError, match="Node 'c' attrs differ"):
        tf.test.assert_equal_graph_def(build(1.0), build(2.0))
    with pytest.raises(TypeError, match="Expected tf.GraphDef for actual"):
        tf.test.assert_equal_graph_def(1, build(1.0))


def test_main_runs_unittests_and_benchmarks(tmp_path):
    script = textwrap.dedent("""
        import dflow as tf

        class B(tf.test.Benchmark):
            def benchmarkAdd(self):
                with tf.Session() as sess:
                    r = self.run_op_benchmark(sess, tf.constant(1.0) + 1.0, min_iters=3, name="add")
                    print("keys", sorted(r), sorted(r["extras"]))
                self.report_benchmark(iters=5, wall_time=0.5, extras={"k": 1, "s": "x"})

        class T(tf.test.TestCase):
            def testOk(self):
                self.assertAllEqual(self.evaluate(tf.constant([1]) + 1), [2])

        if __name__ == "__main__":
            tf.test.main()
    """)
    path = tmp_path / "t.py"
    path.write_text(script)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root)
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=60, env=env)
    # testOk, and test_session skipped as "Not a test." (as under TF)
    assert out.returncode == 0 and "Ran 2 tests" in out.stderr and "OK (skipped=1)" in out.stderr, out.stderr
    env["TEST_REPORT_FILE_PREFIX"] = str(tmp_path / "rep_")
    out = subprocess.run([sys.executable, str(path), "--benchmarks=B"], capture_output=True, text=True, timeout=60,
                         env=env)
    assert out.returncode == 0, out.stderr
    assert "keys ['extras', 'iters', 'name', 'throughput', 'wall_time'] ['wall_time_mean', 'wall_time_stdev']" \
        in out.stdout
    from dflow.testing.testing import BenchmarkEntries

    entry = BenchmarkEntries.FromString((tmp_path / "rep_B.benchmarkAdd").read_bytes()).entry[0]
    assert (entry.name, entry.iters, entry.wall_time) == ("B.benchmarkAdd", 5, 0.5)
    assert [(e.key, e.value.WhichOneof("kind")) for e in entry.extras] == [("k", "double_value"),
                                                                          ("s", "string_value")]
    assert BenchmarkEntries.FromString((tmp_path / "rep_B.add").read_bytes()).entry[0].iters == 3


@pytest.mark.cluster
def test_create_local_cluster_runs_a_session():
    workers, ps = tf.test.create_local_cluster(num_workers=1, num_ps=1)
    try:
        assert len(workers) == 1 and len(ps) == 1 and workers[0].target == ps[0].target
        with tf.Graph().as_default():
            with tf.device("/job:ps/task:0"):
                v = tf.Variable(2.0)
            with tf.device("/job:worker/task:0"):
                y = v * 3.0
            with tf.Session(workers[0].target) as sess:
                sess.run(v.initializer)
                assert sess.run(y) == 6.0
    finally:
        for s in workers + ps:
            s.stop()
        workers[0]._local_cluster_scheduler.stop()
