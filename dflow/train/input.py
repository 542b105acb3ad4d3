"""TF1's queue-based input pipelines: ``tf.train.batch``, ``tf.train.shuffle_batch``,
their ``maybe_`` forms (which enqueue only what ``keep_input`` keeps),
their ``_join`` forms, and the producers ``input_producer``,
``string_input_producer``, ``range_input_producer``, ``slice_input_producer``
with ``limit_epochs``.

Each builds a queue, an enqueue op and a ``QueueRunner`` (added to the
``QUEUE_RUNNERS`` collection), and returns the dequeued tensors; the user
starts the runners with ``tf.train.start_queue_runners``. Op names follow
TF1 (``batch/fifo_queue``, ``batch``, ``input_producer/limit_epochs/epochs``).
Each adds TF1's ``fraction_of_N_full`` scalar summary. ``SparseTensor`` inputs
travel as handles into a SparseTensorsMap (``dflow.ops.sparse.sparse_map_ops``), as in TF1.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import SparseTensor, SparseTensorValue
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import GraphKeys, Tensor, control_dependencies, name_scope
from dflow.framework.tensor_shape import as_shape
from dflow.ops.control_flow.control_flow_ops import identity, with_dependencies
from dflow.ops.state.data_flow_ops import FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue
from dflow.ops.state.variable_utils import _count_up_to
from dflow.ops.state.variables import Variable
from dflow.train.queue_runner import QueueRunner, add_queue_runner


@tf_export("train.limit_epochs")
def limit_epochs(tensor, num_epochs=None, name=None) -> Tensor:
    """``tensor``, which may be evaluated ``num_epochs`` times; then ``OutOfRangeError``.

    The count lives in a local variable (``limit_epochs/epochs``): run
    ``tf.local_variables_initializer()`` first.
    """
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with name_scope(name, "limit_epochs", [tensor]) as name:
        zero64 = constant(0, dtype=dtypes.int64)
        epochs = Variable(zero64, name="epochs", trainable=False, collections=[GraphKeys.LOCAL_VARIABLES])
        counter = _count_up_to(epochs, num_epochs)
        with control_dependencies([counter]):
            return identity(tensor, name=name)


# -- producers ---------------------------------------------------------------------------------


@tf_export("train.input_producer")
def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None, capacity=32,
                   shared_name=None, summary_name=None, name=None, cancel_op=None):
    """A FIFO queue that a queue runner fills with the rows of ``input_tensor``.

    Rows are shuffled each epoch when ``shuffle``; ``num_epochs`` epochs, or forever."""
    with name_scope(name, "input_producer", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.shape[1:].merge_with(element_shape)
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or `element_shape` must be "
                             "specified")
        if shuffle:
            from dflow.ops.random.random_ops import random_shuffle

            input_tensor = random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        q = FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype.base_dtype], shapes=[element_shape],
                      shared_name=shared_name, name=name)
        enq = q.enqueue_many([input_tensor])
        add_queue_runner(QueueRunner(q, [enq], cancel_op=cancel_op))
        if summary_name is not None:
            _fraction_full_summary(q, capacity, name=summary_name)
        return q


@tf_export("train.string_input_producer")
def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                          name=None, cancel_op=None):
    """A queue of the strings of ``string_tensor`` (e.g. file names), for readers."""
    not_null_err = "string_input_producer requires a non-null input tensor"
    if not isinstance(string_tensor, Tensor) and not len(string_tensor):
        raise ValueError(not_null_err)
    with name_scope(name, "input_producer", [string_tensor]) as name:
        string_tensor = convert_to_tensor(string_tensor, dtype=dtypes.string)
        if string_tensor.shape.num_elements() == 0:
            raise ValueError(not_null_err)
        return input_producer(input_tensor=string_tensor, element_shape=[], num_epochs=num_epochs, shuffle=shuffle,
                              seed=seed, capacity=capacity, shared_name=shared_name, name=name,
                              summary_name=f"fraction_of_{capacity}_full", cancel_op=cancel_op)


@tf_export("train.range_input_producer")
def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None, name=None):
    """A queue of the integers ``0 .. limit - 1``."""
    from dflow.ops.array.creation_ops import range as range_

    with name_scope(name, "input_producer", [limit]) as name:
        return input_producer(range_(limit), [], num_epochs, shuffle, seed, capacity, shared_name,
                              f"fraction_of_{capacity}_full", name)


@tf_export("train.slice_input_producer")
def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                         name=None) -> list:
    """One row of each tensor of ``tensor_list`` per evaluation.

    The tensors have the same number of rows; rows come in (shuffled) order."""
    from dflow.ops.array.gather_ops import gather
    from dflow.ops.array.shape_ops import shape

    with name_scope(name, "input_producer", list(tensor_list)):
        tensor_list = [convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = shape(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                                     capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [gather(t, index) for t in tensor_list]


# -- batching ------------------------------------------------------------------------------------


def _as_tensor_list(tensors):
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors, key=str)]
    return tensors


def _as_tensor_list_list(tensors_list):
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        expected_keys = set(tensors_list[0].keys())
        for tensors in tensors_list[1:]:
            if set(tensors.keys()) != expected_keys:
                raise ValueError("All dictionaries in tensors_list must have the same keys")
        return [_as_tensor_list(tensors) for tensors in tensors_list]
    return tensors_list


def _as_original_type(original_tensors, tensor_list):
    if isinstance(original_tensors, dict):
        if len(original_tensors) == 1:
            tensor_list = [tensor_list]
        return {k: tensor_list[i] for i, k in enumerate(sorted(original_tensors, key=str))}
    return tensor_list


def _validate(tensor_list, what="batch()") -> list:
    tensor_list = [t if isinstance(t, SparseTensor) else
                   SparseTensor.from_value(t) if isinstance(t, SparseTensorValue) else convert_to_tensor(t)
                   for t in tensor_list]
    if not tensor_list:
        raise ValueError(f"Expected at least one tensor in {what}.")
    return tensor_list


def _dtypes(tensor_list_list) -> list:
    types = [t.dtype for t in tensor_list_list[0]]
    for other in tensor_list_list[1:]:
        other_types = [t.dtype for t in other]
        if other_types != types:
            raise TypeError(f"Expected types to be consistent: {', '.join(x.name for x in types)} vs. "
                            f"{', '.join(x.name for x in other_types)}.")
    return types


def _merge_shapes(shape_list, enqueue_many: bool) -> list:
    shape_list = [as_shape(s) for s in shape_list]
    if enqueue_many:
        shape_list = [s.with_rank_at_least(1)[1:] for s in shape_list]
    merged = shape_list[0]
    for s in shape_list[1:]:
        merged = merged.merge_with(s)
    return merged.as_list()


def _shapes(tensor_list_list, shapes, enqueue_many: bool) -> list:
    if shapes is None:
        for tl in tensor_list_list:
            for t in tl:
                if t.shape.ndims is None:
                    raise ValueError(f"Cannot infer Tensor's rank: {t}")
        shapes = [_merge_shapes([tl[i].shape.as_list() for tl in tensor_list_list], enqueue_many)
                  for i in range(len(tensor_list_list[0]))]
    return shapes


def _validate_keep_input(keep_input, enqueue_many: bool):
    """``keep_input`` as a bool tensor of rank 0, or 1 with ``enqueue_many``; None stays None (keep all)."""
    if keep_input is None:
        return None
    keep_input = convert_to_tensor(keep_input)
    if keep_input.shape.ndims is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and keep_input.shape.ndims == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if keep_input.shape.ndims > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    return keep_input


def _select_which_to_enqueue(tensor_list, keep_input) -> list:
    """The rows of each tensor whose ``keep_input`` entry is True (TF1's ``DynamicPartition``)."""
    from dflow.ops.array.partition_ops import dynamic_partition
    from dflow.ops.math.math_ops import cast

    select = cast(keep_input, dtypes.int32)
    return [dynamic_partition(x, select, num_partitions=2)[1] for x in tensor_list]


def _enqueue_ops(queue, tensor_list_list, enqueue_many: bool, keep_input) -> list:
    """One enqueue op per tensor list; with ``keep_input`` they enqueue only what it keeps:
    a vector selects rows, a scalar known at graph time keeps all or builds a ``NoOp``,
    else a ``tf.cond`` enqueues or does nothing when run."""
    from dflow.layers.core import smart_cond
    from dflow.ops.control_flow.control_flow_ops import no_op

    enqueue_fn = queue.enqueue_many if enqueue_many else queue.enqueue
    if keep_input is None:
        return [enqueue_fn(tl) for tl in tensor_list_list]
    if keep_input.shape.ndims == 1:
        return [enqueue_fn(_select_which_to_enqueue(tl, keep_input)) for tl in tensor_list_list]
    return [smart_cond(keep_input, lambda tl=tl: enqueue_fn(tl), no_op) for tl in tensor_list_list]


def _enqueue_join(queue, tensor_list_list, enqueue_many: bool, keep_input=None) -> None:
    add_queue_runner(QueueRunner(queue, _enqueue_ops(queue, tensor_list_list, enqueue_many, keep_input)))


def _enqueue(queue, tensor_list, threads: int, enqueue_many: bool, keep_input=None) -> None:
    add_queue_runner(QueueRunner(queue, _enqueue_ops(queue, [tensor_list], enqueue_many, keep_input) * threads))


# -- SparseTensors through a queue: stored in a SparseTensorsMap, the queue carries their handles ----------------


class _SparseInfo:
    """Where a sparse input of the batch went: the op that stores it (its map) and its rank per example."""

    def __init__(self, map_op, rank):
        self.map_op, self.rank = map_op, rank


def _store_sparse(t, enqueue_many: bool, keep_input, shared_name):
    """The handle(s) of ``t`` stored (what ``keep_input`` keeps), and the storing op."""
    from dflow.layers.core import smart_cond
    from dflow.ops.array.creation_ops import ones
    from dflow.ops.array.gather_ops import gather
    from dflow.ops.sparse.sparse_array_ops import sparse_retain
    from dflow.ops.sparse.sparse_map_ops import add_sparse_to_tensors_map

    stores = []

    def store(sp, many):
        handle = add_sparse_to_tensors_map(sp, many=many, shared_name=shared_name)
        stores.append(handle.op)
        return handle

    if keep_input is not None and keep_input.shape.ndims == 1:  # drop the values of the rows not kept
        t = sparse_retain(t, gather(keep_input, t.indices[:, 0]))
        out = store(t, True)
    elif keep_input is None:
        out = store(t, enqueue_many)
    elif enqueue_many:
        out = smart_cond(keep_input, lambda: store(t, True), lambda: -1 * ones(t.dense_shape[0:1], dtypes.int64))
        out.set_shape([None])
    else:
        out = smart_cond(keep_input, lambda: store(t, False), lambda: constant(-1, dtypes.int64))
    return out, stores[0]


def _store_sparse_tensors(tensor_list, enqueue_many: bool, keep_input, shared_map_ops=None):
    """``tensor_list`` with each SparseTensor replaced by its handles (``[1]`` per example), and a
    ``_SparseInfo`` (or None) per entry, as TF1's ``_store_sparse_tensors``."""
    from dflow.ops.array.shape_ops import expand_dims

    stored, infos = [], []
    for t, shared in zip(tensor_list, shared_map_ops or [None] * len(tensor_list)):
        if not isinstance(t, SparseTensor):
            stored.append(t)
            infos.append(None)
            continue
        handles, map_op = _store_sparse(t, enqueue_many, keep_input, shared.name if shared is not None else None)
        rank = t.dense_shape.shape[0] if t.dense_shape.shape.ndims == 1 else None
        if rank is not None and enqueue_many:
            rank -= 1
        stored.append(expand_dims(handles, -1))
        infos.append(_SparseInfo(shared if shared is not None else map_op, rank))
    return stored, infos


def _store_sparse_tensors_join(tensor_list_list, enqueue_many: bool, keep_input):
    stored0, infos = _store_sparse_tensors(tensor_list_list[0], enqueue_many, keep_input)
    stored = [stored0]
    for tensor_list in tensor_list_list[1:]:
        s, other = _store_sparse_tensors(tensor_list, enqueue_many, keep_input,
                                         [info.map_op if info else None for info in infos])
        for info, o in zip(infos, other):
            if (info is None) != (o is None) or (info and info.rank is not None and o.rank is not None and
                                                 info.rank != o.rank):
                raise ValueError(f"Inconsistent SparseTensors list: {tensor_list_list[0]} vs. {tensor_list}")
        stored.append(s)
    return stored, infos


def _restore_sparse_tensors(dequeued, infos):
    """The dequeued tensors with each sparse entry's handles taken back out of its map as a batch
    SparseTensor; every output waits for all of them to be taken (so none stays in a map)."""
    from dflow.ops.array.shape_ops import squeeze
    from dflow.ops.sparse.sparse_map_ops import take_many_sparse_from_tensors_map

    if not any(infos):
        return dequeued
    single = not isinstance(dequeued, (list, tuple))
    dequeued = [dequeued] if single else list(dequeued)
    tensors = [take_many_sparse_from_tensors_map(info.map_op, squeeze(t, [1]),
                                                 rank=None if info.rank is None else info.rank + 1)
               if info else t for t, info in zip(dequeued, infos)]
    values = [t.values if isinstance(t, SparseTensor) else t for t in tensors]

    def after_all(t):
        return with_dependencies(values, t)

    tensors = [SparseTensor(after_all(t.indices), after_all(t.values), after_all(t.dense_shape))
               if isinstance(t, SparseTensor) else after_all(t) for t in tensors]
    return tensors[0] if single else tensors


def _fraction_full_summary(queue, capacity: int, min_after_dequeue: int | None = None, name: str | None = None):
    """TF1's scalar summary of how full ``queue`` is: ``fraction_of_<capacity>_full``, or for a shuffling
    queue the fraction above ``min_after_dequeue``, ``fraction_over_<min>_of_<capacity - min>_full``."""
    from dflow.ops.math.math_ops import cast, maximum
    from dflow.summary.summary_ops import scalar

    if min_after_dequeue is None:
        full = cast(queue.size(), dtypes.float32) * (1.0 / capacity)
        return scalar(name or f"fraction_of_{capacity}_full", full)
    full = cast(maximum(0, queue.size() - min_after_dequeue), dtypes.float32) * (1.0 / (capacity - min_after_dequeue))
    return scalar(f"fraction_over_{min_after_dequeue}_of_{capacity - min_after_dequeue}_full", full)


def _dequeue(queue, batch_size, allow_smaller_final_batch: bool, name):
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=name)
    return queue.dequeue_many(batch_size, name=name)


def _keep_list(keep_input) -> list:
    return [] if keep_input is None else [keep_input]


def _batch(tensors, batch_size, keep_input, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
           dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "batch", list(tensor_list) + _keep_list(keep_input)) as name:
        tensor_list = _validate(tensor_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list, sparse_info = _store_sparse_tensors(tensor_list, enqueue_many, keep_input)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue_cls = PaddingFIFOQueue if dynamic_pad else FIFOQueue
        queue = queue_cls(capacity=capacity, dtypes=types, shapes=shapes, shared_name=shared_name)
        _enqueue(queue, tensor_list, num_threads, enqueue_many, keep_input)
        _fraction_full_summary(queue, capacity)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        return _as_original_type(tensors, _restore_sparse_tensors(dequeued, sparse_info))


def _batch_join(tensors_list, batch_size, keep_input, capacity=32, enqueue_many=False, shapes=None,
                dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    tensor_list_list = _as_tensor_list_list(tensors_list)
    flat = [t for tl in tensor_list_list for t in tl]
    with name_scope(name, "batch_join", flat + _keep_list(keep_input)) as name:
        tensor_list_list = [_validate(tl, "batch_join()") for tl in tensor_list_list]
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list_list, sparse_info = _store_sparse_tensors_join(tensor_list_list, enqueue_many, keep_input)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue_cls = PaddingFIFOQueue if dynamic_pad else FIFOQueue
        queue = queue_cls(capacity=capacity, dtypes=types, shapes=shapes, shared_name=shared_name)
        _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        _fraction_full_summary(queue, capacity)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        return _as_original_type(tensors_list[0], _restore_sparse_tensors(dequeued, sparse_info))


def _check_shuffle_capacity(capacity, min_after_dequeue) -> None:
    if capacity <= min_after_dequeue:
        raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue {min_after_dequeue}.")


def _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input, num_threads=1, seed=None,
                   enqueue_many=False, shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "shuffle_batch", list(tensor_list) + _keep_list(keep_input)) as name:
        _check_shuffle_capacity(capacity, min_after_dequeue)
        tensor_list = _validate(tensor_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list, sparse_info = _store_sparse_tensors(tensor_list, enqueue_many, keep_input)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue = RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue, seed=seed, dtypes=types,
                                   shapes=shapes, shared_name=shared_name)
        _enqueue(queue, tensor_list, num_threads, enqueue_many, keep_input)
        _fraction_full_summary(queue, capacity, min_after_dequeue)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        return _as_original_type(tensors, _restore_sparse_tensors(dequeued, sparse_info))


def _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input, seed=None,
                        enqueue_many=False, shapes=None, allow_smaller_final_batch=False, shared_name=None,
                        name=None):
    tensor_list_list = _as_tensor_list_list(tensors_list)
    flat = [t for tl in tensor_list_list for t in tl]
    with name_scope(name, "shuffle_batch_join", flat + _keep_list(keep_input)) as name:
        _check_shuffle_capacity(capacity, min_after_dequeue)
        tensor_list_list = [_validate(tl, "shuffle_batch_join()") for tl in tensor_list_list]
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list_list, sparse_info = _store_sparse_tensors_join(tensor_list_list, enqueue_many, keep_input)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue, seed=seed, dtypes=types,
                                   shapes=shapes, shared_name=shared_name)
        _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        _fraction_full_summary(queue, capacity, min_after_dequeue)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        return _as_original_type(tensors_list[0], _restore_sparse_tensors(dequeued, sparse_info))


@tf_export("train.batch")
def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
          allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of ``tensors`` (a list or dict), made by queue-runner threads.

    ``num_threads`` threads enqueue into a FIFO queue (a padding one with
    ``dynamic_pad``); returns tensors in the structure of ``tensors``."""
    return _batch(tensors, batch_size, True, num_threads, capacity, enqueue_many, shapes, dynamic_pad,
                  allow_smaller_final_batch, shared_name, name)


@tf_export("train.maybe_batch")
def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
                dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """As ``batch``, enqueueing only what the bool ``keep_input`` keeps.

    A scalar ``keep_input`` keeps or drops the whole input of one run; a vector
    (with ``enqueue_many``) keeps the rows where it is True."""
    return _batch(tensors, batch_size, keep_input, num_threads, capacity, enqueue_many, shapes, dynamic_pad,
                  allow_smaller_final_batch, shared_name, name)


@tf_export("train.batch_join")
def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
               allow_smaller_final_batch=False, shared_name=None, name=None):
    """As ``batch``, from several lists of tensors, one enqueueing thread each."""
    return _batch_join(tensors_list, batch_size, True, capacity, enqueue_many, shapes, dynamic_pad,
                       allow_smaller_final_batch, shared_name, name)


@tf_export("train.maybe_batch_join")
def maybe_batch_join(tensors_list, keep_input, batch_size, capacity=32, enqueue_many=False, shapes=None,
                     dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """As ``batch_join``, enqueueing only what ``keep_input`` keeps (see ``maybe_batch``)."""
    return _batch_join(tensors_list, batch_size, keep_input, capacity, enqueue_many, shapes, dynamic_pad,
                       allow_smaller_final_batch, shared_name, name)


@tf_export("train.shuffle_batch")
def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None, enqueue_many=False,
                  shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of ``tensors`` drawn at random from a ``RandomShuffleQueue``.

    The queue keeps at least ``min_after_dequeue`` elements for mixing."""
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, True, num_threads, seed, enqueue_many,
                          shapes, allow_smaller_final_batch, shared_name, name)


@tf_export("train.maybe_shuffle_batch")
def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input, num_threads=1, seed=None,
                        enqueue_many=False, shapes=None, allow_smaller_final_batch=False, shared_name=None,
                        name=None):
    """As ``shuffle_batch``, enqueueing only what ``keep_input`` keeps (see ``maybe_batch``)."""
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input, num_threads, seed,
                          enqueue_many, shapes, allow_smaller_final_batch, shared_name, name)


@tf_export("train.shuffle_batch_join")
def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None, enqueue_many=False,
                       shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    """As ``shuffle_batch``, from several lists of tensors, one enqueueing thread each."""
    return _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, True, seed, enqueue_many,
                               shapes, allow_smaller_final_batch, shared_name, name)


@tf_export("train.maybe_shuffle_batch_join")
def maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input, seed=None,
                             enqueue_many=False, shapes=None, allow_smaller_final_batch=False, shared_name=None,
                             name=None):
    """As ``shuffle_batch_join``, enqueueing only what ``keep_input`` keeps (see ``maybe_batch``)."""
    return _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input, seed,
                               enqueue_many, shapes, allow_smaller_final_batch, shared_name, name)
