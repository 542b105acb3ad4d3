"""``tf.layers.MaxPooling1D/2D/3D`` and ``AveragePooling1D/2D/3D`` and their functional forms:
Keras 2.15's pools (1-D through a 2-D pool over an added axis, 3-D transposed to channels
last), with the op names TF1 scripts see (``max_pooling2d/MaxPool``)."""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework.tensor_shape import TensorShape
from dflow.layers.base import InputSpec, Layer
from dflow.layers.convolutional import conv_output_length, normalize_padding, normalize_tuple
from dflow.layers.core import normalize_data_format


class _Pooling(Layer):
    rank = 2
    mode = "max"

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        n = self.rank
        self.pool_size = normalize_tuple(pool_size, n, "pool_size")
        self.strides = normalize_tuple(strides if strides is not None else pool_size, n, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = normalize_data_format(data_format)
        self.input_spec = InputSpec(ndim=n + 2)

    def call(self, inputs):
        from dflow.ops.array.shape_ops import expand_dims, squeeze, transpose
        from dflow.ops.nn import pool_ops, pool_variants

        first = self.data_format == "channels_first"
        padding = self.padding.upper()
        if self.rank == 3:
            fn = pool_variants.max_pool3d if self.mode == "max" else pool_variants.avg_pool3d
            if first:
                inputs = transpose(inputs, (0, 2, 3, 4, 1))
            outputs = fn(inputs, (1,) + self.pool_size + (1,), (1,) + self.strides + (1,), padding)
            return transpose(outputs, (0, 4, 1, 2, 3)) if first else outputs
        fn = pool_ops.max_pool if self.mode == "max" else pool_ops.avg_pool
        pool_size, strides = self.pool_size, self.strides
        if self.rank == 1:
            axis = 3 if first else 2
            inputs = expand_dims(inputs, axis)
            pool_size, strides = pool_size + (1,), strides + (1,)
        if first:
            outputs = fn(inputs, (1, 1) + pool_size, (1, 1) + strides, padding, data_format="NCHW")
        else:
            outputs = fn(inputs, (1,) + pool_size + (1,), (1,) + strides + (1,), padding, data_format="NHWC")
        return squeeze(outputs, [axis]) if self.rank == 1 else outputs

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        first = self.data_format == "channels_first"
        spatial = dims[2:] if first else dims[1:-1]
        out = [conv_output_length(d, k, self.padding, s) for d, k, s in zip(spatial, self.pool_size, self.strides)]
        return TensorShape(dims[:2] + out if first else [dims[0]] + out + [dims[-1]])


def _pool_class(name: str, rank: int, mode: str, doc: str):
    cls = type(name, (_Pooling,), {"rank": rank, "mode": mode, "__doc__": doc, "__module__": __name__})
    return tf_export(f"layers.{name}")(cls)


MaxPooling1D = _pool_class("MaxPooling1D", 1, "max", "Max pooling over 1-D windows of ``[batch, steps, channels]``.")
MaxPooling2D = _pool_class("MaxPooling2D", 2, "max", "Max pooling over 2-D windows.")
MaxPooling3D = _pool_class("MaxPooling3D", 3, "max", "Max pooling over 3-D windows.")
AveragePooling1D = _pool_class("AveragePooling1D", 1, "avg", "Average pooling over 1-D windows.")
AveragePooling2D = _pool_class("AveragePooling2D", 2, "avg", "Average pooling over 2-D windows.")
AveragePooling3D = _pool_class("AveragePooling3D", 3, "avg", "Average pooling over 3-D windows.")


def _pool_fn(cls, export: str):
    def fn(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
        return cls(pool_size=pool_size, strides=strides, padding=padding, data_format=data_format, name=name)(inputs)

    fn.__name__ = fn.__qualname__ = export.split(".")[-1]
    fn.__doc__ = f"``{cls.__name__}(pool_size, strides, ...)(inputs)``."
    return tf_export(export)(fn)


max_pooling1d = _pool_fn(MaxPooling1D, "layers.max_pooling1d")
max_pooling2d = _pool_fn(MaxPooling2D, "layers.max_pooling2d")
max_pooling3d = _pool_fn(MaxPooling3D, "layers.max_pooling3d")
average_pooling1d = _pool_fn(AveragePooling1D, "layers.average_pooling1d")
average_pooling2d = _pool_fn(AveragePooling2D, "layers.average_pooling2d")
average_pooling3d = _pool_fn(AveragePooling3D, "layers.average_pooling3d")
