"""``slim.learning``: TF 1.15's slim training loop.

* ``create_train_op(total_loss, optimizer, ...)``: a tensor that, run, applies one gradient step (after
  the ``UPDATE_OPS``) and returns the loss (checked for inf/nan); it is also
  ``tf.contrib.training.create_train_op`` (there with ``transform_grads_fn``);
* ``train(train_op, logdir, number_of_steps=..., log_every_n_steps=1, ...)``: a ``Supervisor`` initializes
  the model (or restores the latest checkpoint of ``logdir``; ``init_fn(sess)`` runs after a fresh
  initialization), runs ``train_step_fn`` until the global step reaches ``number_of_steps``, logs
  ``global step N: loss = L (T sec/step)`` on the ``tensorflow`` logger every ``log_every_n_steps`` global
  steps, writes summaries and checkpoints every ``save_summaries_secs``/``save_interval_secs`` and a last
  checkpoint at the end, and returns the last loss;
* ``clip_gradient_norms``, ``multiply_gradients``, ``add_gradients_summaries``.

``sync_optimizer`` and ``trace_every_n_steps`` are accepted but not acted on (dflow has no
``SyncReplicasOptimizer`` queues or traces); a ``trace_every_n_steps`` logs that.
"""

from __future__ import annotations

import logging
import time

from dflow._api import tf_export
from dflow.framework.composite import IndexedSlices
from dflow.framework.constant_op import constant
from dflow.framework.graph import GraphKeys, Tensor, control_dependencies, get_default_graph, name_scope

_logger = logging.getLogger("tensorflow")

_USE_DEFAULT = 0
_USE_GLOBAL_STEP = 0


@tf_export("contrib.slim.learning.clip_gradient_norms")
def clip_gradient_norms(gradients_to_variables, max_norm):
    """Each gradient clipped to the norm ``max_norm`` (``clip_by_norm``; None gradients stay None)."""
    from dflow.ops.math.clip_ops import clip_by_norm

    clipped = []
    for grad, var in gradients_to_variables:
        if grad is not None:
            if isinstance(grad, IndexedSlices):
                grad = IndexedSlices(clip_by_norm(grad.values, max_norm), grad.indices, grad.dense_shape)
            else:
                grad = clip_by_norm(grad, max_norm)
        clipped.append((grad, var))
    return clipped


@tf_export("contrib.slim.learning.multiply_gradients")
def multiply_gradients(grads_and_vars, gradient_multipliers):
    """Scales the gradients of the variables (or variable op names) in ``gradient_multipliers``."""
    if not isinstance(grads_and_vars, list):
        raise ValueError("`grads_and_vars` must be a list.")
    if not gradient_multipliers:
        raise ValueError("`gradient_multipliers` is empty.")
    if not isinstance(gradient_multipliers, dict):
        raise ValueError("`gradient_multipliers` must be a dict.")
    multiplied = []
    for grad, var in grads_and_vars:
        key = var if var in gradient_multipliers else var.op.name if var.op.name in gradient_multipliers else None
        if key is not None:
            if grad is None:
                raise ValueError(f"Requested multiple of `None` gradient for variable {var.op.name}.")
            multiplier = gradient_multipliers[key]
            if not isinstance(multiplier, Tensor):
                multiplier = constant(multiplier, dtype=grad.dtype.base_dtype)
            if isinstance(grad, IndexedSlices):
                grad = IndexedSlices(grad.values * multiplier, grad.indices, grad.dense_shape)
            else:
                grad = grad * multiplier
        multiplied.append((grad, var))
    return multiplied


@tf_export("contrib.slim.learning.add_gradients_summaries", "contrib.training.add_gradients_summaries")
def add_gradients_summaries(grads_and_vars):
    """A histogram ``<var>_gradient`` and a scalar ``<var>_gradient_norm`` per gradient."""
    from dflow.ops.math.clip_ops import global_norm
    from dflow.summary.summary_ops import histogram, scalar

    summaries = []
    for grad, var in grads_and_vars:
        if grad is None:
            _logger.info("Var %s has no gradient", var.op.name)
            continue
        values = grad.values if isinstance(grad, IndexedSlices) else grad
        summaries.append(histogram(var.op.name + "_gradient", values))
        summaries.append(scalar(var.op.name + "_gradient_norm", global_norm([values])))
    return summaries


@tf_export("contrib.training.create_train_op")
def create_train_op_with_transform(total_loss, optimizer, global_step=_USE_GLOBAL_STEP, update_ops=None,
                                   variables_to_train=None, transform_grads_fn=None, summarize_gradients=False,
                                   gate_gradients=1, aggregation_method=None, colocate_gradients_with_ops=False,
                                   check_numerics=True):
    """``tf.contrib.training.create_train_op``: one gradient step on ``total_loss``, returning the loss."""
    from dflow.ops.control_flow.control_flow_ops import no_op, with_dependencies
    from dflow.ops.debugging.numerics import check_numerics as check_numerics_op
    from dflow.ops.state.variables import trainable_variables
    from dflow.train.training_util import get_or_create_global_step

    graph = get_default_graph()
    if global_step is _USE_GLOBAL_STEP:
        global_step = get_or_create_global_step()
    global_update_ops = list(graph.get_collection(GraphKeys.UPDATE_OPS))
    update_ops = global_update_ops if update_ops is None else list(update_ops)
    if not all(op in update_ops for op in global_update_ops):
        _logger.warning("update_ops in create_train_op does not contain all the update_ops in GraphKeys.UPDATE_OPS")
    if update_ops:
        with control_dependencies(update_ops):
            barrier = no_op(name="update_barrier")
        total_loss = with_dependencies([barrier], total_loss)
    if variables_to_train is None:
        variables_to_train = trainable_variables()
    else:
        trainable = trainable_variables()
        for v in variables_to_train:
            assert getattr(v, "trainable", False) or v in trainable
    assert variables_to_train
    grads = optimizer.compute_gradients(total_loss, variables_to_train, gate_gradients=gate_gradients,
                                        aggregation_method=aggregation_method,
                                        colocate_gradients_with_ops=colocate_gradients_with_ops)
    if transform_grads_fn:
        grads = transform_grads_fn(grads)
    if summarize_gradients:
        with name_scope("summarize_grads"):
            add_gradients_summaries(grads)
    grad_updates = optimizer.apply_gradients(grads, global_step=global_step)
    with name_scope("train_op"):
        if check_numerics:
            total_loss = check_numerics_op(total_loss, "LossTensor is inf or nan")
        train_op = with_dependencies([grad_updates], total_loss)
    train_ops = graph.get_collection_ref(GraphKeys.TRAIN_OP)
    if train_op not in train_ops:
        train_ops.append(train_op)
    return train_op


@tf_export("contrib.slim.learning.create_train_op")
def create_train_op(total_loss, optimizer, global_step=_USE_GLOBAL_STEP, update_ops=None, variables_to_train=None,
                    clip_gradient_norm=0, summarize_gradients=False, gate_gradients=1, aggregation_method=None,
                    colocate_gradients_with_ops=False, gradient_multipliers=None, check_numerics=True):
    """slim's ``create_train_op``: ``gradient_multipliers`` scale and ``clip_gradient_norm`` (when > 0)
    clips each gradient before the step."""

    def transform_grads_fn(grads):
        if gradient_multipliers:
            with name_scope("multiply_grads"):
                grads = multiply_gradients(grads, gradient_multipliers)
        if clip_gradient_norm > 0:
            with name_scope("clip_grads"):
                grads = clip_gradient_norms(grads, clip_gradient_norm)
        return grads

    return create_train_op_with_transform(
        total_loss, optimizer, global_step=global_step, update_ops=update_ops,
        variables_to_train=variables_to_train, transform_grads_fn=transform_grads_fn,
        summarize_gradients=summarize_gradients, gate_gradients=gate_gradients,
        aggregation_method=aggregation_method, colocate_gradients_with_ops=colocate_gradients_with_ops,
        check_numerics=check_numerics)


def _wait_for_step(sess, global_step, step) -> None:
    from dflow.train.training_util import global_step as step_of

    while step_of(sess, global_step) < step:
        time.sleep(1.0)


@tf_export("contrib.slim.learning.train_step")
def train_step(sess, train_op, global_step, train_step_kwargs):
    """Runs ``train_op`` once; returns ``(loss, should_stop)``, logging the loss when ``should_log`` holds."""
    start_time = time.time()
    total_loss, np_global_step = sess.run([train_op, global_step])
    time_elapsed = time.time() - start_time
    if "should_log" in train_step_kwargs and sess.run(train_step_kwargs["should_log"]):
        _logger.info("global step %d: loss = %.4f (%.3f sec/step)", np_global_step, total_loss, time_elapsed)
    should_stop = bool(sess.run(train_step_kwargs["should_stop"])) if "should_stop" in train_step_kwargs else False
    return total_loss, should_stop


@tf_export("contrib.slim.learning.train")
def train(train_op, logdir, train_step_fn=train_step, train_step_kwargs=_USE_DEFAULT, log_every_n_steps=1,
          graph=None, master="", is_chief=True, global_step=None, number_of_steps=None, init_op=_USE_DEFAULT,
          init_feed_dict=None, local_init_op=_USE_DEFAULT, init_fn=None, ready_op=_USE_DEFAULT,
          summary_op=_USE_DEFAULT, save_summaries_secs=600, summary_writer=_USE_DEFAULT, startup_delay_steps=0,
          saver=None, save_interval_secs=600, sync_optimizer=None, session_config=None, session_wrapper=None,
          trace_every_n_steps=None, ignore_live_threads=False):
    """Trains ``train_op`` under a ``Supervisor`` until ``number_of_steps`` global steps (or the input's end);
    returns the last loss."""
    from dflow.framework.errors import AbortedError, OutOfRangeError
    from dflow.ops.control_flow.control_flow_ops import group
    from dflow.ops.lookup.lookup_ops import tables_initializer
    from dflow.ops.math import math_ops
    from dflow.ops.state.variables import (
        global_variables_initializer,
        local_variables_initializer,
        report_uninitialized_variables,
    )
    from dflow.summary.summary_ops import merge_all
    from dflow.train.checkpoints.saver import Saver
    from dflow.train.supervisor import Supervisor
    from dflow.train.training_util import get_or_create_global_step

    if train_op is None:
        raise ValueError("train_op cannot be None.")
    if logdir is None:
        if summary_op is not _USE_DEFAULT:
            raise ValueError("Cannot provide summary_op because logdir=None")
        if saver is not None:
            raise ValueError("Cannot provide saver because logdir=None")
        if trace_every_n_steps is not None:
            raise ValueError("Cannot provide trace_every_n_steps because logdir=None")
    if isinstance(sync_optimizer, list):
        sync_optimizer = sync_optimizer or None
    if sync_optimizer is not None and startup_delay_steps > 0:
        raise ValueError("startup_delay_steps must be zero when sync_optimizer is supplied.")
    if number_of_steps is not None and number_of_steps <= 0:
        raise ValueError("`number_of_steps` must be either None or a positive number.")
    if trace_every_n_steps is not None:
        _logger.info("slim.learning.train: trace_every_n_steps writes no traces in dflow")

    graph = graph or get_default_graph()
    with graph.as_default():
        if global_step is None:
            global_step = get_or_create_global_step()
        saver = saver or Saver()
        with name_scope("init_ops"):
            if init_op is _USE_DEFAULT:
                init_op = global_variables_initializer()
            if ready_op is _USE_DEFAULT:
                ready_op = report_uninitialized_variables()
            if local_init_op is _USE_DEFAULT:
                local_init_op = group(local_variables_initializer(), tables_initializer())
        if summary_op is _USE_DEFAULT:
            summary_op = merge_all()
        if summary_writer is _USE_DEFAULT:
            summary_writer = Supervisor.USE_DEFAULT
        if train_step_kwargs is _USE_DEFAULT:
            with name_scope("train_step"):
                train_step_kwargs = {}
                if number_of_steps:
                    should_stop_op = math_ops.greater_equal(global_step, number_of_steps)
                else:
                    should_stop_op = constant(False)
                train_step_kwargs["should_stop"] = should_stop_op
                if log_every_n_steps > 0:
                    train_step_kwargs["should_log"] = math_ops.equal(math_ops.mod(global_step, log_every_n_steps), 0)

    sv = Supervisor(graph=graph, is_chief=is_chief, logdir=logdir, init_op=init_op, init_feed_dict=init_feed_dict,
                    local_init_op=local_init_op, ready_op=ready_op, summary_op=summary_op,
                    summary_writer=summary_writer, global_step=global_step, saver=saver,
                    save_summaries_secs=save_summaries_secs, save_model_secs=save_interval_secs, init_fn=init_fn)
    if summary_writer is not None:
        train_step_kwargs["summary_writer"] = sv.summary_writer

    total_loss = None
    should_retry = True
    while should_retry:
        try:
            should_retry = False
            with sv.managed_session(master, start_standard_services=False, config=session_config) as sess:
                _logger.info("Starting Session.")
                if session_wrapper is not None:
                    _logger.info("Wrapping session with wrapper function: %s", session_wrapper)
                    sess = session_wrapper(sess)
                service_threads = []
                if is_chief:
                    if logdir:
                        service_threads = sv.start_standard_services(sess)
                elif startup_delay_steps > 0:
                    _wait_for_step(sess, global_step, min(startup_delay_steps, number_of_steps or 2 ** 63 - 1))
                threads = sv.start_queue_runners(sess)
                _logger.info("Starting Queues.")
                try:
                    while not sv.should_stop():
                        total_loss, should_stop = train_step_fn(sess, train_op, global_step, train_step_kwargs)
                        if should_stop:
                            _logger.info("Stopping Training.")
                            sv.request_stop()
                            break
                except OutOfRangeError as e:
                    _logger.info("Caught OutOfRangeError. Stopping Training. %s", e)
                if logdir and is_chief:
                    # Let a checkpoint the service thread may be writing finish first, so that the final
                    # checkpoint is the latest one.
                    sv.request_stop()
                    for t in service_threads:
                        t.join(timeout=60)
                    _logger.info("Finished training! Saving model to disk.")
                    sv.saver.save(sess, sv.save_path, global_step=sv.global_step)
                    sv.stop(threads, close_summary_writer=True, ignore_live_threads=ignore_live_threads)
        except AbortedError:
            _logger.info("Retrying training!")
            should_retry = True
    return total_loss
