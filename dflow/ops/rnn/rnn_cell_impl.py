"""``tf.nn.rnn_cell.RNNCell``: the base of TF1's recurrent cells (the cells
are in ``rnn_cells``, the wrappers in ``rnn_cell_wrappers``).

A cell maps ``(inputs, state)`` to ``(output, new_state)`` for one time step.
As TF1's (where cells are ``tf.layers`` layers), a cell picks its variable
scope on its first call: the scope given, else a new one named after the
class under the current variable scope (``rnn/basic_lstm_cell``, then
``basic_lstm_cell_1`` for another cell), and creates its weights there
(``build``); every later call reuses them. So variable names are TF1's:
``rnn/basic_lstm_cell/kernel``, ``.../gru_cell/gates/kernel``,
``.../multi_rnn_cell/cell_0/lstm_cell/projection/kernel``, and checkpoints
written by TF1 restore. ``dynamic_rnn`` makes that first call inside its
loop body; the weights are still created in the enclosing graph (see
``variable_scope``).

>>> import dflow as tf
>>> cell = tf.nn.rnn_cell.BasicLSTMCell(4)
>>> out, state = cell(tf.zeros([2, 3]), cell.zero_state(2, tf.float32))
>>> [v.name for v in cell.variables]
['basic_lstm_cell/kernel:0', 'basic_lstm_cell/bias:0']
"""

from __future__ import annotations

import inspect
import re

from dflow import _api
from dflow._api import tf_export
from dflow.framework import dtypes, nest
from dflow.framework.constant_op import constant
from dflow.framework.graph import Tensor, get_default_graph, name_scope
from dflow.framework.object_names import unique_layer_name
from dflow.framework.op_registry import constant_value
from dflow.framework.tensor_shape import TensorShape, as_shape
from dflow.ops.array import array_ops, creation_ops, shape_ops
from dflow.ops.math import unary_math_ops
from dflow.ops.state.partitioned_variables import PartitionedVariable
from dflow.ops.state.variable_scope import get_variable, get_variable_scope, variable_scope


def _snake_case(name: str) -> str:
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    s = re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()
    return "private" + s if s[0] == "_" else s


def _unique_layer_name(base: str) -> str:
    """The per-graph layer names TF 2.15 gives cells: ``lstm_cell_1``, ``lstm_cell_2``, ... (its
    Keras base picks a name twice, so the first is ``_1``)."""
    return unique_layer_name(base)  # one counter per graph for cells and tf.layers, as Keras's


def _activation(activation):
    """``None`` is tanh; a string names a TF activation (``"relu"``), as Keras's ``activations.get``."""
    if not activation:
        return unary_math_ops.tanh
    if callable(activation):
        return activation
    if activation == "linear":
        return lambda x: x
    exports = _api.exported_names()
    for key in (f"nn.{activation}", f"math.{activation}", activation):
        fn = exports.get(key)
        if callable(fn):
            return fn
    raise ValueError(f"Unknown activation function: '{activation}'. Please ensure you are using a "
                     f"keras.utils.custom_object_scope and that this object is included in the scope.")


def _check_supported_dtypes(dtype) -> None:
    if dtype is None:
        return
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_complex):
        raise ValueError(f"RNN cell only supports floating point inputs, but received dtype: {dtype!r}")


def _check_rnn_cell_input_dtypes(inputs) -> None:
    for t in nest.flatten(inputs):
        _check_supported_dtypes(t.dtype)


def _concat(prefix, suffix, static: bool = False):
    """``[batch] + size`` as a 1-D int32 tensor, or (``static``) a list with ``None`` for unknowns.

    ``prefix`` and ``suffix`` are each an int, a TensorShape/list or a scalar/vector Tensor.
    """
    def parts(x, what):
        if isinstance(x, Tensor):
            value = constant_value(x)
            if x.shape.ndims == 0:
                return shape_ops.expand_dims(x, 0), None if value is None else [int(value)]
            if x.shape.ndims != 1:
                raise ValueError(f"{what} tensor must be either a scalar or vector, but received tensor: {x}")
            return x, None if value is None else [int(v) for v in value]
        shape = as_shape(x)
        listed = shape.as_list() if shape.ndims is not None else None
        tensor = constant(listed, dtype=dtypes.int32) if shape.is_fully_defined() else None
        return tensor, listed

    p, p_static = parts(prefix, "Prefix")
    s, s_static = parts(suffix, "suffix")
    if static:
        shape = TensorShape(p_static).concatenate(TensorShape(s_static))
        return shape.as_list() if shape.ndims is not None else None
    if p is None or s is None:
        raise ValueError(f"Prefix or suffix can't be None. Received prefix = {prefix} and suffix = {suffix}")
    return array_ops.concat((p, s), 0)


def _zero_state_tensors(state_size, batch_size, dtype):
    """Zeros of shape ``[batch_size] + s`` for each ``s`` of the (nested) ``state_size``."""
    def zeros_for(s):
        z = creation_ops.zeros(_concat(batch_size, s), dtype=dtype)
        z.set_shape(_concat(batch_size, s, static=True))
        return z

    return nest.map_structure(zeros_for, state_size)


def _hasattr(obj, name: str) -> bool:
    try:
        getattr(obj, name)
    except AttributeError:
        return False
    return True


def assert_like_rnncell(cell_name: str, cell) -> None:
    """TypeError unless ``cell`` has output_size, state_size, zero_state and is callable."""
    conditions = [_hasattr(cell, "output_size"), _hasattr(cell, "state_size"),
                  _hasattr(cell, "get_initial_state") or _hasattr(cell, "zero_state"), callable(cell)]
    errors = ["'output_size' property is missing", "'state_size' property is missing",
              "either 'zero_state' or 'get_initial_state' method is required", "is not callable"]
    if not all(conditions):
        missing = [e for e, ok in zip(errors, conditions) if not ok]
        raise TypeError(f"The argument {cell_name!r} ({cell}) is not an RNNCell: {', '.join(missing)}.")


@tf_export("nn.rnn_cell.RNNCell")
class RNNCell:
    """The abstract recurrent cell.

    Subclasses give ``state_size``, ``output_size`` and
    ``call(inputs, state) -> (output, new_state)``, creating variables in
    ``build`` (with ``add_weight``) or in ``call`` (with ``tf.get_variable``;
    later calls reuse them).
    """

    # Class defaults, so that subclasses written for TF1 without a super().__init__() call work.
    built = False
    _scope = None
    _rnncell_scope = None
    _current_scope = None
    _reuse = None
    _dtype = None
    _trainable = True
    _input_ndim = None

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        self._reuse = kwargs.pop("_reuse", None)
        scope = kwargs.pop("_scope", None)
        kwargs.pop("autocast", None)
        if kwargs:
            raise TypeError(f"Keyword argument not understood: {', '.join(sorted(kwargs))}")
        self._trainable = trainable
        self._dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        self._base_name = name or _snake_case(type(self).__name__)
        self._name = name or _unique_layer_name(self._base_name)
        self._trainable_weights: list = []
        self._non_trainable_weights: list = []
        self.built = False
        if scope:
            with variable_scope(scope) as captured:
                self._scope = captured

    # -- what a cell is ---------------------------------------------------------------
    @property
    def state_size(self):
        """int, TensorShape or a nested tuple of them: the state's size(s), batch excluded."""
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        """int or TensorShape: the output's size, batch excluded."""
        raise NotImplementedError("Abstract method")

    def build(self, _):
        """Creates the cell's variables, given the input's shape (first call only)."""

    def call(self, inputs, state):
        raise NotImplementedError(f"{type(self).__name__} must implement call(inputs, state) or __call__")

    # -- layer properties ---------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.__dict__.get("_name") or _snake_case(type(self).__name__)

    @property
    def dtype(self):
        return self._dtype

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._trainable = bool(value)

    @property
    def scope_name(self) -> str:
        if not self._scope:
            raise ValueError(f'No name available for layer scope because the layer "{self.name}" has not been used '
                             f'yet. The scope name  is determined the first time the layer instance is called. You '
                             f'must therefore call the layer before querying `scope_name`.')
        return self._scope.name

    def _weight_lists(self) -> tuple:
        d = self.__dict__
        return d.setdefault("_trainable_weights", []), d.setdefault("_non_trainable_weights", [])

    @property
    def trainable_weights(self) -> list:
        trainable, _ = self._weight_lists()
        return list(trainable) if self.trainable else []

    @property
    def non_trainable_weights(self) -> list:
        trainable, frozen = self._weight_lists()
        return list(frozen) if self.trainable else list(trainable) + list(frozen)

    @property
    def weights(self) -> list:
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = property(lambda self: self.trainable_weights)
    non_trainable_variables = property(lambda self: self.non_trainable_weights)
    variables = property(lambda self: self.weights)

    def _track(self, variable, trainable: bool) -> None:
        trainable_list, frozen = self._weight_lists()
        target = trainable_list if trainable else frozen
        if all(variable is not v for v in target):
            target.append(variable)

    def get_config(self) -> dict:
        return {"name": self.name, "trainable": self.trainable, "dtype": self._dtype.name if self._dtype else None}

    # -- states -------------------------------------------------------------------------
    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        if inputs is not None:
            from dflow.framework.constant_op import convert_to_tensor

            inputs = convert_to_tensor(inputs, name="inputs")
            static_batch = inputs.shape.as_list()[0] if inputs.shape.ndims else None
            if batch_size is not None:
                given = constant_value(batch_size) if isinstance(batch_size, Tensor) else batch_size
                if static_batch != given:
                    raise ValueError(f"batch size from input tensor is different from the input param. Input tensor "
                                     f"batch: {static_batch}, batch_size: {batch_size}")
            if dtype is not None and inputs.dtype != dtypes.as_dtype(dtype):
                raise ValueError(f"dtype from input tensor is different from the input param. Input tensor dtype: "
                                 f"{inputs.dtype.name}, dtype: {dtypes.as_dtype(dtype).name}")
            batch_size = static_batch or shape_ops.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError(f"batch_size and dtype cannot be None while constructing initial state: "
                             f"batch_size={batch_size}, dtype={dtype}")
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size, dtype):
        """Zeros of shape ``[batch_size, s]`` for each size ``s`` of ``state_size`` (nested as it)."""
        with name_scope(type(self).__name__ + "ZeroState"):
            return _zero_state_tensors(self.state_size, batch_size, dtypes.as_dtype(dtype))

    # -- calling ------------------------------------------------------------------------
    def __call__(self, inputs, state, scope=None):
        """Runs the cell for one step: ``(output, new_state)``, in ``scope`` if given (else a scope
        picked on the first call, as TF1)."""
        if scope is not None:
            with variable_scope(scope, custom_getter=self._rnn_get_variable) as scope:
                return self._layer_call(inputs, state, scope=scope)
        if self._rnncell_scope is None:
            self._rnncell_scope = get_variable_scope()
        with variable_scope(self._rnncell_scope, custom_getter=self._rnn_get_variable):
            return self._layer_call(inputs, state)

    def _rnn_get_variable(self, getter, *args, **kwargs):
        variable = getter(*args, **kwargs)
        self._track(variable, variable in get_default_graph().get_collection("trainable_variables"))
        return variable

    def _set_scope(self, scope=None) -> None:
        if self._scope is None:
            if self._reuse:
                with variable_scope(scope if scope is not None else self._base_name) as captured:
                    self._scope = captured
            else:
                with variable_scope(scope, default_name=self._base_name) as captured:
                    self._scope = captured

    @property
    def _base_name(self) -> str:
        return self.__dict__.get("_base_name_") or _snake_case(type(self).__name__)

    @_base_name.setter
    def _base_name(self, value: str) -> None:
        self.__dict__["_base_name_"] = value

    def _layer_call(self, inputs, state, scope=None):
        """``tf.layers.Layer.__call__``: in the cell's scope (reusing after the first call), build, then call."""
        self._set_scope(scope)
        with variable_scope(self._scope, reuse=True if self.built else self._reuse,
                            auxiliary_name_scope=False) as vs:
            self._current_scope = vs
            with name_scope(vs.original_name_scope or None):
                if not self.built:
                    self._check_inputs(inputs)
                    flat = [t for t in nest.flatten(inputs) if isinstance(t, Tensor)]
                    if self._dtype is None and flat:
                        self._dtype = flat[0].dtype.base_dtype
                    shapes = nest.map_structure(lambda t: t.shape if isinstance(t, Tensor) else None, inputs)
                    self.build(shapes)
                    self.built = True
                kwargs = {"scope": vs} if "scope" in inspect.signature(self.call).parameters else {}
                outputs = self.call(inputs, state, **kwargs)
        if outputs is None:
            raise ValueError(f"A layer's `call` method should return a Tensor or a list of Tensors, not None "
                             f"(layer: {self.name}).")
        return outputs

    def _check_inputs(self, inputs) -> None:
        if self._input_ndim is None:
            return
        x = nest.flatten(inputs)[0]
        if x.shape.ndims is not None and x.shape.ndims != self._input_ndim:
            dims = tuple(x.shape.as_list())
            raise ValueError(f'Input 0 of layer "{self.name}" is incompatible with the layer: expected '
                             f'ndim={self._input_ndim}, found ndim={x.shape.ndims}. Full shape received: {dims}')

    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None, trainable=None,
                   constraint=None, use_resource=None, partitioner=None, **kwargs):
        """Creates (first build) or gets the variable ``name`` in the cell's scope."""
        trainable = True if trainable is None else trainable
        dtype = dtypes.as_dtype(dtype or self._dtype or dtypes.float32)
        self._set_scope(None)
        with variable_scope(self._scope, reuse=self.built or self._reuse, auxiliary_name_scope=False) as vs:
            self._current_scope = vs
            with name_scope(vs.original_name_scope or None):
                variable = get_variable(name, shape=shape, dtype=dtype,
                                        initializer=initializer if initializer is not None else vs.initializer,
                                        regularizer=regularizer, trainable=trainable and self.trainable,
                                        constraint=constraint, use_resource=use_resource, partitioner=partitioner)
        for part in (variable if isinstance(variable, PartitionedVariable) else [variable]):
            self._track(part, trainable and self.trainable)
        return variable


class LayerRNNCell(RNNCell):
    """A cell that creates its variables in ``build`` (with ``add_weight``), as a ``tf.layers`` layer."""

    def __call__(self, inputs, state, scope=None):
        return self._layer_call(inputs, state, scope=scope)
