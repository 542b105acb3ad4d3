"""Regressions found by porting tensorflow/models' TF1 programs (``tests/programs/tf_models``)."""

import dflow as tf


def test_version_is_tf1s_for_version_checks():
    # TF 1.15's tf.__version__ is its API version, and programs branch on it: tutorials/rnn/ptb's
    # ``StrictVersion(tf.__version__) < StrictVersion("1.3.0")`` picks the cell implementation.
    assert tf.__version__ == tf.VERSION == "1.15.5"
    assert tuple(int(p) for p in tf.__version__.split(".")[:2]) >= (1, 3)


def test_device_lib_lists_local_devices():
    # tutorials/rnn/ptb: ``from tensorflow.python.client import device_lib``, then the GPUs' names
    from dflow.python.client import device_lib

    devices = device_lib.list_local_devices()
    assert devices[0].name == "/device:CPU:0" and devices[0].device_type == "CPU"
    assert devices[0].memory_limit == 268435456  # TF 1.15's figure for the CPU
    gpus = [d.name for d in devices if d.device_type == "GPU"]
    assert gpus == [d.name for d in tf.config.list_logical_devices("GPU")]


def test_core_protos_import_like_tfs():
    # tutorials/rnn/ptb/util.py imports these at its top (it uses them only for several GPUs)
    from dflow.core.framework import variable_pb2
    from dflow.core.protobuf import rewriter_config_pb2

    config = rewriter_config_pb2.RewriterConfig()
    config.optimizers.append("autoparallel")
    config.auto_parallel.enable = True
    config.auto_parallel.num_replicas = 2
    assert config.optimizers == ["autoparallel"] and config.auto_parallel.num_replicas == 2
    assert rewriter_config_pb2.RewriterConfig().optimizers == []  # each message its own list
    assert (rewriter_config_pb2.RewriterConfig.ON, rewriter_config_pb2.RewriterConfig.OFF) == (1, 2)
    proto = tf.ConfigProto()
    proto.graph_options.rewrite_options = config
    assert variable_pb2.VariableDef().variable_name == ""


def test_runner_keeps_a_modules_package_folder(tmp_path):
    # research/autoencoder: ``from autoencoder_models.Autoencoder import Autoencoder``; a module given as
    # [source, target] keeps its folder in the working directory, ported and changed like the others
    import importlib.util
    import os
    import sys

    runner = sys.modules.get("run_programs")
    if runner is None:  # as tests/programs/test_programs.py loads it
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        spec = importlib.util.spec_from_file_location("run_programs", os.path.join(root, "tools", "run_programs.py"))
        runner = importlib.util.module_from_spec(spec)
        sys.modules["run_programs"] = runner
        spec.loader.exec_module(runner)
    source = tmp_path / "src"
    (source / "pkg").mkdir(parents=True)
    (source / "main.py").write_text("import tensorflow as tf\nfrom pkg.mod import X\n")
    (source / "pkg" / "mod.py").write_text("import tensorflow as tf\nX = 1\n")
    (source / "util.py").write_text("import tensorflow as tf\n")
    entry = {"name": "main", "file": "main.py", "modules": [["pkg/mod.py", "pkg/mod.py"], "util.py"],
             "module_changes": {"pkg/mod.py": [["X = 1", "X = 2"]]}}
    work = tmp_path / "work"
    work.mkdir()
    runner.prepare(runner.Program(str(source), entry, "x/y"), str(work), under_tf=False)
    assert (work / "pkg" / "mod.py").read_text() == "import dflow as tf\nX = 2\n"
    assert (work / "util.py").read_text() == "import dflow as tf\n"


def test_slim_prefetch_queue():
    # tutorials/image/cifar10/cifar10_multi_gpu_train.py: one batch per tower from a prefetch queue
    with tf.Graph().as_default():
        x = tf.train.range_input_producer(100, shuffle=False).dequeue()
        queue = tf.contrib.slim.prefetch_queue.prefetch_queue([x * 2, tf.fill([3], x)], capacity=4)
        assert queue.name == "prefetch_queue/fifo_queue"  # TF-slim's names
        a, b = queue.dequeue()
        assert a.shape.as_list() == [] and b.shape.as_list() == [3]
        assert len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)) == 2
        assert [s.op.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)][-1] == "prefetch_queue/fraction_of_4_full"
        named = tf.contrib.slim.prefetch_queue.prefetch_queue({"image": tf.zeros([2]), "label": tf.constant(1)},
                                                              dynamic_pad=True).dequeue()
        assert sorted(named) == ["image", "label"]
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord=coord)
            got = [sess.run([a, b]) for _ in range(3)]
            assert [int(v) for v, _ in got] == [0, 2, 4]
            assert [list(w) for _, w in got] == [[0, 0, 0], [1, 1, 1], [2, 2, 2]]
            assert sess.run(named["label"]) == 1
            coord.request_stop()
            coord.join(threads)
