"""Sieve of Eratosthenes on a bool array: the number of primes <= n and the sieve itself (Project-Euler style)."""
import numpy as np

CATEGORY = "loop"


def sieve(n: int) -> tuple[int, np.ndarray[tuple[int], np.dtype[np.bool_]]]:
    assert n >= 0, "sieve: n must be non-negative"
    is_prime = np.ones(n + 1, dtype=np.bool_)
    is_prime[:min(2, n + 1)] = False
    p = 2
    while p * p <= n:
        if is_prime[p]:
            for m in range(p * p, n + 1, p):
                is_prime[m] = False
        p += 1
    count = 0
    for flag in is_prime:
        if flag:
            count += 1
    return count, is_prime


ENTRY = "sieve"


def cases(rng: np.random.Generator) -> list[tuple]:
    return [(0,), (1,), (2,), (3,), (97,), (100,), (int(rng.integers(1000, 9000)),), (-5,)]  # -5 fails the assert


def bench_args(rng: np.random.Generator) -> tuple:
    return (150_000,)
