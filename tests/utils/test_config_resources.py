"""tf.config and tf.resource_loader, against TF 2.15 compat.v1 in graph mode (/tmp/ref/utils/config_ref.py)."""

from __future__ import annotations

import os

import pytest

import dflow as tf
from dflow.sessions import tf_config
from dflow.sessions.config import SESSION_DEFAULTS


@pytest.fixture(autouse=True)
def restore_settings():
    saved = dict(SESSION_DEFAULTS), dict(tf_config._optimizer_options), tf_config._visible
    yield
    SESSION_DEFAULTS.clear()
    SESSION_DEFAULTS.update(saved[0])
    tf_config._optimizer_options.clear()
    tf_config._optimizer_options.update(saved[1])
    tf_config._visible = saved[2]


def test_devices_on_a_cpu_machine():
    cpu = tf.config.PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")
    assert tf.config.list_physical_devices()[0] == cpu
    assert repr(cpu) == "PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')"
    assert tf.config.list_physical_devices("CPU") == [cpu]
    assert tf.config.list_logical_devices("CPU") == [tf.config.LogicalDevice("/device:CPU:0", "CPU")]
    assert len(tf.config.list_logical_devices("GPU")) == len(tf.config.get_visible_devices("GPU"))
    assert tf.config.get_logical_device_configuration(cpu) is None
    tf.config.set_visible_devices([], "GPU")
    assert tf.config.get_visible_devices() == [cpu] and tf.config.list_logical_devices("GPU") == []
    with pytest.raises(ValueError, match="CPU must stay visible"):
        tf.config.set_visible_devices([], "CPU")
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.set_visible_devices([tf.config.PhysicalDevice("/physical_device:GPU:9", "GPU")])
    cfg = tf.config.LogicalDeviceConfiguration(memory_limit=10)
    assert repr(cfg) == ("LogicalDeviceConfiguration(memory_limit=10, experimental_priority=None, "
                         "experimental_device_ordinal=None)")
    tf.config.set_logical_device_configuration(cpu, [cfg])
    assert tf.config.get_logical_device_configuration(cpu) == [cfg]
    with pytest.raises(NotImplementedError, match="cannot split"):
        tf.config.set_logical_device_configuration(cpu, [cfg, cfg])
    tf_config._logical_configs.clear()


def test_soft_placement_and_threads_are_session_defaults():
    # TF compat.v1 graph mode: False, 0, 0
    assert tf.config.get_soft_device_placement() is False
    assert tf.config.threading.get_inter_op_parallelism_threads() == 0
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0
    with tf.Graph().as_default():
        with tf.device("/device:GPU:7"):
            c = tf.constant(1.0) + 1.0
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(c)
        tf.config.set_soft_device_placement(True)
        assert tf.config.get_soft_device_placement() is True
        with tf.Session() as sess:
            assert sess.run(c) == 2.0
        with tf.Session(config=tf.ConfigProto()) as sess, pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(c)  # an explicit config is used as given
    tf.config.threading.set_inter_op_parallelism_threads(2)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    assert (tf.config.threading.get_inter_op_parallelism_threads(),
            tf.config.threading.get_intra_op_parallelism_threads()) == (2, 1)
    with tf.Session(graph=tf.Graph()) as sess:
        assert (sess._config.inter_op_parallelism_threads, sess._config.intra_op_parallelism_threads) == (2, 1)


def test_optimizer_and_eager_settings():
    assert tf.config.optimizer.get_jit() == ""  # TF
    assert tf.config.optimizer.get_experimental_options() == {"disable_model_pruning": False,
                                                              "disable_meta_optimizer": False}
    tf.config.optimizer.set_experimental_options({"constant_folding": False})
    assert tf.config.optimizer.get_experimental_options() == {"constant_folding": False,
                                                              "disable_model_pruning": False,
                                                              "disable_meta_optimizer": False}
    tf.config.optimizer.set_jit(False)
    with pytest.raises(NotImplementedError, match="no XLA"):
        tf.config.optimizer.set_jit(True)
    assert tf.config.functions_run_eagerly() is False
    tf.config.run_functions_eagerly(False)
    with pytest.raises(NotImplementedError, match="no eager execution"):
        tf.config.run_functions_eagerly(True)


def test_resource_loader():
    here = os.path.dirname(os.path.abspath(__file__))
    assert tf.resource_loader.get_data_files_path() == here
    assert tf.resource_loader.get_path_to_datafile("x.txt") == os.path.join(here, "x.txt")
    assert tf.resource_loader.get_root_dir_with_all_resources() == here
    assert tf.resource_loader.load_resource("datasets/iris_test.csv").startswith(b"30,4,setosa")
    assert tf.resource_loader.readahead_file_path("/a/b") == "/a/b"
