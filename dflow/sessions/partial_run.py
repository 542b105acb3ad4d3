"""``Session.partial_run``: one step of a graph run in several calls, feeds given as they come.

``partial_run_setup(fetches, feeds)`` declares everything the step will fetch and feed;
each ``partial_run(handle, fetches, feed_dict)`` feeds some of the feeds and fetches some of
the fetches. As in TF1, no op of the step runs twice: a later call reads the values an earlier
call made (a random number drawn once, an ``assign_add`` applied once). Each call is an
ordinary run of the session (planned, placed, on the embedded runtime or a cluster) with

* feeds: the step's feeds so far, and the values earlier calls kept;
* fetches: the call's own, and the values its ops make that the step's later fetches need
  (kept for them);
* the ops earlier calls ran marked done (``plan.prune_to_fetches(done=)``): a later op that
  waits for one by a control edge does not run it again.

Errors are TF1's ``InvalidArgumentError``s, with its messages: a fetch or feed not declared
in the setup, fetched or fed twice, a fetch that needs a feed not yet given, a handle that
no setup returned.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from dflow.framework import errors
from dflow.framework.graph import Tensor
from dflow.sessions import plan as planning
from dflow.sessions.fetches import FetchStructure

_handles = itertools.count(1)


@dataclass
class PartialRun:
    """The state of one partial-run step."""

    fetches: set  # the Tensors and Operations declared in the setup
    feeds: set  # the Tensors declared in the setup
    fed: dict = field(default_factory=dict)  # Tensor -> value fed so far
    kept: dict = field(default_factory=dict)  # Tensor -> value an earlier call made for a later one
    done: set = field(default_factory=set)  # Operations that ran
    fetched: set = field(default_factory=set)

    def finished(self) -> bool:
        return self.fetched >= self.fetches


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _name(element) -> str:
    return element.name


def setup(session, fetches, feeds) -> tuple:
    """``(handle, PartialRun)`` for ``partial_run_setup(fetches, feeds)``."""
    structure = FetchStructure(session.graph, fetches)
    feed_tensors = [session._feed_tensor(k) for k in (feeds or [])]
    for t in structure.tensors:
        if t in feed_tensors:
            raise _invalid(f"{t.name} is both fed and fetched.")
        if not session.graph.is_fetchable(t):
            raise ValueError(f"Operation {t.op.name!r} has been marked as not fetchable.")
    handle = (f"{','.join(_name(t) for t in feed_tensors)}->{','.join(_name(e) for e in structure.elements)}"
              f"//{next(_handles)}")
    return handle, PartialRun(set(structure.elements), set(feed_tensors))


def step(session, state: PartialRun, fetches, feed_dict):
    """Runs one ``partial_run`` call; returns the fetched values in ``fetches``' structure."""
    structure = FetchStructure(session.graph, fetches)
    for e in structure.elements:
        if e not in state.fetches:
            raise _invalid(f"The fetch {_name(e)} was not specified in partial_run_setup.")
        if e in state.fetched:
            raise _invalid(f"The fetch {_name(e)} has already been fetched.")
    feeds = session._convert_feeds(feed_dict) if feed_dict else {}
    for t in feeds:
        if t not in state.feeds:
            raise _invalid(f"The feed {t.name} was not specified in partial_run_setup.")
        if t in state.fed:
            raise _invalid(f"The feed {t.name} has already been fed.")
    known = {**state.kept, **state.fed, **feeds}
    tensors, targets = structure.tensors, [op for op in structure.targets if op not in state.done]
    ops = planning.prune_to_fetches(tensors, targets, set(known), state.done)
    for op in ops:
        if op._type == "Placeholder" and op._outputs[0] in state.feeds:
            raise _invalid(f"Fetch {op._outputs[0].name} can't be computed from the feeds that have been fed so far.")
    # What the step's other fetches will need from this call's ops: kept for them.
    later = [e for e in state.fetches - state.fetched - set(structure.elements)]
    ran = set(ops)
    made = {t for op in ops for t in op._outputs}
    needed = planning.prune_to_fetches([e for e in later if isinstance(e, Tensor)],
                                       [e for e in later if not isinstance(e, Tensor) and e not in state.done],
                                       set(known) | made, state.done | ran)
    keep = list(dict.fromkeys(t for op in needed for t in op._inputs if t in made))
    keep += [e for e in later if isinstance(e, Tensor) and e in made and e not in keep]
    values = session._run_elements(tensors + keep, targets, known, state.done)
    state.fed.update(feeds)
    state.kept.update(zip(keep, values[len(tensors):]))
    state.done |= ran
    state.fetched |= set(structure.elements)
    by_tensor = dict(zip(tensors, values))
    return structure.rebuild([by_tensor.get(e) for e in structure.elements])
