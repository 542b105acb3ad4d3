"""``tf.Session``: runs the part of a graph that the fetches need.

A run resolves its fetches and feeds, looks up (or builds) the plan for its
signature, lowers the plan to a Dask task graph with a fresh run token, hands
it to the runtime (in-process here; a Dask cluster for a target address) and
rebuilds the results in the shape of the fetches. The session owns no logic
that a planning step could own; see ``plan.py``, ``lowering.py``.
"""

from __future__ import annotations

import itertools
import secrets
import sys
import threading

import numpy as np

from dflow._api import tf_export
from dflow.cluster import process_tuning
from dflow.framework import dtypes, errors
from dflow.framework.composite import CompositeTensor
from dflow.framework.constant_op import to_numpy
from dflow.framework.graph import Graph, Tensor, _graph_stack, _session_stack, get_default_graph
from dflow.framework.run_context import RunContext
from dflow.ops.state import session_ops
from dflow.placement.placer import place
from dflow.sessions import partial_run as partial_runs
from dflow.sessions import plan as planning
from dflow.sessions.config import ConfigProto, DeviceStepStats, NodeExecStats, RunOptions, default_session_config
from dflow.sessions.fetches import FetchStructure
from dflow.sessions.fusion import fusions_of
from dflow.sessions.local_executor import LocalRuntime
from dflow.sessions.program import to_host

_MAX_PLANS = 1024


class _DeviceAttributes:
    def __init__(self, name: str):
        self.name = name
        self.device_type = name.rsplit(":", 2)[-2].split("/")[-1] if "device:" in name else "CPU"
        self.memory_limit_bytes = 0
        self.incarnation = 0

    def __repr__(self):
        return f"_DeviceAttributes({self.name}, {self.device_type}, {self.memory_limit_bytes}, {self.incarnation})"


class BaseSession:
    """The session machinery shared by ``Session`` and ``InteractiveSession``."""

    def __init__(self, target="", graph: Graph | None = None, config: ConfigProto | None = None):
        if graph is None:
            graph = get_default_graph()
        elif not isinstance(graph, Graph):
            raise TypeError(f"graph must be a tf.Graph, but got {type(graph).__name__}")
        if config is not None and not isinstance(config, ConfigProto):
            raise TypeError(f"config must be a tf.ConfigProto, but got {type(config).__name__}")
        self._graph = graph
        self._config = config or default_session_config()
        self._target = target
        process_tuning.tune_allocator()
        self._thread_limits = None
        if self._config.intra_op_parallelism_threads > 0:
            self._thread_limits = process_tuning.set_compute_threads(self._config.intra_op_parallelism_threads)
        if target:
            from dflow.sessions.cluster_runtime import ClusterRuntime

            self._runtime = ClusterRuntime(target, self._config)
        else:
            self._runtime = LocalRuntime(self._config.inter_op_parallelism_threads)
        if self._config.log_device_placement:  # as TF1's session creation, the devices first
            print(f"Device mapping:\n{self._runtime.describe_devices()}", file=sys.stderr)
        self._plans: dict = {}
        self._closed = False
        self._id = secrets.token_hex(3)
        self._run_counter = itertools.count()
        self._lock = threading.Lock()
        self._active_runs: set = set()
        self._partial_runs: dict = {}  # handle -> partial_runs.PartialRun

    # -- properties --------------------------------------------------------------------
    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def graph_def(self):
        return [op.node_def for op in self._graph.get_operations()]

    @property
    def sess_str(self) -> str:
        return self._target if isinstance(self._target, str) else str(self._target)

    def list_devices(self) -> list:
        return [_DeviceAttributes(d) for d in self._runtime.devices(want_gpu=True)]

    # -- lifecycle ---------------------------------------------------------------------
    def close(self) -> None:
        """Releases the session's state, cancelling runs still blocked in it;
        running it afterwards raises RuntimeError."""
        if not self._closed:
            self._closed = True
            for ctx in list(self._active_runs):
                ctx.cancel("the session was closed")
            self._plans.clear()
            self._partial_runs.clear()
            self._runtime.close()
            process_tuning.restore_compute_threads(self._thread_limits)
            self._thread_limits = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")

    def as_default(self):
        """A context in which this session is the default (for ``eval`` and ``run``)."""
        return _DefaultSession(self)

    # -- run ---------------------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options: RunOptions | None = None, run_metadata=None):
        """Runs the ops that ``fetches`` need and returns their values in the same structure.

        >>> import dflow as tf
        >>> g = tf.Graph()
        >>> with g.as_default():
        ...     x = tf.placeholder(tf.float32, [2])
        ...     y = x * 2.0
        >>> with tf.Session(graph=g) as sess:
        ...     sess.run({"y": y}, feed_dict={x: [1.0, 2.0]})
        {'y': array([2., 4.], dtype=float32)}
        """
        self._check_open()
        fetch_structure = FetchStructure(self._graph, fetches)
        feeds = self._convert_feeds(feed_dict) if feed_dict else {}
        plan = self._plan_for(fetch_structure.tensors, fetch_structure.targets, feeds)
        values = self._execute(plan, feeds, options, run_metadata)
        return fetch_structure.rebuild(self._element_values(fetch_structure, plan, values))

    def make_callable(self, fetches, feed_list=None, accept_options: bool = False):
        """A function of the ``feed_list`` values that runs ``fetches`` (its plan built once)."""
        self._check_open()
        fetch_structure = FetchStructure(self._graph, fetches)
        feed_list = list(feed_list or [])
        feed_tensors = [t for k in feed_list for t in (k._fetch_components() if isinstance(k, CompositeTensor)
                                                       else (self._feed_tensor(k),))]
        plan = self._plan_for(fetch_structure.tensors, fetch_structure.targets, dict.fromkeys(feed_tensors))
        n = len(feed_list)

        def _callable(*args, **kwargs):
            if len(args) != n:
                raise TypeError(f"Expected {n} feed values to this callable, got {len(args)}.")
            if len(feed_tensors) != n:  # a SparseTensor in feed_list takes one value for its three parts
                args = [v for _, v in _expand_composite_feeds(zip(feed_list, args))]
            options = kwargs.pop("options", None) if accept_options else None
            run_metadata = kwargs.pop("run_metadata", None) if accept_options else None
            if kwargs:
                raise TypeError(f"Unexpected keyword arguments: {', '.join(kwargs)}")
            self._check_open()
            feeds = {t: _convert_feed_value(t, v) for t, v in zip(feed_tensors, args)}
            values = self._execute(plan, feeds, options, run_metadata)
            return fetch_structure.rebuild(self._element_values(fetch_structure, plan, values))

        return _callable

    def _run_loop(self, fetches, should_stop) -> None:
        """Runs ``fetches`` (no feeds) again and again until ``should_stop()`` or an error,
        which is raised: the loop of a ``QueueRunner`` thread.

        On a cluster, a run that is one partition of a remote worker loops on that
        worker (``ClusterRuntime.run_loop``): no round trip and no Python of this
        process per iteration."""
        self._check_open()
        fetch_structure = FetchStructure(self._graph, fetches)
        plan = self._plan_for(fetch_structure.tensors, fetch_structure.targets, {})
        if not fetch_structure.tensors:
            ctx = RunContext(0, self._config.operation_timeout_in_ms)
            self._active_runs.add(ctx)
            try:
                if self._runtime.run_loop(plan.partitions, plan.programs, ctx, should_stop):
                    return
            finally:
                self._active_runs.discard(ctx)
        while not should_stop():
            self._check_open()
            self._execute(plan, {}, None, None)

    def partial_run_setup(self, fetches, feeds=None) -> str:
        """A handle for a step run in several ``partial_run`` calls, which together fetch
        ``fetches`` and feed ``feeds`` (``dflow/sessions/partial_run.py``).

        >>> import dflow as tf
        >>> g = tf.Graph()
        >>> with g.as_default():
        ...     a, b = tf.placeholder(tf.float32, []), tf.placeholder(tf.float32, [])
        ...     r1 = a + 1.0
        ...     r2 = r1 * b
        >>> with tf.Session(graph=g) as sess:
        ...     h = sess.partial_run_setup([r1, r2], [a, b])
        ...     print(sess.partial_run(h, r1, {a: 2.0}), sess.partial_run(h, r2, {b: 10.0}))
        3.0 30.0
        """
        self._check_open()
        handle, state = partial_runs.setup(self, fetches, feeds)
        self._partial_runs[handle] = state
        return handle

    def partial_run(self, handle, fetches, feed_dict=None):
        """Feeds ``feed_dict`` and fetches ``fetches`` in the step that ``handle`` names; the ops
        that earlier calls ran do not run again."""
        self._check_open()
        state = self._partial_runs.get(handle) if isinstance(handle, str) else None
        if state is None:
            raise errors.InvalidArgumentError(None, None, "Must run 'setup' before performing partial runs!")
        out = partial_runs.step(self, state, fetches, feed_dict)
        if state.finished():
            self._partial_runs.pop(handle, None)
        return out

    def _run_elements(self, tensors: list, targets: list, feeds: dict, done=frozenset()) -> list:
        """The values of ``tensors``, running ``targets`` too, with ``feeds`` (converted values)
        and without running the ops in ``done`` (a partial run's)."""
        plan = self._plan_for(tensors, targets, feeds, frozenset(done))
        return self._execute(plan, feeds, None, None)

    # -- feeds ---------------------------------------------------------------------------
    def _feed_tensor(self, key) -> Tensor:
        try:
            t = self._graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
        except (TypeError, ValueError, KeyError) as e:
            msg = e.args[0] if e.args else str(e)
            raise TypeError(f"Cannot interpret feed_dict key as Tensor: {msg}") from None
        if not self._graph.is_feedable(t):
            raise ValueError(f"Tensor {t.name} may not be fed.")
        return t

    def _convert_feeds(self, feed_dict) -> dict:
        feeds = {}
        for key, value in _expand_composite_feeds(feed_dict):
            if type(key) is Tensor and key._op._graph is self._graph and key not in self._graph._unfeedable:
                t = key
            else:
                t = self._feed_tensor(key)
            if t in feeds:
                raise ValueError(f"Tensor {t.name} is fed twice in one feed_dict.")
            if type(value) is not np.ndarray and isinstance(value, session_ops.TensorHandle):  # TF's direct handle feed
                feeds[t] = session_ops.fed_handle_value(self, t, value)
            else:
                feeds[t] = _convert_feed_value(t, value)
        return feeds

    # -- planning ------------------------------------------------------------------------
    def _plan_for(self, fetch_tensors, targets, feeds: dict, done: frozenset = frozenset()) -> planning.Plan:
        key = (tuple(fetch_tensors), tuple(targets), frozenset(feeds), self._graph._version_of_structure(),
               self._runtime.topology_version, done)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._build_plan(fetch_tensors, targets, list(feeds), done)
            with self._lock:
                if len(self._plans) >= _MAX_PLANS:
                    self._plans.pop(next(iter(self._plans)))
                self._plans[key] = plan
        return plan

    def _build_plan(self, fetch_tensors, targets, fed: list, done=frozenset()) -> planning.Plan:
        for t in fetch_tensors:
            if not self._graph.is_fetchable(t):
                raise ValueError(f"Operation {t.op.name!r} has been marked as not fetchable.")
        fed_set = set(fed)
        ops = planning.prune_to_fetches(fetch_tensors, targets, fed_set, done)
        planning.check_feeds_cover_placeholders(ops)
        want_gpu = any("GPU" in op._device.upper() for op in ops)
        try:
            placement = place(ops, self._runtime.devices(want_gpu), self._runtime.default_device,
                              self._config.allow_soft_placement)
        except errors.InvalidArgumentError as e:
            if not self._target:
                raise
            raise errors.InvalidArgumentError(
                e.node_def, e.op, f"{e.message}\nThe graph names the tasks {', '.join(_tasks_named(ops))}; "
                                  f"the workers of the {self._runtime.describe_devices()}") from None
        if self._config.log_device_placement:
            for op in ops:
                print(f"{op.name}: ({op.type}): {placement[op]}", file=sys.stderr)
        op_level = _op_level_tasks()
        partitions = planning.partition_by_device(ops, placement, fed_set, fetch_tensors, op_level)
        fed_index = {t: i for i, t in enumerate(fed)}
        # A fetched ref variable is its value after the run's updates, as TF1's aliasing buffers give.
        aliases = planning.alias_fetches(fetch_tensors, ops, fed_set,
                                         self._graph._attachments.get("resource_variables", ()))
        sources_of_fetches = planning.fetch_sources(fetch_tensors, fed_index, partitions)
        planning.place_final_reads(aliases, partitions, placement, sources_of_fetches)
        programs = []
        for p in partitions:
            sources = []
            for t in p.inputs:
                if t in fed_index:
                    sources.append(("feed", fed_index[t]))
                else:
                    for j, up in enumerate(p.upstream):
                        if t in partitions[up].outputs:
                            sources.append(("up", j, partitions[up].outputs.index(t)))
                            break
            programs.append(self._runtime.compile(p, sources, partitions))
        plan = planning.Plan(list(fetch_tensors), list(targets), fed, ops, placement, partitions, programs)
        plan.fetch_sources = sources_of_fetches
        plan.needs_context = any(op._opdef.uses_context for op in ops)
        plan.fetches_handles = session_ops.fetches_handles(fetch_tensors)  # tf.get_session_handle outputs
        return plan

    # -- execution -----------------------------------------------------------------------
    def _execute(self, plan: planning.Plan, feeds: dict, options, run_metadata) -> list:
        feed_values = tuple(feeds[t] for t in plan.fed)
        traced = options is not None and options.trace_level > RunOptions.NO_TRACE
        # The decimal counter keeps a digit in the token, so dask's key_split drops it.
        token = f"{self._id}{next(self._run_counter)}"
        ctx = None
        timeout_ms = options.timeout_in_ms if options is not None else 0
        if plan.needs_context or timeout_ms > 0:
            ctx = RunContext(timeout_ms, self._config.operation_timeout_in_ms)
            self._active_runs.add(ctx)
        try:
            results = self._runtime.run(plan.partitions, plan.programs, feed_values, token, traced, ctx)
        finally:
            if ctx is not None:
                self._active_runs.discard(ctx)
        if traced and run_metadata is not None:
            _fill_step_stats(run_metadata, plan, [r[-1] for r in results])
        out = []
        for t, src in zip(plan.fetch_tensors, plan.fetch_sources):
            v = feed_values[src[1]] if src[0] == "feed" else results[src[0]][src[1]]
            out.append(_fetch_value(v, t))
        if plan.fetches_handles:  # a fetched handle is a TensorHandle of this session (TF's fetch handler)
            out = session_ops.wrap_fetched_handles(self, plan, out)
        return out

    @staticmethod
    def _element_values(fetch_structure: FetchStructure, plan, values: list) -> list:
        if len(values) == len(fetch_structure.elements):
            return values
        it = iter(values)
        return [next(it) if isinstance(e, Tensor) else None for e in fetch_structure.elements]


def _op_level_tasks() -> bool:
    """``dask.config.set({"dflow.task-granularity": "op"})`` lowers one task per op (debugging)."""
    import dask

    return dask.config.get("dflow.task-granularity", "partition") == "op"


def _tasks_named(ops) -> list:
    """The ``/job:J/task:T`` prefixes that the ops' requested devices name, ps first."""
    from dflow.framework.device_spec import DeviceSpec

    tasks = set()
    for op in ops:
        if op._device:
            spec = DeviceSpec.from_string(op._device)
            if spec.job is not None:
                tasks.add((spec.job != "ps", spec.job, spec.task if spec.task is not None else -1))
    return [f"/job:{job}" + (f"/task:{task}" if task >= 0 else "") for _, job, task in sorted(tasks)] or ["none"]


def _expand_composite_feeds(items):
    """``(key, value)`` pairs with each composite key (a SparseTensor) replaced by its components' pairs."""
    for key, value in (items.items() if isinstance(items, dict) else items):
        if isinstance(key, CompositeTensor):
            yield from key._feed_components(value)
        else:
            yield key, value


def _convert_feed_value(t: Tensor, value):
    if isinstance(value, Tensor):
        raise TypeError(f"The value of a feed cannot be a tf.Tensor object. Acceptable feed values include Python "
                        f"scalars, strings, lists, numpy ndarrays, or TensorHandles. For reference, the tensor "
                        f"object was {value} which was passed to the feed with key {t}.")
    np_dtype = t._dtype._array_np
    if type(value) is np.ndarray and value.dtype == np_dtype:
        arr = value
    elif t._dtype.is_quantized:  # quantized tensors hold plain integer arrays; values are cast (wrapping) as TF's feed
        arr = np.asarray(value).astype(np_dtype)
    elif t._dtype is dtypes.string:
        arr = to_numpy(value, dtypes.string)
    else:
        try:
            arr = np.asarray(value, dtype=np_dtype)
        except (ValueError, TypeError, OverflowError) as e:
            raise ValueError(f"Cannot feed value {value!r} to Tensor '{t.name}' of dtype {t.dtype.name}: {e}") \
                from None
    dims = t._shape._dims
    if dims is not None:
        shape = arr.shape
        if len(shape) != len(dims) or any(d._value is not None and d._value != s for d, s in zip(dims, shape)):
            raise ValueError(f"Cannot feed value of shape {shape!r} for Tensor '{t.name}', which has shape "
                             f"'{t.shape}'")
    return arr


def _fetch_value(v, t: Tensor):
    if type(v) is np.ndarray:
        if v.ndim == 0:
            return v[()]
        return v if v.flags.writeable else v.copy()
    if isinstance(v, np.generic):
        return v
    v = to_host(v)
    np_dtype = t._dtype._array_np  # quantized: plain integers, as TF returns
    return np.asarray(v, dtype=np_dtype)[()] if np.ndim(v) == 0 else np.asarray(v, dtype=np_dtype)


def _fill_step_stats(run_metadata, plan, stats_per_partition) -> None:
    """``run_metadata.step_stats`` of a traced run: per op, TF's times, label, ``output``
    (dtype, shape, bytes) and ``memory`` (what it allocated, by allocator)."""
    from dflow.framework.protos import summary_pb as pb

    by_device: dict = {}
    for p, stats in zip(plan.partitions, stats_per_partition):
        dev = by_device.get(p.device)
        if dev is None:
            dev = by_device[p.device] = DeviceStepStats(device=p.device)
            run_metadata.step_stats.dev_stats.append(dev)
        fusions = fusions_of(p)
        for rec in stats:
            i, t0, t1 = rec[0], rec[1], rec[2]
            op = p.ops[i]
            start_us, dur_us = t0 // 1000, max(0, (t1 - t0) // 1000)
            fused = fusions.get(i)
            op_type, inputs = (fused.label, fused.inputs) if fused is not None else (op.type, op._inputs)
            names = [t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}" for t in inputs]
            if fused is None:
                names += [f"^{c.name}" for c in op._control_inputs]
            node = NodeExecStats(
                node_name=op.name, all_start_micros=start_us, op_start_rel_micros=0, op_end_rel_micros=dur_us,
                all_end_rel_micros=dur_us, timeline_label=f"{op.name} = {op_type}({', '.join(names)})",
                all_start_nanos=t0, op_end_rel_nanos=t1 - t0, all_end_rel_nanos=t1 - t0)
            if len(rec) > 3 and rec[3]:
                node.output, node.memory = _node_memory(op, p.device, rec[3], start_us, pb)
            dev.node_stats.append(node)


# Ops whose outputs are buffers that outlive the run (constants, variables and the ref that an
# assignment returns): TF describes them without ``allocated_bytes`` and counts no memory for them.
_PERSISTENT_OUTPUTS = frozenset((
    "Const", "Variable", "VariableV2", "Assign", "AssignAdd", "AssignSub", "ScatterUpdate", "ScatterAdd",
    "ScatterSub", "ScatterMul", "ScatterDiv", "ScatterMin", "ScatterMax", "ScatterNdUpdate", "ScatterNdAdd",
    "ScatterNdSub"))


def allocator_name(device: str, on_gpu: bool) -> str:
    """TF's allocator name for a value: ``"GPU_<i>_bfc"`` in GPU ``i``'s memory, else ``"cpu"``."""
    if not on_gpu:
        return "cpu"
    index = device.rsplit("GPU:", 1)[-1] if "GPU:" in device.upper() else "0"
    return f"GPU_{index if index.isdigit() else 0}_bfc"


def _bytes_of(dtype, shape) -> int:
    """The bytes of a ``dtype`` tensor of ``shape`` (strings: TF's 24 bytes per element)."""
    from dflow.sessions.program import STRING_ELEMENT_BYTES

    n = int(np.prod(shape)) if len(shape) else 1
    if dtype is dtypes.string:
        return n * STRING_ELEMENT_BYTES
    return n * np.dtype(dtype._np).itemsize if dtype._np is not None else 0


def _node_memory(op, device: str, descriptions, start_us: int, pb) -> tuple[list, list]:
    """``(output, memory)`` of a traced op: a ``NodeOutput`` per output (``program.describe``'s
    ``descriptions``) and an ``AllocatorMemoryUsed`` per allocator its new outputs took memory
    from (all still live when it ends). ``pb``: the module of the messages, ``dflow.framework.protos.summary_pb``."""
    msg = pb.trusted_message
    persistent = op._type in _PERSISTENT_OUTPUTS
    outputs, allocated = [], {}
    for slot, (t, (shape, nbytes, on_gpu, forwarded)) in enumerate(zip(op._outputs, descriptions)):
        if nbytes is None:
            nbytes = _bytes_of(t._dtype, shape)
        alloc = allocator_name(device, on_gpu)
        if persistent:  # a buffer the run did not allocate: requested bytes only
            allocation = msg(pb.AllocationDescription, requested_bytes=nbytes, allocator_name=alloc)
        else:
            allocation = msg(pb.AllocationDescription, requested_bytes=nbytes, allocated_bytes=nbytes,
                             allocator_name=alloc)
            if not forwarded:
                allocated[alloc] = allocated.get(alloc, 0) + nbytes
        dims = [msg(pb.TensorShapeProto.Dim, size=int(d)) for d in shape]
        outputs.append(msg(pb.NodeOutput, slot=slot, tensor_description=msg(
            pb.TensorDescription, dtype=t._dtype._enum, shape=msg(pb.TensorShapeProto, dim=dims),
            allocation_description=allocation)))
    memory = [msg(pb.AllocatorMemoryUsed, allocator_name=alloc, total_bytes=n, peak_bytes=n, live_bytes=n,
                  allocation_records=[msg(pb.AllocationRecord, alloc_micros=start_us, alloc_bytes=n)])
              for alloc, n in allocated.items() if n > 0]
    return outputs, memory


class _DefaultSession:
    """``with sess.as_default():`` — pushes the session on this thread's stack."""

    def __init__(self, session):
        self._session = session

    def __enter__(self):
        _session_stack().append(self._session)
        return self._session

    def __exit__(self, *exc):
        stack = _session_stack()
        if stack and stack[-1] is self._session:
            stack.pop()
        return False


@tf_export("Session")
class Session(BaseSession):
    """A TF1 session: ``tf.Session(target='', graph=None, config=None)``.

    With no target the graph runs in this process on Dask's local scheduler,
    and the session owns its variables' values.
    """

    def __enter__(self):
        _graph_stack().append(self._graph)
        _session_stack().append(self)
        return self

    def __exit__(self, exc_type, exc, tb):
        stack = _session_stack()
        if stack and stack[-1] is self:
            stack.pop()
        gstack = _graph_stack()
        if gstack and gstack[-1] is self._graph:
            gstack.pop()
        self.close()
        return False

    @staticmethod
    def reset(target, containers=None, config=None):
        """Clears resource ``containers`` (all when None) on every worker of the cluster at ``target``.

        A local session's state ends with its ``close()``."""
        from dflow.sessions.cluster_runtime import reset

        reset(target, containers, config)


@tf_export("InteractiveSession")
class InteractiveSession(BaseSession):
    """A session that installs itself as the default on construction (for shells)."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        self._default = _DefaultSession(self)
        self._default.__enter__()

    def close(self) -> None:
        if not self._closed:
            stack = _session_stack()
            if self in stack:
                stack.remove(self)
        super().close()


@tf_export("get_default_session")
def get_default_session():
    """The innermost default session of this thread, or None."""
    stack = _session_stack()
    return stack[-1] if stack else None

