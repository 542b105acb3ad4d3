"""Array kernels: pure array code (numpy, oneDNN, Numba, BLAS routing, Philox, special functions, CRC32C).

Nothing here imports dflow's graph layer; see ``dflow/kernels/__init__.py`` for the interface op blocks use."""
