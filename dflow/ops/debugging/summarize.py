"""Tensor values as TF1's kernels print them: ``Assert``/``tf.Print`` (one line) and ``tf.print`` (numpy-like).

Elements are written as TF's ``StrCat`` does: the shortest of ``%.6g``/``%.9g``
that reads back as the same float32 (``%.15g``/``%.17g`` for float64), bools as
1/0, strings raw (quoted by ``tf.print``).

>>> import numpy as np
>>> summarize_v1(np.arange(10), 3), summarize_v1(np.array([[1, 2], [3, 4]]), 3)
('0 1 2...', '[1 2][3 4]')
>>> print(summarize_v2(np.arange(10), 3))
[0 1 2 ... 7 8 9]
"""

from __future__ import annotations

import numpy as np


def format_element(v, quote_strings: bool = False) -> str:
    """One element as TF's ``StrCat``: ``0.333333343`` for float32 1/3, ``1e-05``, ``-0``, ``nan``."""
    if isinstance(v, (bytes, np.bytes_)):
        s = bytes(v).decode("utf-8", "backslashreplace")
        return f'"{s}"' if quote_strings else s
    if isinstance(v, str):
        return f'"{v}"' if quote_strings else v
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (np.floating, float)):
        if np.isnan(v):
            return "nan" if not np.signbit(v) else "-nan"
        if np.isinf(v):
            return "inf" if v > 0 else "-inf"
        short, long_ = (6, 9) if isinstance(v, (np.float32, np.float16)) else (15, 17)
        text = f"{float(v):.{short}g}"
        if type(v)(float(text)) != v:
            text = f"{float(v):.{long_}g}"
        return text
    if isinstance(v, (np.complexfloating, complex)):
        return f"({format_element(np.real(v))},{format_element(np.imag(v))})"
    return str(v)


def summarize_v1(value, summarize: int) -> str:
    """TF1's ``Tensor::SummarizeValue``: the first ``summarize`` elements, brackets per dimension, ``...``."""
    arr = np.asarray(value)
    flat = arr.reshape(-1)
    limit = flat.size if summarize is None or summarize < 0 else min(int(summarize), flat.size)
    if arr.ndim == 0:
        return format_element(flat[0]) if limit else ""
    out: list[str] = []
    index = [0]

    def one_dim(dim: int) -> None:
        if index[0] >= limit:
            return
        count = arr.shape[dim]
        if dim == arr.ndim - 1:
            for i in range(count):
                if index[0] >= limit:
                    if dim != 0:
                        out.append("...")
                    return
                if i > 0:
                    out.append(" ")
                out.append(format_element(flat[index[0]]))
                index[0] += 1
            return
        for _ in range(count):
            opened = index[0] < limit
            if opened:
                out.append("[")
            one_dim(dim + 1)
            if index[0] < limit or opened:
                out.append("]")

    one_dim(0)
    if flat.size > limit:
        out.append("...")
    return "".join(out)


def summarize_v2(value, summarize: int = 3, indent: int = 0) -> str:
    """``tf.print``'s format: numpy-like, the first and last ``summarize`` entries of each dimension."""
    arr = np.asarray(value)
    if arr.ndim == 0:
        return format_element(arr.reshape(-1)[0], quote_strings=True)
    n = arr.shape[0]
    if summarize is not None and 0 <= summarize and n > 2 * summarize:
        rows = [*range(summarize), None, *range(n - summarize, n)]
    else:
        rows = list(range(n))
    if arr.ndim == 1:
        return "[" + " ".join("..." if i is None else format_element(arr[i], True) for i in rows) + "]"
    parts = ["..." if i is None else summarize_v2(arr[i], summarize, indent + 1) for i in rows]
    # numpy's layout: a blank line between blocks of rank 3 and more.
    return "[" + ("\n" * (arr.ndim - 1) + " " * (indent + 1)).join(parts) + "]"
