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


# -- frames, windows, DCT, STFT, MDCT, mel: TF figures ------------------------------------------------

SIG = np.round(np.sin(np.arange(20) * 0.7) + 0.1 * np.arange(20), 3)
MAT = np.round(np.cos(np.arange(15) * 1.3).reshape(3, 5), 3)


def _signal_cases():
    """The cases of /tmp/ref/mathsig/sig.py: {name: tensor} and {name: gradient}."""
    x, x64, m = tf.constant(SIG, tf.float32), tf.constant(SIG, tf.float64), tf.constant(MAT, tf.float64)
    c = {
        "frame": tf.signal.frame(x, 6, 4), "frame_pad": tf.signal.frame(x, 6, 4, pad_end=True, pad_value=-1.0),
        "frame_ax0": tf.signal.frame(tf.reshape(x, [10, 2]), 3, 3, axis=0),
        "ola": tf.signal.overlap_and_add(tf.reshape(x, [4, 5]), 3),
        "hann8": tf.signal.hann_window(8), "hann7s": tf.signal.hann_window(7, periodic=False),
        "hamming6": tf.signal.hamming_window(6, dtype=tf.float64), "hann1": tf.signal.hann_window(1),
        "vorbis6": tf.signal.vorbis_window(6), "kaiser7": tf.signal.kaiser_window(7, beta=5.0),
        "kaiser6_64": tf.signal.kaiser_window(6, dtype=tf.float64),
        "kbd8": tf.signal.kaiser_bessel_derived_window(8, beta=4.0),
    }
    for t in (1, 2, 3, 4):
        c[f"dct{t}"] = tf.signal.dct(m, type=t)
        c[f"idct{t}"] = tf.spectral.idct(m, type=t)
        if t > 1:
            c[f"dct{t}o"] = tf.signal.dct(m, type=t, norm="ortho")
    c["dct2_n3"] = tf.signal.dct(m, type=2, n=3)
    c["dct2_n7"] = tf.signal.dct(m, type=2, n=7)
    c["dct_f32"] = tf.signal.dct(x, type=2, norm="ortho")
    c["stft"] = tf.signal.stft(x, 8, 3)
    c["stft_pad"] = tf.signal.stft(x64, 6, 4, fft_length=8, pad_end=True)
    st = tf.signal.stft(x64, 8, 2)
    c["istft"] = tf.signal.inverse_stft(st, 8, 2, window_fn=tf.signal.inverse_stft_window_fn(2))
    c["istft_short"] = tf.signal.inverse_stft(st, 6, 2, fft_length=8)
    c["istft_win"] = tf.signal.inverse_stft_window_fn(3)(8, tf.float32)
    c["mdct"] = tf.signal.mdct(x, 8)
    c["mdct_o"] = tf.signal.mdct(x64, 4, norm="ortho", pad_end=True)
    c["imdct"] = tf.signal.inverse_mdct(tf.signal.mdct(x64, 8))
    c["imdct_o"] = tf.signal.inverse_mdct(tf.signal.mdct(x64, 8, norm="ortho", window_fn=None), norm="ortho",
                                          window_fn=None)
    c["mel"] = tf.signal.linear_to_mel_weight_matrix(5, 9, 1000, 30.0, 450.0)
    c["mel64"] = tf.signal.linear_to_mel_weight_matrix(num_mel_bins=4, num_spectrogram_bins=6, sample_rate=16000,
                                                       lower_edge_hertz=100.0, upper_edge_hertz=7000.0,
                                                       dtype=tf.float64)
    c["mfcc"] = tf.signal.mfccs_from_log_mel_spectrograms(m)
    w = tf.constant(np.round(np.cos(np.arange(200) * 0.37), 2), tf.float64)

    def loss(y):
        ww = tf.reshape(w[:int(np.prod(y.shape.as_list()))], y.shape)
        if y.dtype.is_complex:
            return tf.reduce_sum(tf.math.real(y) * ww - tf.math.imag(y) * ww * ww)
        return tf.reduce_sum(y * ww)

    g = {"g_frame": tf.gradients(loss(tf.signal.frame(x64, 6, 4, pad_end=True)), x64)[0],
         "g_ola": tf.gradients(loss(tf.signal.overlap_and_add(m, 2)), m)[0]}
    for t in (1, 2, 3, 4):
        g[f"g_dct{t}"] = tf.gradients(loss(tf.signal.dct(m, type=t)), m)[0]
    g["g_dct2o"] = tf.gradients(loss(tf.signal.dct(m, type=3, norm="ortho")), m)[0]
    g["g_stft"] = tf.gradients(loss(tf.signal.stft(x64, 8, 3)), x64)[0]
    g["g_mdct"] = tf.gradients(loss(tf.signal.mdct(x64, 8)), x64)[0]
    return c, g


# Which part of each result the figures below hold (a row, or all of it).
PART = {"frame_ax0": (slice(0, 1),), "dct1": (0,), "dct2": (0,), "dct3": (0,), "dct4": (0,), "dct2o": (0,),
        "dct3o": (0,), "dct4o": (0,), "idct1": (0,), "idct2": (0,), "idct4": (0,), "dct2_n3": (0,), "dct2_n7": (0,),
        "stft": (1,), "stft_pad": (-1,), "mdct": (0,), "mdct_o": (-1,), "mfcc": (1,), "g_dct1": (0,),
        "g_dct2": (0,), "g_dct3": (0,), "g_dct4": (0,), "g_dct2o": (0,)}
TF_SHAPES = {'frame': [4, 6], 'frame_pad': [5, 6], 'frame_ax0': [3, 3, 2], 'ola': [14], 'hann8': [8], 'hann7s': [7],
    'hamming6': [6], 'hann1': [1], 'vorbis6': [6], 'kaiser7': [7], 'kaiser6_64': [6], 'kbd8': [8], 'dct1': [3, 5],
    'idct1': [3, 5], 'dct2': [3, 5], 'idct2': [3, 5], 'dct2o': [3, 5], 'dct3': [3, 5], 'idct3': [3, 5], 'dct3o': [3,
    5], 'dct4': [3, 5], 'idct4': [3, 5], 'dct4o': [3, 5], 'dct2_n3': [3, 3], 'dct2_n7': [3, 7], 'dct_f32': [20],
    'stft': [5, 5], 'stft_pad': [5, 5], 'istft': [20], 'istft_short': [18], 'istft_win': [8], 'mdct': [4, 4],
    'mdct_o': [10, 2], 'imdct': [20], 'imdct_o': [20], 'mel': [9, 5], 'mel64': [6, 4], 'mfcc': [3, 5]}
TF_SIGNAL = {
    'frame_pad': [[0, 0.744000018, 1.18499994, 1.16299999, 0.735000014, 0.149000004], [0.735000014, 0.149000004,
        -0.272000015, -0.282000005, 0.169, 0.916999996], [0.169, 0.916999996, 1.65699995, 2.08800006, 2.05500007,
        1.61899996], [2.05500007, 1.61899996, 1.03400004, 0.620000005, 0.620999992, 1.08200002], [0.620999992,
        1.08200002, 1.83399999, 2.56999993, -1, -1]],
    'frame_ax0': [[[0, 0.744000018], [1.18499994, 1.16299999], [0.735000014, 0.149000004]]],
    'ola': [0, 0.744000018, 1.18499994, 1.31200004, 0.463, -0.282000005, 1.82599998, 3.00500011, 2.05500007,
        2.23899984, 1.65499997, 1.08200002, 1.83399999, 2.56999993],
    'hann8': [0, 0.146446645, 0.5, 0.853553355, 1, 0.853553355, 0.5, 0.146446466],
    'hann7s': [0, 0.25, 0.75, 1, 0.74999994, 0.249999821, 0],
    'hamming6': [0.080000000000000016, 0.30999999999999994, 0.76999999999999991, 1, 0.77000000000000024,
        0.30999999999999994],
    'vorbis6': [0.105029337, 0.707106769, 0.994469106, 0.994469106, 0.707106769, 0.105029248],
    'kaiser7': [0.0367108881, 0.32820195, 0.775321901, 1, 0.775321901, 0.32820195, 0.0367108881],
    'kaiser6_64': [5.2773441320097672e-05, 0.1017196877095632, 0.79293983410146063, 0.79293983410146063,
        0.10171968770956323, 5.2773441320097672e-05],
    'kbd8': [0.190278128, 0.543509543, 0.839402974, 0.981730223, 0.981730223, 0.839402974, 0.543509543, 0.190278128],
    'dct1': [-1.163, 1.9353140674364835, 3.1829999999999998, -0.87331406743648332, 0.67299999999999982],
    'dct2': [0.30600000000000005, 2.1773635313583046, 4.3745695303097971, -1.2645703034275686, -0.063430469690202648],
    'dct3': [-0.44239719426201846, 2.4656085740197038, 3.6520000000000006, -0.92401419874978474, 0.24880281899209963],
    'dct4': [0.72673446473903613, 4.0858104574504059, 1.8851466786433355, -1.8943325602795562, 1.0786501168655507],
    'dct2o': [0.068423680111493579, 0.68854280532796996, 1.3833603498551952, -0.39989224202413493,
        -0.020058475727531534],
    'dct3o': [-0.0089124469504750625, 0.91067972071733205, 1.2858496309766125, -0.16121311635536295,
        0.20966418911168339],
    'dct4o': [0.22981361627186789, 1.2920467133277767, 0.59613572280144389, -0.59904055363016107,
        0.34109911677019428],
    'idct1': [-1.163, 1.9353140674364835, 3.1829999999999998, -0.87331406743648332, 0.67299999999999982],
    'idct2': [-0.44239719426201846, 2.4656085740197038, 3.6520000000000006, -0.92401419874978474,
        0.24880281899209963],
    'idct4': [0.72673446473903613, 4.0858104574504059, 1.8851466786433355, -1.8943325602795562, 1.0786501168655507],
    'dct2_n3': [0.82000000000000006, 3.2164183496554051, -0.39099999999999935],
    'dct2_n7': [0.30600000000000005, 1.2166941598618113, 3.8565920007798873, 3.917477871353479, -0.51346152699232506,
        -1.7262611183751921, 0.86494647222778775],
    'dct_f32': [4.40237045, -1.87852037, 0.270904005, 0.893936276, 1.10048497, -2.54186964, -0.256892413,
        -0.468272388, -0.0906817317, -0.218788028, -0.0469575487, -0.125218987, -0.0280911513, -0.0770090148,
        -0.0172166899, -0.0469087027, -0.00972750224, -0.0252327081, -0.00522834994, -0.00784626137],
    'stft': np.array([0.513384044, 0.59186554, -0.814999998, -0.0278655589, -0.0113840699]) + 1j * np.array([0,
        0.74564302, -0.241393551, -0.0223569572, 0]),
    'stft_pad': np.array([4.2159999999999993, -1.6259920433384663, -1.3754999999999999, 1.6259920433384663,
        -1.4649999999999996]) + 1j * np.array([0, -3.3840368119603879, 2.2995000000000001, -0.63303681196038819, 0]),
    'istft_short': [0, 0.027239069349651084, 0.44437499999999985, 1.0352619449449831, 0.82687500000000003,
        0.16442945519839777, -0.30600000000000005, -0.31120205614730306, 0.19012499999999999, 1.011958459174032,
        1.8641250000000003, 2.3042194795587556, 2.3118750000000001, 1.78665293937051, 1.1632499999999999,
        0.66150387770978714, 0.46575000000000011, 0.23088619215548051],
    'istft_win': [0, 0.140423432, 0.510958314, 0.872260392, 0.958871007, 0.872260392, 0.510958314, 0.140423268],
    'mdct': [-2.76570582, 3.32817602, -0.219305038, 0.240376323],
    'mdct_o': [-0.79755904384233423, 1.925477860437482],
    'mel': [[0, 0, 0, 0, 0], [0.575057268, 0, 0, 0, 0], [0.384868473, 0.615131557, 0, 0, 0], [0, 0.420782894,
        0.579217136, 0, 0], [0, 0, 0.522331595, 0.477668375, 0], [0, 0, 0, 0.681149364, 0.318850636], [0, 0, 0, 0,
        0.890366733], [0, 0, 0, 0, 0.144286305], [0, 0, 0, 0, 0]],
    'mel64': [[0, 0, 0, 0], [0, 0.66810298579697747, 0.33189701420302253, 0], [0, 0, 0.50206374002002618,
        0.49793625997997376], [0, 0, 0, 0.74297298143481327], [0, 0, 0, 0.17913539763348535], [0, 0, 0, 0]],
    'mfcc': [0.10751744044572492, 0.42651885539049589, 1.5301149943161969, -0.24761798399223989, -0.0225633368264774],
    'g_frame': [1, 0.93000000000000005, 0.73999999999999999, 0.44, -0.51000000000000001, -1.1299999999999999,
        -0.97999999999999998, -0.97999999999999998, -1.1200000000000001, -0.5, 0.45000000000000001,
        0.73999999999999999, 1.8600000000000001, 1.73, 0.44, 0.080000000000000002, -1.1400000000000001,
        -1.5899999999999999, -0.97999999999999998, -0.83999999999999997],
    'g_ola': [[1, 0.93000000000000005, 0.73999999999999999, 0.44, 0.089999999999999997], [0.73999999999999999, 0.44,
        0.089999999999999997, -0.28000000000000003, -0.59999999999999998], [0.089999999999999997,
        -0.28000000000000003, -0.59999999999999998, -0.84999999999999998, -0.97999999999999998]],
    'g_dct1': [3.2000000000000002, 2.5129646455628167, 0.70000000000000018, 1.1270353544371834, 0.46000000000000008],
    'g_dct2': [5.5391843529887748, 1.6533826242618519, 0.70000000000000018, 1.1406809544133223, 0.96675206833605087],
    'g_dct3': [3.2000000000000006, 2.306952406903803, -0.56304951684997062, 0.13773377320305058,
        -0.063049516849970969],
    'g_dct4': [5.1068366958147742, 0.075579087518635291, -0.19798989873223316, 0.09467987700972437,
        -0.091337203257644162],
    'g_dct2o': [1.4310835055998659, 0.72952240594235696, -0.17805189087032616, 0.043555243405070498,
        -0.0199380078619073],
    'g_stft': [0, 0.37381300320492855, 0.51064999999999994, 0.65244785130327854, 0.84440248724587086,
        -0.19566300320492858, 0.38772665722556565, -0.74967510460205244, 0.29789751275412923, -0.43084132201070269,
        0.056361073323472455, -0.61322274670122612, -0.040991201639096003, 0.61065012626584658, -0.43478773054903874,
        1.0896939407789386, -0.49410879836090404, 0.53164119574485569, 0.11285000000000002, 0.2111560592210617],
    'g_mdct': [0.01836135501654548, -0.12849258751283277, 0.24392200566223018, -0.30675775069920641,
        0.57959714186327949, -3.5097348562241968, -2.9969778918077945, 1.0348436676196004, -2.4057095638478163,
        1.3580881233513116, 0.18420384885534924, 0.3528866663759791, -1.0304030231214114, 3.7567531723213845,
        3.0184780232016122, -0.97329603460404601, 2.1890444420830031, -0.37638741568876488, -0.19827236504478399,
        0.13102789434485798],
}


def test_signal_ops_match_tf():
    with tf.Graph().as_default():
        cases, grads = _signal_cases()
        for name, t in cases.items():
            assert t.shape.as_list() == TF_SHAPES[name], name
        values = run({**cases, **grads})
    for name, want in TF_SIGNAL.items():
        got = values[name]
        got = got[PART[name]] if name in PART else got
        want = np.asarray(want)
        single = got.dtype in (np.float32, np.complex64)
        assert got.shape == want.shape, name
        np.testing.assert_allclose(got, want, rtol=1e-5 if single else 1e-11, atol=1e-5 if single else 1e-11,
                                   err_msg=name)
    assert values["hann1"].tolist() == [1.0]
    assert values["stft"].dtype == np.complex64 and values["stft_pad"].dtype == np.complex128
    # inverse_stft with the Griffin-Lim window and inverse_mdct reconstruct the signal away from the edges.
    np.testing.assert_allclose(values["istft"][6:14], SIG[6:14], rtol=1e-12)
    np.testing.assert_allclose(values["imdct"][4:16], SIG[4:16], rtol=1e-12)
    np.testing.assert_allclose(values["imdct_o"][4:16], SIG[4:16], rtol=1e-12)


@pytest.mark.parametrize("build", [
    lambda x: tf.signal.frame(x, 6, 4), lambda x: tf.signal.frame(tf.reshape(x, [10, 2]), 4, 3, axis=0),
    lambda x: tf.signal.overlap_and_add(tf.reshape(x, [4, 5]), 2),
    lambda x: tf.signal.dct(tf.reshape(x, [4, 5]), type=1), lambda x: tf.signal.dct(x, type=2, n=12),
    lambda x: tf.signal.idct(tf.reshape(x, [4, 5]), type=2), lambda x: tf.signal.dct(x, type=4, norm="ortho"),
    lambda x: tf.math.real(tf.signal.stft(x, 6, 3, pad_end=True)),
    lambda x: tf.signal.inverse_mdct(tf.reshape(x, [5, 4])),
], ids=["frame", "frame_axis0", "overlap_and_add", "dct1", "dct2_n", "idct2", "dct4_ortho", "stft", "imdct"])
def test_signal_gradients_numerically(build):
    check_gradients(lambda x: _real_loss(build(x)), SIG)


def test_frame_with_fed_lengths_and_errors():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        n = tf.placeholder(tf.int32, [])
        framed = tf.signal.frame(x, n, 2)
        assert framed.shape.as_list() == [None, None]
        out = run(framed, {x: np.arange(7.0), n: 3})
        np.testing.assert_array_equal(out, [[0, 1, 2], [2, 3, 4], [4, 5, 6]])
        with pytest.raises(NotImplementedError, match="axis must be -1"):
            tf.signal.dct(x, axis=0)
        with pytest.raises(ValueError, match="Type-I DCT"):
            tf.signal.dct(tf.zeros([4]), type=1, norm="ortho")
        with pytest.raises(ValueError, match="multiple of 4"):
            tf.signal.mdct(tf.zeros([12]), 6)
        with pytest.raises(ValueError, match="Nyquist"):
            tf.signal.linear_to_mel_weight_matrix(sample_rate=1000, upper_edge_hertz=600.0)
        with pytest.raises(ValueError, match="floating"):
            tf.signal.hann_window(4, dtype=tf.int32)
