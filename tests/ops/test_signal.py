"""tf.signal / tf.spectral: FFTs, shifts, frames, windows, STFT, DCT, MDCT and mel features.

Figures marked TF were read from TensorFlow 2.15 (scripts under /tmp/ref/mathsig/);
every FFT case of TF's 1-3D ops (float32 and float64, cropped and padded
``fft_length``, and the gradients TF can build) was also checked against TF
there. TF 2.15's CPU build has no kernels for the ND ops, so those are checked
against numpy.fft here, and gradients against finite differences.
"""

from __future__ import annotations

import numpy as np
import pytest

import dflow as tf
from tests.ops.gradcheck import check_gradients

RNG = np.random.RandomState(0)
XR = np.round(RNG.randn(2, 3, 5), 3)
XI = np.round(RNG.randn(2, 3, 5), 3)
Z = XR + 1j * XI


def run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def test_fft_figures_from_tf():
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0, -1.0, 0.5, 3.0]])
        z = tf.complex(x, tf.constant([[0.5, -1.0, 0.0, 2.0, 1.0]]))
        r8, i7, f2 = run([tf.signal.rfft(x, [8]), tf.signal.irfft(z, [7]), tf.signal.fft2d(tf.reshape(z, [1, 5, 1]))])
    np.testing.assert_allclose(r8, [[5.5, -0.9393398761749268 - 0.7677669525146484j, 5 - 1.5j,  # TF
                                     -3.0606601238250732 - 2.7677669525146484j, 0.5]], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(i7, [[0.5714285969734192, 0.40945151448249817, 1.0875037908554077,  # TF
                                     -1.0150457620620728, -0.14877592027187347, -0.3631197214126587,
                                     0.45855775475502014]], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(f2.ravel(), [5.5 + 2.5j,  # TF
                                            -0.12808990478515625 + 0.7147003412246704j,
                                            -2.473051071166992 + 0.2792344093322754j,
                                            -3.926136016845703 + 1.9568336009979248j,
                                            6.027276992797852 - 2.95076847076416j], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64], ids=["f32", "f64"])
def test_ffts_match_numpy(dtype):
    cdt = tf.complex64 if dtype == tf.float32 else tf.complex128
    nf = np.fft
    with tf.Graph().as_default():
        r = tf.constant(XR, dtype)
        z = tf.complex(r, tf.constant(XI, dtype))
        cases = [
            (tf.signal.fft(z), nf.fft(Z)), (tf.ifft(z), nf.ifft(Z)), (tf.spectral.fft2d(z), nf.fft2(Z)),
            (tf.signal.ifft2d(z), nf.ifft2(Z)), (tf.fft3d(z), nf.fftn(Z)), (tf.signal.ifft3d(z), nf.ifftn(Z)),
            (tf.signal.rfft(r), nf.rfft(XR)), (tf.signal.rfft(r, [8]), nf.rfft(XR, 8)),
            (tf.signal.rfft(r, [3]), nf.rfft(XR, 3)), (tf.signal.rfft2d(r, [4, 6]), nf.rfft2(XR, [4, 6])),
            (tf.spectral.rfft3d(r), nf.rfftn(XR)), (tf.signal.irfft(z), nf.irfft(Z)),
            (tf.signal.irfft(z, [7]), nf.irfft(Z, 7)), (tf.signal.irfft(z, [4]), nf.irfft(Z, 4)),
            (tf.signal.irfft2d(z, [2, 5]), nf.irfft2(Z, [2, 5])), (tf.signal.irfft3d(z), nf.irfftn(Z)),
            (tf.signal.fftnd(z), nf.fftn(Z)), (tf.fftnd(z, fft_length=[4, 6], axes=[0, 2]), nf.fftn(Z, [4, 6], [0, 2])),
            (tf.signal.ifftnd(z, fft_length=[3, 5], axes=[1, 2]), nf.ifftn(Z, [3, 5], [1, 2])),
            (tf.signal.ifftnd(z, norm="ortho"), nf.ifftn(Z, norm="ortho")),
            (tf.signal.rfftnd(r, fft_length=[3, 5], axes=[1, 2]), nf.rfftn(XR, [3, 5], [1, 2])),
            (tf.rfftnd(r, norm="forward"), nf.rfftn(XR, norm="forward")),
            (tf.signal.irfftnd(z, fft_length=[3, 8], axes=[1, 2]), nf.irfftn(Z, [3, 8], [1, 2])),
        ]
        values = run([t for t, _ in cases])
    for (t, want), got in zip(cases, values):
        assert t.dtype == (cdt if want.dtype.kind == "c" else dtype), t.name
        assert t.shape.as_list() == list(want.shape), t.name
        tol = 1e-5 if dtype == tf.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=t.name)


def test_fft_names_and_static_shapes():
    with tf.Graph().as_default():
        z = tf.placeholder(tf.complex64, [None, 6])
        x = tf.placeholder(tf.float32, [None, 6])
        assert [t.name for t in (tf.signal.fft(z), tf.spectral.rfft(x), tf.signal.irfft2d(z), tf.fft(z),
                                 tf.signal.fftshift(x), tf.signal.ifftshift(x, axes=1))] == [
            "FFT:0", "rfft:0", "irfft2d:0", "FFT_1:0", "fftshift:0", "ifftshift:0"]
        assert tf.signal.rfft(x).shape.as_list() == [None, 4]
        assert tf.signal.irfft(z).shape.as_list() == [None, 10]
        n = tf.placeholder(tf.int32, [1])
        assert tf.signal.rfft(x, n).shape.as_list() == [None, None]
        out = run(tf.signal.rfft(x, n), {x: np.ones([2, 6]), n: [4]})
        np.testing.assert_allclose(out, [[4, 0, 0], [4, 0, 0]])
        with pytest.raises(ValueError, match="RFFT requires"):
            tf.signal.rfft(z)
        with pytest.raises(TypeError):
            tf.signal.fft(x)


def test_fftshift():
    with tf.Graph().as_default():
        x = tf.constant([0.0, 1.0, 2.0, 3.0, 4.0, -5.0, -4.0, -3.0, -2.0, -1.0])
        m = tf.constant([[0.0, 1.0, 2.0], [3.0, 4.0, -4.0], [-3.0, -2.0, -1.0]])
        a, b, c = run([tf.signal.fftshift(x), tf.signal.ifftshift(m), tf.signal.fftshift(m, axes=1)])
    np.testing.assert_array_equal(a, [-5.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0])  # TF's docstring
    np.testing.assert_array_equal(b, [[4.0, -4.0, 3.0], [-2.0, -1.0, -3.0], [1.0, 2.0, 0.0]])  # TF's docstring
    np.testing.assert_array_equal(c, [[2.0, 0.0, 1.0], [-4.0, 3.0, 4.0], [-1.0, -3.0, -2.0]])


def test_fft_gradients_from_tf():
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0, -1.0, 0.5, 3.0]], tf.float64)
        z = tf.complex(x, tf.constant([[0.5, -1.0, 0.0, 2.0, 1.0]], tf.float64))
        w = tf.constant([[0.3, -1.2, 0.7, 2.0, -0.4]], tf.float64)
        y = tf.signal.rfft(x, [8])
        g_rfft = tf.gradients(tf.reduce_sum(tf.math.real(y) * tf.range(5, dtype=tf.float64) - tf.math.imag(y)), x)
        y = tf.signal.irfft(z)
        g_irfft = tf.gradients(tf.reduce_sum(y * tf.range(8, dtype=tf.float64)), z)
        y = tf.signal.fft(z)
        g_fft = tf.gradients(tf.reduce_sum(tf.math.real(y) * w + tf.math.imag(y)), z)
        a, b, c = run([g_rfft[0], g_irfft[0], g_fft[0]])
    np.testing.assert_allclose(a, [[10.0, -3.0, 2.0, -2.17157287525381, 2.0]], rtol=1e-12, atol=1e-12)  # TF
    np.testing.assert_allclose(b, [[3.5, -1 + 2.414213562373095j, -1 + 1j, -1 + 0.4142135623730949j, -0.5]],  # TF
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(c, [[1.4 + 5j, -2.3787730758122745 - 1.524966041016338j,  # TF
                                    2.4287730758122743 + 0.7661452693497212j, 2.4287730758122743 - 0.7661452693497212j,
                                    -2.3787730758122745 + 1.524966041016338j]], rtol=1e-12, atol=1e-12)


def _real_loss(y):
    w = np.random.RandomState(3).randn(*y.shape.as_list())
    if y.dtype.is_complex:
        return tf.math.real(y) * w + tf.math.imag(y) * (w + 1.0)
    return y * w


@pytest.mark.parametrize("build", [
    lambda x: tf.signal.rfft(x, [3]), lambda x: tf.signal.rfft2d(x, [4, 6]), lambda x: tf.signal.rfft3d(x),
    lambda x: tf.signal.rfftnd(x, fft_length=[3, 7], axes=[1, 2]),
    lambda x: tf.signal.irfft(tf.complex(x, x * 0.5), [4]), lambda x: tf.signal.irfft2d(tf.complex(x, -x), [2, 5]),
    lambda x: tf.signal.irfftnd(tf.complex(x, x * x), fft_length=[3, 6], axes=[1, 2]),
    lambda x: tf.signal.fftnd(tf.complex(x, 2.0 * x), fft_length=[4, 6], axes=[0, 2]),
    lambda x: tf.signal.ifft3d(tf.complex(x, 1.0 - x)),
], ids=["rfft_crop", "rfft2d_pad", "rfft3d", "rfftnd", "irfft_crop", "irfft2d", "irfftnd", "fftnd", "ifft3d"])
def test_fft_gradients_numerically(build):
    check_gradients(lambda x: _real_loss(build(x)), XR)
