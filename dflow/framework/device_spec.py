"""Device names: ``/job:J/replica:R/task:T/device:TYPE:N`` and ``DeviceSpec``.

Partial specs merge as in TF1: fields set on the inner (more specific) spec
win, unset fields are taken from the outer one.
"""

from __future__ import annotations

import re

_FIELD = re.compile(r"^(job|replica|task|device|cpu|gpu)(?::(.*))?$", re.IGNORECASE)


class DeviceSpec:
    """A (possibly partial) device specification.

    >>> DeviceSpec.from_string("/job:ps/task:0/device:CPU:0").to_string()
    '/job:ps/task:0/device:CPU:0'
    """

    __slots__ = ("job", "replica", "task", "device_type", "device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self.job = job
        self.replica = None if replica is None else int(replica)
        self.task = None if task is None else int(task)
        self.device_type = device_type.upper() if isinstance(device_type, str) and device_type else None
        self.device_index = None if device_index is None or device_index == "*" else int(device_index)

    @classmethod
    def from_string(cls, spec: str | None) -> DeviceSpec:
        if isinstance(spec, DeviceSpec):
            return spec.copy()
        out = cls()
        if not spec:
            return out
        for part in spec.split("/"):
            if not part:
                continue
            m = _FIELD.match(part)
            if not m:
                raise ValueError(f"Unknown attribute: '{part}' in '{spec}'")
            key, rest = m.group(1).lower(), m.group(2)
            try:
                if key == "job":
                    out.job = rest
                elif key == "replica":
                    out.replica = int(rest)
                elif key == "task":
                    out.task = int(rest)
                elif key == "device":
                    dtype, _, index = (rest or "").partition(":")
                    out.device_type = dtype.upper() or None
                    out.device_index = None if index in ("", "*") else int(index)
                else:  # legacy "/cpu:0", "/gpu:1"
                    out.device_type = key.upper()
                    out.device_index = None if rest in (None, "", "*") else int(rest)
            except ValueError:
                raise ValueError(f"Unknown attribute: '{part}' in '{spec}'") from None
        return out

    def copy(self) -> DeviceSpec:
        return DeviceSpec(self.job, self.replica, self.task, self.device_type, self.device_index)

    def merge_from(self, dev: DeviceSpec) -> None:
        """Overwrites this spec's fields with the fields ``dev`` sets."""
        for f in self.__slots__:
            v = getattr(dev, f)
            if v is not None:
                setattr(self, f, v)

    def make_merged_spec(self, dev: DeviceSpec) -> DeviceSpec:
        out = self.copy()
        out.merge_from(dev)
        return out

    def replace(self, **kwargs) -> DeviceSpec:
        out = self.copy()
        for k, v in kwargs.items():
            setattr(out, k, v)
        return out

    def to_string(self) -> str:
        parts = []
        if self.job is not None:
            parts.append(f"/job:{self.job}")
        if self.replica is not None:
            parts.append(f"/replica:{self.replica}")
        if self.task is not None:
            parts.append(f"/task:{self.task}")
        if self.device_type is not None:
            idx = "*" if self.device_index is None else self.device_index
            parts.append(f"/device:{self.device_type}:{idx}")
        return "".join(parts)

    def is_subset_of(self, full: DeviceSpec) -> bool:
        """True when every field set here equals the one in ``full``."""
        return all(getattr(self, f) is None or getattr(self, f) == getattr(full, f) for f in self.__slots__)

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())

    def __repr__(self):
        return f"<DeviceSpec {self.to_string()!r}>"


def canonical_name(spec) -> str:
    """Normalises a device string (or DeviceSpec) to TF1's spelling."""
    if spec is None:
        return ""
    return DeviceSpec.from_string(spec if isinstance(spec, str) else spec.to_string()).to_string()


def merge_device(inner: str, outer) -> str:
    """``inner`` (already on the op) wins over ``outer`` field by field."""
    merged = DeviceSpec.from_string(outer) if isinstance(outer, str) else outer.copy()
    merged.merge_from(DeviceSpec.from_string(inner))
    return merged.to_string()
