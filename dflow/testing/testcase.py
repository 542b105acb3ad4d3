"""``tf.test.TestCase``: ``unittest.TestCase`` with TF1's graph-mode helpers.

Each test starts on a fresh default graph with TF's test seeds (graph seed,
``random`` and ``numpy.random`` seeded with 87654321). ``self.session()``
opens a dflow ``Session`` on the default graph and makes both the defaults
inside its block; ``self.cached_session()`` reuses one session for the whole
test; ``self.evaluate(fetches)`` runs fetches in the default session (or the
cached one)::

    class SquareTest(tf.test.TestCase):
        def test_square(self):
            with self.cached_session():
                self.assertAllClose(self.evaluate(tf.square([2.0, 3.0])), [4.0, 9.0])

    if __name__ == "__main__":
        tf.test.main()

The assertions take tensors or array-likes (tensors are evaluated first)
and nested structures (dicts, lists, tuples, namedtuples) as TF's do.
"""

from __future__ import annotations

import collections.abc
import contextlib
import itertools
import math
import random
import re
import tempfile
import threading
import unittest

import numpy as np

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.composite import CompositeTensor
from dflow.framework.device_spec import canonical_name
from dflow.framework.graph import _graph_stack, reset_default_graph, set_random_seed
from dflow.framework.tensor import Tensor
from dflow.ops.random.random_ops import DEFAULT_GRAPH_SEED
from dflow.ops.state.variables import Variable
from dflow.sessions.config import ConfigProto
from dflow.sessions.session import Session, get_default_session


def _is_graph_value(x) -> bool:
    return isinstance(x, (Tensor, Variable, CompositeTensor))


class _CheckedThread:
    """A thread whose exception fails the test when it is joined (``TestCase.checkedThread``)."""

    def __init__(self, testcase, target, args=None, kwargs=None):
        self._testcase = testcase
        self._target = target
        self._args = () if args is None else args
        self._kwargs = {} if kwargs is None else kwargs
        self._thread = threading.Thread(target=self._protected_run)
        self._exception = None
        self._is_thread_joined = False

    def _protected_run(self):
        try:
            self._target(*self._args, **self._kwargs)
        except BaseException as e:  # reported to the test at join()
            self._exception = e

    def start(self):
        self._thread.start()

    def join(self):
        self._thread.join()
        self._is_thread_joined = True
        if self._exception is not None:
            self._testcase.fail(f"Error in checkedThread: {self._exception}")

    def is_alive(self):
        return self._thread.is_alive()

    def check_termination(self):
        """Fails the test if the thread was not joined (or is still running)."""
        if self._is_thread_joined:
            if self.is_alive():
                raise RuntimeError("Thread was not joined with main thread, and is still running when the test "
                                   "finished.")
        else:
            self._testcase.fail("A checked thread was not joined.")


@tf_export("test.TestCase")
class TestCase(unittest.TestCase):
    """Base class for tests of dflow graphs (TF1's ``tf.test.TestCase``)."""

    def __init__(self, methodName="runTest"):  # noqa: N803 - unittest's name
        super().__init__(methodName)
        self._threads = []
        self._tempdir = None
        self._cached_session = None
        self._cached_graph = None
        self._cached_config = None
        self._cached_force_gpu = False

    def setUp(self):
        super().setUp()
        self._clear_cached_session()
        random.seed(DEFAULT_GRAPH_SEED)
        np.random.seed(DEFAULT_GRAPH_SEED)
        _graph_stack().clear()  # a test that failed inside a graph block must not leak it into the next
        reset_default_graph()
        set_random_seed(DEFAULT_GRAPH_SEED)
        if self.id().endswith(".test_session"):  # unittest collects the method of that name: it is not a test
            self.skipTest("Not a test.")

    def tearDown(self):
        for thread in self._threads:
            thread.check_termination()
        self._clear_cached_session()
        super().tearDown()

    def _clear_cached_session(self):
        if self._cached_session is not None:
            self._cached_session.close()
            self._cached_session = None

    # -- sessions ------------------------------------------------------------------------
    def get_temp_dir(self) -> str:
        """A temporary directory for this test (created once, under ``tf.test.get_temp_dir()``)."""
        if not self._tempdir:
            from dflow.testing.testing import get_temp_dir

            self._tempdir = tempfile.mkdtemp(dir=get_temp_dir())
        return self._tempdir

    @staticmethod
    def _prepare_config(config, force_gpu):
        if config is None:
            config = ConfigProto()
            config.allow_soft_placement = not force_gpu
        elif force_gpu and config.allow_soft_placement:
            copy = ConfigProto()
            copy.CopyFrom(config)
            copy.allow_soft_placement = False
            config = copy
        return config

    def _create_session(self, graph, config, force_gpu):
        return Session(graph=graph, config=self._prepare_config(config, force_gpu))

    @contextlib.contextmanager
    def _constrain_devices_and_set_default(self, sess, use_gpu, force_gpu):
        with sess.graph.as_default(), sess.as_default():
            if force_gpu:
                from dflow.testing.testing import gpu_device_name

                with sess.graph.device(gpu_device_name() or "/device:GPU:0"):
                    yield sess
            elif use_gpu:
                yield sess
            else:
                with sess.graph.device("/device:CPU:0"):
                    yield sess

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """A new session on ``graph`` (default: the default graph), closed at the end of the block.

        ``use_gpu=False`` pins the block's ops to the CPU; ``force_gpu=True``
        to the GPU, with soft placement off.
        """
        sess = self._create_session(graph, config, force_gpu)
        try:
            with self._constrain_devices_and_set_default(sess, use_gpu, force_gpu):
                yield sess
        finally:
            sess.close()

    def _get_cached_session(self, graph, config, force_gpu, crash_if_inconsistent_args):
        if self._cached_session is None:
            self._cached_session = self._create_session(graph, config, force_gpu)
            self._cached_graph, self._cached_config, self._cached_force_gpu = graph, config, force_gpu
            return self._cached_session
        if crash_if_inconsistent_args:
            if self._cached_graph is not graph:
                raise ValueError("The graph used to get the cached session is different than the one that was "
                                 "used to create the session. Maybe create a new session with self.session()")
            if self._cached_config is not config:
                raise ValueError("The config used to get the cached session is different than the one that was "
                                 "used to create the session. Maybe create a new session with self.session()")
            if self._cached_force_gpu is not force_gpu:
                raise ValueError("The force_gpu value used to get the cached session is different than the one "
                                 "that was used to create the session. Maybe create a new session with "
                                 "self.session()")
        return self._cached_session

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """The test's one session (created on first use, closed at tearDown), as the default."""
        sess = self._get_cached_session(graph, config, force_gpu, crash_if_inconsistent_args=True)
        with self._constrain_devices_and_set_default(sess, use_gpu, force_gpu) as cached:
            yield cached

    @contextlib.contextmanager
    def test_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """TF1's older spelling: the cached session when ``graph`` is None, else a new one."""
        if graph is None:
            sess = self._get_cached_session(graph, config, force_gpu, crash_if_inconsistent_args=False)
            with self._constrain_devices_and_set_default(sess, use_gpu, force_gpu) as cached:
                yield cached
        else:
            with self.session(graph, config, use_gpu, force_gpu) as sess:
                yield sess

    def evaluate(self, tensors):
        """Runs ``tensors`` (any fetch structure) in the default session, or the cached one."""
        sess = get_default_session()
        if sess is None:
            with self.test_session() as sess:
                return sess.run(tensors)
        return sess.run(tensors)

    def checkedThread(self, target, args=None, kwargs=None):  # noqa: N802 - TF1's name
        """A thread running ``target(*args, **kwargs)`` whose exception fails the test at ``join()``."""
        ret = _CheckedThread(self, target, args, kwargs)
        self._threads.append(ret)
        return ret

    # -- value helpers ---------------------------------------------------------------------
    def _GetNdArray(self, a):  # noqa: N802 - TF1's name
        if _is_graph_value(a):
            a = self.evaluate(a)
        if not isinstance(a, np.ndarray):
            try:
                return np.array(a)
            except ValueError as e:
                if "inhomogeneous shape" in str(e):
                    return np.array(a, dtype=object)
                raise
        return a

    def evaluate_if_both_tensors(self, a, b):
        if _is_graph_value(a) and _is_graph_value(b):
            return self.evaluate((a, b))
        return a, b

    # -- assertions ------------------------------------------------------------------------
    def _assertArrayLikeAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        a, b = self.evaluate_if_both_tensors(a, b)
        a = self._GetNdArray(a)
        b = self._GetNdArray(b)
        if a.shape != b.shape and (b.ndim <= 3 or b.size < 500):
            shape_msg = f"Shape mismatch: expected {a.shape}, got {b.shape} with contents {b}."
        else:
            shape_msg = f"Shape mismatch: expected {a.shape}, got {b.shape}."
        self.assertEqual(a.shape, b.shape, shape_msg)
        if a.dtype == np.float16 or b.dtype == np.float16:
            rtol, atol = max(rtol, 1e-3), max(atol, 1e-3)
        if not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            msgs = [msg]
            cond = np.logical_or(np.abs(a - b) > atol + rtol * np.abs(b), np.isnan(a) != np.isnan(b))
            if a.ndim:
                x, y = a[np.where(cond)], b[np.where(cond)]
                msgs.append(f"not close where = {np.where(cond)}")
            else:
                x, y = a, b
            msgs += [f"not close lhs = {x}", f"not close rhs = {y}", f"not close dif = {np.abs(x - y)}",
                     f"not close tol = {atol + rtol * np.abs(y)}", f"dtype = {a.dtype}, shape = {a.shape}"]
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg="\n".join(str(m) for m in msgs),
                                       equal_nan=True)

    def _assertAllCloseRecursive(self, a, b, rtol=1e-6, atol=1e-6, path=None, msg=None):  # noqa: N802
        path = path or []
        path_str = ("[" + "][".join(str(p) for p in path) + "]") if path else ""
        msg = msg or ""
        if hasattr(a, "_asdict"):
            a = a._asdict()
        if hasattr(b, "_asdict"):
            b = b._asdict()
        a_is_dict = isinstance(a, collections.abc.Mapping)
        if a_is_dict != isinstance(b, collections.abc.Mapping):
            raise ValueError(f"Can't compare dict to non-dict, a{path_str} vs b{path_str}. {msg}")
        if a_is_dict:
            self.assertCountEqual(a.keys(), b.keys(), msg=f"mismatched keys: a{path_str} has keys {a.keys()}, but "
                                                           f"b{path_str} has keys {b.keys()}. {msg}")
            for k in a:
                self._assertAllCloseRecursive(a[k], b[k], rtol, atol, path + [k], msg)
        elif isinstance(a, (list, tuple)):
            try:
                a, b = self.evaluate_if_both_tensors(a, b)
                self._assertArrayLikeAllClose(self._GetNdArray(a), self._GetNdArray(b), rtol, atol,
                                              f"Mismatched value: a{path_str} is different from b{path_str}. {msg}")
            except (ValueError, TypeError, NotImplementedError):
                if len(a) != len(b):
                    raise ValueError(f"Mismatched length: a{path_str} has {len(a)} items, but b{path_str} has "
                                     f"{len(b)} items. {msg}") from None
                for idx, (a_ele, b_ele) in enumerate(zip(a, b)):
                    self._assertAllCloseRecursive(a_ele, b_ele, rtol, atol, path + [str(idx)], msg)
        else:
            try:
                self._assertArrayLikeAllClose(a, b, rtol, atol,
                                              f"Mismatched value: a{path_str} is different from b{path_str}. {msg}")
            except TypeError as e:
                e.args = (f"{e.args[0]} : Error: a{path_str} has {type(a)}, but b{path_str} has {type(b)}. "
                          f"{msg}",) + e.args[1:]
                raise

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        """Asserts two (nested structures of) arrays or tensors are elementwise close: |a-b| <= atol + rtol*|b|.

        float16 values get at least 1e-3 tolerances; NaNs compare equal.
        """
        self._assertAllCloseRecursive(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6, float_atol=1e-6,  # noqa: N802
                                      half_rtol=1e-3, half_atol=1e-3, bfloat16_rtol=1e-2, bfloat16_atol=1e-2,
                                      msg=None):
        """``assertAllClose`` with tolerances widened by the operands' dtype (float32, float16)."""
        a, b = self.evaluate_if_both_tensors(a, b)
        a = self._GetNdArray(a)
        b = self._GetNdArray(b)
        if np.float32 in (a.dtype, b.dtype) or np.complex64 in (a.dtype, b.dtype):
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if np.float16 in (a.dtype, b.dtype):
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        """Asserts that some element of ``a`` is not close to ``b``."""
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)
        except AssertionError:
            return
        raise AssertionError(f"The two values are close at all elements. {msg or ''}")

    def assertAllEqual(self, a, b, msg=None):  # noqa: N802
        """Asserts two arrays or tensors have the same shape and elements (NaNs equal)."""
        msg = msg or ""
        a, b = self.evaluate_if_both_tensors(a, b)
        a = self._GetNdArray(a)
        b = self._GetNdArray(b)
        if b.ndim <= 3 or b.size < 500:
            self.assertEqual(a.shape, b.shape, f"Shape mismatch: expected {a.shape}, got {b.shape}. Contents: "
                                               f"{b!r}. \n{msg}.")
        else:
            self.assertEqual(a.shape, b.shape, f"Shape mismatch: expected {a.shape}, got {b.shape}. {msg}")
        same = a == b
        if a.dtype.kind == "f":
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if not np.all(same):
            msgs = [msg]
            diff = np.logical_not(same)
            if a.ndim:
                x, y = a[np.where(diff)], b[np.where(diff)]
                msgs.append(f"not equal where = {np.where(diff)}")
            else:
                x, y = a, b
            msgs += [f"not equal lhs = {x!r}", f"not equal rhs = {y!r}"]
            if a.dtype.kind != b.dtype.kind and {a.dtype.kind, b.dtype.kind} <= {"U", "S", "O"}:
                a, b = (np.array([i.encode("utf-8") if isinstance(i, str) else i for i in arr.flat]) for arr in (a, b))
            np.testing.assert_array_equal(a, b, err_msg="\n".join(msgs))

    def assertNotAllEqual(self, a, b, msg=None):  # noqa: N802
        """Asserts that some element of ``a`` differs from ``b``."""
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError(f"The two values are equal at all elements. {msg or ''}")

    def _extreme_of(self, a, comparison_target, reduce):
        a, comparison_target = self.evaluate_if_both_tensors(a, comparison_target)
        extreme = reduce(self._GetNdArray(a))
        return (extreme.item() if isinstance(extreme, np.generic) else extreme), comparison_target

    def assertAllGreater(self, a, comparison_target):  # noqa: N802
        """Asserts every element of ``a`` is > ``comparison_target``."""
        self.assertGreater(*self._extreme_of(a, comparison_target, np.min))

    def assertAllLess(self, a, comparison_target):  # noqa: N802
        """Asserts every element of ``a`` is < ``comparison_target``."""
        self.assertLess(*self._extreme_of(a, comparison_target, np.max))

    def assertAllGreaterEqual(self, a, comparison_target):  # noqa: N802
        """Asserts every element of ``a`` is >= ``comparison_target``."""
        self.assertGreaterEqual(*self._extreme_of(a, comparison_target, np.min))

    def assertAllLessEqual(self, a, comparison_target):  # noqa: N802
        """Asserts every element of ``a`` is <= ``comparison_target``."""
        self.assertLessEqual(*self._extreme_of(a, comparison_target, np.max))

    @staticmethod
    def _format_subscripts(subscripts, value, limit=10, indent=2):
        prefix = " " * indent
        if np.ndim(value) == 0:
            return [f"{prefix}[0] : {value}"]
        subscripts = np.transpose(subscripts)
        lines = [f"{prefix}{s} : {value[tuple(s)]}" for s in itertools.islice(subscripts, limit)]
        if len(subscripts) > limit:
            lines.append(prefix + "...")
        return lines

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False,  # noqa: N802
                         open_upper_bound=False):
        """Asserts every element of ``target`` lies in [lower, upper] (ends open on request); NaN fails."""
        target = self._GetNdArray(target)
        if not (np.issubdtype(target.dtype, np.floating) or np.issubdtype(target.dtype, np.integer)):
            raise AssertionError(f"The value of {target} does not have an ordered numeric type, instead it has "
                                 f"type: {target.dtype}")
        nan_subscripts = np.where(np.isnan(target))
        if np.size(nan_subscripts):
            raise AssertionError(f"{len(nan_subscripts[0])} of the {np.size(target)} element(s) are NaN. "
                                 "Subscripts(s) and value(s) of the NaN element(s):\n"
                                 + "\n".join(self._format_subscripts(nan_subscripts, target)))
        range_str = (("(" if open_lower_bound else "[") + str(lower_bound) + ", " + str(upper_bound)
                     + (")" if open_upper_bound else "]"))
        violations = np.less_equal(target, lower_bound) if open_lower_bound else np.less(target, lower_bound)
        violations = np.logical_or(violations, np.greater_equal(target, upper_bound) if open_upper_bound
                                   else np.greater(target, upper_bound))
        where = np.where(violations)
        if np.size(where):
            raise AssertionError(f"{len(where[0])} of the {np.size(target)} element(s) are outside the range "
                                 f"{range_str}. Subscript(s) and value(s) of the offending elements:\n"
                                 + "\n".join(self._format_subscripts(where, target)))

    def assertAllInSet(self, target, expected_set):  # noqa: N802
        """Asserts every element of ``target`` is in ``expected_set``."""
        target = self._GetNdArray(target)
        diff = np.setdiff1d(target.flatten(), list(expected_set))
        if np.size(diff):
            raise AssertionError(f"{np.size(diff)} unique element(s) are not in the set {expected_set}: {diff}")

    def assertDTypeEqual(self, target, expected_dtype):  # noqa: N802
        """Asserts ``target``'s numpy dtype is ``expected_dtype``."""
        self.assertEqual(self._GetNdArray(target).dtype, expected_dtype)

    def assertArrayNear(self, farray1, farray2, err, msg=None):  # noqa: N802
        """Asserts two float lists have the same length and are elementwise within ``err``."""
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNear(self, f1, f2, err, msg=None):  # noqa: N802
        """Asserts |f1 - f2| <= err."""
        self.assertTrue(f1 == f2 or math.fabs(f1 - f2) <= err,
                        f"{f1:f} != {f2:f} +/- {err:f}" + (f" ({msg})" if msg is not None else ""))

    def _NDArrayNear(self, ndarray1, ndarray2, err):  # noqa: N802
        return bool(np.linalg.norm(ndarray1 - ndarray2) < err)

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None):  # noqa: N802
        """Asserts the Frobenius norm of ``ndarray1 - ndarray2`` is below ``err``."""
        self.assertTrue(self._NDArrayNear(ndarray1, ndarray2, err), msg=msg)

    def assertShapeEqual(self, input_a, input_b, msg=None):  # noqa: N802
        """Asserts two arrays or tensors have the same (static) shape."""
        for name, x in (("input_a", input_a), ("input_b", input_b)):
            if not isinstance(x, (np.ndarray, np.generic, Tensor)):
                raise TypeError(f"{name} must be a Numpy ndarray, Numpy scalar, or a Tensor.Instead received "
                                f"{type(x)}")
        shape_a = input_a.get_shape().as_list() if isinstance(input_a, Tensor) else input_a.shape
        shape_b = input_b.get_shape().as_list() if isinstance(input_b, Tensor) else input_b.shape
        self.assertAllEqual(shape_a, shape_b, msg=msg)

    def assertDeviceEqual(self, device1, device2, msg=None):  # noqa: N802
        """Asserts two device strings name the same device (after canonicalisation)."""
        device1, device2 = canonical_name(device1), canonical_name(device2)
        self.assertEqual(device1, device2, f"Devices {device1} and {device2} are not equal. {msg}")

    def assertProtoEquals(self, expected_message_maybe_ascii, message, msg=None):  # noqa: N802
        """Asserts a message equals the expected one, given as a message or in text form.

        dflow has no protobuf runtime: a ``GraphDef`` compares as its JSON
        document (text: its JSON), the event-file messages (``Summary``,
        ``Event``, ``TensorProto``) by their fields (text: their text form,
        whitespace aside), and anything else with ``==``.
        """
        from dflow.framework.graph_io import GraphDef, loads

        if isinstance(expected_message_maybe_ascii, type(message)):
            self.assertEqual(expected_message_maybe_ascii, message, msg)
        elif isinstance(expected_message_maybe_ascii, (str, bytes)):
            text = expected_message_maybe_ascii
            text = text.decode("utf-8") if isinstance(text, bytes) else text
            if isinstance(message, GraphDef):
                self.assertEqual(loads(text), message.to_dict(), msg)
            else:
                self.assertEqual(" ".join(text.split()), " ".join(str(message).split()), msg)
        else:
            raise AssertionError(f"Can't compare protos of type {type(expected_message_maybe_ascii)} and "
                                 f"{type(message)}.")

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):  # noqa: N802
        """A block that must raise ``exception_type`` whose message matches a regex (or satisfies a predicate)."""
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(e):
                err_str = e.message if isinstance(e, errors.OpError) else str(e)
                op = e.op if isinstance(e, errors.OpError) else None
                if op is not None:
                    err_str += "\nCaused by: " + op.name
                return re.search(expected_err_re_or_predicate, err_str)
        try:
            yield
        except Exception as e:
            if not isinstance(e, exception_type) or not predicate(e):
                raise AssertionError(f"Exception of type {type(e)}: {e}") from e
        else:
            self.fail(f"{exception_type.__name__} not raised")

    def assertRaisesOpError(self, expected_err_re_or_predicate):  # noqa: N802
        """A block that must raise a ``tf.errors.OpError`` matching the regex (or predicate)."""
        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)

    def assertRaisesIncompatibleShapesError(self, exception_type=errors.InvalidArgumentError):  # noqa: N802
        """A block that must raise ``exception_type`` about incompatible shapes."""
        return self.assertRaisesWithPredicateMatch(
            exception_type, r"Incompatible shapes|Dimensions must be equal|required broadcastable shapes|"
                            r"operands could not be broadcast")

    # absl's TestCase assertions that TF1 tests use often
    def assertStartsWith(self, actual, expected_start, msg=None):  # noqa: N802
        """Asserts ``actual`` starts with ``expected_start``."""
        if not actual.startswith(expected_start):
            self.fail(f"{actual!r} does not start with {expected_start!r}" + (f" : {msg!r}" if msg else ""))

    # Python 2 era spellings that TF1 test suites use (removed from unittest in Python 3.12)
    assertRaisesRegexp = unittest.TestCase.assertRaisesRegex  # noqa: N815
    assertRegexpMatches = unittest.TestCase.assertRegex  # noqa: N815
    assertNotRegexpMatches = unittest.TestCase.assertNotRegex  # noqa: N815

    def assertItemsEqual(self, expected_seq, actual_seq, msg=None):  # noqa: N802
        """Asserts the two sequences hold the same elements, in any order."""
        self.assertCountEqual(expected_seq, actual_seq, msg)

    def assertLen(self, container, expected_len, msg=None):  # noqa: N802
        """Asserts ``len(container) == expected_len``."""
        if len(container) != expected_len:
            self.fail(f"{container!r} has length of {len(container)}, expected {expected_len}." + (
                f" : {msg}" if msg else ""))

    def assertEmpty(self, container, msg=None):  # noqa: N802
        """Asserts ``container`` has no elements."""
        if len(container):
            self.fail(f"{container!r} has length of {len(container)}." + (f" : {msg}" if msg else ""))

    def assertNotEmpty(self, container, msg=None):  # noqa: N802
        """Asserts ``container`` has elements."""
        if not len(container):
            self.fail(f"{container!r} has length of 0." + (f" : {msg}" if msg else ""))
