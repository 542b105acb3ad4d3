"""``tf.nn.rnn_cell``: TF1's recurrent cells (``RNNCell``, ``BasicRNNCell``,
``GRUCell``, ``BasicLSTMCell``, ``LSTMCell``, ``MultiRNNCell``) and
``LSTMStateTuple``; the wrappers are in ``rnn_cell_wrappers``.

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

import collections
import inspect
import re

from dflow import _api
from dflow._api import tf_export
from dflow.framework import dtypes, nest
from dflow.framework.graph import Tensor, get_default_graph, name_scope
from dflow.framework.tensor_shape import TensorShape, as_shape
from dflow.ops import (
    array_ops,
    creation_ops,
    init_ops,
    linalg_ops,
    math_ops,
    nn_ops,
    shape_ops,
    slicing_ops,
    unary_math_ops,
)
from dflow.ops.constant_op import constant
from dflow.ops.registry import constant_value
from dflow.ops.variable_scope import get_variable, get_variable_scope, variable_scope

_BIAS = "bias"
_KERNEL = "kernel"


def _snake_case(name: str) -> str:
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    s = re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()
    return "private" + s if s[0] == "_" else s


def _unique_layer_name(base: str) -> str:
    """The per-graph layer names TF 2.15 gives cells: ``lstm_cell_1``, ``lstm_cell_2``, ... (its
    Keras base picks a name twice, so the first is ``_1``)."""
    counts = get_default_graph()._attachments.setdefault("layer_name_counts", {})
    counts[base] = counts.get(base, 0) + 1
    return f"{base}_{counts[base]}"


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
    """The abstract recurrent cell: subclasses give ``state_size``, ``output_size`` and
    ``call(inputs, state) -> (output, new_state)``, creating variables in ``build`` (with
    ``add_weight``) or in ``call`` (with ``tf.get_variable``; later calls reuse them).
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
            from dflow.ops.constant_op import convert_to_tensor

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
        if partitioner is not None:
            raise NotImplementedError(f"{type(self).__name__}.add_weight: partitioned variables are not supported "
                                      f"by dflow")
        trainable = True if trainable is None else trainable
        dtype = dtypes.as_dtype(dtype or self._dtype or dtypes.float32)
        self._set_scope(None)
        with variable_scope(self._scope, reuse=self.built or self._reuse, auxiliary_name_scope=False) as vs:
            self._current_scope = vs
            with name_scope(vs.original_name_scope or None):
                variable = get_variable(name, shape=shape, dtype=dtype,
                                        initializer=initializer if initializer is not None else vs.initializer,
                                        regularizer=regularizer, trainable=trainable and self.trainable,
                                        constraint=constraint, use_resource=use_resource)
        self._track(variable, trainable and self.trainable)
        return variable


class LayerRNNCell(RNNCell):
    """A cell that creates its variables in ``build`` (with ``add_weight``), as a ``tf.layers`` layer."""

    def __call__(self, inputs, state, scope=None):
        return self._layer_call(inputs, state, scope=scope)


def _as_units(num_units, what: str) -> int:
    if isinstance(num_units, bool) or not isinstance(num_units, int) or num_units <= 0:
        try:
            value = int(num_units)
        except (TypeError, ValueError):
            value = None
        if value is None or value <= 0 or value != num_units:
            raise ValueError(f"{what} must be a positive integer, got {num_units!r}")
        return value
    return num_units


def _input_depth(cell, inputs_shape) -> int:
    """The input's last dimension, which ``build`` needs known; checks the cell's dtype too."""
    _check_supported_dtypes(cell.dtype)
    dims = as_shape(inputs_shape).as_list() if as_shape(inputs_shape).ndims else [None]
    if dims[-1] is None:
        raise ValueError(f"Expected inputs.shape[-1] to be known, received shape: {tuple(dims)}")
    return dims[-1]


@tf_export("nn.rnn_cell.BasicRNNCell")
class BasicRNNCell(LayerRNNCell):
    """``output = new_state = activation(W [inputs, state] + b)``."""

    _input_ndim = 2

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self._num_units = _as_units(num_units, "num_units")
        self._activation = _activation(activation)

    state_size = property(lambda self: self._num_units)
    output_size = property(lambda self: self._num_units)

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        self._kernel = self.add_weight(_KERNEL, shape=[depth + self._num_units, self._num_units])
        self._bias = self.add_weight(_BIAS, shape=[self._num_units], initializer=init_ops.zeros_initializer())
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = linalg_ops.matmul(array_ops.concat([inputs, state], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        output = self._activation(gate_inputs)
        return output, output


@tf_export("nn.rnn_cell.GRUCell")
class GRUCell(LayerRNNCell):
    """Gated recurrent unit: ``gates/`` (reset, update) and ``candidate/`` weights, as TF1's."""

    _input_ndim = 2

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None, bias_initializer=None,
                 name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self._num_units = _as_units(num_units, "num_units")
        self._activation = _activation(activation)
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    state_size = property(lambda self: self._num_units)
    output_size = property(lambda self: self._num_units)

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        n = self._num_units
        bias_init = self._bias_initializer
        self._gate_kernel = self.add_weight(f"gates/{_KERNEL}", shape=[depth + n, 2 * n],
                                            initializer=self._kernel_initializer)
        self._gate_bias = self.add_weight(f"gates/{_BIAS}", shape=[2 * n], initializer=(
            bias_init if bias_init is not None else init_ops.constant_initializer(1.0)))
        self._candidate_kernel = self.add_weight(f"candidate/{_KERNEL}", shape=[depth + n, n],
                                                 initializer=self._kernel_initializer)
        self._candidate_bias = self.add_weight(f"candidate/{_BIAS}", shape=[n], initializer=(
            bias_init if bias_init is not None else init_ops.zeros_initializer()))
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = linalg_ops.matmul(array_ops.concat([inputs, state], 1), self._gate_kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._gate_bias)
        value = unary_math_ops.sigmoid(gate_inputs)
        r, u = array_ops.split(value=value, num_or_size_splits=2, axis=1)
        r_state = r * state
        candidate = linalg_ops.matmul(array_ops.concat([inputs, r_state], 1), self._candidate_kernel)
        candidate = nn_ops.bias_add(candidate, self._candidate_bias)
        c = self._activation(candidate)
        new_h = u * state + (1 - u) * c
        return new_h, new_h


_LSTMStateTuple = collections.namedtuple("LSTMStateTuple", ("c", "h"))


@tf_export("nn.rnn_cell.LSTMStateTuple")
class LSTMStateTuple(_LSTMStateTuple):
    """An LSTM's state ``(c, h)``: the cell state and the output."""

    __slots__ = ()

    @property
    def dtype(self):
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent dtypes for internal state: {c.dtype.name} vs {h.dtype.name}")
        return c.dtype


def _lstm_state(state, state_is_tuple: bool, c_size: int, h_size: int):
    if state_is_tuple:
        c, h = state
        return c, h
    c = slicing_ops.slice(state, [0, 0], [-1, c_size])
    h = slicing_ops.slice(state, [0, c_size], [-1, h_size])
    return c, h


@tf_export("nn.rnn_cell.BasicLSTMCell")
class BasicLSTMCell(LayerRNNCell):
    """The basic LSTM: one ``kernel`` for the gates ``i, j, f, o`` (in that order), ``forget_bias``
    added to the forget gate; no peepholes, clipping or projection (see ``LSTMCell``)."""

    _input_ndim = 2

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self._num_units = _as_units(num_units, "num_units")
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)

    @property
    def state_size(self):
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    output_size = property(lambda self: self._num_units)

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        n = self._num_units
        self._kernel = self.add_weight(_KERNEL, shape=[depth + n, 4 * n])
        self._bias = self.add_weight(_BIAS, shape=[4 * n], initializer=init_ops.zeros_initializer())
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        one = constant(1, dtype=dtypes.int32)
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = array_ops.split(value=state, num_or_size_splits=2, axis=one)
        gate_inputs = linalg_ops.matmul(array_ops.concat([inputs, h], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        i, j, f, o = array_ops.split(value=gate_inputs, num_or_size_splits=4, axis=one)
        forget_bias = constant(self._forget_bias, dtype=f.dtype)
        sigmoid = unary_math_ops.sigmoid
        new_c = math_ops.add(math_ops.multiply(c, sigmoid(math_ops.add(f, forget_bias))),
                             math_ops.multiply(sigmoid(i), self._activation(j)))
        new_h = math_ops.multiply(self._activation(new_c), sigmoid(o))
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else array_ops.concat([new_c, new_h], 1)
        return new_h, new_state


@tf_export("nn.rnn_cell.LSTMCell")
class LSTMCell(LayerRNNCell):
    """The full LSTM: optional peepholes (``w_f_diag``, ``w_i_diag``, ``w_o_diag``), cell clipping,
    and a projection of the output to ``num_proj`` units (``projection/kernel``), clipped by
    ``proj_clip``."""

    _input_ndim = 2

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None, num_proj=None,
                 proj_clip=None, num_unit_shards=None, num_proj_shards=None, forget_bias=1.0, state_is_tuple=True,
                 activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        if num_unit_shards is not None or num_proj_shards is not None:
            raise NotImplementedError("LSTMCell: num_unit_shards and num_proj_shards split the weights into "
                                      "partitioned variables, which dflow does not have")
        self._num_units = _as_units(num_units, "num_units")
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)
        h = num_proj if num_proj else num_units
        self._state_size = LSTMStateTuple(num_units, h) if state_is_tuple else num_units + h
        self._output_size = h

    state_size = property(lambda self: self._state_size)
    output_size = property(lambda self: self._output_size)

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        n = self._num_units
        h_depth = n if self._num_proj is None else self._num_proj
        self._kernel = self.add_weight(_KERNEL, shape=[depth + h_depth, 4 * n], initializer=self._initializer)
        self._bias = self.add_weight(_BIAS, shape=[4 * n], initializer=init_ops.zeros_initializer())
        if self._use_peepholes:
            self._w_f_diag = self.add_weight("w_f_diag", shape=[n], initializer=self._initializer)
            self._w_i_diag = self.add_weight("w_i_diag", shape=[n], initializer=self._initializer)
            self._w_o_diag = self.add_weight("w_o_diag", shape=[n], initializer=self._initializer)
        if self._num_proj is not None:
            self._proj_kernel = self.add_weight(f"projection/{_KERNEL}", shape=[n, self._num_proj],
                                                initializer=self._initializer)
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        num_proj = self._num_units if self._num_proj is None else self._num_proj
        sigmoid = unary_math_ops.sigmoid
        c_prev, m_prev = _lstm_state(state, self._state_is_tuple, self._num_units, num_proj)
        shape = inputs.shape.with_rank(2)
        if shape.as_list()[1] is None:
            raise ValueError(f"Could not infer input size from inputs.get_shape()[-1].Received input shape: {shape}")
        lstm_matrix = linalg_ops.matmul(array_ops.concat([inputs, m_prev], 1), self._kernel)
        lstm_matrix = nn_ops.bias_add(lstm_matrix, self._bias)
        i, j, f, o = array_ops.split(value=lstm_matrix, num_or_size_splits=4, axis=1)
        if self._use_peepholes:
            c = (sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev
                 + sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = math_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = linalg_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = math_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else array_ops.concat([c, m], 1)
        return m, new_state


@tf_export("nn.rnn_cell.MultiRNNCell")
class MultiRNNCell(RNNCell):
    """Cells stacked in order: each one's output is the next one's input; cell ``i`` works in the
    variable scope ``cell_i``."""

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not nest.is_nested(cells):
            raise TypeError(f"cells must be a list or tuple, but received: {cells}.")
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(nest.is_nested(c.state_size) for c in self._cells):
            raise ValueError(f"Some cells return tuples of states, but the flag state_is_tuple is not set. State "
                             f"sizes are: {[c.state_size for c in self._cells]}")

    @property
    def state_size(self):
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return _zero_state_tensors(self.state_size, batch_size, dtypes.as_dtype(dtype))

    @property
    def trainable_weights(self) -> list:
        if not self.trainable:
            return []
        return [w for cell in self._cells if isinstance(cell, RNNCell) for w in cell.trainable_weights]

    @property
    def non_trainable_weights(self) -> list:
        weights = [w for cell in self._cells if isinstance(cell, RNNCell) for w in cell.non_trainable_weights]
        if not self.trainable:
            trainable = [w for cell in self._cells if isinstance(cell, RNNCell) for w in cell.trainable_weights]
            return trainable + weights
        return weights

    def call(self, inputs, state):
        cur_state_pos = 0
        cur_inp = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not nest.is_nested(state):
                        raise ValueError(f"Expected state to be a tuple of length {len(self.state_size)}, but "
                                         f"received: {state}")
                    cur_state = state[i]
                else:
                    cur_state = slicing_ops.slice(state, [0, cur_state_pos], [-1, cell.state_size])
                    cur_state_pos += cell.state_size
                cur_inp, new_state = cell(cur_inp, cur_state)
                new_states.append(new_state)
        new_states = tuple(new_states) if self._state_is_tuple else array_ops.concat(new_states, 1)
        return cur_inp, new_states
