import numpy as np
import pytest

import dflow as tf
from dflow.framework.tensor_shape import broadcast_shapes


@pytest.mark.parametrize("value,dtype", [
    (3, tf.int32), (3.0, tf.float32), (2 ** 40, tf.int64), (np.float64(1), tf.float64),
    ([1, 2.5], tf.float32), (True, tf.bool), ("x", tf.string), (np.int8(1), tf.int8),
    (np.array([1, 2], dtype=np.uint8), tf.uint8), (1 + 2j, tf.complex128),
])
def test_constant_infers_tf1_dtypes(value, dtype):
    assert tf.constant(value).dtype == dtype


@pytest.mark.parametrize("spelling", [tf.float32, "float32", "float", float, np.float32, np.dtype("float32"), 1])
def test_as_dtype_spellings(spelling):
    assert tf.as_dtype(spelling) is tf.float32


# What TF 2.15's compat.v1 answers for the names TF1 programs use (tf.as_dtype, tf.placeholder).
@pytest.mark.parametrize("name, dtype", [("float", "float32"), ("double", "float64"), ("half", "float16"),
                                         ("float32", "float32"), ("int32", "int32"), ("bool", "bool"),
                                         ("string", "string"), ("uint8", "uint8")])
def test_tf1_dtype_names(name, dtype):
    assert tf.as_dtype(name).name == dtype
    with tf.Graph().as_default():
        assert tf.placeholder(name, [None, 2]).dtype.name == dtype
        if dtype != "string":
            assert tf.zeros([2], name).dtype.name == dtype


@pytest.mark.parametrize("name", ["int", "long", "complex", "float128"])
def test_names_tf1_refuses_are_a_type_error_naming_the_value(name):
    with pytest.raises(TypeError, match=repr(name)):
        tf.as_dtype(name)


def test_float_as_a_dtype_everywhere_tf1_takes_one():
    """``"float"`` in the places tutorial programs write it (TF 2.15 gives float32 in each)."""
    with tf.Graph().as_default():
        x = tf.placeholder("float", [None, 2])
        w = tf.Variable(tf.random_normal([2, 1], dtype="float"))
        b = tf.get_variable("b", [1], "float", initializer=tf.zeros_initializer())
        y = tf.matmul(x, w) + b + tf.cast(tf.constant([1]), "float") + tf.truncated_normal([1], dtype="float")
        assert {t.dtype.base_dtype.name for t in (x, w, b, y)} == {"float32"}
        assert x.dtype == "float"


def test_dtype_properties():
    assert tf.float32.is_floating and not tf.int32.is_floating
    assert tf.int64.is_integer and tf.uint8.is_unsigned
    assert tf.bool.is_bool and tf.complex64.real_dtype is tf.float32
    assert tf.float32.as_numpy_dtype is np.float32
    assert tf.int8.max == 127 and tf.int8.min == -128
    assert tf.float32 == "float32" and tf.float32 != tf.float64
    assert tf.half is tf.float16 and tf.double is tf.float64
    with pytest.raises(TypeError):
        tf.as_dtype("floaty")


def test_tensor_shape_tf1_behaviour():
    s = tf.TensorShape([None, 3])
    assert s.ndims == 2 and s.as_list() == [None, 3]
    assert isinstance(s[1], tf.Dimension) and s[1].value == 3 and s[0].value is None
    assert s[1:].as_list() == [3]
    assert not s.is_fully_defined() and s.num_elements() is None
    assert tf.TensorShape([2, 3]).num_elements() == 6
    assert s.is_compatible_with([5, 3]) and not s.is_compatible_with([5, 4])
    assert s.merge_with([5, None]).as_list() == [5, 3]
    assert tf.TensorShape(None).ndims is None
    with pytest.raises(ValueError):
        tf.TensorShape(None).as_list()
    assert str(tf.TensorShape([None, 3])) == "(?, 3)"
    assert tf.TensorShape([2]) == [2]
    assert (s.concatenate([4])).as_list() == [None, 3, 4]
    assert tf.dimension_value(s[1]) == 3


def test_dimension_arithmetic_with_unknowns():
    assert (tf.Dimension(2) * 3).value == 6
    assert (tf.Dimension(None) + 1).value is None
    assert (tf.Dimension(2) == 2) is True
    assert (tf.Dimension(None) == 2) is None


@pytest.mark.parametrize("a,b,out", [
    ([2, 3], [3], [2, 3]), ([None, 1], [4], [None, 4]), ([1], [None], [None]), ([], [2, 2], [2, 2]),
])
def test_broadcast_shapes(a, b, out):
    assert broadcast_shapes(tf.TensorShape(a), tf.TensorShape(b)).as_list() == out


def test_broadcast_shapes_rejects_mismatch():
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        broadcast_shapes(tf.TensorShape([2]), tf.TensorShape([3]))


def test_constant_shape_argument_broadcasts_and_pads_like_tf1():
    with tf.Session() as sess:
        assert sess.run(tf.constant(7, shape=[2, 2])).tolist() == [[7, 7], [7, 7]]
        assert sess.run(tf.constant([1, 2, 3], shape=[2, 3])).tolist() == [[1, 2, 3], [3, 3, 3]]
        assert sess.run(tf.constant(["ab", "c"])).tolist() == [b"ab", b"c"]
    with pytest.raises(ValueError, match="Too many elements"):
        tf.constant([1, 2, 3], shape=[2])


def test_constant_refuses_lossy_python_values():
    with pytest.raises(TypeError, match="Expected int32"):
        tf.constant(1.5, dtype=tf.int32)
    with pytest.raises(TypeError, match="Expected float32"):
        tf.constant("a", dtype=tf.float32)


def test_errors_module_classes():
    e = tf.errors.InvalidArgumentError(None, None, "bad")
    assert isinstance(e, tf.errors.OpError) and e.message == "bad" and e.op is None
    assert e.error_code == tf.errors.INVALID_ARGUMENT
    for name in ["CancelledError", "DeadlineExceededError", "OutOfRangeError", "FailedPreconditionError",
                 "UnavailableError", "AbortedError", "NotFoundError", "DataLossError", "UnknownError"]:
        assert issubclass(getattr(tf.errors, name), tf.errors.OpError)


def test_device_spec_round_trip_and_merge():
    spec = tf.DeviceSpec.from_string("/job:ps/replica:0/task:1/device:GPU:2")
    assert (spec.job, spec.replica, spec.task, spec.device_type, spec.device_index) == ("ps", 0, 1, "GPU", 2)
    assert spec.to_string() == "/job:ps/replica:0/task:1/device:GPU:2"
    assert tf.DeviceSpec.from_string("/gpu:0").to_string() == "/device:GPU:0"
    merged = tf.DeviceSpec.from_string("/job:worker").make_merged_spec(tf.DeviceSpec.from_string("/device:CPU:0"))
    assert merged.to_string() == "/job:worker/device:CPU:0"
    with pytest.raises(ValueError):
        tf.DeviceSpec.from_string("/bogus:1")


def test_empty_constants_take_any_dtype():
    with tf.Session() as sess:
        for dtype in (tf.string, tf.int32, tf.bool, tf.float64):
            value = sess.run(tf.constant([], dtype))
            assert value.shape == (0,) and value.dtype == dtype.as_numpy_dtype
