"""``tf.contrib.slim.nets``: TF-slim's model zoo (``resnet_v1``, ``inception_v3``, ``vgg``, ...) is out of
dflow's scope; importing it raises ``NotImplementedError``."""

raise NotImplementedError("tf.contrib.slim.nets (TF-slim's model zoo: resnet_v1, inception, vgg, ...) is not "
                          "implemented in dflow; define the network with slim's layers instead")
