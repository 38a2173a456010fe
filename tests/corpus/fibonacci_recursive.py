"""Naive doubly recursive Fibonacci (the canonical function-call / recursion micro-benchmark)."""
import numpy as np

CATEGORY = "loop"


def fib(n):
    if n == 0:
        return 0
    elif n == 1:
        return 1
    else:
        return fib(n - 1) + fib(n - 2)


def fibonacci(n: int) -> int:
    assert n >= 0, "fibonacci: n must be non-negative"
    return fib(n)


ENTRY = "fibonacci"


def cases(rng: np.random.Generator) -> list[tuple]:
    # a scalar kernel: "size" is n itself
    return [(0,), (1,), (2,), (7,), (13,), (int(rng.integers(15, 21)),), (-3,)]  # -3 fails the assert


def bench_args(rng: np.random.Generator) -> tuple:
    return (26,)
