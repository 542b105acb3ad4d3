"""numpy kernels of the Bessel functions of order 0 and 1: I, I·e^{-|x|}, J, Y, K, K·e^{x}.

Small arguments use the power series (with the logarithmic terms for Y and K).
I of large arguments uses its asymptotic expansion, whose smallest term is
about e^{-2x}. J, Y and K of larger arguments come from the Hankel-type
integrals along the path of steepest descent (DLMF 10.9.E? / 10.32.E8 with
u = s²)::

    H_ν⁽¹⁾(x) = √(2/πx) e^{i(x - νπ/2 - π/4)} / Γ(ν + ½) · 2∫₀^∞ e^{-s²} s^{2ν} (1 + is²/2x)^{ν-½} ds
    K_ν(x)    = √(π/2x) e^{-x}                / Γ(ν + ½) · 2∫₀^∞ e^{-s²} s^{2ν} (1 + s²/2x)^{ν-½} ds

whose integrands are analytic in a strip of half-width √x about the real line
and decay like a Gaussian, so the trapezoidal rule with step 0.1 is exact to
rounding (error ~ e^{-2π√x/h}) in 71 points. J = Re H, Y = Im H.
"""

from __future__ import annotations

import math

import numpy as np

_EULER = 0.57721566490153286061
_STEP = 0.1
_S = np.arange(0.0, 7.05, _STEP)
_WEIGHTS = np.where(_S == 0, 0.5, 1.0) * _STEP * 2.0
_GAMMA_HALF = (math.sqrt(math.pi), 0.5 * math.sqrt(math.pi))  # Γ(ν + ½) for ν = 0, 1
_SERIES_TERMS = 40


def _f64(x):
    return np.asarray(x, dtype=np.float64)


def _i_series(x, nu):
    """I_ν(x) by its power series (positive terms: no cancellation)."""
    q = 0.25 * x * x
    term = np.ones_like(x) if nu == 0 else 0.5 * x
    total = term.copy()
    for k in range(1, 100):
        term = term * q / (k * (k + nu))
        total = total + term
    return total


def _i_scaled_asymptotic(x, nu):
    """e^{-x} I_ν(x) for large x > 0."""
    mu = 4.0 * nu * nu
    term = np.ones_like(x)
    total = term.copy()
    for k in range(1, _SERIES_TERMS):
        term = term * -(mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        total = total + term
    return total / np.sqrt(2.0 * math.pi * x)


def _i_scaled(x, nu):
    """e^{-|x|} I_ν(x)."""
    ax = np.abs(x)
    small = ax <= 30.0
    xs = np.where(small, ax, 1.0)
    xl = np.where(small, 31.0, ax)
    out = np.where(small, _i_series(xs, nu) * np.exp(-xs), _i_scaled_asymptotic(xl, nu))
    out = np.where(np.isinf(ax), 0.0, out)
    return np.sign(x) * out if nu == 1 else out


def bessel_i0e(x):
    return _i_scaled(_f64(x), 0)


def bessel_i1e(x):
    return _i_scaled(_f64(x), 1)


def bessel_i0(x):
    x = _f64(x)
    return _i_scaled(x, 0) * np.exp(np.abs(x))


def bessel_i1(x):
    x = _f64(x)
    return _i_scaled(x, 1) * np.exp(np.abs(x))


def _steepest_descent_integral(x, nu, imaginary: bool):
    """2∫₀^∞ e^{-s²} s^{2ν} (1 + c s²/2x)^{ν-½} ds by the trapezoidal rule (c = i or 1)."""
    s2 = (_S * _S)[None, :]
    c = 1j if imaginary else 1.0
    factor = (1.0 + c * s2 / (2.0 * x[:, None])) ** (nu - 0.5)
    integrand = np.exp(-s2) * s2 ** nu * factor
    return (integrand * _WEIGHTS).sum(axis=-1) / _GAMMA_HALF[nu]


def _hankel(x, nu):
    """H_ν⁽¹⁾(x) for x ≥ 2 (flattened x)."""
    integral = _steepest_descent_integral(x, nu, True)
    phase = (np.cos(x) + 1j * np.sin(x)) * np.exp(-1j * (nu * math.pi / 2 + math.pi / 4))
    return np.sqrt(2.0 / (math.pi * x)) * phase * integral


def _k_scaled_large(x, nu):
    """e^{x} K_ν(x) for x ≥ 2 (flattened x)."""
    return np.sqrt(math.pi / (2.0 * x)) * _steepest_descent_integral(x, nu, False).real


def _small_series(x, nu, sign):
    """Σ sign^k (x²/4)^k / (k!(k+ν)!) and Σ sign^k (ψ(k+1) + ψ(k+1+ν)) (x²/4)^k / (k!(k+ν)!) (ν = 0: H_k terms)."""
    q = 0.25 * x * x
    term = np.ones_like(x)
    plain = term.copy()
    psi1, psi2 = -_EULER, -_EULER + (1.0 if nu else 0.0)
    weighted = term * (psi1 + psi2)
    for k in range(1, 60):
        term = term * sign * q / (k * (k + nu))
        psi1 += 1.0 / k
        psi2 += 1.0 / (k + nu)
        plain = plain + term
        weighted = weighted + term * (psi1 + psi2)
    return plain, weighted


def _jy_small(x, nu):
    """(J_ν(x), Y_ν(x)) for 0 < x < 2 by the power series."""
    plain, weighted = _small_series(x, nu, -1.0)
    log_half = np.log(0.5 * x)
    if nu == 0:
        j = plain
        # Y₀ = (2/π)(log(x/2) J₀ - Σ (-1)^k ψ(k+1) (x²/4)^k/(k!)²)
        y = (2.0 / math.pi) * (log_half * j - 0.5 * weighted)
    else:
        j = 0.5 * x * plain
        y = -2.0 / (math.pi * x) + (2.0 / math.pi) * log_half * j - (0.5 * x / math.pi) * weighted
    return j, y


def _k_small(x, nu):
    """K_ν(x) for 0 < x < 2 by the power series."""
    plain, weighted = _small_series(x, nu, 1.0)
    log_half = np.log(0.5 * x)
    if nu == 0:
        return -log_half * plain + 0.5 * weighted
    return 1.0 / x + log_half * 0.5 * x * plain - 0.25 * x * weighted


def _by_range(x, small_fn, large_fn, threshold=2.0):
    """``small_fn`` below ``threshold`` and ``large_fn`` at or above it, on the flattened values."""
    flat = x.ravel()
    out = np.full(flat.shape, np.nan)
    small = (flat > 0) & (flat < threshold)
    large = flat >= threshold
    if small.any():
        out[small] = small_fn(flat[small])
    if large.any():
        out[large] = large_fn(flat[large])
    return out.reshape(x.shape)


def _jy(x, nu, which):
    x = _f64(x)
    ax = np.abs(x)
    fin = np.where(np.isinf(ax), 3.0, ax)
    small = (lambda v: _jy_small(v, nu)[which])
    large = (lambda v: _hankel(v, nu).imag if which else _hankel(v, nu).real)
    out = _by_range(fin, small, large)
    return np.where(np.isinf(ax), np.nan, out)  # TF's J and Y of ±inf are NaN


def bessel_j0(x):
    x = _f64(x)
    return np.where(x == 0, 1.0, _jy(x, 0, 0))


def bessel_j1(x):
    x = _f64(x)
    return np.where(x == 0, 0.0, np.sign(x) * _jy(x, 1, 0))


def _y(x, nu):
    x = _f64(x)
    out = _jy(x, nu, 1)
    return np.where(x <= 0, -np.inf, out)  # TF (float64) gives -inf at and below 0


def bessel_y0(x):
    return _y(x, 0)


def bessel_y1(x):
    return _y(x, 1)


def _k(x, nu, scaled):
    x = _f64(x)
    fin = np.where(np.isposinf(x), 3.0, x)
    small = (lambda v: _k_small(v, nu) * (np.exp(v) if scaled else 1.0))
    large = (lambda v: _k_scaled_large(v, nu) * (1.0 if scaled else np.exp(-v)))
    out = _by_range(fin, small, large)
    out = np.where(np.isposinf(x), 0.0, out)
    return np.where(x <= 0, np.inf, out)  # TF gives inf at and below 0


def bessel_k0(x):
    return _k(x, 0, False)


def bessel_k0e(x):
    return _k(x, 0, True)


def bessel_k1(x):
    return _k(x, 1, False)


def bessel_k1e(x):
    return _k(x, 1, True)
