"""``tf.train.replica_device_setter``: variables on parameter servers, the rest on a worker."""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.device_spec import DeviceSpec

# Op types that hold state and go to a parameter server (TF1's STANDARD_PS_OPS).
STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable", "MutableHashTableV2",
                   "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                   "MutableDenseHashTableV2", "VarHandleOp", "BoostedTreesEnsembleResource")


class _RoundRobinStrategy:
    """Gives each new parameter-server op the next ps task in turn."""

    def __init__(self, num_tasks: int):
        self._num_tasks = num_tasks
        self._next = 0

    def __call__(self, op) -> int:
        task = self._next
        self._next = (self._next + 1) % self._num_tasks
        return task


@tf_export("contrib.training.GreedyLoadBalancingStrategy")
class GreedyLoadBalancingStrategy:
    """Puts each variable on the ps task with the fewest bytes so far (``load_fn``: bytes of an op)."""

    def __init__(self, num_tasks: int, load_fn=None):
        self._loads = [0] * num_tasks
        self._load_fn = load_fn or byte_size_load_fn

    def __call__(self, op) -> int:
        task = min(range(len(self._loads)), key=lambda i: self._loads[i])
        self._loads[task] += self._load_fn(op)
        return task


@tf_export("contrib.training.byte_size_load_fn")
def byte_size_load_fn(op) -> int:
    """The byte size of a variable op's value (0 when its shape is not fully known)."""
    t = op.outputs[0]
    n = t.shape.num_elements()
    return 0 if n is None else n * t.dtype.size


class _ReplicaDeviceChooser:
    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def __call__(self, op) -> str:
        current = DeviceSpec.from_string(op.device or "")
        if self._ps_tasks and self._ps_device and op.type in self._ps_ops:
            ps = DeviceSpec.from_string(self._ps_device)
            if ps.job is None or current.job in (None, ps.job):
                ps = ps.replace(task=self._ps_strategy(op))
                if not self._merge_devices:
                    return ps.to_string()
                return ps.make_merged_spec(current).to_string()
        worker = DeviceSpec.from_string(self._worker_device or "")
        if not self._merge_devices:
            return worker.to_string()
        return worker.make_merged_spec(current).to_string()


@tf_export("train.replica_device_setter")
def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker", merge_devices=True,
                          cluster=None, ps_ops=None, ps_strategy=None):
    """A device function for ``tf.device``: variables round-robin over the ps tasks,
    everything else on ``worker_device``.

    >>> import dflow as tf
    >>> with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
    ...     a = tf.Variable(1.0); b = tf.Variable(2.0); c = a + b
    >>> a.device, b.device, c.device
    ('/job:ps/task:0', '/job:ps/task:1', '/job:worker')
    """
    if cluster is not None:
        spec = cluster.as_dict() if hasattr(cluster, "as_dict") else dict(cluster)
        ps_job = DeviceSpec.from_string(ps_device).job or "ps"
        ps_tasks = len(spec.get(ps_job, ()))
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    elif not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    return _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy)
