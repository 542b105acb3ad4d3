"""``tf.nn.rnn_cell`` and ``tf.nn.dynamic_rnn``: recurrent cells and the loops that run them."""
