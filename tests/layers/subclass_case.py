"""A user's tf.layers.Layer subclass and an activity regularizer, shared by test_layers.py and the
script that took the TF 2.15 figure (/tmp/ref/layers/subclass.py)."""

def run(tf):
    """Builds and runs the case; returns what test_layers.py compares."""
    class Scale(tf.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_variable("w", [int(input_shape[-1])], initializer=tf.constant_initializer(2.0),
                                       regularizer=lambda w: tf.reduce_sum(w))
            self.c = self.add_weight("count", [], initializer=tf.zeros_initializer(), trainable=False)
            super().build(input_shape)
        def call(self, inputs, training=False):
            if training:
                self.add_update(tf.assign_add(self.c, 1.0))
            return inputs * self.w
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0]])
        layer = Scale(name="scale")
        y = layer(x, training=True)
        z = layer(x)
        d = tf.layers.Dense(1, activity_regularizer=lambda t: 0.5 * tf.reduce_sum(t),
                            kernel_initializer=tf.ones_initializer())
        a = d(x)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            out = s.run([y, z, a])
            s.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS))
            losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
            return ([o.tolist() for o in out], [v.name for v in layer.variables],
                    [v.name for v in layer.trainable_variables], y.op.name, z.op.name, a.op.name,
                    [t.name for t in losses], s.run(losses), s.run(layer.c), [t.name for t in d.losses],
                    [u.name for u in tf.get_collection(tf.GraphKeys.UPDATE_OPS)])
