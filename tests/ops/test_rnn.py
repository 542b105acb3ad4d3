"""tf.nn.rnn_cell and tf.nn.*_rnn: variable names, values, states and
gradients against TF 2.15 compat.v1 (graph mode, figures written as literals;
the reference scripts live outside the repository)."""

from __future__ import annotations

import dflow as tf


def test_get_variable_in_a_loop_body_lives_in_the_outer_graph():
    # A cell builds its weights on its first call, which dynamic_rnn makes inside the loop body:
    # as TF's init_scope, the variable is created (and named) in the enclosing graph.
    with tf.variable_scope("rnn"):
        def body(i, x):
            w = tf.get_variable("w", [], initializer=tf.constant_initializer(2.0))
            return i + 1, x * w
        _, r = tf.while_loop(lambda i, x: i < 3, body, [0, 1.0])
    (w,) = tf.global_variables()
    assert w.name == "rnn/w:0" and w.graph is tf.get_default_graph()
    g = tf.gradients(r, [w])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run([r, g]) == [8.0, [12.0]]


def test_default_scope_names_restart_in_a_scope_entered_again():
    # TF 2.15: a/b, a/b (leaving "a" forgets its default names), then b, b_1 at the top.
    names = []
    for _ in range(2):
        with tf.variable_scope("a"):
            with tf.variable_scope(None, default_name="b") as s:
                names.append((s.name, s.original_name_scope))
    for _ in range(2):
        with tf.variable_scope(None, default_name="b") as s:
            names.append((s.name, s.original_name_scope))
    assert names == [("a/b", "a/b/"), ("a/b", "a_1/b/"), ("b", "b/"), ("b_1", "b_1/")]


def test_scope_object_entered_again_keeps_its_original_name_scope():
    # TF 2.15: ('scale/', 'scale_1/Const:0'); the root scope re-entered opens no name scope;
    # auxiliary_name_scope=False keeps the current name scope.
    with tf.variable_scope("scale") as sc:
        pass
    with tf.variable_scope(sc) as s2:
        assert (s2.original_name_scope, tf.constant(1).name) == ("scale/", "scale_1/Const:0")
    with tf.name_scope("foo"):
        with tf.variable_scope(tf.get_variable_scope()) as s:
            assert (s.original_name_scope, tf.constant(1).name) == ("", "foo/Const:0")
    with tf.variable_scope("outer"):
        with tf.variable_scope("x", auxiliary_name_scope=False) as s:
            assert (s.name, s.original_name_scope, tf.constant(1).name) == ("outer/x", "outer/", "outer/Const:0")
