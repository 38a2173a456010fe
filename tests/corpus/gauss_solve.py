"""Solve A x = b by Gaussian elimination with partial pivoting and back substitution, rows swapped through copies (Numerical Recipes / numpy.linalg.solve by hand)."""
import numpy as np

CATEGORY = "mixed"

Vec = np.ndarray[tuple[int], np.dtype[np.float64]]


def gauss_solve(a: np.ndarray[tuple[int, int], np.dtype[np.float64]], b: Vec) -> Vec:
    n = a.shape[0]
    assert a.shape[1] == n and b.shape[0] == n, "gauss_solve: shapes do not match"
    m = a.copy()
    rhs = b.copy()
    for k in range(n):
        p = k + int(np.argmax(np.abs(m[k:, k])))
        if abs(m[p, k]) < 1e-12:
            raise ValueError("gauss_solve: matrix is singular")
        if p != k:
            row = m[k].copy()
            m[k] = m[p]
            m[p] = row
            rhs[k], rhs[p] = rhs[p], rhs[k]
        for i in range(k + 1, n):
            f = m[i, k] / m[k, k]
            m[i, k:] -= f * m[k, k:]
            rhs[i] -= f * rhs[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (rhs[i] - np.dot(m[i, i + 1:], x[i + 1:])) / m[i, i]
    return x


ENTRY = "gauss_solve"
# elimination amplifies summation-order differences by the condition number
RTOL = 1e-6


def cases(rng: np.random.Generator) -> list[tuple]:
    def system(n):
        return rng.standard_normal((n, n)) + 2.0 * np.eye(n), rng.standard_normal(n)

    perm = np.array([[0.0, 2.0, 1.0], [1.0, 0.0, 0.0], [3.0, 1.0, 1.0]])
    singular = rng.standard_normal((4, 4))
    singular[3] = singular[0] + singular[1]
    return [
        (np.zeros((0, 0)), np.zeros(0)),
        (np.array([[2.0]]), np.array([3.0])),
        (perm, np.array([1.0, 2.0, 3.0])),
        system(7),
        system(31),
        system(97),
        (singular, np.ones(4)),  # singular: raises ValueError
        (np.eye(3), np.ones(4)),  # shape mismatch: fails the assert
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    n = 150
    return (rng.standard_normal((n, n)) + 2.0 * np.eye(n), rng.standard_normal(n))
