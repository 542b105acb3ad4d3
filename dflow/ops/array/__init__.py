"""``tf`` array ops: constants and placeholders, shapes, slicing, gathering and scattering, tiling, quantization."""
