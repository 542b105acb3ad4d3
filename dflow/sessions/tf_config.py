"""``tf.config``: devices, threading, soft placement and optimizer settings of this process.

Physical devices are the CPU and the GPUs CUDA lists (read with
``nvidia-smi``, so asking does not initialise CUDA; CuPy when that tool is
missing). ``set_visible_devices`` hides GPUs by setting
``CUDA_VISIBLE_DEVICES`` for this process, which works until CUDA is
initialised (CuPy imported), after which it is a ``RuntimeError`` as in TF.
Soft placement and the thread counts are the defaults of sessions created
without a ``ConfigProto`` (TF's context config plays that part); a session
given a config uses its own. dflow has no graph optimizer and no XLA JIT:
the optimizer options are kept and reported but change nothing, and turning
the JIT on is ``NotImplementedError``.
"""

from __future__ import annotations

import collections
import os
import sys

from dflow._api import tf_export
from dflow.sessions.config import SESSION_DEFAULTS

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
PhysicalDevice.__doc__ = "A device of this machine: ``name`` (``/physical_device:GPU:0``) and ``device_type``."
tf_export("config.PhysicalDevice")(PhysicalDevice)

LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])
LogicalDevice.__doc__ = "A device ops can be placed on: ``name`` (``/device:GPU:0``) and ``device_type``."
tf_export("config.LogicalDevice")(LogicalDevice)

_LDC = collections.namedtuple("LogicalDeviceConfiguration",
                              ["memory_limit", "experimental_priority", "experimental_device_ordinal"])


@tf_export("config.LogicalDeviceConfiguration")
class LogicalDeviceConfiguration(_LDC):
    """How to present a physical device: ``memory_limit`` (MB), priority and ordinal (kept, not enforced)."""

    def __new__(cls, memory_limit=None, experimental_priority=None, experimental_device_ordinal=None):
        return super().__new__(cls, memory_limit, experimental_priority, experimental_device_ordinal)


_physical: list | None = None
_visible: list | None = None
_logical_configs: dict = {}
_optimizer_options = {"disable_model_pruning": False, "disable_meta_optimizer": False}


def _gpu_ids() -> list:
    from dflow.cluster.local_cluster import visible_gpus

    ids = visible_gpus()
    if ids is not None:
        return list(range(len(ids)))
    try:
        import cupy
    except Exception:
        return []
    try:
        return list(range(cupy.cuda.runtime.getDeviceCount()))
    except Exception:  # no driver, no device
        return []


def _physical_devices() -> list:
    global _physical
    if _physical is None:
        _physical = [PhysicalDevice("/physical_device:CPU:0", "CPU")] + [
            PhysicalDevice(f"/physical_device:GPU:{i}", "GPU") for i in _gpu_ids()]
    return _physical


def _of_type(devices, device_type):
    return [d for d in devices if device_type is None or d.device_type == device_type.upper()]


@tf_export("config.list_physical_devices", "config.experimental.list_physical_devices")
def list_physical_devices(device_type=None) -> list:
    """The CPU and GPUs of this machine (``device_type``: ``"CPU"``/``"GPU"`` to filter)."""
    return _of_type(_physical_devices(), device_type)


@tf_export("config.get_visible_devices", "config.experimental.get_visible_devices")
def get_visible_devices(device_type=None) -> list:
    """The physical devices dflow may use (all, unless ``set_visible_devices`` hid some)."""
    return _of_type(_visible if _visible is not None else _physical_devices(), device_type)


def _cuda_initialized() -> bool:
    return "cupy" in sys.modules


@tf_export("config.set_visible_devices", "config.experimental.set_visible_devices")
def set_visible_devices(devices, device_type=None) -> None:
    """Makes only ``devices`` (of ``device_type``, or of every type) visible; the CPU must stay visible.

    Hiding GPUs sets ``CUDA_VISIBLE_DEVICES``: a ``RuntimeError`` once CUDA is initialised in this process.
    """
    global _visible
    if isinstance(devices, PhysicalDevice):
        devices = [devices]
    devices = list(devices)
    physical = _physical_devices()
    for d in devices:
        if d not in physical:
            raise ValueError(f"Unrecognized device: {d!r}")
    current = get_visible_devices()
    new = [d for d in current if device_type is not None and d.device_type != device_type.upper()]
    new += [d for d in physical if d in devices and (device_type is None or d.device_type == device_type.upper())]
    new = [d for d in physical if d in new]
    if not _of_type(new, "CPU"):
        raise ValueError("set_visible_devices: the CPU must stay visible (dflow runs every op without a GPU "
                         "kernel there)")
    gpus = [int(d.name.rsplit(":", 1)[1]) for d in _of_type(new, "GPU")]
    if gpus != [int(d.name.rsplit(":", 1)[1]) for d in _of_type(current, "GPU")]:
        if _cuda_initialized():
            raise RuntimeError("Visible devices cannot be modified after being initialized")
        from dflow.cluster.local_cluster import visible_gpus

        ids = visible_gpus() or [str(i) for i in range(len(_of_type(physical, "GPU")))]
        os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(ids[i] for i in gpus)
    _visible = new


@tf_export("config.list_logical_devices", "config.experimental.list_logical_devices")
def list_logical_devices(device_type=None) -> list:
    """The devices ops may name: ``/device:CPU:0`` and one ``/device:GPU:i`` per visible GPU."""
    out = [LogicalDevice("/device:CPU:0", "CPU")]
    out += [LogicalDevice(f"/device:GPU:{i}", "GPU") for i, _ in enumerate(get_visible_devices("GPU"))]
    return _of_type(out, device_type)


DeviceAttributes = collections.namedtuple(
    "DeviceAttributes", ["name", "device_type", "memory_limit", "locality", "incarnation", "physical_device_desc"])
DeviceAttributes.__doc__ = "TF's ``DeviceAttributes`` message of one device, as ``device_lib`` lists them."


@tf_export("python.client.device_lib.list_local_devices")
def list_local_devices(session_config=None) -> list:
    """TF1's ``device_lib.list_local_devices()`` (``from tensorflow.python.client import device_lib``):
    the ``DeviceAttributes`` of each device ops may use, ``/device:CPU:0`` first (``device_type``
    ``"CPU"``/``"GPU"``, ``memory_limit`` in bytes: TF's 256 MiB for the CPU, 0 where unknown)."""
    return [DeviceAttributes(d.name, d.device_type, 268435456 if d.device_type == "CPU" else 0, {}, i + 1, "")
            for i, d in enumerate(list_logical_devices())]


@tf_export("config.set_logical_device_configuration", "config.experimental.set_virtual_device_configuration")
def set_logical_device_configuration(device, logical_devices) -> None:
    """Records how ``device`` is presented; dflow presents each physical device as one logical device."""
    if device not in _physical_devices():
        raise ValueError(f"Unrecognized device: {device!r}")
    logical_devices = None if logical_devices is None else list(logical_devices)
    if logical_devices is not None and len(logical_devices) > 1:
        raise NotImplementedError("set_logical_device_configuration: dflow cannot split a physical device into "
                                  "several logical devices; use one configuration per device")
    _logical_configs[device] = logical_devices


@tf_export("config.get_logical_device_configuration", "config.experimental.get_virtual_device_configuration")
def get_logical_device_configuration(device):
    """The configurations given to ``set_logical_device_configuration`` for ``device``, or None."""
    if device not in _physical_devices():
        raise ValueError(f"Unrecognized device: {device!r}")
    return _logical_configs.get(device)


@tf_export("config.get_soft_device_placement")
def get_soft_device_placement() -> bool:
    """Whether sessions created without a config fall back to a CPU for unplaceable ops (TF1: False)."""
    return bool(SESSION_DEFAULTS.get("allow_soft_placement", False))


@tf_export("config.set_soft_device_placement")
def set_soft_device_placement(enabled) -> None:
    """Sets ``allow_soft_placement`` of sessions created from now on without a config."""
    SESSION_DEFAULTS["allow_soft_placement"] = bool(enabled)


@tf_export("config.threading.get_intra_op_parallelism_threads")
def get_intra_op_parallelism_threads() -> int:
    """The BLAS/OpenMP thread count of sessions created without a config (0: dflow chooses)."""
    return SESSION_DEFAULTS.get("intra_op_parallelism_threads", 0)


@tf_export("config.threading.set_intra_op_parallelism_threads")
def set_intra_op_parallelism_threads(num_threads) -> None:
    """Sets ``intra_op_parallelism_threads`` of sessions created from now on without a config."""
    SESSION_DEFAULTS["intra_op_parallelism_threads"] = int(num_threads)


@tf_export("config.threading.get_inter_op_parallelism_threads")
def get_inter_op_parallelism_threads() -> int:
    """The scheduler thread count of sessions created without a config (0: dflow chooses)."""
    return SESSION_DEFAULTS.get("inter_op_parallelism_threads", 0)


@tf_export("config.threading.set_inter_op_parallelism_threads")
def set_inter_op_parallelism_threads(num_threads) -> None:
    """Sets ``inter_op_parallelism_threads`` of sessions created from now on without a config."""
    SESSION_DEFAULTS["inter_op_parallelism_threads"] = int(num_threads)


@tf_export("config.optimizer.get_jit")
def get_jit() -> str:
    """``""``: dflow has no XLA JIT."""
    return ""


@tf_export("config.optimizer.set_jit")
def set_jit(enabled) -> None:
    """Turning the JIT off is accepted; turning it on is ``NotImplementedError`` (dflow has no XLA)."""
    if enabled and enabled != "":
        raise NotImplementedError("config.optimizer.set_jit: dflow has no XLA JIT compiler; ops run as numpy "
                                  "(or CuPy) kernels")


@tf_export("config.optimizer.get_experimental_options")
def get_experimental_options() -> dict:
    """The Grappler options set so far (dflow keeps them; it has no graph optimizer they would change)."""
    return dict(_optimizer_options)


@tf_export("config.optimizer.set_experimental_options")
def set_experimental_options(options) -> None:
    """Records Grappler options (``{"constant_folding": False, ...}``); dflow has no graph rewrites to tune."""
    _optimizer_options.update(options)


@tf_export("config.functions_run_eagerly")
def functions_run_eagerly() -> bool:
    """False: dflow has no ``tf.function``; graphs always run in sessions."""
    return False


@tf_export("config.run_functions_eagerly")
def run_functions_eagerly(run_eagerly) -> None:
    """``False`` is what dflow does; ``True`` is ``NotImplementedError`` (dflow runs TF1 graphs, never eagerly)."""
    if run_eagerly:
        raise NotImplementedError("config.run_functions_eagerly(True): dflow is TF1 graphs and sessions; it has "
                                  "no eager execution")
