"""TF1 data types, mapped one-to-one onto numpy dtypes.

``tf.string`` tensors hold numpy object arrays of ``bytes``, as TF1 returns
them from ``Session.run``.
"""

from __future__ import annotations

import builtins

import numpy as np

from dflow._api import export_value


class DType:
    """A tensor element type: ``tf.float32``, ``tf.int64``, ``tf.string``, ...

    >>> as_dtype("float32") is float32
    True
    """

    __slots__ = ("name", "_np", "_enum", "_array_np")

    def __init__(self, name: str, np_type, enum: int):
        self.name = name
        self._np = np_type
        self._enum = enum
        # What its tensors' arrays hold: TF's stand-in for a quantized type is a one-field structured dtype,
        # but its values are the plain integers of that field (``int8`` for ``qint8``), as TF's sessions return.
        self._array_np = np_type[0] if isinstance(np_type, np.dtype) and np_type.names else np_type

    @property
    def as_numpy_dtype(self):
        if self._np is None:
            raise TypeError(f"tf.{self.name} has no numpy dtype in dflow: {UNIMPLEMENTED_REASONS[self]}")
        return self._np

    @property
    def array_dtype(self):
        """The numpy type of this type's values: ``as_numpy_dtype``, but the plain integer type of a
        quantized one (``np.int8`` for ``qint8``)."""
        if self._np is None:
            raise TypeError(f"tf.{self.name} has no numpy dtype in dflow: {UNIMPLEMENTED_REASONS[self]}")
        return self._array_np

    @property
    def as_datatype_enum(self) -> int:
        return self._enum

    @property
    def base_dtype(self) -> DType:
        return self

    @property
    def real_dtype(self) -> DType:
        if self is complex64:
            return float32
        if self is complex128:
            return float64
        return self

    @property
    def is_floating(self) -> bool:
        return self in (float16, float32, float64, bfloat16)

    @property
    def is_quantized(self) -> bool:
        return self in QUANTIZED_DTYPES

    @property
    def is_integer(self) -> bool:
        return self in _INTEGERS

    @property
    def is_unsigned(self) -> bool:
        return self in (uint8, uint16, uint32, uint64)

    @property
    def is_complex(self) -> bool:
        return self in (complex64, complex128)

    @property
    def is_bool(self) -> bool:
        return self is bool

    @property
    def is_numpy_compatible(self) -> bool:
        return self not in (resource, variant)

    @property
    def size(self) -> int:
        if self is string:
            return 1
        if self._np is None:
            return 2 if self is bfloat16 else 0
        return np.dtype(self._np).itemsize

    @property
    def min(self):
        self._check_has_range("minimum")
        if self.is_floating:
            return np.finfo(self._np).min
        if self.is_integer:
            return np.iinfo(self._np).min
        if self is bool:
            return False
        raise TypeError(f"Cannot find minimum value of {self}.")

    @property
    def max(self):
        self._check_has_range("maximum")
        if self.is_floating:
            return np.finfo(self._np).max
        if self.is_integer:
            return np.iinfo(self._np).max
        if self is bool:
            return True
        raise TypeError(f"Cannot find maximum value of {self}.")

    def _check_has_range(self, which: str) -> None:
        if self.is_quantized:
            raise TypeError(f"Cannot find {which} value of {self} with quantized type {self}.")
        if self._np is None:
            raise TypeError(f"Cannot find {which} value of {self}.")

    def is_compatible_with(self, other) -> bool:
        return self is as_dtype(other)

    def __eq__(self, other) -> bool:
        if other is None:
            return False
        try:
            return self is as_dtype(other)
        except TypeError:
            return False

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return self._enum

    def __reduce__(self):
        return as_dtype, (self.name,)

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __str__(self) -> str:
        # What TF1 prints: ``print(x.dtype)`` and TF's error messages show ``<dtype: 'float32'>``.
        return f"<dtype: {self.name!r}>"


float16 = DType("float16", np.float16, 19)
half = float16
float32 = DType("float32", np.float32, 1)
float64 = DType("float64", np.float64, 2)
double = float64
int8 = DType("int8", np.int8, 6)
int16 = DType("int16", np.int16, 5)
int32 = DType("int32", np.int32, 3)
int64 = DType("int64", np.int64, 9)
uint8 = DType("uint8", np.uint8, 4)
uint16 = DType("uint16", np.uint16, 17)
uint32 = DType("uint32", np.uint32, 22)
uint64 = DType("uint64", np.uint64, 23)
bool = DType("bool", np.bool_, 10)  # noqa: A001 - TF1's public name
string = DType("string", np.object_, 7)
complex64 = DType("complex64", np.complex64, 8)
complex128 = DType("complex128", np.complex128, 18)

# The quantized types carry TF's numpy stand-ins (a one-field structured dtype); their tensors hold the
# plain integer arrays TF's sessions return, and only the quantize ops make or read them (other ops refuse
# them by their dtype lists, as TF's). The types after them dflow names but cannot compute with: any op
# producing one is NotImplementedError at graph build.
qint8 = DType("qint8", np.dtype([("qint8", np.int8)]), 11)
quint8 = DType("quint8", np.dtype([("quint8", np.uint8)]), 12)
qint16 = DType("qint16", np.dtype([("qint16", np.int16)]), 15)
quint16 = DType("quint16", np.dtype([("quint16", np.uint16)]), 16)
qint32 = DType("qint32", np.dtype([("qint32", np.int32)]), 13)
bfloat16 = DType("bfloat16", None, 14)
resource = DType("resource", None, 20)
variant = DType("variant", None, 21)
# The dtype of a While loop's trace, a Python list that only gradient ops read (dflow/ops/control_flow/
# if_while_ops.py): named as TF's variant, but holding Python objects, and never a user's dtype.
trace_variant = DType("variant", object, 21)

_INTEGERS = (int8, int16, int32, int64, uint8, uint16, uint32, uint64)
ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, uint16,
       uint32, uint64, bool, string, complex64, complex128)
QUANTIZED_DTYPES = frozenset((qint8, quint8, qint16, quint16, qint32))
UNIMPLEMENTED_REASONS = {
    bfloat16: "bfloat16 is not implemented (numpy has no bfloat16 type; use float16 or float32)",
    resource: "dflow has no resource tensors (variables, queues and tables are Python-side resources)",
    variant: "dflow has no variant tensors (datasets and TensorArrays are Python-side values)",
}
UNIMPLEMENTED = frozenset(UNIMPLEMENTED_REASONS)

_BY_NAME = {d.name: d for d in ALL + tuple(QUANTIZED_DTYPES | UNIMPLEMENTED)}
_BY_NAME.update(half=float16, float=float32, double=float64)  # TF1's C names, as in tf.placeholder("float")
_BY_NP = {np.dtype(d._np): d for d in ALL + tuple(QUANTIZED_DTYPES) if d is not string}
_BY_NP[np.dtype(np.object_)] = string
_BY_ENUM = {d._enum: d for d in ALL + tuple(QUANTIZED_DTYPES | UNIMPLEMENTED)}
_BY_PY = {float: float32, int: int32, complex: complex128, str: string,
          bytes: string}
_BY_PY[builtins.bool] = bool


def as_dtype(type_value) -> DType:
    """Converts a DType, numpy dtype, Python type, enum or name to a DType.

    >>> as_dtype(np.float64)
    tf.float64
    """
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        try:
            return _BY_NAME[type_value]
        except KeyError:
            raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.") from None
    if isinstance(type_value, int) and not isinstance(type_value, type):
        if type_value in _BY_ENUM:
            return _BY_ENUM[type_value]
        raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")
    if type_value in _BY_PY:
        return _BY_PY[type_value]
    try:
        npd = np.dtype(type_value)
    except TypeError:
        raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.") from None
    if npd.kind in "SUO":
        return string
    try:
        return _BY_NP[npd]
    except KeyError:
        raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.") from None


def dtype_of_value(value) -> DType:
    """The DType TF1 infers for a Python or numpy value (``tf.constant``)."""
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return as_dtype(value.dtype)
    arr = np.asarray(value)
    if arr.dtype.kind in "SUO":
        return string
    if arr.dtype == np.float64:
        return float32  # Python floats become float32, as in TF1
    if arr.dtype.kind in "iu":
        # Python ints become int32 unless they do not fit.
        info = np.iinfo(np.int32)
        if arr.size == 0 or (arr.min() >= info.min and arr.max() <= info.max):
            return int32
        return int64
    if arr.dtype == np.complex128:
        return complex128
    return as_dtype(arr.dtype)



for _d in sorted(QUANTIZED_DTYPES | UNIMPLEMENTED, key=lambda d: d.name):
    export_value(_d.name, _d)
    export_value(f"dtypes.{_d.name}", _d)
export_value("dtypes.half", half)
export_value("dtypes.double", double)
export_value("QUANTIZED_DTYPES", QUANTIZED_DTYPES)
export_value("dtypes.QUANTIZED_DTYPES", QUANTIZED_DTYPES)
del _d
