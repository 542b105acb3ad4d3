"""tf.gfile / tf.io.gfile on local files: results, error classes and messages as TF 2.15's
(/tmp/ref/io/gfile_ref.py, gfile_ref2.py)."""

import os

import pytest

import dflow as tf


@pytest.fixture
def d(tmp_path):
    return str(tmp_path)


def _fails(cls, message, fn, *args, **kwargs):
    with pytest.raises(cls) as info:
        fn(*args, **kwargs)
    assert str(info.value) == message
    return info.value


def test_names_are_exported():
    g, io = tf.gfile, tf.io.gfile
    assert g.Open is g.GFile is io.GFile
    assert issubclass(g.FastGFile, g.GFile)
    assert (g.Exists, g.Glob, g.IsDirectory, g.ListDirectory) == (io.exists, io.glob, io.isdir, io.listdir)
    assert (g.MakeDirs, g.MkDir, g.Remove, g.Rename) == (io.makedirs, io.mkdir, io.remove, io.rename)
    assert (g.Copy, g.DeleteRecursively, g.Stat) == (io.copy, io.rmtree, io.stat)
    assert tf.compat.v1.gfile.Walk is g.Walk


def test_text_and_binary_modes(d):
    p = os.path.join(d, "a.txt")
    _fails(tf.errors.NotFoundError, f"{p}; No such file or directory", tf.gfile.GFile(p).read)
    _fails(tf.errors.InvalidArgumentError, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'",
           tf.gfile.GFile, p, "x")
    with tf.gfile.GFile(p, "w") as f:
        f.write("héllo\nworld\n")
        f.write(b"bytes\n")  # bytes in a text-mode file, as TF allows
    assert tf.gfile.GFile(p).read() == "héllo\nworld\nbytes\n"
    assert tf.gfile.GFile(p, "rb").read() == b"h\xc3\xa9llo\nworld\nbytes\n"
    assert tf.gfile.GFile(p).readlines() == ["héllo\n", "world\n", "bytes\n"]
    assert list(tf.gfile.GFile(p))[:2] == ["héllo\n", "world\n"]
    f = tf.gfile.GFile(p)
    a, t = f.read(3), f.tell()  # n counts bytes, even in text mode
    f.seek(0)
    assert (a, t, f.readline(), f.tell(), f.size()) == ("hé", 3, "héllo\n", 7, 19)
    assert (f.mode, f.name) == ("r", p)
    _fails(tf.errors.InvalidArgumentError, "Invalid whence argument: 3. Valid values are 0, 1, or 2.", f.seek, 0, 3)
    with pytest.raises(UnicodeDecodeError):
        tf.gfile.GFile(p).read(2)
    _fails(tf.errors.PermissionDeniedError, "File isn't open for writing", tf.gfile.GFile(p).write, "x")
    _fails(tf.errors.PermissionDeniedError, "File isn't open for reading", tf.gfile.GFile(p + "w", "w").read)
    _fails(TypeError, "Expected binary or unicode string, got 3", tf.gfile.GFile(p + "2", "w").write, 3)
    tf.gfile.GFile(p, "a").write("zz")
    assert tf.gfile.GFile(p).read()[-4:] == "s\nzz"
    assert tf.gfile.FastGFile(p, "rb").read()[:3] == b"h\xc3\xa9"
    assert tf.gfile.GFile(p, "r+").read()[:3] == "hél"


def test_lazy_open_and_read_write_modes(d):
    p = os.path.join(d, "a.txt")
    tf.gfile.GFile(os.path.join(d, "nw"), "w").close()
    assert not os.path.exists(os.path.join(d, "nw"))  # never written, never created
    tf.gfile.GFile(os.path.join(d, "e"), "w").write("")
    assert tf.gfile.GFile(os.path.join(d, "e")).read() == ""
    open(p, "w").write("abc")
    f = tf.gfile.GFile(p, "r+")
    assert f.read(1) == "a"
    f.write("Q")  # TF's r+ writes a new file
    f.close()
    assert open(p).read() == "Q"
    w = tf.gfile.GFile(os.path.join(d, "t"), "w")
    w.write("abcd")
    assert w.tell() == 4
    w.close()
    assert tf.gfile.GFile(p, "rb").read(100) == b"Q"


def test_directories(d):
    p = os.path.join(d, "a.txt")
    open(p, "w").write("héllo\nworld\nbytes\n")
    assert (tf.gfile.Exists(p), tf.gfile.Exists(p + "x"), tf.gfile.Exists(d)) == (True, False, True)
    assert (tf.gfile.IsDirectory(p), tf.gfile.IsDirectory(d), tf.gfile.IsDirectory(p + "x")) == (False, True, False)
    assert tf.gfile.Exists("file://" + p) and tf.gfile.Exists(p.encode())
    tf.gfile.MkDir(d)  # an existing directory: no error in TF 2.15
    _fails(tf.errors.NotFoundError, f"{d}/x/y; No such file or directory", tf.gfile.MkDir, os.path.join(d, "x", "y"))
    tf.gfile.MakeDirs(os.path.join(d, "x", "y"))
    tf.gfile.MakeDirs(os.path.join(d, "x", "y"))
    _fails(tf.errors.FailedPreconditionError, f"{p} is not a directory", tf.gfile.MakeDirs, os.path.join(p, "y"))
    tf.gfile.MkDir(os.path.join(d, "z"))
    assert sorted(tf.gfile.ListDirectory(d)) == ["a.txt", "x", "z"]
    assert tf.gfile.ListDirectory(d.encode()) is not None
    _fails(tf.errors.NotFoundError, f"Could not find directory {d}/nope", tf.gfile.ListDirectory, d + "/nope")
    _fails(tf.errors.NotFoundError, f"Could not find directory {p}", tf.gfile.ListDirectory, p)
    assert sorted(tf.gfile.Glob(d + "/*")) == [p, d + "/x", d + "/z"]
    assert tf.gfile.Glob([d + "/*.txt", d + "/?"]) == [p, d + "/x", d + "/z"]
    assert tf.gfile.Glob(d + "/[a-b].txt") == [p]
    assert tf.gfile.Glob(d + "/nope/*") == [] and tf.gfile.Glob("/nonexistent_dir_q/*") == []
    st = tf.gfile.Stat(p)
    assert (st.length, st.is_directory, st.mtime_nsec) == (19, False, int(os.stat(p).st_mtime) * 10**9)
    assert tf.gfile.Stat(d).is_directory
    _fails(tf.errors.NotFoundError, f"{p}x; No such file or directory", tf.gfile.Stat, p + "x")
    open(d + "/x/y/f", "w").close()
    walked = [(t.replace(d, "<D>"), sorted(s), sorted(f)) for t, s, f in tf.gfile.Walk(d)]
    assert walked == [("<D>", ["x", "z"], ["a.txt"]), ("<D>/x", ["y"], []), ("<D>/x/y", [], ["f"]), ("<D>/z", [], [])]
    post = [t.replace(d, "<D>") for t, _, _ in tf.io.gfile.walk(d, topdown=False)]
    assert post == ["<D>/x/y", "<D>/x", "<D>/z", "<D>"]
    assert list(tf.gfile.Walk(d + "/nope")) == [] and list(tf.gfile.Walk(p)) == []
    seen = []
    assert list(tf.io.gfile.walk(d + "/nope", onerror=seen.append)) == []
    assert isinstance(seen[0], tf.errors.NotFoundError)


def test_copy_rename_remove(d):
    p = os.path.join(d, "a.txt")
    open(p, "w").write("abc")
    os.mkdir(os.path.join(d, "z"))
    tf.gfile.Copy(p, d + "/b.txt")
    _fails(tf.errors.AlreadyExistsError, "file already exists", tf.gfile.Copy, p, d + "/b.txt")
    tf.gfile.Copy(p, d + "/b.txt", overwrite=True)
    _fails(tf.errors.NotFoundError, f"{p}x; No such file or directory", tf.gfile.Copy, p + "x", d + "/c.txt")
    _fails(tf.errors.FailedPreconditionError, f"{d}/z; Is a directory", tf.gfile.Copy, p, d + "/z", overwrite=True)
    _fails(tf.errors.AlreadyExistsError, "file already exists", tf.gfile.Rename, d + "/b.txt", p)
    tf.gfile.Rename(d + "/b.txt", d + "/c.txt", overwrite=True)
    assert open(d + "/c.txt").read() == "abc"
    _fails(tf.errors.NotFoundError, f"{d}/b.txt; No such file or directory", tf.gfile.Rename, d + "/b.txt",
           d + "/e.txt")
    tf.gfile.Rename(d + "/z", d + "/zz")
    _fails(tf.errors.NotFoundError, f"{d}/b.txt; No such file or directory", tf.gfile.Remove, d + "/b.txt")
    _fails(tf.errors.FailedPreconditionError, f"{d}/zz; Is a directory", tf.gfile.Remove, d + "/zz")
    tf.gfile.Remove(d + "/c.txt")
    _fails(tf.errors.NotFoundError, f"{d}/nope not found", tf.gfile.DeleteRecursively, d + "/nope")
    tf.gfile.DeleteRecursively(d + "/zz")
    tf.gfile.DeleteRecursively(d)
    assert not tf.gfile.Exists(d)


def test_join_schemes_and_other_filesystems():
    assert (tf.io.gfile.join("a", "b", "c"), tf.io.gfile.join("gs://a", "b"), tf.io.gfile.join("a", "/b")) == \
        ("a/b/c", "gs://a/b", "/b")
    schemes = tf.io.gfile.get_registered_schemes()
    assert schemes[:2] == ["", "file"] and {"memory", "s3", "gs", "hdfs"} <= set(schemes)  # fsspec's
    msg = "File system scheme 'foo' not implemented (file: 'foo://bar/x')"
    _fails(tf.errors.UnimplementedError, msg, tf.gfile.Exists, "foo://bar/x")
    _fails(tf.errors.UnimplementedError, msg, tf.gfile.GFile("foo://bar/x").read)


def test_glob_matches_as_tf(d, monkeypatch):
    for name in [".hidden", "a.txt", "b[1].txt"]:
        open(os.path.join(d, name), "w").close()
    os.mkdir(d + "/sub")
    open(d + "/sub/c.txt", "w").close()
    open(d + "/sub/.h2", "w").close()

    def g(p):
        return sorted(x.replace(d, "<D>") for x in tf.io.gfile.glob(p))

    assert g(d + "/*") == ["<D>/.hidden", "<D>/a.txt", "<D>/b[1].txt", "<D>/sub"]  # hidden files too
    assert g(d + "/*/*") == ["<D>/sub/.h2", "<D>/sub/c.txt"]
    assert g(d + "/b\\[1\\].txt") == ["<D>/b[1].txt"]
    assert g(d + "/[!a]*") == g(d + "/[^a]*") == ["<D>/.hidden", "<D>/b[1].txt", "<D>/sub"]
    assert g(d + "/**") == g(d + "/*")
    assert g(d + "/sub/../a.txt") == ["<D>/sub/../a.txt"]
    assert (g(d + "/a.txt"), g(d + "/nope.txt"), g(d + "/")) == (["<D>/a.txt"], [], ["<D>/"])
    monkeypatch.chdir(d)
    assert sorted(tf.io.gfile.glob("*.txt")) == ["a.txt", "b[1].txt"]
    assert sorted(tf.io.gfile.glob("sub/*")) == ["sub/.h2", "sub/c.txt"]
