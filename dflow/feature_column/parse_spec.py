"""``tf.feature_column.make_parse_example_spec``: the ``parse_example`` features that columns read.

Each column names the raw features it needs: a numeric column a
``FixedLenFeature`` of its shape, dtype and default; a categorical column a
``VarLenFeature`` of its dtype (int64 for identity columns); bucketized,
indicator and embedding columns their source's; a crossed column those of
its keys (a string key reads a ``VarLenFeature(tf.string)``).

>>> import dflow as tf
>>> fc = tf.feature_column
>>> sorted(fc.make_parse_example_spec([fc.numeric_column("age"), fc.categorical_column_with_hash_bucket("w", 9)]))
['age', 'w']
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.feature_column import feature_column as fc
from dflow.framework import dtypes
from dflow.ops.io.example_parsing import FixedLenFeature, VarLenFeature


def parse_example_spec(column) -> dict:
    """``{feature name: FixedLenFeature or VarLenFeature}`` for one feature column."""
    if isinstance(column, fc._NumericColumn):
        return {column.key: FixedLenFeature(column.shape, column.dtype, column.default_value)}
    if isinstance(column, fc._BucketizedColumn):
        return parse_example_spec(column.source_column)
    if isinstance(column, fc._IdentityCategoricalColumn):
        return {column.key: VarLenFeature(dtypes.int64)}
    if isinstance(column, (fc._HashedCategoricalColumn, fc._VocabularyListCategoricalColumn)):
        return {column.key: VarLenFeature(column.dtype)}
    if isinstance(column, fc._WeightedCategoricalColumn):
        spec = parse_example_spec(column.categorical_column)
        spec[column.weight_feature_key] = VarLenFeature(column.dtype)
        return spec
    if isinstance(column, fc._SequenceCategoricalColumn):
        return parse_example_spec(column.categorical_column)
    if isinstance(column, fc._SequenceNumericColumn):
        return {column.key: VarLenFeature(column.dtype)}
    if isinstance(column, (fc._IndicatorColumn, fc._EmbeddingColumn, fc._SharedEmbeddingColumn)):
        return parse_example_spec(column.categorical_column)
    if isinstance(column, fc._CrossedColumn):
        spec = {}
        for key in column.keys:
            spec.update(parse_example_spec(key) if isinstance(key, fc._FeatureColumn)
                        else {key: VarLenFeature(dtypes.string)})
        return spec
    raise NotImplementedError(f"make_parse_example_spec: no parse spec for {type(column).__name__}")


@tf_export("feature_column.make_parse_example_spec")
def make_parse_example_spec(feature_columns) -> dict:
    """The ``features`` argument of ``tf.io.parse_example`` that ``feature_columns`` need."""
    result: dict = {}
    for column in feature_columns:
        if not isinstance(column, fc._FeatureColumn):
            raise ValueError(f"All feature_columns must be _FeatureColumn instances. Given: {column}")
        for key, value in parse_example_spec(column).items():
            if key in result and value != result[key]:
                raise ValueError(f"feature_columns contain different parse_spec for key {key}. Given {value} and "
                                 f"{result[key]}")
            result[key] = value
    return result
