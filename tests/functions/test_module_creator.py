"""tf.Module and tf.variable_creator_scope; expected names, orders and values are TF 2.15's
(tf.compat.v1 in graph mode, printed by the same programs)."""

import collections
import functools

import numpy as np
import pytest

import dflow as tf


def names(variables):
    return [v.name for v in variables]


def is_var(x):
    return isinstance(x, tf.Variable)


# -- tf.Module --------------------------------------------------------------------------------


class Dense(tf.Module):
    def __init__(self, in_dim, out, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.w = tf.Variable(tf.ones([in_dim, out]), name="w")
            self.b = tf.Variable(tf.zeros([out]), name="b", trainable=False)

    @tf.Module.with_name_scope
    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


class MLP(tf.Module):
    def __init__(self, sizes, name=None, gv="gv"):
        super().__init__(name=name)
        self.layers = []
        with self.name_scope:
            d = 3
            for s in sizes:
                self.layers.append(Dense(d, s))
                d = s
            self.gv = tf.get_variable(gv, [2])  # get_variable ignores name scopes

    @tf.Module.with_name_scope
    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def test_module_names_variables_and_submodules():
    m = MLP([4, 2])
    assert m.name == "mlp" and m.name_scope.name == "mlp/" and m.name_scope is m.name_scope
    assert names(m.variables) == ["gv:0", "mlp/dense/b:0", "mlp/dense/w:0", "mlp/dense_1/b:0", "mlp/dense_1/w:0"]
    assert names(m.trainable_variables) == ["gv:0", "mlp/dense/w:0", "mlp/dense_1/w:0"]
    assert names(m.non_trainable_variables) == ["mlp/dense/b:0", "mlp/dense_1/b:0"]
    assert [s.name for s in m.submodules] == ["dense", "dense"]
    assert [s.name_scope.name for s in m.submodules] == ["mlp/dense/", "mlp/dense_1/"]
    assert all(type(v) is tuple for v in (m.variables, m.trainable_variables, m.submodules))
    # with_name_scope re-enters the scopes made at construction.
    assert m(tf.ones([1, 3])).name == "mlp/dense_1/add:0"
    assert m(tf.ones([1, 3])).name == "mlp/dense_1/add_1:0"
    m2 = MLP([2], name="mlp", gv="gv2")
    assert m2.name == "mlp" and m2.name_scope.name == "mlp_1/"
    assert names(m2.variables) == ["gv2:0", "mlp_1/dense/b:0", "mlp_1/dense/w:0"]


def test_module_call_values():
    m = MLP([4, 2])
    y = m(tf.constant([[1.0, 2.0, 3.0]]))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(y).tolist() == [[24.0, 24.0]]  # ones kernels, zero biases: 6 -> [6]*4 -> [24]*2


class MyModule(tf.Module):
    @tf.Module.with_name_scope
    def __call__(self, x):
        """Doc of __call__."""
        if not hasattr(self, "w"):
            self.w = tf.Variable(tf.ones([x.shape[1], 3]))
        return tf.matmul(x, self.w)


def test_with_name_scope_creates_variables_in_the_scope():
    mm = MyModule()
    assert mm.name == "my_module"
    assert mm(tf.ones([1, 2])).name == "my_module/MatMul:0"
    assert mm.w.name == "my_module/Variable:0"
    assert MyModule.__call__.__name__ == "__call__" and MyModule.__call__.__doc__ == "Doc of __call__."


def test_default_names_from_class_and_uniquified_scopes():
    class HTTPServerABC(tf.Module):
        pass

    assert tf.Module().name == "module"
    second = tf.Module()
    assert second.name == "module" and second.name_scope.name == "module_1/"
    assert HTTPServerABC().name == "http_server_abc"


@pytest.mark.parametrize("bad", ["a b", "1a", "a/b", "", "a-b"])
def test_invalid_module_name_is_value_error(bad):
    with pytest.raises(ValueError) as err:
        tf.Module(name=bad)
    assert str(err.value) == (f"{bad!r} is not a valid module name. Module names must be valid Python identifiers "
                              f"(e.g. a valid class name).")


def test_name_scope_under_outer_scope_reentrant_and_in_other_graph():
    with tf.name_scope("outer"):
        o = tf.Module(name="inner")
    assert o.name == "inner" and o.name_scope.name == "outer/inner/"
    with o.name_scope as s:
        assert s == "outer/inner/" and tf.constant(1.0).name == "outer/inner/Const:0"
        with o.name_scope as s2:
            assert s2 == "outer/inner/" and tf.constant(1.0).name == "outer/inner/Const_1:0"
        assert tf.constant(1.0).name == "outer/inner/Const_2:0"
    assert tf.constant(1.0).name == "Const:0"
    with tf.Graph().as_default():
        with o.name_scope:
            assert tf.constant(1.0).name == "outer/inner/Const:0"


class Leaf(tf.Module):
    def __init__(self, n, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.v = tf.Variable(float(n), name="v")


P = collections.namedtuple("P", ["z", "a"])


class Root(tf.Module):
    def __init__(self):
        super().__init__()
        with self.name_scope:
            self.zeta = tf.Variable(1.0, name="zeta")
            self.Alpha = tf.Variable(2.0, name="Alpha")
            self._private = tf.Variable(3.0, name="private", trainable=False)
            self.d = {"b": Leaf(1, name="db"), "a": [Leaf(2, name="da0"), tf.Variable(4.0, name="dav")]}
            self.t = (tf.Variable(5.0, name="t0"), Leaf(3, name="t1"))
            self.p = P(z=tf.Variable(6.0, name="pz"), a=tf.Variable(7.0, name="pa"))
            self.same = self.zeta
            self.s = {1, 2}
            self.none = None
        self.leaf_first = Leaf(9, name="lf")


def test_attribute_walk_order_paths_and_options():
    r = Root()
    assert names(r.variables) == ["root/Alpha:0", "root/private:0", "root/dav:0", "root/pz:0", "root/pa:0",
                                  "root/zeta:0", "root/t0:0", "root/da0/v:0", "root/db/v:0", "lf/v:0",
                                  "root/t1/v:0"]
    assert [m.name for m in r.submodules] == ["da0", "db", "lf", "t1"]
    assert [(p, v.name) for p, v in r._flatten(predicate=is_var, with_path=True)] == [
        (("Alpha",), "root/Alpha:0"), (("_private",), "root/private:0"), (("d", "a", 1), "root/dav:0"),
        (("p", "z"), "root/pz:0"), (("p", "a"), "root/pa:0"), (("same",), "root/zeta:0"), (("t", 0), "root/t0:0"),
        (("zeta",), "root/zeta:0"), (("d", "a", 0, "v"), "root/da0/v:0"), (("d", "b", "v"), "root/db/v:0"),
        (("leaf_first", "v"), "lf/v:0"), (("t", 1, "v"), "root/t1/v:0")]
    assert names(r._flatten(predicate=is_var, recursive=False)) == [
        "root/Alpha:0", "root/private:0", "root/dav:0", "root/pz:0", "root/pa:0", "root/zeta:0", "root/t0:0"]
    assert names(r._flatten(predicate=is_var, attribute_traversal_key=lambda k: k[::-1])) == [
        "root/Alpha:0", "root/zeta:0", "root/dav:0", "root/private:0", "root/pz:0", "root/pa:0", "root/t0:0",
        "root/da0/v:0", "root/db/v:0", "root/t1/v:0", "lf/v:0"]
    assert names(r.trainable_variables) == [n for n in names(r.variables) if n != "root/private:0"]
    assert names(r.non_trainable_variables) == ["root/private:0"]


def test_module_cycles_stop():
    a, b = tf.Module(name="a"), tf.Module(name="b")
    with a.name_scope:
        a.x = tf.Variable(1.0, name="x")
    a.b, b.a = b, a
    with b.name_scope:
        b.y = tf.Variable(1.0, name="y")
    assert names(a.variables) == ["a/x:0", "b/y:0"]
    assert [m.name for m in a.submodules] == ["b"] and [m.name for m in b.submodules] == ["a"]
    assert [(p, v.name) for p, v in a._flatten(predicate=is_var, with_path=True)] == [
        (("x",), "a/x:0"), (("b", "y"), "b/y:0"), (("b", "a", "x"), "a/x:0")]


def test_flatten_expands_composites_and_reports_bad_attributes():
    m = tf.Module(name="m")
    m.sp = tf.SparseTensor(indices=[[0, 0]], values=[1.0], dense_shape=[2, 2])
    paths = [p for p, _ in m._flatten(predicate=lambda x: isinstance(x, tf.Tensor), with_path=True,
                                      expand_composites=True)]
    assert paths == [("sp", "SparseTensor", 0), ("sp", "SparseTensor", 1), ("sp", "SparseTensor", 2)]
    assert [p for p, _ in m._flatten(predicate=lambda x: isinstance(x, tf.SparseTensor), with_path=True)] == [
        ("sp",)]
    m.bad = {1: "x", "a": "y"}
    with pytest.raises(ValueError, match="Error processing property 'bad'"):
        list(m._flatten())


def test_module_in_checkpoint_keys_as_tf(tmp_path):
    r = Root()
    del r.same  # TF keys a variable reached twice by its first attribute in assignment order
    ck = tf.train.Checkpoint(model=r)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        path = ck.save(str(tmp_path / "ck"), session=s)
    assert sorted(n for n, _ in tf.train.list_variables(path)) == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "model/Alpha/.ATTRIBUTES/VARIABLE_VALUE",
        "model/_private/.ATTRIBUTES/VARIABLE_VALUE", "model/d/a/0/v/.ATTRIBUTES/VARIABLE_VALUE",
        "model/d/a/1/.ATTRIBUTES/VARIABLE_VALUE", "model/d/b/v/.ATTRIBUTES/VARIABLE_VALUE",
        "model/leaf_first/v/.ATTRIBUTES/VARIABLE_VALUE", "model/p/a/.ATTRIBUTES/VARIABLE_VALUE",
        "model/p/z/.ATTRIBUTES/VARIABLE_VALUE", "model/t/0/.ATTRIBUTES/VARIABLE_VALUE",
        "model/t/1/v/.ATTRIBUTES/VARIABLE_VALUE", "model/zeta/.ATTRIBUTES/VARIABLE_VALUE",
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE"]
    assert tf.train.load_variable(path, "model/d/a/0/v/.ATTRIBUTES/VARIABLE_VALUE") == 2.0


# -- tf.variable_creator_scope ------------------------------------------------------------------

# The keywords TF 2.15 hands a creator, in order (less experimental_enable_variable_lifting).
TF_KEYS = ["initial_value", "trainable", "validate_shape", "caching_device", "name", "variable_def", "dtype",
           "import_scope", "constraint", "synchronization", "aggregation", "shape", "expected_shape",
           "collections", "use_resource"]


def recording(log):
    def creator(next_creator, **kwargs):
        log.append(kwargs)
        return next_creator(**kwargs)

    return creator


def test_creator_keywords_of_tf_variable():
    log = []
    with tf.variable_creator_scope(recording(log)) as entered:
        assert entered is None
        tf.Variable(1.0)
        tf.Variable(np.zeros(3), trainable=False, name="z", dtype=tf.float64, collections=["c"],
                    validate_shape=False, shape=[None])
    assert [list(kw) for kw in log] == [TF_KEYS, TF_KEYS]
    first, full = log
    assert first["initial_value"] == 1.0
    assert {k: first[k] for k in TF_KEYS[1:]} == dict(
        trainable=None, validate_shape=True, caching_device=None, name=None, variable_def=None, dtype=None,
        import_scope=None, constraint=None, synchronization=tf.VariableSynchronization.AUTO,
        aggregation=tf.VariableAggregation.NONE, shape=None, expected_shape=None, collections=None,
        use_resource=None)
    assert type(full["initial_value"]) is np.ndarray
    assert (full["trainable"], full["validate_shape"], full["name"], full["dtype"], full["collections"],
            full["shape"]) == (False, False, "z", tf.float64, ["c"], [None])


def test_creator_keywords_of_get_variable_and_layers():
    log = []
    with tf.variable_creator_scope(recording(log)):
        tf.get_variable("w", [2, 3])
        tf.get_variable("wi", [2], dtype=tf.int32, trainable=False, collections=["x"])
        tf.get_variable("wt", initializer=tf.constant([1.0, 2.0]))
        tf.get_variable("wr", [2], use_resource=True)
        tf.layers.dense(tf.ones([2, 3]), 4)
    assert all(list(kw) == TF_KEYS for kw in log)
    w, wi, wt, wr, kernel, bias = log
    assert type(w["initial_value"]) is functools.partial
    assert (w["trainable"], w["name"], w["dtype"], w["shape"], w["collections"], w["use_resource"]) == (
        True, "w", tf.float32, tf.TensorShape([2, 3]), None, False)
    assert (wi["trainable"], wi["name"], wi["dtype"], wi["shape"], wi["collections"]) == (
        False, "wi", tf.int32, tf.TensorShape([2]), ["x"])
    assert isinstance(wt["initial_value"], tf.Tensor) and (wt["dtype"], wt["shape"]) == (None, None)
    assert wr["use_resource"] is True
    assert [(kw["name"], kw["shape"].as_list(), type(kw["initial_value"])) for kw in (kernel, bias)] == [
        ("dense/kernel", [3, 4], functools.partial), ("dense/bias", [4], functools.partial)]


def test_creator_sees_optimizer_variables():
    y = tf.layers.dense(tf.ones([2, 3]), 4)
    log = []
    with tf.variable_creator_scope(recording(log)):
        tf.train.AdamOptimizer().minimize(tf.reduce_sum(y))
    assert [(kw["name"], type(kw["initial_value"]).__name__, kw["trainable"]) for kw in log] == [
        ("beta1_power", "float", False), ("beta2_power", "float", False),
        ("dense/kernel/Adam/", "partial", False), ("dense/kernel/Adam_1/", "partial", False),
        ("dense/bias/Adam/", "partial", False), ("dense/bias/Adam_1/", "partial", False)]


def test_get_variable_unvalidated_shape_is_the_given_one():
    # TF passes get_variable's shape on to the variable, so validate_shape=False keeps it.
    assert tf.get_variable("w2", [2, 3], validate_shape=False).shape.as_list() == [2, 3]


def outer_log(log):
    def outer(next_creator, **kw):
        log.append(("outer", kw["name"], kw["trainable"]))
        return next_creator(**kw)

    return outer


def inner_log(log):
    def inner(next_creator, **kw):
        log.append(("inner", kw["name"], kw["trainable"]))
        kw["name"] = (kw["name"] or "V") + "_in"
        return next_creator(**kw)

    return inner


def test_nested_creators_innermost_first_and_renaming():
    log = []
    with tf.variable_creator_scope(outer_log(log)):
        with tf.variable_creator_scope(inner_log(log)):
            a = tf.Variable(1.0, name="a")
            b = tf.get_variable("b", [2])
            c = tf.Variable(2.0)
        d = tf.Variable(3.0, name="d")
    e = tf.Variable(4.0, name="e")
    assert log == [("inner", "a", None), ("outer", "a_in", None), ("inner", "b", True), ("outer", "b_in", True),
                   ("inner", None, None), ("outer", "V_in", None), ("outer", "d", None)]
    assert names([a, b, c, d, e]) == ["a_in:0", "b_in:0", "V_in:0", "d:0", "e:0"]
    assert names(tf.global_variables()) == ["a_in:0", "b_in:0", "V_in:0", "d:0", "e:0"]
    with tf.variable_scope("", reuse=True):
        assert tf.get_variable("b") is b  # the store keeps it under the name get_variable was given


def test_creator_changes_initial_value_and_trainable():
    def double(next_creator, **kw):
        iv = kw["initial_value"]
        kw["initial_value"] = (lambda: iv() * 2.0) if callable(iv) else tf.convert_to_tensor(iv) * 2.0
        kw["trainable"] = False
        return next_creator(**kw)

    keep = tf.Variable(0.0, name="keep")
    with tf.variable_creator_scope(double):
        f = tf.Variable([1.0, 2.0], name="f")
        g = tf.get_variable("g", initializer=tf.constant_initializer([3.0, 4.0]), shape=[2])
        with tf.variable_scope("sc"):
            h = tf.layers.dense(tf.ones([1, 2]), 2, kernel_initializer=tf.ones_initializer(),
                                bias_initializer=tf.ones_initializer())
    assert tf.trainable_variables() == [keep]
    assert (f.trainable, g.trainable) == (False, False)
    assert (f.initial_value.name, g.initial_value.name) == ("mul:0", "g/Initializer/mul:0")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run([f, g, h])
    assert [x.tolist() for x in got] == [[2.0, 4.0], [6.0, 8.0], [[6.0, 6.0]]]


def test_creator_that_shares_or_returns_something_else():
    cache = {}

    def share(next_creator, **kw):
        if kw["name"] not in cache:
            cache[kw["name"]] = next_creator(**kw)
        return cache[kw["name"]]

    with tf.variable_creator_scope(share):
        s1 = tf.Variable(5.0, name="s")
        s2 = tf.Variable(6.0, name="s")
    assert s1 is s2 and s1.name == "s:0"
    with tf.variable_creator_scope(lambda next_creator, **kw: tf.constant(7.0, name="notvar")):
        k = tf.Variable(1.0, name="k")
        kk = tf.get_variable("kk", [1])
    assert isinstance(k, tf.Tensor) and (k.name, kk.name) == ("notvar:0", "notvar_1:0")
    assert tf.global_variables() == [s1]
    with tf.variable_scope("", reuse=True):
        with pytest.raises(ValueError, match=r"Trying to share variable kk, but specified shape \(1,\) and found "
                                             r"shape \(\)"):
            tf.get_variable("kk", [1])
    with tf.Session() as s:
        s.run(s1.initializer)
        assert s.run(s1) == 5.0


def test_creators_belong_to_the_graph_they_were_entered_in():
    log = []
    g2 = tf.Graph()
    with tf.variable_creator_scope(inner_log(log)):
        with g2.as_default():
            z = tf.Variable(1.0, name="z")
            with tf.variable_creator_scope(outer_log(log)):
                y = tf.Variable(1.0, name="y")
        x = tf.Variable(1.0, name="x")
    assert names([z, y, x]) == ["z:0", "y:0", "x_in:0"]
    assert log == [("outer", "y", None), ("inner", "x", None)]


def test_exiting_out_of_order_is_runtime_error():
    log = []
    scope_a = tf.variable_creator_scope(outer_log(log))
    scope_b = tf.variable_creator_scope(inner_log(log))
    scope_a.__enter__()
    scope_b.__enter__()
    with pytest.raises(RuntimeError, match="^Exiting variable_creator_scope without proper nesting.$"):
        scope_a.__exit__(None, None, None)
    scope_b.__exit__(None, None, None)


def test_creators_are_per_thread():
    import threading

    log, seen = [], []
    with tf.variable_creator_scope(outer_log(log)):
        graph = tf.get_default_graph()

        def other():
            with graph.as_default():
                seen.append(tf.Variable(1.0, name="t").name)

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert seen == ["t:0"] and log == []


def test_variable_def_goes_through_creators_but_from_proto_does_not():
    log = []
    v0 = tf.Variable(1.0, name="v0")

    def spy(next_creator, **kw):
        log.append(sorted(k for k, val in kw.items() if val is not None))
        return next_creator(**kw)

    with tf.variable_creator_scope(spy):
        v1 = tf.Variable(variable_def=v0.to_proto())
        v2 = tf.Variable.from_proto(v0.to_proto())
    assert (v1.name, v2.name) == ("v0:0", "v0:0")
    assert log == [["aggregation", "synchronization", "validate_shape", "variable_def"]]


def test_module_under_a_creator():
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            with self.name_scope:
                self.w = tf.Variable(1.0, name="w")
                self.u = tf.get_variable("u", [1])

    def notrain(next_creator, **kw):
        kw["trainable"] = False
        return next_creator(**kw)

    with tf.variable_creator_scope(notrain):
        m = M()
    assert names(m.trainable_variables) == [] and names(m.non_trainable_variables) == ["u:0", "m/w:0"]
