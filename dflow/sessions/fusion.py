"""Fused ops: a product with the bias add and activation that finish it (TF's remapper).

TF1's default graph optimizer (grappler's remapper) runs ``MatMul`` or ``Conv2D``, then
``BiasAdd`` (or an ``Add`` of a bias row), then an activation (``Relu``, ``Relu6``, ``Elu``,
``LeakyRelu``, ``Tanh``, ``Sigmoid``), as one ``_FusedMatMul`` or ``_FusedConv2D`` op.
dflow does the same when it compiles a partition's program: the product writes the bias into
its output first and adds itself to it in the one BLAS call (``_blas.biased_product``), then
applies the activation to each block of the output while the block is fresh. Each separate
op would read and write the whole output once more (a language model's 700 x 10 000 logits
plus their bias: 16.3 against 9.6 ms).

A chain is fused when, in the partition:

* the product's output is read by the bias op alone, and the bias op's by the activation
  alone (when there is one); none of them is fetched, fed, or read by another partition;
* no op waits for an op that moves (the product, and the bias op when the activation is
  fused) by a control edge: a fused op runs where its last op ran;
* the bias is a float32 or float64 vector as long as the product's last (static) dimension,
  with the product's dtype; ``BiasAdd`` and ``Conv2D`` are channels-last; the partition is
  not a GPU's.

At run time, outputs under ``FUSED_ELEMENTS`` elements, and inputs other than numpy arrays of
that dtype and length, take the ops one by one, so every error is the error of the op that
raises it, named as that op. Traces
(``RunOptions.FULL_TRACE``) show a fused op under the name of its last op, typed
``_FusedMatMul`` or ``_FusedConv2D``, as TF's do. ``DFLOW_FUSE_OPS=0`` in the environment
turns fusion off.

Results are the unfused ops' to the last bit where BLAS does not split the product's inner
dimension; where it does, the bias joins the sum first and the last bit may differ, as TF's
fused ops differ from its unfused ones.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from dflow.framework import dtypes
from dflow.framework.tensor_shape import dimension_value

HEADS = ("MatMul", "Conv2D")  # their kernels take bias= and finish= (see _blas.matmul, conv_ops._conv)
BIAS_OPS = ("BiasAdd", "Add", "AddV2")
_LABELS = {"MatMul": "_FusedMatMul", "Conv2D": "_FusedConv2D"}
_DTYPES = (dtypes.float32, dtypes.float64)


# Outputs under this many elements run the ops one by one: the fused op's checks and wrappers cost
# more than the pass it saves (50 x 5 plus bias and Relu: 14.7 us fused against 12.4; 20 x 512:
# 75 against 80).
FUSED_ELEMENTS = 1 << 11


def _matmul_rows(op):
    axis = 1 if op._attrs.get("transpose_a") else 0
    return lambda a: a.shape[axis] if a.ndim == 2 else 0


def _conv_rows(op):
    return lambda x: x.size // x.shape[-1] if x.ndim == 4 and x.shape[-1] else 0  # positions, before strides


_ROWS = {"MatMul": _matmul_rows, "Conv2D": _conv_rows}  # output rows of a product, from its first input


def _relu_in_place(block):
    np.maximum(block, block.dtype.type(0), out=block)  # the Relu kernel's arithmetic


_relu_in_place.eltwise = "relu"  # kernels that can apply it themselves do (conv_ops: oneDNN's post-op)


def _tanh_in_place(block):
    np.tanh(block, out=block)  # the Tanh kernel is np.tanh


# Activations a fused op applies to each block of its output: in place where that is the kernel's
# own arithmetic, else the activation's kernel on the block, copied back (the same values).
ACTIVATIONS = ("Relu", "Relu6", "Elu", "LeakyRelu", "Tanh", "Sigmoid")
_IN_PLACE = {"Relu": _relu_in_place, "Tanh": _tanh_in_place}


def _finish(act_type: str, kernel):
    in_place = _IN_PLACE.get(act_type)
    if in_place is not None:
        return in_place

    def finish(block):
        np.copyto(block, kernel(block))

    return finish


@dataclass(frozen=True)
class Fusion:
    """A fused chain of a partition's ops: ``positions`` (product, bias op[, activation]) in the
    partition's order; it runs at the last one's."""

    positions: tuple
    label: str  # the fused op's type in traces
    bias_first: bool  # the bias op is Add(bias, product)
    inputs: tuple  # the tensors it reads: the product's inputs, then the bias


def enabled() -> bool:
    return os.environ.get("DFLOW_FUSE_OPS", "1") != "0"


def fusions_of(partition) -> dict:
    """``{position of the last op: Fusion}`` of ``partition``, found once and kept on it."""
    found = getattr(partition, "fusions", None)
    if found is None:
        found = find_fusions(partition) if enabled() else {}
        partition.fusions = found
    return found


def find_fusions(partition) -> dict:
    """The fusable chains of ``partition`` (see the module's docstring), by their last position."""
    ops = partition.ops
    if "GPU" in (partition.device or "").upper() or not any(op._type in HEADS for op in ops):
        return {}
    reads: dict = {}
    reader: dict = {}
    waited_for = set()
    for op in ops:
        for t in op._inputs:
            reads[t] = reads.get(t, 0) + 1
            reader[t] = op
        waited_for.update(op._control_inputs)
    external = set(partition.inputs) | set(partition.outputs)
    position = {op: i for i, op in enumerate(ops)}

    def sole_reader(t):
        return reader[t] if reads.get(t) == 1 and t not in external else None

    fusions: dict = {}
    for i, head in enumerate(ops):
        if head._type not in HEADS or head in waited_for or not _head_fits(head):
            continue
        product = head._outputs[0]
        bias_op = sole_reader(product)
        bias, bias_first = _bias_of(bias_op, product)
        if bias is None:
            continue
        chain = [i, position[bias_op]]
        if bias_op not in waited_for:
            act = sole_reader(bias_op._outputs[0])
            if act is not None and act._type in ACTIVATIONS:
                chain.append(position[act])
        fusions[chain[-1]] = Fusion(tuple(chain), _LABELS[head._type], bias_first, tuple(head._inputs) + (bias,))
    return fusions


def _channels(t):
    """The static last dimension of ``t`` as an int, or None."""
    return dimension_value(t.shape[-1]) if t.shape.ndims else None


def _head_fits(head) -> bool:
    out = head._outputs[0]
    if out.dtype not in _DTYPES or _channels(out) is None:
        return False
    return head._type != "Conv2D" or head._attrs.get("data_format", "NHWC") == "NHWC"


def _bias_of(op, product):
    """``(bias tensor, whether it comes first)`` when ``op`` adds a bias row to ``product``."""
    if op is None or op._type not in BIAS_OPS:
        return None, False
    a, b = op._inputs
    if op._type == "BiasAdd":
        if a is not product or op._attrs.get("data_format", "NHWC") == "NCHW":
            return None, False
        bias, first = b, False
    elif a is product and b is not product:
        bias, first = b, False
    elif b is product and a is not product:
        bias, first = a, True
    else:
        return None, False
    if bias.dtype != product.dtype or bias.shape.ndims != 1 or _channels(bias) != _channels(product):
        return None, False
    return bias, first


def fused_kernel(fusion: Fusion, ops: list, kernels: list, attribute):
    """The kernel of a fused chain: ``(*product inputs, bias) -> activation's (or bias op's) output``.

    ``ops`` and ``kernels`` are the partition's; ``attribute(exc, op)`` makes the error of ``op``
    from an exception its kernel raised."""
    chain = [ops[i] for i in fusion.positions]
    head, bias_op = chain[0], chain[1]
    act = chain[2] if len(chain) > 2 else None
    k_head, k_bias = kernels[fusion.positions[0]], kernels[fusion.positions[1]]
    k_act = kernels[fusion.positions[2]] if act is not None else None
    finish = _finish(act._type, k_act) if act is not None else None
    n_head = len(head._inputs)
    dtype = head._outputs[0].dtype._np
    channels = _channels(head._outputs[0])  # an int: a Dimension's arithmetic would cost each call
    rows = _ROWS[head._type](head)

    def one_by_one(*args):
        op = head  # the op whose kernel runs, for its error
        try:
            y = k_head(*args[:n_head])
            op = bias_op
            y = k_bias(args[n_head], y) if fusion.bias_first else k_bias(y, args[n_head])
            if act is not None:
                op = act
                y = k_act(y)
            return y
        except Exception as e:
            raise attribute(e, op) from e

    def fused(*args):
        bias = args[n_head]
        if (rows(args[0]) * channels < FUSED_ELEMENTS
                or not (type(bias) is np.ndarray and bias.dtype == dtype and bias.shape == (channels,)
                        and all(type(a) is np.ndarray and a.dtype == dtype for a in args[:n_head]))):
            return one_by_one(*args)
        try:
            return k_head(*args[:n_head], bias=bias, finish=finish)
        except Exception as e:  # the bias and activation cannot fail once checked: the product did
            raise attribute(e, head) from e

    return fused
