"""The ``optimizer`` argument of the canned estimators (TF1's ``canned/optimizers.py``).

It may be a name (``'Adagrad'``, ``'Adam'``, ``'Ftrl'``, ``'RMSProp'``,
``'SGD'``: that optimizer with the estimator's default learning rate), a
``tf.train.Optimizer`` instance, or a callable returning one (called inside
the model function, so a learning-rate schedule may read the global step).
"""

from __future__ import annotations


def _optimizer_classes() -> dict:
    from dflow.train.optimizers.adagrad import AdagradOptimizer
    from dflow.train.optimizers.adam import AdamOptimizer
    from dflow.train.optimizers.ftrl import FtrlOptimizer
    from dflow.train.optimizers.gradient_descent import GradientDescentOptimizer
    from dflow.train.optimizers.rmsprop import RMSPropOptimizer

    return {"Adagrad": AdagradOptimizer, "Adam": AdamOptimizer, "Ftrl": FtrlOptimizer,
            "RMSProp": RMSPropOptimizer, "SGD": GradientDescentOptimizer}


def get_optimizer_instance(opt, learning_rate=None):
    """An ``Optimizer`` from a name (built with ``learning_rate``), an instance, or a callable."""
    from dflow.train.optimizers.optimizer import Optimizer

    if isinstance(opt, str):
        classes = _optimizer_classes()
        if opt in classes:
            if not learning_rate:
                raise ValueError("learning_rate must be specified when opt is string.")
            return classes[opt](learning_rate=learning_rate)
        raise ValueError(f"Unsupported optimizer name: {opt}. Supported names are: {tuple(sorted(classes))}")
    if callable(opt) and not isinstance(opt, Optimizer):
        opt = opt()
    if not isinstance(opt, Optimizer):
        raise ValueError(f"The given object is not an Optimizer instance. Given: {opt}")
    return opt
