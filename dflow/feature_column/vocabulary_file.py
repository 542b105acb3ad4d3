"""``tf.feature_column.categorical_column_with_vocabulary_file``: ids from a vocabulary file.

As in TF1, the ids come from a ``tf.lookup`` table (``dflow/ops/lookup/lookup_tables.py``)
filled from the file when ``tf.tables_initializer()`` runs: a value's id is its
line number; other values go to one of ``num_oov_buckets`` hash buckets after
the vocabulary (``Fingerprint64``, as TF1), or to ``default_value``.
"""

from __future__ import annotations

import collections

from dflow._api import tf_export
from dflow.feature_column.feature_column import (
    _categorical_input,
    _CategoricalColumn,
    _check_key,
    _check_string_or_int,
    _dtype_compatible,
    _masked,
)
from dflow.framework import dtypes
from dflow.framework.files import file_io
from dflow.ops.lookup.lookup_tables import StaticHashTable, StaticVocabularyTable, TextFileIndex, TextFileInitializer
from dflow.ops.math import math_ops


class _VocabularyFileCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "VocabularyFileCategoricalColumn",
        ("key", "vocabulary_file", "vocabulary_size", "num_oov_buckets", "dtype", "default_value"))):
    """See ``categorical_column_with_vocabulary_file``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return self.key

    @property
    def _num_buckets(self) -> int:
        return self.vocabulary_size + self.num_oov_buckets

    def _transform_feature(self, builder):
        t, present = _categorical_input(builder, self.key, lambda t: _dtype_compatible(self, t))
        key_dtype = self.dtype
        if t.dtype.is_integer:
            key_dtype = dtypes.int64  # the table takes 64-bit integer keys, as TF1's
            t = math_ops.cast(t, dtypes.int64)
        init = TextFileInitializer(self.vocabulary_file, key_dtype, TextFileIndex.WHOLE_LINE, dtypes.int64,
                                   TextFileIndex.LINE_NUMBER, vocab_size=self.vocabulary_size)
        name = f"{self.key}_lookup"
        if self.num_oov_buckets:
            table = StaticVocabularyTable(init, self.num_oov_buckets, name=name)
        else:
            table = StaticHashTable(init, self.default_value, name=name)
        return _masked(table.lookup(t), present)


@tf_export("feature_column.categorical_column_with_vocabulary_file")
def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None, num_oov_buckets=0,
                                            default_value=None, dtype=dtypes.string):
    """Ids from a vocabulary file, one entry a line: a value's id is its line number (the first
    ``vocabulary_size`` lines; all when None). Other values go to one of ``num_oov_buckets``
    hash buckets after the vocabulary, or to ``default_value`` (None: -1, no id)."""
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    if vocabulary_size is None:
        if not file_io.exists(vocabulary_file):
            raise ValueError(f"vocabulary_file in {key} does not exist.")
        with file_io.open_file(vocabulary_file, "rb") as f:
            vocabulary_size = sum(1 for _ in f)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    dtype = dtypes.as_dtype(dtype)
    _check_string_or_int(dtype, f"column_name: {key}")
    _check_key(key)
    return _VocabularyFileCategoricalColumn(key, vocabulary_file, int(vocabulary_size), int(num_oov_buckets), dtype,
                                            -1 if default_value is None else default_value)
