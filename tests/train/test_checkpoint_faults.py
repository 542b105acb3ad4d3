"""Checkpoints under faults (issue 15): a writer killed at random points, a full disk, hostile files.

Every case ends with ``latest_checkpoint`` naming a complete checkpoint that
restores, and loading a crafted file never runs code from it.
"""

import errno
import json
import os
import pickle
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import dflow as tf
from dflow.framework.files import file_io
from dflow.train.checkpoints import checkpoint_format

SIZE = 300_000  # floats per variable: big enough that a kill often lands inside a write

WRITER = textwrap.dedent("""
    import sys
    import numpy as np
    import dflow as tf

    d, size = sys.argv[1], int(sys.argv[2])
    step = tf.Variable(0, dtype=tf.int64, name="step")
    a = tf.Variable(tf.zeros([size]), name="a")
    b = tf.Variable(tf.zeros([size]), name="b")
    bump = tf.group(step.assign_add(1), a.assign_add(tf.ones([size])), b.assign_sub(tf.ones([size])))
    saver = tf.train.Saver(max_to_keep=3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        latest = tf.train.latest_checkpoint(d)
        if latest:
            saver.restore(sess, latest)
            saver.recover_last_checkpoints(tf.train.get_checkpoint_state(d).all_model_checkpoint_paths)
        print("ready", flush=True)
        while True:
            sess.run(bump)
            saver.save(sess, d + "/model.ckpt", global_step=step)
""")


def _check_directory(d: str, last_step: int) -> int:
    """Asserts the latest checkpoint of ``d`` restores consistently; returns its step."""
    latest = tf.train.latest_checkpoint(d)
    assert latest is not None, os.listdir(d)
    step = int(latest.rsplit("-", 1)[1])
    assert step >= last_step  # progress is never lost
    with tf.Graph().as_default():
        s = tf.Variable(0, dtype=tf.int64, name="step")
        a = tf.Variable(np.zeros(SIZE, np.float32), name="a")
        b = tf.Variable(np.zeros(SIZE, np.float32), name="b")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, latest)
            got_step, got_a, got_b = sess.run([s, a, b])
    assert got_step == step
    np.testing.assert_array_equal(got_a, np.full(SIZE, step, np.float32))
    np.testing.assert_array_equal(got_b, np.full(SIZE, -step, np.float32))
    # Every checkpoint whose index is in place is complete (the data file is renamed first).
    for name in os.listdir(d):
        if name.endswith(".index") and not name.startswith("."):
            prefix = os.path.join(d, name[:-len(".index")])
            reader = tf.train.NewCheckpointReader(prefix)
            assert reader.get_tensor("step") == int(prefix.rsplit("-", 1)[1])
    return step


@pytest.mark.timeout(240)
def test_a_writer_killed_at_random_points_never_leaves_a_broken_latest_checkpoint(tmp_path):
    d = str(tmp_path)
    rng = random.Random(15)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tf.__file__)))
    last_step, kills = 0, 0
    deadline = time.monotonic() + 180  # generous for a loaded 2-core host; about 7 s when quiet
    for _ in range(6):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, d, str(SIZE)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env)
        try:
            line = b""
            while line.strip() != b"ready":
                line = proc.stdout.readline()
                assert line, proc.stderr.read().decode()
                assert time.monotonic() < deadline, "the writer did not start in time"
            # Wait for at least one checkpoint of this writer, then kill it at a random moment.
            while (tf.train.latest_checkpoint(d) is None or
                   int(tf.train.latest_checkpoint(d).rsplit("-", 1)[1]) <= last_step):
                assert proc.poll() is None, proc.stderr.read().decode()
                assert time.monotonic() < deadline, "the writer saved nothing in time"
                time.sleep(0.005)
            time.sleep(rng.uniform(0.0, 0.25))
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
            proc.stdout.close()
            proc.stderr.close()
        assert proc.returncode == -signal.SIGKILL
        kills += 1
        last_step = _check_directory(d, last_step)
    assert kills == 6 and last_step >= 6
    # The next save in the directory removes the temporary files the killed writers left.
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="after")
        saver = tf.train.Saver({"after": v})
        with tf.Session() as sess:
            sess.run(v.initializer)
            saver.save(sess, os.path.join(d, "other.ckpt"))
    assert [n for n in os.listdir(d) if n.endswith(".tmp")] == []


def test_only_the_temporary_files_of_dead_writers_on_this_host_are_removed(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    host = file_io._HOST_TAG
    other_host = "000000" if host != "000000" else "111111"
    names = {"dead": f".m.ckpt.index.~{host}-{dead}-0a1b2c3d.tmp",
             "live": f".m.ckpt.index.~{host}-{os.getpid()}-0a1b2c3d.tmp",
             "other_host": f".m.ckpt.index.~{other_host}-{dead}-0a1b2c3d.tmp",
             "not_ours": ".notes.tmp"}
    for name in names.values():
        (tmp_path / name).write_bytes(b"partial")
    v = tf.Variable(2.0, name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
    left = set(os.listdir(tmp_path))
    assert names["dead"] not in left
    assert {names["live"], names["other_host"], names["not_ours"]} <= left


# -- disk full ---------------------------------------------------------------------------------


def _saved(tmp_path):
    v = tf.Variable(np.arange(1000, dtype=np.float32), name="v")
    saver = tf.train.Saver()
    sess = tf.Session()
    sess.run(v.initializer)
    first = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=1)
    sess.run(v.assign(v * 0.0 - 1.0))
    return v, saver, sess, first


def _fail_on_write(monkeypatch, err: OSError, after_bytes: int = 100):
    """Every file opened for writing by the checkpoint layer fails with ``err`` after ``after_bytes``."""
    real_fdopen = os.fdopen

    class Failing:
        def __init__(self, f):
            self._f, self._n = f, 0

        def write(self, data):
            self._n += len(memoryview(data).cast("B"))
            if self._n > after_bytes:
                raise err
            return self._f.write(data)

        def __getattr__(self, name):
            return getattr(self._f, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._f.close()

    monkeypatch.setattr(file_io.os, "fdopen", lambda fd, mode: Failing(real_fdopen(fd, mode)))


@pytest.mark.parametrize("err, cls", [(OSError(errno.ENOSPC, "No space left on device"),
                                       tf.errors.ResourceExhaustedError),
                                      (OSError(errno.EIO, "Input/output error"), tf.errors.UnknownError)])
@pytest.mark.parametrize("after_bytes", [0, 100, 5000])  # 5000: data and index written, meta fails
def test_disk_full_is_a_tf_error_naming_the_file_and_the_previous_checkpoint_stays(tmp_path, monkeypatch, err,
                                                                                     cls, after_bytes):
    v, saver, sess, first = _saved(tmp_path)
    with sess:
        before = sorted(os.listdir(tmp_path))
        _fail_on_write(monkeypatch, err, after_bytes)
        with pytest.raises(cls, match=r"model\.ckpt-2\.(data-00000-of-00001|index|meta)") as info:
            saver.save(sess, str(tmp_path / "model.ckpt"), global_step=2)
        assert err.strerror in str(info.value)
        with pytest.raises(cls, match=r"model\.ckpt-1"):  # overwriting the latest prefix itself
            saver.save(sess, str(tmp_path / "model.ckpt"), global_step=1)
        monkeypatch.undo()
        after = sorted(os.listdir(tmp_path))
        assert [n for n in after if n.endswith(".tmp")] == []  # temporary files are removed
        # Nothing new is on disk: the meta graph is written before any file is renamed.
        assert after == before
        assert tf.train.latest_checkpoint(str(tmp_path)) == first
        saver.restore(sess, tf.train.latest_checkpoint(str(tmp_path)))
        np.testing.assert_array_equal(sess.run(v), np.arange(1000, dtype=np.float32))
        # Once there is room again, saving works and moves the latest checkpoint on.
        assert saver.save(sess, str(tmp_path / "model.ckpt"), global_step=3) == tf.train.latest_checkpoint(
            str(tmp_path))


def test_a_state_file_that_cannot_be_renamed_keeps_the_previous_latest(tmp_path, monkeypatch):
    v, saver, sess, first = _saved(tmp_path)
    real_replace = os.replace

    def replace(src, dst):
        if os.path.basename(dst) == "checkpoint":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_replace(src, dst)

    with sess:
        monkeypatch.setattr(file_io.os, "replace", replace)
        with pytest.raises(tf.errors.ResourceExhaustedError, match="checkpoint; No space left"):
            saver.save(sess, str(tmp_path / "model.ckpt"), global_step=2)
        monkeypatch.undo()
        assert tf.train.latest_checkpoint(str(tmp_path)) == first
        assert [n for n in os.listdir(tmp_path) if n.endswith(".tmp")] == []


# -- loading never executes code ------------------------------------------------------------------


class CreatesAFile:
    """Unpickling this creates a file: what a pickle-based loader would run."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.fixture
def payload(tmp_path):
    marker = tmp_path / "pwned"
    return pickle.dumps(CreatesAFile(str(marker)), protocol=2), marker


def _checkpoint(tmp_path):
    v = tf.Variable(np.arange(4, dtype=np.float32), name="v")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(v.initializer)
        return saver, saver.save(sess, str(tmp_path / "m"))


@pytest.mark.parametrize("where", ["index", "index_prefix", "data", "data_in_range"])
def test_a_checkpoint_carrying_a_pickle_is_refused_and_never_runs(tmp_path, payload, where):
    data, marker = payload
    saver, path = _checkpoint(tmp_path)
    index, data_file = checkpoint_format.index_filename(path), checkpoint_format.data_filename(path)
    if where == "index":
        open(index, "wb").write(data)
    elif where == "index_prefix":  # a valid-looking start, then a pickle
        open(index, "wb").write(b'{"format": "dflow-checkpoint", ' + data)
    elif where == "data":
        open(data_file, "wb").write(data)
    else:  # the pickle sits exactly where the tensor's bytes are expected
        raw = bytearray(open(data_file, "rb").read())
        raw[:len(data[:16])] = data[:16]
        open(data_file, "wb").write(bytes(raw))
    with tf.Session() as sess, pytest.raises(tf.errors.DataLossError, match=os.path.basename(path)):
        saver.restore(sess, path)
    with pytest.raises(tf.errors.DataLossError):
        tf.train.load_variable(path, "v")
    assert not marker.exists()


def test_a_meta_graph_carrying_a_pickle_is_refused_and_never_runs(tmp_path, payload):
    data, marker = payload
    meta = tmp_path / "m.meta"
    meta.write_bytes(data)
    with tf.Graph().as_default():
        with pytest.raises(OSError, match=r"Cannot parse file .*m\.meta.*not JSON"):
            tf.train.import_meta_graph(str(meta))
        with pytest.raises(OSError, match="Cannot parse file"):
            tf.train.read_meta_graph_file(str(meta))
    # A graph file (tf.io.write_graph's) is refused the same way.
    with tf.Graph().as_default(), pytest.raises((ValueError, tf.errors.OpError), match="not JSON"):
        tf.import_graph_def(data)
    # A meta graph whose JSON embeds the pickle as a tensor value: bytes stay bytes, nothing runs.
    with tf.Graph().as_default():
        c = tf.constant([data], name="c")
        tf.train.export_meta_graph(str(meta))
        assert c.op.name == "c"
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(str(meta))
        with tf.Session() as sess:
            assert sess.run(g.get_tensor_by_name("c:0")).tolist() == [data]
    # Names in the file are only looked up in dflow's op registry: an op type or an array dtype
    # naming Python code is refused, not imported.
    doc = json.loads(meta.read_bytes())
    for op_type, dtype in (("os.system", None), ("builtins.open", None), (None, "O"), (None, "|O")):
        crafted = json.loads(json.dumps(doc))
        op = crafted["graph_def"]["ops"][0]
        if op_type:
            op["type"] = op_type
        else:
            op["attrs"]["value"]["$ndarray"]["dtype"] = dtype
        meta.write_text(json.dumps(crafted))
        with tf.Graph().as_default(), pytest.raises((ValueError, OSError, tf.errors.OpError)):
            tf.train.import_meta_graph(str(meta))
    assert not marker.exists()


def _json_paths(o, pre=()):
    yield pre
    if isinstance(o, dict):
        for k, v in o.items():
            yield from _json_paths(v, pre + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from _json_paths(v, pre + (i,))


def _crafted_json(raw: bytes, count: int, seed: int = 15):
    """``count`` variants of the JSON document ``raw``: one value anywhere swapped for one of another
    type or size, or its key dropped; one in ten also cut short."""
    where = list(_json_paths(json.loads(raw)))[1:]
    rng = random.Random(seed)
    values = [None, 0, -1, 10 ** 12, 2 ** 70, "", "x", [], {}, [1], [2, 3], 1.5, True, "float32", "string",
              {"a": 1}]
    for _ in range(count):
        doc = json.loads(raw)
        at = rng.choice(where)
        parent = doc
        for k in at[:-1]:
            parent = parent[k]
        if isinstance(parent, dict) and rng.random() < 0.2:
            del parent[at[-1]]
        else:
            parent[at[-1]] = rng.choice(values)
        data = json.dumps(doc).encode()
        if rng.random() < 0.1:
            data = data[:rng.randrange(len(data))]
        yield data


def test_crafted_checkpoint_indexes_are_data_loss_never_python_errors(tmp_path):
    with tf.Graph().as_default():
        tf.Variable(np.ones((3, 2), np.float32), name="w")
        tf.Variable([b"ab", b"c"], name="s")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"))
            index = checkpoint_format.index_filename(path)
            refused = 0
            for data in _crafted_json(open(index, "rb").read(), 400):
                open(index, "wb").write(data)
                try:
                    saver.restore(sess, path)
                except tf.errors.DataLossError as e:
                    assert "m" in str(e)
                    refused += 1
                except (tf.errors.NotFoundError, tf.errors.InvalidArgumentError):
                    refused += 1  # a renamed tensor, a changed shape or dtype
    assert refused > 300


def test_crafted_meta_graphs_are_clear_errors_never_python_ones(tmp_path):
    """Valid JSON of the wrong shape (a value swapped or a key dropped anywhere, or the file cut short):
    ``OSError`` (cannot parse) or ``ValueError`` (malformed) naming the file, never a ``TypeError``,
    ``KeyError``, ``AttributeError`` or ``IndexError`` from inside the importer."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(np.ones((3, 2), np.float32), name="w")
        tf.nn.relu(tf.matmul(x, w), name="y")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(w.initializer)
            path = saver.save(sess, str(tmp_path / "m"))
    crafted = str(tmp_path / "crafted.meta")
    outcomes = {"refused": 0, "imported": 0}
    for data in _crafted_json(open(path + ".meta", "rb").read(), 400):
        open(crafted, "wb").write(data)
        with tf.Graph().as_default():
            try:
                tf.train.import_meta_graph(crafted)
                outcomes["imported"] += 1  # a harmless change (a value nothing reads)
            except OSError as e:
                assert "crafted.meta" in str(e)
                outcomes["refused"] += 1
            except (ValueError, tf.errors.OpError):
                outcomes["refused"] += 1
    assert outcomes["refused"] > 200, outcomes
    # The graph alone (tf.io.write_graph's bytes, read with tf.import_graph_def) is refused the same way.
    graph_bytes = json.dumps(json.loads(open(path + ".meta", "rb").read())["graph_def"]).encode()
    refused = 0
    for data in _crafted_json(graph_bytes, 300, seed=16):
        with tf.Graph().as_default():
            try:
                tf.import_graph_def(data)
            except (ValueError, tf.errors.OpError):
                refused += 1
    assert refused > 150
