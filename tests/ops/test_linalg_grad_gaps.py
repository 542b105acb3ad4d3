"""Gradient gaps of tf.linalg closed against TF 2.15 (compat.v1, graph mode): Qr and Svd gradients
of complex inputs, TF's own NotImplementedError cases (dynamic shapes, some full_matrices shapes),
``tf.hessians`` for sizes unknown at graph time, and ``tridiagonal_solve(perturb_singular=True)``
with TF's results for singular systems.

Complex gradients follow TF's convention. For a real loss L of a complex input z = x + iy,
``tf.gradients(L, z)`` is ∂L/∂x + i·∂L/∂y, i.e. 2·∂L/∂z̄: twice the conjugate of the Wirtinger
derivative ∂L/∂z = (∂L/∂x − i·∂L/∂y)/2 (TF 2.15 gives 2z for L = |z|², and (2+5j, 6−1j) for
L = Σ|z|² + Σ Im z at z = (1+2j, 3−1j)). So a real perturbation εd changes L by ε·Σ Re(g)·d and an
imaginary one iεd by ε·Σ Im(g)·d; ``_check_complex_gradient`` checks both by central differences.

Qr and Svd outputs are defined up to phases (for Svd, u[:, j] and v[:, j] times the same e^{iφ};
for Qr, LAPACK and TF both keep r's diagonal real, and agree): the losses below are functions of
s, of u·diag(s²)·vᴴ, of |u|², |v|², |q|², |r|², as TF's own tests use, plus for Qr a loss that is
not phase-invariant (valid because numpy's and TF's q, r agree).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import dflow as tf


def matrix(shape, dtype, seed=0.0):
    """Deterministic test input (the same formula made TF's figures)."""
    k = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    re_part = np.cos(1.3 * k + 0.7 + seed) + 0.3 * np.sin(0.37 * k * k + seed)
    if np.dtype(dtype).kind == "c":
        return (re_part + 1j * np.sin(0.9 * k + 0.2 + 2 * seed)).astype(dtype)
    return re_part.astype(dtype)


def weights(shape, dtype, seed):
    return matrix(shape, dtype, seed=seed + 10.0)


def qr_loss(q, r, invariant):
    """Real losses of q and r; the invariant one does not see the column phases of q (rows of r)."""
    qs, rs = q.shape.as_list(), r.shape.as_list()
    rd = q.dtype.real_dtype.as_numpy_dtype
    if invariant:
        return (tf.reduce_sum(weights(qs, rd, 1.0) * tf.real(q * tf.conj(q)))
                + tf.reduce_sum(weights(rs, rd, 2.0) * tf.real(r * tf.conj(r))))
    cd = q.dtype.as_numpy_dtype
    return tf.reduce_sum(tf.real(weights(qs, cd, 3.0) * q)) + tf.reduce_sum(tf.imag(weights(rs, cd, 4.0) * r))


def svd_loss(s, u, v, kind):
    """Real losses invariant under u[:, j] -> u[:, j] e^{iφ}, v[:, j] -> v[:, j] e^{iφ}."""
    k = s.shape.as_list()[-1]
    cd, rd = u.dtype.as_numpy_dtype, u.dtype.real_dtype.as_numpy_dtype
    if kind == "s":
        return tf.reduce_sum(weights(s.shape.as_list(), rd, 5.0) * s)
    if kind == "usv":
        prod = tf.matmul(u[..., :k] * tf.cast(tf.expand_dims(s * s, -2), u.dtype), v[..., :k], adjoint_b=True)
        return tf.reduce_sum(tf.real(weights(prod.shape.as_list(), cd, 6.0) * prod))
    return (tf.reduce_sum(weights(u.shape.as_list(), rd, 7.0) * tf.real(u * tf.conj(u)))
            + tf.reduce_sum(weights(v.shape.as_list(), rd, 8.0) * tf.real(v * tf.conj(v))))


def _loss_fn(kind, full, loss):
    if kind == "qr":
        return lambda a: qr_loss(*tf.qr(a, full_matrices=full), loss)
    return lambda a: svd_loss(*tf.svd(a, full_matrices=full), loss)


def _check_complex_gradient(loss_fn, a, eps=1e-6, rtol=1e-6, atol=1e-8, seed=0):
    """Checks TF's complex gradient convention by central differences: returns tf.gradients' value."""
    rng = np.random.default_rng(seed)
    g = tf.Graph()
    with g.as_default():
        ph = tf.placeholder(tf.as_dtype(a.dtype), a.shape)
        loss = loss_fn(ph)
        grad = tf.gradients(loss, ph)[0]
    with tf.Session(graph=g) as sess:
        got = sess.run(grad, {ph: a})
        assert got.dtype == a.dtype and got.shape == a.shape
        for part, unit in (("real", 1.0), ("imaginary", 1j)):
            d = rng.standard_normal(a.shape)
            plus = sess.run(loss, {ph: a + eps * unit * d})
            minus = sess.run(loss, {ph: a - eps * unit * d})
            predicted = np.sum((got.real if unit == 1.0 else got.imag) * d)
            np.testing.assert_allclose(predicted, (plus - minus) / (2 * eps), rtol=rtol, atol=atol,
                                       err_msg=f"{part} perturbation disagrees with finite differences")
    return got


# TF 2.15 gradients of the complex128 cases (complex64 agrees to 2.5e-6 relative): interleaved (re, im).
TF_GRADS = {
    ("qr", (3, 3), False, True): [
        0.002810012064, 2.960187403, -0.3852555667, 1.039473937, 1.025118478, 1.967308808, 2.705937856,
        -2.222691356, 0.201766101, 0.2788583711, 0.7638995395, -1.27624757, -4.043489043, -1.41716745, -0.94401036,
        0.5132148115, -2.700079369, 0.3117875132],
    ("qr", (3, 3), False, False): [
        -0.1915883145, 1.754682425, 0.8443165434, 0.2189326706, 0.6288791075, -0.541839685, 1.025241928,
        -0.6782248157, -1.775582258, -1.312370283, 0.3849282006, 1.082882632, -0.05528048967, -0.0432443734,
        0.008629364507, -0.2474563248, 0.4220613332, -1.127069475],
    ("qr", (4, 3), False, True): [
        1.912218845, 2.722601148, -1.444759365, 0.8986123182, 1.729975265, 1.655995873, 2.766466285, -0.9080270552,
        -0.3109433921, -1.031019069, 2.017353705, -0.7139283534, -3.612461978, -0.2269195855, -0.3413262088,
        -0.2002028222, -2.38495636, 1.302489312, 0.01970769832, 1.473778419, 1.269725739, 0.04009275426,
        0.2541734642, 1.612340892],
    ("qr", (4, 3), False, False): [
        -0.5112437061, 1.842861721, 1.600509899, -0.1744734632, 0.1475027889, 0.2298613216, -0.1006408535,
        -0.912803773, -0.6559923196, -0.7742606168, -0.8576129762, 1.053926889, -0.2805508618, -0.9777960771,
        0.07674529723, 0.5600021291, -0.04094823928, -1.811193279, 0.1656379231, -0.8146283531, -0.7445918814,
        1.060290887, 0.6344295782, -0.6345259574],
    ("qr", (3, 5), False, True): [
        1.456917495, -0.2874766411, 0.4787864503, 0.07531196417, 1.179036494, -2.541179614, 0.2321122282,
        -0.2371521372, 1.127486961, -0.4788861233, 1.370436306, -0.9547372374, 0.02686081499, 0.3326849013,
        2.135043724, 0.3952314615, 0.1888167467, -0.8888404023, 0.5417038447, 1.113592802, 2.012209481,
        0.9470170326, 0.3526819081, -0.6296217201, 1.917084725, 2.13435676, -0.204863077, 0.6170108485, 1.21554469,
        -0.3186549641],
    ("qr", (3, 5), False, False): [
        -1.763997001, 3.136663648, 1.432233235, -1.950880855, -0.8044067589, 1.628261914, -0.3025825478,
        -1.717482494, -0.1072911829, -1.038115897, -2.31114466, -1.701183764, 2.763059124, -0.2272722641,
        -0.6734906658, -1.180016736, 0.7763149223, -0.8573315051, -0.3903161335, 0.2172874368, 0.7289494832,
        1.231112834, -4.075217238, -3.32240509, 2.444933337, 2.004578972, -0.2887985845, -0.0236328443,
        0.6906872681, 0.2386548413],
    ("qr", (3, 5), True, True): [
        1.456917495, -0.2874766411, 0.4787864503, 0.07531196417, 1.179036494, -2.541179614, 0.2321122282,
        -0.2371521372, 1.127486961, -0.4788861233, 1.370436306, -0.9547372374, 0.02686081499, 0.3326849013,
        2.135043724, 0.3952314615, 0.1888167467, -0.8888404023, 0.5417038447, 1.113592802, 2.012209481,
        0.9470170326, 0.3526819081, -0.6296217201, 1.917084725, 2.13435676, -0.204863077, 0.6170108485, 1.21554469,
        -0.3186549641],
    ("qr", (3, 5), True, False): [
        -1.763997001, 3.136663648, 1.432233235, -1.950880855, -0.8044067589, 1.628261914, -0.3025825478,
        -1.717482494, -0.1072911829, -1.038115897, -2.31114466, -1.701183764, 2.763059124, -0.2272722641,
        -0.6734906658, -1.180016736, 0.7763149223, -0.8573315051, -0.3903161335, 0.2172874368, 0.7289494832,
        1.231112834, -4.075217238, -3.32240509, 2.444933337, 2.004578972, -0.2887985845, -0.0236328443,
        0.6906872681, 0.2386548413],
    ("qr", (3, 3), True, True): [
        0.002810012064, 2.960187403, -0.3852555667, 1.039473937, 1.025118478, 1.967308808, 2.705937856,
        -2.222691356, 0.201766101, 0.2788583711, 0.7638995395, -1.27624757, -4.043489043, -1.41716745, -0.94401036,
        0.5132148115, -2.700079369, 0.3117875132],
    ("qr", (3, 3), True, False): [
        -0.1915883145, 1.754682425, 0.8443165434, 0.2189326706, 0.6288791075, -0.541839685, 1.025241928,
        -0.6782248157, -1.775582258, -1.312370283, 0.3849282006, 1.082882632, -0.05528048967, -0.0432443734,
        0.008629364507, -0.2474563248, 0.4220613332, -1.127069475],
    ("qr", (2, 3, 3), False, True): [
        0.002810012064, 2.960187403, -0.3852555667, 1.039473937, 1.025118478, 1.967308808, 2.705937856,
        -2.222691356, 0.201766101, 0.2788583711, 0.7638995395, -1.27624757, -4.043489043, -1.41716745, -0.94401036,
        0.5132148115, -2.700079369, 0.3117875132, 0.7948726579, -0.5050539868, -0.7876357092, 1.253507193,
        0.3112588919, -0.7422147788, -0.6439291654, -0.8322209626, -0.003146413959, -0.3412823387, -0.5271111915,
        -0.06276648473, 0.2443220705, 2.451310347, 0.06637980776, 0.4368446049, -0.05973349319, 1.032833959],
    ("qr", (2, 3, 3), False, False): [
        -0.1915883145, 1.754682425, 0.8443165434, 0.2189326706, 0.6288791075, -0.541839685, 1.025241928,
        -0.6782248157, -1.775582258, -1.312370283, 0.3849282006, 1.082882632, -0.05528048967, -0.0432443734,
        0.008629364507, -0.2474563248, 0.4220613332, -1.127069475, 0.3748290695, -0.81778511, -1.636023548,
        0.3406630398, -0.03579014764, -0.1818954897, 0.9306045118, -2.091678202, -0.9150309308, -0.36566579,
        0.7474025928, -0.5277815091, 0.6757187797, 0.8236558016, 0.1666573065, 0.6626761234, -0.2072116756,
        -0.4643865069],
    ("qr", (2, 4), True, True): [
        0.999091741, -1.225072862, -1.685950645, 1.441122257, 0.2152726381, -0.0414317354, -0.3032316456,
        -1.015722906, 2.429719025, -0.427781036, 0.1107178407, -1.771127856, 0.1685855711, -0.1532289066,
        1.859838093, -0.1387703994],
    ("qr", (2, 4), True, False): [
        -1.268894317, 1.789896482, 1.424138431, 0.6598819748, 0.7951846991, -0.6931962821, 0.6431319254,
        -0.08050567623, -0.5478124056, -1.582977214, 0.1618974274, 0.6580678443, 0.9667333461, -0.02252779037,
        -0.2678447334, -0.6243719784],
    ("svd", (3, 3), False, 's'): [
        0.03696072705, 0.06442905863, 0.01716039075, -0.2697708227, 0.3563821153, -0.3113294472, 0.3367719931,
        0.04470204513, -0.5185342383, 0.1071993864, 0.1081638689, 0.3167378847, 0.1844925694, 0.1772044998,
        0.1365389405, -0.1692486906, 0.2934494747, -0.2891359211],
    ("svd", (3, 3), False, 'usv'): [
        -1.867113705, -1.302734916, 2.605153511, -4.224182695, 2.310967933, -3.766980002, 0.3834405476,
        0.4225726555, -4.351323728, 3.777310017, -2.26429037, 4.408682591, 0.9761910695, 0.6367956535, 4.181049616,
        -2.78696023, 1.033752782, -4.098636802],
    ("svd", (3, 3), False, 'abs'): [
        0.3855084231, 0.2100852085, -0.2317606936, -0.6638129428, 0.2329447281, 0.410988677, 0.2240455853,
        0.04417339753, -0.6269553778, 0.6108534037, -0.1088058919, 0.07871559698, -0.396297582, -0.5724748582,
        0.3467214393, 0.4024616485, -0.7750959892, 0.7482102686],
    ("svd", (4, 3), False, 's'): [
        -0.08586610157, 0.2146580842, 0.1227992571, -0.3026788707, 0.2811572762, -0.1317435406, 0.2337150391,
        -0.07523619544, -0.356518644, 0.1049432473, -0.02953190877, 0.310015797, 0.218976411, 0.0771999738,
        0.01824329947, -0.06726238018, 0.2930335781, -0.4326265689, 0.07515825211, -0.2582136649, -0.1717899683,
        0.1652537457, 0.2823321727, 0.01322483452],
    ("svd", (4, 3), False, 'usv'): [
        -2.565752617, -1.181538744, 2.540772943, -4.21296092, 2.946979765, -3.692323702, 0.5093100775,
        -0.04473643007, -4.355752467, 3.704128367, -2.484345533, 4.789721383, 1.436714038, 1.320380838, 4.246516035,
        -2.67918851, 0.7589810198, -4.85253364, -2.288303558, -2.672809906, -0.2557806478, 1.352828729, 2.800443798,
        3.348547315],
    ("svd", (4, 3), False, 'abs'): [
        0.8818570836, 0.6812505622, -0.5208704779, -0.9446559872, 0.8224429309, 0.512322597, 0.5269235978,
        0.9707060871, -0.6702691407, -0.4883284464, 0.467103543, 0.9589250668, -0.6770421384, -0.002491265261,
        0.4908730161, -0.1914857069, -0.6039153402, 1.170844034, -0.4994169243, -0.1169591272, 0.5125853185,
        0.2603612684, -0.4124793786, 0.105866259],
    ("svd", (3, 5), False, 's'): [
        0.1093401918, 0.2661101171, 0.2561399161, -0.02820475837, 0.3245785451, -0.2455552079, 0.2071116187,
        0.07330659186, 0.02629939203, 0.2553380613, -0.1522093824, 0.08687440926, 0.1582477066, 0.08698564946,
        0.3089751796, -0.005867310332, 0.04356918138, -0.1180382591, -0.2395456874, -0.1605461183, 0.1434567666,
        -0.2388880936, 0.2781215789, 0.03589413431, 0.2447663383, 0.07438325835, 0.1686497154, -0.1150352673,
        -0.05473147586, -0.3735939107],
    ("svd", (3, 5), False, 'usv'): [
        -2.076633779, -0.9022069404, 2.931087195, -4.501634315, 3.805592938, -4.440182265, 0.363791193,
        0.4986514242, -4.442723676, 4.293812427, -1.990664269, 3.258981301, 3.279638534, 1.617335169, 5.523920533,
        -1.46778782, -0.1220678242, -3.348558274, -4.418807316, -2.970050487, -0.3360455705, -0.2771509749,
        3.644097602, 3.727586689, 4.427430766, 4.007987336, -1.005236877, 0.4157827724, -4.194028523, -3.94210627],
    ("svd", (3, 5), False, 'abs'): [
        -0.2716899875, -0.2902822274, 0.7782184926, 0.33834713, -0.1805216882, -0.2488844967, -0.4437255752,
        -0.1988332814, 0.07254627022, 0.5434445861, 0.2190359846, -0.2601226732, 0.07369784252, -0.07039575247,
        -0.1705693992, -0.2437775263, 0.03301535699, 0.1033084023, -0.0444936374, -0.6155507243, -0.1765675365,
        0.3538013053, 0.5236789392, -0.7236100956, -0.5187824386, 0.1622782278, -0.1654872466, 0.05446977311,
        0.1391943055, -0.08102627416],
    ("svd", (4, 3), True, 's'): [
        -0.08586610157, 0.2146580842, 0.1227992571, -0.3026788707, 0.2811572762, -0.1317435406, 0.2337150391,
        -0.07523619544, -0.356518644, 0.1049432473, -0.02953190877, 0.310015797, 0.218976411, 0.0771999738,
        0.01824329947, -0.06726238018, 0.2930335781, -0.4326265689, 0.07515825211, -0.2582136649, -0.1717899683,
        0.1652537457, 0.2823321727, 0.01322483452],
    ("svd", (4, 3), True, 'usv'): [
        -2.565752617, -1.181538744, 2.540772943, -4.21296092, 2.946979765, -3.692323702, 0.5093100775,
        -0.04473643007, -4.355752467, 3.704128367, -2.484345533, 4.789721383, 1.436714038, 1.320380838, 4.246516035,
        -2.67918851, 0.7589810198, -4.85253364, -2.288303558, -2.672809906, -0.2557806478, 1.352828729, 2.800443798,
        3.348547315],
    ("svd", (4, 3), True, 'abs'): [
        2.687347672, 0.2112796265, -1.209108012, -0.3429359639, 1.299292607, -0.5382004798, 2.117361519,
        1.789115127, -2.295730807, -0.569885955, 2.306858771, 0.5655538976, -0.3905901305, 0.6463221994,
        1.044775194, -1.263299013, 0.4884407797, 1.334620032, -1.263424813, 0.7889423311, 1.254038958, -1.00518828,
        -1.393576608, 0.5500797326],
    ("svd", (3, 4), True, 's'): [
        0.04654200557, -0.09831877194, 0.02404817705, -0.1557810233, 0.05954410413, -0.1657550201, 0.0454132568,
        -0.05226970304, -0.3437423241, -0.1237454247, -0.2062023908, 0.4423206758, -0.06684724582, 0.1881129536,
        0.1214862263, -0.326990672, -0.3945674462, -0.2155571831, -0.07330669239, -0.2594019298, -0.1630242991,
        0.08890641465, -0.2441546787, 0.3437925495],
    ("svd", (3, 4), True, 'usv'): [
        -1.952950771, -2.236539221, 0.9236897924, -3.713013257, 1.634741999, -2.198508593, 0.05711708999,
        0.9805318044, -4.685686189, 3.442884289, -2.963683683, 5.007309489, 1.361791191, 1.435929008, 4.527253404,
        -3.241244466, -1.18073596, -4.680335514, -3.279368878, -3.588517155, -1.06679642, 0.6255438303, 1.98148751,
        4.29028841],
    ("svd", (3, 4), True, 'abs'): [
        1.005755825, -0.4203669444, -0.07666673187, -0.247149417, 0.0594639447, -0.7162192105, 0.2652900473,
        -0.007320343297, 0.4932404054, -0.00307038912, 0.1293310287, 0.4854090929, -0.1295538603, 0.5626447897,
        1.13496108, 0.177339545, -0.5020640045, 1.183184796, 0.816395256, 0.2065590101, -0.02570435264,
        -0.6075722771, 0.4421006835, -0.4206261318],
    ("svd", (3, 3), True, 's'): [
        0.03696072705, 0.06442905863, 0.01716039075, -0.2697708227, 0.3563821153, -0.3113294472, 0.3367719931,
        0.04470204513, -0.5185342383, 0.1071993864, 0.1081638689, 0.3167378847, 0.1844925694, 0.1772044998,
        0.1365389405, -0.1692486906, 0.2934494747, -0.2891359211],
    ("svd", (3, 3), True, 'usv'): [
        -1.867113705, -1.302734916, 2.605153511, -4.224182695, 2.310967933, -3.766980002, 0.3834405476,
        0.4225726555, -4.351323728, 3.777310017, -2.26429037, 4.408682591, 0.9761910695, 0.6367956535, 4.181049616,
        -2.78696023, 1.033752782, -4.098636802],
    ("svd", (3, 3), True, 'abs'): [
        0.3855084231, 0.2100852085, -0.2317606936, -0.6638129428, 0.2329447281, 0.410988677, 0.2240455853,
        0.04417339753, -0.6269553778, 0.6108534037, -0.1088058919, 0.07871559698, -0.396297582, -0.5724748582,
        0.3467214393, 0.4024616485, -0.7750959892, 0.7482102686],
    ("svd", (2, 3, 2), False, 's'): [
        -0.216160869, -0.1666698587, -0.002268287992, -0.2681840254, 0.2188398858, -0.302746067, 0.1423311704,
        -0.1457593752, -0.2947035248, 0.3110393196, -0.2752393201, 0.3030983467, -0.1187241552, -0.2169891256,
        -0.3347022457, 0.0736960256, 0.0002332662795, 0.3995264133, 0.1275267912, 0.2797842602, 0.07839640183,
        0.3643892588, -0.335842257, -0.2622624661],
    ("svd", (2, 3, 2), False, 'usv'): [
        -2.241658851, -2.410020844, 0.6000816811, -3.17297889, 2.160251095, -2.330704255, 0.9321789154,
        -0.1894325139, -3.069776683, 3.512089556, -2.261138614, 2.863826216, 2.032500169, 1.346300538, 4.006940212,
        -1.813558539, 0.3145614503, -2.870421872, -3.302432171, -2.943514782, -0.6708245194, 1.371529602,
        1.970676275, 2.74578705],
    ("svd", (2, 3, 2), False, 'abs'): [
        0.8424751362, 0.01810601935, -0.0918393696, -0.2329756477, -0.08459159057, 0.2651694594, -0.5545266255,
        0.1601673358, 0.2805421694, 0.1066889237, -0.6701574272, 0.6220462856, -0.2045036885, 0.3538223112,
        -0.6768210649, -0.1097989527, 0.09586643234, -1.263845232, 0.1581647347, -0.02313426271, -0.2077641283,
        0.2802168211, -0.4604145828, -0.3234436206],
}
TF_SVD_NOUV = [
    1.322004068, -0.02925481774, -0.3651704807, 0.8036204497, -0.8675932284, 0.841190661, -0.1568773999,
    0.2392409251, 0.05015766422, -1.184443845, 0.2243332062, 0.04757778437, -0.7862792471, -0.2620917829,
    -1.163918997, -0.7338376232, -1.485957868, 0.5617736842, 0.6798004366, 0.4057290221, -0.2338830374,
    0.5674193323, -1.520772116, 0.2283514657]


@pytest.mark.parametrize("key", list(TF_GRADS), ids=lambda k: "-".join(map(str, k)).replace(" ", ""))
def test_complex_qr_svd_gradients_match_tf_and_finite_differences(key):
    kind, shape, full, loss = key
    want = np.array(TF_GRADS[key]).view(np.complex128).reshape(shape)
    got = _check_complex_gradient(_loss_fn(kind, full, loss), matrix(shape, np.complex128))
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-9)
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(matrix(shape, np.complex64))
        grad = tf.gradients(_loss_fn(kind, full, loss)(a), a)[0]
        assert grad.dtype == tf.complex64 and grad.shape.as_list() == list(shape)
    with tf.Session(graph=g) as sess:
        got64 = sess.run(grad)
    np.testing.assert_allclose(got64, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


def test_svd_gradient_without_uv_of_unknown_shape_complex():
    for dtype, rtol in ((tf.complex128, 1e-8), (tf.complex64, 1e-4)):
        g = tf.Graph()
        with g.as_default():
            a = tf.placeholder(dtype, [None, None])
            s = tf.svd(a, compute_uv=False)
            assert s.dtype == dtype.real_dtype
            grad = tf.gradients(tf.reduce_sum(s * tf.cast(tf.range(1, tf.size(s) + 1), s.dtype)), a)[0]
            assert grad.dtype == dtype and grad.shape.as_list() == [None, None]
        with tf.Session(graph=g) as sess:
            got = sess.run(grad, {a: matrix((3, 4), dtype.as_numpy_dtype)})
        np.testing.assert_allclose(got, np.array(TF_SVD_NOUV).view(np.complex128).reshape(3, 4), rtol=rtol,
                                   atol=rtol)


def test_real_qr_and_svd_gradients_still_match_finite_differences():
    from tests.ops.gradcheck import check_gradients

    a = matrix((3, 5), np.float64)
    check_gradients(lambda x: tf.concat([tf.reshape(t, [-1]) for t in tf.qr(x, full_matrices=True)], 0), a)
    check_gradients(lambda x: tf.concat([tf.reshape(t, [-1]) for t in tf.qr(x)], 0), a.T.copy())
    check_gradients(lambda x: svd_loss(*tf.svd(x, full_matrices=True), "usv"), matrix((4, 3), np.float64))


QR_DYNAMIC = [([None, None], False, "(None, None)"), ([None, 3], True, "(None, 3)"), ([3, None], True, "(3, None)"),
              ([2, None], False, "(None, None)"), (None, False, "<unknown>")]


@pytest.mark.parametrize("shape,full,text", QR_DYNAMIC)
def test_qr_gradient_of_dynamic_shapes_raises_tf_error(shape, full, text):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.complex64, shape)
        q, r = tf.qr(x, full_matrices=full)
        msg = f"QrGrad not implemented with dynamic shapes. Received r.shape: {text}"
        with pytest.raises(NotImplementedError, match="^" + re.escape(msg) + "$"):
            tf.gradients(tf.reduce_sum(tf.abs(q)) + tf.reduce_sum(tf.abs(r)), x)


@pytest.mark.parametrize("shape", [[4, 2], [5, 3]])
def test_qr_gradient_full_matrices_tall_raises_tf_error(shape):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, shape)
        q, r = tf.qr(x, full_matrices=True)
        msg = (f"QrGrad not implemented when nrows > ncols and full_matrices is true. Received "
               f"r.shape=({shape[0]}, {shape[1]}) with nrows={shape[0]}and ncols={shape[1]}.")
        with pytest.raises(NotImplementedError, match="^" + re.escape(msg) + "$"):
            tf.gradients(tf.reduce_sum(q) + tf.reduce_sum(r), x)


@pytest.mark.parametrize("shape", [[None, None], [None, 3], [3, None]])
@pytest.mark.parametrize("full", [False, True])
def test_svd_gradient_of_dynamic_inner_shape_raises_tf_error(shape, full):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.complex128, shape)
        s, u, v = tf.svd(x, full_matrices=full)
        with pytest.raises(NotImplementedError, match="^SVD gradient has not been implemented for input with "
                                                      "unknown inner matrix shape.$"):
            tf.gradients(tf.reduce_sum(s) + tf.reduce_sum(tf.abs(u)), x)
        x = tf.placeholder(tf.float64, None)  # unknown rank: TF's code fails with a TypeError
        s, u, v = tf.svd(x, full_matrices=full)
        with pytest.raises(TypeError, match="'NoneType' object is not subscriptable"):
            tf.gradients(tf.reduce_sum(s), x)


@pytest.mark.parametrize("shape,m,n", [([5, 2], 2, 5), ([2, 5], 2, 5), ([2, 4], 2, 4)])
def test_svd_gradient_full_matrices_far_from_square_raises_tf_error(shape, m, n):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.complex64, shape)
        s, u, v = tf.svd(x, full_matrices=True)
        msg = (f"svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. Received: m={m} and "
               f"n={n} from op input=Tensor(\"Placeholder:0\", shape=({shape[0]}, {shape[1]}), dtype=complex64) "
               f"with shape=({shape[0]}, {shape[1]}).")
        with pytest.raises(NotImplementedError, match="^" + re.escape(msg) + "$"):
            tf.gradients(tf.reduce_sum(s) + tf.abs(tf.reduce_sum(u)), x)


# -- tf.hessians ------------------------------------------------------------------------------------------------

TF_HESSIAN_VECTOR = [[0.33268500735265594, 0.7851371820873942, 2.094183411014349],
                     [0.7851371820873942, 3.351017408012874, 3.4935028965668438],
                     [2.094183411014349, 3.493502896566844, -7.008482221967992]]
TF_HESSIAN_MATRIX = [[[[0.8805771222009571, -0.6148628179126057], [2.7941834110143486, -0.5181139737401705]],
                      [[-0.6148628179126057, 4.017790209968263], [3.1435028965668437, -0.5864915947303282]]],
                     [[[2.794183411014349, 3.143502896566844], [-6.499278577059624, 3.0716578545741386]],
                      [[-0.5181139737401705, -0.5864915947303282], [3.0716578545741386, 1.2538702579458296]]]]
TF_HESSIAN_ROWS = np.zeros((3, 2, 3, 2), np.float32)
TF_HESSIAN_ROWS[0, :, 0, :] = [[7.1887016, -8.340247], [-8.340247, 13.731773]]
TF_HESSIAN_ROWS[1, :, 1, :] = [[25.103428, -35.845467], [-35.845467, 54.67304]]
TF_HESSIAN_ROWS[2, :, 2, :] = [[1.464643, 0.24584109], [0.24584109, 0.8526411]]


def test_hessians_of_unknown_shapes_match_tf():
    x = tf.placeholder(tf.float64, None)
    h = tf.hessians(tf.reduce_sum(tf.sin(x) * tf.reduce_sum(x * x)) + tf.reduce_prod(x), x, name="ignored")[0]
    assert h.shape.ndims is None and h.dtype == tf.float64
    hs = tf.hessians(tf.reduce_sum(tf.sin(x) * x * x), x)[0]
    xp = tf.placeholder(tf.float32, [None, 2])
    hp = tf.hessians(tf.reduce_sum(tf.exp(tf.matmul(xp, tf.constant([[1.0, -2.0], [0.5, 3.0]])))), xp)[0]
    assert hp.shape.as_list() == [None, 2, None, 2]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(h, {x: [0.5, -1.0, 2.0]}), TF_HESSIAN_VECTOR, rtol=1e-12)
        np.testing.assert_allclose(sess.run(h, {x: [[0.5, -1.0], [2.0, 0.3]]}), TF_HESSIAN_MATRIX, rtol=1e-12)
        scalar = sess.run(hs, {x: 0.7})
        assert np.shape(scalar) == ()
        np.testing.assert_allclose(scalar, 3.114326832125481, rtol=1e-12)
        got = sess.run(hp, {xp: [[0.1, 0.2], [-0.3, 0.4], [0.5, -0.6]]})
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, TF_HESSIAN_ROWS, rtol=1e-5, atol=1e-6)
        with pytest.raises(tf.errors.InvalidArgumentError):  # TF cannot stack the empty TensorArray either
            sess.run(hs, {x: np.zeros([0])})


def test_hessians_of_variables_and_several_xs_match_tf():
    v = tf.Variable([1.0, 2.0, 3.0], dtype=tf.float64)
    hv = tf.hessians(tf.reduce_sum(v ** 3) * v[0], v)[0]
    assert hv.shape.as_list() == [3, 3]
    x, x2 = tf.placeholder(tf.float64, None), tf.placeholder(tf.float64, None)
    hh = tf.hessians([tf.reduce_sum(x2 ** 3), tf.reduce_sum(x2 * x2) * tf.reduce_sum(x * x)], [x2, x])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(hv), [[12.0, 12.0, 27.0], [12.0, 12.0, 0.0], [27.0, 0.0, 18.0]])
        h0, h1 = sess.run(hh, {x2: [1.0, 2.0], x: [1.0, -0.5]})
    np.testing.assert_allclose(h0, [[8.5, 0.0], [0.0, 14.5]])
    np.testing.assert_allclose(h1, [[10.0, 0.0], [0.0, 10.0]])


def test_hessians_without_second_derivative_raise_tf_error():
    x, y = tf.placeholder(tf.float64, None), tf.placeholder(tf.float64, [2])
    with pytest.raises(ValueError, match="None values not supported"):  # linear: no second derivative
        tf.hessians(tf.reduce_sum(2.0 * x), x)
    with pytest.raises(ValueError, match="None values not supported"):  # y does not affect the sum
        tf.hessians(tf.reduce_sum(x * x), [x, y])


# -- tridiagonal_solve: singular systems, perturb_singular ------------------------------------------------------

ZERO_COLUMN = [[0.0, 1.0, 1.0, 0.0], [0.0, 2.0, 3.0, 4.0], [0.0, 0.0, 1.0, 1.0]]  # singular: column 0 is 0
ZERO_DIAG0 = [[1.0, 1.0, 1.0, 0.0], [0.0, 2.0, 3.0, 4.0], [0.0, 1.0, 1.0, 1.0]]  # regular, needs pivoting
LAST_PIVOT_ZERO = [[1.0, 1.0, 1.0, 0.0], [1.0, 2.0, 2.0, 1.0], [0.0, 1.0, 1.0, 1.0]]  # singular
REGULAR = [[0.5, -1.0, 2.0, 0.0], [4.0, -3.0, 5.0, 2.0], [0.0, 1.5, 0.7, -2.0]]
RHS = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]
TF_REGULAR = [[0.34470792365529207, 0.6200115673799884], [-0.7576633892423366, -0.9600925390399075],
              [-0.20994794679005205, -0.189705031810295], [3.2900520532099478, 3.810294968189705]]
TF_ZERO_DIAG0 = [[0.181818181818182, -0.7272727272727272], [1.0, 2.0], [0.818181818181818, 0.7272727272727272],
                 [1.5454545454545456, 1.8181818181818183]]
TF_PERTURBED = {
    ("zero_column", "float64"): [[1.2509998964918045e+15, 2.5019997929836090e+15],
                                 [1.1111111111111112, 1.5555555555555556],
                                 [0.77777777777777779, 0.88888888888888895], [1.5555555555555556, 1.7777777777777779]],
    ("zero_column", "float32"): [[2.3301690e+06, 4.6603380e+06], [1.1111112, 1.5555556], [0.77777779, 0.88888884],
                                 [1.5555556, 1.7777779]],
    ("last_pivot_zero", "float64"): [[1.8014398509481992e+16] * 2, [-1.8014398509481992e+16] * 2,
                                     [1.8014398509481992e+16] * 2, [-1.8014398509481984e+16] * 2],
    ("last_pivot_zero", "float32"): [[33554440.0] * 2, [-33554440.0] * 2, [33554440.0] * 2, [-33554432.0] * 2],
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tridiagonal_solve_singular_systems_match_tf(dtype):
    rtol = 1e-12 if dtype == np.float64 else 1e-6
    rhs = np.array(RHS, dtype)
    solve = lambda d, **kw: tf.linalg.tridiagonal_solve(np.array(d, dtype), rhs, **kw)  # noqa: E731
    fetches = {
        "nan_pivoting": [solve(ZERO_COLUMN), solve(LAST_PIVOT_ZERO)],
        "nan_thomas": [solve(ZERO_COLUMN, partial_pivoting=False), solve(ZERO_DIAG0, partial_pivoting=False),
                       solve(LAST_PIVOT_ZERO, partial_pivoting=False)],
        "zero_column": solve(ZERO_COLUMN, perturb_singular=True),
        "last_pivot_zero": solve(LAST_PIVOT_ZERO, perturb_singular=True),
        "zero_diag0": [solve(ZERO_DIAG0), solve(ZERO_DIAG0, perturb_singular=True)],
        "regular": solve(REGULAR, perturb_singular=True),
        "n1": [tf.linalg.tridiagonal_solve(np.array([[0.0], [v], [0.0]], dtype), np.array([[3.0, 1e-30]], dtype),
                                           perturb_singular=p) for v in (0.0, 2.0) for p in (False, True)],
    }
    with tf.Session() as sess:
        got = sess.run(fetches)
    for x in got["nan_pivoting"] + got["nan_thomas"] + [got["n1"][0]]:
        assert x.dtype == dtype and np.isnan(x).all()
    name = np.dtype(dtype).name
    for key in ("zero_column", "last_pivot_zero"):
        assert got[key].dtype == dtype
        np.testing.assert_allclose(got[key], TF_PERTURBED[(key, name)], rtol=rtol)
    for x in got["zero_diag0"]:
        np.testing.assert_allclose(x, TF_ZERO_DIAG0, rtol=10 * rtol, atol=rtol)
    np.testing.assert_allclose(got["regular"], TF_REGULAR, rtol=10 * rtol)
    big = {"float32": [8.5070592e+37, 2.8356864e+07], "float64": [4.4942328371557898e+307, 1.4980776123852633e+277]}
    np.testing.assert_allclose(got["n1"][1], [big[name]], rtol=rtol)
    for x in got["n1"][2:]:
        np.testing.assert_allclose(x, [[1.5, 5e-31]], rtol=rtol)


def test_tridiagonal_solve_batch_vector_and_complex_match_tf():
    diags = np.stack([ZERO_COLUMN, REGULAR])
    rhs = np.stack([RHS, -np.array(RHS)])
    seq = [tf.constant([1.0, 1.0, 1.0]), tf.constant([1.0, 2.0, 2.0, 1.0]), tf.constant([1.0, 1.0, 1.0])]
    dc = (np.array([[1.0, 2.0, 1.0, 0.0], [1.0, 2.0, 2.0, 1.0], [0.0, 0.5, 1.0, 1.0]])
          + 1j * np.array([[0.5, 1.0, 0.5, 0.0], [0.5, 1.0, 1.0, 0.5], [0.0, 0.25, 0.5, 0.5]]))
    fetches = [tf.linalg.tridiagonal_solve(diags, rhs), tf.linalg.tridiagonal_solve(diags, rhs, perturb_singular=True),
               tf.linalg.tridiagonal_solve(seq, tf.constant([1.0, 2.0, 3.0, 4.0]), diagonals_format="sequence",
                                           perturb_singular=True),
               tf.linalg.tridiagonal_solve(dc, np.array(RHS) + 1j, perturb_singular=True)]
    with tf.Session() as sess:
        batch, batch_perturbed, vector, complex_x = sess.run(fetches)
    assert np.isnan(batch[0]).all()  # TF fills each singular system of a batch, only it, with NaN
    np.testing.assert_allclose(batch[1], -np.array(TF_REGULAR), rtol=1e-12)
    np.testing.assert_allclose(batch_perturbed[0], TF_PERTURBED[("zero_column", "float64")], rtol=1e-12)
    np.testing.assert_allclose(batch_perturbed[1], -np.array(TF_REGULAR), rtol=1e-12)
    assert vector.dtype == np.float32
    np.testing.assert_allclose(vector, [16777220.0, -16777220.0, 16777220.0, -16777216.0], rtol=1e-6)
    np.testing.assert_allclose(complex_x, [[12 - 4j, 13.6 - 4.8j], [-10.8 + 4.4j, -11.6 + 4.8j], [9.2 - 3.6j, 10 - 4j],
                                           [-3.2 + 1.6j, -3.2 + 1.6j]], rtol=1e-12)


def test_tridiagonal_solve_perturb_singular_gradient_and_errors():
    from tests.ops.gradcheck import check_gradients

    d, rhs = tf.constant(REGULAR, tf.float64), tf.constant(RHS, tf.float64)
    x = tf.linalg.tridiagonal_solve(d, rhs, perturb_singular=True)
    w = tf.constant(np.arange(8.0).reshape(4, 2) - 3.5)
    grad_d, grad_rhs = tf.gradients(tf.reduce_sum(w * x), [d, rhs])
    with tf.Session() as sess:
        got_d, got_rhs = sess.run([grad_d, grad_rhs])
    np.testing.assert_allclose(got_d, [[-1.4685655278026895, 0.134891105059441, -4.460280366797673, 0.0],
                                       [0.7979431606109637, 0.5481392675085408, 0.24475144349729622,
                                        -6.320300894046747],
                                       [0.0, -0.29017732746690766, 1.088798875776441, 0.3496672956582857]],
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got_rhs, [[-1.040485829959514, -0.708502024291498],
                                         [0.44129554655870445, 0.2226720647773279],
                                         [0.4916136495083864, 0.746096009253904],
                                         [0.7583863504916137, 1.003903990746096]], rtol=1e-12)
    check_gradients(lambda a, b: tf.linalg.tridiagonal_solve(a, b, perturb_singular=True),
                    np.array(REGULAR), np.array(RHS))
    for fmt, diags in (("compact", REGULAR), ("matrix", np.eye(4)),
                       ("sequence", [np.ones(3), np.ones(4), np.ones(3)])):
        with pytest.raises(ValueError, match=r"^partial_pivoting must be True if perturb_singular is\.$"):
            tf.linalg.tridiagonal_solve(diags, RHS, diagonals_format=fmt, partial_pivoting=False,
                                        perturb_singular=True)
    with pytest.raises(ValueError, match="Expected subdiagonal to be have length 4 or 3, got 2"):
        tf.linalg.tridiagonal_solve([np.ones(3), np.ones(4), np.ones(2)], RHS, diagonals_format="sequence")
