"""``FuncGraph``: a Python function traced into a graph of its own.

Control-flow ops (``tf.cond``, ``tf.while_loop``) hold their branches and
loop bodies as ``FuncGraph``s, as TF2's functional ``If`` and ``While`` do.
Tracing calls the user's function with the default graph set to a fresh
``FuncGraph``: its arguments are placeholders (``add_arg``), and every
tensor of an enclosing graph that the function uses is *captured*: the
first use creates a placeholder standing for it, and the control-flow op
takes the outer tensor as an extra input (``captures``). So the
sub-graph is closed: a session compiles it on its own, once, and calls it
with the argument values followed by the captured values.

Two kinds of capture:

* a tensor becomes a ``Placeholder`` fed the outer value when the op starts
  (reading ``v``, i.e. ``v/read``, inside a loop reads it once, as in TF1);
* a variable's own output (``v:0``, as ``v.read_value()`` and
  ``tf.assign``-style code use) becomes a fresh read of that variable inside
  the sub-graph, so each iteration sees the variable's current value.

Control dependencies on ops of an enclosing graph cannot live inside the
sub-graph; they are recorded in ``outer_control_inputs`` and become control
inputs of the control-flow op itself.

>>> import dflow as tf
>>> with tf.Graph().as_default():
...     x = tf.constant(2.0, name="x")
...     fg = FuncGraph("branch", x.graph)
...     with fg.as_default():
...         y = x * 3.0
>>> [(outer.name, inner.op.type) for outer, inner in fg.captures]
[('x:0', 'Placeholder')]
"""

from __future__ import annotations

from dflow.framework.graph import Graph, Tensor, _as_operation


class FuncGraph(Graph):
    """A graph traced from a function, nested in ``outer_graph``.

    ``inputs``: the argument placeholders (``n_args`` of them), then one
    tensor per captured outer tensor, in the order of ``captures``.
    ``outputs``: the traced function's results; a ``None`` entry is a
    padding output whose value is ``None`` (see ``If``'s gradient).
    ``control_outputs``: ops that must run whenever the graph runs.
    Op names start in ``name_scope`` (``"while"`` gives ``while/add``), but
    they are unique only within this graph.
    """

    def __init__(self, name: str, outer_graph: Graph, name_scope: str | None = None):
        super().__init__()
        self.name = name
        self.outer_graph = outer_graph
        self.inputs: list = []
        self.outputs: list = []
        self.control_outputs: list = []
        self.outer_control_inputs: list = []
        self.n_args = 0
        self.sealed = False
        self._captures: dict = {}  # tensor of outer_graph -> tensor of self
        self._aliases: dict = {}  # tensor of any enclosing graph -> tensor of self
        self._name_stack = outer_graph.get_name_scope() if name_scope is None else name_scope
        self._root_scope = self._name_stack
        self._seed = outer_graph.seed
        # One TF1 graph has one set of collections: share them with the enclosing graph.
        self._collections = outer_graph._collections
        self._device_stack = list(outer_graph._device_stack)
        self._gradient_override_map = dict(outer_graph._gradient_override_map)

    @property
    def building_function(self) -> bool:
        return True

    @property
    def captures(self) -> list:
        """``[(outer tensor, inner tensor), ...]`` in the order captured."""
        return list(self._captures.items())

    # -- arguments and captures ------------------------------------------------------
    def add_arg(self, dtype, shape, name: str = "arg") -> Tensor:
        """A new argument placeholder, inserted after the existing arguments."""
        from dflow.framework.op_registry import apply_op

        with self.as_default(), self.control_dependencies(None):
            op = apply_op("Placeholder", [], {"dtype": dtype, "shape": shape}, name=name, graph=self)
        op._attrs["name"] = op.name
        t = op.outputs[0]
        self.inputs.insert(self.n_args, t)
        self.n_args += 1
        return t

    def capture(self, tensor: Tensor) -> Tensor:
        """The tensor of this graph that stands for ``tensor`` of an enclosing graph."""
        if tensor._op._graph is self:
            return tensor
        inner = self._aliases.get(tensor)
        if inner is not None:
            return inner
        outer = tensor
        if tensor._op._graph is not self.outer_graph:
            if not isinstance(self.outer_graph, FuncGraph):
                raise ValueError(f"Tensor {tensor.name} is used in the {self.name} function but belongs to a graph "
                                 f"that does not enclose it.")
            outer = self.outer_graph.capture(tensor)
        inner = self._captures.get(outer)
        if inner is None:
            if self.sealed:
                raise ValueError(f"Cannot capture {tensor.name} into the {self.name} function: its control-flow "
                                 f"op has already been built.")
            inner = self._make_capture(outer)
            self._captures[outer] = inner
            self.inputs.append(inner)
        self._aliases[tensor] = inner
        self._aliases[outer] = inner
        return inner

    def _make_capture(self, outer: Tensor) -> Tensor:
        from dflow.framework.op_registry import apply_op

        var_op = outer._op
        scope = f"{self._root_scope}/" if self._root_scope else None
        with self.as_default(), self.control_dependencies(None), self.name_scope(scope):
            if var_op._type == "VariableV2":
                # A variable's own output: read it afresh inside, so updates made in an
                # iteration are seen by the next (TF1 reads ref variables through Enter).
                attrs = dict(var_op._attrs)
                attrs["shared_name"] = attrs["shared_name"] or var_op.name
                attrs["captured_read"] = True  # reads a variable of an enclosing graph, creates none
                op = apply_op("VariableV2", [], attrs, name=var_op.name.rsplit("/", 1)[-1], graph=self)
                return op.outputs[0]
            op = apply_op("Placeholder", [], {"dtype": outer.dtype, "shape": outer.shape}, name="Enter", graph=self)
            op._attrs["name"] = op.name
            return op.outputs[0]

    def replace_inputs(self, args: list, capture_outer: list) -> None:
        """Orders ``inputs`` as ``args`` then one entry per tensor of ``capture_outer``
        (capturing those this graph does not use yet, so that sibling graphs align)."""
        inner = [self.capture(t) for t in capture_outer]
        self.inputs = list(args) + inner
        self.n_args = len(args)

    def seal(self) -> None:
        """No more captures: the op that feeds them has been built."""
        self.sealed = True

    # -- control dependencies on enclosing graphs ----------------------------------------
    def control_dependencies(self, control_inputs):
        if control_inputs is None:
            return super().control_dependencies(None)
        inner = []
        for c in control_inputs:
            op = _as_operation(c)
            if op._graph is self:
                inner.append(op)
            else:
                self._add_outer_control_input(op)
        return super().control_dependencies(inner)

    def _add_outer_control_input(self, op) -> None:
        if op._graph is self.outer_graph:
            if op not in self.outer_control_inputs:
                self.outer_control_inputs.append(op)
        elif isinstance(self.outer_graph, FuncGraph):
            self.outer_graph._add_outer_control_input(op)
        else:
            raise ValueError(f"Control input {op.name} belongs to a graph that does not enclose the {self.name} "
                             f"function.")

    # -- op creation -------------------------------------------------------------------
    def _create_op(self, op_type, inputs, attrs, name, opdef, infer):
        if op_type == "VariableV2" and not attrs.get("captured_read"):
            raise ValueError(f"Cannot create variable {name.rstrip('/')!r} inside the {self.name} function of a "
                             f"tf.cond or tf.while_loop: dflow traces branches and loop bodies into sub-graphs, "
                             f"which hold no variables. Create the variable before the control-flow call and use it "
                             f"inside.")
        inputs = [t if t._op._graph is self else self.capture(t) for t in inputs]
        return super()._create_op(op_type, inputs, attrs, name, opdef, infer)

    def __repr__(self):
        return f"<dflow.FuncGraph {self.name!r} with {len(self._ops)} ops>"


def bump_structure_version(graph: Graph) -> None:
    """Invalidates cached plans of ``graph`` and every graph enclosing it."""
    while graph is not None:
        graph._structure_version += 1
        graph._version += 1
        graph = graph.outer_graph if isinstance(graph, FuncGraph) else None


def add_outputs(op, specs) -> list:
    """Appends outputs ``[(dtype, shape), ...]`` to an existing functional op.

    Gradients of ``If`` and ``While`` need values computed inside the
    forward op (TF2 rewrites the forward op the same way); plans built
    before are invalidated, so no run mixes old and new kernels.
    """
    start = len(op._outputs)
    new = tuple(Tensor(op, start + i, dt, shp) for i, (dt, shp) in enumerate(specs))
    op._outputs = op._outputs + new
    bump_structure_version(op._graph)
    return list(new)
