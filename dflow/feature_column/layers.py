"""``tf.feature_column.input_layer`` and ``linear_model``: the layers that turn
feature columns (``feature_column.py``) into a dense tensor or a linear model's logits."""

from __future__ import annotations

from dflow._api import tf_export
from dflow.feature_column.feature_column import (
    _COMBINERS,
    _CategoricalColumn,
    _combine_embeddings,
    _DenseColumn,
    _FeatureColumn,
    _LazyBuilder,
)
from dflow.framework.graph import GraphKeys, Tensor, get_default_graph
from dflow.ops.array import array_ops
from dflow.ops.math import math_ops
from dflow.ops.state.variable_scope import get_variable, variable_scope

# -- input_layer and linear_model ------------------------------------------------------------


def _normalize_feature_columns(feature_columns) -> list:
    if isinstance(feature_columns, _FeatureColumn):
        feature_columns = [feature_columns]
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    feature_columns = list(feature_columns)
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError(f"Items of feature_columns must be a _FeatureColumn. Given (type {type(column)}): "
                             f"{column}.")
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    by_name: dict = {}
    for column in feature_columns:
        if column.name in by_name:
            raise ValueError(f"Duplicate feature column name found for columns: {column} and {by_name[column.name]}. "
                             f"This usually means that these columns refer to same base feature. Either one must be "
                             f"discarded or a duplicated but renamed item must be inserted in features dict.")
        by_name[column.name] = column
    return feature_columns


def _weight_collections(weight_collections) -> list:
    out = list(weight_collections or [])
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES):
        if key not in out:
            out.append(key)
    return out


def _verify_static_batch_size_equality(tensors, columns) -> None:
    expected = None
    for t, c in zip(tensors, columns):
        d = t.shape[0] if t.shape.ndims else None
        d = getattr(d, "value", d)
        if d is None:
            continue
        if expected is None:
            expected = (d, c)
        elif expected[0] != d:
            raise ValueError(f"Batch size (first dimension) of each feature must be same. Batch size of columns "
                             f"({expected[1].name}, {c.name}): ({expected[0]}, {d})")


def _scope_vars(scope_name: str) -> list:
    return get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, scope=scope_name + "/")


@tf_export("feature_column.input_layer")
def input_layer(features, feature_columns, weight_collections=None, trainable=True, cols_to_vars=None,
                cols_to_output_tensors=None):
    """The float32 ``[batch, sum of column widths]`` input of a network: each dense column's
    tensor, flattened per example, concatenated in order of column name.

    >>> import dflow as tf
    >>> cols = [tf.feature_column.numeric_column("b"), tf.feature_column.numeric_column("a", shape=(2,))]
    >>> net = tf.feature_column.input_layer({"a": [[1.0, 2.0]], "b": [3.0]}, cols)
    >>> with tf.Session() as s:
    ...     s.run(net).tolist()
    [[1.0, 2.0, 3.0]]
    """
    feature_columns = _normalize_feature_columns(feature_columns)
    for column in feature_columns:
        if not isinstance(column, _DenseColumn):
            raise ValueError(f"Items of feature_columns must be a _DenseColumn. You can wrap a categorical column "
                             f"with an embedding_column or indicator_column. Given: {column}")
    collections_ = _weight_collections(weight_collections)
    values = [v for v in features.values() if isinstance(v, Tensor)] if isinstance(features, dict) else None
    with variable_scope(None, default_name="input_layer", values=values or None):
        builder = _LazyBuilder(features)
        outputs, ordered = [], []
        for column in sorted(feature_columns, key=lambda c: c.name):
            ordered.append(column)
            with variable_scope(None, default_name=column._var_scope_name) as vs:
                tensor = column._get_dense_tensor(builder, weight_collections=collections_, trainable=trainable)
                num_elements = column._variable_shape.num_elements()
                output = array_ops.reshape(tensor, [-1, num_elements])
                outputs.append(output)
                if cols_to_vars is not None:
                    cols_to_vars[column] = _scope_vars(vs.name)
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = output
        _verify_static_batch_size_equality(outputs, ordered)
        return array_ops.concat(outputs, 1)


def _linear_weighted_sum(column, builder, units, sparse_combiner, collections_, trainable) -> Tensor:
    from dflow.ops.linalg.linalg_ops import matmul
    from dflow.ops.state.init_ops import zeros_initializer

    if isinstance(column, _CategoricalColumn):
        weight = get_variable("weights", shape=(column._num_buckets, units), initializer=zeros_initializer(),
                              trainable=trainable, collections=collections_)
        return _combine_embeddings(weight, column._get_ids(builder), sparse_combiner)
    tensor = column._get_dense_tensor(builder, weight_collections=collections_, trainable=trainable)
    num_elements = column._variable_shape.num_elements()
    weight = get_variable("weights", shape=[num_elements, units], initializer=zeros_initializer(),
                          trainable=trainable, collections=collections_)
    return matmul(array_ops.reshape(tensor, [-1, num_elements]), weight, name="weighted_sum")


@tf_export("feature_column.linear_model")
def linear_model(features, feature_columns, units=1, sparse_combiner="sum", weight_collections=None,
                 trainable=True, cols_to_vars=None):
    """A linear prediction ``[batch, units]`` (float32): for each column (in order of name)
    its dense values times ``linear_model/<column>/weights``, or the sum of the weights of its
    ids combined by ``sparse_combiner`` (``sum``, ``mean`` or ``sqrtn``), plus
    ``linear_model/bias_weights``. All weights start at zero.

    >>> import dflow as tf
    >>> logits = tf.feature_column.linear_model({"x": [[1.0], [2.0]]}, [tf.feature_column.numeric_column("x")])
    >>> [v.name for v in tf.global_variables()]
    ['linear_model/x/weights:0', 'linear_model/bias_weights:0']
    """
    from dflow.ops.control_flow.control_flow_ops import identity
    from dflow.ops.nn.nn_ops import bias_add
    from dflow.ops.state.init_ops import zeros_initializer

    if sparse_combiner not in _COMBINERS:
        raise ValueError(f"sparse_combiner must be one of 'mean', 'sqrtn' or 'sum', got {sparse_combiner!r}")
    feature_columns = _normalize_feature_columns(feature_columns)
    for column in feature_columns:
        if not isinstance(column, (_DenseColumn, _CategoricalColumn)):
            raise ValueError(f"Items of feature_columns must be either a _DenseColumn or _CategoricalColumn. "
                             f"Given: {column}")
    collections_ = _weight_collections(weight_collections)
    # TF1 reserves the model's scope name, then each column's scope name beside it (its layers
    # are named before they are built), then builds the variables inside the model's scope.
    with variable_scope(None, default_name="linear_model") as vs:
        pass
    ordered = sorted(feature_columns, key=lambda c: c.name)
    column_names = []
    for column in ordered:
        with variable_scope(None, default_name=column._var_scope_name) as cvs:
            column_names.append(cvs.name.rsplit("/", 1)[-1])
    with variable_scope(vs):
        builder = _LazyBuilder(features)
        sums = []
        for column, column_name in zip(ordered, column_names):
            with variable_scope(column_name) as cvs:
                sums.append(_linear_weighted_sum(column, builder, units, sparse_combiner, collections_, trainable))
                if cols_to_vars is not None:
                    cols_to_vars[column] = _scope_vars(cvs.name)
        _verify_static_batch_size_equality(sums, ordered)
        no_bias = math_ops.add_n(sums, name="weighted_sum_no_bias") if len(sums) > 1 else \
            identity(sums[0], name="weighted_sum_no_bias")
        bias = get_variable("bias_weights", shape=[units], initializer=zeros_initializer(), trainable=trainable,
                            collections=collections_)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = [bias]
        return bias_add(no_bias, bias, name="weighted_sum")
