"""GPU devices in a local session (CuPy). Skipped without CuPy and a CUDA GPU."""

import numpy as np
import pytest

import dflow as tf
from dflow.framework.op_registry import apply_op, register

cupy = pytest.importorskip("cupy")
pytestmark = pytest.mark.gpu

try:
    _HAVE_GPU = cupy.cuda.runtime.getDeviceCount() > 0
except Exception:  # no driver
    _HAVE_GPU = False
if not _HAVE_GPU:
    pytest.skip("no CUDA GPU", allow_module_level=True)

SEEN = []


def _record_type(x):
    SEEN.append(type(x).__module__.split(".")[0])
    return x


register("TestRecordArrayType", infer=lambda op: [(op.inputs[0].dtype, op.inputs[0].shape)],
         kernel=_record_type, stateful=True)


def test_ops_on_gpu_device_run_on_cupy_and_return_numpy():
    SEEN.clear()
    x = tf.placeholder(tf.float32, [2, 2])
    with tf.device("/device:GPU:0"):
        y = tf.matmul(x, x)
        seen = apply_op("TestRecordArrayType", [y]).outputs[0]
    z = seen + 1.0  # back on the CPU
    xv = np.array([[1, 2], [3, 4]], np.float32)
    md = tf.RunMetadata()
    with tf.Session() as sess:
        out = sess.run(z, {x: xv}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md)
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, xv @ xv + 1.0)
    assert SEEN == ["cupy"]
    devices = {d.device for d in md.step_stats.dev_stats}
    assert "/job:localhost/replica:0/task:0/device:GPU:0" in devices


def test_list_devices_includes_gpu():
    with tf.Session() as sess:
        names = [d.name for d in sess.list_devices()]
    assert "/job:localhost/replica:0/task:0/device:GPU:0" in names
