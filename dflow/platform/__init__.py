"""TF1's platform helpers: ``tf.app``, ``tf.flags``, ``tf.logging``, ``tf.version`` and ``tf.resource_loader``.

A low layer, just above ``dflow.framework``: its modules import only
``dflow.framework``, ``dflow.kernels`` and ``dflow._api``. ``tf.test`` is
``dflow.testing``; ``tf.config`` is ``dflow.sessions.tf_config``.
"""
