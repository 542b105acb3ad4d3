"""Runs a table of tf.image cases once and checks each against TF 2.15 figures."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf


def run_cases(cases) -> dict:
    """``cases(tf) -> {key: tensor}`` built in a fresh graph; ``{key: (tensor, value)}``."""
    g = tf.Graph()
    with g.as_default():
        tensors = cases(tf)
        with tf.Session(graph=g) as sess:
            values = sess.run(tensors)
    return {k: (tensors[k], values[k]) for k in tensors}


def check_case(tensor, value, expected, same_name=True, tolerance=None) -> None:
    """``expected`` is ``(name, static shape, dtype, shape, flat values)`` as TF gave them."""
    name, static, dtype, shape, values = expected
    got = np.asarray(value)
    if same_name:
        assert tensor.name == name
    if static is not None:
        assert tensor.shape.is_compatible_with(static), f"static shape {tensor.shape} vs TF's {static}"
    assert got.dtype == np.dtype(dtype), f"dtype {got.dtype} != {dtype}"
    assert list(got.shape) == shape
    if got.dtype.kind == "f":
        rtol, atol = tolerance or (1e-6, 1e-6)
        np.testing.assert_allclose(got.ravel(), np.asarray(values, dtype=np.float64), rtol=rtol, atol=atol)
    elif got.dtype.kind in "SO":
        assert list(got.ravel()) == list(values)
    else:
        np.testing.assert_array_equal(got.ravel(), np.asarray(values))


def tf_case_test(cases, expected: dict, names_differ=(), tolerance=None):
    """The module's ``test_matches_tf``: every case of ``cases`` against ``expected``."""
    results = {}

    @pytest.mark.parametrize("key", sorted(expected))
    def test_matches_tf(key):
        if not results:
            results.update(run_cases(cases))
        tensor, value = results[key]
        check_case(tensor, value, expected[key], key not in names_differ, (tolerance or {}).get(key))

    return test_matches_tf
