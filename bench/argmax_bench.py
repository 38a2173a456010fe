"""np.argmax through the compiled one-pass kernel against NumPy on the same views, side by side.

Prints NumPy time / ours per dtype and layout (above 1: ours faster), 1 MiB elements, best of 5 x 200
calls. `python bench/argmax_bench.py` (docs/benchmarks.md, "np.argmax / np.argmin").
"""
from __future__ import annotations

import time
from typing import Callable

import numpy as np

import everypath


@everypath.compile
def flat_argmax(x: np.ndarray) -> int:
    return int(np.argmax(x))


@everypath.compile
def row_argmax(x: np.ndarray) -> np.ndarray:
    return np.argmax(x, axis=1)


def best_time(f: Callable[..., object], x: np.ndarray, calls: int = 200) -> float:
    f(x)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            f(x)
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def main() -> None:
    rng = np.random.default_rng(0)
    print("| dtype | contiguous | x[::2] | x[::-1] | (1024, 1024) axis=1 |\n|---|---|---|---|---|")
    for dt in (np.float32, np.int64, np.uint8):
        x = (rng.standard_normal(1 << 20) * 100).astype(dt)
        cells = []
        for v in (x, x[::2], x[::-1]):
            assert flat_argmax(v) == np.argmax(v)
            cells.append(best_time(np.argmax, v) / best_time(flat_argmax, v))
        m = x.reshape(1024, 1024)
        assert (row_argmax(m) == np.argmax(m, axis=1)).all()
        cells.append(best_time(lambda a: np.argmax(a, axis=1), m) / best_time(row_argmax, m))
        print(f"| {np.dtype(dt).name} | " + " | ".join(f"{c:.2f}x" for c in cells) + " |")


if __name__ == "__main__":
    main()
