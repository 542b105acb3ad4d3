"""Shared benchmark plumbing: timing, and printing dflow's figures beside TF1's.

Each benchmark defines ``figures(tf)``: it builds and times its graphs with
whatever ``tf`` module it is given. dflow runs it in this process; with
``--tf PYTHON`` the same function runs under TensorFlow's ``compat.v1`` in
that interpreter (``tf_reference.py``), so both columns come from one run.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import platform
import subprocess
import sys
import timeit

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def per_call_us(fn, number: int, repeat: int = 7) -> float:
    """Median over ``repeat`` rounds of the mean time per call, in µs."""
    fn()
    times = timeit.repeat(fn, number=number, repeat=repeat)
    return float(np.median(times)) / number * 1e6


def kernels() -> str:
    """Which kernels dflow's convolutions and large products, and its Adam and ReluGrad, run on here."""
    from dflow.kernels import numba_loops as _numba
    from dflow.kernels import onednn as _onednn

    dnn = "oneDNN" if _onednn.available() else f"numpy and OpenBLAS ({_onednn.why_not()})"
    loops = "Numba" if _numba.available() else f"numpy ({_numba.why_not()})"
    return f"{dnn}; element-wise loops: {loops}"


def main(module_name: str, figures, doc: str) -> None:
    """Command line of a benchmark: prints its figures for dflow (and TF1)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--tf", help="python of a virtualenv with tensorflow-cpu (prints TF1's figures beside)")
    args = ap.parse_args()
    print(f"machine: {platform.node()} {platform.machine()} python {platform.python_version()}")
    print(f"kernels: {kernels()}")
    import dflow

    rows = {"dflow": figures(dflow)}
    if args.tf:
        res = subprocess.run([args.tf, str(HERE / "tf_reference.py"), module_name], capture_output=True, text=True)
        if res.returncode == 0:
            rows["tf1"] = json.loads(res.stdout.strip().splitlines()[-1])
        else:
            print("TF reference failed:", res.stderr[-2000:], file=sys.stderr)
    print(f"{'figure':28s}" + "".join(f"{k:>12s}" for k in rows))
    for k in rows["dflow"]:
        print(f"{k:28s}" + "".join(f"{rows[r].get(k, float('nan')):12.2f}" for r in rows))
