"""``tf.layers.BatchNormalization`` and ``tf.layers.batch_normalization`` as Keras 2.15 builds
TF1's legacy layer in a graph:

* variables ``gamma`` (if ``scale``), ``beta`` (if ``center``), ``moving_mean`` and
  ``moving_variance`` (not trainable), shaped like the ``axis`` dimension;
* ``fused`` (the default where it can be: a float16/32 4-D input normalized over axis 1 or 3,
  5-D over 1 or 4) runs ``FusedBatchNormV3``; otherwise (even with ``fused=True``, as TF1's
  layer) ``nn.moments`` and ``nn.batch_normalization``;
* when ``training`` is true (a Python bool, or a boolean tensor), the batch's statistics
  normalize, and the updates ``moving -= (moving - batch) * (1 - momentum)`` (the batch
  variance with Bessel's correction in the fused path, without in the other, as TF's) are added
  to ``UPDATE_OPS``, in name scopes
  ``AssignMovingAvg`` and ``AssignMovingAvg_1``; with a tensor ``training`` the update's
  momentum is 1 (no change) when it is false. Without ``UPDATE_OPS`` run, the moving
  statistics stay put, as in TF1.

Keras' other options take the plain path, as in TF1:

* ``renorm`` (batch renormalization): ``moving_stddev``, ``renorm_mean`` and ``renorm_stddev``
  join the variables; while training, the normalized batch is corrected by ``r`` and ``d`` (no
  gradient through them, clipped by ``renorm_clipping``), the renorm statistics move with
  ``renorm_momentum`` and the moving variance is set from the moving standard deviation
  (``AssignNewValue``);
* ``virtual_batch_size`` (ghost batches): the batch is reshaped ``[virtual_batch_size, -1, ...]``
  (TF1's reshape: sub-batch ``j`` holds the rows ``i`` with ``i % (n / virtual_batch_size) == j``)
  and each column normalized over its own rows; the parameters get shape ``[1, 1, ..., C]`` and
  the moving statistics move by the mean over the sub-batches;
* ``adjustment(shape)`` returns a scale and a bias applied after normalizing, while training.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.graph import Tensor, colocate_with, name_scope
from dflow.framework.op_registry import constant_value
from dflow.framework.tensor_shape import TensorShape
from dflow.layers.base import InputSpec, Layer
from dflow.layers.core import smart_cond
from dflow.ops.math import math_ops
from dflow.ops.state.init_ops import ones_initializer, zeros_initializer


def _training_value(training):
    """``training`` as a Python bool when known at graph time, else None."""
    if isinstance(training, Tensor):
        value = constant_value(training)
        return None if value is None else bool(value)
    return bool(training)


@tf_export("layers.BatchNormalization")
class BatchNormalization(Layer):
    """Normalizes over the batch (and the other non-``axis`` dimensions) while training; by the
    moving statistics otherwise."""

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=zeros_initializer(), gamma_initializer=ones_initializer(),
                 moving_mean_initializer=zeros_initializer(), moving_variance_initializer=ones_initializer(),
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 renorm=False, renorm_clipping=None, renorm_momentum=0.99, fused=None, trainable=True,
                 virtual_batch_size=None, adjustment=None, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        if renorm:
            renorm_clipping = renorm_clipping or {}
            keys = ["rmax", "rmin", "dmax"]
            if set(renorm_clipping) - set(keys):
                raise ValueError(f"Received invalid keys for `renorm_clipping` argument: {renorm_clipping}. "
                                 f"Supported values: {keys}.")
        self.renorm_clipping = renorm_clipping
        self.renorm_momentum = renorm_momentum
        self.virtual_batch_size = virtual_batch_size
        self.adjustment = adjustment
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer
        self.gamma_initializer = gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.beta_regularizer = beta_regularizer
        self.gamma_regularizer = gamma_regularizer
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.renorm = renorm
        self.fused = True if fused is None else fused

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        rank = shape.ndims
        if rank is None:
            raise ValueError(f"Input has undefined rank. Received: input_shape={shape}.")
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        for a in axes:
            if a < -rank or a >= rank:
                raise ValueError(f"Invalid axis. Expected 0 <= axis < inputs.rank (with inputs.rank={rank}). "
                                 f"Received: axis={tuple(axes)}")
        self.axis = sorted(a + rank if a < 0 else a for a in axes)
        if len(set(self.axis)) != len(self.axis):
            raise ValueError(f"Duplicate axis: {tuple(self.axis)}")
        if self.virtual_batch_size is not None:
            if self.virtual_batch_size <= 0:
                raise ValueError("`virtual_batch_size` must be a positive integer that divides the true batch size "
                                 f"of the input tensor. Received: virtual_batch_size={self.virtual_batch_size}")
            if 0 in self.axis:
                raise ValueError("When using `virtual_batch_size`, the batch dimension must be 0 and thus axis "
                                 f"cannot include 0. Received axis={self.axis}")
            if self.adjustment is not None:
                raise ValueError("When using `virtual_batch_size`, adjustment cannot be specified")
        # TF1's layer (Keras' V1 behaviour) falls back to the plain path wherever the fused one cannot
        # run, even when asked for fused=True: other ranks, several axes, other axes, float64.
        formats = {(1, 4): "NCHW", (1, 5): "NCDHW", (3, 4): "NHWC", (4, 5): "NDHWC"}
        self._data_format = formats.get((self.axis[0], rank)) if len(self.axis) == 1 else None
        self.fused = bool(self.fused and self._data_format is not None
                          and self._dtype in (None, dtypes.float16, dtypes.float32)
                          and not self.renorm and self.virtual_batch_size is None and self.adjustment is None)
        dims = shape.as_list()
        axis_to_dim = {a: dims[a] for a in self.axis}
        if any(d is None for d in axis_to_dim.values()):
            raise ValueError(f"Input has undefined `axis` dimension. Received input with shape "
                             f"{tuple(dims)} and axis={tuple(self.axis)}")
        self.input_spec = InputSpec(ndim=rank, axes=axis_to_dim)
        if len(axis_to_dim) == 1 and self.virtual_batch_size is None:
            param_shape = [dims[self.axis[0]]]
        else:
            param_shape = [axis_to_dim.get(i, 1) for i in range(rank)]
            if self.virtual_batch_size is not None:  # the sub-batches' axis, after the batch's
                param_shape.insert(1, 1)
                self.axis = [a + 1 for a in self.axis]
        self._param_shape = param_shape
        param_dtype = dtypes.float32 if self._dtype in (None, dtypes.float16) else self._dtype
        self._param_dtype = param_dtype
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight("gamma", shape=param_shape, dtype=param_dtype,
                                         initializer=self.gamma_initializer, regularizer=self.gamma_regularizer,
                                         constraint=self.gamma_constraint, trainable=True)
        if self.center:
            self.beta = self.add_weight("beta", shape=param_shape, dtype=param_dtype,
                                        initializer=self.beta_initializer, regularizer=self.beta_regularizer,
                                        constraint=self.beta_constraint, trainable=True)
        self.moving_mean = self.add_weight("moving_mean", shape=param_shape, dtype=param_dtype,
                                           initializer=self.moving_mean_initializer, trainable=False)
        self.moving_variance = self.add_weight("moving_variance", shape=param_shape, dtype=param_dtype,
                                               initializer=self.moving_variance_initializer, trainable=False)
        if self.renorm:
            # The inference statistics track the standard deviation; the renorm ones are those that
            # training corrects towards (both start as the moving ones would).
            stddev_initializer = _sqrt_of(self.moving_variance_initializer)
            self.moving_stddev = self.add_weight("moving_stddev", shape=param_shape, dtype=param_dtype,
                                                 initializer=stddev_initializer, trainable=False)
            self.renorm_mean = self.add_weight("renorm_mean", shape=param_shape, dtype=param_dtype,
                                               initializer=self.moving_mean_initializer, trainable=False)
            self.renorm_stddev = self.add_weight("renorm_stddev", shape=param_shape, dtype=param_dtype,
                                                 initializer=stddev_initializer, trainable=False)
        self.built = True

    # -- the moving averages ------------------------------------------------------------------------

    def _assign_moving_average(self, variable, value, momentum):
        from dflow.ops.state.variables import assign_sub

        with name_scope("AssignMovingAvg") as scope:
            with colocate_with(variable):
                decay = math_ops.cast(1.0 - momentum, variable.dtype.base_dtype) if isinstance(momentum, Tensor) \
                    else _constant(1.0 - momentum, variable.dtype.base_dtype, "decay")
                delta = (variable - math_ops.cast(value, variable.dtype.base_dtype)) * decay
                return assign_sub(variable, delta, name=scope)

    def _assign_new_value(self, variable, value):
        from dflow.ops.state.variables import assign

        with name_scope("AssignNewValue") as scope:
            with colocate_with(variable):
                return assign(variable, value, name=scope)

    def _renorm_correction_and_moments(self, mean, variance, training):
        """``(r, d, mean, variance)``: the corrections towards the renorm statistics (as they were
        before this step; 1 and 0 when not training) and the batch's moments, which read only once
        the renorm statistics have moved."""
        from dflow.framework.graph import control_dependencies
        from dflow.ops.array.creation_ops import ones_like, zeros_like
        from dflow.ops.control_flow.control_flow_ops import identity
        from dflow.ops.math.unary_math_ops import sqrt

        stddev = sqrt(variance + self.epsilon)
        renorm_stddev = math_ops.maximum(self.renorm_stddev, sqrt(_constant(self.epsilon, stddev.dtype, "Const")))
        r = stddev / renorm_stddev
        d = (mean - self.renorm_mean) / renorm_stddev
        with control_dependencies([r, d]):
            mean = identity(mean)
            stddev = identity(stddev)
        rmin, rmax, dmax = (self.renorm_clipping.get(key) for key in ("rmin", "rmax", "dmax"))
        if rmin is not None:
            r = math_ops.maximum(r, rmin)
        if rmax is not None:
            r = math_ops.minimum(r, rmax)
        if dmax is not None:
            d = math_ops.maximum(d, -dmax)
            d = math_ops.minimum(d, dmax)
        r = smart_cond(training, lambda: r, lambda: ones_like(r))
        d = smart_cond(training, lambda: d, lambda: zeros_like(d))

        def update(variable, value):
            value = identity(value)
            return smart_cond(training, lambda: self._assign_moving_average(variable, value, self.renorm_momentum),
                              lambda: identity(variable))

        updated = [update(self.renorm_mean, mean), update(self.renorm_stddev, stddev)]
        with control_dependencies(updated):
            return r, d, identity(mean), identity(variance)

    def _add_updates(self, mean, variance, training):
        """The two updates of the plain path, under ``tf.cond`` where ``training`` is a tensor; with
        ``renorm`` the moving standard deviation moves and sets the moving variance."""
        from dflow.ops.math.unary_math_ops import sqrt
        from dflow.ops.nn.nn_activations import relu

        def variance_update():
            if not self.renorm:
                return self._assign_moving_average(self.moving_variance, variance, self.momentum)
            # The epsilon rides in the standard deviation, as in training; relu guards the rounding.
            stddev = self._assign_moving_average(self.moving_stddev, sqrt(variance + self.epsilon), self.momentum)
            return self._assign_new_value(self.moving_variance, relu(stddev * stddev - self.epsilon))

        self.add_update(smart_cond(training, lambda: self._assign_moving_average(self.moving_mean, mean,
                                                                                 self.momentum),
                                   lambda: _read(self.moving_mean)))
        self.add_update(smart_cond(training, variance_update, lambda: _read(self.moving_variance)))

    # -- calling -------------------------------------------------------------------------------------

    def _fused_call(self, inputs, training, training_value):
        from dflow.ops.nn.nn_norm_extra import fused_batch_norm

        gamma = self.gamma if self.scale else _constant(1.0, self._param_dtype, "Const", self._param_shape)
        beta = self.beta if self.center else _constant(0.0, self._param_dtype, "Const", self._param_shape)

        # FusedBatchNormV3's batch variance has Bessel's correction, and the moving variance gets it
        # so: Keras' ``_bessels_correction_test_only`` leaves it in (the plain path's has none).
        def train():
            return fused_batch_norm(inputs, gamma, beta, mean=self.moving_mean, variance=self.moving_variance,
                                    epsilon=self.epsilon, is_training=True, data_format=self._data_format)

        def infer():
            return fused_batch_norm(inputs, gamma, beta, mean=self.moving_mean, variance=self.moving_variance,
                                    epsilon=self.epsilon, is_training=False, data_format=self._data_format)

        output, mean, variance = smart_cond(training, train, infer)
        if training_value is False:
            return output
        # TF's fused path gives the updates momentum 1 (no change) when a tensor ``training`` is false.
        momentum = self.momentum if training_value is not None else smart_cond(
            training, lambda: _constant(self.momentum, dtypes.float32, "Const"),
            lambda: _constant(1.0, dtypes.float32, "Const"))
        for variable, value in ((self.moving_mean, mean), (self.moving_variance, variance)):
            self.add_update(self._assign_moving_average(variable, value, momentum))
        return output

    def _plain_call(self, inputs, training, training_value):
        from dflow.ops.array.array_ops import concat, stop_gradient
        from dflow.ops.array.creation_ops import ones_like, zeros_like
        from dflow.ops.array.shape_ops import reshape, shape
        from dflow.ops.math.reduction_ops import reduce_mean
        from dflow.ops.nn.nn_norm_ops import batch_normalization, moments

        if self.virtual_batch_size is not None:
            dims = shape(inputs)[1:]
            original_shape = concat([_constant([-1], dtypes.int32, "Const"), dims], axis=0)
            inputs = reshape(inputs, concat([_constant([self.virtual_batch_size, -1], dtypes.int32, "Const"), dims],
                                            axis=0))
        inputs_dtype = inputs.dtype.base_dtype
        if inputs_dtype == dtypes.float16:  # the arithmetic in float32, as TF's
            inputs = math_ops.cast(inputs, dtypes.float32)
        input_shape = inputs.shape
        rank = input_shape.ndims
        reduction_axes = [i for i in range(rank) if i not in self.axis]
        if self.virtual_batch_size is not None:
            del reduction_axes[1]  # each sub-batch on its own
        broadcast_shape = [1] * rank
        broadcast_shape[self.axis[0]] = input_shape.as_list()[self.axis[0]]

        def broadcast(v):
            if v is not None and v.shape.ndims != rank and reduction_axes != list(range(rank - 1)):
                return reshape(v, broadcast_shape)
            return v

        scale, offset = broadcast(self.gamma), broadcast(self.beta)

        def compose(scale, offset, then_scale, then_offset):  # (x * scale + offset) * then_scale + then_offset
            if then_scale is not None:
                scale = scale * then_scale
                offset = offset * then_scale
            if then_offset is not None:
                offset = offset + then_offset
            return scale, offset

        if training_value is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            if self.adjustment:
                adj_scale, adj_bias = self.adjustment(shape(inputs))
                adj_scale = smart_cond(training, lambda: adj_scale, lambda: ones_like(adj_scale))
                adj_bias = smart_cond(training, lambda: adj_bias, lambda: zeros_like(adj_bias))
                scale, offset = compose(adj_scale, adj_bias, scale, offset)
            keep_dims = self.virtual_batch_size is not None or len(self.axis) > 1
            batch_mean, batch_variance = moments(math_ops.cast(inputs, self._param_dtype), reduction_axes,
                                                 keep_dims=keep_dims)
            mean = smart_cond(training, lambda: batch_mean, lambda: _read(self.moving_mean))
            variance = smart_cond(training, lambda: batch_variance, lambda: _read(self.moving_variance))
            if self.virtual_batch_size is not None:  # the moving statistics move by the sub-batches' mean
                new_mean = reduce_mean(mean, axis=1, keepdims=True)
                new_variance = reduce_mean(variance, axis=1, keepdims=True)
            else:
                new_mean, new_variance = mean, variance
            if self.renorm:
                r, d, new_mean, new_variance = self._renorm_correction_and_moments(new_mean, new_variance, training)
                r = broadcast(stop_gradient(r, name="renorm_r"))
                d = broadcast(stop_gradient(d, name="renorm_d"))
                scale, offset = compose(r, d, scale, offset)
            self._add_updates(new_mean, new_variance, training)
        mean = math_ops.cast(mean, inputs.dtype)
        variance = math_ops.cast(variance, inputs.dtype)
        offset = math_ops.cast(offset, inputs.dtype) if offset is not None else None
        scale = math_ops.cast(scale, inputs.dtype) if scale is not None else None
        outputs = batch_normalization(inputs, broadcast(mean), broadcast(variance), offset, scale, self.epsilon)
        if inputs_dtype == dtypes.float16:
            outputs = math_ops.cast(outputs, inputs_dtype)
        outputs.set_shape(input_shape)
        if self.virtual_batch_size is not None:
            outputs = reshape(outputs, original_shape)
        return outputs

    def call(self, inputs, training=False):
        training_value = _training_value(training)
        if self.fused:
            return self._fused_call(inputs, training, training_value)
        return self._plain_call(inputs, training, training_value)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


def _constant(value, dtype, name, shape=None):
    from dflow.framework.constant_op import constant

    return constant(value, dtype=dtype, shape=shape, name=name)


def _sqrt_of(initializer):
    """An initializer: the square root of ``initializer``'s values."""
    def init(shape, dtype=None, partition_info=None):
        from dflow.ops.math.unary_math_ops import sqrt

        return sqrt(initializer(shape, dtype=dtype, partition_info=partition_info))

    return init


def _read(variable):
    from dflow.framework.constant_op import convert_to_tensor

    return convert_to_tensor(variable)


@tf_export("layers.batch_normalization")
def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=zeros_initializer(), gamma_initializer=ones_initializer(),
                        moving_mean_initializer=zeros_initializer(), moving_variance_initializer=ones_initializer(),
                        beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                        training=False, trainable=True, name=None, reuse=None, renorm=False, renorm_clipping=None,
                        renorm_momentum=0.99, fused=None, virtual_batch_size=None, adjustment=None):
    """``BatchNormalization(...)(inputs, training=training)`` in the scope ``name``; run the
    ``UPDATE_OPS`` collection with the train op to update the moving statistics.

    >>> import dflow as tf
    >>> with tf.Graph().as_default():
    ...     y = tf.layers.batch_normalization(tf.zeros([4, 3]), training=True)
    ...     len(tf.get_collection(tf.GraphKeys.UPDATE_OPS))
    2
    """
    layer = BatchNormalization(axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                               beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
                               moving_mean_initializer=moving_mean_initializer,
                               moving_variance_initializer=moving_variance_initializer,
                               beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
                               beta_constraint=beta_constraint, gamma_constraint=gamma_constraint, renorm=renorm,
                               renorm_clipping=renorm_clipping, renorm_momentum=renorm_momentum, fused=fused,
                               trainable=trainable, virtual_batch_size=virtual_batch_size, adjustment=adjustment,
                               name=name, _reuse=reuse, _scope=name)
    return layer(inputs, training=training)
