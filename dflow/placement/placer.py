"""The placer: gives every op of a run a full device name.

``place`` is a pure function of the ops, the devices a runtime offers and
the soft-placement flag. An op's requested (possibly partial) device must
match a device field by field; ops without a GPU kernel only match CPUs; ops
that request nothing go to the default device. An unplaceable op is an
``InvalidArgumentError`` naming it, or falls back to a CPU of its requested
job/task (then the default device) under ``allow_soft_placement``.
"""

from __future__ import annotations

from dflow.framework import errors
from dflow.framework.device_spec import DeviceSpec

LOCAL_CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def place(ops, devices: list[str], default_device: str, allow_soft_placement: bool = False) -> dict:
    """Maps each op to one of ``devices`` (full names).

    >>> import dflow as tf
    >>> g = tf.Graph()
    >>> with g.as_default():
    ...     c = tf.constant(1.0)
    >>> place([c.op], [LOCAL_CPU], LOCAL_CPU) == {c.op: LOCAL_CPU}
    True
    """
    specs = [(d, DeviceSpec.from_string(d)) for d in devices]
    cache: dict = {}
    placement = {}
    for op in ops:
        gpu_ok = op._opdef.gpu
        key = (op._device, gpu_ok)
        dev = cache.get(key)
        if dev is None:
            dev = cache[key] = _place_one(op, specs, default_device, gpu_ok, allow_soft_placement)
        placement[op] = dev
    return placement


def _place_one(op, specs, default_device, gpu_ok, soft) -> str:
    if not op._device:
        return default_device
    requested = DeviceSpec.from_string(op._device)
    matches = [name for name, spec in specs
               if requested.is_subset_of(spec) and (gpu_ok or spec.device_type == "CPU")]
    if matches:
        return matches[0]
    if soft:
        relaxed = requested.replace(device_type=None, device_index=None)
        cpus = [name for name, spec in specs if spec.device_type == "CPU" and relaxed.is_subset_of(spec)]
        return cpus[0] if cpus else default_device
    if any(requested.is_subset_of(spec) for _, spec in specs):
        why = f"no supported kernel for {requested.device_type} devices is available"
    else:
        why = "no devices matching that specification are registered in this process"
    raise errors.InvalidArgumentError(
        None, op,
        f"Cannot assign a device for operation {op.name}: Could not satisfy explicit device specification "
        f"'{op._device}' because {why}; available devices: {', '.join(n for n, _ in specs)}. Set "
        f"allow_soft_placement=True in tf.ConfigProto to fall back to a CPU, or run on a cluster target "
        f"that has this device.")
