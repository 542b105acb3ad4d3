"""``tf.data.experimental``: the TF1.15 transformations that lived there.

Each returns a function of a dataset, for ``dataset.apply(...)``.

>>> import dflow as tf
>>> ds = tf.data.Dataset.range(3).apply(tf.data.experimental.enumerate_dataset(start=10))
>>> ds.output_types
(tf.int64, tf.int64)
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.data.dataset_ops import AUTOTUNE  # noqa: F401 - exported as tf.data.experimental.AUTOTUNE
from dflow.framework import dtypes


@tf_export("data.experimental.enumerate_dataset")
def enumerate_dataset(start=0):
    """``dataset.enumerate(start)`` as a transformation for ``apply``."""
    return lambda dataset: dataset.enumerate(start)


@tf_export("data.experimental.unbatch")
def unbatch():
    """``dataset.unbatch()`` as a transformation for ``apply``."""
    return lambda dataset: dataset.unbatch()


@tf_export("data.experimental.shuffle_and_repeat")
def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """``dataset.shuffle(buffer_size, seed).repeat(count)``, a new order each epoch."""
    return lambda dataset: dataset.shuffle(buffer_size, seed=seed).repeat(count)


@tf_export("data.experimental.map_and_batch", "contrib.data.map_and_batch")
def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None):
    """``dataset.map(map_func).batch(batch_size, drop_remainder)``."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("`num_parallel_batches` and `num_parallel_calls` are mutually exclusive.")
    return lambda dataset: dataset.map(map_func, num_parallel_calls).batch(batch_size, drop_remainder)


@tf_export("data.experimental.parallel_interleave", "contrib.data.parallel_interleave")
def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False, buffer_output_elements=None,
                        prefetch_input_elements=None):
    """``dataset.interleave(map_func, cycle_length, block_length)`` as a transformation for ``apply``.

    TF's parallel version gives the same elements in the same order; ``sloppy=True`` only allows it
    to give them out of order, so the deterministic order is one it may give. The buffer sizes only
    tune TF's prefetching.
    """
    return lambda dataset: dataset.interleave(map_func, cycle_length, block_length)


@tf_export("data.experimental.parse_example_dataset")
def parse_example_dataset(features, num_parallel_calls=1, deterministic=None):
    """A transformation for ``apply``: each element, a vector of serialized ``Example`` protos, parsed by
    ``tf.io.parse_example(serialized, features)`` into a dict (a ``VarLenFeature`` or ``SparseFeature``
    gives a SparseTensor)."""
    from dflow.ops.io.example_parsing import parse_example

    if not features:
        raise ValueError("Argument `features` cannot be None.")

    def apply(dataset):
        spec = dataset._spec
        if not hasattr(spec, "dtype") or spec.dtype is not dtypes.string or spec.shape.ndims not in (None, 1):
            raise TypeError(f"Input dataset should be a dataset of vectors of strings, got {spec}")
        return dataset.map(lambda serialized: parse_example(serialized, features),
                           num_parallel_calls=num_parallel_calls)

    return apply
