"""The dtypes dflow names but cannot compute with, against TF 2.15's properties."""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf


def test_quantized_and_other_dtypes_as_tf():
    # TF: name, enum, numpy stand-in, is_quantized, size
    rows = [(tf.qint8, 11, np.dtype([("qint8", "i1")]), 1), (tf.quint8, 12, np.dtype([("quint8", "u1")]), 1),
            (tf.qint16, 15, np.dtype([("qint16", "<i2")]), 2), (tf.quint16, 16, np.dtype([("quint16", "<u2")]), 2),
            (tf.qint32, 13, np.dtype([("qint32", "<i4")]), 4)]
    for d, enum, npd, size in rows:
        assert d.as_datatype_enum == enum and d.as_numpy_dtype == npd and d.size == size
        assert d.is_quantized and not d.is_floating and not d.is_integer and d.is_numpy_compatible
        assert tf.as_dtype(d.name) is d and tf.as_dtype(enum) is d and tf.as_dtype(npd) is d
        with pytest.raises(TypeError, match=f"Cannot find minimum value of <dtype: '{d.name}'> with quantized type"):
            _ = d.min
    assert tf.QUANTIZED_DTYPES == tf.dtypes.QUANTIZED_DTYPES == {d for d, *_ in rows}
    assert (tf.bfloat16.as_datatype_enum, tf.bfloat16.size, tf.bfloat16.is_floating) == (14, 2, True)
    for d, enum in ((tf.resource, 20), (tf.variant, 21)):
        assert (d.as_datatype_enum, d.size, d.is_numpy_compatible, d.is_floating, d.is_bool) == (enum, 0, False,
                                                                                                  False, False)
        with pytest.raises(TypeError, match=f"Cannot find minimum value of <dtype: '{d.name}'>."):
            _ = d.min
    assert tf.dtypes.double is tf.float64 and tf.dtypes.half is tf.float16
    assert not tf.float32.is_quantized


def test_ops_on_unimplemented_dtypes_raise_not_implemented():
    with tf.Graph().as_default():
        assert tf.placeholder(tf.qint8, [2]).dtype is tf.qint8  # the quantize ops make and read them
        with pytest.raises(TypeError, match="qint8"):  # other ops refuse them, as TF's
            tf.add(tf.placeholder(tf.qint8, [2]), tf.placeholder(tf.qint8, [2]))
        with pytest.raises(NotImplementedError, match="bfloat16 is not implemented"):
            tf.cast(tf.constant(1.0), tf.bfloat16)
        with pytest.raises(NotImplementedError, match="no resource tensors"):
            tf.placeholder(tf.resource)
    with pytest.raises(TypeError, match="tf.variant has no numpy dtype"):
        _ = tf.variant.as_numpy_dtype
