"""Planning steps as pure functions on five-node graphs."""

import dask
import pytest

import dflow as tf
from dflow.placement.placer import LOCAL_CPU, place
from dflow.sessions.lowering import lower
from dflow.sessions.plan import partition_by_device, prune_to_fetches

GPU = "/job:localhost/replica:0/task:0/device:GPU:0"


@pytest.fixture
def five():
    """a, b constants; c = a + b; d = -b; e = c * d."""
    a = tf.constant(1.0, name="a")
    b = tf.constant(2.0, name="b")
    c = tf.add(a, b, name="c")
    d = tf.negative(b, name="d")
    e = tf.multiply(c, d, name="e")
    return a, b, c, d, e


def names(ops):
    return [op.name for op in ops]


def test_prune_orders_and_drops_unneeded(five):
    a, b, c, d, e = five
    assert names(prune_to_fetches([c], [], set())) == ["a", "b", "c"]
    assert names(prune_to_fetches([e], [], set())) == ["a", "b", "c", "d", "e"]
    assert names(prune_to_fetches([d], [], set())) == ["b", "d"]


def test_prune_stops_at_fed_tensors(five):
    a, b, c, d, e = five
    assert names(prune_to_fetches([e], [], {c})) == ["b", "d", "e"]
    assert names(prune_to_fetches([c], [], {c})) == []


def test_prune_follows_control_inputs_and_targets(five):
    a, b, c, d, e = five
    with tf.control_dependencies([d]):
        f = tf.identity(a, name="f")
    assert names(prune_to_fetches([f], [], set())) == ["a", "b", "d", "f"]
    assert names(prune_to_fetches([], [d.op], set())) == ["b", "d"]


def test_place_defaults_and_requests(five):
    a, b, c, d, e = five
    d.op._set_device("/device:GPU:0")
    placement = place([a.op, d.op], [LOCAL_CPU, GPU], LOCAL_CPU)
    assert placement == {a.op: LOCAL_CPU, d.op: GPU}


def test_partition_single_device_is_one_partition(five):
    a, b, c, d, e = five
    ops = prune_to_fetches([e], [], set())
    (p,) = partition_by_device(ops, {op: LOCAL_CPU for op in ops}, set(), [e])
    assert names(p.ops) == ["a", "b", "c", "d", "e"]
    assert p.inputs == [] and p.outputs == [e] and p.upstream == []


def test_partition_splits_round_trips_into_a_dag():
    a = tf.identity(tf.constant(1.0, name="a0"), name="a")
    b = tf.identity(tf.constant(2.0, name="b0"), name="b")
    c = tf.add(a, b, name="c")
    d = tf.negative(b, name="d")
    e = tf.multiply(c, d, name="e")
    ops = prune_to_fetches([e], [], set())
    # c runs on the GPU; the rest on the CPU: CPU -> GPU -> CPU. d waits for
    # nothing on the GPU, but only e reads it: it joins e's partition.
    placement = {op: (GPU if op is c.op else LOCAL_CPU) for op in ops}
    parts = partition_by_device(ops, placement, set(), [e])
    assert [(p.device, names(p.ops)) for p in parts] == [
        (LOCAL_CPU, ["a0", "a", "b0", "b"]), (GPU, ["c"]), (LOCAL_CPU, ["d", "e"])]
    assert parts[0].outputs == [a, b]
    assert parts[1].inputs == [a, b] and parts[1].outputs == [c] and parts[1].upstream == [0]
    assert parts[2].inputs == [b, c] and sorted(parts[2].upstream) == [0, 1]


def test_constants_are_copied_to_their_readers_not_sent(five):
    a, b, c, d, e = five
    ops = prune_to_fetches([e], [], set())
    placement = {op: (GPU if op is c.op else LOCAL_CPU) for op in ops}
    parts = partition_by_device(ops, placement, set(), [e])
    assert [(p.device, names(p.ops)) for p in parts] == [(GPU, ["a", "b", "c"]), (LOCAL_CPU, ["b", "d", "e"])]
    assert parts[0].inputs == [] and parts[1].inputs == [c]
    # A fetched constant keeps its own place.
    parts = partition_by_device(ops, placement, set(), [e, a])
    assert (LOCAL_CPU, ["a"]) in [(p.device, names(p.ops)) for p in parts]


def test_an_ordering_noop_joins_the_device_of_what_it_orders():
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(1.0, name="v")
        gs = tf.Variable(0, name="gs")
    with tf.device("/job:worker/task:0"):
        upd = tf.group(v.assign_add(1.0), name="update")
    with tf.control_dependencies([upd]):
        with tf.device("/job:ps/task:0"):
            step = gs.assign_add(1, name="step")
    ops = prune_to_fetches([], [step.op], set())
    placement = {op: op.device for op in ops}
    parts = partition_by_device(ops, placement, set(), [])
    assert len(parts) == 1 and "update" in names(parts[0].ops)


def test_partition_with_feeds(five):
    a, b, c, d, e = five
    ops = prune_to_fetches([e], [], {c})
    (p,) = partition_by_device(ops, {op: LOCAL_CPU for op in ops}, {c}, [e])
    assert p.inputs == [c] and names(p.ops) == ["b", "d", "e"]


def test_lower_names_keys_after_ops_and_survives_optimization(five):
    a, b, c, d, e = five
    ops = prune_to_fetches([e], [], set())
    parts = partition_by_device(ops, {op: LOCAL_CPU for op in ops}, set(), [e], op_level=True)
    dsk, keys = lower(parts, [object()] * len(parts), (), "beef7")
    assert keys == ["a-beef7", "b-beef7", "c-beef7", "d-beef7", "e-beef7"]
    assert set(dsk) == set(keys) | {"feeds-beef7"}
    assert [dask.utils.key_split(k) for k in keys] == ["a", "b", "c", "d", "e"]
    deps = {k: sorted(t.dependencies) for k, t in dsk.items()}
    assert dsk["e-beef7"].args[0] is None  # no RunContext was given
    assert deps["e-beef7"] == ["c-beef7", "d-beef7", "feeds-beef7"]


def test_a_control_dependency_on_a_fed_placeholder_waits_for_nothing():
    """TF1 runs this: the placeholder is fed, so the control edge is satisfied."""
    p = tf.placeholder(tf.float32, [], name="p")
    with tf.control_dependencies([p.op]):
        y = tf.identity(tf.constant(2.0), name="y")
    with tf.Session() as sess:
        assert sess.run(y, {p: 1.0}) == 2.0
        with pytest.raises(tf.errors.InvalidArgumentError, match="must feed a value for placeholder tensor 'p'"):
            sess.run(y)
