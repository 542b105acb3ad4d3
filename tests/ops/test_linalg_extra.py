"""tf.linalg's matrix functions, LU family, pinv/matrix_rank/normalize, tensor_diag and tridiagonal ops.

Expected values were printed by TF 2.15's ``tensorflow.compat.v1`` (graph mode) for the same inputs;
gradients are also checked against central differences.
"""

import numpy as np
import pytest

import dflow as tf

from .gradcheck import check_gradients

A = np.array([[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 5.0]])
B = np.array([[0.0, 2.0, 1.0], [1.0, 0.0, 3.0], [4.0, 1.0, 0.0]])
R = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
D = [[0.0, 2.0, 3.0], [1.0, 4.0, 5.0], [6.0, 7.0, 0.0]]  # compact: superdiagonal, diagonal, subdiagonal
RHS = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
TF = {
    "expm": [[1.530565215412, 0.150772527396, 0.320291748722], [0.150772527396, 1.359171324693, 0.090383618842],
             [0.320291748722, 0.090383618842, 1.683212412201]],
    "expm32": [[1.4096847772598267, 0.7508548498153687, 0.6429907083511353],
               [0.934877872467041, 1.3610366582870483, 1.1019580364227295],
               [1.453061819076538, 0.7402864694595337, 1.4583325386047363]],
    "sqrtm": [[1.923445952561, 0.26255263389, 0.481063178819], [0.26255263389, 1.709339616527, 0.096042645777],
              [0.481063178819, 0.096042645777, 2.181594377554]],
    "logm": [[1.229882123599, 0.284567591058, 0.474591918994], [0.284567591058, 1.049312121975, 0.066649185032],
             [0.474591918994, 0.066649185032, 1.504995388345]],
    "lu": [[4.0, 1.0, 0.0], [0.0, 2.0, 1.0], [0.25, -0.125, 3.125]],
    "lu_solve": [[0.68], [0.28], [0.44]],
    "lu_matrix_inverse": [[-0.12, 0.04, 0.24], [0.48, -0.16, 0.04], [0.04, 0.32, -0.08]],
    "pinv": [[0.014285714286, 0.028571428571, 0.042857142857], [0.028571428571, 0.057142857143, 0.085714285714]],
    "tridiagonal_matmul": [[1.0, 2.0], [29.000001907348633, 42.0], [25.0, 30.0]],
    "tridiagonal_solve": [[1.0, 2.0], [-1.4999998807907104, -3.0999999046325684], [1.0, 1.2000000476837158]],
    "tridiagonal_solve_1": [[0.016393423080444336], [0.4918033182621002], [0.31147539615631104]],
    "eigh_tridiagonal": [0.788682480502, 2.145188999376, 3.066128520122],
    "eigh_tridiagonal_v": [[0.920222430623, -0.386491523979, 0.061765524936],
                           [-0.388918242851, -0.885211683227, 0.255231025263],
                           [0.043969063626, 0.258891053865, 0.964905251137]],
    "expm_grad": [[1.030865501274, 3.091755936283, 1.962687874743], [2.071444704508, 0.389514101716, 4.769465926229],
                  [6.523357084481, 2.128949256913, 0.994931198175]],
    "sqrtm_grad": [[-0.202837144151, 0.548146360506, 0.225314330673], [0.17108429532, -0.07961350903, 0.740449633109],
                   [1.00416381455, 0.127260187409, -0.154656112681]],
    "pinv_grad": [[-0.011428571429, -0.012653061224], [-0.031428571429, -0.042448979592],
                  [-0.051428571429, -0.072244897959]],
    "tds_grad_d": [[56.909996032714844, 2.609999895095825, 0.0], [-36.94999694824219, -5.929999828338623,
                                                                   -2.0199999809265137],
                   [0.0, 3.8499999046325684, 4.460000038146973]],
    "tds_grad_rhs": [[7.249999523162842, 14.84999942779541], [-0.7499999403953552, -1.5499999523162842],
                     [0.699999988079071, 1.100000023841858]],
    "tdm_grad_d": [[22.0, 794.0, 0.0], [10.0, 510.0, 610.0], [0.0, 226.0, 390.0]],
    "tdm_grad_rhs": [[407.9999694824219, 592.0], [232.00001525878906, 336.0], [366.0, 468.0]],
}


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run(*fetches):
    with tf.Session() as sess:
        return sess.run(list(fetches))


def test_matrix_functions():
    e, e32, s, m, s2 = _run(tf.linalg.expm(A * 0.1), tf.linalg.expm(tf.constant(B * 0.3, tf.float32)),
                            tf.linalg.sqrtm(A), tf.linalg.logm(A.astype(np.complex128)), tf.matrix_square_root(A))
    np.testing.assert_allclose(e, TF["expm"], rtol=1e-11)
    assert e32.dtype == np.float32
    np.testing.assert_allclose(e32, TF["expm32"], rtol=2e-6)
    np.testing.assert_allclose(s, TF["sqrtm"], rtol=1e-11)
    np.testing.assert_allclose(s2, TF["sqrtm"], rtol=1e-11)
    assert m.dtype == np.complex128
    np.testing.assert_allclose(m, TF["logm"], rtol=1e-11, atol=1e-12)
    assert tf.linalg.expm(tf.placeholder(tf.float32, [None, 4, 4])).shape.as_list() == [None, 4, 4]
    with pytest.raises(TypeError, match="complex64, complex128"):
        tf.linalg.logm(A)  # TF's MatrixLogarithm takes complex matrices only
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.linalg.expm(tf.zeros([2, 3]))


def test_expm_of_a_batch_with_large_norms_squares_each_matrix_its_own_number_of_times():
    batch = np.stack([A * 0.1, B * 4.0, np.zeros((3, 3))])
    (got,) = _run(tf.linalg.expm(batch))
    for matrix, value in zip(batch, got):  # against a long Taylor series of the scaled matrix
        scaled, k = matrix / 64.0, 6
        term, total = np.eye(3), np.eye(3)
        for i in range(1, 40):
            term = term @ scaled / i
            total = total + term
        for _ in range(k):
            total = total @ total
        np.testing.assert_allclose(value, total, rtol=1e-10)


def test_lu_family():
    lu, p = tf.linalg.lu(B)
    assert lu.op.type == "Lu" and p.dtype is tf.int32 and p.shape.as_list() == [3]
    rec = tf.linalg.lu_reconstruct(lu, p)
    sol = tf.linalg.lu_solve(lu, p, tf.constant([[1.0], [2.0], [3.0]], tf.float64))
    inv = tf.linalg.lu_matrix_inverse(lu, p)
    got_lu, got_p, got_rec, got_sol, got_inv = _run(lu, p, rec, sol, inv)
    np.testing.assert_allclose(got_lu, TF["lu"], rtol=1e-12)
    assert got_p.tolist() == [2, 0, 1]
    np.testing.assert_allclose(got_rec, B, atol=1e-12)
    np.testing.assert_allclose(got_sol, TF["lu_solve"], rtol=1e-12)
    np.testing.assert_allclose(got_inv, TF["lu_matrix_inverse"], rtol=1e-12, atol=1e-15)
    batch = np.random.default_rng(1).standard_normal((4, 5, 5))
    blu, bp = tf.linalg.lu(batch)
    (brec,) = _run(tf.linalg.lu_reconstruct(blu, bp))
    np.testing.assert_allclose(brec, batch, atol=1e-12)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
        sess.run(tf.linalg.lu(np.zeros((2, 2))))
    assert tf.linalg.lu(B, output_idx_type=tf.int64).p.dtype is tf.int64


def test_pinv_rank_normalize_and_tensor_diag():
    pinv, rank, full = _run(tf.linalg.pinv(R), tf.linalg.matrix_rank(R), tf.linalg.matrix_rank(A))
    np.testing.assert_allclose(pinv, TF["pinv"], rtol=1e-10)
    assert (rank, full) == (1, 3)
    n, norm = tf.linalg.normalize(tf.constant([[3.0, 4.0], [6.0, 8.0]]))
    n1, norm1 = tf.linalg.normalize(tf.constant([[3.0, 4.0], [6.0, 8.0]]), axis=0, ord=1)
    gn, gnorm, gn1, gnorm1 = _run(n, norm, n1, norm1)
    np.testing.assert_allclose(gn, [[0.26832816004753113, 0.3577708899974823], [0.5366563200950623,
                                                                                0.7155417799949646]], rtol=1e-6)
    np.testing.assert_allclose(gnorm, [[11.180339813232422]], rtol=1e-7)
    np.testing.assert_allclose(gn1, [[1 / 3, 1 / 3], [2 / 3, 2 / 3]], rtol=1e-6)
    np.testing.assert_allclose(gnorm1, [[9.0, 12.0]])
    d4 = tf.linalg.tensor_diag(tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    part = tf.linalg.tensor_diag_part(np.arange(16.0).reshape(2, 2, 2, 2))
    assert d4.op.type == "Diag" and d4.shape.as_list() == [2, 2, 2, 2] and part.op.type == "DiagPart"
    gd4, gpart, gdiag = _run(d4, part, tf.diag([1, 2, 3]))
    assert gd4[0, 1].tolist() == [[0.0, 2.0], [0.0, 0.0]] and gd4[1, 1].tolist() == [[0.0, 0.0], [0.0, 4.0]]
    assert gpart.tolist() == [[0.0, 5.0], [10.0, 15.0]]
    assert gdiag.tolist() == [[1, 0, 0], [0, 2, 0], [0, 0, 3]]
    with pytest.raises(ValueError, match="even rank"):
        tf.linalg.tensor_diag_part(tf.zeros([2, 2, 2]))


def test_tridiagonal_ops_in_every_format():
    mm, sol, seq, mat = _run(
        tf.linalg.tridiagonal_matmul(D, RHS), tf.linalg.tridiagonal_solve(D, RHS),
        tf.linalg.tridiagonal_solve((tf.constant([2.0, 3.0, 0.0]), tf.constant([1.0, 4.0, 5.0]),
                                     tf.constant([0.0, 6.0, 7.0])), [[1.0], [3.0], [5.0]], diagonals_format="sequence"),
        tf.linalg.tridiagonal_solve([[1.0, 2.0, 0.0], [6.0, 4.0, 3.0], [0.0, 7.0, 5.0]], [[1.0], [3.0], [5.0]],
                                    diagonals_format="matrix"))
    np.testing.assert_allclose(mm, TF["tridiagonal_matmul"], rtol=1e-6)
    np.testing.assert_allclose(sol, TF["tridiagonal_solve"], rtol=1e-6)
    np.testing.assert_allclose(seq, TF["tridiagonal_solve_1"], rtol=2e-6)
    np.testing.assert_allclose(mat, TF["tridiagonal_solve_1"], rtol=2e-6)
    rng = np.random.default_rng(3)
    diags = rng.standard_normal((4, 3, 7))
    rhs = rng.standard_normal((4, 7, 2))
    for pivoting in (True, False):
        (x,) = _run(tf.linalg.tridiagonal_solve(diags, rhs, partial_pivoting=pivoting))
        dense = np.zeros((4, 7, 7))
        for b in range(4):
            dense[b] = np.diag(diags[b, 1]) + np.diag(diags[b, 0, :-1], 1) + np.diag(diags[b, 2, 1:], -1)
        np.testing.assert_allclose(x, np.linalg.solve(dense, rhs), rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError, match=r"\[\.\.\., 3, M\]"):
        tf.linalg.tridiagonal_solve(tf.zeros([2, 3]), tf.zeros([3, 1]))
    # TF 2.15's CPU kernel logs "The matrix is not invertible." and returns NaN for a singular system.
    (x,) = _run(tf.linalg.tridiagonal_solve(np.zeros((3, 3)), np.ones((3, 1))))
    assert np.isnan(x).all() and x.shape == (3, 1)


def test_eigh_tridiagonal():
    w = tf.linalg.eigh_tridiagonal(tf.constant([1.0, 2.0, 3.0], tf.float64), tf.constant([0.5, 0.25], tf.float64))
    w2, v = tf.linalg.eigh_tridiagonal(tf.constant([1.0, 2.0, 3.0], tf.float64), tf.constant([0.5, 0.25], tf.float64),
                                       eigvals_only=False)
    sel = tf.linalg.eigh_tridiagonal(tf.constant([1.0, 2.0, 3.0], tf.float64), tf.constant([0.5, 0.25], tf.float64),
                                     select="i", select_range=[1, 2])
    gw, gv, gsel = _run(w, v, sel)
    np.testing.assert_allclose(gw, TF["eigh_tridiagonal"], rtol=1e-11)
    np.testing.assert_allclose(np.abs(gv), np.abs(TF["eigh_tridiagonal_v"]), rtol=1e-10)
    np.testing.assert_allclose(gsel, TF["eigh_tridiagonal"][1:], rtol=1e-11)
    with pytest.raises(ValueError, match="one element fewer"):
        tf.linalg.eigh_tridiagonal(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0]))


def test_gradients_match_tf():
    x = tf.constant(A * 0.1)
    ge = tf.gradients(tf.reduce_sum(tf.linalg.expm(x) * B), x)[0]
    y = tf.constant(A)
    gs = tf.gradients(tf.reduce_sum(tf.linalg.sqrtm(y) * B), y)[0]
    z = tf.constant(R)
    gp = tf.gradients(tf.reduce_sum(tf.linalg.pinv(z) * np.arange(6.0).reshape(2, 3)), z)[0]
    dd, rhs = tf.constant(D), tf.constant(RHS)
    sol = tf.linalg.tridiagonal_solve(dd, rhs)
    gsd, gsr = tf.gradients(tf.reduce_sum(sol * sol), [dd, rhs])
    prod = tf.linalg.tridiagonal_matmul(dd, rhs)
    gmd, gmr = tf.gradients(tf.reduce_sum(prod * prod), [dd, rhs])
    got = dict(zip(["expm_grad", "sqrtm_grad", "pinv_grad", "tds_grad_d", "tds_grad_rhs", "tdm_grad_d",
                    "tdm_grad_rhs"], _run(ge, gs, gp, gsd, gsr, gmd, gmr)))
    for key, value in got.items():
        np.testing.assert_allclose(value, TF[key], rtol=2e-6, atol=1e-6, err_msg=key)


@pytest.mark.parametrize("fn, inputs", [
    (tf.linalg.expm, [np.array([[0.1, 0.4], [-0.3, 0.2]])]),
    (tf.linalg.sqrtm, [A]),
    (tf.linalg.pinv, [np.array([[1.0, 2.0], [3.0, 4.5], [0.5, -1.0]])]),
    (lambda d, r: tf.linalg.tridiagonal_solve(d, r), [np.array(D), np.array(RHS)]),
    (lambda d, r: tf.linalg.tridiagonal_matmul(d, r), [np.array(D), np.array(RHS)]),
    (lambda x: tf.linalg.tensor_diag_part(tf.linalg.tensor_diag(x) * 2.0), [np.array([1.0, 2.0, 3.0])]),
], ids=["expm", "sqrtm", "pinv", "tridiagonal_solve", "tridiagonal_matmul", "diag"])
def test_gradients_against_finite_differences(fn, inputs):
    check_gradients(fn, *inputs, rtol=1e-5, atol=1e-6)
