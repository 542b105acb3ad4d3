"""Vocabulary lookups: ``_VocabularyLookup`` and ``tf.tables_initializer``.

TF1's ``index_table_from_tensor`` builds a hash table that must be filled by
``tf.tables_initializer()`` before use. dflow's ``_VocabularyLookup`` is a
stateless op whose vocabulary is an attr, so there is nothing to
initialize: ``tables_initializer`` groups whatever is in the
``TABLE_INITIALIZERS`` collection (a no-op for vocabulary lookups), and TF1
code that runs it works unchanged.

The lookup maps each key to its index in the vocabulary; a key not in it
maps to ``vocab_size + Fingerprint64(str(key)) mod num_oov_buckets`` when
``num_oov_buckets > 0`` (integers hashed as their decimal strings, as TF1
does), else to ``default_value``.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import GraphKeys, get_default_graph, name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.kernels.strings import as_bytes, fingerprint64


def _lookup_infer(op):
    x = op._inputs[0]
    string_keys = op._attrs["string_keys"]
    if string_keys and x.dtype is not dtypes.string:
        raise TypeError(f"vocabulary lookup with string keys got {x.dtype.name} input")
    if not string_keys and not x.dtype.is_integer:
        raise TypeError(f"vocabulary lookup with integer keys got {x.dtype.name} input")
    return [(dtypes.int64, x.shape)]


def _lookup_kernel(x, vocabulary, string_keys, default_value, num_oov_buckets):
    index = {k: i for i, k in enumerate(vocabulary)}
    size = len(vocabulary)
    flat = np.asarray(x).ravel()
    out = np.empty(flat.size, dtype=np.int64)
    for n, v in enumerate(flat):
        key = as_bytes(v) if string_keys else int(v)
        i = index.get(key)
        if i is None:
            if num_oov_buckets:
                s = key if string_keys else str(key).encode()
                i = size + fingerprint64(s) % num_oov_buckets
            else:
                i = default_value
        out[n] = i
    return out.reshape(np.shape(x))


register("_VocabularyLookup", infer=_lookup_infer, kernel=_lookup_kernel, gpu=False)
not_differentiable("_VocabularyLookup")


def vocabulary_lookup(keys, vocabulary_list, default_value=-1, num_oov_buckets=0, name=None):
    """The int64 index of each of ``keys`` in ``vocabulary_list`` (strings or integers), with
    TF1's ``index_table_from_tensor`` rules for keys not in it (see the module docstring)."""
    vocab = list(vocabulary_list)
    string_keys = bool(vocab) and isinstance(vocab[0], (str, bytes, np.str_, np.bytes_))
    vocab = tuple(as_bytes(str(v) if isinstance(v, np.str_) else v) if string_keys else int(v) for v in vocab)
    if len(set(vocab)) != len(vocab):
        raise ValueError(f"Duplicate keys in vocabulary_list {list(vocabulary_list)}")
    with name_scope(name, "vocabulary_lookup", [keys]) as scope:
        x = convert_to_tensor(keys, name="keys")
        return apply_op("_VocabularyLookup", [x],
                        {"vocabulary": vocab, "string_keys": string_keys, "default_value": int(default_value),
                         "num_oov_buckets": int(num_oov_buckets)}, name=scope).outputs[0]


@tf_export("tables_initializer", "initializers.tables_initializer", "initialize_all_tables")
def tables_initializer(name="init_all_tables"):
    """An op that runs every table initializer in ``GraphKeys.TABLE_INITIALIZERS``: those of the
    ``tf.lookup`` tables (and ``categorical_column_with_vocabulary_file``); a no-op when there are
    none (the in-memory vocabulary lookups need no initialization).
    """
    from dflow.ops.control_flow.control_flow_ops import group, no_op

    initializers = get_default_graph().get_collection(GraphKeys.TABLE_INITIALIZERS)
    if initializers:
        return group(*initializers, name=name)
    return no_op(name=name)
