"""``tf.test``'s functions: running tests and benchmarks, temp dirs, GPU queries, local clusters.

The ``TestCase`` class lives in ``dflow.testing.testcase``; the gradient
checker (``tf.test.compute_gradient``) in ``dflow.ops.gradients.gradient_checker``.

GPU answers are honest for dflow: GPU kernels run through CuPy, so
``is_built_with_cuda()`` says whether CuPy (a CUDA build) is installed and
``is_gpu_available()`` whether it also sees a device. dflow has no XLA.
"""

from __future__ import annotations

import atexit
import functools
import os
import re
import shutil
import sys
import tempfile
import time
import unittest

from dflow._api import tf_export
from dflow.framework.protos.summary_pb import Field, Message
from dflow.platform import tf_logging

_temp_dir = ""


@tf_export("test.get_temp_dir")
def get_temp_dir() -> str:
    """This process's temporary directory for tests (made on first call, removed at exit)."""
    global _temp_dir
    if not _temp_dir:
        if os.environ.get("TEST_TMPDIR"):
            temp_dir = tempfile.mkdtemp(prefix=os.environ["TEST_TMPDIR"])
        else:
            script = os.path.basename(sys.argv[0] if sys.argv and sys.argv[0] else "dflow_test")
            temp_dir = tempfile.mkdtemp(prefix=os.path.join(tempfile.gettempdir(), script.removesuffix(".py")))
        atexit.register(shutil.rmtree, temp_dir, True)
        _temp_dir = temp_dir
    return _temp_dir


@tf_export("test.test_src_dir_path")
def test_src_dir_path(relative_path: str) -> str:
    """The path of ``relative_path`` inside dflow's source tree (TF: inside ``tensorflow/``)."""
    from dflow.platform.resource_loader import package_root

    return os.path.join(package_root(), relative_path)


# -- GPUs --------------------------------------------------------------------------------


def _cupy():
    try:
        import cupy
    except Exception:  # not installed, or no CUDA libraries
        return None
    return cupy


def _gpu_count() -> int:
    cupy = _cupy()
    if cupy is None:
        return 0
    try:
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # no driver, no device
        return 0


@tf_export("test.is_built_with_cuda")
def is_built_with_cuda() -> bool:
    """Whether dflow can run CUDA kernels here: CuPy is installed (and is not a ROCm build)."""
    cupy = _cupy()
    return cupy is not None and not getattr(cupy.cuda.runtime, "is_hip", False)


@tf_export("test.is_built_with_rocm")
def is_built_with_rocm() -> bool:
    """Whether dflow can run ROCm kernels here: a ROCm build of CuPy is installed."""
    cupy = _cupy()
    return cupy is not None and bool(getattr(cupy.cuda.runtime, "is_hip", False))


@tf_export("test.is_built_with_gpu_support")
def is_built_with_gpu_support() -> bool:
    """CUDA or ROCm support (a CuPy build) is installed."""
    return _cupy() is not None


@tf_export("test.is_built_with_xla")
def is_built_with_xla() -> bool:
    """Always False: dflow has no XLA compiler."""
    return False


@tf_export("test.is_gpu_available")
def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None) -> bool:
    """Whether a GPU is usable: CuPy sees a device (of at least ``(major, minor)`` compute capability)."""
    n = _gpu_count()
    if n == 0 or (cuda_only and not is_built_with_cuda()):
        return False
    if min_cuda_compute_capability is None:
        return True
    cupy = _cupy()
    want = tuple(min_cuda_compute_capability)
    for i in range(n):
        cc = str(cupy.cuda.Device(i).compute_capability)  # "80" for 8.0
        if (int(cc[:-1]), int(cc[-1])) >= want:
            return True
    return False


@tf_export("test.gpu_device_name")
def gpu_device_name() -> str:
    """``"/device:GPU:0"`` when a GPU is available, else ``""``."""
    return "/device:GPU:0" if _gpu_count() else ""


# -- clusters ------------------------------------------------------------------------------


@tf_export("test.create_local_cluster")
def create_local_cluster(num_workers, num_ps, protocol="grpc", worker_config=None, ps_config=None):
    """Starts a cluster in this process: ``(workers, ps_servers)``, lists of ``tf.train.Server``.

    As in TF1, ``tf.Session(workers[0].target)`` runs on it and ops placed on
    ``/job:ps/task:i`` or ``/job:worker/task:i`` run on those servers. In dflow
    the tasks are Dask workers; the Dask scheduler they join runs here too
    and stops when the last of the returned servers is gone (or ``stop()``ped).
    """
    from dflow.cluster.cluster_spec import SCHEDULER_JOB, ClusterSpec
    from dflow.cluster.server import Server

    if num_workers < 1:
        raise ValueError(f"create_local_cluster: num_workers must be >= 1, got {num_workers}")
    scheduler = Server({SCHEDULER_JOB: ["127.0.0.1:0"]}, job_name=SCHEDULER_JOB, task_index=0, protocol=protocol,
                       dashboard_address=None)
    address = scheduler.target.split("://", 1)[-1]
    spec = ClusterSpec({SCHEDULER_JOB: [address], "worker": ["127.0.0.1:0"] * num_workers,
                        "ps": ["127.0.0.1:0"] * num_ps})
    servers = {"worker": [], "ps": []}
    try:
        for job, count, config in (("worker", num_workers, worker_config), ("ps", num_ps, ps_config)):
            for ix in range(count):
                server = Server(spec, job_name=job, task_index=ix, protocol=protocol, config=config, start=True,
                                nthreads=1)
                server._local_cluster_scheduler = scheduler  # keeps the scheduler up while a server lives
                servers[job].append(server)
    except BaseException:
        for s in servers["worker"] + servers["ps"]:
            s.stop()
        scheduler.stop()
        raise
    return servers["worker"], servers["ps"]


# -- tests and benchmarks ----------------------------------------------------------------


@tf_export("test.main")
def main(argv=None):
    """Runs the tests of ``__main__`` (``unittest``), or with ``--benchmarks=REGEX`` its benchmarks."""
    argv = list(sys.argv if argv is None else argv)
    pattern = None
    for i, arg in enumerate(argv):
        if arg.startswith("--benchmarks="):
            pattern = arg.split("=", 1)[1]
            del argv[i]
            break
        if arg == "--benchmarks" and i + 1 < len(argv):
            pattern = argv[i + 1]
            del argv[i:i + 2]
            break
    if pattern is not None:
        return run_benchmarks(pattern)
    return unittest.main(module="__main__", argv=argv)


@tf_export("test.disable_with_predicate")
def disable_with_predicate(pred, skip_message):
    """Decorates a test method to be skipped with ``skip_message`` when ``pred()`` is true."""

    def decorator(func):
        @functools.wraps(func)
        def wrapper(self, *args, **kwargs):
            if pred():
                self.skipTest(skip_message)
            return func(self, *args, **kwargs)

        return wrapper

    return decorator


@tf_export("test.with_eager_op_as_function")
def with_eager_op_as_function(cls=None, only_as_function=False):
    """Returns the test class unchanged: it only concerns eager execution (TF 2.15 makes it a no-op too)."""

    def decorator(c):
        return c

    return decorator(cls) if cls is not None else decorator


@tf_export("test.StubOutForTesting")
class StubOutForTesting:
    """Replaces attributes for a test and puts them back (``UnsetAll``/``SmartUnsetAll``/``CleanUp``).

    >>> stubs = StubOutForTesting()
    >>> stubs.Set(os.path, "sep", "|")   # doctest: +SKIP
    >>> stubs.CleanUp()                   # os.path.sep is back
    """

    def __init__(self):
        self.cache = []
        self.stubs = []

    def __del__(self):
        self.SmartUnsetAll()
        self.UnsetAll()

    def __enter__(self):
        return self

    def __exit__(self, unused_exc_type, unused_exc_value, unused_tb):
        self.CleanUp()

    def CleanUp(self):  # noqa: N802 - TF1's name
        """Undoes every replacement made with ``Set`` and ``SmartSet``."""
        self.SmartUnsetAll()
        self.UnsetAll()

    def SmartSet(self, obj, attr_name, new_attr):  # noqa: N802
        """Replaces ``obj.attr_name``, restoring it (as a staticmethod/classmethod where it was one) later."""
        if isinstance(obj, type):
            for cls in obj.__mro__:
                if attr_name in cls.__dict__:
                    old_attribute = cls.__dict__[attr_name]
                    break
            else:
                old_attribute = getattr(obj, attr_name)
            if not isinstance(old_attribute, (staticmethod, classmethod)) and attr_name not in obj.__dict__:
                old_attribute = getattr(obj, attr_name)
        else:
            old_attribute = getattr(obj, attr_name)
        self.cache.append((obj, attr_name, old_attribute))
        setattr(obj, attr_name, new_attr)

    def SmartUnsetAll(self):  # noqa: N802
        """Restores every ``SmartSet`` attribute, last first."""
        for obj, attr_name, old_attr in reversed(self.cache):
            setattr(obj, attr_name, old_attr)
        self.cache = []

    def Set(self, parent, child_name, new_child):  # noqa: N802
        """Replaces ``parent.child_name`` (a class's staticmethod/classmethod stays one on restore)."""
        old_child = getattr(parent, child_name)
        old_attribute = parent.__dict__.get(child_name)
        if isinstance(old_attribute, (staticmethod, classmethod)):
            old_child = old_attribute
        self.stubs.append((parent, old_child, child_name))
        setattr(parent, child_name, new_child)

    def UnsetAll(self):  # noqa: N802
        """Restores every ``Set`` attribute, last first."""
        for parent, old_child, child_name in reversed(self.stubs):
            setattr(parent, child_name, old_child)
        self.stubs = []


@tf_export("test.assert_equal_graph_def")
def assert_equal_graph_def(actual, expected, checkpoint_v2=False, hash_table_shared_name=False):
    """Raises ``AssertionError`` naming the differences when two ``GraphDef``s hold different nodes.

    Node order does not matter, as in TF. ``checkpoint_v2`` ignores the
    ``_temp_<uuid>`` part of string constants (checkpoint temp names);
    ``hash_table_shared_name`` ignores hash tables' ``shared_name``.
    """
    from dflow.framework.graph_io import GraphDef

    for what, g in (("actual", actual), ("expected", expected)):
        if not isinstance(g, GraphDef):
            raise TypeError(f"Expected tf.GraphDef for {what}, got {type(g).__name__}")

    def nodes(g):
        out = {}
        for rec in g.to_dict()["ops"]:
            rec = dict(rec)
            attrs = dict(rec.get("attrs", {}))
            if hash_table_shared_name and "HashTable" in rec["type"]:
                attrs.pop("shared_name", None)
            if checkpoint_v2:
                attrs = {k: re.sub(r"_temp_[0-9a-f]{32}", "", v) if isinstance(v, str) else v
                         for k, v in attrs.items()}
            rec["attrs"] = attrs
            out[rec["name"]] = rec
        return out

    a, e = nodes(actual), nodes(expected)
    diffs = [f"Graph with unexpected node {n!r}" for n in a if n not in e]
    diffs += [f"Graph missing expected node {n!r}" for n in e if n not in a]
    for name in a.keys() & e.keys():
        for field in sorted(a[name].keys() | e[name].keys()):
            if a[name].get(field) != e[name].get(field):
                diffs.append(f"Node {name!r} {field} differs: actual {a[name].get(field)!r}, "
                             f"expected {e[name].get(field)!r}")
    if diffs:
        raise AssertionError("\n".join(diffs))


@tf_export("test.benchmark_config")
def benchmark_config():
    """A ``tf.ConfigProto`` for benchmarks (TF turns a graph rewrite off; dflow has none to turn off)."""
    from dflow.sessions.config import ConfigProto

    return ConfigProto()


# -- benchmarks ----------------------------------------------------------------------------


class _EntryValue(Message):
    FIELDS = (Field(1, "double_value", "double", "oneof:kind"), Field(2, "string_value", "string", "oneof:kind"))


class _BenchmarkEntry(Message):
    class ExtrasEntry(Message):
        FIELDS = (Field(1, "key", "string"), Field(2, "value", _EntryValue))

    class MetricEntry(Message):
        class DoubleValue(Message):
            FIELDS = (Field(1, "value", "double"),)

        FIELDS = (Field(1, "name", "string"), Field(2, "value", "double"), Field(3, "min_value", DoubleValue),
                  Field(4, "max_value", DoubleValue))

    FIELDS = (Field(1, "name", "string"), Field(2, "iters", "int64"), Field(3, "cpu_time", "double"),
              Field(4, "wall_time", "double"), Field(5, "throughput", "double"),
              Field(6, "extras", ExtrasEntry, "repeated"), Field(7, "metrics", MetricEntry, "repeated"))


class BenchmarkEntries(Message):
    """TF's ``tensorflow.BenchmarkEntries`` (``test_log.proto``), as benchmarks report them."""

    FIELDS = (Field(1, "entry", _BenchmarkEntry, "repeated"),)


TEST_REPORTER_TEST_ENV = "TEST_REPORT_FILE_PREFIX"
_BENCHMARKS: list = []


def _report_benchmark(name, iters=None, cpu_time=None, wall_time=None, throughput=None, extras=None, metrics=None):
    """Logs a benchmark result; writes it (a ``BenchmarkEntries`` proto) to ``$TEST_REPORT_FILE_PREFIX<name>``
    when that is set, else prints its text form, as TF does."""
    tf_logging.info("Benchmark [%s] iters: %d, wall_time: %g, cpu_time: %g,throughput: %g, extras: %s, metrics: %s",
                    name, iters if iters is not None else -1, wall_time if wall_time is not None else -1,
                    cpu_time if cpu_time is not None else -1, throughput if throughput is not None else -1,
                    str(extras) if extras else "None", str(metrics) if metrics else "None")
    entries = BenchmarkEntries()
    entry = entries.entry.add(name=name)
    for field, value in (("iters", iters), ("cpu_time", cpu_time), ("wall_time", wall_time),
                         ("throughput", throughput)):
        if value is not None:
            setattr(entry, field, value)
    if extras is not None:
        if not isinstance(extras, dict):
            raise TypeError("extras must be a dict")
        for k, v in extras.items():
            value = _EntryValue(double_value=float(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) \
                else _EntryValue(string_value=str(v))
            entry.extras.add(key=k, value=value)
    if metrics is not None:
        if not isinstance(metrics, list):
            raise TypeError("metrics must be a list")
        for metric in metrics:
            for key in ("name", "value"):
                if key not in metric:
                    raise TypeError(f"metric must has a '{key}' field")
            m = entry.metrics.add(name=metric["name"], value=metric["value"])
            for key in ("min_value", "max_value"):
                if key in metric:
                    setattr(m, key, _BenchmarkEntry.MetricEntry.DoubleValue(value=metric[key]))
    prefix = os.environ.get(TEST_REPORTER_TEST_ENV)
    if prefix is None:
        print(str(entries))
        return
    path = prefix + name.replace("/", "__")
    if os.path.exists(path):
        raise OSError(f"File already exists: {path}")
    with open(path, "wb") as f:
        f.write(entries.SerializeToString())


@tf_export("test.Benchmark")
class Benchmark:
    """Base class of benchmarks: subclasses' ``benchmark*`` methods run under ``tf.test.main()`` with
    ``--benchmarks=REGEX``, and report through ``report_benchmark`` or ``run_op_benchmark``."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _BENCHMARKS.append(cls)

    @classmethod
    def is_abstract(cls):
        return len(cls.mro()) <= 2

    def _get_name(self, overwrite_name=None):
        """``Class.method`` of the outermost benchmark method on the stack."""
        name = None
        frame = sys._getframe(1)
        while frame is not None:
            if isinstance(frame.f_locals.get("self"), Benchmark):
                name = frame.f_code.co_name
            frame = frame.f_back
        if name is None:
            raise ValueError("Unable to determine calling Benchmark class.")
        return f"{type(self).__name__}.{overwrite_name or name}"

    def report_benchmark(self, iters=None, cpu_time=None, wall_time=None, throughput=None, extras=None, name=None,
                         metrics=None):
        """Reports one result, named ``Class.method`` (or ``Class.name``)."""
        _report_benchmark(self._get_name(overwrite_name=name), iters=iters, cpu_time=cpu_time, wall_time=wall_time,
                          throughput=throughput, extras=extras, metrics=metrics)

    def run_op_benchmark(self, sess, op_or_tensor, feed_dict=None, burn_iters=2, min_iters=10, store_trace=False,
                         store_memory_usage=True, name=None, extras=None, mbs=0):
        """Times ``sess.run(op_or_tensor)`` over ``min_iters`` runs after ``burn_iters``; reports the median.

        Returns the reported dict (``iters``, ``wall_time``, ``extras``, ``name``, ``throughput`` = mbs /
        median), its ``extras`` adding ``wall_time_mean``/``wall_time_stdev`` and, with ``store_trace``,
        the Chrome trace (JSON) of one traced run. dflow does not track allocator maxima:
        ``store_memory_usage`` adds nothing.
        """
        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        deltas = []
        for _ in range(min_iters):
            start = time.time()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            deltas.append(time.time() - start)
        extras = extras if extras is not None else {}
        unreported = {}
        if store_trace:
            import json

            from dflow.sessions.config import RunMetadata, RunOptions
            from dflow.train.timeline import chrome_trace

            run_metadata = RunMetadata()
            sess.run(op_or_tensor, feed_dict=feed_dict, options=RunOptions(trace_level=RunOptions.FULL_TRACE),
                     run_metadata=run_metadata)
            unreported["full_trace_chrome_format"] = json.dumps(chrome_trace(run_metadata.step_stats))
        s = sorted(deltas)
        median = (s[len(s) // 2] + s[(len(s) - 1) // 2]) / 2.0 if s else -1
        values = {"iters": min_iters, "wall_time": median, "extras": extras, "name": name,
                  "throughput": mbs / median if median > 0 else 0.0}
        self.report_benchmark(**values)
        mean = sum(deltas) / len(deltas) if deltas else -1
        stdev = (sum((d - mean) ** 2 for d in deltas) / (len(deltas) - 1)) ** 0.5 if len(deltas) > 1 else -1
        unreported["wall_time_mean"] = mean
        unreported["wall_time_stdev"] = stdev
        values["extras"].update(unreported)
        return values

    def evaluate(self, tensors):
        """Runs ``tensors`` in the default session."""
        from dflow.sessions.session import get_default_session

        sess = get_default_session()
        if sess is None:
            raise ValueError("Benchmark.evaluate needs a default session: use `with tf.Session().as_default():`")
        return sess.run(tensors)


def run_benchmarks(regex: str) -> None:
    """Runs the ``benchmark*`` methods of every concrete Benchmark subclass whose ``module.Class.method`` matches."""
    for cls in list(_BENCHMARKS):
        if cls.is_abstract():
            continue
        instance = None
        for attr in sorted(dir(cls)):
            if not attr.startswith("benchmark"):
                continue
            full = f"{cls.__module__}.{cls.__name__}.{attr}"
            if re.search(regex, full):
                instance = instance or cls()
                getattr(instance, attr)()
