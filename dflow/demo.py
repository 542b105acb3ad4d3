"""``dflow demo``: TensorFlow's Iris walk-through, run on a Dask cluster.

The walk-through of TF1's getting-started guide, unchanged but for the
import: feature columns, a pre-made ``DNNClassifier`` with two hidden layers
of 10 units, ``train`` for 1000 steps of batch 32, ``evaluate`` on the 30
test flowers, and ``predict`` on three new ones. By default it runs on an
embedded ``dflow.LocalCluster`` (1 ps, 2 workers) started for the run, and
prints the dashboard link while it trains; ``--scheduler ADDRESS`` uses a
running cluster, ``--local`` runs in this process without one.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time

PREDICT_X = {
    "SepalLength": [5.1, 5.9, 6.9],
    "SepalWidth": [3.3, 3.0, 3.1],
    "PetalLength": [1.7, 4.2, 5.4],
    "PetalWidth": [0.5, 1.5, 2.1],
}
EXPECTED = ["Setosa", "Versicolor", "Virginica"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on this running Dask cluster (tcp://host:port)")
    where.add_argument("--local", action="store_true", help="run in this process, without a cluster")
    parser.add_argument("--steps", type=int, default=1000, help="training steps (default 1000)")
    parser.add_argument("--batch-size", type=int, default=32, help="training batch size (default 32)")
    parser.add_argument("--model-dir", default=None, help="where checkpoints go (default: a temporary directory)")
    parser.add_argument("--dashboard-address", default=":8787",
                        help="dashboard of the embedded cluster (default :8787; ':0' picks a free port)")


def run(args) -> dict:
    """Trains, evaluates and predicts; prints as the walk-through does; returns the figures."""
    import dflow as tf
    from dflow.datasets import iris

    library_logger = logging.getLogger("dflow")
    level = library_logger.level
    progress = _show_progress()
    t0 = time.perf_counter()
    (train_x, train_y), (test_x, test_y) = iris.load_data()
    feature_columns = [tf.feature_column.numeric_column(key=key) for key in train_x]

    def train_input_fn():
        ds = tf.data.Dataset.from_tensor_slices((dict(train_x), train_y))
        return ds.shuffle(1000, seed=0).repeat().batch(args.batch_size)

    def eval_input_fn(features, labels=None):
        ds = tf.data.Dataset.from_tensor_slices(dict(features) if labels is None else (dict(features), labels))
        return ds.batch(args.batch_size)

    cluster = None
    try:
        if args.local:
            where, config_kw = "in this process", {}
        elif args.scheduler:
            where, config_kw = f"on the Dask cluster at {args.scheduler}", {"cluster": args.scheduler}
        else:
            cluster = tf.LocalCluster(ps=1, workers=2, dashboard_address=args.dashboard_address)
            where, config_kw = f"on a local Dask cluster ({cluster.target}: 1 ps, 2 workers)", {"cluster": cluster}
        print(f"Training the Iris DNNClassifier {where}.", flush=True)
        if cluster is not None and cluster.dashboard_link:
            print(f"Dashboard: {cluster.dashboard_link}", flush=True)
            print(f"dflow page: {cluster.dflow_link}", flush=True)
        model_dir = args.model_dir or tempfile.mkdtemp(prefix="dflow-demo-")
        config = tf.estimator.RunConfig(model_dir=model_dir, tf_random_seed=0, save_checkpoints_secs=None,
                                        save_checkpoints_steps=args.steps,
                                        log_step_count_steps=max(1, args.steps // 5), **config_kw)
        classifier = tf.estimator.DNNClassifier(feature_columns=feature_columns, hidden_units=[10, 10],
                                                n_classes=3, config=config)
        t_train = time.perf_counter()
        classifier.train(input_fn=train_input_fn, steps=args.steps)
        train_s = time.perf_counter() - t_train
        eval_result = classifier.evaluate(input_fn=lambda: eval_input_fn(test_x, test_y))
        print(f"\nTest set accuracy: {eval_result['accuracy']:0.3f}\n")
        predictions = list(classifier.predict(input_fn=lambda: eval_input_fn(PREDICT_X)))
        lines = []
        for pred, expected in zip(predictions, EXPECTED):
            class_id = int(pred["class_ids"][0])
            probability = float(pred["probabilities"][class_id])
            lines.append(f'Prediction is "{iris.SPECIES[class_id]}" ({100 * probability:.1f}%), '
                         f'expected "{expected}"')
            print(lines[-1])
        total_s = time.perf_counter() - t0
        print(f"\n{args.steps} training steps in {train_s:.1f} s; the whole demo took {total_s:.1f} s.")
        return {"accuracy": float(eval_result["accuracy"]), "predictions": predictions, "lines": lines,
                "train_seconds": train_s, "seconds": total_s, "model_dir": model_dir}
    finally:
        library_logger.removeHandler(progress)
        library_logger.setLevel(level)
        if cluster is not None:
            cluster.close()


class _ProgressOnly(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or record.getMessage().startswith(("loss = ", "global_step/sec"))


def _show_progress() -> logging.Handler:
    """Prints the Estimator's ``loss = ..., step = ...`` and ``global_step/sec`` lines as TF1 logs them
    (``INFO:tensorflow:...``) while the demo trains; the library's other INFO messages stay quiet."""
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("%(levelname)s:tensorflow:%(message)s"))
    handler.addFilter(_ProgressOnly())
    logger = logging.getLogger("dflow")
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    return handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dflow demo", description=__doc__.splitlines()[0])
    add_arguments(parser)
    run(parser.parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
