"""``tf.lookup``: ``StaticHashTable`` and ``StaticVocabularyTable`` with their initializers
(``KeyValueTensorInitializer``, ``TextFileInitializer``), as TF1 builds them.

A table is a resource of the session, as a queue is. The graph holds TF's ops:

* ``HashTableV2`` (named ``hash_table``): creates the table, empty and
  uninitialized, on its first run and outputs its handle;
* ``LookupTableImportV2`` / ``InitializeTableFromTextFileV2``: fill it. The
  V1 tables of ``tf.compat.v1`` put this op in ``GraphKeys.TABLE_INITIALIZERS``,
  so ``tf.tables_initializer()`` runs it. A table that is filled already
  stays as it is (TF1 makes a second initialization a no-op);
* ``LookupTableFindV2``, ``LookupTableSizeV2``, ``LookupTableExportV2``: read
  it; a lookup before initialization is TF's ``FailedPreconditionError``.

``StaticVocabularyTable`` maps keys outside the vocabulary to
``vocab_size + Fingerprint64(key) mod num_oov_buckets`` (integers hashed as
their decimal strings), as TF does with ``to_hash_bucket_fast``.
"""

from __future__ import annotations

import functools
import threading
import uuid

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes, errors
from dflow.framework.composite import SparseTensor
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.files import file_io
from dflow.framework.graph import GraphKeys, add_to_collection, colocate_with, name_scope
from dflow.framework.op_registry import apply_op, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels.strings import as_bytes
from dflow.ops.state.data_flow_ops import named_resource_kernel, resource_key

_KEY_DTYPES = (dtypes.string, dtypes.int32, dtypes.int64)


class TableState:
    """A hash table's contents: ``key -> value`` (bytes or int keys), filled once."""

    def __init__(self, name: str, key_dtype, value_dtype):
        self.name = name
        self.key_dtype = key_dtype
        self.value_dtype = value_dtype
        self.table: dict | None = None
        self.lock = threading.Lock()

    def key(self, v):
        return as_bytes(v) if self.key_dtype is dtypes.string else int(v)

    def insert(self, keys, values) -> None:
        """Fills the table, unless it is filled already; different values for one key fail."""
        with self.lock:
            if self.table is not None:
                return
            table: dict = {}
            for k, v in zip(keys, values):
                k = self.key(k)
                old = table.setdefault(k, v)
                if old != v:
                    shown = k.decode("utf-8", "backslashreplace") if isinstance(k, bytes) else k
                    raise errors.FailedPreconditionError(
                        None, None, f"HashTable has different value for same key. Key {shown} has "
                                    f"{_shown(old)} and trying to add value {_shown(v)}")
            self.table = table

    def contents(self) -> dict:
        table = self.table
        if table is None:
            raise errors.FailedPreconditionError(None, None, "Table not initialized.")
        return table


def _shown(v) -> str:
    return v.decode("utf-8", "backslashreplace") if isinstance(v, bytes) else str(v)


def _new_state(op, name: str) -> TableState:
    return TableState(name, op._attrs["key_dtype"], op._attrs["value_dtype"])


def _check_shared(state: TableState, op, name: str) -> None:
    a = op._attrs
    if (state.key_dtype, state.value_dtype) != (a["key_dtype"], a["value_dtype"]):
        raise errors.InvalidArgumentError(
            None, None, f"Shared table '{name}' maps {state.key_dtype.name} to {state.value_dtype.name}, but op "
                        f"{op.name} asks for {a['key_dtype'].name} to {a['value_dtype'].name}")


register("HashTableV2", infer=lambda op: [(dtypes.string, TensorShape([]))],
         make_kernel=named_resource_kernel("lookup_table", _new_state, _check_shared), stateful=True, gpu=False)


def _table_lookup(resources):
    """``handle value -> TableState`` for this session, memoized."""

    @functools.lru_cache(maxsize=64)
    def find(ref: bytes) -> TableState:
        return resources.resource(resource_key("lookup_table", ref))

    return lambda handle: find(handle.item() if isinstance(handle, np.ndarray) else handle)


def _values_of(values, dtype) -> list:
    flat = np.asarray(values).reshape(-1)
    return [as_bytes(v) for v in flat] if dtype is dtypes.string else flat.tolist()


def _import_kernel(op, resources):
    table = _table_lookup(resources)

    def kernel(handle, keys, values):
        state = table(handle)
        keys, values = np.asarray(keys).reshape(-1), np.asarray(values).reshape(-1)
        if keys.size != values.size:
            raise errors.InvalidArgumentError(None, None, f"Expected shape [{keys.size}] for value, got "
                                                          f"[{values.size}]")
        state.insert(keys.tolist() if keys.dtype != object else list(keys), _values_of(values, state.value_dtype))

    return kernel


# -- text files ------------------------------------------------------------------------------------------

WHOLE_LINE, LINE_NUMBER = -2, -1


def _parse_field(text: bytes, dtype, line: int):
    if dtype is dtypes.string:
        return text
    try:
        return int(text) if dtype.is_integer else float(text)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"Field {text.decode('utf-8', 'backslashreplace')} in line {line} is not a valid "
                        f"{dtype.name}.") from None


def _line_part(line: bytes, fields: list, n: int, index: int, dtype, offset: int):
    if index == LINE_NUMBER:
        return n + offset
    return _parse_field(line if index == WHOLE_LINE else fields[index], dtype, n)


def read_text_file_table(filename: str, key_index: int, value_index: int, vocab_size: int, delimiter: str,
                         offset: int, key_dtype, value_dtype) -> tuple:
    """(keys, values) of a vocabulary file, read as TF's ``InitializeTableFromTextFileV2``."""
    try:
        with file_io.open_file(filename, "rb") as f:
            lines = f.read().split(b"\n")
    except (errors.NotFoundError, errors.FailedPreconditionError):
        raise errors.NotFoundError(None, None, f"{filename}; No such file or directory") from None
    if lines and lines[-1] == b"":
        lines.pop()
    if vocab_size > 0:
        if len(lines) < vocab_size:
            raise errors.InvalidArgumentError(None, None, f"Invalid vocab_size in {filename}: expected "
                                                          f"{vocab_size} but got {len(lines)}")
        lines = lines[:vocab_size]
    keys, values = [], []
    delim = delimiter.encode()
    need = max(key_index, value_index) + 1
    position = 0
    for n, line in enumerate(lines):
        position += len(line) + 1  # TF reports the byte offset after the line
        line = line[:-1] if line.endswith(b"\r") else line
        if not line:
            raise errors.InvalidArgumentError(None, None, f"Invalid content in {filename}: empty line found at "
                                                          f"position {position}.")
        fields = line.split(delim) if delim else [line[i:i + 1] for i in range(len(line))]
        if len(fields) < need:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid number of columns in {filename} line {n} "
                            f"({line.decode('utf-8', 'backslashreplace')}) : expected at least {need} got "
                            f"{len(fields)}")
        keys.append(_line_part(line, fields, n, key_index, key_dtype, offset))
        values.append(_line_part(line, fields, n, value_index, value_dtype, offset))
    return keys, values


def _text_file_kernel(op, resources):
    table = _table_lookup(resources)
    a = op._attrs

    def kernel(handle, filename):
        state = table(handle)
        if state.table is not None:
            return
        name = as_bytes(np.asarray(filename, dtype=object).item()).decode()
        keys, values = read_text_file_table(name, a["key_index"], a["value_index"], a["vocab_size"], a["delimiter"],
                                            a["offset"], state.key_dtype, state.value_dtype)
        state.insert(keys, values)

    return kernel


# -- reading ------------------------------------------------------------------------------------------------


def _find_kernel(op, resources):
    table = _table_lookup(resources)
    out_dtype = op._outputs[0].dtype

    def kernel(handle, keys, default_value):
        state = table(handle)
        contents = state.contents()
        default = np.asarray(default_value).reshape(-1)[0]
        flat = np.asarray(keys, dtype=object if state.key_dtype is dtypes.string else None).reshape(-1)
        found = [contents.get(state.key(k), default) for k in flat]
        out = np.empty(len(found), dtype=object) if out_dtype is dtypes.string else None
        if out is not None:
            out[:] = found
        else:
            out = np.array(found, dtype=out_dtype.as_numpy_dtype).reshape(-1)
        return out.reshape(np.shape(keys))

    return kernel


def _size_kernel(op, resources):
    table = _table_lookup(resources)
    return lambda handle: np.int64(len(table(handle).table or {}))


def _export_kernel(op, resources):
    table = _table_lookup(resources)

    def kernel(handle):
        state = table(handle)
        contents = state.table or {}
        keys, values = list(contents), list(contents.values())
        out = []
        for items, dtype in ((keys, state.key_dtype), (values, state.value_dtype)):
            if dtype is dtypes.string:
                arr = np.empty(len(items), dtype=object)
                arr[:] = items
            else:
                arr = np.array(items, dtype=dtype.as_numpy_dtype).reshape(-1)
            out.append(arr)
        return tuple(out)

    return kernel


register("LookupTableImportV2", infer=lambda op: [], make_kernel=_import_kernel, stateful=True, gpu=False)
register("InitializeTableFromTextFileV2", infer=lambda op: [], make_kernel=_text_file_kernel, stateful=True,
         gpu=False)
register("LookupTableFindV2", infer=lambda op: [(op._inputs[2].dtype, op._inputs[1].shape)],
         make_kernel=_find_kernel, stateful=True, gpu=False)
register("LookupTableSizeV2", infer=lambda op: [(dtypes.int64, TensorShape([]))], make_kernel=_size_kernel,
         stateful=True, gpu=False)
register("LookupTableExportV2", infer=lambda op: [(op._attrs["Tkeys"], TensorShape([None])),
                                                  (op._attrs["Tvalues"], TensorShape([None]))],
         make_kernel=_export_kernel, stateful=True, gpu=False)
for _t in ("HashTableV2", "LookupTableImportV2", "InitializeTableFromTextFileV2", "LookupTableFindV2",
           "LookupTableSizeV2", "LookupTableExportV2"):
    not_differentiable(_t)


# -- initializers ---------------------------------------------------------------------------------------------


@tf_export("lookup.TextFileIndex")
class TextFileIndex:
    """Which part of a line of a vocabulary file is a key or value: the whole line or its number."""

    WHOLE_LINE = WHOLE_LINE
    LINE_NUMBER = LINE_NUMBER


class _KeyValueTypes:
    """The ``key_dtype`` and ``value_dtype`` of a table or its initializer."""

    _key_dtype = _value_dtype = None

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype


class TableInitializerBase(_KeyValueTypes):
    """Holds a table's key and value dtypes; ``initialize(table)`` returns the op that fills it."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)

    def _check_table_dtypes(self, key_dtype, value_dtype) -> None:
        if key_dtype is not self._key_dtype:
            raise TypeError(f"Invalid key dtype for table, expected {self._key_dtype!r} but got {key_dtype!r}.")
        if value_dtype is not self._value_dtype:
            raise TypeError(f"Invalid value dtype for table, expected {self._value_dtype!r} but got "
                            f"{value_dtype!r}.")


@tf_export("lookup.KeyValueTensorInitializer")
class KeyValueTensorInitializer(TableInitializerBase):
    """Fills a table from a ``keys`` and a ``values`` tensor of one length.

    >>> import dflow as tf
    >>> init = tf.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2], value_dtype=tf.int64)
    >>> table = tf.lookup.StaticHashTable(init, -1)
    >>> with tf.Session() as sess:
    ...     sess.run(tf.tables_initializer())
    ...     sess.run(table.lookup(tf.constant(["b", "z"]))).tolist()
    [2, -1]
    """

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        with name_scope(name, "key_value_init", [keys, values]) as scope:
            self._keys = convert_to_tensor(keys, dtype=key_dtype, name="keys")
            self._values = convert_to_tensor(values, dtype=value_dtype, name="values")
            self._name = scope
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table):
        """The op that fills ``table`` with these keys and values."""
        self._check_table_dtypes(table.key_dtype, table.value_dtype)
        with name_scope(self._name), colocate_with(table.resource_handle.op):
            return apply_op("LookupTableImportV2", [table.resource_handle, self._keys, self._values],
                            {"Tin": self._key_dtype, "Tout": self._value_dtype}, name="LookupTableImportV2")


@tf_export("lookup.TextFileInitializer")
class TextFileInitializer(TableInitializerBase):
    """Fills a table from a text file: per line, the key and value are a column (split at
    ``delimiter``), the whole line (``TextFileIndex.WHOLE_LINE``) or the line number
    (``TextFileIndex.LINE_NUMBER``, plus ``value_index_offset``). ``vocab_size`` reads the first
    that many lines (fewer is an error). The file is read when the initializer runs."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index, vocab_size=None, delimiter="\t",
                 name=None, value_index_offset=0):
        key_dtype, value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
        if key_index < -2:
            raise ValueError(f"`key_index` should be >= -2, received: {key_index}.")
        if key_index == LINE_NUMBER and key_dtype is not dtypes.int64:
            raise ValueError(f"`key_dtype` must be int64 if `key_index` is {LINE_NUMBER}, received: "
                             f"{key_dtype!r}")
        if key_index == WHOLE_LINE and key_dtype is not dtypes.string and not key_dtype.is_integer:
            raise ValueError(f"`key_dtype` should be either integer or string for `key_index` {WHOLE_LINE}, "
                             f"received: {key_dtype!r}")
        if value_index < -2:
            raise ValueError(f"`value_index` should be >= -2, received: {value_index}.")
        if value_index == LINE_NUMBER and value_dtype is not dtypes.int64:
            raise ValueError(f"`value_dtype` must be int64 for `value_index` {LINE_NUMBER}, received: "
                             f"{value_dtype!r}")
        if value_index == WHOLE_LINE and value_dtype is not dtypes.string:
            raise ValueError(f"`value_dtype` must be string for `value_index` {WHOLE_LINE}, received: "
                             f"{value_dtype!r}")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        self._filename = filename
        self._key_index, self._value_index = int(key_index), int(value_index)
        self._vocab_size = vocab_size
        self._delimiter = delimiter
        self._name = name
        self._offset = int(value_index_offset)
        super().__init__(key_dtype, value_dtype)

    def initialize(self, table):
        """The op that reads the file into ``table``."""
        self._check_table_dtypes(table.key_dtype, table.value_dtype)
        with name_scope(self._name, "text_file_init", [table.resource_handle]), \
                colocate_with(table.resource_handle.op):
            filename = convert_to_tensor(self._filename, dtype=dtypes.string, name="asset_filepath")
            op = apply_op("InitializeTableFromTextFileV2", [table.resource_handle, filename],
                          {"key_index": self._key_index, "value_index": self._value_index,
                           "vocab_size": -1 if self._vocab_size is None else int(self._vocab_size),
                           "delimiter": self._delimiter, "offset": self._offset},
                          name="InitializeTableFromTextFileV2")
        if isinstance(self._filename, (str, bytes)):
            add_to_collection(GraphKeys.ASSET_FILEPATHS, filename)
        return op


# -- tables -------------------------------------------------------------------------------------------------------


def _check_keys(keys, key_dtype):
    values = keys.values if isinstance(keys, SparseTensor) else convert_to_tensor(keys, dtype=None, name="keys") \
        if not hasattr(keys, "dtype") else keys
    if values.dtype.base_dtype is not key_dtype:
        raise TypeError(f"Dtype of argument `keys` must be {key_dtype!r}, received: {values.dtype!r}")
    return values


class _LookupTable(_KeyValueTypes):
    """What every table shows: its key and value dtypes, name, handle and initializer op."""

    _name = _resource_handle = _init_op = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def resource_handle(self):
        return self._resource_handle

    @property
    def initializer(self):
        return self._init_op


@tf_export("lookup.StaticHashTable")
class StaticHashTable(_LookupTable):
    """An immutable table from keys to values, filled by ``initializer`` when
    ``tf.tables_initializer()`` runs (its op is in ``GraphKeys.TABLE_INITIALIZERS``);
    ``lookup`` gives ``default_value`` for a missing key."""

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        self._initializer = initializer
        self._key_dtype = initializer.key_dtype
        self._value_dtype = initializer.value_dtype
        if self._key_dtype not in _KEY_DTYPES:
            raise TypeError(f"dflow's lookup tables take string, int32 or int64 keys, got {self._key_dtype!r}")
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        if self._default_value.shape.ndims not in (None, 0, 1):
            raise ValueError(f"default_value must be a scalar, got shape {self._default_value.shape}")
        self._name = name or "hash_table"
        # A name of its own (as TF2 gives tables): on a cluster the table stays the same resource
        # however the graph grows between runs.
        shared_name = f"hash_table_{uuid.uuid4().hex}"
        self._resource_handle = apply_op(
            "HashTableV2", [], {"container": "", "shared_name": shared_name, "use_node_name_sharing": False,
                                "key_dtype": self._key_dtype, "value_dtype": self._value_dtype},
            name=self._name).outputs[0]
        self._name = self._resource_handle.op.name.split("/")[-1]
        self._init_op = initializer.initialize(self)
        add_to_collection(GraphKeys.TABLE_INITIALIZERS, self._init_op)

    @property
    def default_value(self):
        return self._default_value

    @property
    def init(self):
        return self._init_op

    def _op(self, op_type: str, inputs, attrs, scope_name: str, name):
        with name_scope(name, scope_name, [self._resource_handle] + list(inputs)), \
                colocate_with(self._resource_handle.op):
            return apply_op(op_type, [self._resource_handle] + list(inputs), attrs, name=op_type)

    def size(self, name=None):
        """The number of entries (an int64 scalar; 0 before initialization)."""
        return self._op("LookupTableSizeV2", [], {}, f"{self._name}_Size", name).outputs[0]

    def lookup(self, keys, name=None):
        """The value of each of ``keys`` (a Tensor or SparseTensor), ``default_value`` where absent."""
        values = _check_keys(keys, self._key_dtype)
        out = self._op("LookupTableFindV2", [values, self._default_value],
                       {"Tin": self._key_dtype, "Tout": self._value_dtype}, f"{self._name}_Lookup", name).outputs[0]
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, out, keys.dense_shape)
        return out

    def export(self, name=None):
        """``(keys, values)``: the table's contents, in no particular order."""
        op = self._op("LookupTableExportV2", [], {"Tkeys": self._key_dtype, "Tvalues": self._value_dtype},
                      f"{self._name}_Export", name)
        return op.outputs[0], op.outputs[1]


@tf_export("lookup.StaticVocabularyTable")
class StaticVocabularyTable(_LookupTable):
    """Ids of keys in a vocabulary (the initializer's int64 values); a key outside it gets
    ``vocab_size + Fingerprint64(key) mod num_oov_buckets``, as TF1.

    >>> import dflow as tf
    >>> init = tf.lookup.KeyValueTensorInitializer(["a", "b"], tf.constant([0, 1], tf.int64))
    >>> table = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=3)
    >>> with tf.Session() as sess:
    ...     sess.run(tf.tables_initializer())
    ...     sess.run(table.lookup(tf.constant(["b", "hello"]))).tolist()
    [1, 4]
    """

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if initializer.value_dtype is not dtypes.int64:
            raise TypeError(f"Invalid `value_dtype`, expected {dtypes.int64!r} but got "
                            f"{initializer.value_dtype!r}.")
        if initializer.key_dtype.is_integer and initializer.key_dtype is not dtypes.int64:
            raise TypeError(f"Invalid `key_dtype`, expected {dtypes.int64!r} but got {initializer.key_dtype!r}.")
        self._num_oov_buckets = int(num_oov_buckets)
        key_dtype = dtypes.as_dtype(lookup_key_dtype) if lookup_key_dtype is not None else initializer.key_dtype
        if key_dtype.is_integer != initializer.key_dtype.is_integer:
            raise TypeError(f"Invalid `key_dtype`, expected {initializer.key_dtype!r} but got {key_dtype!r}.")
        self._key_dtype = key_dtype
        self._value_dtype = dtypes.int64
        self._table = StaticHashTable(initializer, -1, name=name)
        self._name = self._table.name
        self._resource_handle, self._init_op = self._table.resource_handle, self._table.initializer

    def size(self, name=None):
        """The vocabulary size plus ``num_oov_buckets`` (int64)."""
        from dflow.ops.math.math_ops import add

        with name_scope(name, f"{self._name}_Size"):
            return add(self._table.size(), self._num_oov_buckets, name="add")

    def lookup(self, keys, name=None):
        """The id of each of ``keys`` (a Tensor or SparseTensor)."""
        from dflow.ops.array.select_ops import where_v2
        from dflow.ops.math.math_ops import add, cast, not_equal
        from dflow.ops.strings.string_ops import as_string, string_to_hash_bucket_fast

        values = _check_keys(keys, self._key_dtype)
        with name_scope(name, f"{self._name}_Lookup"):
            if values.dtype.is_integer and values.dtype is not dtypes.int64:
                values = cast(values, dtypes.int64)
            text = as_string(values) if values.dtype.is_integer else values
            buckets = string_to_hash_bucket_fast(text, self._num_oov_buckets, name="hash_bucket")
            ids = self._table.lookup(values)
            buckets = add(buckets, self._table.size())
            out = where_v2(not_equal(ids, self._table.default_value), ids, buckets, name="SelectV2")
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, out, keys.dense_shape)
        return out
