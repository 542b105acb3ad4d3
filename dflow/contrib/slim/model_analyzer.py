"""``slim.model_analyzer``: the sizes of a model's variables and operations, printed as TF-slim printed them."""

from __future__ import annotations


def tensor_description(var) -> str:
    """``(dtype d0xd1x...)``, ``?`` for an unknown dimension."""
    dims = var.shape.as_list() if var.shape.ndims is not None else []
    return "(" + var.dtype.base_dtype.name + " " + "x".join("?" if d is None else str(d) for d in dims) + ")"


def _num_elements(t) -> int:
    return (t.shape.num_elements() or 0) if t.shape.ndims is not None else 0


def analyze_ops(graph, print_info=False) -> int:
    """The total number of elements of every operation's outputs (printed per operation with ``print_info``)."""
    if print_info:
        print("---------")
        print("Operations: name -> (type shapes) [size]")
        print("---------")
    total_size = 0
    for op in graph.get_operations():
        op_size = sum(_num_elements(output) for output in op.outputs)
        if print_info:
            shapes = [tensor_description(output) for output in op.outputs if output.shape.ndims]
            print(op.name, "\t->", ", ".join(shapes), "[" + str(op_size) + "]")
        total_size += op_size
    return total_size


def analyze_vars(variables, print_info=False) -> tuple:
    """``(total number of elements, total bytes)`` of ``variables`` (printed per variable with ``print_info``)."""
    if print_info:
        print("---------")
        print("Variables: name (type shape) [size]")
        print("---------")
    total_size = 0
    total_bytes = 0
    for var in variables:
        var_size = _num_elements(var)
        var_bytes = var_size * var.dtype.base_dtype.size
        total_size += var_size
        total_bytes += var_bytes
        if print_info:
            print(var.name, tensor_description(var), f"[{var_size}, bytes: {var_bytes}]")
    if print_info:
        print(f"Total size of variables: {total_size}")
        print(f"Total bytes of variables: {total_bytes}")
    return total_size, total_bytes
