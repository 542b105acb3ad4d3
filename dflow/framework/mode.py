"""Execution-mode switches of ``tf.compat.v1``. dflow is always in graph mode,
so the switches that ask for graph mode hold already and those that ask for
eager mode are refused."""

from __future__ import annotations

from dflow._api import tf_export


@tf_export("executing_eagerly")
def executing_eagerly() -> bool:
    """Always False: dflow builds graphs and runs them in sessions."""
    return False


@tf_export("disable_eager_execution")
def disable_eager_execution() -> None:
    """Graph mode is dflow's only mode; nothing to switch."""
    return None


@tf_export("disable_v2_behavior")
def disable_v2_behavior() -> None:
    """TF1 behaviour is dflow's only behaviour; nothing to switch."""
    return None


@tf_export("enable_eager_execution")
def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """Refused: dflow runs TF1 graphs in sessions, it has no eager mode."""
    raise NotImplementedError("dflow runs TF1 graphs in sessions and has no eager mode; build a graph and "
                              "run it with tf.Session().")


@tf_export("enable_v2_behavior")
def enable_v2_behavior() -> None:
    """Refused: TF2 behaviour means eager execution and ``tf.function``, which dflow does not have."""
    raise NotImplementedError("enable_v2_behavior: dflow runs TF1 graphs in sessions; it has no eager mode or "
                              "tf.function. Remove the call (TF1 behaviour is dflow's default).")


@tf_export("executing_eagerly_outside_functions")
def executing_eagerly_outside_functions() -> bool:
    """Always False: outside functions too, dflow builds graphs."""
    return False


# -- control flow v2 ----------------------------------------------------------------------

@tf_export("control_flow_v2_enabled")
def control_flow_v2_enabled() -> bool:
    """True: dflow's ``cond`` and ``while_loop`` always build functional ``If``/``While`` ops (TF's v2 form)."""
    return True


@tf_export("enable_control_flow_v2")
def enable_control_flow_v2() -> None:
    """Functional control flow is dflow's only kind; nothing to switch."""
    return None


@tf_export("disable_control_flow_v2")
def disable_control_flow_v2() -> None:
    """Accepted, but dflow keeps its functional ``If``/``While`` ops: it has no ``Switch``/``Merge`` frames.

    Results and gradients are TF1's either way (see docs/porting.md); only
    the op types in the graph differ.
    """
    return None


# -- resource variables -----------------------------------------------------------------------

_resource_variables = [False]


@tf_export("resource_variables_enabled")
def resource_variables_enabled() -> bool:
    """Whether ``tf.Variable``/``get_variable`` make resource variables when ``use_resource`` is not given."""
    return _resource_variables[0]


@tf_export("enable_resource_variables")
def enable_resource_variables() -> None:
    """New variables default to resource semantics (a read keeps the value it read), as TF1's switch."""
    _resource_variables[0] = True


@tf_export("disable_resource_variables")
def disable_resource_variables() -> None:
    """New variables default to ref semantics again (TF1's default)."""
    _resource_variables[0] = False


# -- tensor equality and shapes --------------------------------------------------------------

@tf_export("enable_tensor_equality")
def enable_tensor_equality() -> None:
    """Refused: dflow's ``Tensor ==`` compares identity (TF1), and graphs key tensors by it."""
    raise NotImplementedError("enable_tensor_equality: dflow keeps TF1's Tensor equality (identity, tensors "
                              "hashable); compare values with tf.equal(x, y)")


@tf_export("disable_tensor_equality")
def disable_tensor_equality() -> None:
    """TF1's identity equality is dflow's only kind; nothing to switch."""
    return None


@tf_export("enable_v2_tensorshape")
def enable_v2_tensorshape() -> None:
    """Refused: dflow's ``TensorShape`` indexing gives ``Dimension`` objects (TF1), and its shape rules rely on it."""
    raise NotImplementedError("enable_v2_tensorshape: dflow keeps TF1's TensorShape (shape[i] is a Dimension); "
                              "use shape.as_list()[i] or tf.compat.dimension_value(shape[i]) for an int or None")


@tf_export("disable_v2_tensorshape")
def disable_v2_tensorshape() -> None:
    """TF1's ``Dimension``-valued ``TensorShape`` is dflow's only kind; nothing to switch."""
    return None
