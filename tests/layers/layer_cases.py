"""tf.layers cases shared by test_layers.py and the script that took their TF 2.15 figures
(/tmp/ref/layers/layers_ref.py runs ``describe`` over ``build_cases`` with
``tensorflow.compat.v1``). Initializers are constants, so both sides start from the same values."""

from __future__ import annotations

import numpy as np

from tests.ops.conv_variant_cases import arr as _arr
from tests.ops.conv_variant_cases import fingerprint


def arr(shape, seed=0):
    return _arr(shape, seed, scale=0.1)


def build_cases(tf):
    L = tf.layers

    def init(shape, seed=0):
        return tf.constant_initializer(arr(shape, seed))

    def dense():
        x = tf.constant(arr([4, 3]))
        y = L.dense(x, 2, activation=tf.nn.relu, kernel_initializer=init([3, 2]),
                    bias_initializer=tf.constant_initializer(0.1))
        z = L.dense(y, 3, kernel_initializer=init([2, 3], 1))
        return {"y": y, "z": z}

    def dense_rank3():
        x = tf.constant(arr([2, 3, 4]))
        return {"y": L.dense(x, 5, kernel_initializer=init([4, 5], 2), use_bias=False)}

    def dense_reuse():
        x = tf.constant(arr([4, 3]))
        with tf.variable_scope("net"):
            a = L.dense(x, 2, name="fc", kernel_initializer=init([3, 2]))
        with tf.variable_scope("net", reuse=True):
            b = L.dense(x * 2.0, 2, name="fc")
        c = L.dense(x, 2, name="fc", kernel_initializer=init([3, 2], 1))
        d = L.dense(x, 2, name="fc", reuse=True)
        return {"a": a, "b": b, "c": c, "d": d}

    def layer_object():
        x = tf.constant(arr([4, 3]))
        layer = L.Dense(2, kernel_initializer=init([3, 2]), name="shared")
        y1 = layer(x)
        y2 = layer(x + 1.0)
        other = L.Dense(2, kernel_initializer=init([3, 2]))
        y3 = other(x)
        return {"y1": y1, "y2": y2, "y3": y3, "names": [layer.name, other.name, layer.scope_name, other.scope_name,
                                                      [v.name for v in layer.variables],
                                                      [v.name for v in layer.trainable_weights],
                                                      layer.kernel.name, layer.bias.name]}

    def regularized():
        x = tf.constant(arr([4, 3]))
        y = L.dense(x, 2, kernel_initializer=init([3, 2]),
                    kernel_regularizer=lambda w: 0.01 * tf.reduce_sum(w * w),
                    bias_regularizer=lambda b: tf.reduce_sum(tf.abs(b)), bias_initializer=tf.constant_initializer(-0.5))
        return {"y": y}

    def not_trainable():
        x = tf.constant(arr([4, 3]))
        layer = L.Dense(2, trainable=False, kernel_initializer=init([3, 2]))
        y = layer(x)
        return {"y": y, "names": [[v.name for v in layer.trainable_weights],
                                  [v.name for v in layer.non_trainable_weights]]}

    def cnn():
        x = tf.constant(arr([2, 6, 7, 3]))
        c = L.conv2d(x, 4, [3, 2], strides=2, padding="same", activation=tf.nn.relu,
                     kernel_initializer=init([3, 2, 3, 4]), bias_initializer=tf.constant_initializer(0.05))
        p = L.max_pooling2d(c, 2, 1)
        a = L.average_pooling2d(c, [2, 2], [1, 2], padding="same")
        f = L.flatten(p)
        return {"c": c, "p": p, "a": a, "f": f, "d": L.dense(f, 2, kernel_initializer=init([24, 2], 1))}

    def conv_1d_3d():
        x1 = tf.constant(arr([2, 9, 3]))
        c1 = L.conv1d(x1, 2, 3, padding="causal", dilation_rate=2, kernel_initializer=init([3, 3, 2]))
        c1b = L.conv1d(x1, 2, 2, strides=2, kernel_initializer=init([2, 3, 2], 1))
        x3 = tf.constant(arr([1, 4, 5, 4, 2]))
        c3 = L.conv3d(x3, 3, 2, strides=(1, 2, 1), padding="same", kernel_initializer=init([2, 2, 2, 2, 3]))
        return {"c1": c1, "c1b": c1b, "c3": c3, "p1": L.max_pooling1d(c1, 2, 2), "a1": L.average_pooling1d(c1, 3, 2),
                "p3": L.max_pooling3d(c3, 2, 1), "a3": L.average_pooling3d(c3, [1, 2, 2], 2, padding="same")}

    def transposes():
        x = tf.constant(arr([2, 3, 4, 3]))
        t_same = L.conv2d_transpose(x, 2, 3, strides=2, padding="same", kernel_initializer=init([3, 3, 2, 3]))
        t_valid = L.conv2d_transpose(x, 2, [2, 3], strides=(2, 1), kernel_initializer=init([2, 3, 2, 3], 1))
        x3 = tf.constant(arr([1, 2, 3, 2, 2]))
        t3 = L.conv3d_transpose(x3, 2, 2, strides=2, padding="same", kernel_initializer=init([2, 2, 2, 2, 2]))
        return {"t_same": t_same, "t_valid": t_valid, "t3": t3}

    def separable():
        x = tf.constant(arr([2, 5, 6, 3]))
        s2 = L.separable_conv2d(x, 4, 3, padding="same", depth_multiplier=2, depthwise_initializer=init([3, 3, 3, 2]),
                                pointwise_initializer=init([1, 1, 6, 4], 1))
        x1 = tf.constant(arr([2, 8, 3]))
        s1 = L.separable_conv1d(x1, 2, 3, dilation_rate=2, depthwise_initializer=init([3, 3, 1]),
                                pointwise_initializer=init([1, 3, 2], 1))
        return {"s2": s2, "s1": s1}

    def batch_norm():
        x4 = tf.constant(arr([3, 2, 3, 2]) * 4.0)
        x2 = tf.constant(arr([5, 3], 1) * 3.0)
        fused = L.batch_normalization(x4, training=True, momentum=0.9)
        plain = L.batch_normalization(x2, training=True, gamma_initializer=tf.constant_initializer(2.0),
                                      beta_initializer=tf.constant_initializer(0.5))
        unfused = L.batch_normalization(x4, axis=1, training=True, fused=False, momentum=0.5)
        infer = L.batch_normalization(x2, training=False, moving_mean_initializer=tf.constant_initializer(0.2),
                                      moving_variance_initializer=tf.constant_initializer(2.0))
        nchw = L.batch_normalization(x4, axis=1, training=True, center=False)
        return {"fused": fused, "plain": plain, "unfused": unfused, "infer": infer, "nchw": nchw}

    def batch_norm_training_tensor():
        x = tf.constant(arr([4, 2, 2, 3]) * 2.0)
        training = tf.placeholder_with_default(True, [])
        y = L.batch_normalization(x, training=training, momentum=0.8, name="bn")
        x2 = tf.constant(arr([4, 3], 2))
        off = tf.placeholder_with_default(False, [])
        z = L.batch_normalization(x2, training=off, fused=False, momentum=0.8, name="bn2")
        return {"y": y, "z": z}

    def batch_norm_renorm():
        x = tf.constant(arr([6, 3], 1) * 3.0)
        clipping = {"rmax": 1.2, "rmin": 0.8, "dmax": 0.1}
        y = L.batch_normalization(x, training=True, renorm=True, renorm_clipping=clipping,
                                  renorm_momentum=0.5, momentum=0.6,
                                  moving_mean_initializer=tf.constant_initializer(0.3),
                                  moving_variance_initializer=tf.constant_initializer(2.0))
        x4 = tf.constant(arr([3, 2, 3, 2]) * 4.0)
        z = L.batch_normalization(x4, training=True, renorm=True, fused=True, name="bn4")  # never fused
        training = tf.placeholder_with_default(True, [])
        t = L.batch_normalization(x, training=training, renorm=True, renorm_momentum=0.7, name="bnt")
        off = tf.placeholder_with_default(False, [])
        u = L.batch_normalization(x, training=off, renorm=True, name="bnoff",
                                  moving_mean_initializer=tf.constant_initializer(0.3))
        return {"y": y, "z": z, "t": t, "u": u}

    def batch_norm_virtual():
        x = tf.constant(arr([6, 4], 2) * 2.0)
        v = L.batch_normalization(x, training=True, virtual_batch_size=2, momentum=0.5)
        x4 = tf.constant(arr([4, 2, 2, 3]) * 2.0)
        v4 = L.batch_normalization(x4, training=True, virtual_batch_size=2,
                                   gamma_initializer=tf.constant_initializer(1.5))
        vi = L.batch_normalization(x, training=False, virtual_batch_size=3,
                                   moving_variance_initializer=tf.constant_initializer(2.0))
        training = tf.placeholder_with_default(True, [])
        vt = L.batch_normalization(x, training=training, virtual_batch_size=3, renorm=True, name="vt")
        return {"v": v, "v4": v4, "vi": vi, "vt": vt}

    def batch_norm_adjustment():
        def adjustment(shape):
            n = tf.cast(shape[-1], tf.float32)
            return n * tf.constant([0.5, 1.0, 1.5]), tf.constant([0.1, -0.2, 0.3])

        x = tf.constant(arr([5, 3], 1) * 3.0)
        a = L.batch_normalization(x, training=True, adjustment=adjustment, momentum=0.5)
        ai = L.batch_normalization(x, training=False, adjustment=adjustment)
        x4 = tf.constant(arr([3, 2, 3, 2]) * 4.0)
        off = tf.placeholder_with_default(False, [])
        at = L.batch_normalization(x4, training=off, adjustment=lambda s: (tf.ones([2]) * 2.0, tf.zeros([2])),
                                   center=False)
        on = tf.placeholder_with_default(True, [])
        an = L.batch_normalization(x4, training=on, adjustment=lambda s: (tf.ones([2]) * 2.0, tf.zeros([2]) + 0.5),
                                   scale=False, name="an")
        return {"a": a, "ai": ai, "at": at, "an": an}

    def dropout():
        x = tf.constant(arr([4, 3]))
        layer = L.Dropout(0.5)
        return {"off": L.dropout(x, 0.3, training=False), "layer_off": layer(x), "zero": L.dropout(x, 0.0,
                                                                                                  training=True)}

    return {name: fn for name, fn in locals().items() if callable(fn) and name not in ("init", "L")}


def describe(tf, build) -> dict:
    """Names, shapes and values a TF1 user sees: outputs, variables, collections, and the moving
    statistics after one run of UPDATE_OPS."""
    g = tf.Graph()
    with g.as_default():
        built = build()
        names = built.pop("names", None)
        outs = {k: built[k] for k in sorted(built)}
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        moving = [v for v in tf.global_variables() if "moving" in v.name or "renorm" in v.name]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run(outs)
            loss_values = sess.run(losses)
            sess.run(updates)
            moving_values = sess.run(moving)
        return {
            "outputs": {k: [t.op.name, t.shape.as_list(), fingerprint(values[k])] for k, t in outs.items()},
            "variables": [v.name for v in tf.global_variables()],
            "trainable": [v.name for v in tf.trainable_variables()],
            "updates": [u.name for u in updates],
            "losses": [[t.name, round(float(v), 5)] for t, v in zip(losses, loss_values)],
            "moving": [[v.name, fingerprint(m)] for v, m in zip(moving, moving_values)],
            "names": names,
        }


def renorm_steps(tf, steps=3) -> list:
    """Batch renormalization trained by SGD with its updates: per step, the output, the input's
    gradient and every variable (fingerprints), then the output with ``training`` false."""
    rng = np.random.RandomState(1)
    batches = rng.uniform(-2, 2, [steps, 8, 3]).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        training = tf.placeholder_with_default(True, [])
        y = tf.layers.batch_normalization(x, training=training, renorm=True, momentum=0.5, renorm_momentum=0.6,
                                          renorm_clipping={"rmax": 1.5, "dmax": 0.5})
        loss = tf.reduce_sum(y * tf.constant(arr([8, 3], 3)))
        dx = tf.gradients(loss, x)[0]
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        variables = tf.global_variables()
        record = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for batch in batches:
                out, grad = sess.run([y, dx], {x: batch})
                sess.run(train, {x: batch})
                record.append([fingerprint(out), fingerprint(grad)] + [fingerprint(v) for v in sess.run(variables)])
            record.append(fingerprint(sess.run(y, {x: batches[0], training: False})))
    return record


def cnn_losses(tf, steps=3) -> list:
    """A tiny CNN (conv2d, max pooling, batch norm, dense) trained by SGD with constant initial
    weights on fixed pseudo-random data: the loss before each step, then after the last."""
    rng = np.random.RandomState(0)
    images = rng.uniform(-1, 1, [8, 6, 6, 2]).astype(np.float32)
    labels = rng.randint(0, 3, [8]).astype(np.int32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 6, 6, 2])
        y = tf.placeholder(tf.int32, [None])
        net = tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu,
                               kernel_initializer=tf.constant_initializer(arr([3, 3, 2, 4])),
                               bias_initializer=tf.constant_initializer(0.1))
        net = tf.layers.max_pooling2d(net, 2, 2)
        net = tf.layers.batch_normalization(net, training=True)
        net = tf.layers.flatten(net)
        logits = tf.layers.dense(net, 3, kernel_initializer=tf.constant_initializer(arr([36, 3], 1)))
        loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {x: images, y: labels}
            losses = [float(sess.run(loss, feed))]
            for _ in range(steps):
                sess.run(train, feed)
                losses.append(float(sess.run(loss, feed)))
    return [round(v, 5) for v in losses]
