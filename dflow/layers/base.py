"""``tf.layers.Layer`` (TF1's ``tf.compat.v1.layers``): a callable that owns variables in its
own variable scope.

The contract TF1 scripts rely on, as TF 2.15's legacy layers keep it:

* a layer's ``name`` is the given one, or its class name in snake case made unique in the graph
  (``dense``, ``dense_1``, ...); its variable scope is opened on the first call, as
  ``variable_scope(None, default_name=name)`` (so ``dense_1`` again when the enclosing scope
  already holds ``dense``), or exactly ``name`` when the layer was made with ``_reuse=True``;
* ``build`` runs once, on the first call, with the input's static shape; variables come from
  ``tf.get_variable`` in the layer's scope (``dense/kernel``), their ops and the call's ops in
  the scope's name scope (``dense/MatMul``); later calls reuse the variables;
* ``trainable=False`` keeps the variables out of ``TRAINABLE_VARIABLES``; a weight's
  ``regularizer`` loss goes to ``REGULARIZATION_LOSSES`` (built under ``<name>/Regularizer``);
  the updates a call makes (batch norm's moving averages) go to ``UPDATE_OPS``.
"""

from __future__ import annotations

import re

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import GraphKeys, Tensor, get_default_graph, name_scope
from dflow.framework.object_names import unique_layer_name
from dflow.framework.tensor_shape import TensorShape
from dflow.ops.state.variable_scope import get_variable, variable_scope


def to_snake_case(name: str) -> str:
    """Keras' ``to_snake_case``: ``Conv2DTranspose`` → ``conv2d_transpose``."""
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return insecure if insecure[0] != "_" else "private" + insecure


@tf_export("layers.InputSpec")
class InputSpec:
    """What a layer accepts: ``dtype``, ``shape``, ``ndim``, ``max_ndim``, ``min_ndim`` and
    ``axes`` (``{axis: size}``), checked on every call."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None,
                 allow_last_axis_squeeze=False, name=None):
        self.dtype = dtypes.as_dtype(dtype).name if dtype is not None else None
        self.shape = tuple(shape) if shape is not None else None
        self.ndim = len(shape) if shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.name = name
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.axes = {int(k): v for k, v in (axes or {}).items()}
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            top = (self.ndim or self.max_ndim) - 1
            if max(self.axes) > top:
                raise ValueError(f"Axis {max(self.axes)} is greater than the maximum allowed value: {top}")

    def __repr__(self):
        spec = [f"dtype={self.dtype}" if self.dtype else "", f"shape={self.shape}" if self.shape else "",
                f"ndim={self.ndim}" if self.ndim is not None else "",
                f"max_ndim={self.max_ndim}" if self.max_ndim is not None else "",
                f"min_ndim={self.min_ndim}" if self.min_ndim is not None else "",
                f"axes={self.axes}" if self.axes else ""]
        return f"InputSpec({', '.join(x for x in spec if x)})"

    def get_config(self) -> dict:
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim, "max_ndim": self.max_ndim,
                "min_ndim": self.min_ndim, "axes": self.axes}

    def check(self, x: Tensor, layer_name: str) -> None:
        """ValueError (Keras' wording) unless ``x`` fits this spec."""
        shape = x.shape
        rank = shape.ndims
        where = f'Input 0 of layer "{layer_name}" is incompatible with the layer: '
        if self.ndim is not None and rank is not None and rank != self.ndim:
            raise ValueError(f"{where}expected ndim={self.ndim}, found ndim={rank}. Full shape received: "
                             f"{tuple(shape.as_list())}")
        if self.max_ndim is not None and rank is not None and rank > self.max_ndim:
            raise ValueError(f"{where}expected max_ndim={self.max_ndim}, found ndim={rank}")
        if self.min_ndim is not None and rank is not None and rank < self.min_ndim:
            raise ValueError(f"{where}expected min_ndim={self.min_ndim}, found ndim={rank}. Full shape received: "
                             f"{tuple(shape.as_list())}")
        if self.axes and rank is not None:
            dims = shape.as_list()
            for axis, value in self.axes.items():
                if value is not None and dims[axis] not in (value, None):
                    raise ValueError(f"{where}expected axis {axis} of input shape to have value {value}, but "
                                     f"received input with shape {tuple(dims)}")
        if self.shape is not None and rank is not None:
            for want, got in zip(self.shape, shape.as_list()):
                if want is not None and got is not None and want != got:
                    raise ValueError(f"{where}expected shape={self.shape}, found shape={tuple(shape.as_list())}")


@tf_export("layers.Layer")
class Layer:
    """The base of TF1's layers: subclasses define ``build(input_shape)`` (creating weights with
    ``add_weight``) and ``call(inputs, ...)``.

    >>> import dflow as tf
    >>> x = tf.placeholder(tf.float32, [None, 3])
    >>> layer = tf.layers.Dense(2)
    >>> y = layer(x)
    >>> [v.name for v in layer.variables]
    ['dense/kernel:0', 'dense/bias:0']
    """

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        scope = kwargs.pop("_scope", None)
        self._reuse = kwargs.pop("_reuse", None)
        self._activity_regularizer = kwargs.pop("activity_regularizer", None)
        for key in ("input_shape", "batch_input_shape", "batch_size", "weights", "autocast", "dynamic"):
            kwargs.pop(key, None)
        if kwargs:
            raise TypeError(f"Keyword argument not understood: {sorted(kwargs)[0]!r}")
        self._trainable = bool(trainable)
        self.built = False
        self.input_spec = None
        self.supports_masking = False
        self._dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        self._trainable_weights: list = []
        self._non_trainable_weights: list = []
        self._updates: list = []
        self._losses: list = []
        self._init_set_name(name)
        self._current_scope = None
        self._name_scope_name = None
        self._scope = None
        if scope:
            with variable_scope(scope) as captured:
                self._scope = captured
                self._name_scope_name = captured.original_name_scope

    def _init_set_name(self, name) -> None:
        base = to_snake_case(type(self).__name__)
        if name:
            self._name = self._base_name = name
        else:
            self._name, self._base_name = unique_layer_name(base), base

    # -- properties ----------------------------------------------------------------------------

    name = property(lambda self: self._name)

    @property
    def dtype(self):
        return self._dtype.name if self._dtype is not None else None

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value) -> None:
        self._trainable = bool(value)

    @property
    def scope_name(self) -> str:
        if self._scope is None:
            raise ValueError(f'No name available for layer scope because the layer "{self._name}" has not been '
                             f"used yet. The scope name  is determined the first time the layer instance is called. "
                             f"You must therefore call the layer before querying `scope_name`.")
        return self._scope.name

    @property
    def trainable_weights(self) -> list:
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self) -> list:
        if self.trainable:
            return list(self._non_trainable_weights)
        return list(self._trainable_weights) + list(self._non_trainable_weights)

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    @property
    def weights(self) -> list:
        return self.trainable_weights + self.non_trainable_weights

    variables = weights

    @property
    def updates(self) -> list:
        return list(self._updates) if self.trainable else []

    @property
    def losses(self) -> list:
        return list(self._losses)

    def get_weights(self) -> list:
        """The weights' values, read in the default session (as Keras' backend does in TF1)."""
        return _default_session("get_weights").run(self.weights)

    def set_weights(self, weights) -> None:
        """Assigns ``weights`` (arrays, in ``self.weights`` order) in the default session."""
        params = self.weights
        if len(weights) != len(params):
            raise ValueError(f'You called `set_weights(weights)` on layer "{self._name}" with a weight list of length '
                             f"{len(weights)}, but the layer was expecting {len(params)} weights.")
        sess = _default_session("set_weights")
        for variable, value in zip(params, weights):
            variable.load(np.asarray(value), sess)

    # -- building --------------------------------------------------------------------------------

    def _set_scope(self, scope=None) -> None:
        if self._scope is None:
            if self._reuse:
                ctx = variable_scope(scope if scope is not None else self._base_name)
            else:
                ctx = variable_scope(scope, default_name=self._base_name)
            with ctx as captured:
                self._scope = captured
                self._name_scope_name = captured.original_name_scope

    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None, trainable=None,
                   constraint=None, use_resource=None, synchronization=None, aggregation=None, partitioner=None,
                   **kwargs):
        """Creates (or, on reuse, gets) the variable ``<scope>/<name>`` with ``tf.get_variable``."""
        for key in kwargs:
            if key != "experimental_autocast":
                raise TypeError("Unknown keyword argument:", key)
        trainable = True if trainable is None else trainable
        dtype = dtypes.as_dtype(dtype or self._dtype or dtypes.float32)
        graph = get_default_graph()
        existing = set(graph.get_collection(GraphKeys.GLOBAL_VARIABLES))
        self._set_scope(None)
        reuse = True if self.built else self._reuse
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            with name_scope(self._name_scope_name):
                variable = get_variable(name, shape=shape, dtype=dtype,
                                        initializer=initializer if initializer is not None else scope.initializer,
                                        trainable=trainable and self.trainable, constraint=constraint,
                                        use_resource=use_resource)
                if regularizer is not None and variable not in existing:
                    with name_scope(f"{name}/Regularizer"):
                        loss = regularizer(variable)
                    if loss is not None:
                        self._losses.append(loss)
                        _add_to_collection(GraphKeys.REGULARIZATION_LOSSES, [loss])
        if trainable and self.trainable:
            if variable not in self._trainable_weights:
                self._trainable_weights.append(variable)
        elif variable not in self._non_trainable_weights:
            self._non_trainable_weights.append(variable)
        return variable

    add_variable = add_weight

    def add_update(self, updates, inputs=None) -> None:
        """Records ``updates`` (ops or tensors, or callables making them) to run with training."""
        for u in updates if isinstance(updates, (list, tuple)) else [updates]:
            u = u() if callable(u) else u
            self._updates.append(u.op if isinstance(u, Tensor) else u)  # TF1's UPDATE_OPS holds ops

    def add_loss(self, losses, inputs=None) -> None:
        """Records ``losses`` and adds them to ``REGULARIZATION_LOSSES`` (TF1's legacy layers do)."""
        new = [loss() if callable(loss) else loss for loss in (losses if isinstance(losses, (list, tuple))
                                                                else [losses])]
        new = [loss for loss in new if loss is not None]
        self._losses.extend(new)
        _add_to_collection(GraphKeys.REGULARIZATION_LOSSES, new)

    def build(self, input_shape) -> None:
        self.built = True

    def call(self, inputs, **kwargs):
        return inputs

    def compute_output_shape(self, input_shape):
        raise NotImplementedError(f"{type(self).__name__}.compute_output_shape")

    # -- calling ---------------------------------------------------------------------------------

    def __call__(self, inputs, *args, **kwargs):
        scope = kwargs.pop("scope", None)
        self._set_scope(scope)
        inputs = _as_tensors(inputs)
        first = _first_tensor(inputs)
        if self._dtype is None and first is not None:
            self._dtype = first.dtype.base_dtype if first.dtype.is_floating else dtypes.float32
        reuse = True if self.built else self._reuse
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as vs:
            self._current_scope = vs
            with name_scope(self._name_scope_name):
                if self.input_spec is not None and first is not None:
                    self.input_spec.check(first, self._name)
                if not self.built:
                    shapes = first.shape if isinstance(inputs, Tensor) else [t.shape for t in inputs]
                    self.build(shapes)
                    self.built = True
                    if self.input_spec is not None and first is not None:
                        self.input_spec.check(first, self._name)
                before = len(self._updates)
                outputs = self.call(inputs, *args, **kwargs)
                if outputs is None:
                    raise ValueError(f"A layer's `call` method should return a Tensor or a list of Tensors, not "
                                     f"None (layer: {self._name}).")
                if self._activity_regularizer is not None:
                    self._add_activity_losses(outputs)
        _add_to_collection(GraphKeys.UPDATE_OPS, self._updates[before:])
        return outputs

    def _add_activity_losses(self, outputs) -> None:
        """Keras' rule: the regularizer of each output, divided by the batch size."""
        from dflow.ops.array.shape_ops import shape
        from dflow.ops.math import math_ops

        with name_scope("ActivityRegularizer"):
            for output in outputs if isinstance(outputs, (list, tuple)) else [outputs]:
                loss = convert_to_tensor(self._activity_regularizer(output))
                self.add_loss(loss / math_ops.cast(shape(output)[0], loss.dtype))

    def apply(self, inputs, *args, **kwargs):
        """``self(inputs, ...)`` (TF1's alias)."""
        return self(inputs, *args, **kwargs)

    def count_params(self) -> int:
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on layer {self._name}, but the layer isn't built.")
        return int(sum(np.prod(v.shape.as_list()) for v in self.weights))

    def get_config(self) -> dict:
        return {"name": self._name, "trainable": self.trainable, "dtype": self.dtype}


def _default_session(what: str):
    from dflow.framework.graph import get_default_session

    sess = get_default_session()
    if sess is None:
        raise ValueError(f"Layer.{what} needs a default session: call it inside `with tf.Session() as sess:` "
                         f"or `with sess.as_default():`")
    return sess


def _add_to_collection(key: str, items) -> None:
    graph = get_default_graph()
    ref = graph.get_collection_ref(key)
    for item in items:
        if item not in ref:
            ref.append(item)


def _as_tensors(inputs):
    if isinstance(inputs, (list, tuple)):
        return type(inputs)(_as_tensors(x) for x in inputs)
    if isinstance(inputs, Tensor) or hasattr(inputs, "_as_graph_element") or inputs is None:
        return inputs
    return convert_to_tensor(inputs)


def _first_tensor(inputs):
    if isinstance(inputs, (list, tuple)):
        return next((t for t in inputs if isinstance(t, Tensor)), None)
    return inputs if isinstance(inputs, Tensor) else None


def static_dims(shape) -> list:
    """A ``TensorShape``'s dimensions as a list (ints or None)."""
    return TensorShape(shape).as_list()
