"""``tf.train.Optimizer``: the base class of TF1's optimizers.

``minimize(loss)`` is ``compute_gradients`` (``tf.gradients`` of the loss
with respect to each variable's VariableV2 output) then ``apply_gradients``,
which builds, as TF1 does::

    <name>/update_<var>/Apply<Algorithm>   one op per variable: variable and slots in one step
    <name>/update                          a group of them (only with a global step)
    <name>                                 the returned op: the group, or global_step += 1 after it

Subclasses implement ``_create_slots(var_list)`` (slot variables, named
``<var>/<OptimizerName>``), ``_prepare()`` (hyperparameter tensors, created
under the ``<name>`` scope) and ``_apply_dense(grad, var)`` (the op that
updates one variable), and may override ``_finish`` (Adam updates its
``beta1_power`` and ``beta2_power`` there). Gradients are dense tensors.
"""

from __future__ import annotations

from dflow._api import tf_export
from dflow.framework import dtypes
from dflow.framework.composite import IndexedSlices, convert_to_tensor_or_indexed_slices
from dflow.framework.constant_op import constant, convert_to_tensor
from dflow.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    get_collection,
    get_collection_ref,
    get_default_graph,
    name_scope,
)
from dflow.ops.control_flow.control_flow_ops import group, tuple_
from dflow.ops.gradients.gradients_impl import gradients
from dflow.ops.math import math_ops
from dflow.ops.state.variables import Variable, assign_add, trainable_variables
from dflow.train.optimizers import slot_creator
from dflow.train.optimizers.training_ops import sparse_rows


def _var_key(var) -> tuple:
    return (var.op.graph, var.op.name)


def _flatten(values) -> list:
    if isinstance(values, (list, tuple)):
        return [x for v in values for x in _flatten(v)]
    if isinstance(values, dict):
        return _flatten([values[k] for k in sorted(values)])
    return [values]


def cast_to(value, dtype) -> Tensor:
    """``value`` as a tensor of ``dtype`` (a Cast op only where the dtype differs)."""
    t = convert_to_tensor(value)
    return t if t.dtype is dtype else math_ops.cast(t, dtype)


def deduplicate_indexed_slices(values, indices):
    """``(summed_values, unique_indices)``: the rows of an IndexedSlices with repeated indices summed."""
    from dflow.ops.array.array_ops import shape as shape_of
    from dflow.ops.array.array_ops import unique
    from dflow.ops.math.segment_ops import unsorted_segment_sum

    unique_indices, positions = unique(indices)
    return unsorted_segment_sum(values, positions, shape_of(unique_indices)[0]), unique_indices


def _check_optimizable(v) -> None:
    if not isinstance(v, (Variable, Tensor)):
        raise NotImplementedError(f"Trying to optimize unsupported type {v!r}")


def _update_op(optimizer, grad, var):
    if not isinstance(var, Variable):
        raise NotImplementedError(f"Trying to update a Tensor {var!r}")
    if isinstance(grad, IndexedSlices):
        update = optimizer._apply_sparse_duplicate_indices(grad, var)
    else:
        update = optimizer._apply_dense(grad, var)
    if var.constraint is None:
        return update
    # The constraint sees the updated value: the apply op's output. (TF1 read it through
    # ``var/read``, which aliased the updated buffer; dflow's reads are snapshots.)
    outputs = update.outputs if isinstance(update, Operation) else [update]
    new_value = outputs[0] if outputs and outputs[0].dtype is var.dtype else var.read_value()
    with control_dependencies([update]):
        return var.assign(var.constraint(new_value))


@tf_export("train.Optimizer")
class Optimizer:
    """Base class for optimizers: use a subclass such as ``GradientDescentOptimizer``.

    >>> import dflow as tf
    >>> w = tf.Variable([1.0, 2.0], name="w")
    >>> train = tf.train.GradientDescentOptimizer(0.5).apply_gradients([(tf.constant([2.0, 2.0]), w)])
    >>> train.name
    'GradientDescent'
    >>> with tf.Session() as sess:
    ...     sess.run(w.initializer)
    ...     sess.run(train)
    ...     sess.run(w)
    array([0., 1.], dtype=float32)
    """

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking: bool, name: str):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots: dict = {}
        self._non_slot_dict: dict = {}

    def get_name(self) -> str:
        return self._name

    # -- the three steps ------------------------------------------------------------------
    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                 colocate_gradients_with_ops=False, name=None, grad_loss=None):
        """Adds ops that update ``var_list`` (default: trainable variables) to minimize ``loss``.

        Returns the op to run each step; it also increments ``global_step``
        (when given) once the variables are updated.
        """
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients, aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        if all(g is None for g, _ in grads_and_vars):
            raise ValueError(f"No gradients provided for any variable, check your graph for ops that do not "
                             f"support gradients, between variables {[str(v) for _, v in grads_and_vars]} and "
                             f"loss {loss}.")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None) -> list:
        """A list of ``(gradient, variable)`` pairs; the gradient is None where ``loss`` does not depend on it."""
        if callable(loss):
            loss = loss()
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError(f"gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, "
                             f"Optimizer.GATE_GRAPH.  Not {gate_gradients}")
        loss = convert_to_tensor(loss)
        self._assert_valid_dtypes([loss])
        if grad_loss is not None:
            grad_loss = convert_to_tensor(grad_loss)
            self._assert_valid_dtypes([grad_loss])
        if var_list is None:
            var_list = trainable_variables() + get_collection(GraphKeys.TRAINABLE_RESOURCE_VARIABLES)
        else:
            var_list = _flatten(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        for v in var_list:
            _check_optimizable(v)
        grads = gradients(loss, var_list, grad_ys=grad_loss, gate_gradients=gate_gradients == Optimizer.GATE_OP,
                          aggregation_method=aggregation_method,
                          colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gate_gradients == Optimizer.GATE_GRAPH:
            grads = tuple_(grads)
        grads_and_vars = list(zip(grads, var_list))
        self._assert_valid_dtypes([v for g, v in grads_and_vars if g is not None])
        return grads_and_vars

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """The op that applies ``(gradient, variable)`` pairs (None gradients are skipped).

        With ``global_step`` the returned op is ``global_step.assign_add(1)``,
        run after every variable update.
        """
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        converted = []
        for g, v in grads_and_vars:
            if g is not None:
                try:
                    g = convert_to_tensor_or_indexed_slices(g)
                except (TypeError, ValueError):
                    raise TypeError(f"Gradient must be convertible to a Tensor or IndexedSlices, or None: {g}") \
                        from None
            _check_optimizable(v)
            converted.append((g, v))
        var_list = [v for g, v in converted if g is not None]
        if not var_list:
            raise ValueError(f"No gradients provided for any variable: {[str(v) for _, v in converted]}.")
        with control_dependencies(None):
            self._create_slots(var_list)
        update_ops = []
        with name_scope(name, self._name) as name:
            self._prepare()
            for grad, var in converted:
                if grad is None:
                    continue
                with name_scope("update_" + var.op.name), colocate_with(var):
                    update_ops.append(_update_op(self, grad, var))
            if global_step is None:
                apply_updates = self._finish(update_ops, name)
            else:
                with control_dependencies([self._finish(update_ops, "update")]), colocate_with(global_step):
                    one = constant(1, dtype=global_step.dtype.base_dtype, name="value")
                    apply_updates = assign_add(global_step, one, name=name)
            if isinstance(apply_updates, Tensor):
                apply_updates = apply_updates.op
            train_op = get_collection_ref(GraphKeys.TRAIN_OP)
            if apply_updates not in train_op:
                train_op.append(apply_updates)
            return apply_updates

    # -- slots ----------------------------------------------------------------------------
    def get_slot(self, var, name: str):
        """The slot variable ``name`` (e.g. ``"momentum"``) created for ``var``, or None."""
        named_slots = self._slots.get(name)
        if not named_slots:
            return None
        return named_slots.get(_var_key(var))

    def get_slot_names(self) -> list:
        """The sorted names of the slots this optimizer created."""
        return sorted(self._slots)

    def variables(self) -> list:
        """The optimizer's variables in the default graph (slots and others), sorted by name."""
        graph = get_default_graph()
        found = [v for v in self._non_slot_dict.values() if v.graph is graph]
        for slots in self._slots.values():
            found.extend(v for v in slots.values() if v.graph is graph)
        return sorted(found, key=lambda v: v.name)

    def _slot_dict(self, slot_name: str) -> dict:
        return self._slots.setdefault(slot_name, {})

    def _get_or_make_slot(self, var, val, slot_name: str, op_name: str):
        """The slot ``slot_name`` of ``var``, created from the tensor ``val`` on first use."""
        named_slots = self._slot_dict(slot_name)
        if _var_key(var) not in named_slots:
            named_slots[_var_key(var)] = slot_creator.create_slot(var, val, op_name)
        return named_slots[_var_key(var)]

    def _get_or_make_slot_with_initializer(self, var, initializer, shape, dtype, slot_name: str, op_name: str):
        named_slots = self._slot_dict(slot_name)
        if _var_key(var) not in named_slots:
            named_slots[_var_key(var)] = slot_creator.create_slot_with_initializer(
                var, initializer, shape, dtype, op_name)
        return named_slots[_var_key(var)]

    def _zeros_slot(self, var, slot_name: str, op_name: str):
        """The slot ``slot_name`` of ``var``, created filled with zeros on first use."""
        named_slots = self._slot_dict(slot_name)
        if _var_key(var) not in named_slots:
            named_slots[_var_key(var)] = slot_creator.create_zeros_slot(var, op_name)
        return named_slots[_var_key(var)]

    def _create_non_slot_variable(self, initial_value, name: str, colocate_with):
        """A variable of the optimizer itself (Adam's ``beta1_power``), one per graph."""
        key = (name, colocate_with.graph)
        v = self._non_slot_dict.get(key)
        if v is None:
            with colocate_with.graph.colocate_with(colocate_with):
                v = Variable(initial_value, name=name, trainable=False)
            self._non_slot_dict[key] = v
        return v

    def _get_non_slot_variable(self, name: str, graph=None):
        return self._non_slot_dict.get((name, graph or get_default_graph()))

    def _non_slot_variables(self):
        return self._non_slot_dict.values()

    # -- what subclasses implement ------------------------------------------------------------
    def _create_slots(self, var_list) -> None:
        pass

    def _prepare(self) -> None:
        pass

    def _apply_dense(self, grad, var):
        raise NotImplementedError(f"{type(self).__name__} does not implement _apply_dense")

    def _apply_sparse_duplicate_indices(self, grad, var):
        """Applies the IndexedSlices ``grad`` with repeated rows summed first, as TF1 does."""
        values, indices = deduplicate_indexed_slices(grad.values, grad.indices)
        return self._apply_sparse(IndexedSlices(values, indices, grad.dense_shape), var)

    def _apply_sparse(self, grad, var):
        """The update for an IndexedSlices gradient without repeated rows: the ``Sparse`` twin of
        the optimizer's apply op (only the rows in ``grad.indices`` change, as in TF1), or the
        dense update on the densified gradient for optimizers TF1 updates densely (Adam). A
        subclass's own ``_apply_dense`` gets the densified gradient."""
        if not type(self)._apply_dense.__module__.startswith("dflow."):
            return self._apply_dense(convert_to_tensor(grad), var)
        with sparse_rows(grad):
            return self._apply_dense(grad.values, var)

    def _finish(self, update_ops, name_scope: str):
        return group(*update_ops, name=name_scope)

    def _call_if_callable(self, param):
        return param() if callable(param) else param

    def _valid_dtypes(self) -> set:
        return {dtypes.float16, dtypes.float32, dtypes.float64}  # TF1 also has bfloat16; dflow does not

    def _assert_valid_dtypes(self, tensors) -> None:
        valid = self._valid_dtypes()
        for t in tensors:
            dtype = t.dtype.base_dtype
            if dtype not in valid:
                raise ValueError(f"Invalid type {dtype!r} for {t.name}, expected: {sorted(d.name for d in valid)}.")
