"""Scatters into a tensor (``tensor_scatter_nd_*``) and into a variable (``scatter_nd_*``,
``scatter_div/min/max``, ``batch_scatter_update``).

``tensor_scatter_nd_update(tensor, indices, updates)`` is a copy of
``tensor`` with the slices at the index tuples in ``indices``' last axis
replaced (or added to, subtracted from, min-ed or max-ed with) ``updates``;
repeated indices accumulate (update: one of them wins). Indices out of range
are an ``InvalidArgumentError`` naming their position, as TF1's CPU kernels.

The variable forms are stateful ops on a variable's session state, built
like ``scatter_update`` in ``variables``.
"""

from __future__ import annotations

import numpy as np

from dflow._api import tf_export
from dflow.framework import errors
from dflow.framework.constant_op import convert_to_tensor
from dflow.framework.graph import Tensor, name_scope
from dflow.framework.op_registry import apply_op, gradient, not_differentiable, register
from dflow.framework.tensor_shape import TensorShape
from dflow.kernels import array_module
from dflow.ops._common import invalid_argument as _invalid
from dflow.ops.array.gather_ops import gather_nd, scatter_nd
from dflow.ops.array.index_args import dims_str, host, index_tensor, with_rank_at_least
from dflow.ops.state.variables import _dtype_of, _scatter, _scatter_infer, _state, _update_op, _var_op


def _nd_updates_shape(tensor_shape: TensorShape, indices_shape: TensorShape):
    """The shape ``updates`` must have: ``indices.shape[:-1] + tensor.shape[k:]`` (None if unknown)."""
    if tensor_shape.ndims is None or indices_shape.ndims is None or indices_shape[-1].value is None:
        return None
    k = indices_shape[-1].value
    if k > tensor_shape.ndims:
        raise ValueError(f"Outer dimensions of indices and update must match. Index depth {k} is greater than "
                         f"the rank of the tensor {tensor_shape.ndims}")
    return indices_shape[:-1].concatenate(tensor_shape[k:])


def _check_nd_indices(indices, shape) -> None:
    """TF1's range check of scatter index tuples, naming the first bad one."""
    xp = array_module(indices)
    k = indices.shape[-1]
    bounds = xp.asarray(shape[:k], dtype=indices.dtype)
    bad = ((indices < 0) | (indices >= bounds)).any(axis=-1)
    if bad.any():
        pos = np.argwhere(np.asarray(host(bad)))[0]
        value = np.asarray(host(indices))[tuple(pos)]
        raise _invalid(f"indices[{','.join(map(str, pos))}] = [{', '.join(map(str, value.tolist()))}] does not "
                       f"index into shape {dims_str(shape)}")


def _apply_nd(kind: str, out, indices, updates) -> None:
    """``out[indices] (kind)= updates`` in place, accumulating repeated index tuples."""
    _check_nd_indices(indices, out.shape)
    k = indices.shape[-1]
    want = indices.shape[:-1] + out.shape[k:]
    if updates.shape != want:
        raise _invalid(f"Dimensions [0,{indices.ndim - 1}) of indices[shape={dims_str(indices.shape)}] = "
                       f"{dims_str(indices.shape[:-1])} must match dimensions [0,{indices.ndim - 1}) of "
                       f"updates[shape={dims_str(updates.shape)}], and updates must have shape {dims_str(want)}")
    index = tuple(indices[..., j] for j in range(k))
    xp = array_module(out, indices, updates)
    if kind == "update":
        out[index] = updates
    elif xp is np:
        {"add": np.add, "sub": np.subtract, "min": np.minimum, "max": np.maximum}[kind].at(out, index, updates)
    else:  # CuPy: scatter_add/min/max, and sub as the add of a negation
        import cupyx

        fn = {"add": cupyx.scatter_add, "sub": cupyx.scatter_add, "min": cupyx.scatter_min,
              "max": cupyx.scatter_max}[kind]
        fn(out, index, -updates if kind == "sub" else updates)


class _TruncatingDivide:
    """``divide.at`` over rows with C's integer division (TF's ``ScatterDiv`` on ints truncates toward zero)."""

    @staticmethod
    def at(out, index, values):
        if out.dtype.kind in "fc":
            np.divide.at(out, index, values)
            return
        index = np.asarray(index)
        values = np.broadcast_to(values, index.shape + out.shape[1:])
        for i, v in zip(index.reshape(-1), values.reshape((-1,) + out.shape[1:])):
            q = np.abs(out[i]) // np.abs(v)
            out[i] = np.where((out[i] < 0) != (v < 0), -q, q)


_divide = _TruncatingDivide()


# -- TensorScatterUpdate / Add / Sub / Min / Max ----------------------------------------------------


def _tensor_scatter_infer(op):
    tensor, indices, updates = op._inputs
    with_rank_at_least(indices.shape, 1)
    want = _nd_updates_shape(tensor.shape, indices.shape)
    if want is not None and not want.is_compatible_with(updates.shape):
        raise ValueError(f"Dimensions of updates {updates.shape} must be indices.shape[:-1] + "
                         f"tensor.shape[indices.shape[-1]:] = {want}")
    return [(tensor.dtype, tensor.shape)]


def _tensor_scatter_kernel(tensor, indices, updates, kind):
    out = tensor.copy()
    _apply_nd(kind, out, indices, updates)
    return out


def _tensor_scatter_api(kind: str, op_type: str, names: tuple):
    register(op_type, infer=_tensor_scatter_infer, kernel=_tensor_scatter_kernel)

    def fn(tensor, indices, updates, name=None) -> Tensor:
        with name_scope(name, op_type, [tensor, indices, updates]) as scope:
            tensor = convert_to_tensor(tensor, name="tensor")
            indices = index_tensor(indices, "indices")
            updates = convert_to_tensor(updates, dtype=tensor.dtype, name="updates")
            return apply_op(op_type, [tensor, indices, updates], {"kind": kind}, name=scope).outputs[0]

    fn.__name__ = names[0]
    fn.__doc__ = (f"A copy of ``tensor`` whose slices at the index tuples of ``indices`` are {kind}d with "
                  f"``updates``.\n\n"
                  f"    >>> import dflow as tf\n"
                  f"    >>> tf.{names[0]}([1, 2, 3], [[0], [2]], [5, 5]).shape\n"
                  f"    TensorShape([3])\n")
    return tf_export(*names)(fn)


tensor_scatter_nd_update = _tensor_scatter_api(
    "update", "TensorScatterUpdate", ("tensor_scatter_nd_update", "tensor_scatter_update"))
tensor_scatter_nd_add = _tensor_scatter_api("add", "TensorScatterAdd", ("tensor_scatter_nd_add", "tensor_scatter_add"))
tensor_scatter_nd_sub = _tensor_scatter_api("sub", "TensorScatterSub", ("tensor_scatter_nd_sub", "tensor_scatter_sub"))
tensor_scatter_nd_min = _tensor_scatter_api("min", "TensorScatterMin", ("tensor_scatter_nd_min",))
tensor_scatter_nd_max = _tensor_scatter_api("max", "TensorScatterMax", ("tensor_scatter_nd_max",))


@gradient("TensorScatterUpdate")
def _tensor_scatter_update_grad(op, grad):
    from dflow.ops.array.creation_ops import zeros_like

    _, indices, updates = op._inputs
    return [tensor_scatter_nd_update(grad, indices, zeros_like(updates)), None, gather_nd(grad, indices)]


@gradient("TensorScatterAdd")
def _tensor_scatter_add_grad(op, grad):
    return [grad, None, gather_nd(grad, op._inputs[1])]


@gradient("TensorScatterSub")
def _tensor_scatter_sub_grad(op, grad):
    from dflow.ops.math.math_ops import negative

    return [grad, None, negative(gather_nd(grad, op._inputs[1]))]


def _tensor_scatter_min_max_grad(op, grad):
    """TF's rule: the gradient goes to the entries equal to the output, split evenly among ties."""
    from dflow.ops.array.shape_ops import shape
    from dflow.ops.math.math_ops import cast, divide, equal, multiply

    x, indices, y = op._inputs
    out = op._outputs[0]
    x_ind = cast(equal(x, out), grad.dtype)
    y_ind = cast(equal(y, gather_nd(out, indices)), grad.dtype)
    shape_x = x.shape.as_list() if x.shape.is_fully_defined() else shape(x)
    ind = x_ind + scatter_nd(indices, y_ind, shape_x)
    return [divide(multiply(grad, x_ind), ind), None, multiply(gather_nd(divide(grad, ind), indices), y_ind)]


gradient("TensorScatterMin")(_tensor_scatter_min_max_grad)
gradient("TensorScatterMax")(_tensor_scatter_min_max_grad)


# -- variables: ScatterDiv / Min / Max, ScatterNdUpdate / Add / Sub ---------------------------------


register("ScatterDiv", infer=_scatter_infer, make_kernel=_scatter(_divide.at), stateful=True)
register("ScatterMin", infer=_scatter_infer, make_kernel=_scatter(np.minimum.at), stateful=True)
register("ScatterMax", infer=_scatter_infer, make_kernel=_scatter(np.maximum.at), stateful=True)


def _scatter_nd_var_infer(op):
    var, indices, updates = op._attrs["var"], op._inputs[0], op._inputs[1]
    if not indices.dtype.is_integer:
        raise TypeError(f"scatter indices must be int32 or int64, got {indices.dtype.name}")
    vshape = var.outputs[0].shape
    want = _nd_updates_shape(vshape, with_rank_at_least(indices.shape, 1))
    if want is not None and not want.is_compatible_with(updates.shape):
        raise ValueError(f"Dimensions of updates {updates.shape} must be indices.shape[:-1] + "
                         f"ref.shape[indices.shape[-1]:] = {want}")
    return [(var._attrs["dtype"], vshape)]


def _scatter_nd_var(kind: str):
    def make(op, resources):
        st = _state(op, op._attrs["var"], resources)

        def kernel(indices, updates):
            def apply(value):
                new = value.copy()
                try:
                    _apply_nd(kind, new, indices, updates)
                except errors.InvalidArgumentError as e:
                    raise errors.InvalidArgumentError(None, None, f"{e.message} (variable {st.name})") from None
                return new

            return st.update(apply)

        return kernel

    return make


for _kind, _t in (("update", "ScatterNdUpdate"), ("add", "ScatterNdAdd"), ("sub", "ScatterNdSub")):
    register(_t, infer=_scatter_nd_var_infer, make_kernel=_scatter_nd_var(_kind), stateful=True)
for _t in ("ScatterDiv", "ScatterMin", "ScatterMax", "ScatterNdUpdate", "ScatterNdAdd", "ScatterNdSub"):
    not_differentiable(_t)


def _variable_scatter_fn(op_type: str, public: str, what: str, use_locking_default: bool):
    def fn(ref, indices, updates, use_locking: bool = use_locking_default, name=None) -> Tensor:
        var_op = _var_op(ref, f"tf.{public}")
        indices = convert_to_tensor(indices)
        updates = convert_to_tensor(updates, dtype=_dtype_of(var_op))
        with name_scope(name, op_type, [indices, updates]) as scope:
            return _update_op(op_type, var_op, [indices, updates], {}, scope)

    fn.__name__ = public
    fn.__doc__ = f"``{public}(ref, indices, updates)``: {what}; returns the variable's new value."
    return tf_export(public)(fn)


scatter_div = _variable_scatter_fn("ScatterDiv", "scatter_div", "divides the rows ``indices`` of a variable", False)
scatter_min = _variable_scatter_fn("ScatterMin", "scatter_min", "the minimum of rows ``indices`` and updates", False)
scatter_max = _variable_scatter_fn("ScatterMax", "scatter_max", "the maximum of rows ``indices`` and updates", False)
scatter_nd_update = _variable_scatter_fn("ScatterNdUpdate", "scatter_nd_update",
                                         "replaces a variable's slices at the index tuples ``indices``", True)
scatter_nd_add = _variable_scatter_fn("ScatterNdAdd", "scatter_nd_add",
                                      "adds to a variable's slices at the index tuples ``indices``", False)
scatter_nd_sub = _variable_scatter_fn("ScatterNdSub", "scatter_nd_sub",
                                      "subtracts from a variable's slices at the index tuples ``indices``", False)


@tf_export("batch_scatter_update")
def batch_scatter_update(ref, indices, updates, use_locking: bool = True, name=None) -> Tensor:
    """``ref[i..., indices[i..., j]] = updates[i..., j]``: a ``scatter_update`` per batch row.

    TF1 builds the batch index tuples with range, reshape and concat ops and
    calls ``scatter_nd_update``; so does dflow.
    """
    from dflow.ops.array.array_ops import concat, expand_dims, ones_like, reshape
    from dflow.ops.array.creation_ops import range as range_
    from dflow.ops.array.shape_ops import shape
    from dflow.ops.math.math_ops import cast

    with name_scope(name, "BatchScatterUpdate"):
        indices = convert_to_tensor(indices, name="indices")
        rank = indices.shape.ndims
        if rank is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        nd_indices = expand_dims(indices, axis=-1)
        shape_i = shape(indices)
        columns = []
        for d in range(rank - 1):
            broadcast = [1] * (rank + 1)
            broadcast[d] = -1
            dim_range = cast(reshape(range_(0, shape_i[d]), broadcast), indices.dtype)
            columns.append(dim_range * ones_like(nd_indices))
        columns.append(nd_indices)
        return scatter_nd_update(ref, concat(columns, axis=-1), updates, use_locking=use_locking)
