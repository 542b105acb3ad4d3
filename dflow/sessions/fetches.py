"""Fetch structures: flatten any nesting of fetches to unique graph elements,
and rebuild the results in the caller's structure (TF1's fetch mappers)."""

from __future__ import annotations

from collections.abc import Callable

from dflow.framework.composite import CompositeTensor
from dflow.framework.graph import Graph, Operation, Tensor


def _resolve(graph: Graph, fetch):
    if fetch is None:
        raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)!r}")
    try:
        return graph.as_graph_element(fetch, allow_tensor=True, allow_operation=True)
    except TypeError as e:
        raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)!r}, must be a string or "
                        f"Tensor. ({e})") from None
    except (ValueError, KeyError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
        raise ValueError(f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. ({msg})") from None


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


class FetchStructure:
    """Flattens ``fetches`` once; ``rebuild(values)`` restores the nesting.

    ``elements`` are the unique Tensors and Operations, in first-seen order.

    >>> import dflow as tf
    >>> c = tf.constant(1)
    >>> fs = FetchStructure(c.graph, {"a": [c, c]})
    >>> fs.elements == [c], fs.rebuild([5])
    (True, {'a': [5, 5]})
    """

    def __init__(self, graph: Graph, fetches):
        self.elements: list = []
        self._index: dict = {}
        self._builder = self._build(graph, fetches)

    def _add(self, element) -> int:
        i = self._index.get(element)
        if i is None:
            i = self._index[element] = len(self.elements)
            self.elements.append(element)
        return i

    def _build(self, graph: Graph, fetches) -> Callable:
        if isinstance(fetches, (list, tuple)):
            subs = [self._build(graph, f) for f in fetches]
            if _is_namedtuple(fetches):
                cls = type(fetches)
                return lambda vals: cls(*[s(vals) for s in subs])
            cls = type(fetches)
            if cls is list:
                return lambda vals: [s(vals) for s in subs]
            if cls is tuple:
                return lambda vals: tuple(s(vals) for s in subs)
            return lambda vals: cls(s(vals) for s in subs)
        if isinstance(fetches, dict):
            keys = list(fetches)
            subs = [self._build(graph, fetches[k]) for k in keys]
            cls = type(fetches)
            return lambda vals: cls(zip(keys, [s(vals) for s in subs]))
        if isinstance(fetches, CompositeTensor):  # SparseTensor, IndexedSlices: fetched by their components
            parts = [self._build(graph, t) for t in fetches._fetch_components()]
            return lambda vals: fetches._value_from_components([p(vals) for p in parts])
        element = _resolve(graph, fetches)
        i = self._add(element)
        if isinstance(element, Operation):
            return lambda vals: None
        return lambda vals: vals[i]

    def rebuild(self, values: list):
        return self._builder(values)

    @property
    def tensors(self) -> list:
        return [e for e in self.elements if isinstance(e, Tensor)]

    @property
    def targets(self) -> list:
        return [e for e in self.elements if isinstance(e, Operation)]
