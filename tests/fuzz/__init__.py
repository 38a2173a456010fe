"""Differential fuzzing: random well-typed kernels run by CPython + NumPy and compiled, compared."""
