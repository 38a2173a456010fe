"""A small module of ahead-of-time kernels (a scalar and an array function) that start-up tests write to a
temporary folder, build in one process and call in fresh ones."""
import textwrap

SCALE_ADD = textwrap.dedent("""
    import numpy as np
    import everypath

    Vec = np.ndarray[tuple[int], np.dtype[np.float64]]


    @everypath.compile
    def scale(x: float, y: float) -> float:
        return x * y + 1.0


    @everypath.compile
    def add(a: Vec, b: Vec) -> Vec:
        return np.add(a, b)
""")
