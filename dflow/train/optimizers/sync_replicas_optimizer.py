"""``tf.train.SyncReplicasOptimizer``: synchronous data-parallel training (TF1).

Each replica runs the same train op. Instead of updating the variables, it
pushes its gradients into one ``ConditionalAccumulator`` per variable, then
waits for a token. The chief runs one more loop (its queue runner): take the
mean of ``replicas_to_aggregate`` gradients from every accumulator, apply it
with the wrapped optimizer, increment the global step, and push
``max(total_num_replicas, replicas_to_aggregate)`` tokens, each the new global
step, into the token queue. A replica that takes a token records its value
in its ``sync_rep_local_step`` and computes the next gradients; a gradient
computed at a step the accumulator has left behind is stale and dropped.
With ``total_num_replicas > replicas_to_aggregate`` the extra replicas are
backups: a step completes with the first ``replicas_to_aggregate`` gradients
(inside the ``apply_grad`` that brings the count there), later ones are stale.

The graph is TF1's::

    NoOp, sync_rep_local_step                 the replica's step (a local variable, beside NoOp)
    Assign                                    local_step_init_op: local step := global step
    sync_replicas/conditional_accumulator[_N] one per variable, on the variable's device,
                                              shared name "<variable name>/grad_accum"
    sync_replicas/ResourceAccumulatorApplyGradient[_N], .../ResourceAccumulatorTakeGradient[_N]
    <opt name>/update_<var>/..., <opt name>   the wrapped optimizer's update and global_step += 1
    sync_token_q                              FIFOQueue of global steps, shared name "sync_token_q"
    sync_token_q_Dequeue, Assign_1            the train op: wait for a token, local step := token
    Fill, sync_token_q_EnqueueMany            the chief's sync op (its queue runner's enqueue op)
    sync_replicas/SetGlobalStep[_N], sync_replicas/group_deps   chief_init_op

Every piece of shared state is a resource found by name (the accumulators and
the token queue by their shared names, the variables by theirs), so replicas
in other processes that build the same graph against one cluster share it
through the workers' resource stores; only ``sync_rep_local_step`` is each
replica's own (it sits beside the replica's ``NoOp``, on the replica's device).

A step that can never complete (tensorflow#5022: in TF1 a replica that dies
leaves the chief and every other replica blocked forever) fails promptly when
the session's ``ConfigProto.operation_timeout_in_ms`` is set:

* the chief's ``take_grad`` gives up after that long with
  ``DeadlineExceededError`` naming the accumulator and how many of the needed
  gradients arrived ("2 of the 3 gradients needed for step 7 arrived"); the
  accumulator keeps them and its step;
* the chief's queue runner hands the error to its coordinator (``coord.join()``
  raises it) and, as it stops, closes the token queue with
  ``cancel_pending_enqueues``: replicas waiting for a token, in this process or
  any other sharing the queue, fail at once (``OutOfRangeError``: the queue is
  closed) instead of waiting out their own timeouts;
* a replica whose chief is gone fails on its own token dequeue after the
  timeout (``DeadlineExceededError`` naming ``sync_token_q``).

Without a timeout, a step waits as long as TF1's does (``RunOptions.timeout_in_ms``
still bounds one ``run``). Choose a timeout longer than the slowest legitimate
step. A step that fails this way may already have taken the gradients of some
accumulators (the ones whose take completed before another timed out); those
are lost with the step, as in TF1.
"""

from __future__ import annotations

import logging

from dflow._api import tf_export
from dflow.framework.composite import IndexedSlices
from dflow.framework.graph import GraphKeys, Tensor, colocate_with, control_dependencies, device, name_scope
from dflow.ops.array.creation_ops import fill
from dflow.ops.control_flow.control_flow_ops import group, no_op
from dflow.ops.state.accumulator_ops import ConditionalAccumulator
from dflow.ops.state.data_flow_ops import FIFOQueue
from dflow.ops.state.sparse_accumulator import SparseConditionalAccumulator
from dflow.ops.state.variables import Variable, assign, global_variables, report_uninitialized_variables
from dflow.train import session_run_hook
from dflow.train.optimizers.optimizer import Optimizer
from dflow.train.queue_runner import QueueRunner

_log = logging.getLogger("dflow")


def _read_after(global_step) -> Tensor:
    """A read of ``global_step`` made where it is called, so that it sees the
    control dependencies in force (the variable's cached ``read`` would not)."""
    if isinstance(global_step, Variable):
        return global_step.read_value()
    return global_step


@tf_export("train.SyncReplicasOptimizer")
class SyncReplicasOptimizer(Optimizer):
    """Aggregates the gradients of several replicas and applies their mean once per step.

    >>> import dflow as tf
    >>> gs = tf.train.get_or_create_global_step()
    >>> w = tf.Variable([1.0, 2.0], name="w")
    >>> opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.5), replicas_to_aggregate=1)
    >>> train = opt.minimize(tf.reduce_sum(w), global_step=gs)
    >>> hook = opt.make_session_run_hook(is_chief=True, num_tokens=0)
    >>> hook.begin()
    >>> with tf.Session() as sess:
    ...     _ = sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    ...     coord = tf.train.Coordinator()
    ...     hook.after_create_session(sess, coord)   # starts the chief's aggregation thread
    ...     print(sess.run(train), sess.run(train))  # each returns the token of the step it waited for
    ...     print(sess.run(w), sess.run(gs))
    ...     coord.request_stop()
    1 2
    [0. 1.] 2
    """

    def __init__(self, opt, replicas_to_aggregate, total_num_replicas=None, variable_averages=None,
                 variables_to_average=None, use_locking=False, name="sync_replicas"):
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        super().__init__(use_locking, name)
        _log.info("SyncReplicasV2: replicas_to_aggregate=%s; total_num_replicas=%s", replicas_to_aggregate,
                  total_num_replicas)
        self._opt = opt
        self._replicas_to_aggregate = replicas_to_aggregate
        self._gradients_applied = False
        self._variable_averages = variable_averages
        self._variables_to_average = variables_to_average
        self._total_num_replicas = total_num_replicas
        self._tokens_per_step = max(total_num_replicas, replicas_to_aggregate)
        self._global_step = None
        self._sync_token_queue = None
        self._chief_queue_runner = None
        self._accumulator_list: list = []
        self._local_step = None
        self.local_step_init_op = None
        self.ready_for_local_init_op = None
        self.chief_init_op = None

    def compute_gradients(self, *args, **kwargs):
        """The wrapped optimizer's ``compute_gradients`` (per replica: clip here, before aggregation)."""
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """The replica's train op: push the gradients into the accumulators, then wait for a token.

        Also builds the chief's ops (``chief_init_op``, the queue runner of
        ``get_chief_queue_runner``) and ``local_step_init_op``. ``global_step``
        is required: it is what makes gradients stale or fresh."""
        grads_and_vars = list(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        self._global_step = global_step
        train_ops = []
        aggregated_grad = []
        var_list = []

        local_anchor = no_op()
        with colocate_with(local_anchor):
            self._local_step = Variable(initial_value=0, trainable=False, collections=[GraphKeys.LOCAL_VARIABLES],
                                        dtype=global_step.dtype.base_dtype, name="sync_rep_local_step")
        self.local_step_init_op = assign(self._local_step, global_step)
        chief_init_ops = [self.local_step_init_op]
        self.ready_for_local_init_op = report_uninitialized_variables(global_variables())

        with name_scope(None, self._name):
            for grad, var in grads_and_vars:
                var_list.append(var)
                with device(var.device):
                    if grad is None:
                        aggregated_grad.append(None)  # passed through
                        continue
                    if isinstance(grad, IndexedSlices):  # an embedding table's rows: aggregated sparsely, as TF1
                        grad_accum = SparseConditionalAccumulator(grad.dtype, shape=(),
                                                                  shared_name=var.name + "/grad_accum")
                        train_ops.append(grad_accum.apply_indexed_slices_grad(grad, local_step=self._local_step))
                        aggregated_grad.append(grad_accum.take_indexed_slices_grad(self._replicas_to_aggregate))
                        self._accumulator_list.append((grad_accum, var.device))
                        continue
                    if not isinstance(grad, Tensor):
                        raise ValueError("Unknown grad type!")
                    grad_accum = ConditionalAccumulator(grad.dtype, shape=var.get_shape(),
                                                        shared_name=var.name + "/grad_accum")
                    train_ops.append(grad_accum.apply_grad(grad, local_step=self._local_step))
                    aggregated_grad.append(grad_accum.take_grad(self._replicas_to_aggregate))
                    self._accumulator_list.append((grad_accum, var.device))

            with device(global_step.device), name_scope(""):
                update_op = self._opt.apply_gradients(list(zip(aggregated_grad, var_list)), global_step)

            with device(global_step.device), name_scope(""):
                sync_token_queue = FIFOQueue(-1, global_step.dtype.base_dtype, shapes=(), name="sync_token_q",
                                             shared_name="sync_token_q")
                self._sync_token_queue = sync_token_queue

            with device(global_step.device), name_scope(""):
                with control_dependencies(train_ops):
                    token = sync_token_queue.dequeue()
                train_op = assign(self._local_step, token)

                with control_dependencies([update_op]):
                    # Tokens carry the global step as it is after this update.
                    tokens = fill([self._tokens_per_step], _read_after(global_step))
                    sync_op = sync_token_queue.enqueue_many((tokens,))

                if self._variable_averages is not None:
                    with control_dependencies([sync_op]), name_scope(""):
                        sync_op = self._variable_averages.apply(self._variables_to_average)

                self._chief_queue_runner = QueueRunner(sync_token_queue, [sync_op])
            for accum, dev in self._accumulator_list:
                with device(dev):
                    chief_init_ops.append(accum.set_global_step(global_step, name="SetGlobalStep"))
            self.chief_init_op = group(*chief_init_ops)
            self._gradients_applied = True
            return train_op

    def get_chief_queue_runner(self):
        """The chief's QueueRunner: aggregate, apply, increment the global step, push tokens."""
        if self._gradients_applied is False:
            raise ValueError("Should be called after apply_gradients().")
        return self._chief_queue_runner

    def get_slot(self, *args, **kwargs):
        """The wrapped optimizer's slot ``name`` for ``var``, or None."""
        return self._opt.get_slot(*args, **kwargs)

    def variables(self):
        """The wrapped optimizer's variables (not the local step)."""
        return self._opt.variables()

    def get_slot_names(self, *args, **kwargs):
        return self._opt.get_slot_names(*args, **kwargs)

    def get_init_tokens_op(self, num_tokens=-1):
        """The op that puts the first ``num_tokens`` tokens (default ``replicas_to_aggregate``)
        into the token queue, for the chief to run once at the start.

        ``num_tokens`` must be at least ``replicas_to_aggregate - total_num_replicas``
        (replicas then run several batches per step)."""
        if self._gradients_applied is False:
            raise ValueError("get_init_tokens_op() should be called after apply_gradients().")
        tokens_needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < tokens_needed:
            raise ValueError(f"Too few tokens to finish the first step: {num_tokens} (given) vs {tokens_needed} "
                             f"(needed)")
        if num_tokens > 0:
            with device(self._global_step.device), name_scope(""):
                tokens = fill([num_tokens], _read_after(self._global_step))
                return self._sync_token_queue.enqueue_many((tokens,))
        return no_op(name="no_init_tokens")

    def make_session_run_hook(self, is_chief, num_tokens=-1):
        """A hook that runs the initialization ops, and on the chief starts the queue runner."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


class _SyncReplicasOptimizerHook(session_run_hook.SessionRunHook):
    """Runs SyncReplicasOptimizer's initialization: the local step (and, on the chief,
    the accumulators' global steps and the first tokens), then the chief's queue runner."""

    def __init__(self, sync_optimizer, is_chief, num_tokens):
        self._sync_optimizer = sync_optimizer
        self._is_chief = is_chief
        self._num_tokens = num_tokens

    def begin(self):
        opt = self._sync_optimizer
        if opt._gradients_applied is False:
            raise ValueError("SyncReplicasOptimizer.apply_gradient should be called before using the hook.")
        self._ready_for_local_init_op = opt.ready_for_local_init_op
        if self._is_chief:
            self._local_init_op = opt.chief_init_op
            self._q_runner = opt.get_chief_queue_runner()
            self._init_tokens_op = opt.get_init_tokens_op(self._num_tokens)
        else:
            self._local_init_op = opt.local_step_init_op
            self._q_runner = None
            self._init_tokens_op = None

    def after_create_session(self, session, coord):
        """Runs the initialization ops; the chief also starts its queue runner's thread."""
        from dflow.train.session_manager import _ready

        ok, msg = _ready(self._ready_for_local_init_op, session,
                         "Model is not ready for SyncReplicasOptimizer local init.")
        if not ok:
            raise RuntimeError(f"Init operations did not make model ready for SyncReplicasOptimizer local_init. "
                               f"Init op: {self._local_init_op.name}, error: {msg}")
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._q_runner is not None:
            self._q_runner.create_threads(session, coord=coord, daemon=True, start=True)
