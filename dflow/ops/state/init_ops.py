"""Initializers: objects that build a variable's initial value, as TF1 has them.

An initializer is configured once (``tf.random_normal_initializer(stddev=0.1,
seed=3)``) and called with a shape each time a variable needs a value::

    init(shape, dtype=None, partition_info=None) -> Tensor

``get_variable`` makes that call inside the variable's ``Initializer`` name
scope, so the ops are named as TF1 names them (``w/Initializer/random_uniform``
for the default Glorot-uniform initializer). The random initializers pass
their ``seed`` to the random ops, so ``tf.set_random_seed`` and op seeds work as
for ``tf.random_normal``. ``get_config``/``from_config`` round-trip the
constructor arguments.

TF1's ``get_variable`` also accepts an initializer *class*
(``initializer=tf.zeros_initializer``); it instantiates it with its defaults.

``partition_info`` is accepted and duck-typed (``full_shape``, ``var_offset``)
for code written against TF1's partitioned variables; dflow's ``get_variable``
always passes ``None``.
"""

from __future__ import annotations

import math

import numpy as np

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.constant_op import constant
from dflow.framework.tensor_shape import as_shape
from dflow.ops.array.creation_ops import ones, zeros
from dflow.ops.array.shape_ops import reshape
from dflow.ops.array.slicing_ops import slice as slice_
from dflow.ops.linalg.diag_ops import eye, matrix_diag_part
from dflow.ops.linalg.linalg_factorizations import qr
from dflow.ops.linalg.linalg_ops import matrix_transpose
from dflow.ops.math.math_ops import sign
from dflow.ops.random.random_ops import random_normal, random_uniform, truncated_normal
from dflow.ops.state import variables

# The standard deviation of a unit normal truncated to [-2, 2]; dividing by it
# gives truncated samples the requested standard deviation.
_TRUNCATED_NORMAL_STDDEV = 0.87962566103423978


def _as_float_dtype(dtype) -> dtypes.DType:
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


def _static_dims(shape) -> list:
    """``shape`` (list, tuple or TensorShape) as a list of ints; it must be fully known."""
    dims = as_shape(shape).as_list()
    if any(d is None for d in dims):
        raise ValueError(f"The initializer needs a fully defined shape, got {shape}")
    return dims


def _compute_fans(shape) -> tuple:
    """``(fan_in, fan_out)`` of a weight of ``shape``.

    A conv kernel ``[*spatial, in, out]`` has fans ``in * prod(spatial)`` and
    ``out * prod(spatial)``; a vector's fans are both its length; a scalar's 1.

    >>> _compute_fans([3, 3, 16, 32])
    (144, 288)
    """
    dims = _static_dims(shape)
    if not dims:
        return 1, 1
    if len(dims) == 1:
        return dims[0], dims[0]
    receptive_field = math.prod(dims[:-2])
    return dims[-2] * receptive_field, dims[-1] * receptive_field


class Initializer:
    """Base class of the initializers: ``init(shape, dtype, partition_info) -> Tensor``."""

    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError(f"{type(self).__name__} does not define __call__")

    def get_config(self) -> dict:
        """The constructor arguments, JSON-serializable (``dtype`` by name)."""
        return {}

    @classmethod
    def from_config(cls, config: dict):
        """A new initializer from ``get_config()``'s dict.

        >>> init = RandomUniform(-1.0, 1.0)
        >>> RandomUniform.from_config(init.get_config()).maxval
        1.0
        """
        return cls(**config)


@tf_export("zeros_initializer", "initializers.zeros")
class Zeros(Initializer):
    """Initializes to 0 (``False`` for bool, ``b""`` for string).

    >>> import dflow as tf
    >>> tf.zeros_initializer()([2, 3]).shape
    TensorShape([2, 3])
    """

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return zeros(shape, self.dtype if dtype is None else dtype)

    def get_config(self) -> dict:
        return {"dtype": self.dtype.name}


@tf_export("ones_initializer", "initializers.ones")
class Ones(Initializer):
    """Initializes to 1 (``True`` for bool).

    >>> import dflow as tf
    >>> tf.ones_initializer()([2], dtype=tf.int32).dtype
    tf.int32
    """

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return ones(shape, self.dtype if dtype is None else dtype)

    def get_config(self) -> dict:
        return {"dtype": self.dtype.name}


@tf_export("constant_initializer", "initializers.constant")
class Constant(Initializer):
    """Initializes to ``value``: a scalar fills the shape; a list or array is
    reshaped to it, padded with its last element when short (TF1's
    ``tf.constant``). With ``verify_shape`` its shape must match exactly.

    >>> import dflow as tf
    >>> with tf.Session() as sess:
    ...     sess.run(tf.constant_initializer([1, 2, 3])([2, 2]))
    array([[1., 2.],
           [3., 3.]], dtype=float32)
    """

    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"Invalid type for initial value: {type(value).__name__} (expected Python scalar, list "
                            f"or tuple of values, or numpy.ndarray).")
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        dtype = self.dtype if dtype is None else dtype
        verify_shape = self._verify_shape if verify_shape is None else verify_shape
        return constant(self.value, dtype=dtype, shape=shape, verify_shape=verify_shape)

    def get_config(self) -> dict:
        # TF1 leaves verify_shape out of the config.
        return {"value": self.value, "dtype": self.dtype.name}


@tf_export("random_uniform_initializer", "initializers.random_uniform")
class RandomUniform(Initializer):
    """Samples uniformly from ``[minval, maxval)`` (``maxval`` defaults to 1 for
    floats; integer dtypes need it).

    >>> import dflow as tf
    >>> tf.random_uniform_initializer(0, 10)([3], dtype=tf.int64).dtype
    tf.int64
    """

    def __init__(self, minval=0.0, maxval=None, seed=None, dtype=dtypes.float32):
        self.minval = minval
        self.maxval = maxval
        self.seed = seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else dtype
        return random_uniform(shape, self.minval, self.maxval, dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed, "dtype": self.dtype.name}


@tf_export("random_normal_initializer", "initializers.random_normal")
class RandomNormal(Initializer):
    """Samples from a normal distribution (floating dtypes only).

    >>> import dflow as tf
    >>> tf.random_normal_initializer(stddev=0.1)([3, 2]).shape
    TensorShape([3, 2])
    """

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _as_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else dtype
        return random_normal(shape, self.mean, self.stddev, dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed, "dtype": self.dtype.name}


@tf_export("truncated_normal_initializer", "initializers.truncated_normal")
class TruncatedNormal(Initializer):
    """Samples from a normal distribution, redrawing values beyond two ``stddev``.

    ``stddev`` is that of the normal before truncation (the samples' is about
    0.88 times it).

    >>> import dflow as tf
    >>> tf.truncated_normal_initializer(stddev=0.1, seed=3).get_config()
    {'mean': 0.0, 'stddev': 0.1, 'seed': 3, 'dtype': 'float32'}
    """

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _as_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else dtype
        return truncated_normal(shape, self.mean, self.stddev, dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed, "dtype": self.dtype.name}


@tf_export("uniform_unit_scaling_initializer", "initializers.uniform_unit_scaling")
class UniformUnitScaling(Initializer):
    """Uniform in ``±factor * sqrt(3 / input_size)``, ``input_size`` the product
    of all dimensions but the last (deprecated in TF1 for ``variance_scaling``).

    >>> import dflow as tf
    >>> tf.uniform_unit_scaling_initializer(factor=1.43)([4, 2]).shape
    TensorShape([4, 2])
    """

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        self.factor = factor
        self.seed = seed
        self.dtype = _as_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else dtype
        scale_shape = shape if partition_info is None else partition_info.full_shape
        input_size = max(float(math.prod(_static_dims(scale_shape)[:-1])), 1.0)
        max_val = math.sqrt(3 / input_size) * self.factor
        return random_uniform(shape, -max_val, max_val, dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


@tf_export("variance_scaling_initializer", "initializers.variance_scaling")
class VarianceScaling(Initializer):
    """Samples with variance ``scale / n``, ``n`` the weight's fan in, fan out or
    their mean (``mode``); conv kernels count the receptive field into the fans.

    * ``"truncated_normal"`` (and its old name ``"normal"``): a normal truncated
      at two standard deviations whose standard deviation *after* truncation
      is ``sqrt(scale / n)``;
    * ``"untruncated_normal"``: a normal with standard deviation ``sqrt(scale / n)``;
    * ``"uniform"``: uniform in ``±sqrt(3 * scale / n)``.

    >>> import dflow as tf
    >>> with tf.Graph().as_default():
    ...     k = tf.get_variable("kernel", [3, 3, 8, 16], initializer=tf.variance_scaling_initializer(2.0))
    >>> k.initial_value.name
    'kernel/Initializer/truncated_normal:0'
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 dtype=dtypes.float32):
        if scale <= 0.0:
            raise ValueError("`scale` must be positive float.")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError(f"Invalid `mode` argument: {mode}")
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError(f"Invalid `distribution` argument: {distribution}")
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.seed = seed
        self.dtype = _as_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else dtype
        fan_in, fan_out = _compute_fans(shape if partition_info is None else partition_info.full_shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution in ("normal", "truncated_normal"):
            stddev = math.sqrt(scale) / _TRUNCATED_NORMAL_STDDEV
            return truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_normal(shape, 0.0, math.sqrt(scale), dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_uniform(shape, -limit, limit, dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self.seed,
                "dtype": self.dtype.name}


@tf_export("glorot_uniform_initializer", "initializers.glorot_uniform")
class GlorotUniform(VarianceScaling):
    """Uniform in ``±sqrt(6 / (fan_in + fan_out))``: ``get_variable``'s default for floats.

    >>> import dflow as tf
    >>> with tf.Graph().as_default():
    ...     tf.get_variable("w", [2, 3]).initial_value.name
    'w/Initializer/random_uniform:0'
    """

    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(scale=1.0, mode="fan_avg", distribution="uniform", seed=seed, dtype=dtype)

    def get_config(self) -> dict:
        return {"seed": self.seed, "dtype": self.dtype.name}


@tf_export("glorot_normal_initializer", "initializers.glorot_normal")
class GlorotNormal(VarianceScaling):
    """Truncated normal with standard deviation ``sqrt(2 / (fan_in + fan_out))``.

    >>> import dflow as tf
    >>> tf.glorot_normal_initializer(seed=1).get_config()
    {'seed': 1, 'dtype': 'float32'}
    """

    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(scale=1.0, mode="fan_avg", distribution="truncated_normal", seed=seed, dtype=dtype)

    def get_config(self) -> dict:
        return {"seed": self.seed, "dtype": self.dtype.name}


@tf_export("orthogonal_initializer", "initializers.orthogonal")
class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times ``gain``; shapes of rank > 2 are
    flattened to ``[prod(shape[:-1]), shape[-1]]``, whose rows or columns
    (whichever are fewer) are orthonormal.

    As in TF1 it is the Q of a normal matrix's QR decomposition with the
    columns' signs set by R's diagonal, which makes Q uniformly distributed.

    >>> import dflow as tf
    >>> import numpy as np
    >>> q = tf.orthogonal_initializer(gain=2.0)([4, 3])
    >>> with tf.Session() as sess:
    ...     v = sess.run(q)
    >>> np.allclose(v.T @ v, 4 * np.eye(3), atol=1e-5)
    True
    """

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain = gain
        self.seed = seed
        self.dtype = _as_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else dtype
        dims = _static_dims(shape)
        if len(dims) < 2:
            raise ValueError(f"The tensor to initialize must be at least two-dimensional, got shape {dims}")
        num_rows, num_cols = math.prod(dims[:-1]), dims[-1]
        flat_shape = (num_cols, num_rows) if num_rows < num_cols else (num_rows, num_cols)
        a = random_normal(flat_shape, dtype=dtype, seed=self.seed)
        q, r = qr(a, full_matrices=False)
        q *= sign(matrix_diag_part(r, name="DiagPart"))
        if num_rows < num_cols:
            q = matrix_transpose(q)
        return self.gain * reshape(q, dims)

    def get_config(self) -> dict:
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


@tf_export("initializers.identity")
class Identity(Initializer):
    """The identity matrix (rectangular ones too) times ``gain``; 2-D shapes only.

    >>> import dflow as tf
    >>> with tf.Session() as sess:
    ...     sess.run(tf.initializers.identity(gain=0.5)([2, 3]))
    array([[0.5, 0. , 0. ],
           [0. , 0.5, 0. ]], dtype=float32)
    """

    def __init__(self, gain=1.0, dtype=dtypes.float32):
        self.gain = gain
        self.dtype = _as_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else dtype
        full_shape = _static_dims(shape if partition_info is None else partition_info.full_shape)
        if len(full_shape) != 2:
            raise ValueError(f"Identity matrix initializer can only be used for 2D matrices, got shape {full_shape}")
        initial = eye(*full_shape, dtype=dtype)
        if partition_info is not None:
            initial = slice_(initial, partition_info.var_offset, _static_dims(shape))
        return self.gain * initial

    def get_config(self) -> dict:
        return {"gain": self.gain, "dtype": self.dtype.name}


@tf_export("initializers.lecun_normal")
def lecun_normal(seed=None) -> VarianceScaling:
    """Truncated normal with standard deviation ``sqrt(1 / fan_in)`` (LeCun 1998)."""
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="truncated_normal", seed=seed)


@tf_export("initializers.lecun_uniform")
def lecun_uniform(seed=None) -> VarianceScaling:
    """Uniform in ``±sqrt(3 / fan_in)``."""
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="uniform", seed=seed)


@tf_export("initializers.he_normal")
def he_normal(seed=None) -> VarianceScaling:
    """Truncated normal with standard deviation ``sqrt(2 / fan_in)`` (He et al. 2015).

    >>> he_normal(seed=1).get_config()["scale"]
    2.0
    """
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="truncated_normal", seed=seed)


@tf_export("initializers.he_uniform")
def he_uniform(seed=None) -> VarianceScaling:
    """Uniform in ``±sqrt(6 / fan_in)``."""
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="uniform", seed=seed)


# TF1's lower-case spellings of the classes.
zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
uniform_unit_scaling_initializer = UniformUnitScaling
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
orthogonal_initializer = Orthogonal
identity_initializer = Identity

# tf.initializers also names the ops that run variables' initializers.
tf_export("initializers.global_variables")(variables.global_variables_initializer)
tf_export("initializers.local_variables")(variables.local_variables_initializer)
tf_export("initializers.variables")(variables.variables_initializer)
