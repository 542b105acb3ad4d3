"""TF's protocol-buffer messages (``TensorProto``, ``Summary``, ``Event``, ``Example``, ...) and their wire format."""
