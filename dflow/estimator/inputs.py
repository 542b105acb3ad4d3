"""``tf.estimator.inputs.numpy_input_fn``: an ``input_fn`` over in-memory numpy arrays, as TF1's.

TF1 feeds the arrays through queues; dflow builds a ``tf.data`` pipeline
(``from_tensor_slices`` → ``shuffle`` → ``repeat(num_epochs)`` → ``batch``) and
returns the iterator's ``(features, labels)`` tensors, so the ``input_fn``
ends with ``OutOfRangeError`` after ``num_epochs`` epochs (the last batch may
be smaller) and runs forever with ``num_epochs=None``, as TF1's does.
"""

from __future__ import annotations

import collections

import numpy as np

from dflow._api import tf_export

__all__ = ["numpy_input_fn"]


def _validate_and_convert_features(x):
    if isinstance(x, dict):
        if not x:
            raise ValueError("x cannot be an empty dict")
        return collections.OrderedDict(sorted((k, np.asarray(v)) for k, v in x.items())), False
    if x is None:
        raise ValueError("x cannot be None")
    return collections.OrderedDict([("__direct_np_input__", np.asarray(x))]), True


@tf_export("estimator.inputs.numpy_input_fn")
def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000, num_threads=1):
    """An ``input_fn`` that returns batches of ``x`` (features) and ``y`` (labels).

    ``x`` is an array (the features are then one tensor) or a dict of arrays;
    ``y`` an array, a dict of arrays or ``None``. ``shuffle`` must be given as a
    bool (TF1 requires it); ``queue_capacity`` is the shuffle buffer.

    >>> import numpy as np, dflow as tf
    >>> fn = tf.estimator.inputs.numpy_input_fn({"a": np.arange(4.0)}, np.arange(4.0), batch_size=3,
    ...                                         shuffle=False)
    >>> features, labels = fn()
    >>> with tf.Session() as s:
    ...     print(s.run(labels), s.run(labels))
    [0. 1. 2.] [3.]
    """
    if not isinstance(shuffle, bool):
        raise ValueError("shuffle must be provided and explicitly set as boolean (it is recommended to set it as "
                         f"True for training); got {shuffle}")
    if num_epochs is not None and num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 or None, got {num_epochs}")
    if batch_size <= 0:
        raise ValueError(f"batch_size must be > 0, got {batch_size}")
    del num_threads  # TF1's enqueue threads; the dataset needs none.

    def input_fn():
        from dflow.data.dataset_ops import DatasetV1

        features, direct = _validate_and_convert_features(x)
        labels = None
        if y is not None:
            if isinstance(y, dict):
                labels = collections.OrderedDict(sorted((k, np.asarray(v)) for k, v in y.items()))
                overlap = set(labels) & set(features)
                if overlap:
                    raise ValueError(f"{sorted(overlap)} duplicate keys are found in both x and y: {set(features)} "
                                     f"and {set(labels)}")
            else:
                labels = np.asarray(y)
        lengths = {len(v) for v in features.values()}
        if labels is not None:
            lengths |= {len(v) for v in labels.values()} if isinstance(labels, dict) else {len(labels)}
        if len(lengths) != 1:
            raise ValueError("Length of tensors in x and y is mismatched. All elements in x and y must have the "
                             f"same length.\nShapes in x: {[v.shape for v in features.values()]}")
        feats = features["__direct_np_input__"] if direct else dict(features)
        data = (feats, labels) if labels is not None else feats
        dataset = DatasetV1.from_tensor_slices(data)
        if shuffle:
            dataset = dataset.shuffle(queue_capacity)
        dataset = dataset.repeat(num_epochs).batch(batch_size)
        return dataset.make_one_shot_iterator().get_next()

    return input_fn
