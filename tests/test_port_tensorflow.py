"""What tensorflow/tensorflow's own example programs (tests/programs/tensorflow) needed from dflow.

* ``from tensorflow.python.client import timeline``: ``timeline.Timeline(step_stats)
  .generate_chrome_trace_format()`` (``mnist_softmax_xla.py``);
* a scalar string element of a ``tf.data`` pipeline can be sliced (``line[tf.newaxis]``, as
  ``get_started/regression/imports85.py`` filters its CSV lines);
* a dataset built in one graph can be iterated in another when its inputs are constants: TF1
  captured it by value (the regression examples build their datasets before the Estimator makes
  its graph, and TF's own test of them did so too);
* ``tf.contrib.learn.datasets.base.load_csv_without_header`` / ``load_csv_with_header``
  (``tutorials/estimators/abalone.py``);
* ``from tensorflow.python.lib.io import file_io`` (``file_exists``, ``recursive_create_dir``,
  ``write_string_to_file``, ...: ``saved_model_half_plus_two.py``);
* ``from tensorflow.python import debug as tf_debug`` (tfdbg's examples import it and wrap the
  session only with ``--debug``): ``has_inf_or_nan``; the debugger's wrappers and hooks raise
  ``NotImplementedError``.

Expected figures are TF 2.15.1's (``tf.compat.v1``) where it runs the same code.
"""

import json
import os

import numpy as np
import pytest

import dflow as tf


def test_timeline_of_a_traced_run():
    from dflow.python.client import timeline

    x = tf.placeholder(tf.float32, [2])
    y = x * 2.0 + 1.0
    run_metadata = tf.RunMetadata()
    with tf.Session() as sess:
        out = sess.run(y, {x: [1.0, 2.0]}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                       run_metadata=run_metadata)
    np.testing.assert_allclose(out, [3.0, 5.0])
    text = timeline.Timeline(step_stats=run_metadata.step_stats).generate_chrome_trace_format()
    trace = json.loads(text)
    assert trace["traceEvents"][0]["name"] == "process_name"
    assert any(e.get("ph") == "X" for e in trace["traceEvents"])
    assert "\n    " in text  # TF writes it pretty-printed (indent 4)


def _has_no_question_marks(line):
    chars = tf.string_split(line[tf.newaxis], "").values
    return ~tf.reduce_any(tf.equal(chars, "?"))


def test_slicing_a_scalar_string_element_in_a_dataset_function():
    ds = tf.data.Dataset.from_tensor_slices(["a?b", "cd", "e?"]).filter(_has_no_question_marks)
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    with tf.Session() as sess:
        assert sess.run(nxt) == b"cd"  # TF 2.15.1: b'cd'
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(nxt)


def test_hash_buckets_split_lines_as_tf_does():
    h = tf.string_to_hash_bucket_fast(["1,?,alfa", "b,c", ""], 1000000)
    with tf.Session() as sess:
        assert sess.run(h).tolist() == [76371, 161048, 397263]  # TF 2.15.1


def test_a_dataset_of_another_graph_is_captured_by_value():
    ds = (tf.data.Dataset.from_tensor_slices(["1,2", "3,?", "5,6"]).filter(_has_no_question_marks)
          .map(lambda line: tf.reduce_sum(tf.stack(tf.decode_csv(line, [[0.0], [0.0]])))))
    with tf.Graph().as_default():
        it = ds.batch(8).make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer)
            np.testing.assert_allclose(sess.run(nxt), [3.0, 11.0])
    with tf.Graph().as_default():
        nxt = ds.repeat(2).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            assert [sess.run(nxt) for _ in range(4)] == [3.0, 11.0, 3.0, 11.0]


def test_a_fed_dataset_of_another_graph_is_not_captured():
    p = tf.placeholder(tf.float32, [None])
    ds = tf.data.Dataset.from_tensor_slices(p)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="must be from the same graph"):
            ds.make_initializable_iterator()


def test_file_io_at_tf1s_module_path(tmp_path):
    from dflow.python.lib.io import file_io

    directory = str(tmp_path / "export" / "assets")
    assert not file_io.file_exists(directory)
    file_io.recursive_create_dir(directory)
    assert file_io.file_exists(directory) and file_io.is_directory(directory)
    path = os.path.join(directory.encode(), b"foo.txt")  # saved_model_half_plus_two.py joins bytes
    file_io.write_string_to_file(path, "asset-file-contents")
    assert file_io.read_file_to_string(path) == "asset-file-contents"
    assert file_io.read_file_to_string(path, binary_mode=True) == b"asset-file-contents"
    assert file_io.list_directory(directory) == ["foo.txt"]


def test_load_csv_without_and_with_header(tmp_path):
    plain = tmp_path / "abalone.csv"
    plain.write_text("0.5,0.25,7\n0.75,0.5,11\n")
    ds = tf.contrib.learn.datasets.base.load_csv_without_header(
        filename=str(plain), target_dtype=np.int64, features_dtype=np.float64)
    np.testing.assert_allclose(ds.data, [[0.5, 0.25], [0.75, 0.5]])
    assert ds.target.tolist() == [7, 11] and ds.target.dtype == np.int64
    headed = tmp_path / "iris.csv"
    headed.write_text("2,2,setosa,versicolor\n5.1,3.5,0\n6.4,3.2,1\n")
    ds = tf.contrib.learn.datasets.base.load_csv_with_header(
        filename=str(headed), target_dtype=np.int32, features_dtype=np.float32)
    np.testing.assert_allclose(ds.data, [[5.1, 3.5], [6.4, 3.2]], rtol=1e-6)
    assert ds.target.tolist() == [0, 1] and ds.data.dtype == np.float32


def test_tfdbg_namespace():
    from dflow.python import debug as tf_debug

    assert tf_debug.has_inf_or_nan(None, np.array([1.0, np.nan]))
    assert tf_debug.has_inf_or_nan(None, np.array([[np.inf]], np.float32))
    assert not tf_debug.has_inf_or_nan(None, np.array([1.0, 2.0]))
    assert not tf_debug.has_inf_or_nan(None, np.array([1, 2]))
    assert not tf_debug.has_inf_or_nan(None, None)
    with tf.Session() as sess:
        with pytest.raises(NotImplementedError, match="LocalCLIDebugWrapperSession"):
            tf_debug.LocalCLIDebugWrapperSession(sess)
    with pytest.raises(NotImplementedError, match="LocalCLIDebugHook"):
        tf_debug.LocalCLIDebugHook()
