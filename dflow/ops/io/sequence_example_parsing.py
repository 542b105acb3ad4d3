"""``tf.io.parse_sequence_example`` and ``parse_single_sequence_example``: the
``ParseSequenceExampleV2`` op, whose context features parse as an Example's and whose feature
lists give one row per step. The feature configs, the plan and the shared decoding helpers are
``example_parsing.py``'s; RaggedFeature results are built by ``example_parsing_ragged.py``.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.io import example_decode as dec
from dflow.ops.io.example_parsing import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    RaggedFeature,
    VarLenFeature,
    _assert_scalar,
    _batch_dims,
    _check_ragged_rank,
    _collect,
    _concat,
    _drop_batch,
    _example_plan,
    _out_shape,
    _outputs,
    _ragged_specs,
    _records,
    _serialized,
    _single,
    _sparse_specs,
    _splits,
)
from dflow.ops.io.example_parsing_ragged import _build_ragged, _ragged_features


def _feature_list_dense(steps, key: str, dtype, shape: tuple, allow_missing: bool, name: str, index: int):
    """A ``FixedLenSequenceFeature``'s ``[steps] + shape`` array from one example's feature list."""
    if steps is None:
        if not allow_missing:
            raise dec._bad(f"Name: {name}, Feature list '{key}' is required but could not be found.  Did you mean to "
                           f"include it in feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?")
        steps = []
    size = int(np.prod(shape, dtype=np.int64))
    rows = []
    for feature in steps:
        v = dec.sparse_list(feature, key, dtype, name, index, where=key)
        if v.size != size:
            raise dec._bad(f"Name: {name}, Key: {key}, Index: {index}.  Number of values != expected.  values size: "
                           f"{v.size} but output shape: [{','.join(str(d) for d in shape)}]")
        rows.append(v.reshape(shape))
    np_dtype = object if dtype is dtypes.string else dtype.as_numpy_dtype
    return np.stack(rows).astype(np_dtype) if rows else np.zeros((0, *shape), dtype=np_dtype)


def _context_dense(feature, key: str, dtype, shape: tuple, default, name: str, index: int):
    if feature is None and default is None:  # TF's words for a missing required context feature
        raise dec._bad(f"Inconsistent max number of elements for feature {key}: expected "
                       f"{int(np.prod(shape, dtype=np.int64))}, but found 0")
    return dec.dense_values(feature, key, dtype, shape, default, name, index)


def _context_ragged(parsed: list, context_ragged, labels: list, single: bool) -> tuple:
    """``(values, row splits)`` per ragged context key, as ``_ragged_outputs`` with TF's context messages."""
    values, splits = [], []
    for key, dtype, splits_dtype in context_ragged:
        lists = []
        for b, (ctx, _) in enumerate(parsed):
            feature = ctx.get(key)
            if feature is not None and feature[0] is not dtype:
                raise dec._bad(f"Name: {labels[b]}, Context feature: {key}.  Data types don't match. Expected type: "
                               f"{dec.TYPE_NAMES[dtype]}")
            lists.append(dec.sparse_list(feature, key, dtype, labels[b], b))
        values.append(_concat(lists, dtype))
        splits.append(np.zeros(0, splits_dtype.as_numpy_dtype) if single
                      else _splits([len(v) for v in lists], splits_dtype))
    return values, splits


def _list_ragged(parsed: list, list_ragged, labels: list, single: bool) -> tuple:
    """``(values, outer splits, inner splits)`` per ragged feature list: every step's values, split per step
    (inner) and the steps split per example (outer; empty for one example, as TF's kernel)."""
    values, outer, inner = [], [], []
    for key, dtype, splits_dtype in list_ragged:
        steps = [[dec.sparse_list(f, key, dtype, labels[b], t, where=key) for t, f in enumerate(lists.get(key) or [])]
                 for b, (_, lists) in enumerate(parsed)]
        flat = [v for example in steps for v in example]
        values.append(_concat(flat, dtype))
        outer.append(np.zeros(0, splits_dtype.as_numpy_dtype) if single
                     else _splits([len(e) for e in steps], splits_dtype))
        inner.append(_splits([len(v) for v in flat], splits_dtype))
    return values, outer, inner


def _parse_sequence_example_kernel(serialized, *inputs, context_sparse, context_dense, list_sparse, list_dense,
                                   context_ragged, list_ragged, single, has_names):
    single = np.ndim(serialized) == 0 if single is None else single
    names = inputs[0] if has_names else None
    defaults = inputs[1:] if has_names else inputs
    recs, labels = _records(serialized, names)
    parsed = []
    for r, label in zip(recs, labels):
        try:
            parsed.append(dec.sequence_example_parts(r))
        except ValueError:
            raise dec._bad(f"Invalid protocol message input, example id: {label}") from None
    out_sparse = []
    for key, dtype in context_sparse:
        lists = [dec.sparse_list(ctx.get(key), key, dtype, labels[b], b) for b, (ctx, _) in enumerate(parsed)]
        t = dec.sparse_components(lists, dtype)
        out_sparse.append(_drop_batch(t) if single else t)
    out_dense = []
    for key, dtype, shape, _, d in context_dense:
        default = None if d < 0 else np.asarray(defaults[d])
        rows = [_context_dense(ctx.get(key), key, dtype, shape, default, labels[b], b)
                for b, (ctx, _) in enumerate(parsed)]
        np_dtype = object if dtype is dtypes.string else dtype.as_numpy_dtype
        out = np.stack(rows).astype(np_dtype) if rows else np.zeros((0, *shape), dtype=np_dtype)
        out_dense.append(out[0] if single else out)
    list_sparse_out = []
    for key, dtype in list_sparse:
        per_example = []
        for b, (_, lists) in enumerate(parsed):
            steps = lists.get(key) or []
            per_example.append([dec.sparse_list(f, key, dtype, labels[b], t, where=key) for t, f in enumerate(steps)])
        list_sparse_out.append(_step_sparse(per_example, dtype, single))
    list_dense_out, lengths = [], []
    for key, dtype, shape, kind, _ in list_dense:
        rows = [_feature_list_dense(lists.get(key), key, dtype, shape, kind == "seq_missing_ok", labels[b], b)
                for b, (_, lists) in enumerate(parsed)]
        lengths.append(np.array([len(r) for r in rows], dtype=np.int64))
        out = dec.stack_padded(rows, dtype, shape, None)
        list_dense_out.append(out[0] if single else out)
    if single:
        lengths = [x[0] for x in lengths]
    ctx_values, ctx_splits = _context_ragged(parsed, context_ragged, labels, single)
    list_values, list_outer, list_inner = _list_ragged(parsed, list_ragged, labels, single)
    return _outputs([t[0] for t in out_sparse] + [t[1] for t in out_sparse] + [t[2] for t in out_sparse]
                    + out_dense + ctx_values + ctx_splits + [t[0] for t in list_sparse_out]
                    + [t[1] for t in list_sparse_out] + [t[2] for t in list_sparse_out] + list_dense_out + lengths
                    + list_values + list_outer + list_inner)


def _step_sparse(per_example: list, dtype, single: bool) -> tuple:
    """``(indices, values, dense_shape)`` of a VarLen feature list: ``[batch, step, j]`` (``[step, j]`` single)."""
    steps = max((len(e) for e in per_example), default=0)
    width = max((len(v) for e in per_example for v in e), default=0)
    rows, vals = [], []
    for b, example in enumerate(per_example):
        for t, v in enumerate(example):
            rows.extend([b, t, j] for j in range(len(v)))
            vals.extend(v.tolist())
    indices = np.array(rows, dtype=np.int64).reshape(-1, 3)
    values = dec.value_array(vals, dtype)
    shape = np.array([len(per_example), steps, width], dtype=np.int64)
    return (indices[:, 1:], values, shape[1:]) if single else (indices, values, shape)


def _parse_sequence_example_infer(op):
    a = op._attrs
    single, batch = _batch_dims(op)
    specs = _sparse_specs([d for _, d in a["context_sparse"]], None if single is None else 1 if single else 2)
    specs += [(dtype, _out_shape(batch, list(shape))) for _, dtype, shape, _, _ in a["context_dense"]]
    specs += _ragged_specs(a["context_ragged"], single, batch)
    specs += _sparse_specs([d for _, d in a["list_sparse"]], None if single is None else 2 if single else 3)
    specs += [(dtype, _out_shape(batch, [None] + list(shape))) for _, dtype, shape, _, _ in a["list_dense"]]
    specs += [(dtypes.int64, _out_shape(batch, []))] * len(a["list_dense"])
    specs += _ragged_specs(a["list_ragged"], single, batch)
    specs += [(sd, TensorShape([None])) for _, _, sd in a["list_ragged"]]
    return specs


register("ParseSequenceExampleV2", infer=_parse_sequence_example_infer, kernel=_parse_sequence_example_kernel,
         gpu=False, foldable=False)
not_differentiable("ParseSequenceExampleV2")


def _parse_sequence_example(serialized, context_features, sequence_features, example_names, single: bool):
    if not context_features and not sequence_features:
        if single:
            raise ValueError("Both context_features and sequence_features are None, but at least one should have "
                             "values.")
        raise ValueError("Both `context_features` and `sequence_features` argument are None, but at least one "
                         "should have values.")
    context_features, sequence_features = context_features or {}, sequence_features or {}
    with name_scope(None, "ParseSequenceExample", [serialized, example_names]):
        context = _example_plan(context_features, (FixedLenFeature, VarLenFeature, RaggedFeature))
        lists = _example_plan(sequence_features, (FixedLenSequenceFeature, VarLenFeature, RaggedFeature),
                              sequence_context=True)
        serialized = _serialized(serialized, single)
        _check_ragged_rank([context, lists], serialized)
        inputs = [serialized]
        if example_names is not None:
            inputs.append(convert_to_tensor(example_names, dtype=dtypes.string, name="names"))
        attrs = {"context_sparse": tuple(context.sparse), "context_dense": tuple(context.dense),
                 "list_sparse": tuple(lists.sparse), "list_dense": tuple(lists.dense),
                 "context_ragged": tuple(context.ragged), "list_ragged": tuple(lists.ragged),
                 "single": _single(serialized), "has_names": example_names is not None}
        op = apply_op("ParseSequenceExampleV2", inputs + context.defaults, attrs, name="ParseSequenceExampleV2")
        outputs = list(op.outputs)
        n_context = 3 * len(context.sparse) + len(context.dense) + 2 * len(context.ragged)
        n_lists = 3 * len(lists.sparse) + len(lists.dense)
        context_out, context_ragged = _collect(outputs[:n_context], context)
        lists_out, _ = _collect(outputs[n_context:n_context + n_lists], lists, ragged_after_dense=False)
        lengths = {key: outputs[n_context + n_lists + i] for key, kind, i in lists.outputs if kind == "dense"}
        ragged_start, n_ragged = n_context + n_lists + len(lists.dense), len(lists.ragged)
        list_ragged = {key: (outputs[ragged_start + i], outputs[ragged_start + n_ragged + i])
                       for i, (key, _, _) in enumerate(lists.ragged)}
        inner = {key: outputs[ragged_start + 2 * n_ragged + i] for i, (key, _, _) in enumerate(lists.ragged)}
        batched = serialized.shape.ndims != 0
        context_ragged = _build_ragged(context_ragged, batched)
        list_ragged = _build_ragged(list_ragged, batched, inner)
    if context.ragged:
        context_out.update(_ragged_features(context_features, context_ragged))
    if lists.ragged:
        lists_out.update(_ragged_features(sequence_features, list_ragged))
    return context_out, lists_out, lengths


@tf_export("io.parse_sequence_example")
def parse_sequence_example(serialized, context_features=None, sequence_features=None, example_names=None,
                           name=None) -> tuple:
    """Parses a batch of serialized ``SequenceExample`` protos: ``(context, feature_lists, lengths)``.

    Context features are ``FixedLenFeature`` / ``VarLenFeature`` / ``RaggedFeature``;
    sequence features ``FixedLenSequenceFeature`` (``[batch, longest] + shape``,
    zero-padded, with each example's number of steps in ``lengths``), ``VarLenFeature``
    (a SparseTensor ``[batch, step, j]``) or ``RaggedFeature`` (a RaggedTensor
    ``[batch, (step), (j)]``, then the feature's partitions)."""
    with name_scope(name, "ParseSequenceExample", [serialized, example_names]):
        return _parse_sequence_example(serialized, context_features, sequence_features, example_names, single=False)


@tf_export("io.parse_single_sequence_example", "parse_single_sequence_example")
def parse_single_sequence_example(serialized, context_features=None, sequence_features=None, example_name=None,
                                  name=None) -> tuple:
    """Parses one serialized ``SequenceExample`` (a scalar): ``(context, feature_lists)``."""
    with name_scope(name, "ParseSingleSequenceExample", [serialized, example_name]):
        with name_scope(None, "ParseSingleExample", [serialized, example_name]):
            serialized = _assert_scalar(serialized)
        context, lists, _ = _parse_sequence_example(serialized, context_features, sequence_features, example_name,
                                                    single=True)
        return context, lists
