"""gfile on fsspec (issue 20): ``memory://`` paths through the gfile API, and every file user of
dflow (Saver and checkpoints, FileWriter, TFRecord files, tf.data file datasets, queue readers,
read_file/write_file, Estimator model_dir) taking them as it takes local paths.

The error classes and message shapes are TF's for its own non-local file systems (``<path>; No such
file or directory``, ``<path> not found``, ``Could not find directory <path>``, ...); the Estimator
figures are TF 2.15.1's ``tf.compat.v1.estimator`` (tests/estimator/test_estimator.py)."""

import numpy as np
import pytest

import dflow as tf
from tests.estimator import test_estimator as est_ref

fsspec = pytest.importorskip("fsspec")
from fsspec.implementations.memory import MemoryFileSystem  # noqa: E402


@pytest.fixture(autouse=True)
def clean_memory():
    """``MemoryFileSystem.store`` is global: each test starts and ends with an empty memory://."""
    MemoryFileSystem.store.clear()
    MemoryFileSystem.pseudo_dirs[:] = [""]
    yield
    MemoryFileSystem.store.clear()
    MemoryFileSystem.pseudo_dirs[:] = [""]


def _fails(cls, message, fn, *args, **kwargs):
    with pytest.raises(cls) as info:
        fn(*args, **kwargs)
    assert str(info.value) == message


def test_gfile_round_trips_in_memory():
    g = tf.io.gfile
    g.makedirs("memory://d/sub")
    assert g.isdir("memory://d") and g.isdir("memory://d/sub") and not g.exists("memory://d/a.txt")
    f = g.GFile("memory://d/a.txt", "w")
    assert not g.exists("memory://d/a.txt")  # opens lazily, as on local disk
    f.write("héllo\n")
    f.write(b"world\n")
    f.close()
    with g.GFile("memory://d/a.txt") as f:
        assert f.read(1) == "h" and f.read(2) == "é"  # text mode reads n bytes, as TF
    with g.GFile("memory://d/a.txt", "rb") as f:
        assert f.read() == "héllo\nworld\n".encode()
    with tf.gfile.Open("memory://d/a.txt") as f:
        assert list(f) == ["héllo\n", "world\n"]
        f.seek(0)
        assert f.readline() == "héllo\n" and f.tell() == 7
        f.seek(-6, 2)
        assert f.read() == "world\n"
    with tf.gfile.GFile("memory://d/a.txt", "a") as f:
        f.write("!")
    assert tf.gfile.GFile("memory://d/a.txt").size() == 14
    assert tf.gfile.FastGFile("memory://d/a.txt", "rb").read()[-2:] == b"\n!"
    st = tf.gfile.Stat("memory://d/a.txt")
    assert (st.length, st.is_directory, st.mtime_nsec % 1_000_000_000) == (14, False, 0) and st.mtime_nsec > 0
    assert tf.gfile.Stat("memory://d").is_directory

    tf.gfile.Copy("memory://d/a.txt", "memory://d/sub/b.txt")
    tf.gfile.Copy("memory://d/a.txt", "memory://d/sub/b.txt", overwrite=True)
    tf.gfile.MkDir("memory://d/e")
    tf.gfile.MkDir("memory://d/e")  # exists already: fine, as on local disk
    assert sorted(tf.gfile.ListDirectory("memory://d")) == ["a.txt", "e", "sub"]
    assert sorted(tf.gfile.Glob("memory://d/*.txt")) == ["memory://d/a.txt"]
    assert sorted(tf.gfile.Glob("memory://d/*/b.*")) == ["memory://d/sub/b.txt"]
    assert sorted(tf.gfile.Glob(["memory://d/[ab].txt", "memory://d/sub/?.txt"])) == \
        ["memory://d/a.txt", "memory://d/sub/b.txt"]
    assert tf.gfile.Glob("memory://d/a.txt") == ["memory://d/a.txt"]
    assert tf.gfile.Glob("memory://d/nope*") == []
    walked = [(top, sorted(dirs), sorted(files)) for top, dirs, files in tf.gfile.Walk("memory://d")]
    assert walked == [("memory://d", ["e", "sub"], ["a.txt"]), ("memory://d/e", [], []),
                      ("memory://d/sub", [], ["b.txt"])]
    assert [w[0] for w in tf.io.gfile.walk("memory://d", topdown=False)][-1] == "memory://d"
    tf.gfile.Rename("memory://d/sub/b.txt", "memory://d/c.txt")
    assert tf.gfile.GFile("memory://d/c.txt", "rb").read() == "héllo\nworld\n!".encode()
    tf.gfile.Rename("memory://d/sub", "memory://d/moved")
    assert tf.gfile.IsDirectory("memory://d/moved") and not tf.gfile.Exists("memory://d/sub")
    tf.gfile.Remove("memory://d/c.txt")
    assert not tf.gfile.Exists("memory://d/c.txt")
    tf.gfile.DeleteRecursively("memory://d")
    assert not tf.gfile.Exists("memory://d") and not tf.gfile.Exists("memory://d/a.txt")


def test_gfile_errors_in_memory():
    g = tf.gfile
    g.MakeDirs("memory://d/sub")
    with g.GFile("memory://d/a.txt", "w") as f:
        f.write("x")
    _fails(tf.errors.NotFoundError, "memory://d/nope; No such file or directory", g.GFile("memory://d/nope").read)
    _fails(tf.errors.FailedPreconditionError, "memory://d/sub; Is a directory", g.GFile("memory://d/sub").read)
    _fails(tf.errors.NotFoundError, "memory://d/nope; No such file or directory", g.Stat, "memory://d/nope")
    _fails(tf.errors.NotFoundError, "memory://d/nope; No such file or directory", g.Remove, "memory://d/nope")
    _fails(tf.errors.FailedPreconditionError, "memory://d/sub; Is a directory", g.Remove, "memory://d/sub")
    _fails(tf.errors.NotFoundError, "memory://d/nope not found", g.DeleteRecursively, "memory://d/nope")
    _fails(tf.errors.NotFoundError, "Could not find directory memory://d/nope", g.ListDirectory, "memory://d/nope")
    _fails(tf.errors.NotFoundError, "Could not find directory memory://d/a.txt", g.ListDirectory, "memory://d/a.txt")
    _fails(tf.errors.NotFoundError, "memory://d/x/y; No such file or directory", g.MkDir, "memory://d/x/y")
    _fails(tf.errors.FailedPreconditionError, "memory://d/a.txt is not a directory", g.MakeDirs, "memory://d/a.txt/b")
    _fails(tf.errors.AlreadyExistsError, "file already exists", g.Copy, "memory://d/a.txt", "memory://d/a.txt")
    _fails(tf.errors.NotFoundError, "memory://d/nope; No such file or directory", g.Copy, "memory://d/nope",
           "memory://d/b.txt")
    _fails(tf.errors.AlreadyExistsError, "file already exists", g.Rename, "memory://d/sub", "memory://d/a.txt")
    _fails(tf.errors.NotFoundError, "memory://d/nope; No such file or directory", g.Rename, "memory://d/nope",
           "memory://d/b.txt")
    _fails(tf.errors.PermissionDeniedError, "File isn't open for writing", g.GFile("memory://d/a.txt").write, "x")
    _fails(tf.errors.UnimplementedError, "Renaming memory://d/a.txt to /tmp/a.txt: renaming across file systems "
           "is not implemented", g.Rename, "memory://d/a.txt", "/tmp/a.txt")
    assert list(g.Walk("memory://nope")) == []
    # A scheme fsspec does not know is TF's UnimplementedError.
    _fails(tf.errors.UnimplementedError, "File system scheme 'foo' not implemented (file: 'foo://bar/x')",
           g.Exists, "foo://bar/x")


def test_copy_across_file_systems_and_registered_schemes(tmp_path):
    local = str(tmp_path / "a.bin")
    with tf.gfile.GFile(local, "wb") as f:
        f.write(b"\x00\x01" * 1000)
    tf.gfile.Copy(local, "memory://c/a.bin")
    tf.gfile.Copy("memory://c/a.bin", "file://" + str(tmp_path / "b.bin"))
    assert tf.gfile.GFile(str(tmp_path / "b.bin"), "rb").read() == b"\x00\x01" * 1000
    schemes = tf.io.gfile.get_registered_schemes()
    assert schemes[:2] == ["", "file"] and "memory" in schemes and "s3" in schemes


def _saver_graph():
    g = tf.Graph()
    with g.as_default():
        v = tf.get_variable("v", initializer=np.arange(6, dtype=np.float32).reshape(2, 3))
        step = tf.train.get_or_create_global_step()
        bump = tf.group(v.assign_add(tf.ones_like(v)), step.assign_add(1))
        saver = tf.train.Saver(max_to_keep=2)
    return g, v, bump, saver


def test_saver_save_restore_and_max_to_keep_in_memory():
    tf.gfile.MakeDirs("memory://ckpt")
    g, v, bump, saver = _saver_graph()
    with tf.Session(graph=g) as sess:
        sess.run(tf.global_variables_initializer())
        paths = []
        for _ in range(3):
            sess.run(bump)
            paths.append(saver.save(sess, "memory://ckpt/model", global_step=tf.train.get_global_step(g)))
    assert paths == ["memory://ckpt/model-1", "memory://ckpt/model-2", "memory://ckpt/model-3"]
    assert tf.train.latest_checkpoint("memory://ckpt") == "memory://ckpt/model-3"
    state = tf.train.get_checkpoint_state("memory://ckpt")
    assert state.all_model_checkpoint_paths == paths[1:]
    # max_to_keep=2: the first checkpoint's files are gone, the others' are all there.
    assert sorted(tf.gfile.ListDirectory("memory://ckpt")) == [
        "checkpoint", "model-2.data-00000-of-00001", "model-2.index", "model-2.meta",
        "model-3.data-00000-of-00001", "model-3.index", "model-3.meta"]
    assert b'model_checkpoint_path: "model-3"' in tf.gfile.GFile("memory://ckpt/checkpoint", "rb").read()
    assert tf.train.checkpoint_exists("memory://ckpt/model-2") and not tf.train.checkpoint_exists(paths[0])
    assert len(tf.train.get_checkpoint_mtimes(paths)) == 2

    g2, v2, _, saver2 = _saver_graph()
    with tf.Session(graph=g2) as sess:
        saver2.restore(sess, tf.train.latest_checkpoint("memory://ckpt"))
        np.testing.assert_array_equal(sess.run(v2), np.arange(6).reshape(2, 3) + 3)
        saver2.restore(sess, "memory://ckpt/model-2")
        np.testing.assert_array_equal(sess.run(v2), np.arange(6).reshape(2, 3) + 2)
    reader = tf.train.load_checkpoint("memory://ckpt")
    assert reader.get_variable_to_shape_map() == {"v": [2, 3], "global_step": []}
    assert tf.train.list_variables("memory://ckpt/model-3") == [("global_step", []), ("v", [2, 3])]
    # The meta graph imports back from memory://.
    with tf.Graph().as_default():
        restorer = tf.train.import_meta_graph("memory://ckpt/model-3.meta")
        with tf.Session() as sess:
            restorer.restore(sess, "memory://ckpt/model-3")
            np.testing.assert_array_equal(sess.run("v:0"), np.arange(6).reshape(2, 3) + 3)
    with tf.Session(graph=g2) as sess, pytest.raises(ValueError, match="not a valid checkpoint"):
        saver2.restore(sess, "memory://ckpt/model-1")


def test_object_checkpoint_in_memory():
    g = tf.Graph()
    with g.as_default():
        w = tf.get_variable("w", initializer=[1.0, 2.0])
        ckpt = tf.train.Checkpoint(w=w)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = ckpt.save("memory://obj/ck", session=sess)
            sess.run(w.assign([5.0, 6.0]))
            assert path == "memory://obj/ck-1"
            assert tf.train.latest_checkpoint("memory://obj") == path
            ckpt.restore(path).run_restore_ops(sess)
            np.testing.assert_array_equal(sess.run(w), [1.0, 2.0])
            manager = tf.train.CheckpointManager(ckpt, "memory://mgr", max_to_keep=1)
            first, second = manager.save(session=sess), manager.save(session=sess)
            assert (first, second, manager.latest_checkpoint) == ("memory://mgr/ckpt-2", "memory://mgr/ckpt-3",
                                                                  "memory://mgr/ckpt-3")
            assert sorted(tf.gfile.ListDirectory("memory://mgr")) == [
                "checkpoint", "ckpt-3.data-00000-of-00001", "ckpt-3.index"]


def test_file_writer_events_read_back_in_memory():
    writer = tf.summary.FileWriter("memory://logs/run1")
    summary = tf.Summary(value=[tf.Summary.Value(tag="loss", simple_value=0.25)])
    writer.add_summary(summary, global_step=3)
    writer.flush()
    writer.close()
    (name,) = tf.gfile.ListDirectory("memory://logs/run1")
    assert name.startswith("events.out.tfevents.")
    events = list(tf.train.summary_iterator("memory://logs/run1/" + name))
    assert events[0].file_version == "brain.Event:2"
    assert [(e.step, v.tag, v.simple_value) for e in events[1:] for v in e.summary.value] == [(3, "loss", 0.25)]


def test_tfrecord_writer_and_datasets_in_memory():
    records = [b"a", b"", b"bcd" * 100]
    with tf.io.TFRecordWriter("memory://data/r.tfrecord") as w:
        for r in records:
            w.write(r)
    with tf.io.TFRecordWriter("memory://data/z.tfrecord", "GZIP") as w:
        w.write(b"zipped")
    assert list(tf.io.tf_record_iterator("memory://data/r.tfrecord")) == records
    ds = tf.data.TFRecordDataset(["memory://data/r.tfrecord"])
    gz = tf.data.TFRecordDataset("memory://data/z.tfrecord", compression_type="GZIP")
    with tf.gfile.GFile("memory://data/lines.txt", "w") as f:
        f.write("first\nsecond\r\nthird")
    with tf.gfile.GFile("memory://data/fixed.bin", "wb") as f:
        f.write(b"HH0123456789FF")
    lines = tf.data.TextLineDataset("memory://data/lines.txt")
    fixed = tf.data.FixedLengthRecordDataset("memory://data/fixed.bin", 5, header_bytes=2, footer_bytes=2)
    files = tf.data.Dataset.list_files("memory://data/*.tfrecord", shuffle=False)
    with tf.Session() as sess:
        for dataset, expected in [(ds, records), (gz, [b"zipped"]), (lines, [b"first", b"second", b"third"]),
                                  (fixed, [b"01234", b"56789"]),
                                  (files, [b"memory://data/r.tfrecord", b"memory://data/z.tfrecord"])]:
            nxt = tf.data.make_one_shot_iterator(dataset).get_next()
            got = []
            with pytest.raises(tf.errors.OutOfRangeError):
                while True:
                    got.append(sess.run(nxt))
            assert got == expected
        missing = tf.data.make_one_shot_iterator(tf.data.TextLineDataset("memory://data/nope.txt")).get_next()
        with pytest.raises(tf.errors.NotFoundError, match="memory://data/nope.txt"):
            sess.run(missing)


def test_file_ops_and_queue_readers_in_memory():
    with tf.Graph().as_default(), tf.Session() as sess:
        sess.run(tf.io.write_file("memory://ops/sub/a.txt", "one\ntwo\n"))
        assert sess.run(tf.io.read_file("memory://ops/sub/a.txt")) == b"one\ntwo\n"
        assert list(sess.run(tf.io.matching_files("memory://ops/*/*.txt"))) == [b"memory://ops/sub/a.txt"]
        with pytest.raises(tf.errors.NotFoundError, match="memory://ops/nope"):
            sess.run(tf.io.read_file("memory://ops/nope"))
        queue = tf.FIFOQueue(4, tf.string)
        sess.run(queue.enqueue_many([["memory://ops/sub/a.txt"]]))
        sess.run(queue.close())
        key, value = tf.TextLineReader().read(queue)
        assert [sess.run([key, value]) for _ in range(2)] == [[b"memory://ops/sub/a.txt:1", b"one"],
                                                              [b"memory://ops/sub/a.txt:2", b"two"]]


def test_estimator_with_memory_model_dir():
    est = tf.estimator.Estimator(est_ref.model_fn, model_dir="memory://est", params={"lr": 0.1})
    est.train(est_ref.train_input(), steps=30)
    np.testing.assert_allclose(est.get_variable_value("w").ravel(), est_ref.TF1_W_30, rtol=1e-5)
    assert est.latest_checkpoint() == "memory://est/model.ckpt-30"
    result = est.evaluate(est_ref.eval_input())
    assert result["global_step"] == 30
    np.testing.assert_allclose(result["loss"], est_ref.TF1_EVAL_LOSS_30, rtol=1e-5)
    names = tf.gfile.ListDirectory("memory://est")
    assert {"checkpoint", "graph.pbtxt", "model.ckpt-30.index", "eval"} <= set(names)
    assert any(n.startswith("events.out.tfevents") for n in tf.gfile.ListDirectory("memory://est/eval"))
    # A second Estimator on the same model_dir resumes from its checkpoint.
    est2 = tf.estimator.Estimator(est_ref.model_fn, model_dir="memory://est", params={"lr": 0.1})
    est2.train(est_ref.train_input(), steps=20)
    np.testing.assert_allclose(est2.get_variable_value("w").ravel(), est_ref.TF1_W_50, rtol=1e-5)
