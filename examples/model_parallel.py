"""Model parallelism: one network split across devices.

(a) An MLP whose layers are on different workers: layer l's variables and
    ops on ``/job:worker/task:(l mod W)``. Activations flow forward from
    worker to worker and gradients flow back the same way; each layer's
    update runs where its variables are.
(b) A deep recurrent stack: ``--rnn-layers`` simple tanh RNN layers unrolled
    over ``--time-steps`` steps, layer l's variables and ops on worker
    l mod W. Layer l at step t needs layer l-1 at step t (another worker) and
    itself at step t-1 (its own), so the run is a pipeline across workers.

The stack is unrolled in Python, which gives every step's ops their layer's
device. (A ``tf.while_loop`` over the steps would not split: in dflow a
while loop is one functional ``While`` op, and its whole body runs on that
op's device, whatever ``tf.device`` says inside the body.)

Each network is also built on ONE device (``/job:worker/task:0``) from the
same initial values and trained the same number of steps: the losses and the
outputs agree to float tolerance, whichever device computed what.

    python examples/model_parallel.py --workers 2 --steps 10
    python examples/model_parallel.py --scheduler tcp://HOST:PORT --workers 3
"""

import argparse
import re
import time

import numpy as np

import dflow as tf


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workers", type=int, default=2, help="worker tasks to split the networks over (default 2)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="use the cluster at this scheduler address instead of starting a LocalCluster")
    p.add_argument("--steps", type=int, default=10, help="training steps of each network (default 10)")
    p.add_argument("--mlp-layers", type=int, default=4, help="MLP layers, the output layer included (default 4)")
    p.add_argument("--units", type=int, default=64, help="MLP hidden units (default 64)")
    p.add_argument("--rnn-layers", type=int, default=3, help="stacked RNN layers (default 3)")
    p.add_argument("--rnn-units", type=int, default=16, help="RNN state size (default 16)")
    p.add_argument("--time-steps", type=int, default=8, help="unrolled RNN steps (default 8)")
    p.add_argument("--batch", type=int, default=32, help="examples per batch (default 32)")
    p.add_argument("--learning-rate", type=float, default=0.05, help="gradient-descent step (default 0.05)")
    return p.parse_args(argv)


def glorot(rng, fan_in, fan_out):
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, (fan_in, fan_out)).astype(np.float32)


# -- (a) the MLP ----------------------------------------------------------------------------
MLP_INPUTS = 8


def mlp_data(args):
    rng = np.random.RandomState(1)
    xs = rng.normal(size=(args.batch, MLP_INPUTS)).astype(np.float32)
    ys = np.sin(xs.sum(axis=1, keepdims=True)).astype(np.float32)
    return xs, ys


def mlp_initial_values(args):
    rng = np.random.RandomState(2)
    sizes = [MLP_INPUTS] + [args.units] * (args.mlp_layers - 1) + [1]
    return [(glorot(rng, a, b), np.zeros(b, np.float32)) for a, b in zip(sizes[:-1], sizes[1:])]


def build_mlp(args, devices, scope):
    """The MLP with layer l on ``devices[l % len(devices)]``: (x, y, loss, output, train_op)."""
    x = tf.placeholder(tf.float32, [None, MLP_INPUTS], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    h = x
    inits = mlp_initial_values(args)
    with tf.variable_scope(scope):
        for layer, (w_init, b_init) in enumerate(inits):
            with tf.device(devices[layer % len(devices)]), tf.variable_scope(f"layer{layer}"):
                w = tf.Variable(w_init, name="w")
                b = tf.Variable(b_init, name="b")
                h = tf.matmul(h, w) + b
                if layer < len(inits) - 1:
                    h = tf.tanh(h)
        with tf.device(devices[(len(inits) - 1) % len(devices)]):
            loss = tf.reduce_mean(tf.square(h - y))
        # The gradient of each layer is computed where that layer's forward ops are: the backward
        # pass crosses workers as the forward one did, and each update runs where its variables are.
        train_op = tf.train.GradientDescentOptimizer(args.learning_rate).minimize(
            loss, colocate_gradients_with_ops=True)
    return x, y, loss, h, train_op


# -- (b) the recurrent stack ----------------------------------------------------------------
RNN_INPUTS = 4


def rnn_data(args):
    rng = np.random.RandomState(3)
    xs = rng.normal(size=(args.time_steps, args.batch, RNN_INPUTS)).astype(np.float32)
    # Target: a decaying running sum of the first input feature, read at the last step.
    weights = 0.7 ** np.arange(args.time_steps)[::-1]
    ys = (xs[:, :, :1] * weights[:, None, None]).sum(axis=0).astype(np.float32)
    return xs, ys


def rnn_initial_values(args):
    rng = np.random.RandomState(4)
    layers = []
    for layer in range(args.rnn_layers):
        n_in = RNN_INPUTS if layer == 0 else args.rnn_units
        layers.append((glorot(rng, n_in, args.rnn_units), 0.5 * glorot(rng, args.rnn_units, args.rnn_units),
                       np.zeros(args.rnn_units, np.float32)))
    return layers, (glorot(rng, args.rnn_units, 1), np.zeros(1, np.float32))


def build_rnn(args, devices, scope):
    """Stacked tanh RNN, unrolled; layer l (variables, every step, readout for the last) on
    ``devices[l % len(devices)]``: (x, y, loss, output, train_op)."""
    x = tf.placeholder(tf.float32, [args.time_steps, None, RNN_INPUTS], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    layer_inits, (wo_init, bo_init) = rnn_initial_values(args)
    inputs = tf.unstack(x, axis=0)                   # T tensors [batch, RNN_INPUTS]
    with tf.variable_scope(scope):
        for layer, (wx_init, wh_init, b_init) in enumerate(layer_inits):
            with tf.device(devices[layer % len(devices)]), tf.variable_scope(f"layer{layer}"):
                wx = tf.Variable(wx_init, name="wx")
                wh = tf.Variable(wh_init, name="wh")
                b = tf.Variable(b_init, name="b")
                state = tf.zeros_like(tf.matmul(inputs[0], wx))
                outputs = []
                for t in range(args.time_steps):
                    state = tf.tanh(tf.matmul(inputs[t], wx) + tf.matmul(state, wh) + b)
                    outputs.append(state)
            inputs = outputs                          # the next layer reads this layer's states
        with tf.device(devices[(args.rnn_layers - 1) % len(devices)]), tf.variable_scope("readout"):
            wo = tf.Variable(wo_init, name="w")
            bo = tf.Variable(bo_init, name="b")
            out = tf.matmul(inputs[-1], wo) + bo
            loss = tf.reduce_mean(tf.square(out - y))
        train_op = tf.train.GradientDescentOptimizer(args.learning_rate).minimize(
            loss, colocate_gradients_with_ops=True)
    return x, y, loss, out, train_op


def train(target, build, data, args, devices, scope):
    """Builds the network on ``devices`` in a graph of its own and trains it; returns
    the loss before each step and after the last, the final outputs, and where ops ran."""
    graph = tf.Graph()
    with graph.as_default():
        x, y, loss, out, train_op = build(args, devices, scope)
        init = tf.global_variables_initializer()
    xs, ys = data(args)
    feed = {x: xs, y: ys}
    with tf.Session(target, graph=graph) as sess:
        sess.run(init)
        losses = []
        start = time.perf_counter()
        for _ in range(args.steps):
            loss_value, _ = sess.run([loss, train_op], feed)
            losses.append(float(loss_value))
        elapsed = time.perf_counter() - start
        final_loss, outputs = sess.run([loss, out], feed)
        # One more (traced) step, not counted, shows where each layer's forward and backward ops ran.
        md = tf.RunMetadata()
        sess.run(train_op, feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md)
    losses.append(float(final_loss))
    layers_on, gradients_on = {}, {}
    for dev in md.step_stats.dev_stats:
        task = dev.device.replace("/replica:0", "").split("/device")[0]
        for node in dev.node_stats:
            found = re.search(r"/(layer\d+)/", node.node_name)
            if found:
                where = gradients_on if "gradients" in node.node_name else layers_on
                where.setdefault(found.group(1), set()).add(task)
    return {"losses": np.array(losses), "outputs": outputs, "seconds": elapsed,
            "layers_on": {k: sorted(v) for k, v in sorted(layers_on.items())},
            "gradients_on": {k: sorted(v) for k, v in sorted(gradients_on.items())}}


def compare(name, target, build, data, args, shape_tag):
    split_devices = [f"/job:worker/task:{i}" for i in range(args.workers)]
    split = train(target, build, data, args, split_devices, f"mp_{name}_{shape_tag}_split")
    single = train(target, build, data, args, ["/job:worker/task:0"], f"mp_{name}_{shape_tag}_single")
    loss_rel = float(np.max(np.abs(split["losses"] - single["losses"]) / np.abs(single["losses"])))
    out_diff = float(np.max(np.abs(split["outputs"] - single["outputs"])))
    print(f"({name}) forward: " + ", ".join(f"{k} on {'+'.join(v)}" for k, v in split["layers_on"].items()))
    print(f"({name}) backward: " + ", ".join(f"{k} on {'+'.join(v)}" for k, v in split["gradients_on"].items()))
    print(f"({name}) {'step':>4}  {'split loss':>12}  {'1-device loss':>13}")
    for step, (a, b) in enumerate(zip(split["losses"], single["losses"])):
        if step in (0, 1, len(split["losses"]) - 1) or step % 5 == 0:
            print(f"({name}) {step:>4}  {a:>12.7f}  {b:>13.7f}")
    print(f"({name}) split vs one device: max relative loss difference {loss_rel:.1e}, "
          f"max output difference {out_diff:.1e}; {args.steps} steps in {split['seconds']:.2f} s split, "
          f"{single['seconds']:.2f} s on one device")
    return {"split": split, "single": single, "max_rel_loss_diff": loss_rel, "max_output_diff": out_diff}


def main(argv=None):
    args = parse_args(argv)
    with tf.cluster_target(args.scheduler, workers=args.workers) as target:
        mlp = compare("mlp", target, build_mlp, mlp_data, args, f"l{args.mlp_layers}u{args.units}")
        rnn = compare("rnn", target, build_rnn, rnn_data, args,
                      f"l{args.rnn_layers}u{args.rnn_units}t{args.time_steps}")
    return {"mlp": mlp, "rnn": rnn}


if __name__ == "__main__":
    main()
