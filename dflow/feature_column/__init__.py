"""``tf.feature_column``: TF1's feature columns (see ``feature_column.py``)."""

from dflow.feature_column.feature_column import (  # noqa: F401 - installs tf.feature_column.*
    bucketized_column,
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    categorical_column_with_vocabulary_list,
    crossed_column,
    embedding_column,
    indicator_column,
    input_layer,
    linear_model,
    numeric_column,
    sequence_categorical_column_with_hash_bucket,
    sequence_categorical_column_with_identity,
    sequence_categorical_column_with_vocabulary_file,
    sequence_categorical_column_with_vocabulary_list,
    sequence_numeric_column,
    shared_embedding_columns,
    weighted_categorical_column,
)
from dflow.feature_column.vocabulary_file import (  # noqa: F401, E402 - backed by tf.lookup tables
    categorical_column_with_vocabulary_file,
)
