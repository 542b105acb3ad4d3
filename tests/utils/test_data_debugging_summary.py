"""tf.data options/specs/numpy iteration, tf.debugging switches and tf.summary helpers against TF 2.15
(/tmp/ref/utils/data_ref.py)."""

from __future__ import annotations

import types

import pytest

import dflow as tf
from dflow.sessions.config import SESSION_DEFAULTS


def test_options_merge_along_the_pipeline_as_tf():
    assert (tf.data.INFINITE_CARDINALITY, tf.data.UNKNOWN_CARDINALITY) == (-1, -2)
    o = tf.data.Options()
    assert (o.experimental_deterministic, o.threading.private_threadpool_size) == (None, None)
    assert type(o.threading).__name__ == "ThreadingOptions"
    o.experimental_deterministic = False
    o.threading.private_threadpool_size = 4
    with pytest.raises(AttributeError, match="Cannot set the property bogus on Options."):
        o.bogus = 1
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(3).with_options(o)
        o2 = tf.data.Options()
        o2.threading.max_intra_op_parallelism = 1
        ds3 = ds.map(lambda x: x * 2).with_options(o2)
        got = ds3.options()
        assert (got.experimental_deterministic, got.threading.private_threadpool_size,
                got.threading.max_intra_op_parallelism) == (False, 4, 1)
        assert got == ds3.options() and tf.data.Options() == tf.data.Options() and got != tf.data.Options()
        assert tf.data.Dataset.range(2).options() == tf.data.Options()
        with pytest.raises(TypeError, match="needs a tf.data.Options"):
            ds.with_options({"deterministic": False})


def test_dataset_spec_and_numpy_iterator():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(3)
        assert repr(tf.data.DatasetSpec.from_value(ds)) == \
            "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))"
        assert repr(tf.data.DatasetSpec(tf.TensorSpec([2], tf.float32))) == \
            "DatasetSpec(TensorSpec(shape=(2,), dtype=tf.float32, name=None), TensorShape([]))"
        assert tf.data.DatasetSpec.from_value(ds) == tf.data.DatasetSpec(tf.TensorSpec([], tf.int64))
        # TF raises RuntimeError in graph mode; dflow runs the pipeline in a private session
        assert [int(x) for x in ds.as_numpy_iterator()] == [0, 1, 2]
        pairs = tf.data.Dataset.from_tensor_slices(({"a": [1, 2]}, [b"x", b"y"]))
        it = pairs.as_numpy_iterator()
        assert isinstance(it, tf.data.NumpyIterator)
        first = next(it)
        assert first[0]["a"] == 1 and first[1] == b"x"
        it.close()
        with pytest.raises(StopIteration):
            next(it)


def test_debugging_switches():
    saved = dict(SESSION_DEFAULTS)
    try:
        assert tf.debugging.get_log_device_placement() is False
        tf.debugging.set_log_device_placement(True)
        assert tf.debugging.get_log_device_placement() is True
        with tf.Session(graph=tf.Graph()) as sess:
            assert sess._config.log_device_placement is True
    finally:
        SESSION_DEFAULTS.clear()
        SESSION_DEFAULTS.update(saved)
    assert tf.debugging.is_nan is tf.is_nan and tf.debugging.is_finite is tf.math.is_finite
    assert tf.debugging.is_traceback_filtering_enabled() is False
    tf.debugging.disable_traceback_filtering()
    tf.debugging.disable_check_numerics()
    with pytest.raises(NotImplementedError, match="does not filter"):
        tf.debugging.enable_traceback_filtering()
    with pytest.raises(NotImplementedError, match="add_check_numerics_ops"):
        tf.debugging.enable_check_numerics()


def test_summary_helpers_as_tf():
    with tf.Graph().as_default():
        assert tf.summary.all_v2_summary_ops() == []
        with pytest.raises(RuntimeError, match="No default tf.contrib.summary.SummaryWriter found"):
            tf.summary.initialize()
        t = tf.summary.tensor_summary("x", tf.constant(1.0))
        with pytest.raises(ValueError, match="Can't get_summary_description on TensorSummaryV2"):
            tf.summary.get_summary_description(t.op.node_def)
    node = types.SimpleNamespace(op="TensorSummary", attr={"description": b'{"typeHint": "scalar"}'})
    assert str(tf.summary.get_summary_description(node)).strip() == 'type_hint: "scalar"'
