"""``tf.train``'s optimizers: the ``Optimizer`` base, its subclasses, slots, their update ops and
``SyncReplicasOptimizer``."""
