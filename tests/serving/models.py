"""Small SavedModels and an HTTP helper shared by the serving tests."""

import json
import time
import urllib.error
import urllib.request

import numpy as np

import dflow as tf

X = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], np.float32)


def linear(export_dir, scale: float = 1.0):
    """simple_save of y = relu(x scale·w + b) and z = x·1 (two outputs); the session's y and z for X."""
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(scale * np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2), name="w")
        b = tf.Variable(np.array([0.1, -0.2], np.float32), name="b")
        y = tf.nn.relu(tf.matmul(x, w) + b, name="y")
        z = tf.reduce_sum(x, axis=1, name="z")
        sess.run(tf.global_variables_initializer())
        tf.saved_model.simple_save(sess, str(export_dir), inputs={"x": x}, outputs={"y": y, "z": z})
        return sess.run([y, z], {x: X})


def linear_y(rows: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """``linear``'s y computed with numpy."""
    w = scale * np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2)
    return np.maximum(rows @ w + np.array([0.1, -0.2], np.float32), 0)


_PY_FUNC_GRAPHS = []


def slow(export_dir, seconds: float, scale: float = 1.0):
    """y = scale x, after ``seconds`` of sleep in a ``py_func`` (servable in this process only)."""
    def wait(x):
        time.sleep(seconds)
        return x

    graph = tf.Graph()
    _PY_FUNC_GRAPHS.append(graph)  # a py_func's function lives as long as the graph that built it
    with graph.as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.identity(scale * tf.py_func(wait, [x], tf.float32), name="y")
        tf.saved_model.simple_save(sess, str(export_dir), inputs={"x": x}, outputs={"y": y})


def call(url, body=None, raw=None, headers=None, timeout=30):
    """``(status, JSON body)`` of a GET (no body) or POST to ``url``."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(url, data=data, method="GET" if data is None else "POST", headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def wait_for(predicate, seconds: float = 30.0):
    """``predicate()``'s first true value, polled every 20 ms; ``AssertionError`` after ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"not within {seconds} s")
