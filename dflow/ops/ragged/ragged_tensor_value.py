"""``tf.ragged.RaggedTensorValue``: what a session returns for a fetched ``RaggedTensor``.

It holds numpy arrays: ``values`` (a numpy array, or another
``RaggedTensorValue`` for nested ragged dimensions) and ``row_splits`` (a 1-D
int32 or int64 array), as TF1's class does.

>>> import numpy as np
>>> RaggedTensorValue(np.array([1, 2, 3]), np.array([0, 2, 3])).to_list()
[[1, 2], [3]]
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export


class NestedRows:
    """The nesting walk RaggedTensor and RaggedTensorValue share: their ``values`` may be one of
    their own kind, one ragged dimension further in."""

    @property
    def flat_values(self):
        """The innermost values (a Tensor, or an array for a value)."""
        v = self._values
        while isinstance(v, type(self)):
            v = v.values
        return v

    @property
    def nested_row_splits(self) -> tuple:
        """The row splits of every ragged dimension, outermost first."""
        splits = [self._row_splits]
        v = self._values
        while isinstance(v, type(self)):
            splits.append(v.row_splits)
            v = v.values
        return tuple(splits)

    @property
    def ragged_rank(self) -> int:
        """The number of ragged dimensions."""
        return self._values.ragged_rank + 1 if isinstance(self._values, type(self)) else 1


@tf_export("ragged.RaggedTensorValue")
class RaggedTensorValue(NestedRows):
    """The numpy value of a ``RaggedTensor``: ``values`` split into rows by ``row_splits``."""

    def __init__(self, values, row_splits):
        if not (isinstance(row_splits, (np.ndarray, np.generic)) and row_splits.dtype in (np.int64, np.int32)
                and row_splits.ndim == 1):
            raise TypeError("row_splits must be a 1D int32 or int64 numpy array")
        if not isinstance(values, (np.ndarray, np.generic, RaggedTensorValue)):
            raise TypeError("values must be a numpy array or a RaggedTensorValue")
        if isinstance(values, RaggedTensorValue) and row_splits.dtype != values.row_splits.dtype:
            raise ValueError("row_splits and values.row_splits must have the same dtype")
        self._values = values
        self._row_splits = row_splits

    row_splits = property(lambda self: self._row_splits, doc="The split indices of the rows.")
    values = property(lambda self: self._values, doc="The concatenated values of all rows.")
    dtype = property(lambda self: self._values.dtype, doc="The numpy dtype of the values.")

    @property
    def shape(self) -> tuple:
        """``(nrows, None) + values.shape[1:]``."""
        return (self._row_splits.shape[0] - 1,) + (None,) + self._values.shape[1:]

    def to_list(self) -> list:
        """This value as a nested Python list."""
        if isinstance(self._values, RaggedTensorValue):
            values = self._values.to_list()
        else:
            values = self._values.tolist()
        s = self._row_splits
        return [values[s[i]:s[i + 1]] for i in range(len(s) - 1)]

    def __str__(self) -> str:
        return f"<tf.RaggedTensorValue {self.to_list()}>"

    def __repr__(self) -> str:
        return f"tf.RaggedTensorValue(values={self._values!r}, row_splits={self._row_splits!r})"
