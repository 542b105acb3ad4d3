"""``slim.prefetch_queue``: a queue that a queue runner keeps filled with already computed batches.

``prefetch_queue(tensors)`` builds TF-slim's FIFO queue (a ``PaddingFIFOQueue`` with ``dynamic_pad``)
of ``capacity`` elements, the enqueue of ``tensors`` (a list, or a dict whose keys name the queue's
components) run by ``num_threads`` threads of a ``QueueRunner`` in ``QUEUE_RUNNERS``, and the
``fraction_of_<capacity>_full`` summary; ``queue.dequeue()`` gives the next batch. The multi-GPU CIFAR-10
tutorial dequeues one batch per tower from it.
"""

from __future__ import annotations

from dflow.framework.graph import name_scope
from dflow.ops.state.data_flow_ops import FIFOQueue, PaddingFIFOQueue
from dflow.train.input import _fraction_full_summary
from dflow.train.queue_runner import QueueRunner, add_queue_runner


def prefetch_queue(tensors, capacity=8, num_threads=1, dynamic_pad=False, shared_name=None, name=None):
    """TF-slim's ``prefetch_queue``: the queue (dequeue it for the next element of ``tensors``)."""
    if isinstance(tensors, dict):
        names = list(tensors.keys())
        tensor_list = list(tensors.values())
    else:
        names = None
        tensor_list = list(tensors)
    with name_scope(name, "prefetch_queue", tensor_list):
        dtypes = [t.dtype for t in tensor_list]
        shapes = [t.shape for t in tensor_list]
        queue_class = PaddingFIFOQueue if dynamic_pad else FIFOQueue
        queue = queue_class(capacity=capacity, dtypes=dtypes, shapes=shapes, names=names, shared_name=shared_name)
        enqueue_op = queue.enqueue(tensors)
        add_queue_runner(QueueRunner(queue, [enqueue_op] * num_threads))
        _fraction_full_summary(queue, capacity)
        return queue
