"""``batch``, ``padded_batch`` and ``unbatch`` at run time.

``batch`` asks a ``batchable`` upstream for ``n`` elements at once (slices
of the source arrays, no copy); otherwise it pulls ``n`` elements and stacks
each component. Components must agree in shape within a batch, as in TF1;
``padded_batch`` pads them to a common shape instead.
"""

from __future__ import annotations

import numpy as np

from dflow.data.pipeline import Stage
from dflow.framework import errors


def _shape_str(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def stack_component(values: list, index: int, np_dtype):
    """``values`` of component ``index`` stacked along a new first axis."""
    if np_dtype is np.object_:
        values = [np.asarray(v, dtype=object) for v in values]
    try:
        return np.stack(values)
    except ValueError:
        first = np.shape(values[0])
        for i, v in enumerate(values):
            if np.shape(v) != first:
                raise errors.InvalidArgumentError(
                    None, None, f"Cannot batch tensors with different shapes in component {index}. First element "
                                f"had shape {_shape_str(first)} and element {i} had shape "
                                f"{_shape_str(np.shape(v))}.") from None
        raise


def batch_sparse(elements: list, c: int) -> tuple:
    """The SparseTensor components at ``c`` (indices, values, dense_shape) of ``elements`` batched
    as TF1 does: each element's indices after its index in the batch, values concatenated, and
    the dense shape ``[n] + the largest of each dimension``."""
    shapes = [np.asarray(e[c + 2], dtype=np.int64) for e in elements]
    ranks = {s.shape[0] for s in shapes}
    if len(ranks) > 1:
        raise errors.InvalidArgumentError(None, None, f"Cannot batch SparseTensors of different ranks in component "
                                                      f"{c}: ranks {sorted(ranks)}.")
    rank = ranks.pop()
    indices = [np.concatenate([np.full((len(e[c]), 1), i, np.int64), np.asarray(e[c], np.int64).reshape(-1, rank)],
                              axis=1) for i, e in enumerate(elements)]
    values = np.concatenate([np.asarray(e[c + 1]) for e in elements])
    dense_shape = np.concatenate([[len(elements)], np.max(shapes, axis=0)]).astype(np.int64)
    return np.concatenate(indices).reshape(-1, rank + 1), values, dense_shape


def split_sparse(indices, values, dense_shape) -> tuple:
    """A batch of SparseTensor components split into its rows (TF1's unbatch of a SparseTensor): per
    row its indices without the first column and its values (object arrays of arrays) and the
    dense shape without the first dimension (an int64 ``[n, rank - 1]`` array)."""
    indices = np.asarray(indices, np.int64)
    dense_shape = np.asarray(dense_shape, np.int64)
    if dense_shape.shape[0] < 1:
        raise errors.InvalidArgumentError(None, None, "Cannot unbatch a SparseTensor of rank 0.")
    n = int(dense_shape[0])
    rows = indices[:, 0] if indices.shape[0] else np.zeros(0, np.int64)
    row_indices, row_values = np.empty(n, dtype=object), np.empty(n, dtype=object)
    for i in range(n):
        mask = rows == i
        row_indices[i] = indices[mask, 1:]
        row_values[i] = np.asarray(values)[mask]
    return row_indices, row_values, np.tile(dense_shape[1:], (n, 1))


def stack_elements(elements: list, np_dtypes: list, sparse=()) -> tuple:
    out, c = [], 0
    while c < len(np_dtypes):
        if c in sparse:
            out.extend(batch_sparse(elements, c))
            c += 3
        else:
            out.append(stack_component([e[c] for e in elements], c, np_dtypes[c]))
            c += 1
    return tuple(out)


class BatchIterator(Stage):
    """Batches of ``size`` upstream elements.

    ``per_element``: a map function fused into the batch (TF1's
    map-and-batch fusion): called on each element as it is gathered, so the
    elements skip the map stage. ``batch_fns``: element-wise map functions
    that run once on the whole batch (``vectorize.py``). ``np_dtypes`` are
    those of the elements stacked (after ``per_element``); ``sparse`` the flat index of each
    SparseTensor's first component among them.
    """

    def __init__(self, up, size: int, drop_remainder: bool, np_dtypes: list, per_element=None, batch_fns=(),
                 sparse=()):
        if size <= 0:
            raise errors.InvalidArgumentError(None, None, f"Batch size must be greater than zero, got {size}.")
        self.up = up
        self.size = size
        self.drop = drop_remainder
        self.np_dtypes = np_dtypes
        self.per_element = per_element
        self.batch_fns = batch_fns
        self.sparse = frozenset(sparse)
        self.done = False

    def _pull(self) -> list:
        elements = []
        up = self.up
        for _ in range(self.size):
            try:
                elements.append(next(up))
            except StopIteration:
                break
        return elements

    def _gather(self):
        """The next batch of (mapped) elements, stacked."""
        fn = self.per_element
        if self.up.batchable and not self.sparse:
            part = self.up.next_batch(self.size)
            n = len(part[0])
            if self.drop and n < self.size:
                raise StopIteration
            if fn is None:
                return part  # slices of the source: nothing to stack
            return stack_elements([fn(tuple([c[i] for c in part])) for i in range(n)], self.np_dtypes, self.sparse)
        elements = self._pull()
        if not elements or (self.drop and len(elements) < self.size):
            raise StopIteration
        if fn is not None:
            elements = [fn(e) for e in elements]
        return stack_elements(elements, self.np_dtypes, self.sparse)

    def __next__(self):
        if self.done:
            raise StopIteration
        try:
            batch = self._gather()
        except StopIteration:
            self.done = True
            raise
        for fn in self.batch_fns:
            batch = fn(batch)
        return batch


class PaddedBatchIterator(BatchIterator):
    """Batches of elements padded to ``padded_shapes`` (None: the batch's largest)."""

    def __init__(self, up, size: int, drop_remainder: bool, np_dtypes: list, padded_shapes: list,
                 padding_values: list):
        super().__init__(up, size, drop_remainder, np_dtypes)
        self.padded_shapes = padded_shapes
        self.padding_values = padding_values

    def __next__(self):
        if self.done:
            raise StopIteration
        elements = self._pull()
        if not elements or (self.drop and len(elements) < self.size):
            self.done = True
            raise StopIteration
        return tuple(self._pad(c, [e[c] for e in elements]) for c in range(len(self.np_dtypes)))

    def _pad(self, c: int, values: list):
        np_dtype = self.np_dtypes[c]
        shapes = [np.shape(v) for v in values]
        target = self.padded_shapes[c]
        if any(len(s) != len(target) for s in shapes):
            bad = next(s for s in shapes if len(s) != len(target))
            raise errors.InvalidArgumentError(
                None, None, f"All elements in a batch must have the same rank as the padded shape for component "
                            f"{c}: expected rank {len(target)} but got element with rank {len(bad)}")
        dims = []
        for d, want in enumerate(target):
            largest = max((s[d] for s in shapes), default=0)
            if want is None:
                want = largest
            elif largest > want:
                raise errors.InvalidArgumentError(
                    None, None, f"Attempted to pad to a smaller size than the input element. Component {c} has "
                                f"size {largest} in dimension {d}, padded to {want}.")
            dims.append(want)
        out = np.full((len(values), *dims), self.padding_values[c], dtype=np_dtype)
        for i, (v, s) in enumerate(zip(values, shapes)):
            out[(i, *(slice(0, n) for n in s))] = v
        return out


class UnbatchIterator(Stage):
    """The rows of each upstream element, one element each (``sparse``: the flat index of each
    SparseTensor's first component, split by its first index)."""

    def __init__(self, up, sparse=()):
        self.up = up
        self.sparse = sparse
        self.current = None
        self.i = 0
        self.n = 0

    def __next__(self):
        while self.i >= self.n:
            element = next(self.up)
            if self.sparse:
                element = list(element)
                for c in self.sparse:
                    element[c:c + 3] = split_sparse(*element[c:c + 3])
            sizes = [np.shape(v)[0] if np.ndim(v) else None for v in element]
            if any(s is None for s in sizes):
                raise errors.InvalidArgumentError(None, None, "Input element must have a non-scalar value in each "
                                                              "component.")
            if len(set(sizes)) > 1:
                j = next(j for j, s in enumerate(sizes) if s != sizes[0])
                raise errors.InvalidArgumentError(
                    None, None, f"Input element must have the same batch size in each component. Component 0 has "
                                f"batch size {sizes[0]} but component {j} has batch size {sizes[j]}.")
            self.current = element
            self.i = 0
            self.n = sizes[0] if sizes else 0
        i = self.i
        self.i = i + 1
        return tuple([v[i] for v in self.current])
