"""tf.train.Saver, the checkpoint files and state file, readers, and their errors."""

import json
import os
import pickle

import numpy as np
import pytest

import dflow as tf
from dflow.train.checkpoints import checkpoint_format
from dflow.train.checkpoints import saver as saver_module


class CountingSession:
    """A session proxy that counts ``run`` calls."""

    def __init__(self, sess):
        self.sess = sess
        self.graph = sess.graph
        self.runs = 0

    def run(self, *args, **kwargs):
        self.runs += 1
        return self.sess.run(*args, **kwargs)


def make_vars():
    f = tf.Variable([[1.5, -2.0], [3.0, 4.25]], name="f")
    i = tf.Variable(np.array([1, 2, 3], np.int64), name="i")
    b = tf.Variable([True, False], name="b")
    s = tf.Variable([b"abc", b"", b"\x00\xff"], name="s")
    c = tf.Variable(np.array([1 + 2j], np.complex64), name="c")
    h = tf.Variable(np.array(0.5, np.float16), name="h")
    return [f, i, b, s, c, h]


def zero_all(sess, variables):
    for v in variables:
        value = np.zeros(v.shape.as_list(), v.dtype.as_numpy_dtype) if v.dtype != tf.string else \
            np.full(v.shape.as_list(), b"zz", dtype=object)
        v.load(value, sess)


def values(sess, variables):
    return [sess.run(v) for v in variables]


def assert_same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
        assert np.asarray(x).dtype == np.asarray(y).dtype


def files(d):
    return sorted(os.listdir(d))


# -- round trips -------------------------------------------------------------------------------


def test_round_trip_of_every_dtype_family(tmp_path):
    variables = make_vars()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = values(sess, variables)
        path = saver.save(sess, str(tmp_path / "model.ckpt"))
        zero_all(sess, variables)
        saver.restore(sess, path)
        assert_same(values(sess, variables), before)
    assert path == str(tmp_path / "model.ckpt")
    assert files(tmp_path) == ["checkpoint", "model.ckpt.data-00000-of-00001", "model.ckpt.index", "model.ckpt.meta"]


def test_save_and_restore_are_one_session_run_each(tmp_path):
    variables = make_vars()
    step = tf.train.create_global_step()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        counting = CountingSession(sess)
        path = saver.save(counting, str(tmp_path / "m"), global_step=step)
        assert counting.runs == 1
        saver.restore(counting, path)
        assert counting.runs == 2
    assert len(variables) == 6


def test_global_step_names_the_checkpoint(tmp_path):
    v = tf.Variable(1.0, name="v")
    step = tf.train.create_global_step()
    saver = tf.train.Saver()
    padded = tf.train.Saver(pad_step_number=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step.assign(42))
        assert saver.save(sess, str(tmp_path / "a"), global_step=7) == str(tmp_path / "a-7")
        assert saver.save(sess, str(tmp_path / "a"), global_step=step) == str(tmp_path / "a-42")
        assert saver.save(sess, str(tmp_path / "a"), global_step=step.value()) == str(tmp_path / "a-42")
        assert padded.save(sess, str(tmp_path / "p"), global_step=3) == str(tmp_path / "p-00000003")
        with pytest.raises(TypeError, match="integer"):
            saver.save(sess, str(tmp_path / "a"), global_step=v)
    reader = tf.train.NewCheckpointReader(str(tmp_path / "a-42"))
    assert reader.get_tensor("global_step") == 42


def test_dict_var_list_names_entries_and_maps_them_back(tmp_path):
    a = tf.Variable([1.0, 2.0], name="a")
    b = tf.Variable(5, name="b")
    saver = tf.train.Saver({"model/weights": a, "model/count": b})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "m"))
    assert tf.train.list_variables(path) == [("model/count", []), ("model/weights", [2])]
    tf.reset_default_graph()
    other = tf.Variable([0.0, 0.0], name="renamed")
    restorer = tf.train.Saver({"model/weights": other})
    with tf.Session() as sess:
        restorer.restore(sess, path)
        assert sess.run(other).tolist() == [1.0, 2.0]


def test_restoring_a_subset_leaves_the_others_alone(tmp_path):
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "m"))
        sess.run([a.assign(10.0), b.assign(20.0)])
        tf.train.Saver([a]).restore(sess, path)
        assert sess.run([a, b]) == [1.0, 20.0]


def test_restore_into_a_fresh_graph_built_by_the_same_code(tmp_path):
    def build():
        with tf.variable_scope("layer"):
            w = tf.get_variable("w", [2, 3], initializer=tf.random_normal_initializer())
            bias = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
        return [w, bias]

    variables = build()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(variables[1].assign([1.0, 2.0, 3.0]))
        expected = values(sess, variables)
        path = tf.train.Saver().save(sess, str(tmp_path / "m"))
    tf.reset_default_graph()
    variables = build()
    with tf.Session() as sess:
        tf.train.Saver().restore(sess, path)
        assert_same(values(sess, variables), expected)


def test_restore_works_on_a_finalized_graph(tmp_path):
    v = tf.Variable([1.0], name="v")
    saver = tf.train.Saver()
    tf.get_default_graph().finalize()
    with tf.Session() as sess:
        sess.run(v.initializer)
        path = saver.save(sess, str(tmp_path / "m"))
        sess.run(v.initializer)
        saver.restore(sess, path)
        assert sess.run(v).tolist() == [1.0]


def test_reshape_restores_same_size_different_shape(tmp_path):
    v = tf.Variable([1.0, 2.0, 3.0, 4.0], name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        path = tf.train.Saver().save(sess, str(tmp_path / "m"))
    tf.reset_default_graph()
    v = tf.Variable(tf.zeros([2, 2]), name="v")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.train.Saver().restore(sess, path)
        tf.train.Saver(reshape=True).restore(sess, path)
        assert sess.run(v).tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_saver_builds_restore_ops_under_its_scope():
    tf.Variable(1.0, name="v")
    tf.Variable(2.0, name="w")
    saver = tf.train.Saver()
    names = [op.name for op in tf.get_default_graph().get_operations() if op.name.startswith("save/")]
    assert names == ["save/RestoreV2", "save/Assign", "save/RestoreV2_1", "save/Assign_1", "save/restore_all"]
    sd = saver.as_saver_def()
    assert sd.restore_op_name == "save/restore_all"
    assert sd.tensors == [("v", "v:0", "save/RestoreV2:0"), ("w", "w:0", "save/RestoreV2_1:0")]
    tf.train.Saver()
    assert tf.get_default_graph().get_operation_by_name("save_1/restore_all").type == "NoOp"


def test_saver_from_saver_def_reuses_the_graph_ops(tmp_path):
    v = tf.Variable(3.0, name="v")
    saver = tf.train.Saver()
    n_ops = len(tf.get_default_graph().get_operations())
    again = tf.train.Saver(saver_def=saver.as_saver_def())
    assert len(tf.get_default_graph().get_operations()) == n_ops
    with tf.Session() as sess:
        sess.run(v.initializer)
        path = again.save(sess, str(tmp_path / "m"))
        sess.run(v.assign(0.0))
        again.restore(sess, path)
        assert sess.run(v) == 3.0


def test_var_list_errors():
    v = tf.Variable(1.0, name="v")
    with pytest.raises(ValueError, match="At least two variables have the same name: v"):
        tf.train.Saver([v, v])
    with pytest.raises(TypeError, match="not a Variable"):
        tf.train.Saver([v.value()])
    with pytest.raises(ValueError, match="build cannot be deferred"):
        tf.train.Saver([v], defer_build=True)
    tf.reset_default_graph()
    with pytest.raises(ValueError, match="No variables to save"):
        tf.train.Saver()


def test_allow_empty_and_defer_build(tmp_path):
    empty = tf.train.Saver(allow_empty=True)
    with tf.Session() as sess:
        assert empty.save(sess, str(tmp_path / "e")) is None
        empty.restore(sess, str(tmp_path / "e"))
    assert not os.path.exists(tmp_path / "e.index")
    deferred = tf.train.Saver(defer_build=True)
    v = tf.Variable(1.0, name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(RuntimeError, match="build"):
            deferred.save(sess, str(tmp_path / "d"))
        deferred.build()
        path = deferred.save(sess, str(tmp_path / "d"))
    assert tf.train.list_variables(path) == [("v", [])]


# -- the checkpoint state file and max_to_keep ------------------------------------------------


def test_max_to_keep_deletes_old_checkpoints_and_writes_tf1_state(tmp_path):
    v = tf.Variable(0, name="v")
    saver = tf.train.Saver(max_to_keep=2)
    prefix = str(tmp_path / "model.ckpt")
    with tf.Session() as sess:
        sess.run(v.initializer)
        for step in range(1, 5):
            sess.run(v.assign(step))
            saver.save(sess, prefix, global_step=step)
    assert files(tmp_path) == ["checkpoint", "model.ckpt-3.data-00000-of-00001", "model.ckpt-3.index",
                               "model.ckpt-3.meta", "model.ckpt-4.data-00000-of-00001", "model.ckpt-4.index",
                               "model.ckpt-4.meta"]
    assert (tmp_path / "checkpoint").read_text() == (
        f'model_checkpoint_path: "{prefix}-4"\n'
        f'all_model_checkpoint_paths: "{prefix}-3"\n'
        f'all_model_checkpoint_paths: "{prefix}-4"\n')
    assert saver.last_checkpoints == [f"{prefix}-3", f"{prefix}-4"]
    assert tf.train.latest_checkpoint(str(tmp_path)) == f"{prefix}-4"
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == f"{prefix}-4"
    assert state.all_model_checkpoint_paths == [f"{prefix}-3", f"{prefix}-4"]
    assert tf.train.load_variable(str(tmp_path), "v:0") == 4


def test_max_to_keep_none_keeps_everything(tmp_path):
    tf.Variable(0, name="v")
    saver = tf.train.Saver(max_to_keep=None)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(3):
            saver.save(sess, str(tmp_path / "m"), global_step=step, write_meta_graph=False)
    assert [f for f in files(tmp_path) if f.endswith(".index")] == ["m-0.index", "m-1.index", "m-2.index"]
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.all_model_checkpoint_paths == [str(tmp_path / "m-2")]
    assert saver.last_checkpoints == []


def test_keep_checkpoint_every_n_hours_keeps_one_per_period(tmp_path, monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(saver_module, "_now", lambda: clock[0])
    tf.Variable(0, name="v")
    saver = tf.train.Saver(max_to_keep=1, keep_checkpoint_every_n_hours=1.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step, t in enumerate([0, 1000, 4000, 5000, 6000]):
            clock[0] = float(t)
            saver.save(sess, str(tmp_path / "m"), global_step=step, write_meta_graph=False)
    # m-2 (saved at 4000 s, past the first hour) is kept for good; the others rotate out.
    assert [f for f in files(tmp_path) if f.endswith(".index")] == ["m-2.index", "m-4.index"]


def test_relative_paths_and_save_relative_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkdir("ckpt")
    tf.Variable(1.0, name="v")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert tf.train.Saver().save(sess, "ckpt/model", global_step=1) == "ckpt/model-1"
        assert (tmp_path / "ckpt" / "checkpoint").read_text().splitlines()[0] == 'model_checkpoint_path: "model-1"'
        tf.train.Saver(save_relative_paths=True).save(sess, str(tmp_path / "ckpt" / "model"), global_step=2)
    assert (tmp_path / "ckpt" / "checkpoint").read_text().splitlines()[0] == 'model_checkpoint_path: "model-2"'
    assert tf.train.latest_checkpoint("ckpt") == os.path.join("ckpt", "model-2")


def test_state_file_escapes_unusual_paths(tmp_path):
    d = tmp_path / 'we"ird\\dir é'
    d.mkdir()
    path = str(d / "model")
    tf.train.update_checkpoint_state(str(d), path, [path])
    text = (d / "checkpoint").read_text()
    assert '\\"' in text and "\\303\\251" in text
    assert tf.train.get_checkpoint_state(str(d)).model_checkpoint_path == path


def test_get_checkpoint_state_missing_or_garbled(tmp_path):
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    (tmp_path / "checkpoint").write_text("this is { not a state file")
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "gone"\n')
    assert tf.train.latest_checkpoint(str(tmp_path)) is None  # named, but its files are missing


def test_recover_and_set_last_checkpoints(tmp_path):
    tf.Variable(1.0, name="v")
    first = tf.train.Saver(max_to_keep=2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(2):
            first.save(sess, str(tmp_path / "m"), global_step=step, write_meta_graph=False)
        # A new saver (a restarted job) takes over the existing checkpoints.
        second = tf.train.Saver(max_to_keep=2)
        state = tf.train.get_checkpoint_state(str(tmp_path))
        second.recover_last_checkpoints(state.all_model_checkpoint_paths + [str(tmp_path / "missing")])
        assert second.last_checkpoints == [str(tmp_path / "m-0"), str(tmp_path / "m-1")]
        second.save(sess, str(tmp_path / "m"), global_step=2, write_meta_graph=False)
    assert not tf.train.checkpoint_exists(str(tmp_path / "m-0"))
    assert tf.train.checkpoint_exists(str(tmp_path / "m-1"))
    second.set_last_checkpoints_with_time([("a", 1.0)])
    assert second.last_checkpoints == ["a"]
    assert len(tf.train.get_checkpoint_mtimes([str(tmp_path / "m-1"), str(tmp_path / "nope")])) == 1


def test_latest_filename_and_save_path_validation(tmp_path):
    tf.Variable(1.0, name="v")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, str(tmp_path / "m"), latest_filename="my_state")
        assert tf.train.latest_checkpoint(str(tmp_path), "my_state") == str(tmp_path / "m")
        assert tf.train.latest_checkpoint(str(tmp_path)) is None
        with pytest.raises(ValueError, match="path components"):
            saver.save(sess, str(tmp_path / "m"), latest_filename="a/b")
        with pytest.raises(ValueError, match="Parent directory"):
            saver.save(sess, str(tmp_path / "no_such_dir" / "m"))
        with pytest.raises(RuntimeError, match="conflicts"):
            saver.save(sess, str(tmp_path / "checkpoint"))


# -- readers ---------------------------------------------------------------------------------


def test_reader_api(tmp_path):
    make_vars()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "m"))
    reader = tf.train.NewCheckpointReader(path)
    assert reader.has_tensor("f") and not reader.has_tensor("nope")
    assert reader.get_variable_to_shape_map() == {"f": [2, 2], "i": [3], "b": [2], "s": [3], "c": [1], "h": []}
    assert reader.get_variable_to_dtype_map()["i"] is tf.int64
    assert reader.get_variable_to_dtype_map()["s"] is tf.string
    assert reader.get_tensor("s").tolist() == [b"abc", b"", b"\x00\xff"]
    assert reader.get_tensor("h").dtype == np.float16 and reader.get_tensor("h") == 0.5
    assert reader.debug_string() == (b"b (DT_BOOL) [2]\nc (DT_COMPLEX64) [1]\nf (DT_FLOAT) [2,2]\n"
                                     b"h (DT_HALF) []\ni (DT_INT64) [3]\ns (DT_STRING) [3]\n")
    with pytest.raises(tf.errors.NotFoundError, match="Key nope not found in checkpoint"):
        reader.get_tensor("nope")
    with pytest.raises(tf.errors.NotFoundError):
        tf.train.NewCheckpointReader(str(tmp_path / "missing"))
    assert tf.train.load_checkpoint(str(tmp_path)).has_tensor("f")
    assert tf.train.load_variable(path, "i").tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match="Couldn't find"):
        empty = tmp_path / "empty"
        empty.mkdir()
        tf.train.load_checkpoint(str(empty))


def test_data_file_layout_is_aligned_raw_little_endian(tmp_path):
    a = tf.Variable(np.arange(3, dtype=np.int32), name="a")
    b = tf.Variable([b"xy"], name="b")
    with tf.Session() as sess:
        sess.run([a.initializer, b.initializer])
        path = tf.train.Saver().save(sess, str(tmp_path / "m"), write_meta_graph=False)
    index = json.loads((tmp_path / "m.index").read_text())
    assert index["format"] == "dflow-checkpoint" and index["version"] == 1
    data = (tmp_path / "m.data-00000-of-00001").read_bytes()
    ea, eb = index["tensors"]["a"], index["tensors"]["b"]
    assert (ea["offset"], ea["length"], eb["offset"], eb["length"]) == (0, 12, 64, 10)
    assert data[:12] == np.arange(3, dtype="<i4").tobytes()
    assert data[64:] == (2).to_bytes(8, "little") + b"xy"
    assert len(data) == index["data_size"]
    assert tf.train.checkpoint_exists(path)


# -- errors ------------------------------------------------------------------------------------


def saved_checkpoint(tmp_path, value=(1.0, 2.0, 3.0)):
    v = tf.Variable(list(value), name="w")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(v.initializer)
        return v, saver, saver.save(sess, str(tmp_path / "m"))


def test_missing_variable_is_not_found_naming_it(tmp_path):
    _, _, path = saved_checkpoint(tmp_path)
    tf.reset_default_graph()
    tf.Variable([0.0, 0.0, 0.0], name="w")
    tf.Variable(1.0, name="extra")
    with tf.Session() as sess, pytest.raises(tf.errors.NotFoundError, match="Key extra not found in checkpoint"):
        tf.train.Saver().restore(sess, path)


def test_shape_mismatch_is_invalid_argument_with_both_shapes(tmp_path):
    _, _, path = saved_checkpoint(tmp_path)
    tf.reset_default_graph()
    tf.Variable([0.0, 0.0, 0.0, 0.0], name="w")
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.train.Saver().restore(sess, path)
    assert "w" in str(info.value) and "[4]" in str(info.value) and "[3]" in str(info.value)


def test_dtype_mismatch_is_invalid_argument(tmp_path):
    _, _, path = saved_checkpoint(tmp_path)
    tf.reset_default_graph()
    tf.Variable([0, 0, 0], name="w")
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="expected dtype int32"):
        tf.train.Saver().restore(sess, path)


def test_restore_from_nothing_is_value_error(tmp_path):
    _, saver, _ = saved_checkpoint(tmp_path)
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="None"):
            saver.restore(sess, None)
        with pytest.raises(ValueError, match="The passed save_path is not a valid checkpoint"):
            saver.restore(sess, str(tmp_path / "nope"))
        with pytest.raises(ValueError, match="not a valid checkpoint"):
            saver.restore(sess, str(tmp_path))


@pytest.mark.parametrize("damage", ["truncate_data", "flip_byte", "garbage_index", "pickle_index", "drop_data",
                                    "index_points_past_end", "tf1_binary_index"])
def test_corrupt_checkpoints_are_data_loss(tmp_path, damage):
    v, saver, path = saved_checkpoint(tmp_path, value=np.arange(40, dtype=np.float32))
    data = tmp_path / "m.data-00000-of-00001"
    index = tmp_path / "m.index"
    if damage == "truncate_data":
        data.write_bytes(data.read_bytes()[:100])
    elif damage == "flip_byte":
        raw = bytearray(data.read_bytes())
        raw[17] ^= 0x40
        data.write_bytes(bytes(raw))
    elif damage == "garbage_index":
        index.write_bytes(b"\x00\x01garbage")
    elif damage == "pickle_index":
        index.write_bytes(pickle.dumps({"format": "dflow-checkpoint", "version": 1}))
    elif damage == "drop_data":
        data.unlink()
    elif damage == "index_points_past_end":
        doc = json.loads(index.read_text())
        doc["tensors"]["w"]["offset"] = 10 ** 6
        index.write_text(json.dumps(doc))
    elif damage == "tf1_binary_index":
        index.write_bytes(b"\x00\x00\x00\x00\x01\x00\x00\x00" + bytes(range(256)))
    with tf.Session() as sess, pytest.raises(tf.errors.DataLossError):
        saver.restore(sess, path)
    with pytest.raises(tf.errors.DataLossError):
        tf.train.NewCheckpointReader(path).get_tensor("w")


class Boom:
    """Unpickling this runs code: the payload a pickle-based format would execute."""

    ran = []

    def __reduce__(self):
        return (Boom.ran.append, ("executed",))


def test_loading_never_unpickles(tmp_path, monkeypatch):
    payload = pickle.dumps(Boom())
    s = tf.Variable([payload], name="s")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(s.initializer)
        path = saver.save(sess, str(tmp_path / "m"))

    def forbidden(*args, **kwargs):
        raise AssertionError("a checkpoint load must never unpickle")

    monkeypatch.setattr(pickle, "loads", forbidden)
    monkeypatch.setattr(pickle, "load", forbidden)
    monkeypatch.setattr(np, "load", forbidden)
    with tf.Session() as sess:
        sess.run(s.initializer)
        saver.restore(sess, path)
        assert sess.run(s).tolist() == [payload]  # the bytes come back as bytes
    tf.reset_default_graph()
    tf.train.import_meta_graph(path + ".meta")
    assert tf.train.load_variable(path, "s").tolist() == [payload]
    assert Boom.ran == []
    # A pickle where the index should be is rejected, not loaded.
    (tmp_path / "m.index").write_bytes(payload)
    with pytest.raises(tf.errors.DataLossError):
        tf.train.NewCheckpointReader(path)
    assert Boom.ran == []


# -- crash safety ---------------------------------------------------------------------------


def test_a_save_that_fails_midway_leaves_the_previous_checkpoint_latest(tmp_path, monkeypatch):
    v = tf.Variable(np.arange(1000, dtype=np.float32), name="v")
    w = tf.Variable(7.0, name="w")
    saver = tf.train.Saver()
    prefix = str(tmp_path / "model.ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = saver.save(sess, prefix, global_step=1)
        good = sess.run(v)
        sess.run([v.assign(v * 0.0 - 1.0), w.assign(0.0)])
        before = files(tmp_path)

        real = checkpoint_format._write_tensor

        def dies_after_some_bytes(f, arr, dtype):
            if arr.size > 1:
                f.write(b"\x01" * 100)
                raise OSError("disk full")
            return real(f, arr, dtype)

        monkeypatch.setattr(checkpoint_format, "_write_tensor", dies_after_some_bytes)
        with pytest.raises(tf.errors.UnknownError, match="disk full"):
            saver.save(sess, prefix, global_step=2)
        # ... and the same when overwriting the latest prefix itself.
        with pytest.raises(tf.errors.UnknownError, match="disk full"):
            saver.save(sess, prefix, global_step=1)
        monkeypatch.undo()

        assert files(tmp_path) == before  # no temporary or partial files left
        assert tf.train.latest_checkpoint(str(tmp_path)) == first
        assert saver.last_checkpoints == [first]
        saver.restore(sess, tf.train.latest_checkpoint(str(tmp_path)))
        np.testing.assert_array_equal(sess.run(v), good)
        assert sess.run(w) == 7.0


def test_a_failure_writing_the_meta_graph_does_not_advance_latest(tmp_path, monkeypatch):
    tf.Variable(1.0, name="v")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = saver.save(sess, str(tmp_path / "m"), global_step=1)

        def fail(*args, **kwargs):
            raise OSError("cannot write meta graph")

        monkeypatch.setattr(saver, "export_meta_graph", fail)
        with pytest.raises(OSError):
            saver.save(sess, str(tmp_path / "m"), global_step=2)
    assert tf.train.latest_checkpoint(str(tmp_path)) == first
    assert not any(f.endswith(".tmp") for f in files(tmp_path))


def test_an_unserializable_graph_saves_the_checkpoint_without_meta_graph(tmp_path, caplog):
    v = tf.Variable(1.0, name="v")
    tf.constant(0.0, name="odd").op._attrs["fn"] = print  # an attr no meta graph can hold
    saver = tf.train.Saver()
    (tmp_path / "m.meta").write_text("stale")
    with tf.Session() as sess:
        sess.run(v.initializer)
        path = saver.save(sess, str(tmp_path / "m"))
    assert "attr 'fn' of op 'odd'" in caplog.text
    assert tf.train.latest_checkpoint(str(tmp_path)) == path
    assert not (tmp_path / "m.meta").exists()


# -- init_from_checkpoint ------------------------------------------------------------------------


def test_init_from_checkpoint_maps_names_and_scopes(tmp_path):
    with tf.variable_scope("old"):
        tf.get_variable("w", initializer=tf.constant([1.0, 2.0]))
        tf.get_variable("b", initializer=tf.constant(3.0))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "m"))
    tf.reset_default_graph()
    with tf.variable_scope("new"):
        w = tf.get_variable("w", [2], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [], initializer=tf.zeros_initializer())
    single = tf.Variable(0.0, name="single")
    tf.train.init_from_checkpoint(str(tmp_path), {"old/": "new/"})
    tf.train.init_from_checkpoint(path, {"old/b": single})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(w).tolist() == [1.0, 2.0]
        assert sess.run([b, single]) == [3.0, 3.0]
    with pytest.raises(ValueError, match="not found"):
        tf.train.init_from_checkpoint(path, {"old/missing": single})
    with pytest.raises(ValueError, match="Shape"):
        tf.train.init_from_checkpoint(path, {"old/w": single})
